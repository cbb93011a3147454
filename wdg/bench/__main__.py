"""``python -m wdg.bench [--quick] [--only NAME] [--out PATH]``.

Runs every benchmark (or only one group: ``segment``, ``storage``,
``sheets``, ``month``, ``scaling``, ``memory``, ``cli`` (the month through
``wdg turn run``), ``reports`` (per-document rates on a cut, not in the default
run), ``adversarial``, ``mail`` (the player's turnaround against real mail servers, and
``mailguard``: what a hostile or big mail costs the intake), ``world`` (``wdg world
run`` of a world of stress segments with 1 and 2 workers), ``games``
or a game's name), prints a table and writes the results file (default
``bench/results.json`` in the checkout). ``--quick`` uses fewer and smaller
runs (for trying it out; the committed results come from a full run).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from wdg.bench import adversarial, cli, games, mail, mailguard, office, reports, segment
from wdg.bench.harness import Results, machine, table, write_results
from wdg.campaign import PACKAGE_ROOT

SEGMENT_PARTS = {"segment", "storage", "sheets", "month", "scaling", "memory"}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks; return the exit code."""
    ap = argparse.ArgumentParser(prog="python -m wdg.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, smaller runs")
    ap.add_argument("--only", default=None, help="one group or part (see the module doc)")
    ap.add_argument("--out", type=Path, default=PACKAGE_ROOT / "bench" / "results.json",
                    help="results file (default: bench/results.json)")
    args = ap.parse_args(argv)
    res = Results(meta=machine())
    res.meta.update({"quick": args.quick, "only": args.only})
    t0 = time.perf_counter()
    print(f"wdg benchmarks on {res.meta['cpu']} ({res.meta['cpus']} CPUs), "
          f"commit {res.meta['commit'][:10]}{' (quick)' if args.quick else ''}", flush=True)
    with tempfile.TemporaryDirectory(prefix="wdg-bench-") as tmp:
        work = Path(tmp)
        if args.only is None or args.only in SEGMENT_PARTS:
            segment.run_all(work, res, args.quick, args.only)
        if args.only in (None, "cli"):
            cli.run_all(work, res, args.quick)
        if args.only == "reports":  # the old per-document rates on a cut (not in the default run)
            reports.run_all(work, res, args.quick)
        if args.only in (None, "adversarial"):
            adversarial.run_all(work, res, args.quick)
        if args.only in (None, "mail"):
            mail.run_all(work, res, args.quick)
        if args.only in (None, "mail", "mailguard"):
            mailguard.run_all(work, res, args.quick)
        if args.only in (None, "world"):
            office.run_all(work, res, args.quick)
        if args.only is None or args.only not in SEGMENT_PARTS | {"reports", "adversarial", "cli",
                                                                  "mail", "mailguard", "world"}:
            games.run_all(res, args.quick, args.only)
    res.meta["wall_s"] = round(time.perf_counter() - t0, 1)
    res.meta["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print()
    print(table(res))
    write_results(res, args.out)
    print(f"\nwritten {args.out} ({res.meta['wall_s']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
