"""``wdg orders``: check a sheet, forecast it, write the pre-filled form or a
kingdom's view, import a mailbox. Thin: parse flags, call :mod:`wdg.orders`, print."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.campaign import Campaign
from wdg.commands.common import campaign_option, load, locked, open_campaign
from wdg.errors import InvalidInputError
from wdg.orders.demo import check_file, simulate_file
from wdg.orders.intake import MAX_BYTES, IntakeReport, import_mailbox, parse_deadline
from wdg.orders.template import render_template
from wdg.orders.view import build_view, view_to_yaml
from wdg.world.deadline import deadline_for, stored_problem
from wdg.world.state import Segment

sub = typer.Typer(help="Order sheets: check, simulate (forecast), template, view, import from "
                  "a mailbox.",
                  no_args_is_help=True)


@sub.command("check")
def check(
    file: Path = typer.Argument(..., help="The order sheet (UTF-8 or Latin-1)."),
    view: Path | None = typer.Option(None, "--view", help="The kingdom's view (YAML) to check "
                                     "against; default: the segment named in the sheet, if "
                                     "the campaign has it, else syntax only."),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    with_forecast: bool = typer.Option(False, "--forecast", help="Append the forecast "
                                       "('Vorschau', as 'wdg orders simulate') to the text."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Echo the sheet with each message under its line; exit 0 only without errors."""
    if fmt not in ("text", "json"):
        raise InvalidInputError(f"unbekanntes Format {fmt!r}; erwartet text oder json")
    output, errors = check_file(file, view=view, campaign=open_campaign(campaign), fmt=fmt,
                                with_forecast=with_forecast)
    typer.echo(output, nl=False)
    raise typer.Exit(1 if errors else 0)


@sub.command("simulate")
def simulate(
    file: Path = typer.Argument(..., help="The order sheet (UTF-8 or Latin-1)."),
    view: Path | None = typer.Option(None, "--view", help="The kingdom's view (ansicht.yaml) "
                                     "to forecast on; default: the segment named in the sheet."),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    campaign: Path | None = campaign_option(),
) -> None:
    """The forecast of a sheet in German: per army path, stop and why, chances; the
    treasury with every cost; what would be refused. Only what the kingdom knows."""
    if fmt not in ("text", "json"):
        raise InvalidInputError(f"unbekanntes Format {fmt!r}; erwartet text oder json")
    typer.echo(simulate_file(file, view=view, campaign=open_campaign(campaign), fmt=fmt),
               nl=False)


@sub.command("template")
def template(
    segment: str = typer.Argument(..., help="Segment name."),
    kingdom: int = typer.Argument(..., help="Kingdom number."),
    out: Path | None = typer.Option(None, "--output", "-o", help="Write to this file."),
    campaign: Path | None = campaign_option(),
) -> None:
    """The pre-filled order form of a kingdom for the next month."""
    seg = load(open_campaign(campaign), segment)
    _write_or_print(render_template(seg, kingdom), out, "Spielzugformular")


@sub.command("view")
def view_cmd(
    segment: str = typer.Argument(..., help="Segment name."),
    kingdom: int = typer.Argument(..., help="Kingdom number."),
    out: Path | None = typer.Option(None, "--output", "-o", help="Write to this file."),
    campaign: Path | None = campaign_option(),
) -> None:
    """What a kingdom knows (YAML), for checking sheets without the segment."""
    seg = load(open_campaign(campaign), segment)
    _write_or_print(view_to_yaml(build_view(seg, kingdom)), out, "Sicht")


def _write_or_print(text: str, out: Path | None, what: str) -> None:
    """Write ``text`` to ``out`` (and say so), or print it."""
    if out:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"{what} geschrieben: {out}")
    else:
        typer.echo(text, nl=False)


@sub.command("import")
def import_cmd(
    segment: str = typer.Argument(..., help="Segment name."),
    mailbox: Path = typer.Argument(..., help="An mbox file or a Maildir directory."),
    deadline: str | None = typer.Option(None, "--deadline", help="EINTREFFSCHLUSS "
                                        "'YYYY-MM-DD HH:MM' (game master's time zone); default: "
                                        "the one set with 'wdg turn deadline'."),
    tz: str = typer.Option(None, "--tz", help="Time zone of --deadline (default: the segment's)."),
    outbox: Path | None = typer.Option(None, "--outbox", help="Where confirmations (.eml) go; "
                                       "default outbox/<segment>/<YYYY-MM>/."),
    max_bytes: int = typer.Option(MAX_BYTES, "--max-bytes", help="Size limit of one mail."),
    answer_without_sheet: bool = typer.Option(
        False, "--answer-without-sheet",
        help="Also answer mails that hold no sheet at all (no header line: spam, greetings); "
             "by default they are listed but not answered."),
    no_send: bool = typer.Option(False, "--no-send", help="Write the confirmations into the "
                                 "outbox but do not send them now (they are sent when "
                                 "worlds/<segment>/mail.yaml names an SMTP server)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Store the sheet of each kingdom that arrived last; print a summary; send the
    confirmations at once when mail.yaml names an SMTP server (each exactly once).

    Exit code 0: every mail taken (or already taken); 3: some mails refused or
    quarantined (see the table); 1: the import itself could not run."""
    from wdg.mail.config import DEFAULT_SENDER, load_mail_config

    camp = open_campaign(campaign)
    config = load_mail_config(camp.segment_dir(segment))
    sender = config.sender if config is not None else f"Segmentleiter <{DEFAULT_SENDER}>"
    sent = None
    with locked(camp, segment) as seg:  # not while a run takes the month's sheets in
        dl = parse_deadline(deadline, tz or seg.settings.timezone) if deadline \
            else deadline_for(seg, seg.date)
        if dl is None and (problem := stored_problem(seg)) is not None:
            typer.echo(f"Warnung: {problem}", err=True)
        if dl is None:
            typer.echo("Warnung: kein Eintreffschluß gesetzt ('wdg turn deadline' oder "
                       "--deadline) — auch späte Mails werden angenommen", err=True)
        guard = decide = None
        if config is not None:  # answers may go out: the mail guard decides who gets one
            from wdg.mail.fetch import capped_headers
            from wdg.mail.guard import Guard, automatic

            guard = Guard(camp.segment_dir(segment), seg, config)

            def decide(key, r, mail):  # noqa: ANN001, ANN202
                head = capped_headers(mail.raw)
                return guard.sheet(key, head, r, automatic(head), mail.raw)
        report = import_mailbox(camp, seg, mailbox, deadline=dl, outbox=outbox,
                                max_bytes=max_bytes, sender_address=sender,
                                answer_without_sheet=answer_without_sheet, decide=decide)
        if guard is not None:
            for line in guard.summary():
                typer.echo(f"Hinweis: {line}", err=True)
            guard.raise_alerts()
        _upgrade_password_hashes(camp, segment, seg, report)
        if config is not None and config.smtp is not None and not no_send:
            from wdg.mail.fetch import FetchReport, answer_pending

            sent = FetchReport(segment)
            answer_pending(camp, segment, config, sent, month=seg.date.key)
    typer.echo(report.table(), nl=False)
    if sent is not None:
        from wdg import exitcodes
        from wdg.mail import alerts

        typer.echo(sent.answers_line())
        for note in sent.notes:
            typer.echo(f"Warnung: {note}", err=True)
        seg_dir = camp.segment_dir(segment)
        if sent.sent or sent.failed or sent.send_error is not None:
            alerts.sending(seg_dir, sent=len(sent.sent), failed=sent.failed,
                           error=sent.send_error)
        if sent.failed:
            typer.echo(f"Fehler: {len(sent.failed)} Antwort(en) nicht gesendet; sie bleiben "
                       "fällig (der nächste 'wdg orders import', 'wdg mail fetch' oder "
                       "'wdg mail run' sendet sie)", err=True)
            raise typer.Exit(exitcodes.UNSENT)
        alerts.deliver(seg_dir, config)
    if report.refused:
        raise typer.Exit(EXIT_SOME_REFUSED)


def _upgrade_password_hashes(camp: Campaign, segment: str, seg: Segment,
                             report: IntakeReport) -> None:
    """A password hash of the old format whose check an accepted sheet just
    passed is replaced by a scrypt hash (wdg.world.passwords.upgrade_hashes),
    saved the ordinary way under the lock the import holds."""
    from wdg.orders.intake import ACCEPTED
    from wdg.orders.model import Sheet
    from wdg.world.passwords import upgrade_hashes
    from wdg.store.segment import save_segment

    checked = {r.kingdom: r.parsed.password for r in report.results
               if r.status == ACCEPTED and r.kingdom and isinstance(r.parsed, Sheet)}
    if upgrade_hashes(seg, checked):
        save_segment(seg, camp.segment_dir(segment))


EXIT_SOME_REFUSED = 3
"""Exit code of ``wdg orders import`` when some mails were refused or quarantined."""


def register(app: typer.Typer) -> None:
    """Add ``wdg orders`` to the root app."""
    app.add_typer(sub, name="orders")

