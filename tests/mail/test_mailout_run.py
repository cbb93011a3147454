"""``wdg mail run`` — the unattended step for cron/systemd (issue #34): it waits for
the deadline, refuses with a blocker, runs the month and sends the results once,
tells its outcomes apart by exit code and in --json, and logs per segment.

Rule ("Der Spielzug"): "Der Spielzug muß den Segmentleiter bis zu dem von ihm
angegebenen Datum (EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben!" —
the month is run after that moment, not before."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.mail.mailcamp import SEG, MailCampaign

pytestmark = pytest.mark.slow


def _in(minutes: int) -> str:
    return (datetime.now(ZoneInfo("Europe/Berlin")) + timedelta(minutes=minutes)) \
        .strftime("%d.%m.%Y %H:%M")


def _sheet(c: MailCampaign, k: int) -> None:
    c("orders", "template", SEG, str(k), "-o", f"f{k}.txt")
    form = (c.root / f"f{k}.txt").read_text(encoding="utf-8")
    d = c.root / "orders" / SEG / "0412-04"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"k{k}.txt").write_text(form.replace("Passwort: \n", f"Passwort: {c.passwords[k]}\n", 1),
                                 encoding="utf-8")


def test_mail_run_waits_for_the_deadline_then_runs_the_month_and_mails_everyone_once(
        tmp_path, mail_world, monkeypatch):
    c = MailCampaign(tmp_path / "c", mail_world)
    for k in (1, 2, 3):
        _sheet(c, k)
    # no deadline: nothing to do (3), and it says so
    none = c("mail", "run", SEG, "--no-pdf", code=3)
    assert "kein Eintreffschluß gesetzt" in none.stdout
    c("turn", "deadline", SEG, _in(60))
    waiting = c("mail", "run", SEG, "--json", "--no-pdf", code=4)
    doc = json.loads(waiting.stdout)
    assert doc["status"] == "waiting" and doc["exit_code"] == 4 and doc["ran"] is None
    assert doc["deadline"]["passed"] is False and doc["deadline"]["timezone"] == "Europe/Berlin"
    assert any("wartet auf den Eintreffschluß" in m for m in doc["messages"])
    # the deadline passes (set in the past on purpose, as a clock would move on)
    c("turn", "deadline", SEG, _in(-1), "--force")
    done = c("mail", "run", SEG, "--json", "--no-pdf", "--next-deadline", _in(60 * 24 * 14),
             code=0)
    doc = json.loads(done.stdout)
    assert doc["status"] == "done" and doc["ran"] == "0412-04"
    assert doc["sent"][-1]["sent"] == [f"bericht/0412-04/k{k}" for k in (1, 2, 3)]
    for k in (1, 2, 3):
        c.servers.wait_for(c.player_of[k], 1, timeout=30)
    # the next call: the new month waits for its deadline; nothing is sent twice
    again = c("mail", "run", SEG, "--json", "--no-pdf", code=4)
    doc = json.loads(again.stdout)
    assert doc["month"] == "0412-05" and doc["sent"][0]["already"] != []
    c.servers.settled()
    assert all(len(c.inbox(k)) == 1 for k in (1, 2, 3))
    logs = list((c.seg_dir / "mail" / "log").glob("*.log"))
    text = logs[0].read_text(encoding="utf-8")
    assert "mail run: wartet auf den Eintreffschluß (Code 4)" in text
    assert "mail run: erledigt (Code 0)" in text and "+0" in text.split()[1]  # zone offset


def test_mail_run_refuses_with_a_blocker_and_when_locked(tmp_path, mail_world):
    from wdg.store.lock import segment_lock

    c = MailCampaign(tmp_path / "c", mail_world)
    _sheet(c, 1)  # two of three kingdoms without a sheet: 'turn run' would want --force
    c("turn", "deadline", SEG, _in(-1), "--force")
    refused = c("mail", "run", SEG, "--no-pdf", code=5)
    assert "verweigert" in refused.stderr and "verlangt --force" in refused.stderr
    status = json.loads(c("turn", "status", SEG, "--json").stdout)
    assert status["needs_force"] and status["missing"] == [2, 3] and status["blockers"]
    with segment_lock(c.seg_dir):
        locked = c("mail", "run", SEG, "--json", code=6)
    assert json.loads(locked.stdout)["status"] == "locked"
    assert not (c.seg_dir / "turns" / "0412-04").exists()
