"""A stress campaign on disk, for measuring what the game master waits for.

:func:`prepare_campaign` writes a campaign directory (``worlds/stress/``,
``orders/stress/<YYYY-MM>/k<n>.txt``) holding the stress preset at a scale
and its generated sheets, so that the real command line (``wdg turn run
stress -C DIR``) can be timed end to end.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wdg.orders.generate import generate_sheets
from wdg.store.segment import save_segment
from wdg.world.stress import STRESS_SEED, stress_segment

SHEET_SEED = 2


def prepare_campaign(scale: float, root: Path, name: str = "stress") -> Path:
    """Write the stress campaign at ``scale`` into ``root``; returns ``root``."""
    seg, passwords = stress_segment(scale, name=name)
    save_segment(seg, root / "worlds" / name)
    texts = generate_sheets(seg, np.random.default_rng([STRESS_SEED, SHEET_SEED]), passwords)
    orders = root / "orders" / name / seg.date.key
    orders.mkdir(parents=True, exist_ok=True)
    for k, text in sorted(texts.items()):
        (orders / f"k{k}.txt").write_bytes(text.encode("utf-8"))
    return root


if __name__ == "__main__":  # python -m wdg.bench.campaign SCALE DIR
    import sys

    print(prepare_campaign(float(sys.argv[1]), Path(sys.argv[2])))
