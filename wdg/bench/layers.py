"""The package's structure, measured from its imports: ``python -m wdg.bench.layers``.

Reads every module of ``wdg/`` with :mod:`ast` (imports at the top and
inside functions alike; ``import_module`` calls are not followed) and
reports what ``docs/architecture.md`` shows and ``tests/test_layers.py``
enforces:

- **rooms**: the package's folders (``wdg/engine/``) and top-level modules
  (``wdg/errors.py``); an **arrow** is a room importing from another (one
  per pair, however many imports);
- **floors**: the rooms ordered bottom-up so that as few arrows as possible
  run upward (an exact minimum per knot of mutually dependent rooms, by
  dynamic programming over subsets; a greedy order for knots over 18 rooms);
  the arrows that still run upward are listed;
- **circles between folders**: groups of modules that import each other in a
  circle and lie in more than one room;
- **largest modules** (lines);
- **the store's imports**: every room ``wdg/store/`` imports from;
- **private names across modules**: a module importing (or reaching through
  an imported module for) a ``_private`` name of another module; an alias
  ``import x as _y`` is no such import. Also the private attributes reached
  through something imported (``sent.Ledger._append_held``,
  ``LordsState._legal``, ``os._exit``) and ``obj._x`` on anything but
  ``self``/``cls`` in a module that defines no ``_x`` itself (as a function,
  class, variable or ``self._x``) — another module's object. The uses of a
  library's private name that stay are :data:`FOREIGN_PRIVATE`, each with its
  reason; namedtuple's ``_replace``/``_asdict``/``_fields``/``_make`` and
  Enum's ``_sunder_`` names are public API. Not seen: ``obj._x`` of another
  module's object in a module that has an ``_x`` of its own;
- **the CLI layer imported from below**: an import of ``wdg.commands`` (also
  through ``importlib.import_module``) outside :data:`CLI_LAYER`.

``--mermaid`` prints the room graph as a Mermaid diagram (upward arrows in
red), ``--json`` the numbers. ``--root DIR`` measures another checkout.
``--inside`` counts the imports of ``wdg`` modules made inside function
bodies, per folder and per file (:func:`inside_imports`).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

STORE = "wdg/store/"
STORE_MAY_IMPORT = ("wdg/store/", "wdg/world/", "wdg/errors.py", "wdg/fsio.py",
                    "wdg/yamlfast.py", "wdg/provenance.py", "wdg/procs.py", "wdg/campaign.py",
                    "wdg/rules/", "wdg/textpolicy.py", "wdg/__init__.py")
"""What the store may import: itself, the plain data of ``wdg.world``, the base
modules (docs/architecture.md, "The store")."""
CLI_LAYER = ("wdg/commands/", "wdg/cli.py")
"""The command line: the only modules that may import ``wdg.commands``
(``wdg/__main__.py`` goes through ``wdg.cli``; ``wdg.helptext`` and
``wdg.usage`` serve the commands without importing them)."""
EXACT_LIMIT = 18
FOREIGN_PRIVATE: dict[str, str] = {
    "wdg/cli.py os._exit": "the documented way to end at once, without cleanup, "
                           "after the answer was written (Python's os docs)",
    "wdg/procs.py os._exit": "a forked child ends without running the parent's "
                             "cleanup (Python's os docs)",
    "wdg/mail/imap.py imaplib._MAXLINE": "imaplib's own line limit, kept for the "
                                         "reader that replaces its buffered file",
    "wdg/mail/imap.py conn._new_tag": "imaplib has no IDLE before Python 3.14: the "
                                      "command is tagged from its own counter",
    "wdg/orders/mailbox.py box._lookup": "mailbox.Maildir gives a mail's file name "
                                         "(its delivery time) only through it",
    "wdg/reports/sheet.py page._page_box": "WeasyPrint's laid-out boxes, the only way "
                                           "to measure how full a page is",
}
"""A library's private names that ``wdg`` uses (``path expression`` -> why);
:func:`measure` lists the ones it found in :attr:`Structure.private_allowed`."""
PUBLIC_UNDERSCORED = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})
"""namedtuple's methods: public, with an underscore against clashes with field names."""


@dataclass
class Structure:
    """The measured structure of one checkout."""

    modules: dict[str, int] = field(default_factory=dict)
    """module path (``wdg/engine/turn.py``) -> lines"""
    imports: dict[str, set[str]] = field(default_factory=dict)
    """module path -> module paths it imports (within ``wdg``)"""
    arrows: dict[str, set[str]] = field(default_factory=dict)
    """room -> rooms it imports"""
    floors: list[str] = field(default_factory=list)
    """rooms bottom-up"""
    upward: list[tuple[str, str]] = field(default_factory=list)
    """arrows from a lower room to a higher one"""
    circles: list[list[str]] = field(default_factory=list)
    """circles of modules that span more than one room"""
    private_imports: list[str] = field(default_factory=list)
    """``wdg/office/mbw.py:200 wdg.engine.history._month_dirs``: a ``_private``
    name of one module used by another"""
    cli_imports: list[str] = field(default_factory=list)
    """``wdg/mail/run.py:100 wdg.commands.turn``: the CLI layer imported from outside it"""
    private_allowed: list[str] = field(default_factory=list)
    """the :data:`FOREIGN_PRIVATE` entries found (``path expression``)"""

    def largest(self, n: int = 8, under: str = "wdg/") -> list[tuple[str, int]]:
        return sorted(((m, k) for m, k in self.modules.items() if m.startswith(under)),
                      key=lambda x: (-x[1], x[0]))[:n]

    def store_imports(self) -> dict[str, set[str]]:
        """Module of the store -> the modules above it that it imports."""
        out: dict[str, set[str]] = {}
        for m, targets in self.imports.items():
            if m.startswith(STORE):
                bad = {t for t in targets if not t.startswith(STORE_MAY_IMPORT)}
                if bad:
                    out[m] = bad
        return out

    def numbers(self) -> dict[str, object]:
        return {"modules": len(self.modules), "lines": sum(self.modules.values()),
                "rooms": len(self.floors), "arrows": sum(len(v) for v in self.arrows.values()),
                "upward": len(self.upward), "upward_arrows": [list(a) for a in self.upward],
                "circles_between_folders": len(self.circles),
                "largest": [list(x) for x in self.largest(5)],
                "over_800_lines": self.over_800_lines(),
                "private_imports": self.private_imports, "cli_imports": self.cli_imports}

    def over_800_lines(self) -> list[str]:
        """The modules of more than 800 lines, largest first."""
        return [m for m, k in self.largest(1000) if k > 800]


def room_of(path: str) -> str:
    """``wdg/engine/turn.py`` -> ``wdg/engine/``; ``wdg/errors.py`` -> itself."""
    parts = path.split("/")
    return "/".join(parts[:2]) + "/" if len(parts) > 2 else path


def _module_paths(root: Path) -> dict[str, Path]:
    out = {}
    for p in sorted((root / "wdg").rglob("*.py")):
        rel = p.relative_to(root).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def module_names(root: Path) -> list[str]:
    """The dotted names of every module of ``wdg`` in the checkout at ``root``."""
    return sorted(_module_paths(root))


def _imported(tree: ast.AST, name: str, is_pkg: bool) -> list[tuple[str, str | None]]:
    package = name if is_pkg else name.rpartition(".")[0]
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found += [(mod, a.name) for a in node.names]
    return found


def inside_imports(root: Path) -> dict[str, int]:
    """Module path -> how many of its imports of ``wdg`` modules are made inside
    a function body (one per imported module of an ``import`` or ``from``
    statement; ``import_module`` calls are not counted). Modules without any
    are left out."""
    out: dict[str, int] = {}
    for m, p in _module_paths(root).items():
        tree = ast.parse(p.read_text(encoding="utf-8"))
        n = 0
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for stmt in fn.body:  # nested functions are walked on their own
                n += _wdg_imports_in(stmt, m, p.name == "__init__.py")
        if n:
            out[p.relative_to(root).as_posix()] = n
    return out


def _wdg_imports_in(node: ast.AST, name: str, is_pkg: bool) -> int:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return 0
    n = 0
    if isinstance(node, ast.Import):
        n += sum(1 for a in node.names if a.name == "wdg" or a.name.startswith("wdg."))
    elif isinstance(node, ast.ImportFrom):
        n += 1 if node.level or (node.module or "").split(".")[0] == "wdg" else 0
    for child in ast.iter_child_nodes(node):
        n += _wdg_imports_in(child, name, is_pkg)
    return n


def unexplained_inside_imports(root: Path, under: tuple[str, ...]) -> list[str]:
    """``path:line`` of each import of a ``wdg`` module inside a function, in
    the modules whose path starts with one of ``under``, that does not say why
    it is there: neither a comment on its line nor a comment line right above
    it (above the run of import lines it belongs to)."""
    out = []
    for p in _module_paths(root).values():
        rel = p.relative_to(root).as_posix()
        if not rel.startswith(under):
            continue
        text = p.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, (ast.Import, ast.ImportFrom)) \
                        or not _wdg_imports_in(node, "", False):
                    continue
                if "#" in lines[(node.end_lineno or node.lineno) - 1]:
                    continue
                above = node.lineno - 2
                while above >= 0 and lines[above].lstrip().startswith(("from ", "import ")):
                    above -= 1
                if above < 0 or not lines[above].lstrip().startswith("#"):
                    out.append(f"{rel}:{node.lineno}")
    return sorted(set(out))


def inside_text(counts: dict[str, int]) -> str:
    """The in-function imports as ``--inside`` prints them: the total, then per
    folder, then per file (most first)."""
    rooms: dict[str, int] = {}
    for m, k in counts.items():
        rooms[room_of(m)] = rooms.get(room_of(m), 0) + k
    out = [f"imports of wdg modules inside functions: {sum(counts.values())}"]
    out += [f"  {r} {k}" for r, k in sorted(rooms.items(), key=lambda x: (-x[1], x[0]))]
    out.append("per file:")
    out += [f"  {m} {k}" for m, k in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]
    return "\n".join(out) + "\n"
def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _public_underscored(name: str) -> bool:
    """namedtuple's API, or an Enum ``_sunder_`` name (``_value_``, ``_missing_``)."""
    return name in PUBLIC_UNDERSCORED or (len(name) > 2 and name.endswith("_")
                                          and not name.endswith("__"))


def _own_privates(tree: ast.AST) -> set[str]:
    """The private names a module defines: functions, classes, variables,
    parameters, import aliases, and attributes set on ``self``/``cls`` or on
    its own functions and classes (``wrapper._marker = True``)."""
    defs = {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    out: set[str] = set(defs)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.alias) and node.asname:
            out.add(node.asname)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in defs | {"self", "cls"}:
            out.add(node.attr)
    return {n for n in out if _private(n)}


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else ``None``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _crossings(tree: ast.AST, name: str, is_pkg: bool,
               paths: dict[str, Path]) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(private names of other modules, imports of ``wdg.commands``) that the
    module ``name`` uses: each as (line, what)."""
    package = name if is_pkg else name.rpartition(".")[0]
    private: list[tuple[int, str]] = []
    cli: list[tuple[int, str]] = []
    bound: dict[str, str] = {}  # local name -> the wdg module it stands for
    names: dict[str, str] = {}  # local name -> the wdg module's name it stands for
    foreign: dict[str, str] = {}  # local name -> a library's module it stands for

    def other(mod: str) -> bool:
        """A private module outside the package that owns it."""
        parts = mod.split(".")
        for i, x in enumerate(parts):
            parent = ".".join(parts[:i])
            if _private(x) and package != parent and not package.startswith(parent + "."):
                return True
        return False

    def is_cli(mod: str) -> bool:
        return mod == "wdg.commands" or mod.startswith("wdg.commands.")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if not a.name.startswith("wdg"):
                    foreign[a.asname or a.name.split(".")[0]] = a.name
                    continue
                if is_cli(a.name):
                    cli.append((node.lineno, a.name))
                parts = a.name.split(".")
                if any(_private(x) for x in parts) and other(a.name):
                    private.append((node.lineno, a.name))
                if a.asname:
                    bound[a.asname] = a.name
                else:
                    bound.setdefault(parts[0], parts[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not (mod == "wdg" or mod.startswith("wdg.")):
                for a in node.names:
                    foreign[a.asname or a.name] = f"{mod}.{a.name}"
                continue
            if other(mod):
                private.append((node.lineno, mod))
            for a in node.names:
                full = f"{mod}.{a.name}"
                if is_cli(mod) or is_cli(full):
                    cli.append((node.lineno, mod if is_cli(mod) else full))
                if full in paths:  # a module
                    if _private(a.name) and other(full):
                        private.append((node.lineno, full))
                    bound[a.asname or a.name] = full
                else:
                    if _private(a.name) and mod != name:
                        private.append((node.lineno, full))
                    if mod != name:
                        names[a.asname or a.name] = full
        elif isinstance(node, ast.Call) and node.args:
            func = _dotted(node.func) or ""
            arg = node.args[0]
            lead = arg.value if isinstance(arg, ast.Constant) else (
                arg.values[0].value if isinstance(arg, ast.JoinedStr) and arg.values
                and isinstance(arg.values[0], ast.Constant) else None)
            if func.endswith("import_module") and isinstance(lead, str) and is_cli(lead.rstrip(".")):
                cli.append((node.lineno, lead.rstrip(".")))
    own = _own_privates(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)) \
                or _public_underscored(node.attr):
            continue
        d = _dotted(node.value)
        head, _, rest = (d or "").partition(".")
        if head in bound:  # an imported module, or a name in it
            full = ".".join(x for x in (bound[head], rest) if x)
            mod = full
            while mod not in paths and "." in mod:
                mod = mod.rpartition(".")[0]
            if mod in paths and mod != name:
                private.append((node.lineno, f"{full}.{node.attr}"))
        elif head in names:  # a class or function imported from another module
            private.append((node.lineno, ".".join(x for x in (names[head], rest, node.attr) if x)))
        elif head in foreign or (head not in ("self", "cls") and node.attr not in own):
            # a library's private name, or another module's object's
            private.append((node.lineno, ast.unparse(node)))
    return private, cli


def measure(root: Path) -> Structure:
    """Measure the checkout at ``root``."""
    paths = _module_paths(root)
    rel = {m: p.relative_to(root).as_posix() for m, p in paths.items()}
    s = Structure()
    for m, p in paths.items():
        text = p.read_text(encoding="utf-8")
        s.modules[rel[m]] = len(text.splitlines())
        targets = set()
        tree = ast.parse(text)
        private, cli = _crossings(tree, m, p.name == "__init__.py", paths)
        for line, what in sorted(set(private)):
            if f"{rel[m]} {what}" in FOREIGN_PRIVATE:
                s.private_allowed.append(f"{rel[m]} {what}")
            else:
                s.private_imports.append(f"{rel[m]}:{line} {what}")
        if not rel[m].startswith(CLI_LAYER):
            s.cli_imports += [f"{rel[m]}:{line} {what}" for line, what in sorted(set(cli))]
        for mod, name in _imported(tree, m, p.name == "__init__.py"):
            if not (mod == "wdg" or mod.startswith("wdg.")):
                continue
            full = f"{mod}.{name}" if name and f"{mod}.{name}" in paths else mod
            while full not in paths and "." in full:
                full = full.rpartition(".")[0]
            if full != m and full in paths:
                targets.add(rel[full])
        s.imports[rel[m]] = targets
    face = "wdg/__init__.py"
    for m, targets in s.imports.items():
        a = room_of(m)
        for t in targets:
            b = room_of(t)
            if a != b and t != face:
                s.arrows.setdefault(a, set()).add(b)
    rooms = sorted({room_of(m) for m in s.modules})
    s.floors, s.upward = _floors(rooms, s.arrows)
    s.circles = [c for c in _sccs(sorted(s.imports), s.imports) if len({room_of(m) for m in c}) > 1]
    return s


def _sccs(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative), each sorted; only those of 2+."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return sorted(out)


def _order_knot(knot: list[str], arrows: dict[str, set[str]]) -> list[str]:
    """The rooms of one knot bottom-up with the fewest upward arrows."""
    n = len(knot)
    if n > EXACT_LIMIT:  # greedy: put lowest the room that imports fewest of the rest
        rest, order = set(knot), []
        while rest:
            v = min(sorted(rest), key=lambda r: (len(arrows.get(r, set()) & rest), r))
            order.append(v)
            rest.discard(v)
        return order
    ix = {r: i for i, r in enumerate(knot)}
    imports = [sum(1 << ix[t] for t in arrows.get(r, ()) if t in ix) for r in knot]
    inf = n * n + 1
    best = [inf] * (1 << n)
    choice = [-1] * (1 << n)
    best[0] = 0
    for placed in range(1 << n):
        if best[placed] == inf:
            continue
        for i in range(n):
            if placed >> i & 1:
                continue
            # rooms placed already lie lower; each of them importing room i runs upward
            cost = sum(1 for j in range(n) if placed >> j & 1 and imports[j] >> i & 1)
            nxt = placed | 1 << i
            if best[placed] + cost < best[nxt]:
                best[nxt], choice[nxt] = best[placed] + cost, i
    order, placed = [], (1 << n) - 1
    while placed:
        i = choice[placed]
        order.append(knot[i])
        placed &= ~(1 << i)
    return order[::-1]


def _floors(rooms: list[str], arrows: dict[str, set[str]]) -> tuple[list[str], list[tuple[str, str]]]:
    knots = {r: [r] for r in rooms}
    for comp in _sccs(rooms, arrows):
        for r in comp:
            knots[r] = comp
    # knots in dependency order (what a knot imports comes first), then each ordered inside
    done: set[str] = set()
    order: list[str] = []

    def visit(r: str, trail: frozenset[str]) -> None:
        knot = knots[r]
        if knot[0] in done:
            return
        inside = set(knot)
        for m in knot:
            for t in sorted(arrows.get(m, ())):
                if t not in inside and knots[t][0] not in done and t not in trail:
                    visit(t, trail | inside)
        done.add(knot[0])
        order.extend(_order_knot(knot, arrows) if len(knot) > 1 else knot)

    for r in rooms:
        visit(r, frozenset())
    pos = {r: i for i, r in enumerate(order)}
    upward = sorted((a, b) for a, bs in arrows.items() for b in bs if pos[b] > pos[a])
    return order, upward


def reduced(s: Structure) -> list[tuple[str, str]]:
    """The arrows to draw: every upward arrow, and each downward arrow that no
    longer downward path implies (a transitive reduction, as drawings of
    layers leave those out)."""
    up = set(s.upward)
    down = {a: {b for b in bs if (a, b) not in up} for a, bs in s.arrows.items()}
    pos = {r: i for i, r in enumerate(s.floors)}
    reach: dict[str, set[str]] = {}
    for r in s.floors:  # bottom-up: what a room reaches downward, through its targets
        reach[r] = set()
        for b in down.get(r, ()):
            reach[r] |= {b} | reach.get(b, set())
    keep = []
    for a, bs in sorted(down.items()):
        for b in sorted(bs, key=lambda x: pos[x]):
            if not any(b in reach.get(c, set()) for c in bs if c != b):
                keep.append((a, b))
    return sorted(keep) + sorted(up)


def mermaid(s: Structure, *, everything: bool = False) -> str:
    """The rooms as a Mermaid graph, top floor first; upward arrows red.
    Arrows a longer downward path implies are left out unless ``everything``."""
    ids = {r: "n" + "".join(c if c.isalnum() else "_" for c in r) for r in s.floors}
    lines = ["graph TD"]
    for r in reversed(s.floors):
        lines.append(f'  {ids[r]}["{r}"]')
    up = set(s.upward)
    edges = sorted((a, b) for a, bs in s.arrows.items() for b in bs) if everything \
        else reduced(s)
    styles = []
    for i, (a, b) in enumerate(edges):
        lines.append(f"  {ids[a]} --> {ids[b]}")
        if (a, b) in up:
            styles.append(i)
    if styles:
        lines.append(f"  linkStyle {','.join(map(str, styles))} stroke:#d00,stroke-width:3px")
    return "\n".join(lines) + "\n"


def text(s: Structure) -> str:
    """The numbers and lists, as ``docs/architecture.md`` quotes them."""
    n = s.numbers()
    out = [f"{n['modules']} modules, {n['lines']} lines; {n['rooms']} rooms, {n['arrows']} arrows",
           f"arrows running upward: {n['upward']}"]
    out += [f"  {a} -> {b}" for a, b in s.upward]
    out.append(f"circles between folders: {n['circles_between_folders']}")
    out += [f"  {len(c)} modules: {', '.join(c)}" for c in s.circles]
    out.append("floors, bottom-up: " + ", ".join(s.floors))
    out.append("largest modules: " + ", ".join(f"{m} {k}" for m, k in s.largest(5)))
    over = s.over_800_lines()
    out.append("over 800 lines: " + (", ".join(over) if over else "none"))
    bad = s.store_imports()
    out.append("the store imports from above it: " + (
        "; ".join(f"{m} -> {', '.join(sorted(t))}" for m, t in sorted(bad.items())) or "nothing"))
    out.append("private names used across modules: " + ("; ".join(s.private_imports) or "none"))
    out.append("wdg.commands imported outside the command line: "
               + ("; ".join(s.cli_imports) or "none"))
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wdg.bench.layers",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2],
                    help="the checkout to measure (default: this one)")
    ap.add_argument("--mermaid", action="store_true", help="print the room graph (Mermaid)")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    ap.add_argument("--inside", action="store_true",
                    help="count the imports of wdg modules inside functions, per folder and file")
    args = ap.parse_args(argv)
    if args.inside:
        counts = inside_imports(args.root)
        sys.stdout.write(json.dumps(counts, indent=1, sort_keys=True) + "\n" if args.json
                         else inside_text(counts))
        return 0
    s = measure(args.root)
    if args.mermaid:
        sys.stdout.write(mermaid(s))
    elif args.json:
        sys.stdout.write(json.dumps(s.numbers(), indent=1) + "\n")
    else:
        sys.stdout.write(text(s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

