"""Docstrings name only what exists (issue #44, 8: "docstrings naming things
that do not exist").

Every Sphinx-style reference in a docstring of ``wdg/`` (``:func:`x```,
``:class:``, ``:meth:``, ``:attr:``, ``:mod:``, ``:data:``, ``:exc:``) must
resolve: an absolute path (``wdg.mail.send.Outgoing``, ``zoneinfo.ZoneInfo``)
by importing it, a short one (``Outgoing.build``, ``text.action_path``) from
the enclosing class, the module, the names the module imports (also inside
functions), its package's modules, or the builtins. A literal ``Class.name``
whose head is a class of ``wdg`` is checked the same way (``Outgoing.correction``
named a field that never existed).
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROLE = re.compile(r":(func|class|attr|meth|mod|data|exc|obj|const):`([^`]+)`")
LITERAL = re.compile(r"``([A-Z][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?:\(\))?``")
MISSING = object()


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _member(obj: Any, name: str) -> Any:
    """``obj.name``; for a class also a field it declares (a slot or a field
    without a class default) or an attribute its methods set on ``self``."""
    try:
        return getattr(obj, name)
    except AttributeError:
        pass
    if isinstance(obj, type):
        for c in obj.__mro__:
            if name in getattr(c, "__annotations__", {}):
                return None
            try:
                if re.search(rf"\bself\.{re.escape(name)}\s*(:[^=]*)?=", inspect.getsource(c)):
                    return None
            except (OSError, TypeError):
                continue
    return MISSING


def _walk(obj: Any, rest: list[str]) -> bool:
    for name in rest:
        if obj is None:  # a declared field: its value is not known here
            return True
        obj = _member(obj, name)
        if obj is MISSING:
            return False
    return True


def _imported(path: Path, tree: ast.AST, root: Path) -> dict[str, str]:
    """Local name -> what it stands for, from every import of the module."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for a in node.names:
                out.setdefault(a.asname or a.name, f"{base}.{a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                out.setdefault(a.asname or a.name.split(".")[0],
                               a.name if a.asname else a.name.split(".")[0])
    return out


def _absolute(target: str) -> bool | None:
    """Resolve ``target`` by importing its longest module prefix; None if no
    prefix is a module."""
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        try:
            mod = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        return _walk(mod, parts[i:])
    return None


def resolves(target: str, module: ModuleType, cls: type | None, imported: dict[str, str]) -> bool:
    target = "".join(target.split()).lstrip("~!.").removesuffix("()")
    parts = target.split(".")
    if not all(parts):
        return False
    head, rest = parts[0], parts[1:]
    scopes: list[Any] = ([cls] if cls is not None else []) + [module]
    for scope in scopes:
        got = _member(scope, head)
        if got is not MISSING:
            return _walk(got, rest)
    if head in imported:
        return resolves(".".join([imported[head], *rest]), module, None, {})
    package = module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]
    for base in (package, package.rpartition(".")[0]):
        if base and _absolute(f"{base}.{target}"):
            return True
    found = _absolute(target)
    if found is not None:
        return found
    return hasattr(builtins, head) and _walk(getattr(builtins, head), rest)


def _texts(node: ast.AST) -> list[tuple[int, str]]:
    """The docstring of ``node`` and those of the assignments in its body."""
    out = []
    body = getattr(node, "body", [])
    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        doc = ast.get_docstring(node, clean=False)
        if doc:
            out.append((body[0].lineno, doc))
    for a, b in zip(body, body[1:]):
        if isinstance(a, (ast.Assign, ast.AnnAssign)) and isinstance(b, ast.Expr) \
                and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str):
            out.append((b.lineno, b.value.value))
    return out


def unresolved(path: Path, root: Path = ROOT) -> list[str]:
    """``file:line reference`` for each reference in the module's docstrings
    that names nothing."""
    module = importlib.import_module(_module_name(path, root))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = _imported(path, tree, root)
    bad: list[str] = []
    rel = path.relative_to(root).as_posix()

    def visit(node: ast.AST, cls: type | None) -> None:
        for line, text in _texts(node):
            for m in ROLE.finditer(text):
                if not resolves(m.group(2), module, cls, imported):
                    bad.append(f"{rel}:{line} {m.group(0)}")
            for m in LITERAL.finditer(text):
                head = m.group(1).split(".")[0]
                obj = _member(cls, head) if cls is not None else MISSING
                obj = getattr(module, head, None) if obj is MISSING or obj is None else obj
                if isinstance(obj, type) and obj.__module__.startswith("wdg") \
                        and not resolves(m.group(1), module, cls, imported):
                    bad.append(f"{rel}:{line} {m.group(0)}")
        for child in getattr(node, "body", []):
            if isinstance(child, ast.ClassDef):
                inner = getattr(cls if cls is not None else module, child.name, None)
                visit(child, inner if isinstance(inner, type) else None)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, cls)

    visit(tree, None)
    return bad


MODULES = [p for p in sorted((ROOT / "wdg").rglob("*.py")) if p.name != "__main__.py"]


def test_every_reference_in_a_docstring_names_something_that_exists():
    bad = [b for p in MODULES for b in unresolved(p)]
    assert bad == [], "\n".join(bad)


@pytest.mark.parametrize("doc, ok", [
    (":attr:`Outgoing.build`", True),
    (":attr:`Outgoing.correction`", False),  # the stale one of wdg/mail/send.py
    ("``Outgoing.correction``", False),
    ("``settings.timezone`` and ``map.txt``", True),  # literals, not references
    (":func:`send_mails`", True),
    (":func:`wdg.mail.smtp.SmtpSession.send`", True),
    (":meth:`wdg.mail.smtp.SmtpSession.resend`", False),
    (":class:`zoneinfo.ZoneInfo`", True),
    (":mod:`wdg.store.sent`", True),
    (":mod:`wdg.store.ledger`", False),
    (":func:`smtp.held_signals`", True),  # a module of the same package
    (":data:`wdg.mail.send.NOTHING`", False),
])
def test_the_check_finds_a_reference_to_nothing(tmp_path, monkeypatch, doc, ok):
    """The check can fail: a module of ``wdg.mail`` (a probe beside
    wdg/mail/send.py, found through the package's path) whose docstring holds
    one reference."""
    import sys

    import wdg.mail

    folder = tmp_path / "wdg" / "mail"
    folder.mkdir(parents=True)
    probe = folder / "zz_docstring_probe.py"
    probe.write_text(f'"""A probe: {doc}."""\n\nfrom wdg.mail.send import Outgoing, send_mails\n',
                     encoding="utf-8")
    monkeypatch.setattr(wdg.mail, "__path__", [*wdg.mail.__path__, str(folder)])
    try:
        got = unresolved(probe, tmp_path)
    finally:
        sys.modules.pop("wdg.mail.zz_docstring_probe", None)
    assert (got == []) is ok, got
