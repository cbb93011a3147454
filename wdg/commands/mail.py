"""``wdg mail``: the campaign by mail — run it unattended, send first forms,
look at (and release) the send record; ``fetch`` and ``watch`` come from
:mod:`wdg.commands.mailfetch`."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.commands.common import campaign_option, open_campaign

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
                rec = led.latest(key)
                if rec is None or rec.state != "pending":
                    from wdg.errors import StateError

                    raise StateError(f"Versandbuch: {key!r} ist nicht ungewiss; nichts geändert")
                led.settle(key, "sent", "Ankunft vom Spielleiter bestätigt")
                typer.echo(f"als versandt verbucht: {key} an {rec.to}")
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


@sub.command("run")
def run(
    segment: str = typer.Argument(..., help="Name des Segments."),
    force: bool = typer.Option(False, "--force", help="Den Monat vor seinem Eintreffschluß "
                               "auswerten, oder wenn zu viele Bögen fehlen."),
    next_deadline: str = typer.Option(None, "--next-deadline", help="EINTREFFSCHLUSS des "
                                      "nächsten Monats, wenn dieser Aufruf den Monat auswertet "
                                      "('TT.MM.JJJJ [HH:MM]')."),
    pdf: bool = typer.Option(True, "--pdf/--no-pdf", help="Mit den PDFs (Standard)."),
    as_json: bool = typer.Option(False, "--json", help="Ein JSON-Dokument auf der "
                                 "Standardausgabe."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Für cron/systemd: neue Post abholen und beantworten; fällige Ergebnisse senden;
    sobald der Eintreffschluß vorbei ist und 'wdg turn status' kein Hindernis nennt, den
    Monat auswerten und seine Ergebnisse senden. Rückgabewerte: 0 erledigt,
    1 fehlgeschlagen, 3 nichts zu tun, 4 wartet auf den Eintreffschluß, 5 verweigert,
    6 gesperrt, 130 abgebrochen (docs/gamemaster.md)."""
    import json

    from wdg import exitcodes
    from wdg.commands.common import load
    from wdg.errors import LockedError, WdgError
    from wdg.mail.log import log_line
    from wdg.mail.run import RunReport, run_unattended
    from wdg.world.deadline import normalise

    camp = open_campaign(campaign)
    seg = load(camp, segment)
    seg_dir = camp.segment_dir(segment)
    tz = seg.settings.timezone
    if next_deadline is not None:
        normalise(next_deadline)
    try:
        rep = run_unattended(camp, segment, force=force, next_deadline=next_deadline, pdf=pdf)
    except LockedError as exc:
        rep = RunReport(segment, exitcodes.LOCKED, [f"gesperrt: {exc}"])
    except WdgError as exc:
        rep = RunReport(segment, exitcodes.FAILED, [f"Fehler: {exc}"])
    except OSError as exc:
        from wdg.fsio import describe_os_error

        rep = RunReport(segment, exitcodes.FAILED, [f"Fehler: {describe_os_error(exc)}"])
    except KeyboardInterrupt:
        log_line(seg_dir, "mail run: abgebrochen (Strg-C)", tz)
        raise
    log_line(seg_dir, f"mail run: {exitcodes.NAMES.get(rep.code, rep.code)} (Code {rep.code}): "
             + " | ".join(rep.lines), tz)
    if as_json:
        typer.echo(json.dumps(rep.as_dict(), ensure_ascii=False))
    else:
        for line in rep.lines:
            typer.echo(line, err=line.startswith(("Fehler", "Warnung", "verweigert", "gesperrt")))
        typer.echo(f"{segment}: {exitcodes.NAMES.get(rep.code, rep.code)} (Code {rep.code})")
    if rep.code:
        raise typer.Exit(rep.code)


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
    from wdg.mail.forms import send_forms
    from wdg.mail.log import log_line

    camp = open_campaign(campaign)
    seg = load(camp, segment)
    try:
        r, skipped, total = send_forms(camp, segment, kingdoms=kingdom or None,
                                       corrections=corrections)
    except LockedError as exc:
        typer.echo(f"Fehler: {exc}", err=True)
        raise typer.Exit(exitcodes.LOCKED) from None
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
    if r.uncertain or r.refused:
        raise typer.Exit(exitcodes.REFUSED)
    if r.failed:
        raise typer.Exit(exitcodes.FAILED)
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
