"""Hostile player and mail text through the whole month (docs/security.md).

A sheet carrying control, bidi and zero-width characters, NUL, template,
HTML, SVG and CSS injection, ``//host`` and ``file://`` references, a YAML
tag, a path and a 100,000-character word arrives by mail — next to a mail
with a CR LF ``From:`` — and goes through ``orders import``, ``orders
check``, a month with every report, ``wdg map``, ``turn show`` on a
pseudo-terminal and ``turn replay``: no traceback; no control, bidi or
zero-width character in any output file or on the terminal; no request
reaches a loopback listener; every SVG parses as XML; every other order of
the sheet is still executed.
"""

from __future__ import annotations

import mailbox
import os
import pty
import socket
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path

import pytest

from wdg.commands.demo import copy_demo
from wdg.orders.checker import accepted, check_sheet
from wdg.orders.parser import parse_sheet
from wdg.orders.view import build_view
from wdg.textpolicy import has_unsafe
from wdg.store.segment import load_segment

pytestmark = pytest.mark.slow

MONTH = "0412-04"


class Listener:
    """A TCP listener on 127.0.0.1 that counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.hits += 1
            conn.close()

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        self.sock.close()


def hostile_sheet(clean: str, port: int) -> str:
    url = f"http://127.0.0.1:{port}"
    word = "W" * 100_000
    return (clean.replace("Heer 0301 302.27   # Krieger in Wenedstadt",
                          "Heer 0301 302.27 Wenedstadt\u202e\x1b[2J\x07")
            .replace("Garedfeld dankt für den Gruß und bietet Frieden an.",
                     "Garedfeld\x07 dankt\u200b für den Gruß \u202egnp.exe\x1b[31m\x00 "
                     "<script>alert(1)</script> {{ 7*7 }} {% raw %} ${7*7} "
                     "!!python/object/apply:os.system ['id'] ../../../etc/passwd\x7f\x85\u2028")
            + "BEKANNTMACHUNG\nHeil\x1b]0;titel\x07 allen\u2066 Reichen <svg onload=alert(1)> "
            "<style>body{background:red}</style> & < > \" ' \ufeff\u200d\n" + word + "\nENDE\n"
            + f"BOTSCHAFT 1\n<img src=\"{url}/a\"> url(//127.0.0.1:{port}/c) "
            f"<link rel=stylesheet href=\"{url}/d\"> file:///etc/passwd\nENDE\n")


def run(args: list[str], root: Path, code: int | None = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "wdg", *args, "-C", str(root)],
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    if code is not None:
        assert proc.returncode == code, (args, proc.returncode, proc.stdout, proc.stderr)
    assert not has_unsafe((proc.stdout + proc.stderr).replace("\n", "").replace("\r", ""))
    return proc


def on_a_terminal(args: list[str], root: Path) -> bytes:
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "wdg", *args, "-C", str(root)],
                            stdout=child, stderr=child, stdin=subprocess.DEVNULL)
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(60)
    os.close(main)
    return out


def test_hostile_text_goes_through_the_whole_month_harmlessly(tmp_path):
    root = tmp_path / "camp"
    copy_demo(root)
    folder = root / "orders" / "canura" / MONTH
    clean = (folder / "k3.txt").read_text(encoding="utf-8")
    (folder / "k3.txt").unlink()
    listener = Listener()
    try:
        evil = hostile_sheet(clean, listener.port)
        (tmp_path / "hostile.txt").write_text(evil, encoding="utf-8")
        box = mailbox.mbox(str(tmp_path / "in.mbox"))
        msg = EmailMessage()
        msg["From"] = "Garedfeld <k3@example.org>"
        msg["Message-ID"] = "<hostile@example.org>"
        msg["Date"] = "Wed, 01 May 2024 10:00:00 +0200"
        msg.set_content(evil)
        box.add(msg)
        box.add(b"From: =?utf-8?b?WA0KQmNjOiBldmlsQHg=?=\nMessage-ID: =?utf-8?b?"
                b"PGFAYj4NCkJjYzogZXZpbEB4?=\n\n" + clean.encode())
        box.flush()
        box.close()

        imp = run(["orders", "import", "canura", str(tmp_path / "in.mbox"), "--deadline",
                   "2099-01-01 13:00"], root, code=3)
        assert "angenommen" in imp.stdout and "Absender" in imp.stdout
        check = run(["orders", "check", str(tmp_path / "hostile.txt")], root, code=None)
        assert "U+202E" in check.stdout and "U+001B" in check.stdout

        # every other order of the sheet stands
        seg = load_segment(root / "worlds" / "canura")
        view = build_view(seg, 3)

        def orders(text: str) -> list[str]:
            sheet = parse_sheet(text)
            ok = accepted(sheet, check_sheet(sheet, view))
            return [str(o) for b in ok.armies for o in (b.phase_a, b.phase_b) if o] + \
                [str(o) for o in ok.kingdom_orders] + [f"BOTSCHAFT {x.to}" for x in ok.messages]

        stored = (folder / "k3.txt").read_text(encoding="utf-8")
        assert orders(stored)[:len(orders(clean))] == orders(clean)

        run(["turn", "run", "canura", "--force", "-q"], root)
        run(["map", "canura"], root)
        run(["turn", "replay", "canura", MONTH], root)
        shown = on_a_terminal(["turn", "show", "canura", MONTH], root)
        assert b"\x1b" not in shown and "\u202e".encode() not in shown and b"\x07" not in shown
        assert len(shown) > 100
    finally:
        listener.close()
    assert listener.hits == 0

    checked = 0
    for p in root.rglob("*"):
        if not p.is_file() or "quarantine" in p.parts:
            continue
        if p.suffix in (".txt", ".html", ".svg", ".yaml", ".eml", ".json", ".xml"):
            text = p.read_text(encoding="utf-8", errors="replace")
            assert not has_unsafe(text.replace("\n", "").replace("\r", "").replace("\t", "")), p
            checked += 1
        if p.suffix in (".svg", ".xml"):
            ET.fromstring(p.read_bytes())
        if p.suffix == ".html":
            HTMLParser().feed(p.read_text(encoding="utf-8"))
            assert "<script>alert" not in p.read_text(encoding="utf-8"), p
        if p.suffix == ".pdf":
            from pypdf import PdfReader

            text = "".join(page.extract_text() or "" for page in PdfReader(str(p)).pages)
            assert not has_unsafe(text.replace("\n", "").replace("\r", "")), p
    assert checked > 20
