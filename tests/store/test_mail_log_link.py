"""The mail log writes no line through a link (docs/storage.md, "The store's
edges"): a linked ``mail/log/`` or log file gets a German warning, nothing
outside the campaign is touched, and the command goes on."""

from __future__ import annotations

import os

from wdg.mail.log import log_line


def test_a_linked_log_folder_is_not_written_through(tmp_path, capsys):
    seg = tmp_path / "canura"
    (seg / "mail").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, seg / "mail" / "log")
    log_line(seg, "abgeholt: 3 Mails")
    assert list(outside.iterdir()) == []
    err = capsys.readouterr().err
    assert "Warnung:" in err and "symbolischer Link" in err


def test_a_linked_log_file_is_not_written_through(tmp_path, capsys):
    seg = tmp_path / "canura"
    path = log_line(seg, "erste Zeile")
    target = tmp_path / "elsewhere.txt"
    target.write_text("fremd\n")
    path.unlink()
    os.symlink(target, path)
    log_line(seg, "zweite Zeile")
    assert target.read_text() == "fremd\n"
    assert "symbolischer Link" in capsys.readouterr().err


def test_an_ordinary_log_gets_its_lines(tmp_path):
    seg = tmp_path / "canura"
    path = log_line(seg, "eins")
    log_line(seg, "zwei")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and lines[0].endswith("eins") and lines[1].endswith("zwei")
