"""Order sheets between months, on disk: ``orders/<segment>/<YYYY-MM>/``
(docs/storage.md, "Order sheets between months"; docs/orders.md, "Mailbox intake").

Each sheet ``k<n>.txt`` stands with its receipt ``k<n>.receipt.yaml`` (sender,
arrival, the sheet's SHA-256, status); a sheet it replaces moves to
``replaced/`` — all of it under one journal of its own
(``.intake-<token>.journal``, scratch files ``.k<n>.txt.new``): a sheet
never stands without its receipt. What the intake decides (accepted,
duplicate, older, refused) is :mod:`wdg.orders.intake`'s; this module keeps
the files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from datetime import datetime
from pathlib import Path

import yaml

from wdg.fsio import fsync_dir, write_durable, write_private
from wdg.errors import StateError
from wdg.store.edges import LinkRefused, refuse_links
from wdg.store.integrity import Finding, precheck


class IntakeMoveError(StateError):
    """A committed intake journal's move is not done (checked after every roll forward)."""


def sha_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def receipts(folder: Path, n: int) -> list[tuple[Path, dict]]:
    paths = [folder / f"k{n}.receipt.yaml", *sorted((folder / "replaced").glob(f"k{n}.*.receipt.yaml"))]
    out = []
    for p in paths:
        if p.is_file():
            try:
                out.append((p, yaml.safe_load(p.read_text(encoding="utf-8")) or {}))
            except (yaml.YAMLError, OSError, UnicodeDecodeError):
                out.append((p, {}))
    return out


def next_free(replaced: Path, n: int) -> int:
    """The next number ``i`` for which neither ``k<n>.<i>.txt`` nor its receipt exists."""
    used = {0}
    for p in replaced.glob(f"k{n}.*"):
        parts = p.name.split(".")
        if len(parts) >= 3 and parts[1].isdigit():
            used.add(int(parts[1]))
    return max(used) + 1


def iso_time(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def write_sheet(folder: Path, sheet: Path, receipt: Path, text: str, data: dict,
           moves: list[tuple[Path, Path]] | None = None) -> None:
    """Store a sheet and its receipt — and move the sheet they replace to
    ``replaced/`` (``moves``) — under one journal: all of it or nothing,
    whatever kills the import (:func:`commit`). Nothing is overwritten: a
    numbered file is never reused."""
    leaving = {src for src, _ in moves or []}
    for p in (sheet, receipt):
        if p.exists() and p not in leaving:
            raise FileExistsError(p)
    commit(folder, [(sheet, text.encode("utf-8")), (receipt, receipt_text(data))],
            moves or [])


JOURNAL_GLOB = ".intake-*.journal"


def commit(folder: Path, writes: list[tuple[Path, bytes]],
            moves: list[tuple[Path, Path]]) -> None:
    """One step of the intake, crash-safe: each new file is written in full
    beside its place (``.<name>.new``, flushed); then the journal
    ``.intake-<token>.journal`` naming every move (the replaced sheet and
    receipt first, then the new files) is put in place atomically — the commit
    point; then the moves are done and the journal removed. An import killed
    anywhere leaves either no journal (nothing changed; the ``.new`` files
    are removed by :func:`recover_intake`) or one that the next import or
    month run completes."""
    # The roll forward only renames: its target folders are made now and must lie
    # on the folder's file system (a mkdir or a rename across file systems after the
    # commit could fail; issue #30 item 5). The new files' space is taken below.
    # No link anywhere from the campaign's orders/ down to a file moved or written
    # (a linked replaced/ made the move of the replaced sheet silently not happen).
    top = campaign_top(folder)
    for p in [folder, *(a for a, _ in moves), *(b for _, b in moves), *(d for d, _ in writes)]:
        refuse_links(top, p, "speichert Spielzüge")
    targets = {b.parent for _, b in moves} | {dst.parent for dst, _ in writes}
    for d in sorted(targets):
        d.mkdir(parents=True, exist_ok=True)
    precheck("Spielzug speichern", (), same_fs=(folder, *sorted(targets),
                                                *sorted({a.parent for a, _ in moves})))
    steps: list[list[str]] = []
    for dst, data in writes:
        tmp = dst.with_name(f".{dst.name}.new")
        try:
            write_durable(tmp, data)
        except OSError as e:  # before the commit point: nothing changed; the scratch
            for written in [tmp, *(folder / a for a, _ in steps)]:  # files go (a full disk)
                with contextlib.suppress(OSError):  # else the next import removes them
                    written.unlink(missing_ok=True)
            if e.filename is None:  # a write or flush names no file: name it
                raise OSError(e.errno, e.strerror, str(tmp)) from e
            raise
        steps.append([str(tmp.relative_to(folder)), str(dst.relative_to(folder))])
    for d in {tmp.parent for tmp, _ in writes}:
        fsync_dir(d)
    journal: dict[str, list[list[str]]] = {
        "moves": [[str(a.relative_to(folder)), str(b.relative_to(folder))]
                  for a, b in moves] + steps}
    path = folder / f".intake-{os.getpid()}-{secrets.token_hex(4)}.journal"
    tmp = path.with_name(path.name + ".tmp")
    write_durable(tmp, json.dumps(journal, indent=1).encode("utf-8"))
    os.replace(tmp, path)  # the commit point
    fsync_dir(folder)
    roll_forward(folder, path, journal["moves"])  # the moves it holds, not read back


def journal_moves(journal: Path) -> list[list[str]]:
    """The moves a committed journal names, each ``[source, target]`` relative
    to its folder. A journal that cannot be read or is not the intake's
    (cut short, changed by hand, unreadable) raises :class:`IntakeMoveError`:
    nothing of it is done, the journal stays for the game master."""
    try:
        steps = json.loads(journal.read_text(encoding="utf-8"))["moves"]
        if not isinstance(steps, list) or not all(
                isinstance(s, list) and len(s) == 2 and all(isinstance(x, str) for x in s)
                for s in steps):
            raise ValueError("'moves' ist keine Liste von Paaren (Quelle, Ziel)")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise IntakeMoveError(
            f"{journal}: das Journal eines unterbrochenen Einlesens ist nicht lesbar "
            f"({type(e).__name__}: {e}); es nennt, welche Dateien eines gespeicherten "
            "Spielzugs (Spielzug, Quittung, ersetzter Spielzug nach replaced/) noch an ihren "
            "Platz gehören. Nichts davon wurde ausgeführt, das Journal bleibt stehen. Prüfen "
            "Sie den Ordner von Hand (die Dateien .k<n>.txt.new und .k<n>.receipt.yaml.new "
            "sind der neue Spielzug), entfernen Sie das Journal und lesen Sie den Spielzug "
            "neu ein") from None
    return steps


def roll_forward(folder: Path, journal: Path, steps: list[list[str]] | None = None) -> None:
    """Do what a committed journal says (each move only if not done yet:
    repeatable), check that every move is done, then remove it. ``steps``:
    the journal's moves as :func:`commit` just wrote them; ``None``: read
    from the journal (:func:`journal_moves`). A journal that cannot be read,
    or a move that cannot be done (a link on its way, its file gone), raises
    :class:`IntakeMoveError` and leaves the journal for the game master."""
    if steps is None:
        steps = journal_moves(journal)
    top = campaign_top(folder)
    touched = {folder}
    for src, dst in steps:
        a, b = folder / src, folder / dst
        try:
            refuse_links(top, a, "verschiebt Spielzüge")
            refuse_links(top, b, "verschiebt Spielzüge")
        except LinkRefused as e:
            raise IntakeMoveError(f"{journal}: {src} → {dst} nicht ausgeführt: {e}") from None
        if a.is_file() and not a.is_symlink() and not b.exists():
            b.parent.mkdir(parents=True, exist_ok=True)
            os.replace(a, b)
            touched |= {a.parent, b.parent}
    for d in touched:
        fsync_dir(d)
    placed = {dst for _, dst in steps}  # (a sheet's old place takes its successor)
    for src, dst in steps:  # every move done: the file at its place, none left behind
        a, b = folder / src, folder / dst
        left = src not in placed and (a.exists() or a.is_symlink())
        if not b.is_file() or b.is_symlink() or left:
            raise IntakeMoveError(
                f"{journal}: {src} → {dst} ist nicht ausgeführt ({dst} "
                f"{'fehlt' if not b.exists() else 'ist keine gewöhnliche Datei'}"
                f"{', ' + src + ' liegt noch da' if left else ''}); das Journal bleibt "
                "stehen, es gilt nicht der neue Spielzug. Prüfen Sie den Ordner und rufen Sie "
                "den Befehl erneut auf")
    journal.unlink()
    fsync_dir(folder)


def campaign_top(folder: Path) -> Path:
    """The campaign's ``orders/`` (or ``quarantine/``) folder above a month's
    folder ``<top>/<segment>/<YYYY-MM>/``: from there down, nothing may be a link."""
    return folder.parents[1] if len(folder.parents) > 1 else folder


def recover_intake(folder: Path) -> list[str]:
    """Complete what an interrupted import committed (its journals) and remove
    the scratch files of what it did not (``.<name>.new``, a journal's
    ``.tmp``) — only files the intake writes; call it holding the segment's
    lock. Returns one notice per action. A journal that cannot be completed
    (unreadable, a move impossible) raises :class:`IntakeMoveError`."""
    notices: list[str] = []
    if not folder.is_dir():
        return notices
    for journal in sorted(folder.glob(JOURNAL_GLOB)):
        roll_forward(folder, journal)  # raises unless completed: then the notice
        notices.append(f"{journal}: das nach seinem Festschreibepunkt unterbrochene Speichern eines Spielzugs vollendet")
    for d in (folder, folder / "replaced"):
        if not d.is_dir():
            continue
        for tmp in sorted(d.glob(".*.new")) + sorted(d.glob(".intake-*.journal.tmp")):
            if tmp.is_file() and not tmp.is_symlink():
                tmp.unlink()
                notices.append(f"{tmp}: entfernt (ein nicht festgeschriebener Spielzug eines unterbrochenen Einlesens)")
    return notices


def receipt_text(data: dict) -> bytes:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode("utf-8")


def write_new(path: Path, data: bytes) -> None:
    """Write ``path`` whole (a scratch file renamed into place); its folder (a
    month's outbox ``outbox/<segment>/<YYYY-MM>/``) and the file must not be links."""
    refuse_links(campaign_top(path.parent), path, "schreibt Antworten")
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def sha_file(path: Path) -> str:
    try:
        return sha_text(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return ""


def keep_quarantined(folder: Path, tag: str, note: bytes, raw: bytes) -> Path:
    """Keep the raw bytes of a mail that could not be taken, with the reason
    (``<tag>.eml`` and ``<tag>.grund.txt`` in the quarantine ``folder``): the
    reason file first, then the mail, each written whole under a scratch name
    and renamed into place (0600: mails hold personal data) — a kill never
    leaves a truncated mail or one without its reason. Kept as it is when both
    are there already."""
    path, reason = folder / f"{tag}.eml", folder / f"{tag}.grund.txt"
    for p in (path, reason):
        refuse_links(campaign_top(folder), p, "bewahrt Mails auf")
    folder.mkdir(parents=True, exist_ok=True)
    if path.is_file() and reason.is_file():
        return path
    write_private(reason, note)
    write_private(path, raw)
    return path


def check_sheets(folder: Path) -> list[Finding]:
    """All of :func:`sheet_problems`, refusals and warnings alike (``wdg turn
    status``, ``wdg segment check``)."""
    refuse, warn = sheet_problems(folder)
    return refuse + warn


def sheet_problems(folder: Path) -> tuple[list[Finding], list[Finding]]:
    """A month's waiting sheets against what the intake stored (``wdg turn
    status``, ``wdg segment check``, and ``wdg turn run`` before it reads
    them): no link on the way from ``orders/`` to a sheet; each sheet with a
    receipt has the SHA-256 its receipt holds (a sheet cut short or changed
    after it was taken in ran silently before, issue #40 item 8); no receipt
    without its sheet; no intake journal left. Returns ``(refusals,
    warnings)``: a link or an unfinished journal stops ``wdg turn run``; a
    sheet that differs from its receipt (or is gone) is a warning there — the
    game master may correct a sheet by hand before a re-run (docs/turns.md,
    undo) — and a finding of ``wdg segment check``. Never raises."""
    found: list[Finding] = []
    warn: list[Finding] = []
    try:
        refuse_links(campaign_top(folder), folder, "liest Spielzüge")
    except LinkRefused as e:
        return [Finding(str(folder), str(e))], []
    if not folder.is_dir():
        return found, warn
    for journal in sorted(folder.glob(JOURNAL_GLOB)):
        try:
            journal_moves(journal)
        except IntakeMoveError as e:
            found.append(Finding(str(journal), "ein Einlesen ist nicht abgeschlossen und sein "
                                 f"Journal nicht lesbar: {str(e).removeprefix(f'{journal}: ')}"))
            continue
        found.append(Finding(str(journal), "ein Einlesen ist nicht abgeschlossen (der nächste "
                             "Befehl, der das Segment sperrt, schließt es ab oder nennt, was "
                             "fehlt)"))
    for p in sorted(folder.iterdir()):
        if p.is_symlink():
            found.append(Finding(str(p), "ist ein symbolischer Link; wdg liest keinen Spielzug "
                                 "durch einen Link (er könnte auf jede Datei zeigen) — von Hand "
                                 "entfernen und den Spielzug neu einlesen"))
    for receipt in sorted(folder.glob("k*.receipt.yaml")):
        sheet = receipt.with_name(receipt.name.replace(".receipt.yaml", ".txt"))
        if receipt.is_symlink() or sheet.is_symlink():
            continue  # named above
        try:
            rec = yaml.safe_load(receipt.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError, UnicodeDecodeError) as e:
            warn.append(Finding(str(receipt), f"Quittung nicht lesbar ({e})"))
            continue
        want = str(rec.get("sha256", "")) if isinstance(rec, dict) else ""
        if not want:
            continue  # a receipt of an older wdg without the sheet's hash
        if not sheet.is_file():
            warn.append(Finding(str(sheet), f"fehlt, seine Quittung {receipt.name} ist da "
                                 "(nach dem Einlesen gelöscht?); den Spielzug neu einlesen oder "
                                 "die Quittung entfernen"))
            continue
        got = hashlib.sha256(sheet.read_bytes()).hexdigest()
        if got != want:
            warn.append(Finding(str(sheet), f"weicht von seiner Quittung ab (SHA-256 "
                                 f"{got[:12]}…, eingelesen {want[:12]}…): nach dem Einlesen "
                                 "verändert oder gekürzt — es gälte nicht, was der Spieler "
                                 "geschickt hat. Den Spielzug neu einlesen ('wdg orders import'); "
                                 f"ist die Änderung gewollt, die Quittung {receipt.name} "
                                 "entfernen (dann gilt er als von Hand abgelegt)"))
    return found, warn
