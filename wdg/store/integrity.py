"""The integrity layer: hash lists over the live segment and every archived
month, the chain of months, and the checks that name a damaged file
(docs/storage.md, "The integrity layer").

One format everywhere: a file ``SHA256SUMS`` in the format of GNU
``sha256sum`` — ``<64 hex digits>  <relative path>`` per line, sorted by path,
``#`` comment lines at the top — so ``cd DIR && sha256sum -c SHA256SUMS``
checks a folder with standard tools.

- ``worlds/<segment>/SHA256SUMS`` lists the six segment files (as stored) and
  the hash of the last archived month's list (``turns/<M>/SHA256SUMS``). It is
  written into a save's generation and committed with the save's journal.
- ``turns/<M>/SHA256SUMS`` lists every file of the month's folder (inputs,
  state before and after, events, outputs, index, provenance) and the hash of
  the previous month's list (``../<M-1>/SHA256SUMS``): a chain, so a month
  removed, replaced or forged in the middle breaks a link. It is written last,
  in the staging folder, before the commit point.

Every check returns :class:`Finding` objects (German text naming the file);
nothing here raises on damage, and nothing here changes a file except the
two writers of a list (:func:`seal_month`, :func:`live_list`) and
:func:`write_sealed`.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from wdg.errors import DataError, InvalidInputError, StateError
from wdg.fsio import PRIVATE_MODE, fsync_dir, german_strerror, write_durable
from wdg.rules import safe_load_file
from wdg.world.calendar import MonthDate

LIST = "SHA256SUMS"
"""The name of a hash list (live segment and every archived month)."""
TURNS = "turns"
MANIFEST = "manifest.yaml"
_LINE = re.compile(r"^([0-9a-f]{64}) [ *](.+)$")
_MONTH = re.compile(r"^\d{4}-\d{2}$")
SEAL_PREFIX = "# sha256: "
"""The last line of a sealed record (:func:`write_sealed`)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found on disk: the file and what is wrong with it (German)."""

    path: str
    what: str
    uncovered: bool = False
    """Not damage: a part the hash lists do not cover (a month archived by an
    older wdg, a segment saved by one)."""

    def __str__(self) -> str:
        return f"{self.path}: {self.what}"


class IntegrityError(DataError):
    """A stored file does not match its hash list (or the chain of months is
    broken): the message names the file, says what is wrong and what to do."""

    def __init__(self, findings: Iterable[Finding], context: str = "") -> None:
        self.findings = list(findings)
        first = self.findings[0]
        more = (f" (und {len(self.findings) - 1} weitere Befunde: 'wdg segment check')"
                if len(self.findings) > 1 else "")
        self.path, self.where, self.found, self.expected, self.line = \
            first.path, None, first.what, "", None
        Exception.__init__(self, f"{first}{more}{context}")


class ListWriteError(StateError):
    """A hash list could not be written as it must be (e.g. without the link to
    the last archived month): raised before anything is committed, never
    swallowed — a list written without its link would end the chain unseen."""


def digest(data: bytes) -> str:
    """The hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """The hex SHA-256 of a file's bytes (never through a symlink)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def format_list(entries: dict[str, str], comment: str) -> bytes:
    """The bytes of a hash list: comment lines, then ``hash  path`` sorted by path."""
    head = "".join(f"# {line}\n" for line in comment.splitlines())
    body = "".join(f"{h}  {p}\n" for p, h in sorted(entries.items()))
    return (head + body).encode("utf-8")


def parse_list(path: Path) -> dict[str, str] | Finding:
    """``{relative path: hash}`` of a hash list, or a Finding naming the bad line."""
    try:
        if path.is_symlink():
            return Finding(str(path), "ist ein symbolischer Link (wdg folgt ihm nicht)")
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return Finding(str(path), "die Hashliste fehlt")
    except UnicodeDecodeError:
        return Finding(str(path), "beschädigt (kein UTF-8-Text)")
    except OSError as e:
        return Finding(str(path), f"nicht lesbar ({german_strerror(e)})")
    out: dict[str, str] = {}
    if not text.endswith("\n"):
        return Finding(str(path), "abgeschnitten (die letzte Zeile ist unvollständig)")
    for n, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if m is None or m.group(2) in out:
            return Finding(f"{path}, Zeile {n}", "beschädigt (erwartet: '<SHA-256>  <Datei>')")
        out[m.group(2)] = m.group(1)
    return out


def _walk(root: Path) -> tuple[dict[str, Path], list[str]]:
    """Every regular file under ``root`` (relative posix path -> path) and the
    symlinks and other non-files found (never followed)."""
    files: dict[str, Path] = {}
    odd: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        for name in list(dirnames):
            if (base / name).is_symlink():
                odd.append((base / name).relative_to(root).as_posix())
                dirnames.remove(name)
        for name in filenames:
            p = base / name
            rel = p.relative_to(root).as_posix()
            if stat.S_ISREG(os.lstat(p).st_mode):
                files[rel] = p
            else:
                odd.append(rel)
    return dict(sorted(files.items())), sorted(odd)


# --- months ---------------------------------------------------------------------------------

def link_target(month: Path) -> tuple[str, Path] | None:
    """What a link to an archived month hashes: its list, or for a month
    archived by an older wdg its manifest (``None``: neither exists)."""
    for name in (LIST, MANIFEST):
        p = month / name
        if p.is_file() and not p.is_symlink():
            return name, p
    return None


def seal_month(mdir: Path, previous: Path | None) -> bytes:
    """Write ``mdir/SHA256SUMS`` over every file in the month's (staging)
    folder and a link to the previous archived month ``previous`` (its name is
    the month, e.g. ``turns/0412-04``). Called last, before the commit point."""
    files, odd = _walk(mdir)
    if odd:
        raise StateError(f"{mdir}: unerwartete Einträge {', '.join(odd)} (keine reguläre "
                         "Datei); nichts wurde gespeichert")
    entries = {rel: file_digest(p) for rel, p in files.items() if rel != LIST}
    if previous is not None:
        target = link_target(previous)
        if target is not None:
            entries[f"../{previous.name}/{target[0]}"] = file_digest(target[1])
    data = format_list(entries, f"wdg: SHA-256 of every file of archived month {mdir.name.removeprefix('.staging-')}\n"
                       "check: cd to this folder, then sha256sum -c SHA256SUMS")
    (mdir / LIST).write_bytes(data)
    return data


def verify_month(mdir: Path, *, full: bool = True) -> list[Finding]:
    """Check an archived month on its own: every file against the month's
    list (missing, changed, truncated, unlisted files and symlinks are named).
    ``full=False`` hashes only the small index files (seed, summary, manifest,
    provenance) and checks that the other listed files exist. A month archived
    by an older wdg (no list) is checked against its manifest (outputs only)
    and one Finding with ``uncovered`` says what is not covered."""
    entries = parse_list(mdir / LIST)
    if isinstance(entries, Finding):
        if not (mdir / LIST).exists() and not (mdir / LIST).is_symlink():
            return _verify_legacy(mdir, full)
        return [entries]
    found: list[Finding] = []
    files, odd = _walk(mdir)
    for rel in odd:
        found.append(Finding(str(mdir / rel), "ist keine reguläre Datei (symbolischer Link?) — "
                             "im Archiv nicht erlaubt"))
    for rel, want in sorted(entries.items()):
        if rel.startswith("../"):
            continue  # the link to the previous month: check_chain
        p = files.get(rel)
        if p is None:
            found.append(Finding(str(mdir / rel), "fehlt im archivierten Mond (in der Hashliste "
                                 "verzeichnet)"))
            continue
        small = "/" not in rel and not rel.startswith("events")
        if (full or small) and file_digest(p) != want:
            found.append(Finding(str(mdir / rel), "beschädigt oder verändert (SHA-256 weicht von "
                                 f"{mdir / LIST} ab)" + _members_changed(mdir, rel)))
    for rel in files:
        if rel != LIST and rel not in entries:
            found.append(Finding(str(mdir / rel), f"nicht in der Hashliste {mdir / LIST} "
                                 "(nachträglich hinzugefügt)"))
    return found


def _members_changed(mdir: Path, rel: str) -> str:
    """For a damaged pack: which of its members differ from the manifest."""
    # lazy: wdg.store.files imports numpy, which the mail modules importing this one do without
    from wdg.store.files import PACK, read_pack

    if not rel.endswith(PACK):
        return ""
    manifest = _read_manifest(mdir / MANIFEST)
    try:
        members = read_pack(mdir / rel)
    except (StateError, OSError):
        return " — das Paket ist nicht lesbar"
    if isinstance(manifest, Finding):
        return ""
    folder = rel[: -len(PACK)]
    changed = sorted(folder + name for name, data in members.items()
                     if manifest.get(folder + name) != digest(data))
    return f" — betroffen: {', '.join(changed[:5])}" if changed else ""


def _verify_legacy(mdir: Path, full: bool) -> list[Finding]:
    """A month archived before hash lists: its manifest's outputs."""
    from wdg.store.files import stored_bytes  # lazy: numpy (see _members_changed)

    found = [Finding(str(mdir), "von einer älteren wdg-Version archiviert: Eingaben (Bögen, "
                     "Regeln, Seed, Zustand davor) und Index sind durch keine Hashliste "
                     "abgesichert; geprüft wird nur, was das Manifest nennt", uncovered=True)]
    mpath = mdir / MANIFEST
    manifest = _read_manifest(mpath)
    if isinstance(manifest, Finding):
        return found + [manifest]
    if not full:
        return found
    for name, want in sorted(manifest.items()):
        try:
            same = digest(stored_bytes(mdir, name)) == want
        except FileNotFoundError:
            found.append(Finding(str(mdir / name), "fehlt im archivierten Mond (im Manifest "
                                 "verzeichnet)"))
            continue
        except (OSError, StateError, EOFError, ValueError):
            same = False
        if not same:
            found.append(Finding(str(mdir / name), f"beschädigt oder verändert (SHA-256 weicht "
                                 f"von {mpath} ab)"))
    return found


def _read_manifest(path: Path) -> dict[str, str] | Finding:
    if not path.is_file():
        return Finding(str(path), "das Manifest fehlt")
    try:
        data = safe_load_file(path)
    except DataError as e:
        return Finding(str(path), f"beschädigt ({e.found})")
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in files.items()):
        return Finding(str(path), "beschädigt (erwartet: 'files:' mit Datei -> SHA-256)")
    return files


def read_manifest(mdir: Path) -> dict[str, str]:
    """The manifest of an archived month (``{output: sha256}``); a missing or
    damaged manifest is an :class:`IntegrityError` naming it."""
    got = _read_manifest(mdir / MANIFEST)
    if isinstance(got, Finding):
        raise IntegrityError([got])
    return got


def month_dirs(turns: Path) -> list[Path]:
    """The archived months (``turns/YYYY-MM``), oldest first."""
    if not turns.is_dir():
        return []
    return sorted(p for p in turns.iterdir() if _MONTH.match(p.name))


def check_chain(seg_dir: Path, date: str | None = None) -> list[Finding]:
    """The month counter against the archive: months without a gap, each
    month's link to the previous one, the live list's link to the last one,
    and the segment's date right after the last archived month (a date set
    back or forward is named, never "recovered"). ``date``: the segment's
    ``YYYY-MM`` (default: read from segment.yaml)."""
    turns = seg_dir / TURNS
    found: list[Finding] = []
    months = month_dirs(turns)
    for p in months:
        if p.is_symlink() or not p.is_dir():
            found.append(Finding(str(p), "ist kein Ordner (symbolischer Link?) — im Archiv nicht "
                                 "erlaubt"))
    if turns.is_dir():
        for p in sorted(turns.iterdir()):
            if not p.name.startswith(".") and not _MONTH.match(p.name):
                found.append(Finding(str(p), "gehört nicht ins Archiv (erwartet: Ordner YYYY-MM)"))
    dates = []
    for p in months:
        try:
            dates.append(MonthDate.parse(p.name))
        except InvalidInputError:  # e.g. month 13
            found.append(Finding(str(p), "kein gültiger Mond (YYYY-MM)"))
    for a, b in zip(dates, dates[1:]):
        if a.next() != b:
            gap = a.next().key + ("" if a.next().next() == b else f" bis {b.previous().key}")
            found.append(Finding(str(turns), f"Lücke in der Kette der Monde: {gap} fehlt "
                                 f"(zwischen {a.key} und {b.key})"))
    for prev, cur in zip(months, months[1:]):
        found += _check_link(cur, prev, f"../{prev.name}/")
    if date is None:
        date = _read_date(seg_dir)
    if date is not None and dates:
        last = dates[-1]
        try:
            d = MonthDate.parse(date)
        except InvalidInputError:  # a damaged date: the segment's own check names it
            d = None
        seg_file = str(seg_dir / "segment.yaml")
        if d is not None and d <= last:
            found.append(Finding(seg_file, f"das Datum {d.key} ist zurückgesetzt: der Mond "
                                 f"{last.key} ist schon ausgewertet und archiviert "
                                 f"({turns / last.key}); erwartet {last.next().key}. Nichts wird "
                                 "neu ausgewertet; ist der letzte Mond falsch, nehmen Sie ihn "
                                 f"mit 'wdg turn undo {seg_dir.name}' zurück"))
        elif d is not None and d != last.next():
            found.append(Finding(seg_file, f"das Datum {d.key} ist vorgestellt: nach dem letzten "
                                 f"archivierten Mond {last.key} fehlen {last.next().key} bis "
                                 f"{d.previous().key} im Archiv; erwartet {last.next().key}"))
    live = parse_list(seg_dir / LIST)
    if isinstance(live, dict):
        links = {k: v for k, v in live.items() if k.startswith(f"{TURNS}/")}
        if months:
            found += _check_link(seg_dir, months[-1], f"{TURNS}/{months[-1].name}/", live)
        for k in links:
            if months and k.split("/")[1] == months[-1].name:
                continue
            found.append(Finding(str(seg_dir / LIST), f"verweist auf {k}, aber der letzte "
                                 "archivierte Mond ist "
                                 f"{months[-1].name if months else 'keiner'} (Mond entfernt "
                                 "oder ersetzt?)"))
    return found


def _check_link(holder: Path, prev: Path, prefix: str,
                entries: dict[str, str] | None = None) -> list[Finding]:
    """The link from ``holder``'s list to the previous month ``prev``."""
    if entries is None:
        got = parse_list(holder / LIST)
        if not isinstance(got, dict):
            return []  # a legacy month (no list) or a damaged one (verify_month names it)
        entries = got
    links = {k: v for k, v in entries.items() if k.startswith(prefix)}
    target = link_target(prev)
    if not links:
        if target is not None and target[0] == LIST and prefix.startswith(".."):
            return [Finding(str(holder / LIST), f"kein Verweis auf den vorigen Mond {prev.name} "
                            "(der Mond wurde vor ihm archiviert? Kette unterbrochen)")]
        return []
    (name, want), = list(links.items())[:1]
    if target is None or prefix + target[0] != name:
        return [Finding(str(holder / LIST), f"verweist auf {name}, das fehlt (Mond "
                        f"{prev.name} entfernt oder ersetzt?)")]
    if file_digest(target[1]) != want:
        return [Finding(str(target[1]), f"weicht vom Verweis in {holder / LIST} ab: der Mond "
                        f"{prev.name} wurde nach dem Archivieren verändert oder ersetzt")]
    return []


def _read_date(seg_dir: Path) -> str | None:
    try:
        head = safe_load_file(seg_dir / "segment.yaml")
    except DataError:
        return None
    return str(head.get("date")) if isinstance(head, dict) and head.get("date") else None


# --- the live segment -------------------------------------------------------------------------

def live_list(files: dict[str, Path], seg_dir: Path, date_key: str,
              renames: Iterable[tuple[str, str]] = ()) -> bytes:
    """The live list's bytes for a save: the segment files (``{name: path}``,
    as the save wrote them) and the link to the last archived month before
    ``date_key`` — looked up where the save's ``renames`` take it from (the
    staged month a commit archives)."""
    entries = {name: file_digest(p) for name, p in files.items()}
    try:
        last = MonthDate.parse(date_key).previous().key
    except InvalidInputError as e:
        # never a list without its link to the last month (the chain would end unseen)
        raise ListWriteError(f"{seg_dir / LIST}: die Hashliste kann nicht geschrieben werden, "
                             f"das Datum {date_key!r} des Segments ist kein Mond ({e}); nichts "
                             "wurde gespeichert") from None
    folder = seg_dir / TURNS / last
    for src, dst in renames:
        if dst == f"{TURNS}/{last}":
            folder = seg_dir / src
    if folder.is_symlink():
        raise ListWriteError(f"{folder}: der letzte archivierte Mond ist ein symbolischer Link "
                             f"(auf {os.readlink(folder)}); die Hashliste {seg_dir / LIST} "
                             "verwiese nicht auf ihn. Nichts wurde gespeichert — den Link von "
                             "Hand entfernen und den Mond zurückholen ('wdg segment check')")
    target = link_target(folder)
    if target is not None and folder.is_dir():
        entries[f"{TURNS}/{last}/{target[0]}"] = file_digest(target[1])
    return format_list(entries, "wdg: SHA-256 of the segment's files as saved, and of the last "
                       "archived month's hash list\ncheck: cd to this folder, then sha256sum -c "
                       "SHA256SUMS")


def verify_files(files: dict[str, Path], list_path: Path) -> list[Finding]:
    """The segment files ``{name: path}`` about to be read against the live
    list at ``list_path``."""
    entries = parse_list(list_path)
    if isinstance(entries, Finding):
        return [entries]
    found = []
    for name, p in files.items():
        want = entries.get(name)
        try:
            got = file_digest(p)
        except FileNotFoundError:
            found.append(Finding(str(p), "fehlt (in der Hashliste verzeichnet)" if want
                                 else "fehlt"))
            continue
        except OSError as e:
            found.append(Finding(str(p), f"nicht lesbar ({german_strerror(e)}; symbolischer Link?)"))
            continue
        if want is None:
            found.append(Finding(str(p), f"nicht in der Hashliste {list_path}"))
        elif got != want:
            found.append(Finding(str(p), "beschädigt oder außerhalb von wdg verändert (SHA-256 "
                                 f"weicht von {list_path} ab); wurde die Datei absichtlich von "
                                 "Hand geändert: 'wdg segment accept "
                                 f"{list_path.parent.name}' nach Prüfung"))
    return found


def has_sealed_months(seg_dir: Path) -> bool:
    """True if an archived month has a hash list (then the live list is required)."""
    return any((m / LIST).exists() for m in month_dirs(seg_dir / TURNS))


def verify_segment(seg_dir: Path, *, full: bool = True) -> list[Finding]:
    """Everything: the live files, the chain, and every archived month
    (``full``: every file's hash; else the index files and presence)."""
    # here, not at the top: journal, mailrecords, seen, sent and edits import this module
    from wdg.store.journal import FILES

    found: list[Finding] = []
    if (seg_dir / LIST).exists() or (seg_dir / LIST).is_symlink():
        found += verify_files({n: seg_dir / n for n in FILES}, seg_dir / LIST)
    elif has_sealed_months(seg_dir):
        found.append(Finding(str(seg_dir / LIST), "die Hashliste des Segments fehlt (das Archiv "
                             "hat Hashlisten: entfernt?)"))
    else:
        found.append(Finding(str(seg_dir), "von einer älteren wdg-Version gespeichert: die "
                             "Dateien des Segments sind durch keine Hashliste abgesichert (das "
                             "nächste Speichern schreibt sie)", uncovered=True))
    # the mail records, written between months; here for the cycle named above
    from wdg.store.mailrecords import check_records
    from wdg.store.seen import check_seen
    from wdg.store.sent import check_sent

    from wdg.store.edits import check_live  # the live files against the last month's state

    found += check_seen(seg_dir) + check_sent(seg_dir) + check_records(seg_dir)
    found += check_live(seg_dir)
    found += check_chain(seg_dir)
    for m in month_dirs(seg_dir / TURNS):
        if m.is_dir() and not m.is_symlink():
            found += verify_month(m, full=full)
    if full:
        found += verify_blobs(seg_dir)
    return found


BLOB_STORE = (".blobs", "sha256")
"""``turns/.blobs/sha256/<hex>``: the archived templates, content-addressed
(:mod:`wdg.store.months`); a blob's name is the SHA-256 of its content."""


def verify_blobs(seg_dir: Path) -> list[Finding]:
    """Every archived template blob: a regular file whose content has the
    SHA-256 it is named by (the months that used it list it in their covered
    ``provenance.yaml``)."""
    store = seg_dir.joinpath(TURNS, *BLOB_STORE)
    found: list[Finding] = []
    if store.is_symlink():
        return [Finding(str(store), "ist ein symbolischer Link; wdg folgt ihm nicht")]
    if not store.is_dir():
        return found
    for b in sorted(store.iterdir()):
        st = os.lstat(b)
        if not stat.S_ISREG(st.st_mode):
            found.append(Finding(str(b), "keine gewöhnliche Datei (Link oder Ordner) im Speicher "
                                 "der archivierten Vorlagen"))
        elif file_digest(b) != b.name:
            found.append(Finding(str(b), "archivierte Vorlage beschädigt (ihr Inhalt hat nicht den "
                                 "SHA-256, nach dem sie benannt ist); aus der Sicherung "
                                 "zurückholen"))
    return found + _missing_blobs(seg_dir, store)


def _missing_blobs(seg_dir: Path, store: Path) -> list[Finding]:
    """Every template an archived month's ``provenance.yaml`` names is in the
    store (issue #40 item 4: a deleted blob passed every check, and then no
    month replayed)."""
    found: list[Finding] = []
    for m in month_dirs(seg_dir / TURNS):
        prov = m / "provenance.yaml"
        if m.is_symlink() or not prov.is_file() or prov.is_symlink():
            continue
        try:
            data = safe_load_file(prov)
        except DataError:
            continue  # a damaged provenance is named by the month's own check
        templates = data.get("templates") if isinstance(data, dict) else None
        if not isinstance(templates, dict):
            continue
        for name, want in sorted(templates.items()):
            want = str(want)
            p = store / want
            if not re.fullmatch(r"[0-9a-f]{64}", want):
                found.append(Finding(str(prov), f"nennt für die Vorlage {name} keinen "
                                     f"SHA-256-Wert ({want[:80]!r})"))
            elif not p.is_file() and not p.is_symlink():
                found.append(Finding(str(p), f"die archivierte Vorlage {name} von Mond {m.name} "
                                     "fehlt (gelöscht?); ohne sie läßt sich der Mond nicht "
                                     "nachspielen — aus der Sicherung zurückholen"))
    return found


# --- checks before a two-step command -----------------------------------------------------------

def precheck(what: str, writable: Iterable[Path], *, same_fs: Iterable[Path] = (),
             need: int = 0, space_at: Path | None = None,
             space: Mapping[Path, int] | None = None) -> None:
    """Refuse a command before it commits anything unless it can finish (issue
    #30): every directory in ``writable`` takes a new file (a probe: an unnamed
    file, written and gone however we die; a directory not made yet is probed
    at the nearest one that exists, where it will be made), the existing paths
    in ``same_fs`` lie on one file system (renames between them cannot fail
    half-way), and each file system has room for what will be written on it:
    ``space`` maps a path to the bytes written there (``need``/``space_at``:
    one such pair); the needs of paths on one file system add up, and the
    check asks for a tenth more plus 1 MiB (:data:`SPACE_MARGIN`). ``what``:
    the command, for the German message (``<what> nicht begonnen: …``), which
    names the path, what is missing, and says that nothing was changed."""
    checked: set[Path] = set()
    for d in writable:
        d = _existing(Path(d))
        if d in checked:
            continue
        checked.add(d)
        if d.is_symlink():
            raise StateError(f"{what} nicht begonnen: {d} ist ein symbolischer Link; wdg folgt "
                             "ihm nicht. Entfernen Sie den Link (rm, nicht rm -r) und rufen Sie "
                             "den Befehl erneut auf. Nichts wurde geändert.")
        try:  # an unnamed file (O_TMPFILE on Linux): nothing is left, however we die
            with tempfile.TemporaryFile(prefix=".wdg-probe-", dir=d) as f:
                f.write(b"\0" * 4096)
                f.flush()
        except OSError as e:
            raise StateError(f"{what} nicht begonnen: in {d} kann nicht geschrieben werden "
                             f"({german_strerror(e)}). Nichts wurde geändert; machen Sie den Ordner "
                             "beschreibbar und rufen Sie den Befehl erneut auf.") from None
    devs: dict[int, Path] = {}
    for p in same_fs:
        if p.exists():
            devs.setdefault(os.lstat(p).st_dev, p)
    if len(devs) > 1:
        a, b = list(devs.values())[:2]
        raise StateError(f"{what} nicht begonnen: {a} und {b} liegen auf verschiedenen "
                         "Dateisystemen (ein Umbenennen dazwischen wäre kein einzelner Schritt). "
                         "Nichts wurde geändert.")
    wanted = dict(space or {})
    if need and space_at is not None:
        wanted[space_at] = wanted.get(space_at, 0) + need
    by_fs: dict[int, tuple[Path, int]] = {}
    for p, n in wanted.items():
        at = _existing(Path(p))
        dev = os.stat(at).st_dev
        first, total = by_fs.get(dev, (Path(p), 0))
        by_fs[dev] = (first, total + n)
    for at, n in by_fs.values():
        if n <= 0:
            continue
        free = shutil.disk_usage(_existing(at)).free
        want = with_margin(n)
        if free < want:
            raise StateError(f"{what} nicht begonnen: auf dem Datenträger von {at} sind "
                             f"{free // 1024} KiB frei, gebraucht werden etwa {want // 1024} KiB. "
                             "Nichts wurde geändert; schaffen Sie Platz und rufen Sie den Befehl "
                             "erneut auf.")


SPACE_MARGIN = (10, 1 << 20)
"""A space check asks for the estimate plus a tenth of it plus 1 MiB (file
system blocks, directory entries, journals and temporary files the estimate
does not count)."""


def with_margin(need: int) -> int:
    """The free bytes a space check asks for ``need`` estimated bytes."""
    return need + need // SPACE_MARGIN[0] + SPACE_MARGIN[1]


def tree_size(path: Path) -> int:
    """The bytes of the regular files at or under ``path`` (links not followed; 0 if none)."""
    try:
        st = os.lstat(path)
    except OSError:
        return 0
    if stat.S_ISREG(st.st_mode):
        return st.st_size
    if not stat.S_ISDIR(st.st_mode):
        return 0
    total = 0
    for root, _dirs, names in os.walk(path):
        for n in names:
            try:
                st = os.lstat(os.path.join(root, n))
            except OSError:
                continue
            total += st.st_size if stat.S_ISREG(st.st_mode) else 0
    return total


def _existing(p: Path) -> Path:
    """``p``, or the nearest directory above it that exists (where it will be made)."""
    while not p.exists() and not p.is_symlink() and p.parent != p:
        p = p.parent
    return p


# --- sealed records (written between months: mail records) ---------------------------------------

def write_sealed(path: Path, data: bytes) -> None:
    """Write a record atomically with its own checksum: a first line
    :data:`SEALED_HEAD` (so a file cut short is told from one written before
    sealing) and a last line ``# sha256: <hex of everything before>``; a
    temporary file beside it, fsynced, then ``os.replace`` (0600: the records
    hold players' addresses). For files written between months (the mail
    records): a bit flip or a truncation is found by :func:`read_sealed`. The
    caller holds the segment's lock: temporary files a killed writer left
    beside ``path`` are removed first."""
    sealed = sealed_bytes(data)
    for stale in path.parent.glob(f".{path.name}.tmp-*"):  # of a writer killed (SIGKILL)
        if stale.is_file() and not stale.is_symlink():  # (the caller holds the lock)
            stale.unlink()
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write_durable(tmp, sealed, mode=PRIVATE_MODE)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def sealed_bytes(data: bytes) -> bytes:
    """A record's bytes sealed: :data:`SEALED_HEAD`, ``data`` (with a final
    line end), and ``# sha256: <hex of everything before>``."""
    if data and not data.endswith(b"\n"):
        data += b"\n"
    data = SEALED_HEAD + data
    return data + f"{SEAL_PREFIX}{digest(data)}\n".encode()


SEALED_HEAD = b"# versiegelt (wdg): die letzte Zeile ist die SHA-256 alles Vorherigen\n"
"""The first line of a sealed record (:func:`write_sealed`)."""


def is_sealed(raw: bytes) -> bool:
    """Whether a record's bytes were written by :func:`write_sealed` (its first
    line), whatever happened to them since."""
    return raw.startswith(SEALED_HEAD)


def read_sealed(path: Path) -> bytes:
    """The content of a record written by :func:`write_sealed` (without its
    first and last line); a mismatch or a file cut short is an
    :class:`IntegrityError` naming it. A file without the first line and
    without a checksum line (written before sealing) is returned as it is."""
    return unseal(path.read_bytes(), path)


def unseal(raw: bytes, path: Path) -> bytes:
    """:func:`read_sealed` of bytes read from ``path`` already."""
    body, sep, last = raw.rstrip(b"\n").rpartition(b"\n")
    if not sep:
        body, last = b"", raw.rstrip(b"\n")
    if not last.startswith(SEAL_PREFIX.encode()) or not raw.endswith(b"\n"):
        if is_sealed(raw) or SEAL_PREFIX.encode() in raw:
            raise IntegrityError([Finding(str(path), "abgeschnitten oder beschädigt (die "
                                          "Prüfsummenzeile ist nicht die letzte)")])
        return raw
    body = body + b"\n" if body else b""
    if last[len(SEAL_PREFIX):].decode("ascii", "replace") != digest(body) \
            or not is_sealed(body):
        raise IntegrityError([Finding(str(path), "beschädigt oder von Hand verändert (die "
                                      "Prüfsumme der letzten Zeile stimmt nicht)")])
    return body[len(SEALED_HEAD):]
