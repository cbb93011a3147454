"""Rules files: every number the engine uses that the rule text leaves open.

``worlds/rules/<area>.yaml`` (e.g. ``economy.yaml``, ``movement.yaml``,
``combat.yaml``), each value with a comment citing the rule it serves
(ARCHITECTURE.md, "Rules files"). The engine reads parameters only through
:class:`Rules`; a missing key or a value of the wrong type is a
:class:`~wdg.errors.DataError` naming the file and the key.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

from wdg import yamlfast

from wdg.errors import DataError

try:  # the C loader when present (much faster), else the pure-Python one
    _Loader: type = yaml.CSafeLoader  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


def safe_load_file(path: Path) -> Any:
    """``yaml.safe_load`` a file; a syntax error becomes a DataError with the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(str(path), None, exc.strerror, "a readable file") from None
    except UnicodeDecodeError as exc:
        raise DataError(str(path), None, f"byte {exc.start}", "UTF-8 text") from None
    try:
        return yamlfast.load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise DataError(str(path), None, problem, "valid YAML", line=line) from None


class Rules:
    """All rules files of a campaign, by area (file stem)."""

    def __init__(self, data: dict[str, dict[str, Any]], paths: dict[str, str] | None = None):
        self._data = data
        self._paths = paths or {}

    @staticmethod
    def load(directory: Path) -> Rules:
        """Load every ``*.yaml`` in ``directory``."""
        data: dict[str, dict[str, Any]] = {}
        paths: dict[str, str] = {}
        if not directory.is_dir():
            raise DataError(str(directory), None, "missing directory", "a rules directory")
        for p in sorted(directory.glob("*.yaml")):
            content = safe_load_file(p)
            if content is None:
                content = {}
            if not isinstance(content, dict):
                raise DataError(str(p), None, type(content).__name__, "a mapping at the top level")
            data[p.stem] = content
            paths[p.stem] = str(p)
        return Rules(data, paths)

    def _lookup(self, area: str, keys: tuple[str, ...]) -> Any:
        where = ".".join(keys)
        if area not in self._data:
            raise DataError(f"{area}.yaml", where, "missing file", f"rules file {area}.yaml")
        node: Any = self._data[area]
        path = self._paths.get(area, f"{area}.yaml")
        for i, k in enumerate(keys):
            if not isinstance(node, dict) or k not in node:
                raise DataError(path, ".".join(keys[: i + 1]), "missing key", "a value")
            node = node[k]
        return node

    def has(self, area: str, *keys: str) -> bool:
        """True if the value exists: a rule added later is off in a rules set
        archived before it (such months replay as they were resolved)."""
        node: Any = self._data.get(area)
        for k in keys:
            if not isinstance(node, dict) or k not in node:
                return False
            node = node[k]
        return node is not None

    def get(self, area: str, *keys: str) -> Any:
        """Any value (mapping, list, number, string)."""
        return self._lookup(area, keys)

    def int(self, area: str, *keys: str) -> int:
        """An integer value."""
        v = self._lookup(area, keys)
        if isinstance(v, bool) or not isinstance(v, int):
            raise DataError(self._paths.get(area, area), ".".join(keys), v, "an integer")
        return v

    def num(self, area: str, *keys: str) -> float:
        """A number (int or float)."""
        v = self._lookup(area, keys)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DataError(self._paths.get(area, area), ".".join(keys), v, "a number")
        return float(v)

    def section(self, area: str, *keys: str) -> dict[str, Any]:
        """A mapping."""
        v = self._lookup(area, keys)
        if not isinstance(v, dict):
            raise DataError(self._paths.get(area, area), ".".join(keys), v, "a mapping")
        return v

    def areas(self) -> list[str]:
        """The loaded areas (file stems)."""
        return sorted(self._data)


@functools.cache
def shipped_rules() -> Rules:
    """The rules files shipped with the package (when a caller names none)."""
    from wdg.campaign import PACKAGE_ROOT

    return Rules.load(PACKAGE_ROOT / "worlds" / "rules")
