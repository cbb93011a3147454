"""SVG maps and the CLI's manners (issue #2, items 8 and 9)."""

from __future__ import annotations

import re
import shutil
import xml.dom.minidom
from pathlib import Path

import pytest
from typer.testing import CliRunner

from segment_fixtures import full_segment
from wdg.cli import app
from wdg.reports.maps import render_map_svg
from wdg.store.segment import save_segment

runner = CliRunner()


def test_the_svg_is_well_formed_self_contained_and_escapes_names() -> None:
    svg = render_map_svg(full_segment())
    xml.dom.minidom.parseString(svg)
    assert "href" not in svg and "url(" not in svg
    seg = full_segment()
    seg.settlement_names[next(iter(seg.settlement_names))] = "<script>&\"x\""
    svg = render_map_svg(seg)
    assert "<script>" not in svg and "&lt;script&gt;&amp;" in svg


def test_the_svg_is_deterministic() -> None:
    assert render_map_svg(full_segment()) == render_map_svg(full_segment())


def test_the_full_map_shows_every_army_settlement_and_creature() -> None:
    svg = render_map_svg(full_segment())
    armies = re.search(r'<g class="armies".*?</g>', svg).group(0)
    assert sorted(re.findall(r">(\d+)<", armies)) == ["101", "103", "201"]  # 102 is passive
    assert "Arkon" in svg and "Borh" in svg
    assert ">D<" in svg  # the drache
    assert "101" in svg and "102" in svg  # province numbers


def test_a_kingdom_map_shows_only_its_known_gemarks_and_own_armies() -> None:
    seg = full_segment()
    svg = render_map_svg(seg, 1)
    assert "#d9d9d9" in svg  # unknown gemarks are grey
    armies = re.search(r'<g class="armies".*?</g>', svg).group(0)
    assert sorted(re.findall(r">(\d+)<", armies)) == ["101", "103"]  # not the foreign 201
    assert ">D<" not in svg  # creatures are not shown yet
    assert "Borh" not in svg  # a settlement it has never seen


def test_fleets_are_drawn_differently_from_land_armies() -> None:
    svg = render_map_svg(full_segment())
    assert svg.count('fill="#1f3f8f"') >= 2  # the fleet marker and the legend entry


@pytest.fixture()
def campaign(tmp_path: Path) -> Path:
    save_segment(full_segment(), tmp_path / "worlds" / "probe")
    return tmp_path


def test_map_command_writes_the_default_file(campaign: Path) -> None:
    result = runner.invoke(app, ["map", "probe", "-C", str(campaign)])
    assert result.exit_code == 0, result.output
    assert (campaign / "reports" / "probe" / "map.svg").read_text().startswith("<svg")
    result = runner.invoke(app, ["map", "probe", "--kingdom", "2", "-C", str(campaign)])
    assert (campaign / "reports" / "probe" / "map-k2.svg").is_file()


def test_segment_status_prints_the_long_month_and_marks_city_states(campaign: Path) -> None:
    result = runner.invoke(app, ["segment", "status", "probe", "-C", str(campaign)])
    assert result.exit_code == 0, result.output
    assert "Mond Dormit (Blütenmond), Frühling des Jahres 412" in result.output
    assert "Freistadt (Stadtstaat)" in result.output
    assert re.search(r"1\s+Arkonia\s+Herrscher 1\s+3\s+1\s+2\s+1\s+1\.000\s+100\.000 GS",
                     result.output)


def test_segment_new_prints_passwords_once_and_refuses_to_overwrite(tmp_path: Path) -> None:
    args = ["segment", "new", "neu", "--provinces", "2x2", "--kingdoms", "3", "--seed", "5",
            "--demo-passwords", "-C", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "neu-1" in result.output and "neu-3" in result.output
    again = runner.invoke(app, args)
    assert again.exit_code == 1 and "--force" in str(again.exception or again.output)
    assert runner.invoke(app, args + ["--force"]).exit_code == 0


def _cli(args: list[str]) -> tuple[int, str]:
    """Run the real entry point (with its error handling) and capture stderr."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "wdg", *args], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2])
    return proc.returncode, proc.stderr


def test_a_missing_segment_is_one_clear_message_without_traceback(tmp_path: Path) -> None:
    code, err = _cli(["segment", "status", "fehlt", "-C", str(tmp_path)])
    assert code == 1 and "Traceback" not in err
    assert err.startswith("Fehler:") and "kein Segment 'fehlt'" in err and "segment.yaml" in err


def test_a_corrupt_file_is_one_clear_message_naming_file_and_key(campaign: Path) -> None:
    path = campaign / "worlds" / "probe" / "armies.yaml"
    path.write_text(path.read_text().replace("units: 1000", "units: viele", 1))
    code, err = _cli(["map", "probe", "-C", str(campaign)])
    assert code == 1 and "Traceback" not in err
    assert "armies.yaml" in err and "armies[0].units" in err and "eine ganze Zahl" in err


def test_every_command_has_help() -> None:
    for args in (["--help"], ["segment", "--help"], ["segment", "new", "--help"],
                 ["segment", "status", "--help"], ["map", "--help"], ["demo", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Aufruf" in result.output, args


def test_demo_copies_the_campaign_prints_status_and_writes_the_map(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    (out / "stale").mkdir(parents=True)
    result = runner.invoke(app, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert not (out / "stale").exists()
    assert (out / "worlds" / "canura" / "segment.yaml").is_file()
    assert (out / "reports" / "canura" / "map.svg").is_file()
    assert "Dormit" in result.output
    shutil.rmtree(out)


def test_segment_new_names_the_range_not_the_format_when_the_size_is_too_large() -> None:
    """Addresses (docs/addresses.md): a province number has three digits, 100 x row +
    column — ``120x9`` and ``4x12`` are well-formed but too large, and the message says
    so and why; ``4-3`` is a format error."""
    for text, found in (("120x9", "120 Spalten"), ("4x12", "12 Zeilen")):
        code, err = _cli(["segment", "new", "x", "--provinces", text, "-C", "/nonexistent"])
        assert code == 1 and "Traceback" not in err
        assert found in err and "zu groß" in err and "1..99 Spalten" in err
        assert "1..9 Zeilen" in err and "drei Ziffern" in err
    code, err = _cli(["segment", "new", "x", "--provinces", "4-3", "-C", "/nonexistent"])
    assert code == 1 and "erwartet SPALTENxZEILEN" in err


def test_segment_new_help_states_the_caps_and_their_reason() -> None:
    """The generator's caps (99 kingdoms, 99 armies per kingdom, 99x9 provinces) are
    stated in ``--help`` with their reason (the four-digit army number, the three-digit
    province number), and a request beyond them says the same."""
    text = " ".join(runner.invoke(app, ["segment", "new", "--help"], terminal_width=200)
                    .output.split())
    assert "höchstens 99 (Heernummern haben vier Ziffern" in text.replace("│ ", "")
    assert "99x9" in text and "--scale" in text
    code, err = _cli(["segment", "new", "x", "--kingdoms", "120", "-C", "/nonexistent"])
    assert code == 1 and "1..99" in err and "vier Ziffern" in err


def test_the_stress_preset_refuses_size_options_and_scales_past_1x(tmp_path: Path) -> None:
    """``--preset stress`` sets its own size: ``--provinces`` with it is refused with a
    pointer to ``--scale``; ``--scale`` without the preset is refused; ``--scale``
    grows the preset's map past 1x (here a small one to stay fast, then the sizes of 2x)."""
    from wdg.world.stress import stress_size

    r = runner.invoke(app, ["segment", "new", "s", "--preset", "stress", "--provinces", "30x9",
                            "-C", str(tmp_path)])
    assert r.exit_code != 0 and "--provinces" in str(r.exception)
    assert "--scale" in str(r.exception)
    assert not (tmp_path / "worlds" / "s").exists()
    r = runner.invoke(app, ["segment", "new", "s", "--scale", "2", "-C", str(tmp_path)])
    assert r.exit_code != 0 and "--preset stress" in str(r.exception)
    r = runner.invoke(app, ["segment", "new", "s", "--preset", "stress", "--scale", "0.05",
                            "--seed", "3", "--start", "0413-02", "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    from wdg.store.segment import load_segment
    assert load_segment(tmp_path / "worlds" / "s").date.key == "0413-02"  # --start applies
    assert stress_size(2).prov_cols == 40 and stress_size(2).kingdoms + stress_size(2).city_states == 99
    assert stress_size(4.95).prov_cols == 99
    r = runner.invoke(app, ["segment", "new", "t", "--preset", "stress", "--scale", "5",
                            "-C", str(tmp_path)])
    assert r.exit_code != 0 and "4.95" in str(r.exception)


@pytest.mark.slow
def test_the_stress_preset_at_twice_the_size_has_a_wider_map_and_99_realms() -> None:
    """``--scale 2``: 40 x 9 provinces, 93 kingdoms and 6 city states (99, the cap of the
    four-digit army numbers), 60 armies per kingdom, every realm placed."""
    from wdg.world.stress import stress_segment

    seg, passwords = stress_segment(2.0)
    assert (seg.grid.prov_cols, seg.grid.prov_rows) == (40, 9)
    assert len(seg.kingdoms) == 99 and len(passwords) == 93
    assert max(seg.armies) // 100 == 93 and len(seg.armies) == 93 * 60
