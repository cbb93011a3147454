"""Load and save a segment: ``worlds/<segment>/`` on disk (docs/storage.md).

Files of a segment directory:

- ``segment.yaml``  name, title, seed, date ``YYYY-MM``, provinces ``CxR``, settings
- ``map.txt``       terrain as rows of two-character map codes (odd rows indented)
- ``kingdoms.yaml`` kingdoms with players (password hashes), diplomacy, general offers
- ``armies.yaml``   every army, passive ones at ``000.00``
- ``world.yaml``    settlements, buildings, creatures, treasures, constructions
- ``layers.npz``    owner, militia, every kingdom's known map (``known.<k>.<field>``)

Records go through the type-driven :mod:`wdg.world.codec`; every load
validates and every problem is a :class:`~wdg.errors.DataError` naming the
file, the key path (or line) and what was expected.

Saving is crash-safe without ever moving the directory or anything in it
that the store does not own (:mod:`wdg.store.journal`: a generation, a
journal, one atomic rename as the commit point).
"""

from __future__ import annotations

import dataclasses
import io
import typing
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from wdg import __version__, yamlfast
from wdg.errors import DataError, StateError
from wdg.errors import kind_of as _kind
from wdg.fsio import restrict_private_files
from wdg.rules import safe_load_file
from wdg.store import formats
from wdg.store.integrity import LIST, Finding, IntegrityError, has_sealed_months, verify_files
from wdg.store.journal import (ARMIES_FILE, FILES, JOURNAL, KINGDOMS_FILE, LAYERS_FILE,
                               MAP_FILE, SEGMENT_FILE, STORED, WORLD_FILE, commit_save,
                               read_journal)
from wdg.world import mapfile
from wdg.world.address import Grid
from wdg.world.codec import decode, deep_equal, encode
from wdg.world.hexgrid import Hex
from wdg.world.state import (
    BUILDING_ORDER,
    Army,
    Building,
    Construction,
    Creature,
    Deposit,
    Kingdom,
    KnownMap,
    Segment,
    Settings,
    Treasure,
    empty_layers,
    new_known_map,
)


FORMAT = formats.SEGMENT
"""Version of the on-disk format (``format:`` in segment.yaml; its row ``segment``
in :mod:`wdg.store.formats`). 1: up to wdg 0.1.0;
2: since wdg 0.2.0 (months archived with provenance and templates). A segment
of a newer format is refused by every command; an older one is read (archived
months stay as they are) but changed only after ``wdg segment upgrade``
(:func:`check_live_format`, docs/turns.md, "Upgrading a campaign")."""


class FormatError(StateError):
    """A segment's format is newer than this wdg reads, or older than it writes."""


def format_of(path: Path) -> int:
    """The ``format:`` of the segment folder ``path`` (1 when absent: the first format)."""
    head = _load_yaml_mapping(path / SEGMENT_FILE)
    fmt = head.get("format", 1)
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
        raise DataError(str(path / SEGMENT_FILE), "format", fmt, "eine Formatnummer 1, 2, ...")
    return fmt


def too_new(path: Path, fmt: int) -> FormatError:
    return FormatError(
        f"{path}: Segmentformat {fmt} ist neuer als diese wdg-Version ({__version__}, liest "
        f"Format bis {FORMAT}) — bitte die wdg-Version verwenden, die das Segment geschrieben "
        "hat, oder eine neuere; nichts wurde verändert")


def check_live_format(path: Path) -> None:
    """Before a command changes the segment ``path``: its format must be this
    version's. Newer: refused (a newer wdg wrote it). Older: refused until
    ``wdg segment upgrade`` has migrated it (so nothing is written in the new
    format without the upgrade's steps)."""
    fmt = format_of(path)
    if fmt > FORMAT:
        raise too_new(path / SEGMENT_FILE, fmt)
    if fmt < FORMAT:
        raise FormatError(
            f"{path / SEGMENT_FILE}: Segmentformat {fmt} einer älteren wdg-Version; diese "
            f"Version schreibt Format {FORMAT}. Zuerst 'wdg segment upgrade {path.name}' "
            "ausführen (zeigt, was sich ändert; archivierte Monate bleiben unberührt); "
            "nichts wurde verändert")


HANDLED_FIELDS = {"name", "title", "seed", "date", "grid", "terrain", "owner", "militia",
                  "settlement", "buildings", "settlement_names", "kingdoms", "armies",
                  "creatures", "treasures", "constructions", "known", "settings", "deposits",
                  "damage"}
"""The fields of :class:`wdg.world.state.Segment` this module stores by hand; the
others are stored generically (``extra`` in segment.yaml, or a layer)."""
LAYER_DTYPES = {"owner": np.int16, "militia": np.int32}
"""The map layers every segment stores, with their stored types."""
_BUILDING_BY_NAME = {b.german: b for b in BUILDING_ORDER}




# --- public API ---

def save_segment(seg: Segment, path: Path, *,
                 renames: tuple[tuple[str, str], ...] = (),
                 files: dict[str, bytes] | None = None) -> None:
    """Write ``seg`` to the segment directory ``path`` (created if missing),
    crash-safe (docs/storage.md, "Saving: the commit protocol";
    :func:`wdg.store.journal.commit_save`). ``renames`` (pairs of paths
    relative to ``path``, e.g. the archive's staged month folder to its final
    name, flushed by the caller) are carried out under the same commit.
    ``files``: the segment's files as :func:`write_segment_files` wrote them
    for ``seg`` already (the archive's state after the month), written as
    they are instead of serialising again."""
    def fill(gen: Path) -> None:
        if files is not None and set(files) == set(FILES):
            for name in FILES:
                (gen / name).write_bytes(files[name])
        else:
            _write_all(seg, gen)

    commit_save(Path(path), fill, seg.date.key, renames=renames)


def write_segment_files(seg: Segment, directory: Path) -> None:
    """Write a segment's files into a fresh directory (no journal: for a
    directory that is itself part of a larger staged commit, e.g. the archive's
    ``state/``)."""
    directory.mkdir(parents=True, exist_ok=True)
    _write_all(seg, directory)
    restrict_private_files(directory)


def load_segment(path: Path, *, verify: bool = True) -> Segment:
    """Read and validate the segment in directory ``path``.

    Every file is checked against the segment's hash list ``SHA256SUMS``
    first (:mod:`wdg.store.integrity`): a damaged or changed file is an
    :class:`~wdg.store.integrity.IntegrityError` naming it, never game state.
    ``verify=False`` only for ``wdg segment accept`` (hand edits to re-seal).

    A save committed but not yet completed (journal present, e.g. after a
    crash, or another process finishing its save right now) is read as it
    will be: its new files from the generation directory. Loading never
    changes anything on disk."""
    path = Path(path)
    if not path.is_dir():
        raise DataError(str(path), None, "kein solches Verzeichnis", "ein Segmentverzeichnis "
                        "(worlds/<segment>/ mit segment.yaml, map.txt, ...)")
    if not (path / SEGMENT_FILE).exists() and (path / f"{SEGMENT_FILE}.gz").is_file():
        return _load_compressed(path)
    for attempt in range(3):
        pending = (path / JOURNAL).exists()
        try:
            files = _file_map(path)
            if verify:
                try:
                    _verify(path, files)
                except IntegrityError as bad:
                    try:  # what is wrong in it, if it does not even load (e.g. a hand edit)
                        _load_files(files)
                    except DataError as exc:
                        raise IntegrityError(bad.findings, f"; außerdem: {exc}. Der Befehl hat "
                                             "nichts verändert.") from None
                    raise
            return _load_files(files)
        except (DataError, FileNotFoundError):
            # A concurrent save moved a file between our look and our read: read again.
            if attempt < 2 and (pending or (path / JOURNAL).exists()):
                continue
            raise
    raise AssertionError("unreachable")  # pragma: no cover


def _verify(path: Path, files: dict[str, Path]) -> None:
    """The files about to be read against the live hash list (a segment
    saved by an older wdg has none: accepted while its archive has none either)."""
    lst = files.pop(LIST)
    if lst.exists() or lst.is_symlink():
        found = verify_files(files, lst)
    elif has_sealed_months(path):
        found = [Finding(str(lst), "die Hashliste des Segments fehlt, obwohl das Archiv "
                         "Hashlisten hat (entfernt?)")]
    else:
        found = []
    if found:
        raise IntegrityError(found, ". Der Befehl hat nichts verändert.")


def accept_edits(path: Path) -> Segment:
    """Re-seal a segment whose files the game master changed by hand: load it
    without the hash check (every other check applies) and save it (the save
    writes a new hash list). Call holding the lock."""
    seg = load_segment(path, verify=False)
    save_segment(seg, path)
    return seg


def peek_passwords(path: Path) -> tuple[str, dict[int, str]]:
    """``(month key, {kingdom: password hash})`` read from a segment folder's
    ``segment.yaml`` and ``kingdoms.yaml`` alone, without loading or checking
    the segment (a few milliseconds): what the intake needs to start the slow
    password checks while the segment loads. Anything unreadable raises;
    callers treat it as "nothing known yet" (:func:`load_segment` reports it)."""
    files = _file_map(Path(path))
    head = _load_yaml_mapping(files[SEGMENT_FILE])
    hashes: dict[int, str] = {}
    for item in _records(files[KINGDOMS_FILE], "kingdoms"):
        player = item.get("player") if isinstance(item, dict) else None
        if isinstance(player, dict) and isinstance(player.get("password_hash"), str) \
                and isinstance(item.get("number"), int):
            hashes[item["number"]] = player["password_hash"]
    return str(head["date"]), hashes


def _load_compressed(path: Path) -> Segment:
    """A segment stored as the archive stores it (``state/``: text files as
    ``name.gz``): its files unpacked into a temporary folder and loaded."""
    import gzip
    import tempfile

    with tempfile.TemporaryDirectory(prefix="wdg-state-") as tmp:
        for name in FILES:
            src = path / name
            if src.is_file():
                (Path(tmp) / name).write_bytes(src.read_bytes())
            elif (path / f"{name}.gz").is_file():
                try:
                    data = gzip.decompress((path / f"{name}.gz").read_bytes())
                except (OSError, EOFError, zlib.error) as e:
                    raise DataError(str(path / f"{name}.gz"), None, f"beschädigt ({e})",
                                    "eine gzip-komprimierte Segmentdatei") from None
                (Path(tmp) / name).write_bytes(data)
        return _load_files(_file_map(Path(tmp)))


def _file_map(path: Path) -> dict[str, Path]:
    """Where each segment file is to be read: beside the journal's generation
    while a committed save is pending, else in ``path``."""
    files = {name: path / name for name in STORED}
    journal = read_journal(path)
    if journal is not None:
        gen = path / journal["generation"]
        for name in journal["files"]:
            if name in files and (gen / name).is_file():
                files[name] = gen / name
    return files


def _load_files(files: dict[str, Path]) -> Segment:
    seg_file = files[SEGMENT_FILE]
    head = _load_yaml_mapping(seg_file)
    with _in_file(seg_file):
        grid, meta = _decode_head(head)
    layers = empty_layers(grid)
    layers["terrain"] = mapfile.read_map(files[MAP_FILE], grid)
    seg = Segment(grid=grid, **meta, **layers)
    with _in_file(seg_file):
        seg.settings = decode(head.get("settings", {}), Settings, "settings", grid)
    _read_kingdoms(seg, files[KINGDOMS_FILE])
    _read_armies(seg, files[ARMIES_FILE])
    _read_world(seg, files[WORLD_FILE])
    _read_layers(seg, files[LAYERS_FILE])
    with _in_file(seg_file):
        _read_extra_fields(seg, head.get("extra", {}))
    return seg


def segments_equal(a: Segment, b: Segment) -> bool:
    """True if two segments hold the same state (numpy layers compared by value,
    shape and dtype)."""
    return deep_equal(a, b)


# --- writing -----------------------------------------------------------------------

def _write_all(seg: Segment, d: Path) -> None:
    g = seg.grid
    head: dict[str, Any] = {
        "format": FORMAT, "name": seg.name, "title": seg.title, "seed": seg.seed,
        "date": seg.date.key, "provinces": f"{g.prov_cols}x{g.prov_rows}",
        "settings": encode(seg.settings, Settings, g),
    }
    extra = _extra_fields(seg)
    if extra["yaml"]:
        head["extra"] = extra["yaml"]
    _dump(d / SEGMENT_FILE, head)
    mapfile.write_map(d / MAP_FILE, seg.terrain, seg.name, g)
    _dump(d / KINGDOMS_FILE, {"kingdoms": [encode(seg.kingdoms[k], Kingdom, g)
                                           for k in sorted(seg.kingdoms)]})
    _dump(d / ARMIES_FILE, {"armies": [encode(seg.armies[n], Army, g)
                                       for n in sorted(seg.armies)]})
    _dump(d / WORLD_FILE, _world_data(seg))
    arrays = {"owner": seg.owner, "militia": seg.militia, **extra["arrays"]}
    for k in sorted(seg.known):
        for f in dataclasses.fields(KnownMap):
            arrays[f"known.{k}.{f.name}"] = getattr(seg.known[k], f.name)
    write_npz(d / LAYERS_FILE, arrays)


def _dump(path: Path, data: Any) -> None:
    text = yamlfast.dump(data, sort_keys=False, allow_unicode=True,
                         default_flow_style=False, width=100)
    path.write_text(text, encoding="utf-8")


def _world_data(seg: Segment) -> dict[str, Any]:
    g = seg.grid
    settled = set(zip(*np.nonzero(seg.settlement)))
    settled |= {g.index(h) for h in seg.settlement_names}
    settlements = []
    for row, col in sorted((int(r), int(c)) for r, c in settled):
        h = g.hex_at(row, col)
        settlements.append({"address": g.label(h), "name": seg.settlement_names.get(h, ""),
                            "size": int(seg.settlement[row, col])})
    buildings: dict[str, dict[str, int]] = {}
    for row, col in sorted({(int(r), int(c)) for _, r, c in zip(*np.nonzero(seg.buildings))}):
        levels = {b.german: int(seg.buildings[i, row, col]) for i, b in enumerate(BUILDING_ORDER)
                  if seg.buildings[i, row, col]}
        buildings[g.label(g.hex_at(row, col))] = levels
    out: dict[str, Any] = {
        "settlements": settlements,
        "buildings": buildings,
        "creatures": [encode(seg.creatures[i], Creature, g) for i in sorted(seg.creatures)],
        "treasures": [encode(seg.treasures[i], Treasure, g) for i in sorted(seg.treasures)],
        "constructions": [encode(c, Construction, g) for c in seg.constructions],
    }
    # written only when present, so that a segment saved before they existed
    # (and every archived month of it) keeps its bytes
    if seg.deposits is not None:
        out["deposits"] = [encode(seg.deposits[h], Deposit, g)
                           for h in sorted(seg.deposits, key=g.index)]
    if seg.damage:
        out["damage"] = {g.label(h): int(seg.damage[h]) for h in sorted(seg.damage, key=g.index)}
    return out


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write arrays as an ``.npz`` whose bytes depend only on the arrays
    (fixed member timestamps, so the same state gives the same file).

    The archive is built in memory and written at once. A Ctrl-C inside a
    member must stay a Ctrl-C: zipfile's ``close()`` (run by a ``with`` block on
    the way out) raises ``ValueError`` while a member is open, which hid the
    interrupt behind a traceback; the half-built buffer is dropped instead."""
    data = io.BytesIO()
    zf = zipfile.ZipFile(data, "w", compression=zipfile.ZIP_DEFLATED)
    try:
        for name in arrays:
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[name]),
                                      allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())
    except BaseException:
        zf.fp = None  # nothing to close: the buffer is dropped (close() would raise over the error)
        raise
    zf.close()
    path.write_bytes(data.getvalue())


def _extra_fields(seg: Segment) -> dict[str, dict[str, Any]]:
    hints = typing.get_type_hints(Segment)
    out: dict[str, dict[str, Any]] = {"yaml": {}, "arrays": {}}
    for f in dataclasses.fields(Segment):
        if f.name in HANDLED_FIELDS:
            continue
        value = getattr(seg, f.name)
        if hints[f.name] is np.ndarray:
            out["arrays"][f.name] = value
        else:
            out["yaml"][f.name] = encode(value, hints[f.name], seg.grid)
    return out


# --- reading -----------------------------------------------------------------------

class _in_file:
    """Context manager: fill the file name into DataErrors raised by the codec."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, DataError) and exc.path is None:
            raise DataError(str(self.path), exc.where, exc.found, exc.expected,
                            line=exc.line) from None


def _load_yaml_mapping(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise DataError(str(path), None, "Datei fehlt", f"die Segmentdatei {path.name}")
    data = safe_load_file(path)
    if not isinstance(data, dict):
        raise DataError(str(path), None, _kind(data), "eine Zuordnung (Schlüssel: Wert) auf oberster Ebene")
    return data


def _decode_head(head: dict[str, Any]) -> tuple[Grid, dict[str, Any]]:
    allowed = {"format", "name", "title", "seed", "date", "provinces", "settings", "extra"}
    for k in head:
        if k not in allowed:
            raise DataError(None, str(k), k, "Schlüssel aus " + ", ".join(sorted(allowed)))
    fmt = head.get("format", 1)
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
        raise DataError(None, "format", fmt, f"eine Formatnummer 1..{FORMAT}")
    if fmt > FORMAT:
        raise too_new(Path(SEGMENT_FILE), fmt)
    prov = head.get("provinces")
    parts = prov.lower().split("x") if isinstance(prov, str) else []
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise DataError(None, "provinces", prov, "'<Spalten>x<Zeilen>' wie '4x3'")
    cols, rows = int(parts[0]), int(parts[1])
    if not (1 <= cols <= 99 and 1 <= rows <= 9):
        raise DataError(None, "provinces", prov, "1..99 Spalten und 1..9 Zeilen von Provinzen")
    grid = Grid(cols, rows)
    meta = {
        "name": decode(_required(head, "name"), str, "name", grid),
        "title": decode(head.get("title", ""), str, "title", grid),
        "seed": decode(_required(head, "seed"), int, "seed", grid),
        "date": decode(_required(head, "date"), _month_type(), "date", grid),
    }
    return grid, meta


def _month_type() -> Any:
    return typing.get_type_hints(Segment)["date"]


def _required(data: dict[str, Any], key: str) -> Any:
    if key not in data:
        raise DataError(None, key, "nichts (Schlüssel fehlt)", f"einen Wert für den Pflichtschlüssel {key!r}")
    return data[key]


def _records(path: Path, key: str) -> list[Any]:
    data = _load_yaml_mapping(path)
    if set(data) - {key}:
        extra = sorted(str(k) for k in set(data) - {key})[0]
        raise DataError(str(path), extra, extra, f"nur den Schlüssel {key!r} auf oberster Ebene")
    items = data.get(key) or []
    if not isinstance(items, list):
        raise DataError(str(path), key, _kind(items), "eine Liste")
    return items


def _read_kingdoms(seg: Segment, path: Path) -> None:
    with _in_file(path):
        for i, item in enumerate(_records(path, "kingdoms")):
            k = decode(item, Kingdom, f"kingdoms[{i}]", seg.grid)
            if not 1 <= k.number <= 9999:
                raise DataError(None, f"kingdoms[{i}].number", k.number, "eine Nummer 1..9999")
            if k.number in seg.kingdoms:
                raise DataError(None, f"kingdoms[{i}].number", k.number,
                                "eine Reichsnummer, die in dieser Datei noch nicht vorkam")
            if k.treasury < 0:
                raise DataError(None, f"kingdoms[{i}].treasury", k.treasury, "0 oder mehr GS")
            seg.kingdoms[k.number] = k
        for i, number in enumerate(sorted(seg.kingdoms)):
            for other, status in seg.kingdoms[number].diplomacy.items():
                where = f"kingdoms[{i}].diplomacy.{other}"
                if other not in seg.kingdoms:
                    raise DataError(None, where, other, _known_kingdoms(seg))
                if not 1 <= status <= 9:
                    raise DataError(None, where, status, "einen Diplomatiestatus 1..9")


def _known_kingdoms(seg: Segment) -> str:
    nums = ", ".join(str(k) for k in sorted(seg.kingdoms)) or "keins angelegt"
    return f"die Nummer eines Reichs in kingdoms.yaml ({nums})"


def _read_armies(seg: Segment, path: Path) -> None:
    with _in_file(path):
        index: dict[int, int] = {}
        for i, item in enumerate(_records(path, "armies")):
            a = decode(item, Army, f"armies[{i}]", seg.grid)
            if not 1 <= a.number <= 9999:
                raise DataError(None, f"armies[{i}].number", a.number, "eine Nummer 1..9999")
            if a.number in seg.armies:
                raise DataError(None, f"armies[{i}].number", a.number,
                                f"eine eindeutige Heeresnummer (schon vergeben an armies[{index[a.number]}])")
            if a.kingdom not in seg.kingdoms:
                raise DataError(None, f"armies[{i}].kingdom", a.kingdom, _known_kingdoms(seg))
            if a.units < 0:
                raise DataError(None, f"armies[{i}].units", a.units, "0 oder mehr")
            seg.armies[a.number] = a
            index[a.number] = i
        for number, a in seg.armies.items():
            for attr in ("carried_by", "carrying"):
                ref = getattr(a, attr)
                if ref is not None and ref not in seg.armies:
                    raise DataError(None, f"armies[{index[number]}].{attr}", ref,
                                    "die Nummer eines Heeres in dieser Datei")


def _read_world(seg: Segment, path: Path) -> None:
    data = _load_yaml_mapping(path)
    allowed = ("settlements", "buildings", "creatures", "treasures", "constructions",
               "deposits", "damage")
    g = seg.grid
    with _in_file(path):
        _read_deposits(seg, data)
        damage = data.get("damage") or {}
        if not isinstance(damage, dict):
            raise DataError(None, "damage", _kind(damage),
                            "eine Zuordnung Adresse -> zerstörte, noch nicht reparierte Baueinheiten")
        for addr, units in damage.items():
            h = decode(addr, Hex, f"damage.{addr}", g)
            n = decode(units, int, f"damage.{addr}", g)
            if n < 1:
                raise DataError(None, f"damage.{addr}", n, "1 oder mehr Baueinheiten")
            seg.damage[h] = n
        for k in data:
            if k not in allowed:
                raise DataError(None, str(k), k, "Schlüssel aus " + ", ".join(allowed))
        for i, item in enumerate(_list(data, "settlements")):
            _read_settlement(seg, item, f"settlements[{i}]")
        buildings = data.get("buildings") or {}
        if not isinstance(buildings, dict):
            raise DataError(None, "buildings", _kind(buildings),
                            "eine Zuordnung Adresse -> {Gebäude: Stufe}")
        for addr, levels in buildings.items():
            _read_buildings(seg, addr, levels)
        for i, item in enumerate(_list(data, "creatures")):
            c = decode(item, Creature, f"creatures[{i}]", g)
            _unique(seg.creatures, c.id, f"creatures[{i}].id")
            seg.creatures[c.id] = c
        for i, item in enumerate(_list(data, "treasures")):
            t = decode(item, Treasure, f"treasures[{i}]", g)
            _unique(seg.treasures, t.id, f"treasures[{i}].id")
            seg.treasures[t.id] = t
        for i, item in enumerate(_list(data, "constructions")):
            c = decode(item, Construction, f"constructions[{i}]", g)
            if c.kingdom not in seg.kingdoms:
                raise DataError(None, f"constructions[{i}].kingdom", c.kingdom,
                                _known_kingdoms(seg))
            seg.constructions.append(c)


def _read_deposits(seg: Segment, data: dict[str, Any]) -> None:
    """``deposits:`` (a list, possibly empty); no key = a segment saved before
    deposits existed (``seg.deposits`` is ``None``)."""
    if "deposits" not in data:
        seg.deposits = None
        return
    seg.deposits = {}
    for i, item in enumerate(_list(data, "deposits")):
        d = decode(item, Deposit, f"deposits[{i}]", seg.grid)
        if d.position in seg.deposits:
            raise DataError(None, f"deposits[{i}].position", seg.grid.label(d.position),
                            "ein Vorkommen je Gemark")
        for k in d.known_by:
            if k not in seg.kingdoms:
                raise DataError(None, f"deposits[{i}].known_by", k, _known_kingdoms(seg))
        d.known_by = sorted(set(d.known_by))
        seg.deposits[d.position] = d


def _list(data: dict[str, Any], key: str) -> list[Any]:
    items = data.get(key) or []
    if not isinstance(items, list):
        raise DataError(None, key, _kind(items), "eine Liste")
    return items


def _unique(existing: dict[int, Any], key: int, where: str) -> None:
    if key in existing:
        raise DataError(None, where, key, "eine Nummer, die in dieser Datei noch nicht vorkam")


def _read_settlement(seg: Segment, item: Any, where: str) -> None:
    if not isinstance(item, dict) or set(item) - {"address", "name", "size"}:
        raise DataError(None, where, item, "eine Zuordnung mit den Schlüsseln address, name, size")
    h: Hex = decode(item.get("address"), Hex, f"{where}.address", seg.grid)
    name = decode(item.get("name", ""), str, f"{where}.name", seg.grid)
    size = decode(item.get("size", 0), int, f"{where}.size", seg.grid)
    if size < 0:
        raise DataError(None, f"{where}.size", size, "0 oder mehr Baueinheiten")
    row, col = seg.grid.index(h)
    if h in seg.settlement_names or seg.settlement[row, col]:
        raise DataError(None, f"{where}.address", item.get("address"),
                        "eine Siedlung je Gemark (\"Die Siedlung\" (a))")
    seg.settlement[row, col] = size
    seg.settlement_names[h] = name


def _read_buildings(seg: Segment, addr: Any, levels: Any) -> None:
    where = f"buildings.{addr}"
    h: Hex = decode(addr, Hex, where, seg.grid)
    if not isinstance(levels, dict):
        raise DataError(None, where, levels, "eine Zuordnung Gebäude -> Stufe, z. B. {Kaserne: 1}")
    row, col = seg.grid.index(h)
    for name, level in levels.items():
        b: Building | None = _BUILDING_BY_NAME.get(name)
        if b is None:
            raise DataError(None, f"{where}.{name}", name,
                            "eines von " + ", ".join(_BUILDING_BY_NAME))
        lv = decode(level, int, f"{where}.{name}", seg.grid)
        if not 0 <= lv <= 255:
            raise DataError(None, f"{where}.{name}", lv, "eine Stufe 0..255")
        seg.buildings[BUILDING_ORDER.index(b), row, col] = lv


def read_npz(path: Path) -> dict[str, np.ndarray]:
    """All arrays of an ``.npz`` file (no pickles); a damaged file is a DataError."""
    if not path.is_file():
        raise DataError(str(path), None, "Datei fehlt", f"die Ebenendatei {path.name}")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, zlib.error) as exc:
        raise DataError(str(path), None, _npz_problem(exc), "ein numpy-.npz-Archiv") from None


def _npz_problem(exc: Exception) -> str:
    """What was wrong with a layer file, in German (numpy's and zipfile's own
    texts are English)."""
    if isinstance(exc, EOFError):
        return "eine abgeschnittene Datei"
    if isinstance(exc, zlib.error):
        return "beschädigte komprimierte Daten"
    if isinstance(exc, zipfile.BadZipFile) or "pickle" in str(exc):
        return "kein ZIP-Archiv (beschädigt oder überschrieben)"
    if isinstance(exc, OSError):
        return f"eine nicht lesbare Datei (errno {exc.errno})"
    return f"ein beschädigtes Archiv ({type(exc).__name__})"


def _read_layers(seg: Segment, path: Path) -> None:
    arrays = read_npz(path)
    p = str(path)
    for name, dtype in LAYER_DTYPES.items():
        if name not in arrays:
            raise DataError(p, name, "Ebene fehlt", f"ein Feld {name!r} der Form {seg.grid.shape}")
        setattr(seg, name, _layer(p, name, arrays.pop(name), seg.grid.shape, dtype))
    bad = set(np.unique(seg.owner).tolist()) - set(seg.kingdoms) - {0}
    if bad:
        row, col = np.argwhere(np.isin(seg.owner, sorted(bad)))[0]
        raise DataError(p, f"owner[{seg.grid.label(seg.grid.hex_at(int(row), int(col)))}]",
                        int(seg.owner[row, col]), "0 (neutral) oder " + _known_kingdoms(seg))
    _read_known(seg, p, arrays)
    hints = typing.get_type_hints(Segment)
    for f in dataclasses.fields(Segment):
        if f.name not in HANDLED_FIELDS and hints[f.name] is np.ndarray and f.name in arrays:
            value = arrays.pop(f.name)
            default = getattr(seg, f.name)
            expected = default.shape if isinstance(default, np.ndarray) else value.shape
            setattr(seg, f.name, _layer(p, f.name, value, expected, value.dtype))
    if arrays:
        raise DataError(p, sorted(arrays)[0], "ein unerwartetes Feld",
                        "owner, militia, known.<Reich>.<Feld> oder eine Segmentebene")


def _read_known(seg: Segment, p: str, arrays: dict[str, np.ndarray]) -> None:
    template = new_known_map(seg.grid)
    names = [f.name for f in dataclasses.fields(KnownMap)]
    numbers = sorted({int(k.split(".")[1]) for k in arrays
                      if k.startswith("known.") and k.split(".")[1].isdigit()})
    for k in numbers:
        if k not in seg.kingdoms:
            raise DataError(p, f"known.{k}", k, _known_kingdoms(seg))
        parts = {}
        for name in names:
            key = f"known.{k}.{name}"
            if key not in arrays:
                raise DataError(p, key, "Feld fehlt", f"die Ebene {name!r} der bekannten Karte")
            want = getattr(template, name)
            parts[name] = _layer(p, key, arrays.pop(key), want.shape, want.dtype)
        seg.known[k] = KnownMap(**parts)
    for k in seg.kingdoms:
        seg.known.setdefault(k, new_known_map(seg.grid))


def _layer(p: str, key: str, arr: np.ndarray, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    if arr.shape != tuple(shape):
        raise DataError(p, key, f"Form {arr.shape}", f"Form {tuple(shape)} (Zeilen, Spalten)")
    if arr.dtype.kind not in "iub" and np.dtype(dtype).kind in "iub":
        raise DataError(p, key, f"dtype {arr.dtype}", f"ganze Zahlen ({np.dtype(dtype)})")
    out = arr.astype(dtype)
    if not np.array_equal(out, arr):
        raise DataError(p, key, "Werte außerhalb des Bereichs", f"Werte, die in {np.dtype(dtype)} passen")
    return out


def _read_extra_fields(seg: Segment, extra: Any) -> None:
    if not isinstance(extra, dict):
        raise DataError(None, "extra", extra, "eine Zuordnung zusätzlicher Segmentfelder")
    hints = typing.get_type_hints(Segment)
    for key, value in extra.items():
        if key in HANDLED_FIELDS or key not in hints or hints[key] is np.ndarray:
            raise DataError(None, f"extra.{key}", key, "den Namen eines angehängten Segmentfelds")
        setattr(seg, key, decode(value, hints[key], f"extra.{key}", seg.grid))
