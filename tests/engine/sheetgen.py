"""Random legal-looking order sheets from a kingdom's state (for the ledger test).

Orders are drawn from what the kingdom holds (its armies, gemarks,
settlements, diplomacy list); some will be refused by the engine (no money,
no volume), which the ledger must survive as well.
"""

from __future__ import annotations

import numpy as np

from wdg.world.state import ArmyStatus, Segment


def sheet_text(seg: Segment, kingdom: int, password: str, rng: np.random.Generator) -> str:
    """An order sheet for ``kingdom`` for the segment's current month."""
    lines = [f"Segment: {seg.name}", f"Königreich: {kingdom}", f"Passwort: {password}", "H"]
    own = [seg.grid.hex_at(int(r), int(c)) for r, c in zip(*np.nonzero(seg.owner == kingdom))]
    towns = [h for h in own if seg.at(seg.settlement, h) > 0]
    for n in sorted(a for a in seg.armies if seg.armies[a].kingdom == kingdom):
        a = seg.armies[n]
        lines.append(f"Heer {n:04d} {seg.label(a.position)}")
        roll = int(rng.integers(8))
        if a.status is ArmyStatus.PASSIVE:
            if roll < 3:
                lines.append("A: nf")
            elif roll < 6 and towns:
                lines.append(f"A: nh {seg.label(towns[int(rng.integers(len(towns)))])}")
        elif a.status is ArmyStatus.ACTIVE:
            choice = ["nr", "er", "nn", "eh", "", "", "nr", ""][roll]
            if choice == "nr":
                lines.append(f"A: nr {int(rng.integers(1, 600))}")
            elif choice == "er" and a.units:
                lines.append(f"A: er {int(rng.integers(1, a.units + 1))}")
            elif choice == "nn":
                lines.append(f"A: nn Burg{int(rng.integers(100))}")
            elif choice == "eh" and rng.random() < 0.3:
                lines.append("A: eh 0000")
    lines.append("K")
    k = seg.kingdoms[kingdom]
    for _ in range(int(rng.integers(1, 3))):
        roll = int(rng.integers(5))
        if roll == 0 and own:
            lines.append(f"SS {seg.label(own[int(rng.integers(len(own)))])} "
                         f"{int(rng.integers(1, 101))}")
        elif roll == 1 and towns:
            lines.append(f"B{'KHQM'[int(rng.integers(4))]} "
                         f"{seg.label(towns[int(rng.integers(len(towns)))])}")
        elif roll == 2 and k.diplomacy:
            other = sorted(k.diplomacy)[int(rng.integers(len(k.diplomacy)))]
            lines.append(f"DS {other} {['++', '+', '-', '--'][int(rng.integers(4))]}")
        elif roll == 3:
            lines.append(f"F+ {int(rng.integers(1, 20)) * 500}")
        elif own:
            lines.append(f"BM {seg.label(own[int(rng.integers(len(own)))])}")
    return "\n".join(lines) + "\n"
