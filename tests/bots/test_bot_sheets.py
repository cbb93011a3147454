"""Bot sheets go through the same parser and checker as a player's: no errors
on the shipped demo and on the stress preset, and the same briefing and seed
give the same sheet (docs/bots.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wdg.bots import PERSONALITIES, brief, personality, write_sheet
from wdg.engine.month_sheets import take_in
from wdg.orders.checker import check_sheet
from wdg.orders.model import Severity
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view
from wdg.rules import Rules
from wdg.store.segment import load_segment
from wdg.world.stress import stress_segment

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules.load(ROOT / "worlds" / "rules")
WHO = [*PERSONALITIES, "Kriegsherr+feind"]


def _errors(seg, k: int, text: str) -> list[str]:
    diags = check_sheet(parse_sheet(text.encode("utf-8")), build_view(seg, k))
    return [f"{d.line}: {d.message} ({d.found!r})" for d in diags if d.severity is Severity.ERROR]


@pytest.fixture(scope="module")
def demo():
    return load_segment(ROOT / "worlds" / "canura")


@pytest.mark.parametrize("who", WHO)
def test_a_bot_sheet_for_every_demo_kingdom_has_no_checker_error(demo, who) -> None:
    for k, kd in sorted(demo.kingdoms.items()):
        if kd.city_state:
            continue
        text = write_sheet(brief(demo, k), who, RULES, password="x", seed=3)
        assert _errors(demo, k, text) == [], text


def test_bot_sheets_are_taken_in_like_a_players(demo) -> None:
    """The password goes through the intake's check; nothing is refused."""
    passwords = {k: f"canura-{k}" for k in range(1, 7)}
    files = {f"k{k}.txt": write_sheet(brief(demo, k), "Kriegsherr", RULES, password=pw,
                                      seed=1).encode() for k, pw in passwords.items()}
    intake = take_in(demo, files)
    assert sorted(intake.sheets) == [1, 2, 3, 4, 5, 6]
    assert not [e for e in intake.events if e.kind == "sheet.refused"]
    assert not [e for e in intake.events if e.kind == "sheet.diagnostic"
                and e.data.get("severity") == Severity.ERROR.value]


@pytest.fixture(scope="module")
def stress():
    seg, passwords = stress_segment(0.1)
    return seg, passwords


@pytest.mark.parametrize("who", list(PERSONALITIES))
def test_bot_sheets_on_the_stress_preset_have_no_checker_error(stress, who) -> None:
    """Fleets, carried armies, fronts at war, wizards: every kingdom of a cut
    of the stress preset."""
    seg, passwords = stress
    for k in sorted(passwords):
        text = write_sheet(brief(seg, k), who, RULES, password=passwords[k], seed=k)
        assert _errors(seg, k, text) == [], text


def test_same_briefing_and_seed_give_the_same_sheet(demo) -> None:
    b = brief(demo, 3)
    a1 = write_sheet(b, "Eroberer", RULES, password="x", seed=9)
    a2 = write_sheet(brief(demo, 3), "Eroberer", RULES, password="x", seed=9)
    assert a1 == a2


def test_an_unknown_personality_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="Baumeister, Eroberer, Kriegsherr"):
        personality("Händler")


def test_no_order_costs_more_than_the_treasury_holds(demo) -> None:
    """"ein Herrscher kann keine Schulden machen": with 3.000 GS a bot orders
    nothing that costs gold beyond it."""
    for k in (1, 2, 3):
        b = brief(demo, k)
        b.treasury = 3000
        text = write_sheet(b, PERSONALITIES["Kriegsherr"], RULES, password="x", seed=1)
        orders = [line.split(":", 1)[1].split() for line in text.splitlines()
                  if line.startswith("A:")]
        assert not [o for o in orders if o[0] in ("nr", "nh", "nf")], text
        k_lines = text.split("\nK\n", 1)[1].splitlines()
        assert not [x for x in k_lines if x.split()[:1] and x.split()[0] in
                    ("BM", "BK", "BQ", "BH", "SS", "F+")], text


def test_the_notebook_on_the_sheet_remembers_where_a_kingdom_was_seen(demo) -> None:
    """A player keeps notes; the bot's are ``# Notiz:`` lines on its own sheet,
    comments the parser ignores, read back with the next month's briefing."""
    from wdg.bots import Sighting
    from wdg.engine.events import SightingKind
    from wdg.bots.briefing import read_notes
    from wdg.world.address import Address

    b = brief(demo, 3)
    other = min(b.view.diplomacy)
    spot = next(a for a in sorted(b.view.known, key=str) if a not in b.view.owned)
    b.sightings = [Sighting(spot, SightingKind.ARMY, 101, other, 800, "Krieger")]
    text = write_sheet(b, "Kriegsherr", RULES, password="x", seed=1)
    assert f"# Notiz: Königreich {other}: {spot}" in text
    assert read_notes(text)[other][0] == spot
    sheet = parse_sheet(text.encode("utf-8"))
    assert not [d for d in sheet.diagnostics if d.severity is Severity.ERROR]
    later = brief(demo, 3, None, text)
    assert later.notes[other] == [spot]
    assert read_notes("# Notiz: Königreich x: 101.01\n# Notiz: Königreich 4: 999.99 101.01") \
        == {4: [Address.parse("101.01")]}
