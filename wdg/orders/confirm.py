"""The German confirmation text sent back for every mail of an import."""

from __future__ import annotations

from wdg.orders.outcome import REFUSED_STATUSES, IntakeReason, IntakeStatus
from wdg.orders.verdict import line_ranges
from wdg.world.state import ruler_title

STATUS_WORDS: dict[IntakeStatus, str] = {
    IntakeStatus.ACCEPTED: "angenommen",
    IntakeStatus.REPLACED_OLDER: "älter",
    IntakeStatus.DUPLICATE: "bereits erfasst",
    IntakeStatus.REJECTED: "abgelehnt",
    IntakeStatus.QUARANTINED: "Quarantäne",
}
"""The German word of each outcome as the import's table and the answer's
subject show it (the one table; the stored codes are the members' values,
:mod:`wdg.orders.outcome`)."""

HEADLINES: dict[IntakeStatus, str] = {
    IntakeStatus.ACCEPTED: "Ihr Spielzug ist eingegangen und wurde angenommen.",
    IntakeStatus.DUPLICATE: "Dieser Spielzug lag bereits vor; er wurde nicht noch einmal "
                            "gespeichert.",
    IntakeStatus.REPLACED_OLDER: "Ihr Spielzug ist eingegangen, aber ein später eingetroffener "
                                 "Spielzug liegt schon vor; es gilt der spätere.",
    IntakeStatus.QUARANTINED: "Ihre Mail konnte nicht gelesen werden und wurde NICHT als "
                              "Spielzug angenommen; sie ist beim Segmentleiter aufbewahrt.",
    IntakeStatus.REJECTED: "Ihre Mail wurde NICHT als Spielzug angenommen.",
}
"""The confirmation's first line by outcome (the mail guard knows wdg's own
answers by these lines, :func:`wdg.mail.guard.answer_marks`)."""

REASON_WORDS: dict[IntakeReason, str] = {
    IntakeReason.NO_PASSWORD: "Passwort fehlt",
    IntakeReason.WRONG_PASSWORD: "falsches Passwort",
}
"""The German reason of the refusals a program acts on by code, where the text
is only these words (:func:`wdg.orders.acceptance.refusals`, the mail guard)."""


def status_word(status: IntakeStatus | str) -> str:
    """The German word of an outcome (a code read from an old record that is no
    member is shown as it stands)."""
    try:
        return STATUS_WORDS[IntakeStatus(status)]
    except ValueError:
        return str(status)


def confirmation(status: IntakeStatus | str, reason: str, kingdom: int | None, verdict: str, *,
                 cause: IntakeReason | None = None, in_force: str = "", outside: int = 0, notes: list[str] | None = None,
                 preview: str = "", herrscherin: bool = False,
                 outside_lines: list[int] | None = None, deadline: str = "") -> str:
    """The body of the confirmation mail: result, reason, which sheet is in
    force now, which lines outside the sheet were ignored (by number), the checker's
    verdict (the sheet with each message under its line) and the forecast of
    the sheet ("Vorschau", :func:`wdg.orders.forecast.forecast_text`). The
    salutation follows the kingdom's ruler ("Sehr geehrte Herrscherin" when
    ``herrscherin``). ``deadline``: the month's EINTREFFSCHLUSS as the player reads
    it (date, time, zone); a refused sheet's answer names it — and a late sheet is
    told what happens instead, not to send again before a deadline that has passed
    (``cause`` :attr:`IntakeReason.LATE`; ``reason`` is the German reason shown)."""
    head = next((text for s, text in HEADLINES.items() if s == status), str(status))
    lines = [f"{ruler_title(herrscherin, 'dear')},", "", head]
    if kingdom:
        lines.append(f"Königreich: {kingdom}")
    if reason:
        lines.append(f"Grund: {reason}")
    for note in notes or []:
        lines.append(f"Hinweis: {note}")
    if in_force:
        lines.append(f"Es gilt jetzt: {in_force}")
    if outside:
        where = f": Zeile{'n' if outside != 1 else ''} {line_ranges(outside_lines)}" \
            if outside_lines else ""
        lines.append(f"{outside} Zeile{'n' if outside != 1 else ''} außerhalb des Spielzugs "
                     f"ignoriert (Anrede, Zitate, Signatur, Text nach NÄCHSTER/ENDE){where}")
    if status == IntakeStatus.REJECTED and cause is IntakeReason.LATE:
        lines += ["", "Der Eintreffschluß" + (f" ({deadline})" if deadline else "")
                  + " ist vorbei: dieser Spielzug zählt für diesen Mond nicht, auch nicht "
                  "berichtigt. Es gilt der Spielzug, der vor dem Eintreffschluß eingegangen "
                  "ist; liegt keiner vor, wird Ihr Königreich in diesem Mond ohne Ihre Befehle "
                  "ausgewertet (Ihre Heere ruhen). Mit dem Ergebnis des Mondes erhalten Sie "
                  "das Formular für den nächsten."]
    elif status in REFUSED_STATUSES:
        when = f"bis zum Eintreffschluß {deadline}" if deadline else "vor dem Eintreffschluß"
        lines += ["", f"Bitte senden Sie den Spielzug {when} erneut, als reinen "
                  "Text mit den Zeilen 'Segment:', 'Königreich:' und 'Passwort:'."]
    if verdict:
        lines += ["", "Prüfung Ihres Spielzugs (Meldungen stehen unter der betroffenen Zeile):",
                  "", verdict.rstrip()]
    if preview:
        lines += ["", "Vorschau:", "", preview.rstrip()]
    lines += ["", "Der Segmentleiter", ""]
    return "\n".join(lines)
