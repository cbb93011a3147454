"""``wdg reports``: render a month's reports and mail them to the players."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.commands.common import campaign_option, load, open_campaign
from wdg.world.calendar import MonthDate

sub = typer.Typer(help="Result sheets, Götterbotschaft and overview: render and send.",
                  no_args_is_help=True)


@sub.command("render")
def render(
    segment: str = typer.Argument(..., help="Segment name."),
    month: str = typer.Argument(None, help="The archived month YYYY-MM (default: the last one)."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Worker processes (0 = one per core)."),
    no_pdf: bool = typer.Option(False, "--no-pdf", help="Text and HTML only."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    kingdom: list[int] = typer.Option(None, "--kingdom", "-k",
                                      help="Nur die Blätter dieser Königreiche (mehrfach "
                                           "möglich), etwa das PDF eines Spielers neu."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Render every report of an archived month again — from that month's own archived
    state, events, sheets and rules — into reports/<segment>/<YYYY-MM>/; files equal to
    the archived ones are delivered from the archive, differing ones are listed."""
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
    segment: str = typer.Argument(..., help="Segment name."),
    month: str = typer.Argument(None, help="The month YYYY-MM whose results are sent "
                                "(default: the last month run)."),
    kingdom: list[int] = typer.Option(None, "--kingdom", "-k", help="Only these kingdoms."),
    corrections: bool = typer.Option(True, "--corrections/--no-corrections",
                                     help="Send a correction ('Berichtigung') to kingdoms "
                                     "whose sheet changed since it was mailed (after 'wdg turn "
                                     "undo' and a new run); --no-corrections only lists them."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Mail every player the result of the month: built from the archive, sent over
    the SMTP server of worlds/<segment>/mail.yaml, each mail exactly once (record:
    worlds/<segment>/mail/sent.yaml). Exit codes: docs/gamemaster.md."""
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
