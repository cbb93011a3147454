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
from wdg.textpolicy import char_name, clean_line, german_number, limits
from wdg.world.calendar import MonthDate

COMMENT = "#"
"""Comments run from ``#``, ``;`` or ``//`` to the end of the line (outside
BOTSCHAFT/BEKANNTMACHUNG text, which is kept verbatim)."""
COMMENT_MARKS = ("#", ";", "//")

REFUSED = "Befehl verweigert"
CONSEQUENCE = {
    Part.K: "Befehl verweigert",
    Part.A: "Befehl verweigert (kein Phase-A-Befehl für dieses Heer)",
    Part.B: "Befehl verweigert – Heer ruht (kein Phase-B-Befehl)",
}

E, W = m.Severity.ERROR, m.Severity.WARNING

# Every pattern below is applied to one line of at most ``order_line_length``
# characters and uses possessive quantifiers (``*+``) where blanks repeat, so
# no pattern backtracks over a run of blanks: time linear in the line.
_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_HEADER_KEY_RE = re.compile(r"[^\W\d_][\w ]*+")
_HEADER_KEYS = {
    "segment": "segment", "koenigreich": "kingdom", "reich": "kingdom",
    "passwort": "password", "kennwort": "password", "mond": "month", "monat": "month",
}
_SECTION_H = re.compile(r"^(h\s*+:?|h\s*+:\s*+heeresbefehle|heeresbefehle\s*+:?)$")
_SECTION_H_BARE = "h"
_SECTION_K = re.compile(r"^(k\s*+:?|k\s*+:\s*+koenigreichs?befehle|koenigreichs?befehle\s*+:?)$")
_PHASE_RE = re.compile(r"^\s*+(?:phase\s*+)?([ab])\s*+[:)]\s*+", re.IGNORECASE)
_PHASE_BARE_A = re.compile(r"^\s*+a\s++", re.IGNORECASE)
_ARMY_RE = re.compile(r"^\s*+(?:(?:heer|armee|flotte)\b\s*+(?:nr\.?|nummer)?\s*+:?\s*+)?(\d{1,4})"
                      r"(?=\s|,|$)", re.IGNORECASE)
_ARMY_WORD_RE = re.compile(r"^\s*+(?:heer|armee|flotte)\b\s*+(?:nr\.?|nummer)?\s*+:?\s*+\d{1,4}"
                           r"(?=\s|,|$)", re.IGNORECASE)
_MESSAGE_RE = re.compile(r"^\s*+botschaft\b\s*+(?:an\b\s*+)?(?:k(?:ö|oe)nigreich\b\s*+)?:?\s*+"
                         r"([^\s:]*+)\s*+(:?)(.*)$", re.IGNORECASE | re.DOTALL)
_ANNOUNCE_RE = re.compile(r"^\s*+bekanntmachung\b\s*+(:?)(.*)$", re.IGNORECASE | re.DOTALL)
_TEXT_KEYWORD_RE = re.compile(r"^\s*+(?:botschaft|bekanntmachung)\b", re.IGNORECASE)
_END_WORDS = {"ende", "ende.", "ende botschaft", "ende bekanntmachung"}
_SHEET_END_WORDS = {"naechster", "naechster.", "ende", "ende.", "ende spielzug",
                    "ende des spielzugs"}
_ALL = {"alle", "alle reiche", "alle koenigreiche", "alle herrscher", "0"}
# Lines that close a mail's own text: a signature separator, the head of a
# quoted or forwarded mail (Outlook, Thunderbird, Gmail, Apple Mail, German and
# English), a mailing list's footer rule.
_CLOSERS = re.compile(
    r"^(?:--\s?|_{8,}|-{3,}\s*+(?:original(?:nachricht| message)|urspr(?:ü|ue)ngliche nachricht|"
    r"weitergeleitete nachricht|forwarded message|begin forwarded message)\b.*|"
    r"(?:am|on)\b.{0,200}\b(?:schrieb|wrote)\b.{0,200}:|"
    r"(?:von|from):\s.{0,300}\s(?:gesendet|sent):.*)$", re.IGNORECASE)
_GREETING = re.compile(
    r"^(?:(?:viele|liebe|beste|herzliche|schoene|freundliche|sonnige|gruss|gruesse|"
    r"mit freundlichen|mfg|lg|vg|bg|best regards|kind regards|regards|cheers|ciao|tschuess|"
    r"bis bald|bis dann)\b.{0,40}$|gruesse\b.{0,40}$|gruss\b.{0,40}$)")
"""A closing greeting outside message text ends the sheet like a signature."""
_QUOTE_START = (">", "|>")
_MAIL_HEADER = re.compile(r"^\s*+(?:from|sent|to|cc|bcc|subject|date|reply-to|von|gesendet|an|"
                          r"betreff|datum|antwort an|kopie)\s*+:", re.IGNORECASE)
"""A header line of a quoted or forwarded mail (``From:``, ``Gesendet:`` …)."""
_ARMY_POS_RE = re.compile(r"^\s*+\d{1,4}\s++\d{3}\s*+[.\-/]\s*+\d{2}\b")
"""An army line without the word ``Heer``: number and position."""
SUGGESTIONS = 50
"""Unknown command words per sheet that get a "meinten Sie" suggestion."""
_CLOSER_FIRST = frozenset("-_aAoOvVfF")
_QUOTE_FIRST = frozenset(">|")
# first characters of a folded line that _ARMY_RE (heer/armee/flotte or the
# number) and _PHASE_RE ("phase a:", "a:", "b)") can match
_ARMY_FIRST = frozenset("haf")
_PHASE_FIRST = frozenset("pab")


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
    lines = text.split("\n") if "\r" not in text else _LINE_SPLIT.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def strip_comment(line: str) -> str:
    """The line without its comment (``#``, ``;`` or ``//`` to the end)."""
    cut = len(line)
    for mark in COMMENT_MARKS:
        i = line.find(mark, 0, cut)
        if i >= 0:
            cut = i
    return line[:cut]


def header_match(code: str) -> tuple[str, str, int] | None:
    """``(field, value, value column)`` for a header line (``Passwort: x``),
    else ``None``. Keys may be abbreviated to three letters. No pattern runs
    over the value, so any line is read in linear time."""
    i = code.find(":")
    if i < 0:
        return None
    raw_key = code[:i].strip()
    if not raw_key or len(raw_key) > 40 or not _HEADER_KEY_RE.fullmatch(raw_key):
        return None
    key = fold(raw_key).replace(" ", "")
    what = _HEADER_KEYS.get(key)
    if what is None:
        cands = {v for k, v in _HEADER_KEYS.items() if len(key) >= 3 and k.startswith(key)}
        what = cands.pop() if len(cands) == 1 else None
    if what is None:
        return None
    rest = code[i + 1:]
    value = rest.strip()
    col = i + 2 + (len(rest) - len(rest.lstrip())) if value else i + 2
    return what, value, col


def unquote_password(value: str) -> str:
    """A password as typed, without the quotes around it (``"canura-5"``,
    ``„canura-5“``, ``'canura-5'``)."""
    pairs = {'"': '"', "'": "'", "„": "“", "“": "”", "”": "”", "«": "»", "»": "«",
             "‚": "‘", "‘": "’", "`": "`"}
    v = value.strip()
    while len(v) >= 2 and v[0] in pairs and v[-1] in (pairs[v[0]], v[0], "”", "“", "’"):
        v = v[1:-1].strip()
    return v


_PASSWORD_WORD = re.compile(
    r"(?:(?<![^\W\d_])(?:pa(?:ss|ß|s)w(?:o|ö|oe)r[dt]|passwd|kennwort|losungswort|parole)"
    r"(?![^\W\d_])\s*+(?:[:=]|ist\b|is\b|lautet\b)?"
    r"|(?<![^\W\d_])(?:passw|pass|paß|pas|pwd|pw|kennw|kenn|ken)\s*+[:=])",
    re.IGNORECASE)
"""A password's key word in any spelling (``Passwort``, ``PASSWORT``, ``Paßwort``,
``Kennwort``, ``Password``, ``PW:``, the header's abbreviations ``Pas:``, ``Ken:``),
anywhere in a line — also after quote marks (``> Passwort: canura-5``)."""
REDACTED = "******"


def redact_line(line: str, known: tuple[str, ...] = ()) -> str:
    """``line`` with whatever follows a password key word replaced by
    ``******``, and every occurrence of a ``known`` password (the sheet's own)."""
    for pw in known:
        if len(pw) >= 3 and pw in line:
            line = line.replace(pw, REDACTED)
    mt = _PASSWORD_WORD.search(line)
    if mt is not None:
        rest = line[mt.end():]
        if rest.strip() and rest.strip() != REDACTED:
            line = line[:mt.end()].rstrip() + " " + REDACTED
    return line


def redact_passwords(text: str, known: tuple[str, ...] = ()) -> str:
    """The sheet (or any text) with the value of every password line replaced
    by ``******`` — header lines, quoted lines (``> Passwort: canura-5``) and
    every spelling (:data:`_PASSWORD_WORD`), plus every occurrence of a
    ``known`` password — line numbers unchanged: for exports, confirmations,
    the checker's echo and any other place a sheet is shown to someone who need
    not see its password."""
    out = [redact_line(line, known) for line in split_lines(text)]
    return "\n".join(out) + ("\n" if text.endswith(("\n", "\r")) else "")


def code_of(line: str) -> str:
    """The line without its comment, NUL bytes (from broken mail software) read
    as blanks."""
    if "#" in line or ";" in line or "/" in line:
        line = strip_comment(line)
    return line.replace("\x00", " ") if "\x00" in line else line


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
        decoded = decode(text)
        p = _Parser(decoded)
        try:
            p.run()
        except _Restart as restart:  # the next sheet's header began above: read less
            p = _Parser(decoded)
            p.lines = p.lines[:restart.line - 1]
            p.run()
            p.sheet.next_sheet = restart.line
            all_lines = split_lines(decoded)
            for k in range(restart.line, len(all_lines) + 1):
                p.outside(k, all_lines[k - 1])
        if p.sheet.next_sheet:
            p.lines = split_lines(decoded)
            k = p.sheet.next_sheet
            p.diag(k, 1, W, f"ab Zeile {k} folgt ein eigener Spielzug für Königreich "
                   f"{p._block_kingdom(k) or '?'}",
                   expected="ein Spielzug je Datei (in einer Mail: getrennt durch ENDE)",
                   consequence="nicht Teil dieses Spielzugs; die Einsendung per Mail prüft ihn "
                               "für sich")
        return ParseResult(p.sheet, p.kinds)
    except Exception as exc:  # noqa: BLE001 - the reader must never fail a whole month
        sheet = m.Sheet()
        sheet.diagnostics.append(m.Diagnostic(
            0, 0, E, f"interner Fehler beim Lesen{' von ' + source if source else ''}: {exc!r}",
            consequence="Spielzug nicht gelesen; bitte dem Segmentleiter melden"))
        return ParseResult(sheet)


class _Restart(Exception):
    """The next sheet begins at ``line``, above header lines already read."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _Parser:
    """A line-by-line state machine over one sheet.

    The sheet runs from its first header line (``Segment:``, ``Königreich:``,
    ``Passwort:``, ``Mond:``) to its end marker (``NÄCHSTER`` or ``ENDE``
    outside a message); a text without header lines is read whole. Quoted
    lines (``>``) are never part of it; a signature separator (``-- ``), the
    head of a quoted or forwarded mail or a list footer ends it. A header
    block naming another kingdom starts the next sheet (``Sheet.next_sheet``).
    Everything else outside is counted in ``Sheet.outside``.
    """

    def __init__(self, text: str) -> None:
        self.lines = split_lines(text)
        self.sheet = m.Sheet()
        self.kinds: dict[int, str] = {}
        self.block: m.ArmyBlock | None = None
        self.block_refused = False
        self.section = ""
        self.text_block: m.Message | m.Announcement | None = None
        self.text_lines: list[str] = []
        self.text_len = 0
        self.limits = limits()
        self.empty_password_line = 0
        self.body_seen = False  # a significant non-header line since the header
        self.orders_until = 0  # greetings before this line are followed by orders
        self.suggestions_left = SUGGESTIONS
        self.no_orders_until = 0  # greetings before this line are followed by none
        self.mail_head = False  # right after a separator inside the sheet
        self.ahead_from = self.ahead_to = 0  # _look_ahead's last range and result
        self.ahead: tuple[str, int] = ("none", 0)

    # -- diagnostics ------------------------------------------------------------

    def diag(self, n: int, col: int, sev: m.Severity, msg: str, *, found: str = "",
             expected: str = "", consequence: str = "", suggestion: str = "") -> None:
        if found and _PASSWORD_WORD.search(found):
            found = redact_line(found)  # never a password in a message
        self.sheet.diagnostics.append(m.Diagnostic(n, max(col, 1), sev, msg, found, expected,
                                                   consequence, suggestion))
        self.kinds.setdefault(n, "diagnostic")

    def outside(self, n: int, raw: str) -> None:
        if raw.strip():
            if not raw.lstrip().startswith(_QUOTE_START) and len(raw) < 4096 \
                    and not code_of(raw).strip():
                self.kinds[n] = "comment"  # a comment is no ignored text
                return
            self.kinds[n] = "outside"
            self.sheet.outside += 1
            self.sheet.outside_lines.append(n)

    # -- main loop ----------------------------------------------------------------

    def run(self) -> None:
        start = self._first_header()
        for n in range(1, start):
            raw = self.lines[n - 1]
            self.outside(n, raw)
            if len(raw) <= self.limits.order_line_length and not raw.lstrip().startswith(
                    _QUOTE_START):
                self._warn_if_order_outside(n, code_of(raw))
        closed = False
        cap = self.limits.order_line_length
        # The tests below run on every line of a sheet of up to 100,000 lines:
        # each pattern is tried only where the line's first character allows it.
        for n in range(start, len(self.lines) + 1):
            raw = self.lines[n - 1]
            if closed:
                self.outside(n, raw)
                continue
            if not (raw.isascii() and raw.isprintable()):
                raw = self._clean(n, raw)
            first = raw[:1]
            if (first in _QUOTE_FIRST or first.isspace()) and raw.lstrip().startswith(
                    _QUOTE_START):
                self.outside(n, raw)
                continue
            if self.mail_head and self._mail_head_line(n, raw):
                continue
            if first in _CLOSER_FIRST and self._closer(raw):
                if self.text_block is not None:
                    if self._look_ahead(n, in_text=True)[0] == "orders":
                        self._text_line(n, raw)  # a rule inside a message: its text
                        continue
                    self._missing_end(n)
                closed = self._separator(n, raw)
                continue
            if self.text_block is not None:
                if not self._text_ends_before(raw):
                    self._text_line(n, raw)
                    continue
                self._missing_end(n)
            elif self.body_seen and len(raw) < 60 and _GREETING.match(fold(raw.strip())) \
                    and not self._is_order_line(raw) and not self._orders_follow(n):
                self.outside(n, raw)
                closed = True
                self._quoted_sheet(n)
                continue
            if len(raw) > cap:
                self.diag(n, cap + 1, E,
                          f"Zeile zu lang ({german_number(len(raw))} Zeichen, höchstens "
                          f"{german_number(cap)})",
                          found=raw[:40] + "…", expected="ein Befehl je Zeile",
                          consequence="Zeile nicht gelesen")
                continue
            code = code_of(raw)
            folded = fold(code).strip()
            if not folded:
                if raw.strip():
                    self.kinds[n] = "comment"
                continue
            if len(code) < 40 and folded in _SHEET_END_WORDS:
                self.kinds[n] = "end"
                closed = self._after_end(n)
                continue
            if ":" in code and self._new_sheet(n, code):
                closed = True
                for k in range(n, len(self.lines) + 1):
                    self.outside(k, self.lines[k - 1])
                break
            self._line(n, code, folded)
        if self.text_block is not None:
            self._missing_end(0)
        if not self.sheet.password and self.empty_password_line:
            self.diag(self.empty_password_line, 1, E, "Passwort fehlt",
                      expected="das Passwort des Königreiches",
                      consequence="der Spielzug wird nicht angenommen")

    def _first_header(self) -> int:
        """The line of the sheet's first header line, 1 if it has none."""
        cap = self.limits.order_line_length
        for n, raw in enumerate(self.lines, start=1):
            if len(raw) > cap or raw.lstrip().startswith(_QUOTE_START) or self._closer(raw):
                continue
            if header_match(code_of(clean_line(raw)[0])):
                return n
        return 1

    def _warn_if_order_outside(self, n: int, code: str) -> None:
        """A line before the header that looks like an order gets a warning:
        it is not read (greetings are not orders)."""
        folded = fold(code).strip()
        if _ARMY_WORD_RE.match(code) or _SECTION_K.match(folded) or _PHASE_RE.match(code) \
                or _TEXT_KEYWORD_RE.match(code) \
                or (_SECTION_H.match(folded) and folded != _SECTION_H_BARE) \
                or (len(code) < 80 and self._is_command(code) and not _GREETING.match(folded)):
            self.diag(n, 1, W, "Zeile vor dem Kopf des Spielzugs", found=code.strip()[:60],
                      expected="Befehle nach den Zeilen Segment:/Königreich:/Passwort:",
                      consequence="Zeile nicht gelesen")

    def _clean(self, n: int, raw: str) -> str:
        """The text policy on one line: NFC, unsafe characters removed (warned)."""
        text, removed = clean_line(raw)
        for r in removed[:10]:
            self.diag(n, r.column, W, f"unzulässiges Zeichen {char_name(r.char)} entfernt",
                      expected="sichtbarer Text ohne Steuer- und Richtungszeichen",
                      consequence="Zeichen entfernt, der Rest der Zeile gilt")
        if len(removed) > 10:
            self.diag(n, removed[10].column, W, f"{len(removed) - 10} weitere unzulässige "
                      "Zeichen entfernt", consequence="Zeichen entfernt, der Rest der Zeile gilt")
        return text

    @staticmethod
    def _closer(raw: str) -> bool:
        if raw[:1] not in _CLOSER_FIRST:
            return False
        s = raw.rstrip()
        if len(s) > 600:
            return False
        return s in ("--", "-- ") or raw == "-- " or (bool(s) and _CLOSERS.match(s) is not None
                                                     and not s.startswith("---" * 30))

    def _after_end(self, n: int) -> bool:
        """After an end marker (``ENDE``, ``NÄCHSTER``): order lines that follow
        before any header line mean a stray marker — a warning, and the sheet
        goes on; a later header block of another kingdom (its sheet pasted
        below) starts the next sheet; else the rest is outside. Returns True
        if the sheet ends here."""
        kind, k = self._look_ahead(n)
        if kind == "orders":
            self.diag(n, 1, W, "Endemarke mitten im Spielzug",
                      found=self.lines[n - 1].strip()[:40],
                      expected="ENDE/NÄCHSTER erst nach dem letzten Befehl",
                      consequence=f"ignoriert; der Spielzug geht weiter (Befehle ab Zeile {k} "
                                  "gelten)")
            return False
        if kind == "sheet" and not self._closed_between(n, k) \
                and self._block_kingdom(k) not in (0, self.sheet.kingdom):
            self.sheet.next_sheet = k
            return True
        self._quoted_sheet(n)
        return True

    def _closed_between(self, a: int, b: int) -> bool:
        return any(self._closer(self.lines[k - 1]) for k in range(a + 1, b))

    def _separator(self, n: int, raw: str) -> bool:
        """A separator line (``-- ``, ``__________``, the head of a quoted or
        forwarded mail) after the header: it ends the sheet only where no order
        line of this sheet follows. Otherwise it is ignored with a warning, the
        mail header lines right after it (``From:``, ``Gesendet:`` …) are
        ignored too, and the orders after it count. Returns True if the sheet
        ends here."""
        kind, k = self._look_ahead(n)
        if kind == "orders":
            self.diag(n, 1, W, "Trennlinie mitten im Spielzug", found=raw.strip()[:40],
                      expected="Trennlinien, Signatur und zitierte Mails erst nach dem "
                               "letzten Befehl",
                      consequence=f"ignoriert; der Spielzug geht weiter (Befehle ab Zeile {k} "
                                  "gelten)")
            self.mail_head = True
            return False
        self.outside(n, raw)
        self._quoted_sheet(n, separator=True)
        return True

    def _quoted_sheet(self, n: int, separator: bool = False) -> None:
        """The sheet ended at line ``n``; if header lines of a sheet follow (a
        quoted or forwarded sheet, not read), say so: an error when it is this
        kingdom's sheet for this month (which of the two counts is not clear), a
        warning otherwise."""
        kind, k = self._look_ahead(n)
        if kind != "sheet":
            return
        other = self._block_kingdom(k)
        month = self._block_month(k)
        if other not in (0, self.sheet.kingdom):
            self.diag(n, 1, W, f"nach Zeile {n} folgt ein Spielzug für Königreich {other} "
                      f"(ab Zeile {k})", expected="ein Spielzug je Mail oder Trennung mit ENDE",
                      consequence="nicht gelesen (zitiert oder weitergeleitet)")
        elif month is not None and self.sheet.month is not None and month != self.sheet.month:
            self.diag(n, 1, W, f"nach Zeile {n} folgt ein älterer Spielzug (ab Zeile {k}, "
                      f"Mond {month.short()})",
                      consequence="nicht gelesen (zitiert oder weitergeleitet)")
        else:
            self.diag(n, 1, E, f"nach Zeile {n} folgt ein zweiter Spielzug dieses Königreichs "
                      f"(ab Zeile {k}): welcher gilt, ist nicht eindeutig",
                      expected="nur ein Spielzug je Königreich und Mail",
                      consequence=f"nur die Zeilen bis {n} gelten; der zweite wird nicht "
                                  "gelesen — bitte einen einzigen Spielzug senden")

    def _look_ahead(self, n: int, in_text: bool = False) -> tuple[str, int]:
        """What follows line ``n``, skipping blank, quoted and separator lines,
        greetings and mail header lines: ``("orders", k)`` for an order line
        at ``k`` (``in_text``: also the end of a message), ``("sheet", k)`` for
        a header line, else ``("none", 0)``. Remembered per line range, so a
        sheet of many separators is scanned once (linear time)."""
        if not in_text and self.ahead_from < n < self.ahead_to:
            return self.ahead
        cap = self.limits.order_line_length
        result: tuple[str, int] = ("none", 0)
        for k in range(n + 1, len(self.lines) + 1):
            raw = self.lines[k - 1]
            if len(raw) > cap or not raw.strip() or raw.lstrip().startswith(_QUOTE_START):
                continue
            if not (raw.isascii() and raw.isprintable()):
                raw = clean_line(raw)[0]
            if raw[:1] in _CLOSER_FIRST and self._closer(raw):
                continue
            code = code_of(raw)
            folded = fold(code).strip()
            if not folded:
                continue
            if in_text and folded in _END_WORDS:
                return "orders", k
            if ":" in code and header_match(code):
                result = ("sheet", k)
                break
            if _MAIL_HEADER.match(code) or folded in _SHEET_END_WORDS:
                continue
            if self._order_like(code, folded):
                result = ("orders", k)
                break
        if not in_text:
            self.ahead_from, self.ahead_to, self.ahead = n, result[1] or len(self.lines) + 1, result
        return result

    @staticmethod
    def _order_like(code: str, folded: str) -> bool:
        """True for a line that reads as part of a sheet's body: a section, an
        army line, an ``A:``/``B:`` line, a message or a command code."""
        if _ARMY_WORD_RE.match(code) or _ARMY_POS_RE.match(code) or _PHASE_RE.match(code) \
                or _SECTION_K.match(folded) or _SECTION_H.match(folded) \
                or _TEXT_KEYWORD_RE.match(code):
            return True
        # a command counts only by its code (``F+ 1000``, ``BH 101.12``, ``s``):
        # a signature's "Suche noch Mitspieler" is no order
        first = folded.split(maxsplit=1)[0].strip("()") if folded else ""
        return len(code) < 80 and first in BY_CODE and not _GREETING.match(folded)

    def _block_kingdom(self, k: int) -> int:
        """The kingdom named by the header block starting at line ``k`` (0: none)."""
        hm = self._block_value(k, "kingdom")
        mk = re.match(r"^(\d{1,3})\b", hm) if hm else None
        return int(mk.group(1)) if mk else 0

    def _block_month(self, k: int) -> MonthDate | None:
        value = self._block_value(k, "month")
        try:
            return MonthDate.parse(value) if value else None
        except InvalidInputError:
            return None

    def _block_value(self, k: int, what: str) -> str:
        """The value of ``what`` in the header block at line ``k`` (its header
        lines, blank lines and comments, at most 20 lines)."""
        for j in range(k, min(k + 20, len(self.lines) + 1)):
            raw = self.lines[j - 1]
            if len(raw) > self.limits.order_line_length:
                break
            code = code_of(clean_line(raw)[0])
            if not code.strip():
                continue
            hm = header_match(code)
            if hm is None:
                break
            if hm[0] == what:
                return hm[1]
        return ""

    def _mail_head_line(self, n: int, raw: str) -> bool:
        """Right after a separator inside the sheet: the quoted mail's header
        lines (``From:``, ``Gesendet:`` …) are outside; the first other line
        ends that state. True if line ``n`` was one of them."""
        if not raw.strip():
            return False
        code = code_of(raw)
        if _MAIL_HEADER.match(code) and not header_match(code):
            self.outside(n, raw)
            return True
        self.mail_head = False
        return False

    def _new_sheet(self, n: int, code: str) -> bool:
        """A header line naming another kingdom after orders: the next sheet
        begins at its header block."""
        if not self.sheet.kingdom or not self.body_seen or ":" not in code:
            return False
        hm = header_match(code)
        if hm is None or hm[0] != "kingdom":
            return False
        mk = re.match(r"^(\d{1,3})\b", hm[1])
        if not mk or int(mk.group(1)) == self.sheet.kingdom:
            return False
        start = n
        while start > 1:
            prev = self.lines[start - 2]
            if prev.strip() and not (len(prev) <= self.limits.order_line_length
                                     and header_match(code_of(prev))):
                break
            start -= 1
        while start < n and not self.lines[start - 1].strip():
            start += 1
        # header lines of the next sheet read above were taken for this one: undo
        for k in range(start, n):
            if self.kinds.get(k) == "header":
                for line in list(self.sheet.header_lines.values()):
                    if line == k:
                        raise _Restart(start)
        self.sheet.next_sheet = start
        return True

    def _line(self, n: int, code: str, folded: str) -> None:
        """One significant line; ``folded`` is ``fold(code).strip()``. Each
        structure pattern is tried only where the first character allows it."""
        if ":" in code and self._header(n, code):
            return
        self.body_seen = True
        first = folded[:1]
        if first == "k" and _SECTION_K.match(folded):
            self.section, self.block = "K", None
            self.kinds[n] = "section"
            return
        if first == "h" and _SECTION_H.match(folded) and not (
                folded == _SECTION_H_BARE and self.block):
            self.section, self.block = "H", None
            self.kinds[n] = "section"
            return
        if first == "b" and self._text_start(n, code):
            return
        if (first in _ARMY_FIRST or first.isdigit()) and self._army_header(n, code):
            return
        phase = _PHASE_RE.match(code) if first in _PHASE_FIRST else None
        bare_a = None if phase or first != "a" else _PHASE_BARE_A.match(code)
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
        hm = header_match(code)
        if hm is None:
            return False
        what, value, col = hm
        self.kinds[n] = "header"
        if not value:
            if what == "password" and not self.sheet.password:
                self.empty_password_line = self.empty_password_line or n
            elif what != "password" and what not in self.sheet.header_lines:
                self._header_value(n, col, what, value)
            return True
        if what in self.sheet.header_lines:
            first = self.sheet.header_lines[what]
            if self._value_differs(what, value):
                self.diag(n, col, W, "zweite Angabe im Kopf des Spielzugs",
                          found=value if what != "password" else "******",
                          expected=f"nur eine Angabe (Zeile {first} gilt)",
                          consequence=f"ignoriert; es gilt Zeile {first}")
            return True
        self._header_value(n, col, what, value)
        return True

    def _value_differs(self, what: str, value: str) -> bool:
        s = self.sheet
        if what == "segment":
            return value.lower() != s.segment
        if what == "password":
            return unquote_password(value) != s.password
        if what == "kingdom":
            mk = re.match(r"^(\d{1,3})\b", value)
            return not mk or int(mk.group(1)) != s.kingdom
        try:
            return MonthDate.parse(value) != s.month
        except InvalidInputError:
            return True

    def _header_value(self, n: int, col: int, what: str, value: str) -> None:
        if what == "segment":
            self.sheet.segment = value.strip().lower()
            if not self.sheet.segment:
                self.diag(n, col, E, "Segmentname fehlt", expected="z.B. Segment: canura",
                          consequence="der Spielzug kann keinem Segment zugeordnet werden")
                return
        elif what == "kingdom":
            mk = re.match(r"^(\d{1,3})\b", value)
            if mk:
                self.sheet.kingdom = int(mk.group(1))
            else:
                self.diag(n, col, E, "Königreichnummer fehlt oder ist ungültig", found=value,
                          expected="Königreichnummer, z.B. Königreich: 3",
                          consequence="der Spielzug kann keinem Königreich zugeordnet werden")
                return
        elif what == "password":
            self.sheet.password = unquote_password(value)
            if not self.sheet.password:
                self.empty_password_line = self.empty_password_line or n
                return
        else:
            try:
                self.sheet.month = MonthDate.parse(value)
            except InvalidInputError:
                self.diag(n, col, W, "unbekannte Monatsangabe", found=value,
                          expected="z.B. Dormit 412 oder 0412-04",
                          consequence="ignoriert; es gilt der laufende Mond")
                return
        self.sheet.header_lines[what] = n

    def _text_start(self, n: int, code: str) -> bool:
        mt = _MESSAGE_RE.match(code)
        if mt:
            self.kinds[n] = "text"
            self.block = None
            target, colon, rest = mt.group(1), mt.group(2), mt.group(3).strip()
            if fold(target) in _ALL or (fold(target) == "alle" and not rest):
                self.diag(n, mt.start(1) + 1, W, "Botschaft an alle",
                          found=target, expected="BEKANNTMACHUNG für alle Reiche",
                          consequence="interpretiert als BEKANNTMACHUNG")
                self.text_block = m.Announcement("", n)
            else:
                to = int(target) if target.isdigit() and len(target) <= 3 else 0
                if not to:
                    self.diag(n, mt.start(1) + 1, E,
                              "Empfänger der Botschaft fehlt oder ist ungültig", found=target,
                              expected="BOTSCHAFT <Königreichnummer>",
                              consequence="die Botschaft wird nicht befördert")
                self.text_block = m.Message(to, "", n)
            self._open_text(n, rest, one_line=bool(colon and rest))
            return True
        mt = _ANNOUNCE_RE.match(code)
        if mt:
            self.kinds[n] = "text"
            self.block = None
            self.text_block = m.Announcement("", n)
            rest = mt.group(2).strip()
            self._open_text(n, rest, one_line=bool(mt.group(1) and rest))
            return True
        return False

    def _open_text(self, n: int, first: str, *, one_line: bool) -> None:
        self.text_lines, self.text_len = [], 0
        if first:
            self._text_line(n, first)
        if one_line:
            self._close_text()

    def _text_ends_before(self, raw: str) -> bool:
        """A section keyword, an army line, another message or the sheet's end
        marker ends a message that lacks its ``ENDE``."""
        if len(raw) > self.limits.order_line_length:
            return False
        code = code_of(raw)
        folded = fold(code).strip()
        if not folded or folded in _END_WORDS:
            return False
        return bool(_SECTION_K.match(folded) or (_SECTION_H.match(folded) and folded != "h")
                    or _ARMY_WORD_RE.match(code) or _TEXT_KEYWORD_RE.match(code)
                    or folded in _SHEET_END_WORDS or header_match(code))

    def _missing_end(self, n: int) -> None:
        block = self.text_block
        assert block is not None
        where = f"der Text endet vor Zeile {n}" if n else \
            "der Text bis zum Ende des Spielzugs wird übernommen"
        self.diag(block.line, 1, W, "ENDE fehlt", expected="eine Zeile ENDE nach dem Text",
                  consequence=where)
        self._close_text()

    def _text_line(self, n: int, raw: str) -> None:
        if fold(strip_comment(raw)).strip() in _END_WORDS:
            self.kinds[n] = "text"
            self._close_text()
            return
        if raw.strip():
            self.kinds[n] = "text"
        line = raw.rstrip()
        cap = self.limits.message_line_length
        if len(line) > cap:
            self.diag(n, cap + 1, W, f"Textzeile zu lang ({german_number(len(line))} Zeichen, "
                      f"höchstens {german_number(cap)})",
                      consequence=f"nach {german_number(cap)} Zeichen abgeschnitten")
            line = line[:cap]
        room = self.limits.message_length - self.text_len
        if room <= 0:
            return
        if len(line) + 1 > room:
            assert self.text_block is not None
            self.diag(n, max(room, 1), W, f"Text zu lang (höchstens "
                      f"{german_number(self.limits.message_length)} Zeichen)",
                      consequence="der Rest des Textes wird nicht befördert")
            line = line[:room]
        self.text_len += len(line) + 1
        self.text_lines.append(line)

    def _close_text(self) -> None:
        block = self.text_block
        assert block is not None
        text = "\n".join(self.text_lines).strip("\n")
        self.text_block, self.text_lines, self.text_len = None, [], 0
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
            elif self._is_command(tail):
                self._army_order(n, tokenize(tail, start), tail, start, None, explicit=False)
            else:
                self.diag(n, rest[1].col, W, f"Text nach der Position von Heer {number:04d}",
                          found=tail.strip()[:60],
                          expected=f"Heer {number:04d} {pos} und die Befehle in den Zeilen "
                          "A: und B: (Anmerkungen nach #)",
                          consequence=f"als Anmerkung ignoriert; die Befehle von Heer "
                          f"{number:04d} gelten")
        return True

    def _orders_follow(self, n: int) -> bool:
        """True if an order-like line of this sheet follows line ``n`` — also
        after a signature or a quoted mail's head (:meth:`_look_ahead`), or a
        header block naming another kingdom before a separator or an end marker
        (the next sheet, split off later): then a greeting does not end the
        sheet (it gets its own error instead). Remembered, so that a run of
        greetings costs one scan."""
        if n < self.orders_until:
            return True
        if n < self.no_orders_until:
            return False
        kind, k = self._look_ahead(n)
        if kind == "orders":
            self.orders_until = k
            return True
        if kind == "none" or self._closed_between(n, k) \
                or self._block_kingdom(k) in (0, self.sheet.kingdom):
            self.no_orders_until = k or len(self.lines) + 1
            return False
        for k in range(n + 1, len(self.lines) + 1):
            raw = self.lines[k - 1]
            if len(raw) > self.limits.order_line_length or not raw.strip() \
                    or raw.lstrip().startswith(_QUOTE_START):
                continue
            if self._closer(raw) or fold(code_of(raw).strip()) in _SHEET_END_WORDS:
                self.no_orders_until = k
                return False
            code = code_of(raw)
            folded = fold(code).strip()
            if not folded:
                continue
            if _ARMY_WORD_RE.match(code) or _PHASE_RE.match(code) or _SECTION_K.match(folded) \
                    or _TEXT_KEYWORD_RE.match(code) or (_SECTION_H.match(folded)) \
                    or (not _GREETING.match(fold(raw.strip())) and self._is_order_line(raw)):
                self.orders_until = k
                return True
        self.no_orders_until = len(self.lines) + 1
        return False

    @staticmethod
    def _is_order_line(raw: str) -> bool:
        """True if the line starts with a command word (``Ihr`` is no command,
        but a greeting-like line that is an order stays an order)."""
        code = code_of(raw)
        if ":" in code or _ARMY_RE.match(code):
            return True
        return _Parser._is_command(code)

    @staticmethod
    def _is_command(tail: str) -> bool:
        """True if the text after an army's position starts with a command."""
        toks = tokenize(tail)
        if not toks:
            return False
        try:
            return match([t.text for t in toks], (Part.A, Part.B, Part.K)) is not None
        except Ambiguous:
            return False

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
            # a "meinten Sie" costs a fuzzy search: offered for the first
            # SUGGESTIONS unknown words of a sheet only (a sheet of 100,000
            # unknown words must not cost minutes)
            self.suggestions_left -= 1
            hint = suggest(toks[0].text[:40], parts) if self.suggestions_left >= 0 else ""
            self.diag(n, toks[0].col, E, "unbekannter Befehl", found=toks[0].text,
                      expected=_expected(parts), consequence=consequence, suggestion=hint)
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
            assert isinstance(order, m.KingdomOrder)  # the builders of K commands make kingdom orders
            self.sheet.kingdom_orders.append(order)
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
            assert isinstance(order, m.KingdomOrder)  # the builders of K commands make kingdom orders
            self.sheet.kingdom_orders.append(order)
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
