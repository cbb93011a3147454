"""``wdg segment``: create a segment and show its status.

``wdg segment new NAME`` generates a segment into ``worlds/NAME/`` of the
campaign and prints each kingdom's password once; ``wdg segment status NAME``
prints the month, the size and a table of the kingdoms.
"""

from __future__ import annotations

import re
import secrets
from typing import Any
from pathlib import Path

import typer

from wdg.commands.common import campaign_option, load, open_campaign
from wdg.store.lock import segment_lock, store_findings
from wdg.errors import InvalidInputError, LockedError, StateError, WdgError
from wdg.rules import Rules
from wdg.reports.status import render_status
from wdg.world.calendar import MonthDate
from wdg.world.consistency import check_segment
from wdg.world.generator import generate_segment
from wdg.store.journal import FILES, SEGMENT_FILE
from wdg.store.segment import save_segment
from wdg.world.stress import stress_segment

app = typer.Typer(help="Segmente: anlegen, Stand zeigen, Widerspruchsfreiheit prüfen.",
                  no_args_is_help=True)


def register(root: typer.Typer) -> None:
    """Add ``segment`` to the root app."""
    root.add_typer(app, name="segment")


def parse_provinces(text: str) -> tuple[int, int]:
    """``4x3`` -> (4 columns, 3 rows); the format and the range are checked apart."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m:
        raise InvalidInputError(f"--provinces {text!r}: erwartet SPALTENxZEILEN wie '4x3'")
    cols, rows = int(m.group(1)), int(m.group(2))
    if not (1 <= cols <= MAX_COLS and 1 <= rows <= MAX_ROWS):
        raise InvalidInputError(
            f"--provinces {text!r}: {cols} Spalten x {rows} Zeilen ist zu "
            f"{'groß' if cols > MAX_COLS or rows > MAX_ROWS else 'klein'}; erwartet 1..{MAX_COLS} "
            f"Spalten und 1..{MAX_ROWS} Zeilen: eine Provinznummer hat drei Ziffern, 100 x Zeile + "
            "Spalte (101 ... 999, docs/addresses.md)")
    return cols, rows


MAX_COLS, MAX_ROWS = 99, 9
"""Province numbers have three digits: 100 x block row (1-9) + block column (1-99)."""
DEFAULTS = {"provinces": "4x3", "kingdoms": 6, "city_states": 2, "creatures": 5, "armies": 4,
            "active": 1, "radius": 1}
"""The size options' defaults (``None`` on the command line means: not given)."""


@app.command("new")
def new(
    name: str = typer.Argument(..., help="Name des Segments (Kleinbuchstaben, Ziffern, - und _)."),
    provinces: str = typer.Option(None, "--provinces", "-p",
                                  help="Größe in Provinzen zu 8x6 Gemarken: SPALTENxZEILEN, "
                                  "höchstens 99x9 (Provinznummern haben drei Ziffern: 100 x Zeile "
                                  "+ Spalte). Sonst: 4x3."),
    kingdoms: int = typer.Option(None, "--kingdoms", "-k",
                                 help="Zahl der Spielerkönigreiche; mit --city-states höchstens "
                                 "99 (Heernummern haben vier Ziffern: Königreich x 100 + 1..99). "
                                 "Sonst: 6."),
    seed: int = typer.Option(None, "--seed", "-s",
                             help="Seed der Welt und der Kampagne (sonst zufällig, wird "
                             "ausgegeben)."),
    city_states: int = typer.Option(None, "--city-states",
                                    help="Zahl der Stadtstaaten. Sonst: 2."),
    creatures: int = typer.Option(None, "--creatures",
                                  help="Zahl der Fabelwesen. Sonst: 5."),
    armies: int = typer.Option(None, "--armies",
                               help="Heere je Königreich (Nummern k*100+1...), höchstens 99 (die "
                               "letzten zwei Ziffern der Heernummer). Sonst: 4."),
    active: int = typer.Option(None, "--active",
                               help="Wie viele davon aktiv beginnen. Sonst: 1."),
    radius: int = typer.Option(None, "--radius",
                               help="Startreich: 1 = Hauptstadt und ihre 6 Nachbarn, 2 = 19. "
                               "Sonst: 1."),
    start: str = typer.Option("0412-04", "--start", help="Erster zu spielender Monat, JJJJ-MM."),
    demo_passwords: bool = typer.Option(False, "--demo-passwords",
                                        help="Feste Passwörter NAME-<königreich> (nur für Demos!)."),
    force: bool = typer.Option(False, "--force", help="Ein vorhandenes Segment ersetzen."),
    preset: str = typer.Option(None, "--preset",
                               help="'stress': das Belastungssegment des Benchmarks (20x9 "
                               "Provinzen, 60 Königreiche, 3.000 aktive Heere, Fronten; bekannte "
                               "Passwörter NAME-<königreich>, --demo-passwords gilt mit). Es legt "
                               "jede Größe selbst fest: die Größenoptionen werden damit "
                               "abgelehnt, --scale nutzen; --start und --seed gelten."),
    scale: float = typer.Option(None, "--scale",
                                help="Nur mit --preset stress: seine Größe nach Fläche, 0.05 "
                                "bis 4.95 (sonst 1): Provinzspalten der Karte (20 x scale, "
                                "höchstens 99), Königreiche, Stadtstaaten und Fabelwesen wachsen "
                                "mit; Königreiche und Stadtstaaten zusammen enden bei 99."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Ein neues Segment in worlds/NAME/ erzeugen und die Passwörter einmal ausgeben."""
    camp = open_campaign(campaign)
    target = camp.segment_dir(name)
    given = {k: v for k, v in (("provinces", provinces), ("kingdoms", kingdoms),
                               ("city_states", city_states), ("creatures", creatures),
                               ("armies", armies), ("active", active), ("radius", radius))
             if v is not None}
    if preset not in (None, "stress"):
        raise InvalidInputError(f"--preset {preset!r}: erwartet 'stress'")
    if preset == "stress" and given:
        names = ", ".join("--" + k.replace("_", "-") for k in given)
        raise InvalidInputError(f"--preset stress legt die Größe des Segments selbst fest; "
                                f"{names} läßt sich nicht damit verbinden: --scale (z. B. "
                                "--scale 2) macht es größer oder kleiner")
    if scale is not None and preset != "stress":
        raise InvalidInputError("--scale geht nur mit --preset stress; für andere Segmente "
                                "--provinces, --kingdoms, --armies ... angeben")
    opts: dict[str, Any] = {**DEFAULTS, **given}
    cols, rows = parse_provinces(str(opts["provinces"]))
    if (target / SEGMENT_FILE).exists() and not force:
        raise StateError(f"Segment {name!r} gibt es schon in {target}; --force ersetzt es")
    if seed is None:
        seed = secrets.randbelow(2**31)
    if preset == "stress":
        seg, passwords = stress_segment(1.0 if scale is None else scale, seed=seed, name=name,
                                        start=MonthDate.parse(start))
    else:
        seg, passwords = generate_segment(
            name, cols, rows, int(opts["kingdoms"]), seed, city_states=int(opts["city_states"]),
            armies_per_kingdom=int(opts["armies"]), active_per_kingdom=int(opts["active"]),
            creatures=int(opts["creatures"]), capital_radius=int(opts["radius"]),
            start=MonthDate.parse(start), demo_passwords=demo_passwords,
            rules=Rules.load(camp.rules_dir))
    save_segment(seg, target)
    typer.echo(f"Segment {name} angelegt in {target} (Seed {seed}).")
    typer.echo("Passwörter (nur jetzt angezeigt, gespeichert werden nur Hashes):")
    for k, pw in sorted(passwords.items()):
        typer.echo(f"  {k:>3}  {seg.kingdoms[k].name:<28} {pw}")


@app.command("status")
def status(
    name: str = typer.Argument(..., help="Name des Segments."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Den Monat, die Größe und eine Tabelle der Königreiche ausgeben."""
    seg = load(open_campaign(campaign), name)
    typer.echo(render_status(seg), nl=False)


@app.command("upgrade")
def upgrade(
    name: str = typer.Argument(..., help="Name des Segments."),
    templates: str = typer.Option(None, "--templates", help="Die eigenen templates/ der "
                                  "Kampagne, wo sie von den mitgelieferten abweichen: 'keep' "
                                  "(behalten) oder 'replace' (ersetzen; die alten nach "
                                  "templates.vor-upgrade-<n>/)."),
    rules: str = typer.Option("keep", "--rules", help="Neue Regeln, deren Fehlen 'aus' "
                              "bedeutet (z. B. Bodenschätze): 'keep' (die Kampagne spielt wie "
                              "bisher) oder 'adopt' (aus den mitgelieferten Regeln übernehmen)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Zeigen, was sich ändern würde; nichts ändern."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Ein Segment einer älteren wdg-Version ins Format dieser Version bringen:
    Regelschlüssel ergänzt (wo bekannt mit dem Wert des alten Verhaltens), Vorlagen
    behalten oder ersetzt, andere Aufzeichnungen verschoben; archivierte Monate bleiben
    unberührt. Gibt aus, was sich geändert hat."""
    from wdg.engine.upgrade import upgrade_segment

    report = upgrade_segment(open_campaign(campaign), name, templates=templates, rules=rules,
                             dry_run=dry_run)
    if not report.changes:
        typer.echo(f"Segment {name}: Format {report.to_format}, nichts zu tun")
        return
    for line in report.lines():
        typer.echo(line)


@app.command("check")
def check(
    name: str = typer.Argument(..., help="Name des Segments."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Finden, was nie sein darf (Heere auf unmöglichem Gelände, Einheiten ohne Heer,
    Gebäude außerhalb von Siedlungen, negative Schatzkammer, Status außerhalb 1-9,
    Verweise ins Leere ...): eine Zeile je Befund, Rückgabewert 1, wenn es einen gibt."""
    from wdg.commands.common import existing_segment_dir
    from wdg.store import integrity
    from wdg.store.intake import check_sheets
    from wdg.store.segment import load_segment, peek_passwords
    from wdg.world.calendar import MonthDate

    camp = open_campaign(campaign)
    seg_dir = existing_segment_dir(camp, name)  # a clear message for a missing segment
    try:
        # Taking the lock completes or cleans what a crash interrupted (with a notice).
        with segment_lock(seg_dir, any_format=True):
            disk = store_findings(seg_dir, holding_lock=True)
    except StateError as exc:  # another command holds it (or a planted link): touch nothing
        typer.echo(f"Hinweis: {exc}", err=True)
        disk = store_findings(seg_dir, busy=isinstance(exc, LockedError))
    from wdg.store.segment import FORMAT, format_of, too_new

    fmt = format_of(seg_dir)
    if fmt > FORMAT:  # said first: every other finding may come from the newer format
        disk.append(str(too_new(seg_dir / "segment.yaml", fmt)))
    elif fmt < FORMAT:
        disk.append(f"{seg_dir / 'segment.yaml'}: Segmentformat {fmt} einer älteren wdg-Version "
                    f"(diese schreibt {FORMAT}): 'wdg segment upgrade {name}' ausführen")
    # Every stored file against the hash lists: the live files, the chain of
    # months against the date, every archived month's inputs and outputs.
    stored = integrity.verify_segment(seg_dir)
    try:  # the sheets waiting for the month, against their receipts
        month, _ = peek_passwords(seg_dir)
        stored += check_sheets(camp.orders_dir(name, MonthDate.parse(month)))
    except (WdgError, OSError, KeyError, TypeError):
        pass  # an unreadable date: the segment's own check names it
    damage = [f for f in stored if not f.uncovered]
    findings: list[object] = [*disk, *damage]
    if not any(f.path.startswith(str(seg_dir / n)) for f in damage for n in FILES):
        try:
            findings += check_segment(load_segment(seg_dir))
        except WdgError as exc:
            findings.append(str(exc))
    for f in stored:
        if f.uncovered:
            typer.echo(f"Hinweis: {f}")
    for finding in findings:
        typer.echo(str(finding))
    if findings:
        typer.echo(f"{len(findings)} Befund(e) in Segment {name}", err=True)
        raise typer.Exit(1)
    typer.echo(f"Segment {name}: keine Befunde (Hashlisten geprüft: Segment, "
               f"{len(integrity.month_dirs(seg_dir / 'turns'))} archivierte Monde, Kette)")


@app.command("accept")
def accept(
    name: str = typer.Argument(..., help="Name des Segments."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Nach Änderungen von Hand an den Dateien des Segments: sie prüfen (jede Prüfung
    des Ladens außer der Hashliste) und eine neue Hashliste schreiben, damit die
    nächsten Befehle sie annehmen. Ein beschädigtes oder unversiegeltes
    Eingangsverzeichnis (mail/seen.yaml), dessen Zeilen lesbar sind, wird neu versiegelt."""
    from wdg.commands.common import existing_segment_dir
    from wdg.store.segment import accept_edits

    camp = open_campaign(campaign)
    seg_dir = existing_segment_dir(camp, name)
    from wdg.store.seen import SeenRecord, check_seen

    with segment_lock(seg_dir):
        seg = accept_edits(seg_dir)
        damaged = check_seen(seg_dir)
        record = SeenRecord(seg_dir, verify=False)  # (a line it cannot read stops here)
        if damaged or (record.path.exists() and not record.sealed):
            record.reseal()
    findings = check_segment(seg)
    for f in findings:
        typer.echo(f"Warnung: {f}")
    typer.echo(f"Segment {name}: Dateien geprüft und neu versiegelt (SHA256SUMS)")
    if damaged:
        typer.echo(f"Eingangsbuch {record.path}: die Zeilen gelesen und neu versiegelt — war "
                   "beschädigt oder von Hand geändert (vorher: "
                   f"{damaged[0].what.split('. Das Eingangsbuch')[0]})")
