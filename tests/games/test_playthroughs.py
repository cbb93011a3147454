"""Playthrough files: a seeded random game of each engine, every position and
action as text, kept under ``tests/games/playthroughs/`` and compared line by
line as a regression test (OpenSpiel's "playthroughs").

After a deliberate rule change, regenerate with
``WDG_REGEN_PLAYTHROUGHS=1 python -m pytest tests/games/test_playthroughs.py``
and review the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wdg.games.base import load_game, playthrough_text

DIR = Path(__file__).with_name("playthroughs")
CASES = [
    ("lords_of_creation", 2, 1, "lords_of_creation_2p_seed1.txt", {}),
    ("four_gods", 4, 1, "four_gods_4p_seed1.txt", {}),
    # The first shipped tile set, named "" by everything made before the
    # balanced set became the default: the same game as the file written then
    # (its texts follow today's views).
    ("four_gods", 4, 1, "four_gods_first_tiles_4p_seed1.txt", {"tiles": ""}),
    ("empires_of_middle_earth", 4, 1, "empires_of_middle_earth_4p_seed1.txt", {}),
]


@pytest.mark.parametrize(("name", "players", "seed", "file", "params"), CASES)
def test_the_seeded_playthrough_is_unchanged(name: str, players: int, seed: int, file: str,
                                             params: dict[str, str]) -> None:
    """The seeded game replays exactly as recorded, position by position."""
    text = playthrough_text(load_game(name, players=players, **params), seed)
    path = DIR / file
    if os.environ.get("WDG_REGEN_PLAYTHROUGHS") == "1":
        DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    want = path.read_text(encoding="utf-8").splitlines()
    got = text.splitlines()
    for i, (w, g) in enumerate(zip(want, got)):
        assert g == w, f"{file} line {i + 1} differs"
    assert len(got) == len(want)
