"""The kingdom view: what one kingdom knows, machine-readable (YAML).

The game master's run builds it from the segment state (:func:`build_view`);
reports ship it to the player with the result sheet, and ``wdg orders check
--view`` checks a sheet against it on the player's machine without the
secret state. It holds the kingdom's armies, settlements, palaces,
diplomacy list ("Liste der diplomatischen Beziehungen"), owned gemarks, the
known map (terrain as last seen, the month seen and the owner as last seen),
the current general offer ("Der Feldherr" (a)), and the treasury, popularity
and mines the last result sheet shows (for the forecast, :mod:`wdg.orders.forecast`).

The known map is the kingdom's :class:`~wdg.world.state.KnownMap` plus its
own gemarks, the gemarks of its armies and their neighbours (every army's
scouts see the neighbouring gemarks each month, Phase E), seen this month.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import yaml

from wdg import yamlfast
from wdg.errors import DataError, InvalidInputError
from wdg.engine.events import SightingKind
from wdg.world.address import Address, Grid
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Direction, Hex
from wdg.world.state import BUILDING_ORDER, ArmyStatus, Building, MoverKind, Segment, TroopType
from wdg.world.terrain import TERRAINS, Terrain, terrain


@dataclass(slots=True)
class GeneralView:
    """The general of an army, as his ruler knows him."""

    name: str
    troop: str
    """The :class:`TroopType` value (the rules' key)."""
    experience: int
    wizard: bool = False
    ability: str | None = None

    @property
    def troop_type(self) -> TroopType:
        """The general's troop type as the member a program compares."""
        return TroopType(self.troop)


@dataclass(slots=True)
class ArmyView:
    """One own army."""

    number: int
    status: ArmyStatus
    """Active, passive or activating (``ansicht.yaml`` writes the member's value)."""
    position: Address
    """``000.00`` for passive armies."""
    troop: str | None
    units: int
    general: GeneralView | None = None
    boats: int = 0
    carried_by: int | None = None
    carrying: int | None = None
    morale: int = 50
    """"Die Heeresmoral" (0..100) as the last result sheet shows it."""
    durability: int = 100
    """A fleet's durability in percent."""
    boat_durability: int = 100
    """The durability of its boats in percent."""

    @property
    def passive(self) -> bool:
        """True for an army at 000.00 (only ``nf``/``nh`` allowed)."""
        return self.status is ArmyStatus.PASSIVE or self.position.is_passive

    @property
    def troop_type(self) -> TroopType | None:
        """The army's troop type as the member a program compares (``None``:
        no general yet)."""
        return TroopType(self.troop) if self.troop else None

    @property
    def is_fleet(self) -> bool:
        """True for ship armies."""
        return self.troop_type is TroopType.SCHIFFE

    @property
    def mover_kind(self) -> MoverKind:
        """``krieger``, ``reiter``, ``boote`` (warriors in boats) or ``schiffe``, as
        :func:`wdg.engine.movement.mover_kind`."""
        if self.is_fleet:
            return MoverKind.SCHIFFE
        if self.boats > 0:
            return MoverKind.BOOTE
        return MoverKind.REITER if self.troop_type is TroopType.REITER else MoverKind.KRIEGER


@dataclass(slots=True)
class SettlementView:
    """One own settlement with its building levels (by German name)."""

    at: Address
    name: str
    size: int
    buildings: dict[str, int] = field(default_factory=dict)
    militia: int | None = None
    """The militia of its gemark (what it can still recruit, "Das Rüstvolumen",
    :func:`wdg.engine.army_orders.recruit_volume`); ``None`` in a view written
    before it was shipped."""

    def level(self, b: Building) -> int:
        """The level of a building (0 = none)."""
        return self.buildings.get(b.german, 0)


@dataclass(slots=True)
class ForeignArmyView:
    """A foreign army the kingdom's scouts saw in the last month's Phase E."""

    number: int
    kingdom: int
    position: Address
    troop: str
    units: int
    """The count reported (exact or an estimate)."""
    exact: bool = False


@dataclass(slots=True)
class OfferView:
    """The general who offered himself last month."""

    general: GeneralView
    price: int


@functools.lru_cache(maxsize=64)
def _grid(cols: int, rows: int) -> Grid:
    """One (immutable) grid per map size: a view's every neighbour lookup asks
    for it."""
    return Grid(cols, rows)


@dataclass(slots=True)
class KingdomView:
    """Everything a kingdom knows; the checker's only input besides the sheet."""

    segment: str
    month: MonthDate
    kingdom: int
    name: str
    prov_cols: int
    prov_rows: int
    palaces: int = 0
    diplomacy: dict[int, int] = field(default_factory=dict)
    armies: dict[int, ArmyView] = field(default_factory=dict)
    settlements: dict[Address, SettlementView] = field(default_factory=dict)
    owned: set[Address] = field(default_factory=set)
    known: dict[Address, tuple[str, MonthDate]] = field(default_factory=dict)
    """Address -> (terrain map code as last seen, month seen)."""
    offer: OfferView | None = None
    treasury: int | None = None
    """"Reichsschatz" at the start of the month (the last result sheet's closing
    balance); ``None`` in a view written before it was shipped."""
    popularity: int | None = None
    """The ruler's popularity ("Beliebtheit", 0..100; taxes depend on it)."""
    owners: dict[Address, int] = field(default_factory=dict)
    """Owner of known gemarks as last seen (0 = neutral; the Erkundungskarte);
    own gemarks are in :attr:`owned`. Missing: owner not known."""
    mines: dict[Address, int] = field(default_factory=dict)
    """Mine level of own gemarks without a settlement (a settlement's mine is in
    its :attr:`SettlementView.buildings`)."""
    foreign: list[ForeignArmyView] = field(default_factory=list)
    """Foreign armies seen in the last month's Phase E (where they stood then, the
    count as reported); empty when the view was built without the month's
    sightings."""
    deposits: dict[Address, str] | None = None
    """Deposits ("Bodenschätze") the kingdom has found, by kind; a mine yields
    only on one of them (:mod:`wdg.engine.deposits`). ``None``: the segment has
    no deposits (saved before they existed)."""
    names: dict[int, str] = field(default_factory=dict)
    """The names of the kingdoms on its diplomacy list, as its result sheet
    gives them (the forecast names them so, issue #42)."""

    @property
    def grid(self) -> Grid:
        """The segment's grid (for neighbours and map bounds)."""
        return _grid(self.prov_cols, self.prov_rows)

    def terrain_at(self, a: Address) -> Terrain | None:
        """The terrain as last seen, or ``None`` if unknown."""
        seen = self.known.get(a)
        return terrain(seen[0]) if seen else None

    def on_map(self, a: Address) -> bool:
        """True if the address lies on the segment's map."""
        try:
            self.grid.hex_of(a)
        except InvalidInputError:
            return False
        return True

    def neighbour(self, a: Address, direction: object) -> Address | None:
        """The adjacent address in ``direction`` (a :class:`Direction`), or ``None``
        off the map."""
        g = self.grid
        got = _neighbour(g.prov_cols, g.prov_rows, a.province, a.gemark, direction)
        return None if got is None else Address(*got)

    def adjacent(self, a: Address, b: Address) -> bool:
        """True if the two gemarks are neighbours."""
        return self.grid.hex_of(a).distance(self.grid.hex_of(b)) == 1

    def max_kingdom_orders(self) -> int:
        """"Pro Palast ... einen Befehl ... maximal 10 und minimal 1"."""
        return max(1, min(10, self.palaces))


@functools.lru_cache(maxsize=1 << 18)
def _neighbour(cols: int, rows: int, province: int, gemark: int,
               direction: Direction) -> tuple[int, int] | None:
    """``(province, gemark)`` of the adjacent gemark, remembered for the
    process by plain numbers (an Address hashes in Python): every kingdom's
    forecast, reach and order choices ask the same steps of the same map."""
    grid = Grid(cols, rows)
    h = grid.hex_of(Address(province, gemark)).neighbour(direction)
    if not grid.contains(h):
        return None
    a = grid.address_of(h)
    return a.province, a.gemark


def build_view(seg: Segment, kingdom: int, sightings: Sequence[Any] = ()) -> KingdomView:
    """The view of ``kingdom`` on ``seg`` as of the month to be played next.
    ``sightings``: the events of the month just resolved (``recon.sighting``
    events of this kingdom give :attr:`KingdomView.foreign`; others are ignored)."""
    if kingdom not in seg.kingdoms:
        raise InvalidInputError(f"Reich {kingdom!r} gibt es in Segment {seg.name!r} nicht")
    k = seg.kingdoms[kingdom]
    grid = seg.grid
    view = KingdomView(seg.name, seg.date, kingdom, k.name, grid.prov_cols, grid.prov_rows,
                       diplomacy=dict(sorted(k.diplomacy.items())), treasury=k.treasury,
                       popularity=k.popularity,
                       names={o: seg.kingdoms[o].name for o in sorted(k.diplomacy)
                              if o in seg.kingdoms})
    mine = BUILDING_ORDER.index(Building.MINE)
    own = seg.owner == kingdom
    for row, col in zip(*own.nonzero(), strict=True):
        h = grid.hex_at(int(row), int(col))
        a = grid.address_of(h)
        view.owned.add(a)
        size = int(seg.settlement[row, col])
        if size > 0:
            levels = {b.german: int(seg.buildings[i, row, col])
                      for i, b in enumerate(BUILDING_ORDER) if seg.buildings[i, row, col]}
            view.settlements[a] = SettlementView(a, seg.settlement_names.get(h, "Namenlos"),
                                                 size, levels, int(seg.militia[row, col]))
            view.palaces += 1 if levels.get(Building.PALAST.german, 0) > 0 else 0
        elif seg.buildings[mine, row, col]:
            view.mines[a] = int(seg.buildings[mine, row, col])
    for army in sorted(seg.armies.values(), key=lambda x: x.number):
        if army.kingdom != kingdom:
            continue
        g = army.general
        view.armies[army.number] = ArmyView(
            army.number, army.status, _addr(seg, army.position),
            army.troop.value if army.troop else None, army.units,
            GeneralView(g.name, g.troop.value, g.experience, g.wizard, g.ability) if g else None,
            army.boats, army.carried_by, army.carrying, army.morale, army.durability,
            army.boat_durability)
    if k.offer is not None:
        g = k.offer.general
        view.offer = OfferView(GeneralView(g.name, g.troop.value, g.experience, g.wizard,
                                           g.ability), k.offer.price)
    _fill_known(seg, kingdom, view)
    for e in sightings:
        d = getattr(e, "data", None) or {}
        if getattr(e, "kind", "") == "recon.sighting" and e.kingdom == kingdom \
                and d.get("what") == SightingKind.ARMY and e.at is not None and d.get("of") is not None \
                and d.get("of") != kingdom and seg.grid.contains(e.at) and d.get("troop"):
            view.foreign.append(ForeignArmyView(int(d["id"]), int(d["of"]),
                                                seg.grid.address_of(e.at), str(d["troop"]),
                                                int(d.get("units", 0)), bool(d.get("exact"))))
    view.foreign.sort(key=lambda f: f.number)
    if seg.deposits is not None:
        view.deposits = {grid.address_of(h): d.kind for h, d in seg.deposits.items()
                         if kingdom in d.known_by}
    return view


def _addr(seg: Segment, h: Hex | None) -> Address:
    return Address(0, 0) if h is None else seg.grid.address_of(h)


def _fill_known(seg: Segment, kingdom: int, view: KingdomView) -> None:
    grid = seg.grid
    km = seg.known.get(kingdom)
    if km is not None:
        for row, col in zip(*km.seen.nonzero(), strict=True):
            tid = int(km.terrain[row, col])
            if tid < len(TERRAINS):
                a = grid.address_of(grid.hex_at(int(row), int(col)))
                view.known[a] = (TERRAINS[tid].code, MonthDate.from_ordinal(int(km.seen[row, col])))
                owner = int(km.owner[row, col])
                if owner >= 0 and a not in view.owned:
                    view.owners[a] = owner
    now = seg.date.previous()
    spots = [grid.hex_of(a) for a in view.owned]
    spots += [grid.hex_of(a.position) for a in view.armies.values() if not a.position.is_passive]
    for h in spots:
        for x in [h, *grid.neighbours(h)]:
            a = grid.address_of(x)
            view.known[a] = (TERRAINS[seg.at(seg.terrain, x)].code, now)


# --- YAML ----------------------------------------------------------------------------

def view_to_dict(view: KingdomView) -> dict[str, Any]:
    """Plain data for YAML (addresses and months as strings)."""
    def gen(g: GeneralView | None) -> dict[str, Any] | None:
        if g is None:
            return None
        return {"name": g.name, "troop": g.troop, "experience": g.experience,
                "wizard": g.wizard, "ability": g.ability}
    out: dict[str, Any] = {
        "segment": view.segment,
        "month": view.month.key,
        "kingdom": view.kingdom,
        "name": view.name,
        "grid": {"prov_cols": view.prov_cols, "prov_rows": view.prov_rows},
        "palaces": view.palaces,
        "diplomacy": {int(k): int(v) for k, v in sorted(view.diplomacy.items())},
        "armies": [{
            "number": a.number, "status": a.status.value, "position": str(a.position),
            "troop": a.troop, "units": a.units, "boats": a.boats,
            "carried_by": a.carried_by, "carrying": a.carrying, "general": gen(a.general),
            "morale": a.morale, "durability": a.durability, "boat_durability": a.boat_durability,
        } for a in sorted(view.armies.values(), key=lambda x: x.number)],
        "settlements": [{
            "at": str(s.at), "name": s.name, "size": s.size, "buildings": dict(s.buildings),
            **({} if s.militia is None else {"militia": s.militia}),
        } for s in sorted(view.settlements.values(), key=lambda x: str(x.at))],
        "owned": sorted(str(a) for a in view.owned),
        "map": {str(a): f"{code} {seen.key}" + (f" {view.owners[a]}" if a in view.owners else "")
                for a, (code, seen) in sorted(view.known.items(), key=lambda kv: str(kv[0]))},
        "offer": None if view.offer is None else {"general": gen(view.offer.general),
                                                  "price": view.offer.price},
        "treasury": view.treasury,
        "popularity": view.popularity,
        "mines": {str(a): lv for a, lv in sorted(view.mines.items(), key=lambda kv: str(kv[0]))},
        **({"foreign": [{"number": f.number, "kingdom": f.kingdom, "position": str(f.position),
                         "troop": f.troop, "units": f.units, "exact": f.exact}
                        for f in view.foreign]} if view.foreign else {}),
    }
    if view.names:
        out["names"] = {int(k): v for k, v in sorted(view.names.items())}
    if view.deposits is not None:  # views of segments without deposits stay as they were
        out["deposits"] = {str(a): k for a, k in sorted(view.deposits.items(),
                                                          key=lambda kv: str(kv[0]))}
    return out


def view_to_yaml(view: KingdomView) -> str:
    """The view as YAML text."""
    head = (f"# Sicht des Königreiches {view.kingdom} ({view.name}) auf Segment {view.segment}, "
            f"Mond {view.month.short()}\n")
    # libyaml's emitter without PyYAML's Python representer (wdg.yamlfast): the
    # pure-Python path took most of a stress month's text reports (60 views of
    # ~2,000 nodes); the text is the same
    return head + yamlfast.dump(view_to_dict(view), allow_unicode=True, sort_keys=False)


def load_view(path: str | Path) -> KingdomView:
    """Read and validate a view file; a bad file raises :class:`DataError` naming
    the file and key."""
    p = str(path)
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DataError(p, None, str(exc), "eine lesbare Reichsansicht in YAML") from None
    return view_from_dict(data, p)


def view_from_dict(data: Any, path: str = "<view>") -> KingdomView:
    """Validate plain data (as from YAML) into a view."""
    r = _Reader(path)
    d = r.mapping(data, "")
    grid = r.mapping(d.get("grid"), "grid")
    view = KingdomView(
        segment=r.typed(d, "segment", str, ""),
        month=r.month(d.get("month"), "month"),
        kingdom=r.typed(d, "kingdom", int, ""),
        name=r.typed(d, "name", str, ""),
        prov_cols=r.typed(grid, "prov_cols", int, "grid."),
        prov_rows=r.typed(grid, "prov_rows", int, "grid."),
        palaces=r.typed(d, "palaces", int, ""),
    )
    dip = r.mapping(d.get("diplomacy") or {}, "diplomacy")
    for k, v in dip.items():
        if not isinstance(k, int) or not isinstance(v, int) or not 1 <= v <= 9:
            raise DataError(path, f"diplomacy.{k}", v, "Reichsnummer -> Status 1..9")
        view.diplomacy[k] = v
    for i, a in enumerate(r.seq(d.get("armies") or [], "armies")):
        key = f"armies[{i}]"
        a = r.mapping(a, key)
        g = a.get("general")
        av = ArmyView(
            number=r.typed(a, "number", int, key + "."),
            status=ArmyStatus(r.choice(a.get("status"), f"{key}.status",
                                       [s.value for s in ArmyStatus])),
            position=r.address(a.get("position"), f"{key}.position"),
            troop=None if a.get("troop") is None else r.choice(
                a.get("troop"), f"{key}.troop", [t.value for t in TroopType]),
            units=r.typed(a, "units", int, key + "."),
            general=None if g is None else r.general(g, f"{key}.general"),
            boats=int(a.get("boats") or 0),
            carried_by=r.opt_int(a.get("carried_by"), f"{key}.carried_by"),
            carrying=r.opt_int(a.get("carrying"), f"{key}.carrying"),
            **{f: r.typed(a, f, int, key + ".") for f in ("morale", "durability",
                                                           "boat_durability") if f in a},
        )
        view.armies[av.number] = av
    for i, s in enumerate(r.seq(d.get("settlements") or [], "settlements")):
        key = f"settlements[{i}]"
        s = r.mapping(s, key)
        b = r.mapping(s.get("buildings") or {}, key + ".buildings")
        names = [x.german for x in Building]
        for bn, lv in b.items():
            if bn not in names or not isinstance(lv, int) or lv < 0:
                raise DataError(path, f"{key}.buildings.{bn}", lv,
                                f"eines von {', '.join(names)} mit einer Stufe >= 0")
        sv = SettlementView(r.address(s.get("at"), key + ".at"), str(s.get("name", "")),
                            r.typed(s, "size", int, key + "."), dict(b),
                            None if s.get("militia") is None else
                            r.typed(s, "militia", int, key + "."))
        view.settlements[sv.at] = sv
    for i, a in enumerate(r.seq(d.get("owned") or [], "owned")):
        view.owned.add(r.address(a, f"owned[{i}]"))
    for a, v in r.mapping(d.get("map") or {}, "map").items():
        parts = str(v).split()
        if len(parts) not in (2, 3) or (len(parts) == 3 and not parts[2].isdigit()):
            raise DataError(path, f"map.{a}", v, "'<Geländecode> <JJJJ-MM> [Besitzer]'")
        try:
            terrain(parts[0])
        except InvalidInputError:
            raise DataError(path, f"map.{a}", v, "einen Geländecode wie 'Tw'") from None
        where = r.address(a, f"map.{a}")
        view.known[where] = (parts[0], r.month(parts[1], f"map.{a}"))
        if len(parts) == 3:
            view.owners[where] = int(parts[2])
    for key in ("treasury", "popularity"):
        if d.get(key) is not None:
            setattr(view, key, r.typed(d, key, int, ""))
    for k, name in r.mapping(d.get("names") or {}, "names").items():
        if not isinstance(k, int) or not isinstance(name, str):
            raise DataError(path, f"names.{k}", name, "Königreichnummer: Name")
        view.names[k] = name
    for a, lv in r.mapping(d.get("mines") or {}, "mines").items():
        if not isinstance(lv, int) or lv < 0:
            raise DataError(path, f"mines.{a}", lv, "eine Minenstufe >= 0")
        view.mines[r.address(a, f"mines.{a}")] = lv
    for i, f in enumerate(r.seq(d.get("foreign") or [], "foreign")):
        key = f"foreign[{i}]"
        f = r.mapping(f, key)
        view.foreign.append(ForeignArmyView(
            r.typed(f, "number", int, key + "."), r.typed(f, "kingdom", int, key + "."),
            r.address(f.get("position"), key + ".position"),
            r.choice(f.get("troop"), key + ".troop", [t.value for t in TroopType]),
            r.typed(f, "units", int, key + "."), bool(f.get("exact", False))))
    if "deposits" in d:
        view.deposits = {}
        for a, kind in r.mapping(d.get("deposits") or {}, "deposits").items():
            if not isinstance(kind, str) or not kind:
                raise DataError(path, f"deposits.{a}", kind, "die Art eines Vorkommens, z. B. Silber")
            view.deposits[r.address(a, f"deposits.{a}")] = kind
    offer = d.get("offer")
    if offer is not None:
        o = r.mapping(offer, "offer")
        view.offer = OfferView(r.general(o.get("general"), "offer.general"),
                               r.typed(o, "price", int, "offer."))
    return view


class _Reader:
    """Small validating accessors that raise :class:`DataError` with the key."""

    def __init__(self, path: str) -> None:
        self.path = path

    def mapping(self, v: Any, key: str) -> dict[Any, Any]:
        if not isinstance(v, dict):
            raise DataError(self.path, key or None, v, "eine Zuordnung (Schlüssel: Wert)")
        return v

    def seq(self, v: Any, key: str) -> list[Any]:
        if not isinstance(v, list):
            raise DataError(self.path, key, v, "eine Liste")
        return v

    def typed(self, d: dict[Any, Any], key: str, t: type, prefix: str) -> Any:
        v = d.get(key)
        if not isinstance(v, t) or isinstance(v, bool):
            raise DataError(self.path, prefix + key, v, f"einen Wert vom Typ {t.__name__}")
        return v

    def opt_int(self, v: Any, key: str) -> int | None:
        if v is not None and not isinstance(v, int):
            raise DataError(self.path, key, v, "eine Heeresnummer oder null")
        return v

    def choice(self, v: Any, key: str, options: list[str]) -> str:
        if v not in options:
            raise DataError(self.path, key, v, "eines von " + ", ".join(options))
        return str(v)

    def address(self, v: Any, key: str) -> Address:
        try:
            return Address.parse(str(v))
        except InvalidInputError:
            raise DataError(self.path, key, v, "eine Adresse wie '101.12'") from None

    def month(self, v: Any, key: str) -> MonthDate:
        try:
            return MonthDate.parse(str(v))
        except InvalidInputError:
            raise DataError(self.path, key, v, "einen Monat wie '0412-04'") from None

    def general(self, v: Any, key: str) -> GeneralView:
        g = self.mapping(v, key)
        return GeneralView(str(g.get("name", "")),
                           self.choice(g.get("troop"), key + ".troop",
                                       [t.value for t in TroopType]),
                           self.typed(g, "experience", int, key + "."),
                           bool(g.get("wizard", False)), g.get("ability"))
