"""German ``--help`` (issue 39): the words typer and click put around the
help texts of the commands — the panel titles (``Argumente``,
``Optionen``, ``Befehle``), ``Aufruf:`` for "Usage:", the help option's
own text, ``[Standard: …]`` and ``[Pflicht]``. The texts themselves are
the commands' docstrings and ``help=`` strings (``wdg/cli.py``,
``wdg/commands/*.py``), written in German. Option and command names and
the value types (``<int>``, ``<path>``) stay as they are spelled.

typer keeps the panel titles and the bracketed notes as module constants
of ``typer.rich_utils`` (read when the help is printed); click writes
"Usage:" in :meth:`click.HelpFormatter.write_usage` (the formatter class
of every :class:`click.Context`) and the help option's text in
:meth:`click.Command.get_help_option`. :func:`install` sets all of them
once, before the command line is built.
"""

from __future__ import annotations

from typing import Any
from types import ModuleType

HELP_OPTION_TEXT = "Diese Hilfe zeigen und beenden."
USAGE_PREFIX = "Aufruf: "
PANEL_TITLES = {
    "ARGUMENTS_PANEL_TITLE": "Argumente",
    "OPTIONS_PANEL_TITLE": "Optionen",
    "COMMANDS_PANEL_TITLE": "Befehle",
    "ERRORS_PANEL_TITLE": "Fehler",
    "DEFAULT_STRING": "[Standard: {}]",
    "ENVVAR_STRING": "[Umgebungsvariable: {}]",
    "REQUIRED_LONG_STRING": "[Pflicht]",
    "DEPRECATED_STRING": "(veraltet) ",
    "ABORTED_TEXT": "Abgebrochen.",
    "RICH_HELP": "Hilfe: [blue]'{command_path} {help_option}'[/]",
}

_installed = False


def install() -> None:
    """Make typer's and click's own words of ``--help`` German (idempotent)."""
    global _installed
    if _installed:
        return
    rich_utils: ModuleType | None
    try:
        import typer.rich_utils as rich_utils
    except ImportError:  # pragma: no cover - typer without rich: click's plain help
        rich_utils = None
    if rich_utils is not None:
        for name, text in PANEL_TITLES.items():
            if hasattr(rich_utils, name):
                setattr(rich_utils, name, text)
        highlighter = getattr(rich_utils, "OptionHighlighter", None)
        if highlighter is not None:
            highlighter.highlights = [*highlighter.highlights, r"(?P<usage>Aufruf: )"]

    import importlib

    # click itself, and the copy of click that newer typer releases carry
    # (typer._click) and build their commands with
    for name in ("click", "typer._click"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        _german_click(mod)
    _installed = True


def _german_click(mod: Any) -> None:
    """``Aufruf:``, German headings of the plain help and the help option's
    text for the click module ``mod``."""
    base = mod.HelpFormatter

    class GermanHelpFormatter(base):  # type: ignore[misc, valid-type]  # base: click's or typer's own copy, known at run time
        """click's formatter with ``Aufruf:`` instead of "Usage:"."""

        def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
            super().write_usage(prog, args, USAGE_PREFIX if prefix is None else prefix)

        def write_heading(self, heading: str) -> None:
            super().write_heading({"Options": "Optionen", "Commands": "Befehle",
                                   "Arguments": "Argumente"}.get(heading, heading))

    mod.Context.formatter_class = GermanHelpFormatter
    original = mod.Command.get_help_option

    def get_help_option(self: Any, ctx: Any) -> Any:
        option = original(self, ctx)
        if option is not None:
            option.help = HELP_OPTION_TEXT
        return option

    mod.Command.get_help_option = get_help_option
