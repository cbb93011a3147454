"""The terrain table of the rule ("Die Geländearten") and the facts derived from it.

Each of the 32 terrain types has a height level ("Höhenstufe"), a tax value
("Steuerwert") and a colour. A type is made of one or two *components*: a
height base (Tiefland, Hochland, Bergland, Gebirge, Hochgebirge,
Gebirgsmassiv; or water: Meer, Küstengewässer) and optionally a feature
(Stromtal, See, Wald, Regenwald, Sumpf, Eiswüste, Sandwüste, Steppe, Vulkan).
"Zusammengesetzte Geländearten" are those with a feature; for them "gelten
... stets die Auswirkungen der ungünstigeren Einzelgeländeart".

Derived facts (water, land, coastal, difficult, seasonal closure, settlement
cost) are functions over the components, never copied lists.

Map files use a two-character code per gemark: the height letter
(``T H B G X M``; ``~`` for water) and the feature letter (``.`` for none,
``s e w r u i d p v``; water ``~M`` Meer, ``~K`` Küstengewässer).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from wdg.errors import InvalidInputError


class Component(Enum):
    """A single terrain ("Einzelgeländeart")."""

    MEER = "Meer"
    KUESTE = "Küstengewässer"
    TIEFLAND = "Tiefland"
    HOCHLAND = "Hochland"
    BERGLAND = "Bergland"
    GEBIRGE = "Gebirge"
    HOCHGEBIRGE = "Hochgebirge"
    GEBIRGSMASSIV = "Gebirgsmassiv"
    STROMTAL = "Stromtal"
    SEE = "See"
    WALD = "Wald"
    REGENWALD = "Regenwald"
    SUMPF = "Sumpf"
    EISWUESTE = "Eiswüste"
    SANDWUESTE = "Sandwüste"
    STEPPE = "Steppe"
    VULKAN = "Vulkan"


C = Component

# Table "Schwieriges Gelände": components with losses, with the danger of
# getting lost, and the months in which they cannot be entered.
_LOSSES = frozenset({C.STROMTAL, C.SEE, C.REGENWALD, C.SUMPF, C.EISWUESTE, C.SANDWUESTE,
                     C.VULKAN, C.GEBIRGE, C.HOCHGEBIRGE, C.GEBIRGSMASSIV})
_GET_LOST = frozenset({C.REGENWALD, C.SUMPF, C.EISWUESTE, C.SANDWUESTE})
_DIFFICULT = _LOSSES | {C.BERGLAND}
_CLOSED_MONTHS: dict[Component, frozenset[int]] = {
    C.STROMTAL: frozenset({4, 5, 6}),            # Allgemeine Regeln (f)
    C.BERGLAND: frozenset({1, 2, 3}),            # (g)
    C.GEBIRGE: frozenset({1, 2, 3}),             # (g)
    C.HOCHGEBIRGE: frozenset({1, 2, 3, 4, 5, 6}),    # (h)
    C.GEBIRGSMASSIV: frozenset({1, 2, 3, 4, 5, 6}),  # (h)
}
# "Die Siedlung" (c): cost per Baueinheit doubles in Sumpf, Sandwüste,
# Eiswüste, Regenwald, Bergland; triples in Gebirge, Hochgebirge,
# Gebirgsmassiv; no settlement at all in Vulkan.
_SETTLEMENT_FACTOR: dict[Component, int] = {
    C.SUMPF: 2, C.SANDWUESTE: 2, C.EISWUESTE: 2, C.REGENWALD: 2, C.BERGLAND: 2,
    C.GEBIRGE: 3, C.HOCHGEBIRGE: 3, C.GEBIRGSMASSIV: 3,
}

_HEIGHT_LETTER = {C.TIEFLAND: "T", C.HOCHLAND: "H", C.BERGLAND: "B", C.GEBIRGE: "G",
                  C.HOCHGEBIRGE: "X", C.GEBIRGSMASSIV: "M"}
_FEATURE_LETTER = {C.STROMTAL: "s", C.SEE: "e", C.WALD: "w", C.REGENWALD: "r", C.SUMPF: "u",
                   C.EISWUESTE: "i", C.SANDWUESTE: "d", C.STEPPE: "p", C.VULKAN: "v"}


@dataclass(frozen=True, slots=True)
class Terrain:
    """One row of the rule's terrain table."""

    id: int
    """Index in :data:`TERRAINS` (the value stored in the terrain layer)."""
    name: str
    height: int
    tax: int
    colour: str
    """The rule's colour ("Farbe") in German, e.g. ``"olivgrün / hellbrauner Rand"``."""
    fill: str
    """SVG fill colour of the feature (or of the base for simple types)."""
    rim: str | None
    """SVG rim colour of the height base for composite types, else ``None``."""
    components: tuple[Component, ...]
    code: str
    """Two-character map code, e.g. ``"Hw"`` for Hochlandwald."""

    @property
    def base(self) -> Component:
        """The height base (or water type)."""
        return self.components[0]

    @property
    def feature(self) -> Component | None:
        """The feature component of a composite type, else ``None``."""
        return self.components[1] if len(self.components) > 1 else None

    @property
    def is_composite(self) -> bool:
        """True for "zusammengesetzte Geländearten" (two components)."""
        return len(self.components) == 2

    def __str__(self) -> str:
        return self.name


_FILL = {
    "hellblau": "#a9d8f5", "mittelblau": "#5b9bd5", "grün": "#7cc36a", "blau": "#3c78d8",
    "türkis": "#40c8c0", "dunkelgrün": "#2e7d32", "olivgrün": "#7a8b2a", "violett": "#8e6bbf",
    "graugrün": "#a3b5a0", "gelb": "#f2d95c", "hellgrün": "#c5e38a", "hellbraun": "#d2b48c",
    "dunkelbraun": "#8b5a2b", "hellbraunrot": "#b5654a", "dunkelbraunrot": "#7b3325",
    "dunkelgrau": "#555555", "rot": "#d62d20",
}

# The rule's table, row by row: name, height, tax, colour, components.
_TABLE: list[tuple[str, int, int, str, tuple[Component, ...]]] = [
    ("Meer", 0, 0, "hellblau", (C.MEER,)),
    ("Küstengewässer", 0, 0, "mittelblau", (C.KUESTE,)),
    ("Tiefland", 1, 600, "grün", (C.TIEFLAND,)),
    ("Tieflandstromtal", 1, 600, "blau", (C.TIEFLAND, C.STROMTAL)),
    ("Tieflandsee", 1, 400, "türkis", (C.TIEFLAND, C.SEE)),
    ("Tieflandwald", 1, 400, "dunkelgrün", (C.TIEFLAND, C.WALD)),
    ("Tieflandregenwald", 1, 200, "olivgrün", (C.TIEFLAND, C.REGENWALD)),
    ("Tieflandsumpf", 1, 200, "violett", (C.TIEFLAND, C.SUMPF)),
    ("Tieflandeiswüste", 1, 200, "graugrün", (C.TIEFLAND, C.EISWUESTE)),
    ("Tieflandsandwüste", 1, 200, "gelb", (C.TIEFLAND, C.SANDWUESTE)),
    ("Tieflandsteppe", 1, 300, "hellgrün", (C.TIEFLAND, C.STEPPE)),
    ("Hochland", 2, 400, "hellbraun", (C.HOCHLAND,)),
    ("Hochlandstromtal", 2, 400, "blau / hellbrauner Rand", (C.HOCHLAND, C.STROMTAL)),
    ("Hochlandsee", 2, 300, "türkis / hellbrauner Rand", (C.HOCHLAND, C.SEE)),
    ("Hochlandwald", 2, 300, "dunkelgrün / hellbrauner Rand", (C.HOCHLAND, C.WALD)),
    ("Hochlandregenwald", 2, 150, "olivgrün / hellbrauner Rand", (C.HOCHLAND, C.REGENWALD)),
    ("Hochlandsumpf", 2, 150, "violett / hellbrauner Rand", (C.HOCHLAND, C.SUMPF)),
    ("Hochlandeiswüste", 2, 150, "graugrün / hellbrauner Rand", (C.HOCHLAND, C.EISWUESTE)),
    ("Hochlandsandwüste", 2, 150, "gelb / hellbrauner Rand", (C.HOCHLAND, C.SANDWUESTE)),
    ("Hochlandsteppe", 2, 225, "hellgrün / hellbrauner Rand", (C.HOCHLAND, C.STEPPE)),
    ("Hochlandvulkan", 2, 20, "rot / hellbrauner Rand", (C.HOCHLAND, C.VULKAN)),
    ("Bergland", 3, 200, "dunkelbraun", (C.BERGLAND,)),
    ("Berglandwald", 3, 100, "dunkelgrün / dunkelbrauner Rand", (C.BERGLAND, C.WALD)),
    ("Berglandregenwald", 3, 50, "olivgrün / dunkelbrauner Rand", (C.BERGLAND, C.REGENWALD)),
    ("Berglandeiswüste", 3, 50, "graugrün / dunkelbrauner Rand", (C.BERGLAND, C.EISWUESTE)),
    ("Berglandvulkan", 3, 10, "rot / dunkelbrauner Rand", (C.BERGLAND, C.VULKAN)),
    ("Gebirge", 4, 100, "hellbraunrot", (C.GEBIRGE,)),
    ("Gebirgseiswüste", 4, 25, "graugrün / hellbraunroter Rand", (C.GEBIRGE, C.EISWUESTE)),
    ("Gebirgsvulkan", 4, 1, "rot / hellbraunroter Rand", (C.GEBIRGE, C.VULKAN)),
    ("Hochgebirge", 5, 20, "dunkelbraunrot", (C.HOCHGEBIRGE,)),
    ("Hochgebirgseiswüste", 5, 5, "graugrün / dunkelbraunroter Rand", (C.HOCHGEBIRGE, C.EISWUESTE)),
    ("Gebirgsmassiv", 6, 2, "dunkelgrau", (C.GEBIRGSMASSIV,)),
]

_RIM_OF_BASE = {C.HOCHLAND: "hellbraun", C.BERGLAND: "dunkelbraun", C.GEBIRGE: "hellbraunrot",
                C.HOCHGEBIRGE: "dunkelbraunrot"}


def _code(components: tuple[Component, ...]) -> str:
    base = components[0]
    if base is C.MEER:
        return "~M"
    if base is C.KUESTE:
        return "~K"
    feat = components[1] if len(components) > 1 else None
    return _HEIGHT_LETTER[base] + (_FEATURE_LETTER[feat] if feat else ".")


def _build() -> tuple[Terrain, ...]:
    out = []
    for i, (name, height, tax, colour, comps) in enumerate(_TABLE):
        fill_name = colour.split(" / ")[0]
        rim = _FILL[_RIM_OF_BASE[comps[0]]] if len(comps) > 1 and comps[0] in _RIM_OF_BASE else None
        out.append(Terrain(i, name, height, tax, colour, _FILL[fill_name], rim, comps, _code(comps)))
    return tuple(out)


TERRAINS: tuple[Terrain, ...] = _build()
"""All 32 terrain types, in the order of the rule's table."""

BY_NAME: dict[str, Terrain] = {t.name: t for t in TERRAINS}
BY_CODE: dict[str, Terrain] = {t.code: t for t in TERRAINS}

MEER = BY_NAME["Meer"]
KUESTENGEWAESSER = BY_NAME["Küstengewässer"]
TIEFLAND = BY_NAME["Tiefland"]


def terrain(key: int | str) -> Terrain:
    """Look up a terrain by id, map code or name (names: umlauts or ae/oe/ue,
    any case)."""
    if isinstance(key, (int, np.integer)):
        if 0 <= int(key) < len(TERRAINS):
            return TERRAINS[int(key)]
        raise InvalidInputError(f"unbekannte Gelände-Nummer {key!r}; erwartet 0..{len(TERRAINS) - 1}")
    if key in BY_CODE:
        return BY_CODE[key]
    folded = _fold(key)
    for t in TERRAINS:
        if _fold(t.name) == folded:
            return t
    raise InvalidInputError(
        f"unbekanntes Gelände {key!r}; erwartet einen Namen aus der Tabelle der Regel oder "
        f"einen Kartencode wie 'T.', 'Hw', '~M'"
    )


def _fold(s: str) -> str:
    s = s.strip().lower().replace("-", "").replace(" ", "")
    return s.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")


# --- derived facts -----------------------------------------------------------

def is_water(t: Terrain) -> bool:
    """A "Wassergemark": Meer or Küstengewässer."""
    return t.base in (C.MEER, C.KUESTE)


def is_land(t: Terrain) -> bool:
    """A "Landgemark": every gemark that is not a water gemark."""
    return not is_water(t)


def has(t: Terrain, component: Component) -> bool:
    """True if the terrain has ``component`` (as base or feature)."""
    return component in t.components


def is_difficult(t: Terrain) -> bool:
    """"Schwieriges Gelände": any component listed in the rule's table."""
    return any(c in _DIFFICULT for c in t.components)


def loss_components(t: Terrain) -> tuple[Component, ...]:
    """The components that cause losses; for composite types the losses of
    both components add up ("die addierten Verluste beider Einzelgeländearten")."""
    return tuple(c for c in t.components if c in _LOSSES)


def causes_losses(t: Terrain) -> bool:
    """True if an army moving into this terrain suffers losses."""
    return bool(loss_components(t))


def can_get_lost(t: Terrain) -> bool:
    """"Gefahr des Verirrens": Regenwald, Sumpf, Eiswüste, Sandwüste
    (Allgemeine Regeln (e))."""
    return any(c in _GET_LOST for c in t.components)


def closed_months(t: Terrain) -> frozenset[int]:
    """Months (1-12) in which the terrain cannot be entered; a composite type
    takes the worse component, i.e. the union of both closures."""
    out: frozenset[int] = frozenset()
    for c in t.components:
        out |= _CLOSED_MONTHS.get(c, frozenset())
    return out


def closed_reason(t: Terrain, month: int) -> str | None:
    """Why terrain ``t`` may not be entered in ``month`` ("Allgemeine Regeln"
    (f): "In den Monden des Frühjahres (4-6) kann die Geländeart Stromtal nicht
    betreten werden", (g), (h)), or ``None``: the engine's ``vs`` and the
    checker ask this one function."""
    if is_closed(t, month):
        return f"{t.name} kann in diesem Mond nicht betreten werden (Allgemeine Regeln (f)-(h))"
    return None


def is_closed(t: Terrain, month: int) -> bool:
    """True if the terrain cannot be entered in ``month`` (1-12)."""
    return month in closed_months(t)


def settlement_cost_factor(t: Terrain) -> int | None:
    """Multiplier of the 1,000 GS per Baueinheit ("Die Siedlung" (c)): 1, 2 or 3
    (a composite takes the worse component); ``None`` where no settlement may
    stand (Vulkan, and water)."""
    if is_water(t) or has(t, C.VULKAN):
        return None
    return max((_SETTLEMENT_FACTOR.get(c, 1) for c in t.components), default=1)


SHIP_HEIGHT = 1
""""Allgemeine Regeln für Heere" (q): "Beim Ein- und Ausschiffen werden Schiffe wie
Landgemarken der Höhenstufe 1 behandelt" — so, by "Die Bewegung" ("immer nur Gemarken
der direkt darüber- oder darunterliegende Höhenstufe"), an army boards or leaves a
fleet only from or to a gemark of height 1 or 2."""


def ship_step_ok(height: int) -> bool:
    """True if an army may step between a ship and a gemark of ``height`` ((q))."""
    return abs(height - SHIP_HEIGHT) <= 1


# --- numpy views over a terrain layer -----------------------------------------

HEIGHTS = np.array([t.height for t in TERRAINS], dtype=np.int8)
"""Height level by terrain id (index a terrain layer with it)."""
TAXES = np.array([t.tax for t in TERRAINS], dtype=np.int32)
"""Tax value by terrain id."""
WATER = np.array([is_water(t) for t in TERRAINS], dtype=bool)
"""True by terrain id for water gemarks."""


def coastal_mask(layer: np.ndarray) -> np.ndarray:
    """Boolean mask of "Küstengemarken": land gemarks of height level 1 that
    border at least one water gemark (on an odd-r offset layer)."""
    water = WATER[layer]
    near_water = np.zeros_like(water)
    rows, cols = layer.shape
    for r in range(rows):
        # odd-r: neighbours of row r in rows r-1/r+1 are at columns c-1,c (even r)
        # or c,c+1 (odd r).
        shift = 0 if r % 2 == 0 else 1
        acc = np.zeros(cols, dtype=bool)
        acc[1:] |= water[r, :-1]
        acc[:-1] |= water[r, 1:]
        for rr in (r - 1, r + 1):
            if 0 <= rr < rows:
                a = water[rr]
                lo, hi = shift - 1, shift  # column offsets
                for off in (lo, hi):
                    if off < 0:
                        acc[-off:] |= a[:off]
                    elif off > 0:
                        acc[:-off] |= a[off:]
                    else:
                        acc |= a
        near_water[r] = acc
    return near_water & ~water & (HEIGHTS[layer] == 1)
