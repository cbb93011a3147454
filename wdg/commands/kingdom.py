"""``wdg kingdom``: kingdoms and players (add, list, show, password, changes, retire)."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.commands.common import campaign_option, load, locked, open_campaign, save
from wdg.textpolicy import terminal_safe
from wdg.world import admin
from wdg.world.state import ruler_title

sub = typer.Typer(help="Königreiche und Spieler: anmelden, auflisten, zeigen, ändern, ausscheiden.",
                  no_args_is_help=True)


@sub.command("add")
def add(
    segment: str = typer.Argument(..., help="Name des Segments."),
    name: str = typer.Option(..., "--name", help="Der Name des Königreichs."),
    ruler: str = typer.Option(..., "--ruler", help="Der Name des Herrschers."),
    herrscherin: bool = typer.Option(False, "--herrscherin",
                                     help="Eine Herrscherin: Bögen, Formulare und Mails sagen "
                                     "'Herrscherin' (sonst 'Herrscher')."),
    email: str = typer.Option(..., "--email", help="Die E-Mail-Adresse des Spielers."),
    contact: str = typer.Option("offen", "--contact", help="Kontaktstatus: offen oder geheim."),
    at: list[str] = typer.Option(None, "--at", help="Gemarken (PPP.GG) des Königreichs, die "
                                 "Hauptstadt zuerst; die Option wiederholen. Sonst: ein freies "
                                 "Startgebiet."),
    treasury: int = typer.Option(200_000, "--treasury", help="Anfänglicher Reichsschatz in Goldsternen."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Ein neues Königreich mit erzeugtem Passwort anmelden (einmal angezeigt)."""
    camp = open_campaign(campaign)
    with locked(camp, segment) as seg:
        hexes = [seg.grid.parse(a) for a in at] if at else None
        notes: list[str] = []
        k, plain, capital = admin.add_new_kingdom(seg, name=name, ruler=ruler, email=email,
                                                  contact=contact, at=hexes, treasury=treasury,
                                                  herrscherin=herrscherin, notes=notes)
        save(camp, seg)
    for note in notes:
        typer.echo(f"Hinweis: {terminal_safe(note)}")
    typer.echo(f"Königreich {k.number} ({k.name}) angelegt; Hauptstadt {seg.label(capital)}")
    typer.echo(f"Passwort (nur jetzt sichtbar, gespeichert wird nur ein Hash): {plain}")


@sub.command("list")
def list_(segment: str = typer.Argument(..., help="Name des Segments."),
          campaign: Path | None = campaign_option()) -> None:
    """Eine Zeile je Königreich: Nummer, Name, Herrscher, E-Mail, Kontaktstatus, Art."""
    seg = load(open_campaign(campaign), segment)
    for n, k in sorted(seg.kingdoms.items()):
        kind = "Stadtstaat" if k.city_state else ("ausgeschieden" if k.retired else "Königreich")
        kind += f" (Bot {k.bot})" if k.bot else ""
        p = k.player
        typer.echo(f"{n:3d}  {k.name:<20} {k.ruler:<20} {p.email if p else '-':<28} "
                   f"{p.contact.value if p else '-':<7} {kind}")


@sub.command("show")
def show(segment: str = typer.Argument(..., help="Name des Segments."),
         kingdom: int = typer.Argument(..., help="Nummer des Königreichs."),
         campaign: Path | None = campaign_option()) -> None:
    """Alles über ein Königreich (nur für die Augen der Spielleitung)."""
    seg = load(open_campaign(campaign), segment)
    k = admin.kingdom_of(seg, kingdom)
    typer.echo(f"Königreich {k.number}: {k.name}")
    typer.echo(f"  {ruler_title(k.herrscherin)}: {k.ruler}")
    if k.player:
        typer.echo(f"  Spieler: {k.player.name} <{k.player.email}>, Kontakt {k.player.contact.value}")
    if k.bot:
        typer.echo(f"  Bot: {k.bot}")
    typer.echo(f"  Reichsschatz: {k.treasury} GS, Beliebtheit {k.popularity}")
    typer.echo(f"  Gemarken: {int((seg.owner == kingdom).sum())}")
    for h, nm in sorted(seg.settlement_names.items()):
        if seg.at(seg.owner, h) == kingdom:
            typer.echo(f"  Siedlung {seg.label(h)} {nm} ({seg.at(seg.settlement, h)} BE)")
    for a in sorted((a for a in seg.armies.values() if a.kingdom == kingdom), key=lambda a: a.number):
        troop = a.troop.value if a.troop else "ohne Feldherr"
        typer.echo(f"  Heer {a.number:04d} {seg.label(a.position)} {a.status.value} {troop} {a.units}")
    if k.diplomacy:
        typer.echo("  Diplomatie: " + ", ".join(f"{o}:{s}" for o, s in sorted(k.diplomacy.items())))


@sub.command("set-password")
def set_password(segment: str = typer.Argument(..., help="Name des Segments."),
                 kingdom: int = typer.Argument(..., help="Nummer des Königreichs."),
                 prompt: bool = typer.Option(False, "--prompt", help="Das neue Passwort "
                                             "verdeckt eingeben (zweimal); sonst wird eines "
                                             "erzeugt."),
                 stdin: bool = typer.Option(False, "--stdin", help="Das neue Passwort aus der "
                                            "ersten Zeile der Standardeingabe lesen (für "
                                            "Skripte: printf '%s\\n' \"$PW\" | wdg kingdom "
                                            "set-password ... --stdin)."),
                 password: str = typer.Option(None, "--password", hidden=True,
                                              help="Abgelehnt: ein Passwort auf der "
                                              "Befehlszeile stünde in der Shell-Historie."),
                 campaign: Path | None = campaign_option()) -> None:
    """Ein neues Passwort setzen: erzeugt (Vorgabe), verdeckt eingegeben (--prompt) oder
    von der Standardeingabe (--stdin) — nie auf der Befehlszeile, wo es in der
    Shell-Historie und in der Prozeßliste stünde. Ein erzeugtes wird einmal angezeigt;
    gespeichert wird nur sein gesalzener Hash."""
    import sys

    from wdg.errors import InvalidInputError

    if password is not None:
        raise InvalidInputError("--password nimmt kein Passwort mehr an: auf der Befehlszeile "
                                "stünde es in der Shell-Historie und in der Prozeßliste. "
                                "Verdeckt eingeben: --prompt; aus einem Skript: --stdin; "
                                "ohne beides wird eines erzeugt")
    if prompt and stdin:
        raise InvalidInputError("--prompt und --stdin zugleich: eines von beiden")
    given = None
    if prompt:
        given = typer.prompt("Neues Passwort", hide_input=True, confirmation_prompt=True,
                             prompt_suffix=": ")
    elif stdin:
        given = sys.stdin.readline().rstrip("\r\n")
        if not given:
            raise InvalidInputError("--stdin: die Standardeingabe ist leer; erwartet das "
                                    "Passwort in der ersten Zeile")
    camp = open_campaign(campaign)
    with locked(camp, segment) as seg:
        plain = admin.set_password(seg, kingdom, given)
        save(camp, seg)
    if given is None:
        typer.echo(f"Neues Passwort für Königreich {kingdom}: {plain}")
    else:
        typer.echo(f"Neues Passwort für Königreich {kingdom} gesetzt (nicht angezeigt)")


@sub.command("set")
def set_(segment: str = typer.Argument(..., help="Name des Segments."),
         kingdom: int = typer.Argument(..., help="Nummer des Königreichs."),
         email: str = typer.Option(None, "--email", help="Neue E-Mail-Adresse."),
         contact: str = typer.Option(None, "--contact", help="Neuer Kontaktstatus: offen oder geheim."),
         ruler: str = typer.Option(None, "--ruler", help="Neuer Name des Herrschers."),
         name: str = typer.Option(None, "--name", help="Neuer Name des Königreichs."),
         herrscherin: bool = typer.Option(None, "--herrscherin/--herrscher",
                                          help="Eine Herrscherin ('Herrscherin') oder ein "
                                          "Herrscher ('Herrscher'); sonst unverändert."),
         bot: str = typer.Option(None, "--bot", help="Das Königreich einem Bot übergeben "
                                 "(Baumeister, Eroberer, Kriegsherr, Kriegsherr+feind; "
                                 "docs/bots.md); '' gibt es mit neuem Passwort einem Menschen "
                                 "zurück."),
         campaign: Path | None = campaign_option()) -> None:
    """E-Mail oder Kontaktstatus eines Spielers, den Namen des Herrschers oder des
    Königreichs ändern, ob eine Herrscherin regiert, oder das Königreich einem Bot
    übergeben."""
    from wdg.bots.npc import set_bot

    camp = open_campaign(campaign)
    with locked(camp, segment) as seg:
        notes: list[str] = []
        k = admin.set_player(seg, kingdom, email=email, contact=contact, ruler=ruler, name=name,
                             herrscherin=herrscherin, notes=notes)
        plain = set_bot(seg, kingdom, bot)[1] if bot is not None else None
        save(camp, seg)
    for note in notes:
        typer.echo(f"Hinweis: {terminal_safe(note)}")
    typer.echo(f"Königreich {k.number} ({k.name}) geändert")
    if bot is not None and k.bot:
        typer.echo(f"Das Königreich wird vom Bot {k.bot} gespielt; 'wdg turn run' schreibt "
                   "seinen Spielzug, wenn keiner eingegangen ist.")
    elif bot is not None:
        typer.echo(f"Das Königreich spielt wieder ein Mensch; neues Passwort (nur jetzt "
                   f"sichtbar): {plain}")


@sub.command("retire")
def retire(segment: str = typer.Argument(..., help="Name des Segments."),
           kingdom: int = typer.Argument(..., help="Nummer des Königreichs."),
           to: str = typer.Option(None, "--to", help="stadtstaat oder neutral (sonst die "
                                  "Einstellung retire_to des Segments)."),
           campaign: Path | None = campaign_option()) -> None:
    """Ein Königreich scheidet aus: es wird Stadtstaat oder fällt neutral."""
    camp = open_campaign(campaign)
    with locked(camp, segment) as seg:
        k = admin.retire(seg, kingdom, to)
        save(camp, seg)
    typer.echo(f"Königreich {k.number} ({k.name}) ist ausgeschieden "
               f"({'Stadtstaat' if k.city_state else 'neutral'})")


def register(app: typer.Typer) -> None:
    """Add ``wdg kingdom`` to the root app."""
    app.add_typer(sub, name="kingdom")
