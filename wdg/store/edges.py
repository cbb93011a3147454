"""The store's edges: the folders a campaign writes outside a segment's own
files — ``orders/`` (with ``replaced/``), ``outbox/``, ``quarantine/``,
``reports/`` and the mail log — never lead out of the campaign
(docs/storage.md, "The store's edges"; issue #40 item 8).

Before anything is written (before any commit point), every folder on the
way from the campaign's top folder (``orders/``, ``reports/``, ...) down to
the file, and the file itself, must not be a symbolic link: a link there
would make wdg write, move or archive something outside the campaign (a
linked ``replaced/`` let a correction answer "angenommen" while the first
sheet stayed in force; a sheet linked to any readable file was archived as
a sheet). Refused with a German message naming the link and what to do;
nothing is changed.
"""

from __future__ import annotations

import os
from pathlib import Path

from wdg.errors import StateError


class LinkRefused(StateError):
    """A symbolic link (or a path leaving the campaign) where wdg would write or read."""


def _say(p: Path, what: str) -> LinkRefused:
    try:
        target = f" (auf {os.readlink(p)})"
    except OSError:
        target = ""
    return LinkRefused(f"{p} ist ein symbolischer Link{target}; wdg {what} nie durch einen Link "
                       "und hat nichts verändert. Entfernen Sie den Link von Hand "
                       f"('rm {p}', nicht 'rm -r'), legen Sie, was dorthin gehört, als "
                       "gewöhnliche Datei oder gewöhnlichen Ordner an, und rufen Sie den Befehl "
                       "erneut auf.")


def refused_link(p: Path, what: str = "schreibt") -> LinkRefused:
    """The refusal for the link ``p`` (German, what to do)."""
    return _say(p, what)


def refuse_links(base: Path, path: Path, what: str = "schreibt") -> None:
    """Refuse (:class:`LinkRefused`) if ``base`` or anything from it down to
    ``path`` (inclusive) is a symbolic link, or ``path`` is not under ``base``.
    Parts that do not exist yet are fine (they will be made as folders)."""
    base, path = Path(base), Path(path)
    try:
        rel = path.relative_to(base)
    except ValueError:
        raise LinkRefused(f"{path} liegt nicht unter {base}; wdg {what} dort nichts") from None
    p = base
    for part in ("", *rel.parts):
        p = p / part if part else p
        if p.is_symlink():
            raise _say(p, what)
        if not p.exists():
            return
    real_base, real = os.path.realpath(base), os.path.realpath(path)
    if real != real_base and not real.startswith(real_base.rstrip(os.sep) + os.sep):
        raise LinkRefused(f"{path} führt aus {base} hinaus (nach {real}); wdg {what} dort nichts")


def refuse_links_below(folder: Path, what: str = "schreibt") -> None:
    """:func:`refuse_links` for ``folder`` and everything in it (a folder about
    to be filled again, e.g. a month's delivered reports)."""
    if folder.is_symlink():
        raise _say(folder, what)
    if not folder.is_dir():
        return
    for p in sorted(folder.rglob("*")):
        if p.is_symlink():
            raise _say(p, what)
