"""Lords of Creation: what each action does, and the flow of phases.

One function per phase, ``apply(state, action)``; each trusts that the action
is legal (``LordsState.apply_action`` checks that first). Section numbers are
the rule book's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wdg.games.base import CHANCE, TERMINAL
from wdg.games.lords_of_creation import actions as A
from wdg.games.lords_of_creation.components import TIE_RANK, card_terrain, card_value, make_world
from wdg.games.lords_of_creation.phases import (
    ACT, ADVANCE, ALTAR, ATTACK_PAIR, CHOOSE, CIVILISE, CREATE, CREATE_DRAW, CREATE_PLACE,
    DEAL, DICE, MOVE_COUNT, MOVE_PAIR, OTHER_TERRAIN_HIT, OVER, PLACE, REFILL,
    SAME_TERRAIN_HIT, START, TIE,
)

if TYPE_CHECKING:
    from wdg.games.lords_of_creation.state import LordsState


# ------------------------------------------------------------ set-up, creation

def _deal(s: LordsState, action: int) -> None:
    """1.: cards are dealt before the creation phase (round-robin, one at a time)."""
    c = action - A.CARD_DRAWN
    total_dealt = sum(sum(h) for h in s.hands)
    s.deck[c] -= 1
    s.hands[total_dealt % s.n][c] += 1
    if total_dealt + 1 == s.dealt:
        if s.game.params["full_knowledge"]:
            s.deck = [0] * len(s.deck)  # 5.1: "überzählige werden zur Seite gelegt"
        s.phase = START


def _start(s: LordsState, action: int) -> None:
    """2.: "Ein Startspieler wird ausgewürfelt"."""
    s.phase = CREATE
    s.to_move = s.starter = action - A.PLAYER_CHOSEN
    _skip_creation_players(s)


def _create(s: LordsState, action: int) -> None:
    """2.: draw a marker, or place one kept earlier."""
    if action == A.DRAW:
        s.phase = CREATE_DRAW
        s.turn_player = s.to_move
        s.to_move = CHANCE
        return
    t, h = divmod(action - A.KEPT, 100)
    s.kept[s.to_move][t] -= 1
    _put_marker(s, t, h)


def _create_draw(s: LordsState, action: int) -> None:
    t = action - A.TERRAIN_DRAWN
    s.bag[t] -= 1
    s.drawn = t
    s.phase = CREATE_PLACE
    s.to_move = s.turn_player


def _create_place(s: LordsState, action: int) -> None:
    """2.: place the drawn marker on any empty hex, or keep it (counts as the turn)."""
    if action == A.KEEP:
        s.kept[s.to_move][s.drawn] += 1
        s.drawn = -1
        _next_creator(s)
        return
    t, s.drawn = s.drawn, -1
    _put_marker(s, t, action - A.HEX)


def _put_marker(s: LordsState, t: int, h: int) -> None:
    s.terrain[h] = t
    s.empty -= 1
    _next_creator(s)


def _next_creator(s: LordsState) -> None:
    """Clockwise to the next player; when the board is full the people phase
    begins and kept markers go back to the bag."""
    s.phase = CREATE
    if s.empty == 0:
        for p in range(s.n):
            for t in range(7):
                s.bag[t] += s.kept[p][t]
            s.kept[p] = [0] * 7
        s.world = make_world(s.radius, tuple(s.terrain))
        s.terrain = list(s.world.terrain)
        _new_round(s)
        return
    s.to_move = (s.to_move + 1) % s.n
    _skip_creation_players(s)


def _skip_creation_players(s: LordsState) -> None:
    """A player with an empty bag and no kept marker has nothing to do."""
    if any(s.bag):
        return
    for _ in range(s.n):
        if any(s.kept[s.to_move]):
            return
        s.to_move = (s.to_move + 1) % s.n


# ---------------------------------------------------------- people phase: round

def _new_round(s: LordsState) -> None:
    if not any(any(h) for h in s.hands):
        _finish(s, "alle Karten gespielt")
        return
    s.round += 1
    s.chosen = [-1] * s.n
    s.phase = CHOOSE
    s.to_move = 0
    s.turn_player = -1


def _choose(s: LordsState, action: int) -> None:
    """3.2: every player lays a card face down; revealed when all have chosen."""
    p = s.to_move
    c = action - A.CARD
    s.hands[p][c] -= 1
    s.chosen[p] = c
    if p + 1 < s.n:
        s.to_move = p + 1
    else:
        _reveal(s)


def _reveal(s: LordsState) -> None:
    """3.2 and 4.: order lowest card first, ties by terrain; the sudden end;
    refill the hands if the deck suffices for all."""
    n = s.n
    deck_total = sum(s.deck)
    exhausted = deck_total < n
    if exhausted and s.game.params["sudden_end"] and len(set(s.chosen)) < n and _last_seven(s):
        _finish(s, "gleiche Karten bei leerem Stapel")
        return
    keys = {p: (card_value(s.chosen[p]), TIE_RANK[card_terrain(s.chosen[p])]) for p in range(n)}
    s.queue = []
    for p in sorted(range(n), key=lambda q: (keys[q], q)):
        if s.queue and keys[s.queue[-1][0]] == keys[p]:
            s.queue[-1].append(p)
        else:
            s.queue.append([p])
    if exhausted:
        s.deck = [0] * len(s.deck)  # 3.2: "Der Stapel gilt dann als leer"
        _next_turn(s)
    else:
        s.phase = REFILL
        s.to_move = CHANCE
        s.refill_next = 0


def _last_seven(s: LordsState) -> bool:
    """4.1 and 5.1: the end by identical cards applies once "alle Spieler
    ihre letzten sieben Karten auf der Hand haben". With normal dealing that
    is the moment the deck cannot refill; with 5.1 (all cards dealt, the deck
    empty from the start) only once every player held at most seven cards
    when choosing (the card just chosen counts)."""
    hand = s.game.components.hand_size
    return all(sum(s.hands[p]) + 1 <= hand for p in range(s.n))


def _refill(s: LordsState, action: int) -> None:
    c = action - A.CARD_DRAWN
    s.deck[c] -= 1
    s.hands[s.refill_next][c] += 1
    s.refill_next += 1
    if s.refill_next == s.n:
        _next_turn(s)


def _next_turn(s: LordsState) -> None:
    """The next player in card order; identical cards are decided by the die
    only when their turn comes (3.2)."""
    if not s.queue:
        _new_round(s)
        return
    group = s.queue[0]
    if len(group) == 1:
        s.queue.pop(0)
        begin_turn(s, group[0])
    else:
        s.phase = TIE
        s.to_move = CHANCE


def _tie(s: LordsState, action: int) -> None:
    """3.2: "Herrscht dann immer noch Gleichstand, wird gewürfelt" — the die
    picks who of the tied players moves next; the rest wait (and are decided
    again when their turn comes)."""
    p = action - A.PLAYER_CHOSEN
    s.queue[0].remove(p)
    begin_turn(s, p)


def begin_turn(s: LordsState, p: int) -> None:
    """3.3: the turn starts with placing (skipped if impossible, 3.5)."""
    s.turn_player = s.to_move = p
    s.card = s.chosen[p]
    s.civ_done = s.altar_done = False
    if s.supply[p] > 0 and s.place_hexes():
        s.phase = PLACE
    else:
        _enter_act(s)


def _end_turn(s: LordsState) -> None:
    s.src = s.dst = -1
    s.card = -1
    _next_turn(s)


def _finish(s: LordsState, reason: str) -> None:
    s.phase = OVER
    s.to_move = TERMINAL
    s.turn_player = -1
    s.ended_by = reason


# ----------------------------------------------------------- people phase: turn

def _place(s: LordsState, action: int) -> None:
    """3.5: all counters of the card into one hex; the side of those present."""
    h = action - A.HEX
    p = s.turn_player
    k = min(card_value(s.card), s.supply[p])
    s.supply[p] -= k
    if s.owner[h] < 0:
        s.owner[h] = p
        s.civ[h] = False
    s.count[h] += k
    _enter_act(s)


def _enter_act(s: LordsState) -> None:
    """Back to the choice of the next action; the turn ends by itself when
    nothing is left to do (3.3)."""
    s.phase = ACT
    s.to_move = s.turn_player
    s.src = s.dst = -1
    s.forget_legal()
    if len(s.legal_actions()) == 1:
        s.forget_legal()  # the turn ends: the phase changes
        _end_turn(s)


def _act(s: LordsState, action: int) -> None:
    if action == A.END:
        _end_turn(s)
    else:
        s.phase = _MENU_PHASE[action]


_MENU_PHASE = {A.MENU_MOVE: MOVE_PAIR, A.MENU_ATTACK: ATTACK_PAIR,
               A.MENU_CIVILISE: CIVILISE, A.MENU_ALTAR: ALTAR}


def _pair(s: LordsState, action: int) -> None:
    s.src, s.dst = divmod(action - A.PAIR, 100)
    if s.phase == MOVE_PAIR:
        s.phase = MOVE_COUNT
    else:
        s.phase = DICE
        s.to_move = CHANCE


def _move_count(s: LordsState, action: int) -> None:
    """3.6 (and 3.7's advance): move k counters from src to dst."""
    k = action - A.COUNT
    a, b = s.src, s.dst
    s.count[a] -= k
    if s.owner[b] < 0:
        s.owner[b] = s.turn_player
        s.civ[b] = s.civ[a]
    s.count[b] += k
    _enter_act(s)


def remove_counter(s: LordsState, h: int) -> None:
    """One hit (3.7): a counter goes back to its owner's supply; an emptied
    hex loses its civilisation and its altar (3.9)."""
    o = s.owner[h]
    s.count[h] -= 1
    s.supply[o] += 1
    if s.count[h] == 0:
        s.owner[h] = -1
        s.civ[h] = False
        s.altar[h] = False


def _dice(s: LordsState, action: int) -> None:
    """3.7: attacker two dice (sum 6 same terrain / 8 other terrain), defender
    one die (hits if higher than each attacker die); a double ends the turn
    after the hits; an emptied hex of the same terrain must be entered."""
    a1, a2, d = A.dice_of(action)
    a, b = s.src, s.dst
    same = s.terrain[a] == s.terrain[b]
    if a1 + a2 >= (SAME_TERRAIN_HIT if same else OTHER_TERRAIN_HIT):
        remove_counter(s, b)
    if d > a1 and d > a2:
        remove_counter(s, a)
    s.to_move = s.turn_player
    if a1 == a2:
        _end_turn(s)
    elif s.owner[b] < 0 and same and s.count[a] >= 2:
        s.phase = ADVANCE
    else:
        _enter_act(s)


def _civilise(s: LordsState, action: int) -> None:
    """3.8: turn every barbarian in the hex to the civilised side."""
    h = action - A.HEX
    s.civ[h] = True
    s.civ_done = True
    s.ever_civ[s.turn_player] = True
    _enter_act(s)


def _altar(s: LordsState, action: int) -> None:
    """3.9: the top counter is replaced by an altar (the counter returns to the supply)."""
    h = action - A.HEX
    s.altar[h] = True
    s.count[h] -= 1
    s.supply[s.turn_player] += 1
    s.altar_done = True
    _enter_act(s)


APPLY: dict[int, Callable[[LordsState, int], None]] = {
    DEAL: _deal, START: _start, CREATE: _create, CREATE_DRAW: _create_draw,
    CREATE_PLACE: _create_place, CHOOSE: _choose, REFILL: _refill, TIE: _tie,
    PLACE: _place, ACT: _act, MOVE_PAIR: _pair, ATTACK_PAIR: _pair,
    MOVE_COUNT: _move_count, ADVANCE: _move_count, DICE: _dice,
    CIVILISE: _civilise, ALTAR: _altar,
}
