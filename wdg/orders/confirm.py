"""The German confirmation text sent back for every mail of an import."""

from __future__ import annotations

from wdg.orders.render import line_ranges
from wdg.world.state import ruler_title

_HEAD = {
    "angenommen": "Ihr Spielzug ist eingegangen und wurde angenommen.",
    "bereits erfasst": "Dieser Spielzug lag bereits vor; er wurde nicht noch einmal gespeichert.",
    "älter": "Ihr Spielzug ist eingegangen, aber ein später eingetroffener Spielzug liegt "
             "schon vor; es gilt der spätere.",
    "Quarantäne": "Ihre Mail konnte nicht gelesen werden und wurde NICHT als Spielzug "
                  "angenommen; sie ist beim Segmentleiter aufbewahrt.",
    "abgelehnt": "Ihre Mail wurde NICHT als Spielzug angenommen.",
}


LATE = "nach dem Eintreffschluß"
"""How the reason of a late sheet begins (:mod:`wdg.orders.intake`)."""


def confirmation(status: str, reason: str, kingdom: int | None, verdict: str, *,
                 in_force: str = "", outside: int = 0, notes: list[str] | None = None,
                 preview: str = "", herrscherin: bool = False,
                 outside_lines: list[int] | None = None, deadline: str = "") -> str:
    """The body of the confirmation mail: result, reason, which sheet is in
    force now, which lines outside the sheet were ignored (by number), the checker's
    verdict (the sheet with each message under its line) and the forecast of
    the sheet ("Vorschau", :func:`wdg.orders.forecast.forecast_text`). The
    salutation follows the kingdom's ruler ("Sehr geehrte Herrscherin" when
    ``herrscherin``). ``deadline``: the month's EINTREFFSCHLUSS as the player reads
    it (date, time, zone); a refused sheet's answer names it — and a late sheet is
    told what happens instead, not to send again before a deadline that has passed."""
    lines = [f"{ruler_title(herrscherin, 'dear')},", "", _HEAD.get(status, status)]
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
    if status == "abgelehnt" and reason.startswith(LATE):
        lines += ["", "Der Eintreffschluß" + (f" ({deadline})" if deadline else "")
                  + " ist vorbei: dieser Spielzug zählt für diesen Mond nicht, auch nicht "
                  "berichtigt. Es gilt der Spielzug, der vor dem Eintreffschluß eingegangen "
                  "ist; liegt keiner vor, wird Ihr Königreich in diesem Mond ohne Ihre Befehle "
                  "ausgewertet (Ihre Heere ruhen). Mit dem Ergebnis des Mondes erhalten Sie "
                  "das Formular für den nächsten."]
    elif status in ("abgelehnt", "Quarantäne"):
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
