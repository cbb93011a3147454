"""``wdg demo --out DIR``: run the shipped demo campaign in a fresh directory.

The steps are plain library calls, one after the other, so that later parts
of the month (check the order sheets, run the month, render the result
sheets, replay) can be appended here:

1. copy the demo campaign (``worlds/canura/``, ``worlds/rules/``,
   ``orders/canura/`` and ``templates/`` when present) from the checkout into
   DIR, replacing an earlier demo output there;
2. load the segment and print its status;
3. write its map to ``DIR/reports/canura/map.svg``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import typer

from wdg.campaign import PACKAGE_ROOT, Campaign
from wdg.commands.map import write_map
from wdg.errors import StateError
from wdg.reports.status import render_status
from wdg.world.storage import load_segment

DEMO_SEGMENT = "canura"
DEMO_PARTS = ("worlds/canura", "worlds/rules", "orders/canura", "templates")


def copy_demo(out: Path, source: Path = PACKAGE_ROOT) -> Campaign:
    """Copy the demo campaign from ``source`` into a fresh ``out``."""
    out = out.resolve()
    if out == source.resolve() or source.resolve().is_relative_to(out):
        raise StateError(f"refusing to replace {out}: it holds the checkout itself")
    if not (source / "worlds" / DEMO_SEGMENT).is_dir():
        raise StateError(f"the demo segment is missing in {source / 'worlds' / DEMO_SEGMENT}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for part in DEMO_PARTS:
        src = source / part
        if src.is_dir():
            shutil.copytree(src, out / part, ignore=shutil.ignore_patterns("__pycache__"))
    return Campaign(out)


def register(root: typer.Typer) -> None:
    """Add ``demo`` to the root app."""

    @root.command("demo")
    def demo(out: Path = typer.Option(Path("out/demo"), "--out", "-o",
                                      help="Directory for the demo run (replaced).")) -> None:
        """Run the shipped demo campaign (worlds/canura) in a fresh directory."""
        camp = copy_demo(out)
        typer.echo(f"Demo-Kampagne kopiert nach {camp.root}")
        seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
        typer.echo(render_status(seg), nl=False)
        path = write_map(camp, DEMO_SEGMENT)
        typer.echo(f"Karte geschrieben: {path}")
