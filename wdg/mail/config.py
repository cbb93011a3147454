"""``worlds/<segment>/mail.yaml``: the campaign's mail servers, its sender, its secrets.

The schema (docs/gamemaster.md, ``notes/INTERFACES.md``)::

    from: "Segmentleiter Canura <sl@example.org>"
    smtp:  {host, port, security: starttls|ssl|plain, user, password_env | password_file,
            cafile, server_name, timeout}
    imap:  {host, port, security: ssl|starttls, user, password_env | password_file, cafile,
            server_name, timeout, mailbox, done_folder, foreign_folder, accept: {...}}
    limits: {window_minutes, same_command, answers_per_sender, answers_per_kingdom,
             password_notice_hours, password_alert_after, keep_days}   (wdg.mail.guard)

The old flat form (``host``, ``port``, ``starttls``, ``user``, ``password_env``,
``from`` at the top level) is read as the ``smtp`` section.

Passwords never stand in the YAML: ``password_env`` names an environment
variable, ``password_file`` a file that must belong to the user running wdg and
be readable by nobody else (mode 0600 or 0400) — anything else is refused
before a connection is opened. TLS always verifies the server's certificate and
host name (:func:`tls_context`); ``cafile`` adds a CA (a test CA, a company CA)
to the system's, it never turns verification off. ``security: plain`` is allowed
only for a server on the loopback address.
"""

from __future__ import annotations

import os
import ssl
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wdg.errors import DataError, StateError
from wdg.fsio import german_strerror
from wdg.rules import safe_load_file

MAIL_FILE = "mail.yaml"
LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
DEFAULT_SENDER = "segmentleiter@localhost"
POLL_SECONDS = 15.0
"""``imap.poll_seconds`` when not set: a server without IDLE is asked this often."""

SERVER_KEYS = frozenset({"host", "port", "security", "user", "password_env", "password_file",
                         "cafile", "server_name", "timeout"})
"""The keys of an ``smtp:`` section."""
IMAP_KEYS = SERVER_KEYS | {"mailbox", "done_folder", "accept", "folders", "poll_seconds",
                           "foreign_folder"}
"""The keys of the ``imap:`` section."""
TOP_KEYS = frozenset({"from", "smtp", "imap", "answers", "limits"})
"""The keys at the top of ``mail.yaml``."""
HINTS = {"mailboxes": "folders", "folder": "folders", "ordner": "folders",
         "postfaecher": "folders", "poll": "poll_seconds", "interval": "poll_seconds"}
"""Guessed keys and the key meant (for the refusal's hint)."""
FLAT_KEYS = (SERVER_KEYS - {"security"}) | {"starttls", "security"}
"""The old flat form's keys (the ``smtp`` section at the top)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One server (SMTP or IMAP) of ``mail.yaml``."""

    kind: str
    """``smtp`` or ``imap``."""
    host: str
    port: int
    security: str
    """``ssl`` (TLS from the first byte: SMTPS 465, IMAPS 993), ``starttls`` or
    ``plain`` (loopback only)."""
    user: str = ""
    password_env: str = ""
    password_file: str = ""
    cafile: str = ""
    server_name: str = ""
    """The name the server's certificate must carry when it differs from
    ``host`` (a server reached by its IP address); verified all the same."""
    timeout: float = 30.0
    """Seconds to wait for the server at connect and at every reply."""
    source: str = ""
    """The file this came from (for messages)."""

    def password(self) -> str:
        """The password from the environment variable or the protected file.

        Raises :class:`StateError` (German) when it is configured but missing,
        or when the file is not the user's own or readable by others."""
        if self.password_env:
            value = os.environ.get(self.password_env, "")
            if not value:
                raise StateError(
                    f"{self.source}: das Passwort für den {self.kind.upper()}-Server wird in der "
                    f"Umgebungsvariablen {self.password_env!r} erwartet, die leer oder nicht "
                    "gesetzt ist; " + ("nichts gesendet" if self.kind == "smtp"
                                       else "nichts abgeholt"))
            return value
        if self.password_file:
            return read_password_file(Path(self.password_file).expanduser(), self.source)
        return ""

    def context(self) -> ssl.SSLContext:
        """The TLS context for this server (certificate and host name verified)."""
        return tls_context(self.cafile or None)

    @property
    def cert_name(self) -> str:
        """The host name the certificate is checked against."""
        return self.server_name or self.host

    @property
    def where(self) -> str:
        """``host:port`` for messages."""
        return f"{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class ImapConfig(ServerConfig):
    """The game master's mailbox (``imap:``)."""

    mailbox: str = "INBOX"
    done_folder: str = "wdg/erledigt"
    foreign_folder: str = "wdg/fremd"
    """Where mail that is not for the game is moved once judged, so that no later
    call judges it again (issue #39); ``""`` leaves it in the mailbox."""
    accept: dict[str, Any] = field(default_factory=dict)
    """The rule for "mail for the game" (defined and checked by the intake)."""
    folders: tuple[str, ...] = ()
    """Further folders read besides ``mailbox`` (``folders: [INBOX, Junk]``: a
    provider's spam filter files a sheet into ``Junk``)."""
    poll_seconds: float = POLL_SECONDS
    """How often ``wdg mail watch`` looks when the server offers no IDLE (and how
    often it looks into ``folders`` other than ``mailbox``)."""

    @property
    def read_folders(self) -> tuple[str, ...]:
        """Every folder a fetch reads: ``mailbox`` first, then ``folders``."""
        return tuple(dict.fromkeys((self.mailbox, *self.folders)))


@dataclass(frozen=True, slots=True)
class MailConfig:
    """The whole ``mail.yaml``."""

    path: Path
    sender: str = DEFAULT_SENDER
    """``from:``: the From of every mail wdg sends."""
    smtp: ServerConfig | None = None
    imap: ImapConfig | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    """The file as read (for keys other parts of wdg define)."""


def tls_context(cafile: str | Path | None = None) -> ssl.SSLContext:
    """A client TLS context that always verifies: the system's CAs (plus
    ``cafile`` if given), certificate chain and host name checked, TLS 1.2 or
    newer. There is deliberately no way to switch verification off."""
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    if cafile:
        try:
            ctx.load_verify_locations(cafile=str(cafile))
        except (OSError, ssl.SSLError) as exc:
            raise StateError(f"cafile {str(cafile)!r} läßt sich nicht als CA-Zertifikat laden "
                             f"({exc}); erwartet wird eine PEM-Datei") from None
    ctx.check_hostname = True
    ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


def network_problem(exc: BaseException, server: str) -> str | None:
    """German words for the failures SMTP and IMAP share — a certificate refused, no
    answer in time, the connection refused (``server``: "ein Mailserver", "ein
    IMAP-Server") — or ``None`` for anything else."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"das Zertifikat des Servers ist nicht gültig ({exc.verify_message})"
    if isinstance(exc, TimeoutError) or "timed out" in str(exc):
        return "keine Antwort in der gesetzten Zeit"
    if isinstance(exc, ConnectionRefusedError):
        return f"Verbindung abgelehnt (läuft dort {server}?)"
    return None


def read_password_file(path: Path, source: str = "mail.yaml") -> str:
    """The first line of a password file that belongs to the current user and
    that nobody else may read or write (0600/0400); refused otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise StateError(f"{source}: die Passwortdatei {str(path)!r} gibt es nicht") from None
    except OSError as exc:
        raise StateError(f"{source}: die Passwortdatei {str(path)!r} läßt sich nicht öffnen "
                         f"({german_strerror(exc)}); ein symbolischer Link wird nicht angenommen") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StateError(f"{source}: {str(path)!r} ist keine gewöhnliche Datei")
        if st.st_uid != os.getuid():
            raise StateError(
                f"{source}: die Passwortdatei {str(path)!r} gehört nicht dem Benutzer, der wdg "
                f"ausführt (Eigentümer uid {st.st_uid}, wdg läuft als uid {os.getuid()}); "
                "abgelehnt — 'chown' sie dem eigenen Benutzer")
        if st.st_mode & 0o077:
            raise StateError(
                f"{source}: die Passwortdatei {str(path)!r} ist für andere lesbar oder "
                f"schreibbar (Rechte {stat.S_IMODE(st.st_mode):04o}); abgelehnt — "
                f"'chmod 600 {path}' macht sie nur für ihren Eigentümer lesbar")
        data = b""
        while chunk := os.read(fd, 65536):
            data += chunk
    finally:
        os.close(fd)
    line = data.decode("utf-8", "replace").splitlines()
    if not line or not line[0]:
        raise StateError(f"{source}: die Passwortdatei {str(path)!r} ist leer")
    return line[0]


def refuse_unknown(data: dict, allowed: frozenset[str] | set[str], path: Path,
                   prefix: str = "") -> None:
    """A key mail.yaml does not know is refused with its name (a guessed
    ``mailboxes:`` must not be silently ignored)."""
    import difflib

    for key in data:
        if key in allowed:
            continue
        near = [HINTS[key]] if key in HINTS and HINTS[key] in allowed else \
            difflib.get_close_matches(str(key), sorted(allowed), n=1, cutoff=0.6)
        hint = f" (gemeint: {prefix}{near[0]}?)" if near else ""
        raise DataError(str(path), f"{prefix}{key}", "(unbekannter Schlüssel)",
                        f"einen der Schlüssel {', '.join(sorted(allowed))}{hint}; "
                        "der Schlüssel wird nicht stillschweigend übergangen — "
                        "docs/gamemaster.md beschreibt mail.yaml")


def _str(data: dict, key: str, where: str, path: Path, default: str = "") -> str:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise DataError(str(path), f"{where}{key}", value, "Text")
    return value


def _server(data: Any, kind: str, path: Path, prefix: str, *, flat: bool = False) -> dict:
    """The common keys of a server section, checked."""
    if not isinstance(data, dict):
        raise DataError(str(path), prefix.rstrip("."), data,
                        f"einen Abschnitt mit host, port, security ... für {kind.upper()}")
    for secret in ("password", "passwort", "pass"):
        if secret in data:
            raise DataError(str(path), f"{prefix}{secret}", "(ein Passwort)",
                            "kein Passwort in der YAML-Datei: password_env (Name einer "
                            "Umgebungsvariablen) oder password_file (Datei mit Rechten 0600)")
    refuse_unknown(data, FLAT_KEYS | TOP_KEYS if flat else
                   (IMAP_KEYS if kind == "imap" else SERVER_KEYS), path, prefix)
    host = data.get("host")
    if not isinstance(host, str) or not host.strip():
        raise DataError(str(path), f"{prefix}host", host, f"den Namen des {kind.upper()}-Servers")
    if flat:
        starttls = data.get("starttls", True)
        if not isinstance(starttls, bool):
            raise DataError(str(path), "starttls", starttls, "true oder false")
        security = data.get("security", "starttls" if starttls else "plain")
    else:
        security = data.get("security", "ssl" if kind == "imap" else "starttls")
    allowed = ("starttls", "ssl", "plain") if kind == "smtp" else ("ssl", "starttls", "plain")
    if security not in allowed:
        raise DataError(str(path), f"{prefix}security", security, " | ".join(allowed))
    if security == "plain" and host.strip() not in LOOPBACK:
        raise DataError(str(path), f"{prefix}security", security,
                        "starttls oder ssl: unverschlüsselt (plain) nur zu einem Server auf "
                        "127.0.0.1/::1 (das Passwort ginge sonst im Klartext übers Netz)")
    default_port = {("smtp", "starttls"): 587, ("smtp", "ssl"): 465, ("smtp", "plain"): 25,
                    ("imap", "ssl"): 993, ("imap", "starttls"): 143, ("imap", "plain"): 143}
    port = data.get("port", default_port[(kind, security)])
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise DataError(str(path), f"{prefix}port", port, "eine Portnummer 1..65535")
    timeout = data.get("timeout", 30)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= 600:
        raise DataError(str(path), f"{prefix}timeout", timeout,
                        "Sekunden, die auf den Server gewartet wird, 1..600")
    env = _str(data, "password_env", prefix, path)
    pfile = _str(data, "password_file", prefix, path)
    if env and pfile:
        raise DataError(str(path), f"{prefix}password_file", pfile,
                        "entweder password_env oder password_file, nicht beides")
    cafile = _str(data, "cafile", prefix, path)
    if cafile:
        cafile = str(Path(cafile).expanduser() if Path(cafile).expanduser().is_absolute()
                     else (path.parent / cafile))
    return dict(kind=kind, host=host.strip(), port=port, security=security,
                user=_str(data, "user", prefix, path), password_env=env, password_file=pfile,
                cafile=cafile, server_name=_str(data, "server_name", prefix, path).strip(),
                timeout=float(timeout), source=str(path))


def load_mail_config(segment_dir: Path) -> MailConfig | None:
    """``segment_dir/mail.yaml`` checked (without one: the campaign's ``mail.yaml``
    beside ``worlds/``, if any), or ``None`` when there is none.

    Bad values raise :class:`DataError` naming the file and key (German)."""
    path = segment_dir / MAIL_FILE
    if not path.is_file():
        # one mailbox for the world: the campaign's mail.yaml (beside worlds/)
        # serves every segment without its own (docs/world.md)
        shared = segment_dir.parent.parent / MAIL_FILE
        if segment_dir.parent.name != "worlds" or not shared.is_file():
            return None
        path = shared
    data = safe_load_file(path) or {}
    if not isinstance(data, dict):
        raise DataError(str(path), None, data, "eine Zuordnung mit from, smtp und imap")
    if "smtp" in data or "host" not in data:
        refuse_unknown(data, TOP_KEYS, path)
    sender = data.get("from", DEFAULT_SENDER)
    if not isinstance(sender, str) or "@" not in sender or "\n" in sender or "\r" in sender:
        raise DataError(str(path), "from", sender,
                        "eine Absenderadresse, z.B. \"Segmentleiter <sl@example.org>\"")
    smtp = imap = None
    if "smtp" in data:
        smtp = ServerConfig(**_server(data["smtp"], "smtp", path, "smtp."))
    elif "host" in data:  # the old flat form
        smtp = ServerConfig(**_server(data, "smtp", path, "", flat=True))
    if "imap" in data:
        section = data["imap"]
        common = _server(section, "imap", path, "imap.")
        accept = section.get("accept") or {}
        if not isinstance(accept, dict):
            raise DataError(str(path), "imap.accept", accept,
                            "eine Zuordnung (z.B. subject: ..., to: ...)")
        folders = section.get("folders") or []
        if isinstance(folders, str):
            folders = [folders]
        if not isinstance(folders, list) or not all(isinstance(f, str) and f.strip()
                                                   for f in folders):
            raise DataError(str(path), "imap.folders", folders,
                            "eine Liste von Ordnernamen, z.B. [INBOX, Junk]")
        poll = section.get("poll_seconds", POLL_SECONDS)
        if not isinstance(poll, (int, float)) or isinstance(poll, bool) or not 1 <= poll <= 600:
            raise DataError(str(path), "imap.poll_seconds", poll,
                            "Sekunden zwischen zwei Blicken ins Postfach, 1..600")
        imap = ImapConfig(**common, mailbox=_str(section, "mailbox", "imap.", path, "INBOX"),
                          done_folder=_str(section, "done_folder", "imap.", path, "wdg/erledigt"),
                          foreign_folder=_str(section, "foreign_folder", "imap.", path,
                                              "wdg/fremd").strip(),
                          accept=dict(accept), folders=tuple(f.strip() for f in folders),
                          poll_seconds=float(poll))
    config = MailConfig(path, sender.strip(), smtp, imap, dict(data))
    from wdg.mail.guard import limits  # here, not at the top: guard imports alerts, which imports this module

    limits(config)  # limits: checked here, before anything is fetched or sent
    return config
