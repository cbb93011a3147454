"""The shape every batch-mode game engine has (after OpenSpiel).

A :class:`Game` holds the rules and parameters and makes initial states; a
:class:`State` is one playthrough. Players are numbered ``0..n-1``; chance
(dice, draws from a bag, shuffles) is the pseudo-player :data:`CHANCE`, whose
outcomes are actions too, so a record of actions replays a game exactly.
Where a rule has players act at the same time (cards chosen face down), the
state asks them one after another, the simultaneity hidden behind
``current_player()``: each choice is recorded, and nothing is revealed
until all have chosen (the engine must not let a later chooser see earlier
choices through ``legal_actions`` or ``observation``).

Actions are plain ``int`` (sorted ``legal_actions``); ``action_to_string``
makes them readable for records and playthroughs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np
import yaml

from wdg.errors import WdgError

CHANCE = -1
"""``current_player()`` when a chance outcome is due."""
TERMINAL = -4
"""``current_player()`` when the game is over."""
EVALUATE_CHANCE_LIMIT = 36
"""Largest chance node :meth:`State.evaluate` expands by default."""
NO_FACTION = "-"
"""The :meth:`State.factions` entry of a player who has no side (4 Gods: a
player who never chose a god). The batch statistics list it but do not
test it for fairness: it is no side a designer could balance."""


class Band(str):
    """A label of :meth:`State.action_path` that only groups targets (a
    board row, ten points of a bribe): the human's menu may show it in the
    first list, never in front of a target of the second."""

    __slots__ = ()


class Num(str):
    """A label of :meth:`State.action_path` that names a numbered target
    (``Num("Feld 64", 64, "Feldnummer")``): where a kind has too many
    targets for a short list, the human types the number (the board shows
    it) instead; ``unit`` says what to type."""

    __slots__ = ("number", "unit")
    number: int
    unit: str

    def __new__(cls, text: str, number: int, unit: str = "Nummer") -> Num:
        obj = super().__new__(cls, text)
        obj.number = number
        obj.unit = unit
        return obj


class GameError(WdgError):
    """Unknown game, bad parameters, an illegal action in a record."""


class GameAbandoned(GameError):
    """A player left the game before its end (the human's ``q``, or his
    input ended): :func:`wdg.games.records.play` attaches the record of the
    actions so far (``record``, marked unfinished) and lets it pass on."""

    def __init__(self, message: str, *, quit: bool) -> None:
        super().__init__(message)
        self.quit = quit
        """True when the player chose to stop (``q``), False when his input ended."""
        self.record: object = None


class State(ABC):
    """One playthrough of a game.

    Every state remembers the actions applied to it since the game's
    initial state (:meth:`history`; a subclass's ``apply_action``, ``clone``
    and ``resample_from_infostate`` are wrapped to keep it), so that it can
    be serialised, undone and told as a player's information state with
    perfect recall, as in OpenSpiel."""

    _hist: _History | None
    """The actions applied so far (set by the wrappers; unset: none yet)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__
        if "apply_action" in own and not getattr(own["apply_action"], "_keeps_history", False):
            # the wrapper replaces the subclass's own method (keeps the history)
            cls.apply_action = _recording_apply(own["apply_action"])  # type: ignore[method-assign,assignment]  # the history-keeping wrapper replaces it
        if "clone" in own and not getattr(own["clone"], "_keeps_history", False):
            cls.clone = _history_clone(own["clone"])  # type: ignore[method-assign,assignment]  # the history-keeping wrapper replaces it
        if "resample_from_infostate" in own and not getattr(
                own["resample_from_infostate"], "_keeps_history", False):
            cls.resample_from_infostate = _history_lost(  # type: ignore[method-assign]  # the history-keeping wrapper replaces it
                own["resample_from_infostate"])
        if "information_set" in own and not getattr(own["information_set"], "_keeps_history", False):
            cls.information_set = _history_lost(own["information_set"])  # type: ignore[method-assign]  # the history-keeping wrapper replaces it
        if "greedy_view" in own and not getattr(own["greedy_view"], "_keeps_history", False):
            cls.greedy_view = _history_lost(own["greedy_view"])  # type: ignore[method-assign]  # the history-keeping wrapper replaces it

    @abstractmethod
    def current_player(self) -> int:
        """The player to act, :data:`CHANCE` or :data:`TERMINAL`."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The sorted legal actions of the current player (empty when terminal).
        For chance nodes, the possible outcomes."""

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(action, probability)`` pairs at a chance node. Default: uniform
        over :meth:`legal_actions`."""
        acts = self.legal_actions()
        p = 1.0 / len(acts)
        return [(a, p) for a in acts]

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Apply an action of the current player (or a chance outcome).
        Raises :class:`GameError` for an illegal action."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True when the game is over."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Final payoff per player (win 1, loss 0, shared win 1/k); only
        meaningful when terminal. Must lie within :meth:`Game.return_bounds`."""

    @abstractmethod
    def scores(self) -> list[float]:
        """The game's own score per player (e.g. worship points) at any time."""

    @abstractmethod
    def clone(self) -> State:
        """An independent deep copy."""

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """A readable, unique name of an action in this state."""

    @abstractmethod
    def __str__(self) -> str:
        """The full position as text (used in playthrough files)."""

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and str(self) == str(other) and \
            self.current_player() == other.current_player()

    def __hash__(self) -> int:
        return hash(str(self))

    # ------------------------------------------------ imperfect information
    def observation_string(self, player: int) -> str:
        """The position as ``player`` sees it: everything public plus
        ``player``'s own secrets, nothing hidden from him (opponents' hands,
        the order or contents of a face-down deck or bag, choices made face
        down by others). Two states that differ only in what ``player``
        cannot see give the same string. Default: perfect information,
        ``str(self)``."""
        return str(self)

    def information_state_string(self, player: int) -> str:
        """What ``player`` knows at this point, with perfect recall (as in
        OpenSpiel): every action since the start as he saw it
        (:meth:`public_action_string` — his own actions in full, others'
        secrets unnamed), one line each, then his current observation. Two
        histories he cannot tell apart give the same string."""
        lines = []
        s = self._game().new_initial_state()
        for a in self.history():
            p = s.current_player()
            who = "chance" if p == CHANCE else f"player {p}"
            lines.append(f"{who}: {s.public_action_string(a, player)}")
            s.apply_action(a)
        return "\n".join(lines) + "\n--\n" + self.observation_string(player)

    def resample_from_infostate(self, player: int, rng: np.random.Generator) -> State:
        """A determinisation for search: a full state that ``player`` cannot
        tell apart from this one, its hidden parts (opponents' hands, cards
        chosen face down, the deck's order) drawn with ``rng`` from what
        ``player`` does not see. It depends only on
        :meth:`observation_string`-visible facts and ``rng``, so a bot that
        searches these samples cannot read a hidden hand. Default: perfect
        information, a clone."""
        return self.clone()

    def greedy_view(self, player: int) -> State:
        """The position as the greedy bot judges it for ``player``: one whose
        :meth:`evaluate` and chance outcomes depend only on what ``player``
        knows, where the game's own evaluation reads hidden parts (Empires
        of Middle-earth: the others' hand cards and the deck at their
        expected worth over the cards he cannot see). Default: the position
        itself (the game's :meth:`evaluate` reads nothing hidden)."""
        return self

    def information_set(self, player: int) -> list[State]:
        """The positions the greedy bot averages its evaluation over: every
        full state ``player`` cannot tell apart from this one by what he
        knows, each as likely as the others, in a fixed order — where the
        game can list them (4 Gods' hidden gods). Default: this position
        alone (greedy judges it through :meth:`greedy_view`, which hides
        what the game's :meth:`evaluate` would read). The search bot reads
        positions only through :meth:`resample_from_infostate`."""
        return [self]

    def public_action_string(self, action: int, viewer: int) -> str:
        """How ``action`` (about to be applied here) looks to ``viewer``: the
        text of :meth:`action_to_string`, except where it would reveal what
        ``viewer`` cannot see (a card drawn into another player's hand, a
        card chosen face down). Default: perfect information."""
        return self.action_to_string(action)

    # ------------------------------------------------ history (OpenSpiel parity)
    def history(self) -> list[int]:
        """Every action applied since the initial state (chance outcomes
        included), in order. :class:`GameError` for a state not reached so
        (a determinisation of :meth:`resample_from_infostate`)."""
        node = getattr(self, "_hist", None)
        if node is _UNKNOWN:
            raise GameError("this position was not reached by actions from the start "
                            "(a determinisation); it has no history")
        return node.to_list() if node is not None else []

    def _game(self) -> Game:
        game = getattr(self, "game", None) or getattr(self, "g", None)
        if not isinstance(game, Game):
            raise GameError(f"{type(self).__name__} does not name its game")
        return game

    def _replayed(self, actions: list[int]) -> State:
        s = self._game().new_initial_state()
        for a in actions:
            s.apply_action(a)
        return s

    def serialize(self) -> str:
        """The state as text (one JSON line: game, parameters, actions), as
        OpenSpiel's ``serialize``: :func:`deserialize_state` makes an equal
        state that continues byte for byte as this one would. A position
        built by hand rather than by actions from the start is refused
        (:class:`GameError`), as its actions would not lead to it."""
        import json

        actions = self.history()
        if str(self._replayed(actions)) != str(self):
            raise GameError("this position was not reached by actions from the start "
                            "(built by hand); it cannot be serialised")
        game = self._game()
        return json.dumps({"game": game.name, "params": dict(sorted(game.params.items())),
                           "actions": actions}, ensure_ascii=False, separators=(",", ":"))

    def undo_action(self) -> None:
        """Take back the last action (OpenSpiel's ``UndoAction``): the state
        becomes equal to the one before it (replayed from the start).
        :class:`GameError` at the initial state or for a position built by
        hand."""
        actions = self.history()
        if not actions:
            raise GameError("nothing to undo: this is the initial state")
        if str(self._replayed(actions)) != str(self):
            raise GameError("this position was not reached by actions from the start "
                            "(built by hand); it cannot be undone")
        before = self._replayed(actions[:-1])
        _assign(self, before)

    def observation_blocks(self, player: int) -> list[tuple[str, list[float]]]:
        """The observation of ``player`` as named blocks of numbers (the
        layout of :meth:`observation_tensor`): every block's length depends
        on the game's parameters only, never on the position; nothing hidden
        from ``player`` goes into it. Games override it; the default has
        none."""
        return []

    def observation_tensor(self, player: int) -> np.ndarray:
        """The observation as a flat ``float32`` vector (OpenSpiel's
        ``observation_tensor``) of :meth:`Game.observation_tensor_size`
        numbers, laid out as :meth:`Game.observation_tensor_layout` says.
        Two states that differ only in what ``player`` cannot see give the
        same vector."""
        parts = [v for _, v in self.observation_blocks(player)]
        return np.asarray([x for v in parts for x in v], dtype=np.float32)

    # ------------------------------------------------ play by hand
    def action_path(self, action: int) -> tuple[str, ...]:
        """German labels of a legal action of the player to move, from the
        coarse to the fine (kind, then target, then detail: ``("Bewegen von
        Feld 12", "nach Feld 13")``). The human player's menu groups the legal
        actions by these labels so that a choice is two short lists
        (:func:`wdg.games.human.group_actions`). Default: one label, the
        action's name."""
        return (self.action_to_string(action),)

    def human_view(self, player: int) -> str:
        """The position as ``player`` sees it, in German, for play by hand:
        what :meth:`observation_string` shows (nothing hidden from him is
        in it), laid out for a person. Default: the observation."""
        return self.observation_string(player)

    def human_action_string(self, action: int, viewer: int) -> str:
        """:meth:`public_action_string` in German, for the human player's
        news. Default: the public string."""
        return self.public_action_string(action, viewer)

    def turn_owner(self) -> int:
        """The player whose turn it is (also while chance acts within it),
        -1 between turns. The human player is told when it changes (the end
        of a turn). Default: the player to move."""
        p = self.current_player()
        return p if p >= 0 else -1

    def turn_status(self, player: int) -> list[str]:
        """German lines for ``player`` about the turn and the score: what is
        left to do in this turn, the points he may know. Default: the
        scores."""
        return ["Punkte: " + ", ".join(f"Spieler {p} {x:g}" for p, x in enumerate(self.scores()))]

    def in_compound_action(self) -> bool:
        """True while the current player is between the sub-decisions of one
        compound move (e.g. "move", then from/to, then how many). The greedy
        bot looks through such steps to the completed move. Default: never."""
        return False

    def start_player(self) -> int:
        """The player who took the first turn (the game's start-player roll),
        or -1 where the game has none or it is not decided yet. The batch
        statistics count turn positions from it, in seat order."""
        return -1

    def factions(self) -> list[str]:
        """Per player the side he plays (4 Gods: his god or gods), for the
        batch statistics; :data:`NO_FACTION` for a player without one,
        ``[]`` where the game has no such sides."""
        return []

    def choice_preview(self, action: int) -> State | None:
        """For a choice made face down while others choose too (Lords of
        Creation's cards): a position in which the current player's choice
        ``action`` can be judged without seeing any other player's hidden
        choice — his own turn with it, as if it came now. ``None`` (the
        default) where the current decision is no such choice. Greedy rates
        such a choice by its best use in this position instead of applying it
        (applying the last choice would reveal the others' cards to it)."""
        return None

    def evaluate(self, player: int) -> float:
        """How good this state is for ``player``, for one-step bots: own score
        minus the best other score. At a chance node with at most
        :data:`EVALUATE_CHANCE_LIMIT` outcomes, the expectation of that margin
        over them (one level only). Games may override this with a better
        (still cheap) evaluation."""
        if self.current_player() == CHANCE:
            outcomes = self.chance_outcomes()
            if len(outcomes) <= EVALUATE_CHANCE_LIMIT:
                total = 0.0
                for action, prob in outcomes:
                    child = self.clone()
                    child.apply_action(action)
                    total += prob * score_margin(child, player)
                return total
        return score_margin(self, player)

    def search_value(self, player: int) -> float:
        """How good this state is for ``player`` at the edge of a search
        (:mod:`wdg.games.ismcts`). Default: :meth:`evaluate`. A game whose
        evaluation carries a tie-break too small to survive the averaging
        of a search may weigh it up here."""
        return self.evaluate(player)

    def sample_chance(self, rng: np.random.Generator) -> int:
        """Draw a chance outcome with the given generator (one uniform number,
        walked along the outcomes' probabilities)."""
        outcomes = self.chance_outcomes()
        x = float(rng.random()) * sum(p for _, p in outcomes)
        acc = 0.0
        for a, p in outcomes:
            acc += p
            if x < acc:
                return a
        return outcomes[-1][0]


class Game(ABC):
    """A game's rules and parameters."""

    name: str = ""
    """Registry name, e.g. ``"lords_of_creation"``."""
    min_players: int = 2
    max_players: int = 2
    end_conditions: tuple[str, ...] = ()
    """The ends the rule book gives (the ``end`` of ``end_info()`` of a state (optional)):
    a batch in which one never occurs is flagged."""
    end_caps: tuple[str, ...] = ()
    """Ends that are our safety limits, not the book's: a batch in which one
    occurs is flagged."""
    optional_ends: tuple[str, ...] = ()
    """Ends the book makes optional (an agreed end, e.g. Empires' round
    cap): named like the others, never flagged when they do not occur."""
    end_labels: dict[str, str] = {}
    """The German name of each ``end`` of ``end_info()`` of a state (optional) (the rule
    book's wording) for the batch's text; a cause without one is shown as
    it is."""
    figure_labels: dict[str, str] = {}
    """The German name of each numeric figure of ``end_info()`` of a state (optional)."""
    no_faction_label: str = "ohne Seite"
    """The batch text's name of :data:`NO_FACTION`."""
    factions_fixed: bool = False
    """True when :meth:`State.factions` is dealt or chosen before the result
    is known (4 Gods' gods), so a win rate per faction is a fairness test."""
    value_scale: float = 5.0
    """A score margin of this size counts as a clear lead when search bots
    turn :meth:`State.evaluate` into a value in [0, 1] (a logistic curve:
    margin 0 -> 0.5, ``value_scale`` -> 0.73)."""

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = {**self.default_params(), **params}
        unknown = set(params) - set(self.default_params())
        if unknown:
            raise GameError(
                f"unbekannte(r) Parameter {sorted(unknown)!r} für das Spiel {self.name!r}; "
                f"erwartet einige von {sorted(self.default_params())!r}"
            )
        n = self.params.get("players")
        if n is not None and (not isinstance(n, int) or isinstance(n, bool)):
            raise GameError(f"{self.name}: Parameter 'players' muß eine ganze Zahl "
                            f"{self.min_players}..{self.max_players} sein, nicht {n!r}")
        if n is not None and not (self.min_players <= int(n) <= self.max_players):
            raise GameError(
                f"{self.name} spielen {self.min_players} bis {self.max_players} Spieler, nicht {n!r}"
            )

    @classmethod
    def default_params(cls) -> dict[str, Any]:
        """Every parameter with its default (must include ``players``)."""
        return {"players": cls.min_players}

    @property
    def num_players(self) -> int:
        """Number of players in this game."""
        return int(self.params["players"])

    @abstractmethod
    def new_initial_state(self) -> State:
        """The state before the first action."""

    def return_bounds(self) -> tuple[float, float]:
        """Lowest and highest possible value of :meth:`State.returns`."""
        return 0.0, 1.0

    def observation_tensor_layout(self) -> list[tuple[str, int]]:
        """The blocks of :meth:`State.observation_tensor`: ``(name, length)``
        in order (docs/games.md lists them per game)."""
        return [(name, len(v)) for name, v in self.new_initial_state().observation_blocks(0)]

    def observation_tensor_size(self) -> int:
        """The fixed length of :meth:`State.observation_tensor`."""
        return sum(n for _, n in self.observation_tensor_layout())

    def deserialize_state(self, text: str) -> State:
        """The state of :meth:`State.serialize` (this game's), replayed."""
        state = deserialize_state(text)
        if state._game().name != self.name or state._game().params != self.params:
            raise GameError(f"the serialised state is of {state._game().name} "
                            f"{state._game().params!r}, not of {self.name} {self.params!r}")
        return state


_REGISTRY: dict[str, Callable[..., Game]] = {}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: register a game under ``cls.name``."""
    if not cls.name:
        raise GameError(f"{cls.__name__} has no name")
    _REGISTRY[cls.name] = cls
    return cls


def registered_games() -> list[str]:
    """Names of all registered games (imports the game packages first)."""
    _import_all()
    return sorted(_REGISTRY)


def load_game(name: str, **params: Any) -> Game:
    """``load_game("lords_of_creation", players=4)``."""
    _import_all()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise GameError(
            f"unbekanntes Spiel {name!r}; erwartet eines von {', '.join(sorted(_REGISTRY))}"
        ) from None
    if any(not isinstance(k, str) for k in params):
        raise GameError(f"{name}: Parameternamen sind Wörter, nicht {sorted(map(repr, params))}")
    try:
        return factory(**params)
    except GameError:
        raise
    except (TypeError, ValueError, KeyError, OSError, AttributeError) as exc:
        # a parameter of the wrong type deep inside a game's set-up
        raise GameError(f"{name}: ungültige Parameter {params!r}: "
                        f"{type(exc).__name__}: {exc}".replace("\n", " ")) from exc


def _import_all() -> None:
    import importlib

    for mod in ("lords_of_creation", "four_gods", "empires_of_middle_earth"):
        try:
            importlib.import_module(f"wdg.games.{mod}")
        except ModuleNotFoundError as exc:  # a game package not present in this build
            if exc.name != f"wdg.games.{mod}":
                raise


def one_hot(i: int, k: int) -> list[float]:
    """``k`` numbers, 1.0 at index ``i`` (none for ``i`` outside ``0..k-1``):
    a block of an observation tensor."""
    v = [0.0] * k
    if 0 <= i < k:
        v[i] = 1.0
    return v


def score_margin(state: State, player: int) -> float:
    """``player``'s score minus the best score of the others."""
    s = state.scores()
    others = [s[q] for q in range(len(s)) if q != player]
    return float(s[player]) - (max(others) if others else 0.0)


def random_action(state: State, rng: np.random.Generator) -> int:
    """A uniformly random legal action (chance: sampled by its probabilities)."""
    if state.current_player() == CHANCE:
        return state.sample_chance(rng)
    acts = state.legal_actions()
    return acts[min(len(acts) - 1, int(rng.random() * len(acts)))]


def random_playout(game: Game, seed: int, max_actions: int = 1_000_000) -> tuple[State, list[int]]:
    """Play one game with uniformly random players from ``seed``; return the
    final state and every action taken (chance outcomes included)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    actions: list[int] = []
    while not state.is_terminal():
        if len(actions) >= max_actions:
            raise GameError(f"{game.name}: kein Ende nach {max_actions} Aktionen (Seed {seed})")
        a = random_action(state, rng)
        actions.append(a)
        state.apply_action(a)
    return state, actions


def playthrough_text(game: Game, seed: int) -> str:
    """A seeded random game as text: parameters, then for every step the
    position, the player to act and the action taken; then returns.
    Kept as a file and compared line by line as a regression test."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    lines = [f"game: {game.name}", f"params: {sorted(game.params.items())!r}", f"seed: {seed}", ""]
    step = 0
    while not state.is_terminal():
        a = random_action(state, rng)
        lines.append(f"# step {step}")
        lines.extend(str(state).splitlines())
        lines.append(f"player: {state.current_player()}")
        lines.append(f"action: {a} {state.action_to_string(a)}")
        state.apply_action(a)
        step += 1
    lines.append("# final")
    lines.extend(str(state).splitlines())
    lines.append(f"scores: {state.scores()!r}")
    lines.append(f"returns: {state.returns()!r}")
    return "\n".join(lines) + "\n"


class _History(tuple):
    """The actions since the initial state as an immutable linked list of
    ``(parent, action)`` pairs: appending is O(1) (a C-level tuple, no
    Python frame) and clones share it. Copied and pickled as a plain list
    (a nested structure thousands deep would exceed the recursion limit of
    ``copy.deepcopy`` and ``pickle``)."""

    __slots__ = ()

    def to_list(self) -> list[int]:
        out = []
        node: _History | None = self
        while node is not None:
            node, a = node
            out.append(a)
        out.reverse()
        return out

    @staticmethod
    def from_list(actions: list[int]) -> _History | None:
        node = None
        for a in actions:
            node = _NEW(_History, (node, a))
        return node

    def __deepcopy__(self, memo: dict[int, Any]) -> _History:
        return self  # immutable

    def __copy__(self) -> _History:
        return self

    def __reduce__(self) -> str | tuple[Any, ...]:
        if self is _UNKNOWN:
            return "_UNKNOWN"  # the module's one marker, by name
        return _History.from_list, (self.to_list(),)


_NEW = tuple.__new__
_UNKNOWN = _NEW(_History, (None, -1))
"""The history of a determinisation: not known (it was not played)."""


def _recording_apply(apply: Callable[[State, int], None]) -> Callable[[State, int], None]:
    def apply_action(self: State, action: int) -> None:
        apply(self, action)
        node = getattr(self, "_hist", None)
        if node is not _UNKNOWN:
            self._hist = _NEW(_History, (node, action))
    apply_action.__doc__ = apply.__doc__
    apply_action._keeps_history = True  # type: ignore[attr-defined]  # marker read by __init_subclass__
    return apply_action


def _history_clone(clone: Callable[[State], State]) -> Callable[[State], State]:
    def clone_with_history(self: State) -> State:
        c = clone(self)
        c._hist = getattr(self, "_hist", None)
        return c
    clone_with_history.__doc__ = clone.__doc__
    clone_with_history._keeps_history = True  # type: ignore[attr-defined]  # marker read by __init_subclass__
    return clone_with_history


def _history_lost(make: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a method that makes a state (``resample_from_infostate``,
    ``greedy_view``) or a list of states (``information_set``): those it made, other than the
    state itself, have no history (they are not the game's positions)."""
    def without_history(self: State, *args: Any, **kwargs: Any) -> Any:
        out = make(self, *args, **kwargs)
        for s in out if isinstance(out, list) else (out,):
            if s is not self:
                s._hist = _UNKNOWN
        return out
    without_history.__doc__ = make.__doc__
    without_history._keeps_history = True  # type: ignore[attr-defined]  # marker read by __init_subclass__
    return without_history


def _assign(target: State, source: State) -> None:
    """Make ``target`` a copy of ``source`` in place (every attribute, in
    ``__dict__`` and in ``__slots__``)."""
    fresh = source.clone()
    names = set(getattr(fresh, "__dict__", {}))
    for klass in type(fresh).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
    for name in names:
        if hasattr(fresh, name):
            setattr(target, name, getattr(fresh, name))


def deserialize_state(text: str) -> State:
    """A state from :meth:`State.serialize`: its game loaded with its
    parameters, its actions replayed (each checked to be legal)."""
    import json

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise GameError(f"not a serialised game state: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("game"), str) or \
            not isinstance(data.get("params"), dict) or not isinstance(data.get("actions"), list) or \
            not all(isinstance(a, int) and not isinstance(a, bool) for a in data["actions"]):
        raise GameError("a serialised game state is a JSON object with game (text), params "
                        "(mapping) and actions (whole numbers)")
    state = load_game(data["game"], **data["params"]).new_initial_state()
    for i, a in enumerate(data["actions"]):
        try:
            state.apply_action(a)
        except GameError as exc:
            raise GameError(f"serialised state, action {i} ({a}): {exc}") from None
    return state


def game_params(players: int | None, param: list[str]) -> dict[str, Any]:
    """Game parameters from ``-n`` and ``--param KEY=VALUE``; a ``players``
    given both ways must agree."""
    params: dict[str, Any] = {}
    for item in param:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise GameError(f"--param {item!r} ungültig; erwartet NAME=WERT (der Wert in YAML, z. B. "
                            f"true, 4)")
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
