"""The militia and partisan fights ("Die Miliz")."""

from __future__ import annotations

from monthkit import RULES, month


import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wdg.engine.actions import actions
from wdg.engine.militia import militia_cap, militia_growth, partisan_fight
from wdg.orders.model import ArmyBlock, Help, Sheet
from wdg.world.factory import add_army, add_kingdom, add_settlement, at, own, small_segment




def test_the_cap_depends_on_terrain_settlement_and_popularity():
    """"eine von verschiedenen Faktoren abhängige Zahl wehrhafter Einwohner":
    lowland holds more than mountains, a settlement adds, water has none, a
    popular ruler's gemarks hold more."""
    seg = small_segment(["T. G. Tw ~M T. T."])
    add_kingdom(seg, 1)
    add_settlement(seg, (4, 0), 300)
    cap = militia_cap(seg, RULES)
    assert cap[0, 0] > cap[0, 2] > 0 and cap[0, 0] > cap[0, 1] > 0
    assert cap[0, 3] == 0
    assert cap[0, 4] > cap[0, 0]
    own(seg, 1, (5, 0))
    seg.kingdoms[1].popularity = 100
    assert militia_cap(seg, RULES)[0, 5] > cap[0, 5]


def test_militia_grows_back_slowly_and_faster_where_an_army_helps():
    """Recruitment lowers the militia; it grows back slowly toward its cap;
    "(h) Hilfe: Das gesamte Heer hilft den Einwohnern der Gemark"."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_army(seg, 1, 1, (1, 1))
    m = month(seg, sheets={1: Sheet(kingdom=1, armies=[
        ArmyBlock(1, seg.grid.address_of(at(seg, (1, 1))), 3, phase_b=Help(line=3))])})
    actions(m)  # Phase B publishes the helped gemarks
    militia_growth(m)
    cap = militia_cap(seg, RULES)
    assert 0 < seg.militia[4, 4] < cap[4, 4]
    assert seg.militia[1, 1] > seg.militia[4, 4]


def test_help_never_pushes_the_militia_past_its_cap():
    """One rule for ``h`` (docs/rules.md): helping only speeds up the regrowth
    toward the cap, so a gemark at its cap stays there."""
    seg = small_segment()
    add_kingdom(seg, 1)
    add_army(seg, 1, 1, (1, 1), units=50_000)
    cap = int(militia_cap(seg, RULES)[1, 1])
    seg.militia[1, 1] = cap
    m = month(seg, sheets={1: Sheet(kingdom=1, armies=[
        ArmyBlock(1, seg.grid.address_of(at(seg, (1, 1))), 3, phase_b=Help(line=3))])})
    actions(m)
    militia_growth(m)
    assert seg.militia[1, 1] == cap


def test_militia_above_its_cap_falls_toward_it():
    """A destroyed settlement leaves fewer inhabitants: the militia shrinks."""
    seg = small_segment()
    cap = int(militia_cap(seg, RULES)[0, 0])
    seg.militia[0, 0] = cap * 3
    militia_growth(month(seg))
    assert cap < seg.militia[0, 0] < cap * 3


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 20_000), min_size=48, max_size=48))
def test_growth_never_overshoots_the_cap(values):
    """Growth and decay move the militia toward the cap, never past it."""
    seg = small_segment(["T. G. Tw ~M Hu Bw T. T."])
    seg.militia[:] = np.array(values).reshape(seg.militia.shape)
    cap = militia_cap(seg, RULES)
    before = seg.militia.astype(np.int64).copy()
    militia_growth(month(seg))
    after = seg.militia.astype(np.int64)
    assert np.all(np.abs(cap - after) <= np.abs(cap - before))
    assert np.all(np.sign(cap - after) * np.sign(cap - before) >= 0)


def test_no_militia_no_partisan_fight():
    """"Vor einer Okkupation kann es zu einem Kampf ... kommen": only if there is militia."""
    seg = small_segment()
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (2, 2))
    m = month(seg)
    won, events = partisan_fight(m, a, "die Okkupation")
    assert won and events == []


def test_natives_fight_better_in_difficult_terrain():
    """"Eingeborene Einwohner einer Gemark mit schwierigem Gelände kämpfen hier
    meist mit erheblichen Vorteilen gegenüber Fremden (z.B. im
    Partisanenkampf der Milizen)." Same army, same militia, many seeds."""
    def wins(code: str) -> int:
        n = 0
        for seed in range(200):
            seg = small_segment([code])
            add_kingdom(seg, 1)
            a = add_army(seg, 1, 1, (0, 0), units=1000)
            seg.militia[0, 0] = 600
            n += partisan_fight(month(seg, seed=seed), a, "x")[0]
        return n

    assert wins("Tu") < wins("T.")


def test_a_partisan_fight_is_not_the_army_s_one_fight():
    """"Eventuelle Partisanenkämpfe zwischen einem Landheer und Milizen werden im
    Sinne dieser Regelung nicht als Kampf zwischen Heeren betrachtet.\""""
    seg = small_segment()
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (2, 2), units=10_000)
    seg.militia[2, 2] = 100
    m = month(seg)
    won, events = partisan_fight(m, a, "die Okkupation")
    assert events[0].kind == "militia.fight"
    assert 1 not in m.fought


def test_a_much_too_small_army_is_destroyed_by_the_militia():
    """"das eingesetzte Heer, wenn es z.B. zu klein war, vernichtet wird"."""
    seg = small_segment()
    add_kingdom(seg, 1)
    a = add_army(seg, 1, 1, (2, 2), units=10)
    seg.militia[2, 2] = 5000
    won, _ = partisan_fight(month(seg), a, "die Okkupation")
    assert not won and a.general is None and a.position is None


def test_the_own_militia_does_not_fight_its_own_army():
    """Militia resists "dem Eindringling": not the owner's own army."""
    seg = small_segment()
    add_kingdom(seg, 1)
    own(seg, 1, (2, 2))
    a = add_army(seg, 1, 1, (2, 2), units=10)
    seg.militia[2, 2] = 5000
    assert partisan_fight(month(seg), a, "die Zerstörung") == (True, [])
