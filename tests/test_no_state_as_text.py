"""No state carried as display text (issue #44): a program decides by codes
(enum members), never by comparing German words.

An AST scan of ``wdg/``: every comparison (``==``, ``!=``, ``in``, ``not in``)
and every ``.startswith``/``.endswith`` whose operand is a string literal — or
a module-level constant holding one (also imported from another module of
``wdg``) — fails when that string holds a word of the game's state vocabulary
(the German words of army statuses, troop types, movers, sightings, the
import's outcomes and reasons, the forecast's causes, derived from the enums
and the text layer's tables below), any non-ASCII letter (German text), or
natural-language prose: two or more words of letters only, separated by
spaces (``"kein Spielzug gefunden"``, an ASCII reason the word list could not
know; a format code such as ``"%d %s"`` or ``"{} {}"`` is no prose).

Allowed on purpose (:data:`ALLOWED`, by module and text): the bot's
notebook, a comment line it writes on its own sheet and reads back
(docs/bots.md); a line of ``/proc/cpuinfo``, a message of Python's socket
and ssl modules, a font family of the map's style — other programs' text,
read, never written by wdg. The parsers of what a player or game master
writes compare input with the sheet's keywords, which are lower case or upper
case (``FABELWESEN``) and so no state word; in the sheet's parser
(:data:`KEYWORD_MODULES`) a lower-case prose literal is such a keyword
(``"ende des spielzugs"``, compared with the folded line). Templates
(``templates/``) and the tables of the text layer hold the words; they are
not comparisons.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from wdg.engine.events import SightingKind
from wdg.mail.guardbook import GuardKind
from wdg.orders import confirm
from wdg.orders.forecast import CAUSE_WORDS
from wdg.orders.outcome import IntakeStatus
from wdg.reports.render import ARMY_STATUS_WORDS
from wdg.world.state import ArmyStatus, MoverKind, TroopType

ROOT = Path(__file__).resolve().parents[1]
WDG = ROOT / "wdg"

REFUSAL_WORDS = ("Reichsschatz", "Goldsterne", "Raumfaktoren", "Rüstvolumen", "Tragkraft")
"""The words the forecast once searched in a refusal's German reason."""


def vocabulary() -> frozenset[str]:
    """The state words: every value of the enums that carry state as codes, and
    every word of the text layer's tables that show them."""
    words: set[str] = {"Heer", "Heere"}  # the label of an army line, never parsed back
    for enum in (ArmyStatus, TroopType, IntakeStatus, SightingKind, MoverKind, GuardKind):
        words |= {str(m.value) for m in enum}
    words |= set(confirm.STATUS_WORDS.values()) | set(confirm.REASON_WORDS.values())
    words |= set(ARMY_STATUS_WORDS.values()) | set(CAUSE_WORDS.values()) | set(REFUSAL_WORDS)
    words |= {"nach dem Eintreffschluß"}  # the late sheet's reason, once read by its prefix
    words |= {"verweigert", "angenommen"}  # an order's or a sheet's fate, as the player reads it
    words |= {"Fehler", "Warnung", "gesperrt", "nichts versandt"}  # a run report's lines
    words |= {"Formulierung", "behalten"}  # a replay layer's and an upgrade step's reasons
    return frozenset(words)


ALLOWED = {
    ("wdg.bots.briefing", "# Notiz: Königreich "):
        "the bot's notebook: a comment line it writes on its own sheet and reads back",
    ("wdg.bench.harness", "model name"):
        "a field name of the kernel's /proc/cpuinfo, read for the benchmark's machine line",
    ("wdg.mail.config", "timed out"):
        "the text of Python's socket/ssl timeout (an SSLError or OSError, not a "
        "TimeoutError, on some paths): a third party's message, read",
    ("wdg.reports.printmap", "dejavu sans"):
        "a font family name in the game master's map style (CSS), compared lower case",
}
"""(module, compared text) pairs allowed on purpose, each with its reason."""


KEYWORD_MODULES = {
    "wdg.orders.parser": "the sheet's keywords (ENDE DES SPIELZUGS, BOTSCHAFT AN ALLE "
                         "REICHE …), compared lower case with the folded line the player wrote",
}
"""Modules whose lower-case prose literals are input keywords, each with its reason."""


_NON_ASCII_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_PROSE = re.compile(r"[^\W\d_]+(?: +[^\W\d_]+)+[.:!?]?", re.UNICODE)
"""Two or more words of letters, separated by spaces (natural language)."""


def _offending(text: str, words: frozenset[str]) -> str | None:
    """Why ``text`` is state carried as display text, or ``None``."""
    for w in sorted(words, key=len, reverse=True):
        if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text):
            return f"state word {w!r}"
    if any(ord(ch) > 127 and _NON_ASCII_LETTER.match(ch) for ch in text):
        return "German text (a non-ASCII letter)"
    if _PROSE.fullmatch(text.strip()):
        return "natural-language text (words separated by spaces)"
    return None


def _strings(node: ast.AST | None, consts: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The strings a node stands for: a literal, a tuple/list/set of literals, or
    a name bound to one at module level."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return tuple(s for e in node.elts for s in _strings(e, consts))
    if isinstance(node, ast.Name):
        return consts.get(node.id, ())
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("frozenset", "set", "tuple") and node.args:
        return _strings(node.args[0], consts)
    return ()


def module_constants(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """Module-level names bound to strings (``A = "x"``, ``A, B = "x", "y"``,
    ``A = ("x", "y")``)."""
    out: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        for t in targets:
            if isinstance(t, ast.Name):
                got = _strings(value, out)
                if got:
                    out[t.id] = got
            elif isinstance(t, ast.Tuple) and isinstance(value, ast.Tuple) \
                    and len(t.elts) == len(value.elts):
                for name, v in zip(t.elts, value.elts):
                    if isinstance(name, ast.Name):
                        got = _strings(v, out)
                        if got:
                            out[name.id] = got
    return out


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def scan(sources: dict[str, str], words: frozenset[str],
         allowed: frozenset[tuple[str, str]] = frozenset(),
         keywords: frozenset[str] = frozenset()) -> list[str]:
    """Every comparison of ``sources`` (module name -> source) against state
    text: ``module:line: what``. ``keywords``: modules whose lower-case prose
    literals are input keywords (:data:`KEYWORD_MODULES`)."""
    trees = {name: ast.parse(src) for name, src in sources.items()}
    consts = {name: module_constants(tree) for name, tree in trees.items()}
    found = []
    for name, tree in trees.items():
        known = dict(consts[name])
        for node in tree.body:  # constants imported from another module of wdg
            if isinstance(node, ast.ImportFrom) and node.module in consts:
                for alias in node.names:
                    if alias.name in consts[node.module]:
                        known[alias.asname or alias.name] = consts[node.module][alias.name]
        for node in ast.walk(tree):
            operands: list[ast.AST] = []
            if isinstance(node, ast.Compare):
                for op, right in zip(node.ops, node.comparators):
                    if isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
                        operands += [node.left, right]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("startswith", "endswith"):
                operands += list(node.args)
            for operand in operands:
                for text in _strings(operand, known):
                    why = _offending(text, words)
                    if why and why.startswith("natural-language") and text == text.lower() \
                            and name in keywords:
                        continue  # an input keyword of a parser
                    if why and (name, text) not in allowed:
                        found.append(f"{name}:{node.lineno}: compares {text!r} ({why})")
    return sorted(set(found))


def wdg_sources() -> dict[str, str]:
    return {_module_name(p): p.read_text(encoding="utf-8") for p in sorted(WDG.rglob("*.py"))}


def test_no_module_compares_state_as_german_text():
    found = scan(wdg_sources(), vocabulary(), frozenset(ALLOWED), frozenset(KEYWORD_MODULES))
    assert not found, "state carried as display text (compare enum members instead):\n" \
        + "\n".join(found)


def test_every_allowance_is_still_needed():
    """An allowance nothing needs any more is stale."""
    found = scan(wdg_sources(), vocabulary())
    for module, text in ALLOWED:
        assert any(f.startswith(f"{module}:") and f"compares {text!r}" in f for f in found), \
            (module, text)
    for module in KEYWORD_MODULES:
        assert any(f.startswith(f"{module}:") and "natural-language" in f for f in found), module


@pytest.mark.parametrize("source", [
    'def f(a):\n    return a.status == "passiv"\n',
    'def f(a):\n    return a.status in ("aktiv", "aktivierend")\n',
    'def f(a):\n    return a.troop == "Schiffe"\n',
    'def f(s):\n    return s.what == "heer"\n',
    'def f(e):\n    return "Raumfaktoren" in e.why and e.kind.endswith(".refused")\n',
    'def f(e):\n    return "Rüstvolumen" in e.why\n',
    'LATE = "nach dem Eintreffschluß"\ndef f(r):\n    return r.reason.startswith(LATE)\n',
    'A, B = "angenommen", "abgelehnt"\ndef f(r):\n    return r.status == B\n',
    'TAKEN = ("angenommen", "älter")\ndef f(s):\n    return s in TAKEN\n',
    'def f(l):\n    return l.where.startswith("Heer ")\n',
    'def f(d):\n    return d.consequence == "alle Befehle dieses Heeres verweigert"\n',
    'def f(kind):\n    return kind == "schiffe"\n',
    'def f(f):\n    return "älteren wdg-Version" in f\n',
    'def f(line):\n    return line.startswith(("Fehler", "Warnung", "verweigert", "gesperrt"))\n',
    'def f(line):\n    return line.startswith("nichts versandt")\n',
    'def f(layers):\n    return any("andere Formulierung" in x.why for x in layers)\n',
    'def f(lines):\n    return lines[0].startswith("templates/ behalten")\n',
    'def f(r):\n    return r.reason.startswith("kein Spielzug gefunden")\n',
    'def f(r):\n    return r.note == "no sheet found"\n',
    'def f(r):\n    return "Mail zu gross" in r.reason\n',
])
def test_the_scan_finds_what_issue_44_found(source):
    """The shapes of the defects #44 removed (each one as it stood in wdg) are found."""
    assert scan({"m": source}, vocabulary())


def test_the_scan_follows_a_constant_imported_from_another_module():
    sources = {"a": 'REJECTED = "abgelehnt"\n',
               "b": 'from a import REJECTED\ndef f(r):\n    return r.status == REJECTED\n'}
    assert scan(sources, vocabulary()) == ["b:3: compares 'abgelehnt' (state word 'abgelehnt')"]


def test_lower_case_prose_passes_only_in_a_keyword_module():
    source = 'def f(line):\n    return line in ("ende spielzug", "ende des spielzugs")\n'
    assert scan({"wdg.orders.parser": source}, vocabulary(),
                keywords=frozenset(KEYWORD_MODULES)) == []
    assert scan({"wdg.orders.intake": source}, vocabulary(),
                keywords=frozenset(KEYWORD_MODULES))
    capital = 'def f(r):\n    return r.reason == "kein Spielzug gefunden"\n'
    assert scan({"wdg.orders.parser": capital}, vocabulary(),
                keywords=frozenset(KEYWORD_MODULES))


def test_the_scan_leaves_format_codes_alone():
    source = ('def f(a):\n'
              '    return a == "%d %s" or a.startswith("{} {}") or a in ("utf-8", "k1.txt") \\\n'
              '        or a.endswith(".receipt.yaml") or a == "a_b c_d"\n')
    assert scan({"m": source}, vocabulary()) == []


def test_the_scan_leaves_codes_and_english_alone():
    source = ('from wdg.world.state import ArmyStatus\n'
              'def f(a, e):\n'
              '    return a.status is ArmyStatus.PASSIVE and e.kind.endswith(".refused") \\\n'
              '        and e.data.get("what") == "creature" and a.report == "passive"\n')
    assert scan({"m": source}, vocabulary()) == []
