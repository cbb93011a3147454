"""Fault injection at every file operation of a wdg command (issue #21).

:func:`count_operations` runs a command once with every file operation
wrapped and counted; :func:`run_with_fault` runs it again in a forked child
and, right before operation number ``n``, injects a fault:

- ``interrupt``: ``KeyboardInterrupt`` (Ctrl-C at that instant);
- ``enospc``: ``OSError(ENOSPC)`` — the disk is full from that operation on
  (every later change fails too, as on a real full disk; only removing does
  not, as removing frees space);
- ``kill``: ``SIGKILL`` of the process (no cleanup of any kind runs).

The counted operations (the points where a fault is injected) are those
through which wdg changes the disk — reading changes nothing, so a fault
while reading leaves the same disk as one at the next change:
``open`` for writing (builtin and ``io.open``, so ``pathlib`` too), ``os.open`` with
``O_WRONLY``/``O_RDWR``/``O_CREAT``,
``os.write``, ``os.replace``, ``os.rename``, ``os.unlink``/``os.remove``,
``os.rmdir``, ``os.mkdir``, ``os.fsync``, ``os.ftruncate``. The child runs
the command through :func:`wdg.cli.main` as the game master would, so the
CLI's own handling of the fault is part of what is tested.
"""

from __future__ import annotations

import builtins
import errno
import hashlib
import io
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

SUMMARY: list[str] = []
"""One line per sweep, printed at the end of the test run (tests/conftest.py)."""

_OS_FUNCS = ("open", "write", "replace", "rename", "unlink", "remove", "rmdir", "mkdir",
             "fsync", "ftruncate")
_WRITE_FUNCS = {"write", "replace", "rename", "mkdir", "ftruncate", "fsync", "unlink", "remove",
                "rmdir"}


def _is_write_open(args: tuple, kwargs: dict, os_level: bool) -> bool:
    if os_level:
        flags = args[1] if len(args) > 1 else kwargs.get("flags", 0)
        return bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
    mode = args[1] if len(args) > 1 else kwargs.get("mode", "r")
    return any(c in str(mode) for c in "wax+")


def install(fault_at: int | None, mode: str, counter: list[int]) -> None:
    """Wrap the file operations of this process (the forked child only)."""
    state = {"full": False}

    def fault(name: str, write: bool, target: object) -> None:
        if not write:
            return
        counter[0] += 1
        if state["full"] and name not in ("unlink", "remove", "rmdir"):
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        if fault_at is None or counter[0] != fault_at:
            return
        if mode == "interrupt":
            raise KeyboardInterrupt
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "enospc":
            state["full"] = True
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        raise AssertionError(mode)

    def wrap(fn: Callable, name: str, os_level: bool = False) -> Callable:
        def wrapped(*args: object, **kwargs: object) -> object:
            if name == "open":
                write = _is_write_open(args, kwargs, os_level)
            else:
                write = name in _WRITE_FUNCS
            fault(name, write, args[0] if args else "?")
            return fn(*args, **kwargs)
        wrapped.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapped

    real_open = builtins.open
    builtins.open = wrap(real_open, "open")  # type: ignore[assignment]
    io.open = builtins.open  # pathlib uses io.open
    for name in _OS_FUNCS:
        setattr(os, name, wrap(getattr(os, name), name, os_level=(name == "open")))


def _child(args: list[str], fault_at: int | None, mode: str, count_fd: int | None) -> None:
    """Body of the forked child: run the CLI with the wrapped operations; exit.
    Never returns (whatever happens, ``os._exit``)."""
    write, exit_ = os.write, os._exit  # the real ones, saved before wrapping
    code = 0
    counter = [0]
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        install(fault_at, mode, counter)
        from wdg.cli import main

        main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - a traceback is a failure of the CLI
        code = 99
    try:
        if count_fd is not None:
            write(count_fd, str(counter[0]).encode())
    finally:
        exit_(code)


def run_in_child(args: list[str], fault_at: int | None = None, mode: str = "interrupt",
                 ) -> tuple[int, int]:
    """Run ``wdg ARGS`` in a forked child (faulting at operation ``fault_at``);
    returns (exit status or -signal, operations counted)."""
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(r)
        _child(args, fault_at, mode, w)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    data = b""
    while chunk := os.read(r, 64):
        data += chunk
    os.close(r)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return code, int(data or b"0")


def tree_digest(root: Path, skip: Callable[[str], bool] = lambda rel: False,
                normalise: Callable[[str, bytes], bytes] = lambda rel, data: data) -> dict[str, str]:
    """``relative path -> sha256`` of every file under ``root`` (hidden ones
    included); ``normalise(rel, data)`` may blank out what legitimately differs
    between two runs (a freshly generated password's salted hash)."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if not skip(rel):
                out[rel] = hashlib.sha256(normalise(rel, p.read_bytes())).hexdigest()
    return dict(sorted(out.items()))
