"""``wdg kingdom``: kingdoms and players (add, list, show, password, changes, retire)."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.commands.common import campaign_option, load, locked, open_campaign, save
from wdg.world import admin
from wdg.world.state import ruler_title

sub = typer.Typer(help="Kingdoms and players: register, list, show, change, retire.",
                  no_args_is_help=True)


@sub.command("add")
def add(
    segment: str = typer.Argument(..., help="Name des Segments."),
    name: str = typer.Option(..., "--name", help="The kingdom's name."),
    ruler: str = typer.Option(..., "--ruler", help="The ruler's (Herrscher's) name."),
    herrscherin: bool = typer.Option(False, "--herrscherin",
                                     help="The ruler is a woman: sheets, forms and mails say "
                                     "'Herrscherin' (default: 'Herrscher')."),
    email: str = typer.Option(..., "--email", help="The player's e-mail address."),
    contact: str = typer.Option("offen", "--contact", help="Contact status: offen or geheim."),
    at: list[str] = typer.Option(None, "--at", help="Gemarks (PPP.GG) for the kingdom, capital first; "
                                 "repeat the option. Default: a free starting area."),
    treasury: int = typer.Option(200_000, "--treasury", help="Starting treasury in Goldsterne."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Register a new kingdom with a generated password (shown once)."""
    camp = open_campaign(campaign)
    with locked(camp, segment) as seg:
        hexes = [seg.grid.parse(a) for a in at] if at else None
        k, plain, capital = admin.add_new_kingdom(seg, name=name, ruler=ruler, email=email,
                                                  contact=contact, at=hexes, treasury=treasury,
                                                  herrscherin=herrscherin)
        save(camp, seg)
    typer.echo(f"Königreich {k.number} ({k.name}) angelegt; Hauptstadt {seg.label(capital)}")
    typer.echo(f"Passwort (nur jetzt sichtbar, gespeichert wird nur ein Hash): {plain}")


@sub.command("list")
def list_(segment: str = typer.Argument(..., help="Name des Segments."),
          campaign: Path | None = campaign_option()) -> None:
    """One line per kingdom: number, name, ruler, e-mail, contact status, kind."""
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
    """Everything about one kingdom (for the game master's eyes)."""
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
                 password: str = typer.Option(None, "--password",
                                              help="The new password (default: generate one)."),
                 campaign: Path | None = campaign_option()) -> None:
    """Set a new password (shown once; only its salted hash is stored)."""
    camp = open_campaign(campaign)
    with locked(camp, segment) as seg:
        plain = admin.set_password(seg, kingdom, password)
        save(camp, seg)
    typer.echo(f"Neues Passwort für Königreich {kingdom}: {plain}")


@sub.command("set")
def set_(segment: str = typer.Argument(..., help="Name des Segments."),
         kingdom: int = typer.Argument(..., help="Nummer des Königreichs."),
         email: str = typer.Option(None, "--email", help="New e-mail address."),
         contact: str = typer.Option(None, "--contact", help="New contact status: offen or geheim."),
         ruler: str = typer.Option(None, "--ruler", help="New ruler's name."),
         name: str = typer.Option(None, "--name", help="New kingdom name."),
         herrscherin: bool = typer.Option(None, "--herrscherin/--herrscher",
                                          help="The ruler is a woman ('Herrscherin') or a man "
                                          "('Herrscher'); default: unchanged."),
         bot: str = typer.Option(None, "--bot", help="Hand the kingdom to a bot (Baumeister, "
                                 "Eroberer, Kriegsherr, Kriegsherr+feind; docs/bots.md); "
                                 "'' gives it back to a human with a new password."),
         campaign: Path | None = campaign_option()) -> None:
    """Change a player's e-mail or contact status, the ruler's or kingdom's name, whether
    the ruler is a Herrscherin, or hand the kingdom to a bot."""
    from wdg.bots.npc import set_bot

    camp = open_campaign(campaign)
    with locked(camp, segment) as seg:
        k = admin.set_player(seg, kingdom, email=email, contact=contact, ruler=ruler, name=name,
                             herrscherin=herrscherin)
        plain = set_bot(seg, kingdom, bot)[1] if bot is not None else None
        save(camp, seg)
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
           to: str = typer.Option(None, "--to", help="stadtstaat or neutral (default: the segment's "
                                  "setting retire_to)."),
           campaign: Path | None = campaign_option()) -> None:
    """A kingdom leaves the game: it becomes a city state or falls neutral."""
    camp = open_campaign(campaign)
    with locked(camp, segment) as seg:
        k = admin.retire(seg, kingdom, to)
        save(camp, seg)
    typer.echo(f"Königreich {k.number} ({k.name}) ist ausgeschieden "
               f"({'Stadtstaat' if k.city_state else 'neutral'})")


def register(app: typer.Typer) -> None:
    """Add ``wdg kingdom`` to the root app."""
    app.add_typer(sub, name="kingdom")
