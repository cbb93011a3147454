"""The main phase of a turn: characters, influence attempts, campaigns, optional cards.

Legal here (rule 2 and 3): play a character from hand within the influence
limit; discard an own character; each character not yet used this round
mobilises an army from hand or intrigues against a character of another
player at the same home site; each army not yet used campaigns against an
army of the other edition; with options, free prisoners and play hazards.
``NO`` ends the phase (then one card is discarded, rule 4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wdg.games.empires_of_middle_earth.codes import NO
from wdg.games.empires_of_middle_earth.common import DISCARD, HAND, INFLUENCE_LIMIT

if TYPE_CHECKING:
    from wdg.games.empires_of_middle_earth.campaign import Battle
    from wdg.games.empires_of_middle_earth.rolls import Roll
    from wdg.games.empires_of_middle_earth.state import EmpiresState


class MainMixin:
    """Legal actions and their effects in the main phase (mixed into the state)."""

    # the state's attributes these methods set (declared in EmpiresState.__init__)
    actor: int
    note: str
    waive: bool
    pend: Roll | Battle | None

    def _main_actions(self: EmpiresState) -> list[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        p, cards, codes, n = self.player, self.g.cards, self.g.codes, self.g.codes.n
        hand, mine = self.hands[p], self.table[p]
        acts = [NO]
        room = INFLUENCE_LIMIT - self.mind_used(p)
        chars = [c for c in mine if cards[c].kind == "character"]
        ready = [c for c in chars if not self.acted[c]]
        acts += [codes.play + c for c in hand if cards[c].kind == "character" and cards[c].mind <= room]
        acts += [codes.drop + c for c in chars]
        hand_armies = [a for a in hand if cards[a].kind == "army"]
        for c in ready:
            base = codes.mob + c * n
            acts += [base + a for a in hand_armies if self._may_mobilise(c, a)]
        if ready:
            acts += self._intrigue_actions(ready)
        acts += self.campaign_actions()
        if self.g.params["liberation"]:
            acts += self._liberate_actions(ready)
        if self.g.params["event_cards"]:
            acts += self._hazard_actions()
        acts.sort()
        return acts

    def _may_mobilise(self: EmpiresState, c: int, a: int) -> bool:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """The shadow army needs its named character and its key card in hand (2.2.2)."""
        army = self.g.cards[a]
        if not army.needs_character:
            return True
        return self.g.cards[c].name == army.needs_character and self._key_card(a) >= 0

    def _key_card(self: EmpiresState, a: int) -> int:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        want = self.g.cards[a].needs_card
        return next((k for k in self.hands[self.player] if self.g.cards[k].name == want), -1)

    def _intrigue_actions(self: EmpiresState, ready: list[int]) -> list[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        p, cards, codes = self.player, self.g.cards, self.g.codes
        others = [t for q in range(self.g.num_players) if q != p
                  for t in self.table[q] if cards[t].kind == "character"]
        acts = []
        for c in ready:
            mine = self.sites_of(c)
            base = codes.intrigue + c * codes.n
            acts += [base + t for t in others if any(self.at_site(t, x) for x in mine)]
        return acts

    def _liberate_actions(self: EmpiresState, ready: list[int]) -> list[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Prisoners need ``helpers`` other unused characters of their edition and gold (2.2.1)."""
        p, cards, codes = self.player, self.g.cards, self.g.codes
        acts = []
        for k in self.hands[p]:
            card = cards[k]
            if card.kind != "prisoners" or self.gold[p] < card.cost:
                continue
            same = [c for c in ready if cards[c].edition == card.edition]
            if len(same) > card.helpers:
                acts += [codes.liberate + k * codes.n + c for c in same]
        return acts

    def _hazard_actions(self: EmpiresState) -> list[int]:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        p, cards, codes = self.player, self.g.cards, self.g.codes
        acts = []
        for h in self.hands[p]:
            card = cards[h]
            if card.kind != "hazard":
                continue
            for q in range(self.g.num_players):
                if q == p:
                    continue
                for t in self.table[q]:
                    tc = cards[t]
                    if card.effect == "dissolve_army" and tc.kind == "army" and tc.strength <= card.limit:
                        acts.append(codes.hazard + h * codes.n + t)
                    elif card.effect == "return_character" and tc.kind == "character" \
                            and tc.mind <= card.limit:
                        acts.append(codes.hazard + h * codes.n + t)
        return acts

    def _apply_main(self: EmpiresState, action: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        codes, n = self.g.codes, self.g.codes.n
        if action == NO:
            self.finish_main()
            return
        self.waive = False
        if action < codes.drop:
            self._to_table(action - codes.play, self.player)
        elif action < codes.final:
            self.remove_character(action - codes.drop)
        elif action < codes.intrigue:
            c, a = divmod(action - codes.mob, n)
            if self.g.cards[a].needs_card:
                self.leave(self._key_card(a), DISCARD)
            self.begin_attempt("mobilise", c, a)
        elif action < codes.campaign:
            c, t = divmod(action - codes.intrigue, n)
            self.begin_attempt("intrigue", c, t)
        elif action < codes.liberate:
            a, t = divmod(action - codes.campaign, n)
            self.declare_campaign(a, t)
        elif action < codes.hazard:
            k, c = divmod(action - codes.liberate, n)
            self._liberate(k, c)
        else:
            h, t = divmod(action - codes.hazard, n)
            self._hazard(h, t)

    def _liberate(self: EmpiresState, k: int, lord: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Two (``helpers``) other characters take the strikes, spending their attempts;
        the lord mobilises the prisoners, who have no home site (2.2.1)."""
        p, cards = self.player, self.g.cards
        card = cards[k]
        helpers = [c for c in self.table[p] if cards[c].kind == "character" and c != lord
                   and not self.acted[c] and cards[c].edition == card.edition][:card.helpers]
        for c in helpers + [lord]:
            self.acted[c] = True
        self.gold[p] -= card.cost
        self._to_table(k, p)
        self.lord[k] = lord
        self.mobilised[k] = True
        self.note = f"{cards[lord].name} frees {card.name}"

    def _hazard(self: EmpiresState, h: int, t: int) -> None:  # type: ignore[misc]  # self: the EmpiresState it is mixed into
        """Dissolution: the army is discarded. Call of home: the character returns to his
        owner's hand, his armies are discarded."""
        cards = self.g.cards
        self.leave(h, DISCARD)
        if cards[h].effect == "dissolve_army":
            self.leave(t, DISCARD)
        else:
            q = self.owner[t]
            for a in self.armies_of(t):
                self.leave(a, DISCARD)
            followers = [f for f in self.table[q] if self.master[f] == t]
            self.table[q].remove(t)
            self.master[t] = -1
            self.where[t] = HAND
            self.hands[q].append(t)
            self.release(followers, q)
        self.note = f"{cards[h].name} on {cards[t].name}"
