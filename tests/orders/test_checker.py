"""The checker: each rule with a failing and a passing sheet (Spielregel sections cited)."""

from __future__ import annotations

import pytest

from wdg.orders import model as m
from wdg.orders.checker import accepted, check_sheet
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view, load_view, view_to_yaml
from wdg.errors import DataError

HEAD = "Segment: test\nKönigreich: 1\nPasswort: geheim-1\n"
ALL = ("H\nHeer 0101 101.10\nHeer 0102 101.09\nHeer 0103 101.10\nHeer 0104 000.00\n"
       "Heer 0105 000.00\nHeer 0106 101.10\n")


def verdict(world, body: str, *, head: str = HEAD, listed: bool = True):
    """Errors of a sheet (all armies listed first unless ``listed`` is False) as
    ``(line, message)``; line numbers count from the body's first line."""
    pre = head + (ALL if listed else "")
    offset = pre.count("\n")
    sheet = parse_sheet(pre + body)
    diags = check_sheet(sheet, build_view(world, 1))
    return [(d.line - offset, d.message) for d in diags if d.severity is m.Severity.ERROR]


def army(number: str, pos: str, *orders: str) -> str:
    """A block that replaces the listing of one army (same number twice merges)."""
    return f"Heer {number} {pos}\n" + "".join(f"{o}\n" for o in orders)


def fails(world, body: str, line: int = 2) -> str:
    errs = verdict(world, body)
    assert [ln for ln, _ in errs] == [line], errs
    return errs[0][1]


def passes(world, body: str) -> None:
    assert verdict(world, body) == []


def test_a_complete_sheet_without_orders_has_no_errors_and_no_warnings(world):
    """"Auch ein Heer, welches keine Befehle erhält, muß ... aufgeführt werden"."""
    sheet = parse_sheet(HEAD + ALL)
    assert check_sheet(sheet, build_view(world, 1)) == []


def test_a_missing_army_is_warned_about_and_rests(world):
    sheet = parse_sheet(HEAD + "H\nHeer 0101 101.10\n")
    diags = check_sheet(sheet, build_view(world, 1))
    assert {d.message for d in diags} == {f"Heer {n:04d} fehlt im Spielzug"
                                          for n in (102, 103, 104, 105, 106)}
    assert all(d.severity is m.Severity.WARNING and "ruht" in d.consequence for d in diags)


def test_the_sheet_must_be_for_the_viewed_kingdom(world):
    errs = verdict(world, "", head="Königreich: 2\n")
    assert [e[1] for e in errs] == ["der Spielzug ist nicht für dieses Königreich"]
    passes(world, "")


def test_an_army_of_another_kingdom_is_refused(world):
    """"Heeresbefehle sind Befehle, die ein Herrscher den Heeren seines Königreiches erteilt"."""
    errs = verdict(world, "\n" + army("0201", "101.20", "B: s"))
    assert [ln for ln, _ in errs] == [2, 3]  # the block and its order, each on its own line
    assert "gehört nicht" in errs[0][1] and "verweigert" in errs[1][1]
    passes(world, army("0101", "101.10", "B: s"))


def test_a_wrong_position_refuses_the_army(world):
    """Number and position are both required and must agree."""
    errs = verdict(world, army("0101", "101.11", "B: s"), listed=False)
    assert errs[0] == (1, "Heer 0101 steht nicht in 101.11")
    assert [ln for ln, _ in errs] == [1, 2]  # its order is refused on its own line too


def test_passive_armies_get_only_nf_or_nh_and_no_phase_b(world):
    """"Das Heer": "Passive Heere können keine Befehle für die Phase B erhalten!"."""
    assert "passive" in fails(world, army("0104", "000.00", "B: s"))
    assert "passives" in fails(world, army("0104", "000.00", "A: nr 5"))
    passes(world, army("0104", "000.00", "A: nh 101.10"))
    passes(world, army("0105", "000.00", "A: nf"))


def test_nh_needs_a_general_and_an_own_settlement_with_kaserne(world):
    """"Landheere können nur in Siedlungen aktiviert werden, in denen es Kasernen gibt"."""
    assert "Kaserne" in fails(world, army("0104", "000.00", "A: nh 101.11"))
    assert "ohne Feldherr" in fails(world, army("0105", "000.00", "A: nh 101.10"))


def test_nf_is_only_for_passive_armies(world):
    """"Feldherren können nur für passive Heere angeworben werden"."""
    assert "passive" in fails(world, army("0101", "101.10", "A: nf"))


def test_nr_only_in_an_own_settlement_with_kaserne_and_ships_with_hafen(world):
    """"Soldaten ... in jeder ... Siedlung ..., in der eine Kaserne vorhanden ist"."""
    assert "Kaserne" in fails(world, army("0102", "101.09", "A: nr 100"))
    passes(world, army("0101", "101.10", "A: nr 100"))
    passes(world, army("0103", "101.10", "A: nr 2"))


def test_eh_target_must_be_in_the_same_gemark_with_the_same_troop_type(world):
    """"an ein anderes Zielheer, welches sich in derselben Gemark befindet und derselben
    Truppengattung angehört"."""
    assert "Zielheer" in fails(world, army("0101", "101.10", "A: eh 0106"))
    assert "Zielheer" in fails(world, army("0101", "101.10", "A: eh 0102"))
    passes(world, army("0101", "101.10", "A: eh 0000"))


def test_bb_only_for_warriors_in_a_coastal_forest_towards_water(world):
    """"(bb) Boote bauen": Kriegerheer, Küstengemark, Wassergemark in the direction."""
    passes(world, army("0102", "101.09", "A: bb NW"))
    assert "Wassergemark" in fails(world, army("0102", "101.09", "A: bb SO"))
    assert "Wald" in fails(world, army("0101", "101.10", "A: bb NW"))
    assert "Kriegerheere" in fails(world, army("0106", "101.10", "A: bb NW"))


def test_bb_bs_vs_take_the_whole_month(world):
    """"in der Phase B können diesem Heer also keine weiteren Befehle erteilt werden"."""
    assert "ganzen Mond" in fails(world, army("0102", "101.09", "A: bb NW", "B: s"), 3)


def test_bs_boards_an_own_empty_fleet_in_an_own_harbour(world):
    """"(bs) Schiffe betreten": Hafenstadt, fleet carries nobody."""
    passes(world, army("0101", "101.10", "A: bs 0103"))
    assert "Flotte" in fails(world, army("0101", "101.10", "A: bs 0106"))
    world.armies[103].carrying = 106
    assert "transportiert schon" in fails(world, army("0101", "101.10", "A: bs 0103"))


def test_vs_target_is_the_harbour_or_an_adjacent_coastal_gemark(world):
    """"Die Zielgemark muß ... an derselben Stelle wie die Flotte (Hafen) oder direkt
    angrenzend (Küstengemark) sein"."""
    assert "nicht eingeschifft" in fails(world, army("0101", "101.10", "A: vs 101.10"))
    world.armies[101].carried_by = 103
    passes(world, army("0101", "101.10", "A: vs 101.11"))
    assert "Zielgemark" in fails(world, army("0101", "101.10", "A: vs 101.14"))


def test_nn_name_length_and_own_settlement(world):
    """"Der neue Name der Siedlung kann aus bis zu 15 beliebigen Zeichen bestehen"."""
    passes(world, army("0101", "101.10", "A: nn Rabenfels"))
    assert "Zeichen" in fails(world, army("0101", "101.10", "A: nn Rabenfels am Meer"))
    assert "Siedlung" in fails(world, army("0102", "101.09", "A: nn Rabenfels"))


def test_one_order_per_army_and_phase(world):
    """"jedem Heer genau einen Befehl" per phase."""
    assert "schon" in fails(world, army("0101", "101.10", "B: s", "B: t"), 3)


def test_fleets_cannot_occupy_conquer_or_destroy(world):
    assert "Flotten" in fails(world, army("0103", "101.10", "B: o"))
    passes(world, army("0103", "101.10", "B: b NW"))


def test_directions_must_be_valid(world):
    """The six directions NW NO W O SW SO."""
    assert "Himmelsrichtung" in fails(world, army("0101", "101.10", "B: b QQ"))


def test_number_of_kingdom_orders_is_limited_by_palaces(world):
    """"Pro Palast und Mond ... einen Befehl ... maximal 10 und minimal 1"."""
    assert "zu viele" in fails(world, "K\nF+ 100\nF+ 200\n", 3)
    passes(world, "K\nF+ 100\n")


def test_ds_only_for_listed_kingdoms_and_the_status_stays_within_1_to_9(world):
    """"Der Diplomatiestatus kann einen Wert zwischen 1 ... und 9 ... annehmen"."""
    assert "Liste" in fails(world, "K\nDS 4 +\n")
    passes(world, "K\nDS 2 ++\n")
    sheet = parse_sheet(HEAD + ALL + "K\nDS 3 ++\n")
    (w,) = check_sheet(sheet, build_view(world, 1))
    assert w.severity is m.Severity.WARNING and w.consequence == "interpretiert als Status 9"


def test_bh_bk_bq_only_in_own_settlements_and_bm_on_own_land(world):
    """"in Siedlungen: BH, BK, BQ - in jeder Landgemark: BM"."""
    passes(world, "K\nBQ 101.10\n")
    assert "Siedlungen" in fails(world, "K\nBK 101.11\n")
    passes(world, "K\nBM 101.11\n")
    assert "Minen" in fails(world, "K\nBM 101.20\n")


def test_ss_on_own_gemark_not_volcano_1_to_100(world):
    """"Die Siedlung" (c), (d): no settlement on Vulkan; 1..100 Baueinheiten."""
    passes(world, "K\nSS 101.11 100\n")
    assert "Hochlandvulkan" in fails(world, "K\nSS 101.12 10\n")
    assert "eigenen" in fails(world, "K\nSS 101.20 10\n")
    assert "100" in fails(world, "K\nSS 101.11 101\n")


def test_festival_needs_gold_above_zero(world):
    """"(F+) Volksfest veranstalten <Menge an Goldsternen>"."""
    assert "0" in fails(world, "K\nF+ 0\n")


def test_messages_only_to_listed_kingdoms(world):
    """"Die Kontakte zwischen Herrschern"."""
    assert "Botschaft" in fails(world, "BOTSCHAFT 4\nHallo\nENDE\n", 1)
    passes(world, "BOTSCHAFT 2\nHallo\nENDE\n")


def test_accepted_removes_refused_orders_and_keeps_the_rest(world):
    """The engine runs the orders that passed and refuses the ones with errors."""
    sheet = parse_sheet(HEAD + "H\nHeer 0101 101.10\nA: nr 5\nB: o\nHeer 0102 101.09\nA: nr 9\n"
                        "K\nF+ 5\nF+ 6\n")
    clean = accepted(sheet, check_sheet(sheet, build_view(world, 1)))
    assert clean.armies[0].phase_a == m.Recruit(5, 6)
    assert clean.armies[1].phase_a is None
    assert clean.kingdom_orders == [m.Festival(5, 11)]


def test_the_view_round_trips_through_yaml(world, tmp_path):
    view = build_view(world, 1)
    p = tmp_path / "k1.view.yaml"
    p.write_text(view_to_yaml(view), encoding="utf-8")
    assert load_view(p) == view


def test_a_bad_view_file_names_the_file_and_key(tmp_path, world):
    p = tmp_path / "bad.yaml"
    p.write_text(view_to_yaml(build_view(world, 1)).replace("position: '101.10'",
                                                            "position: nirgendwo", 1))
    with pytest.raises(DataError) as exc:
        load_view(p)
    assert "bad.yaml" in str(exc.value) and "armies[0].position" in str(exc.value)


def test_a_move_into_the_sea_is_flagged_without_the_forecast():
    """"Landheere können keine Wassergemarken betreten" ("Die Bewegung"): the
    checker (no ``--forecast``) warns on the step into the Küstengewässer it
    knows, with the engine's own reason, and says where the move ends."""
    from wdg.world.factory import add_army, add_kingdom, small_segment

    seg = small_segment(["T. ~K T."])
    add_kingdom(seg, 1)
    add_army(seg, 101, 1, (0, 0), units=100)
    sheet = parse_sheet(HEAD.replace("Segment: test", "Segment: test") + "H\nHeer 0101 101.01\n"
                        "B: b O O\n")
    warned = [d for d in check_sheet(sheet, build_view(seg, 1)) if d.line == 6]
    assert [d.severity for d in warned] == [m.Severity.WARNING]
    assert "Landheere können keine Wassergemarken betreten" in warned[0].message
    assert warned[0].consequence == "die Bewegung endet spätestens in 101.01"
