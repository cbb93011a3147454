"""The search bot's view of Empires of Middle-earth (issue 19, "bots that
think"): a declared campaign is worth its expected result before the dice
fall, the search sees what greedy is blind to, and the luck of the dice is
taken out of its simulations."""

from __future__ import annotations

import numpy as np
import pytest

from wdg.games.base import CHANCE, load_game
from wdg.games.bots import greedy_values
from wdg.games.empires_of_middle_earth.campaign import hit_counts
from wdg.games.empires_of_middle_earth.codes import NO
from wdg.games.empires_of_middle_earth.common import HAND
from wdg.games.empires_of_middle_earth.state import EmpiresState
from wdg.games.ismcts import ISMCTSBot


def duel() -> EmpiresState:
    """Two players, P0 in his main phase with no gold: P0's Bard Bowman
    (Lake-town) leads the Men of Dorwinion (strength 2, in Dorwinion);
    P1's Asternak (Easterling Camp) leads the Easterlings (strength 3, home
    Easterling Camp, in the Horse Plains next door)."""
    s = load_game("empires_of_middle_earth", players=2).new_initial_state()
    s.apply_action(0)
    s.gold = [0, 0]
    for name, p, lord in (("Bard Bowman", 0, None), ("Men of Dorwinion", 0, "Bard Bowman"),
                          ("Asternak", 1, None), ("Easterlings", 1, "Asternak")):
        put(s, name, p, lord)
    s.apply_action(NO)  # stop drawing
    return s


def cid(s: EmpiresState, name: str) -> int:
    return next(c.id for c in s.g.cards if c.name == name)


def put(s: EmpiresState, name: str, p: int, lord: str | None = None) -> int:
    """Card ``name`` from the deck onto player p's table (an army under ``lord``)."""
    c = to_hand(s, name, p)
    s._to_table(c, p)
    if lord is not None:
        s.lord[c] = cid(s, lord)
        s.mobilised[c] = True
    s.touch()
    return c


def to_hand(s: EmpiresState, name: str, p: int) -> int:
    """Card ``name`` from the deck into player p's hand."""
    c = cid(s, name)
    s.deck.remove(c)
    s.where[c], s.owner[c] = HAND, p
    s.hands[p].append(c)
    s.touch()
    return c


def campaign(s: EmpiresState, army: str, target: str) -> int:
    return s.g.codes.campaign + cid(s, army) * s.g.codes.n + cid(s, target)


def test_hit_counts_convolve_the_dice() -> None:
    """Two dice hitting with 1/3 and 1/2, one hit already scored."""
    assert hit_counts([1 / 3, 1 / 2], 1) == pytest.approx([0, 1 / 3, 1 / 2, 1 / 6])


def test_a_declared_campaign_is_worth_its_expected_result_for_the_search_only() -> None:
    """Rule 3.1: "Die Vernichtung eines gegnerischen Heeres gelingt beim
    würfeln kleiner / gleich der Siegpunktzahl des angreifenden Heeres", the
    fight is simultaneous; rule 3: "Sollte ein Heer vernichtet werden ...
    wechseln alle ausliegenden Charaktere desselben Heimatortes zum
    siegreichen Heerführer". The Men of Dorwinion (2, next door: no
    penalty) hit on 1-2, the Easterlings (3) on 1-3:

    - only the Men hit (1/3 * 1/2): P1 loses the Easterlings (10 + 3) and
      Asternak, at their home site, goes over to P0 (2 each way): +17;
    - only the Easterlings hit (2/3 * 1/2): P0 loses his army (10 + 2),
      nobody of his is at its home site Shrel-Kain: -12;
    - both hit (1/6): -12 + 13 = +1; none (1/3): 0.

    Expected: 17/6 - 12/3 + 1/6 = -1 — attacking the stronger army loses.
    Greedy's evaluation sees nothing of it before the dice."""
    s = duel()
    before_eval, before_search = s.evaluate(0), s.search_value(0)
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    assert s.pend is not None and s.pend.stage == "dice"  # no passage, support or help here
    assert s.evaluate(0) == pytest.approx(before_eval)
    assert s.search_value(0) == pytest.approx(before_search - 1.0)
    assert s.search_value(1) == pytest.approx(-s.search_value(0))
    s.apply_action(1)  # the Men of Dorwinion hit: only the Easterlings' die is left
    assert s.search_value(0) == pytest.approx(before_search + 0.5 * (17 + 1) - 0.5 * 0)


def test_the_search_takes_a_winning_campaign_greedy_is_blind_to() -> None:
    """P0's Wood-elves (3) stand next to Asternak's Easterlings (3), with
    P0's Iron Hill Dwarves (3) one region further to support them; Asternak
    also leads the Variags of Khand. Destroying the Easterlings while P0's
    side stands brings Asternak over with the Variags (rule 3, above), so
    the campaign is worth far more than it risks. Greedy rates every
    campaign exactly as ending the phase (nothing changes before the dice);
    the search declares a campaign."""
    s = duel()
    regions = s.g.map.regions
    put(s, "Wood-elves", 0, "Bard Bowman")
    s.region[cid(s, "Wood-elves")] = regions.index("Dorwinion")
    put(s, "Iron Hill Dwarves", 0, "Bard Bowman")
    s.region[cid(s, "Iron Hill Dwarves")] = regions.index("Southern Rhovanion")
    put(s, "Variags of Khand", 1, "Asternak")
    s.touch()
    acts = s.legal_actions()
    marches = [a for a in acts if a >= s.g.codes.campaign]
    assert campaign(s, "Wood-elves", "Easterlings") in marches
    values = dict(zip(acts, greedy_values(s, acts, 0, np.random.default_rng(0))))
    assert all(values[a] == pytest.approx(values[NO]) for a in marches)
    chosen = []
    for seed in range(3):
        bot = ISMCTSBot(30)
        bot.seat = 0
        chosen.append(bot(s.clone(), np.random.default_rng(seed)))
    assert all(a in marches for a in chosen), [s.action_to_string(a) for a in chosen]


def test_the_search_does_not_discard_the_army_the_opponent_raises_at_home() -> None:
    """Rule 2.2: "Die erstmalige Mobilmachung ... auf ein Heer gelingt einem
    Charakter am gleichen Heimatort automatisch ... Später können andere
    Spieler versuchen dieses Heer in seinem Zug zu mobilisieren, sofern sie
    es vorher aus dem für alle offenen Abwurfstapel wählen"; rule 4: the
    turn ends with a card discarded face up. P0, with no character on the
    table, must discard one of two armies worth the same to him; P1's
    Asternak sits at the Easterlings' home site and would raise them for
    nothing. Greedy rates both discards the same; the search counts the
    Easterlings in the pile as P1's (6 in hand, less the 1 of a blind card)
    and discards the other army."""
    s = load_game("empires_of_middle_earth", players=2).new_initial_state()
    s.apply_action(0)
    s.gold = [0, 0]
    put(s, "Asternak", 1)
    east, men = (to_hand(s, name, 0) for name in ("Easterlings", "Men of Dorwinion"))
    s.apply_action(NO)  # stop drawing
    s.apply_action(NO)  # end the main phase
    final = s.g.codes.final
    assert s.legal_actions() == sorted([final + east, final + men])
    ev, sv = {}, {}
    for c in (east, men):
        t = s.clone()
        t.apply_action(final + c)  # P1's turn begins: he draws next
        ev[c], sv[c] = t.evaluate(0), t.search_value(0)
    assert ev[east] == pytest.approx(ev[men])
    assert sv[men] - sv[east] == pytest.approx(6.0 - 1.0)
    acts = s.legal_actions()
    values = greedy_values(s, acts, 0, np.random.default_rng(0))
    assert values[0] == pytest.approx(values[1])
    for seed in range(3):
        bot = ISMCTSBot(30)
        bot.seat = 0
        assert bot(s.clone(), np.random.default_rng(seed)) == final + men


def test_the_search_takes_the_luck_of_the_dice_out_of_its_simulations() -> None:
    """With ``search_removes_luck`` the jump of the search value at a die
    is added to the simulation's base, so value minus base is what it was
    before the die, whichever face fell."""
    s = duel()
    s.apply_action(campaign(s, "Men of Dorwinion", "Easterlings"))
    assert s.current_player() == CHANCE
    bot = ISMCTSBot(10)
    bot.players, bot.unlucky = 2, True
    gaps = set()
    for seed in range(6):
        t = s.clone()
        base = [0.0, 0.0]
        before = t.search_value(0)
        bot._chance(t, np.random.default_rng(seed), base)
        gaps.add(round(t.search_value(0) - base[0] - before, 9))
    assert gaps == {0.0}
    assert EmpiresState.search_removes_luck and EmpiresState.search_ranks
