"""``wdg export SEGMENT --format json``: the whole history for analysis."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from wdg.commands.common import campaign_option, load, open_campaign
from wdg.engine.history import export_history
from wdg.errors import InvalidInputError


def register(app: typer.Typer) -> None:
    """Add ``wdg export`` to the root app."""

    @app.command("export")
    def export(
        segment: str = typer.Argument(..., help="Name des Segments."),
        fmt: str = typer.Option("json", "--format", "-f", help="Ausgabeformat (json)."),
        out: Path = typer.Option(None, "--out", "-o", help="In diese Datei schreiben statt auf die Standardausgabe."),
        month: str = typer.Option(None, "--month", "-m", help="Nur dieser archivierte Monat "
                                  "(JJJJ-MM); sein Aufwand wächst nicht mit dem Archiv."),
        archive: bool = typer.Option(False, "--archive", help="Die ganze Kampagne als ein "
                                     "selbstbeschreibendes Paket (eine tar-Datei, --out nötig): "
                                     "Eingaben, Stand, Ereignisse, Ausgaben und Herkunft jedes "
                                     "Monats, README, JSON-Schemata und verify.py (nur "
                                     "Standardbibliothek); Passwörter in Bögen geschwärzt."),
        software: bool = typer.Option(False, "--software", help="Mit --archive: die genaue "
                                      "Software dazu (das Wheel dieser wdg-Version und die "
                                      "Wheels ihrer Abhängigkeiten, aus den installierten "
                                      "Dateien gebaut, mit SHA-256); die Spielzüge bleiben "
                                      "ungeschwärzt, damit das Paket ohne Netz wiederholt "
                                      "werden kann (docs/turns.md)."),
        campaign: Path | None = campaign_option(),
    ) -> None:
        """Die ganze Geschichte eines Segments (jeder archivierte Monat mit Seed, Bögen,
        Ereignissen und Manifest; die Zusammenfassung des jetzigen Stands) als ein
        JSON-Dokument; mit --archive das Archivpaket der ganzen Kampagne (docs/turns.md)."""
        if archive:
            if out is None:
                raise InvalidInputError("--archive schreibt eine Paketdatei: --out DATEI.tar angeben")
            from wdg.engine.export_archive import export_archive

            camp = open_campaign(campaign)
            load(camp, segment)
            index = export_archive(camp, segment, out, software=software)
            typer.echo(f"Archivpaket geschrieben: {out} ({len(index['files'])} Dateien, "
                       f"{len(index['months'])} Monate); prüfen: tar xf {out.name} && "
                       f"python3 -I wdg-archiv-{segment}/verify.py")
            if software:
                soft = index["software"]
                typer.echo(f"Software: {soft['wdg']['file']} (SHA-256 {soft['wdg']['sha256']}) "
                           f"und {len(soft['dependencies'])} Abhängigkeiten in software/wheels/; "
                           f"genau dieses Wheel hat ausgewertet: "
                           f"{', '.join(soft['exact_months']) or 'keinen Monat'}; "
                           "die Spielzüge sind NICHT geschwärzt")
                for month, made in soft["other_software"].items():
                    typer.echo(f"  {month}: ausgewertet mit {made} — für eine Wiederholung "
                               "das Wheel jener Version (docs/turns.md)")
                for month, other in soft["dependency_versions_differ"].items():
                    typer.echo(f"  {month}: mit anderen Versionen ausgewertet: "
                               + ", ".join(f"{k} {v}" for k, v in other.items()))
            return
        if software:
            raise InvalidInputError("--software gehört zu --archive (das Paket mit der Software)")
        if fmt != "json":
            raise InvalidInputError(f"unbekanntes Format {fmt!r}; erwartet 'json'")
        camp = open_campaign(campaign)
        load(camp, segment)
        text = json.dumps(export_history(camp, segment, month), ensure_ascii=False, indent=1,
                          sort_keys=True) + "\n"
        if out is None:
            typer.echo(text, nl=False)
        else:
            out.write_text(text, encoding="utf-8")
            typer.echo(f"Export geschrieben: {out}")
