"""A world of four small segments on disk for the ``wdg world`` tests.

``nord``, ``ost``, ``sued`` and ``west`` have two kingdoms each (a harbour
town, land, armies) and their sheets for the first month; ``nord`` has a third
kingdom at war with the first (a battle, a ruler's announcement, a private
message, the game master's announcement: see :func:`make_segment`). The deadline of
``nord``, ``ost`` and ``sued`` has passed; ``west``'s lies in 2099. One person,
:data:`WANDERER`, rules kingdom 1 in ``nord`` and kingdom 2 in ``ost``.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import numpy as np

from wdg.campaign import Campaign
from wdg.world.calendar import MonthDate
from wdg.world.deadline import set_deadline
from wdg.world.factory import add_army, add_kingdom, add_settlement, own, small_segment
from wdg.world.passwords import hash_password
from wdg.world.state import Building, TroopType
from wdg.store.segment import save_segment

SEGMENTS = ("nord", "ost", "sued", "west")
DUE = ("nord", "ost", "sued")
MONTH = MonthDate(412, 4)
WANDERER = "wanderer@example.org"
MAP = ["~K ~K ~K ~K ~K ~K ~K ~K", "T. Tw T. Tu B. T. T. T.", "T. T. G. T. T. T. T. T."]


@functools.cache
def _hashes() -> dict[int, str]:
    rng = np.random.default_rng(0)
    return {n: hash_password(f"pw-{n}", rng) for n in (1, 2, 3)}


def email(segment: str, kingdom: int) -> str:
    """The e-mail of the player of ``kingdom`` in ``segment``."""
    if (segment, kingdom) in (("nord", 1), ("ost", 2)):
        return WANDERER
    return f"{segment}{kingdom}@example.org"


SECRET = "Geheimer Plan gegen den Norden"
"""The text of a private message (``BOTSCHAFT``) in ``nord``: it must never reach the MBW."""


def make_segment(camp: Campaign, name: str, seed: int, deadline: str, *,
                 three: bool = False) -> None:
    """One segment of the world, saved, with its first month's sheets. ``three``:
    a third kingdom, at war with kingdom 1, its army on kingdom 1's town (a
    battle in the first month), announcements of the game master and a ruler."""
    seg = small_segment(MAP, date=MONTH, seed=seed, name=name)
    kingdoms = [(1, "101.09", ("101.10", "101.17", "101.18")),
                (2, "101.14", ("101.15", "101.22", "101.23"))]
    if three:
        kingdoms.append((3, "101.12", ("101.11", "101.19", "101.20")))
    for n, town, land in kingdoms:
        diplomacy = {o: 5 for o, _, _ in kingdoms if o != n}
        if three and n in (1, 3):
            diplomacy[4 - n] = 1  # verfeindet
        k = add_kingdom(seg, n, name=f"{name.capitalize()}reich {n}", treasury=60_000 + 1234 * n,
                        diplomacy=diplomacy, email=email(name, n))
        k.player.password_hash = _hashes()[n]
        add_settlement(seg, town, 250, name=f"Stadt{n}", kingdom=n, militia=3000,
                       buildings={Building.KASERNE: 1, Building.HAFEN: 1, Building.PALAST: 1})
        own(seg, n, *land)
        add_army(seg, n * 100 + 1, n, town, units=800 + 7 * n)
        add_army(seg, n * 100 + 2, n, None, troop=TroopType.REITER)
        add_army(seg, n * 100 + 3, n, town, troop=TroopType.SCHIFFE, units=3)
    if three:
        add_army(seg, 304, 3, "101.09", units=2500)
    seg.militia[seg.militia == 0] = 200
    set_deadline(seg, deadline)
    save_segment(seg, camp.segment_dir(name))
    d = camp.orders_dir(name, MONTH)
    d.mkdir(parents=True, exist_ok=True)
    bodies = {1: "H\nHeer 0101 101.09\nA: nr 200\nHeer 0102 000.00\nK\nSS 101.17 50\n",
              2: "H\nHeer 0201 101.14\nA: er 100\nK\nF+ 2000\n",
              3: f"H\nHeer 0301 101.12\nK\nBOTSCHAFT 2\n{SECRET}\nENDE\n"
                 "BEKANNTMACHUNG\nDer Norden wird fallen.\nENDE\n"}
    for n, *_ in kingdoms:
        (d / f"k{n}.txt").write_text(f"Segment: {name}\nKönigreich: {n}\nPasswort: pw-{n}\n"
                                     f"{bodies[n]}", encoding="utf-8")
    if three:
        (d / "sl.txt").write_text("SEGMENTLEITER\nANKUENDIGUNG\nIm Norden wird gekämpft.\n"
                                  "ENDE\n", encoding="utf-8")


def make_world(root: Path) -> Campaign:
    """The four segments under ``root`` (see the module)."""
    camp = Campaign(root)
    for i, name in enumerate(SEGMENTS):
        make_segment(camp, name, 11 + i, "2099-01-05 13:00" if name == "west"
                     else "2026-01-05 13:00", three=name == "nord")
    return camp


def world_copy(template: Path, dest: Path) -> Campaign:
    """A fresh copy of the world ``template`` (conftest's ``world_template``)."""
    shutil.copytree(template, dest)
    return Campaign(dest)


def tree_bytes(root: Path, *skip: str) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes) but locks, logs and ``skip``."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and p.name != ".lock" and "/mail/log/" not in f"/{rel}" \
                and not any(rel.startswith(s) for s in skip):
            out[rel] = p.read_bytes()
    return out
