"""Bounded work per mail (issue #39 item 5): what one hostile or big mail costs the
intake, and what mail left for others costs every later call.

- **512 KB subject of blanks judged**: a mail whose Subject is "Formular", 512,000
  blanks and an "x" — judged as ``wdg mail fetch`` judges it (header fields cut,
  parsed, the command pattern and the rule for mail for the game): target < 50 ms.
  Before: the command patterns backtracked quadratically (8,000 blanks 0.8 s).
- **Subject folded 200,000 times judged**: the same for a Subject of 200,000 folded
  lines (before: 146 s and 316 MB before the size limit refused the mail).
- **51 MB mail: memory of the fetch**: the peak resident memory of ``wdg mail fetch``
  with a 51 MB sheet mail in the inbox, less that of a fetch of an empty inbox
  (target < 100 MB; before: a 556 MB peak, the whole mail downloaded).
- **1,800 foreign mails, second call / empty inbox**: the time of the second ``wdg
  mail fetch`` after 1,800 mails not for the game arrived, divided by the time of a
  fetch of an empty inbox (target: no more, within the noise of a process start;
  before: 12.5 s against 3.6 s). The first call judges them once and moves them to
  ``imap.foreign_folder``.

The last two run against the real Dovecot/Postfix of the test suite
(``tests/mailservers.py``; root and the packages ``make test`` installs), else they
are recorded as missing with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from wdg.bench.harness import Figure, Results, median
from wdg.campaign import PACKAGE_ROOT

G = "mail"
SUBJECT_MS = 50
MEMORY_MB = 100


def _judge(raw: bytes) -> bool:
    """What a fetch does with one mail's header fields before anything else."""
    from wdg.mail.commands import command_of
    from wdg.mail.fetch import HEADER_BYTES, capped_headers, for_the_game, header_str, own_mail
    from wdg.mail.config import MailConfig
    from wdg.mail.guard import automatic

    head = capped_headers(raw[:HEADER_BYTES])
    config = MailConfig(Path("mail.yaml"), "Segmentleiter <sl@example.org>")
    return (not own_mail(head, config) and for_the_game(head, {})
            and command_of(header_str(head, "Subject")) is None and not automatic(head))


def _cpu(res: Results, quick: bool) -> None:
    from wdg.mail.commands import command_of

    runs = 3 if quick else 7
    cases = {
        "512 KB subject of blanks judged":
            b"From: p@example.org\r\nSubject: Formular" + b" " * 512_000 + b"x\r\n\r\nHallo\r\n",
        "subject folded 200,000 times judged":
            b"From: p@example.org\r\nSubject: Spielzug" + b"\r\n x" * 200_000 + b"\r\n\r\nx\r\n",
    }
    _judge(b"From: p@example.org\r\nSubject: x\r\n\r\n")  # imports, compiled patterns
    for name, raw in cases.items():
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            _judge(raw)
            times.append((time.perf_counter() - t0) * 1000)
        tracemalloc.start()
        _judge(raw)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        res.add(Figure(G, name, median(times), "ms", runs=times, target=f"< {SUBJECT_MS} ms",
                       met=max(times) < SUBJECT_MS,
                       note=f"header fields cut at wdg.mail.fetch.HEADER_BYTES, parsed, the "
                            f"command patterns and the accept rule applied; {peak:.1f} MB "
                            "allocated at the peak (tracemalloc)"))
    subject = "Formular" + " " * 512_000 + "x"
    command_of("Formular")
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        command_of(subject)
        times.append((time.perf_counter() - t0) * 1000)
    res.add(Figure(G, "command patterns on a 512 KB subject", median(times), "ms", runs=times,
                   target=f"< {SUBJECT_MS} ms", met=max(times) < SUBJECT_MS,
                   note="wdg.mail.commands.command_of on the whole subject (no header cut): "
                        "blanks collapsed, then matched"))


FETCH = """
import re, sys, time
from wdg.campaign import Campaign
from wdg.mail.fetch import fetch
t0 = time.perf_counter()
rep = fetch(Campaign.locate(sys.argv[1]), sys.argv[2])
secs = time.perf_counter() - t0
# VmHWM: this process's own peak (ru_maxrss would include the parent's pages at fork)
with open("/proc/self/status") as f:
    hwm = int(re.search(r"VmHWM:\\s+(\\d+) kB", f.read()).group(1))
print(secs, hwm, rep.foreign_moved, len(rep.results))
"""


def _fetch(root: Path, env: dict, seg: str) -> tuple[float, float, int, int]:
    """(seconds of the fetch itself, peak RSS in MB, mails moved as foreign, results)."""
    proc = subprocess.run([sys.executable, "-c", FETCH, str(root), seg], env=env, cwd=root,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"fetch failed: {proc.stderr[-1500:]}")
    secs, rss, moved, results = proc.stdout.split()
    return float(secs), int(rss) / 1024, int(moved), int(results)


def _append_many(s, account, raws: list[bytes]) -> None:
    """APPEND mails through one IMAP connection."""
    import imaplib

    conn = s.imap_client(account)
    try:
        for raw in raws:
            typ, data = conn.append("INBOX", None, imaplib.Time2Internaldate(time.time()), raw)
            if typ != "OK":
                raise RuntimeError(f"APPEND failed: {data}")
    finally:
        conn.logout()


def _servers(work: Path, res: Results, quick: bool, s, mailservers) -> None:
    from wdg.bench.mail import SEG, mail_campaign

    world = s.new_world(players=3)
    (work / "guard").mkdir()
    root, env, passwords = mail_campaign(work / "guard", world, 3)
    gm, p1 = world.gm, world.players[0]
    # --- memory of a 51 MB mail -------------------------------------------------------
    empty = [_fetch(root, env, SEG) for _ in range(2)]
    base_rss = min(r[1] for r in empty)
    sheet = f"Segment: {SEG}\nKönigreich: 1\nPasswort: {passwords[1]}\n"
    msg = mailservers.sheet_mail(p1, gm, "Spielzug", sheet)
    big = bytes(msg).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    size = 51_000_000
    filler = (b"# " + b"x" * 76 + b"\r\n") * ((size - len(big)) // 80 + 1)
    _append_many(s, gm, [big + filler])
    del filler, big
    secs, rss, _, results = _fetch(root, env, SEG)
    extra = rss - base_rss
    res.add(Figure(G, "51 MB mail: memory of the fetch", round(extra, 1), "MB",
                   target=f"< {MEMORY_MB} MB", met=extra < MEMORY_MB,
                   note=f"peak RSS of 'wdg mail fetch' {rss:.0f} MB with the 51 MB mail, "
                        f"{base_rss:.0f} MB with an empty inbox; the mail judged by "
                        f"RFC822.SIZE and read in 1 MB chunks ({secs:.1f} s, {results} "
                        "result: quarantined, too big)"))
    # --- 1,800 foreign mails ----------------------------------------------------------
    n = 300 if quick else 1800
    empty_s = [_fetch(root, env, SEG)[0] for _ in range(3)]
    foreign = []
    for i in range(n):
        m = mailservers.sheet_mail(p1, gm, f"Newsletter {i}", "Angebote der Woche\n" * 20)
        del m["To"]
        m["To"] = f"liste@{mailservers.DOMAIN}"
        foreign.append(bytes(m))
    _append_many(s, gm, foreign)
    first, _, moved, _ = _fetch(root, env, SEG)
    second = [_fetch(root, env, SEG)[0] for _ in range(3)]
    ratio = median(second) / median(empty_s)
    res.add(Figure(G, f"{n} foreign mails: second call / empty inbox", round(ratio, 2), "x",
                   runs=[round(x / median(empty_s), 2) for x in second],
                   target="<= 1.25 (no more than an empty inbox, within the noise)",
                   met=ratio <= 1.25,
                   note=f"fetch of an empty inbox {median(empty_s):.2f} s; the first call with "
                        f"{n} mails not for the game {first:.2f} s (judged once, {moved} moved "
                        f"to imap.foreign_folder); the second {median(second):.2f} s"))


def run_all(work: Path, res: Results, quick: bool) -> None:
    """The figures (see the module)."""
    _cpu(res, quick)
    names = ("51 MB mail: memory of the fetch", "foreign mails: second call / empty inbox")
    sys.path.insert(0, str(PACKAGE_ROOT / "tests"))
    try:
        import mailservers
    except ImportError as exc:  # an installed wdg without its tests
        for name in names:
            res.add(Figure(G, name, None, "", note=f"tests/mailservers.py not found: {exc}"))
        return
    problem = mailservers.missing_binaries()
    if os.geteuid() != 0:
        problem.append("root")
    if problem:
        for name in names:
            res.add(Figure(G, name, None, "", note=f"needs {', '.join(problem)} (make test "
                           "installs the mail packages; run as root)"))
        return
    servers = mailservers.MailServers().start()
    try:
        _servers(work, res, quick, servers, mailservers)
    finally:
        servers.stop()
        servers.cleanup()
