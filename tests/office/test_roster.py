"""``wdg world players`` and ``wdg world disqualify``: one person in two
segments, disqualified everywhere through each segment's game master's sheet
(applied by the month, in the archive, undone with the month), told once."""

from __future__ import annotations

import json
from pathlib import Path

from aiosmtpd.controller import Controller
from typer.testing import CliRunner
from worldkit import MONTH, WANDERER, world_copy

from tests.mail.test_mailout_basics import NAME, _server_ctx, _Sink, pki  # noqa: F401 - fixture
from tests.mail.test_mailout_failures import _free_port
from wdg.cli import app
from wdg.store.files import read_events_data
from wdg.store.months import month_dir
from wdg.store.segment import load_segment

runner = CliRunner()
REASON = "Illegaler Kontakt: Erkundungsergebnisse getauscht"


def test_players_names_the_person_in_two_segments(world_template: Path, tmp_path: Path) -> None:
    camp = world_copy(world_template, tmp_path / "w")
    res = runner.invoke(app, ["world", "players", "--several", "--json", "-C", str(camp.root)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [p["email"] for p in doc["players"]] == [WANDERER]
    assert doc["players"][0]["kingdoms"] == [
        {"segment": "nord", "kingdom": 1, "name": "Nordreich 1", "month": MONTH.key},
        {"segment": "ost", "kingdom": 2, "name": "Ostreich 2", "month": MONTH.key}]
    res = runner.invoke(app, ["world", "players", "-C", str(camp.root)])
    assert res.stdout.splitlines()[0].startswith(WANDERER) and "2 Segmente" in res.stdout


def test_one_person_in_two_segments_is_disqualified_everywhere(world_template: Path,
                                                               tmp_path: Path, pki) -> None:  # noqa: F811
    camp = world_copy(world_template, tmp_path / "w")
    sink, port = _Sink(), _free_port()
    ctl = Controller(sink, hostname="127.0.0.1", port=port, tls_context=_server_ctx(pki, "good"),
                     require_starttls=True)
    ctl.start()
    try:
        (camp.root / "mail.yaml").write_text(
            'from: "Spielleitung <sl@wdg.test>"\n'
            f"smtp:\n  host: 127.0.0.1\n  port: {port}\n  security: starttls\n"
            f"  cafile: {pki / 'ca.pem'}\n  server_name: {NAME}\n  timeout: 5\n",
            encoding="utf-8")
        args = ["world", "disqualify", WANDERER.upper(), "--reason", REASON, "--json",
                "-C", str(camp.root)]
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        got = json.loads(res.stdout)
        assert [(r["segment"], r["kingdom"]) for r in got["written"]] == [("nord", 1), ("ost", 2)]
        assert got["told"] == "sent" and len(sink.mails) == 1
        assert sink.mails[0][1] == [WANDERER]
        body = sink.mails[0][2].decode("utf-8", "replace")
        assert "Nordreich 1" in body and "Ostreich 2" in body and "Disqualifikation" in body
        # a second call writes nothing new and tells nobody again
        res = runner.invoke(app, args)
        again = json.loads(res.stdout)
        assert again["written"] == [] and len(again["already"]) == 2
        assert again["told"] == "already" and len(sink.mails) == 1
    finally:
        ctl.stop()
    for seg, k in (("nord", 1), ("ost", 2)):
        text = (camp.orders_dir(seg, MONTH) / "sl.txt").read_text(encoding="utf-8")
        assert text.count("DISQUALIFIZIEREN") == 1 and f"DISQUALIFIZIEREN {k} " in text
    res = runner.invoke(app, ["world", "run", "--no-pdf", "--jobs", "1", "-C", str(camp.root)])
    assert res.exit_code == 0, res.output
    for seg, k in (("nord", 1), ("ost", 2)):
        after = load_segment(camp.segment_dir(seg))
        kd = after.kingdoms[k]
        assert kd.player is None and (kd.city_state or kd.retired)
        assert not any(a.kingdom == k for a in after.armies.values())
        events = read_events_data(month_dir(camp, seg, MONTH))
        mine = [e for e in events if e["kind"] == "gm.disqualified"]
        assert [(e["kingdom"], REASON in e["why"]) for e in mine] == [(k, True)]
        # the other kingdoms play on
        assert all(o.player is not None for n, o in after.kingdoms.items() if n != k)
        assert (month_dir(camp, seg, MONTH) / "orders" / "sl.txt").is_file()
    assert load_segment(camp.segment_dir("sued")).kingdoms[1].player is not None
    # undone with the month: the kingdom plays again, its line waits in the sheet
    res = runner.invoke(app, ["turn", "undo", "nord", "-C", str(camp.root)])
    assert res.exit_code == 0, res.output
    kd = load_segment(camp.segment_dir("nord")).kingdoms[1]
    assert kd.player is not None and kd.player.email == WANDERER and not kd.city_state
    res = runner.invoke(app, ["world", "players", "--several", "--json", "-C", str(camp.root)])
    assert json.loads(res.stdout)["players"] == []  # ost's kingdom is gone, nord's alone


def test_without_smtp_the_mail_is_a_file_and_a_bad_address_is_named(world_template: Path,
                                                                    tmp_path: Path) -> None:
    camp = world_copy(world_template, tmp_path / "w")
    res = runner.invoke(app, ["world", "disqualify", WANDERER, "--reason", REASON, "--json",
                              "-C", str(camp.root)])
    got = json.loads(res.stdout)
    assert got["told"] == "file"
    eml = list((camp.root / "reports" / "world").glob("disqualifikation-*.eml"))
    assert len(eml) == 1 and b"Nordreich 1" in eml[0].read_bytes()
    res = runner.invoke(app, ["world", "disqualify", "niemand@example.org", "--reason", REASON,
                              "-C", str(camp.root)])
    assert res.exit_code == 1 and "kein spielendes Königreich" in str(res.exception)
    res = runner.invoke(app, ["world", "disqualify", WANDERER, "--reason", "  ",
                              "-C", str(camp.root)])
    assert res.exit_code == 1 and "Grund" in str(res.exception)


def test_the_disqualify_line_is_parsed_and_checked(world_template: Path, tmp_path: Path) -> None:
    """``DISQUALIFIZIEREN <Königreich> <Grund>``: a reason is required, the
    kingdom must exist and still play (a city state is an error)."""
    from wdg.orders import gmsheet as g

    camp = world_copy(world_template, tmp_path / "w")
    seg = load_segment(camp.segment_dir("nord"))
    sheet = g.parse_gm_sheet("SEGMENTLEITER\nDISQUALIFIZIEREN 3 'Karten getauscht #2'\n"
                             "DISQUALIFIZIEREN 2\nDISQUALIFIZIEREN 7 Grund\n")
    assert [c for c in sheet.commands if isinstance(c, g.Disqualify)] == \
        [g.Disqualify(3, "Karten getauscht #2", 2), g.Disqualify(7, "Grund", 4)]
    assert [d.line for d in sheet.errors] == [3]  # no reason
    checked = g.check_gm_sheet(sheet, seg)
    assert [(d.line, d.message) for d in checked] == [(4, "unbekanntes Königreich")]
    seg.kingdoms[3].city_state = True
    assert [d.line for d in g.check_gm_sheet(sheet, seg)] == [2, 4]
