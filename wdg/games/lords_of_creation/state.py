"""Lords of Creation: one playthrough (the rules of seeds/lords-of-creation-regeln.txt).

The board is a set of flat lists indexed by hex (terrain, owner, counters,
civilised, altar). A turn of the people phase is a series of small decisions:
placing, then any number of moves (choose "move", then ``a -> b``, then how
many), attacks (choose "attack", then ``a -> b``, then the dice as a chance
outcome), one civilisation and one altar, until the player ends the turn or
rolls a double. Section numbers in comments are the rule book's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from wdg.games.base import CHANCE, Band, GameError, Num, State, one_hot
from wdg.games.lords_of_creation import actions as A
from wdg.games.lords_of_creation import flow
from wdg.games.lords_of_creation.components import (
    NUM_CARD_TYPES, TERRAIN_CODES, TERRAIN_NAMES, World, card_name, card_terrain, geometry,
)

from wdg.games.lords_of_creation.phases import (
    ACT, ADVANCE, ALTAR, ATTACK_PAIR, CHOOSE, CIVILISE, CREATE, CREATE_DRAW, CREATE_PLACE,
    DEAL, DICE, MAX_KEPT, MOVE_COUNT, MOVE_PAIR, OTHER_TERRAIN_HIT, OVER, PHASE_NAMES, PLACE,
    REFILL, SAME_TERRAIN_HIT, START, TIE,
)
from wdg.games.lords_of_creation.svg import board_svg

if TYPE_CHECKING:
    from wdg.games.lords_of_creation.game import LordsOfCreation


_COMPOUND_PHASES = frozenset((MOVE_PAIR, MOVE_COUNT, ATTACK_PAIR, CIVILISE, ALTAR))


def _hit_chance(need: int) -> float:
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= need) / 36


_P_HIT = {True: _hit_chance(SAME_TERRAIN_HIT), False: _hit_chance(OTHER_TERRAIN_HIT)}


COUNTER_TIEBREAK = 0.004
"""Greedy's tie-break per own counter on the board: counters are the
strength to attack and hold land (3.6, 3.7) but score nothing by themselves
(4.2). Without it greedy rated every card alike (placing any card into an
empty hex is one point) and chose its card at random; with it, among moves
of equal margin it keeps more counters. A player's 30 counters add at
most 0.12, so no score difference (whole points) is ever outweighed."""


class LordsState(State):
    """A Lords of Creation game in progress."""

    __slots__ = (
        "game", "n", "radius", "size", "adjacent", "world", "terrain", "owner", "count",
        "civ", "altar", "supply", "hands", "deck", "bag", "kept", "phase", "to_move",
        "turn_player", "dealt", "empty", "drawn", "chosen", "queue", "refill_next",
        "card", "civ_done", "altar_done", "ever_civ", "src", "dst", "round", "ended_by",
        "starter", "_legal",
    )

    def __init__(self, game: LordsOfCreation) -> None:
        comp = game.components
        self.game = game
        self.n = n = game.num_players
        self.radius = game.radius
        geo = geometry(self.radius)
        self.size = geo.size
        self.adjacent = geo.adjacent
        self.world: World | None = None
        self.terrain = [-1] * self.size
        self.owner = [-1] * self.size
        self.count = [0] * self.size
        self.civ = [False] * self.size
        self.altar = [False] * self.size
        self.supply = [comp.counters_per_player] * n
        self.hands = [[0] * NUM_CARD_TYPES for _ in range(n)]
        self.deck = list(comp.deck)
        self.bag = list(comp.terrain_markers)
        self.kept = [[0] * 7 for _ in range(n)]
        self.phase = DEAL
        self.to_move = CHANCE
        self.turn_player = -1
        total = sum(self.deck)
        self.dealt = (total // n if game.params["full_knowledge"] else comp.hand_size) * n
        self.empty = self.size
        self.drawn = -1
        self.chosen = [-1] * n
        self.queue: list[list[int]] = []
        self.refill_next = 0
        self.card = -1
        self.civ_done = self.altar_done = False
        self.ever_civ = [False] * n
        self.src = self.dst = -1
        self.round = 0
        self.ended_by = ""
        self.starter = -1
        self._legal: list[int] | None = None

    # ------------------------------------------------------------------ API

    def current_player(self) -> int:
        """The player to act, CHANCE or TERMINAL."""
        return self.to_move

    def is_terminal(self) -> bool:
        """True when the game is over."""
        return self.phase == OVER

    def in_compound_action(self) -> bool:
        """True between the sub-decisions of one move, attack, civilisation or altar."""
        return self.phase in _COMPOUND_PHASES

    def start_player(self) -> int:
        """2.: "Ein Startspieler wird ausgewürfelt" — he places the first
        terrain marker; the people phase's turns go by the cards (3.2)."""
        return self.starter

    def choice_preview(self, action: int) -> LordsState | None:
        """3.2: a card chosen face down, judged without the others' cards:
        the chooser's own turn with it as if it came now (placing first, 3.5);
        the other players' choices stay as they are, hidden, and nothing is
        revealed. Turn order (the lowest card moves first) is not judged."""
        if self.phase != CHOOSE or not A.CARD <= action < A.CARD + NUM_CARD_TYPES:
            return None
        s = self.clone()
        p = s.to_move
        c = action - A.CARD
        s.hands[p][c] -= 1
        s.chosen[p] = c
        s.queue = []
        s._legal = None
        flow.begin_turn(s, p)
        return s

    def clone(self) -> LordsState:
        """An independent copy (the finished world's tables are shared)."""
        c = object.__new__(LordsState)
        c.game, c.n, c.radius, c.size, c.adjacent = self.game, self.n, self.radius, self.size, self.adjacent
        c.world = self.world
        c.terrain = self.terrain if self.world is not None else self.terrain[:]
        c.owner, c.count, c.civ, c.altar = self.owner[:], self.count[:], self.civ[:], self.altar[:]
        c.supply = self.supply[:]
        c.hands = [h[:] for h in self.hands]
        c.deck, c.bag = self.deck[:], self.bag[:]
        c.kept = [k[:] for k in self.kept]
        c.phase, c.to_move, c.turn_player = self.phase, self.to_move, self.turn_player
        c.dealt, c.empty, c.drawn = self.dealt, self.empty, self.drawn
        c.chosen = self.chosen[:]
        c.queue = [g[:] for g in self.queue]
        c.refill_next, c.card = self.refill_next, self.card
        c.civ_done, c.altar_done = self.civ_done, self.altar_done
        c.ever_civ = self.ever_civ[:]
        c.src, c.dst, c.round, c.ended_by = self.src, self.dst, self.round, self.ended_by
        c.starter = self.starter
        c._legal = self._legal
        return c

    def legal_actions(self) -> list[int]:
        """The sorted legal actions (chance: the possible outcomes)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def forget_legal(self) -> None:
        """Drop the remembered legal actions after a change to the state made
        outside :meth:`apply_action` (the turn flow, a position set up by hand):
        :meth:`legal_actions` computes them anew."""
        self._legal = None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Outcome probabilities: draws in proportion to what is left, dice uniform."""
        ph = self.phase
        if ph in (DEAL, REFILL):
            total = sum(self.deck)
            return [(A.CARD_DRAWN + c, k / total) for c, k in enumerate(self.deck) if k]
        if ph == CREATE_DRAW:
            total = sum(self.bag)
            return [(A.TERRAIN_DRAWN + t, k / total) for t, k in enumerate(self.bag) if k]
        if ph in (START, TIE, DICE):
            acts = self.legal_actions()
            return [(a, 1.0 / len(acts)) for a in acts]
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        """Draw a chance outcome (one uniform number from ``rng``)."""
        x = float(rng.random())
        if self.phase == DICE:
            return A.DICE + int(x * 216)
        outcomes = self.chance_outcomes()
        acc = 0.0
        for a, p in outcomes:
            acc += p
            if x < acc:
                return a
        return outcomes[-1][0]

    def apply_action(self, action: int) -> None:
        """Apply an action or chance outcome; GameError if it is not legal."""
        legal = self._legal if self._legal is not None else self._compute_legal()
        if action not in legal:
            raise GameError(
                f"illegal action {action!r} in phase {PHASE_NAMES[self.phase]!r} "
                f"for player {self.to_move}; legal: {legal[:20]!r}{'...' if len(legal) > 20 else ''}")
        self._legal = None
        flow.APPLY[self.phase](self, action)

    def scores(self) -> list[float]:
        """Worship points (4.2): 1 per barbarian hex, 2 per civilised, 3 per altar."""
        pts = [0] * self.n
        owner, civ, altar = self.owner, self.civ, self.altar
        for h in range(self.size):
            o = owner[h]
            if o >= 0:
                pts[o] += 3 if altar[h] else 2 if civ[h] else 1
        return [float(p) for p in pts]

    def end_info(self) -> dict[str, float | str]:
        """How the game ended, for batch statistics: the cause, the rounds of
        the people phase, hexes held and counters on the board, and the cards
        each player still held (5.1: the sudden end only with the last seven)."""
        held = [sum(h) for h in self.hands]
        return {"end": self.ended_by or "not over", "rounds": float(self.round),
                "hexes_held": float(sum(1 for o in self.owner if o >= 0)),
                "counters": float(sum(self.count)), "cards_left_max": float(max(held)),
                "no_counter_placed": float(sum(self.count) == 0)}

    def tiebreak_key(self, player: int) -> tuple[float, int, int]:
        """4.2: points, then hexes, then counters on the board."""
        hexes = counters = 0
        for h in range(self.size):
            if self.owner[h] == player:
                hexes += 1
                counters += self.count[h]
        return self.scores()[player], hexes, counters

    def returns(self) -> list[float]:
        """1/k for each of the k players with the best tie-break key, else 0."""
        if self.phase != OVER:
            return [0.0] * self.n
        keys = [self.tiebreak_key(p) for p in range(self.n)]
        best = max(keys)
        winners = [p for p in range(self.n) if keys[p] == best]
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(self.n)]

    def evaluate(self, player: int) -> float:
        """Greedy's view: own points minus the best other's; a pending attack is
        valued by its hit chance (the defender's loss is the only score change)."""
        if self.phase == DICE:
            after = self.clone()
            flow.remove_counter(after, after.dst)
            p = _P_HIT[self.terrain[self.src] == self.terrain[self.dst]]
            return p * after._margin(player) + (1 - p) * self._margin(player)
        return self._margin(player)

    def _margin(self, player: int) -> float:
        s = self.scores()
        others = [s[q] for q in range(self.n) if q != player]
        own = sum(k for o, k in zip(self.owner, self.count) if o == player)
        return s[player] - (max(others) if others else 0.0) + COUNTER_TIEBREAK * own

    # --------------------------------------------------------------- text

    def action_to_string(self, action: int) -> str:
        """A readable German name of ``action`` in this state."""
        ph = self.phase
        if ph in (DEAL, REFILL) and A.CARD_DRAWN <= action < A.CARD_DRAWN + NUM_CARD_TYPES:
            who = sum(sum(h) for h in self.hands) % self.n if ph == DEAL else self.refill_next
            return f"Spieler {who} zieht Karte {card_name(action - A.CARD_DRAWN)}"
        if ph in (START, TIE) and A.PLAYER_CHOSEN <= action < A.PLAYER_CHOSEN + self.n:
            what = "Startspieler" if ph == START else "Würfelentscheid, zuerst"
            return f"{what}: Spieler {action - A.PLAYER_CHOSEN}"
        if ph == CREATE_DRAW and A.TERRAIN_DRAWN <= action < A.TERRAIN_DRAWN + 7:
            return f"gezogen: {TERRAIN_NAMES[action - A.TERRAIN_DRAWN]}"
        if ph == DICE and A.DICE <= action < A.DICE + 216:
            a1, a2, d = A.dice_of(action)
            same = self.terrain[self.src] == self.terrain[self.dst]
            need = SAME_TERRAIN_HIT if same else OTHER_TERRAIN_HIT
            hit = "Treffer" if a1 + a2 >= need else "kein Treffer"
            back = "Verteidiger trifft" if d > a1 and d > a2 else "Verteidiger trifft nicht"
            double = "; Pasch: Zugende" if a1 == a2 else ""
            return (f"Angriff Feld {self.src} auf Feld {self.dst}: {a1}+{a2} (nötig {need}) gegen "
                    f"{d}: {hit}, {back}{double}")
        if ph == CREATE and action == A.DRAW:
            return "Geländemarker ziehen"
        if ph == CREATE and A.KEPT <= action < A.CARD:
            t, h = divmod(action - A.KEPT, 100)
            return f"zurückgehaltenes {TERRAIN_NAMES[t]} auf Feld {h} legen"
        if ph == CREATE_PLACE and action == A.KEEP:
            return f"{TERRAIN_NAMES[self.drawn]} zurückhalten"
        if ph == CHOOSE and A.CARD <= action < A.CARD + NUM_CARD_TYPES:
            return f"Karte {card_name(action - A.CARD)} verdeckt wählen"
        if ph == ACT and action in _MENU_NAMES:
            return _MENU_NAMES[action]
        if ph in (MOVE_PAIR, ATTACK_PAIR) and A.PAIR <= action < A.KEPT:
            a, b = divmod(action - A.PAIR, 100)
            return f"{'Bewegen' if ph == MOVE_PAIR else 'Angriff'} von Feld {a} nach Feld {b}"
        if ph in (MOVE_COUNT, ADVANCE) and A.COUNT < action < A.TERRAIN_DRAWN:
            verb = "bewegen" if ph == MOVE_COUNT else "rücken nach"
            return f"{action - A.COUNT} Marker {verb} (Feld {self.src} nach Feld {self.dst})"
        if A.HEX <= action < A.HEX + self.size:
            h = action - A.HEX
            if ph == CREATE_PLACE:
                return f"{TERRAIN_NAMES[self.drawn]} auf Feld {h} legen"
            if ph == PLACE:
                return f"Einsetzen: {card_name(self.card)} auf Feld {h}"
            if ph == CIVILISE:
                return f"Feld {h} zivilisieren"
            if ph == ALTAR:
                return f"Altar auf Feld {h} bauen"
        return f"Aktion {action} (in Phase {PHASE_NAMES[ph]})"

    # ------------------------------------------------------ observation tensor

    def observation_blocks(self, player: int) -> list[tuple[str, list[float]]]:
        """``player``'s observation as numbers (docs/games.md lists the
        layout). Per hex: terrain one-hot (7, all zero while unplaced),
        owner one-hot (players), counters, civilised, altar. Per player:
        supply, cards in hand, kept markers per terrain, first civilisation
        done, has chosen a card this round, the chosen card one-hot where
        ``player`` may see it (his own; the others' only after the reveal,
        3.2). His own hand per card type; the bag per terrain and the deck's
        size (not its order or contents); phase, player to move, player on
        turn, round, the turn's card, civilisation and altar done, the
        attack or move's hexes, the terrain just drawn, the viewer."""
        n, size = self.n, self.size

        terrain: list[float] = []
        owner: list[float] = []
        for h in range(size):
            terrain += one_hot(self.terrain[h], 7)
            owner += one_hot(self.owner[h], n)
        per_player: list[float] = []
        chosen: list[float] = []
        for q in range(n):
            hidden = self._hidden_chosen(q, player)
            per_player += [float(self.supply[q]), float(sum(self.hands[q])),
                           *map(float, self.kept[q]), float(self.ever_civ[q]),
                           float(self.chosen[q] >= 0)]
            chosen += one_hot(-1 if hidden else self.chosen[q], NUM_CARD_TYPES)
        return [
            ("hex_terrain", terrain), ("hex_owner", owner),
            ("hex_counters", [float(c) for c in self.count]),
            ("hex_civilised", [float(c) for c in self.civ]),
            ("hex_altar", [float(a) for a in self.altar]),
            ("player_supply_hand_kept7_firstciv_haschosen", per_player),
            ("player_chosen_card", chosen),
            ("own_hand", [float(k) for k in self.hands[player]]),
            ("bag", [float(k) for k in self.bag]),
            ("deck_size", [float(sum(self.deck))]),
            ("phase", one_hot(self.phase, len(PHASE_NAMES))),
            ("to_move", one_hot(self.to_move, n)),
            ("turn_player", one_hot(self.turn_player, n)),
            ("round_civdone_altardone", [float(self.round), float(self.civ_done), float(self.altar_done)]),
            ("turn_card", one_hot(self.card, NUM_CARD_TYPES)),
            ("from_hex", one_hot(self.src, size)), ("to_hex", one_hot(self.dst, size)),
            ("drawn_terrain", one_hot(self.drawn, 7)),
            ("viewer", one_hot(player, n)),
        ]

    # ---------------------------------------------------------- by hand

    def _row_label(self, h: int) -> Band:
        for r, row in enumerate(geometry(self.radius).rows):
            if h in row:
                return Band(f"Reihe {r + 1} (Felder {row[0]}-{row[-1]})")
        return Band("Reihe ?")

    def action_path(self, action: int) -> tuple[str, ...]:
        """The menu labels of an action (German): kind, then where. A hex
        is a numbered target (:class:`Num`, the text board's numbers),
        grouped by board row where that keeps the lists short; a move or an
        attack by its origin, then its target; a card by its terrain; a
        number of counters by tens."""
        ph = self.phase
        if ph == CREATE and A.KEPT <= action < A.CARD:
            t, h = divmod(action - A.KEPT, 100)
            return (f"Zurückgehaltenes {TERRAIN_NAMES[t]} legen", self._row_label(h), Num(f"Feld {h}", h, "Feldnummer"))
        if ph == CREATE_PLACE and A.HEX <= action < A.HEX + self.size:
            h = action - A.HEX
            return (f"{TERRAIN_NAMES[self.drawn]} legen", self._row_label(h), Num(f"Feld {h}", h, "Feldnummer"))
        if ph == CHOOSE and A.CARD <= action < A.CARD + NUM_CARD_TYPES:
            c = action - A.CARD
            return ("Karte verdeckt wählen", TERRAIN_NAMES[card_terrain(c)], card_name(c))
        if ph in (MOVE_PAIR, ATTACK_PAIR) and A.PAIR <= action < A.KEPT:
            a, b = divmod(action - A.PAIR, 100)
            verb = "Bewegen" if ph == MOVE_PAIR else "Angriff"
            return (f"{verb} von Feld {a}", f"nach Feld {b}")
        if ph in (MOVE_COUNT, ADVANCE) and A.COUNT < action < A.TERRAIN_DRAWN:
            k = action - A.COUNT
            verb = "bewegen" if ph == MOVE_COUNT else "rücken nach"
            lo = max(1, 10 * (k // 10))
            return (f"Marker {verb} (Feld {self.src} nach Feld {self.dst})",
                    Band(f"{lo}-{10 * (k // 10) + 9} Marker"), Num(f"{k} Marker", k, "Anzahl der Marker"))
        if A.HEX <= action < A.HEX + self.size and ph in (PLACE, CIVILISE, ALTAR):
            h = action - A.HEX
            kind = {PLACE: f"Einsetzen: {card_name(self.card)}", CIVILISE: "Zivilisieren",
                    ALTAR: "Altar bauen"}[ph]
            owner = self.owner[h]
            where = (Band(f"Felder von Spieler {owner}") if ph == CIVILISE and owner >= 0
                     else self._row_label(h))
            return (kind, where, Num(f"Feld {h}", h, "Feldnummer"))
        return (self.action_to_string(action),)

    def human_view(self, player: int) -> str:
        """The position for play by hand, each fact once: the round, the
        phase and who is to move; per player his points, supply, kept
        markers and chosen card and his hand (the others' by its size, a
        card chosen face down as ``verdeckt``); the bag; the board with the
        hex numbers of the actions and a key to it. No engine internals
        (raw numbers of "nobody", the selection of a move)."""
        ph = self.phase
        head = (PHASE_NAMES[ph].replace("Schöpfung", "Schöpfungsphase") if self.round == 0
                else f"Runde {self.round}: {PHASE_NAMES[ph]}")
        owner = self.turn_owner()
        if ph == OVER:
            head += f" (Ende: {self.ended_by})"
        elif self.to_move >= 0:
            head += f"; am Zug: Spieler {self.to_move}" + (" (du)" if self.to_move == player else "")
        if owner >= 0 and owner != self.to_move:
            head += f"; Zug von Spieler {owner}" + (" (du)" if owner == player else "")
        lines = [head]
        waiting = [g for g in self.queue if g]
        if waiting and ph != OVER:
            lines.append("Danach in dieser Runde: " + ", dann ".join(
                " oder ".join(f"Spieler {q}" for q in g) + (" (Gleichstand, der Würfel entscheidet)"
                                                           if len(g) > 1 else "")
                for g in waiting))
        scores = self.scores()
        for p in range(self.n):
            if p == player:
                hand = ", ".join(f"{card_name(c)} x{k}" if k > 1 else card_name(c)
                                 for c, k in enumerate(self.hands[p]) if k) or "leer"
            else:
                k = sum(self.hands[p])
                hand = f"{k} {'Karte' if k == 1 else 'Karten'}"
            kept = ", ".join(TERRAIN_NAMES[t] for t in range(7) for _ in range(self.kept[p][t]))
            chosen = ("verdeckt" if self._hidden_chosen(p, player)
                      else card_name(self.chosen[p]) if self.chosen[p] >= 0 else "")
            parts = [f"{scores[p]:.0f} {'Punkt' if scores[p] == 1 else 'Punkte'}", f"Vorrat {self.supply[p]}",
                     f"erste Zivilisation {'erfolgt' if self.ever_civ[p] else 'frei'}"]
            if kept:
                parts.append(f"zurückgehalten: {kept}")
            if chosen:
                parts.append(f"gewählte Karte: {chosen}")
            parts.append(f"Hand: {hand}")
            lines.append(f"Spieler {p}{' (du)' if p == player else ''}: " + "; ".join(parts))
        lines.append("Beutel: " + ", ".join(f"{TERRAIN_NAMES[t]} {k}" for t, k in enumerate(self.bag))
                     + f"; Kartenstapel: {sum(self.deck)}")
        lines.extend(self._board_rows())
        lines.append(self._board_key())
        return "\n".join(lines)

    def turn_owner(self) -> int:
        """The player whose turn it is: the creator of the current marker
        (2.), the player of the revealed card in the people phase (3.3);
        -1 while cards are dealt, chosen or compared."""
        ph = self.phase
        if ph == CREATE:
            return self.to_move
        if ph in (CREATE_DRAW, CREATE_PLACE, PLACE, ACT, MOVE_PAIR, MOVE_COUNT, ATTACK_PAIR, DICE,
                  ADVANCE, CIVILISE, ALTAR):
            return self.turn_player
        return -1

    def turn_status(self, player: int) -> list[str]:
        """What is left of the turn (3.3: placing, then moves and attacks in
        any number, one civilisation, one altar; a double ends it, 3.7).
        The points are in :meth:`human_view` (once, with each player)."""
        ph = self.phase
        out = []
        if ph in (CREATE, CREATE_PLACE):
            out.append(f"Schöpfung: ein Geländemarker in diesem Zug; zurückgehalten "
                       f"{sum(self.kept[player])} von {MAX_KEPT}.")
        elif ph == CHOOSE:
            out.append("Wähle verdeckt eine Karte für diese Runde (die Karten werden aufgedeckt, "
                       "wenn alle gewählt haben).")
        elif self.turn_player == player and self.card >= 0:
            done = "ausstehend" if ph == PLACE else "erledigt"
            civ = "erledigt" if self.civ_done else "noch möglich"
            alt = "erledigt" if self.altar_done else "noch möglich"
            out.append(f"Dein Zug (mit deiner gewählten Karte): Einsetzen {done}; Zivilisieren {civ}; "
                       f"Altar {alt}; Bewegen und Angreifen beliebig oft, bis du den Zug beendest "
                       f"oder beim Angriff einen Pasch würfelst.")
        return out

    def __str__(self) -> str:
        """The whole position: phase, players (hands, supply, kept markers,
        chosen cards), bag, deck, and the board row by row."""
        return self._text(None)

    def observation_string(self, player: int) -> str:
        """The position as ``player`` sees it: the other players' hands only
        as a number of cards, a card chosen face down by another player as
        ``verdeckt`` until all are revealed; the deck only by its size."""
        return self._text(player)

    def _hidden_chosen(self, q: int, viewer: int | None) -> bool:
        return (viewer is not None and q != viewer and self.phase == CHOOSE
                and self.chosen[q] >= 0)

    def resample_from_infostate(self, player: int, rng: np.random.Generator) -> LordsState:
        """A determinisation for ``player``: the cards he cannot see (the
        deck, the other hands, cards others chose face down this round) are
        shuffled and dealt again, every hand keeping its size."""
        s = self.clone()
        pool: list[int] = []
        for c, k in enumerate(self.deck):
            pool.extend([c] * k)
        others = [q for q in range(self.n) if q != player]
        for q in others:
            for c, k in enumerate(self.hands[q]):
                pool.extend([c] * k)
            if self._hidden_chosen(q, player):
                pool.append(self.chosen[q])
        pool.sort()
        order = [pool[int(i)] for i in rng.permutation(len(pool))]
        at = 0
        for q in others:
            size = sum(self.hands[q])
            hand = [0] * NUM_CARD_TYPES
            for c in order[at:at + size]:
                hand[c] += 1
            at += size
            s.hands[q] = hand
            if self._hidden_chosen(q, player):
                s.chosen[q] = order[at]
                at += 1
        deck = [0] * len(self.deck)
        for c in order[at:]:
            deck[c] += 1
        s.deck = deck
        s._legal = None
        return s

    def public_action_string(self, action: int, viewer: int) -> str:
        """Cards dealt to another player and cards chosen face down by
        another player are not named."""
        ph = self.phase
        if ph in (DEAL, REFILL) and A.CARD_DRAWN <= action < A.CARD_DRAWN + NUM_CARD_TYPES:
            who = sum(sum(h) for h in self.hands) % self.n if ph == DEAL else self.refill_next
            if who != viewer:
                return f"Spieler {who} zieht eine Karte"
        if ph == CHOOSE and self.to_move != viewer:
            return f"Spieler {self.to_move} wählt verdeckt eine Karte"
        return self.action_to_string(action)

    def _text(self, viewer: int | None) -> str:
        lines = [f"Phase: {PHASE_NAMES[self.phase]}; Runde {self.round}; am Zug: {self.to_move}; "
                 f"Zug von: {self.turn_player}"]
        if self.phase == OVER:
            lines.append(f"Ende: {self.ended_by}")
        if self.turn_player >= 0 and self.card >= 0:
            lines.append(f"Karte: {card_name(self.card)}; zivilisiert: {int(self.civ_done)}; "
                         f"Altar: {int(self.altar_done)}; Auswahl: {self.src}->{self.dst}")
        if self.queue:
            lines.append(f"Reihenfolge: {self.queue!r}")
        for p in range(self.n):
            if viewer is None or p == viewer:
                hand = ",".join(f"{card_name(c)}x{k}" if k > 1 else card_name(c)
                                for c, k in enumerate(self.hands[p]) if k)
            else:
                k = sum(self.hands[p])
                hand = f"{k} {'Karte' if k == 1 else 'Karten'}"
            kept = ",".join(TERRAIN_NAMES[t] for t in range(7) for _ in range(self.kept[p][t]))
            chosen = ("verdeckt" if self._hidden_chosen(p, viewer)
                      else card_name(self.chosen[p]) if self.chosen[p] >= 0 else "-")
            lines.append(f"Spieler {p}: Vorrat {self.supply[p]}; erste Zivilisation "
                         f"{'erfolgt' if self.ever_civ[p] else 'frei'}; gewählt {chosen}; "
                         f"zurückgehalten [{kept}]; Hand [{hand}]")
        lines.append("Beutel: " + " ".join(f"{TERRAIN_CODES[t]}{k}" for t, k in enumerate(self.bag))
                     + f"; Stapel: {sum(self.deck)}")
        lines.extend(self.board_lines())
        return "\n".join(lines)

    def board_text(self, viewer: int | None = None) -> str:
        """The board with the hex numbers the actions use ("Feld 64"): per hex
        ``number:terrain`` and, when held, owner, side (b barbarisch,
        z zivilisiert, A Altar) and counters; a key to it; then the players.
        Public information only (hands as a number of cards), so ``viewer``
        changes nothing."""
        lines = [(f"Runde {self.round}" if self.round else "Schöpfungsphase") +
                 (f", Ende: {self.ended_by}" if self.phase == OVER
                  else f", am Zug: Spieler {self.to_move}" if self.to_move >= 0 else "")]
        lines.extend(self._board_rows())
        lines.append(self._board_key())
        for p in range(self.n):
            k = sum(self.hands[p])
            pts = self.scores()[p]
            lines.append(f"Spieler {p}: {pts:.0f} {'Punkt' if pts == 1 else 'Punkte'}, Vorrat {self.supply[p]}, "
                         f"{k} {'Karte' if k == 1 else 'Karten'}")
        return "\n".join(lines)

    def _board_rows(self) -> list[str]:
        """The board row by row, every hex as ``number:terrain`` and, when
        held, owner, side and counters (``64:W1b3``)."""
        lines = []
        rows = geometry(self.radius).rows
        width = max(len(r) for r in rows)
        for row in rows:
            cells = []
            for h in row:
                t = self.terrain[h]
                code = TERRAIN_CODES[t] if t >= 0 else "."
                o = self.owner[h]
                body = f"{h:>2}:{code}"
                body += (f"{o}{'A' if self.altar[h] else 'z' if self.civ[h] else 'b'}{self.count[h]}"
                         if o >= 0 else "")
                cells.append(f"{body:<9}")
            lines.append((" " * (5 * (width - len(row))) + " ".join(cells)).rstrip())
        return lines

    @staticmethod
    def _board_key() -> str:
        """The key to :meth:`_board_rows` (German)."""
        return ("Gelände: " + ", ".join(f"{c} {n}" for c, n in zip(TERRAIN_CODES, TERRAIN_NAMES))
                + ", . noch leer. Besetztes Feld, z. B. 64:W1b3: Feld 64, Wald, Spieler 1, "
                "b barbarisch (z zivilisiert, A Altar), 3 Marker")

    def board_svg(self, viewer: int | None = None) -> str:
        """The hex board as an SVG picture (public information only, so
        ``viewer`` changes nothing)."""
        return board_svg(self)

    def board_lines(self) -> list[str]:
        """The board: per hex terrain letter, owner, side (b barbarisch,
        z zivilisiert, A Altar) and counters, e.g. ``H1b3``; ``.`` unplaced."""
        out = []
        for row in geometry(self.radius).rows:
            cells = []
            for h in row:
                t = self.terrain[h]
                code = TERRAIN_CODES[t] if t >= 0 else "."
                o = self.owner[h]
                if o < 0:
                    cells.append(f"{code}----")
                else:
                    side = "A" if self.altar[h] else "z" if self.civ[h] else "b"
                    cells.append(f"{code}{o}{side}{self.count[h]:<2d}")
            out.append((" " * (3 * (self.radius * 2 + 1 - len(row))) + " ".join(cells)).rstrip())
        return out

    # ------------------------------------------------------ legal actions

    def _compute_legal(self) -> list[int]:
        return _LEGAL[self.phase](self)

    def _legal_deal(self) -> list[int]:
        return [A.CARD_DRAWN + c for c, k in enumerate(self.deck) if k]

    def _legal_players(self) -> list[int]:
        group = self.queue[0] if self.phase == TIE else range(self.n)
        return sorted(A.PLAYER_CHOSEN + p for p in group)

    def _legal_create(self) -> list[int]:
        out = [A.DRAW] if any(self.bag) else []
        kept = self.kept[self.to_move]
        if any(kept):
            empties = [h for h, t in enumerate(self.terrain) if t < 0]
            for t in range(7):
                if kept[t]:
                    base = A.KEPT + t * 100
                    out += [base + h for h in empties]
        return out

    def _legal_create_draw(self) -> list[int]:
        return [A.TERRAIN_DRAWN + t for t, k in enumerate(self.bag) if k]

    def _legal_create_place(self) -> list[int]:
        out = [A.KEEP] if sum(self.kept[self.to_move]) < MAX_KEPT else []
        base = A.HEX
        out += [base + h for h, t in enumerate(self.terrain) if t < 0]
        return out

    def _legal_choose(self) -> list[int]:
        return [A.CARD + c for c, k in enumerate(self.hands[self.to_move]) if k]

    def _legal_dice(self) -> list[int]:
        return list(A.DICE_OUTCOMES)

    def _legal_place(self) -> list[int]:
        return [A.HEX + h for h in self.place_hexes()]

    def place_hexes(self) -> list[int]:
        """3.5: hexes of the card's terrain, empty or holding own counters."""
        assert self.world is not None
        p, owner = self.turn_player, self.owner
        return [h for h in self.world.by_terrain[card_terrain(self.card)] if owner[h] in (-1, p)]

    def _legal_act(self) -> list[int]:
        out = [A.END]
        if self._move_pairs(first=True):
            out.append(A.MENU_MOVE)
        if self._attack_pairs(first=True):
            out.append(A.MENU_ATTACK)
        if self._can_civilise():
            out.append(A.MENU_CIVILISE)
        if self._altar_hexes():
            out.append(A.MENU_ALTAR)
        return out

    def _can_civilise(self) -> bool:
        """Whether :meth:`_civilise_hexes` is not empty (without listing them)."""
        if self.civ_done:
            return False
        owner, civ, adj = self.owner, self.civ, self.adjacent
        free = not self.ever_civ[self.turn_player]
        for h in range(self.size):
            if owner[h] >= 0 and not civ[h]:
                if free:
                    return True
                for x in adj[h]:
                    if civ[x]:
                        return True
        return False

    def _move_pairs(self, first: bool = False) -> list[int]:
        """3.6: a stack steps to an adjacent hex of its terrain (Inseln also
        across one See hex), never leaving its hex empty; barbarians onto empty
        or own barbarian hexes, civilised people only onto own civilised hexes."""
        assert self.world is not None
        p, owner, count, civ = self.turn_player, self.owner, self.count, self.civ
        targets = self.world.move_targets
        out = []
        for a in range(self.size):
            if owner[a] == p and count[a] >= 2:
                ca = civ[a]
                for b in targets[a]:
                    ob = owner[b]
                    if (ob == p and civ[b]) if ca else (ob == -1 or (ob == p and not civ[b])):
                        out.append(A.PAIR + a * 100 + b)
                        if first:
                            return out
        return out

    def _attack_pairs(self, first: bool = False) -> list[int]:
        """3.7: at least two barbarians attack a neighbouring hex of another
        player; Insel barbarians also across one See hex."""
        assert self.world is not None
        p, owner, count, civ = self.turn_player, self.owner, self.count, self.civ
        targets = self.world.attack_targets
        out = []
        for a in range(self.size):
            if owner[a] == p and count[a] >= 2 and not civ[a]:
                for b in targets[a]:
                    if owner[b] >= 0 and owner[b] != p:
                        out.append(A.PAIR + a * 100 + b)
                        if first:
                            return out
        return out

    def _civilise_hexes(self) -> list[int]:
        """3.8: once per turn a barbarian hex of anyone; the player's first
        anywhere, later only next to a civilised hex (never across the sea)."""
        if self.civ_done:
            return []
        owner, civ, adj = self.owner, self.civ, self.adjacent
        free = not self.ever_civ[self.turn_player]
        return [h for h in range(self.size) if owner[h] >= 0 and not civ[h]
                and (free or any(civ[x] for x in adj[h]))]

    def _altar_hexes(self) -> list[int]:
        """3.9: once per turn, an own civilised hex with at least two counters."""
        if self.altar_done:
            return []
        p, owner, count, civ, altar = self.turn_player, self.owner, self.count, self.civ, self.altar
        return [h for h in range(self.size)
                if owner[h] == p and civ[h] and not altar[h] and count[h] >= 2]

    def _legal_pairs(self) -> list[int]:
        return self._move_pairs() if self.phase == MOVE_PAIR else self._attack_pairs()

    def _legal_count(self) -> list[int]:
        return [A.COUNT + k for k in range(1, self.count[self.src])]

    def _legal_civilise(self) -> list[int]:
        return [A.HEX + h for h in self._civilise_hexes()]

    def _legal_altar(self) -> list[int]:
        return [A.HEX + h for h in self._altar_hexes()]

    def _legal_none(self) -> list[int]:
        return []


_LEGAL = {
    DEAL: LordsState._legal_deal, REFILL: LordsState._legal_deal,
    START: LordsState._legal_players, TIE: LordsState._legal_players,
    CREATE: LordsState._legal_create, CREATE_DRAW: LordsState._legal_create_draw,
    CREATE_PLACE: LordsState._legal_create_place, CHOOSE: LordsState._legal_choose,
    PLACE: LordsState._legal_place, ACT: LordsState._legal_act,
    MOVE_PAIR: LordsState._legal_pairs, ATTACK_PAIR: LordsState._legal_pairs,
    MOVE_COUNT: LordsState._legal_count, ADVANCE: LordsState._legal_count,
    DICE: LordsState._legal_dice, CIVILISE: LordsState._legal_civilise,
    ALTAR: LordsState._legal_altar, OVER: LordsState._legal_none,
}

_MENU_NAMES = {A.END: "Zug beenden", A.MENU_MOVE: "Bewegen", A.MENU_ATTACK: "Angreifen",
               A.MENU_CIVILISE: "Zivilisieren", A.MENU_ALTAR: "Altar bauen"}
