"""Real mail servers on loopback for the mail tests (issue #34).

The test suite starts its OWN Dovecot (IMAP, IMAPS, LMTP, SASL auth) and its own
Postfix instance (submission with STARTTLS + SASL, SMTPS, a plain inbound port),
both Debian's binaries, as child processes of the test run, with every file in a
temporary directory: configuration, TLS keys, Maildirs, queue, logs, sockets.
Nothing touches the system's /etc/dovecot, /etc/postfix or /var/mail, and no
system service is used or started.

TLS: a test CA signs a server certificate for ``mail.wdg.test`` (SERVER_NAME) and a
second one for ``wrong.wdg.test`` (WRONG_NAME).  The servers listen on 127.0.0.1
only; a client connects to 127.0.0.1 and verifies the certificate against
SERVER_NAME (``server_hostname``), which is how a name is mapped without DNS or
/etc/hosts.  The ``*_wrong`` ports present the certificate for the wrong name (from
the same CA), so a client that verifies the name must refuse them.

Accounts live in a passwd-file that Dovecot re-reads on change, so each test gets
its own fresh accounts (unique names) from the session's servers: see
``MailServers.new_world``.  Postfix accepts mail for the domain DOMAIN and hands it
to Dovecot over LMTP, so a mail sent through the submission port to a player's
address arrives in that player's IMAP box.

Must run as root (CI does: Postfix runs as root with its own users).  When the
binaries are missing the fixture fails, unless WDG_SKIP_MAILSERVERS=1 is set (then
the mail tests are skipped with that reason).  ``make test`` installs the packages.
"""

from __future__ import annotations

import contextlib
import ctypes
import email
import email.policy
import imaplib
import itertools
import os
import pwd
import re
import secrets
import shutil
import signal
import smtplib
import socket
import ssl
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

HOST = "127.0.0.1"
SERVER_NAME = "mail.wdg.test"
WRONG_NAME = "wrong.wdg.test"
DOMAIN = "wdg.test"
SEPARATOR = "."
"""The mailbox hierarchy separator, Dovecot's default for Maildir (many providers'):
wdg must map its "wdg/erledigt" onto it. Test helpers take names with "/"."""

DOVECOT = "/usr/sbin/dovecot"
POSTFIX = "/usr/sbin/postfix"
POSTQUEUE = "/usr/sbin/postqueue"
POSTFIX_DAEMONS = "/usr/lib/postfix/sbin"
OPENSSL = "openssl"

FETCHERS = ("getmail", "getmail_maildir", "fetchmail")
"""The local fetchers the game master may use instead of ``wdg mail fetch``
(tests/mail/test_fetchers.py; ``getmail_maildir`` is fetchmail's delivery there)."""

PACKAGES = "dovecot-imapd dovecot-lmtpd postfix getmail6 fetchmail"


class MailServerError(RuntimeError):
    """A test mail server could not be started or did not answer."""


def missing_binaries() -> list[str]:
    """The programs the servers and the mail tests need that are not installed
    (a missing one fails the mail tests through :func:`tests.skips.cannot_run`,
    not with a bare ``FileNotFoundError`` in the test that runs it)."""
    missing = [p for p in (DOVECOT, POSTFIX, f"{POSTFIX_DAEMONS}/master", "/usr/lib/dovecot/lmtp")
               if not os.access(p, os.X_OK)]
    missing += [p for p in (OPENSSL, *FETCHERS) if shutil.which(p) is None]
    return missing


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """preexec: the server gets SIGTERM when the test run dies (even on SIGKILL)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    os.setsid()


def _wait_port(port: int, timeout: float, proc: subprocess.Popen | None = None,
               what: str = "", log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            if s.connect_ex((HOST, port)) == 0:
                return
        if proc is not None and proc.poll() is not None:
            raise MailServerError(f"{what} exited with {proc.returncode} before port {port} "
                                  f"opened\n{_tail(log)}")
        if time.monotonic() > deadline:
            raise MailServerError(f"{what}: port {port} not open after {timeout} s\n{_tail(log)}")
        time.sleep(0.05)


def _tail(path: Path | None, lines: int = 40) -> str:
    if path is None or not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _server_umask() -> None:
    """The servers' own umask: Postfix creates its queue as root for its
    daemons that run as postfix; the test process may have taken the CLI's
    umask 077 (wdg.cli.main run in-process by an earlier test), with which
    "postsuper: open directory defer: Permission denied"."""
    os.umask(0o022)


def _die_with_parent_umask() -> None:
    _server_umask()
    _die_with_parent()


def _with_server_umask(method):
    """Run a MailServers method (it creates the servers' files and folders)
    under umask 022 and restore the caller's afterwards."""
    import functools

    @functools.wraps(method)
    def inner(*args, **kw):
        saved = os.umask(0o022)
        try:
            return method(*args, **kw)
        finally:
            os.umask(saved)
    return inner


def _run(args: list[str], timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    """A set-up program (openssl, postfix ...): a failure or a hang (``timeout``
    seconds) is a clear MailServerError, never a stuck test run."""
    kw.setdefault("preexec_fn", _server_umask)
    try:
        res = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as exc:
        raise MailServerError(f"{' '.join(args)} hung: no end after {timeout} s (killed)\n"
                              f"{exc.stdout!r}{exc.stderr!r}") from None
    if res.returncode != 0:
        raise MailServerError(f"{' '.join(args)} failed ({res.returncode}):\n{res.stdout}{res.stderr}")
    return res


# --------------------------------------------------------------------------- TLS

@dataclass(frozen=True)
class TestCA:
    ca_file: Path
    cert: Path
    key: Path
    wrong_cert: Path
    wrong_key: Path

    def client_context(self) -> ssl.SSLContext:
        """A verifying client context that trusts only the test CA."""
        ctx = ssl.create_default_context(cafile=str(self.ca_file))
        ctx.check_hostname = True
        ctx.verify_mode = ssl.CERT_REQUIRED
        return ctx


def make_test_ca(directory: Path) -> TestCA:
    """A CA and two server certificates it signed (EC P-256: fast to make)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    ca_key, ca_crt = d / "ca.key", d / "ca.pem"
    _run([OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
          "-nodes", "-keyout", str(ca_key), "-out", str(ca_crt), "-days", "3650",
          "-subj", "/CN=WdG Test CA",
          "-addext", "basicConstraints=critical,CA:TRUE",
          "-addext", "keyUsage=critical,keyCertSign,cRLSign",
          "-addext", "subjectKeyIdentifier=hash"])

    def leaf(name: str, stem: str) -> tuple[Path, Path]:
        key, csr, crt, ext = d / f"{stem}.key", d / f"{stem}.csr", d / f"{stem}.pem", d / f"{stem}.ext"
        ext.write_text(
            f"subjectAltName=DNS:{name}\n"
            "basicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature,keyAgreement\n"
            "extendedKeyUsage=serverAuth\n"
            "subjectKeyIdentifier=hash\n"
            "authorityKeyIdentifier=keyid,issuer\n")
        _run([OPENSSL, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
              "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={name}"])
        _run([OPENSSL, "x509", "-req", "-in", str(csr), "-CA", str(ca_crt), "-CAkey", str(ca_key),
              "-CAcreateserial", "-out", str(crt), "-days", "3650", "-extfile", str(ext)])
        return crt, key

    cert, key = leaf(SERVER_NAME, "server")
    wrong_cert, wrong_key = leaf(WRONG_NAME, "wrong")
    for p in (key, wrong_key, ca_key):
        p.chmod(0o600)
    for p in (ca_crt, cert, wrong_cert):
        p.chmod(0o644)
    return TestCA(ca_crt, cert, key, wrong_cert, wrong_key)


# ---------------------------------------------------------------------- accounts

@dataclass(frozen=True)
class Account:
    """One mailbox: log in with ``user``/``password``; mail to ``address``."""

    address: str
    password: str

    @property
    def user(self) -> str:
        return self.address


@dataclass
class MailWorld:
    """Fresh accounts for one test: a game master and players."""

    servers: "MailServers"
    gm: Account
    players: list[Account]


@dataclass
class Arrived:
    """A mail as the IMAP server holds it."""

    uid: int
    internaldate: str
    flags: tuple[str, ...]
    raw: bytes
    message: EmailMessage = field(repr=False)

    @property
    def subject(self) -> str:
        return str(self.message.get("Subject", ""))


# ----------------------------------------------------------------------- servers

_counter = itertools.count(1)


class MailServers:
    """Dovecot + Postfix for one test session, in ``root`` (a private temp dir).

    Ports (all on HOST = 127.0.0.1):
      imaps, imap (STARTTLS), imaps_wrong, imap_wrong   -- Dovecot
      submission (STARTTLS + AUTH), smtps (TLS + AUTH), smtp (inbound, no auth),
      submission_wrong, smtps_wrong                      -- Postfix
    The ``*_wrong`` ports present the certificate for WRONG_NAME.
    """

    host = HOST
    server_name = SERVER_NAME
    wrong_name = WRONG_NAME
    domain = DOMAIN

    @_with_server_umask
    def __init__(self, root: Path | None = None):
        if os.geteuid() != 0:
            raise MailServerError(
                "the test mail servers (Dovecot, Postfix) must be started as root "
                "(CI runs make test as root)")
        missing = missing_binaries()
        if missing:
            raise MailServerError(
                f"missing {', '.join(missing)}: run 'make test' as root (it installs "
                f"{PACKAGES}) or set WDG_SKIP_MAILSERVERS=1 to skip the mail tests")
        # Short, world-traversable path: unix sockets (108 bytes) and the
        # unprivileged server processes (dovecot, postfix, mail users) need it.
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="wdgmail-", dir="/tmp"))
        self.root.chmod(0o755)
        self.mail_uid = pwd.getpwnam("mail").pw_uid
        self.mail_gid = pwd.getpwnam("mail").pw_gid
        self.tls = make_test_ca(self.root / "tls")
        self.ca_file = self.tls.ca_file
        self.users_file = self.root / "users"
        self.users_file.write_text("")
        self.users_file.chmod(0o644)
        self.mail_dir = self.root / "mail"
        self.mail_dir.mkdir()
        self.mail_dir.chmod(0o755)
        os.chown(self.mail_dir, self.mail_uid, self.mail_gid)
        self._accounts: dict[str, Account] = {}
        self._fill_pool()
        self.dovecot: subprocess.Popen | None = None
        self.postfix_started = False
        self._pick_ports()

    # ------------------------------------------------------------------ ports

    def _pick_ports(self) -> None:
        names = ["imaps", "imap", "imaps_wrong", "imap_wrong",
                 "submission", "smtps", "smtp", "submission_wrong", "smtps_wrong"]
        ports: set[int] = set()
        while len(ports) < len(names):
            ports.add(free_port())
        for name, port in zip(names, sorted(ports)):
            setattr(self, name, port)

    # ---------------------------------------------------------------- dovecot

    @property
    def dovecot_dir(self) -> Path:
        return self.root / "dovecot"

    @property
    def dovecot_log(self) -> Path:
        return self.dovecot_dir / "dovecot.log"

    @property
    def auth_socket(self) -> Path:
        return self.dovecot_dir / "run" / "auth-client"

    @property
    def lmtp_socket(self) -> Path:
        return self.dovecot_dir / "run" / "lmtp"

    def _dovecot_conf(self, cert: Path, key: Path, wrong: bool) -> str:
        d = self.dovecot_dir
        t = self.tls
        # The wrong-name ports live in a second Dovecot (see start_dovecot):
        # Dovecot chooses the certificate by local address or SNI name, not by port.
        listeners = (
            f"""service imap-login {{
  inet_listener imap {{
    address = {HOST}
    port = {self.imap_wrong if wrong else self.imap}
  }}
  inet_listener imaps {{
    address = {HOST}
    port = {self.imaps_wrong if wrong else self.imaps}
    ssl = yes
  }}
}}
""")
        extra = "" if wrong else f"""
service lmtp {{
  unix_listener lmtp {{
    mode = 0666
  }}
}}
service auth {{
  unix_listener auth-client {{
    mode = 0666
  }}
  unix_listener auth-userdb {{
    mode = 0600
  }}
}}
protocol lmtp {{
  postmaster_address = postmaster@{DOMAIN}
}}
"""
        dh = "/usr/share/dovecot/dh.pem"
        return f"""# written by tests/mailservers.py for one test run
base_dir = {d}/run{'-wrong' if wrong else ''}
state_dir = {d}/state{'-wrong' if wrong else ''}
instance_name = wdgtest{os.getpid()}{'w' if wrong else ''}
log_path = {d}/dovecot{'-wrong' if wrong else ''}.log
info_log_path = {d}/dovecot{'-wrong' if wrong else ''}.log
protocols = imap{'' if wrong else ' lmtp'}
listen = {HOST}
ssl = required
ssl_cert = <{cert}
ssl_key = <{key}
ssl_ca = <{t.ca_file}
{f'ssl_dh = <{dh}' if Path(dh).exists() else ''}
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = yes
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = {self.mail_uid}
first_valid_gid = {self.mail_gid}
mail_location = maildir:~/Maildir
mail_privileged_group =
namespace inbox {{
  inbox = yes
  separator = {SEPARATOR}
  mailbox Drafts {{
    special_use = \\Drafts
  }}
  mailbox Sent {{
    special_use = \\Sent
  }}
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%Lu {self.users_file}
}}
userdb {{
  driver = passwd-file
  args = username_format=%Lu {self.users_file}
}}
login_trusted_networks =
mail_max_userip_connections = 200
# each imap process shows its user and current command (IDLE) in its process title:
# what MailServers.wait_idling reads
verbose_proctitle = yes
service imap-login {{
  process_min_avail = 1
  service_count = 0
}}
{listeners}
{extra}
"""

    def _start_one_dovecot(self, wrong: bool) -> subprocess.Popen:
        d = self.dovecot_dir
        d.mkdir(exist_ok=True)
        conf = d / ("dovecot-wrong.conf" if wrong else "dovecot.conf")
        t = self.tls
        conf.write_text(self._dovecot_conf(t.wrong_cert if wrong else t.cert,
                                           t.wrong_key if wrong else t.key, wrong))
        log = d / ("dovecot-wrong.log" if wrong else "dovecot.log")
        proc = subprocess.Popen([DOVECOT, "-F", "-c", str(conf)], stdin=subprocess.DEVNULL,
                                stdout=open(d / "stdout.log", "ab"), stderr=subprocess.STDOUT,
                                preexec_fn=_die_with_parent_umask)
        _wait_port(self.imaps_wrong if wrong else self.imaps, 20, proc, "dovecot", log)
        _wait_port(self.imap_wrong if wrong else self.imap, 5, proc, "dovecot", log)
        return proc

    @_with_server_umask
    def start_dovecot(self) -> None:
        """Start (or restart after stop/kill) the Dovecot that holds the mailboxes."""
        self.dovecot = self._start_one_dovecot(wrong=False)
        deadline = time.monotonic() + 10
        while not (self.auth_socket.exists() and self.lmtp_socket.exists()):
            if time.monotonic() > deadline:
                missing = [str(p) for p in (self.auth_socket, self.lmtp_socket) if not p.exists()]
                raise MailServerError(f"dovecot: no socket {', '.join(missing)} after 10 s"
                                      f"\n{_tail(self.dovecot_log)}")
            time.sleep(0.05)

    @_with_server_umask
    def start_wrong_dovecot(self) -> None:
        if getattr(self, "dovecot_wrong", None) is None:
            self.dovecot_wrong = self._start_one_dovecot(wrong=True)

    NO_IDLE_CAPABILITY = ("IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE LITERAL+ SORT "
                          "THREAD=REFERENCES MULTIAPPEND UNSELECT CHILDREN NAMESPACE UIDPLUS "
                          "LIST-EXTENDED I18NLEVEL=1 MOVE SPECIAL-USE")
    """What the no-IDLE Dovecot announces: Dovecot's own list without IDLE."""

    @_with_server_umask
    def start_noidle_dovecot(self) -> int:
        """A third Dovecot on the same mailboxes whose CAPABILITY lacks IDLE (a provider
        without IDLE, issue #39); returns its IMAPS port (certificate for SERVER_NAME)."""
        if getattr(self, "dovecot_noidle", None) is not None:
            return self.imaps_noidle
        d = self.dovecot_dir
        d.mkdir(exist_ok=True)
        self.imaps_noidle, self.imap_noidle = free_port(), free_port()
        t = self.tls
        conf = self._dovecot_conf(t.cert, t.key, wrong=True)
        conf = conf.replace("-wrong", "-noidle").replace(f"wdgtest{os.getpid()}w",
                                                          f"wdgtest{os.getpid()}n")
        conf = conf.replace(f"port = {self.imaps_wrong}\n", f"port = {self.imaps_noidle}\n")
        conf = conf.replace(f"port = {self.imap_wrong}\n", f"port = {self.imap_noidle}\n")
        conf += f"imap_capability = {self.NO_IDLE_CAPABILITY}\n"
        path = d / "dovecot-noidle.conf"
        path.write_text(conf)
        log = d / "dovecot-noidle.log"
        self.dovecot_noidle = subprocess.Popen(
            [DOVECOT, "-F", "-c", str(path)], stdin=subprocess.DEVNULL,
            stdout=open(d / "stdout-noidle.log", "ab"), stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent_umask)
        _wait_port(self.imaps_noidle, 20, self.dovecot_noidle, "dovecot (no IDLE)", log)
        return self.imaps_noidle

    def stop_dovecot(self, sig: int = signal.SIGTERM) -> None:
        """Stop the mailbox Dovecot (SIGTERM: orderly; SIGKILL: a crash).  Open IMAP
        connections are dropped; start_dovecot() brings it back, mailboxes intact."""
        proc, self.dovecot = self.dovecot, None
        if proc is None:
            return
        if proc.poll() is None:
            if sig == signal.SIGKILL:
                # kill the whole group: master, login and imap processes
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.send_signal(sig)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        # children of a killed master (imap, auth) must not keep the ports
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                if s.connect_ex((HOST, self.imaps)) != 0:
                    break
            if time.monotonic() > deadline:
                raise MailServerError(f"dovecot stopped, but port {self.imaps} still accepts "
                                      f"connections after 10 s\n{_tail(self.dovecot_log)}")
            time.sleep(0.05)

    @_with_server_umask
    def restart_dovecot(self, sig: int = signal.SIGTERM) -> None:
        self.stop_dovecot(sig)
        self.start_dovecot()

    # ---------------------------------------------------------------- postfix

    @property
    def postfix_dir(self) -> Path:
        return self.root / "postfix"

    @property
    def postfix_log(self) -> Path:
        return self.postfix_dir / "postfix.log"

    def _postfix_main_cf(self) -> str:
        p = self.postfix_dir
        t = self.tls
        return f"""# written by tests/mailservers.py for one test run
compatibility_level = 3.6
queue_directory = {p}/queue
data_directory = {p}/data
command_directory = /usr/sbin
daemon_directory = {POSTFIX_DAEMONS}
meta_directory = /etc/postfix
shlib_directory = /usr/lib/postfix
mail_owner = postfix
setgid_group = postdrop
syslog_name = wdgtest-postfix
maillog_file = {self.postfix_log}
maillog_file_prefixes = {self.root}
myhostname = {SERVER_NAME}
mydomain = {DOMAIN}
myorigin = {DOMAIN}
mydestination =
inet_interfaces = {HOST}
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtp_bind_address = {HOST}
alias_maps =
alias_database =
local_recipient_maps =
virtual_mailbox_domains = {DOMAIN}
virtual_mailbox_maps =
smtpd_reject_unlisted_recipient = no
virtual_transport = lmtp:unix:{self.lmtp_socket}
default_transport = error:no mail leaves the test servers
relay_transport = error:no mail leaves the test servers
relayhost =
smtpd_relay_restrictions = permit_sasl_authenticated, reject_unauth_destination
smtpd_recipient_restrictions =
smtpd_tls_chain_files = {t.key}, {t.cert}
smtpd_tls_security_level = may
smtpd_tls_loglevel = 0
smtpd_sasl_type = dovecot
smtpd_sasl_path = {self.auth_socket}
smtpd_sasl_auth_enable = no
smtpd_helo_required = no
biff = no
append_dot_mydomain = no
readme_directory = no
smtputf8_enable = yes
message_size_limit = 20480000
in_flow_delay = 0
delay_warning_time = 0
maximal_queue_lifetime = 1h
bounce_queue_lifetime = 1h
queue_run_delay = 5s
minimal_backoff_time = 5s
maximal_backoff_time = 10s
lmtp_destination_concurrency_limit = 20
"""

    def _postfix_master_cf(self) -> str:
        t = self.tls
        auth = ("-o smtpd_sasl_auth_enable=yes -o smtpd_tls_auth_only=yes "
                "-o smtpd_client_restrictions=permit_sasl_authenticated,reject "
                "-o smtpd_relay_restrictions=permit_sasl_authenticated,reject")
        wrong = f"-o smtpd_tls_chain_files={t.wrong_key},{t.wrong_cert}"
        sub = f"smtpd -o smtpd_tls_security_level=encrypt {auth}"
        smtps = f"smtpd -o smtpd_tls_wrappermode=yes -o smtpd_tls_security_level=encrypt {auth}"
        return f"""# written by tests/mailservers.py for one test run
{HOST}:{self.smtp} inet n - n - - smtpd
{HOST}:{self.submission} inet n - n - - {sub}
{HOST}:{self.smtps} inet n - n - - {smtps}
{HOST}:{self.submission_wrong} inet n - n - - {sub} {wrong}
{HOST}:{self.smtps_wrong} inet n - n - - {smtps} {wrong}
pickup    unix n - n 60 1 pickup
cleanup   unix n - n - 0 cleanup
qmgr      unix n - n 300 1 qmgr
tlsmgr    unix - - n 1000? 1 tlsmgr
rewrite   unix - - n - - trivial-rewrite
bounce    unix - - n - 0 bounce
defer     unix - - n - 0 bounce
trace     unix - - n - 0 bounce
verify    unix - - n - 1 verify
flush     unix n - n 1000? 0 flush
proxymap  unix - - n - - proxymap
proxywrite unix - - n - 1 proxymap
smtp      unix - - n - - smtp
relay     unix - - n - - smtp
showq     unix n - n - - showq
error     unix - - n - - error
retry     unix - - n - - error
discard   unix - - n - - discard
lmtp      unix - - n - - lmtp
anvil     unix - - n - 1 anvil
scache    unix - - n - 1 scache
postlog   unix-dgram n - n - 1 postlogd
"""

    def start_postfix(self) -> None:
        p = self.postfix_dir
        conf = p / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        (p / "queue").mkdir(exist_ok=True)
        (p / "data").mkdir(exist_ok=True)
        os.chown(p / "data", pwd.getpwnam("postfix").pw_uid, pwd.getpwnam("postfix").pw_gid)
        (conf / "main.cf").write_text(self._postfix_main_cf())
        (conf / "master.cf").write_text(self._postfix_master_cf())
        self.postfix_log.touch()
        env = {**os.environ, "MAIL_CONFIG": str(conf)}
        _run([POSTFIX, "-c", str(conf), "start"], env=env, preexec_fn=_die_with_parent_umask)
        self.postfix_started = True
        for port in (self.smtp, self.submission, self.smtps, self.submission_wrong, self.smtps_wrong):
            _wait_port(port, 20, None, "postfix", self.postfix_log)

    def stop_postfix(self) -> None:
        if not self.postfix_started:
            return
        conf = self.postfix_dir / "conf"
        try:
            res = subprocess.run([POSTFIX, "-c", str(conf), "abort"], capture_output=True,
                                 text=True, env={**os.environ, "MAIL_CONFIG": str(conf)},
                                 timeout=60)
        except subprocess.TimeoutExpired:  # killed below by its pid file
            res = subprocess.CompletedProcess([POSTFIX], 1, "", "postfix abort hung")
        pidfile = self.postfix_dir / "queue" / "pid" / "master.pid"
        if res.returncode != 0 and pidfile.exists():
            with contextlib.suppress(Exception):
                os.kill(int(pidfile.read_text().split()[0]), signal.SIGKILL)
        self.postfix_started = False

    # ------------------------------------------------------------- lifecycle

    @_with_server_umask
    def start(self) -> "MailServers":
        try:
            self.start_dovecot()
            self.start_postfix()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.stop_postfix()
        self.stop_dovecot()
        for attr in ("dovecot_wrong", "dovecot_noidle"):
            other = getattr(self, attr, None)
            if other is not None and other.poll() is None:
                other.terminate()
                with contextlib.suppress(Exception):
                    other.wait(10)
            setattr(self, attr, None)

    def cleanup(self) -> None:
        """Remove the servers' directory (after stop); WDG_KEEP_MAILSERVERS=1 keeps it."""
        if os.environ.get("WDG_KEEP_MAILSERVERS") != "1":
            shutil.rmtree(self.root, ignore_errors=True)

    def logs(self) -> str:
        """The servers' logs, for assertion messages."""
        return (f"--- dovecot ---\n{_tail(self.dovecot_log, 60)}\n"
                f"--- postfix ---\n{_tail(self.postfix_log, 60)}")

    # -------------------------------------------------------------- accounts

    POOL_WORLDS = 60
    POOL_PLAYERS = 8

    def _register(self, locals_: list[str]) -> list[Account]:
        """Write accounts ``local@wdg.test`` into Dovecot's passwd-file."""
        accounts, lines = [], []
        for local in locals_:
            address = f"{local}@{DOMAIN}".lower()
            if address in self._accounts:
                raise ValueError(f"account {address} exists already")
            if not re.fullmatch(r"[a-z0-9][a-z0-9.+_-]*@" + re.escape(DOMAIN), address):
                raise ValueError(f"bad test account name {address!r}")
            acc = Account(address, secrets.token_urlsafe(12))
            lines.append(f"{address}:{acc.password}:{self.mail_uid}:{self.mail_gid}::"
                         f"{self.mail_dir / address}::\n")
            self._accounts[address] = acc
            accounts.append(acc)
        # write a new file and rename it: Dovecot never reads a half-written one
        tmp = self.users_file.with_suffix(".tmp")
        tmp.write_text(self.users_file.read_text() + "".join(lines))
        tmp.chmod(0o644)
        os.replace(tmp, self.users_file)
        return accounts

    def _wait_visible(self, account: Account, timeout: float = 5.0) -> None:
        """Dovecot re-reads a changed passwd-file at most once a second: wait for it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                _logout(self.imap_client(account))
                return
            except imaplib.IMAP4.error as exc:
                if time.monotonic() > deadline:
                    raise MailServerError(
                        f"{account.address} not known to Dovecot\n{self.logs()}") from exc
                time.sleep(0.2)

    def _fill_pool(self) -> None:
        """Accounts for POOL_WORLDS worlds, registered before the servers start, so a
        test's world needs no wait for Dovecot to notice new accounts."""
        self._pool: list[tuple[Account, list[Account]]] = []
        for w in range(1, self.POOL_WORLDS + 1):
            accs = self._register([f"gm-w{w}"] + [f"p{i}-w{w}" for i in range(1, self.POOL_PLAYERS + 1)])
            self._pool.append((accs[0], accs[1:]))

    def add_account(self, local: str) -> Account:
        """A new mailbox ``local@wdg.test`` (names must be new in this session)."""
        acc = self._register([local])[0]
        self._wait_visible(acc)
        return acc

    @_with_server_umask
    def new_world(self, players: int = 5) -> MailWorld:
        """Fresh, empty accounts for one test: a game master and ``players`` players."""
        if players <= self.POOL_PLAYERS and self._pool:
            gm, ps = self._pool.pop(0)
            return MailWorld(self, gm, ps[:players])
        n = f"x{next(_counter)}"
        accs = self._register([f"gm-{n}"] + [f"p{i}-{n}" for i in range(1, players + 1)])
        self._wait_visible(accs[-1])
        return MailWorld(self, accs[0], accs[1:])

    # ------------------------------------------------------------ clients

    def client_context(self) -> ssl.SSLContext:
        return self.tls.client_context()

    def imap_client(self, account: Account, *, wrong: bool = False, starttls: bool = False) -> imaplib.IMAP4:
        """A logged-in IMAP client (verified TLS to SERVER_NAME at 127.0.0.1)."""
        ctx = self.client_context()
        if starttls:
            port = self.imap_wrong if wrong else self.imap
            if wrong:
                self.start_wrong_dovecot()
            conn = _IMAP4Named(HOST, port, timeout=30)
            conn.starttls(ssl_context=ctx)
        else:
            port = self.imaps_wrong if wrong else self.imaps
            if wrong:
                self.start_wrong_dovecot()
            conn = _IMAP4SSLNamed(HOST, port, ssl_context=ctx, timeout=30)
        conn.login(account.user, account.password)
        return conn

    def smtp_client(self, account: Account | None = None, *, port: int | None = None) -> smtplib.SMTP:
        """A submission client (STARTTLS verified against SERVER_NAME), logged in."""
        conn = smtplib.SMTP(HOST, port or self.submission, local_hostname="client.wdg.test", timeout=30)
        conn._host = SERVER_NAME  # the name STARTTLS verifies (connect address stays 127.0.0.1)
        conn.starttls(context=self.client_context())
        conn.ehlo("client.wdg.test")
        if account is not None:
            conn.login(account.user, account.password)
        return conn

    def smtps_client(self, account: Account | None = None, *, port: int | None = None) -> smtplib.SMTP_SSL:
        """An SMTPS client (TLS from the start, verified against SERVER_NAME), logged in."""
        conn = _SMTPSNamed(HOST, port or self.smtps, local_hostname="client.wdg.test",
                           context=self.client_context(), timeout=30)
        if account is not None:
            conn.login(account.user, account.password)
        return conn

    def send(self, sender: Account, msg: EmailMessage | bytes, to: list[str] | None = None) -> None:
        """Send as ``sender`` through the submission port (authenticated). A temporary
        refusal of the login (454: Postfix's link to Dovecot's auth socket is renewed
        after a Dovecot restart) is tried again, as a mail client would."""
        for attempt in range(20):
            try:
                conn = self.smtp_client(sender)
                break
            except smtplib.SMTPAuthenticationError as exc:
                if exc.smtp_code != 454 or attempt == 19:
                    raise
                time.sleep(0.25)
        with contextlib.closing(conn):
            if isinstance(msg, bytes):
                conn.sendmail(sender.address, to or [], msg)
            else:
                conn.send_message(msg, from_addr=sender.address, to_addrs=to)
            conn.quit()

    def append(self, account: Account, raw: bytes, mailbox: str = "INBOX",
               when: float | None = None) -> None:
        """Put a mail straight into a mailbox (IMAP APPEND, INTERNALDATE = ``when``)."""
        conn = self.imap_client(account)
        try:
            date = imaplib.Time2Internaldate(when if when is not None else time.time())
            typ, data = conn.append(_quote(mailbox.replace("/", SEPARATOR)), None, date, raw)
            if typ != "OK":
                raise MailServerError(f"APPEND failed: {data}")
        finally:
            _logout(conn)

    def messages(self, account: Account, mailbox: str = "INBOX") -> list[Arrived]:
        """Every mail in ``mailbox`` (read without setting \\Seen), oldest UID first."""
        conn = self.imap_client(account)
        try:
            typ, _ = conn.select(_quote(mailbox.replace("/", SEPARATOR)), readonly=True)
            if typ != "OK":
                return []
            typ, data = conn.uid("FETCH", "1:*", "(UID INTERNALDATE FLAGS BODY.PEEK[])")
            return _parse_fetch(data) if typ == "OK" else []
        finally:
            _logout(conn)

    def mailboxes(self, account: Account) -> list[str]:
        conn = self.imap_client(account)
        try:
            typ, data = conn.list()
            names = []
            for line in data or []:
                if not line:
                    continue
                m = re.match(rb'\((?P<f>[^)]*)\) (?:"(?:[^"]*)"|NIL) (?P<n>.*)$', line)
                if m:
                    n = m.group("n").decode()
                    names.append((n[1:-1] if n.startswith('"') else n).replace(SEPARATOR, "/"))
            return sorted(names)
        finally:
            _logout(conn)

    def wait_for(self, account: Account, count: int, mailbox: str = "INBOX",
                 timeout: float = 30.0) -> list[Arrived]:
        """Poll until ``mailbox`` holds at least ``count`` mails; fail with the logs."""
        deadline = time.monotonic() + timeout
        while True:
            msgs = self.messages(account, mailbox)
            if len(msgs) >= count:
                return msgs
            if time.monotonic() > deadline:
                raise AssertionError(f"{account.address}/{mailbox}: {len(msgs)} of {count} mails "
                                     f"after {timeout} s\n{self.logs()}")
            time.sleep(0.1)

    def flush_queue(self, timeout: float = 30.0) -> None:
        """Wait until Postfix's queue is empty (every accepted mail delivered/bounced).

        A mail deferred (Dovecot's LMTP slow to answer on a busy machine) counts as
        waiting, and the queue is flushed (``postqueue -f``) so it is tried again at
        once: "not in the box yet" must never be read as "never arrived"."""
        q = self.postfix_dir / "queue"
        conf = self.postfix_dir / "conf"
        deadline = time.monotonic() + timeout
        flushed = 0.0
        while True:
            busy = [f for sub in ("incoming", "active", "maildrop", "deferred")
                    for f in (q / sub).rglob("*") if f.is_file()]
            if not busy:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"postfix queue not empty after {timeout} s: "
                                     f"{', '.join(str(f.relative_to(q)) for f in busy)}"
                                     f"\n{self.logs()}")
            if any("deferred" in f.parts for f in busy) and time.monotonic() - flushed > 2:
                flushed = time.monotonic()
                subprocess.run([POSTQUEUE, "-c", str(conf), "-f"], capture_output=True,
                               env={**os.environ, "MAIL_CONFIG": str(conf)}, timeout=30)
            time.sleep(0.1)


    def settled(self, timeout: float = 30.0) -> None:
        """Wait until nothing more can arrive: every mail Postfix accepted so far is
        delivered or bounced — its queue is empty (:meth:`flush_queue`; Dovecot's LMTP
        answers only once the mail is stored), and Postfix itself reports so
        (``postqueue -p``: "Mail queue is empty"). A mailbox counted after this holds
        all it will get from what was sent before: a late duplicate is seen, not
        missed as after a fixed sleep."""
        deadline = time.monotonic() + timeout
        conf = self.postfix_dir / "conf"
        while True:
            self.flush_queue(max(deadline - time.monotonic(), 1.0))
            report = subprocess.run([POSTQUEUE, "-c", str(conf), "-p"], capture_output=True,
                                    text=True, env={**os.environ, "MAIL_CONFIG": str(conf)},
                                    timeout=30)
            if "Mail queue is empty" in report.stdout:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"postfix does not report an empty queue after {timeout} s "
                                     f"(postqueue -p):\n{report.stdout}{report.stderr}\n"
                                     f"{self.logs()}")
            time.sleep(0.1)

    def wait_idling(self, account: Account, timeout: float = 30.0) -> None:
        """Wait until an IMAP session of ``account`` is in IDLE: Dovecot names each imap
        process's user and current command in its process title (``verbose_proctitle``,
        ``dovecot-<instance>/imap [user 127.0.0.1 IDLE]``), read from /proc."""
        want = f"dovecot-wdgtest{os.getpid()}/imap [{account.user.lower()} ".encode()
        deadline = time.monotonic() + timeout
        while True:
            for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
                try:
                    title = cmdline.read_bytes()
                except OSError:  # the process ended meanwhile
                    continue
                if title.startswith(want) and b" IDLE]" in title:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"{account.address}: no IMAP session in IDLE after "
                                     f"{timeout} s\n{self.logs()}")
            time.sleep(0.02)


def _quote(mailbox: str) -> str:
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _logout(conn: imaplib.IMAP4) -> None:
    with contextlib.suppress(Exception):
        conn.logout()


def _parse_fetch(data: list) -> list[Arrived]:
    out = []
    for item in data:
        if not isinstance(item, tuple):
            continue
        meta, raw = item
        meta = meta.decode()
        uid = int(re.search(r"UID (\d+)", meta).group(1))
        idate = re.search(r'INTERNALDATE "([^"]+)"', meta).group(1)
        fm = re.search(r"FLAGS \(([^)]*)\)", meta)
        flags = tuple(fm.group(1).split()) if fm else ()
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        out.append(Arrived(uid, idate, flags, raw, msg))
    return sorted(out, key=lambda a: a.uid)


class _SMTPSNamed(smtplib.SMTP_SSL):
    """SMTPS to 127.0.0.1 that verifies the certificate for SERVER_NAME."""

    def _get_socket(self, host, port, timeout):
        sock = socket.create_connection((host, port), timeout, self.source_address)
        return self.context.wrap_socket(sock, server_hostname=SERVER_NAME)


class _IMAP4SSLNamed(imaplib.IMAP4_SSL):
    """IMAPS to 127.0.0.1 that verifies the certificate for SERVER_NAME."""

    def _create_socket(self, timeout):
        sock = socket.create_connection((self.host, self.port), timeout)
        return self.ssl_context.wrap_socket(sock, server_hostname=SERVER_NAME)


class _IMAP4Named(imaplib.IMAP4):
    """IMAP + STARTTLS to 127.0.0.1 that verifies the certificate for SERVER_NAME."""

    def starttls(self, ssl_context=None):
        host, self.host = self.host, SERVER_NAME
        try:
            return super().starttls(ssl_context=ssl_context)
        finally:
            self.host = host


def sheet_mail(sender: Account, to: Account, subject: str, body: str,
               message_id: str | None = None, date: str | None = None) -> EmailMessage:
    """A plain text mail as a player's client would send it."""
    from email.utils import formatdate, make_msgid
    msg = EmailMessage()
    msg["From"] = sender.address
    msg["To"] = to.address
    msg["Subject"] = subject
    msg["Date"] = date or formatdate(localtime=False)
    msg["Message-ID"] = message_id or make_msgid(domain=DOMAIN)
    msg.set_content(body)
    return msg
