"""A small campaign whose players have mailboxes on the test mail servers
(tests/mailservers.py), driven through the real command line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEG = "brief"


class MailCampaign:
    """A campaign directory, its players' accounts and the ``wdg`` command line."""

    def __init__(self, root: Path, world, kingdoms: int = 3, seed: int = 11,
                 provinces: str = "2x2") -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.world = world
        self.servers = world.servers
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "WDG_CAMPAIGN": "",
                    "WDG_SMTP_PASSWORD": world.gm.password,
                    "WDG_IMAP_PASSWORD": world.gm.password}
        out = self("segment", "new", SEG, "--provinces", provinces, "--kingdoms", str(kingdoms),
                   "--seed", str(seed)).stdout
        self.passwords = {int(k): pw for k, pw in
                          re.findall(r"^\s+(\d+)\s+Reich .*?\s(\S+)$", out, re.M)}
        self.player_of: dict[int, object] = {}
        for k, acc in zip(sorted(self.passwords), world.players):
            self("kingdom", "set", SEG, str(k), "--email", acc.address)
            self.player_of[k] = acc
        self.write_mail_yaml()

    def write_mail_yaml(self, *, port: int | None = None, security: str = "starttls",
                        extra: str = "") -> None:
        s = self.servers
        (self.seg_dir / "mail.yaml").write_text(
            f'from: "Spielleitung Brief <{self.world.gm.address}>"\n'
            "smtp:\n  host: 127.0.0.1\n"
            f"  port: {port or s.submission}\n  security: {security}\n"
            f"  server_name: {s.server_name}\n  user: {self.world.gm.user}\n"
            f"  password_env: WDG_SMTP_PASSWORD\n  cafile: {s.ca_file}\n  timeout: 20\n"
            "imap:\n  host: 127.0.0.1\n"
            f"  port: {s.imaps}\n  security: ssl\n  server_name: {s.server_name}\n"
            f"  user: {self.world.gm.user}\n  password_env: WDG_IMAP_PASSWORD\n"
            f"  cafile: {s.ca_file}\n" + extra, encoding="utf-8")

    @property
    def seg_dir(self) -> Path:
        return self.root / "worlds" / SEG

    def __call__(self, *args: str, code: int | None = 0, env: dict | None = None,
                 timeout: float = 300) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "wdg", *args, "-C", str(self.root)],
                              capture_output=True, text=True, cwd=self.root,
                              env={**self.env, **(env or {})}, timeout=timeout)
        assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
        if code is not None:
            assert proc.returncode == code, (args, proc.returncode, proc.stdout, proc.stderr)
        return proc

    def inbox(self, k: int):
        """The mails in kingdom ``k``'s player's INBOX."""
        return self.servers.messages(self.player_of[k])
