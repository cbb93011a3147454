"""Lords of Creation: terrain, cards, the board's geometry and the component
numbers read from ``components.yaml``.

The board is a hexagon of hexes indexed ``0..N-1`` (row by row, north to
south); neighbour tables are precomputed once per radius. Terrain-dependent
tables (who may move or attack where) are built once per finished world by
:func:`make_world` and shared by every clone of a state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from wdg.errors import DataError
from wdg.world.hexgrid import Hex, hex_range

COMPONENTS_FILE = Path(__file__).with_name("components.yaml")

GRASLAND, HUEGEL, WALD, INSEL, SEE, BERGE, WUESTE = range(7)
TERRAIN_NAMES = ("Grasland", "Hügel", "Wald", "Insel", "See", "Berge", "Wüste")
TERRAIN_CODES = "GHWISBU"
"""One letter per terrain for the board text (U = Wüste)."""
HABITABLE = (GRASLAND, HUEGEL, WALD, INSEL)
"""3.1: "Es gibt vier bewohnbare Geländetypen"."""
TIE_RANK = {INSEL: 0, HUEGEL: 1, WALD: 2, GRASLAND: 3}
"""3.2: "Bei Gleichstand entscheidet der Geländetyp ... 1. Insel 2. Hügel 3. Wald 4. Grasland"."""

NUM_VALUES = 5
NUM_CARD_TYPES = len(HABITABLE) * NUM_VALUES


def card_id(terrain: int, value: int) -> int:
    """The card type of ``terrain`` (a habitable terrain) and ``value`` 1..5."""
    return terrain * NUM_VALUES + value - 1


def card_terrain(card: int) -> int:
    """The terrain of a card type."""
    return card // NUM_VALUES


def card_value(card: int) -> int:
    """The value (number of counters) of a card type."""
    return card % NUM_VALUES + 1


def card_name(card: int) -> str:
    """``"Hügel 4"``."""
    return f"{TERRAIN_NAMES[card_terrain(card)]} {card_value(card)}"


@dataclass(frozen=True, slots=True)
class Components:
    """The component numbers of ``components.yaml``."""

    board_radius: int
    terrain_markers: tuple[int, ...]
    """Markers per terrain index in the bag."""
    deck: tuple[int, ...]
    """Cards per card type in the full deck."""
    hand_size: int
    counters_per_player: int


def _fail(key: str, found: object, expected: str) -> DataError:
    return DataError(str(COMPONENTS_FILE), key, found, expected)


def _positive_int(raw: dict, key: str) -> int:
    value = raw.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise _fail(key, value, "a positive integer")
    return value


@lru_cache(maxsize=None)
def load_components(path: Path = COMPONENTS_FILE) -> Components:
    """Read and validate the component file."""
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as exc:
        raise DataError(str(path), None, str(exc), "a readable YAML file") from exc
    if not isinstance(raw, dict):
        raise _fail("", raw, "a mapping")
    markers = raw.get("terrain_markers")
    if not isinstance(markers, dict) or sorted(markers) != sorted(TERRAIN_NAMES):
        raise _fail("terrain_markers", markers, f"a count for each of {list(TERRAIN_NAMES)!r}")
    counts = []
    for name in TERRAIN_NAMES:
        n = markers[name]
        if not isinstance(n, int) or n < 0:
            raise _fail(f"terrain_markers.{name}", n, "a non-negative integer")
        counts.append(n)
    cards = raw.get("people_cards")
    if not isinstance(cards, dict):
        raise _fail("people_cards", cards, "a mapping with stacks, values, copies_per_stack")
    stacks = _positive_int(cards, "stacks")
    copies = _positive_int(cards, "copies_per_stack")
    values = cards.get("values")
    if not isinstance(values, list) or not values or any(v not in range(1, NUM_VALUES + 1) for v in values):
        raise _fail("people_cards.values", values, "a list of values 1..5")
    deck = [0] * NUM_CARD_TYPES
    for t in HABITABLE:
        for v in values:
            deck[card_id(t, v)] += stacks * copies
    return Components(
        board_radius=_positive_int(raw, "board_radius"),
        terrain_markers=tuple(counts),
        deck=tuple(deck),
        hand_size=_positive_int(raw, "hand_size"),
        counters_per_player=_positive_int(raw, "counters_per_player"),
    )


@dataclass(frozen=True, slots=True)
class Geometry:
    """The empty board of one radius: hexes, their order and neighbours."""

    radius: int
    hexes: tuple[Hex, ...]
    """Hex of each index, row by row (r ascending), then q ascending."""
    adjacent: tuple[tuple[int, ...], ...]
    """The (up to six) adjacent indices of each index."""
    rows: tuple[tuple[int, ...], ...]
    """Indices of each board row, for printing."""

    @property
    def size(self) -> int:
        """Number of hexes."""
        return len(self.hexes)


@lru_cache(maxsize=None)
def geometry(radius: int) -> Geometry:
    """The board of ``radius`` (5: the 91-hex board)."""
    hexes = tuple(sorted(hex_range(Hex(0, 0), radius), key=lambda h: (h.r, h.q)))
    index = {h: i for i, h in enumerate(hexes)}
    adjacent = tuple(
        tuple(sorted(index[n] for n in h.neighbours() if n in index)) for h in hexes
    )
    rows: dict[int, list[int]] = {}
    for i, h in enumerate(hexes):
        rows.setdefault(h.r, []).append(i)
    return Geometry(radius, hexes, adjacent, tuple(tuple(rows[r]) for r in sorted(rows)))


@dataclass(frozen=True, slots=True)
class World:
    """A finished world (every hex has terrain) with its movement tables."""

    terrain: tuple[int, ...]
    move_targets: tuple[tuple[int, ...], ...]
    """3.6: hexes a stack may step to — adjacent hexes of the same terrain; for
    an Insel also the Inseln across one See hex."""
    attack_targets: tuple[tuple[int, ...], ...]
    """3.7: hexes a barbarian stack may attack — every adjacent hex; from an
    Insel also every hex across one See hex."""
    by_terrain: tuple[tuple[int, ...], ...]
    """The hexes of each terrain, ascending."""


def across_sea(geo: Geometry, terrain: tuple[int, ...], h: int) -> tuple[int, ...]:
    """Hexes at distance two from ``h`` with a See hex between them (adjacent
    to both)."""
    adj = geo.adjacent
    out = set()
    for s in adj[h]:
        if terrain[s] == SEE:
            for t in adj[s]:
                if t != h and t not in adj[h]:
                    out.add(t)
    return tuple(sorted(out))


def make_world(radius: int, terrain: tuple[int, ...]) -> World:
    """Build the movement tables of a full board."""
    geo = geometry(radius)
    move, attack = [], []
    for h in range(geo.size):
        adj = geo.adjacent[h]
        sea = across_sea(geo, terrain, h) if terrain[h] == INSEL else ()
        move.append(tuple(sorted(
            [t for t in adj if terrain[t] == terrain[h]] + [t for t in sea if terrain[t] == INSEL])))
        attack.append(tuple(sorted(adj + sea)))
    by_terrain = tuple(tuple(h for h in range(geo.size) if terrain[h] == t) for t in range(7))
    return World(terrain, tuple(move), tuple(attack), by_terrain)
