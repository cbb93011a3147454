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


def confirmation(status: str, reason: str, kingdom: int | None, verdict: str, *,
                 in_force: str = "", outside: int = 0, notes: list[str] | None = None,
                 preview: str = "", herrscherin: bool = False,
                 outside_lines: list[int] | None = None) -> str:
    """The body of the confirmation mail: result, reason, which sheet is in
    force now, which lines outside the sheet were ignored (by number), the checker's
    verdict (the sheet with each message under its line) and the forecast of
    the sheet ("Vorschau", :func:`wdg.orders.forecast.forecast_text`). The
    salutation follows the kingdom's ruler ("Sehr geehrte Herrscherin" when
    ``herrscherin``)."""
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
    if status in ("abgelehnt", "Quarantäne"):
        lines += ["", "Bitte senden Sie den Spielzug vor dem Eintreffschluß erneut, als reinen "
                  "Text mit den Zeilen 'Segment:', 'Königreich:' und 'Passwort:'."]
    if verdict:
        lines += ["", "Prüfung Ihres Spielzugs (Meldungen stehen unter der betroffenen Zeile):",
                  "", verdict.rstrip()]
    if preview:
        lines += ["", "Vorschau:", "", preview.rstrip()]
    lines += ["", "Der Segmentleiter", ""]
    return "\n".join(lines)
