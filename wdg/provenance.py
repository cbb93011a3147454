"""What made a month: the software's version, commit and environment (docs/turns.md).

``build_info`` (:func:`wdg.software.build_info`, re-exported here) names this
wdg: the release number (``wdg.__version__``), the git commit and whether the tree had uncommitted changes — read from git
when the package runs from a checkout, else from ``wdg/_build.json``, written
into the wheel when it is built (``setup.py``); ``None`` where neither can say.
:func:`environment` adds the Python version and every installed
distribution's exact version and the SHA-256 of its ``RECORD`` (the list of
every installed file with its own hash, PEP 376/627), so an archivist can
rebuild the environment a month was resolved in. Both are computed once per
process.
"""

from __future__ import annotations

import hashlib
import platform
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from wdg.software import BUILD_FILE, PACKAGE_DIR, build_info, git_info, wdg_wheel_sha256

__all__ = ["BUILD_FILE", "MISSING", "PACKAGE_DIR", "build_info", "describe", "distributions",
           "environment", "git_info", "month_made_by", "requirements", "version_line"]


def version_line() -> str:
    """``wdg 0.2.0 (commit 1234abc, geändert)`` for ``wdg --version``."""
    b = build_info()
    if not b["commit"]:
        return f"wdg {b['version']}"
    state = {True: ", mit nicht eingecheckten Änderungen", False: "", None: ""}[b["dirty"]]
    return f"wdg {b['version']} (commit {b['commit'][:12]}{state})"


def describe(info: dict[str, Any] | None) -> str:
    """A made-by record's short form: ``wdg 0.2.0 (commit 1234abc)``."""
    if not info:
        return "einer wdg-Version vor 0.2.0 (ohne Herkunftsangaben)"
    text = f"wdg {info.get('version')}"
    if info.get("commit"):
        text += f" (commit {str(info['commit'])[:12]}{', geändert' if info.get('dirty') else ''})"
    return text


MISSING = "Herkunftsangaben fehlen: provenance.yaml fehlt, der Monat ist aber mit wdg 0.2.0 " \
    "oder neuer archiviert"
"""What :func:`month_made_by` says of a month whose provenance was deleted."""


def _month_format(mdir: Path) -> int | None:
    """The segment format the month's ``state/segment.yaml`` was written in."""
    import gzip
    import re

    for name, read in (("segment.yaml", lambda p: p.read_bytes()),
                       ("segment.yaml.gz", lambda p: gzip.decompress(p.read_bytes()))):
        p = mdir / "state" / name
        if p.is_file():
            try:
                m = re.search(rb"^format:\s*(\d+)", read(p)[:4096], re.M)
            except (OSError, EOFError, ValueError):
                return None
            return int(m.group(1)) if m else 1
    return None


def month_made_by(mdir: Path) -> str:
    """Which wdg resolved the archived month ``mdir``, provenance first: its
    ``provenance.yaml`` (since 0.2.0), else the summary's ``wdg`` line; a month
    whose provenance is missing although it was archived by 0.2.0 or newer (its
    hash list names the file, its summary names a version, or its state is of
    segment format 2 or newer) is said to miss it — not to be older."""
    import yaml

    def load(name: str) -> Any:
        try:
            return yaml.load((mdir / name).read_text(encoding="utf-8"),  # a safe loader: SafeLoader or its C twin
                             Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            return None

    try:  # only the "wdg:" block of the provenance (it lists every dependency: KBs)
        text = (mdir / "provenance.yaml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    if text is not None:
        import re

        block = re.search(r"^wdg:\n(?:[ \t]+.*\n?)+", text, re.M)
        try:
            wdg_record = yaml.load(block.group(0), Loader=getattr(  # a safe loader: SafeLoader or its C twin
                yaml, "CSafeLoader", yaml.SafeLoader)) if block else None
        except yaml.YAMLError:
            wdg_record = None
        if isinstance(wdg_record, dict) and isinstance(wdg_record.get("wdg"), dict):
            return describe(wdg_record["wdg"])
        prov = load("provenance.yaml")  # another layout: the whole file
        if isinstance(prov, dict) and isinstance(prov.get("wdg"), dict):
            return describe(prov["wdg"])
    summary = load("summary.yaml")
    listed = False
    try:
        listed = any(line.rstrip().endswith("  provenance.yaml") for line in
                     (mdir / "SHA256SUMS").read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        pass
    if listed or (isinstance(summary, dict) and summary.get("wdg")) \
            or (_month_format(mdir) or 1) >= 2:
        return MISSING
    return "wdg vor 0.2.0"


def _record_hash(dist: metadata.Distribution) -> str | None:
    try:
        text = dist.read_text("RECORD")
    except (OSError, UnicodeDecodeError):
        return None
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def distributions() -> dict[str, dict[str, Any]]:
    """Every installed distribution (the running interpreter's ``sys.path``):
    ``{name: {"version", "record_sha256"}}``, sorted by normalised name; wdg
    itself is left out (it is recorded as the software)."""
    out: dict[str, dict[str, Any]] = {}
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").strip()
        key = name.lower().replace("_", "-").replace(".", "-")
        if not key or key == "wdg" or key in out:
            continue  # the first on sys.path is the one imported
        entry: dict[str, Any] = {"version": dist.version}
        digest = _record_hash(dist)
        if digest:
            entry["record_sha256"] = digest
        out[key] = entry
    return dict(sorted(out.items()))


@lru_cache(maxsize=1)
def environment() -> dict[str, Any]:
    """The record of the software resolving a month: wdg (with the SHA-256 of its
    wheel as :func:`wdg.software.wdg_wheel` builds it), Python, dependencies."""
    return {
        "wdg": {**build_info(), "wheel_sha256": wdg_wheel_sha256()},
        "python": {"version": platform.python_version(),
                   "implementation": sys.implementation.name,
                   "platform": f"{platform.system()}-{platform.machine()}"},
        "dependencies": distributions(),
    }


def requirements(record: dict[str, Any]) -> str:
    """A pip requirements file (``name==version`` a line) of a month's recorded
    dependencies, for ``pip install -r`` into a fresh venv (docs/turns.md)."""
    deps = record.get("dependencies") or {}
    lines = [f"{name}=={d['version']}" for name, d in sorted(deps.items())
             if isinstance(d, dict) and d.get("version") and name not in ("pip", "setuptools", "wheel")]
    return "".join(line + "\n" for line in lines)
