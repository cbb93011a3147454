"""The bot ladder (issue 19): greedy beats random in every game, the search
bot beats greedy in all three games — a small seeded ladder of two-player
games with seats rotated (the figures of docs/games.md come from the same
runner with more games)."""

from __future__ import annotations

import json

import pytest

from wdg.games.ladder import pairings, run_ladder

LADDER = {
    # game: (games per pairing, seed, search bot or None)
    "lords_of_creation": (16, 7, "mcts:60"),
    "four_gods": (10, 7, "mcts:30"),
    "empires_of_middle_earth": (10, 7, "mcts:30"),
}
"""The search beats greedy in Lords of Creation (``mcts:60`` won 27 of 30 in
docs/games.md), in 4 Gods (``mcts:30`` won 87 of 100) and in Empires of
Middle-earth (``mcts:30`` won 61 of 100, 7 of these 10 games). Lords of
Creation plays 16 games a pairing: with greedy's card choice of issue 33
greedy wins 0.92 [0.85, 0.96] of 100 games against random, 6 of the first
8 of this seed."""


def test_the_ladder_pairs_every_bot_with_the_one_below_and_the_reference() -> None:
    """Pairings: each bot against the one below it, every bot from the fourth
    on also against the second."""
    assert pairings(["random", "greedy", "mcts:30", "mcts:100"]) == [
        ("greedy", "random"), ("mcts:30", "greedy"), ("mcts:100", "mcts:30"), ("mcts:100", "greedy")]


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(LADDER))
def test_greedy_beats_random_and_the_search_beats_greedy(game: str) -> None:
    """Seat-rotated two-player games: greedy (one move ahead) wins clearly
    against random play; in every game the ISMCTS bot
    wins more games than greedy."""
    games, seed, mcts = LADDER[game]
    ladder = ["random", "greedy"] + ([mcts] if mcts else [])
    # two local processes (a batch is the same for any number of jobs:
    # test_batch_cli), so the ladder takes both cores of the test machine
    pairs = run_ladder(game, {"players": 2}, ladder, games, seed, jobs=2)
    low = pairs[0]
    assert (low.upper, low.lower) == ("greedy", "random")
    assert low.upper_rate >= 0.8
    assert low.upper_wins + low.lower_wins == pytest.approx(games)
    if mcts:
        high = pairs[1]
        assert (high.upper, high.lower) == (mcts, "greedy")
        assert high.upper_wins > high.lower_wins


def test_ladder_cli_rows_are_the_batches_they_name(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``games batch --ladder``: each row is the plain batch of its printed
    command (upper bot first, seed SEED+k, seats rotated), with its 95 %
    Wilson interval; a ladder of one bot is an error."""
    from typer.testing import CliRunner

    from wdg.cli import app
    from wdg.games.batch import run_batch
    from wdg.games.stats import wilson

    runner = CliRunner()
    out = tmp_path / "ladder.json"
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "-n", "2", "--ladder",
                              "--bots", "random,greedy", "--games", "6", "--seed", "40",
                              "--json", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    (row,) = data["pairings"]
    assert (row["upper"], row["lower"], row["seed"]) == ("greedy", "random", 40)
    plain = run_batch("lords_of_creation", {"players": 2}, ["greedy", "random"], 6, 40)
    wins = sum(r.returns[r.bots.index("greedy")] for r in plain)
    assert {r.bots for r in plain} == {("greedy", "random"), ("random", "greedy")}
    assert row["upper_win_rate"] == pytest.approx(wins / 6)
    assert row["upper_ci95"] == pytest.approx(list(wilson(wins, 6)))
    assert "wdg games batch lords_of_creation -n 2 --bots greedy,random --games 6 --seed 40" in res.output
    bad = runner.invoke(app, ["games", "batch", "four_gods", "-n", "2", "--ladder", "--bots", "greedy"])
    assert bad.exit_code != 0 and "mindestens zwei Bots" in str(bad.exception)


def test_paired_ladder_rows_play_each_seed_in_both_seatings_with_the_interval_over_seeds(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``--ladder --paired`` (issue 43): every seed of a row is played once
    in each seat rotation — the row is the batch ``--paired`` it names —
    and the interval is the normal one over the seeds' shares of the wins
    (each seed one observation), not Wilson's over games that are not
    independent."""
    from typer.testing import CliRunner

    from wdg.cli import app
    from wdg.games.batch import run_batch
    from wdg.games.stats import mean_ci

    out = tmp_path / "ladder.json"
    res = CliRunner().invoke(app, ["games", "batch", "lords_of_creation", "-n", "2", "--ladder", "--paired",
                                   "--bots", "random,greedy", "--games", "12", "--seed", "40",
                                   "--json", str(out)])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(out.read_text())["pairings"]
    plain = run_batch("lords_of_creation", {"players": 2}, ["greedy", "random"], 12, 40, paired=True)
    assert [r.seed for r in plain][::2] == [r.seed for r in plain][1::2]  # seeds in pairs
    assert len({r.seed for r in plain}) == 6
    assert all(a.bots == b.bots[::-1] for a, b in zip(plain[::2], plain[1::2]))
    shares = [(a.returns[a.bots.index("greedy")] + b.returns[b.bots.index("greedy")]) / 2
              for a, b in zip(plain[::2], plain[1::2])]
    assert row["per_seed"] == pytest.approx(shares)
    assert row["upper_win_rate"] == pytest.approx(sum(shares) / 6)
    lo, hi = mean_ci(shares)["ci95"]
    assert row["upper_ci95"] == pytest.approx([max(0.0, lo), min(1.0, hi)])
    assert "--games 12 --seed 40 --paired" in res.output
    bad = CliRunner().invoke(app, ["games", "batch", "lords_of_creation", "-n", "2", "--paired",
                                   "--bots", "random,greedy", "--games", "5"])
    assert bad.exit_code != 0 and "kein Vielfaches der Spielerzahl 2" in str(bad.exception)
