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
        rules: list[Path] = typer.Option(None, "--rules", help="Ein zweites Regelverzeichnis: beide "
                                         "Regelsätze werden mit denselben Seeds gespielt und "
                                         "nebeneinander verglichen. Mit --seeds auch mehrmals: jeder Regelsatz "
                                         "gegen die Regeln der Kampagne."),
        out: Path = typer.Option(None, "--out", "-o", help="Berichtsordner (die Kampagnen darin "
                                 "werden ersetzt); sonst reports/lab-<segment>/."),
        seed: int = typer.Option(1, "--seed", help="Seed der Entscheidungen der Bots."),
        replay: bool = typer.Option(True, "--replay/--no-replay",
                                    help="Jeden Monat aus dem Archiv der Kopie nachspielen."),
        plots: str = typer.Option("auto", "--plots", help="auto (matplotlib, wenn installiert, "
                                  "sonst SVG), matplotlib, svg oder none."),
        jobs: int = typer.Option(1, "--jobs", "-j", help="Prozesse für einen Vergleich mit --rules "
                                 "(mit --seeds: für die Kampagnen des Durchlaufs)."),
        seeds: int = typer.Option(None, "--seeds", help="N Seeds je Regelsatz spielen und jede "
                                  "Kennzahl mit 95-%-Intervall und der gepaarten Differenz "
                                  "zwischen den Regelsätzen zeigen (docs/lab.md, 'Sweeps')."),
        scheduler: str = typer.Option(None, "--scheduler", help="Mit --seeds: die Kampagnen auf "
                                      "einem Dask-Cluster (tcp://HOST:PORT; Kampagne und "
                                      "--out auf einem gemeinsamen Dateisystem)."),
        as_json: bool = typer.Option(False, "--json", help="Mit --seeds: das Ergebnis als ein "
                                     "JSON-Dokument auf stdout."),
        campaign: Path | None = campaign_option(),
    ) -> None:
        """Eine Kampagne mit Bots auf einer Kopie spielen (nie im echten Segment) und einen
        Berichtsordner schreiben: Kennzahlen je Königreich und Monat, Grafiken, eine
        HTML-Seite (docs/lab.md). Mit --seeds: ein Durchlauf über Seeds und Regelsätze mit
        95-%-Intervallen."""
        from wdg.errors import InvalidInputError

        camp = open_campaign(campaign)
        rules = list(rules or [])
        if seeds is not None:
            import json

            from wdg.lab.sweep import run_sweep, sweep_lines

            if scheduler is not None and jobs > 1:
                raise InvalidInputError("--jobs und --scheduler schließen sich aus")
            sweep = run_sweep(camp, segment, months=months, seeds=seeds, rules=rules, bots=bots,
                              out=out, jobs=jobs, scheduler=scheduler, replay=replay)
            if as_json:
                typer.echo(json.dumps(sweep.as_dict(), ensure_ascii=False, sort_keys=True))
            else:
                for line in sweep_lines(sweep):
                    typer.echo(line)
            return
        if len(rules) > 1:
            raise InvalidInputError("mehrere --rules nur mit --seeds; ohne --seeds vergleicht "
                                    "'wdg lab' die Regeln der Kampagne mit einem Regelsatz")
        if scheduler is not None or as_json:
            raise InvalidInputError("--scheduler und --json nur mit --seeds")
        from wdg.lab import run_lab

        res = run_lab(camp, segment, months=months, bots=bots, out=out,
                      compare=rules[0] if rules else None,
                      seed=seed, replay=replay, plots=plots, jobs=jobs,
                      progress=_bar())
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
