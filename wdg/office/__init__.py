"""The office of a game master with many segments of Canura (``wdg world``).

The rule book: "Irgendwo und irgendwann liegt die Welt Canura. Sie ist
unterteilt in mehrere Teile, die Segmente genannt werden." A campaign
directory holds any number of segments (``worlds/<segment>/``); this package
treats them as one world:

- :mod:`wdg.office.status`: every segment's month, deadline, sheets, blockers,
  last run and mail state (``wdg world status``);
- :mod:`wdg.office.run`: every segment whose deadline has passed, each under
  its own lock, on a local process pool or a Dask cluster (``wdg world run``);
- :mod:`wdg.office.mbw`: the Mitteilungsblatt of the world (``wdg world mbw``);
- :mod:`wdg.office.roster`: one person across segments, disqualified in all
  of them (``wdg world players``, ``wdg world disqualify``);
- :mod:`wdg.office.mailrun`: one mailbox for the world (``wdg mail run --all``,
  ``wdg mail watch --all``).

See docs/world.md.
"""

from __future__ import annotations

from pathlib import Path

from wdg.campaign import Campaign, segment_names

__all__ = ["campaign_root", "segment_names"]  # segment_names lives in wdg.campaign: mail uses it too


def campaign_root(camp: Campaign) -> Path:
    """The campaign directory as workers must see it (absolute)."""
    return camp.root.resolve()
