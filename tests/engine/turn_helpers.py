"""A small campaign on disk for the runner, archive, replay and undo tests."""

from __future__ import annotations

import functools

from pathlib import Path

import numpy as np

from wdg.campaign import Campaign
from wdg.world.calendar import MonthDate
from wdg.world.factory import add_army, add_kingdom, add_settlement, own, small_segment
from wdg.world.passwords import hash_password
from wdg.world.state import Building, TroopType
from wdg.store.segment import save_segment

NAME = "probe"
MAP = ["~K ~K ~K ~K ~K ~K ~K ~K", "T. Tw T. Tu B. T. T. T.", "T. T. G. T. T. T. T. T."]


@functools.cache
def _hashes() -> dict[int, str]:
    """The two kingdoms' password hashes, made once per session (scrypt: 0.1 s each)."""
    rng = np.random.default_rng(0)
    return {n: hash_password(f"pw-{n}", rng) for n in (1, 2)}


def make_campaign(root: Path, seed: int = 11) -> Campaign:
    """Two kingdoms with a harbour town each, armies, militia; saved under ``root``."""
    seg = small_segment(MAP, date=MonthDate(412, 4), seed=seed, name=NAME)
    hashes = _hashes()
    for n, town, land in ((1, "101.09", ("101.10", "101.17", "101.18")),
                          (2, "101.14", ("101.15", "101.22", "101.23"))):
        k = add_kingdom(seg, n, treasury=60_000, diplomacy={3 - n: 5})
        k.player.password_hash = hashes[n]
        add_settlement(seg, town, 250, name=f"Stadt{n}", kingdom=n, militia=3000,
                       buildings={Building.KASERNE: 1, Building.HAFEN: 1, Building.PALAST: 1})
        own(seg, n, *land)
        add_army(seg, n * 100 + 1, n, town, units=800)
        add_army(seg, n * 100 + 2, n, None, troop=TroopType.REITER)
        add_army(seg, n * 100 + 3, n, town, troop=TroopType.SCHIFFE, units=3)
    seg.militia[seg.militia == 0] = 200
    camp = Campaign(root)
    save_segment(seg, camp.segment_dir(NAME))
    return camp


def write_sheet(camp: Campaign, month: MonthDate, kingdom: int, body: str,
                password: str | None = None) -> Path:
    """Write ``orders/<segment>/<YYYY-MM>/k<n>.txt`` with a header."""
    d = camp.orders_dir(NAME, month)
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"k{kingdom}.txt"
    pw = password if password is not None else f"pw-{kingdom}"
    p.write_text(f"Segment: {NAME}\nKönigreich: {kingdom}\nPasswort: {pw}\n{body}",
                 encoding="utf-8")
    return p


def standard_sheets(camp: Campaign, month: MonthDate) -> None:
    """Both kingdoms' sheets for the first month: recruiting, building, a festival."""
    write_sheet(camp, month, 1, "H\nHeer 0101 101.09\nA: nr 200\nHeer 0102 000.00\n"
                "K\nSS 101.17 50\n")
    write_sheet(camp, month, 2, "H\nHeer 0201 101.14\nA: er 100\nK\nF+ 2000\n")


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}
