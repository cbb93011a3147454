"""The ``wdg`` command line: a thin typer app.

Each area has its own module in :mod:`wdg.commands` exposing ``app`` (a
``typer.Typer``) and ``NAME``; the root includes them. Commands parse flags,
make one call into the library and print. A :class:`wdg.errors.WdgError`
becomes one clear message on stderr and exit code 1 — never a traceback; a
wrong command line a German message and exit code 2 (:mod:`wdg.usage`).
Everything printed passes :func:`safe_echo`: control characters from player
or mail text are shown escaped, never sent to the terminal.
"""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_at_start(signum: int, frame: object) -> None:  # pragma: no cover - timing
    """Ctrl-C while the command line is still starting (importing): nothing has
    been read or written yet — leave quietly with 130 instead of a traceback."""
    os.write(2, "abgebrochen (Strg-C) beim Start; nichts geändert\n".encode())
    os._exit(130)


_AS_COMMAND = os.path.basename(sys.argv[0]) in ("wdg", "__main__.py")
if _AS_COMMAND and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    # run as the wdg command (not imported by a test or a program): until main()
    # has its handlers in place, Ctrl-C ends the start quietly
    signal.signal(signal.SIGINT, _interrupted_at_start)

import gc
import importlib

import typer

from wdg.errors import WdgError
from wdg.textpolicy import terminal_safe

_plain_echo = typer.echo


def safe_echo(message: object = None, file=None, nl: bool = True, err: bool = False,
              color: bool | None = None) -> None:
    """``typer.echo`` with every control, bidi and zero-width character shown as
    ``<U+001B>`` (docs/security.md): player and mail text reach the terminal
    escaped, the same on a terminal and in a pipe. Bytes pass unchanged."""
    if isinstance(message, str):
        message = terminal_safe(message)
    _plain_echo(message, file=file, nl=nl, err=err, color=color)


# Every command prints through typer.echo: one filter for all of them.
typer.echo = safe_echo


def _new_app() -> typer.Typer:
    from wdg.helptext import install
    from wdg.usage import RootGroup

    install()  # typer's and click's words of --help in German (wdg/helptext.py)

    return typer.Typer(
        name="wdg",
        cls=RootGroup,  # usage errors in German (wdg/usage.py)
        help="wdg — Auswertung für Welt der Götter (WdG): Segmente, Befehlsbögen, der Monat, "
        "Ergebnisbögen; dazu die Spielmaschinen der anderen Spiele der Regelsammlung.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )


# Sub-command modules under wdg.commands, in the order `wdg --help` lists them;
# each registers the command (or group) of its own name.
COMMAND_MODULES = (
    "segment",
    "map",
    "orders",
    "turn",
    "reports",
    "mail",
    "kingdom",
    "export",
    "games",
    "lab",
    "demo",
    "world",
)


GC_THRESHOLDS = (50_000, 20, 100)
"""Python's cyclic garbage collector for a run of the command line: a
collection after 50,000 net allocations instead of 700. A month builds
hundreds of thousands of small objects that live until its end (the state,
16,000 events, every sheet's report), and with the default the collector
walked them again and again: a tenth of a stress month's CPU (docs/
performance.md). Memory is freed by reference counting as before; only
reference cycles wait longer (the peak memory of the stress month did not
change)."""


def _version(value: bool) -> None:
    if value:
        from wdg.provenance import version_line

        typer.echo(version_line())
        raise typer.Exit()


def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Die Version zeigen und beenden."),
) -> None:
    """wdg — Zugauswertung für Welt der Götter.

    Die Befehle nehmen ein Kampagnenverzeichnis mit --campaign/-C (sonst die
    Umgebungsvariable WDG_CAMPAIGN, sonst das aktuelle Verzeichnis). Eine
    Kampagne enthält worlds/<segment>/, worlds/rules/,
    orders/<segment>/<JJJJ-MM>/ und reports/<segment>/.
    """


def build_app(only: str | None = None) -> typer.Typer:
    """The command line with every command, or with ``only`` the one named (a
    run of ``wdg turn run`` need not import the games, the lab and the demo)."""
    root = _new_app()
    root.callback()(_root)
    for name in COMMAND_MODULES if only is None else (only,):
        try:
            mod = importlib.import_module(f"wdg.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"wdg.commands.{name}":
                continue
            raise
        mod.register(root)
    return root


def __getattr__(name: str) -> typer.Typer:
    """``wdg.cli.app``: the whole command line, built on first use."""
    if name == "app":
        full = globals()["app"] = build_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app_for(args: list[str]) -> typer.Typer:
    """The command line a call needs: only its command's module when the first
    word names one (its help and errors are the same), else every command."""
    first = next((a for a in args if not a.startswith("-")), None)
    return build_app(first) if first in COMMAND_MODULES else __getattr__("app")


def _unraisable(args: sys.UnraisableHookArgs) -> None:
    """``sys.unraisablehook`` of the command line: a Ctrl-C that Python could not
    raise where it arrived (inside a weak-reference callback or a ``__del__``,
    where it would print "Exception ignored ... Traceback" and be lost) is raised
    again as the signal it was, so the command stops as for any Ctrl-C."""
    if isinstance(args.exc_value, KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
        return
    sys.__unraisablehook__(args)


def _hides_an_interrupt(exc: BaseException) -> bool:
    """True if ``exc`` arose while a Ctrl-C was being handled (a library's
    clean-up that fails on the way out, e.g. zipfile's ``close()`` with a member
    open, replaces the ``KeyboardInterrupt`` it was raised over): the command
    was stopped, and says so instead of printing a traceback."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__context__
    return False


INTERRUPTED_CODES = (130, 128 + signal.SIGTERM, 128 + getattr(signal, "SIGHUP", 1))


def _leave(code: int) -> None:
    """Leave with ``code``. A stopped command (Ctrl-C, SIGTERM) run as ``wdg``
    leaves at once after flushing its output: a process pool whose workers were
    killed can leave its manager thread waiting on a queue lock a dead worker
    held, and Python's own exit would wait for that thread forever (seen on a
    busy machine). What is stored is complete or untouched either way."""
    if _AS_COMMAND and code in INTERRUPTED_CODES:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``wdg`` console script."""
    from wdg.fsio import CLI_UMASK, describe_os_error
    from wdg.procs import Terminated, install_signal_handlers

    os.umask(os.umask(0) | CLI_UMASK)  # campaign files are the game master's alone (#30)
    install_signal_handlers()
    sys.unraisablehook = _unraisable
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        if signal.getsignal(signal.SIGINT) is _interrupted_at_start:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        args = list(sys.argv[1:] if argv is None else argv)
        _app_for(args)(args=args, standalone_mode=True)
    except WdgError as exc:
        typer.echo(f"Fehler: {exc}", err=True)
        sys.exit(1)
    except SystemExit as exc:
        if exc.code == 130 and isinstance(getattr(exc.__context__, "__cause__", None),
                                          KeyboardInterrupt):
            # typer turns a Ctrl-C no command handled into a silent exit 130:
            # say what it means
            typer.echo("abgebrochen (Strg-C); Gespeichertes ist unverändert oder vollständig",
                       err=True)
        if isinstance(exc.code, int) and exc.code in INTERRUPTED_CODES:
            _leave(exc.code)
        raise
    except KeyboardInterrupt:
        typer.echo("abgebrochen (Strg-C); Gespeichertes ist unverändert oder vollständig", err=True)
        _leave(130)
    except Terminated as exc:
        typer.echo(f"abgebrochen (Signal {exc.signum}); Gespeichertes ist unverändert oder "
                   "vollständig", err=True)
        _leave(128 + exc.signum)
    except OSError as exc:
        if _hides_an_interrupt(exc):
            typer.echo("abgebrochen (Strg-C); Gespeichertes ist unverändert oder vollständig",
                       err=True)
            _leave(130)
        typer.echo(f"Fehler: {describe_os_error(exc)}", err=True)
        sys.exit(1)
    except Exception as exc:
        if not _hides_an_interrupt(exc):
            raise
        typer.echo("abgebrochen (Strg-C); Gespeichertes ist unverändert oder vollständig", err=True)
        _leave(130)
    finally:
        if _AS_COMMAND:
            # The command is over (done, failed or stopped) and Python is exiting:
            # a Ctrl-C now would end the process by the signal itself (exit -2,
            # no message) although everything is stored. Ignore it.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
