"""A campaign whose players are the test mail servers' accounts (tests/mailservers.py):
segment ``test`` with five kingdoms, kingdom n played from ``mail_world.players[n-1]``
with password ``geheim-n``, and a ``mail.yaml`` pointing at the test Dovecot/Postfix."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from mailservers import SERVER_NAME, MailWorld
from tests.mail.segments import make_segment
from wdg.campaign import Campaign
from wdg.store.segment import load_segment, save_segment


@dataclass
class MailCampaign:
    camp: Campaign
    world: MailWorld
    segment: str = "test"

    @property
    def seg_dir(self) -> Path:
        return self.camp.segment_dir(self.segment)

    def seg(self):
        return load_segment(self.seg_dir)

    def sheet(self, n: int, extra: str = "", password: str | None = None, month: str = "") -> str:
        return (f"Segment: {self.segment}\nKönigreich: {n}\n"
                + (f"Mond: {month}\n" if month else "")
                + f"Passwort: {password or f'geheim-{n}'}\nF+ 100\n{extra}")

    def write_mail_yaml(self, **imap_extra) -> None:
        s, gm = self.world.servers, self.world.gm
        data = {
            "from": f"Segmentleiter Test <{gm.address}>",
            "smtp": {"host": s.host, "port": s.submission, "security": "starttls",
                     "server_name": SERVER_NAME, "user": gm.user,
                     "password_env": "WDG_TEST_SMTP_PASSWORD", "cafile": str(s.ca_file),
                     "timeout": 20},
            "imap": {"host": s.host, "port": s.imaps, "security": "ssl",
                     "server_name": SERVER_NAME, "user": gm.user,
                     "password_env": "WDG_TEST_IMAP_PASSWORD", "cafile": str(s.ca_file),
                     "timeout": 20, **imap_extra},
        }
        (self.seg_dir / "mail.yaml").write_text(yaml.safe_dump(data, allow_unicode=True),
                                                encoding="utf-8")


@pytest.fixture
def mail_campaign(tmp_path, mail_world, monkeypatch) -> MailCampaign:
    camp = Campaign(tmp_path / "kampagne")
    seg = make_segment(mail_world)
    save_segment(seg, camp.segment_dir("test"))
    mc = MailCampaign(camp, mail_world)
    mc.write_mail_yaml()
    monkeypatch.setenv("WDG_TEST_SMTP_PASSWORD", mail_world.gm.password)
    monkeypatch.setenv("WDG_TEST_IMAP_PASSWORD", mail_world.gm.password)
    return mc
