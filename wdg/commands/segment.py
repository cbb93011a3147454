"""``wdg segment``: create a segment and show its status.

``wdg segment new NAME`` generates a segment into ``worlds/NAME/`` of the
campaign and prints each kingdom's password once; ``wdg segment status NAME``
prints the month, the size and a table of the kingdoms.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import typer

from wdg.commands.common import campaign_option, load, open_campaign
from wdg.engine.archive import segment_lock, store_findings
from wdg.errors import InvalidInputError, StateError
from wdg.reports.status import render_status
from wdg.world.calendar import MonthDate
from wdg.world.consistency import check_segment
from wdg.world.generator import generate_segment
from wdg.world.storage import SEGMENT_FILE, save_segment
from wdg.world.stress import stress_segment

app = typer.Typer(help="Segments: create one, show its status, check its consistency.",
                  no_args_is_help=True)


def register(root: typer.Typer) -> None:
    """Add ``segment`` to the root app."""
    root.add_typer(app, name="segment")


def parse_provinces(text: str) -> tuple[int, int]:
    """``4x3`` -> (4 columns, 3 rows)."""
    m = re.fullmatch(r"\s*(\d{1,2})\s*[xX]\s*(\d)\s*", text)
    if not m:
        raise InvalidInputError(f"--provinces {text!r}: expected COLUMNSxROWS such as '4x3'")
    return int(m.group(1)), int(m.group(2))


@app.command("new")
def new(
    name: str = typer.Argument(..., help="Segment name (lower-case letters, digits, - and _)."),
    provinces: str = typer.Option("4x3", "--provinces", "-p",
                                  help="Size in provinces of 8x6 gemarks: COLUMNSxROWS."),
    kingdoms: int = typer.Option(6, "--kingdoms", "-k", help="Number of player kingdoms."),
    seed: int = typer.Option(None, "--seed", "-s",
                             help="Seed of the world and the campaign (default: random, printed)."),
    city_states: int = typer.Option(2, "--city-states", help="Number of city states."),
    creatures: int = typer.Option(5, "--creatures", help="Number of creatures (Fabelwesen)."),
    armies: int = typer.Option(4, "--armies", help="Armies per kingdom (numbers k*100+1...)."),
    active: int = typer.Option(1, "--active", help="How many of them start active."),
    radius: int = typer.Option(1, "--radius",
                               help="Starting realm: 1 = capital and its 6 neighbours, 2 = 19."),
    start: str = typer.Option("0412-04", "--start", help="First month to play, YYYY-MM."),
    demo_passwords: bool = typer.Option(False, "--demo-passwords",
                                        help="Fixed passwords NAME-<kingdom> (demos only!)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing segment."),
    preset: str = typer.Option(None, "--preset",
                               help="'stress': the benchmark's stress segment (20x9 provinces, "
                               "60 kingdoms, 3,000 active armies, fronts; known passwords "
                               "NAME-<kingdom>); the size options are then ignored."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Generate a new segment into worlds/NAME/ and print the passwords once."""
    camp = open_campaign(campaign)
    target = camp.segment_dir(name)
    if (target / SEGMENT_FILE).exists() and not force:
        raise StateError(f"segment {name!r} already exists in {target}; use --force to replace it")
    cols, rows = parse_provinces(provinces)
    if seed is None:
        seed = secrets.randbelow(2**31)
    if preset not in (None, "stress"):
        raise InvalidInputError(f"--preset {preset!r}: expected 'stress'")
    if preset == "stress":
        seg, passwords = stress_segment(seed=seed, name=name)
    else:
        seg, passwords = generate_segment(
            name, cols, rows, kingdoms, seed, city_states=city_states, armies_per_kingdom=armies,
            active_per_kingdom=active, creatures=creatures, capital_radius=radius,
            start=MonthDate.parse(start), demo_passwords=demo_passwords)
    save_segment(seg, target)
    typer.echo(f"Segment {name} angelegt in {target} (Seed {seed}).")
    typer.echo("Passwörter (nur jetzt angezeigt, gespeichert werden nur Hashes):")
    for k, pw in sorted(passwords.items()):
        typer.echo(f"  {k:>3}  {seg.kingdoms[k].name:<28} {pw}")


@app.command("status")
def status(
    name: str = typer.Argument(..., help="Segment name."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Print the month, the size and a table of the kingdoms."""
    seg = load(open_campaign(campaign), name)
    typer.echo(render_status(seg), nl=False)


@app.command("check")
def check(
    name: str = typer.Argument(..., help="Segment name."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Find what must never be (armies on impossible terrain, units without an army,
    buildings outside settlements, negative treasury, statuses outside 1-9, dangling
    references...): one line per finding, exit code 1 if there is any."""
    camp = open_campaign(campaign)
    seg_dir = camp.segment_dir(name)
    load(camp, name)  # a clear message for a missing segment
    try:
        # Taking the lock completes or cleans what a crash interrupted (with a notice).
        with segment_lock(seg_dir):
            seg = load(camp, name)
            disk = store_findings(seg_dir, holding_lock=True)
    except StateError as exc:  # another command holds it: check without touching anything
        typer.echo(f"Hinweis: {exc}", err=True)
        seg = load(camp, name)
        disk = store_findings(seg_dir, busy=True)
    findings: list[object] = [*disk, *check_segment(seg)]
    for f in findings:
        typer.echo(str(f))
    if findings:
        typer.echo(f"{len(findings)} Befund(e) in Segment {name}", err=True)
        raise typer.Exit(1)
    typer.echo(f"Segment {name}: keine Befunde")
