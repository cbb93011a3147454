"""``wdg mail status SEG``: the state of a segment's mail service at a glance.

:func:`mail_status` reads, without the segment's lock and without talking to a
server: the last successful fetch and send and the alerts (:mod:`wdg.mail.alerts`),
the mails owed (answers of this month's recorded mails and result mails of the
last month run that the send record has not seen go out, mails whose last try
failed, uncertain ones, alert mails not sent yet), the folders a fetch reads and
where it files, and the last failures.
"""

from __future__ import annotations

from typing import Any

from wdg.campaign import Campaign
from wdg.mail import alerts
from wdg.mail.config import load_mail_config
from wdg.mail.send import plan
from wdg.store.sent import Ledger, OPEN


def mail_status(camp: Campaign, segment: str) -> dict[str, Any]:
    """The status document (``--json``; :func:`status_lines` prints it in German)."""

    seg_dir = camp.segment_dir(segment)
    config = load_mail_config(seg_dir)
    summary = alerts.summary(seg_dir)
    out: dict[str, Any] = {"segment": segment, "last_fetch": summary["last_ok"].get("fetch"),
                           "last_send": summary["last_ok"].get("send"),
                           "alerts": summary["active"], "owed_alerts": summary["owed_alerts"],
                           "failures": summary["history"]}
    if config is not None and config.imap is not None:
        out["folders"] = {"read": list(config.imap.read_folders),
                          "done": config.imap.done_folder,
                          "poll_seconds": config.imap.poll_seconds}
    else:
        out["folders"] = None
    owed: list[dict[str, str]] = []
    problems: list[str] = []
    ledger = Ledger(seg_dir)
    for recs in ledger.records.values():
        r = recs[-1]
        if r.state == "failed":
            owed.append({"key": r.key, "to": r.to, "state": "nicht versandt (wird wiederholt)",
                         "why": r.answer})
        elif r.state == OPEN:
            owed.append({"key": r.key, "to": r.to, "state": "ungewiss ('wdg mail sent')",
                         "why": r.answer})
    known = {o["key"] for o in owed}
    if config is not None:
        try:
            for m in _due(camp, segment, config, ledger):
                if m.key not in known:
                    owed.append({"key": m.key, "to": m.to, "state": "fällig", "why": ""})
        except Exception as exc:  # noqa: BLE001 - a status shows what it can
            problems.append(f"fällige Mails nicht ermittelt: {exc}")
    out["owed"] = owed
    out["problems"] = problems
    return out


def _due(camp: Campaign, segment: str, config: Any, ledger: Any) -> list[Any]:
    """Answers and last month's result mails that the send record would send now."""
    # lazy: numpy (the store, the fetch); wdg mail status imports without it
    from wdg.store.months import month_dir
    from wdg.mail.fetch import answer_mails
    from wdg.store.seen import SeenRecord
    from wdg.mail.results import result_mails
    from wdg.store.segment import load_segment

    seg_dir = camp.segment_dir(segment)
    seg = load_segment(seg_dir)
    mails = list(answer_mails(camp, config, SeenRecord(seg_dir), seg.date.key))
    last = seg.date.previous()
    if (month_dir(camp, segment, last) / "state-before").is_dir():
        mails += result_mails(camp, seg, last, config.sender, ledger, None).mails
    return [m for m in mails if plan(ledger, m, False) in ("send", "correct")]


def status_lines(doc: dict[str, Any]) -> list[str]:
    """The status in German, one line each."""
    seg = doc["segment"]
    lines = [f"Mail-Status von Segment {seg}",
             f"Letzter erfolgreicher Abruf: {_when(doc['last_fetch'])}",
             f"Letzter erfolgreicher Versand: {_when(doc['last_send'])}"]
    f = doc.get("folders")
    if f:
        lines.append(f"Gelesene Ordner: {', '.join(f['read'])}; Erledigtes nach "
                     f"{f['done']}; ohne IDLE alle {f['poll_seconds']:g} s")
    else:
        lines.append("Gelesene Ordner: keine (kein Abschnitt imap: in mail.yaml)")
    if doc["alerts"]:
        for a in doc["alerts"]:
            lines.append(f"STÖRUNG seit {_when(a['since'])} ({a['count']} Mal): {a['title']} — "
                         f"{a['text']}")
    else:
        lines.append("Keine Störung")
    owed = doc["owed"]
    lines.append(f"Fällige Mails: {len(owed)}")
    lines += [f"  {o['key']} an {o['to']}: {o['state']}" + (f" ({o['why']})" if o["why"] else "")
              for o in owed]
    for m in doc["owed_alerts"]:
        lines.append(f"  Alarm an den Spielleiter, noch nicht gesendet: {m['subject']}")
    if doc["failures"]:
        lines.append("Letzte Störungen:")
        lines += [f"  {_when(h.get('at'))} {h.get('kind')}: {h.get('event')} — {h.get('text')}"
                  for h in doc["failures"]]
    lines += [f"Warnung: {p}" for p in doc["problems"]]
    return lines


def _when(stamp: str | None) -> str:
    from datetime import datetime

    if not stamp:
        return "noch nie"
    try:
        return datetime.fromisoformat(stamp).strftime("%d.%m.%Y %H:%M:%S %z")
    except ValueError:
        return stamp
