"""The checker's verdict for people and programs.

:func:`echo` prints the sheet with each message right under its line (as
Atlantis' check mode does) and ends with ``N Fehler, M Warnungen``;
:func:`to_json` gives the same as JSON. Messages without a line (a missing
army, the sheet's kingdom) come first.
"""

from __future__ import annotations

import json
from collections import defaultdict

from wdg.orders.model import Diagnostic, Severity
from wdg.orders.parser import decode, redact_passwords, split_lines
from wdg.textpolicy import visible


def format_diagnostic(d: Diagnostic) -> str:
    """One message in German: ``Fehler (Zeile 7, Spalte 4): ... – gefunden ...``."""
    where = f"Zeile {d.line}, Spalte {d.column}" if d.line else "Spielzug"
    parts = [f"{d.severity.value} ({where}): {d.message}"]
    if d.found:
        parts.append(f"gefunden: {d.found!r}")
    if d.expected:
        parts.append(f"erwartet: {d.expected}")
    if d.suggestion:
        parts.append(f"meinten Sie {d.suggestion!r}?")
    if d.consequence:
        parts.append(f"Folge: {d.consequence}")
    return " – ".join(parts)


def summary(diagnostics: list[Diagnostic]) -> str:
    """``2 Fehler, 1 Warnung``."""
    e = sum(d.severity is Severity.ERROR for d in diagnostics)
    w = len(diagnostics) - e
    return f"{e} Fehler, {w} Warnung{'en' if w != 1 else ''}"


def line_ranges(numbers: list[int]) -> str:
    """``1–3, 17, 20–25`` for the line numbers ``1 2 3 17 20 … 25``."""
    out: list[str] = []
    nums = sorted(set(numbers))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}–{nums[j]}")
        i = j + 1
    return ", ".join(out)


def ignored_note(ignored: list[int]) -> str:
    """The line naming the lines outside the sheet, or ``""``."""
    if not ignored:
        return ""
    n = len(set(ignored))
    return (f"Ignoriert (außerhalb des Spielzugs: Anrede, Zitate, Signatur, Text nach "
            f"NÄCHSTER/ENDE): {n} Zeile{'n' if n != 1 else ''} — "
            f"Zeile{'n' if n != 1 else ''} {line_ranges(ignored)}")


def echo(text: str | bytes, diagnostics: list[Diagnostic], ignored: list[int] | None = None) -> str:
    """The sheet, numbered, with each message under its line, then the summary
    and the lines outside the sheet (``ignored``, by number); the value of
    every password line is shown as ``******`` (:func:`redact_passwords`);
    characters the text policy removes are shown as ``<U+001B>``."""
    by_line: dict[int, list[Diagnostic]] = defaultdict(list)
    for d in diagnostics:
        by_line[d.line].append(d)
    lines = split_lines(redact_passwords(decode(text)))
    out = [f"   >>> {format_diagnostic(d)}" for d in by_line.pop(0, [])]
    for n, line in enumerate(lines, start=1):
        out.append(f"{n:4d}  {line}")
        for d in by_line.pop(n, []):
            pad = " " * (5 + max(d.column, 1))
            out.append(f"{pad}^")
            out.append(f"   >>> {format_diagnostic(d)}")
    for n in sorted(by_line):  # lines past the end (should not happen)
        out += [f"   >>> {format_diagnostic(d)}" for d in by_line[n]]
    if ignored:
        out.append(ignored_note(ignored))
    out.append(summary(diagnostics))
    return visible("\n".join(out) + "\n")  # control characters shown, never sent raw


def to_json(diagnostics: list[Diagnostic], *, source: str = "",
            ignored: list[int] | None = None) -> str:
    """The verdict as JSON: ``{"source", "errors", "warnings", "diagnostics": [...],
    "ignored_lines": [...]}`` (the lines outside the sheet)."""
    items = [{
        "line": d.line, "column": d.column, "severity": d.severity.name.lower(),
        "message": d.message, "found": d.found, "expected": d.expected,
        "consequence": d.consequence, "suggestion": d.suggestion,
    } for d in diagnostics]
    return json.dumps({
        "source": source,
        "errors": sum(d.severity is Severity.ERROR for d in diagnostics),
        "warnings": sum(d.severity is Severity.WARNING for d in diagnostics),
        "diagnostics": items,
        "ignored_lines": sorted(set(ignored or [])),
    }, ensure_ascii=False, indent=2) + "\n"
