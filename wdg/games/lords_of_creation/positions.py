"""Hand-built Lords of Creation positions (for tests and analysis).

:func:`position` makes a people-phase state from a terrain map and counters,
with a given player to act on a given card — the situations of the rule
book's examples without playing a creation phase first.
"""

from __future__ import annotations

from wdg.games.lords_of_creation import actions as A
from wdg.games.lords_of_creation.components import BERGE, card_id, geometry, make_world
from wdg.games.lords_of_creation.game import LordsOfCreation
from wdg.games.lords_of_creation.phases import ACT, PLACE
from wdg.games.lords_of_creation.state import LordsState
from wdg.world.hexgrid import Hex


def hex_at(q: int, r: int, radius: int = 5) -> int:
    """The board index of axial ``(q, r)``."""
    return geometry(radius).hexes.index(Hex(q, r))


def position(game: LordsOfCreation, terrain: dict[int, int],
             pieces: dict[int, tuple[int, int, str]], player: int,
             card: tuple[int, int] = (0, 1), *, placing: bool = False,
             ever_civ: tuple[int, ...] = (), fill: int = BERGE) -> LordsState:
    """A state in ``player``'s turn, card ``(terrain, value)`` already placed
    (or, with ``placing``, still to be placed). ``terrain`` maps hex -> terrain
    (the rest is ``fill``); ``pieces`` maps hex -> (owner, counters, side)
    with side ``b`` barbarian, ``z`` civilised, ``A`` civilised with altar.
    Hands and deck are empty, so the game ends after this turn."""
    s = game.new_initial_state()
    s.terrain = [terrain.get(h, fill) for h in range(s.size)]
    s.world = make_world(s.radius, tuple(s.terrain))
    s.empty = 0
    s.deck = [0] * len(s.deck)
    for h, (owner, count, side) in pieces.items():
        s.owner[h], s.count[h] = owner, count
        s.civ[h] = side in "zA"
        s.altar[h] = side == "A"
        s.supply[owner] -= count
    s.round = 1
    s.chosen = [card_id(*card)] * s.n
    s.card = card_id(*card)
    s.turn_player = s.to_move = player
    s.ever_civ = [p in ever_civ for p in range(s.n)]
    s.phase = PLACE if placing else ACT
    s.forget_legal()
    return s


def do(state: LordsState, *actions: int) -> LordsState:
    """Apply ``actions`` in order; returns the state for chaining."""
    for a in actions:
        state.apply_action(a)
    return state


def move(state: LordsState, a: int, b: int, k: int) -> LordsState:
    """The three actions of a move of ``k`` counters from ``a`` to ``b``."""
    return do(state, A.MENU_MOVE, A.pair(a, b), A.count_action(k))


def attack(state: LordsState, a: int, b: int, a1: int, a2: int, d: int) -> LordsState:
    """An attack from ``a`` on ``b`` with the given dice."""
    return do(state, A.MENU_ATTACK, A.pair(a, b), A.dice_action(a1, a2, d))
