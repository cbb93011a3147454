"""A Ctrl-C stays a Ctrl-C (docs/storage.md: "abgebrochen (Strg-C);
Gespeichertes ist unverändert oder vollständig"): found by the Ctrl-C test of
``turn run`` (tests/mail/test_mailout_kill.py) once it interrupted the run
inside the work — the interrupt arrived while the state's ``layers.npz`` was
being written, zipfile's ``close()`` raised ``ValueError`` over it on the way
out of a ``with`` block, and the game master saw a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

from wdg.store.segment import write_npz


def test_a_ctrl_c_inside_a_member_of_the_npz_is_raised_as_itself(tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    path = tmp_path / "layers.npz"
    with monkeypatch.context() as m:  # the moment of the real traceback: a member just opened
        m.setattr(zipfile, "_get_compressor", interrupted)
        with pytest.raises(KeyboardInterrupt):
            write_npz(path, {"a": np.arange(5)})
    assert not path.exists()  # nothing half-written
    write_npz(path, {"a": np.arange(5)})  # and the same call writes the file whole
    with np.load(path) as z:
        assert list(z["a"]) == [0, 1, 2, 3, 4]


def test_the_npz_bytes_depend_only_on_the_arrays(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    write_npz(a, {"x": np.arange(12).reshape(3, 4), "y": np.zeros(3, dtype=np.int8)})
    write_npz(b, {"x": np.arange(12).reshape(3, 4), "y": np.zeros(3, dtype=np.int8)})
    assert a.read_bytes() == b.read_bytes()


def _main_with(body: str) -> subprocess.CompletedProcess:
    """``wdg.cli.main`` in its own process (it installs signal handlers), with a
    command whose body is ``body``."""
    code = ("import wdg.cli as c\n"
            "def command(args, standalone_mode):\n"
            + textwrap.indent(body, "    ") +
            "\nc._app_for = lambda args: command\n"
            "c.main(['turn', 'run', 'x'])\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)


def test_an_error_raised_over_a_ctrl_c_ends_as_a_ctrl_c():
    r = _main_with("try:\n    raise KeyboardInterrupt\nexcept KeyboardInterrupt:\n"
                   "    raise ValueError(\"Can't close the ZIP file while there is an open "
                   "writing handle\")")
    assert r.returncode == 130, r.stderr
    assert "abgebrochen (Strg-C)" in r.stderr and "Traceback" not in r.stderr


def test_an_error_without_a_ctrl_c_behind_it_is_not_taken_for_one():
    r = _main_with("raise ValueError('a real bug')")
    assert r.returncode == 1 and "ValueError: a real bug" in r.stderr
    assert "abgebrochen" not in r.stderr
