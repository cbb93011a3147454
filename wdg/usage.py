"""Usage errors of the command line in German.

Click and typer word a wrong command line in English ("No such option",
"Missing argument", "Usage: …" in a box). The game master reads those, so the
root command of ``wdg`` (:class:`RootGroup`, ``typer.Typer(cls=...)``) catches
every :class:`click.exceptions.UsageError` raised while the command line is read — by the
root or by any sub-command, whose parsing happens inside the root's
``invoke`` — and prints it in German itself, from the exception's own fields
(the option's name, the parameter, the value), not by translating click's
sentences; a message click words in a way not known here keeps its text
behind the German frame. Exit code 2, as before (``wdg.exitcodes.USAGE``).

``--help`` stays as click and typer write it (developer documentation, English
like the option help texts). A command line without arguments still shows the
help (``no_args_is_help``).
"""

from __future__ import annotations

import re
from typing import Any

import typer
import typer.core
from typer.core import TyperGroup

# typer before 0.22 uses the click package; later versions carry their own copy of
# it (typer._click) and raise its exception classes: take them from where typer does
click: Any = getattr(typer.core, "_click", None)
if click is None:  # pragma: no cover - depends on the installed typer
    import click
_exceptions: Any = click.exceptions
_Exit: Any = getattr(typer, "Exit", None) or _exceptions.Exit
_Abort: tuple[type[BaseException], ...] = tuple(
    {a for a in (getattr(typer, "Abort", None), getattr(_exceptions, "Abort", None)) if a})

USAGE_EXIT = 2

_KINDS = {"argument": "Argument", "option": "Option", "parameter": "Angabe"}

# click's wording of a value its types refuse -> German (the value as click quoted it)
_VALUE_MESSAGES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.S), g) for p, g in (
        (r"^(?P<v>.+) is not a valid integer( range)?\.$", "{v} ist keine ganze Zahl"),
        (r"^(?P<v>.+) is not a valid float( range)?\.$", "{v} ist keine Zahl"),
        (r"^(?P<v>.+) is not a valid boolean\..*$", "{v} ist weder ja noch nein "
                                                    "(true/false, yes/no, 1/0)"),
        (r"^(?P<v>.+) is not a valid UUID\.$", "{v} ist keine UUID"),
        (r"^(?P<v>.+) is not one of (?P<c>.+)\.$", "{v} ist keiner der Werte {c}"),
        (r"^(?P<v>.+) is not (?P<c>'[^']*')\.$", "{v} ist nicht {c}"),
        (r"^(?P<v>.+) is not in the range (?P<c>.+)\.$", "{v} liegt nicht im Bereich {c}"),
        (r"^(?P<v>.+) does not match the formats? (?P<c>.+)\.$", "{v} paßt nicht zum Format {c}"),
        (r"^\w+ (?P<v>.+) does not exist\.$", "{v} gibt es nicht"),
        (r"^\w+ (?P<v>.+) is a file\.$", "{v} ist eine Datei, erwartet ist ein Verzeichnis"),
        (r"^\w+ (?P<v>.+) is a directory\.$", "{v} ist ein Verzeichnis, erwartet ist eine Datei"),
        (r"^\w+ (?P<v>.+) is not readable\.$", "{v} ist nicht lesbar"),
        (r"^\w+ (?P<v>.+) is not writable\.$", "{v} ist nicht beschreibbar"),
        (r"^\w+ (?P<v>.+) is not executable\.$", "{v} ist nicht ausführbar"),
        (r"^Takes (?P<v>\d+) values but (?P<c>\d+) (was|were) given\.$",
         "verlangt {v} Werte, angegeben: {c}"),
        (r"^Value (?P<v>.+) is not a valid (?P<c>\w+)\.$", "{v} ist kein gültiger Wert ({c})"),
        # typer's checks through pydantic (typer 0.2x): the value itself is not named
        (r"^Input should be a valid integer.*$", "keine ganze Zahl"),
        (r"^Input should be a valid (number|float|decimal).*$", "keine Zahl"),
        (r"^Input should be a valid boolean.*$", "weder ja noch nein (true/false, yes/no, 1/0)"),
        (r"^Input should be a valid (date|datetime|time).*$", "kein gültiges Datum / keine Uhrzeit"),
        (r"^Input should be greater than or equal to (?P<v>\S+)$", "muß mindestens {v} sein"),
        (r"^Input should be less than or equal to (?P<v>\S+)$", "darf höchstens {v} sein"),
        (r"^Input should be greater than (?P<v>\S+)$", "muß größer als {v} sein"),
        (r"^Input should be less than (?P<v>\S+)$", "muß kleiner als {v} sein"),
        (r"^Input should be (?P<v>'.+)$", "erlaubt: {v}"),
    ))

# click's wording of a wrong command line as a whole -> German
_LINE_MESSAGES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.S), g) for p, g in (
        (r"^No such command (?P<v>.+)\.$", "unbekannter Befehl {v}"),
        (r"^Missing command\.$", "es fehlt der Befehl"),
        (r"^Got unexpected extra argument(?:s|\(s\))? \((?P<v>.*)\)$", "überzählige Angabe(n): {v}"),
        (r"^Option (?P<v>.+) requires an argument\.$", "Option {v} verlangt einen Wert"),
        (r"^Option (?P<v>.+) requires (?P<c>\d+) arguments\.$", "Option {v} verlangt {c} Werte"),
        (r"^Option (?P<v>.+) does not take a value\.$", "Option {v} nimmt keinen Wert"),
        (r"^Argument (?P<v>.+) takes (?P<c>\d+) values\.$", "Argument {v} verlangt {c} Werte"),
        (r"^No such option:? (?P<v>.+?)\.?$", "unbekannte Option {v}"),
        (r"^Invalid start character for option \((?P<v>.*)\)$",
         "ungültiges Zeichen am Anfang der Option {v}"),
    ))


def _match(message: str, table: tuple[tuple[re.Pattern[str], str], ...]) -> str | None:
    for pattern, german in table:
        m = pattern.match(message.strip())
        if m:
            return german.format(**m.groupdict())
    return None


def _hint(exc: Any) -> str:
    """How the parameter is named in the message (``'--jobs' / '-j'``)."""
    hint = getattr(exc, "param_hint", None)
    param = getattr(exc, "param", None)
    if hint is None and param is not None:
        try:
            hint = param.get_error_hint(exc.ctx)  # click
        except TypeError:
            hint = param.get_error_hint()  # typer's own copy takes no context
    if isinstance(hint, (list, tuple)):
        hint = " / ".join(str(h) for h in hint)
    return str(hint or "")


def german_message(exc: Any) -> str:
    """What was wrong with the command line (a ``UsageError``), in German, one line."""
    message = str(getattr(exc, "message", "") or "")
    if isinstance(exc, _exceptions.NoSuchOption):
        text = f"unbekannte Option {exc.option_name}"
        if exc.possibilities:
            text += f" (gemeint: {' oder '.join(sorted(exc.possibilities))}?)"
        return text
    if isinstance(exc, _exceptions.MissingParameter):
        param = exc.param
        kind = exc.param_type or (param.param_type_name if param is not None else "parameter")
        return " ".join(x for x in (_KINDS.get(kind, kind), _hint(exc), "fehlt") if x)
    if isinstance(exc, _exceptions.BadParameter):
        hint = _hint(exc)
        inner = _match(message, _VALUE_MESSAGES) or message
        return f"ungültiger Wert für {hint}: {inner}" if hint else f"ungültiger Wert: {inner}"
    return _match(message, _LINE_MESSAGES) or message or "Aufruf fehlerhaft"


def usage_line(ctx: Any) -> str | None:
    """The command's syntax and where its help is, in German."""
    if ctx is None:
        return None
    try:
        pieces = " ".join(ctx.command.collect_usage_pieces(ctx))
    except Exception:  # noqa: BLE001 - the line is a courtesy; the error is said already
        return None
    help_option = ctx.help_option_names[0] if ctx.help_option_names else "--help"
    return (f"Aufruf: {ctx.command_path} {pieces}".rstrip()
            + f" (Hilfe: {ctx.command_path} {help_option})")


def report(exc: Any) -> None:
    """Print the usage error in German on stderr and leave with exit code 2."""
    typer.echo(f"Fehler: {german_message(exc)}", err=True)
    line = usage_line(getattr(exc, "ctx", None))
    if line:
        typer.echo(line, err=True)
    raise _Exit(USAGE_EXIT)


_SHOW_HELP = getattr(_exceptions, "NoArgsIsHelpError", ())
"""Raised by click for ``no_args_is_help``: it shows the help; let it."""


class RootGroup(TyperGroup):
    """The ``wdg`` root: usage errors of every command in German (see the module)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except _SHOW_HELP:
            raise
        except _exceptions.UsageError as exc:
            report(exc)
            raise  # not reached

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _SHOW_HELP:
            raise
        except _exceptions.UsageError as exc:
            report(exc)
            raise  # not reached
        except _Abort:
            typer.echo("abgebrochen", err=True)
            raise _Exit(1) from None
