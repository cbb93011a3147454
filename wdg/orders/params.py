"""Parameter readers and order builders for every command of the sheet.

Each builder takes the command's parameter tokens and returns the typed order
(:mod:`wdg.orders.model`). A builder raises :class:`Refusal` when the order
cannot be understood — the caller turns it into a diagnostic with the rule's
consequence ("Befehl verweigert"). Where the rule allows the administration
to interpret (Spielzug (b)), the builder returns the interpreted order and
adds :class:`Note` warnings.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from wdg.errors import InvalidInputError
from wdg.orders import model as m
from wdg.orders.lexicon import fold
from wdg.textpolicy import limits
from wdg.world.address import Address
from wdg.world.hexgrid import Direction
from wdg.world.state import Building

NAME_MAX = limits().settlement_name_length
"""'Der neue Name der Siedlung kann aus bis zu 15 beliebigen Zeichen bestehen.'
(``worlds/rules/text.yaml``, ``settlement_name_length``)."""
SETTLE_MIN, SETTLE_MAX = 1, 100
"""'Jeder einzelne Bauauftrag kann zwischen 1 und 100 Baueinheiten umfassen.'"""


class Tok(NamedTuple):
    """A word of a line and its 1-based column (a named tuple: a sheet of
    100,000 lines makes several hundred thousand of them)."""

    text: str
    col: int


_new_tok = tuple.__new__
_TOKEN_RE = re.compile(r"[^\s,:]+")


def tokenize(code: str, offset: int = 0) -> list[Tok]:
    """Split on blanks, tabs, commas and colons; columns are 1-based."""
    if "," not in code and ":" not in code:  # the common case, without a pattern
        out, pos = [], 0
        for word in code.split():  # str.split and \s agree on what is white space
            pos = code.find(word, pos)
            out.append(_new_tok(Tok, (word, pos + 1 + offset)))  # Tok(word, col), in C
            pos += len(word)
        return out
    return [Tok(mt.group(0), mt.start() + 1 + offset) for mt in _TOKEN_RE.finditer(code)]


class Refusal(Exception):
    """An order that cannot be understood; carries what a diagnostic needs."""

    def __init__(self, col: int, message: str, found: str = "", expected: str = "",
                 suggestion: str = "") -> None:
        super().__init__(message)
        self.col = col
        self.message = message
        self.found = found
        self.expected = expected
        self.suggestion = suggestion


@dataclass(slots=True)
class Note:
    """A warning about an interpreted order."""

    col: int
    message: str
    found: str = ""
    expected: str = ""


@dataclass(slots=True)
class Args:
    """The parameter tokens of one command plus the notes the builder adds."""

    toks: list[Tok]
    rest: str
    """The raw text after the command words (for names)."""
    end_col: int
    """Column just after the command words (for 'missing' messages)."""
    line: int
    notes: list[Note] = field(default_factory=list)

    def need(self, i: int, what: str) -> Tok:
        """Token ``i`` or a refusal naming the missing parameter."""
        if i < len(self.toks):
            return self.toks[i]
        raise Refusal(self.end_col, f"Angabe fehlt: {what}", found="", expected=what)

    def extra(self, used: int) -> None:
        """Warn about tokens after the ``used`` ones (they are ignored)."""
        if len(self.toks) > used:
            extra = " ".join(t.text for t in self.toks[used:])
            self.notes.append(Note(self.toks[used].col, "überzählige Angaben werden ignoriert",
                                   found=extra, expected="nichts weiter"))


# --- single parameters ----------------------------------------------------------

def address(tok: Tok, what: str = "Gemark") -> Address:
    """A gemark ``111.22`` (also ``111-22``, ``111/22``)."""
    try:
        return Address.parse(tok.text)
    except InvalidInputError:
        raise Refusal(tok.col, f"keine gültige {what}", found=tok.text,
                      expected="Gemark wie 101.12 (Provinz.Gemark, Gemark 01..48)") from None


_NUMBER_RE = re.compile(r"^(\d{1,3}(?:\.\d{3})+|\d+)(?:gs)?$")


def number(tok: Tok, what: str) -> int:
    """A non-negative whole number; ``1.000`` (German thousands) and a trailing
    ``GS`` are accepted."""
    if tok.text.isdecimal() and tok.text.isascii():  # the common case: plain digits
        return int(tok.text)
    mt = _NUMBER_RE.match(fold(tok.text))
    if not mt:
        raise Refusal(tok.col, f"keine gültige Zahl für {what}", found=tok.text,
                      expected=f"{what} als ganze Zahl, z.B. 500")
    return int(mt.group(1).replace(".", ""))


def army_number(tok: Tok, what: str = "Heeresnummer") -> int:
    """An army number of up to four digits (``0301``)."""
    if not re.fullmatch(r"\d{1,4}", tok.text):
        raise Refusal(tok.col, f"keine gültige {what}", found=tok.text,
                      expected="vierstellige Heeresnummer wie 0301")
    return int(tok.text)


def _one_direction(text: str) -> Direction | None:
    try:
        return Direction.parse(fold(text).upper())
    except InvalidInputError:
        return None


def directions(toks: list[Tok], notes: list[Note], *, at_least_one: str,
               end_col: int = 0) -> tuple[Direction, ...]:
    """Directions separated by blanks, commas or dashes (``NW NO``, ``nw,no``,
    ``NW-NO``, ``Nordwest``). An unknown direction after valid ones ends the
    list (interpreted, with a note); an unknown first direction refuses."""
    out: list[Direction] = []
    for tok in toks:
        pieces = [(tok.text, tok.col)]
        if _one_direction(tok.text) is None and "-" in tok.text:
            pieces, col = [], tok.col
            for p in tok.text.split("-"):
                if p:
                    pieces.append((p, col))
                col += len(p) + 1
        for text, col in pieces:
            d = _one_direction(text)
            if d is None:
                sugg = _direction_suggestion(text)
                if not out:
                    raise Refusal(col, "unbekannte Himmelsrichtung", found=text,
                                  expected="NW, NO, W, O, SW oder SO", suggestion=sugg)
                notes.append(Note(col, "unbekannte Himmelsrichtung; die Bewegung endet davor",
                                  found=text, expected="NW, NO, W, O, SW oder SO"))
                return tuple(out)
            out.append(d)
    if not out:
        raise Refusal(end_col, f"Angabe fehlt: {at_least_one}", expected=at_least_one)
    return tuple(out)


_DIRECTION_WORDS: dict[str, Direction] = {d.value: d for d in Direction}
_DIRECTION_WORDS.update({fold(d.german).upper(): d for d in Direction})
_DIRECTION_WORDS.update({"NE": Direction.NO, "E": Direction.O, "SE": Direction.SO})


def _direction_suggestion(text: str) -> str:
    key = fold(text).upper()
    found = difflib.get_close_matches(key, list(_DIRECTION_WORDS), n=1, cutoff=0.5)
    return _DIRECTION_WORDS[found[0]].value if found else ""


# --- builders by command code -----------------------------------------------------

def _build(building: Building) -> Callable[[Args], m.Build]:
    def build(a: Args) -> m.Build:
        at = address(a.need(0, "Gemark"))
        a.extra(1)
        return m.Build(building, at, a.line)
    return build


def _diplomacy(a: Args) -> m.ChangeDiplomacy:
    text = "".join(t.text for t in a.toks)
    first = a.need(0, "Königreichnummer")
    mt = re.fullmatch(r"(\d{1,3})([+\-].*)?", text)
    if not mt:
        raise Refusal(first.col, "Königreichnummer fehlt oder ist ungültig", found=first.text,
                      expected="Königreichnummer und ++, +, - oder --, z.B. DS 3 ++")
    kingdom, change = int(mt.group(1)), mt.group(2) or ""
    col = first.col + len(mt.group(1))
    if not change:
        raise Refusal(col, "Angabe fehlt: Änderung", expected="++, +, - oder --")
    if re.fullmatch(r"[+\-][12]", change):
        delta = int(change)
    elif re.fullmatch(r"\++|-+", change):
        delta = len(change) * (1 if change[0] == "+" else -1)
    else:
        raise Refusal(col, "ungültige Änderung des Diplomatiestatus", found=change,
                      expected="++, +, - oder --")
    if abs(delta) > 2:
        delta = 2 if delta > 0 else -2
        a.notes.append(Note(col, "der Diplomatiestatus ändert sich pro Mond höchstens um 2",
                            found=change, expected="++, +, - oder --"))
    return m.ChangeDiplomacy(kingdom, delta, a.line)


def _settle(a: Args) -> m.Settle:
    at = address(a.need(0, "Gemark"))
    tok = a.need(1, "Baueinheiten")
    units = number(tok, "Baueinheiten")
    if not SETTLE_MIN <= units <= SETTLE_MAX:
        raise Refusal(tok.col, "ein Bauauftrag umfaßt 1 bis 100 Baueinheiten",
                      found=tok.text, expected="1..100")
    a.extra(2)
    return m.Settle(at, units, a.line)


def _festival(a: Args) -> m.Festival:
    tok = a.need(0, "Goldsterne")
    gold = number(tok, "Goldsterne")
    used = 1
    if len(a.toks) > 1 and fold(a.toks[1].text) in ("gs", "goldsterne"):
        used = 2
    if gold <= 0:
        raise Refusal(tok.col, "ein Volksfest kostet mehr als 0 Goldsterne", found=tok.text,
                      expected="Betrag größer als 0")
    a.extra(used)
    return m.Festival(gold, a.line)


def _none(cls: type) -> Callable[[Args], object]:
    def build(a: Args) -> object:
        a.extra(0)
        return cls(line=a.line)
    return build


def _activate(a: Args) -> m.Activate:
    at = address(a.need(0, "Gemark"))
    a.extra(1)
    return m.Activate(at, a.line)


def _dismiss(a: Args) -> m.DismissArmy:
    target = army_number(a.need(0, "Heeresnummer des Zielheeres oder 0000"))
    a.extra(1)
    return m.DismissArmy(target, a.line)


def _count(cls: type, what: str) -> Callable[[Args], object]:
    def build(a: Args) -> object:
        tok = a.need(0, what)
        n = number(tok, what)
        if n <= 0:
            raise Refusal(tok.col, f"{what} muß größer als 0 sein", found=tok.text,
                          expected="eine Zahl größer als 0")
        a.extra(1)
        return cls(n, line=a.line)
    return build


def _boats(a: Args) -> m.BuildBoats:
    tok = a.need(0, "Himmelsrichtung")
    d = _one_direction(tok.text)
    if d is None:
        raise Refusal(tok.col, "unbekannte Himmelsrichtung", found=tok.text,
                      expected="NW, NO, W, O, SW oder SO",
                      suggestion=_direction_suggestion(tok.text))
    a.extra(1)
    return m.BuildBoats(d, a.line)


def _board(a: Args) -> m.Board:
    fleet = army_number(a.need(0, "Heeresnummer der Flotte"), "Heeresnummer der Flotte")
    a.extra(1)
    return m.Board(fleet, a.line)


def _disembark(a: Args) -> m.Disembark:
    at = address(a.need(0, "Zielgemark"), "Zielgemark")
    a.extra(1)
    return m.Disembark(at, a.line)


def _rename(a: Args) -> m.Rename:
    name = a.rest.strip().strip('"„“”').strip()
    if not name:
        raise Refusal(a.end_col, "Angabe fehlt: neuer Name", expected="Name bis 15 Zeichen")
    if len(name) > NAME_MAX:
        raise Refusal(a.end_col, f"der Name ist {len(name)} Zeichen lang, erlaubt sind "
                      f"{NAME_MAX}", found=name, expected=f"bis zu {NAME_MAX} Zeichen",
                      suggestion=name[:NAME_MAX])
    return m.Rename(name, a.line)


def _move(cls: type) -> Callable[[Args], object]:
    def build(a: Args) -> object:
        ds = directions(a.toks, a.notes, at_least_one="Himmelsrichtung", end_col=a.end_col)
        return cls(ds, line=a.line)
    return build


def _character(a: Args) -> m.CharacterAction:
    code = a.need(0, "Aktionscode")
    return m.CharacterAction(code.text.upper(), tuple(t.text for t in a.toks[1:]), a.line)


_DESTROY_WORDS = {
    "h": m.DestroyTarget.HAFEN, "hafen": m.DestroyTarget.HAFEN,
    "k": m.DestroyTarget.KASERNE, "kaserne": m.DestroyTarget.KASERNE,
    "m": m.DestroyTarget.MINE, "mine": m.DestroyTarget.MINE,
    "q": m.DestroyTarget.PALAST, "palast": m.DestroyTarget.PALAST,
    "x": m.DestroyTarget.SIEDLUNG, "siedlung": m.DestroyTarget.SIEDLUNG,
}


def _destroy(a: Args) -> m.Destroy:
    tok = a.need(0, "Typ (H, K, M, Q oder X)")
    target = _DESTROY_WORDS.get(fold(tok.text))
    if target is None:
        raise Refusal(tok.col, "unbekannter Typ", found=tok.text,
                      expected="H = Hafen, K = Kaserne, M = Mine, Q = Palast, X = Siedlung")
    a.extra(1)
    return m.Destroy(target, a.line)


BUILDERS: dict[str, Callable[[Args], object]] = {
    "BH": _build(Building.HAFEN),
    "BK": _build(Building.KASERNE),
    "BQ": _build(Building.PALAST),
    "BM": _build(Building.MINE),
    "DS": _diplomacy,
    "SS": _settle,
    "F+": _festival,
    "nf": _none(m.HireGeneral),
    "nh": _activate,
    "eh": _dismiss,
    "nr": _count(m.Recruit, "Anzahl"),
    "er": _count(m.Release, "Anzahl"),
    "bb": _boats,
    "bs": _board,
    "vs": _disembark,
    "nn": _rename,
    "b": _move(m.Move),
    "c": _character,
    "e": _move(m.Conquer),
    "h": _none(m.Help),
    "i": _none(m.Inform),
    "o": _none(m.Occupy),
    "r": _none(m.Rest),
    "s": _none(m.Search),
    "t": _none(m.Train),
    "x": _destroy,
}
"""Order builder for each command code of :data:`wdg.orders.lexicon.COMMANDS`."""
