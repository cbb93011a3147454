"""The bot ladder (issue 19): in every game the search bot beats greedy and
greedy beats random — a small seeded ladder of two-player games with seats
rotated (the figures of docs/games.md come from the same runner with more
games)."""

from __future__ import annotations

import pytest

from wdg.games.ladder import pairings, run_ladder

LADDER = {
    # game: (games per pairing, seed, search bot)
    "lords_of_creation": (12, 7, "mcts:30"),
    "four_gods": (12, 7, "mcts:30"),
    "empires_of_middle_earth": (12, 7, "mcts:30"),
}


def test_the_ladder_pairs_every_bot_with_the_one_below_and_the_reference() -> None:
    """Pairings: each bot against the one below it, every bot from the fourth
    on also against the second."""
    assert pairings(["random", "greedy", "mcts:30", "mcts:100"]) == [
        ("greedy", "random"), ("mcts:30", "greedy"), ("mcts:100", "mcts:30"), ("mcts:100", "greedy")]


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(LADDER))
def test_search_beats_greedy_and_greedy_beats_random(game: str) -> None:
    """Seat-rotated two-player games: greedy (one move ahead) wins clearly
    against random play, and the ISMCTS bot wins more games than greedy."""
    games, seed, mcts = LADDER[game]
    low, high = run_ladder(game, {"players": 2}, ["random", "greedy", mcts], games, seed)
    assert (low.upper, low.lower) == ("greedy", "random")
    assert low.upper_rate >= 0.8
    assert (high.upper, high.lower) == (mcts, "greedy")
    assert high.upper_wins > high.lower_wins
    assert low.upper_wins + low.lower_wins == pytest.approx(games)
