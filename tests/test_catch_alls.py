"""The catch-alls of ``wdg/`` are the ones docs/testing.md lists ("Catch-alls
that stay", issue #44): an ``except Exception`` kept on purpose carries
``# noqa: BLE001 - <reason>`` (ruff's blind-except rule fails the others that
do not re-raise; tests/test_checks.py wants the reason), and the table names
every module that has one — and no module that has none any more. An
``except BaseException:`` only cleans up and raises again."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def kept(root: Path = ROOT) -> dict[str, list[int]]:
    """Module (relative to ``wdg/``) -> lines of its ``# noqa: BLE001``."""
    out: dict[str, list[int]] = {}
    for p in sorted((root / "wdg").rglob("*.py")):
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if "noqa: BLE001" in line:
                out.setdefault(p.relative_to(root / "wdg").as_posix(), []).append(n)
    return out


def listed(doc: str) -> set[str]:
    """The modules the table of "Catch-alls that stay" names."""
    section = doc.split("### Catch-alls that stay", 1)[1]
    section = re.split(r"\n#{2,3} ", section, maxsplit=1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {m for row in rows for m in re.findall(r"`([a-z_/]+\.py)`", row.split("|")[1])}


def test_the_table_names_every_module_with_a_catch_all():
    doc = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    assert listed(doc) == set(kept()), (sorted(set(kept()) - listed(doc)),
                                        sorted(listed(doc) - set(kept())))


def swallowing(root: Path = ROOT) -> list[str]:
    """``file:line`` of each ``except BaseException:`` whose body does not end
    by raising again (it would swallow Ctrl-C and SIGTERM)."""
    bad = []
    for p in sorted((root / "wdg").rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ExceptHandler) and isinstance(node.type, ast.Name) \
                    and node.type.id == "BaseException":
                last = node.body[-1]
                if not (isinstance(last, ast.Raise) and last.exc is None):
                    bad.append(f"{p.relative_to(root).as_posix()}:{node.lineno}")
    return bad


def test_every_except_base_exception_cleans_up_and_re_raises():
    assert swallowing() == []


def test_the_checks_see_a_missing_row_and_a_swallowing_handler(tmp_path):
    """The table check and the re-raise check can fail."""
    (tmp_path / "wdg" / "mail").mkdir(parents=True)
    (tmp_path / "wdg" / "mail" / "x.py").write_text(
        "try:\n    pass\nexcept Exception:  # noqa: BLE001 - hostile mail, errors undocumented\n"
        "    pass\ntry:\n    pass\nexcept BaseException:\n    raise\n"
        "try:\n    pass\nexcept BaseException:\n    print('bye')\n", encoding="utf-8")
    assert kept(tmp_path) == {"mail/x.py": [3]}
    assert swallowing(tmp_path) == ["wdg/mail/x.py:11"]
    doc = ("### Catch-alls that stay\n\n| where | why |\n|---|---|\n"
           "| `mail/y.py` `f`; `orders/z.py` (2) | hostile |\n\n## Next\n| `mail/x.py` | no |\n")
    assert listed(doc) == {"mail/y.py", "orders/z.py"}
