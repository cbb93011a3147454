"""Peak memory of the month's run, measured in a process of its own.

``python -m wdg.bench.memory SEGMENT_DIR ORDERS_DIR [--trace]`` loads the
segment, takes in the sheets and resolves the month, then prints one JSON
line: ``maxrss_mib`` (the process's peak resident set, interpreter and
libraries included: what the machine must have) and, with ``--trace``,
``traced_peak_mib`` (the peak of Python allocations during the month alone,
from :mod:`tracemalloc`, which slows the run down and is therefore measured
in a separate process).
"""

from __future__ import annotations

import json
import resource
import sys
import tracemalloc
from pathlib import Path

from wdg.bench.world import rules, run_month, take_sheets
from wdg.store.segment import load_segment


def measure(segment_dir: Path, orders_dir: Path, trace: bool) -> dict[str, float]:
    """Run the month once and return the peak figures in MiB."""
    r = rules()
    seg = load_segment(segment_dir)
    files = {p.name: p.read_bytes() for p in sorted(orders_dir.glob("k*.txt"))}
    sheets, events = take_sheets(seg, files)
    out: dict[str, float] = {}
    if trace:
        tracemalloc.start()
        run_month(seg, sheets, events, r)
        out["traced_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    else:
        run_month(seg, sheets, events, r)
    out["maxrss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main(argv: list[str]) -> int:
    """Command-line entry: print the JSON line."""
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        print("usage: python -m wdg.bench.memory SEGMENT_DIR ORDERS_DIR [--trace]",
              file=sys.stderr)
        return 2
    print(json.dumps(measure(Path(args[0]), Path(args[1]), "--trace" in argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
