"""Influence attempts: mobilising armies (2.2) and intrigues (2.3), with bribery (2.4).

An attempt is a :class:`Roll` held as the state's pending decision. Its
stages: ``home`` (a character with several home sites picks one on his
first attempt), ``bribe`` (every player in turn, the roller first, may bribe
for or against the roll and, with event cards, play influence cards),
``roll`` (chance: 2d6, for an intrigue a second 2d6 for the defender), then
a second ``bribe`` round after the roll at triple cost, then the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wdg.games.base import CHANCE
from wdg.games.empires_of_middle_earth.codes import BRIBE_MAX
from wdg.games.empires_of_middle_earth.common import DISCARD, INFLUENCE_LIMIT

if TYPE_CHECKING:
    from wdg.games.empires_of_middle_earth.campaign import Battle
    from wdg.games.empires_of_middle_earth.state import EmpiresState

TWO_D6 = [(s, (6 - abs(s - 7)) / 36.0) for s in range(2, 13)]
"""Probabilities of the sums of two dice."""
OTHER_EDITION_MALUS = 5


class Roll:
    """A pending influence attempt (``kind`` is ``"mobilise"`` or ``"intrigue"``)."""

    __slots__ = ("kind", "char", "target", "stage", "opts", "order", "idx", "post",
                 "points", "spent", "base", "need", "a", "b")

    def __init__(self, kind: str, char: int, target: int, order: list[int]) -> None:
        self.kind, self.char, self.target = kind, char, target
        self.stage = "home"
        self.opts: tuple[int, ...] = ()
        self.order = order
        self.idx = 0
        self.post = False
        self.points = 0
        self.spent = [0] * len(order)
        self.base = 0
        self.need = 0
        self.a = 0
        self.b = 0

    def copy(self) -> Roll:
        """An independent copy."""
        r = Roll(self.kind, self.char, self.target, self.order)
        for k in ("stage", "opts", "idx", "post", "points", "base", "need", "a", "b"):
            setattr(r, k, getattr(self, k))
        r.spent = list(self.spent)
        return r

    def describe(self, s: EmpiresState) -> str:
        """One line for the position text."""
        return (f"{self.kind} {s.card_name(self.char)} -> {s.card_name(self.target)} "
                f"stage={self.stage} post={self.post} base={self.base} need={self.need} "
                f"bribe={self.points:+d} spent={self.spent} dice={self.a},{self.b}")

    def chance(self) -> list[tuple[int, float]]:
        """2d6 sums."""
        return TWO_D6

    def actions(self, s: EmpiresState) -> list[int]:
        """Site choices, or bribes and influence cards of the deciding player."""
        codes = s.g.codes
        if self.stage == "home":
            return sorted(codes.site + i for i in self.opts)
        q = s.actor
        m = s.bribe_range(q, self.post, self.spent[q])
        acts = list(range(codes.bribe + BRIBE_MAX - m, codes.bribe + BRIBE_MAX + m + 1))
        if not self.post:
            cards = [c for c in s.hands[q] if s.g.cards[c].kind == "influence"]
            acts += sorted([codes.use + c for c in cards] + [codes.use + codes.n + c for c in cards])
        return acts

    def apply(self, s: EmpiresState, action: int) -> None:
        """Apply a decision or a chance outcome."""
        codes = s.g.codes
        if s.actor == CHANCE:
            self._dice(s, action)
        elif self.stage == "home":
            s.site[self.char] = action - codes.site
            s.setup_roll(self)
        elif action >= codes.use:
            c = action - codes.use
            sign = 1
            if c >= codes.n:
                c, sign = c - codes.n, -1
            s.leave(c, DISCARD)
            self.points += sign * s.g.cards[c].bonus
        else:
            q = s.actor
            k = action - codes.bribe - BRIBE_MAX
            s.gold[q] -= s.bribe_cost(k, self.post)
            self.points += k
            self.spent[q] += abs(k)
            self.idx += 1
            self.next_briber(s)

    def _dice(self, s: EmpiresState, value: int) -> None:
        if self.kind == "intrigue" and self.a == 0:
            self.a = value
            return
        if self.kind == "intrigue":
            self.b = value
        else:
            self.a = value
        self.post, self.idx, self.stage = True, 0, "bribe"
        self.next_briber(s)

    def next_briber(self, s: EmpiresState) -> None:
        """Ask the next player who can bribe (or play a card); then roll or resolve."""
        while self.idx < len(self.order):
            q = self.order[self.idx]
            if s.bribe_range(q, self.post, self.spent[q]) > 0 or (
                    not self.post and any(s.g.cards[c].kind == "influence" for c in s.hands[q])):
                s.actor = q
                return
            self.idx += 1
        if not self.post:
            self.stage, s.actor = "roll", CHANCE
        else:
            s.resolve_roll(self)


class RollMixin:
    """Starting and resolving influence attempts (mixed into the state)."""

    # the state's attributes these methods set (declared in EmpiresState.__init__)
    actor: int
    note: str
    waive: bool
    pend: Roll | Battle | None

    def begin_attempt(self: EmpiresState, kind: str, c: int, target: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Character c spends his attempt of the round on ``target``."""
        p = self.player
        n = self.g.num_players
        self.acted[c] = True
        r = Roll(kind, c, target, [(p + i) % n for i in range(n)])
        if kind == "intrigue":
            opts = tuple(x for x in self.sites_of(c) if self.at_site(target, x))
        else:
            opts = self.sites_of(c)
        self.pend = r
        if len(opts) > 1:
            r.opts, self.actor = opts, p
            return
        self.site[c] = opts[0]
        self.setup_roll(r)

    def setup_roll(self: EmpiresState, r: Roll) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Compute the numbers of the roll; a first mobilisation at home succeeds at once."""
        cards, me = self.g.cards, self.g.map
        c, t = r.char, r.target
        if r.kind == "mobilise":
            army = cards[t]
            if not self.mobilised[t] and self.site[c] == army.homes[0]:
                self.note = f"{cards[c].name} mobilises {army.name} at home automatically"
                self.finish_mobilise(c, t, True)
                return
            r.need = army.influence + me.dist[me.site_region[self.site[c]]][army.region]
            if army.edition != cards[c].edition:
                r.need += OTHER_EDITION_MALUS
        else:
            r.base = self.free_di(c)
            r.need = cards[t].mind + 2 * sum(cards[a].strength for a in self.armies_of(t))
        r.stage = "bribe"
        r.next_briber(self)

    def resolve_roll(self: EmpiresState, r: Roll) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Mobilise: 2d6 + bribes > number + penalties. Intrigue: DI + 2d6 + bribes >
        mind (+ twice the lord's armies) + 2d6."""
        if r.kind == "mobilise":
            ok = r.a + r.points > r.need
            self.note = (f"{self.card_name(r.char)} rolls {r.a}{r.points:+d} against "
                         f"{r.need} for {self.card_name(r.target)}: {'success' if ok else 'failure'}")
            self.finish_mobilise(r.char, r.target, ok)
            return
        ok = r.base + r.a + r.points > r.need + r.b
        self.note = (f"intrigue {self.card_name(r.char)} {r.base}+{r.a}{r.points:+d} against "
                     f"{self.card_name(r.target)} {r.need}+{r.b}: {'success' if ok else 'failure'}")
        if ok:
            self.defect(r.char, r.target)
        self.back_to_main()

    def finish_mobilise(self: EmpiresState, c: int, army: int, ok: bool) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """A mobilised army lies under its lord; a failed one is discarded.
        Either way the army has had its first attempt: "Die erstmalige
        Mobilmachung ( Einflußversuch )" is automatic at home only once."""
        self.mobilised[army] = True
        if ok:
            self._to_table(army, self.owner[c])
            self.lord[army] = c
        else:
            self.leave(army, DISCARD)
        self.back_to_main()

    def defect(self: EmpiresState, c: int, t: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Target t changes to c's player with his armies; c becomes the new lord if his
        free DI can hold t, else t counts against the limit and is discarded if it is exceeded."""
        p = self.owner[c]
        holds = self.free_di(c) >= self.g.cards[t].mind
        self.move_character(t, p)
        if holds:
            for a in self.armies_of(t):
                self.lord[a] = c
            self.master[t] = c
        elif self.mind_used(p) > INFLUENCE_LIMIT:
            self.remove_character(t)
