"""Sheets in folders wdg does not read (issue #39 item 8).

A provider's spam filter may file a player's sheet into ``Junk``; wdg reads only
``imap.mailbox`` and ``imap.folders`` of ``mail.yaml``. :func:`look_elsewhere`
looks, on every fetch, into the mailbox's *spam folders* that are not read — a
folder the server marks ``\\Junk`` (RFC 6154) or whose last level is named like
one (:data:`SPAM_NAMES`) — at the mails that arrived there since the last look
(a UID cursor per folder in the alert record, so each mail is judged once), reads
only their header fields, and counts those that the rule for "mail for the game"
(:func:`wdg.mail.fetch.for_the_game`) takes. Each find is a note of the fetch and
an alert ``ordner`` to the game master (:mod:`wdg.mail.alerts`): the sheet is not
answered and does not count until he moves it into the inbox or lists the folder
in ``imap.folders``. Nothing there is moved, marked read or changed (``EXAMINE``).
"""

from __future__ import annotations

import email.policy
import re
from email.parser import BytesHeaderParser
from email.utils import parseaddr
from pathlib import Path
from typing import Any

from wdg.mail import alerts
from wdg.textpolicy import visible

SPAM_NAMES = re.compile(r"(?i)^(junk|spam|junk[ -]?e-?mail|bulk[ -]?mail|spamverdacht|"
                        r"unerw(ü|ue)nscht|werbung)$")
"""Names of a spam folder at common providers (the last level of the name)."""

SHOWN = 5
"""Mails named in one alert (the rest are counted)."""


def spam_folders(listing: list[tuple[str, str]], config: Any) -> list[str]:
    """The spam folders of ``listing`` (:meth:`wdg.mail.imap.ImapSession.list_folders`) that a
    fetch does not read."""
    imap = config.imap
    read = {f.lower() for f in imap.read_folders}
    out = []
    for flags, name in listing:
        if name.lower() in read or "\\noselect" in flags.lower():
            continue
        if "\\junk" in flags.lower() or SPAM_NAMES.match(name.rsplit("/", 1)[-1]):
            out.append(name)
    return out


def look_elsewhere(box: Any, config: Any, seg_dir: Path, report: Any) -> int:
    """Look into the unread spam folders (see the module); returns how many mails
    for the game were found there by this call."""
    # here, not at the top: wdg.mail.fetch imports this module (and numpy)
    from wdg.mail.fetch import HEADER_FIELDS, for_the_game, own_mail

    folders = spam_folders(box.list_folders(), config)
    if not folders:
        return 0
    rec = alerts.read(seg_dir)
    parser = BytesHeaderParser(policy=email.policy.default)
    found: list[str] = []
    for folder in folders:
        validity = box.examine(folder)
        key = f"{folder}#{validity}"
        start = rec.cursors.get(key, 0)
        uids = [u for u in box.uids() if u > start]
        if not uids:
            continue
        heads = box.headers(uids, HEADER_FIELDS)
        for uid in uids:
            head = parser.parsebytes(heads.get(uid, b""))
            if own_mail(head, config) or not for_the_game(head, config.imap.accept):
                continue
            sender = parseaddr(str(head.get("From", "")))[1] or "?"
            found.append(f"{folder}: von {visible(sender)[:80]}, Betreff "
                         f"{visible(str(head.get('Subject', '')))[:80]!r}")
        alerts.set_cursor(seg_dir, key, max(uids))
    if found:
        where = sorted({f.split(":", 1)[0] for f in found})
        text = (f"{len(found)} Mail(s), die wie Spielzüge aussehen, liegen im Ordner "
                f"{', '.join(repr(w) for w in where)}, den wdg nicht liest: "
                + "; ".join(found[:SHOWN]) + (" …" if len(found) > SHOWN else "")
                + ". Sie sind nicht beantwortet und zählen nicht. Abhilfe: die Mail in den "
                "Posteingang verschieben (der nächste Abruf nimmt sie mit ihrer Ankunftszeit), "
                "oder den Ordner in mail.yaml unter imap.folders eintragen "
                f"(z.B. folders: [INBOX, {where[0]}]).")
        report.notes.append(text)
        alerts.raise_alert(seg_dir, "ordner", text)
    return len(found)
