"""The actions of 4 Gods: which are legal in a state and what they do.

Rule quotes are from the German rule book ("AKTIONEN", "Rundenbasierter
Spielablauf", "SPIELENDE"). Functions here trust that the action was checked
against :func:`legal` (the state does that).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from wdg.games.four_gods.actions import MAX_ROW, REGIONS

if TYPE_CHECKING:
    from wdg.games.four_gods.state import FourGodsState as St


# ------------------------------------------------------------------ legal
def legal(s: St) -> Iterator[int]:
    """Every legal action of the state's current phase (unsorted)."""
    lay = s.game.layout
    if s.phase == "deal":
        return (lay.deal + g for g in range(4) if s.owner[g] < 0)
    if s.phase == "start":
        return (lay.start + p for p in range(s.game.num_players))
    if s.phase == "draw":
        first = lay.draw_tile
        return iter([first + t for t in s.bag])
    if s.phase == "prophet":
        return _prophet_actions(s, optional=True)
    if s.phase == "city":
        return _prophet_actions(s, optional=False)
    if s.phase == "taken":
        return _taken_actions(s)
    if s.phase == "main":
        return _main_actions(s)
    return iter(())


def _main_actions(s: St) -> Iterator[int]:
    lay = s.game.layout
    p = s.player
    yield lay.END
    row_full = len(s.rows[p]) >= s.row_capacity()
    free = [h for h in (0, 1) if s.hands[h] is None]
    if len(free) == 2 and not row_full and s.bag:
        yield lay.DRAW1
        if len(s.bag) >= 2:
            yield lay.DRAW2
    for h in (0, 1):
        if s.hands[h] is not None:
            yield from _placements(s, h)
            if not row_full:
                yield lay.reserve + 2 * h
                yield lay.reserve + 2 * h + 1
    if free:
        flip, take = lay.flip, lay.take
        for q, row in enumerate(s.rows):
            base = q * MAX_ROW
            for i in range(len(row)):
                yield flip + base + i
                yield take + base + i
    if len(s.gods[p]) < s.gods_per_player() and not s.game.hidden_gods:
        yield from (lay.god + g for g in range(4) if s.owner[g] < 0)
    if s.gods[p] and s.cities_left > 0 and _prophet_available(s):
        yield from (lay.city + c for c in s.world.frontier)


def _placements(s: St, h: int) -> Iterator[int]:
    """Lay hand ``h``'s tile in the world, or destroy a foreign city with it."""
    tile = s.hands[h]
    assert tile is not None
    lay, world = s.game.layout, s.world
    fits = world.fit.fits
    for c, key in world.frontier.items():
        for o in fits(key).get(tile, ()):
            yield lay.place(h, c, o)
    mine = s.gods[s.player]
    if not mine:
        return
    for c, god in world.cities.items():
        if god in mine:
            continue
        key = world.key(c)
        if world.straight_edges(key) >= 2:
            for o in fits(key).get(tile, ()):
                yield lay.place(h, c, o)


def _movable(s: St, god: int) -> list[int]:
    """Cells of ``god``'s prophets on terrain tiles (never on a city)."""
    return [c for c, (g, _) in s.prophets.items() if g == god]


def _prophet_available(s: St) -> bool:
    for g in s.gods[s.player]:
        if s.supply[g] > 0 or _movable(s, g):
            return True
    return False


def _prophet_actions(s: St, optional: bool) -> Iterator[int]:
    lay = s.game.layout
    if optional:
        yield lay.skip
        tile = s.world.tiles[s.focus]
        assert tile is not None
        nregions = len(tile.region_terrain)
    else:
        nregions = 1
    for g in s.gods[s.player]:
        if s.supply[g] > 0:
            yield from (lay.prophet + g * REGIONS + k for k in range(nregions))
        else:
            for c in _movable(s, g):
                yield from (lay.move + c * REGIONS + k for k in range(nregions))


def _taken_actions(s: St) -> Iterator[int]:
    lay = s.game.layout
    h = s.taken_hand
    acts = list(_placements(s, h))
    if len(s.rows[s.player]) < s.row_capacity():
        acts += [lay.reserve + 2 * h, lay.reserve + 2 * h + 1]
    if not acts:
        acts = [lay.ret]
    return iter(acts)


def can_have_prophet(s: St) -> bool:
    """After laying a tile: the player has a god and a prophet to set."""
    return bool(s.gods[s.player]) and _prophet_available(s)


# ------------------------------------------------------------------ apply
def apply(s: St, a: int) -> None:
    """Carry out a legal action."""
    kind, args = s.game.decode(a)
    HANDLERS[kind](s, *args)


def _deal(s: St, g: int) -> None:
    n = s.game.num_players
    p = s.deal_next % n
    s.gods[p].append(g)
    s.owner[g] = p
    s.supply[g] = s.game.prophets_per_god
    s.deal_next += 1
    if s.deal_next == n * s.gods_per_player():
        s.phase = "start"


def _start(s: St, p: int) -> None:
    s.starter = p
    s.player = p
    s.phase = "main"


def _end(s: St) -> None:
    end_turn(s)


def _draw(s: St, k: int) -> None:
    s.turn_actions += 1
    s.productive = True
    s.draws_left = k
    s.phase = "draw"


def _draw_tile(s: St, t: int) -> None:
    s.bag.remove(t)
    h = 0 if s.hands[0] is None else 1
    s.hands[h] = t
    s.draws_left -= 1
    if not s.bag:
        trigger_end(s, "bag empty")
    if s.draws_left == 0:
        s.phase = "main"
        after_main_action(s)


def _place(s: St, h: int, c: int, o: int) -> None:
    tile = s.hands[h]
    assert tile is not None
    s.hands[h] = None
    if s.phase == "main":
        s.turn_actions += 1
    s.productive = True
    if c in s.world.cities:
        s.world.cities.pop(c)  # the prophet on it leaves the game
        s.destroyed[s.player] += 1
    s.world.place_tile(c, s.game.tileset.by_orient[tile][o])
    if s.world.is_full():
        trigger_end(s, "world full")
    s.focus = c
    if can_have_prophet(s):
        s.phase = "prophet"
    else:
        s.phase = "main"
        after_main_action(s)


def _reserve(s: St, h: int, side: int) -> None:
    tile = s.hands[h]
    assert tile is not None
    s.hands[h] = None
    if s.phase == "main":
        s.turn_actions += 1
    s.rows[s.player].append((tile, side))
    s.phase = "main"
    after_main_action(s)


def _flip(s: St, q: int, i: int) -> None:
    tile, side = s.rows[q][i]
    s.rows[q][i] = (tile, 1 - side)
    s.turn_actions += 1
    after_main_action(s)


def _take(s: St, q: int, i: int) -> None:
    tile, _ = s.rows[q].pop(i)
    h = 0 if s.hands[0] is None else 1
    s.hands[h] = tile
    s.turn_actions += 1
    s.taken_from = q
    s.taken_hand = h
    s.phase = "taken"


def _return(s: St) -> None:
    """"... dann (und nur dann!) legst du es zurück in die Ablagereihe des
    Mitspielers ... Sollte die Ablagereihe ... voll sein, wirfst du das
    Plättchen in den Beutel zurück." """
    h = s.taken_hand
    tile = s.hands[h]
    assert tile is not None
    s.hands[h] = None
    if len(s.rows[s.taken_from]) < s.row_capacity():
        s.rows[s.taken_from].append((tile, 0))
    else:
        bisect.insort(s.bag, tile)
    s.phase = "main"
    after_main_action(s)


def _god(s: St, g: int) -> None:
    s.gods[s.player].append(g)
    s.owner[g] = s.player
    s.supply[g] = s.game.prophets_per_god
    s.turn_actions += 1
    after_main_action(s)


def _city(s: St, c: int) -> None:
    s.turn_actions += 1
    s.productive = True
    s.cities_left -= 1
    s.world.place_city(c, -1)
    s.focus = c
    if s.world.is_full():
        trigger_end(s, "world full")
    s.phase = "city"


def _prophet(s: St, g: int, k: int) -> None:
    s.supply[g] -= 1
    _set_prophet(s, g, k)


def _move(s: St, c: int, k: int) -> None:
    g, _ = s.prophets.pop(c)
    _set_prophet(s, g, k)


def _set_prophet(s: St, g: int, k: int) -> None:
    if s.phase == "city":
        s.world.cities[s.focus] = g
    else:
        s.prophets[s.focus] = (g, (s.focus, k))
    s.phase = "main"
    after_main_action(s)


def _skip(s: St) -> None:
    s.phase = "main"
    after_main_action(s)


HANDLERS: dict[str, Callable[..., None]] = {
    "deal": _deal, "start": _start, "end": _end, "draw": _draw, "draw_tile": _draw_tile,
    "place": _place, "reserve": _reserve, "flip": _flip, "take": _take, "ret": _return,
    "god": _god, "city": _city, "prophet": _prophet, "move": _move, "skip": _skip}


# ------------------------------------------------------------------ turns
def after_main_action(s: St) -> None:
    """The hourglass: once the turn's actions are used up, the turn ends."""
    if s.phase == "main" and s.turn_actions >= s.game.actions_per_turn:
        end_turn(s)


def trigger_end(s: St, reason: str) -> None:
    """World full or bag empty: this turn, then one last turn for everyone."""
    if s.final_turns < 0:
        s.final_turns = s.game.num_players + 1
        s.end_reason = reason


def end_turn(s: St) -> None:
    """Hands go to the own row (or the bag when it is full); next player.
    "Sobald die Zeit abgelaufen ist, musst du alle Plättchen, die du in den
    Händen hältst, in deine eigene Ablagereihe legen. Ist dort kein Platz,
    wirf sie in den Beutel." """
    p = s.player
    for h in (0, 1):
        tile = s.hands[h]
        if tile is not None:
            if len(s.rows[p]) < s.row_capacity():
                s.rows[p].append((tile, 0))
            else:
                bisect.insort(s.bag, tile)
            s.hands[h] = None
    s.idle_turns = 0 if s.productive else s.idle_turns + 1
    s.turn += 1
    if s.final_turns > 0:
        s.final_turns -= 1
    if s.final_turns == 0:
        return _finish(s, s.end_reason)
    if s.idle_turns >= s.game.num_players:
        return _finish(s, "all passed")
    if s.turn >= s.game.max_turns:
        return _finish(s, "turn limit")
    s.player = (p + 1) % s.game.num_players
    s.turn_actions = 0
    s.productive = False
    s.phase = "main"


def _finish(s: St, reason: str) -> None:
    s.end_reason = reason
    s.phase = "over"
