"""``wdg world``: the segments of a campaign as one world of Canura (docs/world.md)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from wdg.commands.common import campaign_option, open_campaign

sub = typer.Typer(help="Die Welt Canura: alle Segmente der Kampagne gemeinsam — Stand, "
                  "Auswertung (lokal oder auf einem Dask-Cluster), Mitteilungsblatt, Spieler "
                  "über Segmente hinweg (docs/world.md).", no_args_is_help=True)


def _echo_json(data: object) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False))


def _jobs(jobs: int) -> int:
    """``--jobs``: 0 is one process per core; negative is refused."""
    if jobs < 0:
        from wdg.errors import InvalidInputError

        raise InvalidInputError(f"--jobs {jobs}: erwartet 0 (ein Prozeß je Kern) oder mehr")
    if jobs == 0:
        from wdg.reports.batch import default_jobs

        return default_jobs()
    return jobs


@sub.command("status")
def status(
    jobs: int = typer.Option(1, "--jobs", "-j", help="Prozesse, die die Segmente lesen "
                             "(0 = einer je Kern)."),
    as_json: bool = typer.Option(False, "--json", help="Ein JSON-Dokument auf stdout."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Jedes Segment in einer Tabelle: Mond, Eintreffschluß (fällig?), Spielzüge
    eingegangen/fehlend, Blockaden, letzter Lauf, Post. Exit-Code 1, wenn ein Segment
    nicht gelesen werden kann (es wird mit Grund genannt)."""
    from wdg.office.status import status_lines, world_status

    camp = open_campaign(campaign)
    rows = world_status(camp, jobs=_jobs(jobs))
    if as_json:
        _echo_json({"campaign": str(camp.root), "segments": [r.as_dict() for r in rows]})
    elif not rows:
        typer.echo(f"keine Segmente in {camp.worlds} ('wdg segment new' legt eines an)")
    else:
        for line in status_lines(rows):
            typer.echo(line)
    if any(r.error for r in rows):
        raise typer.Exit(1)


@sub.command("run")
def run(
    force: bool = typer.Option(False, "--force", help="Alle Segmente auswerten, auch vor dem "
                               "Eintreffschluß oder mit zu vielen fehlenden Spielzügen."),
    pdf: bool = typer.Option(True, "--pdf/--no-pdf", help="Mit den PDFs (Vorgabe) oder nur "
                             "Text, HTML, Ansichten und Formulare."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Lokale Arbeitsprozesse (0 = einer je "
                             "Kern, 1 = in diesem Prozeß)."),
    scheduler: str = typer.Option(None, "--scheduler", help="Adresse eines laufenden "
                                  "Dask-Schedulers (tcp://HOST:PORT); die Arbeitsprozesse "
                                  "brauchen das Kampagnenverzeichnis unter demselben Pfad."),
    as_json: bool = typer.Option(False, "--json", help="Ein JSON-Dokument auf stdout."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Jedes Segment, dessen Eintreffschluß vorbei ist, auswerten — jedes unter seiner
    eigenen Sperre, parallel in lokalen Prozessen oder auf einem Dask-Cluster, genau wie
    'wdg turn run'. Ein fehlerhaftes Segment wird mit Grund genannt, die anderen laufen.
    Exit-Codes wie 'wdg mail run': 0 erledigt, 1 fehlgeschlagen, 3 nichts zu tun,
    4 wartet auf den Eintreffschluß, 5 verweigert, 6 gesperrt, 130 abgebrochen."""
    from wdg import exitcodes
    from wdg.errors import InvalidInputError
    from wdg.office.run import run_world

    if scheduler is not None and jobs:
        raise InvalidInputError("--jobs und --scheduler schließen sich aus: entweder lokale "
                                "Prozesse oder der Dask-Cluster")
    camp = open_campaign(campaign)

    def shown(rep) -> None:
        if as_json:
            return
        for i, line in enumerate(rep.lines):
            typer.echo(f"{rep.segment}: {line}",
                       err=rep.level(i) in exitcodes.PROBLEMS - {exitcodes.Level.WARNING})
        typer.echo(f"{rep.segment}: {exitcodes.NAMES.get(rep.code, rep.code)} "
                   f"(Code {rep.code}, {rep.seconds:.1f} s)")

    try:
        world = run_world(camp, force=force, pdf=pdf, jobs=jobs, scheduler=scheduler,
                          progress=shown)
    except KeyboardInterrupt:
        typer.echo("abgebrochen: jedes Segment ist ausgewertet oder unverändert; "
                   "'wdg world status' zeigt, welche noch fällig sind", err=True)
        raise
    if as_json:
        _echo_json(world.as_dict())
    elif not world.segments:
        typer.echo(f"keine Segmente in {camp.worlds}")
    else:
        n = {c: sum(1 for s in world.segments if s.code == c) for c in exitcodes.NAMES}
        parts = [f"{n[c]} {exitcodes.NAMES[c]}" for c in exitcodes.NAMES if n.get(c)]
        typer.echo(f"Welt: {len(world.segments)} Segmente ({', '.join(parts)}) in "
                   f"{world.seconds:.1f} s ({world.where})")
    if world.code:
        raise typer.Exit(world.code)


@sub.command("mbw")
def mbw(
    out: Path = typer.Option(None, "--out", "-o", help="Zielordner (Vorgabe: reports/mbw/ der "
                             "Kampagne); darin mbw.txt, mbw.html, mbw.pdf, mbw.json, plots/."),
    articles: Path = typer.Option(None, "--articles", "-a", help="Eigene Artikel des "
                                  "Segmentleiters: UTF-8-Text, jeder Artikel beginnt mit "
                                  "'# Überschrift', Absätze durch Leerzeilen getrennt."),
    pdf: bool = typer.Option(True, "--pdf/--no-pdf", help="Auch als PDF (Vorgabe)."),
    plots: str = typer.Option("auto", "--plots", help="auto (matplotlib, wenn installiert, "
                              "sonst SVG), matplotlib, svg oder none."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Prozesse, die die Archive der Segmente "
                             "lesen (0 = einer je Kern)."),
    as_json: bool = typer.Option(False, "--json", help="Ein JSON-Dokument auf stdout."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Das Mitteilungsblatt der Welt (MBW) aus den Archiven aller Segmente: je Segment
    Mond, Reiche, Land, Soldaten, Reichsschätze, Schlachten, Eroberungen, ausgeschiedene
    Reiche, Bekanntmachungen der Götterbotschaft; über alle Segmente die größten Reiche,
    die Kriege des Jahres, Grafiken; dazu eigene Artikel. Nur Veröffentlichtes und Summen
    (docs/rules.md)."""
    from wdg.office.mbw import write_mbw

    camp = open_campaign(campaign)
    target = out if out is not None else camp.root / "reports" / "mbw"
    model, files = write_mbw(camp, target, articles=articles, pdf=pdf, plots=plots,
                             jobs=_jobs(jobs))
    if as_json:
        _echo_json({"out": str(target), "files": [str(f) for f in files],
                    "mbw": model.as_dict()})
        return
    for p in model.segments:
        if p.problem:
            typer.echo(f"{p.segment}: Archiv nicht lesbar: {p.problem}", err=True)
    typer.echo(f"Mitteilungsblatt: {len(model.segments)} Segmente, {len(model.articles)} "
               f"Artikel; {len(files)} Dateien in {target}")


@sub.command("players")
def players(
    several: bool = typer.Option(False, "--several", help="Nur Personen mit Königreichen in "
                                 "mehreren Segmenten."),
    as_json: bool = typer.Option(False, "--json", help="Ein JSON-Dokument auf stdout."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Jede Person (nach E-Mail-Adresse) mit ihren Königreichen in allen Segmenten;
    wer in mehreren Segmenten spielt, steht zuerst."""
    from wdg.office.roster import players as collect

    camp = open_campaign(campaign)
    people, problems = collect(camp)
    rows = sorted(people.values(), key=lambda p: (-len(p.segments), p.email))
    if several:
        rows = [p for p in rows if len(p.segments) > 1]
    if as_json:
        _echo_json({"players": [p.as_dict() for p in rows], "problems": problems})
    else:
        for p in rows:
            where = ", ".join(f"{k['segment']}: {k['name']} ({k['kingdom']})" for k in p.kingdoms)
            typer.echo(f"{p.email:<32} {len(p.segments)} Segment"
                       f"{'e' if len(p.segments) != 1 else ''}  {where}")
        if not rows:
            typer.echo("keine Personen" + (" in mehreren Segmenten" if several else ""))
        for name, why in problems.items():
            typer.echo(f"{name}: nicht lesbar: {why}", err=True)
    if problems:
        raise typer.Exit(1)


@sub.command("disqualify")
def disqualify(
    email: str = typer.Argument(..., help="E-Mail-Adresse der Person."),
    reason: str = typer.Option(..., "--reason", help="Grund (steht im Bogen des "
                               "Segmentleiters, im Archiv und in der Mail an die Person)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Nur zeigen, was eingetragen würde."),
    as_json: bool = typer.Option(False, "--json", help="Ein JSON-Dokument auf stdout."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Die Person in allen Segmenten disqualifizieren ("sofort und für alle
    WdG-Segmente"): 'DISQUALIFIZIEREN <Königreich> <Grund>' in den Bogen des
    Segmentleiters (sl.txt) des laufenden Mondes jedes Segments, in dem sie spielt;
    der Lauf des Mondes läßt das Königreich ausscheiden (im Archiv, mit 'wdg turn undo'
    rückgängig). Die Person erhält eine Mail, einmal."""
    from wdg.office.roster import disqualify as run

    camp = open_campaign(campaign)
    got = run(camp, email, reason, dry_run=dry_run)
    if as_json:
        _echo_json(got.as_dict())
    else:
        verb = "würde eingetragen" if dry_run else "eingetragen"
        for r in got.written:
            typer.echo(f"{r['segment']}: {r['name']} (Königreich {r['kingdom']}) — "
                       f"DISQUALIFIZIEREN {verb} in {r['sheet']}")
        for r in got.already:
            typer.echo(f"{r['segment']}: {r['name']} (Königreich {r['kingdom']}) — stand schon "
                       f"in {r['sheet']}")
        for seg, why in got.failed.items():
            typer.echo(f"{seg}: Fehler: {why}", err=True)
        told = {"sent": "benachrichtigt", "already": "schon benachrichtigt",
                "file": "Mail als Datei", "uncertain": "Benachrichtigung ungewiß",
                "failed": "nicht benachrichtigt", "dry-run": "nicht benachrichtigt (--dry-run)",
                "": "nicht benachrichtigt"}[got.told]
        typer.echo(f"{got.email}: {told}" + (f" — {got.told_detail}" if got.told_detail else ""))
    if got.failed or got.told in ("failed", "uncertain"):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``wdg world`` to the root app."""
    app.add_typer(sub, name="world")
