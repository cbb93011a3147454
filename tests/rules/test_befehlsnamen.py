""""Die Befehle für das Königreich": "In (runden Klammern) ist die Befehlsabkürzung
aufgeführt, danach folgt der Befehlsname. Der Befehlsabkürzung bzw. dem Befehlsnamen
müssen die Angaben hinzugefügt werden" — a K order is accepted by its full name as
the rule prints it, and by the names the text uses elsewhere."""

from __future__ import annotations

from wdg.orders import model as m
from wdg.orders.parser import parse_sheet
from wdg.world.address import Address
from wdg.world.hexgrid import Direction
from wdg.world.state import Building

HEAD = "Segment: canura\nKönigreich: 1\nPasswort: x\n"


def k_orders(*lines: str):
    sheet = parse_sheet(HEAD + "K\n" + "\n".join(lines) + "\n")
    return sheet.kingdom_orders, [e.message for e in sheet.errors]


def test_siedlung_bauen_erweitern_by_its_full_name():
    """"(SS) Siedlung bauen/erweitern <Gemark, Baustufe>": the full name — also with
    the abbreviation in brackets before it, as printed — is the settlement order
    (it was refused as ambiguous with ``x`` "Siedlung/Bauwerk zerstören")."""
    orders, errors = k_orders("Siedlung bauen/erweitern 101.02 10",
                              "(SS) Siedlung bauen/erweitern 101.03, 20")
    assert errors == []
    assert orders == [m.Settle(Address(101, 2), 10, 5), m.Settle(Address(101, 3), 20, 6)]


def test_bauwerk_n_bauen_with_the_letter_in_quotes():
    """"(Bn) Bauwerk "n" bauen <Gemark>" with "BH = Hafen, BK = Kaserne, BQ = Palast,
    BM = Mine": ``Bauwerk "M" bauen`` and ``(BK) Bauwerk Kaserne bauen``."""
    orders, errors = k_orders('Bauwerk "M" bauen 101.12', "(BK) Bauwerk Kaserne bauen 101.13")
    assert errors == []
    assert orders == [m.Build(Building.MINE, Address(101, 12), 5),
                      m.Build(Building.KASERNE, Address(101, 13), 6)]


def test_the_conquest_orders_by_the_names_of_die_eroberung():
    """"Die Eroberung": "(Befehle Gemark einnehmen oder Gemark okkupieren)" — these
    names are ``e`` and ``o``."""
    sheet = parse_sheet(HEAD + "H\nHeer 0101 101.12\nB: Gemark einnehmen O\n"
                        "Heer 0102 101.13\nB: Gemark okkupieren\n")
    assert [e.message for e in sheet.errors] == []
    assert sheet.armies[0].phase_b == m.Conquer((Direction.O,), 6)
    assert sheet.armies[1].phase_b == m.Occupy(8)
