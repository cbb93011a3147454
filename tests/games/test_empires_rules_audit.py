"""Empires of Middle-earth: rules of the rule book that ``test_empires_rules.py``
does not yet show (the audit in ``docs/games-rules-coverage.md``)."""

from __future__ import annotations

from wdg.games.base import CHANCE
from wdg.games.empires_of_middle_earth.codes import DRAW, NO, TAKE
from wdg.games.empires_of_middle_earth.common import DISCARD, HAND, PLAY
from wdg.games.empires_of_middle_earth.state import EmpiresState

from tests.games.test_empires_rules import (
    campaign, cid, eastern_war, main_phase, mob, new_state, to_hand, to_table,
)


def discard_pile(s: EmpiresState, name: str) -> int:
    """Move a card from the deck onto the open discard pile."""
    c = cid(s, name)
    s.deck.remove(c)
    s.where[c] = DISCARD
    s.discard.append(c)
    s.touch()
    return c


# ---------------------------------------------------------------- round

def test_the_start_player_is_rolled_and_turns_go_round_clockwise() -> None:
    """"Der Startspieler wird ausgewürfelt. Danach ist die Zugreihenfolge reihum im
    Uhrzeigersinn." """
    from wdg.games.base import load_game
    s = load_game("empires_of_middle_earth", players=3).new_initial_state()
    assert s.current_player() == CHANCE and s.legal_actions() == [0, 1, 2]
    s.apply_action(2)
    order = []
    for _ in range(4):
        order.append(s.player)
        s.apply_action(NO)  # no card drawn
        s.apply_action(NO)  # main phase over; no card to discard
    assert order == [2, 0, 1, 2]


def test_drawing_may_stop_and_the_main_phase_ends_with_one_discard_from_hand_or_table() -> None:
    """"4. Ende des Zuges: Der Spieler beendet ... seinen Zug indem er eine Karte abwirft
    ( wahlweise eine ausliegende Karte )." """
    s = new_state()
    elrond = to_table(s, "Elrond", 0)
    kili = to_hand(s, "Kili", 0)
    main_phase(s)
    s.apply_action(NO)
    assert s.phase == "end" and s.legal_actions() == sorted(s.g.codes.final + c for c in (elrond, kili))
    s.apply_action(s.g.codes.final + elrond)
    assert s.where[elrond] == DISCARD and s.player == 1


# ---------------------------------------------------------------- 2.1 characters

def test_a_character_with_several_home_sites_chooses_one_at_his_first_attempt_for_good() -> None:
    """"Charaktere und Agenten mit mehreren Heimatorten müssen sich erst beim ersten
    Einflußversuch für einen der Orte entscheiden und können nicht mehr wechseln." """
    s = new_state()
    multi = next(c for c in s.g.cards if c.kind == "character" and len(c.homes) > 1
                 and not c.agent)
    char = to_table(s, multi.name, 0)
    army = next(a for a in s.g.cards if a.kind == "army" and a.edition == multi.edition
                and a.homes[0] == multi.homes[1] and not a.needs_character)
    to_hand(s, army.name, 0)
    main_phase(s)
    assert s.site[char] == -1 and s.at_site(char, multi.homes[0]) and s.at_site(char, multi.homes[1])
    s.apply_action(mob(s, multi.name, army.name))
    assert s.pend.stage == "home" and s.current_player() == 0
    s.apply_action(s.g.codes.site + multi.homes[1])
    assert s.site[char] == multi.homes[1] and s.where[army.id] == PLAY  # at home: automatic
    assert s.sites_of(char) == (multi.homes[1],)


def test_each_character_makes_exactly_one_influence_attempt_per_round() -> None:
    """"Jeder Charakter kann pro Runde genau einen Einflußversuch ... unternehmen." """
    s = new_state()
    to_table(s, "Theoden", 0)
    to_hand(s, "Riders of Rohan", 0)
    to_hand(s, "Knights of Dol Amroth", 0)
    main_phase(s)
    s.apply_action(mob(s, "Theoden", "Riders of Rohan"))
    assert mob(s, "Theoden", "Knights of Dol Amroth") not in s.legal_actions()
    s._begin_turn(0)  # his next round
    s.apply_action(NO)
    assert mob(s, "Theoden", "Knights of Dol Amroth") in s.legal_actions()


# ---------------------------------------------------------------- 2.2 mobilising

def test_only_the_first_influence_attempt_on_an_army_is_automatic_at_home() -> None:
    """"Die erstmalige Mobilmachung ( Einflußversuch ) auf ein Heer gelingt einem Charakter am
    gleichen Heimatort automatisch." An army whose first attempt (from afar) failed is rolled
    for later even at its home site; an army never tried is not."""
    s = new_state()
    s.gold = [0, 0, 0]
    to_table(s, "Imrahil", 0)  # Dol Amroth, far from Edoras
    riders = to_hand(s, "Riders of Rohan", 0)
    main_phase(s)
    s.apply_action(mob(s, "Imrahil", "Riders of Rohan"))
    assert s.current_player() == CHANCE
    s.apply_action(2)  # failed: the army is discarded
    assert s.where[riders] == DISCARD
    s._begin_turn(1)
    to_table(s, "Theoden", 1)  # at the Riders' home site
    s.apply_action(TAKE)  # then which card of the open pile
    s.apply_action(s.g.codes.take + riders)
    s.apply_action(NO)
    s.apply_action(mob(s, "Theoden", "Riders of Rohan"))
    assert s.pend is not None and s.pend.need == s.g.cards[riders].influence  # rolled, not automatic
    fresh = new_state()
    to_table(fresh, "Theoden", 0)
    to_hand(fresh, "Riders of Rohan", 0)
    main_phase(fresh)
    fresh.apply_action(mob(fresh, "Theoden", "Riders of Rohan"))
    assert fresh.pend is None and fresh.owner[cid(fresh, "Riders of Rohan")] == 0


def test_a_mobilised_army_cannot_be_influenced_by_other_players() -> None:
    """"Sollte er das Heer mobilisiert haben wird es auf den Charakter ( Fürst ) gelegt. Nun
    kann kein anderer Spieler mehr ein Einflußwurf auf das Heer versuchen." """
    s = new_state()
    to_table(s, "Eomer", 0)
    riders = to_table(s, "Riders of Rohan", 1, lord="Theoden")
    to_table(s, "Theoden", 1)
    main_phase(s)
    mob_range = range(s.g.codes.mob, s.g.codes.intrigue)
    assert not any(a in mob_range and (a - s.g.codes.mob) % s.g.codes.n == riders
                   for a in s.legal_actions())


def test_a_failed_army_may_be_taken_from_the_discard_pile_and_tried_again() -> None:
    """"Später können andere Spieler versuchen dieses Heer in seinem Zug zu mobilisieren, sofern
    sie es vorher aus dem für alle offenen Abwurfstapel wählen." """
    s = new_state()
    to_table(s, "Eomer", 0)
    knights = discard_pile(s, "Knights of Dol Amroth")
    main_phase(s)
    assert mob(s, "Eomer", "Knights of Dol Amroth") not in s.legal_actions()  # not in hand
    t = new_state()
    to_table(t, "Eomer", 0)
    knights = discard_pile(t, "Knights of Dol Amroth")
    t.apply_action(TAKE)  # then which card of the open pile
    t.apply_action(t.g.codes.take + knights)
    assert t.where[knights] == HAND
    t.apply_action(NO)
    assert mob(t, "Eomer", "Knights of Dol Amroth") in t.legal_actions()


# ---------------------------------------------------------------- 2.3 intrigue

def test_intrigues_only_against_characters_of_other_players_at_the_same_home_site() -> None:
    """"Jeder kann Charaktere als Intriganten benutzten um einen Einflußversuch auf einen
    gegnerischen Charakter mit demgleichen Heimatort wie der Intrigant zu machen." """
    s = new_state()
    eomer = to_table(s, "Eomer", 0)
    theoden = to_table(s, "Theoden", 1)
    imrahil = to_table(s, "Imrahil", 1)
    main_phase(s)
    acts = s.legal_actions()
    base = s.g.codes.intrigue + eomer * s.g.codes.n
    assert base + theoden in acts and base + imrahil not in acts


# ---------------------------------------------------------------- 3. campaigns

def test_campaigns_go_only_against_armies_of_the_other_edition() -> None:
    """"Jedes Heer kann gegen ein Heer der anderen Edition ( Gute Dunkle Seite ) zu Felde
    ziehen." """
    s = eastern_war()
    to_table(s, "Beorn", 1)
    to_table(s, "Beornings", 1, lord="Beorn")
    acts = s.legal_actions()
    assert campaign(s, "Men of Dorwinion", "Easterlings") in acts
    assert campaign(s, "Men of Dorwinion", "Beornings") not in acts


def test_adjacent_attacks_are_just_without_penalty_one_region_between_costs_one() -> None:
    """"Auch der Angreifer muß für je volle 3 Regionen die Angriffstärke des Heeres um 1
    reduzieren ( direkt benachbarte Angriffe haben somit gerade eben keinen Abzug ! )." The
    regions of the way are counted from the attacker's to the target's, both included: a
    neighbour's region makes two ("gerade eben" no penalty), one region between makes three."""
    s = new_state()
    x = cid(s, "Men of Dorwinion")  # strength 2
    assert [s.attack_value(x, d) for d in (0, 1, 2, 3, 4, 5)] == [2, 2, 1, 1, 1, 0]


def test_the_defenders_allies_decide_themselves_whether_they_help() -> None:
    """"Dies können auch Heere anderer Spieler sein, sofern die es wollen." P2's Variags stay
    out when P2 says no."""
    s = eastern_war()
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    s.apply_action(NO)  # no support
    b = s.pend
    assert b.stage == "help" and s.current_player() == 2
    s.apply_action(NO)
    assert cid(s, "Variags of Khand") not in b.dfn and b.stage == "dice"


def test_a_capture_discard_by_the_turn_player_serves_as_the_end_of_turn_discard() -> None:
    """"Das Abwerfen erfüllt auch die Verpflichtung der letzten Phase soweit man seinen Zug damit
    beendet und keine weiteren Feldzüge anderer Heere durchführt." """
    s = eastern_war()
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    s.apply_action(NO)  # no support
    s.apply_action(NO)  # Variags stay out
    s.apply_action(1)   # Men of Dorwinion hit
    s.apply_action(6)   # Easterlings miss
    assert s.pend.stage == "capture" and s.current_player() == 0
    s.apply_action(NO)  # Asternak discarded by the victor
    assert s.where[cid(s, "Asternak")] == DISCARD and s.waive
    s.apply_action(NO)  # end of the main phase: no further discard
    assert s.player == 1 and s.phase == "draw"


def test_a_siege_may_be_declined_and_the_armies_retreat() -> None:
    """"Die angreifenden Heere ziehen sich zurück, es sei denn der zum Heerführer ausgerufene
    Fürst befielt eine Belagerung." """
    s = eastern_war()
    men = cid(s, "Men of Dorwinion")
    home = s.region[men]
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    s.apply_action(NO)
    s.apply_action(NO)
    s.apply_action(6)
    s.apply_action(6)
    assert s.pend.stage == "siege"
    s.apply_action(NO)
    assert s.region[men] == home and not s.sieges and s.pend is None


def test_the_draw_phase_offers_the_deck_and_every_discarded_card() -> None:
    """"Dann kann er sich Karten vom verdeckten Spielstapel oder beliebig aus dem stets offenen
    Abwurfstapel nehmen." Both sources are offered side by side."""
    s = new_state()
    a, b = discard_pile(s, "Legolas"), discard_pile(s, "Kili")
    assert s.legal_actions() == [NO, DRAW, TAKE]  # deck or pile, then which card
    s.apply_action(TAKE)
    assert s.legal_actions() == sorted([s.g.codes.take + a, s.g.codes.take + b])
