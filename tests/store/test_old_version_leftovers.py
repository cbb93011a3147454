"""``wdg segment check`` while another command holds the lock: only the
leftovers of older wdg versions are findings (the running command's journal
is its work in progress). Chosen by which function found it, not by searching
"älteren wdg-Version" in the German finding (issue #44)."""

from __future__ import annotations

from wdg.store.journal import JOURNAL
from wdg.store.lock import store_findings


def test_a_busy_segment_reports_only_the_old_versions_leftovers(tmp_path):
    seg = tmp_path / "worlds" / "test"
    seg.mkdir(parents=True)
    (seg / JOURNAL).write_text("x", encoding="utf-8")  # a save in progress
    (tmp_path / "worlds" / ".test.new-abc").mkdir()  # left by a version before the protocol
    idle = store_findings(seg)
    assert [f.split(":")[0] for f in idle] == [str(seg / JOURNAL),
                                              str(tmp_path / "worlds" / ".test.new-abc")]
    busy = store_findings(seg, busy=True)
    assert busy == idle[1:] and "älteren wdg-Version" in busy[0]
