"""The hash lists' write path raises a named error, never writes a list
without its link (issue #40, "One store"): ``live_list`` used to catch every
exception while it looked up the last archived month and then wrote the
segment's hash list without the link to it — silently ending the chain.
The read path (``check_chain``) catches only the error it means (a month
folder or date that is no month) and lets anything else through."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.commands.demo import copy_demo
from wdg.store import integrity
from wdg.store.integrity import LIST, ListWriteError, check_chain, live_list, parse_list
from wdg.store.journal import FILES
from wdg.store.segment import load_segment, save_segment

SEG = "canura"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """The demo campaign after its first month (archived, not rendered)."""
    camp = tmp_path_factory.mktemp("lists") / "camp"
    copy_demo(camp)
    r = CliRunner().invoke(app, ["turn", "run", SEG, "--no-render", "-q", "-C", str(camp)])
    assert r.exit_code == 0, r.output
    return camp


@pytest.fixture
def seg_dir(played, tmp_path) -> Path:
    c = tmp_path / "camp"
    shutil.copytree(played, c)
    return c / "worlds" / SEG


def test_a_saved_list_links_the_last_archived_month(seg_dir):
    seg = load_segment(seg_dir)
    last = seg.date.previous().key
    data = live_list({n: seg_dir / n for n in FILES}, seg_dir, seg.date.key)
    lines = data.decode().splitlines()
    assert any(line.endswith(f"turns/{last}/{LIST}") for line in lines), lines


def test_a_date_that_is_no_month_raises_a_named_error(seg_dir):
    with pytest.raises(ListWriteError) as e:
        live_list({n: seg_dir / n for n in FILES}, seg_dir, "0412-13")
    assert "kein Mond" in str(e.value) and "nichts wurde gespeichert" in str(e.value)


def test_a_save_over_a_linked_last_month_is_refused_and_changes_nothing(seg_dir, tmp_path):
    """The last archived month replaced by a symbolic link (to a copy elsewhere):
    before, the save wrote a hash list without the link; now it is refused
    with a German message, the segment as before, no generation left."""
    seg = load_segment(seg_dir)
    last = seg_dir / "turns" / seg.date.previous().key
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(last), elsewhere)
    os.symlink(elsewhere, last)
    before = _tree(seg_dir)
    with pytest.raises(ListWriteError) as e:
        save_segment(seg, seg_dir)
    assert "symbolischer Link" in str(e.value) and "Nichts wurde gespeichert" in str(e.value)
    assert _tree(seg_dir) == before
    assert not list(seg_dir.glob(".gen-*")) and not (seg_dir / ".commit").exists()
    live = parse_list(seg_dir / LIST)
    assert isinstance(live, dict) and any(k.startswith("turns/") for k in live)


def test_a_month_folder_that_is_no_month_is_a_finding(seg_dir):
    (seg_dir / "turns" / "0412-13").mkdir()
    found = check_chain(seg_dir)
    assert any(f.path.endswith("0412-13") and "kein gültiger Mond" in f.what for f in found)


def test_an_unexpected_error_in_the_chain_check_is_not_swallowed(seg_dir, monkeypatch):
    """Only "no month" is caught; any other error (a bug) goes through instead of
    turning into a finding or a missing link."""
    from wdg.world import calendar

    def broken(text):
        raise RuntimeError("bug")

    monkeypatch.setattr(calendar.MonthDate, "parse", staticmethod(broken))
    with pytest.raises(RuntimeError):
        check_chain(seg_dir)
    with pytest.raises(RuntimeError):
        integrity.live_list({n: seg_dir / n for n in FILES}, seg_dir, "0412-05")
