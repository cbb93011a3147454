"""The small segment of the fetch tests: kingdom n played from the test mail
server's account ``players[n-1]`` with password ``geheim-n``."""

from __future__ import annotations

from wdg.world.factory import add_army, add_kingdom, add_settlement, own, small_segment
from wdg.world.passwords import hash_password
from wdg.world.state import Building

MAP = [
    "~K ~K ~K ~K ~K ~K ~K ~K",
    "Tw T. T. Hv T. T. T. T.",
    "T. T. T. T. T. T. T. T.",
]


def make_segment(world, name: str = "test"):
    seg = small_segment(MAP, name=name)
    for n, player in enumerate(world.players, start=1):
        k = add_kingdom(seg, n, email=player.address)
        k.player.password_hash = hash_password(f"geheim-{n}")
    add_settlement(seg, "101.10", 150, name="Hafenburg", kingdom=1,
                   buildings={Building.KASERNE: 1, Building.HAFEN: 1, Building.PALAST: 1})
    own(seg, 1, "101.09", "101.11")
    add_army(seg, 101, 1, "101.10", units=500)
    return seg
