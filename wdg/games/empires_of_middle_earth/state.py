"""The position and turn flow of Empires of Middle-earth.

One turn (rule "Ablauf einer Runde"): income, drawing, then characters,
influence attempts (mobilisation, intrigue), campaigns, and a discard to end.
Every multi-step decision (which home site, bribes of every player, passage,
supporters, helpers, the leader, lost armies, captured characters, siege) is
an action of the player who decides it. Campaign steps live in
:mod:`.campaign`; this module holds the cards, the draw, the influence rolls
and the end of the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from wdg.games.base import CHANCE, TERMINAL, GameError, State, one_hot
from wdg.games.empires_of_middle_earth.campaign import PRE_DICE, Battle, CampaignMixin, OutlookMixin
from wdg.games.empires_of_middle_earth.codes import BRIBE_MAX, DRAW, NO, TAKE
from wdg.games.empires_of_middle_earth.common import (
    DECK, DISCARD, DRAWING, DRAW_CARD, END, HAND, INFLUENCE_LIMIT, MAIN, OUT, OVER, PLAY, START)
from wdg.games.empires_of_middle_earth.main_phase import MainMixin
from wdg.games.empires_of_middle_earth.rolls import Roll, RollMixin
from wdg.games.empires_of_middle_earth.svg import board_svg
from wdg.games.empires_of_middle_earth.text import (
    action_de, action_path, action_text, board_text, human_view, state_text, turn_status)

if TYPE_CHECKING:
    from wdg.games.empires_of_middle_earth.game import EmpiresGame



_P_ABOVE = [sum(1 for a in range(1, 7) for b in range(1, 7) if a + b > need) / 36 for need in range(13)]
"""The chance that 2d6 is higher than ``need`` (0..12)."""
_TWO_D6 = [(x, (6 - abs(x - 7)) / 36.0) for x in range(2, 13)]


SEARCH_GOLD = 0.5
"""What a gold is worth to the search bot (:meth:`EmpiresState.search_value`), in
the units of :meth:`EmpiresState.worth` (an army 10 + strength): 0.5.
Greedy's 0.1 makes gold nearly free; a search, which finds plans greedy does
not (bribe a long-shot mobilisation, buy the fifth card), then spends it on
any of them. A logistic fit of the winner of 600 seeded two-player greedy
games on the players' positions at the start of each turn weighed a gold at
0.52-0.59 of a unit of worth."""


MARKET_DRAW = 1.0
"""What a card drawn blind from the deck is worth in hand, about (in the units
of :meth:`EmpiresState.worth`: 38 of the 68 cards are characters, worth 1; an
army 6 times its chance to be mobilised). The search counts the best army of
the open discard pile beyond this as the next drawer's."""


def _chance_above(need: int) -> float:
    """P(2d6 > need)."""
    return 1.0 if need < 2 else 0.0 if need >= 12 else _P_ABOVE[need]


def _chance_below(margin: int) -> float:
    """P(2d6 < margin): the defender's dice stay under the intriguer's lead."""
    return sum(p for y, p in _TWO_D6 if y < margin)


class EmpiresState(MainMixin, RollMixin, CampaignMixin, OutlookMixin, State):
    """A position of Empires of Middle-earth (see module docstring)."""

    search_ranks = True
    """The search bot (:mod:`wdg.games.ismcts`) ranks its candidates by
    :meth:`search_value`, not by greedy's :meth:`evaluate`: to greedy every
    campaign is worth as much as ending the phase."""
    search_removes_luck = True
    seen_by = -1
    """In a :meth:`greedy_view`: the player whose knowledge the position
    holds (the cards he cannot see count at their expected worth, a card
    drawn from the deck comes from all of them); -1 in a game's position."""
    """:meth:`search_value` at a chance node is the expectation over its
    outcomes (a card from the deck, an influence roll, a campaign's dice),
    so the search may take the luck of the dice out of its simulations."""

    def __init__(self, game: EmpiresGame) -> None:
        self.g = game
        cards = game.cards
        n = len(cards)
        self.where = [DECK] * n
        self.owner = [-1] * n
        self.lord = [-1] * n
        self.master = [-1] * n
        self.site = [c.homes[0] if c.kind == "character" and len(c.homes) == 1 else -1 for c in cards]
        self.region = [c.region for c in cards]
        self.acted = [False] * n
        self.mobilised = [False] * n
        """Per card: an influence attempt was made on it (mobilisation is automatic only at the first)."""
        self.gold = [0] * game.num_players
        self.deck = list(range(n))
        self.discard: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(game.num_players)]
        self.table: list[list[int]] = [[] for _ in range(game.num_players)]
        self.first = -1
        self.player = -1
        self.rounds = 0
        self.phase = START
        self.actor = CHANCE
        self.drawn = 0
        self.taking = False
        """Between TAKE and the choice of the discard card."""
        self.pend: Roll | Battle | None = None
        self.sieges: list[tuple[int, int, tuple[int, ...], int]] = []
        self.turn = 0
        self._legal: list[int] | None = None
        self.waive = False
        self.note = ""
        self.ended_by = ""
        self.deck_draws = 0
        self.discard_takes = 0

    # ----------------------------------------------------------- framework API
    def current_player(self) -> int:
        """The player to decide, CHANCE or TERMINAL."""
        return self.actor

    def is_terminal(self) -> bool:
        """True after the last turn."""
        return self.phase == OVER

    def start_player(self) -> int:
        """The start player, rolled at the start."""
        return self.first

    def clone(self) -> EmpiresState:
        """An independent copy (lists copied, immutable parts shared)."""
        s = object.__new__(EmpiresState)
        s.__dict__.update(self.__dict__)
        for key in ("where", "owner", "lord", "master", "site", "region", "acted", "mobilised",
                    "gold", "deck", "discard", "sieges"):
            setattr(s, key, list(getattr(self, key)))
        s.hands = [list(h) for h in self.hands]
        s.table = [list(t) for t in self.table]
        s.pend = self.pend.copy() if self.pend is not None else None
        s._legal = None
        return s

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Start player (uniform), a card from the deck (uniform), 2d6 sums or one die."""
        if self.actor != CHANCE:
            return []
        if self.pend is not None:
            return self.pend.chance()
        if self.phase == START:
            n = self.g.num_players
            return [(p, 1.0 / n) for p in range(n)]
        if self.phase == DRAW_CARD:
            pool = self.deck if self.seen_by < 0 else self._unseen()
            p = 1.0 / len(pool)
            return [(c, p) for c in pool]
        return []

    def legal_actions(self) -> list[int]:
        """Sorted legal actions of the current player (chance: possible outcomes)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def touch(self) -> None:
        """Forget the cached legal actions (after editing a position by hand)."""
        self._legal = None

    def _compute_legal(self) -> list[int]:
        if self.actor == TERMINAL:
            return []
        if self.actor == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if self.pend is not None:
            return self.pend.actions(self)
        if self.phase == DRAWING:
            return self._draw_actions()
        if self.phase == MAIN:
            return self._main_actions()
        if self.phase == END:
            return sorted(self.g.codes.final + c
                          for c in self.hands[self.player] + self.table[self.player])
        return []

    def apply_action(self, action: int) -> None:
        """Apply an action; :class:`GameError` if it is not legal here."""
        if self._legal is None:
            self._legal = self._compute_legal()
        if action not in self._legal:
            raise GameError(f"empires_of_middle_earth: action {action!r} is not legal in phase "
                            f"{self.phase!r} for player {self.actor}")
        self._legal = None
        self.note = ""
        if self.pend is not None:
            self.pend.apply(self, action)
        elif self.phase == START:
            self.first = action
            self._begin_turn(action)
        elif self.phase == DRAWING:
            self._apply_draw(action)
        elif self.phase == DRAW_CARD:
            self._receive(action)
        elif self.phase == MAIN:
            self._apply_main(action)
        elif self.phase == END:
            self._discard_card(action - self.g.codes.final)
            self._end_turn()

    # ----------------------------------------------------------- card helpers
    def card_name(self, c: int) -> str:
        """The name of card ``c``."""
        return self.g.cards[c].name

    def mind_used(self, p: int) -> int:
        """Sum of mind of player p's characters that count against the limit (not followers)."""
        cards = self.g.cards
        return sum(cards[c].mind for c in self.table[p]
                   if cards[c].kind == "character" and self.master[c] < 0)

    def free_di(self, c: int) -> int:
        """Direct influence of character c not spent on followers."""
        used = sum(self.g.cards[f].mind for f in self.table[self.owner[c]] if self.master[f] == c)
        return self.g.cards[c].di - used

    def armies_of(self, c: int) -> list[int]:
        """Armies lying under lord c."""
        return [a for a in self.table[self.owner[c]] if self.lord[a] == c]

    def at_site(self, c: int, s: int) -> bool:
        """True if character c is at site s (an undecided character is at all his homes)."""
        return self.site[c] == s if self.site[c] >= 0 else s in self.g.cards[c].homes

    def sites_of(self, c: int) -> tuple[int, ...]:
        """The sites character c may be at."""
        return (self.site[c],) if self.site[c] >= 0 else self.g.cards[c].homes

    def _to_table(self, c: int, p: int) -> None:
        if self.where[c] == HAND:
            self.hands[self.owner[c]].remove(c)
        elif self.where[c] == PLAY:
            self.table[self.owner[c]].remove(c)
        self.where[c], self.owner[c] = PLAY, p
        self.table[p].append(c)

    def leave(self, c: int, place: int) -> None:
        """Card c leaves hand or table for the discard pile or out of the game."""
        if self.where[c] == HAND:
            self.hands[self.owner[c]].remove(c)
        elif self.where[c] == PLAY:
            self.table[self.owner[c]].remove(c)
        self.where[c], self.owner[c], self.lord[c], self.master[c] = place, -1, -1, -1
        self.region[c] = self.g.cards[c].region
        if place == DISCARD:
            self.discard.append(c)

    def remove_character(self, c: int) -> None:
        """Character c goes to the discard pile with his armies; followers are released."""
        p = self.owner[c]
        for a in self.armies_of(c):
            self.leave(a, DISCARD)
        followers = [f for f in self.table[p] if self.master[f] == c]
        self.leave(c, DISCARD)
        self.release(followers, p)

    def release(self, followers: list[int], p: int) -> None:
        """Followers lose their master and count against p's limit; excess ones are discarded."""
        for f in followers:
            self.master[f] = -1
        for f in followers:
            if self.mind_used(p) > INFLUENCE_LIMIT:
                self.remove_character(f)

    def move_character(self, c: int, p: int) -> None:
        """Character c (with his armies) changes to player p as a free character."""
        old = self.owner[c]
        followers = [f for f in self.table[old] if self.master[f] == c]
        armies = self.armies_of(c)
        self.master[c] = -1
        self._to_table(c, p)
        for a in armies:
            self._to_table(a, p)
        self.release(followers, old)

    def _discard_card(self, c: int) -> None:
        if self.where[c] == PLAY and self.g.cards[c].kind == "character":
            self.remove_character(c)
        else:
            self.leave(c, DISCARD)

    # ----------------------------------------------------------- turn flow
    def _begin_turn(self, p: int) -> None:
        """Income: 1 gold plus the strength of own armies with a home site."""
        cards = self.g.cards
        self.player = p
        self._legal = None
        self.turn += 1
        self.gold[p] += 1 + sum(cards[a].strength for a in self.table[p]
                                if cards[a].kind == "army")
        for c in self.table[p]:
            self.acted[c] = False
        self.drawn = 0
        self.waive = False
        self.phase, self.actor = DRAWING, p

    def draw_cost(self) -> int:
        """Gold for the next card: 2 free, then 2, 4, 8, ... (rule 1)."""
        return 0 if self.drawn < 2 else 2 ** (self.drawn - 1)

    def _draw_actions(self) -> list[int]:
        if self.taking:
            take = self.g.codes.take
            return sorted(take + c for c in self.discard)
        if self.gold[self.player] < self.draw_cost():
            return [NO]
        acts = [NO, DRAW] if self.deck else [NO]
        return acts + [TAKE] if self.discard else acts

    def in_compound_action(self) -> bool:
        """True between "take from the discard pile" and the choice of the card."""
        return self.taking and self.pend is None

    def _apply_draw(self, action: int) -> None:
        p = self.player
        if action == NO:
            self._enter_main()
            return
        if action == TAKE:
            self.taking = True
            return
        self.gold[p] -= self.draw_cost()
        self.drawn += 1
        if action == DRAW:
            self.deck_draws += 1
            self.phase, self.actor = DRAW_CARD, CHANCE
            return
        self.discard_takes += 1
        self.taking = False
        c = action - self.g.codes.take
        self.discard.remove(c)
        self.where[c], self.owner[c] = HAND, p
        self.hands[p].append(c)

    def _receive(self, c: int) -> None:
        p = self.player
        if self.where[c] != DECK:
            # a greedy view (seen_by): a card its player cannot place, in
            # another's hand, changes places with a deck card (the view
            # counts the others' hidden cards only by their number)
            q, d = self.owner[c], self.deck[0]
            self.hands[q][self.hands[q].index(c)] = d
            self.where[d], self.owner[d] = HAND, q
            self.deck[0] = c
            self.where[c], self.owner[c] = DECK, -1
        self.deck.remove(c)
        self.where[c], self.owner[c] = HAND, p
        self.hands[p].append(c)
        self.phase, self.actor = DRAWING, p

    def _enter_main(self) -> None:
        """Main phase; a siege ordered last turn is fought first."""
        p = self.player
        while self.sieges:
            i = next((k for k, s in enumerate(self.sieges) if s[0] == p and s[3] < self.turn), -1)
            if i < 0:
                break
            _, target, armies, _ = self.sieges.pop(i)
            if self.start_siege_battle(target, armies):
                return
        self.phase, self.actor = MAIN, p

    def back_to_main(self) -> None:
        """Return to the turn player's main phase after a roll or battle."""
        self.pend = None
        self._enter_main()

    def _end_turn(self) -> None:
        """Game ends when the deck is exhausted or after ``max_rounds`` rounds."""
        self.pend = None
        self._legal = None
        n = self.g.num_players
        nxt = (self.player + 1) % n
        if nxt == self.first:
            self.rounds += 1
        limit = self.g.params["max_rounds"]
        if not self.deck or (limit and self.rounds >= limit):
            self.ended_by = "deck exhausted" if not self.deck else "round cap"
            self.phase, self.actor = OVER, TERMINAL
            return
        self._begin_turn(nxt)

    def finish_main(self) -> None:
        """End of main phase: discard one card, unless a capture discard already did it."""
        p = self.player
        if self.waive or not (self.hands[p] or self.table[p]):
            self._end_turn()
        else:
            self.phase, self.actor = END, p

    # ----------------------------------------------------------- results
    def end_info(self) -> dict[str, float | str]:
        """How the game ended, for batch statistics: the cause, the rounds
        played, the armies on the table, deck draws and discard takes."""
        return {"end": self.ended_by or "not over", "rounds": float(self.rounds),
                "armies": float(sum(self._count(p)[0] for p in range(self.g.num_players))),
                "deck_draws": float(self.deck_draws), "discard_takes": float(self.discard_takes)}

    def scores(self) -> list[float]:
        """Armies held by each player (the rule's measure of an empire)."""
        return [float(self._count(p)[0]) for p in range(self.g.num_players)]

    def _count(self, p: int) -> tuple[int, int, int, int]:
        cards = self.g.cards
        armies = [a for a in self.table[p] if cards[a].kind != "character"]
        chars = [c for c in self.table[p] if cards[c].kind == "character"]
        return (len(armies), sum(cards[a].strength for a in armies), len(chars),
                sum(cards[c].mind for c in chars))

    def returns(self) -> list[float]:
        """1 shared among the players with most armies (optional tie-breaks)."""
        n = self.g.num_players
        if self.phase != OVER:
            return [0.0] * n
        width = 4 if self.g.params["tie_breaks"] else 1
        keys = [self._count(p)[:width] for p in range(n)]
        best = max(keys)
        winners = [p for p in range(n) if keys[p] == best]
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    # ----------------------------------------------------------- bots' view
    def worth(self, p: int, gold: float = 0.1) -> float:
        """A bot's measure of player p's empire and prospects: an army on the
        table 10 plus its strength; a character on the table 2, in hand 1; an
        army in hand 6 times the chance that p's best character on the table
        mobilises it (1 at its home site on the first attempt, else the 2d6
        roll); other cards 0.5; ``gold`` for each gold (0.1 for greedy)."""
        cards = self.g.cards
        v = gold * self.gold[p]
        chars = []
        for c in self.table[p]:
            k = cards[c]
            if k.kind == "character":
                v += 2.0
                chars.append(c)
            else:
                v += 10.0 + k.strength
        v0 = self.seen_by
        if v0 < 0 or p == v0:
            for c in self.hands[p]:
                v += self._hand_worth(c, chars)
            return v
        shown = self._public_cards()
        hidden = 0
        for c in self.hands[p]:
            if c in shown:
                v += self._hand_worth(c, chars)
            else:
                hidden += 1
        if hidden:
            pool = self._unseen()
            v += hidden * sum(self._hand_worth(c, chars) for c in pool) / len(pool)
        return v

    def _unseen(self) -> list[int]:
        """The cards :attr:`seen_by` cannot place: the deck and the other
        players' hand cards not shown in a pending roll (sorted)."""
        shown = self._public_cards()
        return sorted(self.deck + [c for q, hand in enumerate(self.hands) if q != self.seen_by
                                   for c in hand if c not in shown])

    def greedy_view(self, player: int) -> EmpiresState:
        """The position as the greedy bot judges it for ``player``
        (:meth:`State.greedy_view`): :meth:`worth` counts each of the other
        players' hidden hand cards at the mean worth (to its holder) of the
        cards ``player`` cannot place — the deck and those hands, each card
        equally likely in each hidden slot, so the mean over his information
        set — and a card drawn from the deck is any of them, evaluated by
        their mean and sampled from them. Nothing in it depends on where the
        hidden cards really lie (``tests/games/test_observation.py``)."""
        s = self.clone()
        s.seen_by = player
        return s

    def _hand_worth(self, c: int, chars: list[int]) -> float:
        k = self.g.cards[c]
        if k.kind == "army":
            return 6.0 * max((self.mobilise_chance(x, c) for x in chars), default=0.1)
        return 1.0 if k.kind == "character" else 0.5

    def mobilise_chance(self, c: int, a: int) -> float:
        """The chance that character c mobilises army a without bribes (2.2)
        (remembered by the game: it depends only on c's site and whether a
        has had its first attempt)."""
        key = (c, self.site[c], a, self.mobilised[a])
        cache = self.g.mobilise_cache
        v = cache.get(key)
        if v is None:
            v = cache[key] = self._mobilise_chance(c, a)
        return v

    def _mobilise_chance(self, c: int, a: int) -> float:
        cards, me = self.g.cards, self.g.map
        army = cards[a]
        if not army.homes:
            return 0.1
        sites = self.sites_of(c)
        if not self.mobilised[a] and army.homes[0] in sites:
            return 1.0
        need = army.influence + min(me.dist[me.site_region[s]][army.region] for s in sites)
        if army.edition != cards[c].edition:
            need += 5
        return _P_ABOVE[need] if 0 <= need < len(_P_ABOVE) else 0.0

    def _worth_margin(self, player: int, gold: float = 0.1) -> float:
        w = [self.worth(q, gold) for q in range(self.g.num_players)]
        return w[player] - max(w[q] for q in range(len(w)) if q != player)

    def evaluate(self, player: int) -> float:
        """The margin of :meth:`worth` over the best other player; at a card
        draw from the deck the mean over the deck's cards (without cloning),
        at a roll the expectation over its outcomes; at the end the armies."""
        return self._evaluate(player, 0.1)

    def _evaluate(self, player: int, gold: float) -> float:
        """:meth:`evaluate` with ``gold`` worth per gold."""
        if self.phase == OVER:
            return super().evaluate(player) * 10.0
        if self.actor == CHANCE and self.phase == DRAW_CARD and self.deck:
            chars = [c for c in self.table[self.player] if self.g.cards[c].kind == "character"]
            pool = self.deck if self.seen_by < 0 else self._unseen()
            gain = sum(self._hand_worth(c, chars) for c in pool) / len(pool)
            w = [self.worth(q, gold) for q in range(self.g.num_players)]
            w[self.player] += gain
            return w[player] - max(w[q] for q in range(len(w)) if q != player)
        if isinstance(self.pend, Roll) and self.pend.stage in ("bribe", "roll"):
            return self._roll_value(player, gold)
        if self.actor == CHANCE and self.pend is not None:
            total = 0.0
            for a, prob in self.chance_outcomes():
                child = self.clone()
                child.apply_action(a)
                total += prob * child._worth_margin(player, gold)
            return total
        return self._worth_margin(player, gold)

    def search_value(self, player: int) -> float:
        """The search bot's value: :meth:`evaluate`, except that a campaign
        whose dice have not all fallen is worth its expected result
        (:meth:`battle_outlook`) — to :meth:`evaluate` a declared campaign
        is worth nothing until the dice fall, so greedy cannot tell a good
        campaign from a bad one, and a search that must reach the dice
        several decisions deep (passage, support, help, leader) would
        learn it only from a few sampled battles."""
        b = self.pend
        if isinstance(b, Battle) and b.stage in PRE_DICE:
            w = self.battle_outlook(b, [self.worth(q, SEARCH_GOLD)
                                        for q in range(self.g.num_players)])
            v = w[player] - max(w[q] for q in range(len(w)) if q != player)
        else:
            v = self._evaluate(player, SEARCH_GOLD)
        if self.phase == OVER:
            return v
        q, bonus = self._market(-1)
        if isinstance(b, Roll) and b.kind == "mobilise" and b.stage in ("bribe", "roll") \
                and not b.post:
            ok = self.roll_chance()  # a failed army goes to the discard pile
            bonus = ok * bonus + (1.0 - ok) * self._market(b.target)[1]
        return v + bonus if q == player else v - bonus

    def _market(self, extra: int) -> tuple[int, float]:
        """The open discard pile (and card ``extra``, if >= 0) as the next
        drawer's chance: ``(player, bonus)``, the bonus what its best army
        is worth to him in hand beyond :data:`MARKET_DRAW`. The next drawer
        is the turn player while he draws, else the next player."""
        n, cards = self.g.num_players, self.g.cards
        q = self.player if self.phase == DRAWING else (self.player + 1) % n
        chars = [c for c in self.table[q] if cards[c].kind == "character"]
        best = 0.0
        pile = self.discard if extra < 0 else self.discard + [extra]
        for a in pile:
            if cards[a].kind == "army":
                v = 6.0 * max((self.mobilise_chance(c, a) for c in chars), default=0.1)
                if v > best:
                    best = v
        return q, max(0.0, best - MARKET_DRAW)

    def roll_chance(self) -> float:
        """The chance that the pending influence roll succeeds, with the
        bribes so far: 2d6 (for an intrigue against the defender's 2d6) not
        rolled yet, or the dice already on the table."""
        r = self.pend
        assert isinstance(r, Roll)
        if r.kind == "mobilise":
            if r.post:
                return 1.0 if r.a + r.points > r.need else 0.0
            return _chance_above(r.need - r.points)
        if r.post:
            return 1.0 if r.base + r.a + r.points > r.need + r.b else 0.0
        if r.a:  # the intriguer's dice lie, the defender's not yet
            return _chance_below(r.base + r.a + r.points - r.need)
        return sum(p * _chance_below(r.base + x + r.points - r.need) for x, p in _TWO_D6)

    def _roll_value(self, player: int, gold: float = 0.1) -> float:
        """Expected worth margin of a pending influence roll (no cloning)."""
        r = self.pend
        assert isinstance(r, Roll)
        n = self.g.num_players
        w = [self.worth(q, gold) for q in range(n)]
        ok, bad = list(w), list(w)
        o = self.owner[r.char]
        cards = self.g.cards
        if r.kind == "mobilise":
            chars = [c for c in self.table[o] if cards[c].kind == "character"]
            hv = self._hand_worth(r.target, chars)
            ok[o] += 10.0 + cards[r.target].strength - hv
            bad[o] -= hv
        else:
            d = self.owner[r.target]
            gain = 2.0 + sum(10.0 + cards[a].strength for a in self.armies_of(r.target))
            ok[o] += gain
            ok[d] -= gain
        p = self.roll_chance()

        def margin(v: list[float]) -> float:
            return v[player] - max(v[q] for q in range(n) if q != player)
        return p * margin(ok) + (1.0 - p) * margin(bad)

    def bribe_range(self, p: int, post: bool, spent: int) -> int:
        """Most points p can bribe now (gold, optional surcharge and cap)."""
        cap = BRIBE_MAX
        if self.g.params["bribe_cap"]:
            cap = max(0, 5 - spent)
        k = 0
        while k < cap and self.bribe_cost(k + 1, post) <= self.gold[p]:
            k += 1
        return k

    def bribe_cost(self, k: int, post: bool) -> int:
        """Gold for k points: 1 each before the roll, 3 after; optional surcharge beyond 3."""
        unit = 3 if post else 1
        k = abs(k)
        if self.g.params["bribe_surcharge"] and k > 3:
            return unit * (3 + 2 * (k - 3))
        return unit * k

    # ----------------------------------------------------------- observation tensor
    def observation_blocks(self, player: int) -> list[tuple[str, list[float]]]:
        """``player``'s observation as numbers (docs/games.md lists the
        layout). Per card: where it lies as ``player`` sees it — unknown
        (the face-down deck or another player's hand: one and the same to
        him), the open discard pile, his hand, another's hand where a
        pending roll showed it (per player), a player's table (per player),
        out of the game — then acted this turn, influenced before, its
        region (one-hot, map order), home site (one-hot), its lord and the
        character it follows (card number + 1, 0 none). Per player: gold,
        hand size, armies (the score). Round, turn, cards drawn this turn,
        deck size, waive, choosing from the discard pile; phase, player on
        turn, start player; a pending roll (mobilise / intrigue, its two
        cards one-hot, bribe points, needed number) or battle (attackers
        and defenders one-hot); the viewer."""
        n_cards = len(self.g.cards)
        players = self.g.num_players
        regions = len(self.g.map.regions)
        sites = len(self.g.map.sites)
        shown = self._public_cards()

        where: list[float] = []
        detail: list[float] = []
        for c in range(n_cards):
            w, o = self.where[c], self.owner[c]
            if w == DISCARD:
                slot = 1
            elif w == HAND and o == player:
                slot = 2
            elif w == HAND and c in shown:
                slot = 3 + o
            elif w == PLAY:
                slot = 3 + players + o
            elif w == OUT:
                slot = 3 + 2 * players
            else:  # the deck or another player's hand: not told apart
                slot = 0
            where += one_hot(slot, 4 + 2 * players)
            on_table = w == PLAY
            detail += [float(self.acted[c] and on_table), float(self.mobilised[c])]
            detail += one_hot(self.region[c] if on_table else -1, regions)
            detail += one_hot(self.site[c] if on_table else -1, sites)
            detail += [float(self.lord[c] + 1 if on_table else 0), float(self.master[c] + 1 if on_table else 0)]
        per_player: list[float] = []
        scores = self.scores()
        for q in range(players):
            per_player += [float(self.gold[q]), float(len(self.hands[q])), float(scores[q])]
        phases = (START, DRAWING, DRAW_CARD, MAIN, END, OVER)
        pend = self.pend
        roll = [0.0, 0.0] + [0.0] * (2 * n_cards) + [0.0, 0.0]
        battle = [0.0] * (2 * n_cards)
        if isinstance(pend, Roll):
            roll = ([float(pend.kind == "mobilise"), float(pend.kind == "intrigue")]
                    + one_hot(pend.char, n_cards) + one_hot(pend.target, n_cards)
                    + [float(pend.points), float(pend.need)])
        elif pend is not None:
            battle = ([float(c in pend.att) for c in range(n_cards)]
                      + [float(c in pend.dfn) for c in range(n_cards)])
        return [
            ("card_where", where),
            ("card_acted_influenced_region_site_lord_master", detail),
            ("player_gold_hand_armies", per_player),
            ("round_turn_drawn_deck_discard_waive_taking",
             [float(self.rounds), float(self.turn), float(self.drawn), float(len(self.deck)),
              float(len(self.discard)), float(self.waive), float(self.taking)]),
            ("phase", one_hot(phases.index(self.phase) if self.phase in phases else -1, len(phases))),
            ("player_on_turn", one_hot(self.player, players)),
            ("start_player", one_hot(self.first, players)),
            ("roll_kind2_char_target_points_need", roll),
            ("battle_attackers_defenders", battle),
            ("viewer", one_hot(player, players)),
        ]

    # ----------------------------------------------------------- by hand
    def action_path(self, action: int) -> tuple[str, ...]:
        """German menu labels: kind, acting card, target (:func:`text.action_path`)."""
        return action_path(self, action)

    def human_action_string(self, action: int, viewer: int) -> str:
        """An action as ``viewer`` sees it, in German."""
        return action_de(self, action, viewer)

    def human_view(self, player: int) -> str:
        """The board, the discard pile and the own hand, in German."""
        return human_view(self, player)

    def turn_owner(self) -> int:
        """The player on turn (also while others decide within it)."""
        return -1 if self.phase in (START, OVER) else self.player

    def turn_status(self, player: int) -> list[str]:
        """Drawing or acting left in the turn, and the armies (:func:`text.turn_status`)."""
        return turn_status(self, player)

    # ----------------------------------------------------------- imperfect information
    def observation_string(self, player: int) -> str:
        """The position as ``player`` sees it: the other players' hands only
        as a number of cards; the deck only by its size (the discard pile,
        the tables, gold and every roll are open)."""
        return state_text(self, viewer=player)

    def _public_cards(self) -> set[int]:
        """Hand cards that everybody has seen: those of a pending roll."""
        pend = self.pend
        out: set[int] = set()
        if isinstance(pend, Roll):
            out.update((pend.char, pend.target))
        return out

    def resample_from_infostate(self, player: int, rng: np.random.Generator) -> EmpiresState:
        """A determinisation for ``player``: the deck and the other players'
        hands (except cards shown in a pending roll) shuffled and dealt again,
        every hand keeping its size."""
        s = self.clone()
        shown = self._public_cards()
        others = [q for q in range(self.g.num_players) if q != player]
        hidden = {q: [c for c in self.hands[q] if c not in shown] for q in others}
        pool = sorted(self.deck + [c for q in others for c in hidden[q]])
        order = [pool[int(i)] for i in rng.permutation(len(pool))]
        at = 0
        for q in others:
            k = len(hidden[q])
            new = order[at:at + k]
            at += k
            s.hands[q] = [c for c in self.hands[q] if c in shown] + new
            for c in new:
                s.where[c], s.owner[c] = HAND, q
        s.deck = sorted(order[at:])
        for c in s.deck:
            s.where[c], s.owner[c] = DECK, -1
        s._legal = None
        return s

    def public_action_string(self, action: int, viewer: int) -> str:
        """A card drawn from the deck by another player is not named."""
        if self.actor == CHANCE and self.phase == DRAW_CARD and self.player != viewer:
            return f"P{self.player} zieht eine Karte vom Stapel"
        return self.action_to_string(action)

    def action_to_string(self, action: int) -> str:
        """A readable name of ``action`` in this state."""
        return action_text(self, action)

    def __str__(self) -> str:
        return state_text(self)

    def board_text(self, viewer: int | None = None) -> str:
        """The regions and the armies in them, then the players' tables
        (public information only: hands by their size; ``viewer`` changes nothing)."""
        return board_text(self)

    def board_svg(self, viewer: int | None = None) -> str:
        """The map of regions with the armies (an SVG document; public
        information only, so ``viewer`` changes nothing)."""
        return board_svg(self)

