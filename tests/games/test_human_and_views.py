"""Play by hand (``--bots human,...`` through standard input), ``replay
--step``, ``show --at N`` (text and SVG) and one-line errors for malformed
records and parameters."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wdg.cli import app
from wdg.errors import WdgError
from wdg.games.base import load_game
from wdg.games.records import load_record, play, replay

runner = CliRunner()


def error_line(res) -> str:  # type: ignore[no-untyped-def]
    """The one-line message ``wdg`` prints for a failed command (``wdg.cli.main``
    turns a :class:`WdgError` into ``Fehler: <message>``); fails on anything
    else, e.g. a traceback."""
    assert res.exit_code != 0
    assert isinstance(res.exception, WdgError), repr(res.exception)
    msg = str(res.exception)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


def test_a_human_plays_a_whole_game_through_standard_input(tmp_path: Path) -> None:
    """The human seat sees what happened since his last decision (cards drawn
    by the other player unnamed), his view of the board and the legal actions
    numbered from 1; a wrong answer is asked again; the game is recorded and
    replays."""
    rec = tmp_path / "hand.yaml"
    answers = "x\n9999\n" + "1\n" * 4000
    res = runner.invoke(app, ["games", "play", "lords_of_creation", "-n", "2", "--bots", "human,random",
                              "--seed", "3", "-o", str(rec)], input=answers)
    assert res.exit_code == 0, res.output[-2000:]
    out = res.output
    assert "=== player 0 to move ===" in out
    assert "Your legal actions:" in out and "    1) " in out
    assert "Please answer with a number from 1 to" in out  # "x" and "9999" were refused
    assert "What happened since your last decision:" in out
    assert "chance: Spieler 1 zieht eine Karte" in out  # the other's cards stay hidden
    assert "chance: Spieler 0 zieht Karte " in out  # his own he sees
    assert "Hand [7 Karten]" in out or "Karten]" in out  # the other hand only as a number
    loaded = load_record(rec)
    assert loaded.bots == ["human", "random"]
    replay(loaded, str(rec))


def test_a_human_who_stops_answering_gets_a_one_line_error(tmp_path: Path) -> None:
    """Input that ends before the game does is an error, not a traceback."""
    res = runner.invoke(app, ["games", "play", "four_gods", "-n", "2", "--bots", "random,human",
                              "--seed", "1", "-o", str(tmp_path / "x.yaml")], input="1\n1\n")
    assert "input ended before the game was over" in error_line(res)


@pytest.fixture(scope="module")
def empires_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "emp.yaml"
    _, rec = play(load_game("empires_of_middle_earth", players=3), ["greedy", "random", "greedy"], 4)
    rec.write(path)
    return path


def test_records_name_dice_outcomes_and_their_result(empires_record: Path) -> None:
    """Every roll in a record says what was rolled against what, and whether
    it succeeded or hit."""
    texts = [t for p, _, t in load_record(empires_record).actions if p == -1]
    rolls = [t for t in texts if "2W6" in t or t.startswith("Würfel")]
    assert rolls and all(("Erfolg" in t or "misslungen" in t or "Treffer" in t or "daneben" in t
                          or "gegen" in t) for t in rolls)


def test_replay_step_walks_the_record_move_by_move(empires_record: Path) -> None:
    """``--step`` prints each action with its number and the board after it,
    pausing for Enter; q stops."""
    res = runner.invoke(app, ["games", "replay", str(empires_record), "--step"], input="\n\nq\n")
    assert res.exit_code == 0, res.output
    assert "--- step 1/" in res.output and "--- step 3/" in res.output
    assert "--- step 4/" not in res.output and "stopped" in res.output
    total = len(load_record(empires_record).actions)
    res = runner.invoke(app, ["games", "replay", str(empires_record), "--step"], input="")
    assert res.exit_code == 0 and f"--- step {total}/{total}" in res.output
    assert "the record is valid" in res.output


@pytest.mark.parametrize("name", ["lords_of_creation", "four_gods", "empires_of_middle_earth"])
def test_show_writes_a_board_as_svg_and_text(name: str, tmp_path: Path) -> None:
    """``wdg games show REC --at N -o board.svg``: a well-formed SVG of the
    position after N actions; without -o the text board."""
    path = tmp_path / "r.yaml"
    _, rec = play(load_game(name, players=2), ["greedy", "random"], 2)
    rec.write(path)
    n = len(rec.actions) * 2 // 3
    svg = tmp_path / "board.svg"
    res = runner.invoke(app, ["games", "show", str(path), "--at", str(n), "-o", str(svg)])
    assert res.exit_code == 0, res.output
    root = ET.fromstring(svg.read_text(encoding="utf-8"))
    assert root.tag.endswith("svg") and len(root) > 20
    res = runner.invoke(app, ["games", "show", str(path), "--at", str(n)])
    assert res.exit_code == 0 and f"after {n} of {len(rec.actions)} actions" in res.output
    bad = runner.invoke(app, ["games", "show", str(path), "--at", str(len(rec.actions) + 5)])
    assert "outside the record" in error_line(bad)


def test_the_lords_of_creation_text_board_uses_the_hex_numbers_of_the_actions(tmp_path: Path) -> None:
    """Actions say "Feld 64"; the text board labels every hex with that number."""
    _, rec = play(load_game("lords_of_creation", players=2), ["greedy", "greedy"], 5)
    state = replay(rec)
    board = state.board_text()
    placed = [t for p, _, t in rec.actions if t.startswith("Einsetzen")]
    h = int(placed[0].rsplit("Feld ", 1)[1])
    assert f"{h:>2}:" in board


def _record_with(tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    _, rec = play(load_game("four_gods", players=2), ["random", "random"], 1)
    data = yaml.safe_load(rec.to_yaml())
    edit(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("edit", "words"), [
    (lambda d: d["params"].update(players="four"), "'players' must be a whole number"),
    (lambda d: d.update(scores="high"), "'scores'"),
    (lambda d: d.update(returns=[1, "x"]), "'returns'"),
    (lambda d: d["params"].update(tiles="/nonexistent/tiles.yaml"), "cannot be read"),
    (lambda d: d.update(game="lords_of_creation", params={"players": 2, "board_radius": "x"}), "board_radius"),
    (lambda d: d.update(seed="seven"), "'seed'"),
    (lambda d: d.update(bots="random"), "'bots'"),
    (lambda d: d["actions"].__setitem__(3, [0, True]), "actions[3]"),
    (lambda d: d.update(scores=[1.0]), "scores"),
])
def test_every_malformed_record_is_a_one_line_error(tmp_path: Path, edit, words: str) -> None:  # type: ignore[no-untyped-def]
    """A record with a wrong type anywhere gives one line naming it, no traceback."""
    path = _record_with(tmp_path, edit)
    res = runner.invoke(app, ["games", "replay", str(path)])
    assert words in error_line(res)


def test_players_given_twice_must_agree(tmp_path: Path) -> None:
    """``-n 4 --param players=2`` is a conflict, not a silent override."""
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "-n", "4", "--param", "players=2",
                              "--games", "2"])
    assert "disagree" in error_line(res)
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "--param", "players=2",
                              "--games", "2", "--seed", "1"])
    assert res.exit_code == 0 and "seat" in res.output
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "--bots", "mcts:x", "--games", "1"])
    assert "budget" in error_line(res)
