"""The month's sheets as its run reads them: the stored order sheets from bytes
to the sheets the month uses, with an event for every one it refuses.

Not the mailbox intake (:mod:`wdg.orders.intake`, which decides which mailed
sheet is taken) nor the store of taken sheets (:mod:`wdg.store.intake`): this
is the first step of resolving a month, on what those left in the orders folder.

Pure (no files): the caller hands over ``{file name: bytes}`` of
``orders/<segment>/<YYYY-MM>/`` — ``k<n>.txt`` for kingdom ``n`` and the game
master's ``sl.txt``. A sheet is used only if the kingdom of its file name and
of its header agree, the segment and month (when given) are this month's and
its password matches the kingdom's stored hash; otherwise it is not used and
an event says why (``sheet.refused``). Every parser or checker message becomes
a ``sheet.diagnostic`` event for the result sheet; a kingdom without a usable
sheet gets ``sheet.missing`` (its armies rest, no K orders).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wdg.engine.events import Event
from wdg.errors import RefusedError, WdgError
from wdg.orders.gmsheet import check_gm_sheet, parse_gm_sheet
from wdg.orders.model import Diagnostic, Severity, Sheet
from wdg.orders.parser import parse_sheet
from wdg.store.months import read_order_files
from wdg.store.segment import peek_passwords
from wdg.world.passwords import needs_upgrade, upgrade_hashes, verify_password
from wdg.world.state import Segment

SHEET_RE = re.compile(r"^k(\d+)\.txt$")
GM_SHEET = "sl.txt"


@dataclass(slots=True)
class Intake:
    """The usable sheets, the game master's sheet and the intake's events."""

    sheets: dict[int, Sheet] = field(default_factory=dict)
    gm_sheet: object | None = None
    events: list[Event] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)


def is_input_file(name: str) -> bool:
    """True for the files the month reads from its orders folder."""
    return bool(SHEET_RE.match(name)) or name == GM_SHEET


def _through_password(raw: bytes) -> bytes:
    """A sheet's text up to the end of its first line naming the password (the
    whole text if none does)."""
    at = raw.lower().find(b"passwort")
    if at < 0:
        return raw
    end = raw.find(b"\n", at)
    return raw if end < 0 else raw[:end + 1]


THREADS_FROM = 4
"""Sheets from which the password checks run in threads."""


class PasswordChecks:
    """The password checks of a month's sheets (scrypt: slow on purpose, and
    releasing the GIL) in threads on every core, each remembered by exactly
    what it compares — a password and a stored hash — so that checks started
    early (:meth:`prefetch`, while the segment loads) are used by
    :func:`take_in` and a check never depends on where it was started. With
    one core (or fewer than :data:`THREADS_FROM` sheets) nothing runs in
    threads. Use it as a context manager."""

    def __init__(self, sheets: int = THREADS_FROM) -> None:
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not on Linux
            cores = os.cpu_count() or 1
        self._pool = ThreadPoolExecutor(max_workers=min(cores, 8)) \
            if sheets >= THREADS_FROM and cores >= 2 else None
        self._started: dict[tuple[str, str], Future[bool]] = {}

    def __enter__(self) -> PasswordChecks:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def check(self, password: str, stored: str) -> Future[bool] | bool:
        """The check of ``password`` against ``stored``: a future (started now
        or before) in threads, else the answer itself."""
        if self._pool is None:
            return verify_password(password, stored)
        key = (password, stored)
        got = self._started.get(key)
        if got is None:
            got = self._started[key] = self._pool.submit(verify_password, password, stored)
        return got

    def prefetch(self, segment_dir: Path, orders_dir: Callable[[str], Path]) -> int:
        """Start the checks of the sheets in ``orders_dir(month key)`` against
        the hashes in ``segment_dir``'s files, read without loading the
        segment; returns how many were started. Best effort: whatever cannot
        be read here is left to :func:`take_in`, which reads and reports it
        (a check started for a sheet that is then refused is simply unused)."""
        if self._pool is None:
            return 0
        try:
            month, hashes = peek_passwords(segment_dir)
            files = read_order_files(orders_dir(month))
        except (OSError, ValueError, KeyError, TypeError, WdgError, yaml.YAMLError):
            return 0
        started = 0
        for name in sorted(files):
            m = SHEET_RE.match(name)
            stored = hashes.get(int(m.group(1))) if m else None
            if stored is None:
                continue
            try:  # the header is enough: a wrong guess only costs an unused check
                password = parse_sheet(_through_password(files[name]), source=name).password
            except WdgError:
                continue
            if password:
                self.check(password, stored)
                started += 1
        return started


def take_in(seg: Segment, files: dict[str, bytes],
            passwords: PasswordChecks | None = None, *, upgrade_passwords: bool = True) -> Intake:
    """Parse and check every sheet of the month (``seg`` at the month's start);
    ``passwords``: the month's :class:`PasswordChecks` when the caller has
    started some already (default: a new one). ``upgrade_passwords``: replace
    an old PBKDF2 hash after its first good check (wdg 0.2.0 on; a replay of a
    month resolved by an older version passes False, as that version did not)."""
    out = Intake(files={n: files[n] for n in sorted(files) if is_input_file(n)})
    numbered = sorted((int(m.group(1)), n)
                      for n in out.files if (m := SHEET_RE.match(n)))
    # The password checks run in threads on every core while this thread
    # parses and checks the sheets; the events' order stays as if the sheets
    # were taken in one after the other.
    with _password_checks(passwords, len(numbered)) as pool:
        heads = []
        for number, name in numbered:
            events: list[Event] = []
            sheet = _head(seg, number, name, out.files[name], events)
            ok: Any = None
            if sheet is not None:
                player = seg.kingdoms[number].player
                assert player is not None  # _head lets a sheet through only for a kingdom with a player
                stored = player.password_hash
                ok = pool.check(sheet.password, stored)
            heads.append((number, name, sheet, events, ok))
        for number, name, sheet, events, ok in heads:
            if sheet is not None:
                if isinstance(ok, Future):
                    checked = _check(seg, number, sheet)  # beside the hashing threads
                    good = ok.result()
                else:
                    good = bool(ok)
                    checked = _check(seg, number, sheet) if good else ([], sheet)
                player = seg.kingdoms[number].player
                if good and upgrade_passwords and player is not None and needs_upgrade(player.password_hash):
                    # an old PBKDF2 hash is replaced after its first good check; the
                    # new hash is derived deterministically, so a replay gives the
                    # same state (wdg.world.passwords.upgraded_hash)
                    upgrade_hashes(seg, {number: sheet.password})
                sheet = _finish(number, name, good, events, checked)
            out.events += events
            if sheet is not None:
                out.sheets[number] = sheet
    if GM_SHEET in out.files:
        out.gm_sheet = _gm(seg, out.files[GM_SHEET])
    for n in sorted(seg.kingdoms):
        k = seg.kingdoms[n]
        if n not in out.sheets and not k.city_state and not k.retired and k.player is not None:
            out.events.append(Event("sheet.missing", n, why="Kein gültiger Spielzug eingegangen: "
                                    "alle Heere ruhen, keine Königreichbefehle."))
    return out


def _refused(events: list[Event], kingdom: int | None, name: str, reason: str) -> None:
    events.append(Event("sheet.refused", kingdom, why=f"Spielzug {name} nicht verwendet: {reason}",
                        data={"file": name}))


@contextmanager
def _password_checks(given: PasswordChecks | None, sheets: int) -> Iterator[PasswordChecks]:
    """The caller's checks (closed by the caller), else new ones for this intake."""
    if given is not None:
        yield given
        return
    with PasswordChecks(sheets) as checks:
        yield checks


def _head(seg: Segment, number: int, name: str, raw: bytes, events: list[Event]) -> Sheet | None:
    """The sheet parsed, if its file name, header, segment and month fit (else
    ``None`` and a refusal event); the password is not checked yet."""
    k = seg.kingdoms.get(number)
    if k is None or k.player is None or k.city_state or k.retired:
        _refused(events, None, name, f"kein spielendes Königreich {number} in diesem Segment.")
        return None
    sheet = parse_sheet(raw, source=name)
    if sheet.kingdom != number:
        _refused(events, number, name, f"der Kopf nennt Königreich {sheet.kingdom}, die Datei "
                 f"Königreich {number}.")
        return None
    if sheet.segment and sheet.segment.casefold() != seg.name.casefold():
        _refused(events, number, name, f"der Spielzug ist für das Segment {sheet.segment!r}.")
        return None
    if sheet.month is not None and sheet.month != seg.date:
        _refused(events, number, name, f"der Spielzug ist für den Mond {sheet.month.short()}, "
                 f"ausgewertet wird {seg.date.short()}.")
        return None
    return sheet


def _finish(number: int, name: str, password_ok: bool, events: list[Event],
            checked: tuple[list[Diagnostic], Sheet]) -> Sheet | None:
    """The sheet as checked against the kingdom's view (``checked``: the
    messages and the sheet from :func:`_check`), or ``None`` (refused) when its
    password is wrong."""
    if not password_ok:
        _refused(events, number, name, "das Passwort ist falsch.")
        return None
    diagnostics, sheet = checked
    for d in diagnostics:
        events.append(_diagnostic_event(number, d))
    return sheet


def _check(seg: Segment, kingdom: int, sheet: Sheet) -> tuple[list[Diagnostic], Sheet]:
    """All messages (parser's and, if installed, the order checker's against the
    kingdom's view) and the sheet without the orders on lines with errors; without
    the checker the parser's messages and the sheet as parsed."""
    try:
        # here, not at the top: the checker is optional (the parser's messages without it)
        from wdg.orders.checker import accepted, check_sheet
        from wdg.orders.view import build_view
    except ModuleNotFoundError as exc:
        if exc.name not in ("wdg.orders.checker", "wdg.orders.view"):
            raise
        return list(sheet.diagnostics), sheet
    diagnostics = check_sheet(sheet, build_view(seg, kingdom))
    return diagnostics, accepted(sheet, diagnostics)


def _diagnostic_event(kingdom: int, d: Diagnostic) -> Event:
    text = d.message + (f" (gefunden: {d.found!r}" + (f", erwartet: {d.expected}" if d.expected
                                                       else "") + ")" if d.found else "")
    if d.consequence:
        text += f" — {d.consequence}"
    return Event("sheet.diagnostic", kingdom, why=f"Zeile {d.line}: {text}", line=d.line,
                 data={"severity": d.severity.value, "suggestion": d.suggestion})


def _gm(seg: Segment, raw: bytes) -> object:
    """The game master's sheet; errors stop the month before it starts."""
    gm = parse_gm_sheet(raw)
    problems = sorted(list(gm.errors) + [d for d in check_gm_sheet(gm, seg)
                                         if d.severity is Severity.ERROR], key=lambda d: d.line)
    if problems:
        lines = "; ".join(f"line {d.line}: {d.message} ({d.found!r})" for d in problems[:5])
        raise RefusedError(f"der Spielleiterbogen {GM_SHEET} hat Fehler: {lines}")
    return gm
