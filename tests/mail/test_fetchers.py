"""Provider mail fetched by the standard fetchers — getmail6 into an mbox, fetchmail
into a Maildir, both in their default settings (plus a 30 s network timeout, so
that a stalled connection ends) — from the real Dovecot, then
``wdg orders import``-ed (issue #34: "every on-time sheet was refused as late": both
fetchers put their own ``Received:`` header on top, with the time of fetching).

The mails lie in the game master's mailbox since before the deadline (delivered by
the provider's server, which wrote its ``Received:`` header then) and are fetched
after it. The import must take the provider's header, not the fetcher's, and must
not take a mail twice when the same (growing) mailbox file is imported next month."""

from __future__ import annotations

import contextlib
import email
import email.policy
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from email.utils import format_datetime
from pathlib import Path

import pytest

from mailservers import SERVER_NAME, sheet_mail
from wdg.orders.intake import import_mailbox
from wdg.orders.mailtext import fetcher_header
from wdg.world.deadline import deadline_for
from wdg.store.segment import save_segment

DEADLINE = datetime(2025, 5, 1, 11, 0, tzinfo=timezone.utc)  # 13:00 Berlin (CEST)


def _delivered(mc, n: int, when: datetime, extra: str = "", month: str = "") -> bytes:
    """A player's sheet as the provider's server stored it at ``when``: its own
    ``Received:`` headers on top (Dovecot LMTP over Postfix), like a real delivery."""
    p, gm = mc.world.players[n - 1], mc.world.gm
    msg = sheet_mail(p, gm, "Spielzug", mc.sheet(n, extra, month=month),
                     date=format_datetime(when))
    stamp = format_datetime(when)
    head = (f"Return-Path: <{p.address}>\r\nDelivered-To: {gm.address}\r\n"
            f"Received: from {SERVER_NAME}\r\n\tby {SERVER_NAME} with LMTP\r\n\tid abc{n}\r\n"
            f"\tfor <{gm.address}>; {stamp}\r\n"
            f"Received: from client.wdg.test (localhost [127.0.0.1])\r\n"
            f"\tby {SERVER_NAME} (Postfix) with ESMTPSA id 4F{n}\r\n\tfor <{gm.address}>; {stamp}\r\n")
    return head.encode() + msg.as_bytes(policy=email.policy.SMTP)


def _deadline(mc) -> None:
    seg = mc.seg()
    seg.settings.deadline, seg.settings.deadline_month = "2025-05-01 13:00", seg.date.key
    seg.settings.timezone = "Europe/Berlin"
    save_segment(seg, mc.seg_dir)


@pytest.fixture
def fetch_dir(mail_servers):
    """A directory for the fetchers, which run as an ordinary user (``mail``): getmail
    refuses to deliver as root, and a game master runs them as himself anyway."""
    d = Path(tempfile.mkdtemp(prefix="fetch-", dir=mail_servers.root))
    d.chmod(0o755)
    os.chown(d, mail_servers.mail_uid, mail_servers.mail_gid)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _as_mail_user(path: Path) -> None:
    uid, gid = pwd.getpwnam("mail").pw_uid, pwd.getpwnam("mail").pw_gid
    for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
        os.chown(p, uid, gid)


FETCH_TIMEOUT = 120
"""Seconds a fetcher (or wdg) may take here before the test fails; a few seconds
suffice even on a loaded machine. The fetchers' own network timeout (30 s, set in
their configuration) ends a stalled connection before that."""


def _run(mc, args: list[str], *, as_mail: bool = True, timeout: float = FETCH_TIMEOUT,
         **kw) -> subprocess.CompletedProcess:
    """A fetcher as the ``mail`` user (or wdg as root), in its own process group, stdin
    closed. A hang is a clear failure after ``timeout`` seconds, not a stuck suite: the
    whole group (the fetcher and the delivery program it started) is killed and the
    test fails with what the process printed so far and the servers' logs."""
    who = {"user": "mail", "group": "mail"} if as_mail else {}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True, **who, **kw)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a pipe held open by a process outside the group
            out, err = "", "(output not readable)"
        raise AssertionError(f"{' '.join(map(str, args))} hung: no end after {timeout} s "
                             f"(killed)\nstdout: {out}\nstderr: {err}\n"
                             f"{mc.world.servers.logs()}") from None
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def _getmail(mc, tmp: Path, mbox: Path) -> str:
    s, gm = mc.world.servers, mc.world.gm
    gdir = tmp / "getmail"
    gdir.mkdir(exist_ok=True)
    rc = gdir / "getmailrc"
    rc.write_text(f"""[retriever]
type = SimpleIMAPSSLRetriever
server = {s.host}
port = {s.imaps}
username = {gm.user}
password = {gm.password}
ca_certs = {s.ca_file}
ssl_cert_hostname = {SERVER_NAME}
timeout = 30

[destination]
type = Mboxrd
path = {mbox}

[options]
read_all = false
delete = false
""")
    mbox.touch()
    _as_mail_user(gdir)
    _as_mail_user(mbox)
    res = _run(mc, ["getmail", f"--getmaildir={gdir}", f"--rcfile={rc}"], cwd=tmp)
    assert res.returncode == 0, res.stdout + res.stderr
    return res.stdout


def _fetchmail(mc, tmp: Path, maildir: Path) -> str:
    s, gm = mc.world.servers, mc.world.gm
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True, exist_ok=True)
    fdir = tmp / "fetchmail"
    fdir.mkdir(exist_ok=True)
    rc = fdir / "fetchmailrc"
    rc.write_text(f"""set no syslog
poll {SERVER_NAME} via {s.host} service {s.imaps} proto IMAP timeout 30
  user "{gm.user}" there with password "{gm.password}" is mail here
  ssl sslcertck sslcertfile "{s.ca_file}" sslcommonname "{SERVER_NAME}"
  keep
  mda "getmail_maildir {maildir}/"
""")
    rc.chmod(0o600)
    _as_mail_user(fdir)
    _as_mail_user(maildir)
    res = _run(mc, ["fetchmail", "-f", str(rc), "--pidfile", str(fdir / "pid"),
                    "-i", str(fdir / "ids"), "--nosyslog"],
               cwd=tmp, env={**os.environ, "HOME": str(fdir), "FETCHMAILHOME": str(fdir)})
    assert res.returncode in (0, 1), res.stdout + res.stderr  # 1: no new mail
    return res.stdout + res.stderr


@pytest.mark.slow
@pytest.mark.parametrize("fetcher", ["getmail6", "fetchmail"])
def test_sheets_fetched_by_local_fetchers_keep_their_arrival_time(mail_campaign, fetch_dir,
                                                                  fetcher):
    """"Der Spielzug muß den Segmentleiter bis zu dem von ihm angegebenen Datum
    (EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben": the sheets reached the
    game master's provider before 13:00 and were fetched later: all on time; the one
    that reached it after 13:00 is late."""
    mc = mail_campaign
    s, gm = mc.world.servers, mc.world.gm
    _deadline(mc)
    on_time = [DEADLINE.timestamp() - 3600 + 60 * n for n in range(1, 5)]
    for n, when in zip(range(1, 5), on_time):
        s.append(gm, _delivered(mc, n, datetime.fromtimestamp(when, timezone.utc)), when=when)
    late = DEADLINE.timestamp() + 120
    s.append(gm, _delivered(mc, 5, datetime.fromtimestamp(late, timezone.utc)), when=late)
    box = fetch_dir / ("posteingang.mbox" if fetcher == "getmail6" else "Maildir")
    (_getmail if fetcher == "getmail6" else _fetchmail)(mc, fetch_dir, box)
    from wdg.orders.mailbox import read_mailbox

    mails = read_mailbox(box)
    assert len(mails) == 5
    top = email.message_from_bytes(mails[0].raw, policy=email.policy.default).get_all("Received")
    assert fetcher_header(str(top[0])), top[0]  # the fetcher's own header is on top
    seg = mc.seg()
    rep = import_mailbox(mc.camp, seg, box, deadline=deadline_for(seg, seg.date))
    got = {r.kingdom: r for r in rep.results}
    assert [got[n].status for n in range(1, 5)] == ["angenommen"] * 4, \
        [(r.kingdom, r.status, r.reason, r.arrival) for r in rep.results]
    assert [got[n].arrival.timestamp() for n in range(1, 5)] == on_time
    assert got[5].status == "abgelehnt" and "Eintreffschluß" in got[5].reason


@pytest.mark.slow
def test_the_same_growing_mbox_next_month_replays_nothing(mail_campaign, fetch_dir):
    """getmail6 appends each fetch to the same mbox; importing it again next month
    takes only the new mails. A sheet without ``Mond:`` line (optional) from last month
    is not taken as this month's sheet, and nobody gets an old answer again."""
    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    box = fetch_dir / "posteingang.mbox"
    for n in (1, 2):
        s.send(p[n - 1], sheet_mail(p[n - 1], gm, "Spielzug", mc.sheet(n)))
    s.send(p[2], sheet_mail(p[2], gm, "Spielzug", "Nur eine Frage, kein Spielzug."))
    s.wait_for(gm, 3)
    _getmail(mc, fetch_dir, box)
    seg = mc.seg()
    first = seg.date
    rep = import_mailbox(mc.camp, seg, box)
    assert sorted(r.status for r in rep.results) == ["abgelehnt", "angenommen", "angenommen"]
    answers = sorted((mc.camp.root / "outbox" / "test" / first.key).glob("*.eml"))
    assert len(answers) == 2  # the mail without any sheet is not answered (#30)
    # next month: one new sheet arrives; getmail adds it to the same file
    seg.date = seg.date.next()
    save_segment(seg, mc.seg_dir)
    s.send(p[3], sheet_mail(p[3], gm, "Spielzug", mc.sheet(4)))
    s.wait_for(gm, 4)
    _getmail(mc, fetch_dir, box)
    seg = mc.seg()
    rep = import_mailbox(mc.camp, seg, box)
    new = [r for r in rep.results if r.status != "bereits erfasst"]
    old = [r for r in rep.results if r.status == "bereits erfasst"]
    assert [(r.kingdom, r.status) for r in new] == [(4, "angenommen")]
    assert len(old) == 3 and all(f"schon im Mond {first.short()}" in r.reason for r in old)
    assert all(r.confirmation is None for r in old)
    folder = mc.camp.root / "orders" / "test" / seg.date.key
    assert sorted(x.name for x in folder.glob("k*.txt")) == ["k4.txt"]
    assert len(list((mc.camp.root / "outbox" / "test" / seg.date.key).glob("*.eml"))) == 1


@pytest.mark.slow
def test_orders_import_sends_the_confirmations_once(mail_campaign, tmp_path):
    """``wdg orders import`` with an ``smtp:`` section sends each confirmation at once,
    From of mail.yaml, answering the player's mail; importing the mailbox again sends
    nothing again."""
    import mailbox

    mc = mail_campaign
    s, gm, p = mc.world.servers, mc.world.gm, mc.world.players
    box = mailbox.mbox(str(tmp_path / "eingang.mbox"))
    sent = [sheet_mail(p[n - 1], gm, "Spielzug", mc.sheet(n)) for n in (1, 2)]
    for m in sent:
        box.add(m)
    box.close()
    root = Path(__file__).resolve().parents[2]

    def wdg_import() -> subprocess.CompletedProcess:
        return _run(mc, [sys.executable, "-m", "wdg", "orders", "import", "test",
                         str(tmp_path / "eingang.mbox"), "-C", str(mc.camp.root)],
                    as_mail=False, cwd=root, env={**os.environ, "PYTHONPATH": str(root)})

    res = wdg_import()
    assert res.returncode == 0, res.stderr
    assert "Antworten gesendet: 2" in res.stdout
    for n, m in zip((1, 2), sent):
        got = s.wait_for(p[n - 1], 1)[0].message
        assert got["In-Reply-To"] == m["Message-ID"]
        assert got["From"] == f"Segmentleiter Test <{gm.address}>"
        assert got["Date"] and got["Message-ID"].endswith(f"@{s.domain}>")
    again = wdg_import()
    assert "Antworten gesendet: 0" in again.stdout, again.stdout

    s.settled()
    assert [len(s.messages(a)) for a in p[:2]] == [1, 1]


def test_a_hanging_fetcher_is_a_clear_failure_not_a_stuck_suite(mail_campaign):
    """The helper every fetcher runs through: a process that never ends (here a shell
    that started a child, as fetchmail starts its delivery program) is killed with its
    whole group after the timeout, and the test fails saying so."""
    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"hung: no end after 1 s") as failed:
        _run(mail_campaign, ["sh", "-c", "echo begun; sleep 300 & sleep 300"], timeout=1)
    assert time.monotonic() - start < 15
    assert "begun" in str(failed.value) and "--- dovecot ---" in str(failed.value)
