"""The order-sheet reader: every command in short and long form, encodings,
line endings, comments, and the forgiving behaviour of Spielzug (b)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wdg.orders import model as m
from wdg.orders.parser import is_significant, parse_detailed, parse_sheet, split_lines
from wdg.world.address import Address
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Direction
from wdg.world.state import Building

HEAD = "Segment: canura\nKönigreich: 3\nPasswort: geheim-1\n"


def army_order(line: str, phase: str):
    """Parse one order in the block of army 0301 and return it (no errors allowed)."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\n{phase}: {line}\n")
    assert sheet.errors == [], sheet.errors
    block = sheet.armies[0]
    return block.phase_a if phase == "A" else block.phase_b


def kingdom_order(line: str):
    """Parse one K order and return it (no errors allowed)."""
    sheet = parse_sheet(f"{HEAD}K\n{line}\n")
    assert sheet.errors == [], sheet.errors
    assert len(sheet.kingdom_orders) == 1
    return sheet.kingdom_orders[0]


A12 = Address(101, 12)


@pytest.mark.parametrize("line,expected", [
    ("BH 101.12", m.Build(Building.HAFEN, A12, 5)),
    ("Bauwerk Hafen bauen 101.12", m.Build(Building.HAFEN, A12, 5)),
    ("Hafen bauen 101-12", m.Build(Building.HAFEN, A12, 5)),
    ("bk 101/12", m.Build(Building.KASERNE, A12, 5)),
    ("Kaserne bauen 101.12", m.Build(Building.KASERNE, A12, 5)),
    ("BQ 101.12", m.Build(Building.PALAST, A12, 5)),
    ("Bauwerk Palast bauen 101.12", m.Build(Building.PALAST, A12, 5)),
    ("BM 101.12", m.Build(Building.MINE, A12, 5)),
    ("Mine bauen 101.12", m.Build(Building.MINE, A12, 5)),
    ("DS 4 ++", m.ChangeDiplomacy(4, 2, 5)),
    ("DS 4 +", m.ChangeDiplomacy(4, 1, 5)),
    ("ds 4 -", m.ChangeDiplomacy(4, -1, 5)),
    ("DS 4, --", m.ChangeDiplomacy(4, -2, 5)),
    ("DS 4 -1", m.ChangeDiplomacy(4, -1, 5)),
    ("Diplomatiestatus ändern 4 ++", m.ChangeDiplomacy(4, 2, 5)),
    ("Diplomatiestatus aendern 4 +", m.ChangeDiplomacy(4, 1, 5)),
    ("SS 101.12 100", m.Settle(A12, 100, 5)),
    ("Siedlung bauen 101.12, 50", m.Settle(A12, 50, 5)),
    ("Siedlung erweitern 101.12 1", m.Settle(A12, 1, 5)),
    ("Siedlung bauen/erweitern 101.12 10", m.Settle(A12, 10, 5)),
    ("(SS) Siedlung bauen/erweitern 101.12, 10", m.Settle(A12, 10, 5)),
    ('Bauwerk "M" bauen 101.12', m.Build(Building.MINE, A12, 5)),
    ("(BH) Bauwerk Hafen bauen 101.12", m.Build(Building.HAFEN, A12, 5)),
    ("(DS) Diplomatiestatus ändern 4 ++", m.ChangeDiplomacy(4, 2, 5)),
    ("F+ 5000", m.Festival(5000, 5)),
    ("Volksfest veranstalten 5.000 GS", m.Festival(5000, 5)),
])
def test_every_kingdom_order_parses_in_short_and_long_form(line, expected):
    """"Die Befehle für das Königreich": BH BK BQ BM, DS, SS, F+ with parameters."""
    assert kingdom_order(line) == expected


@pytest.mark.parametrize("line,expected", [
    ("nf", m.HireGeneral(6)),
    ("Neuen Feldherren anwerben", m.HireGeneral(6)),
    ("nh 101.12", m.Activate(A12, 6)),
    ("Heer neu aktivieren 101.12", m.Activate(A12, 6)),
    ("eh 0000", m.DismissArmy(0, 6)),
    ("Heer entlassen 0302", m.DismissArmy(302, 6)),
    ("nr 500", m.Recruit(500, 6)),
    ("Neue Rüstgüter anwerben 1.500", m.Recruit(1500, 6)),
    ("NEUE RUESTGUETER ANWERBEN 20", m.Recruit(20, 6)),
    ("er 100", m.Release(100, 6)),
    ("Rüstgüter entlassen 100", m.Release(100, 6)),
    ("bb NW", m.BuildBoats(Direction.NW, 6)),
    ("Boote bauen Südost", m.BuildBoats(Direction.SO, 6)),
    ("bs 0310", m.Board(310, 6)),
    ("Schiffe betreten 0310", m.Board(310, 6)),
    ("vs 101.13", m.Disembark(Address(101, 13), 6)),
    ("Schiffe verlassen 101.13", m.Disembark(Address(101, 13), 6)),
    ("nn Neu Canura", m.Rename("Neu Canura", 6)),
    ("Neuer Siedlungsname Rabenfels", m.Rename("Rabenfels", 6)),
])
def test_every_phase_a_order_parses_in_short_and_long_form(line, expected):
    """"Die Heeresbefehle der Phase A": nf nh eh nr er bb bs vs nn."""
    assert army_order(line, "A") == expected


@pytest.mark.parametrize("line,expected", [
    ("b NO O", m.Move((Direction.NO, Direction.O), 6)),
    ("b NE, E, SE", m.Move((Direction.NO, Direction.O, Direction.SO), 6)),
    ("Bewegung nordwest-west", m.Move((Direction.NW, Direction.W), 6)),
    ("B SW-SO", m.Move((Direction.SW, Direction.SO), 6)),
    ("c TELE 101.13", m.CharacterAction("TELE", ("101.13",), 6)),
    ("Charakteraktion Z1", m.CharacterAction("Z1", (), 6)),
    ("e O", m.Conquer((Direction.O,), 6)),
    ("Einnahme Ost Südost", m.Conquer((Direction.O, Direction.SO), 6)),
    ("h", m.Help(6)), ("Hilfe", m.Help(6)),
    ("i", m.Inform(6)), ("Information", m.Inform(6)),
    ("o", m.Occupy(6)), ("Okkupation", m.Occupy(6)),
    ("r", m.Rest(6)), ("Ruhepause", m.Rest(6)),
    ("s", m.Search(6)), ("Suche", m.Search(6)),
    ("t", m.Train(6)), ("Training", m.Train(6)),
    ("x Q", m.Destroy(m.DestroyTarget.PALAST, 6)),
    ("Siedlung zerstören X", m.Destroy(m.DestroyTarget.SIEDLUNG, 6)),
    ("Bauwerk zerstoeren Hafen", m.Destroy(m.DestroyTarget.HAFEN, 6)),
    ("Gemark einnehmen O", m.Conquer((Direction.O,), 6)),
    ("Gemark okkupieren", m.Occupy(6)),
    ("(x) Siedlung/Bauwerk zerstören X", m.Destroy(m.DestroyTarget.SIEDLUNG, 6)),
])
def test_every_phase_b_order_parses_in_short_and_long_form(line, expected):
    """"Die Heeresbefehle der Phase B (I)": b c e h i o r s t x."""
    assert army_order(line, "B") == expected


def test_unique_prefixes_of_long_names_are_understood():
    """"in abgekürzter, als auch in ausgeschriebener Form": a unique prefix is enough."""
    assert army_order("Bew no", "B") == m.Move((Direction.NO,), 6)
    assert army_order("Trai", "B") == m.Train(6)
    assert kingdom_order("Dipl 4 +") == m.ChangeDiplomacy(4, 1, 5)


def test_an_ambiguous_prefix_is_refused_and_names_the_candidates():
    """Spielzug (b): an unclear order is refused; the message lists the candidates."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nA: Schiffe 0310\n")
    (d,) = sheet.errors
    assert d.message == "mehrdeutiger Befehl"
    assert "bs" in d.expected and "vs" in d.expected
    assert sheet.armies[0].phase_a is None


def test_the_header_gives_segment_kingdom_password_and_month():
    """"Der Spielzug" is addressed to one segment and kingdom."""
    sheet = parse_sheet("segment: Canura\nKoenigreich: 03\nPasswort:  burg-mond-12 \n"
                        "Mond: Dormit 412\n")
    assert (sheet.segment, sheet.kingdom, sheet.password) == ("canura", 3, "burg-mond-12")
    assert sheet.month == MonthDate(412, 4)
    assert parse_sheet("Mond: 0412-05\n").month == MonthDate(412, 5)


def test_latin1_and_utf8_sheets_with_crlf_read_the_same():
    """Sheets come from many mail programs: UTF-8 or Latin-1, CRLF or LF."""
    text = (f"{HEAD}H\r\nHeer 0301 101.12\r\nA: Neue Rüstgüter anwerben 50\r\n"
            "B: Bewegung Südwest\r\nK\r\nDiplomatiestatus ändern 4 +\r\n")
    utf8 = parse_sheet(text.encode("utf-8"))
    latin1 = parse_sheet(text.encode("latin-1"))
    bom = parse_sheet(b"\xef\xbb\xbf" + text.replace("\r\n", "\n").encode("utf-8"))
    for sheet in (utf8, latin1, bom):
        assert sheet.errors == []
        assert sheet.kingdom == 3
        assert sheet.armies[0].phase_a == m.Recruit(50, 6)
        assert sheet.armies[0].phase_b == m.Move((Direction.SW,), 7)
        assert sheet.kingdom_orders == [m.ChangeDiplomacy(4, 1, 9)]


def test_comments_tabs_and_blank_lines_are_ignored():
    """'#' starts a comment outside message texts; tabs separate like blanks."""
    sheet = parse_sheet(f"# mein Zug\n{HEAD}\n\n\tH\t# Heere\nHeer\t0301\t101.12 # Krieger\n"
                        "A:\tnr\t10   # zehn\n\n")
    assert sheet.errors == [] and sheet.armies[0].phase_a == m.Recruit(10, 9)


def test_one_bad_line_never_loses_the_good_ones():
    """Spielzug (b): the bad order is refused, the others run."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nA: nr fünfhundert\nB: b NO\n"
                        "Heer 0302 101.13\nB: s\nK\nQQ 7\nF+ 100\n")
    assert [d.line for d in sheet.errors] == [6, 11]
    assert sheet.armies[0].phase_b == m.Move((Direction.NO,), 7)
    assert sheet.armies[1].phase_b == m.Search(9)
    assert sheet.kingdom_orders == [m.Festival(100, 12)]


def test_a_phase_b_error_says_the_army_rests():
    """"Diesen Befehl [r] führt jedes Heer automatisch aus, wenn es in der Phase B ...
    keinen anderen Befehl erhalten hat"."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nB: b XX\n")
    (d,) = sheet.errors
    assert (d.line, d.column, d.found) == (6, 6, "XX")
    assert "Heer ruht" in d.consequence


def test_an_unknown_direction_after_valid_ones_is_interpreted_as_the_shorter_move():
    """Spielzug (b): 'versuchen, den Befehl zu interpretieren'."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nB: b NO O NQ\n")
    assert sheet.errors == []
    (w,) = sheet.diagnostics
    assert w.consequence == "interpretiert als b NO O" and w.suggestion == ""
    assert sheet.armies[0].phase_b == m.Move((Direction.NO, Direction.O), 6)


def test_an_unknown_command_gets_a_meinten_sie_suggestion():
    """Messages a player understands: what was found, what was expected, a guess."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nB: Bewgung NO\n")
    (d,) = sheet.errors
    assert d.found == "Bewgung" and d.suggestion == "Bewegung"


def test_an_order_without_phase_is_interpreted_by_its_command():
    """The phase of a command is unique, so a missing 'A:'/'B:' is interpreted."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nnr 100\nb W\n")
    assert sheet.errors == []
    assert [d.consequence for d in sheet.diagnostics] == ["interpretiert als A: nr 100",
                                                           "interpretiert als B: b W"]


def test_a_second_order_in_the_same_phase_is_refused_and_the_first_stays():
    """"jedem Heer genau einen Befehl" per phase."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nB: s\nB: t\n")
    (d,) = sheet.errors
    assert d.line == 7 and sheet.armies[0].phase_b == m.Search(6)


def test_an_army_header_without_position_refuses_the_army_orders():
    """"muß mit seiner Heeresnummer und Position aufgeführt werden"."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301\nA: nr 5\nHeer 0302 101.13\nB: s\n")
    assert [d.line for d in sheet.errors] == [5, 6]
    assert [b.number for b in sheet.armies] == [302]


def test_parameter_ranges_fixed_by_the_rule_are_refused():
    """SS 1..100 ("Die Siedlung" (d)), names up to 15 characters, F+ above 0."""
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nA: nn Ein viel zu langer Name\n"
                        "K\nSS 101.12 150\nF+ 0\nDS 4 +++\n")
    assert [d.line for d in sheet.errors] == [6, 8, 9]
    assert sheet.kingdom_orders == [m.ChangeDiplomacy(4, 2, 10)]
    assert sheet.diagnostics[-1].severity is m.Severity.WARNING


def test_messages_and_announcements_keep_their_text_verbatim():
    """"Die Kontakte zwischen Herrschern": Botschaften and Bekanntmachungen."""
    sheet = parse_sheet(f"{HEAD}BOTSCHAFT an Königreich 4\nSeid gegrüßt # kein Kommentar\n\n"
                        "Euer Freund\nENDE\nBekanntmachung\nFriede!\nende\n")
    assert sheet.messages == [m.Message(4, "Seid gegrüßt # kein Kommentar\n\nEuer Freund", 4)]
    assert sheet.announcements == [m.Announcement("Friede!", 9)]


def test_a_message_without_ende_runs_to_the_end_with_a_warning():
    sheet = parse_sheet(f"{HEAD}BOTSCHAFT 4\nHallo\n")
    assert sheet.messages[0].text == "Hallo" and sheet.diagnostics[0].message == "ENDE fehlt"


def test_kingdom_orders_in_the_h_section_are_interpreted_as_k_orders():
    sheet = parse_sheet(f"{HEAD}H\nHeer 0301 101.12\nBH 101.12\n")
    assert sheet.errors == [] and sheet.kingdom_orders == [m.Build(Building.HAFEN, A12, 6)]


def test_an_army_order_outside_any_army_block_is_refused():
    sheet = parse_sheet(f"{HEAD}K\nb NO\n")
    (d,) = sheet.errors
    assert d.message == "Heeresbefehl ohne Heer"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_the_parser_never_raises_and_accounts_for_every_line(text):
    """Every non-blank, non-comment line yields an order, a structural element or a
    diagnostic; the reader never fails."""
    result = parse_detailed(text)
    sheet = result.sheet
    assert not any(d.message.startswith("interner Fehler") for d in sheet.diagnostics)
    order_lines = {b.line for b in sheet.armies}
    order_lines |= {o.line for b in sheet.armies for o in (b.phase_a, b.phase_b) if o}
    order_lines |= {o.line for o in sheet.kingdom_orders}
    diag_lines = {d.line for d in sheet.diagnostics}
    for n, line in enumerate(split_lines(text.lstrip("\ufeff")), start=1):
        if not is_significant(line) and result.kinds.get(n) != "text":
            continue
        if result.kinds.get(n) is None:
            # only blank lines inside message texts may go without a kind
            assert not line.strip(), (n, line)
            continue
        kind = result.kinds[n]
        if kind in ("order", "army"):
            assert n in order_lines or n in diag_lines
        elif kind == "diagnostic":
            assert n in diag_lines


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "Heer 0301 101.12", "A: nr 5", "B: b NO", "K", "H", "BH 101.12", "DS 3 ++", "B: x Q",
    "Botschaft 2", "ENDE", "Bekanntmachung", "A: nn Burg", "zzz", "A:", "B: Bewegung W-W",
    "Segment: canura", "Passwort: x", "Mond: Dormit 412", "# nur Kommentar", "",
]), max_size=30), st.sampled_from(["\n", "\r\n"]), st.sampled_from(["utf-8", "latin-1"]))
def test_sheets_made_of_real_lines_never_raise_and_keep_every_line(lines, eol, enc):
    """The property above on sheets built from realistic lines in both encodings."""
    text = eol.join(lines)
    result = parse_detailed(text.encode(enc))
    for n, line in enumerate(lines, start=1):
        if is_significant(line):
            assert n in result.kinds


def test_redacting_a_sheet_hides_its_password_and_keeps_its_lines():
    """Passwords are the key to a kingdom: an export or a confirmation shows the
    sheet without it, line for line."""
    from wdg.orders.parser import redact_passwords

    text = "Segment: canura\r\nKönigreich: 3\r\nPASSWORT:  geheim-77  \r\nH\r\nHeer 0301 101.12\r\n"
    red = redact_passwords(text)
    assert "geheim-77" not in red
    assert red.splitlines()[2] == "PASSWORT: ******"
    assert len(red.splitlines()) == len(text.splitlines())
    assert parse_sheet(red).kingdom == 3
