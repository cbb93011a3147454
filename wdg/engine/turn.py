"""The turn runner: one month of a segment, from sheets to committed state.

:func:`resolve_month` is the pure core (no files): it seeds the month's
generator from (campaign seed, year, month), draws the kingdoms' random
order, takes the start-of-month snapshot, runs every registered step in
order and advances the date. :func:`run_month` is the game master's call: it
takes the lock, loads the segment, reads and checks the sheets
(:mod:`wdg.engine.month_sheets`), resolves and commits the month with its archive
(:mod:`wdg.store.months`). See docs/turns.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wdg.campaign import Campaign
from wdg.engine.deposits import enabled
from wdg.engine.events import Event, EventLog
from wdg.engine.month_sheets import PasswordChecks, take_in
from wdg.engine.month import Month, Snapshot, registered_steps, run_step
from wdg.errors import InjectedFailure, InvalidInputError, RefusedError, StateError, WdgError
from wdg.fsio import describe_os_error
from wdg.orders.model import Sheet
from wdg.rules import Rules
from wdg.store import integrity
from wdg.store.intake import recover_intake, sheet_problems
from wdg.store.integrity import IntegrityError
from wdg.store.journal import JOURNAL
from wdg.store.lock import notice, segment_lock
from wdg.store.months import (
    can_commit, commit, kept_next_deadline, read_order_files, undo_month as undo)
from wdg.store.segment import load_segment
from wdg.world.calendar import MonthDate
from wdg.world.consistency import check_segment
from wdg.world.deadline import normalise, refuse_past, set_deadline
from wdg.world.state import Segment

Progress = Callable[[str, int, int], None]
"""``progress(step_name, index, count)``, called before each step."""


@dataclass(slots=True)
class MonthResult:
    """A resolved month: the new state, the event log and how it was drawn."""

    state: Segment
    log: EventLog
    date: MonthDate
    """The month that was resolved (``state.date`` is already the next one)."""
    entropy: list[int]
    """The generator's seed: ``[campaign seed, year, month]``."""
    kingdom_order: list[int]
    sheets: dict[int, Sheet] = field(default_factory=dict)
    inputs: dict[str, bytes] = field(default_factory=dict)
    """File name -> bytes of every sheet read (archived under ``orders/``)."""
    committed: bool = False
    manifest: dict[str, str] = field(default_factory=dict)
    """Output file -> sha256 (filled by the archive)."""
    gm_sheet: object | None = None
    """The game master's sheet of the month (``sl.txt``), if one was used."""
    next_deadline: str | None = None
    """The EINTREFFSCHLUSS set for the next month's sheets by this run (``wdg turn
    run --next-deadline``): already in ``state``, recorded in ``seed.yaml`` so
    that a replay sets it too and the result sheets name it."""
    archived_inputs: dict[str, bytes] = field(default_factory=dict)
    """Further inputs the outputs read (e.g. the previous month's report figures
    the "changes since last month" compare with), by file name: the writers put
    them here, the archive stores them under ``inputs/`` of the month so that
    the month replays on its own (docs/turns.md, "Provenance")."""
    templates: dict[str, bytes] = field(default_factory=dict)
    """The report templates the outputs were rendered with (file name -> bytes),
    archived with the month (content-addressed, ``turns/.blobs/``)."""

    digest: str | None = None
    """The month's digest (:mod:`wdg.digest`): computed by the report writer of a
    month run from the staged inputs, set by a replay from the archived month;
    printed in the Götterbotschaft and every result sheet."""

    kept_deadline: bool = False
    """True when :attr:`next_deadline` was kept from a run of this month that was
    undone (not given to this run)."""

    def seed_record(self) -> dict[str, Any]:
        """What ``seed.yaml`` holds."""
        rec: dict[str, Any] = {"segment": self.state.name, "month": self.date.key,
                               "entropy": list(self.entropy),
                               "kingdom_order": list(self.kingdom_order)}
        if self.next_deadline is not None:
            rec["next_deadline"] = self.next_deadline
        return rec

    def set_next_deadline(self, when: str) -> str:
        """Set the deadline of the next month's sheets in the new state (before
        the month is archived, so the archived sheets are the ones sent)."""
        self.next_deadline = set_deadline(self.state, when)
        return self.next_deadline


def month_entropy(seg: Segment) -> list[int]:
    """The seed of the month's generator: (campaign seed, year, month)."""
    return [int(seg.seed), seg.date.year, seg.date.month]


def begin_month(seg: Segment, sheets: dict[int, Sheet], rules: Rules) -> Month:
    """The month's context: generator, kingdom order (the first draw) and snapshot."""
    rng = np.random.default_rng(month_entropy(seg))
    kingdoms = sorted(n for n, k in seg.kingdoms.items() if not k.retired)
    order = [int(x) for x in rng.permutation(kingdoms)] if kingdoms else []
    m = Month(state=seg, sheets=dict(sheets), rng=rng, rules=rules, kingdom_order=order)
    m.start = Snapshot(owner=seg.owner.copy(),
                       positions={n: a.position for n, a in seg.armies.items()})
    return m


def check_deposits(seg: Segment, rules: Rules) -> None:
    """A segment saved before deposits existed may not run a month under rules
    with deposits.yaml: its mines would stop yielding without a word. The game
    master runs ``wdg segment upgrade`` (or keeps rules without deposits.yaml)."""
    if seg.deposits is None and enabled(rules):
        raise InvalidInputError(
            f"Segment {seg.name}: der Spielstand stammt aus der Zeit vor den Bodenschätzen "
            "(world.yaml ohne 'deposits'), die Regeln haben aber deposits.yaml. Erst "
            f"'wdg segment upgrade {seg.name}' ausführen (verteilt die Bodenschätze; "
            "gebaute Minen fördern weiter), oder mit Regeln ohne deposits.yaml "
            "weiterspielen (docs/rules.md, \"Deposits and mines\"); nichts wurde verändert.")


def resolve_month(seg: Segment, sheets: dict[int, Sheet], rules: Rules, *,
                  pre_events: list[Event] | None = None, gm_sheet: object | None = None,
                  progress: Progress | None = None,
                  fail_after_step: str | None = None) -> MonthResult:
    """Run every registered step over ``seg`` (changed in place) and advance its date.

    ``pre_events`` (sheet intake) open the log; ``gm_sheet`` is the game
    master's sheet (applied at step 15). ``fail_after_step`` raises
    :class:`InjectedFailure` after the named step (atomicity tests).
    """
    date, entropy = seg.date, month_entropy(seg)
    check_deposits(seg, rules)
    m = begin_month(seg, sheets, rules)
    m.gm_sheet = gm_sheet
    m.log.extend(list(pre_events or []))
    steps = registered_steps()
    if fail_after_step is not None and fail_after_step not in {s.name for s in steps}:
        raise WdgError(f"unknown step {fail_after_step!r}")
    for i, s in enumerate(steps):
        if progress is not None:
            progress(s.name, i, len(steps))
        run_step(m, s)
        if s.name == fail_after_step:
            raise InjectedFailure(f"injected failure after step {s.name!r}")
    if progress is not None:
        progress("", len(steps), len(steps))
    seg.date = date.next()
    return MonthResult(state=seg, log=m.log, date=date, entropy=entropy,
                       kingdom_order=list(m.kingdom_order), sheets=dict(sheets),
                       gm_sheet=gm_sheet)


COMMIT_POINTS = ("staged", "archived")
"""Failure points inside the commit the ``fail_after_step`` hook also accepts."""


def resolve_from_inputs(seg: Segment, files: dict[str, bytes], rules: Rules, *,
                        progress: Progress | None = None,
                        fail_after_step: str | None = None,
                        upgrade_passwords: bool = True) -> MonthResult:
    """Take in the month's sheet files (:mod:`wdg.engine.month_sheets`) and resolve it."""
    return resolve_intake(seg, take_in(seg, files, upgrade_passwords=upgrade_passwords), rules,
                          progress=progress,
                          fail_after_step=fail_after_step)


def resolve_intake(seg: Segment, intake: Any, rules: Rules, *,
                   progress: Progress | None = None,
                   fail_after_step: str | None = None) -> MonthResult:
    """Resolve the month from sheets already taken in (:class:`wdg.engine.month_sheets.Intake`)."""
    result = resolve_month(seg, intake.sheets, rules, pre_events=intake.events,
                           gm_sheet=intake.gm_sheet, progress=progress,
                           fail_after_step=fail_after_step)
    result.inputs = dict(intake.files)
    return result


def run_month(campaign: Any, segment: str, *, dry_run: bool = False,
              fail_after_step: str | None = None, force: bool = False,
              progress: Progress | None = None, outputs: dict[str, Any] | None = None,
              next_deadline: str | None = None,
              stage: Callable[[str], None] | None = None,
              prepare: Callable[[Segment], None] | None = None,
              passwords: Any = None, holding_lock: bool = False,
              deliver: bool = False) -> MonthResult:
    """Resolve the segment's current month from ``orders/<segment>/<YYYY-MM>/``
    and commit it with its archive (unless ``dry_run``).

    ``campaign`` is a :class:`wdg.campaign.Campaign` or a path. More missing
    sheets than ``settings.missing_sheet_share`` need ``force``. The sheets
    are taken in (parsed, checked, passwords verified) once. ``next_deadline``
    sets the next month's EINTREFFSCHLUSS in the new state before anything is
    archived; one in the past is refused before the month is resolved. ``stage(name)`` is called as each stage begins (``intake``,
    ``month``, ``archive``), for a progress display.
    ``fail_after_step`` names a step or a commit point (:data:`COMMIT_POINTS`)
    after which to fail on purpose (atomicity tests). ``prepare(seg)`` is called
    with the loaded segment, under the lock, before the sheets are read (e.g. to
    write the bot kingdoms' sheets without loading the segment a second time).
    ``passwords``: the month's :class:`wdg.engine.month_sheets.PasswordChecks` when
    the caller has started them (it closes them); default: started here.
    ``holding_lock``: the caller holds the segment's lock already (``wdg mail run``).
    ``deliver``: the caller delivers the reports to ``reports/<segment>/<M>/``
    after the commit (:func:`wdg.store.delivery.deliver`); that folder is
    checked with the rest before anything is committed
    (:func:`wdg.store.months.can_commit`: before the month is resolved, and
    with the sizes at the commit point).

    Without ``next_deadline`` a run of a month that was undone keeps the
    deadline the undone run had for the next month
    (:func:`wdg.store.months.kept_next_deadline`), unless it has passed.
    """
    camp = campaign if isinstance(campaign, Campaign) else Campaign.locate(campaign)
    seg_dir = camp.segment_dir(segment)
    if not (seg_dir / "segment.yaml").is_file():
        raise StateError(f"kein Segment {segment!r} in {camp.worlds}")
    with contextlib.nullcontext() if holding_lock else segment_lock(seg_dir), \
            contextlib.nullcontext(passwords) if passwords is not None else PasswordChecks() \
            as checks:
        if passwords is None:
            # the slow password checks start in threads now and run while the
            # segment loads (the intake uses them; a check is keyed by what it compares)
            checks.prefetch(seg_dir, lambda key: camp.orders_dir(segment, MonthDate.parse(key)))
        seg = load_segment(seg_dir)
        if next_deadline is not None:  # refused before the month is resolved, as 'turn deadline'
            refuse_past(normalise(next_deadline, seg.settings.deadline_hour),
                        seg.settings.timezone,
                        hint=f"nach dem Lauf setzt 'wdg turn deadline {segment} DATUM --force' "
                             "einen vergangenen trotzdem")
        _check_archive(seg_dir, seg)
        findings = check_segment(seg)
        if findings:
            shown = "; ".join(str(f) for f in findings[:10])
            more = f" (und {len(findings) - 10} weitere)" if len(findings) > 10 else ""
            raise StateError(f"Segment {segment!r} ist nicht stimmig, der Mond wird nicht "
                             f"ausgewertet: {shown}{more}; siehe 'wdg segment check {segment}'")
        deliver_to = camp.reports_dir(segment, seg.date) if deliver else None
        if not dry_run:  # writable, one file system: refused now, not after the work
            can_commit(seg_dir, seg.date, deliver_to=deliver_to)

        recover_intake(camp.orders_dir(segment, seg.date))  # an import killed mid-way (#30)
        refused, changed = sheet_problems(camp.orders_dir(segment, seg.date))
        if refused:  # a link (never read) or an unfinished intake
            raise IntegrityError(refused, ". Der Mond wird nicht ausgewertet; nichts wurde "
                                 "geändert.")
        for f in changed:  # said, never silent (a correction by hand is allowed)
            notice(f"{f} — der Mond wird mit dem Spielzug ausgewertet, wie er jetzt ist",
                   "Warnung")
        if prepare is not None:
            prepare(seg)
        if stage is not None:
            stage("intake")
        files = read_order_files(camp.orders_dir(segment, seg.date))
        intake = take_in(seg, files, checks)
        missing = [e for e in intake.events if e.kind == "sheet.missing"]
        playing = [k for k in seg.kingdoms.values()
                   if not k.city_state and not k.retired and k.player is not None]
        if not force and playing and len(missing) / len(playing) > seg.settings.missing_sheet_share:
            raise RefusedError(f"{len(missing)} von {len(playing)} Königreichen haben keinen "
                             f"gültigen Spielzug für {seg.date.key} in "
                             f"{camp.orders_dir(segment, seg.date)}; der Mond wird nicht "
                             "ausgewertet (mit --force trotzdem)")
        rules = Rules.load(camp.rules_dir)
        in_steps = fail_after_step if fail_after_step not in COMMIT_POINTS else None
        if stage is not None:
            stage("month")
        result = resolve_intake(seg, intake, rules, progress=progress, fail_after_step=in_steps)
        if next_deadline is None and not dry_run:
            next_deadline = kept_next_deadline(seg_dir, result.date,
                                               result.state.settings.timezone)
            result.kept_deadline = next_deadline is not None
        if next_deadline is not None:
            result.set_next_deadline(next_deadline)
        if not dry_run:
            if stage is not None:
                stage("archive")
            point = fail_after_step if fail_after_step in COMMIT_POINTS else None
            try:
                commit(camp, result, camp.rules_dir, fail_at=point, writers=outputs,
                       deliver_to=deliver_to)
            except OSError as exc:
                raise StateError(_commit_failure(seg_dir, result, exc)) from None
    return result


def _check_archive(seg_dir: Any, seg: Segment) -> None:
    """Before a month runs: the chain of archived months fits the segment's
    date (a date set back or forward is refused, never "recovered"), and the
    last archived month — whose events and reports this month reads — is
    intact. Raises :class:`wdg.store.integrity.IntegrityError` naming the file."""
    found = [f for f in integrity.check_chain(seg_dir, seg.date.key) if not f.uncovered]
    last = seg_dir / "turns" / seg.date.previous().key
    if last.is_dir() and not last.is_symlink():
        found += [f for f in integrity.verify_month(last) if not f.uncovered]
    if not found:  # the live files against the last month's state: said, not refused
        from wdg.store.edits import check_live  # lazy: `wdg --help` imports this module

        for f in check_live(seg_dir):
            notice(str(f))
    if found:
        raise integrity.IntegrityError(found, ". Der Mond wird nicht ausgewertet; nichts wurde "
                                       "geändert.")


def _commit_failure(seg_dir: Any, result: MonthResult, exc: OSError) -> str:
    """What a file-system error during the commit means: said exactly."""
    key, name = result.date.key, seg_dir.name
    near = seg_dir / "turns"  # where the month is written (the segment's files beside it)
    if result.committed or (seg_dir / JOURNAL).exists():
        return (f"Mond {key} ist ausgewertet und gespeichert (Archiv turns/{key}; der nächste "
                f"Befehl schließt das Speichern ab), aber: "
                f"{describe_os_error(exc, committed=True, near=near)} "
                f"Berichte fehlen noch: wdg reports render {name} {key}")
    return (f"Mond {key} ist NICHT gespeichert (Segment und Archiv sind wie vor dem Lauf): "
            f"{describe_os_error(exc, committed=False, near=near)} Danach erneut: "
            f"wdg turn run {name}")


def replay_month(campaign: Any, segment: str, month: MonthDate | str,
                 outputs: dict[str, Any] | None = None) -> Any:
    """Replay an archived month and compare it with its manifest
    (:func:`wdg.engine.replay.replay_month`; returns its ReplayReport)."""
    from wdg.engine.replay import replay_month as replay  # lazy: `wdg --help` imports this module

    camp = campaign if isinstance(campaign, Campaign) else Campaign.locate(campaign)
    return replay(camp, segment, month, outputs)


def undo_month(campaign: Any, segment: str) -> MonthDate:
    """Undo the last committed month (:func:`wdg.store.months.undo_month`)."""
    camp = campaign if isinstance(campaign, Campaign) else Campaign.locate(campaign)
    return undo(camp, segment)
