"""``wdg games``: list, play, replay and batch-run the board-game engines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
import yaml

from wdg.games.base import GameError, load_game, registered_games
from wdg.games.batch import run_batch
from wdg.games.bots import parse_bots
from wdg.games.records import load_record, play, replay
from wdg.games.stats import summarize, to_csv, to_text

games_app = typer.Typer(
    help="Batch-mode board games of the rule collection (Lords of Creation, 4 Gods, "
    "Empires of Middle-earth): play, replay records, run seeded bot batches with statistics.",
    no_args_is_help=True,
)


def _params(players: int, param: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {"players": players}
    for item in param:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise GameError(f"bad --param {item!r}; expected KEY=VALUE (value in YAML, e.g. true, 4)")
        params[key.strip()] = yaml.safe_load(value)
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
    players: int = typer.Option(4, "--players", "-n", help="Number of players."),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed of chance and bots."),
    bots: str = typer.Option("random", "--bots", "-b",
                             help="Comma-separated bot per seat (random, greedy), repeated cyclically."),
    record: Path = typer.Option(None, "--record", "-o",
                                help="Record file to write (default: NAME-SEED.yaml)."),
    param: list[str] = typer.Option([], "--param", "-p", help=PARAM_HELP),
) -> None:
    """Play one game, write its record, print the final position and scores."""
    game = load_game(name, **_params(players, param))
    state, rec = play(game, parse_bots(bots, game.num_players), seed)
    path = record or Path(f"{name}-{seed}.yaml")
    rec.write(path)
    typer.echo(str(state))
    typer.echo(f"scores: {rec.scores}\nreturns: {rec.returns}\n"
               f"{len(rec.actions)} actions; record written to {path}")


@games_app.command("replay")
def replay_record(
    record: Path = typer.Argument(..., help="A game record written by `wdg games play`."),
) -> None:
    """Re-play a record step by step (naming the first illegal action) and re-score it."""
    rec = load_record(record)
    state = replay(rec, str(record))
    typer.echo(str(state))
    typer.echo(f"scores: {state.scores()}\nreturns: {state.returns()}\n"
               f"{len(rec.actions)} actions replayed: the record is valid")


@games_app.command("batch")
def batch(
    name: str = typer.Argument(..., help="Game name (see `wdg games list`)."),
    games: int = typer.Option(1000, "--games", "-g", help="Number of games."),
    players: int = typer.Option(4, "--players", "-n", help="Number of players."),
    bots: str = typer.Option("random", "--bots", "-b",
                             help="Comma-separated bots, repeated cyclically over the seats."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Worker processes (results do not depend on it)."),
    seed: int = typer.Option(0, "--seed", "-s", help="Master seed; game i uses SeedSequence(seed).spawn()[i]."),
    rotate: bool = typer.Option(True, "--rotate/--no-rotate",
                                help="Rotate the bots over the seats from game to game."),
    json_out: Path = typer.Option(None, "--json", help="Write the statistics as JSON here."),
    csv_out: Path = typer.Option(None, "--csv", help="Write per-bot/per-seat/length rows as CSV here."),
    param: list[str] = typer.Option([], "--param", "-p", help=PARAM_HELP),
) -> None:
    """Play many seeded games between bots; print win rates per bot and seat
    (95% CIs), score distributions and game lengths."""
    params = _params(players, param)
    game = load_game(name, **params)
    seat_names = parse_bots(bots, game.num_players)
    show = sys.stderr.isatty()
    if show:
        with typer.progressbar(length=games, label=f"{name}", file=sys.stderr) as bar:
            results = run_batch(name, game.params, seat_names, games, seed, jobs, rotate, bar.update)
    else:
        results = run_batch(name, game.params, seat_names, games, seed, jobs, rotate)
    summary = summarize(results, {"game": name, "params": game.params, "seed": seed,
                                  "bot_order": seat_names, "rotate": rotate})
    typer.echo(to_text(summary))
    if json_out:
        json_out.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if csv_out:
        csv_out.write_text(to_csv(summary), encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add the ``games`` sub-app to the root CLI."""
    app.add_typer(games_app, name="games")
