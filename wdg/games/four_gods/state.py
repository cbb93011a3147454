"""One playthrough of 4 Gods in the rule book's turn-based mode
("Rundenbasierter Spielablauf"): a player acts until ending the turn or
using up the turn's action limit (the hourglass), then the next player.

Phases of the state: ``deal`` (chance: hidden gods), ``start`` (chance: the
start player), ``main`` (the player's free actions), ``draw`` (chance: tiles
out of the bag), ``taken`` (a tile taken from a reserve row must be laid or
put into the own row at once), ``prophet`` (optionally set a prophet on the
tile just laid), ``city`` (the prophet that must go onto a new city), ``over``.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np

from wdg.games.base import (
    CHANCE, EVALUATE_CHANCE_LIMIT, GameError, NO_FACTION, State, TERMINAL, one_hot, score_margin)
from wdg.games.four_gods import rules
from wdg.games.four_gods.actions import MAX_ROW, REGIONS
from wdg.games.four_gods.svg import board_svg
from wdg.games.four_gods.text import (
    action_de, action_path, board_text, describe, prophet_colour, render, turn_status)
from wdg.games.four_gods.scoring import CITY_POINTS, Breakdown, score_world
from wdg.games.four_gods.tiles import GOD_NAMES, orient_grid
from wdg.games.four_gods.world import Member, World

if TYPE_CHECKING:
    from wdg.games.four_gods.game import FourGodsGame

Scoring = tuple[Breakdown, tuple[tuple[int, ...], ...], tuple[float, ...]]

SCORE_NEUTRAL = frozenset({"start", "end", "draw", "draw_tile", "reserve", "flip", "take", "ret", "skip"})
"""Kinds of action that change nothing the score is computed from."""


GROWTH = 0.004
"""A bot's reward per tile laid (half per tile drawn); 100 tiles stay below
one point of score."""
SEARCH_GROWTH = 1.0
"""The same reward for the search bot (:meth:`FourGodsState.search_value`):
about the points a tile laid is worth by the end — greedy two-player games
end with some 55 points per player after about 60 tiles laid."""
SEARCH_SOFTMIN = 5.0
"""With two gods per player the search values a player by a soft minimum of
his gods' points, ``m - t * log(sum(exp((m - x) / t)))`` with ``t`` this
many points (``m`` the lower god): the hard minimum of the score ignores
every gain of the higher god, yet which god ends lower is not settled
before the end. The rule book ranks by the lower god ("Und der Verlierer
ist ... der Spieler, dessen Prophet auf der Wertungsleiste ganz hinten
ist"); the width of the softening is our choice (trials: 5 played as well
as the hard minimum or better)."""
CITY_RISK_DRAWS = 24
"""The search bot's guess at how many tiles out of the bag an opponent
draws while a city stands that no tile in the rows and hands fits: about
the half of a player's draws in a two-player game (the 92 tiles are drawn
in some 34 turns, 46 per player). The rule book gives no such number; it
only weighs a city's risk in :meth:`FourGodsState.search_totals` (trials
with 12, 24 and half the bag played alike)."""


class FourGodsState(State):
    """The full position; every field is plain data copied by :meth:`clone`."""

    search_expands_by_value = True
    """The search bot (:mod:`wdg.games.ismcts`) picks the next move to expand
    in its tree by :meth:`search_value`, not by greedy's :meth:`evaluate`
    (which counts a city at risk as a gain): the tree then follows the
    moves its leaves are valued by (trials: ``mcts:60`` against ``mcts:30``
    0.57 instead of 0.50, for a third more time per simulation)."""

    def __init__(self, game: FourGodsGame) -> None:
        self.game = game
        n = game.num_players
        self.world = World(game.fitter)
        self.bag: list[int] = list(range(game.tileset.num_tiles))
        self.rows: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        """Per player the reserve row: ``(tile, side up)`` per slot."""
        self.hands: list[int | None] = [None, None]
        self.gods: list[list[int]] = [[] for _ in range(n)]
        self.owner: list[int] = [-1] * 4
        self.supply: list[int] = [0] * 4
        self.prophets: dict[int, tuple[int, Member]] = {}
        """Prophets on terrain tiles: cell -> (god, (cell, region))."""
        self.destroyed: list[int] = [0] * n
        self.cities_left = game.tileset.cities
        self.player = 0
        self.phase = "deal" if game.hidden_gods else "start"
        self.deal_next = 0
        self.draws_left = 0
        self.focus = -1
        """Cell of the tile or city just laid (prophet phases)."""
        self.taken_from = -1
        self.taken_hand = -1
        self.turn_actions = 0
        self.productive = False
        self.idle_turns = 0
        self.turn = 0
        self.starter = -1
        """The start player (rolled at the start)."""
        self.final_turns = -1
        """Turns left once the end is triggered (-1: not triggered)."""
        self.end_reason = ""
        self._legal: list[int] | None = None
        self._scored: list[tuple[tuple[object, ...], Scoring]] = []
        """The last breakdown and totals and what they were computed from;
        shared by clones until one of them applies an action that can change
        the score."""

    # ------------------------------------------------------------ basics
    def clone(self) -> FourGodsState:
        """An independent copy (tiles and oriented tiles are immutable; the
        cached legal actions and score are shared, as they are never changed
        in place)."""
        s = FourGodsState.__new__(FourGodsState)
        s.__dict__.update(self.__dict__)
        s.world = self.world.clone()
        s.bag = self.bag.copy()
        s.rows = [r.copy() for r in self.rows]
        s.hands = self.hands.copy()
        s.gods = [g.copy() for g in self.gods]
        s.owner = self.owner.copy()
        s.supply = self.supply.copy()
        s.prophets = self.prophets.copy()
        s.destroyed = self.destroyed.copy()
        return s

    def current_player(self) -> int:
        """The player on turn, :data:`CHANCE` or :data:`TERMINAL`."""
        if self.phase == "over":
            return TERMINAL
        if self.phase in ("deal", "start", "draw"):
            return CHANCE
        return self.player

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.phase == "over"

    def start_player(self) -> int:
        """The rolled start player ("Der Startspieler wird ausgelost")."""
        return self.starter

    def factions(self) -> list[str]:
        """Per player his god or gods (also hidden ones: the engine knows
        them; this is for the batch statistics, not for a player)."""
        return ["+".join(GOD_NAMES[g] for g in sorted(gods)) or NO_FACTION for gods in self.gods]

    def in_compound_action(self) -> bool:
        """A city just built waits for its prophet: building a city and
        setting its prophet are one move ("Du musst einen Propheten deiner
        Gottheit auf die neu gelegte Legendäre Stadt setzen"), so the greedy bot rates
        the city by the completed move, not by the half-built one."""
        return self.phase == "city"

    def gods_per_player(self) -> int:
        """Two in the two-player game with all four gods, else one."""
        return self.game.gods_per_player

    def row_capacity(self) -> int:
        """Size of a reserve row (10 / 13 / 20 for 4 / 3 / 2 players)."""
        return self.game.row_capacity

    def end_info(self) -> dict[str, float | str]:
        """How the game ended, for batch statistics: the cause, the share of
        the world's cells holding a tile or a city, tiles left in the bag,
        cities built, turns played."""
        w = self.world
        cells = len(w.tiles)
        filled = sum(1 for c, t in enumerate(w.tiles) if t is not None or c in w.cities)
        return {"end": self.end_reason or "not over", "fill": filled / cells,
                "bag_left": float(len(self.bag)), "cities": float(len(w.cities)),
                "turns": float(self.turn)}

    # ------------------------------------------------------------ actions
    def legal_actions(self) -> list[int]:
        """Sorted legal actions (cached until the next action)."""
        if self._legal is None:
            self._legal = sorted(set(rules.legal(self)))
        return list(self._legal)

    def sample_chance(self, rng: np.random.Generator) -> int:
        """Every chance outcome (a tile from the bag, a god, the start
        player) is equally likely: one uniform number picks it."""
        acts = self._legal if self._legal is not None else self.legal_actions()
        return acts[min(len(acts) - 1, int(rng.random() * len(acts)))]

    def apply_action(self, action: int) -> None:
        """Apply a legal action; :class:`GameError` for anything else."""
        if self.phase == "over":
            raise GameError(f"action {action!r}: the game is over")
        if self._legal is None:
            self._legal = sorted(set(rules.legal(self)))
        legal = self._legal
        if action not in legal:
            raise GameError(f"illegal action {action!r} in phase {self.phase!r} "
                            f"for player {self.player}; {len(legal)} legal actions")
        self._legal = None
        if self.game.decode(action)[0] not in SCORE_NEUTRAL:
            self._scored = []
        rules.apply(self, action)

    def action_to_string(self, action: int) -> str:
        """Readable German name, e.g. ``Plättchen 12 (Hand 1) legen (MMW/MMW/WWW, B1) an C4``."""
        return describe(self, action)

    def __str__(self) -> str:
        return render(self)

    def board_text(self, viewer: int | None = None) -> str:
        """The world as terrain letters with the cell names of the actions
        (for a ``viewer``: hidden gods of the others as ``?``)."""
        return board_text(self, viewer)

    def board_svg(self, viewer: int | None = None) -> str:
        """The world as an SVG picture (for a ``viewer``: the others' hidden
        gods and their points as ``?``; without one everything)."""
        return board_svg(self, viewer)

    # ------------------------------------------------------------ observation tensor
    def observation_blocks(self, player: int) -> list[tuple[str, list[float]]]:
        """``player``'s observation as numbers (docs/games.md lists the
        layout). Prophets, cities and supplies go by colour — the god with
        open gods, the player's colour with hidden gods (the god stays
        secret). Per cell: a tile, its 3 x 3 terrains one-hot (36), a city,
        its colour (4), a prophet's colour (4) and region (9). Per reserve
        row slot (20 per player): a tile, its up side and its other side
        (36 each). The hands (a tile and both sides, twice). Per player:
        his gods where ``player`` may know them (4), his colours (4),
        destroyed cities. Supply per colour; bag size, cities left, turn,
        actions of the turn, last turns left, idle turns, draws left;
        phase, player on turn, start player, the cell just laid, the row a
        tile was taken from, the viewer."""
        n = self.game.num_players
        ts = self.game.tileset
        cells = ts.rows * ts.cols
        hidden = self.hidden_gods_of(player)


        def colour(g: int) -> int:
            if g < 0:
                return -1
            return prophet_colour(self, g) if self.game.hidden_gods else g

        def grid(tile: int | None, orient: int) -> list[float]:
            if tile is None:
                return [0.0] * 36
            return [x for row in orient_grid(ts.sides[tile], orient) for t in row for x in one_hot(t, 4)]

        world: list[float] = []
        for c in range(cells):
            o = self.world.tiles[c]
            world.append(float(o is not None))
            world += [x for row in o.grid for t in row for x in one_hot(t, 4)] if o is not None else [0.0] * 36
            city = c in self.world.cities
            world.append(float(city))
            world += one_hot(colour(self.world.cities[c]) if city else -1, 4)
            g, (_, k) = self.prophets.get(c, (-1, (c, -1)))
            world += one_hot(colour(g), 4) + one_hot(k, REGIONS)
        rows: list[float] = []
        for q in range(n):
            for i in range(MAX_ROW):
                if i < len(self.rows[q]):
                    t, side = self.rows[q][i]
                    rows += [1.0] + grid(t, 4 * side) + grid(t, 4 * (1 - side))
                else:
                    rows += [0.0] * 73
        hands: list[float] = []
        for h in (0, 1):
            held = self.hands[h]
            hands += [float(held is not None)] + grid(held, 0) + grid(held, 4)
        players: list[float] = []
        for q in range(n):
            known = [] if q in hidden else self.gods[q]
            players += [float(g in known) for g in range(4)]
            players += [float(any(colour(g) == k for g in self.gods[q])) for k in range(4)]
            players.append(float(self.destroyed[q]))
        supply = [0.0] * 4
        for g in range(4):
            if colour(g) >= 0:
                supply[colour(g)] = float(self.supply[g])
        phases = ("deal", "start", "main", "draw", "taken", "prophet", "city", "over")
        return [
            ("cell_tile_terrain36_city_citycolour4_prophetcolour4_region9", world),
            ("row_slot_tile_up36_down36", rows),
            ("hand_tile_sideA36_sideB36", hands),
            ("player_gods4_colours4_destroyed", players),
            ("supply_by_colour", supply),
            ("bag_citiesleft_turn_actions_final_idle_draws",
             [float(len(self.bag)), float(self.cities_left), float(self.turn), float(self.turn_actions),
              float(self.final_turns), float(self.idle_turns), float(self.draws_left)]),
            ("phase", one_hot(phases.index(self.phase), len(phases))),
            ("player_on_turn", one_hot(self.player if self.phase not in ("deal", "start") else -1, n)),
            ("start_player", one_hot(self.starter, n)),
            ("focus_cell", one_hot(self.focus, cells)),
            ("taken_from_row", one_hot(self.taken_from, n)),
            ("viewer", one_hot(player, n)),
        ]

    # ------------------------------------------------------------ by hand
    def action_path(self, action: int) -> tuple[str, ...]:
        """German menu labels: kind, target, detail (:func:`text.action_path`)."""
        return action_path(self, action)

    def human_action_string(self, action: int, viewer: int) -> str:
        """An action as ``viewer`` sees it, in German."""
        return action_de(self, action, viewer)

    def human_view(self, player: int) -> str:
        """The world and the players in German, the others' hidden gods as
        ``?`` (the bag by its size only)."""
        return self.board_text(player)

    def turn_owner(self) -> int:
        """The player on turn (also while his tiles are drawn)."""
        return -1 if self.phase in ("deal", "start", "over") else self.player

    def turn_status(self, player: int) -> list[str]:
        """Actions left in the turn and every god's points that ``player``
        may know (:func:`text.turn_status`)."""
        return turn_status(self, player)

    # ------------------------------------------------------------ imperfect information
    def hidden_gods_of(self, viewer: int) -> list[int]:
        """Players whose gods ``viewer`` does not know (hidden gods only;
        none once the game is over: "Ihr offenbart euch erst direkt vor der
        Wertung")."""
        if not self.game.hidden_gods or self.phase == "over":
            return []
        return [q for q in range(self.game.num_players) if q != viewer and self.gods[q]]

    def observation_string(self, player: int) -> str:
        """The position as ``player`` sees it: the bag only by its size; with
        hidden gods ("Verdeckte Götter") the other players' gods unknown."""
        hidden = self.hidden_gods_of(player)
        lines = render(self).splitlines()
        out = []
        for line in lines:
            if line.startswith("bag "):
                line = f"bag {len(self.bag)} tiles"
            for q in hidden:
                if line.startswith(f"player {q} gods "):
                    rest = line.split(" destroyed ", 1)[1]
                    line = f"player {q} gods ? destroyed {rest}"
            out.append(line)
        return "\n".join(out)

    def resample_from_infostate(self, player: int, rng: np.random.Generator) -> FourGodsState:
        """A determinisation for ``player``: with hidden gods the other
        players' gods are dealt again from the gods ``player`` does not know
        to be elsewhere (theirs, and once the deal is over the gods nobody
        was dealt). Each player keeps his colour: his prophets, cities and
        supply go with him to the god he is now given ("Die Farbe der
        gewählten Propheten hat in diesem Modus nichts mit der Gottheit zu
        tun"), so the determinisation looks the same to ``player``. (The
        bag's order is chance anyway: every draw is sampled when it
        happens.)"""
        deals = self._god_deals(player)
        if deals is None:
            return self.clone()
        slots, old, pool = deals
        new = [pool[int(i)] for i in rng.permutation(len(pool))][:len(old)]
        return self._dealt(slots, old, new)

    def information_set(self, player: int) -> list[State]:
        """Every position ``player`` cannot tell apart from this one by what
        he knows, each as likely as the others: with hidden gods one per
        deal of the others' gods that :meth:`resample_from_infostate` can
        draw ("Die Farbe der gewählten Propheten hat in diesem Modus nichts
        mit der Gottheit zu tun" — he sees colours, not gods), in a fixed
        order (the gods as sorted numbers, permuted in lexicographic
        order); with open gods the position itself. Greedy averages its
        evaluation over them."""
        deals = self._god_deals(player)
        if deals is None:
            return [self]
        slots, old, pool = deals
        return [self._dealt(slots, old, list(new)) for new in itertools.permutations(pool, len(old))]

    def _god_deals(self, player: int) -> tuple[list[tuple[int, int]], list[int], list[int]] | None:
        """What a determinisation for ``player`` deals again: the slots
        ``(player, index)`` of the gods he does not know, their gods, and
        the pool they are dealt from (those gods and, once the deal is over,
        the gods nobody was dealt) — ``None`` when he knows every god."""
        hidden = self.hidden_gods_of(player)
        if not hidden:
            return None
        slots = [(q, i) for q in hidden for i in range(len(self.gods[q]))]
        old = [self.gods[q][i] for q, i in slots]
        spare = [g for g in range(4) if self.owner[g] < 0] if self.phase != "deal" else []
        return slots, old, sorted(old + spare)

    def _dealt(self, slots: list[tuple[int, int]], old: list[int], new: list[int]) -> FourGodsState:
        """A copy with the god of each slot replaced by the one in ``new``;
        every player keeps his colour, so his prophets, cities and supply go
        with him to the god he is now given."""
        s = self.clone()
        relabel = dict(zip(old, new))
        s.gods = [g.copy() for g in self.gods]
        s.owner = self.owner.copy()
        s.supply = self.supply.copy()
        for g in old:
            s.owner[g] = -1
            s.supply[g] = 0
        for (q, i), g_old, g_new in zip(slots, old, new):
            s.gods[q][i] = g_new
            s.owner[g_new] = q
            s.supply[g_new] = self.supply[g_old]
        s.prophets = {c: (relabel.get(g, g), m) for c, (g, m) in self.prophets.items()}
        s.world.cities = {c: relabel.get(g, g) for c, g in self.world.cities.items()}
        s._legal = None
        s._scored = []
        return s

    def public_action_string(self, action: int, viewer: int) -> str:
        """A hidden god dealt to another player is not named."""
        if self.phase == "deal" and self.deal_next % self.game.num_players != viewer:
            return f"Spieler {self.deal_next % self.game.num_players} erhält verdeckt eine Gottheit"
        return self.action_to_string(action)

    # ------------------------------------------------------------ scoring
    def breakdown(self) -> Breakdown:
        """The four scoring steps on the current world, per god."""
        return self._scoring()[0]

    def _scoring(self) -> Scoring:
        """The breakdown, per player the sorted totals of the gods and the
        score (remembered while the position's scoring data stay the same)."""
        key = (self.world.tiles, self.world.cities, self.prophets, self.destroyed, self.owner, self.gods)
        if self._scored and self._scored[0][0] == key:
            return self._scored[0][1]
        b = self._breakdown()
        need = self.gods_per_player()
        totals = []
        for p in range(self.game.num_players):
            mine = sorted(b.total(g) for g in self.gods[p])
            totals.append(tuple([0] * (need - len(mine)) + mine))
        hit = (b, tuple(totals), tuple(float(t[0]) for t in totals))
        self._scored[:] = [((self.world.tiles.copy(), self.world.cities.copy(), self.prophets.copy(),
                             self.destroyed.copy(), self.owner.copy(), [g.copy() for g in self.gods]), hit)]
        return hit

    def _breakdown(self) -> Breakdown:
        gods_in_play = [g for g in range(4) if self.owner[g] >= 0]
        destroyed: dict[int, int] = {}
        for p, n in enumerate(self.destroyed):
            if n and self.gods[p]:
                destroyed[self.gods[p][0]] = destroyed.get(self.gods[p][0], 0) + n
        return score_world(self.world, self.world.cities, destroyed, self.prophets, gods_in_play)

    def scores(self) -> list[float]:
        """Göttlicher Einfluss if the game were scored now; with two gods per
        player the lower of the two (the one that decides the loser)."""
        return list(self._scoring()[2])

    def evaluate(self, player: int) -> float:
        """Own points minus the best other's (:meth:`State.evaluate`), plus a
        small reward for a growing world that no score difference can
        outweigh (:data:`GROWTH` per tile laid, half that per tile out of
        the bag): among moves of equal margin a bot builds rather than
        turning tiles in the rows, as players do ("nur in sehr seltenen
        Fällen" does everyone pass). At a draw (or the start-player draw)
        the expectation is summed from one margin: no tile drawn can change
        the score."""
        if self.phase in ("draw", "start"):
            outcomes = self.chance_outcomes()
            margin = score_margin(self, player)
            if len(outcomes) <= EVALUATE_CHANCE_LIMIT:
                total = 0.0
                for _, prob in outcomes:
                    total += prob * margin
                margin = total
        else:
            margin = super().evaluate(player)
        return margin + self._growth()

    def search_value(self, player: int) -> float:
        """What a search bot values at the edge of its search: the margin
        of :meth:`evaluate` with every city weighed by its risk
        (:meth:`search_totals`), a player's two gods by a soft minimum
        (:data:`SEARCH_SOFTMIN`), and the world's growth weighed as
        :data:`SEARCH_GROWTH` points per tile laid (half per tile drawn)
        instead of :data:`GROWTH`. A search averages many positions, where a
        tie-break of 0.004 vanishes in the noise; but building is what the
        tie-break stands for — a search bot that does not build (it turns
        and takes tiles in the rows, actions that change no score now)
        loses nearly every game against greedy."""
        totals = self.search_totals()
        need = self.gods_per_player()
        soft = SEARCH_SOFTMIN
        lows = []
        for p in range(self.game.num_players):
            mine = [totals[g] for g in self.gods[p]]
            mine += [0.0] * (need - len(mine))  # a god not chosen yet scores nothing
            m = min(mine)
            if soft > 0 and len(mine) > 1:
                m -= soft * math.log(sum(math.exp((m - x) / soft) for x in mine))
            lows.append(m)
        others = max((lows[q] for q in range(len(lows)) if q != player), default=0.0)
        return lows[player] - others + SEARCH_GROWTH / GROWTH * self._growth()

    def search_totals(self) -> list[float]:
        """Per god the points of the final scoring on the current world,
        with each city counted by how likely it is to survive: "Wenn du ein
        Geländeplättchen in der Hand hast, das du gemäß der Legeregeln
        dorthin legen kannst, wo eine Legendäre Stadt in der Welt liegt,
        kannst du ... die Stadt zerstören ... Bei Spielende erhältst du für
        jede von dir zerstörte Legendäre Stadt 5 Göttlichen Einfluss". A city
        that some tile in a reserve row or a hand fits (any row may be taken
        from) counts as lost: its 5 points go from its god to the other
        players' first gods (shared among those who have or may still choose
        a god: "Erst nachdem du eine Gottheit gewählt hast, bist du in der
        Lage, Legendäre Städte zu zerstören"); one that only
        a bag tile fits, by the chance that one of :data:`CITY_RISK_DRAWS`
        draws brings such a tile. A city just built whose prophet is not yet
        set counts for the builder's weaker god (the scoring counts it for
        no god until the prophet is set)."""
        b = self._scoring()[0]
        tot = [float(b.total(g)) for g in range(4)]
        w = self.world
        cities = w.cities
        if not cities:
            return tot
        pending = self.phase == "city" and cities.get(self.focus) == -1
        if pending:
            mine = self.gods[self.player]
            builder_god = min(mine, key=lambda g: tot[g]) if mine else -1
            if builder_god >= 0:
                tot[builder_god] += CITY_POINTS
        seen = {h for h in self.hands if h is not None}
        for row in self.rows:
            seen.update(t for t, _ in row)
        bag = self.bag
        fits = w.fit.fits
        free_god = not self.game.hidden_gods and min(self.owner) < 0
        for c, g in cities.items():
            if g < 0:
                g = builder_god if pending and c == self.focus else -1
                if g < 0:
                    continue
            owner = self.owner[g]
            takers = [q for q in range(self.game.num_players) if q != owner and (self.gods[q] or free_god)]
            if not takers:
                continue
            key = w.key(c)
            if w.straight_edges(key) < 2:
                continue
            fit = fits(key)
            if any(t in fit for t in seen):
                risk = 1.0
            elif bag:
                share = sum(1 for t in bag if t in fit) / len(bag)
                risk = 1.0 - (1.0 - share) ** CITY_RISK_DRAWS
            else:
                risk = 0.0
            if risk:
                tot[g] -= CITY_POINTS * risk
                for q in takers:
                    if self.gods[q]:  # (without a god yet: one he will choose)
                        tot[self.gods[q][0]] += CITY_POINTS * risk / len(takers)
        return tot

    def search_candidate_values(self, acts: list[int], player: int, rng: np.random.Generator) -> list[float]:
        """How the search bot (:mod:`wdg.games.ismcts`) ranks the actions at
        its decision point: :meth:`search_value` one move ahead, so its
        candidates are chosen by the same measure its leaves are valued by
        (greedy's :meth:`evaluate` would rank a city at risk as a gain of
        five)."""
        out = []
        for a in acts:
            t = self.clone()
            t.apply_action(a)
            out.append(t.search_value(player))
        return out

    def _growth(self) -> float:
        tiles = self.world.tiles
        laid = len(list(filter(None, tiles)))  # tiles.count(None) compares every tile with None
        drawn = self.game.tileset.num_tiles - len(self.bag) + (self.draws_left if self.phase == "draw" else 0)
        return GROWTH * (laid + 0.5 * drawn)

    def returns(self) -> list[float]:
        """1 shared among the leaders (with two gods per player: lower god
        first, then the higher), 0 for the others."""
        if not self.is_terminal():
            return [0.0] * self.game.num_players
        keys = list(self._scoring()[1])
        best = max(keys)
        winners = [p for p, k in enumerate(keys) if k == best]
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(len(keys))]
