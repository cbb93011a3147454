"""The German confirmation text sent back for every mail of an import."""

from __future__ import annotations

_HEAD = {
    "angenommen": "Ihr Spielzug ist eingegangen und wurde angenommen.",
    "bereits erfasst": "Dieser Spielzug lag bereits vor; er wurde nicht noch einmal gespeichert.",
    "älter": "Ihr Spielzug ist eingegangen, aber ein neuerer Spielzug liegt schon vor; "
             "es gilt der neuere.",
    "abgelehnt": "Ihre Mail wurde NICHT als Spielzug angenommen.",
}


def confirmation(status: str, reason: str, kingdom: int | None, verdict: str) -> str:
    """The body of the confirmation mail: result, reason, and the checker's
    verdict (the sheet with each message under its line)."""
    lines = ["Sehr geehrter Herrscher,", "", _HEAD.get(status, status)]
    if kingdom:
        lines.append(f"Königreich: {kingdom}")
    if reason:
        lines.append(f"Grund: {reason}")
    if status == "abgelehnt":
        lines += ["", "Bitte senden Sie den Spielzug vor dem Eintreffschluß erneut, als reinen "
                  "Text mit den Zeilen 'Segment:', 'Königreich:' und 'Passwort:'."]
    if verdict:
        lines += ["", "Prüfung Ihres Spielzugs (Meldungen stehen unter der betroffenen Zeile):",
                  "", verdict.rstrip()]
    lines += ["", "Der Segmentleiter", ""]
    return "\n".join(lines)
