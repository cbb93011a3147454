"""Final scoring of 4 Gods ("Göttlichen Einfluss berechnen"), four steps in
order: Legendäre Städte, Propheten und Königreiche, die größten Königreiche
der Götter, die meisten Königreiche der Götter.

Points are kept per god (prophet colour): in every mode but the two-player
game with four gods a player owns one god, so the god's points are the
player's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from wdg.games.four_gods.world import Kingdom, Member, World

CITY_POINTS = 5
"""Per city with an own prophet and per destroyed city."""
RANK_POINTS = (15, 10, 5)
"""Largest / most kingdoms: first, second, third place."""


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Points per god for each of the four steps."""

    cities: tuple[int, int, int, int]
    prophets: tuple[int, int, int, int]
    largest: tuple[int, int, int, int]
    most: tuple[int, int, int, int]

    def total(self, god: int) -> int:
        """All points of one god."""
        return self.cities[god] + self.prophets[god] + self.largest[god] + self.most[god]


def rank_points(values: Mapping[int, int]) -> dict[int, int]:
    """15/10/5 for the highest values; ties add the places' points and share
    them, rounded down ("addiert ihr die Punkte der beiden Plätze und teilt
    diese ... Das Ergebnis wird abgerundet"). Only values above zero rank."""
    return dict(_ranked(tuple(values.items())))


@lru_cache(maxsize=65536)
def _ranked(values: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """:func:`rank_points` on ``(god, value)`` pairs (remembered: few
    distinct rankings occur)."""
    out = {g: 0 for g, _ in values}
    place = 0
    for v in sorted({v for _, v in values if v > 0}, reverse=True):
        tied = [g for g, x in values if x == v]
        pts = sum(RANK_POINTS[i] for i in range(place, place + len(tied)) if i < len(RANK_POINTS))
        for g in tied:
            out[g] = pts // len(tied)
        place += len(tied)
    return tuple(out.items())


def city_points(cities: Mapping[int, int], destroyed: Mapping[int, int]) -> list[int]:
    """5 per city carrying the god's prophet, 5 per city the god destroyed.
    ``cities``: cell -> god (-1: a city just built whose prophet is not set
    yet, which carries no god and scores for none); ``destroyed``: god ->
    number of cities."""
    pts = [0, 0, 0, 0]
    for god in cities.values():
        if god >= 0:
            pts[god] += CITY_POINTS
    for god, n in destroyed.items():
        pts[god] += CITY_POINTS * n
    return pts


def prophet_points(kingdoms: Iterable[Kingdom], prophets: Mapping[int, tuple[int, Member]]) -> list[int]:
    """Each kingdom: the colour(s) with the most prophets in it score its
    tiles without a prophet in it; prophets outside kingdoms score nothing.
    ``prophets``: cell -> (god, (cell, region))."""
    where: dict[Member, int] = {}
    kingdoms = list(kingdoms)
    for i, k in enumerate(kingdoms):
        for m in k.members:
            where[m] = i
    counts: list[dict[int, int]] = [{} for _ in kingdoms]
    occupied: list[set[int]] = [set() for _ in kingdoms]
    for god, member in prophets.values():
        at = where.get(member)
        if at is not None:
            counts[at][god] = counts[at].get(god, 0) + 1
            occupied[at].add(member[0])
    pts = [0, 0, 0, 0]
    for k, cnt, occ in zip(kingdoms, counts, occupied):
        if not cnt:
            continue
        top = max(cnt.values())
        for god, n in cnt.items():
            if n == top:
                pts[god] += k.size - len(occ)
    return pts


def largest_points(kingdoms: Iterable[Kingdom], gods: Iterable[int]) -> list[int]:
    """Rank the gods in play by the size of the largest kingdom of their
    terrain."""
    kingdoms = list(kingdoms)
    sizes = {g: max((k.size for k in kingdoms if k.terrain == g), default=0) for g in gods}
    ranked = rank_points(sizes)
    return [ranked.get(g, 0) for g in range(4)]


def most_points(kingdoms: Iterable[Kingdom], gods: Iterable[int]) -> list[int]:
    """Rank the gods in play by the number of kingdoms of their terrain."""
    kingdoms = list(kingdoms)
    counts = {g: sum(1 for k in kingdoms if k.terrain == g) for g in gods}
    ranked = rank_points(counts)
    return [ranked.get(g, 0) for g in range(4)]


def score(kingdoms: list[Kingdom], cities: Mapping[int, int], destroyed: Mapping[int, int],
          prophets: Mapping[int, tuple[int, Member]], gods: Iterable[int]) -> Breakdown:
    """The four scoring steps for the gods in play."""
    gods = sorted(set(gods))

    def t(x: list[int]) -> tuple[int, int, int, int]:
        return (x[0], x[1], x[2], x[3])
    return Breakdown(t(city_points(cities, destroyed)), t(prophet_points(kingdoms, prophets)),
                     t(largest_points(kingdoms, gods)), t(most_points(kingdoms, gods)))


def score_world(world: World, cities: Mapping[int, int], destroyed: Mapping[int, int],
                prophets: Mapping[int, tuple[int, Member]], gods: Iterable[int]) -> Breakdown:
    """:func:`score` on ``world``'s kingdoms, from the areas the world keeps
    up to date (no search over the whole world)."""
    gods = sorted(set(gods))
    pts = [0, 0, 0, 0]
    if prophets:
        kingdom_of = world.kingdom_of
        counts: dict[int, dict[int, int]] = {}
        occupied: dict[int, set[int]] = {}
        sizes: dict[int, int] = {}
        for god, member in prophets.values():
            hit = kingdom_of(member)
            if hit is None:
                continue
            i = hit[0]
            cnt = counts.get(i)
            if cnt is None:
                cnt = counts[i] = {}
                occupied[i] = set()
                sizes[i] = hit[1]
            cnt[god] = cnt.get(god, 0) + 1
            occupied[i].add(member[0])
        for i, cnt in counts.items():
            top = max(cnt.values())
            for god, n in cnt.items():
                if n == top:
                    pts[god] += sizes[i] - len(occupied[i])
    largest, number = world.kingdom_stats()
    big = dict(_ranked(tuple((g, largest[g]) for g in gods)))
    many = dict(_ranked(tuple((g, number[g]) for g in gods)))
    c = city_points(cities, destroyed)
    return Breakdown((c[0], c[1], c[2], c[3]), (pts[0], pts[1], pts[2], pts[3]),
                     (big.get(0, 0), big.get(1, 0), big.get(2, 0), big.get(3, 0)),
                     (many.get(0, 0), many.get(1, 0), many.get(2, 0), many.get(3, 0)))
