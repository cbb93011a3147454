"""Linear time on adversarial input, checked by what the code looks at rather
than by the clock (the timings live in ``make bench``): no pattern ever sees
more than a bounded piece of player text.

"reale Namen und Adressen der Mitspieler ... sind in Botschaften und
Bekanntmachungen grundsätzlich nicht erlaubt" (the content filter);
worlds/rules/text.yaml (the bounds).
"""

from __future__ import annotations

import re

from wdg.campaign import PACKAGE_ROOT
from wdg.engine import diplomacy
from wdg.orders.parser import parse_detailed
from wdg.rules import Rules
from wdg.textpolicy import limits, windows

RULES = Rules.load(PACKAGE_ROOT / "worlds" / "rules")


class Spy:
    """A compiled pattern that records the length of every text it is given."""

    def __init__(self, pattern: str, seen: list[int]) -> None:
        self.rx = re.compile(pattern)
        self.seen = seen

    def search(self, text: str):
        self.seen.append(len(text))
        return self.rx.search(text)


def test_the_content_filter_only_ever_sees_bounded_windows(world, monkeypatch):
    seen: list[int] = []
    monkeypatch.setattr(diplomacy, "_compiled", lambda p: Spy(p, seen))
    for text in ("a" * 500_000, "abc " * 100_000, "a-" * 200_000 + "@x.de", "0 " * 200_000):
        diplomacy.content_problems(world, RULES, text)
    assert seen and max(seen) <= RULES.int("text", "filter_window")


def test_windows_overlap_so_that_nothing_short_is_cut_in_two():
    text = "x" * 1000 + "geheim@example.org" + "y" * 1000
    pieces = windows(text, 64)
    assert max(map(len, pieces)) <= 64
    assert any("geheim@example.org" in p for p in pieces)
    assert diplomacy.content_problems.__doc__


def test_an_e_mail_address_hidden_in_a_long_word_is_still_found(world):
    text = "z" * 200_000 + " schreib an geheim@example.org " + "z" * 200_000
    assert "enthält eine E-Mail-Adresse" in diplomacy.content_problems(world, RULES, text)


def test_every_content_pattern_starts_only_at_a_word_start_or_is_bounded():
    """The shipped patterns avoid unbounded repeats that can start anywhere."""
    for label, pattern in RULES.section("diplomacy", "content_patterns").items():
        assert "(?<!" in pattern, label


def test_a_line_longer_than_the_limit_is_refused_before_any_pattern_reads_it():
    """A 1 MB line and a 100,000-blank run: one error each, the other orders stand."""
    cap = limits().order_line_length
    text = ("Segment: test\nKönigreich: 1\nPasswort: x\nK\nF+ 9" + " " * 100_000 + "x\n"
            + "Heer " + "1" * 1_000_000 + "\nF+ 10\n")
    sheet = parse_detailed(text).sheet
    long_lines = [d for d in sheet.diagnostics if d.message.startswith("Zeile zu lang")]
    assert [d.line for d in long_lines] == [5, 6] and all(d.column == cap + 1 for d in long_lines)
    assert [str(o) for o in sheet.kingdom_orders] == ["F+ 10"]


def test_a_message_is_cut_at_its_bounds_with_a_warning():
    lim = limits()
    text = ("Segment: test\nKönigreich: 1\nPasswort: x\nBOTSCHAFT 2\n" + "w" * 300_000 + "\n"
            + ("kurz\n" * 5000) + "ENDE\nK\nF+ 10\n")
    sheet = parse_detailed(text).sheet
    assert len(sheet.messages[0].text) <= lim.message_length
    msgs = {d.message.split(" (")[0] for d in sheet.diagnostics}
    assert {"Textzeile zu lang", "Text zu lang"} <= msgs
    assert [str(o) for o in sheet.kingdom_orders] == ["F+ 10"]


def test_only_the_first_unknown_words_of_a_sheet_get_a_fuzzy_suggestion():
    """"meinten Sie" is a fuzzy search: a sheet of 100,000 unknown words gets
    an error on every line but suggestions for the first 50 only."""
    from wdg.orders.parser import SUGGESTIONS

    text = "Segment: test\nKönigreich: 1\nPasswort: x\nK\n" + "Bewgung NO\n" * 300
    sheet = parse_detailed(text).sheet
    unknown = [d for d in sheet.diagnostics if d.message == "unbekannter Befehl"]
    assert len(unknown) == 300
    assert sum(bool(d.suggestion) for d in unknown) == SUGGESTIONS
