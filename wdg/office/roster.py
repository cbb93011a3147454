"""Players across segments: ``wdg world players`` and ``wdg world disqualify``.

One person — known by the e-mail address of their kingdoms' player records —
may rule kingdoms in several segments ("Der Austausch von Informationen
zwischen Mitspielern verschiedener Spielsegmente gilt natürlich nicht als
illegaler Kontakt"). An illegal contact is punished "sofort und für alle
WdG-Segmente": :func:`disqualify` writes ``DISQUALIFIZIEREN <Königreich>
<Grund>`` into the game master's sheet (``orders/<segment>/<YYYY-MM>/sl.txt``)
of every segment where the person plays, under that segment's lock. The
month's run applies it first thing (:func:`wdg.engine.gamemaster.disqualify`):
recorded in the archive with the sheet and a ``gm.disqualified`` event, undone
with the month by ``wdg turn undo``. The person is told once, by one mail
through the send record of their first segment (exactly once, as every mail
of wdg: :func:`wdg.mail.send.send_mails`); without an SMTP server the mail is
written as a file for the game master to send.
"""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass, field
from typing import Any

from wdg.campaign import Campaign
from wdg.errors import InvalidInputError, StateError, WdgError
from wdg.fsio import describe_os_error, fsync_dir, write_durable
from wdg.mail.config import load_mail_config
from wdg.mail.results import segment_now, sender_domain
from wdg.mail.send import Outgoing, digest, send_mails
from wdg.office import segment_names
from wdg.orders import gmsheet as g
from wdg.store.lock import segment_lock
from wdg.store.segment import load_segment
from wdg.store.sent import Ledger
from wdg.textpolicy import clean_text

REASON_LIMIT = 500
"""Characters of a disqualification's reason (it goes into a sheet line and a mail)."""


@dataclass(slots=True)
class Person:
    """One e-mail address and its kingdoms in the segments."""

    email: str
    names: list[str] = field(default_factory=list)
    """The player names recorded with the kingdoms (distinct)."""
    kingdoms: list[dict[str, Any]] = field(default_factory=list)
    """``{"segment", "kingdom", "name", "month"}`` per kingdom."""

    @property
    def segments(self) -> list[str]:
        return sorted({k["segment"] for k in self.kingdoms})

    def as_dict(self) -> dict[str, Any]:
        return {"email": self.email, "names": list(self.names), "segments": self.segments,
                "kingdoms": list(self.kingdoms)}


def players(camp: Campaign) -> tuple[dict[str, Person], dict[str, str]]:
    """Every person (by lower-cased e-mail) with a playing kingdom, and the
    segments that could not be read (name -> reason)."""

    people: dict[str, Person] = {}
    problems: dict[str, str] = {}
    for name in segment_names(camp):
        try:
            seg = load_segment(camp.segment_dir(name))
        except WdgError as exc:
            problems[name] = str(exc)
            continue
        except OSError as exc:
            problems[name] = describe_os_error(exc)
            continue
        for n, k in sorted(seg.kingdoms.items()):
            if k.player is None or k.city_state or k.retired or not k.player.email:
                continue
            key = k.player.email.strip().lower()
            p = people.setdefault(key, Person(key))
            if k.player.name and k.player.name not in p.names:
                p.names.append(k.player.name)
            p.kingdoms.append({"segment": name, "kingdom": n, "name": k.name,
                               "month": seg.date.key})
    return dict(sorted(people.items())), problems


@dataclass(slots=True)
class Disqualification:
    """What :func:`disqualify` did."""

    email: str
    reason: str
    written: list[dict[str, Any]] = field(default_factory=list)
    """``{"segment", "kingdom", "name", "month", "sheet"}`` per line written."""
    already: list[dict[str, Any]] = field(default_factory=list)
    """Kingdoms whose sheet of the month had the line already."""
    failed: dict[str, str] = field(default_factory=dict)
    """Segment -> why its line could not be written."""
    told: str = ""
    """``sent``, ``already`` (told before), ``file`` (no SMTP: written for the
    game master), ``uncertain``, ``failed`` or ``dry-run``."""
    told_detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"email": self.email, "reason": self.reason, "written": self.written,
                "already": self.already, "failed": self.failed, "told": self.told,
                "told_detail": self.told_detail}


def clean_reason(reason: str) -> str:
    """The reason as one line of text (the text policy applied, bounded)."""

    text = " ".join(clean_text(reason or "").split())
    if not text:
        raise InvalidInputError("--reason: ein Grund muß angegeben werden (er steht im Bogen "
                                "des Segmentleiters, im Archiv und in der Mail an die Person)")
    if len(text) > REASON_LIMIT:
        raise InvalidInputError(f"--reason: höchstens {REASON_LIMIT} Zeichen, gefunden "
                                f"{len(text)}")
    return text


def _write_line(camp: Campaign, segment: str, kingdom: int, email: str, reason: str,
                out: Disqualification, dry_run: bool) -> None:
    """Add ``DISQUALIFIZIEREN`` for ``kingdom`` to the segment's sheet of the
    current month, under the segment's lock (checked as the run will check it)."""

    seg_dir = camp.segment_dir(segment)
    with segment_lock(seg_dir):
        seg = load_segment(seg_dir)
        k = seg.kingdoms.get(kingdom)
        if k is None or k.player is None or k.city_state or k.retired or \
                k.player.email.strip().lower() != email:
            raise StateError(f"Königreich {kingdom} gehört nicht mehr {email} (geändert, während "
                             "der Befehl lief)")
        folder = camp.orders_dir(segment, seg.date)
        path = folder / "sl.txt"
        old = path.read_bytes() if path.is_file() else b""
        row = {"segment": segment, "kingdom": kingdom, "name": k.name, "month": seg.date.key,
               "sheet": path.relative_to(camp.root).as_posix()}
        if any(isinstance(c, g.Disqualify) and c.kingdom == kingdom
               for c in g.parse_gm_sheet(old).commands):
            out.already.append(row)
            return
        text = old.decode("utf-8", errors="replace") if old else "SEGMENTLEITER\n"
        if text and not text.endswith("\n"):
            text += "\n"
        text += f"DISQUALIFIZIEREN {kingdom} {shlex.quote(reason)}\n"
        sheet = g.parse_gm_sheet(text)
        mine = [d for d in sheet.errors + g.check_gm_sheet(sheet, seg)
                if d.line == len(text.rstrip("\n").split("\n"))]
        if mine:  # pragma: no cover - the kingdom was checked above
            raise StateError(f"{path}: {mine[0].message}")
        if dry_run:
            out.written.append(row)
            return
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".sl.txt.{kingdom}.tmp"
        write_durable(tmp, text.encode("utf-8"))
        tmp.replace(path)
        fsync_dir(folder)
        out.written.append(row)


def _mail_text(person: Person, reason: str, rows: list[dict[str, Any]]) -> str:
    lines = ["Sehr geehrte Mitspielerin, sehr geehrter Mitspieler,", "",
             "die Spielleitung hat Sie nach der Spielregel von Welt der Götter für alle "
             "Segmente disqualifiziert (\"werden alle daran Beteiligten vom Segmentleiter "
             "sofort und für alle WdG-Segmente disqualifiziert\").", "",
             f"Grund: {reason}", "", "Ihre Königreiche scheiden mit der Auswertung dieses "
             "Mondes aus:"]
    for r in rows:
        lines.append(f"- {r['name']} (Königreich {r['kingdom']}, Segment {r['segment']}, "
                     f"Mond {r['month']})")
    lines += ["", "Spielzüge dieser Königreiche werden nicht mehr ausgeführt.", "",
              "Die Spielleitung"]
    return "\n".join(lines) + "\n"


def _tell(camp: Campaign, person: Person, reason: str, rows: list[dict[str, Any]],
          out: Disqualification) -> None:
    """One mail to the person (see the module)."""
    from email.message import EmailMessage
    from email.policy import SMTP
    from email.utils import format_datetime, make_msgid


    first = person.segments[0]
    seg_dir = camp.segment_dir(first)
    body = _mail_text(person, reason, rows)
    ident = hashlib.sha256(person.email.encode("utf-8")).hexdigest()[:16]
    key = f"world.disqualify.{ident}"
    config = load_mail_config(camp.root)
    if config is None or config.smtp is None:
        for name in person.segments:
            c = load_mail_config(camp.segment_dir(name))
            if c is not None and c.smtp is not None:
                config = c
                break
    sender = config.sender if config is not None else "Spielleitung <spielleitung@wdg.invalid>"
    seg = load_segment(seg_dir)

    def build(correction: bool) -> EmailMessage:
        msg = EmailMessage(policy=SMTP)
        msg["From"] = sender
        msg["To"] = person.email
        msg["Subject"] = "WdG: Disqualifikation für alle Segmente"
        msg["Date"] = format_datetime(segment_now(seg))
        msg["Message-ID"] = make_msgid(f"wdg.world.{ident}", domain=sender_domain(sender))
        msg["Auto-Submitted"] = "auto-generated"
        msg.set_content(body, charset="utf-8")
        return msg

    if config is None or config.smtp is None:
        folder = camp.root / "reports" / "world"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"disqualifikation-{ident}.eml"
        if path.is_file():
            out.told, out.told_detail = "already", str(path)
            return
        path.write_bytes(bytes(build(False)))
        out.told = "file"
        out.told_detail = (f"kein SMTP-Server eingerichtet (mail.yaml der Kampagne oder eines "
                           f"Segments): die Mail liegt in {path} und muß von Hand versandt werden")
        return
    with segment_lock(seg_dir):
        ledger = Ledger(seg_dir)
        mail = Outgoing(key, person.email, build,
                        digest(person.email.encode(), reason.encode()),
                        {"kind": "world.disqualify"})
        got = send_mails(ledger, config, [mail])
    if got.sent:
        out.told, out.told_detail = "sent", f"Mail an {person.email} versandt"
    elif got.already or got.changed:
        out.told, out.told_detail = "already", "die Person wurde schon benachrichtigt"
    elif got.uncertain:
        out.told, out.told_detail = "uncertain", ("ungewiß, ob die Mail ankam (Versandbuch von "
                                                  f"{first}: 'wdg mail sent {first}')")
    else:
        reason_ = "; ".join(f"{v}" for v in {**got.refused, **got.failed}.values())
        out.told, out.told_detail = "failed", f"Mail nicht versandt: {reason_}"


def disqualify(camp: Campaign, email: str, reason: str, *, dry_run: bool = False,
               tell: bool = True) -> Disqualification:
    """Disqualify the person with ``email`` in every segment (see the module)."""

    email = email.strip().lower()
    reason = clean_reason(reason)
    people, _ = players(camp)
    person = people.get(email)
    if person is None:
        raise StateError(f"{email}: kein spielendes Königreich mit dieser Adresse in "
                         f"{camp.worlds} ('wdg world players' zeigt alle Personen)")
    out = Disqualification(email, reason)
    for row in person.kingdoms:
        try:
            _write_line(camp, row["segment"], row["kingdom"], email, reason, out, dry_run)
        except WdgError as exc:
            out.failed[row["segment"]] = str(exc)
        except OSError as exc:
            out.failed[row["segment"]] = describe_os_error(exc)
    if dry_run:
        out.told = "dry-run"
    elif tell and (out.written or out.already):
        _tell(camp, person, reason, out.written + out.already, out)
    return out
