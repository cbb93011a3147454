"""The runner and its archive: commit, determinism, atomicity, replay, undo, lock."""

from __future__ import annotations

import os

import pytest
import yaml
from turn_helpers import NAME, make_campaign, standard_sheets, tree_bytes, write_sheet

from wdg.store import lock as store_lock
from wdg.store import months as store_months
from wdg.engine.month import registered_steps
from wdg.engine.turn import COMMIT_POINTS, InjectedFailure, replay_month, run_month, undo_month
from wdg.engine.replay import LayerKind
from wdg.errors import StateError
from wdg.world.calendar import MonthDate
from wdg.store.segment import load_segment

APRIL = MonthDate(412, 4)


@pytest.fixture
def camp(tmp_path):
    c = make_campaign(tmp_path)
    standard_sheets(c, APRIL)
    return c


def test_a_month_is_resolved_committed_and_archived(camp):
    """ARCHITECTURE.md "Archive": state before, sheets, seed, manifest of every output."""
    result = run_month(camp, NAME)
    seg = load_segment(camp.segment_dir(NAME))
    assert seg.date == APRIL.next() and result.committed
    mdir = camp.archive_dir(NAME) / "0412-04"
    for name in ("state-before/segment.yaml.gz", "state-before/layers.npz", "orders/k1.txt",
                 "orders/k2.txt", "seed.yaml", "events.jsonl.xz", "manifest.yaml",
                 "summary.yaml", "rules/economy.yaml", "state/armies.yaml.gz"):
        assert (mdir / name).is_file(), name
    manifest = yaml.safe_load((mdir / "manifest.yaml").read_text())["files"]
    # the manifest names the state files by their content (stored compressed)
    assert "events.jsonl.xz" in manifest and "state/armies.yaml" in manifest
    assert seg.armies[101].units == 1000
    assert not (camp.segment_dir(NAME) / store_lock.LOCK_FILE).exists()


def test_the_runner_keeps_the_ledger(camp):
    """"Der Reichsschatz": every Goldstern in or out is an event."""
    before = load_segment(camp.segment_dir(NAME))
    result = run_month(camp, NAME)
    for n, k in result.state.kingdoms.items():
        assert k.treasury == before.kingdoms[n].treasury + result.log.gold_total(n)


def test_dry_run_commits_nothing(camp):
    """``--dry-run`` resolves and reports without committing."""
    files = tree_bytes(camp.root / "worlds")
    result = run_month(camp, NAME, dry_run=True)
    assert len(result.log) > 0 and not result.committed
    assert tree_bytes(camp.root / "worlds") == files


def test_a_wrong_password_means_the_sheet_is_not_used(camp):
    """A sheet whose password does not match the kingdom's stored hash is not used."""
    write_sheet(camp, APRIL, 1, "H\nHeer 0101 101.09\nA: nr 200\n", password="falsch")
    result = run_month(camp, NAME)
    refused = [e for e in result.log if e.kind == "sheet.refused"]
    assert refused and refused[0].kingdom == 1 and "Passwort" in refused[0].why
    assert result.state.armies[101].units == 800 and 1 not in result.sheets


def test_the_sheet_header_must_name_the_kingdom_of_its_file(camp):
    """The kingdom of the file name and of the sheet header must agree."""
    p = camp.orders_dir(NAME, APRIL) / "k1.txt"
    p.write_text(p.read_text(encoding="utf-8").replace("Königreich: 1", "Königreich: 2"),
                 encoding="utf-8")
    result = run_month(camp, NAME)
    assert any(e.kind == "sheet.refused" and e.kingdom == 1 for e in result.log)


def test_too_many_missing_sheets_need_force(tmp_path):
    """Settings.missing_sheet_share: ``wdg turn run`` asks for --force."""
    c = make_campaign(tmp_path)
    with pytest.raises(StateError, match="--force") as refused:
        run_month(c, NAME)
    assert "Königreichen haben keinen gültigen Spielzug" in str(refused.value)  # German
    result = run_month(c, NAME, force=True)
    assert [e.kingdom for e in result.log if e.kind == "sheet.missing"] == [1, 2]


def test_the_same_month_twice_gives_identical_bytes(tmp_path):
    """ARCHITECTURE.md "Determinism": replaying a month reproduces every output byte."""
    runs = []
    for i in range(2):
        c = make_campaign(tmp_path / str(i))
        standard_sheets(c, APRIL)
        run_month(c, NAME)
        runs.append(tree_bytes(c.root / "worlds"))
    assert runs[0] == runs[1]


def test_a_different_seed_changes_random_outcomes(tmp_path):
    """The generator is seeded from (campaign seed, year, month)."""
    orders = []
    for seed in range(6):
        c = make_campaign(tmp_path / str(seed), seed=seed)
        standard_sheets(c, APRIL)
        r = run_month(c, NAME)
        orders.append((tuple(r.kingdom_order), tuple(str(k.offer) for k in
                                                     r.state.kingdoms.values())))
    assert len(set(orders)) > 1


def test_replay_reproduces_the_archived_month(camp):
    """``wdg turn replay``: every output byte equals the manifest."""
    run_month(camp, NAME)
    report = replay_month(camp, NAME, "0412-04")
    assert report.ok and report.checked > 5


def test_replay_names_the_first_differing_file(camp):
    """A changed archived sheet is named as the input that differs from the month's
    provenance record (issue #29: not blamed on the event log)."""
    run_month(camp, NAME)
    sheet = camp.archive_dir(NAME) / "0412-04" / "orders" / "k1.txt"
    sheet.write_text(sheet.read_text(encoding="utf-8").replace("nr 200", "nr 300"),
                     encoding="utf-8")
    report = replay_month(camp, NAME, "0412-04")
    assert not report.ok
    assert report.first_difference == "orders/k1.txt (Eingabe weicht von provenance.yaml ab)"
    assert report.layers[-1].kind is LayerKind.INPUTS and not report.layers[-1].ok
    assert report.layers[-1].name == "Eingaben"


def test_replay_names_an_archived_output_changed_by_hand(camp):
    """The replay reproduces the manifest, but the stored copy was edited: named, not passed."""
    run_month(camp, NAME)
    stored = camp.archive_dir(NAME) / "0412-04" / "events.jsonl.xz"
    stored.write_bytes(stored.read_bytes() + b"# edited\n")
    report = replay_month(camp, NAME, "0412-04")
    assert not report.ok and report.first_difference.startswith("events.jsonl.xz (archivierte Datei")


@pytest.mark.parametrize("step", [s.name for s in registered_steps()] + list(COMMIT_POINTS))
def test_a_run_that_fails_at_any_step_leaves_the_previous_month_unchanged(camp, step):
    """ARCHITECTURE.md: "an interrupted run leaves the previous month untouched"."""
    before = tree_bytes(camp.root / "worlds")
    with pytest.raises(InjectedFailure):
        run_month(camp, NAME, fail_after_step=step)
    seg = load_segment(camp.segment_dir(NAME))
    assert seg.date == APRIL
    after = tree_bytes(camp.root / "worlds")
    leftovers = {k for k in after if k.startswith(f"{NAME}/turns/")}
    assert {k: v for k, v in after.items() if k not in leftovers} == before
    assert not (camp.segment_dir(NAME) / store_lock.LOCK_FILE).exists()
    run_month(camp, NAME)  # a re-run cleans up and succeeds
    assert replay_month(camp, NAME, "0412-04").ok


def test_undo_restores_the_state_and_a_rerun_equals_the_first_run(camp):
    """``wdg turn undo``: the state before the last month returns; its sheets stay in
    orders/ so the month can be run again, with the same result."""
    before = tree_bytes(camp.segment_dir(NAME))
    run_month(camp, NAME)
    first = tree_bytes(camp.root / "worlds")
    archived = {k: v for k, v in first.items() if k.startswith(f"{NAME}/turns/0412-04/")}
    assert undo_month(camp, NAME) == APRIL
    after = tree_bytes(camp.segment_dir(NAME))
    kept = {k: v for k, v in after.items() if k.startswith("turns/.undone/")}
    assert {k: v for k, v in after.items() if k not in kept} == before
    # nothing is deleted: the undone month is kept byte for byte under turns/.undone/
    assert kept == {k.replace(f"{NAME}/turns/0412-04/", "turns/.undone/0412-04.1/"): v
                    for k, v in archived.items()}
    assert (camp.orders_dir(NAME, APRIL) / "k1.txt").is_file()
    run_month(camp, NAME)
    again = tree_bytes(camp.root / "worlds")
    assert {k: v for k, v in again.items() if "/turns/.undone/" not in k} == first


def test_undo_then_a_corrected_sheet_changes_the_month(camp):
    """A corrected sheet can be put in after undo and the month re-run."""
    run_month(camp, NAME)
    undo_month(camp, NAME)
    write_sheet(camp, APRIL, 1, "H\nHeer 0101 101.09\nA: nr 500\nK\nSS 101.17 50\n")
    result = run_month(camp, NAME)
    assert result.state.armies[101].units == 1300


def test_undo_without_an_archived_month_fails(tmp_path):
    """Undo needs an archived month."""
    c = make_campaign(tmp_path)
    with pytest.raises(StateError, match="kein archivierter Mond"):
        undo_month(c, NAME)


def test_a_second_run_is_refused_while_the_lock_is_held(camp):
    """The lock (an flock on a file naming pid and host) keeps two runs apart."""
    with store_lock.segment_lock(camp.segment_dir(NAME)):
        assert (camp.segment_dir(NAME) / store_lock.LOCK_FILE).read_text().split()[0] == \
            str(os.getpid())
        with pytest.raises(StateError, match="gesperrt"):
            run_month(camp, NAME)
    assert run_month(camp, NAME).committed


def test_registered_outputs_are_archived_hashed_and_replayed(camp):
    """The list of outputs is extensible: a registered writer's files enter the manifest."""
    def writer(result, d):
        (d / "summary.txt").write_text(f"{result.date.key} {len(result.log)}\n")
    store_months.register_output("probe-summary", writer)
    try:
        run_month(camp, NAME)
        mdir = camp.archive_dir(NAME) / "0412-04"
        assert (mdir / "outputs" / "probe-summary" / "summary.txt").is_file()
        assert "outputs/probe-summary/summary.txt" in \
            yaml.safe_load((mdir / "manifest.yaml").read_text())["files"]
        assert replay_month(camp, NAME, "0412-04").ok
    finally:
        store_months._OUTPUTS.pop("probe-summary", None)


def test_a_month_with_an_unreadable_intake_journal_is_not_run(camp):
    """docs/storage.md, "Order sheets between months": an unreadable intake
    journal (a stored sheet's moves unknown) stops ``wdg turn run`` with its
    name; nothing changes."""
    folder = camp.orders_dir(NAME, APRIL)
    journal = folder / ".intake-9-abcd.journal"
    journal.write_text("{not json")
    before = load_segment(camp.segment_dir(NAME)).date
    with pytest.raises(StateError) as e:
        run_month(camp, NAME)
    assert str(journal) in str(e.value) and "nicht lesbar" in str(e.value)
    assert load_segment(camp.segment_dir(NAME)).date == before and journal.is_file()
    from typer.testing import CliRunner

    from wdg.cli import app

    res = CliRunner().invoke(app, ["segment", "check", NAME, "-C", str(camp.root)])
    assert res.exit_code == 1 and str(journal) in res.output
    assert "Journal nicht lesbar" in res.output and "bleibt offen" in res.output
