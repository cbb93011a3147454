"""The players' result mails of a month, built from the archive and sent
exactly once (``wdg reports send``, ``wdg mail run``).

Every mail is built from the archived month (``worlds/<segment>/turns/<M>/``,
never from ``reports/``, which can be rebuilt at any time) when it is sent:

- ``Date:`` the real sending time in the segment's time zone; the game month
  stands in the subject;
- ``Message-ID:`` new for every mail, in the sender's domain;
- body: a short German cover letter naming the attachments, then the text
  sheet; attachments: the sheet as PDF (when the month was run with PDFs), the
  HTML sheet with the order editor, the pre-filled order form for the next
  month, the kingdom view, and the Götterbotschaft;
- a *correction* (the month was undone and run again, and this kingdom's sheet
  differs from the one it got) says so: ``Berichtigung:`` in the subject, a
  paragraph at the top of the body, and ``References:`` to the mail it replaces.

Who gets a mail: every kingdom with a result sheet in the archived month. The
address is the player's as the segment has it now; a kingdom that left the
game since (retired, a city state) still gets its last sheet at the address
the archived month names; a kingdom now played by a bot gets no mail (its
former player is no longer in the game). Nothing depends on kingdoms added
later. The send record is :mod:`wdg.store.sent` (key
``bericht/<YYYY-MM>/k<n>``); a record of the old ``reports/.../outbox/sent.yaml``
is taken over (those mails count as sent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid, parseaddr
from pathlib import Path

from wdg import exitcodes
from wdg.campaign import Campaign
from wdg.digest import month_digest
from wdg.errors import StateError
from wdg.mail.config import load_mail_config
from wdg.mail.guard import header_address
from wdg.mail.send import Outgoing, SendResult, digest, send_mails
from wdg.rules import safe_load_file
from wdg.store.delivery import archived_bytes, archived_names, archived_reports
from wdg.store.lock import segment_lock
from wdg.store.months import month_dir
from wdg.store.segment import load_segment
from wdg.store.sent import Ledger
from wdg.textpolicy import header_name
from wdg.world.calendar import MonthDate
from wdg.world.deadline import zone_or_utc
from wdg.world.state import Segment

OLD_OUTBOX = "outbox"
OLD_SENT = "sent.yaml"


def result_key(month: MonthDate, kingdom: int) -> str:
    """The send record's key of a kingdom's result mail."""
    return f"bericht/{month.key}/k{kingdom}"


@dataclass(slots=True)
class Recipients:
    """Who gets a result mail of a month, and who not (kingdom -> why)."""

    mails: list[Outgoing] = field(default_factory=list)
    skipped: dict[int, str] = field(default_factory=dict)


def sender_domain(sender: str) -> str:
    """The domain of the sender's address (for Message-IDs), ``wdg.invalid`` without one."""
    addr = parseaddr(sender)[1]
    return addr.rpartition("@")[2] or "wdg.invalid"


def segment_now(seg: Segment) -> datetime:
    """Now in the segment's zone, to the second (a mail's Date)."""

    return datetime.now(zone_or_utc(seg.settings.timezone)).replace(microsecond=0)


def _archived(camp: Campaign, segment: str, month: MonthDate) -> tuple[Path, list[int]]:
    """The archived month's reports folder and the kingdoms with a sheet there."""

    mdir = month_dir(camp, segment, month)
    src = archived_reports(mdir)
    if not src.is_dir():
        raise StateError(f"Segment {segment!r}: der Mond {month.key} ist nicht ausgewertet "
                         f"oder hat keine archivierten Berichte ({src}); nichts zu senden"
                         + (" — wurde er mit 'wdg turn undo' zurückgenommen? Dann zuerst "
                            "'wdg turn run'" if not mdir.is_dir() else ""))
    kingdoms = sorted(int(rel.parts[0][1:]) for rel in archived_names(src)
                      if len(rel.parts) == 2 and rel.name == "ergebnis.txt"
                      and re.fullmatch(r"k\d+", rel.parts[0]))
    return src, kingdoms


def _month_states(camp: Campaign, segment: str, month: MonthDate) -> list[Segment]:
    """The archived states of the month (after, before), those that exist."""

    mdir = month_dir(camp, segment, month)
    return [load_segment(mdir / d) for d in ("state", "state-before") if (mdir / d).is_dir()]


def result_mails(camp: Campaign, seg: Segment, month: MonthDate, sender: str,
                 ledger: Ledger, kingdoms: list[int] | None = None) -> Recipients:
    """The result mails of ``month`` (all kingdoms, or those in ``kingdoms``)."""


    src, have = _archived(camp, seg.name, month)
    out = Recipients()
    try:  # the month's digest, printed in every result mail (issue #40 item 7)
        proof = month_digest(month_dir(camp, seg.name, month), seg.name)
    except (OSError, ValueError, EOFError) as e:
        raise StateError(f"{month_dir(camp, seg.name, month)}: die Prüfsumme des Monats läßt "
                         f"sich nicht berechnen ({type(e).__name__}: {e}); erst "
                         f"'wdg turn list {seg.name} --verify'") from None
    states: list[Segment] | None = None
    for k in have:
        if kingdoms is not None and k not in kingdoms:
            continue
        cur = seg.kingdoms.get(k)
        if cur is not None and cur.bot:
            out.skipped[k] = (f"wird vom Bot {cur.bot} gespielt; der frühere Spieler bekommt "
                              "keine Mail mehr")
            continue
        player = cur.player if cur is not None and not cur.retired and not cur.city_state \
            else None
        if player is None:
            if states is None:
                states = _month_states(camp, seg.name, month)
            player = next((s.kingdoms[k].player for s in states
                           if k in s.kingdoms and s.kingdoms[k].player is not None
                           and not s.kingdoms[k].bot), None)
        if player is None or not player.email or player.email.endswith(".invalid"):
            out.skipped[k] = "hat keinen Spieler mit Mailadresse"
            continue
        files = {name: archived_bytes(src, f"k{k}/{name}") for name in
                 ("ergebnis.txt", "ergebnis.html", "ergebnis.pdf", "spielzug.txt",
                  "ansicht.yaml")}
        gazette = {name: archived_bytes(src, name) for name in
                   ("goetterbotschaft.pdf", "goetterbotschaft.txt")}
        if files["ergebnis.txt"] is None:
            out.skipped[k] = "hat im Archiv kein Ergebnisblatt"
            continue
        to = header_address(player.name, player.email)
        key = result_key(month, k)
        # What makes the mail what it is: the kingdom's own files (not the Date,
        # not the Götterbotschaft, which every kingdom shares).
        sha = digest(*(files[n] or b"" for n in sorted(files)))
        name = cur.name if cur is not None else f"Königreich {k}"
        out.mails.append(Outgoing(
            key, player.email,
            _builder(seg, month, k, name, to, sender, files, gazette, ledger, key, proof),
            sha, {"month": month.key, "kingdom": k}))
    return out


def _builder(seg: Segment, month: MonthDate, k: int, name: str, to: str, sender: str,
             files: dict[str, bytes | None], gazette: dict[str, bytes | None], ledger: Ledger,
             key: str, proof: str | None = None):
    def build(correction: bool) -> EmailMessage:
        return build_result_mail(seg, month, k, name, to, sender, files, gazette,
                                 replaces=_replaced(ledger, key) if correction else None,
                                 month_digest=proof)
    return build


def _replaced(ledger: Ledger, key: str) -> tuple[str, str] | None:
    """(Message-ID, when) of the last accepted mail of ``key``."""
    sent = [r for r in ledger.records.get(key, ()) if r.state == "sent"]
    return (sent[-1].message_id, sent[-1].done) if sent else None


def _when_text(iso: str, seg: Segment) -> str:
    try:
        d = datetime.fromisoformat(iso).astimezone(segment_now(seg).tzinfo)
    except ValueError:
        return iso
    return f"{d:%d.%m.%Y %H:%M} Uhr ({seg.settings.timezone})"


def build_result_mail(seg: Segment, month: MonthDate, k: int, name: str, to: str, sender: str,
                      files: dict[str, bytes | None], gazette: dict[str, bytes | None], *,
                      replaces: tuple[str, str] | None = None,
                      month_digest: str | None = None) -> EmailMessage:
    """One kingdom's result mail (see the module); ``month_digest``: the month's
    digest (:mod:`wdg.digest`), named in the cover text."""
    title = header_name(seg.title or seg.name) or seg.name
    name = header_name(name) or f"Königreich {k}"  # a name reaches the Subject: cleaned
    nxt = month.next()
    names = {"ergebnis.pdf": f"ergebnis-k{k}-{month.key}.pdf",
             "ergebnis.html": f"ergebnis-k{k}-{month.key}.html",
             "spielzug.txt": f"spielzug-k{k}-{nxt.key}.txt",
             "ansicht.yaml": f"ansicht-k{k}-{month.key}.yaml"}
    what = {"ergebnis.pdf": "das Ergebnisblatt mit der Erkundungskarte als PDF",
            "ergebnis.html": "das Ergebnisblatt mit Karte und Zugeditor als HTML (im Browser "
                             "öffnen; der Editor prüft den Spielzug schon beim Schreiben)",
            "spielzug.txt": f"der vorbereitete Spielzug für {nxt.long()} zum Ausfüllen",
            "ansicht.yaml": "die Ansicht des Königreichs für eigene Werkzeuge"}
    listed = [f"- {names[n]}: {what[n]}" for n in names if files.get(n) is not None]
    gname = "goetterbotschaft.pdf" if gazette.get("goetterbotschaft.pdf") is not None \
        else "goetterbotschaft.txt"
    if gazette.get(gname) is not None:
        listed.append(f"- goetterbotschaft-{month.key}{Path(gname).suffix}: die Götterbotschaft")
    if files.get("ergebnis.pdf") is None:
        listed.append("(Dieser Mond wurde ohne PDF ausgewertet: Karte und Blatt stehen im "
                      "HTML-Blatt.)")
    head = []
    subject = f"WdG {title}: Ergebnis {name} (Königreich {k}), {month.short()}"
    if replaces is not None:
        subject = "Berichtigung: " + subject
        head = ["BERICHTIGUNG", "",
                f"Der Mond {month.long()} wurde von der Spielleitung neu ausgewertet. Dieses "
                f"Ergebnis ersetzt das vom {_when_text(replaces[1], seg)}; bitte nur noch "
                "dieses verwenden (und den Spielzug nach diesem Blatt schreiben).", ""]
    proof = [] if not month_digest else [
        "", "Prüfsumme dieses Monats (bitte aufbewahren; die Spielleitung kann mit",
        f"'wdg turn verify-digest {seg.name} {month.key} <Prüfsumme>' zeigen, daß das Archiv",
        "diesen Mond unverändert enthält):", month_digest]
    cover = head + [f"Ergebnis für {name} (Königreich {k}), {month.long()}.", "",
                    "Beigefügt:", *listed, *proof, "", "-" * 72, ""]
    msg = EmailMessage(policy=SMTP)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(segment_now(seg))
    msg["Message-ID"] = make_msgid(f"wdg.{seg.name}.{month.key}.k{k}", domain=sender_domain(sender))
    if replaces is not None and replaces[0]:
        msg["References"] = replaces[0]
    msg["Auto-Submitted"] = "auto-generated"
    body = "\n".join(cover) + (files["ergebnis.txt"] or b"").decode("utf-8")
    msg.set_content(body, charset="utf-8")
    for n in names:
        data = files.get(n)
        if data is None:
            continue
        if n.endswith(".txt"):
            msg.add_attachment(data.decode("utf-8"), subtype="plain", filename=names[n],
                               charset="utf-8")
        elif n.endswith(".html"):
            msg.add_attachment(data, maintype="text", subtype="html", filename=names[n])
        elif n.endswith(".pdf"):
            msg.add_attachment(data, maintype="application", subtype="pdf", filename=names[n])
        else:
            msg.add_attachment(data, maintype="application", subtype="yaml", filename=names[n])
    data = gazette.get(gname)
    if data is not None:
        fname = f"goetterbotschaft-{month.key}{Path(gname).suffix}"
        if gname.endswith(".pdf"):
            msg.add_attachment(data, maintype="application", subtype="pdf", filename=fname)
        else:
            msg.add_attachment(data.decode("utf-8"), subtype="plain", filename=fname,
                               charset="utf-8")
    return msg


def adopt_old_record(camp: Campaign, segment: str, month: MonthDate, ledger: Ledger) -> int:
    """Take over ``reports/<segment>/<M>/outbox/sent.yaml`` of older wdg versions:
    every mail recorded there counts as sent. Returns how many were taken over."""
    old = camp.reports_dir(segment, month) / OLD_OUTBOX / OLD_SENT
    if not old.is_file():
        return 0
    data = safe_load_file(old) or {}
    got = 0
    for fname, rec in sorted((data.get("sent") or {}).items()) if isinstance(data, dict) else ():
        m = re.fullmatch(r"k(\d+)\.eml", str(fname))
        if not m:
            continue
        key = result_key(month, int(m.group(1)))
        if ledger.latest(key) is not None:
            continue
        rec = rec if isinstance(rec, dict) else {}
        ledger.intend(key, message_id=str(rec.get("message_id", "")), to=str(rec.get("to", "")),
                      sha256="", legacy=str(old))
        ledger.settle(key, "sent", "übernommen aus dem alten Versandbuch")
        got += 1
    return got


@dataclass(slots=True)
class MonthSend:
    """What :func:`send_month` did."""

    month: MonthDate
    result: SendResult = field(default_factory=SendResult)
    """What :func:`wdg.mail.send.send_mails` did."""
    skipped: dict[int, str] = field(default_factory=dict)
    uncertain: list[str] = field(default_factory=list)
    """Result mails of this month whose outcome is unknown (never resent on their own)."""
    adopted: int = 0
    total: int = 0

    def as_dict(self) -> dict:
        """For ``--json``."""
        r = self.result
        return {"month": self.month.key, "mails": self.total,
                "sent": list(r.sent), "corrected": list(r.corrected),
                "already": list(r.already), "changed": list(r.changed),
                "uncertain": list(r.uncertain), "refused": dict(r.refused),
                "failed": dict(r.failed),
                "skipped": {f"k{k}": why for k, why in sorted(self.skipped.items())}}


def send_month(camp: Campaign, segment: str, month: MonthDate | None = None, *,
               kingdoms: list[int] | None = None, corrections: bool = True,
               holding_lock: bool = False, progress=None) -> MonthSend:
    """Send the result mails of ``month`` (default: the last month run) that are
    due, under the segment's lock (unless the caller holds it): each exactly
    once; a kingdom whose sheet changed since it was mailed (undo + a new run)
    gets a correction (unless ``corrections`` is false: then it is listed)."""
    from contextlib import nullcontext


    seg_dir = camp.segment_dir(segment)
    with nullcontext() if holding_lock else segment_lock(seg_dir):
        seg = load_segment(seg_dir)
        date = month or seg.date.previous()
        config = load_mail_config(seg_dir)
        if config is None or config.smtp is None:
            raise StateError(f"kein SMTP-Server eingerichtet ({seg_dir / 'mail.yaml'}, "
                             "Abschnitt smtp:; docs/gamemaster.md); nichts versandt")
        ledger = Ledger(seg_dir)
        out = MonthSend(date)
        out.adopted = adopt_old_record(camp, segment, date, ledger)
        rec = result_mails(camp, seg, date, config.sender, ledger, kingdoms)
        out.skipped, out.total = rec.skipped, len(rec.mails)
        out.result = send_mails(ledger, config, rec.mails, corrections=corrections,
                                progress=progress)
        return out


def send_summary(got: MonthSend) -> tuple[int, list[tuple[str, bool]]]:
    """The exit code (:mod:`wdg.exitcodes`) and the German lines (text, to stderr?)
    for a month's send (``wdg reports send``, ``wdg mail run``). Mails that could not
    be sent (they stay due) make it :data:`~wdg.exitcodes.UNSENT`."""

    r = got.result
    m = got.month.key
    lines: list[tuple[str, bool]] = []
    if got.adopted:
        lines.append((f"{got.adopted} Mails aus dem alten Versandbuch (reports/.../outbox/"
                      "sent.yaml) übernommen: sie gelten als versandt", False))
    lines.append((f"{m}: {got.total} Ergebnismails; versandt {len(r.sent)}, berichtigt "
                  f"{len(r.corrected)}, schon früher versandt {len(r.already)}", False))
    for k, why in sorted(got.skipped.items()):
        lines.append((f"Königreich {k}: keine Mail — {why}", False))
    for key in r.changed:
        lines.append((f"Warnung: {key} hat sich seit dem Versand geändert (Mond neu "
                      "ausgewertet); nicht erneut versandt (--corrections sendet eine "
                      "Berichtigung)", True))
    for key in r.uncertain:
        lines.append((f"Warnung: {key}: ungewiss, ob der Server die Mail angenommen hat "
                      "(Absturz oder Verbindungsabbruch mitten im Versand); sie wird nicht "
                      "von selbst erneut gesendet. Beim Spieler nachfragen; erneut senden: "
                      f"'wdg mail sent SEGMENT --release {key}'", True))
    for key, answer in sorted(r.refused.items()):
        lines.append((f"Warnung: {key} vom Server abgelehnt ({answer}); die anderen wurden "
                      "versandt", True))
    for key, answer in sorted(r.failed.items()):
        lines.append((f"Warnung: {key} nicht versandt ({answer}); der nächste Aufruf "
                      "versucht es erneut", True))
    if r.failed:
        return exitcodes.UNSENT, lines
    if r.uncertain or r.refused:
        return exitcodes.REFUSED, lines
    if not (r.sent or r.corrected):
        why = ("alle schon früher versandt" if r.already and not r.changed else
               "keine Mail fällig")
        lines.append((f"nichts versandt: {why}", False))
        return exitcodes.NOTHING, lines
    return exitcodes.OK, lines
