"""The unattended recipes, made for this machine: systemd user units and a
crontab line (``wdg mail install-timer``; docs/gamemaster.md).

Everything is written with absolute paths (the ``wdg`` of this installation, the
campaign directory): cron's and systemd's ``PATH`` do not have a virtual
environment's ``wdg``. One install path: the user's systemd directory
``~/.config/systemd/user/``. Three units per segment:

- ``wdg-<segment>-run.service`` (``wdg mail run``, oneshot) and its
  ``wdg-<segment>-run.timer`` (every :data:`TIMER_MINUTES` minutes). Exit codes 3
  (nothing to do), 4 (waiting for the deadline) and 6 (the segment stayed locked
  while ``--wait`` ran: the next call does the work) count as success; 1, 5 and 7
  make the unit *failed* (``systemctl --user status``) — the game master is told
  by mail as well (:mod:`wdg.mail.alerts`).
- ``wdg-<segment>-watch.service`` (``wdg mail watch``): restarted after a crash,
  but not after exit 1 or 7 (a refused login does not heal by itself: the unit
  stays failed until the password is fixed and the unit restarted).

The watch holds the segment's lock only while it takes mail in; the timer's
``wdg mail run`` waits for it (``--wait``) instead of failing, so both may run.
Passwords: ``password_file:`` in mail.yaml, or variables in the optional
``~/.config/wdg/<segment>.env`` (mode 0600; ``EnvironmentFile=``) — never in a
unit file (other users may read the units' environment).
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

TIMER_MINUTES = 5
RUN_WAIT = 240
"""``--wait`` of the timer's call: under the timer's interval."""
UNIT_DIR = Path("~/.config/systemd/user")


def wdg_executable() -> Path:
    """The absolute path of this installation's ``wdg`` (beside the Python that runs)."""
    beside = Path(sys.executable).parent / "wdg"
    if beside.is_file():
        return beside.absolute()
    found = shutil.which("wdg")
    if found:
        return Path(found).absolute()
    return beside.absolute()


def _q(path: Path | str) -> str:
    """A path for a unit file's command line (systemd quoting: double quotes,
    ``%`` doubled)."""
    text = str(path).replace("%", "%%")
    return f'"{text}"' if any(c in text for c in " \t\"'\\") else text


def units(segment: str, campaign: Path, wdg: Path | None = None) -> dict[str, str]:
    """File name -> text of the three units for ``segment`` of ``campaign``."""
    wdg = wdg or wdg_executable()
    camp = campaign.absolute()
    env = f"-%h/.config/wdg/{segment}.env"
    # WorkingDirectory= takes the rest of the line as the path (no quotes; % doubled)
    common = (f"WorkingDirectory={str(camp).replace('%', '%%')}\nEnvironmentFile={env}\n")
    run = (f"[Unit]\nDescription=wdg: Segment {segment} per Mail (Abholen, Auswerten, Versand)\n"
           "\n[Service]\nType=oneshot\n" + common
           + f"ExecStart={_q(wdg)} mail run {segment} -C {_q(camp)} --wait {RUN_WAIT}\n"
           "# 3 nichts zu tun, 4 wartet auf den Eintreffschluß, 6 gesperrt (der nächste Aufruf\n"
           "# holt es nach); 1, 5, 7: die Unit gilt als fehlgeschlagen\n"
           "SuccessExitStatus=3 4 6\n")
    timer = (f"[Unit]\nDescription=wdg: Segment {segment} alle {TIMER_MINUTES} Minuten\n"
             f"\n[Timer]\nOnCalendar=*:0/{TIMER_MINUTES}\nPersistent=true\n"
             f"Unit=wdg-{segment}-run.service\n\n[Install]\nWantedBy=timers.target\n")
    watch = (f"[Unit]\nDescription=wdg: Spielzüge von Segment {segment} sofort beantworten\n"
             "\n[Service]\nType=simple\n" + common
             + f"ExecStart={_q(wdg)} mail watch {segment} -C {_q(camp)}\n"
             "Restart=on-failure\nRestartSec=30\n"
             "# 1: Anmeldung abgelehnt oder Einstellungen falsch, 7: SMTP-Anmeldung abgelehnt —\n"
             "# heilt nicht von selbst: die Unit bleibt fehlgeschlagen\n"
             "RestartPreventExitStatus=1 7\n"
             "\n[Install]\nWantedBy=default.target\n")
    return {f"wdg-{segment}-run.service": run, f"wdg-{segment}-run.timer": timer,
            f"wdg-{segment}-watch.service": watch}


def crontab_lines(segment: str, campaign: Path, wdg: Path | None = None) -> list[str]:
    """The crontab lines: ``wdg mail run`` every five minutes (stdout dropped, the
    errors on stderr reach cron's mail to the user), and a nightly backup written
    0600 while the segment's lock is held. Every ``%`` escaped (cron reads an
    unescaped one as the end of the command)."""
    wdg = wdg or wdg_executable()
    camp = shlex.quote(str(campaign.absolute()))
    seg = shlex.quote(segment)
    lock = shlex.quote(f"worlds/{segment}/.lock")
    run = (f"*/{TIMER_MINUTES} * * * * {shlex.quote(str(wdg))} mail run {seg} -C {camp} "
           f"--wait {RUN_WAIT} >/dev/null")
    backup = (f"30 3 * * * cd {camp} && umask 077 && mkdir -p \"$HOME/sicherung\" orders && "
              f"flock {lock} tar czf \"$HOME/sicherung/{segment}-$(date +\\%F).tar.gz\" "
              "worlds orders")
    return [run, backup]


def install(segment: str, campaign: Path, directory: Path | None = None) -> list[Path]:
    """Write the units into ``directory`` (default ``~/.config/systemd/user``)."""
    target = (directory or UNIT_DIR).expanduser()
    target.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in units(segment, campaign).items():
        path = target / name
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out
