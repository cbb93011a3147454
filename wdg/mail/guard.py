"""The mail guard: no loops, no amplification, no backscatter (issue #39).

The intake (:mod:`wdg.mail.fetch`) asks the guard, for every sheet and every
mail command it took, **whether and to whom** to answer. The guard never
changes what is imported — a sheet is judged and stored as before — only who
hears of it:

- **Automatic mail** (:func:`automatic`): RFC 3834 ``Auto-Submitted`` (anything
  but ``no``), ``Precedence: bulk/junk/list/auto_reply``, ``X-Autoreply``,
  ``X-Autorespond``, ``X-Auto-Response-Suppress``/``Auto-Response-Suppress``,
  a mailing list's ``List-Id``/``List-Unsubscribe``, an empty Return-Path
  (``<>``: a delivery report), a sender ``MAILER-DAEMON``/``postmaster``, a
  ``multipart/report``: never answered.
- **Replies to wdg's own mail** (:func:`replies_to_wdg`: ``In-Reply-To`` or
  ``References`` carry an id wdg made — ``<…wdg.…@the from domain>``) and
  mail that **quotes wdg's answer** (a sheet whose password is the ``******``
  wdg puts into every echo): answered only when they carry new orders that were
  taken (``angenommen``/``älter``). A vacation responder quoting a confirmation
  without ``>`` is read, refused, and not answered — no loop.
- **Only to the address on record** (no backscatter): a sheet is answered to its
  sender when the sender plays a kingdom of the segment or the sheet carried its
  kingdom's right password; a sheet with a wrong or missing password is told to
  the kingdom's address on record — once per ``password_notice_hours``, not per
  attempt — and never to a sender who plays nothing. A mail command is answered
  only to the address on record of the sender's kingdom (:mod:`wdg.mail.commands`);
  from an address that plays nothing it is not answered at all.
- **A foreign sender's accepted sheet** (the right password from another
  address) is also told to the address on record ("Ihr Spielzug wurde von …
  ersetzt").
- **Rate limits** (:class:`Limits`, ``limits:`` in ``mail.yaml``): the same command
  for the same kingdom at most once per window; at most a few answers per sender
  and per kingdom per window; further mails are counted, not answered, and the
  game master is told (alert ``flut``, :mod:`wdg.mail.alerts`).
- **Wrong passwords** are counted per kingdom and month; from
  ``password_alert_after`` on, the game master is told ("N Versuche mit falschem
  Passwort für Königreich 4 …", alert ``passwort``).

Every decision is an event in the guard record (:mod:`wdg.mail.guardbook`),
recorded before the answer is written: deciding the same mail again (a fetch
killed in between) finds its events and decides the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from datetime import timedelta
from email.message import EmailMessage
from email.utils import formataddr, parseaddr
from pathlib import Path
from typing import Any

from wdg.errors import DataError
from wdg.mail import alerts
from wdg.mail.guardbook import Event, GuardBook, GuardKind, now
from wdg.orders.acceptance import refusals
from wdg.orders.confirm import HEADLINES, REASON_WORDS
from wdg.orders.mailtext import part_texts
from wdg.orders.outcome import IntakeReason, IntakeStatus, PASSWORD_REASONS, TAKEN_STATUSES
from wdg.orders.parser import REDACTED
from wdg.textpolicy import header_name
from wdg.world.state import Segment, ruler_title


@dataclass(frozen=True, slots=True)
class Limits:
    """The guard's numbers: ``limits:`` in ``mail.yaml`` (docs/gamemaster.md, Mail
    abholen, "Grenzen"); each can be set there, these are the defaults."""

    window_minutes: int = 60
    """The window every rate below is counted in (minutes)."""
    same_command: int = 1
    """The same mail command ("Ergebnis erneut", "Formular", "Passwort vergessen")
    for the same kingdom is answered at most this often per window: fifteen forged
    "Ergebnis erneut" put one result mail, not fifteen, into the player's box."""
    answers_per_sender: int = 5
    """Answers (confirmations and command answers) to one sender per window: a
    player correcting his sheet three times in an hour is answered each time; a
    flood is not."""
    answers_per_kingdom: int = 8
    """Answers concerning one kingdom per window (from whatever sender)."""
    password_notice_hours: int = 24
    """A kingdom's player is told of sheets with a wrong or missing password at most
    once in this many hours (the first one), not per attempt."""
    password_alert_after: int = 3
    """From this many sheets with a wrong password for one kingdom in a month on,
    the game master is told (alert ``passwort``, at most one mail a day)."""
    keep_days: int = 40
    """Events older than this are dropped from the guard record (a month and a
    half: the password count of a month needs the whole month)."""


def limits(config: Any) -> Limits:  # a MailConfig
    """``limits:`` of mail.yaml checked (unknown keys and values below 1 refused)."""
    data = (config.raw or {}).get("limits") if config is not None else None
    if data is None:
        return Limits()
    names = [f.name for f in fields(Limits)]
    path = str(getattr(config, "path", "mail.yaml"))
    if not isinstance(data, dict):
        raise DataError(path, "limits", data, f"eine Zuordnung mit {', '.join(names)}")
    for key, value in data.items():
        if key not in names:
            raise DataError(path, f"limits.{key}", value,
                            f"einen der Schlüssel {', '.join(names)}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise DataError(path, f"limits.{key}", value, "eine ganze Zahl ab 1")
    return Limits(**data)


# --- headers -------------------------------------------------------------------------------

GUARD_HEADERS = ("IN-REPLY-TO", "REFERENCES", "LIST-ID", "LIST-UNSUBSCRIBE", "RETURN-PATH",
                 "X-AUTORESPOND", "AUTO-RESPONSE-SUPPRESS", "CONTENT-TYPE")
"""Header fields the guard reads, besides those the intake fetches anyway."""

_AUTO_PRECEDENCE = ("bulk", "junk", "list", "auto_reply")
_DAEMONS = ("mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon")


def _header(msg: EmailMessage, name: str) -> str:
    try:
        value = msg.get(name)
        return str(value) if value is not None else ""
    except Exception:  # noqa: BLE001 - a broken header is no header
        return ""


def automatic(head: EmailMessage) -> str:
    """Why the mail is automatic (German, for the report), or ``""``."""
    auto = _header(head, "Auto-Submitted").strip().lower()
    if auto and not auto.startswith("no"):
        return f"automatische Mail (Auto-Submitted: {auto[:40]})"
    prec = _header(head, "Precedence").strip().lower()
    if prec in _AUTO_PRECEDENCE:
        return f"automatische Mail (Precedence: {prec})"
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress",
                 "Auto-Response-Suppress"):
        if _header(head, name).strip():
            return f"automatische Mail ({name})"
    for name in ("List-Id", "List-Unsubscribe"):
        if _header(head, name).strip():
            return f"Mail einer Mailingliste ({name})"
    if head.get("Return-Path") is not None:
        rp = _header(head, "Return-Path").strip()
        if rp in ("", "<>") or not parseaddr(rp)[1]:
            return "Zustellbericht (leerer Return-Path)"
    local = parseaddr(_header(head, "From"))[1].partition("@")[0].lower()
    if local in _DAEMONS:
        return f"Zustellbericht ({local.upper()})"
    if _header(head, "Content-Type").strip().lower().startswith("multipart/report"):
        return "Zustellbericht (multipart/report)"
    return ""


_OWN_ID = re.compile(r"<([^<>@\s]*)@([^<>\s]+)>")


def is_wdg_id(mid: str, domain: str) -> bool:
    """Whether a Message-ID is one wdg made for the ``from`` domain: confirmations
    ``<wdg.antwort.…@d>``, command answers ``<wdg.befehl.…@d>``, result mails
    ``<….wdg.<segment>.…@d>``, alerts ``<….wdg.alarm@d>``."""
    m = _OWN_ID.fullmatch(mid.strip())
    if not m or m.group(2).lower() != domain.lower():
        return False
    local = m.group(1).lower()
    return local.startswith("wdg.") or ".wdg." in local


def replies_to_wdg(head: EmailMessage, sender: str) -> bool:
    """Whether the mail's ``In-Reply-To``/``References`` name a mail wdg sent
    (``sender``: the ``from`` of mail.yaml, whose domain wdg's ids carry)."""
    domain = parseaddr(sender)[1].rpartition("@")[2]
    if not domain:
        return False
    text = (_header(head, "In-Reply-To") + " " + _header(head, "References"))[:20000]
    return any(is_wdg_id(m.group(0), domain) for m in _OWN_ID.finditer(text))


# --- decisions -----------------------------------------------------------------------------



@dataclass(slots=True)
class Decision:
    """Whom to answer about one sheet or command (``to`` empty: nobody)."""

    to: str = ""
    why: str = ""
    """Why not answered, or a note on the answer (German, for the report)."""
    note: str = ""
    """A line for the answer's body (the foreign sender named)."""
    notices: list[tuple[str, str, str]] = field(default_factory=list)
    """Further mails: (to, subject, body) — the address on record told."""


class Guard:
    """The guard of one fetch (see the module). ``alerts`` collects the alerts to
    raise at the end (kind -> German text)."""

    def __init__(self, seg_dir: Path, seg: Segment, config: Any) -> None:
        self.seg_dir, self.seg, self.config = seg_dir, seg, config
        self.limits = limits(config)
        self.book = GuardBook(seg_dir)
        self.alerts: dict[str, str] = {}
        self._quoting: dict[str, bool] = {}
        self.counted: dict[str, int] = {}
        """Mails not answered this fetch, by reason (for the report)."""

    # --- who is who ---------------------------------------------------------------------
    def owner(self, n: int | None) -> tuple[str, str]:
        """(address on record, address with name) of kingdom ``n``'s player, or ('', '')."""
        k = self.seg.kingdoms.get(n) if n else None
        if k is None or k.player is None or k.retired or k.bot or not k.player.email:
            return "", ""
        addr = parseaddr(k.player.email)[1]
        return addr, header_address(k.player.name, addr)

    def plays(self, sender: str) -> list[int]:
        """The kingdoms the address plays in this segment."""
        s = sender.lower()
        return [n for n, k in sorted(self.seg.kingdoms.items())
                if k.player is not None and not k.retired and not k.bot
                and parseaddr(k.player.email)[1].lower() == s]

    # --- events -------------------------------------------------------------------------
    def _since(self) -> Any:
        return now() - timedelta(minutes=self.limits.window_minutes)

    def _add(self, mail: str, kind: GuardKind, sender: str, kingdom: int | None,
             command: str = "") -> None:
        self.book.add(Event(now(), mail, kind, sender, kingdom, self.seg.date.key, command),
                      self.limits.keep_days)

    def _earlier(self, mail: str, kingdom: int | None,
                 kinds: tuple[GuardKind, ...]) -> Event | None:
        for e in self.book.of_mail(mail, kingdom):
            if e.kind in kinds:
                return e
        return None

    def _flooded(self, mail: str, sender: str, kingdom: int | None) -> str:
        """Why one more answer would be too many ('' if it is not)."""
        lim, since = self.limits, self._since()
        answered = (GuardKind.ANSWERED, GuardKind.COMMAND, GuardKind.REPLACED_NOTICE,
                    GuardKind.PASSWORD_NOTICE)
        if self.book.count(answered, since=since, sender=sender, exclude=mail) \
                >= lim.answers_per_sender:
            return (f"mehr als {lim.answers_per_sender} Antworten an {sender} in "
                    f"{lim.window_minutes} Minuten")
        if kingdom is not None and self.book.count(answered, since=since, kingdom=kingdom,
                                                   exclude=mail) >= lim.answers_per_kingdom:
            return (f"mehr als {lim.answers_per_kingdom} Antworten zu Königreich {kingdom} in "
                    f"{lim.window_minutes} Minuten")
        return ""

    def _throttle(self, mail: str, sender: str, kingdom: int | None, why: str) -> Decision:
        self._add(mail, GuardKind.THROTTLED, sender, kingdom)
        n = self.book.count((GuardKind.THROTTLED,), since=self._since(), sender=sender)
        self.alerts["flut"] = (f"{n} Mail(s) von {sender} in den letzten "
                               f"{self.limits.window_minutes} Minuten nicht beantwortet "
                               f"({why}). Gezählt im Wachbuch {self.book.path}; wer das ist "
                               f"und ob es ein Spieler ist, zeigt der Posteingang.")
        return self._count(Decision(why=f"nicht beantwortet: {why}"))

    def _count(self, d: Decision) -> Decision:
        if not d.to:
            self.counted[d.why] = self.counted.get(d.why, 0) + 1
        return d

    # --- sheets -------------------------------------------------------------------------
    def sheet(self, mail: str, head: EmailMessage, r: Any, auto: str,
              raw: bytes = b"") -> Decision:
        """Whom to answer about the sheet result ``r`` (a
        :class:`wdg.orders.intake.MailResult`) of the mail ``mail`` (its key;
        ``raw``: its bytes, searched for a quote of wdg's answer)."""
        sender = (r.sender or "").strip()
        status, k = r.status, r.kingdom
        owner, owner_to = self.owner(k)
        earlier = self._earlier(mail, k, (GuardKind.ANSWERED, GuardKind.PASSWORD_NOTICE,
                                          GuardKind.THROTTLED, GuardKind.FOREIGN, GuardKind.LOOP,
                                          GuardKind.WRONG_PASSWORD))
        if auto:
            return self._count(Decision(why=f"{auto}: nicht beantwortet"))
        if status not in TAKEN_STATUSES and (replies_to_wdg(head, self.config.sender)
                                    or _quotes_echo(r) or self._quotes_answer(mail, raw)):
            if earlier is None:
                self._add(mail, GuardKind.LOOP, sender, k)
            return self._count(Decision(
                why="Antwort auf eine Mail von wdg (oder ihr Zitat) ohne neuen gültigen "
                    "Spielzug: nicht beantwortet (keine Mail-Schleife)"))
        wrong_pw = _password_problem(r, self.seg)
        if wrong_pw is not None and owner:
            return self._password(mail, sender, k, owner, owner_to, wrong_pw, r, earlier)
        authentic = status in TAKEN_STATUSES or status is IntakeStatus.DUPLICATE or (
            status is IntakeStatus.REJECTED and k is not None and owner != "" and wrong_pw is None
            and r.parsed is not None and bool(getattr(r.parsed, "password", "")))
        plays = bool(self.plays(sender)) if sender else False
        if not sender or not (plays or authentic):
            if earlier is None:
                self._add(mail, GuardKind.FOREIGN, sender, k)
            return self._count(Decision(why="Absender spielt kein Königreich in diesem Segment "
                                            "und der Spielzug trug kein gültiges Passwort: "
                                            "nicht beantwortet (keine Rückstreuung)"))
        if earlier is not None and earlier.kind is not GuardKind.ANSWERED:
            return self._count(Decision(why="nicht beantwortet (schon so entschieden)"))
        if earlier is None:
            why = self._flooded(mail, sender, k)
            if why:
                return self._throttle(mail, sender, k, why)
            self._add(mail, GuardKind.ANSWERED, sender, k)
        d = Decision(to=sender)
        if status is IntakeStatus.ACCEPTED and owner and owner.lower() != sender.lower():
            d.note = (f"Dieser Spielzug kam von {sender}, nicht von der für Königreich {k} "
                      f"hinterlegten Adresse; die hinterlegte Adresse wird benachrichtigt.")
            if self._earlier(mail, k, (GuardKind.REPLACED_NOTICE,)) is None:
                self._add(mail, GuardKind.REPLACED_NOTICE, sender, k)
            d.notices.append((owner_to, f"Spielzug Königreich {k}: von anderer Adresse ersetzt",
                              self._replaced_text(k, sender, r)))
        return d

    def _password(self, mail: str, sender: str, k: int, owner: str, owner_to: str,
                  problem: IntakeReason, r: Any, earlier: Event | None) -> Decision:
        lim = self.limits
        if problem is IntakeReason.WRONG_PASSWORD:
            self._add(mail, GuardKind.WRONG_PASSWORD, sender, k)
            n = self.book.count((GuardKind.WRONG_PASSWORD,), since=now() - timedelta(days=62),
                                kingdom=k, month=self.seg.date.key)
            if n >= lim.password_alert_after:
                senders = sorted({e.sender for e in self.book.events
                                  if e.kind is GuardKind.WRONG_PASSWORD and e.kingdom == k
                                  and e.month == self.seg.date.key})
                self.alerts["passwort"] = (
                    f"{n} Versuche mit falschem Passwort für Königreich {k} im Mond "
                    f"{self.seg.date.short()} (Absender: {', '.join(senders)[:400]}). Der "
                    f"Spieler wurde einmal benachrichtigt, nicht bei jedem Versuch; keiner "
                    f"dieser Spielzüge wurde angenommen. Hat der Spieler sein Passwort "
                    f"vergessen: 'wdg kingdom set-password {self.seg.name} {k}'.")
        told = self._earlier(mail, k, (GuardKind.PASSWORD_NOTICE,))
        if told is None and earlier is not None and earlier.kind is GuardKind.THROTTLED:
            return self._count(Decision(why="nicht beantwortet (schon so entschieden)"))
        if told is None:
            since = now() - timedelta(hours=lim.password_notice_hours)
            if self.book.count((GuardKind.PASSWORD_NOTICE,), since=since, kingdom=k, exclude=mail):
                return self._count(Decision(
                    why=f"{REASON_WORDS[problem]}: der Spieler von Königreich {k} wurde in den letzten "
                        f"{lim.password_notice_hours} Stunden schon benachrichtigt; nicht "
                        "beantwortet, gezählt"))
            self._add(mail, GuardKind.PASSWORD_NOTICE, sender, k)
        d = Decision(to=owner_to)
        if owner.lower() != sender.lower():
            d.note = (f"Dieser Spielzug für Königreich {k} kam von {sender}, nicht von Ihrer "
                      "hinterlegten Adresse; der Absender bekommt keine Antwort. Weitere "
                      "Spielzüge ohne gültiges Passwort meldet wdg Ihnen frühestens in "
                      f"{lim.password_notice_hours} Stunden wieder; der Segmentleiter wird "
                      "bei wiederholten Versuchen benachrichtigt.")
        else:
            d.note = ("Weitere Spielzüge ohne gültiges Passwort meldet wdg frühestens in "
                      f"{lim.password_notice_hours} Stunden wieder.")
        return d

    def _quotes_answer(self, mail: str, raw: bytes) -> bool:
        """Whether the mail's text holds, unquoted (no ``>``), a line only wdg's
        answers write (cached per mail)."""
        if not raw:
            return False
        got = self._quoting.get(mail)
        if got is None:
            got = self._quoting[mail] = quotes_answer(raw)
        return got

    def _replaced_text(self, k: int, sender: str, r: Any) -> str:
        king = self.seg.kingdoms[k]
        when = r.arrival.strftime("%d.%m.%Y %H:%M") if getattr(r, "arrival", None) else ""
        return (f"{ruler_title(bool(king.herrscherin), 'dear')},\n\nIhr Spielzug wurde von "
                f"{sender} ersetzt: eine Mail von dieser Adresse"
                + (f" (eingetroffen {when} UTC)" if when else "")
                + f" trug einen Spielzug für Königreich {k} mit dem richtigen Passwort; er "
                f"gilt jetzt für {self.seg.date.short()}.\n\nWaren Sie das nicht, kennt jemand "
                "anderes Ihr Passwort: bitten Sie den Segmentleiter um ein neues (Betreff "
                "»Passwort vergessen«) und senden Sie Ihren Spielzug erneut.\n\n"
                "Der Segmentleiter\n")

    # --- commands -----------------------------------------------------------------------
    def command(self, mail: str, command: str, sender: str, kingdoms: list[int],
                auto: str) -> str:
        """'' when the command may be answered, else why not (German)."""
        if auto:
            return self._count(Decision(why=f"{auto}: nicht beantwortet")).why
        earlier = [e for e in self.book.of_mail(mail)
                   if e.kind in (GuardKind.COMMAND, GuardKind.THROTTLED, GuardKind.FOREIGN)]
        if earlier:
            return "" if earlier[0].kind is GuardKind.COMMAND else \
                "nicht beantwortet (schon so entschieden)"
        if not kingdoms:
            self._add(mail, GuardKind.FOREIGN, sender, None, command)
            return self._count(Decision(why="Absender spielt kein Königreich in diesem Segment: "
                                            "nicht beantwortet (keine Rückstreuung)")).why
        lim, since = self.limits, self._since()
        for n in kingdoms:
            if self.book.count((GuardKind.COMMAND,), since=since, kingdom=n, command=command) \
                    >= lim.same_command:
                self._throttle(mail, sender, n, f"derselbe Befehl für Königreich {n} schon in "
                                                f"den letzten {lim.window_minutes} Minuten "
                                                "beantwortet")
                return (f"nicht beantwortet: derselbe Befehl für Königreich {n} wurde in den "
                        f"letzten {lim.window_minutes} Minuten schon beantwortet")
        why = self._flooded(mail, sender, kingdoms[0])
        if why:
            return self._throttle(mail, sender, kingdoms[0], why).why
        for n in kingdoms:
            self._add(mail, GuardKind.COMMAND, sender, n, command)
        return ""

    # --- the end ------------------------------------------------------------------------
    def raise_alerts(self) -> list[str]:
        """Hand the alerts collected to :mod:`wdg.mail.alerts`; the texts (for the report)."""

        for kind, text in sorted(self.alerts.items()):
            alerts.raise_alert(self.seg_dir, kind, text)
        return [text for _, text in sorted(self.alerts.items())]

    def summary(self) -> list[str]:
        """German lines for the fetch's report: what was not answered, and why."""
        return [f"{n} Mail(s) nicht beantwortet — {why}" for why, n in sorted(self.counted.items())]


def _password_problem(r: Any, seg: Segment) -> IntakeReason | None:
    """:attr:`IntakeReason.WRONG_PASSWORD` / ``NO_PASSWORD`` when the sheet names
    a kingdom with a player but not its password; ``None`` otherwise."""
    if r.status is not IntakeStatus.REJECTED or r.parsed is None or not r.kingdom:
        return None
    if r.cause in PASSWORD_REASONS:
        return r.cause

    try:
        codes = [d.code for d in refusals(r.parsed, seg)]
    except Exception as exc:  # noqa: BLE001 - the import decided; the guard only routes
        r.notes.append(f"Passwortprüfung für die Antwort gescheitert ({type(exc).__name__}: "
                       f"{str(exc)[:200]})")
        return None
    return next((c for c in codes if isinstance(c, IntakeReason) and c in PASSWORD_REASONS),
                None)


def answer_marks() -> tuple[str, ...]:
    """Lines only wdg's answers write (the confirmation's head lines and titles)."""
    return (*HEADLINES.values(),
            "Prüfung Ihres Spielzugs (Meldungen stehen unter der betroffenen Zeile):")


QUOTE_SCAN = 262_144
"""Characters of a mail's text searched for a quote of wdg's answer."""


def quotes_answer(raw: bytes) -> bool:
    """Whether the mail's text parts hold, on a line of their own and not quoted with
    ``>``, a line only wdg's answers write: the mail quotes an answer of wdg (a
    vacation responder quoting without ``>``, a forward)."""
    import email
    import email.policy


    try:
        texts, _ = part_texts(email.message_from_bytes(raw, policy=email.policy.default))
    except Exception:  # noqa: BLE001 - unreadable: the import says so
        return False
    marks = set(answer_marks())
    for text in texts:
        for line in text[:QUOTE_SCAN].splitlines():
            if line.strip() in marks:
                return True
    return False


def _quotes_echo(r: Any) -> bool:
    """The sheet's password is the mark wdg puts into every echo of a sheet: the
    mail quotes an answer of wdg (a vacation responder quoting without ``>``)."""

    pw = getattr(r.parsed, "password", "") if r.parsed is not None else ""
    return bool(pw) and pw.strip() == REDACTED


def header_address(name: str, addr: str) -> str:
    """``Name <addr>`` with the name cleaned by the text policy (no line breaks,
    separators or controls can reach the header), or the bare address."""

    clean = header_name(name or "")
    return formataddr((clean, addr)) if clean else addr
