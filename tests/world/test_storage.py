"""Segment storage: a save loads back equal; every corrupt file fails with a
message naming the file, the key (or line) and what was expected
(ARCHITECTURE.md, "State and storage")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from segment_fixtures import full_segment
from wdg.errors import DataError
from wdg.store.segment import load_segment, save_segment, segments_equal, write_npz, read_npz


@pytest.fixture()
def saved(tmp_path: Path) -> Path:
    d = tmp_path / "worlds" / "probe"
    save_segment(full_segment(), d)
    return d


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _fails(d: Path, *parts: str) -> str:
    with pytest.raises(DataError) as info:
        load_segment(d, verify=False)  # the validators (the hash check is tested apart)
    msg = str(info.value)
    for p in parts:
        assert p in msg, f"{p!r} not in {msg!r}"
    return msg


def test_a_saved_segment_loads_back_equal(saved: Path) -> None:
    assert segments_equal(load_segment(saved), full_segment())


def test_segments_equal_notices_a_changed_layer_value_and_a_changed_record(saved: Path) -> None:
    a = load_segment(saved)
    b = load_segment(saved)
    b.militia[2, 2] += 1
    assert not segments_equal(a, b)
    c = load_segment(saved)
    c.armies[101].units -= 1
    assert not segments_equal(a, c)


def test_saving_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    save_segment(full_segment(), tmp_path / "a")
    save_segment(full_segment(), tmp_path / "b")
    for f in sorted((tmp_path / "a").iterdir()):
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes(), f.name


def test_passive_armies_are_written_at_the_special_gemark(saved: Path) -> None:
    """"Das Heer": a passive army waits in the Sondergemark 000.00."""
    text = (saved / "armies.yaml").read_text(encoding="utf-8")
    assert "position: 000.00" in text or "position: '000.00'" in text
    assert load_segment(saved).armies[102].position is None


def test_map_txt_shows_codes_with_odd_rows_indented(saved: Path) -> None:
    rows = [ln for ln in (saved / "map.txt").read_text().splitlines() if not ln.startswith("#")]
    assert rows[0].startswith("~M ~K T. Hw")
    assert rows[1].startswith(" ~K T. Hs B.")
    assert len(rows) == 6 and len(rows[0].split()) == 16


def test_saving_over_an_existing_segment_keeps_the_turn_archive_and_other_files(saved: Path) -> None:
    (saved / "turns" / "0412-03").mkdir(parents=True)
    (saved / "turns" / "0412-03" / "manifest.yaml").write_text("x: 1\n")
    (saved / "README.md").write_text("hello\n")
    seg = load_segment(saved)
    seg.kingdoms[1].treasury = 5
    save_segment(seg, saved)
    assert (saved / "turns" / "0412-03" / "manifest.yaml").read_text() == "x: 1\n"
    assert (saved / "README.md").read_text() == "hello\n"
    assert load_segment(saved).kingdoms[1].treasury == 5
    assert [p.name for p in saved.parent.iterdir()] == ["probe"]


def test_a_failed_save_leaves_the_previous_segment_untouched(saved: Path) -> None:
    seg = load_segment(saved)
    seg.kingdoms[1].name = 12345  # type: ignore[assignment] - not dumpable as the codec expects
    seg.armies[101].general.troop = "kaputt"  # type: ignore[assignment]
    with pytest.raises(AttributeError):
        save_segment(seg, saved)
    assert segments_equal(load_segment(saved), full_segment())
    assert [p.name for p in saved.parent.iterdir()] == ["probe"]


def test_bad_yaml_names_file_and_line(saved: Path) -> None:
    _edit(saved / "armies.yaml", "armies:", "armies: [unclosed")
    _fails(saved, "armies.yaml", "Zeile 2", "gültiges YAML")


def test_unknown_terrain_code_names_line_and_column(saved: Path) -> None:
    path = saved / "map.txt"
    lines = path.read_text().splitlines()
    first = next(i for i, ln in enumerate(lines) if not ln.startswith("#"))
    lines[first + 1] = " ~K Zz" + lines[first + 1][6:]
    path.write_text("\n".join(lines) + "\n")
    _fails(saved, "map.txt", f"Zeile {first + 2}", "Spalte 5", "'Zz'", "Geländecode")


def test_a_short_map_row_is_refused(saved: Path) -> None:
    path = saved / "map.txt"
    text = path.read_text()
    path.write_text(text.replace("~M ~K T. Hw ", "~K T. Hw ", 1))
    _fails(saved, "map.txt", "15 Codes", "16 Codes je Zeile")


def test_address_out_of_range_names_the_key(saved: Path) -> None:
    _edit(saved / "armies.yaml", "position: '101.03'", "position: '104.03'")
    _fails(saved, "armies.yaml", "armies[0].position", "'104.03'", "auf dieser Karte")


def test_gemark_number_out_of_range_is_refused(saved: Path) -> None:
    _edit(saved / "world.yaml", "'101.03'", "'101.49'")
    _fails(saved, "world.yaml", "settlements[0].address", "'101.49'")


def test_duplicate_army_number_names_both_entries(saved: Path) -> None:
    _edit(saved / "armies.yaml", "number: 102", "number: 101")
    _fails(saved, "armies.yaml", "armies[1].number", "101", "armies[0]")


def test_wrong_type_names_the_key_path(saved: Path) -> None:
    _edit(saved / "armies.yaml", "units: 1000", "units: tausend")
    _fails(saved, "armies.yaml", "armies[0].units", "'tausend'", "eine ganze Zahl")


def test_wrong_enum_value_lists_the_choices(saved: Path) -> None:
    _edit(saved / "armies.yaml", "troop: Reiter", "troop: Drachen")
    _fails(saved, "armies.yaml", "armies[1].general.troop", "'Drachen'", "'Krieger'")


def test_unknown_key_is_refused(saved: Path) -> None:
    _edit(saved / "kingdoms.yaml", "treasury:", "schatz: 1\n  treasury:")
    _fails(saved, "kingdoms.yaml", "kingdoms[0].schatz", "Schlüssel aus")


def test_missing_required_key_is_refused(saved: Path) -> None:
    _edit(saved / "armies.yaml", "- number: 101\n  kingdom", "- kingdom")
    _fails(saved, "armies.yaml", "armies[0].number", "Schlüssel fehlt")


def test_an_army_of_an_unknown_kingdom_is_refused(saved: Path) -> None:
    _edit(saved / "armies.yaml", "kingdom: 2", "kingdom: 7")
    _fails(saved, "armies.yaml", "armies[3].kingdom", "7", "kingdoms.yaml")


def test_diplomacy_with_an_unknown_kingdom_is_refused(saved: Path) -> None:
    _edit(saved / "kingdoms.yaml", "    2: 3", "    5: 3")
    _fails(saved, "kingdoms.yaml", "kingdoms[0].diplomacy.5")


def test_owner_layer_naming_an_unknown_kingdom_is_refused(saved: Path) -> None:
    arrays = read_npz(saved / "layers.npz")
    arrays["owner"][0, 5] = 42
    write_npz(saved / "layers.npz", arrays)
    _fails(saved, "layers.npz", "owner[101.06]", "42")


def test_wrong_layer_shape_is_refused(saved: Path) -> None:
    arrays = read_npz(saved / "layers.npz")
    arrays["militia"] = np.zeros((3, 3), dtype=np.int32)
    write_npz(saved / "layers.npz", arrays)
    _fails(saved, "layers.npz", "militia", "(3, 3)", "(6, 16)")


def test_a_damaged_npz_is_refused(saved: Path) -> None:
    (saved / "layers.npz").write_bytes(b"not a zip")
    _fails(saved, "layers.npz", "npz")


def test_a_missing_file_is_named(saved: Path) -> None:
    (saved / "kingdoms.yaml").unlink()
    _fails(saved, "kingdoms.yaml", "Datei fehlt")


def test_a_missing_segment_directory_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="Segmentverzeichnis"):
        load_segment(tmp_path / "nowhere")


def test_bad_date_in_segment_yaml_is_refused(saved: Path) -> None:
    _edit(saved / "segment.yaml", "date: 0412-04", "date: 0412-13")
    _fails(saved, "segment.yaml", "'date'", "0412-13")
