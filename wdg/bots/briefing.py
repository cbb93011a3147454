"""What a bot knows: the kingdom's view and its last result sheet.

A human ruler plans with two papers and his notebook: the machine-readable view
(``ansicht.yaml``, :class:`~wdg.orders.view.KingdomView`: own armies,
settlements, gemarks, the known terrain, the diplomacy list, the general on
offer) and the last Ergebnisblatt (the treasury and its ledger, the foreign
armies and creatures the scouts saw, the owners and settlements the
Erkundungskarte shows as last seen, what became of each order), and the notes he wrote on his own last sheet
(the bot's notebook: ``# Notiz:`` comment lines, where it was last seen each
kingdom it met). A :class:`Briefing` holds exactly that and nothing else; a
bot reads only a briefing (``wdg.bots.players``), never the segment.

:func:`brief` builds it the way the result sheet does — from the state after
the month and the month's event log, keeping only this kingdom's events and
only gemarks the view knows — so the lab and ``wdg turn run`` give a bot what
its ruler would read. Tests build briefings by hand (fog).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wdg.engine.events import Event, SightingKind
from wdg.errors import InvalidInputError
from wdg.orders.view import KingdomView, build_view
from wdg.world.address import Address
from wdg.world.state import Segment


@dataclass(frozen=True, slots=True)
class Sighting:
    """A foreign army or creature on the result sheet ("Die Erkundung der Heere")."""

    at: Address
    what: SightingKind
    """An army or a creature (the event's stored code, read back)."""
    ident: int
    kingdom: int | None
    units: int
    troop: str = ""


@dataclass(slots=True)
class Briefing:
    """Everything one ruler has on his desk when he writes the next sheet."""

    view: KingdomView
    treasury: int
    """"Reichsschatz" after the last month (the result sheet's closing balance)."""
    income: int = 0
    """Last month's income (taxes and other income of the ledger)."""
    expense: int = 0
    """Last month's expenses (positive number)."""
    popularity: int = 50
    sightings: list[Sighting] = field(default_factory=list)
    owners: dict[Address, int] = field(default_factory=dict)
    """Owner of known gemarks as last seen (0 = neutral); the Erkundungskarte."""
    towns: dict[Address, int] = field(default_factory=dict)
    """Settlement size (Baueinheiten) of known foreign or neutral gemarks as last seen."""
    surveyed: set[Address] = field(default_factory=set)
    """Gemarks whose settlement the scouts have seen (with or without one): the
    Erkundungskarte shows them; elsewhere a settlement may hide."""
    events: list[Event] = field(default_factory=list)
    """Last month's events of this kingdom (the lines of its result sheet)."""
    notes: dict[int, list[Address]] = field(default_factory=dict)
    """The bot's notebook from its own last sheet: kingdom -> gemarks where it
    was last seen (:func:`read_notes`)."""
    morale: dict[int, int] = field(default_factory=dict)
    """Morale of each own army as the result sheet shows it ("Moral")."""
    searched: list[Address] = field(default_factory=list)
    """Gemarks its armies searched (``s``), once per search: the notebook's
    ``# Gesucht:`` line (:func:`read_searched`)."""

    @property
    def kingdom(self) -> int:
        return self.view.kingdom

    def refused(self, kind_prefix: str, army: int | None = None) -> bool:
        """True if last month an order of this kind (``a.nr``) was refused or
        only partly executed (for ``army`` when given)."""
        return any(e.kind.startswith(kind_prefix) and e.kind.endswith((".refused", ".partial"))
                   and (army is None or e.army == army) for e in self.events)


_SIGHTING_CODES = frozenset(k.value for k in SightingKind)

INCOME_LEDGERS = frozenset({"tax", "income", "conquest", "treasure"})


NOTE_PREFIX = "# Notiz: Königreich "
SEARCH_PREFIX = "# Gesucht: "
"""The notebook line of the gemarks searched for deposits (``s``)."""


def read_searched(sheet: str | None) -> list[Address]:
    """The ``# Gesucht:`` line of a sheet: one address per search made."""
    out: list[Address] = []
    for line in (sheet or "").splitlines():
        if line.startswith(SEARCH_PREFIX):
            for word in line[len(SEARCH_PREFIX):].split():
                try:
                    out.append(Address.parse(word))
                except InvalidInputError:
                    continue
    return out


def read_notes(sheet: str | None) -> dict[int, list[Address]]:
    """The notebook lines of a sheet: ``# Notiz: Königreich 6: 303.03 302.11``."""
    out: dict[int, list[Address]] = {}
    for line in (sheet or "").splitlines():
        if not line.startswith(NOTE_PREFIX):
            continue
        head, _, rest = line[len(NOTE_PREFIX):].partition(":")
        if not head.strip().isdigit():
            continue
        spots = []
        for word in rest.split():
            try:
                spots.append(Address.parse(word))
            except InvalidInputError:
                continue
        out[int(head)] = spots
    return out


def brief(seg: Segment, kingdom: int, events: list[Event] | None = None,
          last_sheet: str | None = None) -> Briefing:
    """The briefing of ``kingdom`` on ``seg`` (the state after the last month)
    with that month's ``events`` (``None``: no result sheet yet) and the text of
    the kingdom's own last sheet (its notebook)."""
    view = build_view(seg, kingdom)
    k = seg.kingdoms[kingdom]
    mine = [e for e in (events or []) if e.kingdom == kingdom]
    b = Briefing(view=view, treasury=k.treasury, popularity=k.popularity, events=mine,
                 notes=read_notes(last_sheet))
    b.morale = {n: a.morale for n, a in seg.armies.items() if a.kingdom == kingdom}
    b.searched = read_searched(last_sheet)
    b.income = sum(e.gold for e in mine if e.gold > 0 and e.ledger in INCOME_LEDGERS)
    b.expense = -sum(e.gold for e in mine if e.gold < 0)
    grid = seg.grid
    for e in mine:
        if e.kind == "recon.sighting" and e.at is not None and grid.contains(e.at):
            d = e.data
            what = str(d.get("what", ""))
            if what not in _SIGHTING_CODES:
                continue  # no sighting this version knows of
            b.sightings.append(Sighting(grid.address_of(e.at), SightingKind(what),
                                        int(d.get("id", 0)), d.get("of"), int(d.get("units", 0)),
                                        str(d.get("troop", ""))))
    km = seg.known.get(kingdom)
    if km is not None:
        for a in view.known:
            row, col = grid.index(grid.hex_of(a))
            owner, size = int(km.owner[row, col]), int(km.settlement[row, col])
            if owner >= 0:
                b.owners[a] = owner
            if size >= 0:
                b.surveyed.add(a)
            if size > 0 and a not in view.settlements:
                b.towns[a] = size
    for a in view.owned:
        b.owners[a] = kingdom
        b.surveyed.add(a)
    return b
