"""The rules coverage table (docs/rules-coverage.md) names the tests that prove each
rule; every test it names must exist, so that the table cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PREFIXES = {"E": "tests/engine", "R": "tests/rules", "O": "tests/orders", "W": "tests/world",
            "G": "tests/gm"}
"""The abbreviations the table's header defines (``E/`` = ``tests/engine/`` ...)."""
REF = re.compile(r"(?:\b([EROWG])/(test_\w+\.py))?::(test_\w+)|\b([EROWG])/(test_\w+\.py)")


def references(text: str) -> list[tuple[int, str, str | None]]:
    """(row line, file, test name or None) for every reference in the Tests column;
    ``::name`` without a file continues the file named before it in the same cell."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|") or line.count("|") < 6:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        tests = cells[3] if len(cells) >= 5 else ""
        current = None
        for m in REF.finditer(tests):
            if m.group(3):
                if m.group(1):
                    current = f"{PREFIXES[m.group(1)]}/{m.group(2)}"
                out.append((n, current or "?", m.group(3)))
            else:
                current = f"{PREFIXES[m.group(4)]}/{m.group(5)}"
                out.append((n, current, None))
    return out


def test_every_test_the_rules_coverage_table_names_exists():
    """docs/rules-coverage.md: each ``X/test_file.py::test_name`` (and ``::test_name``
    continuing it) is a test function in that file; a file named alone exists."""
    text = (ROOT / "docs" / "rules-coverage.md").read_text(encoding="utf-8")
    refs = references(text)
    assert len(refs) > 300  # the table is parsed, not skipped
    missing = []
    for line, file, name in refs:
        path = ROOT / file
        if not path.is_file():
            missing.append(f"line {line}: {file} does not exist")
        elif name is not None and not re.search(rf"^def {name}\(", path.read_text("utf-8"),
                                                re.MULTILINE):
            missing.append(f"line {line}: {file}::{name} does not exist")
    assert missing == []
