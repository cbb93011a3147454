"""History for archivists and the status before a run (``wdg turn status/list/show``,
``wdg export``), and the game master's sheet as a recorded input of the month."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.commands.demo import copy_demo
from wdg.engine import history
from wdg.engine.turn import replay_month, run_month
from wdg.errors import StateError


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """The demo campaign after its first month."""
    camp = copy_demo(tmp_path_factory.mktemp("hist") / "demo")
    result = run_month(camp, "canura")
    return camp, result


def test_status_before_the_run_lists_valid_sheets_and_the_gm_sheet(tmp_path):
    camp = copy_demo(tmp_path / "demo")
    (camp.root / "orders" / "canura" / "0412-04" / "k6.txt").unlink()
    st = history.month_status(camp, "canura")
    assert st.valid == [1, 2, 3, 4, 5] and st.missing == [6] and st.gm_sheet
    assert not st.needs_force


def test_status_reports_a_sheet_with_a_wrong_password_as_refused(tmp_path):
    camp = copy_demo(tmp_path / "demo")
    p = camp.root / "orders" / "canura" / "0412-04" / "k2.txt"
    p.write_text(p.read_text(encoding="utf-8").replace("canura-2", "falsch"), encoding="utf-8")
    st = history.month_status(camp, "canura")
    assert 2 in st.refused and 2 in st.missing


def test_status_names_the_errors_of_the_gm_sheet_before_the_run(tmp_path):
    """The run would refuse to start: the status says so, line by line in order."""
    camp = copy_demo(tmp_path / "demo")
    (camp.root / "orders" / "canura" / "0412-04" / "sl.txt").write_text(
        "SEGMENTLEITER\nGOLD 99 +10 Bonus\nGOLD 1 5000 ohne Vorzeichen\n", encoding="utf-8")
    st = history.month_status(camp, "canura")
    assert st.gm_sheet and st.valid == [1, 2, 3, 4, 5, 6]
    assert st.gm_errors.index("line 2") < st.gm_errors.index("line 3")
    r = CliRunner().invoke(app, ["turn", "status", "canura", "-C", str(camp.root)])
    assert r.exit_code == 0 and "line 3: Betrag ohne Vorzeichen" in r.output
    assert "verweigert den Start" in r.output


def test_the_run_asks_for_force_when_most_sheets_are_missing(tmp_path):
    """Eressea's lesson: many missing sheets are a sign of lost mail."""
    camp = copy_demo(tmp_path / "demo")
    for n in (1, 2, 3, 4):
        (camp.root / "orders" / "canura" / "0412-04" / f"k{n}.txt").unlink()
    assert history.month_status(camp, "canura").needs_force
    with pytest.raises(StateError, match="--force"):
        run_month(camp, "canura")
    run_month(camp, "canura", force=True)


def test_list_shows_the_archived_month_with_verified_hashes(ran):
    camp, result = ran
    (m,) = history.list_months(camp, "canura")
    assert m.date == result.date and m.verified and "sl.txt" in m.sheets
    assert m.kingdom_order == result.kingdom_order


def test_list_notices_a_tampered_archive(tmp_path):
    camp = copy_demo(tmp_path / "demo")
    run_month(camp, "canura")
    ev = camp.archive_dir("canura") / "0412-04" / "events.jsonl.xz"
    ev.write_bytes(ev.read_bytes() + b"# edited\n")
    (m,) = history.list_months(camp, "canura")  # from the index: sizes
    assert not m.verified and m.first_mismatch.startswith(f"{ev}: fehlt oder hat eine andere Größe")
    # an edit that keeps the size is found by the full check
    ev.write_bytes(ev.read_bytes()[:-9])
    data = bytearray(ev.read_bytes())
    data[-1] ^= 1
    ev.write_bytes(bytes(data))
    (m,) = history.list_months(camp, "canura")
    assert m.verified
    (m,) = history.list_months(camp, "canura", verify=True)
    assert not m.verified and m.first_mismatch.startswith(f"{ev}: beschädigt oder verändert")
    r = CliRunner().invoke(app, ["turn", "list", "canura", "--verify", "-C", str(camp.root)])
    assert r.exit_code == 1 and "ABWEICHUNG" in r.output


def test_the_gm_interventions_are_recorded_and_replay_byte_identically(ran):
    """Every intervention is an input of the month: archived and replayed."""
    camp, result = ran
    kinds = [e["kind"] for e in history.month_events(camp, "canura", result.date)]
    assert "gm.creature_placed" in kinds and "gm.bulletin" in kinds
    assert (camp.archive_dir("canura") / result.date.key / "orders" / "sl.txt").is_file()
    assert replay_month(camp, "canura", result.date).ok


def test_show_filters_by_kingdom(ran):
    camp, result = ran
    events = history.month_events(camp, "canura", result.date, kingdom=3)
    assert events and all(e["kingdom"] == 3 for e in events)
    with pytest.raises(StateError, match="nicht archiviert"):
        history.month_events(camp, "canura", "0400-01")


def test_show_refuses_an_unknown_kingdom_instead_of_printing_nothing(ran):
    camp, result = ran
    r = CliRunner().invoke(app, ["turn", "show", "canura", result.date.key, "--kingdom", "99",
                                 "-C", str(camp.root)])
    assert r.exit_code == 1 and "Reich 99 gibt es in Segment" in str(r.exception)


def test_export_is_one_json_document_with_every_month(ran):
    camp, result = ran
    r = CliRunner().invoke(app, ["export", "canura", "--format", "json", "-C", str(camp.root)])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert [m["month"] for m in doc["months"]] == [result.date.key]
    assert "k1.txt" in doc["months"][0]["sheets"] and doc["current"]["month"] == result.date.next().key


def test_export_does_not_reveal_the_players_passwords(ran):
    """The export is for analysis: sheets appear with their passwords replaced."""
    camp, _ = ran
    doc = history.export_history(camp, "canura")
    text = json.dumps(doc, ensure_ascii=False)
    assert "canura-1" not in text and "******" in text


def test_administration_between_months_does_not_look_like_tampering(tmp_path):
    """A new password or e-mail after the run changes the live segment, not the
    archive: the archived month still verifies, and still replays."""
    from wdg.world import admin
    from wdg.store.segment import load_segment, save_segment

    camp = copy_demo(tmp_path / "demo")
    result = run_month(camp, "canura")
    seg = load_segment(camp.segment_dir("canura"))
    admin.set_password(seg, 2, "ein-neues-passwort")
    save_segment(seg, camp.segment_dir("canura"))
    (m,) = history.list_months(camp, "canura")
    assert m.verified, m.first_mismatch
    assert replay_month(camp, "canura", result.date).ok
