"""Whether a sheet is taken at all: the one decision shared by ``wdg orders
import`` and ``wdg orders check`` (with the segment at hand).

A sheet is refused as a whole — nothing of it is stored or run — when it
names no kingdom or one without a player, another segment, another month than
the segment's current one, or lacks the password or carries a wrong one.
:func:`refusals` gives these as diagnostics (German, as the player reads them);
the import refuses the mail with the first one's message as the reason, the
checker shows all of them as errors.
"""

from __future__ import annotations

from wdg.orders import model as m
from wdg.orders.confirm import REASON_WORDS
from wdg.orders.outcome import IntakeReason
from wdg.world.passwords import verify_password
from wdg.world.state import Segment

E = m.Severity.ERROR
WHOLE = "der ganze Spielzug wird nicht angenommen"


def refusals(sheet: m.Sheet, seg: Segment, *, check_password: bool = True) -> list[m.Diagnostic]:
    """The reasons ``sheet`` is refused for ``seg`` (empty: it is taken)."""
    out: list[m.Diagnostic] = []
    h = sheet.header_lines
    k = seg.kingdoms.get(sheet.kingdom)
    if not sheet.kingdom:
        out.append(m.Diagnostic(h.get("kingdom", 0), 1, E, "keine Königreichnummer im Spielzug",
                                expected="Königreich: <Nummer>", consequence=WHOLE,
                                code=IntakeReason.NO_KINGDOM))
    elif k is None or k.player is None:
        out.append(m.Diagnostic(h.get("kingdom", 0), 1, E,
                                f"unbekanntes Königreich {sheet.kingdom}",
                                found=str(sheet.kingdom), expected="die Nummer Ihres Königreiches",
                                consequence=WHOLE, code=IntakeReason.OTHER_KINGDOM))
    if sheet.segment and sheet.segment.casefold() != seg.name.casefold():
        out.append(m.Diagnostic(h.get("segment", 0), 1, E, f"falsches Segment {sheet.segment!r}",
                                found=sheet.segment, expected=f"Segment: {seg.name}",
                                consequence=WHOLE, code=IntakeReason.OTHER_SEGMENT))
    if sheet.month is not None and sheet.month != seg.date:
        # the month's run would refuse it (wdg.engine.month_sheets): say so now, not "angenommen"
        out.append(m.Diagnostic(h.get("month", 0), 1, E,
                                f"Spielzug für den Mond {sheet.month.short()}, angenommen wird "
                                f"{seg.date.short()}", found=sheet.month.short(),
                                expected=seg.date.short(), consequence=WHOLE,
                                code=IntakeReason.OTHER_MONTH))
    if not sheet.password:
        out.append(m.Diagnostic(h.get("password", 0), 1, E,
                                REASON_WORDS[IntakeReason.NO_PASSWORD],
                                expected="Passwort: <Passwort Ihres Königreiches>",
                                consequence=WHOLE, code=IntakeReason.NO_PASSWORD))
    elif check_password and k is not None and k.player is not None \
            and not verify_password(sheet.password, k.player.password_hash):
        out.append(m.Diagnostic(h.get("password", 0), 1, E,
                                REASON_WORDS[IntakeReason.WRONG_PASSWORD],
                                expected="das Passwort Ihres Königreiches", consequence=WHOLE,
                                code=IntakeReason.WRONG_PASSWORD))
    return out
