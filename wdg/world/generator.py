"""The segment generator: a plausible start of a game from a seed.

:func:`generate_segment` builds the terrain (:mod:`wdg.world.landscape`),
places the kingdoms far apart (farthest-point sampling on coastal lowland),
gives each a Dorf with Kaserne and Palast (and a Hafen on the coast), the
ring of gemarks around it, a treasury, armies and a general's offer; adds
city states, militia everywhere by terrain, creatures and each kingdom's
known map. The same arguments give the same segment (and, saved, the same
bytes): every random decision draws from one generator seeded with ``seed``.

The starting numbers the rule text leaves open are the constants below
(documented in docs/storage.md, "The generator").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wdg.errors import InvalidInputError
from wdg.rules import Rules, shipped_rules
from wdg.world.address import Grid
from wdg.world.deposits import place as place_deposits
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Hex
from wdg.world.landscape import make_terrain
from wdg.world.neighbours import distances_from
from wdg.world.passwords import generate_password, hash_password, known_password_hash
from wdg.world.state import (
    BUILDING_ORDER,
    Army,
    ArmyStatus,
    Building,
    Creature,
    General,
    GeneralOffer,
    Kingdom,
    Player,
    Segment,
    TroopType,
    empty_layers,
    new_known_map,
)
from wdg.world.terrain import BY_NAME, HEIGHTS, TERRAINS, WATER, Component, coastal_mask

START_TREASURY = 250_000
"""Goldsterne in a new kingdom's Reichsschatz (enough for a Hafen and a few recruits)."""
CITY_STATE_TREASURY = 100_000
POPULATION_CAP = {Component.TIEFLAND: 50_000, Component.HOCHLAND: 25_000,
                  Component.BERGLAND: 15_000, Component.GEBIRGE: 10_000,
                  Component.HOCHGEBIRGE: 5_000, Component.GEBIRGSMASSIV: 2_000}
"""Inhabitants per gemark by height base (RULES-NOTES.md, later editions)."""
FEATURE_SHARE = {Component.WALD: 0.6, Component.REGENWALD: 0.3, Component.SUMPF: 0.3,
                 Component.EISWUESTE: 0.15, Component.SANDWUESTE: 0.15,
                 Component.STEPPE: 0.6, Component.STROMTAL: 1.0, Component.SEE: 0.8,
                 Component.VULKAN: 0.1}
"""Share of the base's cap for composite terrains ("forest, swamp ... lower")."""
MILITIA_SHARE = 0.1
"""Militia is "normally at most a tenth of the inhabitants"."""
CREATURE_KINDS = ("drache", "riesenadler", "seeschlange", "troll", "untote")


FIRST_MONTH = MonthDate(412, 4)
"""The first month a new segment plays (spring 412)."""


@dataclass(frozen=True, slots=True)
class Options:
    """Everything :func:`generate_segment` takes besides name and size."""

    kingdoms: int
    seed: int
    city_states: int = 2
    armies_per_kingdom: int = 4
    active_per_kingdom: int = 1
    creatures: int = 5
    capital_radius: int = 1
    start: MonthDate = FIRST_MONTH
    demo_passwords: bool = False


def generate_segment(name: str, prov_cols: int, prov_rows: int, kingdoms: int, seed: int, *,
                     city_states: int = 2, armies_per_kingdom: int = 4,
                     active_per_kingdom: int = 1, creatures: int = 5, capital_radius: int = 1,
                     start: MonthDate = FIRST_MONTH,
                     demo_passwords: bool = False,
                     rules: Rules | None = None) -> tuple[Segment, dict[int, str]]:
    """A new segment and the plain passwords of its kingdoms (shown once to the
    game master, stored only as hashes). Kingdoms are numbered 1..N, city
    states N+1..; kingdom k's armies k*100+1 ... (``demo_passwords`` gives the
    fixed passwords ``<name>-<k>``). Deposits ("Bodenschätze") are placed by
    the table of ``rules`` (default: the shipped rules files) when it has
    deposits.yaml (:func:`wdg.world.deposits.place`, its own generator)."""
    opts = Options(kingdoms, seed, city_states, armies_per_kingdom, active_per_kingdom,
                   creatures, capital_radius, start, demo_passwords)
    _check(opts)
    rng = np.random.default_rng(seed)
    grid = Grid(prov_cols, prov_rows)
    layers = empty_layers(grid)
    layers["terrain"] = make_terrain(rng, grid.shape)
    seg = Segment(name=name, title=name.replace("-", " ").replace("_", " ").title(), seed=seed,
                  date=start, grid=grid, **layers)
    sites = _place_capitals(rng, seg, kingdoms + city_states)
    passwords: dict[int, str] = {}
    for i, (row, col) in enumerate(sites):
        number = i + 1
        city = number > kingdoms
        _found_realm(rng, seg, number, (row, col), city, opts)
        if not city:
            # The draws the generator made for passwords and salts before
            # issue #30 are still made and thrown away, so that a seed gives the
            # same world as before; passwords now come from the OS's CSPRNG.
            if not demo_passwords:
                rng.integers(0, 20, size=3)
                rng.integers(10, 100)
            salt = bytes(rng.integers(0, 256, size=16, dtype=np.uint8))
            if demo_passwords:  # known to everybody: a deterministic, cheap hash
                passwords[number] = f"{name}-{number}"
                hashed = known_password_hash(passwords[number], salt)
            else:
                passwords[number] = generate_password()
                hashed = hash_password(passwords[number])
            player = seg.kingdoms[number].player
            assert player is not None  # _found_realm gives every kingdom but a city state one
            player.password_hash = hashed
    _set_militia(rng, seg)
    _add_diplomacy(seg, sites[:kingdoms])
    for k in range(1, kingdoms + 1):
        _add_armies(rng, seg, k, opts)
    _add_creatures(rng, seg, creatures)
    for k in seg.kingdoms:
        _init_known(seg, k, opts.capital_radius + 1)
    seg.deposits = place_deposits(seg, rules if rules is not None else shipped_rules())
    return seg, passwords



MAX_KINGDOMS = 99
"""Kingdoms and city states together: an army's four-digit number is kingdom x 100 +
1..99 (``0101`` is kingdom 1's first army), so kingdom numbers stop at 99."""
MAX_ARMIES_PER_KINGDOM = 99
"""Armies per kingdom: the last two digits of the four-digit army number."""


def _check(o: Options) -> None:
    if not 1 <= o.kingdoms + o.city_states <= MAX_KINGDOMS or o.kingdoms < 0 \
            or o.city_states < 0:
        raise InvalidInputError(
            f"Reiche + Stadtstaaten müssen 1..{MAX_KINGDOMS} sein, nicht {o.kingdoms} + "
            f"{o.city_states}: Heeresnummern haben vier Ziffern, Reich x 100 + 1..99, also "
            f"gibt es höchstens {MAX_KINGDOMS} Reichsnummern")
    if not 1 <= o.armies_per_kingdom <= MAX_ARMIES_PER_KINGDOM:
        raise InvalidInputError(
            f"Heere je Reich müssen 1..{MAX_ARMIES_PER_KINGDOM} sein, nicht "
            f"{o.armies_per_kingdom}: die Nummer eines Heeres ist Reich x 100 + 1..99")
    if not 1 <= o.active_per_kingdom <= o.armies_per_kingdom:
        raise InvalidInputError(f"aktive Heere je Reich müssen 1..{o.armies_per_kingdom} sein, "
                                f"nicht {o.active_per_kingdom}")
    if o.creatures < 0 or o.capital_radius not in (1, 2):
        raise InvalidInputError("Kreaturen müssen >= 0 sein und der Hauptstadtradius 1 oder 2")


# --- names -------------------------------------------------------------------------

_STEMS = ("Ar", "Bel", "Cor", "Dun", "El", "Fal", "Gar", "Hel", "Is", "Kar", "Lor", "Mor",
          "Nor", "Or", "Ral", "Sil", "Tor", "Ul", "Var", "Wen", "Zar", "Thal", "Bren", "Dor")
_MIDS = ("a", "e", "i", "o", "an", "en", "ar", "il", "un", "ed")
_ENDS = ("burg", "heim", "dorf", "stadt", "feld", "tal", "stein", "au", "hall", "mund", "wald")
_FIRST = ("Aldo", "Berengar", "Cilian", "Dagmar", "Edwin", "Fenja", "Gunther", "Hedda",
          "Ingo", "Jorin", "Kunigunde", "Lothar", "Mechthild", "Notker", "Odila", "Radulf",
          "Sigrun", "Tankred", "Ulla", "Wido")


def _place_name(rng: np.random.Generator) -> str:
    parts = (_STEMS[rng.integers(len(_STEMS))], _MIDS[rng.integers(len(_MIDS))],
             _ENDS[rng.integers(len(_ENDS))])
    return "".join(parts)


def _person(rng: np.random.Generator) -> str:
    return str(_FIRST[rng.integers(len(_FIRST))])


# --- capitals and realms ------------------------------------------------------------

def _place_capitals(rng: np.random.Generator, seg: Segment, n: int) -> list[tuple[int, int]]:
    """Farthest-point sampling: each new capital on the good gemark farthest
    from those already chosen (coastal lowland if there is enough of it)."""
    heights = HEIGHTS[seg.terrain]
    coastal = coastal_mask(seg.terrain)
    good = np.isin(seg.terrain, [BY_NAME[x].id for x in ("Tiefland", "Tieflandsteppe",
                                                          "Tieflandwald", "Tieflandstromtal")])
    for cand in (coastal & good, coastal, good, heights == 1, ~WATER[seg.terrain]):
        if int(cand.sum()) >= 2 * n:
            break
    spots = np.argwhere(cand)
    if len(spots) < n:
        raise InvalidInputError(f"die Karte hat nur Platz für {len(spots)} Hauptstädte, {n} "
                                "verlangt; mehr Provinzen oder weniger Reiche angeben")
    jitter = rng.random(len(spots)) * 0.5
    qs = spots[:, 1] - (spots[:, 0] - (spots[:, 0] & 1)) // 2
    rs = spots[:, 0]
    chosen = [int(rng.integers(len(spots)))]
    nearest = np.full(len(spots), np.inf)
    for _ in range(n - 1):
        last = chosen[-1]
        dq, dr = qs - qs[last], rs - rs[last]
        nearest = np.minimum(nearest, (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2)
        chosen.append(int(np.argmax(nearest + jitter)))
    return [(int(spots[i, 0]), int(spots[i, 1])) for i in chosen]


def _found_realm(rng: np.random.Generator, seg: Segment, number: int, site: tuple[int, int],
                 city: bool, o: Options) -> None:
    row, col = site
    seg.terrain[row, col] = BY_NAME["Tiefland"].id if HEIGHTS[seg.terrain[row, col]] == 1 \
        else seg.terrain[row, col]
    capital = seg.grid.hex_at(row, col)
    town = _place_name(rng)
    size = int(rng.integers(300, 400)) if not city else int(rng.integers(200, 400))
    seg.settlement[row, col] = size
    seg.settlement_names[capital] = town
    levels = {Building.KASERNE: 1, Building.PALAST: 1}
    if coastal_mask(seg.terrain)[row, col]:
        levels[Building.HAFEN] = 1
    for b, lv in levels.items():
        seg.buildings[BUILDING_ORDER.index(b), row, col] = lv
    dist = distances_from(capital.q, capital.r, *seg.grid.shape)
    ring = (dist <= o.capital_radius) & (seg.owner == 0) & ~WATER[seg.terrain]
    seg.owner[ring] = number
    ruler = _person(rng)
    seg.kingdoms[number] = Kingdom(
        number=number,
        name=town if city else f"Reich {_place_name(rng)}",
        ruler=f"{ruler} von {town}",
        player=None if city else Player(f"Spieler {number}", f"reich{number}@example.org",
                                        seg.settings.default_contact),
        city_state=city,
        treasury=CITY_STATE_TREASURY if city else START_TREASURY,
    )


def _set_militia(rng: np.random.Generator, seg: Segment) -> None:
    cap = np.zeros(len(TERRAINS))
    for t in TERRAINS:
        if t.base in POPULATION_CAP:
            cap[t.id] = POPULATION_CAP[t.base] * (FEATURE_SHARE[t.feature] if t.feature else 1.0)
    people = cap[seg.terrain] * rng.uniform(0.4, 0.8, size=seg.grid.shape)
    people += seg.settlement * 100.0
    seg.militia[:] = np.floor(people * MILITIA_SHARE).astype(np.int32)


def _add_diplomacy(seg: Segment, capitals: list[tuple[int, int]]) -> None:
    """Each kingdom starts with its nearest (up to three) neighbours on its list
    of diplomatic relations, at the neutral status 5 ("Der Diplomatiestatus")."""
    for i, (row, col) in enumerate(capitals):
        h = seg.grid.hex_at(row, col)
        others = sorted((h.distance(seg.grid.hex_at(r, c)), j) for j, (r, c) in enumerate(capitals)
                        if j != i)
        for _, j in others[:3]:
            seg.kingdoms[i + 1].diplomacy[j + 1] = 5
            seg.kingdoms[j + 1].diplomacy[i + 1] = 5


# --- armies, creatures, known maps ------------------------------------------------------

def random_general(rng: np.random.Generator, troop: TroopType) -> General:
    """A general with a name from the generator's pool and experience 5..30."""
    return General(name=_person(rng), troop=troop, experience=int(rng.integers(5, 31)))


_general = random_general

SHIP_CAPACITY = 100
"""Raumfaktoren a ship carries ("Das Schiff"; the rules file's ``space.ship_capacity``
holds the same number of the rule text): the generator loads no fleet beyond it."""

_ORDINALS = ("II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")


def distinct_name(name: str, taken: set[str] | frozenset[str]) -> str:
    """``name``, or with the first free ordinal (``Kunigunde II``) when a general of
    the same kingdom already has it: a ruler can tell his generals apart (the same
    draws, so the same seed still gives the same world)."""
    if name not in taken:
        return name
    for suffix in _ORDINALS:
        if f"{name} {suffix}" not in taken:
            return f"{name} {suffix}"
    n = len(_ORDINALS) + 2
    while f"{name} {n}" in taken:
        n += 1
    return f"{name} {n}"


def generals_of(seg: Segment, kingdom: int) -> set[str]:
    """The names of the kingdom's generals and of the one on offer."""
    names = {a.general.name for a in seg.armies.values()
             if a.kingdom == kingdom and a.general is not None}
    offer = seg.kingdoms[kingdom].offer if kingdom in seg.kingdoms else None
    return names | ({offer.general.name} if offer is not None else set())


def _add_armies(rng: np.random.Generator, seg: Segment, k: int, o: Options) -> None:
    capital = _capital(seg, k)
    land = [seg.grid.hex_at(int(r), int(c)) for r, c in np.argwhere(seg.owner == k)]
    water = _water_near(seg, capital)
    cycle = (TroopType.KRIEGER, TroopType.REITER, TroopType.SCHIFFE, TroopType.KRIEGER)
    taken: set[str] = set()

    def general(troop: TroopType) -> General:
        g = _general(rng, troop)
        g.name = distinct_name(g.name, taken)
        taken.add(g.name)
        return g

    for i in range(1, o.armies_per_kingdom + 1):
        number = k * 100 + i
        if i > o.active_per_kingdom:
            troop = (TroopType.KRIEGER, TroopType.REITER, TroopType.SCHIFFE)[int(rng.integers(3))]
            seg.armies[number] = Army(number, k, general=general(troop),
                                      morale=int(rng.integers(40, 61)))
            continue
        troop = TroopType.KRIEGER if i == 1 else cycle[(i - 2) % 4]
        if troop is TroopType.SCHIFFE and not water:
            troop = TroopType.REITER
        army = Army(number, k, ArmyStatus.ACTIVE, capital, general(troop),
                    morale=int(rng.integers(45, 66)))
        if i == 1:
            army.units = int(rng.integers(900, 1101))
        elif troop is TroopType.SCHIFFE:
            army.position = water[int(rng.integers(len(water)))]
            army.units = int(rng.integers(5, 21))
        else:
            army.position = land[int(rng.integers(len(land)))]
            army.units = int(rng.integers(100, 1501))
            prev = seg.armies.get(number - 1)
            if i % 4 == 1 and prev is not None and prev.is_fleet and prev.carrying is None:
                army.position, army.carried_by, prev.carrying = prev.position, prev.number, number
                # "Ein Schiff hat eine Tragkraft von 100 Raumfaktoren" (Reiter 2 each)
                per = 2 if troop is TroopType.REITER else 1
                army.units = min(army.units, prev.units * SHIP_CAPACITY // per)
        seg.armies[number] = army
    king = seg.kingdoms[k]
    king.offer = GeneralOffer(general((TroopType.KRIEGER, TroopType.REITER,
                                       TroopType.SCHIFFE)[int(rng.integers(3))]),
                              price=int(rng.integers(5, 16)) * 1000)


def _capital(seg: Segment, k: int) -> Hex:
    palace = seg.buildings[BUILDING_ORDER.index(Building.PALAST)]
    row, col = np.argwhere((seg.owner == k) & (palace > 0))[0]
    return seg.grid.hex_at(int(row), int(col))


def _water_near(seg: Segment, h: Hex) -> list[Hex]:
    dist = distances_from(h.q, h.r, *seg.grid.shape)
    spots = np.argwhere((dist <= 2) & WATER[seg.terrain])
    return [seg.grid.hex_at(int(r), int(c)) for r, c in spots]


def _add_creatures(rng: np.random.Generator, seg: Segment, n: int) -> None:
    sea = np.argwhere(seg.terrain == BY_NAME["Meer"].id)
    wild = np.argwhere(~WATER[seg.terrain] & (seg.owner == 0) & (seg.settlement == 0))
    for i in range(1, n + 1):
        kind = CREATURE_KINDS[int(rng.integers(len(CREATURE_KINDS)))]
        pool = sea if kind == "seeschlange" and len(sea) else wild
        if len(pool) == 0:
            raise InvalidInputError("keine freie Gemark mehr für eine Kreatur; eine größere Karte wählen")
        row, col = pool[int(rng.integers(len(pool)))]
        count = int(rng.integers(20, 101)) if kind == "untote" else 1
        seg.creatures[i] = Creature(i, kind, seg.grid.hex_at(int(row), int(col)), count=count,
                                    gold=int(rng.integers(0, 11)) * 500)


def _init_known(seg: Segment, k: int, radius: int) -> None:
    """A kingdom knows its own gemarks and everything within ``radius`` of its capital."""
    known = new_known_map(seg.grid)
    c = _capital(seg, k)
    mask = (seg.owner == k) | (distances_from(c.q, c.r, *seg.grid.shape) <= radius)
    known.seen[mask] = seg.date.ordinal
    known.terrain[mask] = seg.terrain[mask]
    known.owner[mask] = seg.owner[mask]
    known.settlement[mask] = seg.settlement[mask]
    seg.known[k] = known
