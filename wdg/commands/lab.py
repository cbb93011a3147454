"""``wdg lab``: a campaign played by bots on a copy, with metrics and plots."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

from wdg.commands.common import campaign_option, open_campaign


def _bar() -> object:
    """A progress bar on stderr when it is a terminal (months played)."""
    if not sys.stderr.isatty():
        return None
    start = time.monotonic()

    def show(i: int, n: int, label: str) -> None:
        width = 30
        done = int(width * i / max(1, n))
        secs = time.monotonic() - start
        end = "\n" if i >= n else ""
        sys.stderr.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} {label:<24} "
                         f"{secs:5.1f} s{end}")
        sys.stderr.flush()
    return show


def register(app: typer.Typer) -> None:
    """Add ``wdg lab`` to the root app."""

    @app.command("lab")
    def lab(
        segment: str = typer.Argument(..., help="Name des Segments."),
        months: int = typer.Option(24, "--months", "-m", help="Zu spielende Monate."),
        bots: str = typer.Option(None, "--bots", help="Persönlichkeiten, reihum über die "
                                 "spielenden Königreiche verteilt (Baumeister,Eroberer,Kriegsherr), "
                                 "oder Paare K=Name (1=Baumeister,3=Kriegsherr+feind); Königreiche, "
                                 "die schon ein Bot spielt, behalten ihre. Sonst: "
                                 "Baumeister,Eroberer,Kriegsherr."),
        rules: Path = typer.Option(None, "--rules", help="Ein zweites Regelverzeichnis: beide "
                                   "Regelsätze werden mit denselben Seeds gespielt und "
                                   "nebeneinander verglichen."),
        out: Path = typer.Option(None, "--out", "-o", help="Berichtsordner (die Kampagnen darin "
                                 "werden ersetzt); sonst reports/lab-<segment>/."),
        seed: int = typer.Option(1, "--seed", help="Seed der Entscheidungen der Bots."),
        replay: bool = typer.Option(True, "--replay/--no-replay",
                                    help="Jeden Monat aus dem Archiv der Kopie nachspielen."),
        plots: str = typer.Option("auto", "--plots", help="auto (matplotlib, wenn installiert, "
                                  "sonst SVG), matplotlib, svg oder none."),
        jobs: int = typer.Option(1, "--jobs", "-j", help="Prozesse für einen Vergleich mit --rules."),
        campaign: Path | None = campaign_option(),
    ) -> None:
        """Eine Kampagne mit Bots auf einer Kopie spielen (nie im echten Segment) und einen
        Berichtsordner schreiben: Kennzahlen je Königreich und Monat, Grafiken, eine
        HTML-Seite (docs/lab.md)."""
        from wdg.lab import run_lab

        camp = open_campaign(campaign)
        res = run_lab(camp, segment, months=months, bots=bots, out=out, compare=rules,
                      seed=seed, replay=replay, plots=plots, jobs=jobs,
                      progress=_bar())  # type: ignore[arg-type]
        figs = res.summary.get("compare", [res.summary])
        for f in figs:
            typer.echo(f"{f['label']}: {f['months']} Monde ({f['from']} bis {f['to']}): "
                       f"{f['battles']} Kämpfe in {f['months_with_battles']} Monden, "
                       f"{f['settlements_changed_hands']} Siedlungen erobert, "
                       f"{f['gemarks_conquered']} Gemarken erobert; Unterhalt leerer Heere "
                       f"{f['empty_army_upkeep']} GS; Erhaltungsfehler "
                       f"{len(f['conservation_errors'])}; Wiederholungsfehler "
                       f"{len(f['replay_failures'])}")
        typer.echo(f"Bericht: {res.out / 'index.html'}")
