"""Rule tests of Empires of Middle-earth: one hand-built situation per rule, the rule quoted."""

from __future__ import annotations

from typing import Any

import pytest

from wdg.games.base import CHANCE, GameError, load_game
from wdg.games.empires_of_middle_earth.codes import BRIBE_MAX, DRAW, NO, TAKE, YES
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
    s.touch()
    return c


def to_table(s: EmpiresState, name: str, p: int, lord: str | None = None) -> int:
    """Put a card from the deck on player p's table (an army under ``lord``)."""
    c = to_hand(s, name, p)
    s._to_table(c, p)
    if lord is not None:
        s.lord[c] = cid(s, lord)
        s.mobilised[c] = True
    s.touch()
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
    s.apply_action(TAKE)  # then which card of the open pile
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
    number = s.g.cards[cid(s, "Knights of Dol Amroth")].influence  # the number on the card
    assert s.pend.need == number + 3
    s.pend = None
    s.apply_action(mob(s, "Eomer", "Dunlendings"))
    assert s.pend.need == s.g.cards[cid(s, "Dunlendings")].influence + 3 + 5


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
    number = s.g.cards[riders].influence
    assert s.pend.need == number and s.current_player() == CHANCE
    s.apply_action(number)  # not above the number
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


# ---------------------------------------------------------------- 2.4 bribery

def test_bribes_cost_one_gold_per_point_before_and_three_after_the_roll_and_are_pooled() -> None:
    """"mit Gold den Wurf um soviel Punkte verändern, wie er vor dem Wurf ausgibt. Wer nach dem
    Würfelergebnis Geld ausgeben will muß die dreifache Summe bezahlen. ... Zwischen mehreren
    Spielern kann auch zusammengelegt werden.\""""
    s = new_state()
    s.gold = [10, 9, 0]
    to_table(s, "Eomer", 0)
    to_hand(s, "Knights of Dol Amroth", 0)
    main_phase(s)
    s.apply_action(mob(s, "Eomer", "Knights of Dol Amroth"))  # need 11
    assert s.current_player() == 0
    s.apply_action(bribe(s, 2))
    assert s.current_player() == 1  # P2 has no gold and is not asked
    s.apply_action(bribe(s, 1))  # P1 helps too
    assert s.gold == [8, 8, 0] and s.current_player() == CHANCE
    s.apply_action(8)  # 8 + 3 = 11, not above 11
    assert s.current_player() == 0 and max(s.legal_actions()) == bribe(s, 2)  # 8 gold: 2 points
    s.apply_action(bribe(s, 1))
    assert s.gold[0] == 5
    s.apply_action(bribe(s, 0))
    assert s.where[cid(s, "Knights of Dol Amroth")] == PLAY  # 8 + 4 = 12 > 11


def test_bribes_may_work_against_the_roll() -> None:
    """"den Wurf um soviel Punkte verändern" - in either direction; here the defender's owner
    pays against an intrigue."""
    s = new_state()
    s.gold = [0, 4, 0]
    eomer = to_table(s, "Eomer", 0)
    theoden = to_table(s, "Theoden", 1)
    main_phase(s)
    s.apply_action(s.g.codes.intrigue + eomer * s.g.codes.n + theoden)
    s.apply_action(bribe(s, -4))
    s.apply_action(12)
    s.apply_action(4)  # 1 + 12 - 4 = 9 is not above 6 + 4 = 10 (without the bribe: 13 would be)
    assert s.owner[theoden] == 1 and s.gold[1] == 0


def test_optional_surcharge_and_cap_limit_bribes() -> None:
    """"Optional kostet die Bestechung über 3 Punkte hinaus 2 Gold pro Punkt (bzw. nach dem Wurf
    6 Gold) ... auf maximal 5 Punkte begrenzt.\""""
    s = new_state(bribe_surcharge=True, bribe_cap=True)
    assert [s.bribe_cost(k, False) for k in (3, 4, 5)] == [3, 5, 7]
    assert [s.bribe_cost(k, True) for k in (1, 3, 4)] == [3, 9, 15]
    s.gold[0] = 100
    assert s.bribe_range(0, False, 0) == 5 and s.bribe_range(0, True, 4) == 1
    plain = new_state()
    assert plain.bribe_cost(5, False) == 5 and plain.bribe_cost(5, True) == 15


# ---------------------------------------------------------------- 3. campaigns

def eastern_war() -> EmpiresState:
    """P0: Men of Dorwinion (Dorwinion, next to Horse Plains) and Iron Hill Dwarves (Iron Hills,
    3 regions away); P1: Easterlings (Horse Plains); P2: Variags of Khand (next to it)."""
    s = new_state()
    s.gold = [0, 0, 0]
    to_table(s, "Bard Bowman", 0)
    to_table(s, "Men of Dorwinion", 0, lord="Bard Bowman")
    to_table(s, "Dain II", 0)
    to_table(s, "Iron Hill Dwarves", 0, lord="Dain II")
    to_table(s, "Asternak", 1)
    to_table(s, "Easterlings", 1, lord="Asternak")
    to_table(s, "Hador", 2)
    to_table(s, "Variags of Khand", 2, lord="Hador")
    main_phase(s)
    return s


def test_campaign_with_support_allies_distance_penalty_and_the_leaders_choices() -> None:
    """"Es kann dabei von beliebig vielen Heeren der gleichen Edition unterstützt werden ...
    der Verteidiger [kann] alle Heere dergleichen Edition zur Hilfe rufen, die höchstens eine
    Region entfernt ... haben einen Abzug von 1 ... Auch der Angreifer muß für je volle 3
    Regionen die Angriffstärke des Heeres um 1 reduzieren ... darf sich der Heerführer ein
    teilnehmendes Heer seiner Seite aussuchen." The captured characters go to the victor."""
    s = eastern_war()
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    b = s.pend
    assert b.stage == "support" and s.current_player() == 0
    s.apply_action(pick(s, "Iron Hill Dwarves"))
    assert b.stage == "help" and s.current_player() == 2
    s.apply_action(YES)
    assert b.stage == "leader" and s.current_player() == 1
    s.apply_action(pick(s, "Hador"))  # the ally's lord leads the defence
    vals = {s.card_name(x): v for x, v in b.val.items()}
    assert vals == {"Men of Dorwinion": 2, "Iron Hill Dwarves": 2, "Easterlings": 3,
                    "Variags of Khand": 2}
    for die in (1, 6, 3, 5):  # Dorwinion hits, Dwarves miss, Easterlings hit, Variags miss
        assert s.current_player() == CHANCE
        s.apply_action(die)
    assert b.stage == "loss_d" and s.current_player() == 2  # Hador's player chooses
    s.apply_action(pick(s, "Easterlings"))
    assert b.stage == "loss_a" and s.current_player() == 0
    s.apply_action(pick(s, "Iron Hill Dwarves"))
    assert s.where[cid(s, "Easterlings")] == OUT and s.where[cid(s, "Iron Hill Dwarves")] == OUT
    # Asternak (Easterling Camp) goes to P0's leader; Dain II (Iron Hill Dwarf-hold) to Hador's P2
    assert b.stage == "capture" and s.current_player() == 0
    s.apply_action(YES)
    assert s.owner[cid(s, "Asternak")] == 0
    assert s.current_player() == 2
    s.apply_action(NO)
    assert s.where[cid(s, "Dain II")] == DISCARD
    assert s.pend is None and s.phase == "main"


def test_regions_of_the_other_edition_cannot_be_passed() -> None:
    """"Eine Region mit einem Fürsten einer gegnerischen Edition kann niemals durchzogen
    werden." Minion lords in Northern Rhovanion and the Withered Heath shut in the dwarves."""
    s = eastern_war()
    dwarves = cid(s, "Iron Hill Dwarves")
    s.region[cid(s, "Variags of Khand")] = s.g.map.regions.index("Northern Rhovanion")
    to_table(s, "Orcs of Gundabad", 2, lord="Hador")
    s.region[cid(s, "Orcs of Gundabad")] = s.g.map.regions.index("Withered Heath")
    acts = s.legal_actions()
    assert campaign(s, "Iron Hill Dwarves", "Easterlings") not in acts  # way shut
    assert campaign(s, "Iron Hill Dwarves", "Variags of Khand") in acts  # the end may be held
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    assert s.pend.stage == "dice"  # the dwarves cannot come: no support offered
    assert dwarves not in s.pend.att


def test_a_lord_who_forbids_passage_can_stop_a_campaign() -> None:
    """"Sollte auf dem Weg eine Region liegen, dessen Fürst einen Durchzug nicht gestattet, muß
    sich das Heer einen anderen Weg suchen." Iron Hills' only ways lead through Northern
    Rhovanion and the Withered Heath, both held by P2's heroes."""
    s = eastern_war()
    to_table(s, "Beorn", 2)
    to_table(s, "Beornings", 2, lord="Beorn")
    to_table(s, "Wood-elves", 2, lord="Beorn")
    s.region[cid(s, "Beornings")] = s.g.map.regions.index("Northern Rhovanion")
    s.region[cid(s, "Wood-elves")] = s.g.map.regions.index("Withered Heath")
    s.apply_action(campaign(s, "Iron Hill Dwarves", "Easterlings"))
    assert s.pend.stage == "passage" and s.current_player() == 2
    s.apply_action(NO)
    assert s.pend is None and "no way" in s.note
    assert s.acted[cid(s, "Iron Hill Dwarves")]


def test_armies_are_destroyed_simultaneously_and_no_one_takes_the_characters() -> None:
    """"Die Kämpfe finden simultan statt, d.h. beide Heere können gleichzeitig vernichtet
    werden." "(sofern es einen gibt)": without a victor the characters stay."""
    s = eastern_war()
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    s.apply_action(NO)  # no support
    s.apply_action(NO)  # Variags stay out
    s.apply_action(2)
    s.apply_action(3)
    assert s.where[cid(s, "Men of Dorwinion")] == OUT and s.where[cid(s, "Easterlings")] == OUT
    assert s.owner[cid(s, "Asternak")] == 1 and s.owner[cid(s, "Bard Bowman")] == 0
    assert s.pend is None


def test_armies_below_combat_value_1_do_not_fight() -> None:
    """"Heere mit einem Kampfwert insgesamt unter 1 nehmen nicht an der Schlacht teil." A
    strength-1 ally would fight at 0 and is not even asked."""
    s = eastern_war()
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    assert s.pend.val[cid(s, "Men of Dorwinion")] == 2
    assert s.attack_value(cid(s, "Men of Dorwinion"), 4) == 1
    assert s.attack_value(cid(s, "Men of Dorwinion"), 5) == 0


def test_a_siege_holds_the_armies_in_the_region_and_fights_again_next_turn() -> None:
    """"es sei denn der zum Heerführer ausgerufene Fürst befielt eine Belagerung in der Region
    und die Heere kämpfen auch im nächsten Zug gemeinsam gegen den Belagerten. Als neue Region
    aller Heere des Belagerers gilt nun die gleiche Region des Belagerten.\""""
    s = eastern_war()
    men, east = cid(s, "Men of Dorwinion"), cid(s, "Easterlings")
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    s.apply_action(NO)
    s.apply_action(NO)
    s.apply_action(6)
    s.apply_action(6)  # both miss
    assert s.pend.stage == "siege" and s.current_player() == 0
    s.apply_action(YES)
    assert s.region[men] == s.region[east] and s.sieges == [(0, east, (men,), s.turn)]
    assert campaign(s, "Men of Dorwinion", "Easterlings") not in s.legal_actions()
    s._begin_turn(0)
    s.apply_action(NO)  # end of drawing: the siege is fought before anything else
    b = s.pend
    assert b is not None and b.att == [men] and b.val[men] == 2 and s.acted[men]
    assert not s.sieges


# ---------------------------------------------------------------- optional rules

def test_mountain_defence_and_siege_engines_raise_combat_values() -> None:
    """"Optional kann der Verteidiger in einem Gebirgsland einen Bonus von 1 ... 1 Gold pro Heer
    ... Bei weiteren 3 Gold ... den doppelten Bonus. Der Angreifer kann 2 Gold für
    Belagerungsmaschinen ausgeben, die seinen Kampfwert um 1 erhöhen.\""""
    s = new_state(fortifications=True)
    s.gold = [2, 4, 0]
    to_table(s, "Beorn", 0)
    to_table(s, "Beornings", 0, lord="Beorn")  # Anduin Vales, next to Gundabad
    to_table(s, "Orc Captain", 1)
    to_table(s, "Orcs of Gundabad", 1, lord="Orc Captain")  # Gundabad is mountainous
    main_phase(s)
    s.apply_action(campaign(s, "Beornings", "Orcs of Gundabad"))
    assert s.pend.stage == "prep_a"
    s.apply_action(YES)
    assert s.gold[0] == 0 and s.current_player() == 1
    assert s.g.codes.fort + 2 in s.legal_actions()  # 1 army + 3 gold = 4
    s.apply_action(s.g.codes.fort + 2)
    assert s.gold[1] == 0
    assert s.pend.val == {cid(s, "Beornings"): 3, cid(s, "Orcs of Gundabad"): 5}


def test_ties_are_broken_by_strength_only_with_the_option() -> None:
    """"Optional entscheidet bei Gleichstand die Stärke der Heere und danach erst die Zahl der
    Charaktere und danach ihre Geisteskraft.\""""
    for tie_breaks, expected in ((False, [0.5, 0.5]), (True, [1.0, 0.0])):
        s = new_state(players=2, tie_breaks=tie_breaks)
        to_table(s, "Theoden", 0)
        to_table(s, "Riders of Rohan", 0, lord="Theoden")
        to_table(s, "Beorn", 1)
        to_table(s, "Beornings", 1, lord="Beorn")
        s.deck.clear()
        s._end_turn()
        assert s.is_terminal() and s.legal_actions() == []
        assert s.scores() == [1.0, 1.0] and s.returns() == expected


def test_the_game_ends_when_the_deck_is_exhausted() -> None:
    """"Gewonnen hat, wer am Ende des verdeckten Kartenstapels das größte Imperium beeinflußt.
    Hierfür werden die Zahl der Heere addiert." The turn that draws the last card is finished."""
    s = new_state(players=2)
    last = s.deck[-1]
    del s.deck[:-1]
    s.apply_action(DRAW)
    s.apply_action(last)
    assert not s.is_terminal()
    s.apply_action(NO)
    s.apply_action(NO)
    s.apply_action(s.g.codes.final + last)
    assert s.is_terminal() and s.current_player() < 0


def test_prisoners_are_freed_by_three_characters_and_gold_and_bring_no_income() -> None:
    """"indem 2 Heldencharaktere die angegebenen Hiebe in Verbrauch ihrer Einflußaktionen nehmen
    ... ein weiterer Charakter die Gefangenen unter sich mobilisieren kann, indem der Spieler
    zusätzlich z.B. 5 Gold ... zahlt. Diese Heere haben keinen Heimatort ... bringen auch kein
    Gold.\""""
    s = new_state(liberation=True)
    s.gold[0] = 5
    for name in ("Faramir", "Beorn", "Balin"):
        to_table(s, name, 0)
    freed = to_hand(s, "Freed Captives of Dol Guldur", 0)
    main_phase(s)
    s.apply_action(s.g.codes.liberate + freed * s.g.codes.n + cid(s, "Beorn"))
    assert s.where[freed] == PLAY and s.lord[freed] == cid(s, "Beorn") and s.gold[0] == 0
    assert all(s.acted[cid(s, n)] for n in ("Faramir", "Beorn", "Balin"))
    s._begin_turn(0)
    assert s.gold[0] == 1 and s.scores()[0] == 1.0


def test_the_shadow_army_needs_aragorn_and_the_paths_of_the_dead() -> None:
    """"Die Pfade der Toten sind zusammen mit Aragorn notwendig um das Schattenheer zu
    beeinflußen.\""""
    s = new_state(shadow_army=True)
    to_table(s, "Aragorn II", 0)
    to_table(s, "Faramir", 0)
    to_hand(s, "Shadow Host of Erech", 0)
    main_phase(s)
    assert mob(s, "Aragorn II", "Shadow Host of Erech") not in s.legal_actions()
    paths = to_hand(s, "Paths of the Dead", 0)
    acts = s.legal_actions()
    assert mob(s, "Aragorn II", "Shadow Host of Erech") in acts
    assert mob(s, "Faramir", "Shadow Host of Erech") not in acts
    s.apply_action(mob(s, "Aragorn II", "Shadow Host of Erech"))
    assert s.where[paths] == DISCARD


def test_a_deck_character_without_home_site_is_refused(tmp_path: Any) -> None:
    """"Ein Charakter ohne Heimatort kann nicht im Spielstapel aufgenommen werden.\""""
    deck = tmp_path / "deck.yaml"
    deck.write_text("cards:\n  - {kind: character, name: Wanderer, edition: hero, mind: 3, di: 0}\n")
    with pytest.raises(GameError, match="home site"):
        load_game("empires_of_middle_earth", deck_file=str(deck))
    deck.write_text("cards:\n  - {kind: army, name: Nobody, edition: hero, strength: 1, "
                    "influence: 7, home: Atlantis}\n")
    with pytest.raises(GameError, match="Atlantis"):
        load_game("empires_of_middle_earth", deck_file=str(deck))
