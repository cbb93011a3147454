"""``wdg mail run``: one unattended step of a campaign by mail, for cron or a
systemd timer (docs/gamemaster.md).

Each call, under the segment's lock:

1. **fetch**: new mail from the game master's IMAP box is imported and every
   sheet answered at once (:func:`wdg.mail.fetch.fetch`, when ``mail.yaml`` has
   an ``imap:`` section);
2. **send what is due**: result mails of the last month run that have not gone
   out yet (an earlier call that stopped after the run, a server that was
   down) are sent;
3. **the month**: once the deadline of the current month has passed and
   ``wdg turn status`` names no blocker, the month is run (reports into the
   archive, delivered into ``reports/``) and its results are sent. Before the
   deadline nothing is run (``--force`` runs anyway); with a blocker nothing is
   run and the call says why.

The outcome is one exit code (:mod:`wdg.exitcodes`), a line per step in the
segment's log (:mod:`wdg.mail.log`) and, with ``--json``, one JSON document.
Mails the call owes and could not send (confirmations, command answers,
results) make it :data:`~wdg.exitcodes.UNSENT`, whatever else went well: the
report lists each (``owed``) with the reason, and the game master gets an alert
(:mod:`wdg.mail.alerts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from wdg import exitcodes
from wdg.campaign import Campaign
from wdg.errors import StateError
from wdg.mail import alerts
from wdg.mail.config import load_mail_config
from wdg.mail.smtp import SmtpError


@dataclass(slots=True)
class RunReport:
    """What one ``wdg mail run`` did."""

    segment: str
    code: int = exitcodes.NOTHING
    lines: list[str] = field(default_factory=list)
    """German lines for the game master (and the log)."""
    fetched: dict[str, Any] | None = None
    sent: list[dict[str, Any]] = field(default_factory=list)
    ran: str | None = None
    month: str | None = None
    deadline: dict[str, Any] | None = None
    blockers: list[str] = field(default_factory=list)
    owed: dict[str, str] = field(default_factory=dict)
    """Mails owed and not sent by this call: key -> why (they stay due)."""
    alerts: list[str] = field(default_factory=list)
    """Alert mails to the game master sent by this call (send record keys)."""
    levels: dict[int, exitcodes.Level] = field(default_factory=dict)
    """The level of each line that is no plain information (by index in :attr:`lines`)."""

    def note(self, line: str, level: exitcodes.Level = exitcodes.Level.INFO) -> None:
        """Add a line."""
        if level is not exitcodes.Level.INFO:
            self.levels[len(self.lines)] = level
        self.lines.append(line)

    def level(self, i: int) -> exitcodes.Level:
        """The level of line ``i``."""
        return self.levels.get(i, exitcodes.Level.INFO)

    @classmethod
    def failed(cls, segment: str, code: int, line: str,
               level: exitcodes.Level) -> RunReport:
        """A report of a run that did not start: one line."""
        rep = cls(segment, code)
        rep.note(line, level)
        return rep

    def as_dict(self) -> dict[str, Any]:
        """For ``--json``."""
        return {"segment": self.segment, "status": exitcodes.JSON_STATUS.get(self.code, "?"),
                "exit_code": self.code, "month": self.month, "deadline": self.deadline,
                "fetched": self.fetched, "ran": self.ran, "sent": self.sent,
                "owed": dict(self.owed), "alerts": list(self.alerts),
                "blockers": self.blockers, "messages": self.lines}


def _fetch(camp: Campaign, segment: str, config, rep: RunReport) -> bool:
    """Step 1; False when fetching failed (then the month must not run: its
    sheets may still be in the mailbox)."""
    from wdg.mail.fetch import fetch  # lazy: numpy; this module imports without it

    got = fetch(camp, segment, config=config, holding_lock=True)
    rep.fetched = got.as_dict()
    table = got.table()
    rep.note(f"Abgeholt: {got.new} neue Mails" + (f"\n{table}" if table else ""))
    if got.new or got.sent:
        rep.code = _worse(rep.code, exitcodes.OK)
    if got.uncertain:
        rep.note(f"Warnung: ungewisse Antworten: {', '.join(got.uncertain)}",
                 exitcodes.Level.WARNING)
    if got.failed:
        rep.owed.update(got.failed)
        why = str(got.send_error) if got.send_error is not None else \
            next(iter(got.failed.values()))
        rep.note(f"Fehler: {len(got.failed)} Antwort(en) an Spieler nicht gesendet ({why}); "
                 "sie bleiben fällig, der nächste Aufruf sendet sie", exitcodes.Level.ERROR)
    return True


def _send(camp: Campaign, segment: str, month, rep: RunReport) -> int:
    from wdg.mail.results import send_month, send_summary  # lazy: numpy, as _fetch

    seg_dir = camp.segment_dir(segment)
    try:
        got = send_month(camp, segment, month, holding_lock=True)
    except SmtpError as exc:
        alerts.sending(seg_dir, sent=0, failed={}, error=exc)
        rep.owed[f"bericht/{month.key}/*"] = str(exc)
        rep.note(f"Fehler: Ergebnismails von {month.key} nicht gesendet ({exc}); sie bleiben "
                 "fällig, der nächste Aufruf sendet sie", exitcodes.Level.ERROR)
        return exitcodes.UNSENT
    code, lines = send_summary(got)
    r = got.result
    alerts.sending(seg_dir, sent=len(r.sent) + len(r.corrected), failed=r.failed)
    rep.owed.update(r.failed)
    rep.sent.append(got.as_dict())
    if code == exitcodes.NOTHING:
        lines = lines[:-1]  # "nichts versandt: …", which send_summary adds last for NOTHING
    for line, problem in lines:
        rep.note(line, exitcodes.Level.WARNING if problem else exitcodes.Level.INFO)
    return code


def _check_smtp_password(config, seg_dir, rep: RunReport) -> bool:
    """A configured SMTP password that is not there is an error at once (not only
    when a mail is due): returns False (and says so) when it is missing."""

    if config.smtp is None or not config.smtp.user:
        return True
    try:
        config.smtp.password()
    except StateError as exc:
        alerts.raise_alert(seg_dir, "smtp-anmeldung", str(exc))
        rep.note(f"Fehler: {exc}", exitcodes.Level.ERROR)
        return False
    return True


def run_unattended(camp: Campaign, segment: str, *, force: bool = False,
                   next_deadline: str | None = None, pdf: bool = True,
                   fetch: bool = True) -> RunReport:
    """One step (see the module). Raises :class:`wdg.errors.LockedError` when
    another command holds the lock; other errors propagate (the caller maps
    them to ``failed``)."""
    from wdg.store.lock import segment_lock  # lazy: numpy, as _fetch

    rep = RunReport(segment)
    seg_dir = camp.segment_dir(segment)
    with segment_lock(seg_dir):
        config = load_mail_config(seg_dir)
        if config is None:
            raise StateError(f"{seg_dir / 'mail.yaml'} fehlt: ohne Mailserver gibt es nichts "
                             "abzuholen und nichts zu senden (docs/gamemaster.md)")
        password_ok = _check_smtp_password(config, seg_dir, rep)
        try:
            _steps(camp, segment, config, rep, force=force, next_deadline=next_deadline,
                   pdf=pdf, fetch=fetch)
        except Exception:
            # a failure (the IMAP login refused ...): its alert goes out if SMTP works
            if not rep.owed and password_ok:
                alerts.deliver(seg_dir, config, holding_lock=True)
            raise
        if rep.owed:
            rep.code = _worse(rep.code, exitcodes.UNSENT)
        elif not password_ok:
            rep.code = _worse(rep.code, exitcodes.FAILED)
        else:
            rep.alerts = alerts.deliver(seg_dir, config, holding_lock=True)
    return rep


def _steps(camp: Campaign, segment: str, config, rep: RunReport, *, force: bool,
           next_deadline: str | None, pdf: bool, fetch: bool) -> None:
    # lazy: numpy, as _fetch
    from wdg.engine import history
    from wdg.store.months import month_dir
    from wdg.store.segment import load_segment
    from wdg.world.deadline import deadline_for, deadline_json, stored_problem, when

    seg_dir = camp.segment_dir(segment)
    if fetch and config.imap is not None:
        _fetch(camp, segment, config, rep)
    seg = load_segment(seg_dir)
    last = seg.date.previous()
    if config.smtp is not None and (month_dir(camp, segment, last) / "state-before").is_dir():
        code = _send(camp, segment, last, rep)
        rep.code = _worse(rep.code, code)
    rep.month = seg.date.key
    d = deadline_for(seg, seg.date)
    rep.deadline = deadline_json(seg, d, stored_problem(seg))
    now = datetime.now(d.tzinfo) if d is not None else None
    if not force:
        if d is None:
            rep.note(f"{seg.date.short()}: kein Eintreffschluß gesetzt ('wdg turn deadline "
                     f"{segment} TT.MM.JJJJ HH:MM'); der Mond wird nicht ausgewertet")
            rep.code = _worse(rep.code, exitcodes.NOTHING)
            return
        assert now is not None  # taken with d's time zone above
        if now < d:
            left = d - now
            hours, rest = divmod(int(left.total_seconds()), 3600)
            rep.note(f"{seg.date.short()}: wartet auf den Eintreffschluß {when(d)} "
                     f"({seg.settings.timezone}), noch {hours} Std. {rest // 60} Min.; "
                     "nicht ausgewertet (--force wertet trotzdem aus)")
            # the month's state decides (mail fetched meanwhile shows in --json)
            if rep.code not in (exitcodes.FAILED, exitcodes.REFUSED, exitcodes.UNSENT):
                rep.code = exitcodes.WAITING
            return
    st = history.month_status(camp, segment)
    rep.blockers = history.blockers(st)
    if rep.blockers and not force:
        for b in rep.blockers:
            rep.note(f"verweigert: {b}", exitcodes.Level.REFUSED)
        rep.code = _worse(rep.code, exitcodes.REFUSED)
        return
    _run_month(camp, segment, rep, force=force, next_deadline=next_deadline, pdf=pdf)
    rep.code = _worse(rep.code, exitcodes.OK)
    if config.smtp is not None:
        rep.code = _worse(rep.code, _send(camp, segment, seg.date, rep))


_ORDER = (exitcodes.FAILED, exitcodes.UNSENT, exitcodes.REFUSED, exitcodes.OK,
          exitcodes.WAITING, exitcodes.NOTHING)


def _worse(a: int, b: int) -> int:
    """The code that matters more of two (failed > unsent > refused > done > waiting >
    nothing)."""
    return min(a, b, key=lambda c: _ORDER.index(c) if c in _ORDER else 0)


def _run_month(camp: Campaign, segment: str, rep: RunReport, *, force: bool,
               next_deadline: str | None, pdf: bool) -> None:
    """The month, as ``wdg turn run`` does it, under the lock the caller holds. The
    bots' lines go into the report (``--json`` prints one JSON document only)."""
    # lazy: the engine's month run, the bots and the reports (jinja2) only when a month runs
    from wdg.bots.prepare import npc_sheet_lines
    from wdg.engine import turn
    from wdg.reports.archived import archive_writers
    from wdg.store.delivery import deliver
    from wdg.reports.batch import default_jobs

    outputs = archive_writers(camp.templates_dir, camp.rules_dir, pdf=pdf, jobs=default_jobs(),
                              progress=False, archive_dir=camp.archive_dir(segment))
    result = turn.run_month(camp, segment, force=force, outputs=outputs,
                            next_deadline=next_deadline,
                            prepare=lambda seg: rep.lines.extend(npc_sheet_lines(camp, seg)),
                            holding_lock=True, deliver=True)
    files = deliver(camp, segment, result.date)
    rep.ran = result.date.key
    rep.note(f"{result.date.short()} ({result.date.key}) ausgewertet: Spielzüge "
             f"{', '.join(sorted(result.inputs)) or 'keine'}; {len(files)} Berichte")
    if result.next_deadline:
        kept = " (vom zurückgenommenen Lauf übernommen)" if result.kept_deadline else ""
        rep.note(f"Eintreffschluß für {result.date.next().short()}: {result.next_deadline} "
                 f"({result.state.settings.timezone}){kept}")
