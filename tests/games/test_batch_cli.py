"""The batch runner, statistics and the ``wdg games`` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wdg.cli import app
from wdg.games.base import GameError
from wdg.games.batch import game_seeds, run_batch
from wdg.games.records import load_record, replay
from wdg.games.stats import summarize, wilson

runner = CliRunner()


def test_wilson_interval_contains_the_rate_and_narrows_with_more_games() -> None:
    """The 95% interval of 30 wins in 100 is about [0.219, 0.396]."""
    lo, hi = wilson(30, 100)
    assert lo == pytest.approx(0.2189, abs=1e-3) and hi == pytest.approx(0.3958, abs=1e-3)
    lo2, hi2 = wilson(300, 1000)
    assert lo < lo2 < 0.3 < hi2 < hi


def test_game_seeds_depend_only_on_the_master_seed_and_index() -> None:
    """SeedSequence spawning: the first games' seeds do not change with the batch size."""
    assert game_seeds(5, 10)[:3] == game_seeds(5, 3)
    assert game_seeds(5, 3) != game_seeds(6, 3)


@pytest.mark.slow
def test_batch_statistics_are_the_same_for_one_and_two_jobs() -> None:
    """The same seed gives the same statistics whatever the number of processes."""
    args = ("lords_of_creation", {"players": 4}, ["random", "greedy", "random", "random"], 300, 11)
    one = run_batch(*args, jobs=1)
    two = run_batch(*args, jobs=2)
    assert one == two
    s1 = summarize(one, {"game": "lords_of_creation"})
    assert json.dumps(s1, sort_keys=True) == json.dumps(summarize(two, {"game": "lords_of_creation"}),
                                                        sort_keys=True)
    assert sum(g["wins"] for g in s1["seats"].values()) == pytest.approx(300)
    assert s1["bots"]["greedy"]["games"] == 300


def test_cli_lists_plays_replays_and_batches(tmp_path: Path) -> None:
    """`wdg games list/play/replay/batch` end to end."""
    res = runner.invoke(app, ["games", "list"])
    assert res.exit_code == 0 and "lords_of_creation: 2-5 Spieler; Parameter" in res.output
    rec = tmp_path / "g.yaml"
    res = runner.invoke(app, ["games", "play", "lords_of_creation", "--players", "3", "--seed", "4",
                              "--bots", "random,greedy", "--record", str(rec)])
    assert res.exit_code == 0, res.output
    assert "Ergebnis (1 Sieg" in res.output and load_record(rec).bots == ["random", "greedy", "random"]
    res = runner.invoke(app, ["games", "replay", str(rec)])
    assert res.exit_code == 0 and "die Aufzeichnung ist gültig" in res.output
    out_json, out_csv = tmp_path / "s.json", tmp_path / "s.csv"
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "--games", "20", "--players", "2",
                              "--bots", "random,greedy", "--seed", "3", "--json", str(out_json),
                              "--csv", str(out_csv)])
    assert res.exit_code == 0, res.output
    data = json.loads(out_json.read_text())
    assert data["games"] == 20 and set(data["bots"]) == {"random", "greedy"}
    assert out_csv.read_text().splitlines()[0].startswith("group,name,games,wins,win_rate,ci95_low")


def test_replay_names_the_first_illegal_action(tmp_path: Path) -> None:
    """A record with a tampered action fails at exactly that step."""
    rec = tmp_path / "g.yaml"
    runner.invoke(app, ["games", "play", "lords_of_creation", "-n", "2", "-s", "1", "-o", str(rec)])
    data = yaml.safe_load(rec.read_text())
    k = next(i for i, a in enumerate(data["actions"]) if a[0] >= 0 and i > 40)
    data["actions"][k][1] = 99_999
    rec.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(GameError, match=rf"Schritt {k} \(99999"):
        replay(load_record(rec), str(rec))
    res = runner.invoke(app, ["games", "replay", str(rec)])
    assert res.exit_code != 0


def test_unknown_bots_and_parameters_are_refused() -> None:
    """Clear errors for a bad bot name or game parameter."""
    with pytest.raises(GameError, match="unbekannter Bot 'clever'"):
        run_batch("lords_of_creation", {"players": 2}, ["clever", "random"], 1, 0)
    with pytest.raises(GameError, match="unbekannte\\(r\\) Parameter"):
        run_batch("lords_of_creation", {"players": 2, "speed": 3}, ["random", "random"], 1, 0)


def test_a_paired_batch_plays_each_seed_in_every_seat_rotation(tmp_path: Path) -> None:
    """``batch --paired`` (issue 43): games 2k and 2k+1 share a seed with the
    seats swapped, so the luck of the deal and of the seat falls on both
    bots; the bots' intervals are over the seeds (the text says so)."""
    from wdg.games.stats import mean_ci

    out = tmp_path / "p.json"
    res = CliRunner().invoke(app, ["games", "batch", "lords_of_creation", "-n", "2", "--bots", "random,greedy",
                                   "--games", "8", "--seed", "3", "--paired", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "gepaart: jeder der 4 Seeds in jeder Sitzdrehung gespielt" in res.output
    data = json.loads(out.read_text())
    assert data["paired"] is True
    games = run_batch("lords_of_creation", {"players": 2}, ["random", "greedy"], 8, 3, paired=True)
    shares = [(a.returns[a.bots.index("greedy")] + b.returns[b.bots.index("greedy")]) / 2
              for a, b in zip(games[::2], games[1::2])]
    lo, hi = mean_ci(shares)["ci95"]
    assert data["bots"]["greedy"]["ci95"] == pytest.approx([max(0.0, lo), min(1.0, hi)])
    assert data["bots"]["greedy"]["win_rate"] == pytest.approx(sum(shares) / 4)
