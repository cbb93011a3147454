"""A campaign directory and the paths inside it.

A campaign is a directory shaped like the repository root (which is itself the
demo campaign): ``worlds/<segment>/`` (state and archive), ``worlds/rules/``
(the rules files), ``orders/<segment>/<YYYY-MM>/`` (sheets), ``reports/<segment>/``
(output) and optionally ``templates/`` (overrides). File names inside are
always derived from ids (segment name, kingdom number, month key), never from
user text.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from typing import Protocol

from wdg.errors import InvalidInputError, StateError

_SEGMENT_RE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")

_CHECKOUT = Path(__file__).resolve().parent.parent
_WHEEL_DATA = Path(__file__).resolve().parent / "_shipped"
PACKAGE_ROOT = _WHEEL_DATA if not (_CHECKOUT / "worlds").is_dir() and _WHEEL_DATA.is_dir() \
    else _CHECKOUT
"""The folder holding the shipped worlds/, templates/ and orders/: the checkout, or
in an installed wheel ``wdg/_shipped/`` (copied there by setup.py when it is built)."""
SHIPPED_TEMPLATES = PACKAGE_ROOT / "templates"
"""The report templates shipped with wdg (a campaign's ``templates/`` overrides them)."""


class Month(Protocol):
    """A month as the paths need it (:class:`wdg.world.calendar.MonthDate`)."""

    @property
    def key(self) -> str: ...


def check_segment_name(name: str) -> str:
    """Segment names are ids: lower-case letters, digits, ``-`` and ``_``."""
    if not _SEGMENT_RE.match(name):
        raise InvalidInputError(
            f"ungültiger Segmentname {name!r}; erwartet Kleinbuchstaben, Ziffern, '-' oder '_' "
            "(mit einem Buchstaben am Anfang, höchstens 40 Zeichen)"
        )
    return name


@dataclass(frozen=True)
class Campaign:
    """Paths of one campaign directory."""

    root: Path

    @staticmethod
    def locate(path: str | Path | None = None) -> Campaign:
        """The campaign at ``path``, else ``$WDG_CAMPAIGN``, else the current directory."""
        p = path or os.environ.get("WDG_CAMPAIGN") or Path.cwd()
        return Campaign(Path(p).resolve())

    @property
    def worlds(self) -> Path:
        """``worlds/``."""
        return self.root / "worlds"

    @property
    def rules_dir(self) -> Path:
        """``worlds/rules/`` (falls back to the shipped rules if the campaign has none)."""
        own = self.worlds / "rules"
        return own if own.is_dir() else PACKAGE_ROOT / "worlds" / "rules"

    def segment_dir(self, segment: str) -> Path:
        """``worlds/<segment>/``."""
        return self.worlds / check_segment_name(segment)

    def archive_dir(self, segment: str) -> Path:
        """``worlds/<segment>/turns/``."""
        return self.segment_dir(segment) / "turns"

    def orders_dir(self, segment: str, month: Month) -> Path:
        """``orders/<segment>/<YYYY-MM>/``."""
        return self.root / "orders" / check_segment_name(segment) / month.key

    def reports_dir(self, segment: str, month: Month) -> Path:
        """``reports/<segment>/<YYYY-MM>/``."""
        return self.root / "reports" / check_segment_name(segment) / month.key

    @property
    def templates_dir(self) -> Path:
        """The campaign's own ``templates/`` (overrides of the shipped ones)."""
        return self.root / "templates"


# --- the shipped demo campaign (wdg demo, the bench, the tests) ---------------------

DEMO_SEGMENT = "canura"
DEMO_PARTS = ("worlds/canura", "worlds/rules", "orders/canura", "templates")


def segment_names(camp: Campaign) -> list[str]:
    """The campaign's segments (``worlds/<name>/segment.yaml``), sorted by name;
    directories whose name is not a segment name (``rules``, hidden ones) are not."""
    if not camp.worlds.is_dir():
        return []
    out = []
    for p in sorted(camp.worlds.iterdir()):
        if p.name == "rules" or not (p / "segment.yaml").is_file():
            continue
        try:
            out.append(check_segment_name(p.name))
        except ValueError:
            continue
    return out


def copy_demo(out: Path, source: Path = PACKAGE_ROOT) -> Campaign:
    """Copy the demo campaign from ``source`` into a fresh ``out``."""
    out = out.resolve()
    if out == source.resolve() or source.resolve().is_relative_to(out):
        raise StateError(f"{out} wird nicht ersetzt: es enthält den Quellbaum selbst")
    if not (source / "worlds" / DEMO_SEGMENT).is_dir():
        raise StateError(f"das Demo-Segment fehlt in {source / 'worlds' / DEMO_SEGMENT}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for part in DEMO_PARTS:
        src = source / part
        if src.is_dir():
            shutil.copytree(src, out / part, ignore=shutil.ignore_patterns("__pycache__"))
    return Campaign(out)
