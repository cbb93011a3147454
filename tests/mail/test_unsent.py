"""Owed mails that could not be sent are a failure, never 0/3/4 (issue #39 item 1),
and a key mail.yaml does not know is refused with its name (item 8). No mail server
is needed: the SMTP port is one where nothing listens (connection refused)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wdg import exitcodes
from wdg.errors import DataError
from wdg.mail import alerts
from wdg.mail.config import load_mail_config

ROOT = Path(__file__).resolve().parents[2]
SEG = "post"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wdg(camp: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    res = subprocess.run([sys.executable, "-m", "wdg", *args, "-C", str(camp)],
                         capture_output=True, text=True, cwd=camp, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "WDG_CAMPAIGN": "",
                              **(env or {})})
    assert "Traceback" not in res.stderr, res.stderr
    return res


@pytest.fixture
def camp(tmp_path) -> Path:
    c = tmp_path / "k"
    c.mkdir()
    assert _wdg(c, "segment", "new", SEG, "--provinces", "2x2", "--kingdoms", "2",
                "--seed", "5").returncode == 0
    for k in (1, 2):
        assert _wdg(c, "kingdom", "set", SEG, str(k), "--email", f"p{k}@example.org").returncode == 0
    (c / "worlds" / SEG / "mail.yaml").write_text(
        'from: "SL <sl@example.org>"\nsmtp:\n  host: 127.0.0.1\n'
        f"  port: {_free_port()}\n  security: plain\n  timeout: 5\n", encoding="utf-8")
    return c


def test_forms_that_cannot_go_out_exit_7_and_raise_an_alert(camp):
    res = _wdg(camp, "mail", "forms", SEG)
    assert res.returncode == exitcodes.UNSENT, (res.stdout, res.stderr)
    assert "Verbindung abgelehnt" in res.stderr and "bleiben fällig" in res.stderr
    active = alerts.summary(camp / "worlds" / SEG)["active"]
    assert [a["kind"] for a in active] == ["smtp"]
    assert exitcodes.JSON_STATUS[exitcodes.UNSENT] == "unsent"


def test_a_missing_smtp_password_is_an_error_of_mail_run(camp):
    path = camp / "worlds" / SEG / "mail.yaml"
    path.write_text(path.read_text(encoding="utf-8")
                    + "  user: sl@example.org\n  password_env: WDG_FEHLT\n", encoding="utf-8")
    res = _wdg(camp, "mail", "run", SEG, "--json", env={"WDG_FEHLT": ""})
    assert res.returncode == exitcodes.FAILED, (res.stdout, res.stderr)
    doc = json.loads(res.stdout)  # one JSON document, nothing else on stdout
    assert doc["status"] == "failed"
    assert any("WDG_FEHLT" in m and "nichts gesendet" in m for m in doc["messages"])
    assert "WDG_FEHLT" in res.stderr


def test_unknown_keys_are_refused_with_their_name(tmp_path):
    seg = tmp_path / "s"
    seg.mkdir()
    (seg / "mail.yaml").write_text('from: "SL <sl@example.org>"\nimap:\n  host: 127.0.0.1\n'
                                   "  security: plain\n  mailboxes: [INBOX, Junk]\n",
                                   encoding="utf-8")
    with pytest.raises(DataError) as got:
        load_mail_config(seg)
    text = str(got.value)
    assert "mail.yaml" in text and "'imap.mailboxes'" in text and "imap.folders" in text
    (seg / "mail.yaml").write_text('from: "SL <sl@example.org>"\nsmpt:\n  host: x\n',
                                   encoding="utf-8")
    with pytest.raises(DataError, match="'smpt'.*gemeint: smtp"):
        load_mail_config(seg)
    (seg / "mail.yaml").write_text('from: "SL <sl@example.org>"\nimap:\n  host: 127.0.0.1\n'
                                   "  security: plain\n  folders: [INBOX, Junk]\n"
                                   "  poll_seconds: 5\n", encoding="utf-8")
    imap = load_mail_config(seg).imap
    assert imap.read_folders == ("INBOX", "Junk") and imap.poll_seconds == 5
