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
    segment: str = typer.Argument(..., help="Segment name."),
    release: list[str] = typer.Option(None, "--release", help="Release an uncertain (or "
                                      "refused) mail by its key so that the next send sends it "
                                      "once more (the player may get it twice)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """The send record (worlds/<segment>/mail/sent.yaml): mails sent, uncertain ones
    (outcome unknown after a crash: never sent again on their own), refused ones."""
    from wdg.commands.common import locked
    from wdg.mail.ledger import Ledger

    camp = open_campaign(campaign)
    if release:
        with locked(camp, segment):
            led = Ledger(camp.segment_dir(segment))
            for key in release:
                rec = led.release(key)
                typer.echo(f"freigegeben: {key} an {rec.to}; der nächste Versand sendet sie "
                           "noch einmal")
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
