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
- :mod:`wdg.office.players`: one person across segments, disqualified in all
  of them (``wdg world players``, ``wdg world disqualify``);
- :mod:`wdg.office.mailbox`: one mailbox for the world (``wdg mail run --all``,
  ``wdg mail watch --all``).

See docs/world.md.
"""

from __future__ import annotations

from pathlib import Path

from wdg.campaign import Campaign, check_segment_name


def segment_names(camp: Campaign) -> list[str]:
    """The campaign's segments (``worlds/<name>/segment.yaml``), sorted by name;
    directories whose name is not a segment name (``rules``, hidden ones) are not."""
    if not camp.worlds.is_dir():
        return []
    out = []
    for p in sorted(camp.worlds.iterdir()):
        if p.name == "rules" or not (p / "segment.yaml").is_file():
            continue
        try:
            out.append(check_segment_name(p.name))
        except ValueError:
            continue
    return out


def campaign_root(camp: Campaign) -> Path:
    """The campaign directory as workers must see it (absolute)."""
    return camp.root.resolve()
