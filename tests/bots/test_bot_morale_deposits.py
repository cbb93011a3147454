"""The bots follow the rules of issue #31 (docs/bots.md): they keep morale up
("Eine niedrige Moral kann aber auch ... Desertionen zur Folge haben"), look for
deposits with ``s`` ("nach Schätzen ... durchsucht") and build mines only on a
deposit they found ("Ausbeutung eines bereits bekannten Bodenschatzes")."""

from __future__ import annotations

from pathlib import Path

import pytest

from wdg.bots import brief, write_sheet
from wdg.bots.briefing import read_searched
from wdg.rules import Rules
from wdg.world.factory import add_settlement
from wdg.world.state import Building, Deposit
from wdg.store.segment import load_segment

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules.load(ROOT / "worlds" / "rules")


@pytest.fixture()
def demo():
    return load_segment(ROOT / "worlds" / "canura")


def orders_of(text: str, army: int) -> list[str]:
    """The A: and B: lines under ``Heer <army>``."""
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(f"Heer {army:04d} "))
    out = []
    for line in lines[i + 1:]:
        if not line.startswith(("A:", "B:")):
            break
        out.append(line)
    return out


def test_a_demoralised_army_trains(demo):
    """An army whose morale (on the last result sheet) is near the level where
    soldiers desert trains (``t``) instead of searching or helping."""
    b = brief(demo, 1)
    assert "B: t" not in orders_of(write_sheet(b, "Baumeister", RULES, password="x", seed=1), 101)
    b.morale[101] = 10
    assert "B: t" in orders_of(write_sheet(b, "Baumeister", RULES, password="x", seed=1), 101)


def test_bots_search_their_land_for_deposits_and_note_every_search(demo):
    """With nothing else to do, the army searches its own gemark (``s``) and the
    sheet's notebook remembers it (``# Gesucht:``); a gemark searched three times
    is given up."""
    b = brief(demo, 1)
    here = b.view.armies[101].position
    text = write_sheet(b, "Baumeister", RULES, password="x", seed=1)
    assert "B: s" in orders_of(text, 101)
    assert read_searched(text) == [here]
    later = brief(demo, 1, None, f"# Gesucht: {here} {here} {here}\n")
    assert later.searched == [here, here, here]
    assert "B: s" not in orders_of(write_sheet(later, "Baumeister", RULES, password="x",
                                               seed=1), 101)


def test_a_builder_builds_its_mine_only_on_a_deposit_it_found(demo):
    """No ``BM`` while the kingdom knows no deposit; once it found one in its own
    land (and can pay), the mine goes there."""
    demo.kingdoms[1].treasury = 2_000_000
    view = brief(demo, 1).view
    own = sorted((a for a in view.owned if a not in view.settlements), key=str)
    for a in own[1:4]:  # three more towns with a Palast: four kingdom orders a month
        add_settlement(demo, demo.grid.hex_of(a), 150, kingdom=1,
                       buildings={Building.PALAST: 1, Building.KASERNE: 1})
    h = demo.grid.hex_of(own[0])
    demo.deposits[h] = Deposit(h, "Gold")
    text = write_sheet(brief(demo, 1), "Baumeister", RULES, password="x", seed=1)
    assert "\nBM " not in text
    demo.deposits[h].known_by = [1]
    text = write_sheet(brief(demo, 1), "Baumeister", RULES, password="x", seed=1)
    assert f"\nBM {own[0]}\n" in text
