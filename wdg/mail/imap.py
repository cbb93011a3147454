"""The IMAP client of the intake: IMAPS (993) or STARTTLS (143), the server's
certificate and host name always verified (:func:`wdg.mail.config.tls_context`),
a timeout at connect and at every reply.

:class:`ImapSession` wraps :mod:`imaplib` with what :mod:`wdg.mail.fetch` needs:
the mailbox's ``UIDVALIDITY``, the UIDs in it, a mail's bytes and its
``INTERNALDATE`` (the time the server put it into the mailbox) read without
setting ``\\Seen`` (``BODY.PEEK``), moving a mail to another folder (``UID MOVE``
where the server offers it, else ``COPY`` + ``\\Deleted`` + ``UID EXPUNGE``),
and ``IDLE`` for ``wdg mail watch``. Every failure becomes a German
:class:`~wdg.errors.StateError` naming the server and the stage.
"""

from __future__ import annotations

import imaplib
import re
import select
import socket
import ssl
import time
from dataclasses import dataclass
from datetime import datetime

from wdg.errors import StateError
from wdg.mail.config import ServerConfig, network_problem

FETCH_CHUNK = 50
"""UIDs per header FETCH."""
MOVE_CHUNK = 500
"""UIDs per MOVE (COPY) command."""


class ImapError(StateError):
    """The IMAP server could not be reached or refused something (German)."""


class ConnectionLost(ImapError):
    """The connection broke (server restarted, network gone): try again later."""


class ImapLoginRefused(ImapError):
    """The IMAP server refused the login, or the password is not there: a failure
    that does not heal by itself (``wdg mail watch`` ends on it)."""


def _describe(exc: BaseException) -> str:
    common = network_problem(exc, "ein IMAP-Server")
    if common is not None:
        return common
    text = exc.args[0] if exc.args else exc
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{type(exc).__name__}: {text}".rstrip(": ")


_MAXLINE: int = imaplib._MAXLINE  # type: ignore[attr-defined]  # imaplib's own limit, not in typeshed


class _Lines(imaplib.IMAP4):
    """imaplib's reading from the socket, with a buffer of our own whose contents we
    can see: imaplib reads through a buffered file object, and lines the server sent
    in the same packet as the one read (Dovecot's ``+ idling`` together with
    ``* 5 EXISTS``) would wait in that file's buffer, where ``select()`` on the socket
    cannot see them — IDLE would sleep on a change already received.

    A subclass of :class:`imaplib.IMAP4` placed before it (or before
    :class:`imaplib.IMAP4_SSL`) in the bases: ``super().open`` is then the plain or
    the TLS connection's own."""

    def open(self, *args, **kw):  # imaplib's signature
        self._rbuf = bytearray()
        return super().open(*args, **kw)

    def _recv(self) -> bool:
        data = self.sock.recv(65536)
        if not data:
            return False
        self._rbuf += data
        return True

    def read(self, size: int) -> bytes:
        buf = self._rbuf
        while len(buf) < size and self._recv():
            pass
        out = bytes(buf[:size])
        del buf[:size]
        return out

    def readline(self) -> bytes:
        buf = self._rbuf
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end >= 0:
                break
            if len(buf) > _MAXLINE:
                raise self.error(f"got more than {_MAXLINE} bytes")
            start = len(buf)
            if not self._recv():
                end = len(buf) - 1
                break
        out = bytes(buf[:end + 1])
        del buf[:end + 1]
        return out

    def has_line(self) -> bool:
        """Whether a whole line was received and not read yet."""
        return b"\n" in self._rbuf


class _IMAP4(_Lines, imaplib.IMAP4):
    """IMAP (+ STARTTLS) whose certificate is checked against ``cert_name``."""

    def __init__(self, host: str, port: int, timeout: float, cert_name: str) -> None:
        self._cert_name = cert_name
        super().__init__(host, port, timeout=timeout)

    def starttls(self, ssl_context=None):  # imaplib's signature
        host, self.host = self.host, self._cert_name  # imaplib passes self.host as SNI name
        try:
            return super().starttls(ssl_context=ssl_context)
        finally:
            self.host = host
            self._rbuf.clear()  # nothing sent before TLS is read after it (RFC 3501 11.1)


class _IMAP4SSL(_Lines, imaplib.IMAP4_SSL):
    """IMAPS whose certificate is checked against ``cert_name``."""

    def __init__(self, host: str, port: int, timeout: float, cert_name: str,
                 context: ssl.SSLContext) -> None:
        self._cert_name = cert_name
        super().__init__(host, port, ssl_context=context, timeout=timeout)

    def _create_socket(self, timeout):  # imaplib's hook
        sock = socket.create_connection((self.host, self.port), timeout)
        return self.ssl_context.wrap_socket(sock, server_hostname=self._cert_name)


@dataclass(slots=True)
class Fetched:
    """One mail as the server holds it."""

    uid: int
    raw: bytes
    internaldate: datetime | None


def quote(mailbox: str) -> str:
    """A mailbox name as an IMAP quoted string (modified UTF-7 for non-ASCII)."""
    return '"' + _utf7(mailbox).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _utf7(text: str) -> str:
    """RFC 3501 modified UTF-7 (mailbox names)."""
    import base64

    out: list[str] = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            data = "".join(buf).encode("utf-16-be")
            out.append("&" + base64.b64encode(data).decode().rstrip("=").replace("/", ",") + "-")
            buf.clear()

    for ch in text:
        if 0x20 <= ord(ch) <= 0x7e:
            flush()
            out.append("&-" if ch == "&" else ch)
        else:
            buf.append(ch)
    flush()
    return "".join(out)


def _from_utf7(text: str) -> str:
    """RFC 3501 modified UTF-7 back to text (folder names from LIST)."""
    import base64

    def dec(m: re.Match[str]) -> str:
        b = m.group(1)
        if not b:
            return "&"
        b = b.replace(",", "/")
        try:
            return base64.b64decode(b + "=" * (-len(b) % 4)).decode("utf-16-be")
        except (ValueError, UnicodeDecodeError):
            return m.group(0)

    return re.sub(r"&([A-Za-z0-9+,]*)-", dec, text)


_INTERNALDATE = re.compile(rb'INTERNALDATE "([^"]+)"')
_UID = re.compile(rb"UID (\d+)")
_SIZE = re.compile(rb"RFC822\.SIZE (\d+)")


def parse_internaldate(text: str) -> datetime | None:
    """``17-Jul-1996 02:44:25 -0700`` as an aware datetime."""
    try:
        return datetime.strptime(text.strip(), "%d-%b-%Y %H:%M:%S %z")
    except ValueError:
        return None


class ImapSession:
    """One connection to the configured IMAP server (a context manager).

    Opening it connects, secures the line (IMAPS, or STARTTLS — refused if the
    server does not offer it) with certificate and host name verified, and logs
    in; a failure raises :class:`ImapError` — with a bad certificate the password
    was never sent."""

    def __init__(self, config: ServerConfig, *, timeout: float | None = None) -> None:
        self.config = config
        self.timeout = config.timeout if timeout is None else timeout
        self.conn: imaplib.IMAP4 | None = None
        self.selected = ""
        self.uidvalidity = 0

    # --- connection ---------------------------------------------------------------------

    def __enter__(self) -> ImapSession:
        cfg = self.config
        try:
            password = cfg.password() if cfg.user else ""
        except StateError as exc:
            raise ImapLoginRefused(str(exc)) from None
        stage, at_login = "Verbindung zu", False  # the stage's words are for the message
        try:
            if cfg.security == "ssl":
                stage = "TLS-Verbindung (IMAPS) zu"
                self.conn = _IMAP4SSL(cfg.host, cfg.port, self.timeout, cfg.cert_name, cfg.context())
            else:
                self.conn = _IMAP4(cfg.host, cfg.port, self.timeout, cfg.cert_name)
                if cfg.security == "starttls":
                    stage = "STARTTLS mit"
                    if "STARTTLS" not in self.conn.capabilities:
                        raise imaplib.IMAP4.error("der Server bietet kein STARTTLS an; ohne "
                                                  "Verschlüsselung wird kein Passwort gesendet")
                    self.conn.starttls(ssl_context=cfg.context())
            if cfg.user:
                stage, at_login = "Anmeldung bei", True
                self.conn.login(cfg.user, password)
                # what the server offers after the login (RFC 3501 7.2.1: it may differ)
                typ, data = self.conn.capability()
                if typ == "OK" and data and isinstance(data[-1], bytes):
                    self.conn.capabilities = tuple(data[-1].decode("ascii", "replace")
                                                   .upper().split())
        except (OSError, imaplib.IMAP4.error, ssl.SSLError) as exc:
            self.close()
            refused = at_login and isinstance(exc, imaplib.IMAP4.error) \
                and not isinstance(exc, imaplib.IMAP4.abort)
            cls = ImapLoginRefused if refused else ImapError
            raise cls(f"{stage} dem IMAP-Server {cfg.where} gescheitert: {_describe(exc)}; "
                      "nichts abgeholt") from None
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(polite=exc[0] is None)

    def close(self, polite: bool = False) -> None:
        conn, self.conn = self.conn, None
        if conn is None:
            return
        try:
            if polite:
                conn.logout()
            else:
                conn.shutdown()
        except (OSError, imaplib.IMAP4.error, ssl.SSLError, AttributeError):
            try:
                conn.shutdown()
            except (OSError, AttributeError):  # closing a broken connection (or none)
                pass

    def _call(self, what: str, fn, *args):
        if self.conn is None:
            raise ConnectionLost(f"IMAP-Server {self.config.where}: keine Verbindung")
        try:
            typ, data = fn(*args)
        except (OSError, imaplib.IMAP4.abort, ssl.SSLError) as exc:
            self.close()
            raise ConnectionLost(f"IMAP-Server {self.config.where}: Verbindung verloren bei "
                                 f"{what} ({_describe(exc)})") from None
        except imaplib.IMAP4.error as exc:
            raise ImapError(f"IMAP-Server {self.config.where}: {what} abgelehnt "
                            f"({_describe(exc)})") from None
        if typ != "OK":
            detail = b" ".join(x for x in data if isinstance(x, bytes)).decode("utf-8", "replace")
            raise ImapError(f"IMAP-Server {self.config.where}: {what} abgelehnt ({typ} {detail})")
        return data

    # --- mailboxes ----------------------------------------------------------------------

    def select(self, mailbox: str) -> int:
        """Open ``mailbox`` for reading and writing; returns its UIDVALIDITY."""
        assert self.conn is not None
        self._call(f"Öffnen des Postfachs {mailbox!r}", self.conn.select,
                   quote(self.folder(mailbox)))
        _, data = self.conn.response("UIDVALIDITY")
        try:
            self.uidvalidity = int(data[-1])
        except (TypeError, ValueError, IndexError):
            self.uidvalidity = int(self._status(mailbox, "UIDVALIDITY"))
        self.selected = mailbox
        return self.uidvalidity

    def _status(self, mailbox: str, item: str) -> str:
        assert self.conn is not None
        data = self._call(f"STATUS {mailbox!r}", self.conn.status, quote(mailbox), f"({item})")
        m = re.search(rf"{item} (\d+)".encode(), data[0] or b"")
        return m.group(1).decode() if m else "0"

    def delimiter(self) -> str:
        """The server's hierarchy separator (``/`` or ``.``; ``LIST "" ""``)."""
        assert self.conn is not None
        if getattr(self, "_delimiter", None) is None:
            data = self._call("LIST", self.conn.list, '""', '""')
            m = re.match(rb'\([^)]*\) "((?:\\.|[^"])*)"', (data[0] or b"") if data else b"")
            self._delimiter = m.group(1).decode().replace("\\", "") if m else "/"
        return self._delimiter

    def folder(self, name: str) -> str:
        """A folder name as written in mail.yaml (levels separated by ``/``) in the
        server's own hierarchy separator: ``wdg/erledigt`` is ``wdg.erledigt`` on a
        server that separates with dots."""
        sep = self.delimiter()
        return name if sep in ("/", "") else name.replace("/", sep)

    def ensure_folder(self, mailbox: str) -> None:
        """Create ``mailbox`` (and its parents) unless it exists; subscribe to it."""
        assert self.conn is not None
        mailbox = self.folder(mailbox)
        data = self._call("LIST", self.conn.list, '""', quote(mailbox))
        if any(d for d in data if d):
            return
        try:
            self._call(f"Anlegen des Ordners {mailbox!r}", self.conn.create, quote(mailbox))
        except ConnectionLost:
            raise
        except ImapError:
            # created meanwhile by another client? then it is there now
            data = self._call("LIST", self.conn.list, '""', quote(mailbox))
            if not any(d for d in data if d):
                raise
        try:
            self._call("SUBSCRIBE", self.conn.subscribe, quote(mailbox))
        except ImapError as exc:
            if isinstance(exc, ConnectionLost):
                raise

    def uids(self) -> list[int]:
        """The UIDs of the selected mailbox's mails not marked deleted, ascending.

        This is the scan :meth:`idle` compares with: a new mail the server reports
        from here on (``* n EXISTS`` with the reply to this or any later command —
        mail that came in while the last scan's mails were being processed) makes
        the next :meth:`idle` return at once."""
        assert self.conn is not None
        self.conn.untagged_responses.pop("EXISTS", None)
        data = self._call("UID SEARCH", self.conn.uid, "SEARCH", "UNDELETED")
        return sorted(int(x) for x in b" ".join(d for d in data if d).split())

    def headers(self, uids: list[int], fields: tuple[str, ...]) -> dict[int, bytes]:
        """The named header fields of each mail (``BODY.PEEK``: \\Seen is not set)."""
        assert self.conn is not None
        out: dict[int, bytes] = {}
        wanted = " ".join(fields).upper()
        for i in range(0, len(uids), FETCH_CHUNK):
            chunk = ",".join(str(u) for u in uids[i:i + FETCH_CHUNK])
            data = self._call("FETCH", self.conn.uid, "FETCH", chunk,
                              f"(UID BODY.PEEK[HEADER.FIELDS ({wanted})])")
            for item in data:
                if isinstance(item, tuple):
                    m = _UID.search(item[0])
                    if m:
                        out[int(m.group(1))] = item[1]
        return out

    def summaries(self, uids: list[int], fields: tuple[str, ...],
                  limit: int) -> dict[int, tuple[bytes, int]]:
        """Each mail's named header fields — at most ``limit`` bytes of them (a
        partial fetch: a Subject folded 200,000 times costs ``limit`` bytes, not its
        size) — and its size (``RFC822.SIZE``), without setting \\Seen."""
        assert self.conn is not None
        out: dict[int, tuple[bytes, int]] = {}
        wanted = " ".join(fields).upper()
        for i in range(0, len(uids), FETCH_CHUNK):
            chunk = ",".join(str(u) for u in uids[i:i + FETCH_CHUNK])
            data = self._call("FETCH", self.conn.uid, "FETCH", chunk,
                              f"(UID RFC822.SIZE BODY.PEEK[HEADER.FIELDS ({wanted})]<0.{limit}>)")
            for item in data:
                if isinstance(item, tuple):
                    m = _UID.search(item[0])
                    z = _SIZE.search(item[0])
                    if m:
                        out[int(m.group(1))] = (item[1][:limit], int(z.group(1)) if z else -1)
        return out

    def fetch_bounded(self, uid: int, size: int, keep: int,
                      chunk: int = 1 << 20) -> tuple[Fetched, str] | None:
        """A mail larger than the import takes: its first ``keep`` bytes and the
        SHA-256 of all of it, read in partial fetches of ``chunk`` bytes
        (``BODY.PEEK[]<offset.chunk>``) so that memory stays at one chunk however
        big the mail is (a 51 MB mail: about 1 MB). ``None`` if it is gone."""
        import hashlib

        assert self.conn is not None
        h = hashlib.sha256()
        head = b""
        when = None
        offset = 0
        while True:
            data = self._call("FETCH", self.conn.uid, "FETCH", str(uid),
                              f"(UID INTERNALDATE BODY.PEEK[]<{offset}.{chunk}>)")
            part = None
            for item in data:
                if isinstance(item, tuple):
                    if when is None:
                        m = _INTERNALDATE.search(item[0])
                        when = parse_internaldate(m.group(1).decode()) if m else None
                    part = item[1]
                    break
            if part is None:
                if offset == 0:
                    return None
                break
            h.update(part)
            if len(head) < keep:
                head += part[:keep - len(head)]
            offset += len(part)
            del data, part
            if offset >= size or offset % chunk:
                break
        return Fetched(uid, head, when), h.hexdigest()

    def fetch(self, uid: int) -> Fetched | None:
        """One mail's bytes and INTERNALDATE (``None`` if it is gone meanwhile)."""
        assert self.conn is not None
        data = self._call("FETCH", self.conn.uid, "FETCH", str(uid), "(UID INTERNALDATE BODY.PEEK[])")
        for item in data:
            if isinstance(item, tuple):
                m = _INTERNALDATE.search(item[0])
                when = parse_internaldate(m.group(1).decode()) if m else None
                return Fetched(uid, item[1], when)
        return None

    def move(self, uids: list[int], target: str) -> None:
        """Move mails to ``target`` (atomic ``UID MOVE`` where offered)."""
        assert self.conn is not None
        if not uids:
            return
        if len(uids) > MOVE_CHUNK:  # a command line of bounded length
            for i in range(0, len(uids), MOVE_CHUNK):
                self.move(uids[i:i + MOVE_CHUNK], target)
            return
        target = self.folder(target)
        ids = ",".join(str(u) for u in uids)
        if "MOVE" in self.conn.capabilities:
            self._call(f"Verschieben nach {target!r}", self.conn.uid, "MOVE", ids, quote(target))
            return
        self._call(f"Kopieren nach {target!r}", self.conn.uid, "COPY", ids, quote(target))
        self._call("Löschen", self.conn.uid, "STORE", ids, "+FLAGS.SILENT", r"(\Deleted)")
        if "UIDPLUS" in self.conn.capabilities:
            self._call("UID EXPUNGE", self.conn.uid, "EXPUNGE", ids)
        else:
            self._call("EXPUNGE", self.conn.expunge)

    # --- IDLE ---------------------------------------------------------------------------

    @property
    def has_idle(self) -> bool:
        """Whether the server offers IDLE (after the login)."""
        return self.conn is not None and "IDLE" in self.conn.capabilities

    def list_folders(self) -> list[tuple[str, str]]:
        """Every folder as ``(flags, name)``, the name with ``/`` between levels
        (as mail.yaml writes it), the flags as the server sent them (``\\Junk`` …)."""
        assert self.conn is not None
        data = self._call("LIST", self.conn.list, '""', '"*"')
        sep = self.delimiter()
        out = []
        for item in data or []:
            if not isinstance(item, bytes):
                continue
            m = re.match(rb'\(([^)]*)\) (?:"(?:\\.|[^"])*"|NIL) (.*)$', item)
            if not m:
                continue
            name = m.group(2).decode("utf-8", "replace").strip()
            if name.startswith('"') and name.endswith('"'):
                name = name[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            name = _from_utf7(name)
            if sep and sep != "/":
                name = name.replace(sep, "/")
            out.append((m.group(1).decode("ascii", "replace"), name))
        return out

    def examine(self, mailbox: str) -> int:
        """Open ``mailbox`` read-only (EXAMINE); returns its UIDVALIDITY."""
        assert self.conn is not None
        self._call(f"Öffnen des Ordners {mailbox!r}", self.conn.select,
                   quote(self.folder(mailbox)), True)
        _, data = self.conn.response("UIDVALIDITY")
        try:
            self.uidvalidity = int(data[-1])
        except (TypeError, ValueError, IndexError):
            self.uidvalidity = 0
        self.selected = ""
        return self.uidvalidity

    def idle(self, seconds: float, stop=None) -> bool:
        """Wait (IMAP IDLE, RFC 2177) until the server reports a change in the
        selected mailbox or ``seconds`` pass; True when something changed.
        ``stop()`` is polled about once a second and ends the wait early.

        A new mail the server reported before (with the reply to a command after the
        last :meth:`uids`) is a change: True at once, without IDLE — the server does
        not report it again."""
        conn = self.conn
        if conn is None:
            raise ConnectionLost(f"IMAP-Server {self.config.where}: keine Verbindung")
        if conn.untagged_responses.get("EXISTS"):
            return True
        if not self.has_idle:
            # no IDLE (RFC 2177) on this server: look again after ``seconds``
            # (``wdg mail watch`` passes imap.poll_seconds), ``stop()`` polled meanwhile
            end = time.monotonic() + seconds
            while time.monotonic() < end and not (stop is not None and stop()):
                time.sleep(min(0.2, max(0.0, end - time.monotonic())))
            return True
        tag = conn._new_tag().decode()  # imaplib has no IDLE (before 3.14)
        sock = conn.sock
        changed = False
        try:
            conn.send(f"{tag} IDLE\r\n".encode())
            line = conn.readline()
            while line.startswith(b"* "):  # news sent before the go-ahead
                changed = changed or bool(re.search(rb"\b(EXISTS|RECENT)\b", line))
                line = conn.readline()
            if not line.startswith(b"+"):
                raise ImapError(f"IMAP-Server {self.config.where}: IDLE abgelehnt "
                                f"({line.decode('utf-8', 'replace').strip()})")
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline and not changed:
                if stop is not None and stop():
                    break
                # wait for the server with select(), not with a socket timeout: after a
                # timeout imaplib's file object refuses to read on
                wait = min(1.0, max(0.05, deadline - time.monotonic()))
                pending = conn.has_line() or (
                    isinstance(sock, ssl.SSLSocket) and sock.pending() > 0)
                if not pending and not select.select([sock], [], [], wait)[0]:
                    continue
                line = conn.readline()
                if not line:
                    raise OSError("Verbindung vom Server geschlossen")
                if re.search(rb"\b(EXISTS|RECENT|EXPUNGE|FETCH)\b", line):
                    changed = True
                elif line.startswith(b"* BYE"):
                    raise OSError(line.decode("utf-8", "replace").strip())
            conn.send(b"DONE\r\n")
            while True:
                line = conn.readline()
                if not line:
                    raise OSError("Verbindung vom Server geschlossen")
                if line.startswith(tag.encode()):
                    break
                if re.search(rb"\b(EXISTS|RECENT)\b", line):
                    changed = True
        except (OSError, imaplib.IMAP4.abort, ssl.SSLError) as exc:
            self.close()
            raise ConnectionLost(f"IMAP-Server {self.config.where}: Verbindung verloren "
                                 f"({_describe(exc)})") from None
        return changed


