"""The campaign lab: campaigns on a copy, played by bots, measured and plotted.

:func:`run_lab` plays a segment for some months with bots on a copy (never
the real segment; :mod:`wdg.lab.run`), once with the campaign's rules and,
with ``compare``, once more with another rules directory on the same seeds,
and writes the report folder (:mod:`wdg.lab.report`). The campaigns run
through a :class:`concurrent.futures.Executor` (``jobs`` > 1: a process
pool), so a cluster executor (Dask's ``client.get_executor()``) can take
them too. docs/lab.md.
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wdg.campaign import Campaign
from wdg.errors import InvalidInputError, StateError
from wdg.lab.report import write_report
from wdg.lab.run import CampaignRun, assign_bots, run_campaign
from wdg.procs import kill_workers, worker_init
from wdg.store.segment import load_segment

Progress = Callable[[int, int, str], None]


@dataclass(slots=True)
class LabResult:
    """The campaigns played and the report written."""

    runs: list[CampaignRun]
    out: Path
    summary: dict[str, Any]


def _label(rules: Path, other: Path | None, first: bool) -> str:
    if other is None:
        return "Regeln"
    if rules.resolve() == other.resolve():
        return "A" if first else "B"
    return rules.name if rules.name != other.name else ("A" if first else "B")


def _one(args: tuple[Any, ...]) -> CampaignRun:
    (root, segment, months, bots, directory, rules, seed, label, replay) = args
    return run_campaign(Campaign(Path(root)), segment, months=months, bots=bots,
                        directory=Path(directory), rules_dir=Path(rules), seed=seed,
                        label=label, replay=replay)


def run_lab(camp: Campaign, segment: str, *, months: int = 24, bots: str | None = None,
            out: Path | None = None, compare: Path | None = None, seed: int = 1,
            replay: bool = True, plots: str = "auto", jobs: int = 1,
            progress: Progress | None = None,
            executor: cf.Executor | None = None) -> LabResult:
    """Play and report (see the module docstring)."""
    if plots not in ("auto", "matplotlib", "svg", "none"):
        raise InvalidInputError(f"--plots {plots!r}: erwartet auto, matplotlib, svg oder none")
    seg = load_segment(camp.segment_dir(segment)) if (camp.segment_dir(segment) /
                                                       "segment.yaml").is_file() else None
    if seg is None:
        raise StateError(f"kein Segment {segment!r} in {camp.worlds}")
    assigned = assign_bots(seg, bots)
    out = Path(out) if out is not None else camp.root / "reports" / f"lab-{segment}"
    base_rules = camp.rules_dir
    sets = [base_rules] + ([Path(compare)] if compare is not None else [])
    for r in sets:
        if not (r / "economy.yaml").is_file():
            raise InvalidInputError(f"--rules {r}: kein Regelverzeichnis (economy.yaml fehlt)")
    labels = [_label(r, compare if i == 0 else base_rules, i == 0) if compare else "Regeln"
              for i, r in enumerate(sets)]
    jobs_args = [(str(camp.root), segment, months, assigned, str(out / "campaigns" / lab),
                  str(r), seed, lab, replay) for r, lab in zip(sets, labels, strict=True)]
    if len(sets) == 1 or (jobs <= 1 and executor is None):
        runs = []
        for a in jobs_args:
            runs.append(run_campaign(Campaign(Path(a[0])), a[1], months=a[2], bots=a[3],
                                     directory=Path(a[4]), rules_dir=Path(a[5]), seed=a[6],
                                     label=a[7], replay=a[8], progress=progress))
    else:
        own = executor is None
        ex = executor or cf.ProcessPoolExecutor(max_workers=min(jobs, len(sets)),
                                                initializer=_worker_init())
        try:
            futures = [ex.submit(_one, a) for a in jobs_args]
            runs = []
            for i, f in enumerate(futures):
                runs.append(f.result())
                if progress is not None:
                    progress((i + 1) * months, len(futures) * months, runs[-1].label)
        except BaseException:
            if own:  # Ctrl-C, SIGTERM, an error: our workers stop writing now
                kill_workers(ex)
                ex.shutdown(wait=False, cancel_futures=True)
                own = False
            raise
        finally:
            if own:
                ex.shutdown()
    summary = write_report(runs, out, plots=plots)
    return LabResult(runs, out, summary)


def _worker_init() -> Callable[..., None]:
    """The project's pool initializer: workers die with their parent."""
    return worker_init


__all__ = ["LabResult", "run_lab"]
