"""``wdg orders``: check a sheet, forecast it, write the pre-filled form or a
kingdom's view, import a mailbox. Thin: parse flags, call :mod:`wdg.orders`, print."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.campaign import Campaign
from wdg.commands.common import campaign_option, load, locked, open_campaign
from wdg.errors import InvalidInputError
from wdg.orders.sheetfile import check_file, simulate_file
from wdg.orders.intake import MAX_BYTES, IntakeReport, import_mailbox, parse_deadline
from wdg.orders.template import render_template
from wdg.orders.view import build_view, view_to_yaml
from wdg.world.deadline import deadline_for, stored_problem
from wdg.world.state import Segment

sub = typer.Typer(help="Befehlsbögen: prüfen, vorausberechnen (Vorschau), Vorlage, Ansicht, "
                  "aus einem Postfach einlesen.",
                  no_args_is_help=True)


@sub.command("check")
def check(
    file: Path = typer.Argument(..., help="Der Befehlsbogen (UTF-8 oder Latin-1)."),
    view: Path | None = typer.Option(None, "--view", help="Die Ansicht des Königreichs (YAML), "
                                     "gegen die geprüft wird; sonst das im Bogen genannte "
                                     "Segment, wenn die Kampagne es hat, sonst nur die Syntax."),
    fmt: str = typer.Option("text", "--format", help="text oder json."),
    with_forecast: bool = typer.Option(False, "--forecast", help="Die Vorschau (wie 'wdg orders "
                                       "simulate') an den Text anhängen."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Den Bogen mit jeder Meldung unter ihrer Zeile ausgeben; Rückgabewert 0 nur ohne Fehler."""
    if fmt not in ("text", "json"):
        raise InvalidInputError(f"unbekanntes Format {fmt!r}; erwartet text oder json")
    output, errors = check_file(file, view=view, campaign=open_campaign(campaign), fmt=fmt,
                                with_forecast=with_forecast)
    typer.echo(output, nl=False)
    raise typer.Exit(1 if errors else 0)


@sub.command("simulate")
def simulate(
    file: Path = typer.Argument(..., help="Der Befehlsbogen (UTF-8 oder Latin-1)."),
    view: Path | None = typer.Option(None, "--view", help="Die Ansicht des Königreichs "
                                     "(ansicht.yaml) für die Vorschau; sonst das im Bogen "
                                     "genannte Segment."),
    fmt: str = typer.Option("text", "--format", help="text oder json."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Die Vorschau eines Bogens: je Heer Weg, Halt und warum, Chancen; die
    Schatzkammer mit jedem Posten; was abgelehnt würde. Nur was das Königreich weiß."""
    if fmt not in ("text", "json"):
        raise InvalidInputError(f"unbekanntes Format {fmt!r}; erwartet text oder json")
    typer.echo(simulate_file(file, view=view, campaign=open_campaign(campaign), fmt=fmt),
               nl=False)


@sub.command("template")
def template(
    segment: str = typer.Argument(..., help="Name des Segments."),
    kingdom: int = typer.Argument(..., help="Nummer des Königreichs."),
    out: Path | None = typer.Option(None, "--output", "-o", help="In diese Datei schreiben."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Der vorausgefüllte Befehlsbogen eines Königreichs für den nächsten Monat."""
    seg = load(open_campaign(campaign), segment)
    _write_or_print(render_template(seg, kingdom), out, "Spielzugformular")


@sub.command("view")
def view_cmd(
    segment: str = typer.Argument(..., help="Name des Segments."),
    kingdom: int = typer.Argument(..., help="Nummer des Königreichs."),
    out: Path | None = typer.Option(None, "--output", "-o", help="In diese Datei schreiben."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Was ein Königreich weiß (YAML), um Bögen ohne das Segment zu prüfen."""
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
    segment: str = typer.Argument(..., help="Name des Segments."),
    mailbox: Path = typer.Argument(..., help="Eine mbox-Datei oder ein Maildir-Verzeichnis."),
    deadline: str | None = typer.Option(None, "--deadline", help="EINTREFFSCHLUSS "
                                        "'JJJJ-MM-TT HH:MM' (Zeitzone der Spielleitung); sonst "
                                        "der mit 'wdg turn deadline' gesetzte."),
    tz: str = typer.Option(None, "--tz", help="Zeitzone von --deadline (sonst die des Segments)."),
    outbox: Path | None = typer.Option(None, "--outbox", help="Wohin die Bestätigungen (.eml) "
                                       "gehen; sonst outbox/<segment>/<JJJJ-MM>/."),
    max_bytes: int = typer.Option(MAX_BYTES, "--max-bytes", help="Größengrenze einer Mail."),
    answer_without_sheet: bool = typer.Option(
        False, "--answer-without-sheet",
        help="Auch Mails ganz ohne Bogen beantworten (keine Kopfzeile: Spam, Grüße); sonst "
             "werden sie aufgeführt, aber nicht beantwortet."),
    no_send: bool = typer.Option(False, "--no-send", help="Die Bestätigungen in den Ausgang "
                                 "schreiben, aber jetzt nicht senden (sie gehen hinaus, wenn "
                                 "worlds/<segment>/mail.yaml einen SMTP-Server nennt)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Je Königreich den zuletzt eingetroffenen Bogen speichern; eine Übersicht ausgeben;
    die Bestätigungen sofort senden, wenn mail.yaml einen SMTP-Server nennt (jede genau
    einmal).

    Rückgabewert 0: jede Mail angenommen (oder schon angenommen); 3: einige Mails
    abgelehnt oder in Quarantäne (siehe Tabelle); 1: das Einlesen selbst lief nicht."""
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

            def decide(key, r, mail):
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
    from wdg.orders.model import Sheet
    from wdg.orders.outcome import IntakeStatus
    from wdg.world.passwords import upgrade_hashes
    from wdg.store.segment import save_segment

    checked = {r.kingdom: r.parsed.password for r in report.results
               if r.status is IntakeStatus.ACCEPTED and r.kingdom and isinstance(r.parsed, Sheet)}
    if upgrade_hashes(seg, checked):
        save_segment(seg, camp.segment_dir(segment))


EXIT_SOME_REFUSED = 3
"""Exit code of ``wdg orders import`` when some mails were refused or quarantined."""


def register(app: typer.Typer) -> None:
    """Add ``wdg orders`` to the root app."""
    app.add_typer(sub, name="orders")

