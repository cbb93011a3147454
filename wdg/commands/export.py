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
            index = export_archive(camp, segment, out)
            typer.echo(f"Archivpaket geschrieben: {out} ({len(index['files'])} Dateien, "
                       f"{len(index['months'])} Monate); prüfen: tar xf {out.name} && "
                       f"python3 -I wdg-archiv-{segment}/verify.py")
            return
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
