"""``wdg games``: list, play, replay and batch-run the board-game engines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
import yaml

from wdg.games.base import CHANCE, GameAbandoned, GameError, load_game, registered_games
from wdg.games.batch import run_batch
from wdg.games.bots import parse_bots
from wdg.games.records import GameRecord, load_record, play, replay
from wdg.games.stats import summarize, to_csv, to_text

games_app = typer.Typer(
    help="Batch-mode board games of the rule collection (Lords of Creation, 4 Gods, "
    "Empires of Middle-earth): play, replay records, run seeded bot batches with statistics.",
    no_args_is_help=True,
)


def _params(players: int | None, param: list[str]) -> dict[str, Any]:
    """Game parameters from ``-n`` and ``--param KEY=VALUE``; a ``players``
    given both ways must agree."""
    params: dict[str, Any] = {}
    for item in param:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise GameError(f"--param {item!r} ungültig; erwartet NAME=WERT (der Wert in YAML, z. B. true, 4)")
        try:
            params[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise GameError(f"--param {item!r} ungültig: der Wert ist kein YAML "
                            f"({str(exc).splitlines()[0]})") from None
    if players is not None:
        if "players" in params and params["players"] != players:
            raise GameError(f"-n/--players {players} und --param players={params['players']!r} "
                            f"widersprechen sich; die Spielerzahl bitte nur einmal angeben")
        params["players"] = players
    params.setdefault("players", 4)
    return params


PARAM_HELP = "Extra game parameter KEY=VALUE (YAML value), repeatable, e.g. full_knowledge=true."


@games_app.command("list")
def list_games() -> None:
    """List the registered games with their player counts and parameters."""
    for name in registered_games():
        game = load_game(name)
        typer.echo(f"{name}: {game.min_players}-{game.max_players} players; "
                   f"parameters {game.default_params()!r}")


@games_app.command("play")
def play_game(
    name: str = typer.Argument(..., help="Game name (see `wdg games list`)."),
    players: int = typer.Option(None, "--players", "-n", help="Number of players (default 4)."),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed of chance and bots."),
    bots: str = typer.Option("random", "--bots", "-b",
                             help="Comma-separated bot per seat (random, greedy, mcts, mcts:N, human), "
                             "repeated cyclically."),
    record: Path = typer.Option(None, "--record", "-o",
                                help="Record file to write (default: NAME-SEED.yaml)."),
    param: list[str] = typer.Option([], "--param", "-p", help=PARAM_HELP),
) -> None:
    """Play one game, write its record, print the final position and scores.

    With --bots human,random (a seat "human") that seat is played at the
    terminal: at each decision the position as that player sees it, what
    happened since, and the choices in at most two short lists. q abandons
    the game; the record then keeps the actions so far, marked unfinished.
    """
    game = load_game(name, **_params(players, param))
    path = record or Path(f"{name}-{seed}.yaml")
    try:
        state, rec = play(game, parse_bots(bots, game.num_players), seed)
    except GameAbandoned as exc:
        rec = exc.record
        if not isinstance(rec, GameRecord):
            raise
        rec.write(path)
        typer.echo(f"Spiel abgebrochen: {exc}. Die ersten {len(rec.actions)} Aktionen stehen in {path} "
                   f"(als unfertiges Spiel markiert; `wdg games show {path}` zeigt die Stellung).")
        if not exc.quit:
            raise GameError(f"{exc}; die bisherigen {len(rec.actions)} Aktionen stehen in {path}") from None
        return
    rec.write(path)
    typer.echo(_board(state))
    typer.echo(f"{_scores_text(state)}\n{len(rec.actions)} Aktionen; Aufzeichnung geschrieben nach {path}")


def _board(state: Any) -> str:
    """The readable board of a position (the game's ``board_text`` if it has one)."""
    return state.board_text() if hasattr(state, "board_text") else str(state)


def _scores_text(state: Any) -> str:
    """Points and results of every player, in German."""
    scores = state.scores()
    line = "Punkte: " + ", ".join(f"Spieler {p} {x:g}" for p, x in enumerate(scores))
    if state.is_terminal():
        line += "\nErgebnis (1 Sieg, 0 Niederlage, geteilter Sieg 1/k): " + ", ".join(
            f"Spieler {p} {x:g}" for p, x in enumerate(state.returns()))
    return line


def _replayed_text(rec: GameRecord) -> str:
    if rec.unfinished is not None:
        return (f"{len(rec.actions)} Aktionen nachgespielt: gültig, aber das Spiel ist unfertig "
                f"({rec.unfinished})")
    return f"{len(rec.actions)} Aktionen nachgespielt: die Aufzeichnung ist gültig"


@games_app.command("replay")
def replay_record(
    record: Path = typer.Argument(..., help="A game record written by `wdg games play`."),
    step: bool = typer.Option(False, "--step",
                              help="Walk the record move by move: each action and the board after "
                              "it; Enter for the next, q to stop (no pause when input ends)."),
) -> None:
    """Re-play a record step by step (naming the first illegal action) and re-score it."""
    rec = load_record(record)
    if not step:
        state = replay(rec, str(record))
        typer.echo(_board(state))
        typer.echo(f"{_scores_text(state)}\n{_replayed_text(rec)}")
        return
    pause = [True]

    class _Stop(Exception):
        pass

    def show(i: int, state: Any, player: int, action: int) -> None:
        who = "Zufall" if player == CHANCE else f"Spieler {player}"
        typer.echo(f"--- Schritt {i + 1}/{len(rec.actions)}: {who}: {state.action_to_string(action)}")
        after = state.clone()
        after.apply_action(action)
        if player != CHANCE or after.current_player() != CHANCE:
            typer.echo(_board(after))
        if pause[0]:
            typer.echo("[Enter: weiter, q: aufhören] ", nl=False)
            line = sys.stdin.readline()
            if not line:
                pause[0] = False
            elif line.strip().lower() in ("q", "quit"):
                raise _Stop

    try:
        state = replay(rec, str(record), on_step=show)
    except _Stop:
        typer.echo("angehalten")
        return
    typer.echo(f"{_scores_text(state)}\n{_replayed_text(rec)}")


@games_app.command("show")
def show_position(
    record: Path = typer.Argument(..., help="A game record written by `wdg games play`."),
    at: int = typer.Option(None, "--at", help="The position after this many actions "
                           "(default: the end of the record)."),
    out: Path = typer.Option(None, "--out", "-o",
                             help="Write the board as SVG (a file ending in .svg) instead of text."),
    viewer: int = typer.Option(None, "--viewer",
                               help="Show the position as this player (0, 1, ...) sees it: his own "
                               "hand, the others' by size, hidden gods of the others as ?. "
                               "Default: everything, hidden parts included."),
) -> None:
    """Show the board of a recorded game at one moment, as text (the numbering
    the actions use) or as an SVG picture; with --viewer as one player sees it."""
    rec = load_record(record)
    if out is not None and out.suffix.lower() != ".svg":
        raise GameError(f"-o {out}: nur SVG-Bretter werden geschrieben; bitte einen Dateinamen auf .svg angeben")
    players = rec.params.get("players")
    if viewer is not None and isinstance(players, int) and not 0 <= viewer < players:
        raise GameError(f"--viewer {viewer}: das Spiel hat {players} Spieler, nummeriert 0 bis {players - 1}")
    state = replay(rec, str(record), upto=len(rec.actions) if at is None else at)
    n = len(rec.actions) if at is None else at
    who = "alles sichtbar" if viewer is None else f"wie Spieler {viewer} sie sieht"
    if out is None:
        typer.echo(f"{rec.game} nach {n} von {len(rec.actions)} Aktionen ({who})")
        if viewer is None:
            typer.echo(_board(state))
        else:
            typer.echo(state.human_view(viewer))
            for line in state.turn_status(viewer):
                typer.echo(line)
        return
    if not hasattr(state, "board_svg"):
        raise GameError(f"{rec.game} hat kein SVG-Brett")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(state.board_svg(viewer), encoding="utf-8")
    typer.echo(f"Brett nach {n} von {len(rec.actions)} Aktionen ({who}) geschrieben nach {out}")


@games_app.command("batch")
def batch(
    name: str = typer.Argument(..., help="Game name (see `wdg games list`)."),
    games: int = typer.Option(1000, "--games", "-g", help="Number of games."),
    players: int = typer.Option(None, "--players", "-n", help="Number of players (default 4)."),
    bots: str = typer.Option("random", "--bots", "-b",
                             help="Comma-separated bots (random, greedy, mcts, mcts:N), repeated "
                             "cyclically over the seats."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes (results do not depend on it)."),
    scheduler: str = typer.Option(None, "--scheduler",
                                  help="Run on the Dask cluster at this address (tcp://host:8786); "
                                  "needs the extra wdg\\[cluster]. Results equal a local run."),
    seed: int = typer.Option(0, "--seed", "-s", help="Master seed; game i uses SeedSequence(seed).spawn()[i]."),
    rotate: bool = typer.Option(True, "--rotate/--no-rotate",
                                help="Rotate the bots over the seats from game to game."),
    paired: bool = typer.Option(False, "--paired",
                                help="Gepaarte Partien: jeder Seed wird in jeder Sitzdrehung gespielt "
                                "(--games ein Vielfaches der Spielerzahl); Intervalle über die Seeds."),
    json_out: Path = typer.Option(None, "--json", help="Write the statistics as JSON here."),
    csv_out: Path = typer.Option(None, "--csv", help="Write per-bot/per-seat/length rows as CSV here."),
    param: list[str] = typer.Option([], "--param", "-p", help=PARAM_HELP),
    ladder: bool = typer.Option(False, "--ladder",
                                help="--bots lists bots from the weakest to the strongest: play each "
                                "against the one below it and every bot from the fourth on against "
                                "the second, --games seat-rotated games per pairing (pairing k with "
                                "seed SEED+k); print a table of win rates with 95% CIs."),
    compare: list[str] = typer.Option([], "--compare",
                                      help="A rule variant NAME=VALUE (repeatable): play the same seeds "
                                      "and bots again with it and print the differences (per turn "
                                      "position, seat, faction, end condition, margin of victory, "
                                      "score, length) with 95% CIs."),
    plots: Path = typer.Option(None, "--plots",
                               help="Write PNG plots (win rate by turn position, scores, margins) into "
                               "this directory; needs matplotlib (extra wdg\\[lab])."),
) -> None:
    """Play many seeded games between bots; print win rates per bot, seat,
    turn position, last turn and faction (95% CIs), end conditions, margins,
    score distributions and game lengths; a fairness check when every seat
    plays the same bot, and flags for degenerate batches."""
    params = _params(players, param)
    game = load_game(name, **params)
    variant_game = None
    if compare:
        variant_game = load_game(name, **{**game.params, **_variant(compare)})
        if variant_game.params == game.params:
            raise GameError(f"--compare {' '.join(compare)} ändert keinen Parameter von {name}: "
                            f"die Partien laufen schon mit "
                            f"{', '.join(f'{k}={game.params[k]!r}' for k in _variant(compare))}")
    if ladder:
        _ladder(name, game.params, bots, games, seed, jobs, scheduler, json_out, paired)
        return
    seat_names = parse_bots(bots, game.num_players)
    if "human" in seat_names:
        raise GameError("--bots human: eine Serie spielt nur mit Bots; eine Partie mit Menschen "
                        "spielt `wdg games play --bots human,...`")
    show = sys.stderr.isatty()
    if show:
        with typer.progressbar(length=games, label=f"{name}", file=sys.stderr) as bar:
            results = run_batch(name, game.params, seat_names, games, seed, jobs, rotate, bar.update,
                                scheduler=scheduler, paired=paired)
    else:
        results = run_batch(name, game.params, seat_names, games, seed, jobs, rotate,
                            scheduler=scheduler, paired=paired)
    summary = summarize(results, {"game": name, "params": game.params, "seed": seed,
                                  "bot_order": seat_names, "rotate": rotate, "paired": paired}, game)
    typer.echo(to_text(summary))
    if variant_game is not None:
        from wdg.games.design import compare as compare_batches, compare_text
        label = ", ".join(compare)
        vseats = parse_bots(bots, variant_game.num_players)
        if show:
            with typer.progressbar(length=games, label=f"{name} ({label})", file=sys.stderr) as bar:
                other = run_batch(name, variant_game.params, vseats, games, seed, jobs, rotate,
                                  bar.update, scheduler=scheduler, paired=paired)
        else:
            other = run_batch(name, variant_game.params, vseats, games, seed, jobs, rotate,
                              scheduler=scheduler, paired=paired)
        vsummary = summarize(other, {"game": name, "params": variant_game.params, "seed": seed,
                                     "bot_order": vseats, "rotate": rotate, "paired": paired}, variant_game)
        typer.echo("")
        typer.echo(f"Variante {label}:")
        typer.echo(to_text(vsummary))
        summary["variant"] = {"change": compare, "summary": vsummary,
                              "compare": compare_batches(results, other)}
        typer.echo("")
        typer.echo(compare_text(summary["variant"]["compare"], label,
                                {**game.end_labels, **variant_game.end_labels}))
    if plots:
        from wdg.games.plots import write_plots
        for path in write_plots(summary, plots):
            typer.echo(f"Grafik: {path}")
    if json_out:
        json_out.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if csv_out:
        csv_out.write_text(to_csv(summary), encoding="utf-8")


def _variant(compare: list[str]) -> dict[str, Any]:
    """The parameters of ``--compare NAME=WERT ...`` (values in YAML)."""
    out: dict[str, Any] = {}
    for item in compare:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise GameError(f"--compare {item!r}: erwartet NAME=WERT, z. B. --compare full_knowledge=true "
                            f"(der Wert in YAML: true, false, eine Zahl, ein Text)")
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise GameError(f"--compare {item!r}: der Wert ist kein YAML "
                            f"({str(exc).splitlines()[0]}); erwartet NAME=WERT") from None
    return out


def _ladder(name: str, params: dict[str, Any], bots: str, games: int, seed: int, jobs: int,
            scheduler: str | None, json_out: Path | None, paired: bool = False) -> None:
    """``batch --ladder``: the pairings of :mod:`wdg.games.ladder`."""
    from wdg.games.ladder import pairings, run_ladder, to_markdown

    names = [x.strip() for x in bots.split(",") if x.strip()]
    for b in names:
        parse_bots(b, 1)
    if "human" in names:
        raise GameError("--bots human: eine Leiter spielt nur mit Bots")
    total = games * len(pairings(names))
    if sys.stderr.isatty():
        with typer.progressbar(length=total, label=f"{name} ladder", file=sys.stderr) as bar:
            pairs = run_ladder(name, params, names, games, seed, jobs, bar.update, scheduler=scheduler,
                               paired=paired)
    else:
        pairs = run_ladder(name, params, names, games, seed, jobs, scheduler=scheduler, paired=paired)
    typer.echo(to_markdown(name, params, pairs))
    if json_out:
        data = {"game": name, "params": params, "seed": seed, "ladder": names, "paired": paired,
                "pairings": [
            {"upper": p.upper, "lower": p.lower, "seed": p.seed, "games": p.games,
             "upper_win_rate": p.upper_rate, "upper_ci95": list(p.upper_ci()),
             "lower_win_rate": p.lower_rate, "lower_ci95": list(p.lower_ci()), "shared": p.shared,
             "per_seed": list(p.per_seed)}
            for p in pairs]}
        json_out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add the ``games`` sub-app to the root CLI."""
    app.add_typer(games_app, name="games")
