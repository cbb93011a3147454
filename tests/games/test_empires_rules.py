"""Rule tests of Empires of Middle-earth: one hand-built situation per rule, the rule quoted."""

from __future__ import annotations

from typing import Any

import pytest

from wdg.games.base import CHANCE, GameError, load_game
from wdg.games.empires_of_middle_earth.codes import BRIBE_MAX, DRAW, NO, YES
from wdg.games.empires_of_middle_earth.common import DISCARD, HAND, OUT, PLAY
from wdg.games.empires_of_middle_earth.state import EmpiresState


def new_state(players: int = 3, **params: Any) -> EmpiresState:
    """A game whose start player P0 is in the draw phase with 1 gold."""
    game = load_game("empires_of_middle_earth", players=players, **params)
    s = game.new_initial_state()
    s.apply_action(0)
    return s


def cid(s: EmpiresState, name: str) -> int:
    """Card id of ``name``."""
    return next(c.id for c in s.g.cards if c.name == name)


def to_hand(s: EmpiresState, name: str, p: int) -> int:
    """Move a card from the deck into player p's hand."""
    c = cid(s, name)
    s.deck.remove(c)
    s.where[c], s.owner[c] = HAND, p
    s.hands[p].append(c)
    return c


def to_table(s: EmpiresState, name: str, p: int, lord: str | None = None) -> int:
    """Put a card from the deck on player p's table (an army under ``lord``)."""
    c = to_hand(s, name, p)
    s._to_table(c, p)
    if lord is not None:
        s.lord[c] = cid(s, lord)
        s.mobilised[c] = True
    return c


def main_phase(s: EmpiresState) -> None:
    """End the draw phase of the turn player."""
    s.apply_action(0)


def mob(s: EmpiresState, char: str, army: str) -> int:
    """Action: ``char`` tries to mobilise ``army``."""
    return s.g.codes.mob + cid(s, char) * s.g.codes.n + cid(s, army)


def bribe(s: EmpiresState, k: int) -> int:
    """Action: bribe k points."""
    return s.g.codes.bribe + BRIBE_MAX + k


def pick(s: EmpiresState, name: str) -> int:
    """Action: choose card ``name``."""
    return s.g.codes.pick + cid(s, name)


def campaign(s: EmpiresState, army: str, target: str) -> int:
    """Action: ``army`` campaigns against ``target``."""
    return s.g.codes.campaign + cid(s, army) * s.g.codes.n + cid(s, target)


# ---------------------------------------------------------------- 1. drawing

def test_two_cards_are_free_then_the_third_costs_2_the_fourth_4_the_fifth_8() -> None:
    """"Jeder bekommt 2 Karten gratis pro Runde. Jede weitere Karte kostet Gold: die 3. Karte
    2 Gold, die 4. Karte weitere 4 (insgesamt 6), die 5. Karte weitere 8 (insgesamt 14)"."""
    s = new_state()
    s.gold[0] = 20
    paid = []
    for _ in range(5):
        before = s.gold[0]
        s.apply_action(DRAW)
        assert s.current_player() == CHANCE
        s.apply_action(s.deck[0])
        paid.append(before - s.gold[0])
    assert paid == [0, 0, 2, 4, 8]
    assert len(s.hands[0]) == 5
    assert DRAW not in s.legal_actions()  # the 6th would cost 16, only 6 gold left


def test_any_card_of_the_open_discard_pile_may_be_taken_instead() -> None:
    """"Dann kann er sich Karten vom verdeckten Spielstapel oder beliebig aus dem stets offenen
    Abwurfstapel nehmen."""
    s = new_state()
    c = cid(s, "Legolas")
    s.deck.remove(c)
    s.where[c] = DISCARD
    s.discard.append(c)
    s.apply_action(s.g.codes.take + c)
    assert c in s.hands[0] and not s.discard


def test_income_is_one_gold_plus_the_strength_of_own_armies() -> None:
    """"Jeder bekommt am Anfang seines Zuges 1 Gold plus die Siegpunktzahl seiner ausliegenden
    Heere."""
    s = new_state()
    to_table(s, "Theoden", 1)
    to_table(s, "Riders of Rohan", 1, lord="Theoden")
    s._begin_turn(1)
    assert s.gold[1] == 1 + 3


# ---------------------------------------------------------------- 2.1 characters

def test_characters_may_not_exceed_the_influence_limit_of_30() -> None:
    """"Die Summe der Geisteskraft der Charaktere darf das allgemeine Einflußlimit [30] nicht
    übersteigen."""
    s = new_state()
    for name in ("Elrond", "Cirdan", "Thranduil"):  # 10 + 10 + 9 = 29
        to_table(s, name, 0)
    kili, bilbo = to_hand(s, "Kili", 0), to_hand(s, "Balin", 0)  # minds 3 and 5
    main_phase(s)
    acts = s.legal_actions()
    assert s.g.codes.play + kili not in acts and s.g.codes.play + bilbo not in acts
    s.apply_action(s.g.codes.drop + cid(s, "Thranduil"))  # discard at will
    assert s.g.codes.play + kili in s.legal_actions()


# ---------------------------------------------------------------- 2.2 mobilising

def test_first_mobilisation_at_the_own_home_site_succeeds_without_a_roll() -> None:
    """"Die erstmalige Mobilmachung auf ein Heer gelingt einem Charakter am gleichen Heimatort
    automatisch." The army lies under its lord."""
    s = new_state()
    to_table(s, "Theoden", 0)
    riders = to_hand(s, "Riders of Rohan", 0)
    main_phase(s)
    s.apply_action(mob(s, "Theoden", "Riders of Rohan"))
    assert s.where[riders] == PLAY and s.lord[riders] == cid(s, "Theoden")
    assert s.pend is None and s.acted[cid(s, "Theoden")]
    assert not any(a >= s.g.codes.mob and a < s.g.codes.intrigue for a in s.legal_actions())


def test_other_armies_need_2d6_above_their_number_plus_distance_and_edition_penalty() -> None:
    """"Einflußwurf mit 2W6 gegen die Angabe auf der Heereskarte ..., der für jede Region
    Entfernung um einen erschwert wird. Heere der anderen Edition erhalten einen zusätzlichen
    Malus von 5." Rohan to Belfalas is 3 regions, Rohan to Dunland 3."""
    s = new_state()
    to_table(s, "Theoden", 0)
    to_table(s, "Eomer", 0)
    to_hand(s, "Knights of Dol Amroth", 0)
    to_hand(s, "Dunlendings", 0)
    main_phase(s)
    s.apply_action(mob(s, "Theoden", "Knights of Dol Amroth"))
    assert s.pend.need == 8 + 3
    s.pend = None
    s.apply_action(mob(s, "Eomer", "Dunlendings"))
    assert s.pend.need == 8 + 3 + 5


def test_a_failed_mobilisation_discards_the_army_and_a_second_one_at_home_is_rolled() -> None:
    """"Sollte ein Einflußwurf mißlingen wird das Heer abgeworfen." Only the first mobilisation
    at home is automatic."""
    s = new_state()
    s.gold[0] = 0
    to_table(s, "Eomer", 0)
    riders = to_hand(s, "Riders of Rohan", 0)
    s.mobilised[riders] = True  # mobilised once before, later discarded
    main_phase(s)
    s.apply_action(mob(s, "Eomer", "Riders of Rohan"))
    assert s.pend.need == 9 and s.current_player() == CHANCE
    s.apply_action(9)  # 9 is not above 9
    assert s.where[riders] == DISCARD and riders in s.discard


# ---------------------------------------------------------------- 2.3 intrigue

def test_intrigue_counts_twice_the_lords_armies_and_the_lord_takes_his_army_along() -> None:
    """"direkten Einfluß des Intriganten sowie 2W6 gegen die Geisteskraft ... plus 2W6. Ein Fürst
    erhält einen zusätzlichen Bonus der doppelten Stärke ... Sollte der Fürst tatsächlich
    überlaufen wechselt auch das Heer mit." Eomer (DI 1) against Theoden (6) with Riders (3)."""
    s = new_state()
    s.gold = [0, 0, 0]
    to_table(s, "Eomer", 0)
    theoden = to_table(s, "Theoden", 1)
    riders = to_table(s, "Riders of Rohan", 1, lord="Theoden")
    main_phase(s)
    s.apply_action(s.g.codes.intrigue + cid(s, "Eomer") * s.g.codes.n + theoden)
    assert (s.pend.base, s.pend.need) == (1, 6 + 2 * 3)
    s.apply_action(12)  # intriguer: 1 + 12 = 13
    s.apply_action(2)   # defender: 12 + 2 = 14 -> fails
    assert s.owner[theoden] == 1
    s.acted[cid(s, "Eomer")] = False
    s.apply_action(s.g.codes.intrigue + cid(s, "Eomer") * s.g.codes.n + theoden)
    s.apply_action(12)
    s.apply_action(2)
    assert s.owner[theoden] == 1
    s.gold[0] = 5
    s.acted[cid(s, "Eomer")] = False
    s.apply_action(s.g.codes.intrigue + cid(s, "Eomer") * s.g.codes.n + theoden)
    s.apply_action(bribe(s, 3))  # 3 points bought before the roll
    s.apply_action(12)
    s.apply_action(2)  # 1 + 12 + 3 = 16 > 14
    assert s.owner[theoden] == 0 and s.owner[riders] == 0 and s.lord[riders] == theoden


def test_an_intriguer_whose_influence_holds_the_lord_becomes_the_new_lord() -> None:
    """"Einen neuen Fürsten gibt es falls der Intrigant selber in der Lage ist mit seinem
    direkten Einfluß den bisherigen Fürsten unterzuordnen." Elrond (DI 4) takes Gildor (mind 4)."""
    s = new_state()
    s.gold = [0, 0, 0]
    elrond = to_table(s, "Elrond", 0)
    gildor = to_table(s, "Gildor Inglorion", 1)
    elves = to_table(s, "Elves of Lindon", 1, lord="Gildor Inglorion")
    main_phase(s)
    s.apply_action(s.g.codes.intrigue + elrond * s.g.codes.n + gildor)
    s.apply_action(12)
    s.apply_action(2)
    assert s.master[gildor] == elrond and s.lord[elves] == elrond and s.owner[elves] == 0
    assert s.mind_used(0) == 10 and s.free_di(elrond) == 0


def test_a_defector_beyond_the_influence_limit_is_discarded_with_his_army() -> None:
    """"Sollte der Einfluß des Spielers nicht reichen, den neuen Führer unter Kontrolle zu
    halten, so wird dieser mit seinem Heer abgeworfen.\""""
    s = new_state()
    s.gold = [3, 0, 0]
    for name in ("Cirdan", "Thranduil", "Eomer", "Kili"):  # 10 + 9 + 5 + 3 = 27
        to_table(s, name, 0)
    theoden2 = to_table(s, "Theoden", 1)
    riders = to_table(s, "Riders of Rohan", 1, lord="Theoden")
    main_phase(s)
    s.apply_action(s.g.codes.intrigue + cid(s, "Eomer") * s.g.codes.n + theoden2)
    s.apply_action(bribe(s, 3))
    s.apply_action(12)
    s.apply_action(2)
    assert s.where[theoden2] == DISCARD and s.where[riders] == DISCARD
