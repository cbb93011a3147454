"""``wdg games``: list, play, replay and batch-run the board-game engines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
import yaml

from wdg.games.base import (CHANCE, GameAbandoned, GameError, game_params, load_game,
                            registered_games)
from wdg.games.batch import run_batch
from wdg.games.bots import parse_bots
from wdg.games.records import GameRecord, load_record, play, replay
from wdg.games.stats import summarize, to_csv, to_text

games_app = typer.Typer(
    help="Die Brettspiele der Regelsammlung im Stapelbetrieb (Lords of Creation, 4 Gods, "
    "Empires of Middle-earth): spielen, Aufzeichnungen nachspielen, Serien von Bot-Partien mit "
    "Statistik.",
    no_args_is_help=True,
)


PARAM_HELP = ("Weiterer Spielparameter NAME=WERT (Wert in YAML), wiederholbar, z. B. "
              "full_knowledge=true.")


@games_app.command("list")
def list_games() -> None:
    """Die Spiele mit ihren Spielerzahlen und Parametern auflisten."""
    for name in registered_games():
        game = load_game(name)
        typer.echo(f"{name}: {game.min_players}-{game.max_players} Spieler; "
                   f"Parameter {game.default_params()!r}")


@games_app.command("play")
def play_game(
    name: str = typer.Argument(..., help="Name des Spiels (siehe `wdg games list`)."),
    players: int = typer.Option(None, "--players", "-n", help="Zahl der Spieler (sonst 4)."),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed von Zufall und Bots."),
    bots: str = typer.Option("random", "--bots", "-b",
                             help="Bot je Sitz, durch Kommas getrennt (random, greedy, mcts, mcts:N, "
                             "human), reihum wiederholt."),
    record: Path = typer.Option(None, "--record", "-o",
                                help="Zu schreibende Aufzeichnung (sonst NAME-SEED.yaml)."),
    param: list[str] = typer.Option([], "--param", "-p", help=PARAM_HELP),
) -> None:
    """Eine Partie spielen, ihre Aufzeichnung schreiben, Endstellung und Punkte ausgeben.

    Mit --bots human,random (ein Sitz "human") wird dieser Sitz am Terminal
    gespielt: bei jeder Entscheidung die Stellung, wie dieser Spieler sie
    sieht, was seitdem geschah, und die Möglichkeiten in höchstens zwei
    kurzen Listen; eine einzige Möglichkeit wird ohne Nachfrage ausgeführt.
    q bricht die Partie ab; die Aufzeichnung behält dann die bisherigen
    Aktionen, als unfertig markiert.
    """
    game = load_game(name, **game_params(players, param))
    path = record or Path(f"{name}-{seed}.yaml")
    try:
        state, rec = play(game, parse_bots(bots, game.num_players), seed)
    except GameAbandoned as exc:
        if not isinstance(exc.record, GameRecord):
            raise
        rec = exc.record
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
    record: Path = typer.Argument(..., help="Eine von `wdg games play` geschriebene Aufzeichnung."),
    step: bool = typer.Option(False, "--step",
                              help="Die Aufzeichnung Zug für Zug durchgehen: jede Aktion und das "
                              "Brett danach; Enter für die nächste, q zum Aufhören (ohne Pause, "
                              "wenn die Eingabe endet)."),
) -> None:
    """Eine Aufzeichnung Schritt für Schritt nachspielen (die erste unzulässige Aktion wird
    genannt) und neu werten."""
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
    record: Path = typer.Argument(..., help="Eine von `wdg games play` geschriebene Aufzeichnung."),
    at: int = typer.Option(None, "--at", help="Die Stellung nach so vielen Aktionen "
                           "(sonst das Ende der Aufzeichnung)."),
    out: Path = typer.Option(None, "--out", "-o",
                             help="Das Brett als SVG schreiben (eine Datei auf .svg) statt als Text."),
    viewer: int = typer.Option(None, "--viewer",
                               help="Die Stellung zeigen, wie dieser Spieler (0, 1, ...) sie sieht: "
                               "seine Hand, die der anderen nach Größe, verdeckte Götter der "
                               "anderen als ?. Sonst alles, Verdecktes eingeschlossen."),
) -> None:
    """Das Brett einer aufgezeichneten Partie zu einem Zeitpunkt zeigen, als Text (mit der
    Nummerierung der Aktionen) oder als SVG-Bild; mit --viewer wie ein Spieler es sieht."""
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
    name: str = typer.Argument(..., help="Name des Spiels (siehe `wdg games list`)."),
    games: int = typer.Option(1000, "--games", "-g", help="Zahl der Partien."),
    players: int = typer.Option(None, "--players", "-n", help="Zahl der Spieler (sonst 4)."),
    bots: str = typer.Option("random", "--bots", "-b",
                             help="Bots, durch Kommas getrennt (random, greedy, mcts, mcts:N), "
                             "reihum über die Sitze wiederholt."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Arbeitsprozesse (die Ergebnisse hängen nicht "
                             "davon ab; jeder bekommt mindestens eine Aufgabe)."),
    scheduler: str = typer.Option(None, "--scheduler",
                                  help="Auf dem Dask-Cluster unter dieser Adresse rechnen "
                                  "(tcp://host:8786); braucht das Extra wdg\\[cluster]. Die "
                                  "Ergebnisse gleichen einem lokalen Lauf."),
    seed: int = typer.Option(0, "--seed", "-s", help="Hauptseed; Partie i nutzt "
                             "SeedSequence(seed).spawn()[i]."),
    rotate: bool = typer.Option(True, "--rotate/--no-rotate",
                                help="Die Bots von Partie zu Partie über die Sitze drehen."),
    paired: bool = typer.Option(False, "--paired",
                                help="Gepaarte Partien: jeder Seed wird in jeder Sitzdrehung gespielt "
                                "(--games ein Vielfaches der Spielerzahl); Intervalle über die Seeds."),
    json_out: Path = typer.Option(None, "--json", help="Die Statistik als JSON hierhin schreiben."),
    csv_out: Path = typer.Option(None, "--csv", help="Zeilen je Bot, je Sitz und zur Länge als CSV "
                                 "hierhin schreiben."),
    param: list[str] = typer.Option([], "--param", "-p", help=PARAM_HELP),
    ladder: bool = typer.Option(False, "--ladder",
                                help="--bots nennt Bots vom schwächsten zum stärksten: jeder spielt "
                                "gegen den darunter und jeder ab dem vierten gegen den zweiten, "
                                "--games Partien mit gedrehten Sitzen je Paarung (Paarung k mit "
                                "Seed SEED+k); gibt eine Tabelle der Siegraten mit 95%-KI aus."),
    compare: list[str] = typer.Option([], "--compare",
                                      help="Eine Regelvariante NAME=WERT (wiederholbar): dieselben "
                                      "Seeds und Bots noch einmal damit spielen und die Unterschiede "
                                      "ausgeben (je Zugposition, Sitz, letzter Zug, Seite, Ende, "
                                      "Vorsprung des Siegers, Punkte, Länge) mit 95%-KI."),
    plots: Path = typer.Option(None, "--plots",
                               help="PNG-Grafiken (Siegrate nach Zugposition, Punkte, Vorsprung) in "
                               "dieses Verzeichnis schreiben; braucht matplotlib (Extra wdg\\[lab])."),
) -> None:
    """Viele Partien mit Seeds zwischen Bots spielen; Siegraten je Bot, Sitz,
    Zugposition, letztem Zug und Seite (95%-KI), Enden, Vorsprung,
    Punkteverteilungen und Partielängen ausgeben; eine Fairnessprüfung, wenn
    jeder Sitz denselben Bot spielt, und Hinweise auf entartete Serien."""
    params = game_params(players, param)
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
