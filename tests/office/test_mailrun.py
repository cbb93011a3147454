"""One mailbox for the world: the campaign's ``mail.yaml`` serves every
segment without its own; ``wdg mail run --all`` runs every segment's mail run
(each under its own lock, with its own send record and log) and says in one
exit code what matters most."""

from __future__ import annotations

import json
from pathlib import Path

from aiosmtpd.controller import Controller
from typer.testing import CliRunner
from worldkit import DUE, world_copy

from tests.mail.test_mailout_basics import NAME, _server_ctx, _Sink, pki  # noqa: F401 - fixture
from tests.mail.test_mailout_failures import _free_port
from wdg import exitcodes
from wdg.cli import app
from wdg.mail.config import load_mail_config

runner = CliRunner()


def test_mail_run_all_with_one_mail_yaml_for_the_world(world_template: Path, tmp_path: Path,
                                                       pki) -> None:  # noqa: F811
    camp = world_copy(world_template, tmp_path / "w")
    sink, port = _Sink(), _free_port()
    ctl = Controller(sink, hostname="127.0.0.1", port=port, tls_context=_server_ctx(pki, "good"),
                     require_starttls=True)
    ctl.start()
    try:
        (camp.root / "mail.yaml").write_text(
            'from: "Spielleitung <sl@wdg.test>"\n'
            f"smtp:\n  host: 127.0.0.1\n  port: {port}\n  security: starttls\n"
            f"  cafile: {pki / 'ca.pem'}\n  server_name: {NAME}\n  timeout: 5\n",
            encoding="utf-8")
        cfg = load_mail_config(camp.segment_dir("nord"))
        assert cfg is not None and cfg.path == camp.root / "mail.yaml"
        res = runner.invoke(app, ["mail", "run", "--all", "--no-pdf", "--json",
                                  "-C", str(camp.root)])
        assert res.exit_code == exitcodes.OK, res.output
        doc = json.loads(res.stdout)
        by = {r["segment"]: r for r in doc["segments"]}
        assert [by[s]["ran"] for s in DUE] == ["0412-04"] * 3
        assert by["west"]["status"] == "waiting" and by["west"]["ran"] is None
        # every playing kingdom of the three segments got its result, once
        assert len(sink.mails) == 3 + 2 + 2
        for seg in DUE:  # each segment keeps its own send record and log
            assert (camp.segment_dir(seg) / "mail" / "sent.yaml").is_file()
            assert list((camp.segment_dir(seg) / "mail" / "log").glob("*.log"))
        again = runner.invoke(app, ["mail", "run", "--all", "--no-pdf", "-C", str(camp.root)])
        assert again.exit_code in (exitcodes.WAITING, exitcodes.NOTHING), again.output
        assert len(sink.mails) == 7
    finally:
        ctl.stop()


def test_a_segment_with_its_own_mail_yaml_keeps_it_and_bad_calls_are_named(
        world_template: Path, tmp_path: Path) -> None:
    camp = world_copy(world_template, tmp_path / "w")
    (camp.root / "mail.yaml").write_text('from: "Welt <welt@wdg.test>"\n', encoding="utf-8")
    (camp.segment_dir("ost") / "mail.yaml").write_text('from: "Ost <ost@wdg.test>"\n',
                                                       encoding="utf-8")
    assert load_mail_config(camp.segment_dir("ost")).sender == "Ost <ost@wdg.test>"
    assert load_mail_config(camp.segment_dir("sued")).sender == "Welt <welt@wdg.test>"
    res = runner.invoke(app, ["mail", "run", "nord", "--all", "-C", str(camp.root)])
    assert res.exit_code == 1 and "schließen sich aus" in str(res.exception)
    res = runner.invoke(app, ["mail", "run", "-C", str(camp.root)])
    assert res.exit_code == 1 and "--all" in str(res.exception)
