"""A recorded seeded Lords of Creation game, kept as a playthrough file
(every state and action as text) and compared line by line.

Regenerate after a deliberate rule change with
``WDG_REGEN_PLAYTHROUGHS=1 python -m pytest tests/games/test_loc_playthrough.py``
and review the diff."""

from __future__ import annotations

import os
from pathlib import Path

from wdg.games.base import load_game, playthrough_text

FILE = Path(__file__).with_name("playthroughs") / "lords_of_creation_2p_seed1.txt"


def test_the_seeded_playthrough_is_unchanged() -> None:
    """The 2-player game of seed 1 replays exactly as recorded."""
    text = playthrough_text(load_game("lords_of_creation", players=2), 1)
    if os.environ.get("WDG_REGEN_PLAYTHROUGHS"):
        FILE.parent.mkdir(parents=True, exist_ok=True)
        FILE.write_text(text, encoding="utf-8")
    want = FILE.read_text(encoding="utf-8").splitlines()
    got = text.splitlines()
    for i, (w, g) in enumerate(zip(want, got)):
        assert g == w, f"{FILE.name} line {i + 1} differs"
    assert len(got) == len(want)
