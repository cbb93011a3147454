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
from wdg.world.storage import save_segment

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
    assert err.startswith("Fehler:") and "fehlt" in err and "segment directory" in err


def test_a_corrupt_file_is_one_clear_message_naming_file_and_key(campaign: Path) -> None:
    path = campaign / "worlds" / "probe" / "armies.yaml"
    path.write_text(path.read_text().replace("units: 1000", "units: viele", 1))
    code, err = _cli(["map", "probe", "-C", str(campaign)])
    assert code == 1 and "Traceback" not in err
    assert "armies.yaml" in err and "armies[0].units" in err and "an integer" in err


def test_every_command_has_help() -> None:
    for args in (["--help"], ["segment", "--help"], ["segment", "new", "--help"],
                 ["segment", "status", "--help"], ["map", "--help"], ["demo", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Usage" in result.output, args


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
