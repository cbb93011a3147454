"""The one tolerant order-sheet reader, shared by the checker and the engine.

``parse_sheet(text)`` never raises: every line that is neither blank nor a
comment becomes a header value, a structural element (section, army block,
message text), an order, or a diagnostic. One bad line never loses the good
ones. The format is defined in ``docs/orders.md``; the rule's own words are
"Der Spielzug" (H and K parts, "Auch ein Heer, welches keine Befehle erhält,
muß mit seiner Heeresnummer und Position aufgeführt werden!", one order per
army and phase) and Spielzug (b): unclear or wrong orders are either
interpreted or refused — each diagnostic says which.

The parser checks only what the sheet itself shows (syntax, parameter ranges
fixed by the rule). Whether an order fits the kingdom (its armies, gemarks,
buildings) is the checker's business (:mod:`wdg.orders.checker`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wdg.errors import InvalidInputError
from wdg.orders import model as m
from wdg.orders.lexicon import BY_CODE, Ambiguous, Part, commands, fold, match, suggest
from wdg.orders.params import BUILDERS, Args, Refusal, Tok, tokenize
from wdg.world.address import Address
from wdg.world.calendar import MonthDate

COMMENT = "#"
"""Everything from ``#`` to the end of the line is a comment (outside
BOTSCHAFT/BEKANNTMACHUNG text, which is kept verbatim)."""

REFUSED = "Befehl verweigert"
CONSEQUENCE = {
    Part.K: "Befehl verweigert",
    Part.A: "Befehl verweigert (kein Phase-A-Befehl für dieses Heer)",
    Part.B: "Befehl verweigert – Heer ruht (kein Phase-B-Befehl)",
}

E, W = m.Severity.ERROR, m.Severity.WARNING

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_HEADER_RE = re.compile(r"^\s*([^\W\d_][\w ]*?)\s*:\s*(.*?)\s*$")
_HEADER_KEYS = {
    "segment": "segment", "koenigreich": "kingdom", "reich": "kingdom",
    "passwort": "password", "kennwort": "password", "mond": "month", "monat": "month",
}
_SECTION_H = re.compile(r"^(h\s*:?|h\s*:\s*heeresbefehle|heeresbefehle\s*:?)$")
_SECTION_H_BARE = "h"
_SECTION_K = re.compile(r"^(k\s*:?|k\s*:\s*koenigreichs?befehle|koenigreichs?befehle\s*:?)$")
_PHASE_RE = re.compile(r"^\s*(?:phase\s*)?([ab])\s*[:)]\s*", re.IGNORECASE)
_PHASE_BARE_A = re.compile(r"^\s*a\s+", re.IGNORECASE)
_ARMY_RE = re.compile(r"^\s*(?:(?:heer|armee|flotte)\b\s*(?:nr\.?|nummer)?\s*:?\s*)?(\d{1,4})"
                      r"(?=\s|,|$)", re.IGNORECASE)
_MESSAGE_RE = re.compile(r"^\s*botschaft\b\s*(?:an\b)?\s*(?:k(?:ö|oe)nigreich\b)?\s*:?\s*"
                         r"([^\s:]*)\s*:?\s*(.*?)\s*$", re.IGNORECASE)
_ANNOUNCE_RE = re.compile(r"^\s*bekanntmachung\b\s*:?\s*(.*?)\s*$", re.IGNORECASE)
_END_WORDS = {"ende", "ende.", "ende botschaft", "ende bekanntmachung"}


def decode(data: str | bytes) -> str:
    """Text of a sheet: bytes are UTF-8 (with or without BOM) if they decode
    as such, else Windows-1252, else Latin-1 (which never fails)."""
    if isinstance(data, str):
        return data.lstrip("\ufeff")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for enc in ("utf-8", "cp1252"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def split_lines(text: str) -> list[str]:
    """The sheet's lines (``\\r\\n``, ``\\r`` or ``\\n``); no trailing empty line."""
    lines = _LINE_SPLIT.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def strip_comment(line: str) -> str:
    """The line without its comment."""
    i = line.find(COMMENT)
    return line if i < 0 else line[:i]


def redact_passwords(text: str) -> str:
    """The sheet with the value of every ``Passwort:`` header line replaced by
    ``******`` (line numbers unchanged): for exports, confirmations and any
    other place a sheet is shown to someone who need not see its password."""
    out = []
    for line in split_lines(text):
        mt = _HEADER_RE.match(code_of(line))
        if mt and _HEADER_KEYS.get(fold(mt.group(1)).replace(" ", "")) == "password" and mt.group(2):
            i = line.index(":") + 1
            line = line[:i] + " ******"
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith(("\n", "\r")) else "")


def code_of(line: str) -> str:
    """The line without its comment, NUL bytes (from broken mail software) read
    as blanks."""
    return strip_comment(line).replace("\x00", " ")


def is_significant(line: str) -> bool:
    """True for a line that is neither blank nor only a comment."""
    return bool(code_of(line).strip())


@dataclass(slots=True)
class ParseResult:
    """The sheet plus what each significant line became (for tests and the
    echo): ``header``, ``section``, ``army``, ``order``, ``text`` or ``diagnostic``."""

    sheet: m.Sheet
    kinds: dict[int, str] = field(default_factory=dict)


def parse_sheet(text: str | bytes, *, source: str = "") -> m.Sheet:
    """Parse an order sheet; never raises. ``source`` names the input in the
    message of an internal failure."""
    return parse_detailed(text, source=source).sheet


def parse_detailed(text: str | bytes, *, source: str = "") -> ParseResult:
    """:func:`parse_sheet` plus the kind of every line."""
    try:
        p = _Parser(decode(text))
        p.run()
        return ParseResult(p.sheet, p.kinds)
    except Exception as exc:  # the reader must never fail a whole month
        sheet = m.Sheet()
        sheet.diagnostics.append(m.Diagnostic(
            0, 0, E, f"interner Fehler beim Lesen{' von ' + source if source else ''}: {exc!r}",
            consequence="Spielzug nicht gelesen; bitte dem Segmentleiter melden"))
        return ParseResult(sheet)


class _Parser:
    """A line-by-line state machine over one sheet."""

    def __init__(self, text: str) -> None:
        self.lines = split_lines(text)
        self.sheet = m.Sheet()
        self.kinds: dict[int, str] = {}
        self.block: m.ArmyBlock | None = None
        self.block_refused = False
        self.section = ""
        self.text_block: m.Message | m.Announcement | None = None
        self.text_lines: list[str] = []

    # -- diagnostics ------------------------------------------------------------

    def diag(self, n: int, col: int, sev: m.Severity, msg: str, *, found: str = "",
             expected: str = "", consequence: str = "", suggestion: str = "") -> None:
        self.sheet.diagnostics.append(m.Diagnostic(n, max(col, 1), sev, msg, found, expected,
                                                   consequence, suggestion))
        self.kinds.setdefault(n, "diagnostic")

    # -- main loop ----------------------------------------------------------------

    def run(self) -> None:
        for n, raw in enumerate(self.lines, start=1):
            if self.text_block is not None:
                self._text_line(n, raw)
                continue
            code = code_of(raw)
            if not code.strip():
                continue
            self._line(n, code)
        if self.text_block is not None:
            self.diag(self.text_block.line, 1, W, "ENDE fehlt",
                      expected="eine Zeile ENDE nach dem Text",
                      consequence="der Text bis zum Ende des Spielzugs wird übernommen")
            self._close_text()

    def _line(self, n: int, code: str) -> None:
        folded = fold(code).strip()
        if self._header(n, code):
            return
        if _SECTION_K.match(folded):
            self.section, self.block = "K", None
            self.kinds[n] = "section"
            return
        if _SECTION_H.match(folded) and not (folded == _SECTION_H_BARE and self.block):
            self.section, self.block = "H", None
            self.kinds[n] = "section"
            return
        if self._text_start(n, code):
            return
        if self._army_header(n, code):
            return
        phase = _PHASE_RE.match(code)
        bare_a = None if phase else _PHASE_BARE_A.match(code)
        if phase or bare_a:
            mt = phase or bare_a
            assert mt is not None
            part = Part.B if phase and phase.group(1).lower() == "b" else Part.A
            self._army_order(n, tokenize(code[mt.end():], mt.end()), code[mt.end():], mt.end(),
                             part, explicit=True)
            return
        self._bare_order(n, code)

    # -- header and structure ---------------------------------------------------------

    def _header(self, n: int, code: str) -> bool:
        mt = _HEADER_RE.match(code)
        if not mt:
            return False
        key = fold(mt.group(1)).replace(" ", "")
        what = _HEADER_KEYS.get(key)
        if what is None:
            cands = [v for k, v in _HEADER_KEYS.items() if len(key) >= 3 and k.startswith(key)]
            what = cands[0] if len(set(cands)) == 1 else None
        if what is None:
            return False
        value, col = mt.group(2), mt.start(2) + 1
        self.kinds[n] = "header"
        if what == "segment":
            self.sheet.segment = value.strip().lower()
            if not self.sheet.segment:
                self.diag(n, col, E, "Segmentname fehlt", expected="z.B. Segment: canura",
                          consequence="der Spielzug kann keinem Segment zugeordnet werden")
        elif what == "kingdom":
            mk = re.match(r"^(\d{1,3})\b", value)
            if mk:
                self.sheet.kingdom = int(mk.group(1))
            else:
                self.diag(n, col, E, "Königreichnummer fehlt oder ist ungültig", found=value,
                          expected="Königreichnummer, z.B. Königreich: 3",
                          consequence="der Spielzug kann keinem Königreich zugeordnet werden")
        elif what == "password":
            self.sheet.password = value.strip()
            if not self.sheet.password:
                self.diag(n, col, E, "Passwort fehlt", expected="das Passwort des Königreiches",
                          consequence="der Spielzug wird nicht angenommen")
        else:
            try:
                self.sheet.month = MonthDate.parse(value)
            except InvalidInputError:
                self.diag(n, col, W, "unbekannte Monatsangabe", found=value,
                          expected="z.B. Dormit 412 oder 0412-04",
                          consequence="ignoriert; es gilt der laufende Mond")
        return True

    def _text_start(self, n: int, code: str) -> bool:
        mt = _MESSAGE_RE.match(code)
        if mt:
            self.kinds[n] = "text"
            self.block = None
            target = mt.group(1)
            to = int(target) if target.isdigit() else 0
            if not to:
                self.diag(n, mt.start(1) + 1, E,
                          "Empfänger der Botschaft fehlt oder ist ungültig", found=target,
                          expected="BOTSCHAFT <Königreichnummer>",
                          consequence="die Botschaft wird nicht befördert")
            self.text_block = m.Message(to, "", n)
            self.text_lines = [mt.group(2)] if mt.group(2) else []
            return True
        mt = _ANNOUNCE_RE.match(code)
        if mt:
            self.kinds[n] = "text"
            self.block = None
            self.text_block = m.Announcement("", n)
            self.text_lines = [mt.group(1)] if mt.group(1) else []
            return True
        return False

    def _text_line(self, n: int, raw: str) -> None:
        if fold(strip_comment(raw)).strip() in _END_WORDS:
            self.kinds[n] = "text"
            self._close_text()
            return
        if raw.strip():
            self.kinds[n] = "text"
        self.text_lines.append(raw.rstrip())

    def _close_text(self) -> None:
        block = self.text_block
        assert block is not None
        text = "\n".join(self.text_lines).strip("\n")
        self.text_block, self.text_lines = None, []
        if not text.strip():
            self.diag(block.line, 1, W, "leerer Text", expected="Text vor ENDE",
                      consequence="nichts wird befördert")
            return
        block.text = text
        if isinstance(block, m.Message):
            if block.to:
                self.sheet.messages.append(block)
        else:
            self.sheet.announcements.append(block)

    def _army_header(self, n: int, code: str) -> bool:
        mt = _ARMY_RE.match(code)
        if not mt:
            return False
        number = int(mt.group(1))
        rest = tokenize(code[mt.end():], mt.end())
        self.kinds[n] = "army"
        self.section = "H"
        if not rest:
            self.diag(n, mt.end() + 1, E, f"Position von Heer {number:04d} fehlt",
                      expected=f"Heer {number:04d} <Gemark>, z.B. Heer {number:04d} 101.12 "
                      "(000.00 für passive Heere)",
                      consequence="alle Befehle dieses Heeres verweigert")
            self._refuse_block()
            return True
        try:
            pos = Address.parse(rest[0].text)
        except InvalidInputError:
            self.diag(n, rest[0].col, E, f"ungültige Position von Heer {number:04d}",
                      found=rest[0].text, expected="Gemark wie 101.12 oder 000.00",
                      consequence="alle Befehle dieses Heeres verweigert")
            self._refuse_block()
            return True
        existing = self.sheet.army(number)
        if existing is not None:
            self.diag(n, 1, W, f"Heer {number:04d} steht schon in Zeile {existing.line}",
                      found=code.strip(), expected="jedes Heer einmal",
                      consequence=f"die Befehle werden Heer {number:04d} aus Zeile "
                      f"{existing.line} zugeordnet")
            self.block = existing
        else:
            self.block = m.ArmyBlock(number, pos, n)
            self.sheet.armies.append(self.block)
        self.block_refused = False
        if len(rest) > 1:
            start = rest[1].col - 1
            tail = code[start:]
            phase = _PHASE_RE.match(tail)
            if phase:
                part = Part.B if phase.group(1).lower() == "b" else Part.A
                off = start + phase.end()
                self._army_order(n, tokenize(code[off:], off), code[off:], off, part,
                                 explicit=True)
            else:
                self._army_order(n, tokenize(tail, start), tail, start, None, explicit=False)
        return True

    def _refuse_block(self) -> None:
        self.block = None
        self.block_refused = True

    # -- orders -------------------------------------------------------------------

    def _bare_order(self, n: int, code: str) -> None:
        """A line without ``A:``/``B:``: an order whose part follows from the command."""
        toks = tokenize(code)
        if not toks:
            self.diag(n, 1, E, "unverständliche Zeile", found=code.strip(),
                      expected="ein Befehl, eine Kopfzeile oder 'Heer <Nummer> <Gemark>'",
                      consequence=REFUSED)
            return
        if self.block is not None or self.block_refused:
            self._army_order(n, toks, code, 0, None, explicit=False)
        else:
            self._kingdom_or_misplaced(n, toks, code)

    def _lookup(self, n: int, toks: list[Tok], parts: tuple[Part, ...],
                consequence: str) -> tuple[str, int] | None:
        """The command code and number of command words, or a diagnostic."""
        try:
            found = match([t.text for t in toks], parts)
        except Ambiguous as amb:
            names = " oder ".join(f"{c.code} ({c.names[0]})" for c in amb.candidates)
            self.diag(n, toks[0].col, E, "mehrdeutiger Befehl", found=toks[0].text,
                      expected=names, consequence=consequence)
            return None
        if found is None:
            self.diag(n, toks[0].col, E, "unbekannter Befehl", found=toks[0].text,
                      expected=_expected(parts), consequence=consequence,
                      suggestion=suggest(toks[0].text, parts))
            return None
        return found.command.code, found.words

    def _army_order(self, n: int, toks: list[Tok], code: str, offset: int,
                    part: Part | None, *, explicit: bool) -> None:
        if not toks:
            self.kinds[n] = "structure"
            return
        consequence = CONSEQUENCE[part] if part else REFUSED
        parts = (part,) if part else (Part.A, Part.B, Part.K)
        if self.block is None and not self.block_refused:
            self.diag(n, toks[0].col, E, "Heeresbefehl ohne Heer", found=code.strip(),
                      expected="zuerst eine Zeile 'Heer <Nummer> <Gemark>'",
                      consequence=consequence)
            return
        found = self._lookup(n, toks, parts if explicit else (Part.A, Part.B, Part.K), consequence)
        if found is None:
            return
        cmd_code, words = found
        cmd_part = _part_of(cmd_code)
        consequence = CONSEQUENCE[cmd_part]
        order = self._build(n, cmd_code, toks, words, code, offset, consequence)
        if order is None:
            return
        if cmd_part is Part.K:
            self.sheet.kingdom_orders.append(order)  # type: ignore[arg-type]
            self.kinds[n] = "order"
            self.diag(n, toks[0].col, W, "Königreichbefehl im H-Teil",
                      found=code.strip(), expected="Königreichbefehle im K-Teil",
                      consequence=f"interpretiert als K: {order}")
            return
        if self.block is None:
            self.diag(n, toks[0].col, E, "Befehl gehört zu einem Heer ohne gültige Kopfzeile",
                      found=code.strip(), expected="Heer <Nummer> <Gemark> davor",
                      consequence=consequence)
            return
        if not explicit:
            self.diag(n, toks[0].col, W, "Phase fehlt (A: oder B:)", found=code.strip(),
                      expected=f"{cmd_part.value}: {order}",
                      consequence=f"interpretiert als {cmd_part.value}: {order}")
        slot = "phase_a" if cmd_part is Part.A else "phase_b"
        previous = getattr(self.block, slot)
        if previous is not None:
            self.diag(n, toks[0].col, E,
                      f"Heer {self.block.number:04d} hat schon einen {cmd_part.german} "
                      f"(Zeile {previous.line}: {previous})", found=str(order),
                      expected="genau ein Befehl je Heer und Phase",
                      consequence=f"Befehl verweigert; es gilt {previous}")
            return
        setattr(self.block, slot, order)
        self.kinds[n] = "order"

    def _kingdom_or_misplaced(self, n: int, toks: list[Tok], code: str) -> None:
        found = self._lookup(n, toks, (Part.K, Part.A, Part.B), REFUSED)
        if found is None:
            return
        cmd_code, words = found
        cmd_part = _part_of(cmd_code)
        if cmd_part is not Part.K:
            self.diag(n, toks[0].col, E, "Heeresbefehl ohne Heer", found=code.strip(),
                      expected="im H-Teil nach 'Heer <Nummer> <Gemark>' als "
                      f"{cmd_part.value}: {cmd_code} ...", consequence=REFUSED)
            return
        order = self._build(n, cmd_code, toks, words, code, 0, REFUSED)
        if order is not None:
            self.sheet.kingdom_orders.append(order)  # type: ignore[arg-type]
            self.kinds[n] = "order"
            if self.section != "K":
                self.diag(n, toks[0].col, W, "Königreichbefehl außerhalb des K-Teils",
                          found=code.strip(), expected="Zeile 'K' davor",
                          consequence=f"interpretiert als K: {order}")

    def _build(self, n: int, cmd_code: str, toks: list[Tok], words: int, code: str,
               offset: int, consequence: str) -> object | None:
        params = toks[words:]
        end_col = toks[words - 1].col + len(toks[words - 1].text)
        rest = code[end_col - 1 - offset:]
        args = Args(params, rest, end_col, n)
        try:
            order = BUILDERS[cmd_code](args)
        except Refusal as r:
            self.diag(n, r.col or end_col, E, r.message, found=r.found, expected=r.expected,
                      consequence=consequence, suggestion=r.suggestion)
            return None
        for note in args.notes:
            self.diag(n, note.col, W, note.message, found=note.found, expected=note.expected,
                      consequence=f"interpretiert als {order}")
        return order


def _part_of(code: str) -> Part:
    return BY_CODE[code.casefold()].part


def _expected(parts: tuple[Part, ...]) -> str:
    codes = [c.code for p in parts for c in commands(p)]
    return "einer der Befehle " + ", ".join(codes)
