"""Game records: one game as YAML — game, parameters, seed, bots, every action
(chance outcomes included) with its player and readable text, final scores
and returns. :func:`replay` re-plays a record step by step, naming the first
illegal action, and re-scores it.

::

    game: lords_of_creation
    engine: wdg 0.2.0
    params: {board_radius: null, full_knowledge: false, players: 4, sudden_end: true}
    seed: 17
    bots: [random, greedy, random, random]
    actions:
    - [-1, 41003, Spieler 0 zieht Karte Grasland 4]
    - ...
    scores: [21.0, 14.0, 13.0, 21.0]
    returns: [0.0, 0.0, 0.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from wdg import __version__
from wdg.errors import DataError
from wdg.games.base import CHANCE, Game, GameAbandoned, GameError, State, load_game
from wdg.games.bots import get_bot

MAX_ACTIONS = 1_000_000
"""A game longer than this is taken to be stuck."""

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass(slots=True)
class GameRecord:
    """One played game."""

    game: str
    params: dict[str, Any]
    seed: int | None
    bots: list[str]
    actions: list[tuple[int, int, str]] = field(default_factory=list)
    """``(player, action, text)``; player -1 is chance."""
    scores: list[float] | None = None
    returns: list[float] | None = None
    engine: str = field(default_factory=lambda: f"wdg {__version__}")
    """The engine that played (or wrote) the record; records of older
    versions have none (read as "")."""
    unfinished: str | None = None
    """Why the game stopped before its end (a player abandoned it); such a
    record has the actions so far and no scores. ``None``: a whole game."""

    def to_yaml(self) -> str:
        """The record as YAML text."""
        data: dict[str, Any] = {"game": self.game, "engine": self.engine}
        if self.unfinished is not None:
            data["unfinished"] = self.unfinished
        data.update({
            "params": dict(sorted(self.params.items())), "seed": self.seed,
            "bots": list(self.bots), "actions": [list(a) for a in self.actions],
            "scores": self.scores, "returns": self.returns,
        })
        return yaml.dump(data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True,
                         default_flow_style=None, width=200)

    def write(self, path: Path) -> None:
        """Write the record to ``path``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_yaml(), encoding="utf-8")


def game_rngs(seed: int, players: int) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """The chance generator and one generator per seat, all from ``seed``."""
    children = np.random.SeedSequence(seed).spawn(players + 1)
    return np.random.default_rng(children[0]), [np.random.default_rng(c) for c in children[1:]]


def play(game: Game, bots: list[str], seed: int, *, with_text: bool = True) -> tuple[State, GameRecord]:
    """Play one game between ``bots`` (one name per seat) from ``seed``."""
    if len(bots) != game.num_players:
        raise GameError(f"{len(bots)} Bots {bots!r} für {game.num_players} Spieler; erwartet "
                        f"einen je Spieler")
    funcs = [get_bot(b) for b in bots]
    watchers = []
    for seat, f in enumerate(funcs):
        if hasattr(f, "seat"):
            f.seat = seat
        if hasattr(f, "inform") and f not in watchers:
            watchers.append(f)
    chance_rng, seat_rngs = game_rngs(seed, game.num_players)
    state = game.new_initial_state()
    record = GameRecord(game.name, dict(game.params), seed, list(bots))
    acts = record.actions
    append, apply, current, over = acts.append, state.apply_action, state.current_player, state.is_terminal
    while not over():
        if len(acts) >= MAX_ACTIONS:
            raise GameError(f"{game.name}: kein Ende nach {MAX_ACTIONS} Aktionen (Seed {seed})")
        p = current()
        if p == CHANCE:
            a = state.sample_chance(chance_rng)
        else:
            try:
                a = funcs[p](state, seat_rngs[p])
            except GameAbandoned as exc:
                record.unfinished = str(exc)
                exc.record = record
                raise
        if watchers:
            for w in watchers:
                w.inform(state, p, a)
        append((p, a, state.action_to_string(a) if with_text else ""))
        apply(a)
    record.scores = [float(x) for x in state.scores()]
    record.returns = [float(x) for x in state.returns()]
    return state, record


def load_record(path: Path) -> GameRecord:
    """Read and check the shape of a record file."""
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    except (OSError, yaml.YAMLError) as exc:
        raise DataError(str(path), None, str(exc), "eine lesbare YAML-Aufzeichnung eines Spiels") from exc
    if not isinstance(raw, dict):
        raise DataError(str(path), None, type(raw).__name__, "eine Zuordnung mit game, params, actions")
    for key, typ, noun in (("game", str, "den Namen des Spiels als Text"),
                           ("params", dict, "eine Zuordnung der Parameter"),
                           ("actions", list, "eine Liste der Aktionen")):
        if not isinstance(raw.get(key), typ):
            raise DataError(str(path), key, raw.get(key), noun)
    if not isinstance(raw.get("seed"), (int, type(None))) or isinstance(raw.get("seed"), bool):
        raise DataError(str(path), "seed", raw.get("seed"), "eine ganze Zahl oder nichts")
    bots = raw.get("bots")
    if bots is not None and (not isinstance(bots, list) or not all(isinstance(b, str) for b in bots)):
        raise DataError(str(path), "bots", bots, "eine Liste von Bot-Namen")
    for key in ("scores", "returns"):
        val = raw.get(key)
        if val is not None and (not isinstance(val, list) or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) for x in val)):
            raise DataError(str(path), key, val, "eine Liste von Zahlen, eine je Spieler")
    engine = raw.get("engine", "")
    if not isinstance(engine, str):
        raise DataError(str(path), "engine", engine, "Name und Version des Programms, z. B. 'wdg 0.2.0'")
    unfinished = raw.get("unfinished")
    if unfinished is not None and not isinstance(unfinished, str):
        raise DataError(str(path), "unfinished", unfinished, "als Text, warum das Spiel vorzeitig endete")
    if any(not isinstance(k, str) for k in raw["params"]):
        raise DataError(str(path), "params", raw["params"], "eine Zuordnung von Parameternamen zu Werten")
    actions = []
    for i, entry in enumerate(raw["actions"]):
        if (not isinstance(entry, list) or len(entry) not in (2, 3)
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in entry[:2])):
            raise DataError(str(path), f"actions[{i}]", entry, "[Spieler, Aktion, Text]")
        actions.append((entry[0], entry[1], str(entry[2]) if len(entry) == 3 else ""))
    return GameRecord(raw["game"], raw["params"], raw.get("seed"), list(raw.get("bots") or []),
                      actions, raw.get("scores"), raw.get("returns"), engine, unfinished)


def replay(record: GameRecord, source: str = "<record>", *, upto: int | None = None,
           on_step: Callable[[int, State, int, int], None] | None = None) -> State:
    """Re-play ``record`` step by step; GameError names the first illegal step
    and any disagreement with the recorded scores or returns.

    ``upto``: stop after that many actions and return the position there
    (no end-of-game checks; neither for a record of an abandoned game,
    :attr:`GameRecord.unfinished`). ``on_step(i, state, player, action)`` is
    called before action ``i`` is applied to ``state``."""
    try:
        game = load_game(record.game, **record.params)
    except GameError as exc:
        raise GameError(f"{source}: {exc}") from exc
    if upto is not None and not 0 <= upto <= len(record.actions):
        raise GameError(f"{source}: --at {upto} liegt außerhalb der Aufzeichnung; sie hat "
                        f"{len(record.actions)} Aktionen (0..{len(record.actions)})")
    state = game.new_initial_state()
    for i, (player, action, text) in enumerate(record.actions):
        if upto is not None and i >= upto:
            return state
        where = f"{source}: Schritt {i} ({action!r} {text!r})"
        if state.is_terminal():
            raise GameError(f"{where}: das Spiel ist hier schon zu Ende")
        if state.current_player() != player:
            raise GameError(f"{where}: aufgezeichnet für Spieler {player}, aber am Zug ist "
                            f"{state.current_player()}")
        if action not in state.legal_actions():
            raise GameError(f"{where}: hier nicht erlaubt; erlaubt sind {state.legal_actions()[:20]!r}")
        if on_step is not None:
            on_step(i, state, player, action)
        state.apply_action(action)
    if upto is not None or record.unfinished is not None:
        return state
    if not state.is_terminal():
        raise GameError(f"{source}: die Aufzeichnung endet nach {len(record.actions)} Aktionen, "
                        f"bevor das Spiel zu Ende ist")
    for name, got in (("scores", state.scores()), ("returns", state.returns())):
        want = getattr(record, name)
        if want is not None and len(want) != len(got):
            raise GameError(f"{source}: aufgezeichnete {name} {want!r} haben {len(want)} Einträge "
                            f"für {len(got)} Spieler")
        if want is not None and [float(x) for x in want] != [float(x) for x in got]:
            raise GameError(f"{source}: aufgezeichnete {name} {want!r}, aber das Nachspielen ergibt "
                            f"{list(got)!r}")
    return state
