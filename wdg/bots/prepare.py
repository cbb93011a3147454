"""The bots' part of a month's run, light to import: :func:`npc_sheet_lines` imports
the bots' code only when the segment has a bot kingdom."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wdg.campaign import Campaign
    from wdg.world.state import Segment


def npc_sheet_lines(camp: Campaign, seg: Segment) -> list[str]:
    """Bot kingdoms without a sheet get one written by their bot (docs/bots.md):
    the German lines saying what each bot did (the caller prints them, or puts
    them into its ``--json`` document: ``wdg mail run --json`` prints one JSON
    document only). Called by the month's run with the segment it loaded, under
    its lock. Without a bot kingdom the bots' code is not even imported."""
    if not any(k.bot for k in seg.kingdoms.values()):
        return []
    from wdg.bots.npc import write_npc_sheets  # lazy: the bots' code only for a bot kingdom (above)

    return [f"Bot {s.bot} (Königreich {s.kingdom}): "
            + (f"Spielzug {s.path.name} geschrieben" if s.written else s.note)
            for s in write_npc_sheets(camp, seg)]
