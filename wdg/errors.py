"""The one exception hierarchy of wdg.

Every error the library raises on purpose is a :class:`WdgError`. The CLI turns
it into one clear message and a non-zero exit code; nothing else catches it.
Messages quote the offending input with ``!r`` and name file and key/line.
"""

from __future__ import annotations


class WdgError(Exception):
    """Base class of all deliberate wdg errors."""


class DataError(WdgError, ValueError):
    """A file (segment, rules, record, ...) is malformed or inconsistent.

    ``path`` is the file, ``key`` the key path or ``line`` the line number
    where the problem was found, ``expected`` what would have been valid.
    """

    def __init__(self, path: str | None, where: str | None, found: object, expected: str,
                 *, line: int | None = None) -> None:
        self.path = path
        self.where = where
        self.found = found
        self.expected = expected
        self.line = line
        # the frame is German like every message a game master reads (#34);
        # ``expected`` is German at each raise site
        loc = path or "<Eingabe>"
        if line is not None:
            loc += f", Zeile {line}"
        if where:
            loc += f", Schlüssel {where!r}"
        super().__init__(f"{loc}: gefunden {found!r}, erwartet {expected}")


class MissingKeyError(DataError):
    """A key a rules file must have is not there (``where``: its key path in
    the file ``path``). Its own class so that code can tell it from other
    damage without reading the German message (a replay completes such a key
    from the shipped rules)."""


_KINDS = {"dict": "eine Zuordnung", "list": "eine Liste", "str": "ein Text", "int": "eine Zahl",
          "float": "eine Zahl", "bool": "ein Wahrheitswert", "NoneType": "nichts (leer)"}


def kind_of(value: object) -> str:
    """The German name of the kind of a value read from a file (for the
    ``found`` of a :class:`DataError`): ``eine Liste``, ``ein Text``, ..."""
    name = type(value).__name__
    return _KINDS.get(name, name)


class InvalidInputError(WdgError, ValueError):
    """Text that does not parse (an address, a direction, a command word)."""


class IllegalOrderError(WdgError, ValueError):
    """An order that parses but is not allowed for this army/kingdom now."""


class AmbiguousInputError(WdgError, ValueError):
    """An abbreviation or name that matches more than one thing."""


class StateError(WdgError):
    """An operation on a segment that its current state does not allow
    (e.g. a turn run while another holds the lock, undo with no archive)."""


class LockedError(StateError):
    """The segment is locked by another wdg command (``worlds/<segment>/.lock``)."""


class RefusedError(StateError):
    """The month may not run as it stands: a blocker of ``wdg turn status``
    (too many sheets missing, the game master's sheet has errors). ``wdg world
    run`` and ``wdg mail run`` report it as *refused*, not as *failed*."""


class InjectedFailure(WdgError):
    """Raised on purpose by the test hooks (``fail_after_step`` of the month,
    ``fail_at`` of the archive's commit)."""
