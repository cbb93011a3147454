"""Deck, region map and site table of Empires of Middle-earth.

The deck (``data/deck.yaml``) and the map (``data/regions.yaml``) are plain
YAML read with the safe loader (libyaml's when present); every card is checked and turned into a
frozen :class:`Card`. A game master may pass his own files in the same
format (game parameters ``deck_file`` and ``map_file``). Distances between
regions (in regions, the unit of the rule's penalties) are precomputed once
per map.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The safe YAML loader, libyaml's (C) when installed."""

from wdg.games.base import GameError

DATA_DIR = Path(__file__).parent / "data"
BUILTIN = "builtin:"
"""Prefix of the shipped data files in parameters, so that records and
playthroughs name no machine-specific path."""
DEFAULT_DECK = BUILTIN + "deck.yaml"
DEFAULT_MAP = BUILTIN + "regions.yaml"


def resolve_data_path(path: str) -> Path:
    """``builtin:<name>`` -> the shipped file; anything else as given."""
    if path.startswith(BUILTIN):
        return DATA_DIR / path[len(BUILTIN):]
    return Path(path)

HERO, MINION = 0, 1
EDITIONS = {"hero": HERO, "minion": MINION}
KINDS = ("character", "army", "prisoners", "key", "influence", "hazard", "support")
HAZARD_EFFECTS = {"dissolve_army": "max_strength", "return_character": "max_mind"}
OPTIONS = ("agents", "shadow_army", "liberation", "event_cards")
NO_REGION = -1
"""Region of an army without home site (freed prisoners)."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the deck; fields not used by its kind stay at defaults."""

    id: int
    kind: str
    name: str
    edition: int = HERO
    mind: int = 0
    di: int = 0
    homes: tuple[int, ...] = ()
    agent: bool = False
    strength: int = 0
    influence: int = 0
    region: int = NO_REGION
    cost: int = 0
    helpers: int = 0
    bonus: int = 0
    effect: str = ""
    limit: int = 0
    needs_character: str = ""
    needs_card: str = ""


@dataclass(frozen=True)
class MiddleEarth:
    """Regions with adjacency, the site table, and all region distances."""

    regions: tuple[str, ...]
    mountain: tuple[bool, ...]
    adjacent: tuple[tuple[int, ...], ...]
    sites: tuple[str, ...]
    site_region: tuple[int, ...]
    dist: tuple[tuple[int, ...], ...] = field(repr=False)

    def site_index(self, name: str, path: str, key: str) -> int:
        """The index of site ``name``; a :class:`GameError` naming file and key if unknown."""
        try:
            return self.sites.index(name)
        except ValueError:
            raise GameError(f"{path}: {key}: unknown site {name!r}; expected one of "
                            f"the site table in the map file") from None


def _bfs(adjacent: tuple[tuple[int, ...], ...], start: int) -> list[int]:
    far = len(adjacent) + 1
    dist = [far] * len(adjacent)
    dist[start] = 0
    queue = deque([start])
    while queue:
        r = queue.popleft()
        for s in adjacent[r]:
            if dist[s] == far:
                dist[s] = dist[r] + 1
                queue.append(s)
    return dist


def _load_yaml(path: str) -> Any:
    try:
        with open(resolve_data_path(path), encoding="utf-8") as fh:
            return yaml.load(fh, Loader=_LOADER)
    except OSError as exc:
        raise GameError(f"{path!r} kann nicht gelesen werden: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise GameError(f"{path}: kein gültiges YAML: {exc}") from None


@lru_cache(maxsize=8)
def load_map(path: str = DEFAULT_MAP) -> MiddleEarth:
    """Read and check a region map with its site table."""
    doc = _load_yaml(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("regions"), dict) \
            or not isinstance(doc.get("sites"), dict):
        raise GameError(f"{path}: expected mappings 'regions' and 'sites'")
    names = tuple(str(n) for n in doc["regions"])
    index = {n: i for i, n in enumerate(names)}
    adj: list[set[int]] = [set() for _ in names]
    mountain = []
    for name, spec in doc["regions"].items():
        spec = spec or {}
        for other in spec.get("adjacent", []):
            if other not in index:
                raise GameError(f"{path}: regions.{name}.adjacent: unknown region {other!r}")
            adj[index[name]].add(index[other])
            adj[index[other]].add(index[name])
        mountain.append(bool(spec.get("mountain", False)))
    sites, site_region = [], []
    for site, region in doc["sites"].items():
        if region not in index:
            raise GameError(f"{path}: sites.{site}: unknown region {region!r}")
        sites.append(str(site))
        site_region.append(index[region])
    adjacent = tuple(tuple(sorted(a)) for a in adj)
    dist = tuple(tuple(_bfs(adjacent, r)) for r in range(len(names)))
    return MiddleEarth(names, tuple(mountain), adjacent, tuple(sites), tuple(site_region), dist)


def _req(spec: dict[str, Any], key: str, typ: type, path: str, where: str) -> Any:
    if key not in spec:
        raise GameError(f"{path}: {where}: missing key {key!r}")
    value = spec[key]
    if typ is int and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise GameError(f"{path}: {where}.{key}: expected a whole number >= 0, got {value!r}")
    if typ is str and not isinstance(value, str):
        raise GameError(f"{path}: {where}.{key}: expected text, got {value!r}")
    return value


def _edition(spec: dict[str, Any], path: str, where: str) -> int:
    ed = spec.get("edition")
    if ed not in EDITIONS:
        raise GameError(f"{path}: {where}.edition: expected 'hero' or 'minion', got {ed!r}")
    return EDITIONS[ed]


def _card(cid: int, spec: dict[str, Any], me: MiddleEarth, path: str, pos: int) -> Card:
    where = f"cards[{pos}]"
    kind = spec.get("kind")
    if kind not in KINDS:
        raise GameError(f"{path}: {where}.kind: expected one of {KINDS!r}, got {kind!r}")
    name = _req(spec, "name", str, path, where)
    if kind == "character":
        homes = spec.get("homes")
        if not isinstance(homes, list) or not homes:
            # "Ein Charakter ohne Heimatort kann nicht im Spielstapel aufgenommen werden."
            raise GameError(f"{path}: {where}.homes: a character needs at least one home site, "
                            f"got {homes!r}")
        return Card(cid, kind, name, _edition(spec, path, where), _req(spec, "mind", int, path, where),
                    _req(spec, "di", int, path, where),
                    tuple(me.site_index(h, path, f"{where}.homes") for h in homes),
                    bool(spec.get("agent", False)))
    if kind == "army":
        site = me.site_index(_req(spec, "home", str, path, where), path, f"{where}.home")
        region = me.site_region[site]
        if "region" in spec and spec["region"] != me.regions[region]:
            raise GameError(f"{path}: {where}.region: {spec['region']!r} disagrees with the site "
                            f"table ({me.sites[site]!r} lies in {me.regions[region]!r})")
        needs = spec.get("needs") or {}
        return Card(cid, kind, name, _edition(spec, path, where), homes=(site,),
                    strength=_req(spec, "strength", int, path, where),
                    influence=_req(spec, "influence", int, path, where), region=region,
                    needs_character=str(needs.get("character", "")),
                    needs_card=str(needs.get("card", "")))
    if kind == "prisoners":
        return Card(cid, kind, name, _edition(spec, path, where),
                    strength=_req(spec, "strength", int, path, where),
                    cost=_req(spec, "cost", int, path, where),
                    helpers=_req(spec, "helpers", int, path, where))
    if kind in ("influence", "support"):
        return Card(cid, kind, name, bonus=_req(spec, "bonus", int, path, where))
    if kind == "hazard":
        effect = spec.get("effect")
        if effect not in HAZARD_EFFECTS:
            raise GameError(f"{path}: {where}.effect: expected one of "
                            f"{sorted(HAZARD_EFFECTS)!r}, got {effect!r}")
        return Card(cid, kind, name, effect=effect,
                    limit=_req(spec, HAZARD_EFFECTS[effect], int, path, where))
    return Card(cid, kind, name)


def load_deck(path: str, me: MiddleEarth, options: frozenset[str]) -> tuple[Card, ...]:
    """Read a deck file; cards whose ``option`` is not in ``options`` are left out."""
    doc = _load_yaml(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("cards"), list):
        raise GameError(f"{path}: expected a list 'cards'")
    cards: list[Card] = []
    for i, spec in enumerate(doc["cards"]):
        if not isinstance(spec, dict):
            raise GameError(f"{path}: cards[{i}]: expected a mapping, got {spec!r}")
        opt = spec.get("option")
        if opt is not None and opt not in OPTIONS:
            raise GameError(f"{path}: cards[{i}].option: expected one of {OPTIONS!r}, got {opt!r}")
        if opt is not None and opt not in options:
            continue
        cards.append(_card(len(cards), spec, me, path, i))
    names = [c.name for c in cards]
    for c in cards:
        if c.needs_card and c.needs_card not in names:
            raise GameError(f"{path}: card {c.name!r} needs card {c.needs_card!r}, not in the deck")
    if not cards:
        raise GameError(f"{path}: the deck is empty")
    return tuple(cards)
