"""``wdg reports``: render a month's reports and mail them to the players."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.commands.common import campaign_option, load, open_campaign
from wdg.world.calendar import MonthDate

sub = typer.Typer(help="Ergebnisbögen, Götterbotschaft und Übersicht: erzeugen und versenden.",
                  no_args_is_help=True)


@sub.command("render")
def render(
    segment: str = typer.Argument(..., help="Name des Segments."),
    month: str = typer.Argument(None, help="Der archivierte Monat JJJJ-MM (sonst der letzte)."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Arbeitsprozesse (0 = einer je Kern)."),
    no_pdf: bool = typer.Option(False, "--no-pdf", help="Nur Text und HTML."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Ohne Fortschrittsbalken."),
    kingdom: list[int] = typer.Option(None, "--kingdom", "-k",
                                      help="Nur die Blätter dieser Königreiche (mehrfach "
                                           "möglich), etwa das PDF eines Spielers neu."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Jeden Bericht eines archivierten Monats neu erzeugen — aus dem archivierten Stand,
    den Ereignissen, Bögen und Regeln dieses Monats — nach reports/<segment>/<JJJJ-MM>/;
    Dateien gleich den archivierten kommen aus dem Archiv, abweichende werden aufgeführt."""
    from wdg.errors import InvalidInputError
    from wdg.reports.archived import render_month

    camp = open_campaign(campaign)
    seg = load(camp, segment)
    date = MonthDate.parse(month) if month else seg.date.previous()
    unknown = sorted(set(kingdom or []) - set(seg.kingdoms))
    if unknown:
        raise InvalidInputError(f"--kingdom {', '.join(map(str, unknown))}: kein Königreich des "
                                f"Segments {segment!r} (es gibt {', '.join(map(str, sorted(seg.kingdoms)))})")
    got = render_month(camp, segment, date, jobs=jobs or None, pdf=not no_pdf,
                       progress=not quiet, kingdoms=kingdom or None)
    typer.echo(f"{len(got)} Dateien in {camp.reports_dir(segment, date)}; "
               + ("alle identisch mit dem Archiv" if not got.differing else
                  f"{len(got.differing)} abweichend vom Archiv (neu gerendert): "
                  + ", ".join(got.differing[:10]) + (" ..." if len(got.differing) > 10 else "")))


@sub.command("send")
def send(
    segment: str = typer.Argument(..., help="Name des Segments."),
    month: str = typer.Argument(None, help="Der Monat JJJJ-MM, dessen Ergebnisse gesendet "
                                "werden (sonst der zuletzt ausgewertete)."),
    kingdom: list[int] = typer.Option(None, "--kingdom", "-k", help="Nur diese Königreiche."),
    corrections: bool = typer.Option(True, "--corrections/--no-corrections",
                                     help="Eine Berichtigung an Königreiche senden, deren "
                                     "Bogen sich seit dem Versand geändert hat (nach 'wdg turn "
                                     "undo' und einer neuen Auswertung); --no-corrections führt "
                                     "sie nur auf."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Jedem Spieler das Ergebnis des Monats mailen: aus dem Archiv gebaut, über den
    SMTP-Server aus worlds/<segment>/mail.yaml gesendet, jede Mail genau einmal
    (Versandbuch: worlds/<segment>/mail/sent.yaml). Rückgabewerte: docs/gamemaster.md."""
    from wdg import exitcodes
    from wdg.errors import LockedError
    from wdg.mail.log import log_line
    from wdg.mail import alerts
    from wdg.mail.config import load_mail_config
    from wdg.mail.results import send_month, send_summary
    from wdg.mail.smtp import SmtpError

    camp = open_campaign(campaign)
    date = MonthDate.parse(month) if month else None
    seg_dir = camp.segment_dir(segment)
    load(camp, segment)
    done: list[str] = []
    try:
        got = send_month(camp, segment, date, kingdoms=kingdom or None, corrections=corrections,
                         progress=lambda key, to: done.append(key))
    except LockedError as exc:
        typer.echo(f"Fehler: {exc}", err=True)
        raise typer.Exit(exitcodes.LOCKED) from None
    except SmtpError as exc:
        alerts.sending(seg_dir, sent=0, failed={}, error=exc)
        typer.echo(f"Fehler: {exc}; die Ergebnismails bleiben fällig (der nächste Aufruf "
                   "sendet sie)", err=True)
        log_line(seg_dir, f"reports send: nicht versandt: {exc}")
        raise typer.Exit(exitcodes.UNSENT) from None
    except KeyboardInterrupt:
        typer.echo(f"abgebrochen (Strg-C) nach {len(done)} versandten Mails; jede ist "
                   "verbucht, der nächste Aufruf sendet genau den Rest", err=True)
        log_line(seg_dir, f"reports send: abgebrochen nach {len(done)} Mails")
        raise typer.Exit(130) from None
    code, lines = send_summary(got)
    alerts.sending(seg_dir, sent=len(got.result.sent) + len(got.result.corrected),
                   failed=got.result.failed)
    if not got.result.failed:
        alerts.deliver(seg_dir, load_mail_config(seg_dir))
    for line, err in lines:
        typer.echo(line, err=err)
    log_line(seg_dir, "reports send: " + "; ".join(line for line, _ in lines))
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add ``wdg reports`` to the root app."""
    app.add_typer(sub, name="reports")
