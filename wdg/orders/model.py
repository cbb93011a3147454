"""Typed orders: what the parser produces and the engine consumes.

Every order is a frozen value with the sheet line it came from (``line``,
1-based; 0 for orders not from a sheet). Command letters and parameters are
the rule's ("Die Befehle für das Königreich", "Die Heeresbefehle der Phase A",
"Die Heeresbefehle der Phase B"). ``str(order)`` prints the canonical short
form the pre-filled sheets and reports use (``nr 500``, ``b NO O``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from wdg.world.address import Address
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Direction
from wdg.world.state import Building


def _dirs(ds: tuple[Direction, ...]) -> str:
    return " ".join(d.value for d in ds)


# --- K: kingdom orders ("Die Befehle für das Königreich") ---------------------

@dataclass(frozen=True, slots=True)
class Build:
    """``(Bn) Bauwerk "n" bauen <Gemark>``: BH Hafen, BK Kaserne, BQ Palast, BM Mine."""

    building: Building
    at: Address
    line: int = 0

    def __str__(self) -> str:
        return f"B{self.building.value} {self.at}"


@dataclass(frozen=True, slots=True)
class ChangeDiplomacy:
    """``(DS) Diplomatiestatus ändern <Königreichnummer, ++ + - -->``."""

    kingdom: int
    delta: int
    """+2, +1, -1 or -2."""
    line: int = 0

    def __str__(self) -> str:
        sign = "+" if self.delta > 0 else "-"
        return f"DS {self.kingdom} {sign * abs(self.delta)}"


@dataclass(frozen=True, slots=True)
class Settle:
    """``(SS) Siedlung bauen/erweitern <Gemark, Baustufe>``: ``units`` Baueinheiten
    (1..100 per order, "Die Siedlung" (d))."""

    at: Address
    units: int
    line: int = 0

    def __str__(self) -> str:
        return f"SS {self.at} {self.units}"


@dataclass(frozen=True, slots=True)
class Festival:
    """``(F+) Volksfest veranstalten <Menge an Goldsternen>``."""

    gold: int
    line: int = 0

    def __str__(self) -> str:
        return f"F+ {self.gold}"


KingdomOrder = Build | ChangeDiplomacy | Settle | Festival


# --- Phase A ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HireGeneral:
    """``(nf) Neuen Feldherren anwerben`` (passive armies only)."""

    line: int = 0

    def __str__(self) -> str:
        return "nf"


@dataclass(frozen=True, slots=True)
class Activate:
    """``(nh) Heer neu aktivieren <Gemark>`` (passive armies only)."""

    at: Address
    line: int = 0

    def __str__(self) -> str:
        return f"nh {self.at}"


@dataclass(frozen=True, slots=True)
class DismissArmy:
    """``(eh) Heer entlassen <Heeresnummer>``; ``target == 0`` ("0000") disbands."""

    target: int
    line: int = 0

    def __str__(self) -> str:
        return f"eh {self.target:04d}"


@dataclass(frozen=True, slots=True)
class Recruit:
    """``(nr) Neue Rüstgüter anwerben <Anzahl>``."""

    count: int
    line: int = 0

    def __str__(self) -> str:
        return f"nr {self.count}"


@dataclass(frozen=True, slots=True)
class Release:
    """``(er) Rüstgüter entlassen <Anzahl>``."""

    count: int
    line: int = 0

    def __str__(self) -> str:
        return f"er {self.count}"


@dataclass(frozen=True, slots=True)
class BuildBoats:
    """``(bb) Boote bauen <Himmelsrichtung>``."""

    direction: Direction
    line: int = 0

    def __str__(self) -> str:
        return f"bb {self.direction.value}"


@dataclass(frozen=True, slots=True)
class Board:
    """``(bs) Schiffe betreten <Heeresnummer>`` (the fleet's number)."""

    fleet: int
    line: int = 0

    def __str__(self) -> str:
        return f"bs {self.fleet:04d}"


@dataclass(frozen=True, slots=True)
class Disembark:
    """``(vs) Schiffe verlassen <Gemark>``."""

    at: Address
    line: int = 0

    def __str__(self) -> str:
        return f"vs {self.at}"


@dataclass(frozen=True, slots=True)
class Rename:
    """``(nn) Neuer Siedlungsname <Name>`` (up to 15 characters)."""

    name: str
    line: int = 0

    def __str__(self) -> str:
        return f"nn {self.name}"


PhaseAOrder = HireGeneral | Activate | DismissArmy | Recruit | Release | BuildBoats | Board \
    | Disembark | Rename


# --- Phase B ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Move:
    """``(b) Bewegung <Himmelsrichtung, ...>``."""

    directions: tuple[Direction, ...]
    line: int = 0

    def __str__(self) -> str:
        return f"b {_dirs(self.directions)}"


@dataclass(frozen=True, slots=True)
class CharacterAction:
    """``(c) Charakteraktion <Aktionscode>``; ``args`` are further parameters
    (e.g. the target gemark of a teleport)."""

    code: str
    args: tuple[str, ...] = ()
    line: int = 0

    def __str__(self) -> str:
        return " ".join(("c", self.code, *self.args))


@dataclass(frozen=True, slots=True)
class Conquer:
    """``(e) Einnahme <Himmelsrichtung, ...>``."""

    directions: tuple[Direction, ...]
    line: int = 0

    def __str__(self) -> str:
        return f"e {_dirs(self.directions)}"


@dataclass(frozen=True, slots=True)
class Help:
    """``(h) Hilfe``."""

    line: int = 0

    def __str__(self) -> str:
        return "h"


@dataclass(frozen=True, slots=True)
class Inform:
    """``(i) Information``."""

    line: int = 0

    def __str__(self) -> str:
        return "i"


@dataclass(frozen=True, slots=True)
class Occupy:
    """``(o) Okkupation``."""

    line: int = 0

    def __str__(self) -> str:
        return "o"


@dataclass(frozen=True, slots=True)
class Rest:
    """``(r) Ruhepause`` — also the default of an army without a Phase B order."""

    line: int = 0

    def __str__(self) -> str:
        return "r"


@dataclass(frozen=True, slots=True)
class Search:
    """``(s) Suche``."""

    line: int = 0

    def __str__(self) -> str:
        return "s"


@dataclass(frozen=True, slots=True)
class Train:
    """``(t) Training``."""

    line: int = 0

    def __str__(self) -> str:
        return "t"


class DestroyTarget(Enum):
    """``x`` targets: H Hafen, K Kaserne, M Mine, Q Palast, X the settlement
    with all its buildings."""

    HAFEN = "H"
    KASERNE = "K"
    MINE = "M"
    PALAST = "Q"
    SIEDLUNG = "X"

    @property
    def building(self) -> Building | None:
        """The building destroyed, or ``None`` for the settlement (``X``)."""
        return None if self is DestroyTarget.SIEDLUNG else Building(self.value)


@dataclass(frozen=True, slots=True)
class Destroy:
    """``(x) Siedlung/Bauwerk zerstören <Typ>``."""

    target: DestroyTarget
    line: int = 0

    def __str__(self) -> str:
        return f"x {self.target.value}"


PhaseBOrder = Move | CharacterAction | Conquer | Help | Inform | Occupy | Rest | Search | Train \
    | Destroy


# --- a whole sheet -------------------------------------------------------------

class Effect(Enum):
    """What a diagnostic's consequence means where a program acts on it
    (:attr:`Diagnostic.code`); the German ``consequence`` is its display text."""

    ARMY_REFUSED = "army-refused"
    """The army's block is refused: none of its orders is taken."""


class Severity(Enum):
    """How bad a diagnostic is."""

    ERROR = "Fehler"
    WARNING = "Warnung"


@dataclass(slots=True, unsafe_hash=True)
class Diagnostic:
    """One message about one sheet line, as the player reads it (German).

    Treated as immutable (hashable by value) but not ``frozen``: a frozen
    dataclass costs three times as much to create, and a sheet of 100,000
    refused lines makes 100,000 of them.

    ``found``/``expected`` quote the input and what would have been valid;
    ``consequence`` says what happens instead ("Befehl verweigert",
    "interpretiert als ...", "Heer ruht"); ``suggestion`` is a "meinten Sie"
    candidate where one is close.
    """

    line: int
    column: int
    severity: Severity
    message: str
    found: str = ""
    expected: str = ""
    consequence: str = ""
    suggestion: str = ""
    code: Enum | None = field(default=None, compare=False)
    """What a program compares where it acts on this message (e.g.
    :class:`wdg.orders.outcome.IntakeReason`), never the German text; run
    time only."""


@dataclass(slots=True)
class ArmyBlock:
    """One army's block in the ``H`` section: number and position as the rule
    demands ("Auch ein Heer, welches keine Befehle erhält, muß mit seiner
    Heeresnummer und Position aufgeführt werden!"), then one order per phase."""

    number: int
    position: Address
    line: int
    phase_a: PhaseAOrder | None = None
    phase_b: PhaseBOrder | None = None


@dataclass(slots=True)
class Message:
    """A ``BOTSCHAFT`` to another kingdom."""

    to: int
    text: str
    line: int


@dataclass(slots=True)
class Announcement:
    """A ``BEKANNTMACHUNG`` for the Götterbotschaft."""

    text: str
    line: int


@dataclass(slots=True)
class Sheet:
    """A parsed order sheet ("Spielzug") with every diagnostic."""

    segment: str = ""
    kingdom: int = 0
    password: str = ""
    month: MonthDate | None = None
    armies: list[ArmyBlock] = field(default_factory=list)
    kingdom_orders: list[KingdomOrder] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    announcements: list[Announcement] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    header_lines: dict[str, int] = field(default_factory=dict)
    """The line of each header value that counts (``segment``, ``kingdom``,
    ``password``, ``month``)."""
    outside: int = 0
    """Lines with text outside the sheet (before its header, after its end
    marker, quoted replies, signatures, forwarded mails), ignored."""
    next_sheet: int = 0
    """The line where another sheet begins in the same text (0: none)."""
    outside_lines: list[int] = field(default_factory=list)
    """The numbers of those lines (the checker and the confirmation list them)."""

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics of severity ERROR."""
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    def army(self, number: int) -> ArmyBlock | None:
        """The block of an army, if listed."""
        for b in self.armies:
            if b.number == number:
                return b
        return None
