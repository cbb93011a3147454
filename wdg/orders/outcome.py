"""What the import did with one sheet of one mail, as codes (issue #44).

:class:`IntakeStatus` is the outcome. Its values are **storage codes**: they
stand as written in the receipts (``k<n>.receipt.yaml``, ``status``), the
record of imported mails (``results[].status``) and the fetch's report
(``status``), in campaigns of every version, so a value never changes — not
even when the German word a player or the game master reads changes: that
word comes from the text layer's one table
(:data:`wdg.orders.confirm.STATUS_WORDS`). Programs compare members, never the
word. Being a :class:`~enum.StrEnum`, a member equals its code
(``IntakeStatus.ACCEPTED == "angenommen"``); write ``.value`` where it is
stored (YAML's safe dumper writes no enum).

:class:`IntakeReason` names the reasons of a refusal a program acts on: the
confirmation's paragraph for a late sheet, the mail guard's password notices,
the fetch's count of mails already imported in an earlier month. The German
reason beside it (``MailResult.reason``) is display text only; the code is run
time only and never stored.
"""

from __future__ import annotations

from enum import Enum, StrEnum


class IntakeStatus(StrEnum):
    """The outcome of one sheet of one mail (values: storage codes, see above)."""

    ACCEPTED = "angenommen"
    """Stored; it is the kingdom's sheet in force now."""
    REPLACED_OLDER = "älter"
    """Stored but not in force: a sheet that arrived later is already there."""
    DUPLICATE = "bereits erfasst"
    """These bytes (this mail, this sheet) were taken before; nothing stored again."""
    REJECTED = "abgelehnt"
    """Not taken (the reason says why)."""
    QUARANTINED = "Quarantäne"
    """Not readable; kept for the game master."""


REFUSED_STATUSES = frozenset({IntakeStatus.REJECTED, IntakeStatus.QUARANTINED})
"""Outcomes of a mail that was not taken."""
TAKEN_STATUSES = frozenset({IntakeStatus.ACCEPTED, IntakeStatus.REPLACED_OLDER})
"""Outcomes of a sheet that carried new orders (taken)."""


class IntakeReason(Enum):
    """Why a sheet was refused (or not read again), where a program acts on it."""

    LATE = "late"
    """Arrived after the month's Eintreffschluß."""
    ARRIVAL_UNKNOWN = "arrival-unknown"
    """The arrival time is unknown, so the Eintreffschluß cannot be checked."""
    NO_PASSWORD = "no-password"
    """The sheet carries no password."""
    WRONG_PASSWORD = "wrong-password"
    """The sheet's password is not the kingdom's."""
    EARLIER_MONTH = "earlier-month"
    """The mail was already imported in an earlier month."""
    NO_KINGDOM = "no-kingdom"
    """The sheet names no kingdom."""
    OTHER_KINGDOM = "other-kingdom"
    """The sheet names a kingdom without a player, or not the view's kingdom."""
    OTHER_SEGMENT = "other-segment"
    """The sheet is for another segment."""
    OTHER_MONTH = "other-month"
    """The sheet is for another month than the segment's current one."""


SHEET_REFUSALS = frozenset({IntakeReason.NO_KINGDOM, IntakeReason.OTHER_KINGDOM,
                            IntakeReason.OTHER_SEGMENT, IntakeReason.OTHER_MONTH,
                            IntakeReason.NO_PASSWORD, IntakeReason.WRONG_PASSWORD})
"""The codes of the diagnostics that refuse a sheet whole (the acceptance's,
:func:`wdg.orders.acceptance.refusals`, and the checker's header checks):
nothing of it is stored, run or foreseen."""
PASSWORD_REASONS = frozenset({IntakeReason.NO_PASSWORD, IntakeReason.WRONG_PASSWORD})
"""The refusals the mail guard answers to the kingdom's own address."""
