"""What switches the code checks off stays visible and explained (issue #44,
"0 mypy errors with the project's configuration, and no configuration that
switches checks off for whole modules"; docs/testing.md, "Lint and types"):

- every ``# type: ignore`` in ``wdg/`` names its error codes and says why
  after them on the same line (``# type: ignore[attr-defined]  # <reason>``),
  and none stands before a module's first statement (that would silence the
  whole module); no ``# mypy:`` comment changes the configuration of a module;
- mypy's configuration (``[tool.mypy]`` of pyproject.toml, the one place)
  switches nothing off: no ``ignore_errors``, no ``disable_error_code``, no
  global ``ignore_missing_imports`` or skipped imports; an override only lets
  a listed module outside ``wdg`` be imported untyped; unused ignores and
  ignores without a code are errors;
- every ``# noqa`` in ``wdg/`` names its codes, each of a rule ``ruff check``
  runs (ruff enforces the same with PGH004 and RUF100, which must stay on);
  a blind ``except`` let through (``# noqa: BLE001``) says why.

The checkers are plain functions of a source tree, so the tests below also
show each of them catching what it is for.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_TYPE_IGNORE = re.compile(r"type:\s*ignore")
_EXPLAINED = re.compile(r"#\s*type:\s*ignore\[[a-z][a-z0-9-]*(?:,\s*[a-z][a-z0-9-]*)*\]\s+#\s*(?P<why>.*)$")
_MYPY_INLINE = re.compile(r"#\s*mypy:")
_NOQA = re.compile(r"noqa", re.IGNORECASE)
_NOQA_CODES = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")

# keys of [tool.mypy] (or of an override) that switch checks off
_OFF = {"ignore_errors", "disable_error_code", "ignore_missing_imports", "follow_imports",
        "follow_imports_for_stubs", "exclude", "allow_untyped_globals"}


def _comments(path: Path) -> list[tuple[int, str]]:
    """The comments of a Python file with their line numbers."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return [(t.start[0], t.string) for t in tokens if t.type == tokenize.COMMENT]


def _sources(root: Path) -> list[Path]:
    return sorted((root / "wdg").rglob("*.py"))


def type_ignore_problems(root: Path) -> list[str]:
    """Each ``# type: ignore`` of ``root/wdg`` without codes or without a
    reason after them, each one before a module's first statement, each
    ``# mypy:`` comment."""
    out = []
    for path in _sources(root):
        rel = path.relative_to(root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        first = tree.body[0].lineno if tree.body else 10**9
        for line, text in _comments(path):
            if _MYPY_INLINE.search(text):
                out.append(f"{rel}:{line}: a module's own mypy configuration: {text}")
            found = _TYPE_IGNORE.search(text)
            if not found:
                continue
            part = text[text.rfind("#", 0, found.start()):]
            m = _EXPLAINED.match(part)
            why = m.group("why").strip() if m else ""
            if not m or not re.search(r"[A-Za-z]{2}", why) or why.lower().startswith("noqa"):
                out.append(f"{rel}:{line}: expected '# type: ignore[code]  # reason', found {text!r}")
            elif line < first:
                out.append(f"{rel}:{line}: before the module's first statement (silences it whole)")
    return out


def _modules(override: dict) -> list[str]:
    mods = override.get("module", [])
    return [mods] if isinstance(mods, str) else list(mods)


def mypy_config_problems(root: Path) -> list[str]:
    """Whatever in the mypy configuration of ``root`` switches checks off."""
    out = [f"{name}: mypy reads it before pyproject.toml" for name in ("mypy.ini", ".mypy.ini")
           if (root / name).exists()]
    cfg = root / "setup.cfg"
    if cfg.exists() and re.search(r"^\[mypy", cfg.read_text(encoding="utf-8"), re.M):
        out.append("setup.cfg: a [mypy] section")
    mypy = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    if mypy.get("files") != ["wdg"]:
        out.append(f"files = {mypy.get('files')!r}, expected ['wdg']")
    out += [f"[tool.mypy] {key} = {mypy[key]!r}" for key in sorted(_OFF & mypy.keys())]
    if mypy.get("warn_unused_ignores") is not True:
        out.append("warn_unused_ignores is not true")
    if "ignore-without-code" not in mypy.get("enable_error_code", []):
        out.append("enable_error_code lacks 'ignore-without-code'")
    for o in mypy.get("overrides", []):
        mods = _modules(o)
        for key in sorted(set(o) - {"module"}):
            if key != "ignore_missing_imports" or o[key] is not True:
                out.append(f"override {mods}: {key} = {o[key]!r}")
        out += [f"override of the package's own module {m}" for m in mods
                if m == "wdg" or m.startswith(("wdg.", "wdg*"))]
    return out


def _ruff_runs(root: Path) -> tuple[list[str], list[str]]:
    lint = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    return lint.get("select", []) + lint.get("extend-select", []), lint.get("ignore", [])


def noqa_problems(root: Path) -> list[str]:
    """Each ``# noqa`` of ``root/wdg`` without codes or with a code of a rule
    ruff does not run (by ``select``/``ignore`` of ``[tool.ruff.lint]``), and
    each blind ``except`` let through without saying why."""
    selected, ignored = _ruff_runs(root)
    out = [f"ruff does not run {rule}" for rule in ("PGH004", "RUF100") if rule not in selected]
    for path in _sources(root):
        rel = path.relative_to(root)
        for line, text in _comments(path):
            if not _NOQA.search(text):
                continue
            m = _NOQA_CODES.search(text)
            if m is None:
                out.append(f"{rel}:{line}: a noqa without codes: {text!r}")
                continue
            codes = re.split(r"\s*,\s*", m.group("codes"))
            for code in codes:
                if not any(code.startswith(s) for s in selected) or \
                        any(code.startswith(i) for i in ignored):
                    out.append(f"{rel}:{line}: {code} is not a rule ruff runs here")
            if any(c.startswith("BLE") for c in codes) and \
                    not re.search(r"[A-Za-z]{2}", text[m.end():]):
                out.append(f"{rel}:{line}: a catch-all without its reason: {text!r}")
    return out


def test_every_type_ignore_names_its_codes_and_says_why():
    assert type_ignore_problems(ROOT) == []


def test_the_mypy_configuration_switches_nothing_off():
    assert mypy_config_problems(ROOT) == []


def test_every_noqa_names_rules_ruff_runs():
    assert noqa_problems(ROOT) == []


# --- the checkers catch what they are for ----------------------------------------

def _tree(tmp_path: Path, source: str, pyproject: str | None = None) -> Path:
    (tmp_path / "wdg").mkdir()
    (tmp_path / "wdg" / "m.py").write_text(source, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        pyproject if pyproject is not None else (ROOT / "pyproject.toml").read_text(encoding="utf-8"),
        encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("line", [
    "x = f()  # type: ignore",
    "x = f()  # type: ignore[attr-defined]",
    "x = f()  # type: ignore[attr-defined]  #",
    "x = f()  # type: ignore[attr-defined]  # noqa: F401",
    "x = f()  # type:ignore[union-attr]",
    "x = f()  # noqa: F401  # type: ignore[union-attr]",
])
def test_an_ignore_without_code_or_reason_is_found(tmp_path, line):
    root = _tree(tmp_path, f'"""Doc."""\n\n{line}\n')
    assert [p.split(": ", 1)[0] for p in type_ignore_problems(root)] == ["wdg/m.py:3"]


def test_an_explained_ignore_passes_and_one_above_the_code_is_found(tmp_path):
    ok = "x = f()  # type: ignore[attr-defined, misc]  # imaplib's own limit, not in typeshed\n"
    assert type_ignore_problems(_tree(tmp_path, '"""Doc."""\n' + ok)) == []
    (tmp_path / "wdg" / "m.py").write_text("# type: ignore[misc]  # all of it\n\nx = 1\n",
                                           encoding="utf-8")
    assert len(type_ignore_problems(tmp_path)) == 1
    (tmp_path / "wdg" / "m.py").write_text("# mypy: ignore-errors\nx = 1\n", encoding="utf-8")
    assert len(type_ignore_problems(tmp_path)) == 1
    # text in a string is not a comment
    (tmp_path / "wdg" / "m.py").write_text('"""Write # type: ignore[x] on the line."""\n',
                                           encoding="utf-8")
    assert type_ignore_problems(tmp_path) == []


_BASE = """
[tool.ruff.lint]
select = ["F", "B", "BLE", "PGH004", "RUF100"]
ignore = ["B905"]

[tool.mypy]
files = ["wdg"]
warn_unused_ignores = true
enable_error_code = ["ignore-without-code"]

[[tool.mypy.overrides]]
module = ["weasyprint", "weasyprint.*"]
ignore_missing_imports = true
"""


@pytest.mark.parametrize("extra, named", [
    ('\n[[tool.mypy.overrides]]\nmodule = ["wdg.engine.*"]\nignore_errors = true\n', "ignore_errors"),
    ('\n[[tool.mypy.overrides]]\nmodule = "wdg.mail.imap"\ndisable_error_code = ["attr-defined"]\n',
     "disable_error_code"),
    ('\n[[tool.mypy.overrides]]\nmodule = ["wdg.cli"]\nignore_missing_imports = true\n', "wdg.cli"),
    ('\n[[tool.mypy.overrides]]\nmodule = ["pydyf"]\nfollow_imports = "skip"\n', "follow_imports"),
])
def test_an_override_that_switches_checks_off_is_found(tmp_path, extra, named):
    assert mypy_config_problems(_tree(tmp_path, "x = 1\n", _BASE)) == []
    (tmp_path / "pyproject.toml").write_text(_BASE + extra, encoding="utf-8")
    found = mypy_config_problems(tmp_path)
    assert any(named in p for p in found), found


@pytest.mark.parametrize("key, value", [
    ("ignore_errors", "true"), ("disable_error_code", '["union-attr"]'),
    ("ignore_missing_imports", "true"), ("warn_unused_ignores", "false"),
    ("enable_error_code", "[]"), ("files", '["wdg/world"]'),
])
def test_a_global_setting_that_switches_checks_off_is_found(tmp_path, key, value):
    lines = [ln for ln in _BASE.splitlines() if not ln.startswith(f"{key} =")]
    at = lines.index("[tool.mypy]") + 1
    lines.insert(at, f"{key} = {value}")
    assert len(mypy_config_problems(_tree(tmp_path, "x = 1\n", "\n".join(lines) + "\n"))) == 1


@pytest.mark.parametrize("line, found", [
    ("import os  # noqa: F401 - re-exported", 0),
    ("try:\n    f()\nexcept Exception:  # noqa: BLE001 - never fail on hostile input\n    pass", 0),
    ("try:\n    f()\nexcept Exception:  # noqa: BLE001\n    pass", 1),
    ("import os  # noqa", 1),
    ("import os  # noqa: E402", 1),
    ("def f(x):  # noqa: ANN001, ANN202 - imaplib's hook\n    pass", 2),
    ("z = zip(a, b)  # noqa: B905", 1),
])
def test_a_noqa_of_a_rule_ruff_does_not_run_is_found(tmp_path, line, found):
    assert len(noqa_problems(_tree(tmp_path, line + "\n", _BASE))) == found


def test_ruff_must_keep_checking_the_noqa_comments(tmp_path):
    root = _tree(tmp_path, "x = 1\n", _BASE.replace(', "PGH004", "RUF100"', ""))
    assert noqa_problems(root) == ["ruff does not run PGH004", "ruff does not run RUF100"]
