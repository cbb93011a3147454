"""The game master's sheet ("Segmentleiter-Bogen"): interventions as an input of the month.

The rules give the game master ("Segmentleiter") nearly unlimited access to
every detail of a segment. In wdg every intervention is a line of the file
``orders/<segment>/<YYYY-MM>/sl.txt``, parsed here, checked against the
segment (:func:`check_gm_sheet`) and applied at the start of the month by
:mod:`wdg.engine.gamemaster` with an event for each — so the archive records
it and a replay reproduces it byte for byte. ``docs/gamemaster.md`` documents
every command with an example.

Parsing never raises: every non-blank, non-comment line becomes a command or
a diagnostic. Commands are case-insensitive; umlauts or ae/oe/ue are both fine.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from wdg.errors import InvalidInputError
from wdg.orders.model import Diagnostic, Severity
from wdg.world.address import Address
from wdg.world.state import Segment, TroopType
from wdg.world.terrain import Terrain, terrain


@dataclass(frozen=True, slots=True)
class PlaceCreature:
    """``FABELWESEN SETZEN <Art> <Gemark> [ANZAHL n] [GOLD n] [NAME "…"]``."""

    kind: str
    at: Address
    count: int = 1
    gold: int = 0
    name: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class MoveCreature:
    """``FABELWESEN BEWEGEN <Nummer> <Gemark>``."""

    id: int
    at: Address
    line: int = 0


@dataclass(frozen=True, slots=True)
class RemoveCreature:
    """``FABELWESEN ENTFERNEN <Nummer>``."""

    id: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class PlaceTreasure:
    """``SCHATZ <Gemark> [GOLD n] [GEGENSTAND "…"]``."""

    at: Address
    gold: int = 0
    item: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class OfferGeneral:
    """``FELDHERR <Königreich> <Krieger|Reiter|Schiffe> <Erfahrung> <Preis>
    [ZAUBERER] [FAEHIGKEIT <Code>] [NAME "…"]`` — the offer made at the end of this
    month in place of the drawn one (hired next month; this month's stays valid)."""

    kingdom: int
    troop: TroopType
    experience: int
    price: int
    wizard: bool = False
    ability: str | None = None
    name: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class ChangeGold:
    """``GOLD <Königreich> <+n|-n> <Grund …>``."""

    kingdom: int
    amount: int
    reason: str
    line: int = 0


@dataclass(frozen=True, slots=True)
class SetTerrain:
    """``GELAENDE <Gemark> <Geländeart oder Kartencode>``."""

    at: Address
    terrain: Terrain
    line: int = 0


@dataclass(frozen=True, slots=True)
class SetOwner:
    """``BESITZER <Gemark> <Königreich|0>`` (0 = neutral)."""

    at: Address
    kingdom: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class SetMilitia:
    """``MILIZ <Gemark> <Anzahl>``."""

    at: Address
    militia: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class SetSettlement:
    """``SIEDLUNG <Gemark> <Baueinheiten> [NAME "…"]`` (0 removes it)."""

    at: Address
    size: int
    name: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class SeasonEvent:
    """``EREIGNIS <Text …>`` sets the season's special event; ``EREIGNIS ENDE`` ends it."""

    text: str
    line: int = 0


@dataclass(frozen=True, slots=True)
class AddDiplomacy:
    """``DIPLOMATIE <Königreich> <Königreich>``: the second enters the first's
    list with status 5 ("immer ein Diplomatiestatus von 5")."""

    kingdom: int
    other: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class Note:
    """``NOTIZ <Königreich>`` … ``ENDE``: a note on one kingdom's result sheet."""

    kingdom: int
    text: str
    line: int = 0


@dataclass(frozen=True, slots=True)
class Bulletin:
    """``ANKUENDIGUNG`` / ``RATSCHLAG`` / ``ERLAEUTERUNG`` … ``ENDE``: the game
    master's announcements, advice and rule explanations for the Götterbotschaft."""

    kind: str
    """``ankuendigung``, ``ratschlag`` or ``erlaeuterung``."""
    text: str
    line: int = 0


@dataclass(frozen=True, slots=True)
class HoldMessage:
    """``ZURUECKHALTEN <Königreich> BOTSCHAFT|BEKANNTMACHUNG <Nr> <Grund …>``: the
    game master holds back the kingdom's n-th message (or announcement) of this
    month's sheet, counted in sheet order from 1 ("Bekanntmachungen und
    Botschaften, die diese Erfordernisse nicht erfüllen, wird der Segmentleiter
    weder verkünden noch weiterbefördern"); the reason goes to the sender's
    result sheet. Applied when the messages are forwarded (step 8)."""

    kingdom: int
    what: str
    """``botschaft`` or ``bekanntmachung``."""
    number: int
    reason: str
    line: int = 0


@dataclass(frozen=True, slots=True)
class Disqualify:
    """``DISQUALIFIZIEREN <Königreich> <Grund …>``: the kingdom's player is
    disqualified ("werden alle daran Beteiligten vom Segmentleiter sofort und
    für alle WdG-Segmente disqualifiziert", Die Spielregel, "Informationsaustausch
    und Verhandlungen"). Applied first thing in the month (step 5, before the
    messages are forwarded): the kingdom leaves the game as ``wdg kingdom
    retire`` does (to a city state or neutral, per ``retire_to``) and its sheet
    of the month is not carried out. ``wdg world disqualify`` writes this line
    into every segment where the person plays (docs/world.md)."""

    kingdom: int
    reason: str
    line: int = 0


GmCommand = PlaceCreature | MoveCreature | RemoveCreature | PlaceTreasure | OfferGeneral \
    | ChangeGold | SetTerrain | SetOwner | SetMilitia | SetSettlement | SeasonEvent \
    | AddDiplomacy | Note | Bulletin | HoldMessage | Disqualify


@dataclass(slots=True)
class GmSheet:
    """A parsed game master's sheet."""

    commands: list[GmCommand] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        """Diagnostics of severity ERROR."""
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]


_BLOCKS = {"NOTIZ", "ANKUENDIGUNG", "RATSCHLAG", "ERLAEUTERUNG"}
COMMANDS = ("FABELWESEN", "SCHATZ", "FELDHERR", "GOLD", "GELAENDE", "BESITZER", "MILIZ",
            "SIEDLUNG", "EREIGNIS", "DIPLOMATIE", "NOTIZ", "ANKUENDIGUNG", "RATSCHLAG",
            "ERLAEUTERUNG", "ZURUECKHALTEN", "DISQUALIFIZIEREN")


def _fold(word: str) -> str:
    w = word.upper()
    return w.replace("Ä", "AE").replace("Ö", "OE").replace("Ü", "UE").replace("ß", "SS")


class _LineError(Exception):
    def __init__(self, column: int, message: str, found: str, expected: str) -> None:
        super().__init__(message)
        self.column, self.message, self.found, self.expected = column, message, found, expected


def _int(tok: str, what: str, *, signed: bool = False) -> int:
    t = tok.replace(".", "") if tok.replace(".", "").lstrip("+-").isdigit() else tok
    try:
        v = int(t)
    except ValueError:
        raise _LineError(0, f"{what} ist keine Zahl", tok, f"{what} als ganze Zahl") from None
    if not signed and v < 0:
        raise _LineError(0, f"{what} darf nicht negativ sein", tok, f"{what} >= 0")
    return v


def _addr(tok: str) -> Address:
    try:
        a = Address.parse(tok)
    except InvalidInputError as exc:
        raise _LineError(0, str(exc), tok, "eine Gemark wie 111.22") from None
    if a.is_passive:
        raise _LineError(0, "000.00 ist keine Gemark der Karte", tok, "eine Gemark wie 111.22")
    return a


def _options(tokens: list[str], allowed: dict[str, str]) -> dict[str, str]:
    """``KEY value`` pairs (``flag`` keys take no value)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        key = _fold(tokens[i])
        kind = allowed.get(key)
        if kind is None:
            raise _LineError(0, "unbekannte Angabe", tokens[i], " oder ".join(sorted(allowed)))
        if kind == "flag":
            out[key] = ""
            i += 1
        else:
            if i + 1 >= len(tokens):
                raise _LineError(0, f"{key} ohne Wert", tokens[i], f"{key} <Wert>")
            out[key] = tokens[i + 1]
            i += 2
    return out


def _need(tokens: list[str], n: int, usage: str) -> None:
    if len(tokens) < n:
        raise _LineError(0, "zu wenige Angaben", " ".join(tokens), usage)


def _troop(tok: str) -> TroopType:
    folded = _fold(tok)
    for t in TroopType:
        if _fold(t.value).startswith(folded) and folded:
            return t
    raise _LineError(0, "unbekannte Truppengattung", tok, "Krieger, Reiter oder Schiffe")


def _parse_line(cmd: str, args: list[str], line: int) -> GmCommand:
    if cmd == "FABELWESEN":
        _need(args, 1, "FABELWESEN SETZEN|BEWEGEN|ENTFERNEN ...")
        sub, rest = _fold(args[0]), args[1:]
        if sub == "SETZEN":
            _need(rest, 2, "FABELWESEN SETZEN <Art> <Gemark> [ANZAHL n] [GOLD n] [NAME \"…\"]")
            o = _options(rest[2:], {"ANZAHL": "v", "GOLD": "v", "NAME": "v"})
            return PlaceCreature(rest[0].lower(), _addr(rest[1]), _int(o.get("ANZAHL", "1"), "ANZAHL"),
                                 _int(o.get("GOLD", "0"), "GOLD"), o.get("NAME", ""), line)
        if sub == "BEWEGEN":
            _need(rest, 2, "FABELWESEN BEWEGEN <Nummer> <Gemark>")
            return MoveCreature(_int(rest[0], "Nummer"), _addr(rest[1]), line)
        if sub == "ENTFERNEN":
            _need(rest, 1, "FABELWESEN ENTFERNEN <Nummer>")
            return RemoveCreature(_int(rest[0], "Nummer"), line)
        raise _LineError(0, "unbekannte Fabelwesen-Anweisung", args[0], "SETZEN, BEWEGEN oder ENTFERNEN")
    if cmd == "SCHATZ":
        _need(args, 1, "SCHATZ <Gemark> [GOLD n] [GEGENSTAND \"…\"]")
        o = _options(args[1:], {"GOLD": "v", "GEGENSTAND": "v"})
        if not o:
            raise _LineError(0, "Schatz ohne Inhalt", " ".join(args), "GOLD n und/oder GEGENSTAND \"…\"")
        return PlaceTreasure(_addr(args[0]), _int(o.get("GOLD", "0"), "GOLD"), o.get("GEGENSTAND", ""), line)
    if cmd == "FELDHERR":
        _need(args, 4, "FELDHERR <Königreich> <Truppengattung> <Erfahrung> <Preis> [ZAUBERER] "
                       "[FAEHIGKEIT <Code>] [NAME \"…\"]")
        o = _options(args[4:], {"ZAUBERER": "flag", "FAEHIGKEIT": "v", "NAME": "v"})
        exp = _int(args[2], "Erfahrung")
        if exp > 100:
            raise _LineError(0, "Erfahrung über 100", args[2], "Erfahrung 0..100")
        return OfferGeneral(_int(args[0], "Königreich"), _troop(args[1]), exp, _int(args[3], "Preis"),
                            "ZAUBERER" in o, o.get("FAEHIGKEIT"), o.get("NAME", ""), line)
    if cmd == "GOLD":
        _need(args, 3, "GOLD <Königreich> <+n|-n> <Grund>")
        if not args[1].startswith(("+", "-")):
            raise _LineError(0, "Betrag ohne Vorzeichen", args[1], "+n (geben) oder -n (nehmen)")
        return ChangeGold(_int(args[0], "Königreich"), _int(args[1], "Betrag", signed=True),
                          " ".join(args[2:]), line)
    if cmd == "GELAENDE":
        _need(args, 2, "GELAENDE <Gemark> <Geländeart>")
        try:
            t = terrain(" ".join(args[1:]))
        except InvalidInputError:
            raise _LineError(0, "unbekannte Geländeart", " ".join(args[1:]),
                             "eine Geländeart der Regel (z.B. Hochlandwald) oder ein Kartencode (Hw)") from None
        return SetTerrain(_addr(args[0]), t, line)
    if cmd == "BESITZER":
        _need(args, 2, "BESITZER <Gemark> <Königreich|0>")
        return SetOwner(_addr(args[0]), _int(args[1], "Königreich"), line)
    if cmd == "MILIZ":
        _need(args, 2, "MILIZ <Gemark> <Anzahl>")
        return SetMilitia(_addr(args[0]), _int(args[1], "Anzahl"), line)
    if cmd == "SIEDLUNG":
        _need(args, 2, "SIEDLUNG <Gemark> <Baueinheiten> [NAME \"…\"]")
        o = _options(args[2:], {"NAME": "v"})
        name = o.get("NAME", "")
        if len(name) > 15:
            raise _LineError(0, "Siedlungsname länger als 15 Zeichen", name, "höchstens 15 Zeichen")
        return SetSettlement(_addr(args[0]), _int(args[1], "Baueinheiten"), name, line)
    if cmd == "EREIGNIS":
        _need(args, 1, "EREIGNIS <Text> oder EREIGNIS ENDE")
        text = "" if len(args) == 1 and _fold(args[0]) == "ENDE" else " ".join(args)
        return SeasonEvent(text, line)
    if cmd == "DIPLOMATIE":
        _need(args, 2, "DIPLOMATIE <Königreich> <Königreich>")
        a, b = _int(args[0], "Königreich"), _int(args[1], "Königreich")
        if a == b:
            raise _LineError(0, "ein Königreich kann nicht auf seiner eigenen Liste stehen",
                             " ".join(args[:2]), "zwei verschiedene Königreiche")
        return AddDiplomacy(a, b, line)
    if cmd == "ZURUECKHALTEN":
        usage = "ZURUECKHALTEN <Königreich> BOTSCHAFT|BEKANNTMACHUNG <Nr> <Grund>"
        _need(args, 4, usage)
        what = _fold(args[1])
        if what not in ("BOTSCHAFT", "BEKANNTMACHUNG"):
            raise _LineError(0, "was soll zurückgehalten werden?", args[1],
                             "BOTSCHAFT oder BEKANNTMACHUNG")
        number = _int(args[2], "Nummer")
        if number < 1:
            raise _LineError(0, "Nummer ab 1", args[2],
                             "die Nummer der Botschaft im Spielzug (1 = die erste)")
        return HoldMessage(_int(args[0], "Königreich"), what.lower(), number,
                           " ".join(args[3:]), line)
    if cmd == "DISQUALIFIZIEREN":
        _need(args, 2, "DISQUALIFIZIEREN <Königreich> <Grund>")
        return Disqualify(_int(args[0], "Königreich"), " ".join(args[1:]), line)
    raise AssertionError(cmd)  # pragma: no cover - COMMANDS is exhaustive


def parse_gm_sheet(text: str | bytes) -> GmSheet:
    """Parse a game master's sheet; never raises."""
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
    sheet = GmSheet()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    block: tuple[str, int, int] | None = None  # (kind, kingdom, start line)
    body: list[str] = []
    for no, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if block is not None:
            if _fold(stripped) == "ENDE":
                kind, kingdom, start = block
                txt = "\n".join(body).strip()
                if kind == "NOTIZ":
                    sheet.commands.append(Note(kingdom, txt, start))
                else:
                    sheet.commands.append(Bulletin(kind.lower(), txt, start))
                block, body = None, []
            else:
                body.append(raw.rstrip())
            continue
        if not stripped or stripped.startswith("#"):
            continue
        try:
            tokens = shlex.split(stripped, comments=True)
        except ValueError:
            sheet.diagnostics.append(Diagnostic(no, 1, Severity.ERROR, "Anführungszeichen nicht geschlossen",
                                                stripped, "\"…\" paarweise", "Zeile ignoriert"))
            continue
        if not tokens:
            continue
        cmd = _fold(tokens[0])
        if cmd == "SEGMENTLEITER":
            continue  # optional title line
        if cmd not in COMMANDS:
            import difflib

            close = difflib.get_close_matches(cmd, COMMANDS, n=1)
            sheet.diagnostics.append(Diagnostic(
                no, 1, Severity.ERROR, "unbekannter Befehl", tokens[0], ", ".join(COMMANDS),
                "Zeile ignoriert", close[0] if close else ""))
            continue
        if cmd in _BLOCKS:
            kingdom = 0
            if cmd == "NOTIZ":
                if len(tokens) < 2 or not tokens[1].isdigit():
                    sheet.diagnostics.append(Diagnostic(
                        no, 1, Severity.ERROR, "NOTIZ ohne Königreichnummer", stripped,
                        "NOTIZ <Königreich>, dann Text, dann ENDE", "Notiz ignoriert"))
                    block = ("_SKIP", 0, no)
                    continue
                kingdom = int(tokens[1])
            block, body = (cmd, kingdom, no), []
            continue
        try:
            sheet.commands.append(_parse_line(cmd, tokens[1:], no))
        except _LineError as exc:
            col = raw.find(exc.found) + 1 if exc.found and exc.found in raw else 1
            sheet.diagnostics.append(Diagnostic(no, max(col, 1), Severity.ERROR, exc.message,
                                                exc.found, exc.expected, "Zeile ignoriert"))
    if block is not None:
        sheet.diagnostics.append(Diagnostic(block[2], 1, Severity.ERROR, "Block ohne ENDE",
                                            block[0], "ENDE in einer eigenen Zeile",
                                            "Block ignoriert"))
    sheet.commands = [c for c in sheet.commands if not (isinstance(c, Bulletin) and c.kind == "_skip")]
    return sheet


def check_gm_sheet(sheet: GmSheet, seg: Segment) -> list[Diagnostic]:
    """The checks that need the segment: addresses on the map, kingdoms and
    creatures that exist, no treasury below zero (gold changes summed per
    kingdom in sheet order), creature kinds known to the rules (if given)."""
    out: list[Diagnostic] = []
    treasury = {n: k.treasury for n, k in seg.kingdoms.items()}
    creatures = set(seg.creatures)

    def err(cmd: object, msg: str, found: str, expected: str) -> None:
        out.append(Diagnostic(getattr(cmd, "line", 0), 1, Severity.ERROR, msg, found, expected,
                              "Anweisung wird nicht ausgeführt"))

    for c in sheet.commands:
        at = getattr(c, "at", None)
        if isinstance(at, Address):
            try:
                seg.grid.hex_of(at)
            except InvalidInputError as exc:
                err(c, "Gemark liegt nicht auf der Karte", str(at), str(exc))
                continue
        for attr in ("kingdom", "other"):
            k = getattr(c, attr, None)
            if k is None or (isinstance(c, SetOwner) and k == 0) or isinstance(c, Bulletin):
                continue
            if k not in seg.kingdoms:
                err(c, "unbekanntes Königreich", str(k), f"eines von {sorted(seg.kingdoms)}")
        if isinstance(c, ChangeGold) and c.kingdom in treasury:
            treasury[c.kingdom] += c.amount
            if treasury[c.kingdom] < 0:
                err(c, "der Reichsschatz würde negativ", f"{c.amount:+d}",
                    f"höchstens -{treasury[c.kingdom] - c.amount} (kein Königreich macht Schulden)")
                treasury[c.kingdom] -= c.amount
        if isinstance(c, (MoveCreature, RemoveCreature)) and c.id not in creatures:
            err(c, "unbekanntes Fabelwesen", str(c.id), f"eines von {sorted(creatures)}")
        if isinstance(c, PlaceCreature):
            creatures.add(max(creatures, default=0) + 1)
        if isinstance(c, RemoveCreature):
            creatures.discard(c.id)
        if isinstance(c, Disqualify) and c.kingdom in seg.kingdoms and \
                (seg.kingdoms[c.kingdom].city_state or seg.kingdoms[c.kingdom].retired):
            err(c, "das Königreich spielt nicht mehr (Stadtstaat oder ausgeschieden)",
                str(c.kingdom), "ein Königreich mit Spieler")
        if isinstance(c, (OfferGeneral, AddDiplomacy)) and c.kingdom in seg.kingdoms \
                and seg.kingdoms[c.kingdom].city_state:
            err(c, "Stadtstaaten haben keine Heere und keine Diplomatie", str(c.kingdom),
                "ein Königreich, kein Stadtstaat")
        if isinstance(c, AddDiplomacy) and c.other in seg.kingdoms and seg.kingdoms[c.other].city_state:
            err(c, "zu Stadtstaaten bestehen keine diplomatischen Beziehungen", str(c.other),
                "ein Königreich, kein Stadtstaat")
    return out
