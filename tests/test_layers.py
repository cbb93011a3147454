"""The package's layering (issue #40, "One store"; docs/architecture.md),
measured from the imports with ``ast`` (wdg.bench.layers):

- the store (``wdg/store/``) imports nothing above it: only the base modules
  and the plain data of ``wdg.world``;
- no circle of modules that lie in different folders;
- at most 3 arrows between folders that run upward, whatever order of the
  folders is chosen (the fewest possible);
- no module of the store over 800 lines (the package's others are listed).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from wdg.bench import layers

ROOT = Path(__file__).resolve().parents[1]
S = layers.measure(ROOT)


def test_the_store_imports_nothing_above_it():
    assert S.store_imports() == {}, S.store_imports()
    assert any(m.startswith("wdg/store/") for m in S.modules)


def test_no_circle_between_files_of_different_folders():
    assert S.circles == [], S.circles


def test_at_most_three_imports_run_upward():
    assert len(S.upward) <= 3, S.upward


def test_no_module_of_the_store_over_800_lines():
    big = [(m, n) for m, n in S.modules.items() if m.startswith("wdg/store/") and n > 800]
    assert big == []


def test_the_largest_modules_are_reported():
    out = layers.text(S)
    assert "largest modules:" in out and "over 800 lines:" in out
    assert out.count("\n") >= 6


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return tmp_path


def test_the_measure_sees_a_store_importing_upward_and_a_circle(tmp_path):
    """The checks can fail: a store module importing the engine inside a
    function, and two modules of different folders importing each other."""
    root = _tree(tmp_path, {
        "wdg/__init__.py": "",
        "wdg/errors.py": "",
        "wdg/store/__init__.py": "",
        "wdg/store/files.py": "from wdg.errors import x\ndef f():\n    from wdg.engine import turn\n",
        "wdg/engine/__init__.py": "",
        "wdg/engine/turn.py": "from wdg.store.files import f\nfrom ..reports import build\n",
        "wdg/reports/__init__.py": "",
        "wdg/reports/build.py": "import wdg.engine.turn\n",
    })
    s = layers.measure(root)
    assert s.store_imports() == {"wdg/store/files.py": {"wdg/engine/turn.py"}}
    assert s.circles == [["wdg/engine/turn.py", "wdg/reports/build.py", "wdg/store/files.py"]]
    assert len(s.upward) == 2  # store<->engine and engine<->reports: one of each pair runs up
    assert "graph TD" in layers.mermaid(s) and "linkStyle" in layers.mermaid(s)
