"""``wdg map SEGMENT``: write the segment's map (or one kingdom's known map) as SVG."""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.campaign import Campaign, check_segment_name
from wdg.commands.common import campaign_option, load, open_campaign
from wdg.reports.maps import render_map_svg


def default_map_path(camp: Campaign, segment: str, kingdom: int | None) -> Path:
    """``reports/<segment>/map.svg`` or ``map-k<K>.svg``."""
    name = "map.svg" if kingdom is None else f"map-k{kingdom}.svg"
    return camp.root / "reports" / check_segment_name(segment) / name


def write_map(camp: Campaign, segment: str, kingdom: int | None = None,
              out: Path | None = None) -> Path:
    """Load ``segment`` from the campaign, render its map and write it; returns the file."""
    seg = load(camp, segment)
    target = out or default_map_path(camp, segment, kingdom)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_map_svg(seg, kingdom), encoding="utf-8")
    return target


def register(root: typer.Typer) -> None:
    """Add ``map`` to the root app."""

    @root.command("map")
    def map_command(
        segment: str = typer.Argument(..., help="Name des Segments."),
        kingdom: int = typer.Option(None, "--kingdom", "-k",
                                    help="Nur was dieses Königreich kennt (seine Erkundungskarte)."),
        out: Path = typer.Option(None, "--out", "-o",
                                 help="Ausgabedatei (sonst reports/<segment>/map.svg oder "
                                 "map-k<K>.svg)."),
        campaign: Path | None = campaign_option(),
    ) -> None:
        """Die Karte eines Segments als eigenständiges SVG schreiben."""
        path = write_map(open_campaign(campaign), segment, kingdom, out)
        typer.echo(f"Karte geschrieben: {path}")
