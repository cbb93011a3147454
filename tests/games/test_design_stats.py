"""The designer's statistics of a batch (issue 33): turn position, last
turn, factions, end conditions, margins, the fairness check, degenerate
batches and the comparison of two rule variants."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from wdg.games.batch import GameSummary, run_batch
from wdg.games.design import compare, degenerate, designer_stats, fairness, position
from wdg.games.stats import summarize


def _synthetic(games: int, n: int, start_wins: float, seed: int) -> list[GameSummary]:
    """Games whose start player (rolled uniformly) wins with ``start_wins``,
    the other seats sharing the rest evenly; scores follow the winner."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(games):
        start = int(rng.integers(n))
        if rng.random() < start_wins:
            winner = start
        else:
            winner = int(rng.choice([s for s in range(n) if s != start]))
        returns = tuple(1.0 if s == winner else 0.0 for s in range(n))
        scores = tuple(float(10 + 5 * (s == winner) + rng.integers(3)) for s in range(n))
        out.append(GameSummary(i, i, ("greedy",) * n, scores, returns, 100, 80,
                               (("end", "bag empty"),), start, (start - 1) % n, ()))
    return out


def test_the_fairness_check_flags_a_start_player_advantage() -> None:
    """A deliberately unfair game — the start player wins 40 % of four-player
    games instead of 25 % — is flagged at turn position 1; the fair one of
    the same size (1/n for everyone) is not flagged at all."""
    unfair = fairness(_synthetic(1000, 4, 0.40, 1))
    assert any(f["group"] == "position" and f["name"] == "1" for f in unfair["flags"])
    fair = fairness(_synthetic(1000, 4, 0.25, 3))
    assert fair["flags"] == []


def test_the_fairness_check_stays_quiet_on_fair_batches_as_often_as_it_promises() -> None:
    """The check corrects for the number of groups it tests (Bonferroni):
    over 40 fair batches at most a few raise a flag (the promise is one in
    twenty in expectation)."""
    flagged = sum(bool(fairness(_synthetic(400, 4, 0.25, 100 + k))["flags"]) for k in range(40))
    assert flagged <= 5


def test_turn_positions_count_from_the_start_player() -> None:
    """Position 1 is the start player, then seat order: "Danach ist die
    Zugreihenfolge reihum im Uhrzeigersinn" (Empires)."""
    r = GameSummary(0, 0, ("random",) * 4, (1.0, 2.0, 3.0, 4.0), (0.0, 0.0, 0.0, 1.0), 10, 8, (), 2, 1, ())
    assert [position(r, s) for s in range(4)] == [3, 4, 1, 2]


def test_a_real_batch_reports_positions_factions_and_end_conditions() -> None:
    """4 Gods with four greedy players: every seat has a turn position from
    the rolled start player, its god as faction, and the end conditions of
    the book are counted."""
    res = run_batch("four_gods", {"players": 4}, ["greedy"] * 4, 4, 7)
    assert all(r.start in range(4) and sorted(r.factions) == ["Ebene", "Gebirge", "Meer", "Wald"]
               or len(set(r.factions)) == 4 for r in res)
    from wdg.games.base import load_game
    s = summarize(res, {}, load_game("four_gods", players=4))
    d = s["design"]
    assert set(d["by"]["position"]) == {"1", "2", "3", "4"}
    assert sum(g["games"] for g in d["by"]["faction"].values()) == 16
    assert d["fairness"]["tested"]
    assert sum(e["games"] for e in d["by_end"].values()) == 4
    json.dumps(s)  # plain data, valid JSON


def test_degenerate_batches_are_flagged() -> None:
    """Random Empires games end as full ties at zero armies (the useless
    baseline the issue names) and random 4 Gods games end by everyone
    passing early; both are flagged, and an end condition of the book that
    never occurs is named."""
    emp = run_batch("empires_of_middle_earth", {"players": 2}, ["random"] * 2, 30, 3)
    flags = degenerate(emp, ("deck exhausted", "round cap"))
    kinds = {f["kind"] for f in flags}
    assert "all-zero ties" in kinds
    fg = run_batch("four_gods", {"players": 4}, ["random"] * 4, 40, 1)
    fflags = degenerate(fg, ("world full", "bag empty"))
    assert any(f["kind"] == "end never occurs" and f["end"] == "world full" for f in fflags)


def test_comparing_a_variant_pairs_the_same_seeds() -> None:
    """`--compare` plays the same seeds under the variant; a variant that
    changes nothing gives zero differences with zero-width intervals."""
    a = run_batch("lords_of_creation", {"players": 3}, ["random"] * 3, 20, 5)
    b = run_batch("lords_of_creation", {"players": 3}, ["random"] * 3, 20, 5)
    c = compare(a, b)
    for row in c["seat"].values():
        assert row["win_rate_diff"]["mean"] == 0.0 and row["win_rate_diff"]["ci95"] == [0.0, 0.0]
    d = designer_stats(a)
    assert d["fairness"]["tested"]


def test_the_cli_prints_the_fairness_check_and_the_variant_comparison(tmp_path) -> None:
    """`wdg games batch ... --compare full_knowledge=true --json`: the text
    shows the designer's tables and the comparison, the JSON holds both."""
    from wdg.cli import app
    out = tmp_path / "stats.json"
    res = CliRunner().invoke(app, ["games", "batch", "lords_of_creation", "-n", "3", "--bots", "random",
                                   "--games", "12", "--seed", "2", "--compare", "full_knowledge=true",
                                   "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "Zugposition (1 = Startspieler)" in res.output
    assert "Fairness" in res.output
    assert "Vergleich full_knowledge=true" in res.output
    assert "letzter Zug ja (wer den letzten Zug hat): Siegrate" in res.output
    data = json.loads(out.read_text())
    assert "fairness" in data["design"] and "compare" in data["variant"]
    assert set(data["variant"]["compare"]["last_turn"]) == {"ja", "nein"}


def _last_turn_games(games: int, last_wins: float, seed: int) -> list[GameSummary]:
    """Four-player games whose start player and last player are drawn
    uniformly and independently from the seed; the last player wins with
    ``last_wins``, else one of the others at random (``last_wins`` alone
    differs between two calls with the same seed)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(games):
        start, last, u, other = (int(rng.integers(4)), int(rng.integers(4)), float(rng.random()),
                                 int(rng.integers(3)))
        winner = last if u < last_wins else [s for s in range(4) if s != last][other]
        returns = tuple(float(s == winner) for s in range(4))
        scores = tuple(10.0 + 5 * (s == winner) for s in range(4))
        out.append(GameSummary(i, 1000 + i, ("greedy",) * 4, scores, returns, 100, 80,
                               (("end", "deck"),), start, last, ()))
    return out


def test_a_variant_that_moves_only_the_last_turn_share_shows_it_in_the_comparison() -> None:
    """Issue 43: Lords of Creation without the sudden end moved the last
    turn's win rate (0.255 → 0.395) while the turn positions stayed; the
    comparison must show that group, paired over the seeds, in the data
    and in the text. Here the variant makes the last player win 0.55
    instead of a fair 0.25; start player and last player are independent,
    so the turn positions do not move."""
    from wdg.games.design import compare_text
    base = _last_turn_games(800, 0.25, 3)
    variant = _last_turn_games(800, 0.55, 3)
    c = compare(base, variant)
    ja = c["last_turn"]["ja"]
    assert ja["win_rate_base"] == np.mean([r.returns[r.last] for r in base])
    assert 0.2 < ja["win_rate_base"] < 0.3 and 0.5 < ja["win_rate_variant"] < 0.6
    lo, hi = ja["win_rate_diff"]["ci95"]
    assert lo > 0.2 and hi < 0.4
    lo, hi = c["last_turn"]["nein"]["win_rate_diff"]["ci95"]
    assert lo < -0.07 and hi < -0.05 and lo > -0.14
    for row in c["position"].values():  # the positions do not move
        lo, hi = row["win_rate_diff"]["ci95"]
        assert lo < 0.0 < hi or abs(row["win_rate_diff"]["mean"]) < 0.05
    text = compare_text(c, "ohne plötzliches Ende")
    line = next(x for x in text.splitlines() if "letzter Zug ja" in x)
    assert f"Siegrate {ja['win_rate_base']:.3f} → {ja['win_rate_variant']:.3f}" in line
    assert f"Differenz +{ja['win_rate_diff']['mean']:.3f} ±" in line
