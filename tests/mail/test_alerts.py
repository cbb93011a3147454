"""The alert record (wdg/mail/alerts.py, issue #39): one alert mail per kind and day,
the recovery told once (in the owed alert itself when SMTP was down the whole time),
unknown kinds refused, the record private."""

from __future__ import annotations

import stat
from datetime import datetime, timedelta, timezone

import pytest

from wdg.errors import DataError, StateError
from wdg.mail import alerts

T0 = datetime(2026, 11, 28, 10, 0, tzinfo=timezone.utc)


def test_one_alert_mail_per_kind_and_day(tmp_path):
    seg = tmp_path / "canura"
    assert alerts.raise_alert(seg, "smtp", "Verbindung abgelehnt", now=T0) is True
    assert alerts.raise_alert(seg, "smtp", "Verbindung abgelehnt", now=T0 + timedelta(minutes=5)) \
        is False
    assert alerts.raise_alert(seg, "imap-anmeldung", "abgelehnt", now=T0) is True
    owed = alerts.owed(seg)
    assert [m["key"] for m in owed] == ["alarm/smtp/2026-11-28", "alarm/imap-anmeldung/2026-11-28"]
    active = {a["kind"]: a for a in alerts.summary(seg)["active"]}
    assert active["smtp"]["count"] == 2
    # the next day, still failing: one reminder
    assert alerts.raise_alert(seg, "smtp", "immer noch", now=T0 + timedelta(days=1)) is True
    assert len(alerts.owed(seg)) == 3
    assert stat.S_IMODE((seg / alerts.RECORD).stat().st_mode) == 0o600


def test_recovery_folds_into_an_unsent_alert(tmp_path):
    seg = tmp_path / "canura"
    alerts.raise_alert(seg, "smtp", "Verbindung abgelehnt", now=T0)
    assert alerts.recovered(seg, "smtp", now=T0 + timedelta(minutes=30)) is True
    owed = alerts.owed(seg)
    assert len(owed) == 1 and "inzwischen behoben" in owed[0]["subject"]
    assert "Behoben am 28.11.2026" in owed[0]["body"]
    assert alerts.recovered(seg, "smtp") is False  # not active any more
    assert alerts.summary(seg)["active"] == []


def test_recovery_after_a_sent_alert_is_its_own_mail(tmp_path):
    seg = tmp_path / "canura"
    alerts.raise_alert(seg, "imap", "nicht erreichbar", now=T0)
    with alerts._changing(seg) as rec:  # as deliver() does once the mail went out
        rec.owed = []
    alerts.recovered(seg, "imap", now=T0 + timedelta(hours=1))
    assert [m["key"] for m in alerts.owed(seg)] == ["behoben/imap/2026-11-28"]
    # failing again the same day: no second alert mail that day
    assert alerts.raise_alert(seg, "imap", "wieder", now=T0 + timedelta(hours=2)) is False


def test_unknown_kind_and_damaged_record_are_refused(tmp_path):
    seg = tmp_path / "canura"
    with pytest.raises(StateError, match="unbekannte Alarmart 'smpt'"):
        alerts.raise_alert(seg, "smpt", "x")
    (seg / "mail").mkdir(parents=True)
    (seg / alerts.RECORD).write_text("format: 1\nactive: [1, 2\n")
    with pytest.raises(DataError, match="alerts.yaml"):
        alerts.read(seg)


def test_deliver_without_smtp_sends_nothing(tmp_path):
    seg = tmp_path / "canura"
    alerts.raise_alert(seg, "ordner", "2 Spielzüge in Junk")
    assert alerts.deliver(seg, None) == []
    assert len(alerts.owed(seg)) == 1
