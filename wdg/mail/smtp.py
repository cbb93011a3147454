"""The SMTP client: SMTPS (port 465) or STARTTLS, the server's certificate
always verified, a timeout at connect and at every reply.

:class:`SmtpSession` opens one connection for a batch of mails. Its
:meth:`SmtpSession.send` walks the SMTP dialogue itself (``MAIL``, ``RCPT``,
``DATA``) so that it knows how far a mail got: before the final ``.`` of
``DATA`` the server cannot have accepted it (a failure there is a clean "not
sent"); after the ``.`` the server's reply decides, and while that reply is
awaited and recorded, Ctrl-C and SIGTERM are held back (:func:`held_signals`)
so an interrupt can never leave a mail that the server accepted looking
unsent. Only a hard kill (SIGKILL, power loss) or a connection lost in exactly
that moment leaves the outcome unknown — SMTP has no way to close that window
(the server may have said 250 just before the line broke); the send record
(:mod:`wdg.store.sent`) keeps such a mail as *uncertain* and never sends it
again on its own.
"""

from __future__ import annotations

import re
import smtplib
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parseaddr

from wdg.errors import StateError
from wdg.mail.config import ServerConfig, network_problem
from wdg.store.sent import held_signals  # part of this module's API


class SmtpError(StateError):
    """The SMTP server could not be reached or refused the connection (German);
    nothing was sent."""


class SmtpLoginRefused(SmtpError):
    """The SMTP server refused the login, or the password is not there (its
    variable empty, its file missing): a failure that does not heal by itself."""


class NotSent(Exception):
    """The server did not take the mail, and certainly did not accept it.

    ``permanent``: a 5xx answer (unknown recipient ...): sending it again will
    not help. Otherwise (4xx, a connection that failed before ``DATA`` ended)
    a later try may succeed."""

    def __init__(self, answer: str, permanent: bool) -> None:
        super().__init__(answer)
        self.answer = answer
        self.permanent = permanent


class Uncertain(Exception):
    """The message was handed over completely but the server's reply was not
    received (connection lost, no answer in time): it may have been accepted."""


@dataclass(frozen=True, slots=True)
class Accepted:
    """The server's acceptance of a mail (``250 ...``)."""

    answer: str


def _data_bytes(raw: bytes) -> bytes:
    """The message as the DATA phase sends it: CRLF line ends, leading dots
    doubled, the terminating ``CRLF . CRLF``."""
    text = re.sub(rb"\r\n|\r|\n", b"\r\n", raw)
    text = re.sub(rb"(?m)^\.", b"..", text)
    if not text.endswith(b"\r\n"):
        text += b"\r\n"
    return text + b".\r\n"


def _answer(code: int, resp: bytes | str) -> str:
    text = resp.decode("utf-8", "replace") if isinstance(resp, bytes) else str(resp)
    return f"{code} {' '.join(text.split())}".strip()


def _describe(exc: BaseException) -> str:
    common = network_problem(exc, "ein Mailserver")
    if common is not None:
        return common
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return f"Anmeldung abgelehnt ({_answer(exc.smtp_code, exc.smtp_error)})"
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return "der Server bietet kein STARTTLS an; ohne Verschlüsselung wird nichts gesendet"
    if isinstance(exc, smtplib.SMTPResponseException):
        return _answer(exc.smtp_code, exc.smtp_error)
    return f"{type(exc).__name__}: {exc}".rstrip(": ")


class _SMTPS(smtplib.SMTP_SSL):
    """SMTPS whose certificate is checked against ``cert_name`` (the host name
    of the certificate when the server is reached by address)."""

    def __init__(self, host: str, port: int, *, timeout: float, context: ssl.SSLContext,
                 cert_name: str) -> None:
        self._cert_name = cert_name
        super().__init__(host, port, timeout=timeout, context=context)

    def _get_socket(self, host, port, timeout):  # smtplib's hook
        sock = socket.create_connection((host, port), timeout, self.source_address)
        return self.context.wrap_socket(sock, server_hostname=self._cert_name)


class SmtpSession:
    """One connection to the configured SMTP server (a context manager).

    Opening it connects, secures the line (SMTPS, or STARTTLS — refused if the
    server does not offer it) with certificate and host name verified, and
    logs in if a user is configured; a failure raises :class:`StateError` in
    German naming the server and the stage — nothing has been sent then, and
    with a bad certificate the password was never sent."""

    def __init__(self, config: ServerConfig, *, timeout: float | None = None) -> None:
        self.config = config
        self.timeout = config.timeout if timeout is None else timeout
        self.smtp: smtplib.SMTP | None = None
        self.broken = False
        self.handed_over = False
        """True from the final '.' of a mail until its outcome was recorded."""

    def __enter__(self) -> SmtpSession:
        cfg = self.config
        try:
            password = cfg.password() if cfg.user else ""
        except StateError as exc:
            raise SmtpLoginRefused(str(exc)) from None
        stage = "Verbindung zu"
        try:
            if cfg.security == "ssl":
                stage = "TLS-Verbindung (SMTPS) zu"
                self.smtp = _SMTPS(cfg.host, cfg.port, timeout=self.timeout,
                                   context=cfg.context(), cert_name=cfg.cert_name)
            else:
                self.smtp = smtplib.SMTP(cfg.host, cfg.port, timeout=self.timeout)
                if cfg.security == "starttls":
                    stage = "STARTTLS mit"
                    self.smtp.ehlo()
                    if not self.smtp.has_extn("starttls"):
                        raise smtplib.SMTPNotSupportedError("STARTTLS")
                    # what starttls() verifies against
                    self.smtp._host = cfg.cert_name  # type: ignore[attr-defined]  # smtplib's attribute, not in typeshed
                    self.smtp.starttls(context=cfg.context())
                    self.smtp.ehlo()
            self.smtp.ehlo_or_helo_if_needed()
            if cfg.user:
                stage = "Anmeldung bei"
                self.smtp.login(cfg.user, password)
        except (OSError, smtplib.SMTPException) as exc:
            self._close()
            cls = SmtpLoginRefused if isinstance(exc, smtplib.SMTPAuthenticationError) \
                else SmtpError
            raise cls(f"{stage} dem SMTP-Server {cfg.where} gescheitert: "
                      f"{_describe(exc)}; nichts gesendet") from None
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._close(polite=not self.broken and exc[0] is None)

    def _close(self, polite: bool = False) -> None:
        if self.smtp is None:
            return
        try:
            if polite:
                self.smtp.quit()
            else:
                self.smtp.close()
        except (OSError, smtplib.SMTPException):
            self.smtp.close()
        self.smtp = None

    def send(self, sender: str, recipient: str, raw: bytes,
             record: Callable[[Accepted | NotSent | Uncertain], None] | None = None,
             before_end: Callable[[], None] | None = None) -> Accepted:
        """Send one message to one recipient.

        Returns :class:`Accepted` on the server's 2xx after ``DATA``; raises
        :class:`NotSent` when the server refused or the line failed before the
        message was complete, :class:`Uncertain` when it failed after.
        ``record`` is called with the outcome of the final ``.`` while Ctrl-C
        and SIGTERM are held back (from the ``.`` until ``record`` returned):
        an interrupt cannot fall between the server's answer and the record.
        ``before_end`` is called (signals held back too) when the whole message
        is with the server and only the final ``.`` is missing — the send record
        writes its intent there: a process killed anywhere before it leaves no
        intent, and the server, whose DATA was never ended, has accepted nothing
        (issue #39: mails killed in mid-transfer were held as uncertain)."""
        if self.smtp is None or self.broken:
            raise NotSent("keine Verbindung zum Server", permanent=False)
        smtp = self.smtp
        envelope_from = parseaddr(sender)[1] or sender
        try:
            for command, arg, good in (("mail", envelope_from, (250,)),
                                       ("rcpt", recipient, (250, 251)),
                                       ("data", None, (354,))):
                code, resp = (smtp.docmd("DATA") if command == "data"
                              else getattr(smtp, command)(arg))
                if code not in good:
                    smtp.rset()
                    raise NotSent(_answer(code, resp), permanent=500 <= code < 600)
            body = _data_bytes(raw)
            smtp.send(body[:-3])  # everything but the final ".\r\n"
        except (OSError, smtplib.SMTPException) as exc:
            self.broken = True
            raise NotSent(_describe(exc), permanent=False) from None
        except NotSent:
            raise
        except BaseException:
            self.broken = True
            raise
        # From here the server may accept the mail at any moment.
        self.handed_over = True
        with held_signals():
            outcome: Accepted | NotSent | Uncertain
            if before_end is not None:
                try:
                    before_end()
                except BaseException:
                    self.broken = True  # DATA not ended: the server drops the message
                    self.handed_over = False
                    raise
            try:
                smtp.send(b".\r\n")
                code, resp = smtp.getreply()
                outcome = (Accepted(_answer(code, resp)) if 200 <= code < 300
                           else NotSent(_answer(code, resp), permanent=500 <= code < 600))
            except (OSError, smtplib.SMTPException) as exc:
                self.broken = True
                outcome = Uncertain(_describe(exc))
            if record is not None:
                record(outcome)
            self.handed_over = False
        if isinstance(outcome, Accepted):
            return outcome
        raise outcome
