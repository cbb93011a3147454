"""No order silently lost (issue #30, item 4): a separator line, a signature
marker, a quoted mail's head or a stray end marker in the middle of a sheet
never ends it while order lines follow — the checker warns and the orders
after it count; where a second sheet of the same kingdom follows, which one
counts is not clear and the checker says so as an error. Every line of a
sheet is applied, refused with a message, or named as ignored by its number
in the checker's output and in the confirmation."""

from __future__ import annotations

import os
import random
import re
import time

import pytest

from wdg.orders import model as m
from wdg.orders.checker import accepted, check_sheet
from wdg.orders.confirm import confirmation
from wdg.orders.intake import _verdict
from wdg.orders.parser import parse_detailed, split_lines
from wdg.orders.verdict import echo
from wdg.orders.view import build_view

HEAD = "Segment: test\nKönigreich: 1\nPasswort: geheim-1\n"
BEFORE = "H\nHeer 0101 101.10\nA: nr 5\nHeer 0106 101.10\nB: t\n"
AFTER = "K\nF+ 1000\nBOTSCHAFT 2\nSeid gegrüßt.\nENDE\n"
"""The K part after the separator: a K order (kingdom 1 has one palace: one K
order a month) and a message."""

SEPARATORS = {
    "underscores": "__________",
    "list rule": "_" * 47,
    "two dashes": "--",
    "signature marker": "-- ",
    "outlook": "-----Original Message-----",
    "outlook german": "-----Ursprüngliche Nachricht-----",
    "gmail forward": "---------- Forwarded message ---------",
    "thunderbird forward": "-------- Weitergeleitete Nachricht --------",
    "quoted header": "Am dritten Tag des Mondes Dormit schrieb mir Euer Bote:",
    "quoted header english": "On Tue, Apr 30, 2024 at 10:00 AM Hans <hans@example.org> wrote:",
    "outlook header": "Von: Hans Gesendet: Dienstag, 30. April 2024 10:00",
    "stray ENDE": "ENDE",
    "stray NÄCHSTER": "NÄCHSTER",
}


def _k_orders(sheet: m.Sheet) -> list[str]:
    return [type(o).__name__ for o in sheet.kingdom_orders]


@pytest.mark.parametrize("kind", sorted(SEPARATORS))
def test_a_separator_in_the_middle_keeps_the_orders_after_it(world, kind):
    """Each separator kind above `K`: the K orders and the message after it
    count; the checker warns on the separator's line and reports no line as
    ignored."""
    text = HEAD + BEFORE + SEPARATORS[kind] + "\n" + AFTER
    sep_line = len(split_lines(HEAD + BEFORE)) + 1
    result = parse_detailed(text)
    sheet = result.sheet
    diags = check_sheet(sheet, build_view(world, 1))
    kept = accepted(sheet, diags)
    assert _k_orders(kept) == ["Festival"], kind
    assert [x.to for x in kept.messages] == [2]
    assert kept.army(101).phase_a is not None and kept.army(106).phase_b is not None
    warned = [d for d in diags if d.line == sep_line]
    assert warned and all(d.severity is m.Severity.WARNING for d in warned), (kind, diags)
    assert "mitten im Spielzug" in warned[0].message
    assert sheet.outside_lines == []
    out = echo(text, diags, sheet.outside_lines)
    assert f"Warnung (Zeile {sep_line}, Spalte 1)" in out and "Ignoriert" not in out
    assert not [d for d in diags if d.severity is m.Severity.ERROR], diags


def test_the_head_lines_of_a_quoted_mail_after_a_separator_are_ignored_by_number(world):
    """An Outlook head with its From:/Sent: lines above the K part: those lines
    are named as ignored, the K orders count."""
    text = HEAD + BEFORE + ("-----Original Message-----\nFrom: Hans <h@example.org>\n"
                            "Sent: Tuesday, April 30, 2024 10:00\nTo: sl@example.org\n"
                            "Subject: Zug\n\n") + AFTER
    sheet = parse_detailed(text).sheet
    diags = check_sheet(sheet, build_view(world, 1))
    assert _k_orders(accepted(sheet, diags)) == ["Festival"]
    assert sheet.outside_lines == [10, 11, 12, 13]
    assert "Zeilen 10–13" in echo(text, diags, sheet.outside_lines)


def test_a_signature_after_the_orders_still_ends_the_sheet_and_is_listed(world):
    text = HEAD + BEFORE + AFTER + "-- \nHans Meier\nSuche noch Mitspieler für Runde 3\n"
    sheet = parse_detailed(text).sheet
    diags = check_sheet(sheet, build_view(world, 1))
    assert not [d for d in diags if d.line]  # (only the armies not listed: line 0)
    assert sheet.outside_lines == [14, 15, 16]
    assert "Zeilen 14–16" in echo(text, diags, sheet.outside_lines)


def test_a_second_sheet_of_the_same_kingdom_after_a_separator_is_an_error(world):
    """Outlook's full quote of the player's own earlier sheet (not marked with
    `>`): which sheet counts is not clear — an error on the separator line, the
    first sheet's orders stand, the second's lines are named as ignored."""
    text = HEAD + BEFORE + "-----Original Message-----\nFrom: Hans\n\n" + HEAD + AFTER
    sheet = parse_detailed(text).sheet
    diags = check_sheet(sheet, build_view(world, 1))
    errors = [d for d in diags if d.severity is m.Severity.ERROR]
    assert [d.line for d in errors] == [9] and "nicht eindeutig" in errors[0].message
    assert _k_orders(sheet) == []
    assert sheet.outside_lines == [9, 10] + list(range(12, 20))


def test_an_older_quoted_sheet_or_another_kingdoms_is_a_warning(world):
    older = HEAD.replace("geheim-1\n", "geheim-1\nMond: 0412-06\n")
    for head, word in ((older, "älterer Spielzug"), (HEAD.replace("reich: 1", "reich: 2"),
                                                    "Königreich 2")):
        text = (HEAD + "Mond: 0412-07\n" + BEFORE + "-- \n" + head + AFTER)
        sheet = parse_detailed(text).sheet
        diags = check_sheet(sheet, build_view(world, 1))
        warned = [d for d in diags if word in d.message]
        assert warned and warned[0].severity is m.Severity.WARNING, diags
        assert not [d for d in diags if d.severity is m.Severity.ERROR]


def test_a_separator_inside_a_message_is_its_text(world):
    text = HEAD + "BOTSCHAFT 2\nHallo\n--\nEuer Nachbar\nENDE\nK\nF+ 1000\n"
    sheet = parse_detailed(text).sheet
    assert sheet.messages[0].text == "Hallo\n--\nEuer Nachbar"
    assert _k_orders(sheet) == ["Festival"] and not sheet.diagnostics


# -- 20,000 generated sheets: 0 lines unaccounted for ------------------------------

GREETINGS = ["Hallo Spielleiter,", "hier mein Zug:", "Viele Grüße", "Gruß, Erna", "MfG",
             "Bis bald", "Danke!"]
JUNK = ["asdf qwe", "Heer", "K 12", "Suche noch Mitspieler", "Tel.: 0123 45678",
        "www.example.org", "A:", "B: zz", "F+", "x" * 700, "Königreich: 9", "Mond: 0399-01",
        "Passwort:", "\u202eumgedreht", "Heer 0999 101.10", "0101 101.10", "DS 7 +"]
MAIL_HEADS = ["From: Hans <h@example.org>", "Gesendet: Dienstag, 30. April 2024 10:00",
              "An: sl@example.org", "Betreff: AW: Zug", "Date: Tue, 30 Apr 2024"]
ARMY_BLOCKS = [["Heer 0101 101.10", "A: nr 5", "B: b NW"], ["Heer 0102 101.09", "B: s"],
               ["Heer 0106 101.10", "t"], ["0103 101.10", "A: bs 0101"],
               ["Heer 0104 000.00", "A: nf"]]
K_ORDERS = ["F+ 1000", "DS 2 +", "BH 101.10", "SS 101.11 10", "BM 101.09", "DS 3 -"]
TEXTS = [["BOTSCHAFT 2", "Seid gegrüßt.", "ENDE"], ["BEKANNTMACHUNG", "Heil dem König!", "ENDE"],
         ["Botschaft an 2: kurz"], ["BOTSCHAFT 3", "ohne Ende"]]


def _generate(rng: random.Random) -> tuple[str, set[int]]:
    """A sheet of random parts; returns it and the lines the generator wrote
    as orders of kingdom 1's sheet (not quoted, after its header)."""
    lines: list[str] = []
    orders: set[int] = set()

    def add(line: str, order: bool = False) -> None:
        lines.append(line)
        if order:
            orders.add(len(lines))

    for _ in range(rng.randint(0, 2)):
        add(rng.choice(GREETINGS + ["K", ""]))
    for line in HEAD.splitlines():
        add(rng.choice([line, line.upper()]) if "Pass" not in line else line)
    if rng.random() < 0.3:
        add("Mond: 0412-07")
    for _ in range(rng.randint(1, 7)):
        part = rng.random()
        if part < 0.3:
            add("H")
            for block in rng.sample(ARMY_BLOCKS, rng.randint(1, 3)):
                for line in block:
                    add(line, order=True)
        elif part < 0.5:
            add(rng.choice(["K", "K:", "K: Königreichbefehle"]))
            for line in rng.sample(K_ORDERS, rng.randint(1, 3)):
                add(line, order=True)
        elif part < 0.6:
            for line in rng.choice(TEXTS):
                add(line, order=True)
        elif part < 0.75:
            add(rng.choice(list(SEPARATORS.values())))
            if rng.random() < 0.4:
                for line in rng.sample(MAIL_HEADS, rng.randint(1, 3)):
                    add(line)
        elif part < 0.82:
            add(rng.choice(GREETINGS))
        elif part < 0.9:
            add(rng.choice(JUNK))
        elif part < 0.95:
            add("> " + rng.choice(K_ORDERS + ["Passwort: geheim-1"]))
        else:
            add(rng.choice(["", "# Kommentar", "   "]))
    if rng.random() < 0.15:  # a quoted or forwarded sheet below
        add(rng.choice(["-----Original Message-----", "-- ", "ENDE"]))
        for line in (HEAD.replace("reich: 1", rng.choice(["reich: 1", "reich: 2"]))).splitlines():
            add(line)
        add("K")
        add(rng.choice(K_ORDERS))
    if rng.random() < 0.5:
        for line in rng.choice([["-- ", "Hans Meier", "Nordmark"], ["Viele Grüße", "Erna"],
                                ["NÄCHSTER"], ["ENDE", "", "PS: bis bald"]]):
            add(line)
    return "\n".join(lines) + "\n", orders


_RANGES = re.compile(r"Zeilen? ((?:\d+(?:–\d+)?)(?:, \d+(?:–\d+)?)*)")


def _named(text: str) -> set[int]:
    """Every line number a text names as ignored (``Zeilen 1–3, 17``)."""
    out: set[int] = set()
    for line in text.splitlines():
        if "ignoriert" not in line.lower():
            continue
        for mt in _RANGES.finditer(line):
            for part in mt.group(1).split(", "):
                a, _, b = part.partition("–")
                out.update(range(int(a), int(b or a) + 1))
    return out


STRUCTURE = {"header", "section", "army", "text", "end", "comment", "structure"}


def _applied(sheet: m.Sheet, diags: list[m.Diagnostic]) -> set[int]:
    """The lines of the orders and messages the engine will run."""
    kept = accepted(sheet, diags)
    applied = {o.line for o in kept.kingdom_orders}
    applied |= {o.line for b in kept.armies for o in (b.phase_a, b.phase_b) if o is not None}
    return applied | {x.line for x in kept.messages} | {x.line for x in kept.announcements}


def _unaccounted(text: str, kinds: dict[int, str], diags: list[m.Diagnostic],
                 output: str) -> list[tuple[int, str]]:
    """Lines of ``text`` that ``output`` (the checker's echo or the
    confirmation) neither applies (structure, an order), flags (a message
    naming the line) nor names as ignored. An order line the engine will not
    run carries an error on its line (checked on a sample below with
    :func:`_applied`, and by tests/orders/test_sheet_properties.py)."""
    flagged = {d.line for d in diags if f"Zeile {d.line}, Spalte" in output}
    ignored = _named(output)
    bad = []
    for n, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        kind = kinds.get(n)
        if n in flagged or kind in STRUCTURE or kind == "order" \
                or (kind == "outside" and n in ignored):
            continue
        bad.append((n, kind or "?"))
    return bad


SHEETS = int(os.environ.get("WDG_FUZZ_SHEETS", "20000"))


@pytest.mark.slow
def test_20000_generated_sheets_leave_no_line_unaccounted_for(world):
    """20,000 generated sheets (seeded) with separators, signatures, quoted
    heads, stray end markers, greetings, junk and quoted or forwarded sheets
    anywhere: in the checker's output and in the confirmation every line is
    applied, carries a message, or is named as ignored by its number; and an
    order line the generator wrote for the sheet is never ignored without a
    message saying a quoted sheet was not read or another kingdom's sheet
    begins there."""
    rng = random.Random(30)
    view = build_view(world, 1)
    unaccounted = silently_dropped = 0
    start = time.perf_counter()
    for i in range(SHEETS):
        text, orders = _generate(rng)
        result = parse_detailed(text)
        sheet = result.sheet
        diags = check_sheet(sheet, view)
        assert not any("interner Fehler" in d.message for d in diags), text
        checker_out = echo(text, diags, sheet.outside_lines)
        confirmation_out = confirmation(
            "angenommen", "", 1, _verdict(text, diags, sheet.outside_lines),
            outside=sheet.outside, outside_lines=sheet.outside_lines)
        for out in (checker_out, confirmation_out):
            bad = _unaccounted(text, result.kinds, diags, out)
            assert not bad, (i, bad, text)
            unaccounted += len(bad)
        if i % 20 == 0:  # an order line the engine drops has an error on its line
            errors = {d.line for d in diags if d.severity is m.Severity.ERROR}
            written = {n for n, kind in result.kinds.items() if kind == "order"}
            assert not written - _applied(sheet, diags) - errors, (i, text)
        lost = [n for n in orders if n in sheet.outside_lines]
        if lost and not any("nicht gelesen" in d.consequence or "nicht eindeutig" in d.message
                            or "eigener Spielzug" in d.message for d in diags):
            silently_dropped += 1
            raise AssertionError((i, lost, text, diags))
    elapsed = time.perf_counter() - start
    assert unaccounted == 0 and silently_dropped == 0
    print(f"[separators] {SHEETS} sheets, 0 lines unaccounted for, {elapsed:.1f} s")
