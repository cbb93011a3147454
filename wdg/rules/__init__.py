"""Rules files: every number the engine uses that the rule text leaves open.

``worlds/rules/<area>.yaml`` (e.g. ``economy.yaml``, ``movement.yaml``,
``combat.yaml``), each value with a comment citing the rule it serves
(ARCHITECTURE.md, "Rules files"). The engine reads parameters only through
:class:`Rules`; a missing key or a value of the wrong type is a
:class:`~wdg.errors.DataError` naming the file and the key.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import yaml

from wdg import yamlfast

from wdg.campaign import PACKAGE_ROOT
from wdg.errors import DataError, MissingKeyError, kind_of
from wdg.fsio import german_strerror

try:  # the C loader when present (much faster), else the pure-Python one
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


_YAML_PROBLEMS = (
    # libyaml's and PyYAML's usual syntax complaints, in German (#34): the
    # game master reads them; anything not listed keeps the reader's words
    (r"mapping values are not allowed (?:here|in this context)",
     "einen Doppelpunkt, wo kein neuer Schlüssel stehen kann (Einrückung prüfen, Text mit ':' "
     "in Anführungszeichen setzen)"),
    (r"could not find expected ':'", "einen Schlüssel ohne ':'"),
    (r"did not find expected key", "eine Zeile, die keinen Schlüssel beginnt (Einrückung prüfen)"),
    (r"did not find expected '-' indicator",
     "eine Zeile ohne '-' in einer Liste (Einrückung prüfen)"),
    (r"did not find expected node content", "einen fehlenden Wert"),
    (r"did not find expected ',' or '([\]}])'", r"keine schließende Klammer (',' oder '\1' fehlt)"),
    (r"found unexpected end of stream", "das Dateiende mitten in einem Wert (Anführungszeichen "
     "nicht geschlossen?)"),
    (r"found undefined alias", "einen unbekannten Verweis (*Name)"),
    (r"found character that cannot start any token",
     "ein Zeichen, mit dem kein Wert beginnen kann (ein Tabulator?)"),
    (r"found character '(.*)' that cannot start any token",
     r"das Zeichen '\1', mit dem kein Wert beginnen kann"),
    (r"found a tab character (?:that violates indentation|where an indentation space is "
     r"expected)", "einen Tabulator in der Einrückung (nur Leerzeichen erlaubt)"),
    (r"found unknown escape character.*", "eine unbekannte Escape-Folge (Backslash) in einem Text"),
    (r"could not determine a constructor for the tag '(.*)'",
     r"die nicht erlaubte Markierung '\1'"),
    (r"block sequence entries are not allowed in this context",
     "einen Listeneintrag ('-'), wo keiner stehen kann (Einrückung prüfen)"),
    (r"found duplicate anchor.*|second occurrence", "einen doppelten Anker (&Name)"),
)


def german_yaml_problem(problem: str) -> str:
    """The YAML reader's complaint ``problem`` in German; an unknown one is
    kept, marked as the reader's own words."""
    for pattern, german in _YAML_PROBLEMS:
        m = re.fullmatch(pattern, problem)
        if m:
            return m.expand(german)
    return f"einen Syntaxfehler (Meldung des YAML-Lesers: {problem})"


def safe_load_file(path: Path) -> Any:
    """``yaml.safe_load`` a file; a syntax error becomes a DataError with the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(str(path), None, german_strerror(exc), "eine lesbare Datei") from None
    except UnicodeDecodeError as exc:
        raise DataError(str(path), None, f"Byte {exc.start}", "UTF-8-Text") from None
    try:
        return yamlfast.load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise DataError(str(path), None, german_yaml_problem(problem), "gültiges YAML",
                        line=line) from None


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
            raise DataError(str(directory), None, "Verzeichnis fehlt", "ein Regelverzeichnis")
        for p in sorted(directory.glob("*.yaml")):
            content = safe_load_file(p)
            if content is None:
                content = {}
            if not isinstance(content, dict):
                raise DataError(str(p), None, kind_of(content),
                                "eine Zuordnung (Schlüssel: Wert) auf oberster Ebene")
            data[p.stem] = content
            paths[p.stem] = str(p)
        return Rules(data, paths)

    def _lookup(self, area: str, keys: tuple[str, ...]) -> Any:
        where = ".".join(keys)
        if area not in self._data:
            raise DataError(f"{area}.yaml", where, "Datei fehlt", f"die Regeldatei {area}.yaml")
        node: Any = self._data[area]
        path = self._paths.get(area, f"{area}.yaml")
        for i, k in enumerate(keys):
            if not isinstance(node, dict) or k not in node:
                raise MissingKeyError(path, ".".join(keys[: i + 1]), "Schlüssel fehlt",
                                      "einen Wert")
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
            raise DataError(self._paths.get(area, area), ".".join(keys), v, "eine ganze Zahl")
        return v

    def num(self, area: str, *keys: str) -> float:
        """A number (int or float)."""
        v = self._lookup(area, keys)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DataError(self._paths.get(area, area), ".".join(keys), v, "eine Zahl")
        return float(v)

    def section(self, area: str, *keys: str) -> dict[Any, Any]:
        """A mapping (YAML keys may be numbers: ``income_by_height: {1: ...}``)."""
        v = self._lookup(area, keys)
        if not isinstance(v, dict):
            raise DataError(self._paths.get(area, area), ".".join(keys), v, "eine Zuordnung (Schlüssel: Wert)")
        return v

    def areas(self) -> list[str]:
        """The loaded areas (file stems)."""
        return sorted(self._data)

    def area_data(self, area: str) -> dict[str, Any] | None:
        """One rules file's mapping as loaded (``None``: no such file) — the
        object itself, not a copy: for building other rules from it."""
        return self._data.get(area)

    def paths(self) -> dict[str, str]:
        """The file each area was loaded from, by area."""
        return dict(self._paths)


@functools.cache
def shipped_rules() -> Rules:
    """The rules files shipped with the package (when a caller names none)."""
    return Rules.load(PACKAGE_ROOT / "worlds" / "rules")
