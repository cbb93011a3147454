"""Replay's layers, each on its own (issue #44: ``replay_month`` split by the
layers it numbers; docs/turns.md, "Replay"): every layer function, given a
damaged or changed input, names its own layer — by its kind, which the code
compares, and by its German name, which the game master reads."""

from __future__ import annotations

import json
import lzma
import shutil
from pathlib import Path

import pytest
from turn_helpers import NAME, make_campaign, standard_sheets

from wdg.campaign import Campaign
from wdg.engine import replay
from wdg.engine.replay import (LAYER_LABELS, Layer, LayerKind, OutputReasons, ReplayReport, Stop,
                               archive_layer, events_layer, hash_list_check, inputs_layer,
                               output_layers, output_writers, read_manifest, render_outputs,
                               resolve_layer, seed_check, state_before, state_layer)
from wdg.engine.turn import replay_month, run_month
from wdg.store.files import EVENTS, stored_bytes
from wdg.store.months import month_dir, read_provenance
from wdg.world.calendar import MonthDate

APRIL = MonthDate(412, 4)


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A campaign with one month resolved and archived (made once)."""
    root = tmp_path_factory.mktemp("replay-layers") / "camp"
    camp = make_campaign(root)
    standard_sheets(camp, APRIL)
    run_month(camp, NAME)
    return root


@pytest.fixture
def camp(archived: Path, tmp_path: Path) -> Campaign:
    shutil.copytree(archived, tmp_path / "camp")
    return Campaign(tmp_path / "camp")


def _mdir(camp: Campaign) -> Path:
    return month_dir(camp, NAME, APRIL)


def test_every_kind_has_its_german_name():
    assert set(LAYER_LABELS) == set(LayerKind)
    assert Layer(LayerKind.OUTPUT, True, subject="reports: ergebnis.txt").name == \
        "Ausgabe reports: ergebnis.txt"
    assert Layer(LayerKind.STATE, True).name == "Zustand"
    report = ReplayReport(APRIL, 3, None, made_by="wdg 0.2.0", this_version="wdg 0.3.0")
    report.stopped(Stop(Layer(LayerKind.WRITERS, False, "Rendern fehlgeschlagen: X", "weil",
                              subject="reports"), "outputs/reports/"))
    assert report.first_difference == "outputs/reports/" and not report.ok
    assert report.lines() == ["ausgewertet mit wdg 0.2.0; dies ist wdg 0.3.0",
                              "  Ausgaben reports: ABWEICHUNG — Rendern fehlgeschlagen: X",
                              "    Grund: weil"]


def test_an_intact_month_passes_every_layer_and_the_driver_lists_them_in_order(camp):
    report = replay_month(camp, NAME, APRIL)
    assert report.ok, report.lines()
    kinds = [layer.kind for layer in report.layers]
    assert kinds[:4] == [LayerKind.INPUTS, LayerKind.RULES, LayerKind.STATE, LayerKind.EVENTS]
    assert kinds[-1] == LayerKind.ARCHIVE
    assert set(kinds[4:-1]) <= {LayerKind.OUTPUT}
    assert all(layer.ok for layer in report.layers)


def test_inputs_layer_names_a_changed_sheet(camp):
    mdir = _mdir(camp)
    prov = read_provenance(mdir)
    assert isinstance(inputs_layer(mdir, prov), Layer)
    sheet = mdir / "orders" / "k2.txt"
    sheet.write_bytes(sheet.read_bytes() + b"\n")
    stop = inputs_layer(mdir, prov)
    assert isinstance(stop, Stop) and stop.layer.kind is LayerKind.INPUTS and not stop.layer.ok
    assert stop.first == "orders/k2.txt (Eingabe weicht von provenance.yaml ab)"
    assert stop.layer.detail == "orders/k2.txt wurde verändert (SHA-256 laut provenance.yaml)"
    # a month without provenance: not checked one by one, and said so
    unchecked = inputs_layer(mdir, None)
    assert isinstance(unchecked, Layer) and unchecked.ok and "vor wdg 0.2.0" in unchecked.detail


def test_state_before_names_a_damaged_file_as_the_inputs_layer(camp):
    mdir = _mdir(camp)
    damaged = next(p for p in sorted((mdir / "state-before").iterdir())
                   if p.name.startswith("kingdoms"))
    damaged.write_bytes(b"\x00 not what was stored")
    stop = state_before(mdir)
    assert isinstance(stop, Stop) and stop.layer.kind is LayerKind.INPUTS
    assert stop.first == "state-before" and stop.layer.name == "Eingaben"
    assert stop.layer.detail.startswith("state-before/")


def test_resolve_layer_names_what_this_version_cannot_resolve(camp):
    mdir = _mdir(camp)
    seg = state_before(mdir)
    assert not isinstance(seg, Stop)
    resolved = resolve_layer(mdir, seg)
    assert not isinstance(resolved, Stop)
    assert resolved.layer.kind is LayerKind.RULES and resolved.layer.ok and not resolved.added
    # a rules file that is not a rules file: the evaluation stops, named
    (mdir / "rules" / "economy.yaml").write_text("settlement: [kein, Regelwerk]\n",
                                                 encoding="utf-8")
    stop = resolve_layer(mdir, seg)
    assert isinstance(stop, Stop) and stop.first == "Auswertung", stop
    assert "economy.yaml" in stop.layer.detail, stop.layer.detail
    assert stop.layer.kind is LayerKind.EVALUATION and not stop.layer.ok


def test_resolve_layer_completes_a_rules_key_the_month_lacks(camp):
    """docs/turns.md, "Replay" 2: a key this version reads that the month's
    rules lack is filled in (the shipped value) and named in the rules layer —
    told by the error's class (MissingKeyError), not by its German words."""
    import yaml

    mdir = _mdir(camp)
    path = mdir / "rules" / "economy.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["pay"]["Krieger"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    seg = state_before(mdir)
    assert not isinstance(seg, Stop)
    resolved = resolve_layer(mdir, seg)
    assert not isinstance(resolved, Stop), resolved.layer.detail
    assert resolved.added == ["economy.yaml: pay.Krieger"]
    assert resolved.layer.kind is LayerKind.RULES and not resolved.layer.ok
    assert resolved.layer.detail == "fehlende Schlüssel ergänzt: economy.yaml: pay.Krieger"


def test_seed_check_names_other_entropy(camp):
    mdir = _mdir(camp)
    seg = state_before(mdir)
    assert not isinstance(seg, Stop)
    resolved = resolve_layer(mdir, seg)
    assert not isinstance(resolved, Stop)
    entropy = list(resolved.result.entropy)
    assert seed_check(resolved.result, {"entropy": entropy}) is None
    stop = seed_check(resolved.result, {"entropy": [*entropy[:-1], entropy[-1] + 1]})
    assert stop is not None and stop.layer.kind is LayerKind.SEED and stop.first == "seed.yaml"


def test_output_writers_names_an_output_without_a_writer():
    manifest = {"outputs/gazette/blatt.txt": "0" * 64, EVENTS: "1" * 64}
    stop = output_writers(manifest, None)
    assert isinstance(stop, Stop) and stop.layer.kind is LayerKind.WRITERS
    assert stop.layer.name == "Ausgaben"
    assert stop.first == "outputs/gazette/ (no writer to regenerate it)"

    def blatt(result, directory: Path) -> None:
        (directory / "blatt.txt").write_text("x", encoding="utf-8")

    assert output_writers(manifest, {"gazette": blatt}) == {"gazette": blatt}


def test_render_outputs_reports_a_template_error_and_raises_a_write_error(camp, tmp_path):
    mdir = _mdir(camp)
    seg = state_before(mdir)
    assert not isinstance(seg, Stop)
    resolved = resolve_layer(mdir, seg)
    assert not isinstance(resolved, Stop)

    def unfit(result, directory: Path) -> None:
        raise KeyError("income_rows")  # as a template that no longer fits

    rendered = render_outputs(resolved.result, tmp_path / "a", {"gazette": unfit}, EVENTS,
                              templates=tmp_path, fallback=None)
    assert rendered.failure is not None and rendered.failure.kind is LayerKind.WRITERS
    assert rendered.failure.name == "Ausgaben gazette"
    assert rendered.failure.detail == "Rendern fehlgeschlagen: KeyError: 'income_rows'"
    assert rendered.failure.why == "die archivierten Vorlagen passen nicht zu dieser Version"
    layers = output_layers(mdir, {}, rendered, [], OutputReasons(
        False, False, False, True, False, True, False), None)
    assert layers == [rendered.failure]

    def full(result, directory: Path) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):  # the machine's, not the template's
        render_outputs(resolved.result, tmp_path / "b", {"gazette": full}, EVENTS,
                       templates=tmp_path, fallback=None)


def test_state_and_events_layers_tell_the_game_from_its_wording(camp):
    mdir = _mdir(camp)
    state, other_game = state_layer(mdir, [], {}, [])
    assert state.kind is LayerKind.STATE and state.ok and not other_game
    name = "state/kingdoms.yaml"
    archived = stored_bytes(mdir, name)
    changed = archived.replace(b"treasury: ", b"treasury: 1", 1)
    assert changed != archived
    state, other_game = state_layer(mdir, [name], {name: changed}, [])
    assert not state.ok and other_game and state.why == "anderer Spielstand"

    rows = [json.loads(line) for line in
            lzma.decompress(stored_bytes(mdir, EVENTS)).decode("utf-8").split("\n") if line]
    assert rows
    reworded = "".join(json.dumps({**r, "why": f"Nun: {r.get('why')}"}, ensure_ascii=False)
                       + "\n" for r in rows).encode("utf-8")
    layer, only_wording = events_layer(mdir, EVENTS, True, lzma.compress(reworded))
    assert layer.kind is LayerKind.EVENTS and not layer.ok and only_wording
    assert layer.why == "gleicher Spielverlauf, andere Formulierung der Ereignistexte"
    layer, only_wording = events_layer(mdir, EVENTS, False, b"")
    assert layer.ok and not only_wording


def test_output_reasons_follow_the_layers_before():
    base = dict(other_game=False, events_differ=False, reworded=False, same_software=True,
                fell_back=False, templates_archived=True, rules_completed=False)
    assert OutputReasons(**base).text() == ""
    assert OutputReasons(**{**base, "reworded": True}).text() == \
        "folgt aus dem anderen Wortlaut der Ereignistexte"
    assert OutputReasons(**{**base, "reworded": True, "events_differ": True,
                            "same_software": None, "templates_archived": False,
                            "rules_completed": True}).text() == (
        "folgt aus den abweichenden Ereignissen bzw. dem Zustand; andere wdg-Version "
        "(anderer Programmcode der Berichte); die Vorlagen dieses Monats sind nicht "
        "archiviert (vor wdg 0.2.0): gerendert mit den heutigen Vorlagen; ergänzte "
        "Regel-Schlüssel")


def test_archive_and_hash_list_layers_name_a_file_changed_in_the_archive(camp):
    mdir = _mdir(camp)
    manifest = read_manifest(mdir, NAME, APRIL)
    assert isinstance(archive_layer(mdir, manifest), Layer)
    assert hash_list_check(mdir) is None
    (mdir / "seed.yaml").write_bytes((mdir / "seed.yaml").read_bytes() + b"# edited\n")
    stop = hash_list_check(mdir)  # not in the manifest: only the hash list covers it
    assert stop is not None and stop.layer.kind is LayerKind.HASH_LIST
    assert "seed.yaml" in stop.first
    name = next(n for n in sorted(manifest) if n.startswith("state/"))
    stop = archive_layer(mdir, {**manifest, name: "0" * 64})
    assert isinstance(stop, Stop) and stop.layer.kind is LayerKind.ARCHIVE
    assert stop.first == f"{name} (archivierte Datei weicht vom Manifest ab)"


def test_the_rules_layer_is_found_by_its_kind_not_its_text(monkeypatch, camp):
    """Completed rules keys that change nothing are no finding: the driver
    clears the rules layer it holds, whatever its label reads."""
    monkeypatch.setitem(replay.LAYER_LABELS, LayerKind.RULES, "Regelwerk")
    mdir = _mdir(camp)
    report = replay.replay_month(camp, NAME, APRIL, rules_dir=mdir / "rules",
                                 rules_added=["economy.yaml: probe (mitgeliefert)"])
    assert report.ok, report.lines()
    rules = next(layer for layer in report.layers if layer.kind is LayerKind.RULES)
    assert rules.ok and rules.why == "ergänzte Schlüssel ohne Einfluß auf das Ergebnis"
    assert "  Regelwerk: gleich — fehlende Schlüssel ergänzt: economy.yaml: probe " \
        "(mitgeliefert)" in report.lines()
