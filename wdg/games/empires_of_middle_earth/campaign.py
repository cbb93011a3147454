"""Campaigns (rule 3): passage, support, the defender's allies, the fight, sieges.

A campaign is a :class:`Battle` held as the state's pending decision, with
stages: ``passage`` (players whose same-edition lords hold regions allow or
forbid passage), ``support`` (the attacker adds own armies of the same
edition), ``help`` (armies of the defender's edition at most one region away
join if their owners want, at -1), ``leader`` (the defender names the leader
of his side), ``prep_a``/``prep_d`` (optional siege engines, mountain defence,
support cards), ``dice`` (one die per fighting army, hit on roll <= combat
value), ``loss_d``/``loss_a`` (each leader picks the lost armies of his side),
``capture`` (the victorious leader takes or discards the characters of a
destroyed army's home site) and ``siege`` (the attacker's leader holds the
region for the next turn or retreats).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from wdg.games.base import CHANCE
from wdg.games.empires_of_middle_earth.codes import NO, YES
from wdg.games.empires_of_middle_earth.common import (
    ARMY_KINDS, DISCARD, INFLUENCE_LIMIT, OUT, PLAY)
from wdg.games.empires_of_middle_earth.data import NO_REGION

if TYPE_CHECKING:
    from wdg.games.empires_of_middle_earth.rolls import Roll
    from wdg.games.empires_of_middle_earth.state import EmpiresState

DIE = [(f, 1.0 / 6.0) for f in range(1, 7)]
FAR = 10_000


class Battle:
    """A pending campaign; ``val`` maps each army taking part to its combat value."""

    __slots__ = ("main", "target", "attacker", "stage", "queue", "forbid", "blocked", "att",
                 "dfn", "val", "leader_a", "leader_d", "bought", "hits_a", "hits_d",
                 "lose_a", "lose_d", "doomed", "siege")

    def __init__(self, main: int, target: int, attacker: int) -> None:
        self.main, self.target, self.attacker = main, target, attacker
        self.stage = "passage"
        self.queue: list[Any] = []
        self.forbid: list[int] = []
        self.blocked: frozenset[int] = frozenset()
        self.att = [main]
        self.dfn = [target]
        self.val: dict[int, int] = {}
        self.leader_a = self.leader_d = -1
        self.bought = False
        self.hits_a = self.hits_d = self.lose_a = self.lose_d = 0
        self.doomed: list[int] = []
        self.siege = False

    def copy(self) -> Battle:
        """An independent copy."""
        b = Battle(self.main, self.target, self.attacker)
        for k in ("stage", "blocked", "leader_a", "leader_d", "bought", "hits_a", "hits_d",
                  "lose_a", "lose_d", "siege"):
            setattr(b, k, getattr(self, k))
        b.queue, b.forbid, b.att, b.dfn = list(self.queue), list(self.forbid), list(self.att), list(self.dfn)
        b.val, b.doomed = dict(self.val), list(self.doomed)
        return b

    def describe(self, s: EmpiresState) -> str:
        """One line for the position text."""
        name = s.card_name
        vals = lambda xs: ",".join(f"{name(x)}={self.val.get(x, '?')}" for x in xs)
        return (f"campaign stage={self.stage} attack[{vals(self.att)}] defend[{vals(self.dfn)}] "
                f"leaders={self.leader_a},{self.leader_d} queue={self.queue} forbid={self.forbid} "
                f"hits={self.hits_a},{self.hits_d} lose={self.lose_a},{self.lose_d} "
                f"doomed={self.doomed} engines={self.bought} siege={self.siege}")

    def chance(self) -> list[tuple[int, float]]:
        """One die."""
        return DIE

    def actions(self, s: EmpiresState) -> list[int]:
        """The decisions of the current stage."""
        return s.battle_actions(self)

    def apply(self, s: EmpiresState, action: int) -> None:
        """Apply a decision or a die."""
        s.battle_apply(self, action)


class CampaignMixin:
    """Campaign rules (mixed into the state)."""

    # the state's attributes these methods set (declared in EmpiresState.__init__)
    actor: int
    note: str
    waive: bool
    pend: Roll | Battle | None

    # ----------------------------------------------------------- geography
    def blocked_for(self: EmpiresState, edition: int, forbid: list[int]) -> frozenset[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Regions an army of ``edition`` may not pass: those of lords of the other edition,
        and those of same-edition lords whose players forbid passage."""
        cards = self.g.cards
        out = set()
        for q, table in enumerate(self.table):
            for x in table:
                if cards[x].kind in ARMY_KINDS and self.region[x] != NO_REGION:
                    lord_ed = cards[self.lord[x]].edition
                    if lord_ed != edition or q in forbid:
                        out.add(self.region[x])
        return frozenset(out)

    def distances(self: EmpiresState, src: int, blocked: frozenset[int]) -> list[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Regions from ``src`` to every region, never passing through a blocked one
        (a blocked region may still be the end of the way)."""
        me = self.g.map
        if src == NO_REGION:
            return [0] * len(me.regions)
        if not blocked:
            return list(me.dist[src])
        dist = [FAR] * len(me.regions)
        dist[src] = 0
        queue = deque([src])
        while queue:
            r = queue.popleft()
            if r in blocked and r != src:
                continue
            for nb in me.adjacent[r]:
                if dist[nb] == FAR:
                    dist[nb] = dist[r] + 1
                    queue.append(nb)
        return dist

    def attack_value(self: EmpiresState, x: int, dist: int) -> int:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Strength less 1 per full three regions of the way, counting the
        attacker's and the target's region ("direkt benachbarte Angriffe haben
        somit gerade eben keinen Abzug": a neighbour is two regions, one short
        of the first penalty)."""
        return self.g.cards[x].strength - (dist + 1) // 3

    def campaign_actions(self: EmpiresState) -> list[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Own unused armies against reachable armies of the other edition of other players."""
        p, cards, codes = self.player, self.g.cards, self.g.codes
        mine = [a for a in self.table[p] if cards[a].kind in ARMY_KINDS and not self.acted[a]]
        if not mine:
            return []
        foes = [t for q, tab in enumerate(self.table) if q != p for t in tab
                if cards[t].kind == "army" and self.region[t] != NO_REGION]
        acts: list[int] = []
        blocked: dict[int, frozenset[int]] = {}
        for a in mine:
            ed = cards[a].edition
            targets = [t for t in foes if cards[t].edition != ed]
            if not targets:
                continue
            if ed not in blocked:
                blocked[ed] = self.blocked_for(ed, [])
            dist = self.distances(self.region[a], blocked[ed])
            base = codes.campaign + a * codes.n
            acts += [base + t for t in targets if self.attack_value(a, dist[self.region[t]]) >= 1]
        return acts

    # ----------------------------------------------------------- stages
    def declare_campaign(self: EmpiresState, a: int, t: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Army a marches against army t; first the other lords decide on passage."""
        p, n, cards = self.player, self.g.num_players, self.g.cards
        self.acted[a] = True
        b = Battle(a, t, p)
        ends = (self.region[a], self.region[t])
        ed = cards[a].edition
        for i in range(1, n):
            q = (p + i) % n
            if any(cards[x].kind in ARMY_KINDS and self.region[x] not in ends
                   and self.region[x] != NO_REGION and cards[self.lord[x]].edition == ed
                   for x in self.table[q]):
                b.queue.append(q)
        self.pend = b
        self._next_passage(b)

    def _next_passage(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        if b.queue:
            self.actor = b.queue[0]
            return
        cards = self.g.cards
        ed = cards[b.main].edition
        b.blocked = self.blocked_for(ed, b.forbid)
        d = self.distances(self.region[b.main], b.blocked)[self.region[b.target]]
        if d >= FAR or self.attack_value(b.main, d) < 1:
            self.note = f"campaign of {cards[b.main].name} finds no way"
            self.back_to_main()
            return
        b.val[b.main] = self.attack_value(b.main, d)
        b.val[b.target] = cards[b.target].strength
        b.leader_a = self.lord[b.main]
        tr = self.region[b.target]
        for x in self.table[b.attacker]:
            if x != b.main and cards[x].kind in ARMY_KINDS and not self.acted[x] \
                    and cards[x].edition == ed:
                dx = self.distances(self.region[x], b.blocked)[tr]
                if dx < FAR and self.attack_value(x, dx) >= 1:
                    b.queue.append((x, self.attack_value(x, dx)))
        b.stage = "support"
        self._next_support(b)

    def _next_support(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        if b.queue:
            self.actor = b.attacker
            return
        self._start_help(b)

    def _start_help(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Armies of the defender's edition at most one region away may join, at -1."""
        cards, me, n = self.g.cards, self.g.map, self.g.num_players
        t = b.target
        d0 = self.owner[t]
        tr, ed = self.region[t], cards[t].edition
        b.queue = []
        for i in range(n):
            q = (d0 + i) % n
            if q == b.attacker:
                continue
            for x in sorted(self.table[q]):
                c = cards[x]
                if x != t and c.kind in ARMY_KINDS and c.edition == ed and c.strength - 1 >= 1 and (
                        self.region[x] == NO_REGION or me.dist[self.region[x]][tr] <= 1):
                    b.queue.append(x)
        b.stage = "help"
        self._next_help(b)

    def _next_help(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        if b.queue:
            self.actor = self.owner[b.queue[0]]
            return
        lords = sorted({self.lord[x] for x in b.dfn})
        if len(lords) > 1:
            b.stage, b.queue, self.actor = "leader", lords, self.owner[b.target]
            return
        b.leader_d = lords[0]
        self._start_prep(b)

    def _start_prep(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        params = self.g.params
        if params["fortifications"] or params["event_cards"]:
            b.stage, self.actor = "prep_a", b.attacker
            if self.battle_actions(b) != [NO]:
                return
            b.stage, self.actor = "prep_d", self.owner[b.target]
            if self.battle_actions(b) != [NO]:
                return
        self._start_dice(b)

    def _fort_cost(self: EmpiresState, b: Battle, level: int) -> int:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        own = sum(1 for x in b.dfn if self.owner[x] == self.owner[b.target])
        return own + (3 if level == 2 else 0)

    def _prep_actions(self: EmpiresState, b: Battle) -> list[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        codes, params, q = self.g.codes, self.g.params, self.actor
        acts = [NO]
        fort = params["fortifications"]
        if b.stage == "prep_a" and fort and not b.bought and self.gold[q] >= 2:
            acts.append(YES)
        if b.stage == "prep_d" and fort and self.g.map.mountain[self.region[b.target]]:
            acts += [codes.fort + lv for lv in (1, 2) if self._fort_cost(b, lv) <= self.gold[q]]
        if params["event_cards"]:
            acts += sorted(codes.use + c for c in self.hands[q] if self.g.cards[c].kind == "support")
        return acts

    def _apply_prep(self: EmpiresState, b: Battle, action: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        codes, q = self.g.codes, self.actor
        side_army = b.main if b.stage == "prep_a" else b.target
        if action == YES:
            self.gold[q] -= 2
            b.bought = True
            b.val[b.main] += 1
        elif codes.fort < action < codes.fort + 3:
            level = action - codes.fort
            self.gold[q] -= self._fort_cost(b, level)
            for x in b.dfn:
                if self.owner[x] == q:
                    b.val[x] += level
            self._start_dice(b)
            return
        elif action >= codes.use:
            c = action - codes.use
            self.leave(c, DISCARD)
            b.val[side_army] += self.g.cards[c].bonus
        if action == NO or self.battle_actions(b) == [NO]:
            self._prep_next(b)

    def _prep_next(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """From the attacker's preparation to the defender's, then to the dice."""
        if b.stage == "prep_a":
            b.stage, self.actor = "prep_d", self.owner[b.target]
            if self.battle_actions(b) != [NO]:
                return
        self._start_dice(b)

    def _start_dice(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Armies with a combat value under 1 do not fight; one die per fighting army."""
        b.att = [x for x in b.att if b.val[x] >= 1]
        b.dfn = [x for x in b.dfn if b.val[x] >= 1]
        b.stage = "dice"
        b.queue = b.att + b.dfn
        self._next_die(b)

    def _next_die(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        while b.queue and b.val[b.queue[0]] >= 6:
            self._hit(b, b.queue.pop(0))
        if b.queue:
            self.actor = CHANCE
            return
        b.lose_d = min(b.hits_a, len(b.dfn))
        b.lose_a = min(b.hits_d, len(b.att))
        self._next_loss(b)

    def _hit(self: EmpiresState, b: Battle, x: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        if x in b.att:
            b.hits_a += 1
        else:
            b.hits_d += 1

    def _next_loss(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Each side's leader picks its lost armies; a side losing all needs no choice."""
        for side, lose, leader, stage in ((b.dfn, "lose_d", b.leader_d, "loss_d"),
                                          (b.att, "lose_a", b.leader_a, "loss_a")):
            left = [x for x in side if x not in b.doomed]
            k = getattr(b, lose)
            if k and k >= len(left):
                b.doomed += left
                setattr(b, lose, 0)
            elif k:
                b.stage, b.queue, self.actor = stage, left, self.owner[leader]
                return
        self._destroy(b)

    def _destroy(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        cards = self.g.cards
        wiped_a = all(x in b.doomed for x in b.att)
        wiped_d = all(x in b.doomed for x in b.dfn)
        captures: list[tuple[int, int]] = []
        for x in b.doomed:
            victor = b.leader_d if x in b.att else b.leader_a
            beaten_side_wiped = wiped_d if x in b.att else wiped_a
            loser = self.owner[x]
            home = cards[x].homes
            self.leave(x, OUT)
            if beaten_side_wiped or not home or self.where[victor] != PLAY:
                continue
            vp = self.owner[victor]
            for c in self.table[loser]:
                if cards[c].kind == "character" and self.at_site(c, home[0]) \
                        and all(c != k for k, _ in captures):
                    captures.append((c, vp))
        self.note = (f"battle: {len(b.doomed)} armies destroyed "
                     f"({', '.join(self.card_name(x) for x in b.doomed) or 'none'})")
        b.siege = not wiped_a and not wiped_d and self.where[b.target] == PLAY
        b.stage, b.queue = "capture", captures
        self._next_capture(b)

    def _next_capture(self: EmpiresState, b: Battle) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        while b.queue:
            c, vp = b.queue[0]
            if self.where[c] == PLAY and self.owner[c] != vp:
                self.actor = vp
                return
            b.queue.pop(0)
        survivors = [x for x in b.att if self.where[x] == PLAY and self.owner[x] == b.attacker]
        if b.siege and survivors and self.where[b.target] == PLAY:
            b.stage, self.actor = "siege", b.attacker
            return
        self.back_to_main()

    def battle_actions(self: EmpiresState, b: Battle) -> list[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Legal decisions in the battle's current stage."""
        codes, st = self.g.codes, b.stage
        if st in ("passage", "help", "siege"):
            return [NO, YES]
        if st == "support":
            return [NO] + sorted(codes.pick + x for x, _ in b.queue)
        if st in ("leader", "loss_d", "loss_a"):
            return sorted(codes.pick + x for x in b.queue)
        if st in ("prep_a", "prep_d"):
            return self._prep_actions(b)
        if st == "capture":
            c, vp = b.queue[0]
            fits = self.mind_used(vp) + self.g.cards[c].mind <= INFLUENCE_LIMIT
            return [NO, YES] if fits else [NO]
        return []

    def battle_apply(self: EmpiresState, b: Battle, action: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Apply one decision (or die) of the battle."""
        st, pick = b.stage, self.g.codes.pick
        if st == "dice":
            x = b.queue.pop(0)
            if action <= b.val[x]:
                self._hit(b, x)
            self._next_die(b)
        elif st == "passage":
            q = b.queue.pop(0)
            if action == NO:
                b.forbid.append(q)
            self._next_passage(b)
        elif st == "support":
            if action == NO:
                b.queue = []
            else:
                x = action - pick
                entry = next(e for e in b.queue if e[0] == x)
                b.queue.remove(entry)
                b.att.append(x)
                b.val[x] = entry[1]
                self.acted[x] = True
            self._next_support(b)
        elif st == "help":
            x = b.queue.pop(0)
            if action == YES:
                b.dfn.append(x)
                b.val[x] = self.g.cards[x].strength - 1
            self._next_help(b)
        elif st == "leader":
            b.leader_d = action - pick
            self._start_prep(b)
        elif st in ("prep_a", "prep_d"):
            self._apply_prep(b, action)
        elif st in ("loss_d", "loss_a"):
            b.doomed.append(action - pick)
            if st == "loss_d":
                b.lose_d -= 1
            else:
                b.lose_a -= 1
            self._next_loss(b)
        elif st == "capture":
            self._apply_capture(b, action)
        else:
            self._apply_siege(b, action)

    def _apply_capture(self: EmpiresState, b: Battle, action: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """The victor takes the character (with his armies) or discards him; a discard by the
        turn player also serves as his end-of-turn discard if he ends the turn now."""
        c, vp = b.queue.pop(0)
        if action == YES:
            self.move_character(c, vp)
        else:
            self.remove_character(c)
            if vp == self.player:
                self.waive = True
        self._next_capture(b)

    def _apply_siege(self: EmpiresState, b: Battle, action: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Siege: the attacking armies now count as in the besieged region and fight it
        together next turn; otherwise they retreat."""
        if action == YES:
            tr = self.region[b.target]
            armies = tuple(x for x in b.att if self.where[x] == PLAY and self.owner[x] == b.attacker)
            for x in armies:
                self.region[x] = tr
            self.sieges.append((b.attacker, b.target, armies, self.turn))
            self.note = f"siege of {self.card_name(b.target)} by {len(armies)} armies"
        self.back_to_main()

    def start_siege_battle(self: EmpiresState, t: int, armies: tuple[int, ...]) -> bool:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Fight last turn's siege again; False if it has lapsed."""
        p, cards = self.player, self.g.cards
        mine = [x for x in armies if self.where[x] == PLAY and self.owner[x] == p]
        if self.where[t] != PLAY or self.owner[t] == p or not mine:
            return False
        b = Battle(mine[0], t, p)
        b.att = mine
        tr = self.region[t]
        for x in mine:
            self.acted[x] = True
            b.val[x] = self.attack_value(x, self.distances(self.region[x], frozenset())[tr])
        b.val[t] = cards[t].strength
        b.leader_a = self.lord[mine[0]]
        self.pend = b
        self.note = f"siege battle against {cards[t].name}"
        self._start_help(b)
        return True


PRE_DICE = frozenset({"passage", "support", "help", "leader", "prep_a", "prep_d", "dice"})
"""Battle stages before every die has fallen: :meth:`OutlookMixin.battle_outlook` values them."""


def hit_counts(chances: list[float], base: int = 0) -> list[float]:
    """Distribution of the number of hits (index) of independent dice with
    the given hit chances, ``base`` hits already scored."""
    dist = [0.0] * base + [1.0]
    for q in chances:
        nxt = [0.0] * (len(dist) + 1)
        for k, p in enumerate(dist):
            nxt[k] += p * (1.0 - q)
            nxt[k + 1] += p * q
        dist = nxt
    return dist


class OutlookMixin:
    """What a pending campaign is worth before its dice (for the search bot)."""

    def battle_outlook(self: EmpiresState, b: Battle, worth: list[float]) -> list[float]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Expected :meth:`~EmpiresState.worth` of every player once the
        battle's dice have fallen (rule 3.1): one die per fighting army, a
        hit on a roll at most its combat value; each side loses as many
        armies as the other side hit, its leader giving up the cheapest
        (worth plus what a capture would take with it); an army destroyed
        while the other side survives hands the characters of its home site
        (and their armies) to the victor (rule 3). Armies not yet in the
        battle stay out; a campaign whose way is not yet known is valued at
        the distance the map gives."""
        cards, me = self.g.cards, self.g.map
        val = dict(b.val)
        if b.main not in val:
            d = me.dist[self.region[b.main]][self.region[b.target]] \
                if self.region[b.main] >= 0 and self.region[b.target] >= 0 else 0
            val[b.main] = self.attack_value(b.main, d)
            val[b.target] = cards[b.target].strength
        queue = set(b.queue) if b.stage == "dice" else None

        def fighting(side: list[int]) -> list[int]:
            return [x for x in side if val.get(x, 0) >= 1]

        att, dfn = fighting(b.att), fighting(b.dfn)
        if not att or not dfn:
            return worth

        def chances(side: list[int]) -> list[float]:
            out = []
            for x in side:
                if queue is not None and x not in queue:
                    continue  # its die has fallen: counted in the hits
                out.append(min(6, val[x]) / 6.0)
            return out

        hits_a = hit_counts(chances(att), b.hits_a if queue is not None else 0)
        hits_d = hit_counts(chances(dfn), b.hits_d if queue is not None else 0)

        def loss_order(side: list[int]) -> list[tuple[int, float, list[tuple[int, float]]]]:
            """The side's armies cheapest first: (army, its worth, capture
            transfers (player, worth) if it falls while the other side stands)."""
            out = []
            for x in side:
                own = self.owner[x]
                cap = 0.0
                home = cards[x].homes
                if home:
                    for c in self.table[own]:
                        if cards[c].kind == "character" and self.at_site(c, home[0]):
                            cap += 2.0 + sum(10.0 + cards[a].strength for a in self.armies_of(c)
                                             if a not in side)
                out.append((x, 10.0 + cards[x].strength, cap))
            out.sort(key=lambda e: e[1] + e[2])
            return [(x, w, [(self.owner[x], cap)]) for x, w, cap in out]

        order_a, order_d = loss_order(att), loss_order(dfn)
        lead_a = self.owner[b.leader_a] if b.leader_a >= 0 else b.attacker
        lead_d = self.owner[b.leader_d] if b.leader_d >= 0 else self.owner[b.target]
        expect = [0.0] * len(worth)
        for ha, pa in enumerate(hits_a):
            if pa == 0.0:
                continue
            for hd, pd in enumerate(hits_d):
                p = pa * pd
                if p == 0.0:
                    continue
                lose_d, lose_a = min(ha, len(dfn)), min(hd, len(att))
                wiped_a, wiped_d = lose_a == len(att), lose_d == len(dfn)
                for order, k, victor, other_wiped in ((order_d, lose_d, lead_a, wiped_a),
                                                      (order_a, lose_a, lead_d, wiped_d)):
                    for x, w, caps in order[:k]:
                        o = self.owner[x]
                        expect[o] -= p * w
                        if not other_wiped and o != victor:
                            for q, cap in caps:
                                expect[q] -= p * cap
                                expect[victor] += p * cap
        return [w + e for w, e in zip(worth, expect)]
