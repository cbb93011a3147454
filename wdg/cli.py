"""The ``wdg`` command line: a thin typer app.

Each area has its own module in :mod:`wdg.commands` exposing ``app`` (a
``typer.Typer``) and ``NAME``; the root includes them. Commands parse flags,
make one call into the library and print. A :class:`wdg.errors.WdgError`
becomes one clear message on stderr and exit code 1 — never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer

from wdg import __version__
from wdg.errors import WdgError

app = typer.Typer(
    name="wdg",
    help="wdg — Auswertung für Welt der Götter (WdG): segments, order sheets, the month, "
    "result sheets; plus the batch engines of the other games in the rule collection.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Sub-command modules under wdg.commands, in the order `wdg --help` lists them.
COMMAND_MODULES = (
    "segment",
    "map",
    "orders",
    "turn",
    "reports",
    "kingdom",
    "export",
    "games",
    "lab",
    "demo",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"wdg {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """wdg — turn processor for Welt der Götter.

    Commands take a campaign directory with --campaign/-C (default: the
    environment variable WDG_CAMPAIGN, else the current directory). A campaign
    holds worlds/<segment>/, worlds/rules/, orders/<segment>/<YYYY-MM>/ and
    reports/<segment>/.
    """


def _register() -> None:
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(f"wdg.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"wdg.commands.{name}":
                continue
            raise
        mod.register(app)


_register()


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``wdg`` console script."""
    from wdg.fsio import describe_os_error
    from wdg.procs import Terminated, install_signal_handlers

    install_signal_handlers()
    try:
        app(args=argv, standalone_mode=True)
    except WdgError as exc:
        typer.echo(f"Fehler: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        typer.echo("abgebrochen (Strg-C); Gespeichertes ist unverändert oder vollständig", err=True)
        sys.exit(130)
    except Terminated as exc:
        typer.echo(f"abgebrochen (Signal {exc.signum}); Gespeichertes ist unverändert oder "
                   "vollständig", err=True)
        sys.exit(128 + exc.signum)
    except OSError as exc:
        typer.echo(f"Fehler: {describe_os_error(exc)}", err=True)
        sys.exit(1)
