"""How the archive stores a month's files, and reads them back (docs/turns.md).

Deterministic compression (gzip without timestamp, xz), packs of an output
folder's files (:data:`PACK`, one xz-compressed tar), the event log
(:data:`EVENTS`, JSON Lines), deterministic YAML, and the readers that find
a file's content whether it is stored as it is, compressed, or in a pack.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import lzma
import zlib
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from wdg.errors import StateError
from wdg.world.hexgrid import Hex
from wdg.world.state import Segment

try:
    YAML_DUMPER: type = yaml.CSafeDumper
    YAML_LOADER: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    YAML_DUMPER = yaml.SafeDumper
    YAML_LOADER = yaml.SafeLoader



_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Types :func:`plain` returns as they are (by exact type: an enum's member is
of its enum's type, a numpy scalar of its own)."""


def plain(value: Any, seg: Segment) -> Any:
    """YAML-safe plain data (numpy scalars, hexes as addresses, enums by value)."""
    if type(value) in _SCALARS:
        return value  # most of a month's 16,000 events: answered before the checks
    if isinstance(value, Hex):
        return seg.label(value) if seg.grid.contains(value) else [value.q, value.r]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): plain(v, seg) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [plain(v, seg) for v in items]
    return value


def dump_yaml(data: Any, path: Path) -> None:
    """Write YAML deterministically (UTF-8, keys in the given order)."""
    text = yaml.dump(data, Dumper=YAML_DUMPER, allow_unicode=True, sort_keys=False,
                     default_flow_style=False, width=100)
    path.write_text(text, encoding="utf-8")


def events_data(result: Any) -> list[dict[str, Any]]:
    """The event log of a resolved month (``wdg.engine.turn.MonthResult``) as plain data."""
    seg = result.state
    return [plain(e.to_dict(label=lambda h: plain(h, seg)), seg) for e in result.log]


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hash_tree(root: Path) -> dict[str, str]:
    """``relative/posix/path -> sha256`` of every file under ``root``, sorted;
    a pack's members are listed as files of its folder."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root)
        if p.name == PACK:
            for name, data in read_pack(p).items():
                out[(rel.parent / name).as_posix()] = hashlib.sha256(data).hexdigest()
        else:
            out[rel.as_posix()] = sha256(p)
    return dict(sorted(out.items()))


EVENTS = "events.jsonl.xz"
"""The month's event log: one JSON object a line (JSON Lines), xz-compressed."""
YAML_EVENTS = "events.yaml.gz"
"""The event log of months archived before it was JSON Lines: YAML, gzip-compressed."""
LEGACY_EVENTS = "events.yaml"
"""The event log of months archived before it was compressed."""
EVENT_FILES = (EVENTS, YAML_EVENTS, LEGACY_EVENTS)
SUMMARY = "summary.yaml"
"""The month's index entry: seed, order, sheets, event counts and every manifest
file's size, so ``wdg turn list`` reads a few hundred bytes per month."""


def gzip_bytes(data: bytes, level: int = 9) -> bytes:
    """Deterministic gzip (no timestamp, no file name, level 9 unless given)."""
    return gzip.compress(data, compresslevel=level, mtime=0)


def xz_bytes(data: bytes) -> bytes:
    """xz (preset :data:`PACK_PRESET`): a third smaller than gzip -9 on our text, faster."""
    return lzma.compress(data, format=lzma.FORMAT_XZ, preset=PACK_PRESET)


def decompress(path: Path, data: bytes) -> bytes:
    """The content of a stored file by its name: ``.gz`` and ``.xz`` decompressed."""
    try:
        if path.suffix == ".gz":
            return gzip.decompress(data)
        if path.suffix == ".xz":
            return lzma.decompress(data)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
        raise StateError(f"{path}: beschädigte komprimierte Datei ({e})") from None
    return data


PACK = "pack.tar.xz"
"""An output folder's text files stored together: one tar archive, xz-compressed
(solid: the sixty kingdoms' sheets share most of their words, so the month's
text, HTML, JSON and YAML take half of what each file compressed alone takes,
at less CPU than gzip -9 per file). ``tar xJf pack.tar.xz`` unpacks it. Its
members are listed in the manifest as files of the folder it lies in, with
the SHA-256 of their own bytes."""
PACK_PRESET = 1
"""xz preset of a pack: 0.4 s of CPU for a stress month's 15 MB of text; higher
presets save a sixth more at three times the time."""
PACK_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": PACK_PRESET, "dict_size": 8 << 20}]
"""The pack's compression: the preset with an 8 MiB window, so that each PDF
finds the ones before it (a stress month's 61 PDFs, 3.2 MB, interleaved with
the text: 1 MiB windows leave them at 2.8 MB, 8 MiB take them to about 2.5 MB,
at the same CPU; decompressing needs 8 MiB of memory)."""
GZ_LEVEL = 6
"""gzip level of the archived state files (``state/*.yaml.gz``)."""
_PACK_CACHE: dict[str, Any] = {}


class PackWriter:
    """A pack written as its files come (``add`` in a fixed order; no time,
    owner or mode of their own: the same files in the same order give the same
    pack), compressed as it grows, so that the compression runs while the
    files' producers still work."""

    def __init__(self, directory: Path) -> None:
        import tarfile

        self.directory = directory
        self.path = directory / PACK
        self.members: dict[str, bytes] = {}
        self._xz = lzma.LZMAFile(self.path, "wb", format=lzma.FORMAT_XZ, filters=PACK_FILTERS)
        self._tar = tarfile.open(fileobj=self._xz, mode="w", format=tarfile.PAX_FORMAT)

    def add(self, name: str, data: bytes) -> None:
        """Append one member."""
        import tarfile

        if name in self.members:
            raise StateError(f"{self.path}: member {name!r} added twice")
        self.members[name] = data
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = len(data), 0, 0o644
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        self._tar.addfile(info, io.BytesIO(data))

    def add_file(self, path: Path) -> None:
        """Append the file ``path`` (under the pack's folder) and remove it."""
        self.add(path.relative_to(self.directory).as_posix(), path.read_bytes())
        path.unlink()

    def close(self) -> Path:
        """Finish the pack; empty folders left by :meth:`add_file` are removed."""
        self._tar.close()
        self._xz.close()
        for d in sorted((p for p in self.directory.rglob("*") if p.is_dir()), reverse=True):
            if not any(d.iterdir()):
                d.rmdir()
        _remember_pack(self.path, self.members)
        return self.path

    def abort(self) -> None:
        """Give up: close and remove the partial pack."""
        try:
            self._tar.close()
            self._xz.close()
        finally:
            self.path.unlink(missing_ok=True)


def write_pack(directory: Path, keep: Callable[[Path], bool] = lambda p: False) -> Path | None:
    """Store every file under ``directory`` that ``keep`` does not select in one
    pack ``directory/pack.tar.xz`` (members in name order) and remove them;
    returns the pack (``None`` when there is nothing to pack)."""
    files = sorted(p for p in directory.rglob("*") if p.is_file() and p.name != PACK
                   and not keep(p))
    if not files:
        return None
    writer = PackWriter(directory)
    try:
        for p in files:
            writer.add_file(p)
    except BaseException:
        writer.abort()
        raise
    return writer.close()


def _pack_key(pack: Path) -> tuple:
    """The pack's identity on disk (kept when its folder is renamed by the commit)."""
    st = pack.stat()
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _remember_pack(pack: Path, members: dict[str, bytes]) -> None:
    _PACK_CACHE.clear()  # one pack at a time: a month's reports are 15 MB
    _PACK_CACHE[repr(_pack_key(pack))] = members


def read_pack(pack: Path) -> dict[str, bytes]:
    """``{member name: bytes}`` of a pack (the last one read is kept in memory).
    A damaged pack raises :class:`StateError` naming it."""
    import tarfile

    key = repr(_pack_key(pack))
    if key in _PACK_CACHE:
        return _PACK_CACHE[key]
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(lzma.decompress(pack.read_bytes()))) as tar:
            for m in tar.getmembers():
                f = tar.extractfile(m) if m.isfile() else None
                if f is not None:
                    members[m.name] = f.read()
    except (lzma.LZMAError, tarfile.TarError, EOFError, zlib.error) as e:
        raise StateError(f"{pack}: beschädigtes Paket archivierter Dateien ({e})") from None
    _remember_pack(pack, members)
    return members


def _pack_of(path: Path, root: Path | None) -> tuple[Path, str] | None:
    """The pack (in ``path``'s folder or a folder above it, up to ``root``) that
    should hold ``path``, and the member name there."""
    for d in path.parents:
        if (d / PACK).is_file():
            return d / PACK, path.relative_to(d).as_posix()
        if root is None or d == root or root not in d.parents:
            return None
    return None


def read_archived(path: Path, root: Path | None = None) -> bytes:
    """The content of an archived file: stored as ``path``, compressed as
    ``path.gz`` or ``path.xz`` (decompressed), or a member of a pack in its folder or
    one above it (up to ``root``)."""
    if path.is_file():
        return decompress(path, path.read_bytes())
    return _stored_elsewhere(path, root)


def _stored_elsewhere(path: Path, root: Path | None) -> bytes:
    for suffix in (".gz", ".xz"):
        packed = path.with_name(path.name + suffix)
        if packed.is_file():
            return decompress(packed, packed.read_bytes())
    found = _pack_of(path, root)
    if found is not None:
        members = read_pack(found[0])
        if found[1] in members:
            return members[found[1]]
    raise FileNotFoundError(path)


def stored_bytes(month_dir: Path, name: str) -> bytes:
    """The bytes the manifest's SHA-256 of ``name`` is taken of: the file
    ``name`` itself as stored (months archived before: ``...gz`` names hash the
    compressed bytes), else its content stored compressed or in a pack."""
    path = month_dir / name
    if path.is_file():
        return path.read_bytes()
    return _stored_elsewhere(path, month_dir)


def stored_file(month_dir: Path, name: str) -> str:
    """The stored file holding the manifest's ``name`` (itself, ``name.gz`` or
    a pack), relative to the month's folder."""
    path = month_dir / name
    if path.is_file():
        return name
    for suffix in (".gz", ".xz"):
        if path.with_name(path.name + suffix).is_file():
            return name + suffix
    found = _pack_of(path, month_dir)
    return found[0].relative_to(month_dir).as_posix() if found else name


def events_file(month_dir: Path) -> Path:
    """The event log file of an archived month (JSON Lines, or from older
    months YAML, compressed or plain)."""
    for name in EVENT_FILES:
        if (month_dir / name).is_file():
            return month_dir / name
    return month_dir / EVENTS


def read_events_data(month_dir: Path) -> list[dict[str, Any]]:
    """The plain event log of an archived month."""
    path = events_file(month_dir)
    raw = read_archived(path)
    if path.name == EVENTS:
        try:
            data: Any = [json.loads(line) for line in raw.decode("utf-8").split("\n") if line]
        except ValueError as e:
            raise StateError(f"{path}: kein Ereignisprotokoll in JSON Lines ({e})") from None
    else:
        data = yaml.load(raw, Loader=YAML_LOADER) or []
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise StateError(f"{path}: erwartet eine Liste von Ereignissen")
    return data


_EVENT_LINE = json.JSONEncoder(ensure_ascii=False).encode
"""What ``json.dumps(e, ensure_ascii=False)`` writes (the same options), without
building an encoder for each of a month's 16,000 events."""


def events_bytes(events: list[dict[str, Any]], name: str = EVENTS) -> bytes:
    """The archived bytes of an event log under the file name ``name``: JSON
    Lines (gzip), or the YAML of months archived before (for their replay)."""
    if name == EVENTS:
        line = _EVENT_LINE  # json.dumps(e, ensure_ascii=False), one encoder for every line
        text = "".join(line(e) + "\n" for e in events).encode("utf-8")
        return xz_bytes(text)
    text = yaml.dump(events, Dumper=YAML_DUMPER, allow_unicode=True, sort_keys=False,
                     default_flow_style=False, width=100).encode("utf-8")
    return gzip_bytes(text) if name.endswith(".gz") else text
