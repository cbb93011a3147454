"""The bot players: three personalities that write an ordinary order sheet.

A bot reads one :class:`~wdg.bots.briefing.Briefing` (the kingdom's view and
its last result sheet) and the public prices of the rule text (the rules
files' economy and movement tables: "Die Werbeprämie beträgt für einen
Krieger 10 Goldsterne", "Unterhaltskosten", "Die Bewegung"), and writes the
sheet a careful player would send (format: docs/orders.md). The sheet goes
through the same parser, checker and intake as any other.

Every personality (docs/bots.md):

- keeps within the treasury: the month's pay and upkeep are taken first, then
  a reserve of ``reserve_months`` months of running costs; every order that
  costs gold (``nf nh nr``, ``BM BK BQ BH SS F+``) is only written when it is
  covered ("ein Herrscher kann keine Schulden machen");
- disbands empty armies (``eh 0000``) unless they recruit this month in an
  own town with a Kaserne, and disbands fleets (which cost 10,000 GS a month)
  that carry nobody;
- hires the general on offer when it is useful (no general on a passive army,
  or the preferred troop type and more experience) and affordable;
- activates passive armies in a town with a Kaserne while it wants more
  armies, and recruits them the month after;
- plans every move on the known terrain only (:mod:`wdg.bots.plan`).

*Baumeister* builds mines on the highest own land, palaces (more kingdom
orders), grows settlements and holds festivals; its armies take neutral land
next to the realm with ``e`` and help (``h``) at home. *Eroberer* recruits to
its budget, scouts toward unknown land and takes neutral land with ``e``
(and ``o`` on a neutral gemark it stands on when strong). *Kriegsherr* picks
an enemy it has met (lowest status, then nearest), lowers the status with
``DS`` to 1, concentrates its armies and marches over known terrain to the
enemy's armies and settlements, occupies (``o``) and destroys (``x``).
``hostile`` (the Mächte der Nacht) makes a Kriegsherr an enemy of every
kingdom it has met.

Seeded: the generator is seeded from ``seed``, the kingdom and the month, so
the same briefing and seed give the same sheet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wdg.bots.briefing import Briefing, NOTE_PREFIX, SEARCH_PREFIX
from wdg.bots.plan import Planner
from wdg.engine.events import SightingKind
from wdg.engine.deposits import chance_by_terrain
from wdg.engine.deposits import enabled as deposits_enabled
from wdg.engine.deposits import kinds as deposit_kinds
from wdg.engine.morale import enabled as morale_enabled
from wdg.orders.forecast import running_costs
from wdg.errors import InvalidInputError
from wdg.orders.view import ArmyView
from wdg.rules import Rules
from wdg.world.hexgrid import Hex
from wdg.world.state import ArmyStatus, Building, MoverKind, TroopType
from wdg.world.terrain import Component, has, is_water, settlement_cost_factor


@dataclass(frozen=True, slots=True)
class Personality:
    """The numbers that make a bot's character (docs/bots.md)."""

    name: str
    reserve_months: float
    """Months of running costs kept in the treasury."""
    armies: int
    """Active land armies wanted."""
    army_size: int
    """Soldiers wanted per army."""
    recruit_share: float
    """Share of the free gold spent on soldiers in a month."""
    troop: TroopType
    """Preferred troop type of generals."""
    build_share: float
    """Share of the free gold spent on kingdom orders that build."""
    war: bool = False
    hostile: bool = False
    explore: bool = False
    expand_range: int = 400
    """How far (percent of budget, with penalties) an army goes for neutral land."""


PERSONALITIES: dict[str, Personality] = {
    "Baumeister": Personality("Baumeister", reserve_months=4, armies=1, army_size=1200,
                              recruit_share=0.1, troop=TroopType.KRIEGER, build_share=0.9,
                              expand_range=300),
    "Eroberer": Personality("Eroberer", reserve_months=3, armies=2, army_size=3000,
                            recruit_share=0.5, troop=TroopType.REITER, build_share=0.3, explore=True,
                            expand_range=1200),
    "Kriegsherr": Personality("Kriegsherr", reserve_months=2, armies=2, army_size=8000,
                              recruit_share=0.8, troop=TroopType.REITER, build_share=0.15, war=True,
                              explore=True, expand_range=600),
}
SUSTAIN_MONTHS = 12
"""The running costs a bot keeps are what last month's income and a twelfth
of the treasury pay (a year's horizon)."""
FESTIVAL_BELOW = 60
"""The Baumeister holds festivals while the ruler's popularity is below this."""
NOTE_PLACES = 6
"""Places per kingdom the notebook keeps."""
RICH = 100_000
"""Free gold (beyond the reserve) for which an Eroberer or Kriegsherr raises
one more army."""
KEEP_MORALE_MARGIN = 15
"""A bot trains an army whose morale is less than this above the level where
soldiers desert for low morale (morale.yaml ``desertion.below``)."""
SEARCHES_PER_GEMARK = 3
"""Searches a bot makes in one gemark before it gives up on a deposit there."""
PROSPECT_CHANCE = 0.03
"""The least chance of a deposit (deposits.yaml) that makes a gemark worth searching."""
SEARCH_NOTES = 120
"""Searches the notebook remembers."""
HOSTILE_SUFFIX = "+feind"
"""``Kriegsherr+feind``: the Kriegsherr at war with every kingdom it has met."""


def personality(name: str) -> Personality:
    """The personality called ``name`` (case-insensitive; ``+feind`` for hostile)."""
    base, _, flag = name.strip().partition("+")
    for key, p in PERSONALITIES.items():
        if key.casefold() == base.casefold():
            if flag:
                if flag.casefold() != HOSTILE_SUFFIX[1:]:
                    raise InvalidInputError(f"unbekannte Bot-Angabe {flag!r} in {name!r}; "
                                            f"erwartet {key}{HOSTILE_SUFFIX}")
                return Personality(**{**_fields(p), "name": key + HOSTILE_SUFFIX,
                                      "war": True, "hostile": True})
            return p
    raise InvalidInputError(f"unbekannter Bot {name!r}; erwartet einen von "
                            f"{', '.join(PERSONALITIES)} (oder Kriegsherr{HOSTILE_SUFFIX})")


def _fields(p: Personality) -> dict[str, Any]:
    return {f: getattr(p, f) for f in p.__slots__}


def bot_seed(seed: int, kingdom: int, ordinal: int) -> np.random.Generator:
    """The bot's generator for one kingdom and month."""
    return np.random.default_rng([int(seed), 7_1994, int(kingdom), int(ordinal)])


def write_sheet(b: Briefing, who: str | Personality, rules: Rules, *, password: str,
                seed: int = 0) -> str:
    """The order sheet text of ``b``'s kingdom for the view's month."""
    p = who if isinstance(who, Personality) else personality(who)
    bot = _Bot(b, p, rules, bot_seed(seed, b.kingdom, b.view.month.ordinal))
    return bot.sheet(password)


# --- the bot -----------------------------------------------------------------------------

@dataclass(slots=True)
class _Orders:
    a: dict[int, str] = field(default_factory=dict)
    b: dict[int, str] = field(default_factory=dict)
    k: list[str] = field(default_factory=list)
    messages: list[tuple[int, str]] = field(default_factory=list)


class _Bot:
    def __init__(self, b: Briefing, p: Personality, rules: Rules, rng: np.random.Generator):
        self.b, self.p, self.rules, self.rng = b, p, rules, rng
        self.view = b.view
        self.plan = Planner(b, rules)
        self.o = _Orders()
        eco = rules.section("economy")
        self.upkeep = {k: int(v) for k, v in eco["upkeep"].items()}
        self.pay = {k: int(v) for k, v in eco["pay"].items()}
        self.premium = {k: int(v) for k, v in eco["premium"].items()}
        self.activation = {k: int(v) for k, v in eco["activation"].items()}
        self.prices = {k: int(v) for k, v in eco["buildings"]["price"].items()}
        self.unit_price = int(eco["settlement"]["unit_price"])
        running = self.running_costs()
        # pay and upkeep come first in the month; keep a reserve for the next months
        self.free = b.treasury - running - int(p.reserve_months * running)
        # what the realm can pay for a year: last month's income and a twelfth
        # of the treasury; beyond it soldiers are released
        self.sustainable = b.income + b.treasury // SUSTAIN_MONTHS
        self.excess = running - self.sustainable if b.income else 0
        self.added_running = 0
        self.cuts: dict[int, str] = {}
        self._memory: dict[int, list[Hex]] | None = None
        self.levy_towns: dict[object, int] = {}
        self.claimed: set[Hex] = set()
        self.targets_taken: set[Hex] = set()
        self.prospected: set[Hex] = set()
        self.deposit_chance = chance_by_terrain(rules) if deposits_enabled(rules) else None
        self.searches: dict[object, int] = {}
        for x in b.searched:
            self.searches[x] = self.searches.get(x, 0) + 1

    # -- money ------------------------------------------------------------------------

    def running_costs(self) -> int:
        """This month's pay and upkeep, as the forecast books them."""
        return sum(u + w for u, w in running_costs(self.view, self.rules).values())

    def afford(self, price: int, monthly: int = 0) -> bool:
        """Spend ``price`` now and reserve ``monthly`` more running costs."""
        need = price + int(self.p.reserve_months * monthly) + monthly
        if price < 0 or need > self.free:
            return False
        self.free -= need
        return True

    # -- the sheet ----------------------------------------------------------------------

    def sheet(self, password: str) -> str:
        self.decide()
        v = self.view
        lines = [f"# Spielzug {v.name} ({self.p.name})", f"Segment: {v.segment}",
                 f"Königreich: {v.kingdom}", f"Passwort: {password}", f"Mond: {v.month.key}",
                 "", "H"]
        for n in sorted(v.armies):
            a = v.armies[n]
            lines.append(f"Heer {n:04d} {a.position}")
            if n in self.o.a:
                lines.append(f"A: {self.o.a[n]}")
            if n in self.o.b:
                lines.append(f"B: {self.o.b[n]}")
        lines += ["", "K", *self.o.k]
        notes = self.notebook()
        if notes:
            lines += ["", *notes]
        searched = self.search_notes()
        if searched:
            lines += [searched]
        for to, text in self.o.messages:
            lines += ["", f"BOTSCHAFT {to}", text, "ENDE"]
        return "\n".join(lines) + "\n"

    def decide(self) -> None:
        self.k_orders_war()
        self.passive_armies()
        self.active_armies()
        self.k_orders_build()

    # -- kingdom orders -------------------------------------------------------------------

    def k_left(self) -> int:
        return self.view.max_kingdom_orders() - len(self.o.k)

    def enemy_spots(self, k: int) -> list[Hex]:
        """Where kingdom ``k`` is known to be: its land on the Erkundungskarte,
        its armies on the last result sheet, and where the notebook says it was."""
        spots = [self.plan.hex(a) for a, o in self.b.owners.items() if o == k]
        spots += [self.plan.hex(s.at) for s in self.b.sightings if s.kingdom == k]
        return spots + [h for h in self.remembered().get(k, []) if h not in spots]

    def remembered(self) -> dict[int, list[Hex]]:
        """The notebook's places (old places stay: they tell the direction)."""
        if self._memory is None:
            self._memory = {k: [self.plan.hex(a) for a in spots if self.view.on_map(a)]
                            for k, spots in sorted(self.b.notes.items())}
        return self._memory

    def looked_at(self, h: Hex) -> bool:
        """True if one of our armies stands on ``h`` or next to it now."""
        return any(h.distance(self.plan.hex(a.position)) <= 1
                   for a in self.view.armies.values() if not a.passive)

    def notebook(self) -> list[str]:
        """Where each kingdom on the list was last seen, newest first (at most
        six places each): the ``# Notiz:`` lines of this sheet."""
        lines = []
        for k in sorted(self.view.diplomacy):
            now = [self.plan.hex(s.at) for s in self.b.sightings if s.kingdom == k]
            now += sorted(self.plan.hex(a) for a, o in self.b.owners.items() if o == k)
            spots = list(dict.fromkeys(now + self.remembered().get(k, [])))[:NOTE_PLACES]
            if spots:
                lines.append(f"{NOTE_PREFIX}{k}: " + " ".join(self.plan.label(h) for h in spots))
        return lines

    def search_notes(self) -> str:
        """The notebook's ``# Gesucht:`` line: every search made so far (those of
        the gemarks not yet searched enough, at most :data:`SEARCH_NOTES`)."""
        done = [a for a in self.b.searched if a not in (self.view.deposits or {})]
        done += [self.plan.grid.address_of(self.plan.hex(self.view.armies[n].position))
                 for n, o in sorted(self.o.b.items()) if o == "s"]
        done = done[-SEARCH_NOTES:]
        return SEARCH_PREFIX + " ".join(str(a) for a in done) if done else ""

    def enemies(self) -> list[int]:
        """Kingdoms this bot makes war on. The diplomacy status is its memory:
        every kingdom it holds at 1-3 is at war with it (the nearest known two);
        otherwise it picks the nearest kingdom it has met (on the list) and seen
        (land on the Erkundungskarte or an army on the last sheet). A hostile
        power is at war with every kingdom on its list."""
        dip = self.view.diplomacy
        if not self.p.war or not dip:
            return []
        home = self.home()
        far = 1 << 20
        dist: dict[int, int] = {}
        for k in sorted(dip):
            spots = self.enemy_spots(k)
            dist[k] = min(home.distance(x) for x in spots) if spots and home is not None \
                else (0 if spots else far)
        if self.p.hostile:
            return sorted(dip, key=lambda k: (dist[k], k))
        at_war = sorted((k for k in dip if dip[k] <= 3), key=lambda k: (dist[k], k))
        if at_war:
            return at_war[:2]
        known = sorted((k for k in dip if dist[k] < far), key=lambda k: (dist[k], k))
        return known[:1]

    def attackers(self) -> set[int]:
        """Kingdoms that fought us or declared war on us last month (the result
        sheet's battles and messages)."""
        out = {int(e.data["enemy_kingdom"]) for e in self.b.events
               if e.kind == "combat.battle" and e.data.get("enemy_kingdom")}
        out |= {int(e.data["from"]) for e in self.b.events if e.kind == "message.delivered"
                and e.data.get("from") and "Krieg" in str(e.data.get("text", ""))}
        return {k for k in out if k in self.view.diplomacy}

    def k_orders_war(self) -> None:
        # war is answered with war: lower the status toward an attacker to 3
        # ("Angriff auf fremde Heere möglich"), so that its armies can be fought
        for k in sorted(self.attackers()):
            status = self.view.diplomacy[k]
            if status > 3 and self.k_left() > 0 and (not self.p.war or k not in self.enemies()):
                self.o.k.append(f"DS {k} {'--' if status > 4 else '-'}")
        for k in self.enemies():
            status = self.view.diplomacy.get(k, 5)
            if status > 1 and self.k_left() > 0:
                self.o.k.append(f"DS {k} {'--' if status > 2 else '-'}")
                if status >= 5:
                    self.o.messages.append((k, f"{self.view.name} erklärt Euch den Krieg."))

    def k_orders_build(self) -> None:
        budget = int(self.free * self.p.build_share)
        spent = 0
        for order, price in self.build_candidates():
            if self.k_left() <= 0:
                break
            if spent + price > budget or not self.afford(price):
                continue
            spent += price
            self.o.k.append(order)

    def build_candidates(self) -> list[tuple[str, int]]:
        """Kingdom orders that build, best first. A palace in every settlement of
        100 BE or more (one more kingdom order a month, "Pro Palast ... einen
        Befehl"); the Baumeister founds a new settlement every few months, then
        alternates mines (income by height) and growing its largest settlement
        (2.000 GS per 100 BE); a Kaserne in every town (recruits, defence)."""
        v = self.view
        out: list[tuple[str, int]] = []
        towns = sorted(v.settlements.values(), key=lambda s: (-s.size, str(s.at)))
        for s in towns:
            if s.level(Building.PALAST) == 0 and s.size >= 100:
                out.append((f"BQ {s.at}", self.prices["Palast"]))
        mines = self.mine_sites()
        pick = 0 if deposits_enabled(self.rules) else v.month.ordinal % max(1, len(mines))
        mine = (f"BM {mines[pick]}", self.prices["Mine"]) if mines else None
        builder = self.p.name.startswith("Baumeister")
        if builder:
            founding = [s for s in towns if s.size < 100]
            new = self.new_town_site()
            if new is not None and not founding:
                out.append((f"SS {new[0]} 100", new[1]))
            grow = None
            for s in towns:
                t = v.terrain_at(s.at)
                f = settlement_cost_factor(t) if t is not None else None
                if f and s.size < 700:
                    grow = (f"SS {s.at} 100", 100 * self.unit_price * f)
                    break
            pair = [mine, grow] if v.month.ordinal % 2 else [grow, mine]
            out += [x for x in pair if x is not None]
            if self.b.popularity < FESTIVAL_BELOW:
                # two points of popularity (festival.gold_per_point_per_gemark: 100 GS
                # per gemark and point); taxes and militia grow with it
                gold = max(1000, len(v.owned) * 200)
                festival = (f"F+ {gold}", gold)
        elif mine is not None:
            out.append(mine)
        for s in towns:
            if s.level(Building.KASERNE) == 0 and s.size >= 100:
                out.append((f"BK {s.at}", self.prices["Kaserne"]))
        if builder and self.b.popularity < FESTIVAL_BELOW:
            out.append(festival)  # the cheapest order last: when no building is affordable
        return out

    def mine_sites(self) -> list[str]:
        """Where a mine pays: with deposits (deposits.yaml) only on a deposit the
        kingdom found in its own land, richest kind first, below the top level
        ("für die Ausbeutung eines bereits bekannten Bodenschatzes"); without
        them (old rules) the highest own land."""
        v = self.view
        if deposits_enabled(self.rules):
            top = self.rules.int("economy", "buildings", "max_level")
            yields = deposit_kinds(self.rules)
            sites = []
            for a, kind in (v.deposits or {}).items():
                if a not in v.owned:
                    continue
                s = v.settlements.get(a)
                level = s.level(Building.MINE) if s is not None else v.mines.get(a, 0)
                if level < top:
                    sites.append((-yields.get(kind, 0), level, str(a)))
            return [a for _y, _l, a in sorted(sites)]
        land = []
        for a in v.owned:
            t = v.terrain_at(a)
            if t is None or is_water(t) or has(t, Component.VULKAN):
                continue
            land.append((-t.height, str(a)))
        return [a for _h, a in sorted(land)]

    def new_town_site(self) -> tuple[str, int] | None:
        v = self.view
        best = None
        for a in sorted(v.owned, key=str):
            if a in v.settlements:
                continue
            t = v.terrain_at(a)
            if t is None:
                continue
            f = settlement_cost_factor(t)
            if not f or f > 1:
                continue
            key = (-t.tax, str(a))
            if best is None or key < best[0]:
                best = (key, str(a), 100 * self.unit_price * f)
        return None if best is None else (best[1], best[2])

    # -- passive armies --------------------------------------------------------------------

    def land_armies(self) -> list[ArmyView]:
        return [a for a in self.view.armies.values() if not a.is_fleet and a.troop is not None]

    def wanted_armies(self) -> int:
        """More armies while the treasury holds much more than the reserve
        (gold in the treasury wins no land), at most two more."""
        active = [a for a in self.land_armies() if not a.passive]
        extra = 0 if self.p.name.startswith("Baumeister") else \
            min(2, max(0, self.free) // RICH)
        return self.p.armies + extra - len(active)

    def town_with(self, building: Building) -> list[str]:
        return [str(s.at) for s in sorted(self.view.settlements.values(),
                                          key=lambda s: (-s.size, str(s.at)))
                if s.level(building) > 0]

    def passive_armies(self) -> None:
        v = self.view
        passive = [a for a in sorted(v.armies.values(), key=lambda x: x.number)
                   if a.passive and a.status is ArmyStatus.PASSIVE]
        hired = self.hire(passive)
        want = self.wanted_armies()
        towns = self.town_with(Building.KASERNE)
        for a in passive:
            if want <= 0 or not towns or a.number == hired or a.general is None:
                continue
            if a.is_fleet:
                continue
            troop = a.troop or TroopType.KRIEGER.value
            # activation now, upkeep and a first levy next month
            first = self.premium[troop] * 500
            if self.afford(self.activation[troop] + first, self.upkeep[troop]):
                self.free += first  # only reserved for next month's levy
                self.o.a[a.number] = f"nh {towns[0]}"
                # one new army a month: next month it alone recruits in that town
                # (armies recruit in ascending number, "Die Rüstung" (d))
                break

    def hire(self, passive: list[ArmyView]) -> int | None:
        offer = self.view.offer
        if offer is None or not passive:
            return None
        g = offer.general
        if g.troop_type is TroopType.SCHIFFE:
            return None
        empty = [a for a in passive if a.general is None]
        worse = [a for a in passive if a.general is not None
                 and a.general.troop_type is not TroopType.SCHIFFE
                 and ((g.troop_type is self.p.troop and a.general.troop_type is not self.p.troop)
                      or (g.troop_type is a.general.troop_type
                          and g.experience >= a.general.experience + 10))]
        fleets = [a for a in passive if a.general is not None
                  and a.general.troop_type is TroopType.SCHIFFE]
        pick = next(iter(empty or fleets or worse), None)
        if pick is None or not self.afford(offer.price):
            return None
        self.o.a[pick.number] = "nf"
        return pick.number

    # -- active armies ---------------------------------------------------------------------

    def active_armies(self) -> None:
        v = self.view
        # an army activated last month is active by the time its orders run
        armies = [a for a in sorted(v.armies.values(), key=lambda x: x.number)
                  if not a.passive and a.status in (ArmyStatus.ACTIVE, ArmyStatus.ACTIVATING)]
        merged = self.merges(armies)
        self.cuts = self.plan_cuts([a for a in armies if a.number not in merged])
        # an empty army recruits first in its town: the others leave it the
        # militia this month (armies recruit in ascending number, "(d)")
        self.levy_towns = {}
        for a in armies:
            if a.units == 0 and not a.is_fleet and a.number not in merged:
                self.levy_towns.setdefault(a.position, a.number)
        for a in armies:
            if a.number in merged:
                continue
            if a.carried_by is not None:
                self.disembark(a)
                continue
            if a.is_fleet:
                self.fleet(a)
                continue
            self.phase_a_land(a)
            if a.number in self.o.a and self.o.a[a.number].startswith("eh"):
                continue
            if a.units == 0:
                continue  # recruiting its first soldiers: it stays in town
            self.phase_b_land(a)

    def merges(self, armies: list[ArmyView]) -> set[int]:
        """Concentrate: a smaller land army hands itself to a bigger one of the
        same type on the same gemark (``eh``) when the personality wants fewer,
        bigger armies (the Kriegsherr) or the army is small."""
        out: set[int] = set()
        by_place: dict[tuple[str, str], list[ArmyView]] = {}
        for a in armies:
            if a.is_fleet or a.carried_by is not None or a.boats or a.troop is None:
                continue
            by_place.setdefault((str(a.position), a.troop), []).append(a)
        for group in by_place.values():
            if len(group) < 2:
                continue
            group.sort(key=lambda x: (-x.units, x.number))
            big = group[0]
            for small in group[1:]:
                if self.p.war or small.units < 200:
                    self.o.a[small.number] = f"eh {big.number:04d}"
                    out.add(small.number)
        return out

    def plan_cuts(self, armies: list[ArmyView]) -> dict[int, str]:
        """When the realm cannot pay its armies for long (:attr:`excess`): first
        disband the smallest land armies whose whole cost the surplus covers
        (saving their upkeep too), then release soldiers of the largest."""
        out: dict[int, str] = {}
        excess = self.excess
        land = sorted((a for a in armies if not a.is_fleet and a.troop is not None
                       and a.carried_by is None and not a.boats and a.units > 0),
                      key=lambda a: (a.units, a.number))
        for a in land[:-1]:
            cost = self.upkeep.get(a.troop or "", 0) + a.units * self.pay.get(a.troop or "", 0)
            if excess <= 0 or cost > 2 * excess:
                break
            out[a.number] = "eh 0000"
            excess -= cost
        if excess > 0 and land:
            big = land[-1]
            per = max(1, self.pay.get(big.troop or "", 1))
            n = min(big.units - 1, -(-excess // per))
            if n > 0:
                out[big.number] = f"er {n}"
        return out

    def disembark(self, a: ArmyView) -> None:
        """A land army on a fleet goes ashore: the harbour or an adjacent coast."""
        fleet = self.view.armies.get(a.carried_by or 0)
        if fleet is None:
            return
        here = self.plan.hex(a.position)
        if self.plan.is_land(here):
            t = self.plan.known.get(here)
            if t is not None and t.height <= 2:
                self.o.a[a.number] = f"vs {a.position}"
            return
        x = self.landing_site(here)
        if x is not None:
            self.o.a[a.number] = f"vs {self.plan.label(x)}"

    def fleet(self, a: ArmyView) -> None:
        """Bots keep no fleets: one that carries nobody is disbanded; one that
        carries an army at sea sails to the nearest water next to a coast where
        its cargo can go ashore (``vs``) the month after."""
        if a.carrying is None:
            self.o.a[a.number] = "eh 0000"
            return
        here = self.plan.hex(a.position)
        if not self.plan.is_water(here) or self.landing_site(here) is not None:
            return
        path = self.plan.route(MoverKind.SCHIFFE, here, lambda h: self.plan.is_water(h)
                               and self.landing_site(h) is not None, limit=2000)
        steps = self.plan.month_steps(MoverKind.SCHIFFE, here, path) if path else []
        if steps:
            self.o.b[a.number] = "b " + " ".join(d.value for d in steps)

    def landing_site(self, h: Hex) -> Hex | None:
        """A Küstengemark of height 1-2 next to ``h`` ("(q)")."""
        for _d, x in self.plan.neighbours(h):
            t = self.plan.known.get(x)
            if self.plan.coastal(x) and t is not None and t.height <= 2:
                return x
        return None

    def phase_a_land(self, a: ArmyView) -> None:
        v = self.view
        troop = a.troop or TroopType.KRIEGER.value
        s = v.settlements.get(a.position)
        can_recruit = (s is not None and s.level(Building.KASERNE) > 0 and not a.boats
                       and not self.b.refused("a.nr.refused", a.number)
                       and self.levy_towns.get(a.position, a.number) == a.number)
        need = max(0, self.p.army_size - a.units)
        if can_recruit and need > 0:
            each = self.premium[troop]
            monthly = self.pay[troop]
            share = self.free * (1.0 if a.units == 0 else self.p.recruit_share)
            n = int(share // (each + monthly * (self.p.reserve_months + 1)))
            room = self.sustainable - self.running_costs() - self.added_running
            n = min(need, n, 5000, max(0, room // max(1, monthly)))
            n = n // 10 * 10 if n >= 100 else n
            if n >= 50 and self.afford(n * each, n * monthly):
                self.added_running += n * monthly
                self.o.a[a.number] = f"nr {n}"
                return
        if a.units == 0:
            self.o.a[a.number] = "eh 0000"
        elif self.p.war and a.units < self.weak() and s is not None \
                and self.b.refused("a.nr.refused", a.number):
            # too small to fight and no recruits here: save its upkeep
            self.o.a[a.number] = "eh 0000"
        elif a.number in self.cuts:
            self.o.a[a.number] = self.cuts[a.number]

    def phase_b_land(self, a: ArmyView) -> None:
        kind = MoverKind.REITER if a.troop_type is TroopType.REITER else MoverKind.KRIEGER
        if a.boats:
            self.sail(a)
            return
        here = self.plan.hex(a.position)
        if self.defend(a, kind, here):
            return
        if self.demoralised(a):
            # "Eine niedrige Moral kann aber auch ... Desertionen zur Folge haben":
            # train ("kann den Moralwert eines Heeres erhöhen") before anything else
            self.o.b[a.number] = "t"
            return
        if not self.p.war and self.view.month.ordinal % 2 == 0 and self.prospect(a, kind, here):
            return
        if self.p.war:
            # war first; without a known enemy, look for one before taking land
            if self.war_move(a, kind, here):
                return
            if (self.p.hostile or not self.enemies()) and self.scout(a, kind, here):
                return
        if self.expand(a, kind, here):
            return
        if self.p.explore and self.scout(a, kind, here):
            return
        if self.prospect(a, kind, here):
            return
        owner = self.b.owners.get(a.position, 0)
        self.o.b[a.number] = "h" if owner == self.view.kingdom else "t"

    # deposits: search own land ----------------------------------------------------------

    def demoralised(self, a: ArmyView) -> bool:
        """Morale near the level where soldiers desert (morale.yaml)."""
        if not morale_enabled(self.rules):
            return False
        below = self.rules.int("morale", "desertion", "below")
        return self.b.morale.get(a.number, 100) < below + KEEP_MORALE_MARGIN

    def worth_searching(self, h: Hex) -> bool:
        """An own land gemark that may hold a deposit the kingdom has not found
        and that its armies searched fewer than :data:`SEARCHES_PER_GEMARK` times."""
        a = self.plan.grid.address_of(h)
        if a not in self.view.owned or a in (self.view.deposits or {}):
            return False
        t = self.plan.known.get(h)
        if t is None or is_water(t):
            return False
        return self.searches.get(a, 0) < SEARCHES_PER_GEMARK \
            and self.deposit_chance is not None and self.deposit_chance[t.id] >= PROSPECT_CHANCE

    def prospect(self, a: ArmyView, kind: str, here: Hex) -> bool:
        """Look for deposits ("Bodenschätze"; the search ``s`` finds them): search
        here, or go to the nearest own gemark worth searching."""
        if not deposits_enabled(self.rules):
            return False
        if self.worth_searching(here) and here not in self.prospected:
            self.prospected.add(here)
            self.o.b[a.number] = "s"
            return True
        path = self.plan.route(kind, here, lambda h: self.worth_searching(h)
                               and h not in self.prospected, limit=300)
        steps = self.plan.month_steps(kind, here, path) if path else []
        if not steps or not path:
            return False
        self.prospected.add(path[-1])
        self.o.b[a.number] = "b " + " ".join(d.value for d in steps)
        return True

    def defend(self, a: ArmyView, kind: str, here: Hex) -> bool:
        """Throw out an intruder: an army of a kingdom we are at war with (status
        1-3) standing in our land, if we are at least as strong."""
        dip = self.view.diplomacy
        own = self.view.owned
        foes = [s for s in self.b.sightings if s.what is SightingKind.ARMY and s.kingdom in dip
                and dip[s.kingdom] <= 3 and s.at in own and s.units <= a.units
                and self.plan.hex(s.at).distance(here) <= 3]
        if not foes or a.units < self.weak():
            return False
        goals = {self.plan.hex(s.at) for s in foes}
        if here in goals:
            self.o.b[a.number] = "t"
            return True
        path = self.plan.route(kind, here, lambda h: h in goals, limit=400)
        steps = self.plan.month_steps(kind, here, path) if path else []
        if not steps:
            return False
        self.o.b[a.number] = "b " + " ".join(d.value for d in steps)
        return True

    def sail(self, a: ArmyView) -> None:
        here = self.plan.hex(a.position)
        path = self.plan.route(MoverKind.BOOTE, here, lambda h: self.plan.coastal(h))
        if path:
            steps = self.plan.month_steps(MoverKind.BOOTE, here, path)
            if steps:
                self.o.b[a.number] = "b " + " ".join(d.value for d in steps)

    # expansion: neutral land with e -------------------------------------------------------

    def neutral(self, h: Hex) -> bool:
        a = self.plan.grid.address_of(h)
        return (self.plan.is_land(h) and self.b.owners.get(a, -1) == 0
                and a not in self.b.towns and h not in self.claimed
                and not has(self.plan.known[h], Component.VULKAN))

    def expand(self, a: ArmyView, kind: str, here: Hex) -> bool:
        """Take neutral land: walk (``e``) through neutral gemarks, claiming each."""
        path = self.plan.route(kind, here, self.neutral, limit=self.p.expand_range)
        if path is None:
            return False
        steps = self.plan.month_steps(kind, here, path)
        if not steps:
            return False
        # go on through further neutral gemarks with what is left of the budget
        h, spent = here, 0
        for d in steps:
            spent += self.plan.step_cost(kind, h, h.neighbour(d)) or 0
            h = h.neighbour(d)
        while True:
            nxt = [(d, x) for d, x in self.plan.neighbours(h) if self.neutral(x)
                   and (c := self.plan.step_cost(kind, h, x)) is not None
                   and spent + c <= self.plan.t.budget]
            if not nxt:
                break
            d, x = nxt[int(self.rng.integers(len(nxt)))]
            spent += self.plan.step_cost(kind, h, x) or 0
            steps.append(d)
            h = x
        cur = here
        for d in steps:
            cur = cur.neighbour(d)
            self.claimed.add(cur)
        self.o.b[a.number] = "e " + " ".join(d.value for d in steps)
        return True

    def scout(self, a: ArmyView, kind: str, here: Hex) -> bool:
        """Go toward the edge of the known map (unknown land beyond)."""
        seen = self.targets_taken
        path = self.plan.route(kind, here, lambda h: self.plan.is_land(h) and self.plan.frontier(h)
                               and h not in seen and not self.plan.foreign(h), limit=1500)
        if not path:
            return False
        steps = self.plan.month_steps(kind, here, path)
        if not steps:
            return False
        seen.add(path[-1])
        self.o.b[a.number] = "b " + " ".join(d.value for d in steps)
        return True

    # war ------------------------------------------------------------------------------------

    def war_move(self, a: ArmyView, kind: str, here: Hex) -> bool:
        """March on the enemy: its settlements, then its armies, then the unknown
        land beyond its known territory; occupy an enemy settlement standing on it."""
        enemies = set(self.enemies())
        if not enemies:
            return False
        dip = self.view.diplomacy
        at_war = {k for k in enemies if dip.get(k, 5) <= 2}
        pos = a.position
        owner = self.b.owners.get(pos, 0)
        if a.units < self.weak():
            if self.go_home(a, kind, here):
                return True
            self.o.b[a.number] = "t"  # wait at home for recruits, drilling
            return True
        if owner in at_war and pos in self.b.towns:
            repelled = any(e.army == a.number and e.kind == "militia.fight"
                           and not e.data.get("won") for e in self.b.events)
            self.o.b[a.number] = "x K" if repelled and self.rng.random() < 0.5 else "o"
            return True
        near = [self.plan.hex(s.at) for s in self.b.sightings if s.what is SightingKind.ARMY
                and s.kingdom in enemies and self.plan.hex(s.at).distance(here) <= 1]
        if near and self.rng.random() < 0.5:
            # an enemy army next to us: hold the ground half the time, so that two
            # armies chasing each other do not just swap their gemarks
            self.o.b[a.number] = "t"
            return True
        for targets in self.war_targets(enemies, here):
            path = self.plan.route(kind, here, targets.__contains__, limit=6000)
            if path is None:
                continue
            steps = self.plan.month_steps(kind, here, path)
            if steps:
                self.o.b[a.number] = "b " + " ".join(d.value for d in steps)
                return True
        if owner in at_war:
            self.o.b[a.number] = "o"
            return True
        return False

    def weak(self) -> int:
        """Below this an army of a warlike bot does not march."""
        return max(300, self.p.army_size // 20)

    def go_home(self, a: ArmyView, kind: str, here: Hex) -> bool:
        """A weak army gathers at the capital to recruit."""
        home = self.home()
        if home is None or here == home:
            return False
        path = self.plan.route(kind, here, lambda h: h == home)
        steps = self.plan.month_steps(kind, here, path) if path else []
        if not steps:
            return False
        self.o.b[a.number] = "b " + " ".join(d.value for d in steps)
        return True

    def war_targets(self, enemies: set[int], here: Hex) -> list[set[Hex]]:
        """Target sets in order of preference: enemy settlements; settlements of
        unknown owner near the enemy; enemy armies close by (seen last month); the
        unknown interior of the enemy's land; its land. Settlements and land come
        from the Erkundungskarte and stay put, so an army keeps its course."""
        land = {self.plan.hex(at) for at, o in self.b.owners.items() if o in enemies}
        seen = {self.plan.hex(s.at) for s in self.b.sightings if s.kingdom in enemies}
        spots = land | seen | {h for k, hs in self.remembered().items() if k in enemies
                               for h in hs}
        towns = {self.plan.hex(at) for at, size in self.b.towns.items()
                 if self.b.owners.get(at, 0) in enemies and size > 0}
        # settlements seen by the scouts whose owner the map does not tell: near the
        # enemy first, then any (a warlord goes and looks; a hostile power attacks all)
        unknown = {self.plan.hex(at) for at, size in self.b.towns.items()
                   if at not in self.b.owners and size > 0}
        near = {h for h in unknown if any(h.distance(x) <= 4 for x in spots)}
        seen_armies = {self.plan.hex(s.at) for s in self.b.sightings
                       if s.what is SightingKind.ARMY and s.kingdom in enemies and s.units >= 50}
        armies = {h for h in seen_armies if h.distance(here) <= 3}
        # where the notebook says the enemy was, unless we stand there now
        memory = {h for k, hs in self.remembered().items() if k in enemies for h in hs
                  if not self.looked_at(h)}
        # the enemy's capital hides near its land: gemarks not yet surveyed there
        surveyed = {self.plan.hex(a) for a in self.b.surveyed}
        search = {h for h in self.plan.known if self.plan.is_land(h) and h not in surveyed
                  and any(h.distance(x) <= 3 for x in land)}
        if search:
            # a realm grows around its capital: look near the middle of its known land
            centre = self.centre(land)
            best = min(h.distance(centre) for h in search)
            search = {h for h in search if h.distance(centre) <= best + 1}
        inside = {h for h in land if self.plan.frontier(h)}
        edge = {h for h in self.plan.known if self.plan.is_land(h) and self.plan.frontier(h)
                and any(h.distance(x) <= 2 for x in spots)}
        return [t for _name, t in self.named_targets(towns, near, armies, unknown, search,
                                                     seen_armies, memory, inside, edge, land)]

    def named_targets(self, *sets: set[Hex]) -> list[tuple[str, set[Hex]]]:
        names = ("towns", "near", "armies", "unknown", "search", "seen_armies", "memory",
                 "inside", "edge", "land")
        self.last_targets = [(n, {h for h in t if self.plan.is_land(h)})
                             for n, t in zip(names, sets, strict=True)]
        self.last_targets = [(n, t) for n, t in self.last_targets if t]
        return self.last_targets

    def centre(self, cells: set[Hex]) -> Hex:
        """The known cell nearest to the mean position of ``cells``."""
        q = sum(h.q for h in cells) / len(cells)
        r = sum(h.r for h in cells) / len(cells)
        return min(sorted(cells), key=lambda h: (h.q - q) ** 2 + (h.r - r) ** 2
                   + (h.q - q) * (h.r - r))

    def home(self) -> Hex | None:
        v = self.view
        towns = sorted(v.settlements.values(),
                       key=lambda s: (-s.level(Building.PALAST), -s.size, str(s.at)))
        return self.plan.hex(towns[0].at) if towns else None


__all__ = ["PERSONALITIES", "Personality", "personality", "write_sheet", "bot_seed"]
