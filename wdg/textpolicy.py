"""The one text policy for player and mail text (docs/security.md).

Player text — order sheets, messages, announcements, settlement names, mail
headers — is data. It enters in two places, the sheet parser and the mail
intake, and both apply :func:`clean_line` to every line:

* Unicode NFC (a password or name typed on macOS compares equal);
* removed, each with a warning naming it (``U+202E``): C0 and C1 control
  characters except the tab, DEL, the line and paragraph separators, bidi
  embeddings/overrides/isolates (U+202A–U+202E, U+2066–U+2069), zero-width and
  other format characters (Unicode category Cf, e.g. U+200B, U+FEFF),
  surrogates and the non-characters U+FFFE/U+FFFF — which includes everything
  XML 1.0 forbids;
* lengths bounded by ``worlds/rules/text.yaml``.

Output is guarded twice more: :func:`xml_safe` for everything written into
SVG/HTML/PDF, :func:`visible` for everything printed on a terminal (control
characters shown as ``<U+001B>``, never sent raw).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import yaml

# Every character the policy removes, as one character class (linear to apply).
_UNSAFE_CLASS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"          # C0 (but tab, LF) and DEL, C1
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"  # format chars (Cf)
    "\u200b-\u200f"                        # zero-width space/joiners, LRM, RLM
    "\u2028\u2029"                         # line/paragraph separator
    "\u202a-\u202e"                        # bidi embeddings and overrides
    "\u2060-\u2064\u2066-\u206f"           # word joiner, invisible operators, isolates
    "\ufeff\ufff9-\ufffb\ufffe\uffff\ufdd0-\ufdef"  # BOM/ZWNBSP, annotations, non-characters
    "\ud800-\udfff"                        # surrogates (from undecodable bytes)
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_UNSAFE = re.compile(f"[{_UNSAFE_CLASS}]")
# what XML 1.0 forbids (a stricter document is never worse): all of the above but LF/CR/tab
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TERMINAL_BAD = re.compile(f"[{_UNSAFE_CLASS}\r]")
_UNSAFE_BUT_CR = re.compile("[" + _UNSAFE_CLASS.replace("\x0b-\x1f", "\x0b\x0c\x0e-\x1f") + "]")


def german_number(n: int) -> str:
    """``12.500``: a count the German way (docs/german.md)."""
    return f"{n:,}".replace(",", ".")


def codepoint(ch: str) -> str:
    """``U+202E`` for a character."""
    return f"U+{ord(ch):04X}"


def char_name(ch: str) -> str:
    """``U+202E (RIGHT-TO-LEFT OVERRIDE)``; control characters by their code only."""
    name = unicodedata.name(ch, "")
    return f"{codepoint(ch)} ({name})" if name else codepoint(ch)


@dataclass(frozen=True, slots=True)
class Removed:
    """One character the policy removed: its 1-based column and itself."""

    column: int
    char: str


def clean_line(line: str) -> tuple[str, list[Removed]]:
    """One line of player text: NFC, then every unsafe character removed (and
    reported with its column in the NFC text)."""
    if line.isascii() and line.isprintable():
        return line, []
    text = unicodedata.normalize("NFC", line) if not line.isascii() else line
    found = [Removed(mt.start() + 1, mt.group()) for mt in _UNSAFE.finditer(text)]
    if not found:
        return text, []
    return _UNSAFE.sub("", text), found


def clean_text(text: str) -> str:
    """A whole text with the policy applied, line ends kept."""
    if text.isascii() and not _UNSAFE.search(text.replace("\n", "")):
        return text
    out = unicodedata.normalize("NFC", text)
    return "\n".join(_UNSAFE.sub("", part) for part in out.split("\n"))


def has_unsafe(text: str) -> bool:
    """True if ``text`` holds a character the policy removes (line ends count)."""
    return _UNSAFE.search(text) is not None


def header_value(text: str) -> str | None:
    """A decoded mail header fit to be written into another mail header or a
    file: ``None`` if it holds CR, LF or any other character the policy
    removes (it would be header injection or a terminal escape)."""
    if has_unsafe(text) or "\r" in text or "\n" in text:
        return None
    return unicodedata.normalize("NFC", text).strip()


HEADER_NAME_LENGTH = 120
"""Longest name (kingdom, ruler, player) written into a mail header; longer is cut
(a header line stays readable and well under RFC 5322's 998 characters)."""


def header_name(text: str) -> str:
    """A name fit for a mail header (``To: Name <addr>``, a Subject): every
    character the policy removes — CR, LF, VT, FF, U+2028/2029, C0/C1 controls,
    bidi and zero-width characters — becomes a blank, blanks are collapsed, the
    result cut at :data:`HEADER_NAME_LENGTH`. Applied where a name is set
    (``wdg kingdom add/set``) and again where a header is built: a name stored
    by an older wdg, or edited by hand, never stops a mail."""
    text = unicodedata.normalize("NFC", str(text))
    text = _TERMINAL_BAD.sub(" ", text).replace("\n", " ").replace("\t", " ")
    return " ".join(text.split())[:HEADER_NAME_LENGTH].strip()


def xml_safe(text: str) -> str:
    """``text`` without the characters XML 1.0 forbids and without bidi,
    zero-width and other format characters: safe inside SVG, HTML and PDF."""
    if text.isprintable():
        # every character _UNSAFE names is unprintable to Python (checked for
        # all of Unicode in tests/orders/test_text_policy.py): a printable text,
        # umlauts and all, has none of them and is returned without the regex,
        # as the substitution would return it (a sheet prints tens of thousands)
        return text
    # _UNSAFE holds every character _XML_BAD names and CR: one pass removes all
    return _UNSAFE.sub("", text)


def visible(text: str) -> str:
    """``text`` for a terminal or a mail body: every unsafe character (and CR)
    shown as ``<U+001B>``; line feeds and tabs stay."""
    if text.isascii() and text.isprintable():
        return text
    return _TERMINAL_BAD.sub(lambda mt: f"<{codepoint(mt.group())}>", text)


def terminal_safe(text: str) -> str:
    """What the command line prints: every unsafe character shown as
    ``<U+001B>``; line feeds, tabs and carriage returns (progress lines) stay."""
    if text.isascii() and text.isprintable():
        return text
    return _UNSAFE_BUT_CR.sub(lambda mt: f"<{codepoint(mt.group())}>", text)


@dataclass(frozen=True, slots=True)
class Limits:
    """The numbers of ``worlds/rules/text.yaml``."""

    settlement_name_length: int = 15
    order_line_length: int = 500
    message_line_length: int = 2000
    message_length: int = 8000
    filter_window: int = 256


@functools.cache
def limits(path: Path | None = None) -> Limits:
    """The text limits from the rules file (the package's by default).

    The parser runs on a player's machine without a campaign, so the limits
    are read from the installed package's ``worlds/rules/text.yaml``; if that
    file is absent (an installation without the demo worlds) the defaults
    above, which equal the shipped file, hold.
    """
    from wdg.campaign import PACKAGE_ROOT

    p = path or PACKAGE_ROOT / "worlds" / "rules" / "text.yaml"
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except OSError:
        return Limits()
    fields = Limits.__dataclass_fields__
    return Limits(**{k: int(v) for k, v in data.items() if k in fields})


def windows(text: str, size: int) -> list[str]:
    """Overlapping pieces of ``text`` of at most ``size`` characters, each
    starting half a window after the previous one: every substring of up to
    ``size // 2`` characters lies whole inside one piece. A pattern applied to
    each piece costs at most O(size) per piece, so O(len(text) * size) in all —
    linear in the text, whatever the pattern."""
    if len(text) <= size:
        return [text]
    step = max(1, size // 2)
    return [text[i:i + size] for i in range(0, len(text) - step, step)]
