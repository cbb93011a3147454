"""Reading a mailbox: the raw mails of an mbox file or a Maildir directory,
streamed, each with where and when it arrived (:class:`Incoming`), for the
intake (:mod:`wdg.orders.intake`) and the IMAP fetch (:mod:`wdg.mail.fetch`).
"""

from __future__ import annotations

import hashlib
import mailbox
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from wdg.errors import InvalidInputError

@dataclass(slots=True)
class Incoming:
    """One raw mail with where and when it arrived. A mail larger than the
    import's size limit holds only its first :data:`KEEP_BYTES` bytes in
    ``raw`` (``truncated``), with the size and hash of the whole mail."""

    raw: bytes
    position: int
    delivered: datetime | None = None
    """The mailbox's own delivery time (mbox ``From_`` line, Maildir file)."""
    server_time: datetime | None = None
    """The time the game master's mail server received the mail into the
    mailbox (IMAP ``INTERNALDATE``, :mod:`wdg.mail.fetch`): trusted first."""
    place: str = ""
    """Where an IMAP mail sits (:func:`wdg.store.seen.place`), for the intake record."""
    size: int = -1
    """Bytes of the whole mail (-1: ``len(raw)``)."""
    sha256: str = ""
    """SHA-256 of the whole mail (empty: that of ``raw``)."""
    truncated: bool = False

    @property
    def total(self) -> int:
        return len(self.raw) if self.size < 0 else self.size

    @property
    def digest(self) -> str:
        return self.sha256 or hashlib.sha256(self.raw).hexdigest()


KEEP_BYTES = 65_536
"""Of a mail over the size limit only this many bytes are read into memory and
kept in quarantine, with the size and SHA-256 of the whole mail."""
CHUNK = 1 << 20


_MAILDIR_TIME = re.compile(r"^(\d{9,11})(?:\.M(\d{1,6}))?")


def read_mailbox(path: Path, max_bytes: int | None = None) -> list[Incoming]:
    """The raw mails of an mbox file (in file order) or a Maildir directory (in
    delivery order) as a list (:func:`iter_mailbox` streams them)."""
    return list(iter_mailbox(path, max_bytes))


def iter_mailbox(path: Path, max_bytes: int | None = None) -> Iterator[Incoming]:
    """The raw mails of an mbox file (in file order) or a Maildir directory (in
    delivery order), one at a time, each with its delivery time where the
    mailbox records one. Memory stays flat in the mailbox's size: one mail is
    held at a time, and of a mail over ``max_bytes`` only its first
    :data:`KEEP_BYTES` (its size and SHA-256 are taken while reading past them)."""
    if path.is_dir():
        yield from _iter_maildir(path, max_bytes)
        return
    if not path.is_file():
        raise InvalidInputError(f"kein Postfach unter {str(path)!r}; erwartet eine mbox-Datei oder ein Maildir")
    yield from _iter_mbox(path, max_bytes)


class _Collector:
    """The bytes of one mail as they stream by: all of them, or (over the
    limit) the first :data:`KEEP_BYTES` plus the size and hash of all."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.held = 0
        self.size = 0
        self.hash = hashlib.sha256()
        self.truncated = False

    def add(self, data: bytes) -> None:
        self.size += len(data)
        self.hash.update(data)
        if self.truncated:
            return
        self.parts.append(data)
        self.held += len(data)
        if self.limit is not None and self.held > self.limit:
            kept = b"".join(self.parts)[:KEEP_BYTES]
            self.parts, self.held, self.truncated = [kept], len(kept), True

    def incoming(self, position: int, delivered: datetime | None) -> Incoming:
        raw = b"".join(self.parts)
        if not self.truncated:
            return Incoming(raw, position, delivered)
        return Incoming(raw, position, delivered, size=self.size,
                        sha256=self.hash.hexdigest(), truncated=True)


def _iter_mbox(path: Path, max_bytes: int | None) -> Iterator[Incoming]:
    """An mbox file read line by line, split exactly as :class:`mailbox.mbox`
    splits it: every line starting with ``From `` begins the next mail, and the
    blank line before it (and at the end of the file) is the separator, not
    part of the mail; text before the first ``From `` line is no mail."""
    position = 0
    current: _Collector | None = None
    delivered: datetime | None = None
    blank = b""
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"From "):
                if current is not None:
                    yield current.incoming(position, delivered)
                position += 1
                current = _Collector(max_bytes)
                delivered = _from_line_date(line.rstrip(b"\r\n"))
                blank = b""
                continue
            if current is None:
                continue
            if blank:
                current.add(blank)
                blank = b""
            if line == b"\n":
                blank = line
            else:
                current.add(line)
    if current is not None:
        yield current.incoming(position, delivered)


def _from_line_date(line: bytes) -> datetime | None:
    """The delivery time of an mbox ``From_`` line (``From sender Wed May  1
    10:00:00 2024``, the delivering host's local time: naive here, read in the
    segment's time zone by the import); ``None`` for a library's placeholder
    (MAILER-DAEMON)."""
    try:
        text = line.decode("ascii", errors="replace").strip()
        parts = text.split()
        if len(parts) < 7 or parts[1] == "MAILER-DAEMON":
            return None
        return datetime.strptime(" ".join(parts[-5:]), "%a %b %d %H:%M:%S %Y")
    except (ValueError, IndexError):
        return None


def _iter_maildir(path: Path, max_bytes: int | None) -> Iterator[Incoming]:
    box = mailbox.Maildir(str(path), factory=None, create=False)
    items = []
    try:
        for key in box.keys():
            # the file's path inside the Maildir
            sub = box._lookup(key)  # type: ignore[attr-defined]  # mailbox's own lookup, not in typeshed
            file = path / sub
            mt = _MAILDIR_TIME.match(os.path.basename(sub))
            if mt:
                when = int(mt.group(1)) + int((mt.group(2) or "0").ljust(6, "0")) / 1e6
            else:
                when = file.stat().st_mtime
            items.append((when, os.path.basename(sub), file))
    finally:
        box.close()
    items.sort(key=lambda t: (t[0], t[1]))
    for i, (when, _, file) in enumerate(items, start=1):
        got = _Collector(max_bytes)
        with open(file, "rb") as f:
            while chunk := f.read(CHUNK):
                got.add(chunk)
        yield got.incoming(i, datetime.fromtimestamp(when, tz=timezone.utc))
