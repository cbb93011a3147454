"""The command table of the order sheet: short and long German names.

Every command of the rule ("Die Befehle für das Königreich", "Die
Heeresbefehle der Phase A", "Die Heeresbefehle der Phase B (I)") has its
abbreviation (``nr``, ``BH``, ``b`` ...) and one or more spelled-out names
("Neue Rüstgüter anwerben", "Bauwerk Hafen bauen", "Bewegung"). The rule says
"Alle Heeresbefehle können sowohl in abgekürzter, als auch in ausgeschriebener
Form verwendet werden"; this module decides which command a line starts with.

Matching is case-insensitive and folds umlauts (``ä``/``ae`` ...). An exact
abbreviation wins. Otherwise the leading words of the line are matched against
the words of each long name: every given word must be a prefix of the name's
word at the same place; later words of the long name may be left out
("Diplomatiestatus 3 +" = "Diplomatiestatus ändern 3 +"). The candidate that
consumes the most words (then: the most whole words) wins; a tie between
different commands is ambiguous.
"""

from __future__ import annotations

import difflib
import re
import functools
import unicodedata
from dataclasses import dataclass
from enum import Enum


class Part(Enum):
    """Where a command belongs on the sheet."""

    K = "K"
    A = "A"
    B = "B"

    # Members are singletons: identity is their equality, so the identity hash
    # is correct and far cheaper than Enum's (a Python-level call per lookup;
    # every order line looks its command up with a tuple of parts as key).
    __hash__ = object.__hash__

    @property
    def german(self) -> str:
        """How the player reads the part's name."""
        return {"K": "Königreichbefehl", "A": "Phase-A-Befehl", "B": "Phase-B-Befehl"}[self.value]


@dataclass(frozen=True, slots=True)
class Command:
    """One command: abbreviation, long names, parameter description."""

    code: str
    """The rule's abbreviation as printed (``BH``, ``nr``, ``b``)."""
    part: Part
    names: tuple[str, ...]
    """Spelled-out forms; the first is the rule's own name."""
    params: str
    """The parameters as the player reads them (``<Gemark>``), '' for none."""

    @property
    def usage(self) -> str:
        """``nr <Anzahl>``: the short form with its parameters."""
        return f"{self.code} {self.params}".strip()

    @property
    def long_usage(self) -> str:
        """The rule's long form with its parameters."""
        return f"{self.names[0]} {self.params}".strip()


def _c(code: str, part: Part, params: str, *names: str) -> Command:
    return Command(code, part, names, params)


K, A, B = Part.K, Part.A, Part.B

COMMANDS: tuple[Command, ...] = (
    _c("BH", K, "<Gemark>", "Bauwerk Hafen bauen", "Hafen bauen"),
    _c("BK", K, "<Gemark>", "Bauwerk Kaserne bauen", "Kaserne bauen"),
    _c("BQ", K, "<Gemark>", "Bauwerk Palast bauen", "Palast bauen"),
    _c("BM", K, "<Gemark>", "Bauwerk Mine bauen", "Mine bauen"),
    _c("DS", K, "<Königreichnummer> <++|+|-|-->", "Diplomatiestatus ändern"),
    _c("SS", K, "<Gemark> <Baueinheiten 1..100>", "Siedlung bauen/erweitern", "Siedlung bauen",
       "Siedlung erweitern"),
    _c("F+", K, "<Goldsterne>", "Volksfest veranstalten"),
    _c("nf", A, "", "Neuen Feldherren anwerben", "Feldherren anwerben"),
    _c("nh", A, "<Gemark>", "Heer neu aktivieren", "Aktivieren"),
    _c("eh", A, "<Heeresnummer|0000>", "Heer entlassen"),
    _c("nr", A, "<Anzahl>", "Neue Rüstgüter anwerben", "Rüstgüter anwerben", "Anwerben"),
    _c("er", A, "<Anzahl>", "Rüstgüter entlassen"),
    _c("bb", A, "<Richtung>", "Boote bauen"),
    _c("bs", A, "<Heeresnummer der Flotte>", "Schiffe betreten", "Einschiffen"),
    _c("vs", A, "<Gemark>", "Schiffe verlassen", "Ausschiffen"),
    _c("nn", A, "<Name, bis 15 Zeichen>", "Neuer Siedlungsname", "Umbenennen"),
    _c("b", B, "<Richtung> [<Richtung> ...]", "Bewegung"),
    _c("c", B, "<Aktionscode> [<Angaben>]", "Charakteraktion"),
    _c("e", B, "<Richtung> [<Richtung> ...]", "Einnahme", "Gemark einnehmen"),
    _c("h", B, "", "Hilfe"),
    _c("i", B, "", "Information"),
    _c("o", B, "", "Okkupation", "Gemark okkupieren"),
    _c("r", B, "", "Ruhepause"),
    _c("s", B, "", "Suche"),
    _c("t", B, "", "Training"),
    _c("x", B, "<H|K|M|Q|X>", "Siedlung/Bauwerk zerstören", "Siedlung zerstören",
       "Bauwerk zerstören", "Zerstören", "Zerstörung"),
)
"""Every command of the rule, in the rule's order."""

BY_CODE: dict[str, Command] = {c.code.casefold(): c for c in COMMANDS}


@functools.lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """Case- and umlaut-insensitive form: NFC, casefold, ä->ae, ö->oe, ü->ue
    (ß becomes ss through casefold)."""
    if text.isascii():  # the common case: nothing to normalise, casefold == lower
        return text.lower()
    s = unicodedata.normalize("NFC", text).casefold()
    return s.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")


@functools.lru_cache(maxsize=512)
def _name_words(name: str) -> list[str]:
    return [fold(w) for w in name.split()]


@dataclass(frozen=True, slots=True)
class Match:
    """The command a line starts with and how many words it used."""

    command: Command
    words: int


class Ambiguous(Exception):
    """Raised by :func:`match` with the competing commands."""

    def __init__(self, candidates: list[Command]) -> None:
        super().__init__(", ".join(c.code for c in candidates))
        self.candidates = candidates


def match(words: list[str], parts: tuple[Part, ...]) -> Match | None:
    """The command that ``words`` (the line's words) start with, among commands
    of ``parts``; ``None`` if none; raises :class:`Ambiguous` on a tie."""
    if not words:
        return None
    # no command name has more than a few words: the first eight decide
    key = tuple(words[:8])
    if max(map(len, key)) > 40:
        key = tuple(w[:40] for w in key)
    return _match(key, parts)


@functools.lru_cache(maxsize=4096)
def _match(words: tuple[str, ...], parts: tuple[Part, ...]) -> Match | None:
    first = fold(words[0]).strip("()")
    exact = BY_CODE.get(first)
    folded = [fold(w).strip(_QUOTES) for w in words]
    if exact is not None and exact.part in parts:
        # the rule prints "(SS) Siedlung bauen/erweitern <Gemark, Baustufe>": a
        # code in brackets may be followed by its own long name
        if words[0].startswith("(") and len(folded) > 1:
            named = [_score(folded[1:], _name_words(n)) for n in exact.names]
            # only whole words of the name count ("(nn) Neu" renames to "Neu")
            used = max((sc[0] for sc in named if sc and sc[0] == sc[1]), default=0)
            return Match(exact, 1 + used)
        return Match(exact, 1)
    best: dict[str, tuple[int, int]] = {}
    # a name can only match if its first word starts with the line's first word
    for c, name_words in _by_initial().get(folded[0][:1], ()):
        if c.part not in parts:
            continue
        score = _score(folded, name_words)
        if score and score > best.get(c.code, (0, 0)):
            best[c.code] = score
    if not best:
        return None
    top = max(best.values())
    winners = [BY_CODE[code.casefold()] for code, s in best.items() if s == top]
    if len(winners) > 1:
        raise Ambiguous(winners)
    return Match(winners[0], top[0])


_QUOTES = "\"'„“”‚‘’»«"
"""Quotation marks around a word: the rule writes "(Bn) Bauwerk "n" bauen"."""


@functools.cache
def _by_initial() -> dict[str, tuple[tuple[Command, list[str]], ...]]:
    """Every command name's words, by the first letter of its first word."""
    out: dict[str, list[tuple[Command, list[str]]]] = {}
    for c in COMMANDS:
        for name in c.names:
            words = _name_words(name)
            if words and words[0]:
                out.setdefault(words[0][0], []).append((c, words))
    return {k: tuple(v) for k, v in out.items()}


def _score(line: list[str], name: list[str]) -> tuple[int, int] | None:
    """(words consumed, whole words) if the line starts with a prefix-form of
    ``name``; the first word is required, later ones optional."""
    used = exact = 0
    for i, nw in enumerate(name):
        if i >= len(line):
            break
        w = line[i]
        if not w or not nw.startswith(w) or w[0].isdigit():
            break
        used += 1
        exact += w == nw
    return (used, exact) if used else None


_GLUED = re.compile(r"([^\W\d_]{1,3})(\d{1,9}(?:\.\d{1,2})?)")
"""A command code glued to its number (``NR300``, ``eh0105``)."""


@functools.lru_cache(maxsize=1024)
def suggest(word: str, parts: tuple[Part, ...]) -> str:
    """A "meinten Sie" candidate for an unknown command word, or ''."""
    options: dict[str, str] = {}
    for c in COMMANDS:
        if c.part in parts:
            options[c.code.casefold()] = c.code
            for name in c.names:
                options[_name_words(name)[0]] = name
    key = fold(word)
    glued = _GLUED.fullmatch(word)
    if glued and fold(glued.group(1)) in options:  # "NR300": the space forgotten
        return f"{options[fold(glued.group(1))]} {glued.group(2)}"
    found = difflib.get_close_matches(key, list(options), n=1, cutoff=0.6)
    return options[found[0]] if found else ""


def commands(part: Part) -> list[Command]:
    """The commands of one part, in the rule's order."""
    return [c for c in COMMANDS if c.part is part]
