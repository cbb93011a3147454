"""``wdg mail fetch`` and ``wdg mail watch`` (added to the ``wdg mail`` group by
:mod:`wdg.commands.mail`). Thin: parse flags, call :mod:`wdg.mail.fetch` /
:mod:`wdg.mail.watch`, print."""

from __future__ import annotations

import json
import signal
from datetime import datetime
from pathlib import Path

import typer

from wdg.commands.common import campaign_option, open_campaign

def fetch_cmd(
    segment: str = typer.Argument(..., help="Name des Segments."),
    as_json: bool = typer.Option(False, "--json", help="Das Ergebnis als JSON ausgeben."),
    no_answer: bool = typer.Option(False, "--no-answer", help="Einlesen und ablegen, aber "
                                   "jetzt keine Antworten senden (das nächste Abholen sendet "
                                   "sie)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Das Postfach der Spielleitung abholen (imap: in worlds/<segment>/mail.yaml): jeden
    neuen Bogen einmal einlesen, sofort beantworten, in den Erledigt-Ordner ablegen.

    Rückgabewerte (wdg/exitcodes.py): 0 neue Post angenommen oder Antworten gesendet;
    3 nichts Neues; 5 eine Antwort ist ungewiss (siehe 'wdg mail sent'); 6 das Segment
    ist von einem anderen Befehl gesperrt; 7 geschuldete Antworten nicht gesendet (SMTP);
    1 das Abholen lief nicht (Server, Anmeldung, Zertifikat)."""
    from wdg import exitcodes
    from wdg.errors import LockedError
    from wdg.mail.fetch import fetch

    camp = open_campaign(campaign)
    try:
        report = fetch(camp, segment, answer=not no_answer)
    except LockedError as exc:
        typer.echo(f"Fehler: {exc}", err=True)
        raise typer.Exit(exitcodes.LOCKED) from None
    code = exitcodes.UNSENT if report.failed else exitcodes.REFUSED if report.uncertain else \
        exitcodes.OK if report.new or report.sent or report.moved else exitcodes.NOTHING
    if as_json:
        typer.echo(json.dumps({"status": exitcodes.JSON_STATUS[code], **report.as_dict()},
                              ensure_ascii=False, indent=1))
    else:
        typer.echo(report.table(), nl=False)
    if report.failed:
        why = str(report.send_error or "") or next(iter(report.failed.values()))
        typer.echo(f"Fehler: {len(report.failed)} Antwort(en) nicht gesendet ({why}); sie "
                   "bleiben fällig, der nächste Abruf sendet sie", err=True)
    if code:
        raise typer.Exit(code)


def watch_cmd(
    segment: str = typer.Argument(None, help="Name des Segments (oder --all)."),
    all_segments: bool = typer.Option(False, "--all", help="Ein Postfach für alle Segmente: "
                                      "das mail.yaml der Kampagne (neben worlds/), jede "
                                      "Mail nach ihrer Segment:-Zeile (docs/world.md)."),
    idle: int = typer.Option(25 * 60, "--idle", min=5, max=29 * 60,
                             help="Sekunden Warten in IMAP IDLE, bevor erneut nachgesehen wird."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Verbunden bleiben und jede Mail in dem Moment beantworten, in dem sie eintrifft
    (IMAP IDLE; ohne IDLE sagt es das einmal und sieht alle imap.poll_seconds nach);
    nach einer abgerissenen Verbindung neu verbinden. Eine abgelehnte Anmeldung beendet
    es mit Rückgabewert 1 (IMAP) oder 7 (SMTP): ein falsches Passwort heilt nicht von
    selbst. SIGTERM beendet es sauber (Rückgabewert 0) nach der Mail in der Hand;
    Strg-C sofort (Rückgabewert 130; nichts Gespeichertes geht verloren)."""
    from wdg import exitcodes
    from wdg.mail.watch import LoginRefused, watch

    camp = open_campaign(campaign)
    if all_segments or segment is None:
        from wdg.errors import InvalidInputError

        if segment is not None:
            raise InvalidInputError(f"--all und ein Segment ({segment!r}) schließen sich aus")
        if not all_segments:
            raise InvalidInputError("ein Segment angeben oder --all (jedes Segment der "
                                    "Kampagne)")
        from wdg.office.mailrun import shared_segments, watch_all

        shared_segments(camp)  # no shared box: refused before anything starts
    stopping = {"now": False}

    def on_term(signum, frame):
        stopping["now"] = True

    # restored when the command returns: a caller that runs the command in its
    # own process (tests, a library user) keeps its handlers afterwards (a
    # SIGTERM that only sets a flag would make such a process unkillable by
    # SIGTERM, its forked children too)
    previous = {sig: signal.signal(sig, on_term) for sig in (signal.SIGTERM, signal.SIGHUP)}

    def stamp() -> str:
        return datetime.now().astimezone().strftime("%d.%m.%Y %H:%M:%S %Z")

    def on_report(rep) -> None:
        if rep.new or rep.sent or rep.moved or rep.failed or rep.uncertain:
            typer.echo(f"[{stamp()}]")
            typer.echo(rep.table(), nl=False)

    def on_problem(text: str) -> None:
        typer.echo(f"[{stamp()}] {text}", err=True)

    def on_ready() -> None:
        typer.echo(f"[{stamp()}] wdg mail watch {segment or '--all'}: warte auf Mail (Ende mit "
                   "SIGTERM oder Strg-C)")

    try:
        if all_segments:
            watch_all(camp, stop=lambda: stopping["now"], on_report=on_report,
                      on_problem=on_problem, idle_seconds=idle, on_ready=on_ready)
        else:
            watch(camp, segment, stop=lambda: stopping["now"], on_report=on_report,
                  on_problem=on_problem, idle_seconds=idle, on_ready=on_ready)
    except LoginRefused as exc:
        typer.echo(f"[{stamp()}] Fehler: {exc}", err=True)
        typer.echo(f"[{stamp()}] wdg mail watch beendet: die Anmeldung beim "
                   f"{'SMTP' if exc.smtp else 'IMAP'}-Server wurde abgelehnt, und ein falsches "
                   "Passwort wird nicht von selbst richtig. Passwort (password_env/"
                   "password_file in mail.yaml) prüfen, dann den Dienst neu starten "
                   "(docs/gamemaster.md, Wenn etwas schiefgeht)", err=True)
        raise typer.Exit(exitcodes.UNSENT if exc.smtp else exitcodes.FAILED) from None
    except KeyboardInterrupt:
        # typer turns Ctrl-C into a silent exit 130: say what it means here
        typer.echo(f"[{stamp()}] abgebrochen (Strg-C); Gespeichertes ist unverändert oder "
                   "vollständig, der nächste Abruf macht das Begonnene fertig", err=True)
        raise typer.Exit(130) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    typer.echo(f"[{stamp()}] beendet (SIGTERM)")


def register(sub: typer.Typer) -> None:
    """Add ``fetch`` and ``watch`` to the ``wdg mail`` group."""
    sub.command("fetch")(fetch_cmd)
    sub.command("watch")(watch_cmd)
