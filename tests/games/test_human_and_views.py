"""Play by hand (``--bots human,...`` through standard input), ``replay
--step``, ``show --at N`` (text and SVG) and one-line errors for malformed
records and parameters."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from wdg.cli import app
from wdg.errors import WdgError
from wdg.games.base import load_game
from wdg.games.base import CHANCE
from wdg.games.bots import get_bot
from wdg.games.human import group_actions, menu_sizes
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


def _human_game(name: str, tmp_path: Path, answers: str, seed: int = 3, other: str = "random",
                **params: str) -> tuple[str, Path]:
    rec = tmp_path / f"{name}.yaml"
    args = ["games", "play", name, "-n", "2", "--bots", f"human,{other}", "--seed", str(seed), "-o", str(rec)]
    for k, v in params.items():
        args += ["--param", f"{k}={v}"]
    res = runner.invoke(app, args, input=answers)
    assert res.exit_code == 0, res.output[-3000:]
    return res.output, rec


def _decisions(out: str) -> list[str]:
    """The human's decisions: each from its header to the next."""
    return out.split("=== Spieler 0 ist am Zug ===")[1:]


@pytest.mark.parametrize("name", ["lords_of_creation", "four_gods", "empires_of_middle_earth"])
def test_a_human_plays_a_whole_game_through_standard_input(name: str, tmp_path: Path) -> None:
    """Each game played by a human seat through standard input: the
    position once per decision and in German (no English dump before it),
    the legal actions grouped (first a kind, then a target; 0 goes back),
    the end of a turn said, wrong answers asked again; the game is
    recorded and replays."""
    out, rec = _human_game(name, tmp_path, "x\n9999\n" + "2\n0\n" + "1\n" * 6000)
    decisions = _decisions(out)
    assert len(decisions) > 10
    assert "Bitte eine Zahl von 1 bis" in out  # "x" and "9999" were refused
    assert "Seit deiner letzten Entscheidung:" in out
    assert "Deine Möglichkeiten:" in out and "    1) " in out
    assert "--- Dein Zug ist beendet. ---" in out and "--- Zug von Spieler 1 beendet ---" in out
    english = ("player ", "hand [", " phase ", "Your ", "round ", "draw ", "bag ", "gods ", "discard", "stop ",
               "hero", "minion", "follows")
    for d in decisions:
        view = d.split("Deine Möglichkeiten:")[0]
        assert not any(w in view for w in english), view[:800]
        # the position once: the board's title line appears a single time
        title = {"lords_of_creation": "Gelände: G Grasland", "four_gods": "Propheten im Vorrat:",
                 "empires_of_middle_earth": "Abwurfstapel (offen):"}[name]
        assert view.count(title) == 1
    grouped = [d for d in decisions if "0 zurück" in d]
    assert grouped, "a choice in two lists (kind, then target) was offered"
    loaded = load_record(rec)
    assert loaded.bots == ["human", "random"]
    replay(loaded, str(rec))


def test_lords_of_creation_human_sees_his_cards_not_the_others_and_what_is_left() -> None:
    """The human sees his own hand and draws, the other's only as a number;
    in his turn what is left of it (3.3: one civilisation, one altar; a
    double ends the turn, 3.7)."""
    out, _ = _human_game("lords_of_creation", Path(__import__("tempfile").mkdtemp()), "1\n" * 6000)
    assert "Zufall: Spieler 1 zieht eine Karte" in out  # the other's cards stay hidden
    assert "Zufall: Spieler 0 zieht Karte " in out  # his own he sees
    assert "Spieler 1: 0 Punkte; Vorrat 30; erste Zivilisation frei; Hand: 7 Karten" in out
    assert "Zivilisieren noch möglich" in out and "Pasch" in out
    assert "Schöpfung: ein Geländemarker in diesem Zug; zurückgehalten 0 von 3." in out


def test_four_gods_human_sees_actions_left_and_both_of_his_gods(tmp_path: Path) -> None:
    """4 Gods with two players and four gods: each player embodies two gods
    ("Jeder Spieler verkörpert zwei Götter"); the human sees both of his
    gods' points and which one counts (the lower), and the actions left
    of his turn (the hourglass, 5 actions)."""
    out, _ = _human_game("four_gods", tmp_path, "4\n1\n" * 3000, seed=1, other="greedy",
                         tiles="first")  # the answers were chosen for the first tile set
    assert "Dein Zug: 0 von 5 Aktionen genutzt, noch 5." in out
    assert "Dein Zug: 1 von 5 Aktionen genutzt, noch 4." in out
    both = [line for line in out.splitlines()
            if line.startswith("Punkte Spieler 0 (du): ") and "es zählt die niedrigere" in line
            and line.count(",") >= 1 and "fehlt" not in line]
    assert both, "a line with both gods of the human"
    gods = both[-1].split(": ", 1)[1].split(" (es zählt")[0].split(", ")
    assert len(gods) == 2 and all(g.rsplit(" ", 1)[1].isdigit() for g in gods)


def test_four_gods_hidden_gods_stay_hidden_in_the_human_view(tmp_path: Path) -> None:
    """"Verdeckte Götter": the human sees his own god and its points, the
    other's god and points as ``?``."""
    out, _ = _human_game("four_gods", tmp_path, "1\n" * 6000, seed=2, gods="hidden")
    assert "Punkte Spieler 1: ? (verdeckte Gottheit)" in out
    assert "Spieler 1 erhält verdeckt eine Gottheit" in out
    mine = [line for line in out.splitlines() if line.startswith("Punkte Spieler 0 (du): ")]
    assert mine and "?" not in mine[0]


def test_empires_human_sees_his_hand_and_the_drawing_costs(tmp_path: Path) -> None:
    """Empires: the own hand by name, the other's by size, the cost of the
    next card (rule 1: two free, then 2, 4, 8 ...), the armies."""
    out, _ = _human_game("empires_of_middle_earth", tmp_path, "2\n" * 6 + "1\n" * 6000, seed=1,
                         other="greedy")
    assert "Deine Hand: " in out and "Hand P1: " in out
    assert "Ziehphase: 0 Karten gezogen; die nächste kostet 0 Gold" in out
    assert "Ziehphase: 1 Karte gezogen; die nächste kostet 0 Gold" in out  # not "1 Karten"
    assert "Ziehphase: 2 Karten gezogen; die nächste kostet 2 Gold" in out
    assert "Heere: P0 " in out


def test_grouping_makes_two_short_lists() -> None:
    """The menu: up to eight actions in one list; more are grouped by kind,
    a kind split one label deeper while that shortens the longer list."""
    flat = group_actions([("Zug beenden",), ("Bewegen von Feld 1", "nach Feld 2")])
    assert [label for label, _ in flat] == ["Zug beenden", "Bewegen von Feld 1 nach Feld 2"]
    paths = [("Legen", f"Reihe {r}", f"Feld {10 * r + k}") for r in range(8) for k in range(8)]
    paths.append(("Zug beenden",))
    groups = group_actions(paths)
    assert len(groups) == 9 and max(len(m) for _, m in groups) == 8
    assert groups[0][0] == "Legen Reihe 0" and groups[0][1][0] == ("Feld 0", 0)
    assert groups[-1] == ("Zug beenden", [("", 64)])
    few = group_actions([("Karte", f"Nr {i}") for i in range(12)] + [("Ende",)])
    assert [len(m) for _, m in few] == [12, 1]


@pytest.mark.parametrize("name", ["lords_of_creation", "four_gods", "empires_of_middle_earth"])
def test_every_choice_of_seeded_games_is_two_short_lists(name: str) -> None:
    """Over seeded games (random and greedy players, two and four seats)
    every decision's menu is at most two lists of at most 12 entries
    (``LIST_LIMIT``; docs/games.md gives the medians and maxima), where the
    flat list reached 92 (Lords of Creation), 81 (4 Gods) and 199 (Empires)
    entries; targets beyond that are typed by number."""
    firsts, seconds = [], []
    for n in (2, 4):
        for seed in range(3):
            game = load_game(name, players=n)
            rng = np.random.default_rng(seed)
            bot = get_bot("greedy" if seed % 2 else "random")
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.current_player() == CHANCE:
                    s.apply_action(s.sample_chance(rng))
                    continue
                f, sec = menu_sizes(s)
                firsts.append(f)
                seconds.append(sec)
                s.apply_action(bot(s, rng))
    assert max(firsts) <= 12 and max(seconds) <= 12
    assert sorted(firsts)[len(firsts) // 2] <= 6


def test_a_human_who_stops_answering_gets_a_one_line_error(tmp_path: Path) -> None:
    """Input that ends before the game does is an error, not a traceback."""
    res = runner.invoke(app, ["games", "play", "four_gods", "-n", "2", "--bots", "random,human",
                              "--seed", "1", "-o", str(tmp_path / "x.yaml")], input="1\n1\n")
    assert "die Eingabe endete vor dem Ende des Spiels" in error_line(res)


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
    assert "--- Schritt 1/" in res.output and "--- Schritt 3/" in res.output
    assert "--- Schritt 4/" not in res.output and "angehalten" in res.output
    assert "[Enter: weiter, q: aufhören]" in res.output
    total = len(load_record(empires_record).actions)
    res = runner.invoke(app, ["games", "replay", str(empires_record), "--step"], input="")
    assert res.exit_code == 0 and f"--- Schritt {total}/{total}" in res.output
    assert "die Aufzeichnung ist gültig" in res.output


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
    assert res.exit_code == 0 and f"nach {n} von {len(rec.actions)} Aktionen" in res.output
    bad = runner.invoke(app, ["games", "show", str(path), "--at", str(len(rec.actions) + 5)])
    assert "liegt außerhalb der Aufzeichnung" in error_line(bad)


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
    (lambda d: d["params"].update(players="four"), "'players' muß eine ganze Zahl"),
    (lambda d: d.update(scores="high"), "'scores'"),
    (lambda d: d.update(returns=[1, "x"]), "'returns'"),
    (lambda d: d["params"].update(tiles="/nonexistent/tiles.yaml"), "kann nicht gelesen werden"),
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
    assert "widersprechen sich" in error_line(res)
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "--param", "players=2",
                              "--games", "2", "--seed", "1"])
    assert res.exit_code == 0 and "Sitz" in res.output
    res = runner.invoke(app, ["games", "batch", "lords_of_creation", "--bots", "mcts:x", "--games", "1"])
    assert "Simulationen" in error_line(res)


SVG = "{http://www.w3.org/2000/svg}"


def _legend_labels(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(g.itertext()).strip() for g in root.iter(f"{SVG}g") if g.get("class") == "legend-item"]


def test_lords_of_creation_svg_has_a_legend_of_terrains_and_marks() -> None:
    """The board's legend names the seven terrains and what the marks mean
    (4.2: barbarian 1 point, civilised 2, altar 3) and the hex numbers."""
    state, _ = play(load_game("lords_of_creation", players=4), ["greedy"] * 4, 3)
    svg = state.board_svg()
    labels = _legend_labels(svg)
    for name in ("Grasland", "Hügel", "Wald", "Insel", "See", "Berge", "Wüste"):
        assert name in labels
    assert any(x.startswith("barbarisch") for x in labels)
    assert any(x.startswith("zivilisiert") for x in labels)
    assert any(x.startswith("Altar") for x in labels)
    assert any("Feldnummer" in x for x in labels)
    # the marks the legend explains are on the board: a ring per civilised hex
    rings = [c for c in ET.fromstring(svg) if c.tag == f"{SVG}circle" and c.get("stroke") == "#fff"]
    assert len(rings) == sum(state.civ)


def test_four_gods_svg_legend_names_the_gods_by_colour_as_the_viewer_knows_them() -> None:
    """Hidden gods ("Die Farbe der gewählten Propheten hat in diesem Modus
    nichts mit der Gottheit zu tun"): the legend gives every colour its
    player; the god only for the viewer's own colour. Open gods: every god
    with its player."""
    from wdg.games.four_gods.svg import board_svg
    from wdg.games.four_gods.tiles import GOD_NAMES
    end, rec = play(load_game("four_gods", players=3, gods="hidden"), ["greedy"] * 3, 3)
    state = replay(rec, upto=len(rec.actions) // 2)  # during the game (at its end all are revealed)
    labels = _legend_labels(board_svg(state, 1))
    prophets = [x for x in labels if x.startswith("Prophet ")]
    assert len(prophets) == 3
    own = GOD_NAMES[state.gods[1][0]]
    assert f"Prophet Blau: Spieler 1 ({own})" in prophets
    assert sum("(Gottheit verdeckt)" in x for x in prophets) == 2
    assert not any(GOD_NAMES[state.gods[q][0]] in x for q in (0, 2) for x in prophets)
    assert {"Meer", "Ebene", "Wald", "Gebirge"} <= set(labels)
    labels = _legend_labels(board_svg(state))  # without a viewer (the game master): all named
    assert all("verdeckt" not in x for x in labels)
    assert all("verdeckt" not in x for x in _legend_labels(board_svg(end, 1)))  # revealed at the end
    state, _ = play(load_game("four_gods", players=2), ["greedy"] * 2, 3)
    labels = _legend_labels(state.board_svg())
    for g, name in enumerate(GOD_NAMES):
        assert f"Prophet {name} (Spieler {state.owner[g]})" in labels


def test_empires_svg_shows_each_armys_edition_and_lord() -> None:
    """Every army on the map carries its edition (hero or minion) and its
    lord (the character it follows), in its box and in the label under its
    region; the legend explains boxes, borders and labels."""
    state, _ = play(load_game("empires_of_middle_earth", players=3), ["greedy"] * 3, 3)
    root = ET.fromstring(state.board_svg())
    cards = state.g.cards
    on_map = [a for p in range(3) for a in state.table[p]
              if cards[a].kind != "character" and state.region[a] >= 0]
    assert on_map
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "army"]
    assert len(groups) == len(on_map)
    labels = ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.get("class") == "army-label"]
    by_name = {"".join(g.find(f"{SVG}rect").find(f"{SVG}title").itertext()).split(" (")[0]: g for g in groups}
    for a in on_map:
        g = by_name[f"P{state.owner[a]} {cards[a].name}"]
        lord = cards[state.lord[a]].name
        edition = ("Held", "Scherge")[cards[a].edition]
        assert g.get("data-lord") == lord and g.get("data-edition") == edition
        title = "".join(g.find(f"{SVG}rect").find(f"{SVG}title").itertext())
        assert f"{edition}, Fürst {lord}" in title
        assert any(x.startswith(f"P{state.owner[a]} {lord}: ") and f"{cards[a].strength}{edition[0]}" in x
                   for x in labels)
    legend = _legend_labels(state.board_svg())
    assert any("Held" in x for x in legend) and any("Scherge" in x for x in legend)
    assert any("Fürst" in x for x in legend)
