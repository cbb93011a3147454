"""``wdg mail``: the campaign by mail — run it unattended, send first forms,
look at (and release) the send record; ``fetch`` and ``watch`` come from
:mod:`wdg.commands.mailfetch`."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.commands.common import campaign_option, open_campaign

LOCK_WAIT = 120.0
"""How long ``wdg mail run`` waits for the segment's lock by default: ``wdg mail
watch`` holds it only while it takes mail in (seconds), so a timer's call that
meets it waits instead of failing."""

sub = typer.Typer(help="Der Feldzug per Mail: abholen, beantworten, auswerten, versenden "
                  "(docs/gamemaster.md).", no_args_is_help=True)


@sub.command("sent")
def sent(
    segment: str = typer.Argument(..., help="Name des Segments."),
    release: list[str] = typer.Option(None, "--release", help="Eine ungewisse (oder "
                                      "abgelehnte) Mail über ihren Schlüssel freigeben, damit der "
                                      "nächste Versand sie noch einmal sendet (der Spieler bekommt "
                                      "sie vielleicht doppelt)."),
    arrived: list[str] = typer.Option(None, "--arrived", help="Eine ungewisse Mail ist doch "
                                      "angekommen (der Spieler oder das Protokoll des Servers sagt "
                                      "es): über ihren Schlüssel als versandt verbuchen."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Das Versandbuch (worlds/<segment>/mail/sent.yaml): versandte Mails, ungewisse
    (Ausgang nach einem Absturz unbekannt: nie von selbst erneut gesendet), abgelehnte."""
    from wdg.commands.common import locked
    from wdg.store.sent import Ledger

    camp = open_campaign(campaign)
    if release or arrived:
        with locked(camp, segment):
            led = Ledger(camp.segment_dir(segment))
            for key in release or ():
                rec = led.release(key)
                typer.echo(f"freigegeben: {key} an {rec.to}; der nächste Versand sendet sie "
                           "noch einmal")
            for key in arrived or ():
                latest = led.latest(key)
                if latest is None or latest.state != "pending":
                    from wdg.errors import StateError

                    raise StateError(f"Versandbuch: {key!r} ist nicht ungewiss; nichts geändert")
                led.settle(key, "sent", "Ankunft vom Spielleiter bestätigt")
                typer.echo(f"als versandt verbucht: {key} an {latest.to}")
        return
    led = Ledger(camp.segment_dir(segment))
    counts: dict[str, int] = {}
    for recs in led.records.values():
        counts[recs[-1].state] = counts.get(recs[-1].state, 0) + 1
    words = {"sent": "versandt", "pending": "ungewiss", "failed": "nicht versandt (wird "
             "wiederholt)", "refused": "vom Server abgelehnt", "released": "freigegeben"}
    typer.echo(f"{segment}: {len(led.records)} Mails im Versandbuch"
               + "".join(f", {words.get(s, s)} {n}" for s, n in sorted(counts.items())))
    for recs in led.records.values():
        r = recs[-1]
        if r.state in ("pending", "refused", "failed"):
            typer.echo(f"{words[r.state]}: {r.key} an {r.to} ({r.intended}) {r.answer}".rstrip())


@sub.command("status")
def status(
    segment: str = typer.Argument(..., help="Name des Segments."),
    as_json: bool = typer.Option(False, "--json", help="Ein JSON-Dokument auf stdout."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Der Stand des Mail-Betriebs: letzter erfolgreicher Abruf und Versand, fällige
    Mails, gelesene Ordner, Störungen und die letzten Fehler (docs/gamemaster.md,
    Wenn etwas schiefgeht). Fragt keinen Server und nimmt keine Sperre."""
    import json

    from wdg.commands.common import load
    from wdg.mail.status import mail_status, status_lines

    camp = open_campaign(campaign)
    load(camp, segment)
    doc = mail_status(camp, segment)
    if as_json:
        typer.echo(json.dumps(doc, ensure_ascii=False))
        return
    for line in status_lines(doc):
        typer.echo(line)


@sub.command("install-timer")
def install_timer(
    segment: str = typer.Argument(..., help="Name des Segments."),
    print_only: bool = typer.Option(False, "--print", help="Die Units und die Crontab-Zeilen "
                                    "nur ausgeben, nichts schreiben."),
    directory: Path = typer.Option(None, "--dir", help="Wohin die Units geschrieben werden "
                                   "(Vorgabe: ~/.config/systemd/user)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Die systemd-User-Units für den unbeaufsichtigten Betrieb schreiben: ein Timer, der
    alle 5 Minuten 'wdg mail run' aufruft, und ein Dienst für 'wdg mail watch' — mit den
    vollen Pfaden dieser Installation und der Kampagne. Mit --print stattdessen die Units
    und die passenden Crontab-Zeilen ausgeben (docs/gamemaster.md)."""
    from wdg.commands.common import load
    from wdg.mail.units import crontab_lines, install, units

    camp = open_campaign(campaign)
    load(camp, segment)
    if print_only:
        for name, text in units(segment, camp.root).items():
            typer.echo(f"# ~/.config/systemd/user/{name}")
            typer.echo(text)
        typer.echo("# crontab -e (statt der Units; jedes % als \\% geschrieben)")
        for line in crontab_lines(segment, camp.root):
            typer.echo(line)
        return
    written = install(segment, camp.root, directory)
    for p in written:
        typer.echo(f"geschrieben: {p}")
    typer.echo("Einschalten:\n  systemctl --user daemon-reload\n"
               f"  systemctl --user enable --now wdg-{segment}-run.timer\n"
               f"  systemctl --user enable --now wdg-{segment}-watch.service   (wahlweise)\n"
               "  loginctl enable-linger $USER      (läuft auch ohne Anmeldung)\n"
               f"Passwörter: password_file in mail.yaml, oder ~/.config/wdg/{segment}.env "
               "(chmod 600) mit WDG_SMTP_PASSWORD=… und WDG_IMAP_PASSWORD=…")


@sub.command("run")
def run(
    segment: str = typer.Argument(None, help="Name des Segments (oder --all)."),
    all_segments: bool = typer.Option(False, "--all", help="Jedes Segment der Kampagne "
                                      "nacheinander, ein Postfach für alle möglich "
                                      "(mail.yaml der Kampagne; docs/world.md)."),
    force: bool = typer.Option(False, "--force", help="Den Monat vor seinem Eintreffschluß "
                               "auswerten, oder wenn zu viele Bögen fehlen."),
    next_deadline: str = typer.Option(None, "--next-deadline", help="EINTREFFSCHLUSS des "
                                      "nächsten Monats, wenn dieser Aufruf den Monat auswertet "
                                      "('TT.MM.JJJJ [HH:MM]')."),
    pdf: bool = typer.Option(True, "--pdf/--no-pdf", help="Mit den PDFs (Standard)."),
    as_json: bool = typer.Option(False, "--json", help="Ein JSON-Dokument auf der "
                                 "Standardausgabe."),
    wait: float = typer.Option(LOCK_WAIT, "--wait", min=0, max=3600,
                               help="Sekunden, die auf die Sperre des Segments gewartet wird "
                               "(hält 'wdg mail watch' oder ein anderer Befehl sie), bevor "
                               "der Aufruf mit Code 6 (gesperrt) endet."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Für cron/systemd: neue Post abholen und beantworten; fällige Ergebnisse senden;
    sobald der Eintreffschluß vorbei ist und 'wdg turn status' kein Hindernis nennt, den
    Monat auswerten und seine Ergebnisse senden. Rückgabewerte: 0 erledigt,
    1 fehlgeschlagen, 3 nichts zu tun, 4 wartet auf den Eintreffschluß, 5 verweigert,
    6 gesperrt, 7 geschuldete Mails nicht gesendet, 130 abgebrochen (docs/gamemaster.md)."""
    import json
    import time

    from wdg import exitcodes
    from wdg.commands.common import load
    from wdg.errors import LockedError, WdgError
    from wdg.mail.log import log_line
    from wdg.mail.run import RunReport, run_unattended
    from wdg.world.deadline import normalise

    camp = open_campaign(campaign)
    if all_segments or segment is None:
        _run_all(camp, segment, all_segments, force, next_deadline, pdf, as_json)
        return
    seg = load(camp, segment)
    seg_dir = camp.segment_dir(segment)
    tz = seg.settings.timezone
    if next_deadline is not None:
        normalise(next_deadline)
    end = time.monotonic() + wait
    waited = False
    try:
        while True:
            try:
                rep = run_unattended(camp, segment, force=force, next_deadline=next_deadline,
                                     pdf=pdf)
                break
            except LockedError as exc:
                if not waited and wait > 0:
                    waited = True
                    typer.echo(f"gesperrt: {exc}; warte bis zu {wait:g} s auf die Sperre",
                               err=True)
                if time.monotonic() >= end:
                    rep = RunReport.failed(segment, exitcodes.LOCKED,
                                           f"gesperrt: {exc}; nach {wait:g} s Warten nichts "
                                           "getan — der nächste Aufruf holt es nach",
                                           exitcodes.Level.LOCKED)
                    break
                time.sleep(min(0.5, max(0.0, end - time.monotonic())))
    except WdgError as exc:
        rep = RunReport.failed(segment, exitcodes.FAILED, f"Fehler: {exc}", exitcodes.Level.ERROR)
    except OSError as exc:
        from wdg.fsio import describe_os_error

        rep = RunReport.failed(segment, exitcodes.FAILED, f"Fehler: {describe_os_error(exc)}",
                               exitcodes.Level.ERROR)
    except KeyboardInterrupt:
        log_line(seg_dir, "mail run: abgebrochen (Strg-C)", tz)
        raise
    log_line(seg_dir, f"mail run: {exitcodes.NAMES.get(rep.code, rep.code)} (Code {rep.code}): "
             + " | ".join(rep.lines), tz)
    if as_json:
        typer.echo(json.dumps(rep.as_dict(), ensure_ascii=False))
        # the failures on stderr too: a timer's journal shows them without the JSON
        for i, line in enumerate(rep.lines):
            if rep.level(i) is exitcodes.Level.ERROR:
                typer.echo(line, err=True)
    else:
        for i, line in enumerate(rep.lines):
            typer.echo(line, err=rep.level(i) in exitcodes.PROBLEMS)
        typer.echo(f"{segment}: {exitcodes.NAMES.get(rep.code, rep.code)} (Code {rep.code})")
        for key, why in sorted(rep.owed.items()):
            typer.echo(f"fällig, nicht gesendet: {key} ({why})", err=True)
    if rep.code:
        raise typer.Exit(rep.code)


def _run_all(camp, segment, all_segments, force, next_deadline, pdf, as_json) -> None:
    """``wdg mail run --all`` (wdg/office/mailrun.py)."""
    import json

    from wdg import exitcodes
    from wdg.errors import InvalidInputError
    from wdg.office.mailrun import run_all
    from wdg.world.deadline import normalise

    if segment is not None:
        raise InvalidInputError(f"--all und ein Segment ({segment!r}) schließen sich aus")
    if not all_segments:
        raise InvalidInputError("ein Segment angeben oder --all (jedes Segment der Kampagne)")
    if next_deadline is not None:
        normalise(next_deadline)

    def shown(rep) -> None:
        if as_json:
            return
        for i, line in enumerate(rep.lines):
            typer.echo(f"{rep.segment}: {line}", err=rep.level(i) in exitcodes.PROBLEMS)
        typer.echo(f"{rep.segment}: {exitcodes.NAMES.get(rep.code, rep.code)} (Code {rep.code})")

    code, reports = run_all(camp, force=force, next_deadline=next_deadline, pdf=pdf,
                            progress=shown)
    if as_json:
        typer.echo(json.dumps({"status": exitcodes.JSON_STATUS.get(code, "?"), "exit_code": code,
                               "segments": [r.as_dict() for r in reports]}, ensure_ascii=False))
    else:
        typer.echo(f"Welt: {len(reports)} Segmente: {exitcodes.NAMES.get(code, code)} "
                   f"(Code {code})")
    if code:
        raise typer.Exit(code)


@sub.command("forms")
def forms(
    segment: str = typer.Argument(..., help="Name des Segments."),
    kingdom: list[int] = typer.Option(None, "--kingdom", "-k", help="Nur diese Königreiche."),
    corrections: bool = typer.Option(False, "--corrections", help="Einen Bogen, der sich seit "
                                     "dem Versand geändert hat, noch einmal senden, als "
                                     "Berichtigung markiert."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Den ersten Befehlsbogen und die Startkarte per Mail an jeden Spieler des laufenden
    Monats (später hinzugekommene Königreiche bekommen ihre beim nächsten Aufruf; nichts
    doppelt; nie ein Passwort). Rückgabewerte wie 'wdg reports send'."""
    from wdg import exitcodes
    from wdg.commands.common import load
    from wdg.errors import LockedError
    from wdg.mail import alerts
    from wdg.mail.config import load_mail_config
    from wdg.mail.forms import send_forms
    from wdg.mail.log import log_line
    from wdg.mail.smtp import SmtpError

    camp = open_campaign(campaign)
    seg = load(camp, segment)
    seg_dir = camp.segment_dir(segment)
    try:
        r, skipped, total = send_forms(camp, segment, kingdoms=kingdom or None,
                                       corrections=corrections)
    except LockedError as exc:
        typer.echo(f"Fehler: {exc}", err=True)
        raise typer.Exit(exitcodes.LOCKED) from None
    except SmtpError as exc:
        alerts.sending(seg_dir, sent=0, failed={}, error=exc)
        typer.echo(f"Fehler: {exc}; die Spielzugmails bleiben fällig (der nächste Aufruf "
                   "sendet sie)", err=True)
        raise typer.Exit(exitcodes.UNSENT) from None
    alerts.sending(seg_dir, sent=len(r.sent) + len(r.corrected), failed=r.failed)
    line = (f"{seg.date.key}: {total} Spielzugmails; versandt {len(r.sent)}, berichtigt "
            f"{len(r.corrected)}, schon früher versandt {len(r.already)}")
    typer.echo(line)
    for k, why in sorted(skipped.items()):
        typer.echo(f"Königreich {k}: keine Mail — {why}")
    for key in r.changed:
        typer.echo(f"Warnung: {key} hat sich seit dem Versand geändert; nicht erneut versandt "
                   "(--corrections sendet ihn als Berichtigung)", err=True)
    for key in r.uncertain:
        typer.echo(f"Warnung: {key}: ungewiss, ob angenommen; 'wdg mail sent {segment} "
                   f"--release {key}' sendet sie noch einmal", err=True)
    for key, answer in sorted({**r.refused, **r.failed}.items()):
        typer.echo(f"Warnung: {key} nicht versandt ({answer})", err=True)
    log_line(camp.segment_dir(segment), f"mail forms: {line}", seg.settings.timezone)
    if r.failed:
        raise typer.Exit(exitcodes.UNSENT)
    alerts.deliver(seg_dir, load_mail_config(seg_dir))
    if r.uncertain or r.refused:
        raise typer.Exit(exitcodes.REFUSED)
    if not (r.sent or r.corrected):
        typer.echo("nichts versandt: " + ("alle schon früher versandt" if r.already
                                          else "kein Spieler mit Mailadresse"))
        raise typer.Exit(exitcodes.NOTHING)


def register(app: typer.Typer) -> None:
    """Add ``wdg mail`` to the root app (with fetch/watch when they are there)."""
    try:
        from wdg.commands.mailfetch import register as _fetch
    except ModuleNotFoundError as exc:
        if exc.name != "wdg.commands.mailfetch":
            raise
    else:
        _fetch(sub)
    app.add_typer(sub, name="mail")
