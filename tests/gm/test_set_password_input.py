"""``wdg kingdom set-password`` never takes the password from argv (issue #39 item 9:
it would stand in the shell history and in ps): from a hidden prompt, from stdin for
scripts, or generated; ``--password X`` is refused and nothing changes."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.gm.test_kingdom_admin import _files, _seg
from wdg.cli import app
from wdg.world.passwords import verify_password
from wdg.store.segment import load_segment, save_segment


def _hash(tmp_path, k: int) -> str:
    return load_segment(tmp_path / "worlds" / "test").kingdoms[k].player.password_hash


def test_password_from_stdin_and_prompt_not_argv(tmp_path):
    save_segment(_seg(), tmp_path / "worlds" / "test")
    run = CliRunner().invoke
    r = run(app, ["kingdom", "set-password", "test", "1", "--stdin", "-C", str(tmp_path)],
            input="aus-dem-skript-1\n")
    assert r.exit_code == 0, r.output
    assert "aus-dem-skript-1" not in r.output  # not echoed back
    assert verify_password("aus-dem-skript-1", _hash(tmp_path, 1))
    r = run(app, ["kingdom", "set-password", "test", "1", "--prompt", "-C", str(tmp_path)],
            input="verdeckt-eingegeben\nverdeckt-eingegeben\n")
    assert r.exit_code == 0, r.output
    assert verify_password("verdeckt-eingegeben", _hash(tmp_path, 1))
    before = _files(tmp_path / "worlds" / "test")
    r = run(app, ["kingdom", "set-password", "test", "1", "--password", "im-argv-123",
                  "-C", str(tmp_path)])
    assert r.exit_code != 0
    assert "Shell-Historie" in r.output + str(r.exception)
    assert _files(tmp_path / "worlds" / "test") == before
    r = run(app, ["kingdom", "set-password", "test", "1", "--stdin", "-C", str(tmp_path)],
            input="")
    assert r.exit_code != 0 and "leer" in r.output + str(r.exception)
