"""The player's turnaround by mail (issue #34), against the real servers the
test suite starts (Debian's Dovecot and Postfix on 127.0.0.1,
``tests/mailservers.py``; needs root and those packages, as ``make test``
installs them — otherwise the figures are recorded as missing, with why).

- **one sheet, polled**: a player's sheet mailed through Postfix into the game
  master's IMAP box; ``wdg mail run`` (what cron calls) fetches, checks,
  forecasts and answers; the figure is the time from the sheet's arrival in
  the box to the answer's arrival in the player's box. With cron every
  minute the player waits at most one interval more: the target (60 s) holds
  when interval + this figure < 60 s.
- **one sheet, watched**: the same with ``wdg mail watch`` running (IMAP IDLE):
  from the sheet's sending to the answer in the player's box (target 10 s).
- **60 sheets in the last minute**: 20 players mail 3 sheets each (corrections
  replace earlier ones) within a minute while ``wdg mail watch`` runs; the
  figure is the time from the first sheet's sending until all 60 answers are
  in the players' boxes (target 120 s); beside it, until the first answer.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from wdg.bench.harness import Figure, Results
from wdg.campaign import PACKAGE_ROOT

G = "mail"
SEG = "post"


def _wdg(root: Path, env: dict, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "wdg", *args, "-C", str(root)], cwd=root,
                          env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 3, 4):
        raise RuntimeError(f"wdg {' '.join(args)}: {proc.returncode} {proc.stderr[-1500:]}")
    return proc.stdout


def mail_campaign(work: Path, world, players: int) -> tuple[Path, dict, dict[int, str]]:
    """A campaign in ``work/mailbench`` with one segment of ``players`` kingdoms
    whose players are the accounts of ``world`` (tests/mailservers.py), its
    mail.yaml pointing at those servers and a deadline three hours ahead:
    (root, the environment for ``wdg``, kingdom -> password)."""
    s = world.servers
    root = work / "mailbench"
    root.mkdir()
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT), "WDG_CAMPAIGN": "",
           "WDG_SMTP_PASSWORD": world.gm.password, "WDG_IMAP_PASSWORD": world.gm.password}
    side = 3 if players <= 6 else 6
    out = _wdg(root, env, "segment", "new", SEG, "--provinces", f"{side}x{side - 1}",
               "--kingdoms", str(players), "--seed", "9")
    passwords = {int(k): pw for k, pw in re.findall(r"^\s+(\d+)\s+Reich .*?\s(\S+)$", out, re.M)}
    for k, acc in zip(sorted(passwords), world.players):
        _wdg(root, env, "kingdom", "set", SEG, str(k), "--email", acc.address)
    (root / "worlds" / SEG / "mail.yaml").write_text(
        f'from: "Spielleitung <{world.gm.address}>"\n'
        f"smtp: {{host: 127.0.0.1, port: {s.submission}, security: starttls, server_name: "
        f"{s.server_name}, user: {world.gm.user}, password_env: WDG_SMTP_PASSWORD, "
        f"cafile: {s.ca_file}}}\n"
        f"imap: {{host: 127.0.0.1, port: {s.imaps}, security: ssl, server_name: "
        f"{s.server_name}, user: {world.gm.user}, password_env: WDG_IMAP_PASSWORD, "
        f"cafile: {s.ca_file}}}\n", encoding="utf-8")
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    later = datetime.now(ZoneInfo("Europe/Berlin")) + timedelta(hours=3)
    _wdg(root, env, "turn", "deadline", SEG, later.strftime("%d.%m.%Y %H:%M"))
    return root, env, passwords


def _sheet(root: Path, env: dict, k: int, password: str) -> str:
    form = _wdg(root, env, "orders", "template", SEG, str(k))
    return form.replace("Passwort: \n", f"Passwort: {password}\n", 1)


def _wait_answers(s, accounts, counts: dict, timeout: float) -> float:
    """Seconds until every account holds its count of mails (or ``inf``)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if all(len(s.messages(a)) >= counts[a.address] for a in accounts):
            return time.perf_counter() - t0
        time.sleep(0.2)
    return float("inf")


def _wait_rush(s, accounts, before: dict, counts: dict, timeout: float,
               t0: float) -> tuple[float, float]:
    """Seconds since ``t0`` until the first new mail arrived in one of the accounts
    and until every account holds its count (``inf`` if not within ``timeout``)."""
    first = float("inf")
    while time.perf_counter() - t0 < timeout:
        got = {a.address: len(s.messages(a)) for a in accounts}
        now = time.perf_counter() - t0
        if first == float("inf") and any(got[a] > before[a] for a in got):
            first = now
        if all(got[a] >= counts[a] for a in got):
            return first, now
        time.sleep(0.2)
    return first, float("inf")


def run_all(work: Path, res: Results, quick: bool) -> None:
    """The three figures (see the module)."""
    sys.path.insert(0, str(PACKAGE_ROOT / "tests"))
    try:
        import mailservers
    except ImportError as exc:  # an installed wdg without its tests
        for name in ("one sheet answered (mail run)", "one sheet answered (mail watch)",
                     "60 sheets answered", "60 sheets: first answer"):
            res.add(Figure(G, name, None, "s", note=f"tests/mailservers.py not found: {exc}"))
        return
    problem = mailservers.missing_binaries()
    if os.geteuid() != 0:
        problem.append("root")
    if problem:
        for name in ("one sheet answered (mail run)", "one sheet answered (mail watch)",
                     "60 sheets answered", "60 sheets: first answer"):
            res.add(Figure(G, name, None, "s", note=f"needs {', '.join(problem)} (make test "
                           "installs the mail packages; run as root)"))
        return
    servers = mailservers.MailServers().start()
    try:
        _measure(work, res, servers, quick, mailservers)
    finally:
        servers.stop()
        servers.cleanup()


def _measure(work: Path, res: Results, s, quick: bool, mailservers) -> None:
    players = 6 if quick else 20
    world = s.new_world(players=players)
    root, env, passwords = mail_campaign(work, world, players)
    p1 = world.players[0]
    # --- one sheet, polled by 'wdg mail run' --------------------------------------
    runs = []
    for i in range(1 if quick else 3):
        s.send(p1, mailservers.sheet_mail(p1, world.gm, "Spielzug", _sheet(root, env, 1,
                                                                            passwords[1])))
        s.wait_for(world.gm, 1)
        t0 = time.perf_counter()
        _wdg(root, env, "mail", "run", SEG, "--no-pdf")
        waited = _wait_answers(s, [p1], {p1.address: i + 1}, 60)
        runs.append(time.perf_counter() - t0 if waited != float("inf") else float("inf"))
    res.add(Figure(G, "one sheet answered (mail run)", sorted(runs)[len(runs) // 2], "s",
                   runs=runs, target="< 60 s with a cron interval of 60 s minus this",
                   met=max(runs) < 30,
                   note="from the sheet in the IMAP box to the answer in the player's box; "
                        "plus up to one cron interval of waiting"))
    # --- wdg mail watch ---------------------------------------------------------------
    watch = subprocess.Popen([sys.executable, "-m", "wdg", "mail", "watch", SEG, "-C",
                              str(root)], cwd=root, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        time.sleep(5)  # connected and idling
        have = len(s.messages(p1))
        runs = []
        for i in range(1 if quick else 3):
            t0 = time.perf_counter()
            s.send(p1, mailservers.sheet_mail(p1, world.gm, "Spielzug",
                                              _sheet(root, env, 1, passwords[1])))
            waited = _wait_answers(s, [p1], {p1.address: have + i + 1}, 60)
            runs.append(time.perf_counter() - t0 if waited != float("inf") else float("inf"))
        res.add(Figure(G, "one sheet answered (mail watch)", sorted(runs)[len(runs) // 2], "s",
                       runs=runs, target="< 10 s", met=max(runs) < 10,
                       note="from sending the sheet (Postfix -> Dovecot -> IDLE -> check, "
                            "forecast -> SMTP -> the player's box)"))
        # --- 60 sheets in the last minute ---------------------------------------------
        n_sheets = 60 if not quick else 12
        counts = {a.address: len(s.messages(a)) for a in world.players}
        before = dict(counts)
        sheets = {k: _sheet(root, env, k, passwords[k]) for k in sorted(passwords)}
        t0 = time.perf_counter()
        sent = 0
        while sent < n_sheets:
            for k, acc in zip(sorted(passwords), world.players):
                if sent >= n_sheets:
                    break
                s.send(acc, mailservers.sheet_mail(acc, world.gm, "Spielzug",
                                                   sheets[k] + f"# Fassung {sent + 1}\n"))
                counts[acc.address] += 1
                sent += 1
        spread = time.perf_counter() - t0
        first, waited = _wait_rush(s, world.players, before, counts, 180, t0)
        total = waited if waited != float("inf") else None
        if total is None:
            got = sum(len(s.messages(a)) for a in world.players)
            res.tables["mail_60_missing"] = sum(counts.values()) - got
        res.add(Figure(G, f"{n_sheets} sheets answered", total, "s",
                       target="< 120 s" if not quick else "", met=(total is not None and
                                                                  total < 120) if not quick
                       else None,
                       note=f"{n_sheets} sheets from {len(world.players)} players sent within "
                            f"{spread:.0f} s while 'wdg mail watch' ran; until every answer "
                            "was in the players' boxes"))
        res.add(Figure(G, f"{n_sheets} sheets: first answer", first
                       if first != float("inf") else None, "s",
                       note="from the first sheet's sending until the first answer was in a "
                            "player's box (the watch answers every ten sheets it takes)"))
    finally:
        os.killpg(watch.pid, signal.SIGTERM)
        try:
            watch.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(watch.pid, signal.SIGKILL)
