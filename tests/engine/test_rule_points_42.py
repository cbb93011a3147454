"""Two rule points of issue #42 (8), decided from the rule text and recorded
in docs/rules.md ("Rule points decided for issue #42")."""

from __future__ import annotations

from econ_helpers import RULES, month, world

from wdg.engine.conquest import transfer
from wdg.engine.creatures import creature_attacks
from wdg.engine.economy import remember_start, taxes
from wdg.engine.turn import resolve_month
from wdg.orders.model import ArmyBlock, Rest, Search, Sheet
from wdg.rules import Rules
from wdg.world.address import Address
from wdg.world.factory import add_army, add_settlement, at, own
from wdg.world.state import Creature


def test_a_passive_creatures_treasure_cannot_be_won_by_force():
    """"Aus diesem Grunde führen Heere auch niemals Angriffe gegen Fabelwesen,
    sondern verhalten sich abwartend und kämpfen nur dann, falls sie von ihnen
    angegriffen werden." — and the treasure falls to the victor only "falls
    die Fabelwesen von einem Heer geschlagen werden". Decided: as the text
    says, no order attacks a creature, so a passive creature (one that never
    attacks) keeps its treasure whatever the army beside it does: a whole
    month with a strong army resting, then searching, on its gemark ends
    without a fight and without its gold."""
    seg = world(treasury=0)
    add_settlement(seg, "101.17", 250, kingdom=1)
    army = add_army(seg, 101, 1, "101.18", units=100_000)
    seg.creatures[1] = Creature(1, "riesenadler", at(seg, "101.18"), gold=9000,
                                items=["Zauberstab"])
    assert not RULES.get("creatures", "kinds", "riesenadler", "aggressive")
    for order in (Rest(), Search()):
        sheet = Sheet(kingdom=1, armies=[ArmyBlock(101, Address.parse("101.18"), 1,
                                                     phase_b=order)])
        result = resolve_month(seg, {1: sheet}, RULES)
        kinds = {e.kind for e in result.log.events}
        assert not any(k.startswith(("creature.attack", "creature.slain", "creature.treasure",
                                     "combat.")) for k in kinds), kinds
        seg = result.state
        assert seg.creatures[1].gold == 9000 and seg.creatures[1].items == ["Zauberstab"]
        assert seg.armies[101].items == army.items
    # and the one way its treasure is won: a creature that attacks and is beaten
    seg.creatures[2] = Creature(2, "troll", at(seg, "101.18"), gold=7000)
    m = month(seg)
    creature_attacks(m)
    assert 2 not in seg.creatures and m.log.of_kind("creature.treasure")


def test_a_kingdom_that_loses_its_last_settlement_gets_no_income_that_month():
    """"Der Reichsschatz" (b): "Alle Steuer- und sonstige Einnahmen entstehen
    grundsätzlich in den Lagerstätten des Reichsschatzes"; (a)/(c): with a
    settlement the kingdom loses its share to the conqueror. Decided: a kingdom
    whose last treasury site is conquered this month receives no taxes at the
    end of it (there is no Lagerstätte left for them to arise in); it says so
    (``tax.forfeited``, with the income that did not arise). A kingdom that
    keeps one settlement gets the taxes of the state at the start, as before."""
    seg = world(treasury=10_000, kingdoms=(1, 2))
    add_settlement(seg, "101.17", 250, kingdom=1)
    own(seg, 1, "101.10")
    m = month(seg)
    remember_start(m)
    transfer(m, at(seg, "101.17"), 2, None)   # the last settlement conquered
    assert seg.kingdoms[1].treasury == 0      # its share went to the conqueror
    taxes(m)
    assert seg.kingdoms[1].treasury == 0
    (e,) = m.log.of_kind("tax.forfeited")
    assert e.kingdom == 1 and e.data["forgone"] == 600 + 400 + 4000 and "entgehen" in e.why

    # with a second settlement left, the month's taxes arise there as before
    seg = world(treasury=10_000, kingdoms=(1, 2))
    add_settlement(seg, "101.17", 250, kingdom=1)
    add_settlement(seg, "101.16", 150, kingdom=1)
    m = month(seg)
    remember_start(m)
    transfer(m, at(seg, "101.17"), 2, None)
    before = seg.kingdoms[1].treasury
    taxes(m)
    assert seg.kingdoms[1].treasury > before and not m.log.of_kind("tax.forfeited")


def test_a_rules_set_before_the_decision_keeps_paying_the_old_way():
    """Months resolved before the rule point replay as they were: without the
    rules key the taxes arise as before (``RULES_OFF_WHEN_ABSENT``)."""
    data = {area: RULES.section(area) for area in ("economy",)}
    data["economy"] = dict(data["economy"])
    data["economy"]["taxes"] = {k: v for k, v in data["economy"]["taxes"].items()
                                if k != "income_needs_a_treasury_site"}
    old = Rules({**RULES._data, **data})
    seg = world(treasury=10_000, kingdoms=(1, 2))
    add_settlement(seg, "101.17", 250, kingdom=1)
    m = month(seg, rules=old)
    remember_start(m)
    transfer(m, at(seg, "101.17"), 2, None)
    taxes(m)
    assert seg.kingdoms[1].treasury == 600 + 4000 and not m.log.of_kind("tax.forfeited")
