"""``wdg world run``: every segment whose deadline has passed, in parallel.

Each segment is one task, :func:`run_segment`, run by a worker process — of a
local process pool (``--jobs N``) or of a Dask cluster (``--scheduler
ADDRESS``, the client code of :mod:`wdg.cluster`, as ``wdg games batch``). The
task does under the segment's own lock what ``wdg mail run`` does for the
month (without the mail): before the deadline nothing (*waiting*), with a
blocker of ``wdg turn status`` nothing (*refused*), else the month exactly as
``wdg turn run`` runs it — the same report writers, the same runner, the same
delivery — so the archive is byte for byte the one a local ``wdg turn run``
writes. A segment that fails (a damaged file, a lock held by another command)
is reported with its reason; the other segments run.

Every month's commit is atomic (docs/storage.md): a worker that dies at any
instruction — Ctrl-C, a lost Dask worker, SIGKILL — leaves its segment with
the month run or untouched; the next command on the segment takes over the
dead process's lock and completes or cleans the interrupted commit. A month
committed whose reports were not delivered yet (the worker died in between)
is delivered by the next ``wdg world run``.
"""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Callable
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from wdg import exitcodes
from wdg.campaign import Campaign
from wdg.cluster import connect, lost_worker
from wdg.errors import InvalidInputError, LockedError, RefusedError, WdgError
from wdg.fsio import describe_os_error
from wdg.office import campaign_root, segment_names
from wdg.procs import kill_workers, process_pool
from wdg.rules import safe_load_file
from wdg.store.delivery import deliver, logical
from wdg.store.lock import segment_lock
from wdg.store.months import month_dir
from wdg.store.segment import load_segment
from wdg.world.deadline import deadline_for, when

ORDER = (exitcodes.FAILED, exitcodes.REFUSED, exitcodes.LOCKED, exitcodes.OK, exitcodes.WAITING,
         exitcodes.NOTHING)
"""Which segment's outcome decides the exit code of the world: failed before
refused before locked before done before waiting before nothing."""

DIE_POINTS = ("month", "archive", "deliver")
"""Where the ``die_at`` test hook kills the worker (SIGKILL): while the month
is resolved, while its reports are written into the staging folder (before the
commit point), after the commit before the reports are delivered."""


def worse(a: int, b: int) -> int:
    """The code that matters more of two (:data:`ORDER`)."""
    return min(a, b, key=lambda c: ORDER.index(c) if c in ORDER else 0)


@dataclass(slots=True)
class SegmentRun:
    """What the world run did with one segment."""

    segment: str
    code: int = exitcodes.NOTHING
    month: str | None = None
    """The segment's month when the task began."""
    ran: str | None = None
    """The month run and committed by this task."""
    lines: list[str] = field(default_factory=list)
    """German lines for the game master."""
    worker: str = ""
    """``host:pid`` of the worker process that ran the task."""
    seconds: float = 0.0
    peak_rss_kib: int = 0
    """The worker process's peak resident memory after the task (``ru_maxrss``)."""
    levels: dict[int, exitcodes.Level] = field(default_factory=dict)
    """The level of each line that is no plain information (by index in :attr:`lines`)."""

    def note(self, line: str, level: exitcodes.Level = exitcodes.Level.INFO) -> None:
        """Add a line."""
        if level is not exitcodes.Level.INFO:
            self.levels[len(self.lines)] = level
        self.lines.append(line)

    def level(self, i: int) -> exitcodes.Level:
        """The level of line ``i``."""
        return self.levels.get(i, exitcodes.Level.INFO)

    def as_dict(self) -> dict[str, Any]:
        """For ``--json``."""
        return {"segment": self.segment, "status": exitcodes.JSON_STATUS.get(self.code, "?"),
                "exit_code": self.code, "month": self.month, "ran": self.ran,
                "messages": list(self.lines), "worker": self.worker,
                "seconds": round(self.seconds, 3), "peak_rss_kib": self.peak_rss_kib}


@dataclass(slots=True)
class WorldRun:
    """The outcome of ``wdg world run``: one :class:`SegmentRun` per segment."""

    segments: list[SegmentRun] = field(default_factory=list)
    workers: int = 1
    where: str = "lokal"
    seconds: float = 0.0

    @property
    def code(self) -> int:
        """The world's exit code (:data:`ORDER`)."""
        code = exitcodes.NOTHING
        for s in self.segments:
            code = worse(code, s.code)
        return code

    def as_dict(self) -> dict[str, Any]:
        """For ``--json``."""
        return {"status": exitcodes.JSON_STATUS.get(self.code, "?"), "exit_code": self.code,
                "workers": self.workers, "where": self.where, "seconds": round(self.seconds, 3),
                "segments": [s.as_dict() for s in self.segments]}


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _undelivered(camp: Campaign, name: str, seg: Any) -> Any:
    """The last archived month when some of its reports were never delivered
    (a run that died between its commit and the delivery), else None."""

    last = seg.date.previous()
    mdir = month_dir(camp, name, last)
    if not (mdir / "manifest.yaml").is_file():
        return None
    prefix = "outputs/reports/"
    files = (safe_load_file(mdir / "manifest.yaml") or {}).get("files", {}) or {}
    out = camp.reports_dir(name, last)
    for rel in files:
        if rel.startswith(prefix) and not (out / logical(Path(rel[len(prefix):]))).is_file():
            return last
    return None


def _npc_notes(camp: Campaign, rep: SegmentRun) -> Callable[[Any], None]:
    """The bot kingdoms' sheets, as ``wdg turn run`` writes them (its ``prepare``)."""

    def prepare(seg: Any) -> None:
        if not any(k.bot for k in seg.kingdoms.values()):
            return
        # lazy: the bots' code (and the engine, jinja2) only for a segment with a bot kingdom
        from wdg.bots.npc import write_npc_sheets

        for s in write_npc_sheets(camp, seg):
            rep.lines.append(f"Bot {s.bot} (Königreich {s.kingdom}): "
                             + (f"Spielzug {s.path.name} geschrieben" if s.written else s.note))
    return prepare


def run_segment(root: str, name: str, *, force: bool = False, pdf: bool = True,
                render_jobs: int = 1, die_at: str | None = None) -> SegmentRun:
    """One segment's task (in a worker process): see the module. Never raises
    for a segment's own problems; they are the result's code and lines.
    ``render_jobs``: processes for the reports (0: the cores of this process).
    ``die_at`` (:data:`DIE_POINTS`) kills this process on purpose (tests)."""
    import resource
    import time

    t0 = time.perf_counter()
    rep = SegmentRun(name, worker=f"{socket.gethostname()}:{os.getpid()}")
    if render_jobs < 1:
        from wdg.reports.batch import default_jobs  # lazy: the reports (jinja2), as in _run_month

        render_jobs = default_jobs()
    try:
        _run_segment(Path(root), name, rep, force=force, pdf=pdf, render_jobs=render_jobs,
                     die_at=die_at)
    finally:
        rep.seconds = time.perf_counter() - t0
        rep.peak_rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rep


def _run_segment(root: Path, name: str, rep: SegmentRun, *, force: bool, pdf: bool,
                 render_jobs: int, die_at: str | None) -> None:
    seg_dir = root / "worlds" / name
    if not (seg_dir / "segment.yaml").is_file():
        seen = "das Kampagnenverzeichnis" if not root.is_dir() else f"das Segment {seg_dir}"
        rep.code = exitcodes.FAILED
        rep.note(
            f"Fehler: der Arbeitsprozess {os.getpid()} auf Rechner {socket.gethostname()} sieht "
            f"{seen} nicht ({root}): die Rechner des Clusters brauchen das Kampagnenverzeichnis "
            "unter demselben Pfad auf einem gemeinsamen Dateisystem (docs/world.md); das "
            "Segment wurde nicht angefasst", exitcodes.Level.ERROR)
        return
    camp = Campaign(root)
    try:
        with segment_lock(seg_dir):
            seg = load_segment(seg_dir)
            rep.month = seg.date.key
            _finish_delivery(camp, name, seg, rep)
            d = deadline_for(seg, seg.date)
            if not force:
                if d is None:
                    rep.lines.append(f"{seg.date.short()}: kein Eintreffschluß gesetzt ('wdg turn "
                                     f"deadline {name} TT.MM.JJJJ HH:MM'); nicht ausgewertet")
                    rep.code = worse(rep.code, exitcodes.NOTHING)
                    return
                now = datetime.now(d.tzinfo)
                if now < d:
                    hours, rest = divmod(int((d - now).total_seconds()), 3600)
                    rep.lines.append(f"{seg.date.short()}: wartet auf den Eintreffschluß "
                                     f"{when(d)} ({seg.settings.timezone}), noch {hours} Std. "
                                     f"{rest // 60} Min.; nicht ausgewertet")
                    rep.code = worse(rep.code, exitcodes.WAITING)
                    return
            del seg  # the runner loads the segment itself
            _run_month(camp, name, rep, force=force, pdf=pdf, render_jobs=render_jobs,
                       die_at=die_at)
            rep.code = exitcodes.OK
    except LockedError as exc:
        rep.code = exitcodes.LOCKED
        rep.note(f"gesperrt: {exc}", exitcodes.Level.LOCKED)
    except RefusedError as exc:
        rep.code = exitcodes.REFUSED
        rep.note(f"verweigert: {exc}", exitcodes.Level.REFUSED)
    except WdgError as exc:
        rep.code = exitcodes.FAILED
        rep.note(f"Fehler: {exc}", exitcodes.Level.ERROR)
    except OSError as exc:
        rep.code = exitcodes.FAILED
        rep.note(f"Fehler: {describe_os_error(exc)}", exitcodes.Level.ERROR)


def _finish_delivery(camp: Campaign, name: str, seg: Any, rep: SegmentRun) -> None:
    """Deliver the last month's reports if a run died before it delivered them."""

    month = _undelivered(camp, name, seg)
    if month is not None:
        files = deliver(camp, name, month)
        rep.lines.append(f"{month.short()} ({month.key}): {len(files)} Berichte nachträglich "
                         "ausgeliefert (der Lauf davor endete nach dem Speichern)")
        rep.code = worse(rep.code, exitcodes.OK)


def _run_month(camp: Campaign, name: str, rep: SegmentRun, *, force: bool, pdf: bool,
               render_jobs: int, die_at: str | None) -> None:
    """The month as ``wdg turn run`` runs it (same writers, runner and delivery),
    under the lock the caller holds."""
    # lazy: the engine's month run and the reports (jinja2); wdg.office.mailrun imports
    # this module for worse(), and wdg mail run/watch --all answer players within seconds
    from wdg.engine import turn
    from wdg.reports.archived import archive_writers

    outputs = archive_writers(camp.templates_dir, camp.rules_dir, pdf=pdf, jobs=render_jobs,
                              progress=False, archive_dir=camp.archive_dir(name))
    progress = None
    if die_at == "month":
        def progress(step: str, i: int, n: int) -> None:
            if i == n // 2:
                _die()
    elif die_at == "archive":
        write = outputs["reports"]

        def dying(*args: Any, **kwargs: Any) -> None:
            write(*args, **kwargs)
            _die()
        dying.works_beside = True  # type: ignore[attr-defined]  # the writer marker wdg.store.months reads with getattr
        outputs = {"reports": dying}
    result = turn.run_month(camp, name, force=force, outputs=outputs, progress=progress,
                            prepare=_npc_notes(camp, rep), holding_lock=True, deliver=True)
    rep.ran = result.date.key
    if die_at == "deliver":
        _die()
    files = deliver(camp, name, result.date)
    rep.lines.append(f"{result.date.short()} ({result.date.key}) ausgewertet: Spielzüge "
                     f"{', '.join(sorted(result.inputs)) or 'keine'}; {len(files)} Berichte")
    if result.next_deadline:
        kept = " (vom zurückgenommenen Lauf übernommen)" if result.kept_deadline else ""
        rep.lines.append(f"Eintreffschluß für {result.date.next().short()}: "
                         f"{result.next_deadline} ({result.state.settings.timezone}){kept}")


def _lost(name: str, exc: BaseException) -> SegmentRun:
    rep = SegmentRun(name, code=exitcodes.FAILED)
    if lost_worker(exc):
        rep.note("Fehler: der Arbeitsprozess ging verloren (beendet oder abgestürzt); "
                 "das Segment ist ausgewertet oder unverändert (das Speichern eines "
                 "Mondes ist atomar; auf einem Dask-Cluster kann ein anderer "
                 "Arbeitsprozess es noch auswerten, dann ist es so lange gesperrt) — "
                 "der nächste 'wdg world run' wertet es aus, falls es noch fällig ist",
                 exitcodes.Level.ERROR)
    else:
        rep.note(f"Fehler: {type(exc).__name__}: {exc}", exitcodes.Level.ERROR)
    return rep


def run_world(campaign: Campaign, *, force: bool = False, pdf: bool = True, jobs: int = 0,
              scheduler: str | None = None, executor: Executor | None = None,
              segments: list[str] | None = None, die_at: dict[str, str] | None = None,
              progress: Callable[[SegmentRun], None] | None = None) -> WorldRun:
    """Run every segment whose deadline has passed (``force``: every segment)
    on ``executor``, else on the Dask ``scheduler``, else on ``jobs`` local
    processes (0: one per core; 1: in this process). ``segments``: only these
    (default: all of the campaign). ``progress(run)`` is called as each segment
    is done. ``die_at``: segment -> :data:`DIE_POINTS` (tests only)."""
    import time

    from wdg.reports.batch import default_jobs  # lazy: the reports (jinja2), as in _run_month

    if jobs < 0:
        raise InvalidInputError(f"--jobs {jobs}: erwartet 0 (ein Prozeß je Kern) oder mehr")
    if die_at and set(die_at.values()) - set(DIE_POINTS):
        raise ValueError(f"die_at: one of {DIE_POINTS}")
    t0 = time.perf_counter()
    root = campaign_root(campaign)
    names = segment_names(campaign) if segments is None else list(segments)
    out = WorldRun()
    if not names:
        out.seconds = time.perf_counter() - t0
        return out
    cores = default_jobs()
    close: Callable[[], None] | None = None
    own_pool = False
    if executor is None and scheduler is not None:
        executor, close = connect(scheduler)
        out.where, out.workers = f"Dask {scheduler}", 0
    elif executor is None:
        out.workers = min(jobs or cores, len(names))
        if out.workers > 1:
            executor, own_pool = process_pool(out.workers), True
            close = executor.shutdown
    else:
        out.where = type(executor).__name__
    # rendering inside a task: the cores a local worker has to itself; on Dask
    # (0) the worker's own cores, which a daemonic worker process cannot use
    # (wdg.reports.batch renders with one process there; docs/world.md)
    render_jobs = max(1, cores // out.workers) if out.workers else 0
    kwargs: dict[str, Any] = {"force": force, "pdf": pdf, "render_jobs": render_jobs}
    die_at = die_at or {}
    done: dict[str, SegmentRun] = {}
    try:
        if executor is None:
            for name in names:
                done[name] = run_segment(str(root), name, die_at=die_at.get(name), **kwargs)
                if progress is not None:
                    progress(done[name])
        else:
            futures = {executor.submit(run_segment, str(root), name, die_at=die_at.get(name),
                                       **kwargs): name for name in names}
            for fut in as_completed(futures):
                name = futures[fut]
                try:
                    done[name] = fut.result()
                except Exception as exc:  # noqa: BLE001 - a lost worker, a broken pool
                    done[name] = _lost(name, exc)
                if progress is not None:
                    progress(done[name])
    except BaseException:
        # Ctrl-C, SIGTERM: our own workers stop now (each segment is run or
        # untouched, the commit is atomic); on Dask the tasks not started are
        # cancelled, the running ones finish on their workers.
        if own_pool and executor is not None:
            kill_workers(executor)
            executor.shutdown(wait=False, cancel_futures=True)
            close = None
        elif executor is not None and scheduler is not None:
            executor.shutdown(wait=False)
        raise
    finally:
        if close is not None:
            close()
    out.segments = [done[n] for n in names]
    out.seconds = time.perf_counter() - t0
    return out
