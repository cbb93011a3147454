"""The live files against the last archived month (docs/storage.md, "The live
files and the archive"; issue #40 item 7).

After a month is committed the live segment files are exactly the month's
archived ``state/`` (its manifest holds their SHA-256). Between months they
may change — through wdg's commands (a kingdom added, a deadline set, ``wdg
segment accept`` after a hand edit) or by hand, in which case the live hash
list ``SHA256SUMS`` catches it unless it was rewritten too. :func:`check_live`
— run by ``wdg segment check`` and before every ``wdg turn run`` — names every
live file that differs from the archived state, so such a change (a file
changed together with its line in ``SHA256SUMS``, which passed every check
before) is shown to the game master. It is a notice, not a refusal: wdg does
not record its own changes between months, so it cannot tell them from a
hand edit; the game master can (``wdg segment check`` lists the files).
"""

from __future__ import annotations

from pathlib import Path

from wdg.store.integrity import (IntegrityError, Finding, TURNS, file_digest, month_dirs,
                                 read_manifest)
from wdg.store.journal import FILES


def check_live(seg_dir: Path) -> list[Finding]:
    """Each live segment file against the last archived month's ``state/``
    (its manifest's SHA-256): a notice (``uncovered``) per file that differs.
    Never raises."""
    months = [m for m in month_dirs(seg_dir / TURNS) if m.is_dir() and not m.is_symlink()]
    if not months:
        return []
    last = months[-1]
    try:
        manifest = read_manifest(last)
    except (IntegrityError, OSError, ValueError):
        return []  # a damaged manifest is named by the month's own check
    found: list[Finding] = []
    for name in FILES:
        archived = manifest.get(f"state/{name}")
        live = seg_dir / name
        if archived is None or not live.is_file() or live.is_symlink():
            continue  # a month of an older wdg (hashed as stored), or a file the list check names
        if file_digest(live) != archived:
            found.append(Finding(str(live), f"weicht vom archivierten Stand nach Mond {last.name} "
                                 f"ab ({TURNS}/{last.name}/state/{name}): seitdem geändert — "
                                 "durch einen wdg-Befehl (Königreich, Termin, 'segment accept') "
                                 "oder von Hand samt seiner Zeile in SHA256SUMS? Prüfen, wenn "
                                 "keine Änderung beabsichtigt war", uncovered=True))
    return found
