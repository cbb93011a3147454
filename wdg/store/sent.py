"""The send record: every mail wdg sends, sent exactly once
(``worlds/<segment>/mail/sent.yaml``).

The record is a journal, one line per event, each a YAML list item in flow
form (JSON, which YAML reads too), appended and flushed to the disk
(``fsync``) before wdg goes on::

    - {"n": 1, "key": "bericht/0412-04/k3", "event": "intent", "message_id": "<...>", ...}
    - {"n": 2, "key": "bericht/0412-04/k3", "event": "sent", "answer": "250 2.0.0 Ok", ...}

A mail's life: ``intent`` is recorded when the whole message is with the
server and only the final ``.`` of ``DATA`` is missing
(:meth:`wdg.mail.smtp.SmtpSession.send`, ``before_end``; a send killed
earlier leaves no intent — the server accepted nothing — and the next call
sends the mail; a refusal before the ``.`` is recorded as intent and outcome
together); ``sent`` after the server accepted it (2xx after ``DATA``), ``failed`` when
it certainly was not accepted (refused with 4xx, connection lost before the
message was complete: sent again by the next call), ``refused`` for a 5xx
(an unknown recipient: not sent again on its own). While the server's answer
is awaited and recorded, Ctrl-C and SIGTERM are held back
(:func:`held_signals`).

**The window SMTP cannot close.** If wdg is killed hard (SIGKILL, power
loss) or the line breaks after the message went out and before the server's
answer is recorded, the record holds an ``intent`` without an outcome: the
server may or may not have accepted the mail — SMTP gives no way to ask. Such
a mail is *uncertain*: it is never sent again automatically (a player gets no
mail twice because of wdg), every send lists it, and the game master decides:
``wdg mail sent SEG --release KEY`` (event ``released``) lets the next send
send it once more. A player may then, rarely, get it twice; never zero times
without the game master being told.

**Protection.** The record is written only by wdg, under the segment's lock.
Lines carry a running number ``n``; ``mail/sent.seal`` holds the last number
written and the SHA-256 of the record up to that line (``n <hex>``; a seal
of an older wdg holds the number only and gets the checksum with the next
line). A record that is missing, emptied, cut short, out of order, not
readable, or changed in any byte (a bit flip in a mail's key would make it
look unsent) while the seal says otherwise is refused with an explanation
— it never silently turns into "nothing was sent" (which would mail every
player again). A line cut off by a crash in the middle of writing (the very
last line, without its line end) is the one exception: it was never
complete, so nothing was done on it; it is dropped.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from wdg.errors import DataError, StateError
from wdg.fsio import append_durable
from wdg.store.integrity import Finding

MAIL_DIR = "mail"
SENT_FILE = "sent.yaml"
SEAL_FILE = "sent.seal"
HEADER = ("# wdg: Versandbuch dieses Segments (docs/reports.md). Nur wdg schreibt hier, "
          "eine Zeile je Ereignis.\n")

EVENTS = ("intent", "sent", "failed", "refused", "released")
OPEN = "pending"
"""State of a mail with an ``intent`` and no outcome (uncertain after a crash)."""


@contextmanager
def held_signals() -> Iterator[None]:
    """Hold back Ctrl-C (SIGINT) and SIGTERM for the block; one that arrives
    meanwhile is raised right after it, to the handler that was in place.

    Used while a record line is written and while a mail's outcome is awaited
    and recorded. Python-level handlers are swapped (not the signal mask: a
    signal may be delivered to any thread of the process, and Python raises it
    in the main thread all the same). Outside the main thread: no effect."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []

    def hold(signum: int, frame: object) -> None:
        got.append(signum)

    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        old[sig] = signal.signal(sig, hold)
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if got:
            signal.raise_signal(got[0])


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(slots=True)
class MailRecord:
    """One attempt at one mail (an ``intent`` and its outcome)."""

    key: str
    message_id: str
    to: str
    sha256: str
    state: str = OPEN
    """``pending`` | ``sent`` | ``failed`` | ``refused`` | ``released``."""
    intended: str = ""
    done: str = ""
    answer: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    """Anything else the intent recorded (subject, correction, month ...)."""


class Ledger:
    """The send record of one segment, loaded. Write it only under the
    segment's lock (the callers hold it)."""

    def __init__(self, segment_dir: Path) -> None:
        self.dir = segment_dir / MAIL_DIR
        self.path = self.dir / SENT_FILE
        self.seal = self.dir / SEAL_FILE
        self.records: dict[str, list[MailRecord]] = {}
        self.n = 0
        self._load()

    # --- reading ---------------------------------------------------------------------------
    def _refuse(self, what: str) -> StateError:
        return StateError(
            f"Versandbuch {self.path}: {what}. wdg sendet nichts, solange es so ist — sonst "
            "bekämen Spieler Mails, die sie schon haben. Das Versandbuch aus der Sicherung "
            "zurückholen (docs/gamemaster.md, Sicherung); ist es wirklich verloren, "
            f"'wdg mail sent <segment> --lost' (erklärt, was dann geschieht)")

    def _load(self) -> None:
        sealed, sealed_hash = self._sealed()
        if not self.path.exists():
            if sealed:
                raise self._refuse(f"die Datei fehlt, aber {sealed} Einträge waren geschrieben "
                                   f"({self.seal})")
            return
        data = self.path.read_bytes()
        if not data.strip():
            if sealed:
                raise self._refuse(f"die Datei ist leer, aber {sealed} Einträge waren "
                                   "geschrieben")
            return
        lines = data.split(b"\n")
        torn = lines[-1]  # after the last line end: empty, or a line cut off by a crash
        h = hashlib.sha256()  # the bytes up to the line the seal names (their checksum)
        for lineno, line in enumerate(lines[:-1], 1):
            h.update(line + b"\n")
            if not line.strip() or line.startswith(b"#"):
                continue
            self._apply(self._parse(line, lineno), lineno)
            if sealed_hash and self.n == sealed and h.hexdigest() != sealed_hash:
                raise self._refuse(f"die Zeilen bis Eintrag {sealed} haben nicht die Prüfsumme, "
                                   f"die {self.seal} nennt: beschädigt oder von Hand geändert")
        if torn.strip():
            try:
                self._apply(self._parse(torn, len(lines)), len(lines))
            except (DataError, StateError):
                pass  # cut off by a crash while being written: never acted on
        if self.n < sealed:
            raise self._refuse(f"es endet bei Eintrag {self.n}, geschrieben waren {sealed} "
                               f"({self.seal}): es wurde gekürzt oder ersetzt")

    def _sealed(self) -> tuple[int, str]:
        """The seal: the last number written and the SHA-256 of the record up to
        it (``n <hex>``; a seal of an older wdg has the number only)."""
        try:
            text = self.seal.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return 0, ""
        number, _, digest = text.partition(" ")
        try:
            if digest and (len(digest) != 64 or digest.strip("0123456789abcdef")):
                raise ValueError
            return int(number), digest
        except ValueError:
            raise StateError(f"{self.seal}: gefunden {text[:80]!r}, erwartet eine Zahl (die "
                             "letzte Nummer im Versandbuch) und die SHA-256 des Versandbuchs "
                             "bis dahin; die Datei wurde verändert") from None

    def _parse(self, line: bytes, lineno: int) -> dict[str, Any]:
        text = line.decode("utf-8", "replace").strip()
        try:
            if not text.startswith("- "):
                raise ValueError
            entry = json.loads(text[2:])
            if not isinstance(entry, dict) or entry.get("event") not in EVENTS \
                    or not isinstance(entry.get("key"), str) or not isinstance(entry.get("n"), int):
                raise ValueError
        except ValueError:
            raise DataError(str(self.path), None, text[:80],
                            "eine von wdg geschriebene Zeile '- {\"n\": ..., \"key\": ..., "
                            "\"event\": ...}'; das Versandbuch ist beschädigt, wdg sendet "
                            "nichts, bis es aus der Sicherung zurückgeholt ist",
                            line=lineno) from None
        return entry

    def _apply(self, e: dict[str, Any], lineno: int) -> None:
        if e["n"] != self.n + 1:
            raise self._refuse(f"Zeile {lineno} trägt Nummer {e['n']}, erwartet {self.n + 1}: "
                               "Einträge fehlen oder wurden umgestellt")
        self.n = e["n"]
        key, event = e["key"], e["event"]
        if event == "intent":
            info = {k: v for k, v in e.items()
                    if k not in ("n", "key", "event", "message_id", "to", "sha256", "at")}
            self.records.setdefault(key, []).append(MailRecord(
                key, str(e.get("message_id", "")), str(e.get("to", "")), str(e.get("sha256", "")),
                intended=str(e.get("at", "")), info=info))
            return
        rec = self.latest(key)
        if rec is None:
            raise self._refuse(f"Zeile {lineno}: Ergebnis {event!r} für {key!r} ohne "
                               "vorherige Absicht")
        rec.state, rec.done = event, str(e.get("at", ""))
        rec.answer = str(e.get("answer", rec.answer))

    def latest(self, key: str) -> MailRecord | None:
        """The last attempt at ``key``, or ``None``."""
        got = self.records.get(key)
        return got[-1] if got else None

    def was_sent(self, key: str) -> bool:
        """Whether some attempt at ``key`` was accepted by the server."""
        return any(r.state == "sent" for r in self.records.get(key, ()))

    def uncertain(self) -> list[MailRecord]:
        """Mails whose outcome is unknown (an intent without an outcome)."""
        return [recs[-1] for recs in self.records.values() if recs[-1].state == OPEN]

    # --- writing ---------------------------------------------------------------------------
    def _append(self, entry: dict[str, Any]) -> None:
        with held_signals():  # a line is written whole, and counted, or not at all
            self._append_held(entry)

    def _append_held(self, entry: dict[str, Any]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        entry = {"n": self.n + 1, **entry, "at": _now()}
        line = ("- " + json.dumps(entry, ensure_ascii=False, sort_keys=False) + "\n").encode()
        append_durable(self.path, line, HEADER.encode())
        self.n += 1
        digest = hashlib.sha256(self.path.read_bytes()).hexdigest()
        tmp = self.seal.with_name(f".{SEAL_FILE}.tmp")
        tmp.write_text(f"{self.n} {digest}\n", encoding="utf-8")
        os.replace(tmp, self.seal)

    def intend(self, key: str, *, message_id: str, to: str, sha256: str,
               **info: Any) -> MailRecord:
        """Record that ``key`` is about to be sent (flushed before returning)."""
        self._append({"key": key, "event": "intent", "message_id": message_id, "to": to,
                      "sha256": sha256, **info})
        rec = MailRecord(key, message_id, to, sha256, intended=_now(), info=dict(info))
        self.records.setdefault(key, []).append(rec)
        return rec

    def settle(self, key: str, event: str, answer: str = "") -> None:
        """Record the outcome of the pending attempt at ``key``."""
        if event not in ("sent", "failed", "refused"):
            raise ValueError(event)
        rec = self.latest(key)
        if rec is None or rec.state != OPEN:
            raise StateError(f"Versandbuch: {key!r} hat keinen offenen Versand")
        self._append({"key": key, "event": event, "answer": answer})
        rec.state, rec.done, rec.answer = event, _now(), answer

    def release(self, key: str) -> MailRecord:
        """The game master's explicit request: an uncertain (or refused) mail
        may be sent again by the next send."""
        rec = self.latest(key)
        if rec is None or rec.state not in (OPEN, "refused"):
            state = "unbekannt" if rec is None else rec.state
            raise StateError(f"Versandbuch: {key!r} ist nicht ungewiss oder abgelehnt "
                             f"(Zustand: {state}); nichts freigegeben")
        self._append({"key": key, "event": "released"})
        rec.state, rec.done = "released", _now()
        return rec


WRITERS = (Ledger._append_held, Ledger.intend, Ledger.settle, Ledger.release)
"""The code that writes the ledger's lines: its shape (:func:`wdg.store.shapes.shapes`)
is the ``mail-sent`` format's fingerprint."""


def ledger_path(segment_dir: Path) -> Path:
    """``worlds/<segment>/mail/sent.yaml``."""
    return segment_dir / MAIL_DIR / SENT_FILE


def check_sent(segment_dir: Path) -> list[Any]:
    """``wdg segment check``: the send record against its seal (findings, never raises)."""
    try:
        Ledger(segment_dir)
    except (StateError, DataError) as e:
        return [Finding(str(ledger_path(segment_dir)), str(e))]
    return []
