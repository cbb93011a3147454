"""Helpers shared by the CLI modules: the campaign option, loading and saving."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from wdg.campaign import Campaign
from wdg.errors import StateError
from wdg.world.state import Segment
from wdg.store.segment import load_segment, save_segment

CAMPAIGN_HELP = ("Kampagnenverzeichnis (mit worlds/, orders/, reports/); sonst $WDG_CAMPAIGN, "
                 "sonst das aktuelle Verzeichnis.")


def campaign_option() -> Path | None:
    """The ``--campaign/-C`` option (use as a parameter default)."""
    return typer.Option(None, "--campaign", "-C", help=CAMPAIGN_HELP, show_default=False)


def open_campaign(path: Path | None) -> Campaign:
    """The campaign at ``path`` (or the default)."""
    return Campaign.locate(path)


def load(camp: Campaign, segment: str) -> Segment:
    """Load a segment of the campaign, with a clear message when it is missing."""
    return load_segment(existing_segment_dir(camp, segment))


def existing_segment_dir(camp: Campaign, segment: str) -> Path:
    """The segment's directory, with a clear message when it is missing."""
    d = camp.segment_dir(segment)
    if not (d / "segment.yaml").is_file():
        names = sorted(p.parent.name for p in camp.worlds.glob("*/segment.yaml")) \
            if camp.worlds.is_dir() else []
        raise StateError(
            f"kein Segment {segment!r}: das Verzeichnis {d} fehlt oder hat keine segment.yaml"
            + (f"; Segmente dort: {', '.join(names)}" if names
               else "; ein neues legt 'wdg segment new' an")
        )
    return d


@contextmanager
def locked(camp: Campaign, segment: str) -> Iterator[Segment]:
    """The segment, loaded while holding its lock (``worlds/<segment>/.lock``, the
    one ``wdg turn run`` holds): a change made between months cannot slip into a
    running month and be overwritten by its commit, nor be refused after it."""
    from wdg.store.lock import segment_lock

    with segment_lock(existing_segment_dir(camp, segment)):
        yield load(camp, segment)


def save(camp: Campaign, seg: Segment) -> None:
    """Save a segment back into the campaign (atomically)."""
    save_segment(seg, camp.segment_dir(seg.name))
