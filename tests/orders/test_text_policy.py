"""The one text policy for player text (docs/security.md, docs/orders.md
"Player text"): NFC, unsafe characters removed with a warning naming them,
escaped on the terminal, never in SVG/HTML. "Der neue Name der Siedlung kann
aus bis zu 15 beliebigen Zeichen bestehen" (nn) — beliebig, but visible."""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as ET

from typer.testing import CliRunner

from wdg.cli import app, safe_echo
from wdg.orders.parser import parse_sheet
from wdg.reports.maps import render_map_svg
from wdg.reports.render import Renderer
from wdg.textpolicy import clean_line, has_unsafe, terminal_safe, visible, xml_safe

HEAD = "Segment: test\nKönigreich: 1\nPasswort: geheim-1\n"
HOSTILE = "a\x00b\x1bc\x07d\x7fe\x85f\u202eg\u2066h\u200bi\ufeffj\u2028k\u00adl"


def test_unsafe_characters_are_removed_and_each_is_named():
    text, removed = clean_line(HOSTILE)
    assert text == "abcdefghijkl"
    assert [f"U+{ord(r.char):04X}" for r in removed] == [
        "U+0000", "U+001B", "U+0007", "U+007F", "U+0085", "U+202E", "U+2066", "U+200B",
        "U+FEFF", "U+2028", "U+00AD"]


def test_text_is_normalised_to_nfc():
    nfd = unicodedata.normalize("NFD", "Grüße")
    assert clean_line(nfd)[0] == "Grüße" and len(clean_line(nfd)[0]) == 5


def test_a_settlement_name_with_control_characters_gets_warnings_and_stays_visible():
    """nn with ESC, U+202E and a zero-width space: the name loses them, each
    removal is a warning on the line naming the character."""
    sheet = parse_sheet(HEAD + "H\nHeer 0101 101.10\nA: nn Neu\x1b[2J\u202eburg\u200b\n")
    order = sheet.armies[0].phase_a
    assert order is not None and "\x1b" not in str(order) and "\u202e" not in str(order)
    names = {d.message for d in sheet.diagnostics if d.line == 6}
    assert any("U+001B" in n for n in names) and any("U+202E" in n for n in names)
    assert any("U+200B" in n for n in names)


def test_message_text_reaches_the_sheet_without_control_characters():
    sheet = parse_sheet(HEAD + "BOTSCHAFT 2\nabc\u202egnp.exe\x1b[2J\x00\nENDE\n")
    assert sheet.messages[0].text == "abcgnp.exe[2J"
    assert not has_unsafe(sheet.messages[0].text)


def test_the_terminal_sees_control_characters_escaped():
    assert visible("x\x1b[2Jy\u202e") == "x<U+001B>[2Jy<U+202E>"
    assert terminal_safe("a\r\n\tb\x07") == "a\r\n\tb<U+0007>"
    assert xml_safe("a\x00b\x0bc\ufffe\u202e") == "abc"


def test_xml_safe_removes_everything_xml_forbids_and_cr_in_one_pass():
    """xml_safe is one substitution with the policy's class: that class must
    hold every character XML 1.0 forbids (and CR), or the output could hold one."""
    from wdg.textpolicy import _UNSAFE, _XML_BAD

    forbidden = [chr(c) for c in range(0x10000) if _XML_BAD.match(chr(c))] + ["\r"]
    assert len(forbidden) > 2000  # the surrogates alone are 2048
    assert all(_UNSAFE.match(ch) for ch in forbidden)
    text = "Grüße\r\n\x0c\ud800\uffff\u202e ok\t"
    assert xml_safe(text) == "Grüße\n ok\t"


def test_xml_safe_returns_a_printable_text_unchanged_because_no_unsafe_character_is_printable():
    """xml_safe returns a text that ``str.isprintable()`` accepts without the
    substitution: that is right only while no character of the policy's class
    is printable to Python, checked here for every code point (a newer Unicode
    database that made one printable fails this test)."""
    import sys

    from wdg.textpolicy import _UNSAFE

    unsafe = [c for c in range(sys.maxunicode + 1) if _UNSAFE.match(chr(c))]
    assert len(unsafe) > 2000
    assert [hex(c) for c in unsafe if chr(c).isprintable()] == []
    for text in ("Königreich Süd", "Gemark 103.07 – Fürst", "\u00e9\u4e2d"):
        assert xml_safe(text) is text
    assert xml_safe("Süd\u202eX") == "SüdX"


def test_every_printed_line_passes_the_filter(capsys):
    safe_echo("Heer \x1b[2J\u202e")
    assert capsys.readouterr().out == "Heer <U+001B>[2J<U+202E>\n"


def test_orders_check_prints_no_raw_control_character(tmp_path):
    (tmp_path / "s.txt").write_text(HEAD + "K\nF+ 10 \x1b[2J\x07\u202e\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["orders", "check", str(tmp_path / "s.txt"),
                                   "-C", str(tmp_path)])
    assert "\x1b" not in res.output and "\x07" not in res.output and "\u202e" not in res.output
    assert "<U+001B>" in res.output and "U+202E" in res.output


def test_the_map_is_well_formed_whatever_the_settlement_names(world):
    """A name holding NUL, ESC, U+FFFE or a bidi override (from a hand-edited
    segment file; the parser never lets them in) still gives a readable SVG."""
    assert world.settlement_names
    for h in world.settlement_names:
        world.settlement_names[h] = "N\x00u\x1bl\ufffe<&>\u202e\x0b"
    world.title = "T\x00itel\x1b"
    svg = render_map_svg(world)
    ET.fromstring(svg)
    assert not has_unsafe(svg.replace("\n", ""))


def test_templates_never_print_a_character_xml_forbids(tmp_path):
    (tmp_path / "t.html").write_text("<p>{{ name }}</p>", encoding="utf-8")
    r = Renderer(tmp_path)
    html = r.html_env.from_string("<p>{{ name }}</p>").render(name="a\x00b\x1b<c>\u202e")
    assert html == "<p>ab&lt;c&gt;</p>"
