"""Worker processes that die with their parent (docs/storage.md, "No orphans").

Every process pool of wdg (the report renderer, the games' batches, the lab)
passes :func:`worker_init` as its initializer (or calls it first thing in its
own initializer) and wraps its use of the pool in :func:`stopping_pool`:

- ``worker_init`` asks the Linux kernel to send the worker SIGKILL when its
  parent dies (``prctl(PR_SET_PDEATHSIG)``), so a parent killed with SIGKILL
  leaves no worker writing files behind it; a worker whose parent is already
  gone when it starts exits at once. It also makes the worker ignore SIGINT:
  Ctrl-C at the terminal reaches the whole process group, and it is the
  parent's business to stop the pool (no worker tracebacks on the screen).
- ``stopping_pool`` kills the pool's workers when the parent leaves the block
  by an exception (Ctrl-C, SIGTERM turned into an exception by
  :func:`install_signal_handlers`, an error): the default shutdown would wait
  for every running task, and those tasks write files.
- ``install_signal_handlers`` (called by the CLI) turns SIGTERM and SIGHUP into
  :class:`Terminated`, an exception, so that ``finally`` blocks and cleanup
  run as for Ctrl-C instead of the process vanishing mid-operation.

On systems without ``prctl`` (not Linux) the death signal is not available;
``stopping_pool`` still covers every way of dying except SIGKILL there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

_PR_SET_PDEATHSIG = 1


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind like KeyboardInterrupt (exit code 128 + signal)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated(signum)


def install_signal_handlers() -> None:
    """SIGTERM/SIGHUP raise :class:`Terminated` in the main thread (CLI only)."""
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, _raise_terminated)


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies.
    Returns False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - exotic libc
        return False


LOCK_FDS: set[int] = set()
"""File descriptors of the segment locks this process holds (an ``flock`` each,
:func:`wdg.store.lock.segment_lock`). A forked worker inherits them; it
closes its copies first thing (:func:`worker_init`), so the lock is the
parent's alone: when the parent dies (SIGKILL included) the lock is free at
once, not only when the last of its workers has died too."""


def worker_init(*_args: Any) -> None:
    """Initializer of every pool worker: die with the parent, leave SIGINT to it,
    hold none of the parent's segment locks (:data:`LOCK_FDS`).

    If the parent changed while the death signal was being set (it died in
    that moment and we were re-parented), exit at once."""
    for fd in list(LOCK_FDS):
        try:
            os.close(fd)  # our copy only: the parent's descriptor keeps the flock
        except OSError:
            pass
    LOCK_FDS.clear()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)
    parent = os.getppid()
    set_parent_death_signal()
    if os.getppid() != parent or parent == 1:
        os._exit(1)


def _chained_init(init: Any, initargs: tuple[Any, ...]) -> None:
    worker_init()
    if init is not None:
        init(*initargs)


def process_pool(max_workers: int, initializer: Any = None,
                 initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` whose workers run :func:`worker_init` before
    ``initializer`` (use it inside :func:`stopping_pool`)."""
    return ProcessPoolExecutor(max_workers=max_workers, initializer=_chained_init,
                               initargs=(initializer, initargs))


def kill_workers(pool: Executor) -> None:
    """Kill a process pool's workers now (running tasks are abandoned)."""
    procs = getattr(pool, "_processes", None) or {}
    for p in list(procs.values()):
        try:
            p.kill()
        except (OSError, AttributeError, ValueError):  # already gone
            pass
    for p in list(procs.values()):
        try:
            p.join(timeout=5)
        except (OSError, AttributeError, ValueError, AssertionError):
            pass


def _quiet_broken_pool(args: Any) -> None:
    """``threading.excepthook`` while a pool is being stopped: the executor's
    management thread of Python 3.11 raises ``InvalidStateError`` when it finds
    the killed workers and tries to fail futures that were cancelled already
    (it printed a traceback after Ctrl-C). That one is expected; others pass on."""
    from concurrent.futures import InvalidStateError

    if args.exc_type is not None and issubclass(args.exc_type, InvalidStateError):
        return
    _previous_hook(args)


_previous_hook = __import__("threading").excepthook


@contextmanager
def stopping_pool(pool: Executor) -> Iterator[Executor]:
    """Use ``pool`` for the block; on an exception (Ctrl-C, SIGTERM, an error)
    its workers are killed before the exception goes on, so none of them
    writes anything after the parent gave up."""
    try:
        yield pool
    except BaseException:
        import threading

        if threading.excepthook is not _quiet_broken_pool:
            global _previous_hook
            _previous_hook = threading.excepthook
            threading.excepthook = _quiet_broken_pool
        kill_workers(pool)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)
