"""The exact software as wheels, built offline from what is installed (issue #40).

:func:`wdg_wheel` builds the wheel of the running wdg from its own files — the
package folder as it is installed or checked out, plus, from a checkout, what a
wheel build adds (``wdg/_build.json`` with the commit, ``wdg/_shipped/`` with the
shipped templates, rules and demo campaign; ``setup.py``). The build is
deterministic (sorted members, fixed times and modes), so the same code gives the
same bytes: every month's provenance records its SHA-256 (``wdg.wheel_sha256``)
and ``wdg export SEG --archive --software`` puts the same wheel into the package.

:func:`dependency_wheels` packs every distribution wdg needs (its requirements,
recursively, extras left out) from its installed files — each file first checked
against the SHA-256 its ``RECORD`` lists — into a wheel named with the tags of the
distribution's own ``WHEEL`` file. No network and no package index is used:
``pip install --no-index --find-links WHEELHOUSE wdg`` installs the set in a
fresh venv (docs/turns.md, "Replaying with the exact version").
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from wdg import __version__
from wdg.errors import StateError

PACKAGE_DIR = Path(__file__).resolve().parent
CHECKOUT = PACKAGE_DIR.parent
SHIPPED = ("templates", "worlds/rules", "worlds/canura", "orders/canura", "docs/report-schema.json")
"""What a wheel carries in ``wdg/_shipped/`` (as ``setup.py``'s SHIPPED)."""
_SKIP_PARTS = {"__pycache__", "turns", ".lock"}
_DATE = (1980, 1, 1, 0, 0, 0)
_DIST_INFO_REBUILT = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


@dataclass(frozen=True, slots=True)
class Wheel:
    """A built wheel: its file name, bytes and SHA-256."""

    filename: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _zip(members: dict[str, bytes], dist_info: str,
         executable: set[str] | frozenset[str] = frozenset()) -> bytes:
    """A wheel's zip of ``members`` (name -> bytes) with a fresh RECORD, deterministic."""
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n"
                     for name, data in sorted(members.items()))
    record += f"{dist_info}/RECORD,,\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in [*sorted(members.items()), (f"{dist_info}/RECORD", record.encode())]:
            info = zipfile.ZipInfo(name, date_time=_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100755 if name in executable else 0o100644) << 16
            z.writestr(info, data, compresslevel=6)
    return buf.getvalue()


def _tree(root: Path, prefix: str) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    if root.is_file():
        return {prefix: root.read_bytes()}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or p.suffix == ".pyc" or _SKIP_PARTS & set(rel.parts) \
                or any(part.startswith(".") for part in rel.parts):
            continue
        out[f"{prefix}/{rel.as_posix()}"] = p.read_bytes()
    return out


def _metadata_text() -> str:
    """``METADATA`` of the wdg wheel: from ``pyproject.toml`` in a checkout, else the
    installed distribution's own (which a wheel built here wrote)."""
    pyproject = CHECKOUT / "pyproject.toml"
    if (CHECKOUT / ".git").exists() and pyproject.is_file():
        import tomllib

        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        lines = ["Metadata-Version: 2.1", "Name: wdg", f"Version: {__version__}",
                 f"Summary: {project.get('description', '')}",
                 f"Requires-Python: {project.get('requires-python', '>=3.11')}"]
        lines += [f"Requires-Dist: {r}" for r in project.get("dependencies", [])]
        for extra, reqs in sorted((project.get("optional-dependencies") or {}).items()):
            lines.append(f"Provides-Extra: {extra}")
            lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
        return "\n".join(lines) + "\n"
    try:
        text = metadata.distribution("wdg").read_text("METADATA")
    except metadata.PackageNotFoundError:
        text = None
    if not text:
        raise StateError("die Paketdaten (METADATA) dieser wdg-Installation fehlen; ohne sie "
                         "läßt sich kein Wheel bauen — wdg aus einem Checkout oder einem Wheel "
                         "installieren")
    return text


@lru_cache(maxsize=1)
def wdg_wheel() -> Wheel:
    """The wheel of the running wdg, built from its installed (or checked-out) files."""
    from wdg.provenance import build_info

    members = _tree(PACKAGE_DIR, "wdg")
    if "wdg/_build.json" not in members:  # a checkout: add what the wheel build adds
        info = build_info()
        members["wdg/_build.json"] = json.dumps({"commit": info["commit"],
                                                 "dirty": info["dirty"]}).encode("utf-8")
        for part in SHIPPED:
            src = CHECKOUT / part
            if src.exists():
                members.update(_tree(src, f"wdg/_shipped/{part}"))
    dist_info = f"wdg-{__version__}.dist-info"
    members[f"{dist_info}/METADATA"] = _metadata_text().encode("utf-8")
    members[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: wdg.software\n"
                                     b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    members[f"{dist_info}/entry_points.txt"] = b"[console_scripts]\nwdg = wdg.cli:main\n"
    members[f"{dist_info}/top_level.txt"] = b"wdg\n"
    return Wheel(f"wdg-{__version__}-py3-none-any.whl", _zip(members, dist_info))


def wdg_wheel_sha256() -> str | None:
    """The SHA-256 of :func:`wdg_wheel` (``None`` when it cannot be built here)."""
    try:
        return wdg_wheel().sha256
    except (OSError, StateError):
        return None


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_closure() -> list[metadata.Distribution]:
    """The installed distributions wdg needs to run: its requirements and theirs,
    extras left out (a requirement marked ``extra == ...``), sorted by name."""
    try:
        start = metadata.distribution("wdg").requires or []
    except metadata.PackageNotFoundError:
        import tomllib

        start = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8")
                              )["project"]["dependencies"]
    found: dict[str, metadata.Distribution] = {}
    extras_done: set[tuple[str, str]] = set()
    todo = list(start)
    while todo:
        req = todo.pop()
        name, _, marker = req.partition(";")
        if re.search(r"\bextra\b", marker):
            continue  # an extra nobody asked for (asked-for extras are pushed below)
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", name)
        if not m or _key(m.group(1)) == "wdg":
            continue
        key = _key(m.group(1))
        if key not in found:
            try:
                dist = metadata.distribution(m.group(1))
            except metadata.PackageNotFoundError:
                if marker.strip():
                    continue  # a requirement for another platform or Python
                raise StateError(f"die Abhängigkeit {m.group(1)!r} von wdg ist hier nicht "
                                 "installiert; das Wheel-Verzeichnis wäre unvollständig") from None
            found[key] = dist
            todo.extend(dist.requires or [])
        for extra in (e.strip() for e in (m.group(2) or "").split(",") if e.strip()):
            if (key, extra) in extras_done:
                continue
            extras_done.add((key, extra))
            for r in found[key].requires or []:  # "x; extra == 'woff'" -> "x" (other
                n, _, mk = r.partition(";")       # conditions: taken when installed)
                if re.search(rf"""extra\s*==\s*["']{re.escape(extra)}["']""", mk):
                    todo.append(n + ("; conditional" if re.sub(
                        rf"""(and\s+)?extra\s*==\s*["']{re.escape(extra)}["']""", "",
                        mk).strip() else ""))
    return [found[k] for k in sorted(found)]


def _dist_info_name(dist: metadata.Distribution) -> str:
    meta = next((f for f in dist.files or [] if f.name == "METADATA"
                 and f.parent.name.endswith(".dist-info")), None)
    if meta is None:
        raise StateError(f"{dist.metadata['Name']}: nicht als Wheel installiert (kein "
                         ".dist-info mit RECORD); daraus läßt sich kein Wheel bauen")
    return meta.parent.name


def dependency_wheel(dist: metadata.Distribution) -> Wheel:
    """The wheel of one installed distribution, packed from its files (each checked
    against its RECORD hash first); console scripts come back from entry_points.txt."""
    name = dist.metadata["Name"]
    dist_info = _dist_info_name(dist)
    members: dict[str, bytes] = {}
    for f in dist.files or []:
        path = f.as_posix()
        if path.startswith("..") or path.endswith(".pyc") or "__pycache__" in f.parts:
            continue  # scripts outside site-packages (rebuilt by pip), byte code
        if f.parent.name == dist_info and f.name in _DIST_INFO_REBUILT:
            continue
        data = Path(str(dist.locate_file(f))).read_bytes()
        if f.hash is not None:
            got = base64.urlsafe_b64encode(hashlib.new(f.hash.mode, data).digest()) \
                .rstrip(b"=").decode()
            if got != f.hash.value:
                raise StateError(f"{dist.locate_file(f)}: der Inhalt weicht vom RECORD der "
                                 f"installierten Distribution {name} {dist.version} ab; "
                                 "kein Wheel daraus")
        members[path] = data
    wheel_file = members.get(f"{dist_info}/WHEEL", b"").decode("utf-8", "replace")
    tags = [t.strip() for t in re.findall(r"^Tag:\s*(\S+)", wheel_file, re.M)]
    if not tags:
        raise StateError(f"{name} {dist.version}: die WHEEL-Datei nennt keine Tags")
    parts = [sorted({t.split("-")[i] for t in tags}) for i in range(3)]
    tag = "-".join(".".join(p) for p in parts)
    stem = dist_info[: -len(".dist-info")]
    return Wheel(f"{stem}-{tag}.whl", _zip(members, dist_info))


def dependency_wheels() -> list[tuple[metadata.Distribution, Wheel]]:
    """Every distribution of :func:`requirement_closure` as a wheel."""
    return [(d, dependency_wheel(d)) for d in requirement_closure()]
