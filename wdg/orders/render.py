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
from wdg.orders.parser import decode, split_lines
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


def echo(text: str | bytes, diagnostics: list[Diagnostic]) -> str:
    """The sheet, numbered, with each message under its line, then the summary;
    characters the text policy removes are shown as ``<U+001B>``."""
    by_line: dict[int, list[Diagnostic]] = defaultdict(list)
    for d in diagnostics:
        by_line[d.line].append(d)
    lines = split_lines(decode(text))
    out = [f"   >>> {format_diagnostic(d)}" for d in by_line.pop(0, [])]
    for n, line in enumerate(lines, start=1):
        out.append(f"{n:4d}  {line}")
        for d in by_line.pop(n, []):
            pad = " " * (5 + max(d.column, 1))
            out.append(f"{pad}^")
            out.append(f"   >>> {format_diagnostic(d)}")
    for n in sorted(by_line):  # lines past the end (should not happen)
        out += [f"   >>> {format_diagnostic(d)}" for d in by_line[n]]
    out.append(summary(diagnostics))
    return visible("\n".join(out) + "\n")  # control characters shown, never sent raw


def to_json(diagnostics: list[Diagnostic], *, source: str = "") -> str:
    """The verdict as JSON: ``{"source", "errors", "warnings", "diagnostics": [...]}``."""
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
    }, ensure_ascii=False, indent=2) + "\n"
