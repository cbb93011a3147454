"""The format registry: one table of every kind of file the store writes,
with its current format number (docs/storage.md, "Format registry").

Every format check reads this table — the segment's ``format:``
(:func:`wdg.store.segment.check_live_format`), the archived month's
``provenance.yaml`` (``format:``) — and every writer stamps the number it
finds here. Whoever changes what an older wdg would misread (a file's
shape, a new file in the segment, a password scheme, a record's lines)
raises the number of its kind here, adds the migration as an upgrade step
(:func:`wdg.engine.upgrade.register_step`) and says so in ``CHANGELOG.md``.

A kind whose number is carried by another kind's number says so in
``carried_by`` (the kingdoms and their password scheme are part of the
segment: a change there raises ``segment``). A new small mail record
(rate-limit counters, alert records, ...) adds one row here and is stored
through :mod:`wdg.store.mailrecords`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Kind:
    """One stored kind: its current format number, where it lives and what it is."""

    name: str
    format: int
    where: str
    description: str
    carried_by: str = ""
    """The kind whose format number covers this one (``""``: numbered on its own)."""


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("segment", 3, "worlds/<segment>/segment.yaml (format:)",
         "the live segment's file set and each file's schema; 1 up to wdg 0.1.0, 2 since 0.2.0 "
         "(months archived with provenance and templates), 3 since 0.3.0 (password hashes may "
         "be scrypt, which 0.2.0 cannot check: it would refuse every sheet; issue #40)"),
    Kind("kingdoms", 3, "worlds/<segment>/kingdoms.yaml",
         "kingdoms with players and password hashes (scheme: wdg.world.passwords; PBKDF2 up "
         "to format 2, scrypt or PBKDF2 from format 3)",
         carried_by="segment"),
    Kind("archive-month", 2, "worlds/<segment>/turns/<M>/",
         "an archived month's folder: state before/after, sheets, rules, seed, events, outputs, "
         "manifest, summary (written in the segment format of its time)",
         carried_by="segment"),
    Kind("provenance", 1, "worlds/<segment>/turns/<M>/provenance.yaml (format:)",
         "what made the month: wdg version and commit, Python, dependencies, input and template "
         "hashes"),
    Kind("hash-lists", 1, "SHA256SUMS of the segment and of every month",
         "sha256sum lists and the chain of months (each list names the previous month's list)"),
    Kind("mail-sent", 1, "worlds/<segment>/mail/sent.yaml + sent.seal",
         "the send record (Versandbuch): one JSON line per mail event, numbered and sealed"),
    Kind("mail-seen", 1, "worlds/<segment>/mail/seen.yaml",
         "the intake record (Eingangsbuch): one JSON line per mail event, sealed"),
    Kind("intake-receipts", 1, "orders/<segment>/<M>/k<n>.receipt.yaml",
         "a stored order sheet's receipt (sender, arrival, SHA-256 of the sheet, status)"),
    Kind("mail-record", 1, "worlds/<segment>/mail/<name>.yaml",
         "the envelope of every small mail record (wdg.store.mailrecords: sealed, one JSON line "
         "with format, kind, data); each kind adds its own row mail-<name>"),
)}


BUILTIN = tuple(KINDS)
"""The kinds of this table itself (the mail records' own rows are added by
:func:`wdg.store.mailrecords.define` when their module is imported)."""


def register(kind: Kind) -> Kind:
    """Add a kind (a new mail record's row); refused when the name is taken by
    another definition."""
    old = KINDS.get(kind.name)
    if old is not None and old != kind:
        raise ValueError(f"stored kind {kind.name!r} is registered already: {old}")
    KINDS[kind.name] = kind
    return kind


def current(name: str) -> int:
    """The format number this wdg writes for the kind ``name``."""
    kind = KINDS[name]
    return KINDS[kind.carried_by].format if kind.carried_by else kind.format


SEGMENT = current("segment")
"""The segment format this wdg writes (``format:`` in ``segment.yaml``)."""
PROVENANCE = current("provenance")
"""The ``format:`` of a month's ``provenance.yaml`` this wdg writes."""


def markdown_rows(kinds: dict[str, Kind] | None = None) -> list[str]:
    """The table's rows as docs/storage.md shows them ("Format registry"; kept
    equal by ``tests/store/test_formats.py``)."""
    kinds = KINDS if kinds is None else kinds
    # this table's own kinds in its order, then the mail records by name: the
    # order their modules happen to be imported in must not change the docs
    order = [n for n in BUILTIN if n in kinds] + sorted(n for n in kinds if n not in BUILTIN)
    return [f"| `{k.name}` | {current(k.name)} | {k.where} | {k.description}"
            + (f" (numbered with `{k.carried_by}`)" if k.carried_by else "") + " |"
            for k in (kinds[n] for n in order)]
