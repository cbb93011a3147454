"""Docstrings name what exists (issue #44, "stale docstrings"): every Sphinx
reference (``:func:`x```, ``:class:``, ``:meth:``, ``:attr:``, ``:data:``,
``:mod:``, ``:exc:``) in a docstring of the engine, the store and the reports
resolves — to a module, or to a name of the module, of its class or of what
it imports — so that a renamed or removed function cannot stay named."""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("wdg/engine", "wdg/store", "wdg/reports")
ROLE = re.compile(r":(func|class|meth|data|attr|mod|exc|obj):`~?([A-Za-z_][\w.]*)`")


def _names(obj: Any) -> set[str]:
    """What ``obj.<name>`` may name: attributes, dataclass fields, annotations."""
    out = set(dir(obj)) | set(getattr(obj, "__dataclass_fields__", None) or {})
    for k in getattr(obj, "__mro__", ()):
        out |= set(getattr(k, "__annotations__", None) or {})
    return out


def resolves(module: ModuleType, ref: str, cls: Any = None) -> bool:
    """True if ``ref`` names something from ``module`` (inside class ``cls``)."""
    parts = ref.split(".")
    obj: Any = None
    for i in range(len(parts), 0, -1):  # the longest importable module prefix
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        rest = parts[i:]
        break
    else:
        if cls is not None and parts[0] in _names(cls):
            return True
        ns = vars(module)
        if parts[0] in ns:
            obj = ns[parts[0]]
        elif hasattr(builtins, parts[0]):
            obj = getattr(builtins, parts[0])
        else:
            return False
        rest = parts[1:]
    for part in rest:
        if part not in _names(obj):
            return False
        obj = getattr(obj, part, None)
        if obj is None:  # a field without a class-level value: named, not followed
            return True
    return True


def _docstrings(tree: ast.Module, module: ModuleType) -> list[tuple[int, str, Any]]:
    """(line, text, class or None) of every docstring, attribute docstrings included."""
    out: list[tuple[int, str, Any]] = []
    if (doc := ast.get_docstring(tree, clean=False)):
        out.append((1, doc, None))

    def visit(body: list[ast.stmt], cls: Any) -> None:
        for i, a in enumerate(body):
            b = body[i + 1] if i + 1 < len(body) else None
            if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = getattr(cls or module, a.name, None) if isinstance(a, ast.ClassDef) \
                    else cls
                if (doc := ast.get_docstring(a, clean=False)):
                    out.append((a.lineno, doc, inner))
                visit(a.body, inner)
            elif isinstance(a, (ast.Assign, ast.AnnAssign)) and isinstance(b, ast.Expr) \
                    and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str):
                out.append((b.lineno, b.value.value, cls))

    visit(tree.body, None)
    return out


def _modules() -> list[Path]:
    return sorted(p for d in PACKAGES for p in (ROOT / d).rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_docstring_reference_resolves(path: Path):
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    module = importlib.import_module(name)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    stale = [f"{path.relative_to(ROOT)}:{line}: :{m.group(1)}:`{m.group(2)}`"
             for line, doc, cls in _docstrings(tree, module)
             for m in ROLE.finditer(doc) if not resolves(module, m.group(2), cls)]
    assert not stale, "docstrings name what does not exist:\n" + "\n".join(stale)


def test_a_stale_reference_is_found():
    """The check itself: a renamed function, a removed attribute, a wrong module."""
    import wdg.engine.replay as replay

    assert resolves(replay, "replay_month") and resolves(replay, "wdg.store.files.PACK")
    assert resolves(replay, "Layer.name", None) and resolves(replay, "detail", replay.Layer)
    assert not resolves(replay, "_previous_of")
    assert not resolves(replay, "Layer.correction")
    assert not resolves(replay, "wdg.store.files.NO_SUCH_NAME")
