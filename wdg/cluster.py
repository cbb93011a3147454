"""The one way wdg reaches a Dask cluster (``--scheduler tcp://HOST:PORT``).

``wdg games batch --scheduler``, ``wdg world run --scheduler`` and ``wdg lab
--scheduler`` all go through :func:`connect`: a ``distributed.Client`` on the
scheduler's address and its ``get_executor(pure=False)`` (a plain
:class:`concurrent.futures.Executor`; ``pure=False``: two equal tasks are
still two tasks). Dask is the optional extra ``wdg[cluster]``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor

from wdg.errors import WdgError


class ClusterError(WdgError):
    """Dask is not installed, or its scheduler cannot be reached."""


def connect(address: str, timeout: float = 20) -> tuple[Executor, Callable[[], None]]:
    """An Executor on the Dask scheduler at ``address`` and a function that
    closes the client. :class:`ClusterError` (German) when Dask is missing or
    the scheduler cannot be reached within ``timeout`` seconds."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--scheduler braucht Dask: pip install 'wdg[cluster]' "
                           "(dask[distributed])") from None
    try:
        client = Client(address, timeout=timeout)
    except (OSError, ValueError, TimeoutError) as exc:
        raise ClusterError(f"der Dask-Scheduler {address!r} ist nicht erreichbar: {exc}") \
            from exc
    return client.get_executor(pure=False), client.close


def lost_worker(exc: BaseException) -> bool:
    """True when ``exc`` says the worker process running a task died (Dask's
    ``KilledWorker``, a broken local process pool) rather than the task failing."""
    from concurrent.futures.process import BrokenProcessPool

    if isinstance(exc, BrokenProcessPool):
        return True
    return type(exc).__name__ in ("KilledWorker", "CommClosedError", "FutureCancelledError") \
        and type(exc).__module__.startswith("distributed")
