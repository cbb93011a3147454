"""Lords of Creation: the integer encoding of actions and chance outcomes.

Each family occupies its own range, so the sorted legal actions of a phase
are simply the family's members in ascending order. Hex ``h`` is a board
index (``< 100``); a pair ``a -> b`` is ``a * 100 + b``.
"""

from __future__ import annotations

END = 0
"""End the turn (3.3: "alle oder einige" actions — the player may stop)."""
DRAW = 1
"""Creation: draw a terrain marker from the bag."""
KEEP = 2
"""Creation: keep the drawn marker instead of placing it (at most three)."""
MENU_MOVE, MENU_ATTACK, MENU_CIVILISE, MENU_ALTAR = 3, 4, 5, 6
"""Begin a move / attack / civilisation / altar (then choose where)."""
HEX = 100
"""``HEX + h``: choose hex ``h`` (place a marker or counters, civilise, altar)."""
PAIR = 10_000
"""``PAIR + a * 100 + b``: from hex ``a`` to hex ``b`` (move or attack)."""
KEPT = 20_000
"""``KEPT + t * 100 + h``: place a kept marker of terrain ``t`` on hex ``h``."""
CARD = 30_000
"""``CARD + c``: play card type ``c`` face down."""
COUNT = 31_000
"""``COUNT + k``: move ``k`` counters."""

# chance outcomes
TERRAIN_DRAWN = 40_000
"""``TERRAIN_DRAWN + t``: a marker of terrain ``t`` comes out of the bag."""
CARD_DRAWN = 41_000
"""``CARD_DRAWN + c``: a card of type ``c`` is drawn from the deck."""
DICE = 42_000
"""``DICE + 36 (a1 - 1) + 6 (a2 - 1) + (d - 1)``: the attacker's two dice and
the defender's die."""
PLAYER_CHOSEN = 43_000
"""``PLAYER_CHOSEN + p``: the die decides for player ``p`` (start player, or
the next of players with identical cards)."""

DICE_OUTCOMES = tuple(range(DICE, DICE + 216))


def dice_action(a1: int, a2: int, d: int) -> int:
    """The chance action of attacker dice ``a1, a2`` and defender die ``d`` (1..6)."""
    return DICE + 36 * (a1 - 1) + 6 * (a2 - 1) + (d - 1)


def dice_of(action: int) -> tuple[int, int, int]:
    """``(a1, a2, d)`` of a dice chance action."""
    x = action - DICE
    return x // 36 + 1, x // 6 % 6 + 1, x % 6 + 1


def pair(a: int, b: int) -> int:
    """The action ``a -> b``."""
    return PAIR + a * 100 + b


def hex_action(h: int) -> int:
    """The action choosing hex ``h``."""
    return HEX + h


def count_action(k: int) -> int:
    """The action choosing ``k`` counters."""
    return COUNT + k
