"""Mail commands of the players, answered by ``wdg mail fetch`` (docs/players.md).

A player writes to the game master's address with one of these subjects (case
does not matter; ``Re:``/``AW:`` in front is ignored; the body may name the
kingdom with a line ``Königreich: <Nummer>``):

- ``Ergebnis erneut`` (also ``Ergebnis nochmal``, ``Auswertung erneut``): the last
  result mail of the kingdom again — the same mail the month's send built, from
  the archive;
- ``Formular`` (also ``Befehlsbogen``, ``Spielzugformular``): the pre-filled order
  form for the month now open;
- ``Passwort vergessen`` (also ``Passwort neu``): a request for a new password. It
  goes to the game master (the ``from`` address of ``mail.yaml``), who sets one
  with ``wdg kingdom set-password`` and tells the player by his own way; the player
  gets a note that the request was passed on. **No password is ever sent by
  mail.**

Who is answered: a command is honoured only for a kingdom whose player's address
(in the segment) is the sender's; the answer goes to that stored address, never
to another one — so a forged ``From:`` can make a player receive his own result
once more, and nothing else. A sender who plays no kingdom is not answered at all
(no backscatter to a forged address), nor is an automatic mail; the same command
for the same kingdom is answered at most once an hour, and a sender gets at most
a few answers an hour (:mod:`wdg.mail.guard`, ``limits:`` in mail.yaml). Each
answer is sent once (the send record), keyed by the command mail's id: the same
mail fetched twice is answered once; a new command mail is answered anew.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from email.message import EmailMessage
from email.utils import formatdate, parseaddr
from pathlib import Path
from typing import Any

from wdg.campaign import Campaign, segment_names
from wdg.errors import WdgError
from wdg.mail.config import MAIL_FILE, MailConfig
from wdg.mail.guard import header_address
from wdg.mail.results import result_mails
from wdg.orders.mailtext import message_id, part_texts, sender_address
from wdg.orders.template import render_template
from wdg.store.intake import write_new
from wdg.store.months import month_dir
from wdg.store.segment import load_segment
from wdg.store.sent import Ledger
from wdg.textpolicy import visible
from wdg.world.state import Segment, ruler_title

RESULT, FORM, PASSWORD = "ergebnis", "formular", "passwort"

SUBJECT_CAP = 200
"""Characters of a subject (blanks collapsed) that command matching looks at: the
longest command subject is some 40 characters; a 512 KB subject of blanks costs a
split and a cut, not a regular expression's backtracking (issue #39 item 5)."""

# Matched against the subject as :func:`normal_subject` leaves it: blanks collapsed
# to one, so every optional blank below is a single optional character and no two
# of them can compete for the same text (no nested or adjacent optional blanks).
_PREFIX = r"^(?:(?:re|aw|wg|fwd?) ?: ?)*"
_END = r" ?[.!]?$"
COMMANDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (RESULT, re.compile(_PREFIX + r"(?:ergebnis|auswertung)(?:blatt)? (?:erneut|nochmal|noch "
                        r"einmal|wieder)(?: senden)?" + _END, re.IGNORECASE)),
    (FORM, re.compile(_PREFIX + r"(?:formular|befehlsbogen|spielzugformular|zugformular)"
                      r"(?: senden| bitte)?" + _END, re.IGNORECASE)),
    (PASSWORD, re.compile(_PREFIX + r"passwort (?:vergessen|neu|zurücksetzen|zuruecksetzen)"
                          + _END, re.IGNORECASE)),
)

SUBJECTS = {
    RESULT: "Ergebnis erneut",
    FORM: "Formular",
    PASSWORD: "Passwort vergessen",
}
"""The documented subject of each command (docs/players.md)."""


def normal_subject(subject: str) -> str:
    """A subject as the matching sees it: the first :data:`SUBJECT_CAP` characters
    after every run of blanks (spaces, tabs, folded line ends) became one blank —
    linear in the subject's length."""
    return " ".join((subject or "").split())[:SUBJECT_CAP]


def command_of(subject: str) -> str | None:
    """The command a subject asks for, or ``None`` (linear in the subject)."""
    text = normal_subject(subject)
    if len(text) >= SUBJECT_CAP:
        return None  # no command subject is that long
    for name, pattern in COMMANDS:
        if pattern.match(text):
            return name
    return None


_KINGDOM = re.compile(r"(?im)^[ \t]*(?:königreich|koenigreich|reich)[ \t]*:[ \t]*(\d{1,4})\b")


def _kingdoms_of(seg: Segment, sender: str, raw: bytes) -> list[int]:
    """The sender's playing kingdoms (the one the body names, if it names one of them)."""

    mine = [n for n, k in sorted(seg.kingdoms.items())
            if k.player is not None and not k.retired and not k.bot
            and parseaddr(k.player.email)[1].lower() == sender.lower()]
    try:
        texts, _ = part_texts(email.message_from_bytes(raw, policy=email.policy.default))
    except Exception:  # noqa: BLE001 - the subject is the command; the body is optional
        texts = []
    for text in texts:
        m = _KINGDOM.search(text)
        if m and int(m.group(1)) in mine:
            return [int(m.group(1))]
    return mine


def _reply(config: MailConfig, to: str, subject: str, body: str, orig: EmailMessage,
           tag: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = config.sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    domain = parseaddr(config.sender)[1].rpartition("@")[2] or "localhost"
    msg["Message-ID"] = f"<wdg.befehl.{tag}@{domain}>"
    msg["Auto-Submitted"] = "auto-replied"  # RFC 3834
    mid = _message_id(orig)
    if mid:
        msg["In-Reply-To"] = mid
        msg["References"] = mid
    msg.set_content(visible(body))
    return msg


def _message_id(msg: EmailMessage) -> str:
    return message_id(msg) or ""


def answer_command(camp: Campaign, seg: Segment, config: MailConfig, command: str,
                   raw: bytes, *, guard: Any = None, key: str = "",
                   auto: str = "") -> dict[str, Any]:
    """Build the answers to a command mail into the outbox (``outbox/<segment>/
    <YYYY-MM>/befehl-<hash>-<i>.eml``); :mod:`wdg.mail.fetch` sends them through the
    send record. Returns what was done (for the report and the intake record).

    ``guard`` (:class:`wdg.mail.guard.Guard`) decides whether the command is
    answered at all (rate limits, automatic mail ``auto``; ``key``: the mail's key).
    A sender who plays no kingdom is never answered (no backscatter to a forged
    address)."""

    orig = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(orig, EmailMessage)
    sender = sender_address(orig) or ""
    tag = hashlib.sha256(raw).hexdigest()[:24]
    outbox = camp.root / "outbox" / seg.name / seg.date.key
    out: dict[str, Any] = {"sender": sender, "kingdom": None, "answers": [], "text": ""}
    if not sender:
        out["text"] = "Absender unbrauchbar; nicht beantwortet"
        return out
    kingdoms = _kingdoms_of(seg, sender, raw)
    # one mailbox for the world: the sender's kingdoms in the other segments it serves
    # (the guard counts them under their numbers when the sender plays none here)
    others = sender_elsewhere(camp, seg, config, sender, raw)
    groups = ([(seg, kingdoms)] if kingdoms else []) + others
    asked = kingdoms or [n for _, ks in others for n in ks]
    mails: list[EmailMessage] = []
    why = guard.command(key, command, sender, asked, auto) if guard is not None else (
        "" if groups else "Absender spielt kein Königreich in diesem Segment: nicht "
                          "beantwortet (keine Rückstreuung)")
    if why:
        out["text"] = why
        out["kingdom"] = kingdoms[0] if len(kingdoms) == 1 else None
    else:
        out["kingdom"] = kingdoms[0] if len(kingdoms) == 1 and len(groups) == 1 else None
        flat = [(there, n) for there, ks in groups for n in ks]
        for i, (there, n) in enumerate(flat):
            k = there.kingdoms[n]
            assert k.player is not None
            to = header_address(k.player.name, parseaddr(k.player.email)[1])
            hello = ruler_title(bool(k.herrscherin), "dear")
            if command == FORM:
                mails.append(_form_mail(config, there, n, to, hello, orig, f"{tag}.{i}"))
                out["text"] = f"Formular für {there.date.short()} gesendet"
            elif command == PASSWORD:
                mails += _password_mails(config, there, n, to, hello, orig, f"{tag}.{i}")
                out["text"] = "Passwortanfrage an den Segmentleiter weitergeleitet"
            else:
                got = _result_mail(camp, there, config, n, to, hello, orig, f"{tag}.{i}")
                mails.append(got[0])
                out["text"] = got[1]
    outbox.mkdir(parents=True, exist_ok=True)
    for j, msg in enumerate(mails):
        path = outbox / f"befehl-{tag}-{j}.eml"
        if not path.is_file():
            _write(path, bytes(msg))
        out["answers"].append(str(path.relative_to(camp.root)))
    return out


def _write(path: Path, data: bytes) -> None:
    """An answer into the outbox, whole, never through a link (wdg.store.intake.write_new)."""

    write_new(path, data)


def _form_mail(config: MailConfig, seg: Segment, n: int, to: str, hello: str,
               orig: EmailMessage, tag: str) -> EmailMessage:
    form = render_template(seg, n)
    msg = _reply(config, to, f"Formular Königreich {n}, {seg.date.short()}",
                 f"{hello},\n\nanbei das vorausgefüllte Spielzugformular Ihres Königreiches "
                 f"{seg.kingdoms[n].name} ({n}) für {seg.date.short()}. Füllen Sie es aus "
                 "und senden Sie es als reinen Text an diese Adresse zurück.\n\n"
                 "Der Segmentleiter\n", orig, tag)
    msg.add_attachment(form, subtype="plain", charset="utf-8", filename=f"spielzug-k{n}.txt")
    return msg


def _password_mails(config: MailConfig, seg: Segment, n: int, to: str, hello: str,
                    orig: EmailMessage, tag: str) -> list[EmailMessage]:
    k = seg.kingdoms[n]
    assert k.player is not None
    gm = config.sender
    note = _reply(config, gm, f"Passwortanfrage Königreich {n} ({seg.name})",
                  f"Der Spieler von Königreich {n} ({k.name}), {k.player.name} "
                  f"<{parseaddr(k.player.email)[1]}>, bittet um ein neues Passwort.\n\n"
                  f"Neues Passwort setzen: wdg kingdom set-password {seg.name} {n}\n"
                  "Es dem Spieler auf einem eigenen Weg mitteilen (nicht per unverschlüsselter "
                  "Mail im Klartext, wenn es sich vermeiden läßt).\n\n"
                  "Diese Anfrage kam von der beim Segmentleiter hinterlegten Adresse des "
                  "Spielers.\n", orig, tag + ".gm")
    player = _reply(config, to, f"Passwortanfrage Königreich {n}: weitergeleitet",
                    f"{hello},\n\nIhre Bitte um ein neues Passwort für Königreich {n} ist an den "
                    "Segmentleiter weitergeleitet. Er setzt ein neues und teilt es Ihnen mit; "
                    "per Mail wird kein Passwort im Klartext verschickt. Bis dahin gilt das "
                    "bisherige.\n\nDer Segmentleiter\n", orig, tag)
    return [note, player]


def _result_mail(camp: Campaign, seg: Segment, config: MailConfig, n: int, to: str, hello: str,
                 orig: EmailMessage, tag: str) -> tuple[EmailMessage, str]:
    """The kingdom's last result mail again (built as the month's send builds it), or
    a note that there is none yet."""

    month = seg.date.previous()
    if not month_dir(camp, seg.name, month).is_dir():
        return (_reply(config, to, f"Ergebnis Königreich {n}: noch keines",
                       f"{hello},\n\nfür Ihr Königreich {n} gibt es noch kein ausgewertetes "
                       f"Ergebnis; der erste Mond ist {seg.date.short()}.\n\nDer Segmentleiter\n",
                       orig, tag), "noch kein Ergebnis")

    got = result_mails(camp, seg, month, config.sender, Ledger(camp.segment_dir(seg.name)),
                       kingdoms=[n])
    if not got.mails:
        why = got.skipped.get(n, "kein Ergebnisblatt im Archiv")
        return (_reply(config, to, f"Ergebnis Königreich {n}: nicht verfügbar",
                       f"{hello},\n\nIhr Ergebnis für {month.short()} kann nicht gesendet "
                       f"werden: {why}.\n\nDer Segmentleiter\n", orig, tag), why)
    msg = got.mails[0].build(False)
    del msg["Subject"]
    msg["Subject"] = f"Erneut gesendet: Ergebnis Königreich {n}, {month.short()}"
    del msg["To"]
    msg["To"] = to
    del msg["Message-ID"]
    domain = parseaddr(config.sender)[1].rpartition("@")[2] or "localhost"
    msg["Message-ID"] = f"<wdg.befehl.{tag}@{domain}>"
    mid = _message_id(orig)
    if mid:
        del msg["In-Reply-To"]
        del msg["References"]
        msg["In-Reply-To"] = mid
        msg["References"] = mid
    return msg, f"Ergebnis {month.short()} erneut gesendet"


def sender_elsewhere(camp: Campaign, seg: Any, config: Any, sender: str,
                     raw: bytes) -> list[tuple[Any, list[int]]]:
    """For a player's mail command taken by ``seg``'s fetch from the campaign's
    shared box: the sender's playing kingdoms in the *other* segments that box
    serves, as ``(segment, kingdoms)`` (:func:`answer_command`
    answers for them too). Nothing when the box is the segment's own, or when
    the mail names one kingdom (``Königreich: N``: it means that kingdom of
    ``seg``). The other segments are only read."""

    shared = camp.root / MAIL_FILE
    if config is None or not shared.is_file() or \
            Path(config.path).resolve() != shared.resolve():
        return []
    import email
    import email.policy


    try:
        texts, _ = part_texts(email.message_from_bytes(raw, policy=email.policy.default))
    except Exception:  # noqa: BLE001 - as _kingdoms_of: the body is optional
        texts = []
    if any(_KINGDOM.search(t) for t in texts):
        return []
    out = []
    for name in segment_names(camp):
        if name == seg.name or (camp.segment_dir(name) / MAIL_FILE).is_file():
            continue
        try:
            other = load_segment(camp.segment_dir(name))
        except (WdgError, OSError):
            continue  # a damaged segment answers for itself when its fetch runs
        mine = _kingdoms_of(other, sender, raw)
        if mine:
            out.append((other, mine))
    return out
