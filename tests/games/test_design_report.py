"""What a designer reads from `wdg games batch` (issue 33, the designer's
review): players without a side are not tested for fairness, every
statistic carries its interval, `--compare` covers factions, end
conditions, margins and scores, the text is German and fits 100 columns,
the plots show the variant, and `--help` shows the extras' names."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.games.base import NO_FACTION, load_game
from wdg.games.batch import GameSummary, run_batch
from wdg.games.design import compare, compare_text, designer_stats
from wdg.games.stats import summarize, to_csv, to_text

runner = CliRunner()

ENGLISH = ("games,", "win rate", "ended by", "at the end", "score mean", "vs others", "length (",
           "not every seat", "shared wins", "full ties", "95% CI")


def _godless(games: int, seed: int) -> list[GameSummary]:
    """Four-player games in which one seat (rolled) never has a side (scores
    0, wins nothing) and the three others, each with a god, win a third
    each: fair to every seat, position and god."""
    rng = np.random.default_rng(seed)
    gods = ["Elfen", "Zwerge", "Menschen"]
    out = []
    for i in range(games):
        none = int(rng.integers(4))
        seats = [s for s in range(4) if s != none]
        winner = seats[int(rng.integers(3))]
        factions = [NO_FACTION] * 4
        for k, s in enumerate(seats):
            factions[s] = gods[(k + i) % 3]
        returns = tuple(1.0 if s == winner else 0.0 for s in range(4))
        scores = tuple(0.0 if s == none else float(20 + 5 * (s == winner)) for s in range(4))
        out.append(GameSummary(i, i, ("random",) * 4, scores, returns, 50, 40, (("end", "all passed"),),
                               int(rng.integers(4)), int(rng.integers(4)), tuple(factions)))
    return out


def test_a_player_without_a_god_is_listed_but_not_tested_for_fairness() -> None:
    """A player who never chose a god ("-": always 0 points) is no faction:
    the check neither flags it nor counts it in the Bonferroni correction,
    and the gods are compared with their fair share — here a third, since
    the god-less player leaves his quarter to the others. Under the old
    test against 1/4 every god (0.333 in 900 games) would be flagged."""
    res = _godless(900, 1)
    d = designer_stats(res, factions_fixed=True, no_faction_label="ohne Gott")
    f = d["fairness"]
    assert f["flags"] == []
    assert NO_FACTION not in {c["name"] for c in f["checks"] if c["group"] == "faction"}
    assert [u["name"] for u in f["untested"]] == [NO_FACTION]
    # 4 seats + 4 positions + 2 last-turn groups + 3 gods are tested
    assert len(f["checks"]) == 13 and f["level"] == pytest.approx(1 - 0.05 / 13)
    assert all(c["expected"] == pytest.approx(1 / 3) for c in f["checks"] if c["group"] == "faction")
    text = to_text({"game": "four_gods", "games": 900, "shared_wins": 0, "full_ties": 0,
                    "bots": {}, "seats": {}, "length": {}, "design": d})
    assert "ohne Gott" in text and "AUFFÄLLIG" not in text
    assert "nicht geprüft: Seite „ohne Gott“ (900-mal" in text


def test_four_gods_random_players_without_a_god_raise_no_flag() -> None:
    """The reviewer's batch (`four_gods -n 4 --bots random`, seed 1):
    random players who never choose a god appear as "ohne Gott" in the
    table, and the fairness check does not test them."""
    game = load_game("four_gods", players=4)
    res = run_batch("four_gods", {"players": 4}, ["random"] * 4, 150, 1)
    s = summarize(res, {"game": "four_gods"}, game)
    faction = s["design"]["by"]["faction"]
    assert faction[NO_FACTION]["label"] == "ohne Gott" and faction[NO_FACTION]["score"]["max"] == 0
    assert all(c["name"] != NO_FACTION for c in s["design"]["fairness"]["checks"])
    assert "AUFFÄLLIG: Seite -" not in to_text(s)


def test_every_statistic_carries_its_interval_in_text_and_json() -> None:
    """Margin of victory (games and the interval of its mean), end-condition
    shares (Wilson interval) and score means per seat, position and faction
    (interval of the mean) are in the JSON and printed."""
    game = load_game("four_gods", players=4)
    res = run_batch("four_gods", {"players": 4}, ["greedy"] * 4, 6, 3)
    s = summarize(res, {"game": "four_gods"}, game)
    m = s["design"]["margin"]
    assert m["n"] == sum(1 for r in res if max(r.returns) >= 1.0)
    lo, hi = m["mean_ci95"]
    assert lo <= m["mean"] <= hi and lo < hi
    for kind in ("seat", "position", "faction"):
        for g in s["design"]["by"][kind].values():
            lo, hi = g["score"]["mean_ci95"]
            assert lo <= g["score"]["mean"] <= hi
    for g in s["seats"].values():
        assert "mean_ci95" in g["score"]
    text = to_text(s)
    assert f"Vorsprung des Siegers ({m['n']} Partien mit einem Sieger):" in text
    mlo, mhi = m["mean_ci95"]
    assert f"Mittel {m['mean']:.2f} ± {(mhi - mlo) / 2:.2f}, Median" in text
    for e in s["design"]["by_end"].values():
        assert f"[{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}]" in text
    seat0 = s["seats"]["0"]["score"]
    half = (seat0["mean_ci95"][1] - seat0["mean_ci95"][0]) / 2
    assert re.search(rf"^0 .* {seat0['mean']:.2f} ± {half:.2f} ", text, re.M)
    json.dumps(s)


@pytest.mark.parametrize("name,players,german", [
    ("four_gods", 4, ["Beutel leer", "Ende durch:", "Plättchen im Beutel", "„Welt voll“ kommt"]),
    ("lords_of_creation", 4, ["höchstens Karten auf einer Hand", "Runden"]),
    ("empires_of_middle_earth", 2, ["Stapel aufgebraucht", "Heere"]),
])
def test_the_batch_text_is_german_and_fits_100_columns(name: str, players: int, german: list[str]) -> None:
    """Headers, columns, end causes (the books' wording: "Die Welt ist
    vollständig ... gefüllt", "Der Beutel ... ist leer"; "am Ende des
    verdeckten Kartenstapels") and the end figures are German; no raw key
    of `end_info` and no English header is left; no line is wider than 100."""
    game = load_game(name, players=players)
    bots = ["greedy"] * players
    res = run_batch(name, {"players": players}, bots, 4, 2)
    text = to_text(summarize(res, {"game": name}, game))
    for word in ENGLISH:
        assert word not in text, word
    for key in game.figure_labels:
        assert key not in text
    for g in german:
        assert g in text, g
    assert max(len(line) for line in text.splitlines()) <= 100
    mixed = to_text(summarize(run_batch(name, {"players": players}, (["greedy", "random"] * 3)[:players],
                                        2, 2)[:2], {"game": name}, game))
    assert "Fairness: nicht geprüft (nicht jeder Sitz spielt denselben Bot)" in mixed


def test_the_two_player_god_pairs_table_is_aligned() -> None:
    """Two players with two gods each: the side column is as wide as the
    longest pair ("Fischmenschen+Menschen"), so every number column lines
    up under its header."""
    game = load_game("four_gods", players=2)
    res = run_batch("four_gods", {"players": 2}, ["random"] * 2, 80, 1)
    text = to_text(summarize(res, {"game": "four_gods"}, game))
    block = text.split("Seite:\n")[1].split("\n  (Abstand")[0].splitlines()
    assert any("+" in line for line in block[1:])
    ends = {line.index("Partien") + len("Partien") for line in block[:1]}
    for line in block[1:]:
        label_end = re.match(r"  \S.*?\s{2,}(\d+)", line)
        assert label_end and label_end.end(1) in ends, line
    assert max(len(line) for line in text.splitlines()) <= 100


def test_an_optional_end_that_never_occurs_is_no_degenerate_batch() -> None:
    """Empires' round cap stands for the book's optional agreed end ("Das
    Spiel kann auch durch eine vorher vereinbarte Zeit beendet werden"):
    that it never occurs is the healthy case, so no "ENTARTET" names it
    (issue 43); the book's own end, the exhausted deck, is still checked."""
    game = load_game("empires_of_middle_earth", players=2)
    assert "round cap" in game.optional_ends and "deck exhausted" in game.end_conditions
    res = run_batch("empires_of_middle_earth", {"players": 2}, ["greedy"] * 2, 4, 2)
    assert all(dict(r.info)["end"] == "deck exhausted" for r in res)
    text = to_text(summarize(res, {"game": "empires_of_middle_earth"}, game))
    assert "Rundengrenze" not in text and "ENTARTET" not in text
    capped = run_batch("empires_of_middle_earth", {"players": 2, "max_rounds": 2}, ["greedy"] * 2, 4, 2)
    capped_game = load_game("empires_of_middle_earth", players=2, max_rounds=2)
    text = to_text(summarize(capped, {"game": "empires_of_middle_earth"}, capped_game))
    assert "ENTARTET: Ende „Stapel aufgebraucht“ kommt in 4 Partien nie vor" in text


def test_a_win_rate_fixed_by_construction_has_no_interval(tmp_path) -> None:
    """Where one bot plays every seat its win rate is 1/n whatever happens
    (the returns of a game add up to 1): the text and the JSON give no
    interval for it and say why; a batch of two bots keeps its intervals."""
    res = run_batch("lords_of_creation", {"players": 3}, ["random"] * 3, 6, 1)
    s = summarize(res, {"game": "lords_of_creation"}, load_game("lords_of_creation", players=3))
    g = s["bots"]["random"]
    assert g["win_rate"] == pytest.approx(1 / 3) and g["ci95"] is None and g["fixed"].startswith("1/3")
    text = to_text(s)
    row = next(line for line in text.splitlines() if line.startswith("random "))
    assert "(fest)" in row and "[" not in row
    assert "(fest: Siegrate 1/3: jeder Sitz spielt diesen Bot; kein Intervall)" in text
    assert "bot,random,18,6,0.333333,,," in to_csv(s)
    mixed = summarize(run_batch("lords_of_creation", {"players": 3}, ["random", "greedy", "random"], 6, 1),
                      {"game": "lords_of_creation"})
    assert all(g["ci95"] and "fixed" not in g for g in mixed["bots"].values())


def test_compare_covers_factions_ends_margin_and_scores() -> None:
    """`--compare` beside seats and positions: per god (unpaired), per end
    condition (share difference, paired), margin of victory (unpaired) and
    the mean score (paired), each with a 95 % interval."""
    a = run_batch("four_gods", {"players": 4}, ["random"] * 4, 60, 4)
    b = run_batch("four_gods", {"players": 4, "actions_per_turn": 2}, ["random"] * 4, 60, 4)
    c = compare(a, b)
    assert set(c["faction"]) == {"Elfen", "Fischmenschen", "Menschen", "Zwerge"}
    for row in c["faction"].values():
        w = row["win_rate_diff"]
        assert w["ci95"][0] <= w["mean"] <= w["ci95"][1]
    ends_a = [dict(r.info)["end"] for r in a]
    ends_b = [dict(r.info)["end"] for r in b]
    for e, row in c["end"].items():
        assert row["share_diff"]["mean"] == pytest.approx((ends_b.count(e) - ends_a.count(e)) / 60)
    md = c["margin_diff"]
    assert md["mean"] == pytest.approx(c["margin_variant"]["mean"] - c["margin_base"]["mean"])
    sm = c["score_mean_diff"]
    assert sm["mean"] == pytest.approx(np.mean([np.mean(y.scores) - np.mean(x.scores) for x, y in zip(a, b)]))
    text = compare_text(c, "actions_per_turn=2", load_game("four_gods").end_labels)
    for needle in ("Seite Elfen: Siegrate", "Ende „alle passen“: Anteil", "Vorsprung des Siegers:",
                   "Punkte im Mittel aller Spieler:"):
        assert needle in text, needle


def test_an_unchanged_variant_says_equal_instead_of_a_zero_width_interval() -> None:
    """When every paired difference is zero the text says so ("gleich in
    allen N Partien"), not an interval [+0.000, +0.000] that claims
    certainty."""
    a = run_batch("lords_of_creation", {"players": 3}, ["random"] * 3, 10, 5)
    c = compare(a, list(a))
    text = compare_text(c, "nichts")
    assert "gleich in allen 10 Partien" in text
    assert "± 0.000" not in text and "+0.000" not in text


def test_compare_cli_players_and_bad_form(tmp_path) -> None:
    """`--compare players=3` against the default 4 is a change (not "changes
    no parameter"); `--compare players=4` is none; `--compare full_knowledge`
    names the expected form NAME=WERT in German."""
    out = tmp_path / "s.json"
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "--bots", "random", "--games", "6",
                              "--seed", "1", "--compare", "players=3", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "Spielerzahl 4 → 3" in res.output
    data = json.loads(out.read_text())
    assert data["params"]["players"] == 4 and data["variant"]["summary"]["params"]["players"] == 3
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "--games", "2", "--compare", "players=4"])
    assert res.exit_code != 0 and "ändert keinen Parameter" in str(res.exception)
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "--games", "2",
                              "--compare", "full_knowledge"])
    assert res.exit_code != 0
    assert "--compare 'full_knowledge': erwartet NAME=WERT" in str(res.exception)


def test_the_plots_show_the_variant_and_their_labels() -> None:
    """`--plots` with `--compare`: the score plot and the margin plot show
    the variant beside the base (legend), the score plot has an x label and
    its y label lies inside the picture."""
    import matplotlib  # noqa: F401 - in the test extras: make test installs it

    from wdg.games.plots import figures
    game = load_game("lords_of_creation", players=3)
    vgame = load_game("lords_of_creation", players=3, full_knowledge=True)
    a = run_batch("lords_of_creation", {"players": 3}, ["greedy"] * 3, 8, 1)
    b = run_batch("lords_of_creation", {"players": 3, "full_knowledge": True}, ["greedy"] * 3, 8, 1)
    s = summarize(a, {"game": "lords_of_creation"}, game)
    s["variant"] = {"change": ["full_knowledge=true"], "summary": summarize(b, {}, vgame),
                    "compare": compare(a, b)}
    figs = dict(figures(s))
    assert set(figs) == {"siegrate.png", "punkte.png", "vorsprung.png"}
    for file_name in ("siegrate.png", "punkte.png", "vorsprung.png"):
        ax = figs[file_name].axes[0]
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any("full_knowledge=true" in t for t in legend), (file_name, legend)
    ax = figs["punkte.png"].axes[0]
    assert ax.get_xlabel() == "Zugposition (1 = Startspieler)"
    fig = figs["punkte.png"]
    fig.canvas.draw()
    box = ax.yaxis.label.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.y0 >= 0 and box.y1 <= fig.bbox.height
    import matplotlib.pyplot as plt
    for f in figs.values():
        plt.close(f)


def test_batch_help_shows_the_extras_with_their_brackets() -> None:
    """Rich markup ate "[cluster]" and "[lab]" from the help; escaped, the
    help names the extras to install."""
    res = runner.invoke(app, ["games", "batch", "--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    assert res.exit_code == 0
    assert "wdg[cluster]" in res.output and "wdg[lab]" in res.output
