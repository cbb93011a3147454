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
    campaign: Path | None = campaign_option(),
) -> None:
    """Render every report of an archived month again — from that month's own archived
    state, events, sheets and rules — into reports/<segment>/<YYYY-MM>/; files equal to
    the archived ones are delivered from the archive, differing ones are listed."""
    from wdg.reports.archived import render_month

    camp = open_campaign(campaign)
    date = MonthDate.parse(month) if month else load(camp, segment).date.previous()
    got = render_month(camp, segment, date, jobs=jobs or None, pdf=not no_pdf,
                       progress=not quiet)
    typer.echo(f"{len(got)} Dateien in {camp.reports_dir(segment, date)}; "
               + ("alle identisch mit dem Archiv" if not got.differing else
                  f"{len(got.differing)} abweichend vom Archiv (neu gerendert): "
                  + ", ".join(got.differing[:10]) + (" ..." if len(got.differing) > 10 else "")))


@sub.command("send")
def send(
    segment: str = typer.Argument(..., help="Segment name."),
    month: str = typer.Argument(..., help="The month YYYY-MM whose reports are sent."),
    resend_changed: bool = typer.Option(False, "--resend-changed", help="Send again the mails "
                                        "that changed since they were sent (after 'wdg turn undo' "
                                        "and a new run), under a new Message-ID."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Write one .eml per kingdom into the month's outbox and send them over SMTP
    when worlds/<segment>/mail.yaml names a server; nothing is sent twice."""
    from wdg.reports.batch import report_kingdoms
    from wdg.reports.mail import MAIL_FILE, OUTBOX, load_mail_config, send_outbox, write_outbox

    camp = open_campaign(campaign)
    date = MonthDate.parse(month)
    seg = load(camp, segment)
    config = load_mail_config(camp.segment_dir(segment) / MAIL_FILE)
    mdir = camp.reports_dir(segment, date)
    sender = config.sender if config else "segmentleiter@localhost"
    files = write_outbox(seg, report_kingdoms(seg), date.key, mdir, sender)
    typer.echo(f"{len(files)} Mails in {mdir / OUTBOX}")
    if config is None:
        typer.echo(f"kein SMTP-Server eingerichtet ({camp.segment_dir(segment) / MAIL_FILE}); "
                   "nichts versandt")
        return
    rep = send_outbox(mdir / OUTBOX, config, resend_changed=resend_changed)
    typer.echo(f"versandt: {len(rep.sent)}, schon früher versandt: {len(rep.skipped)}")
    for name, answer in sorted(rep.refused.items()):
        typer.echo(f"Warnung: {name} vom Server abgelehnt ({answer}); die anderen wurden "
                   "versandt", err=True)
    if rep.refused:
        raise typer.Exit(1)
    for name in rep.changed:
        typer.echo(f"Warnung: {name} wurde schon versandt und hat sich seitdem geändert; "
                   "nicht erneut versandt (erneut senden: --resend-changed)", err=True)


def register(app: typer.Typer) -> None:
    """Add ``wdg reports`` to the root app."""
    app.add_typer(sub, name="reports")
