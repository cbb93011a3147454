"""The three games end as their books say, measured on seeded batches (the
figures of docs/games.md, on fewer games so that the test stays short)."""

from __future__ import annotations

from typing import Any

import pytest

from wdg.games.batch import GameSummary, run_batch
from wdg.games.stats import summarize


def _info(r: GameSummary) -> dict[str, Any]:
    return dict(r.info)


@pytest.mark.slow
def test_lords_of_creation_full_knowledge_ends_only_with_the_last_seven_cards() -> None:
    """5.1 with the random end kept: "sobald alle Spieler ihre letzten sieben
    Karten auf der Hand haben" — no game ends before a counter is placed,
    every end by identical cards comes with at most seven cards in each hand
    (six left after the card just played), and both ends occur."""
    res = run_batch("lords_of_creation", {"players": 4, "full_knowledge": True}, ["random"] * 4, 300, 19)
    ends = [_info(r)["end"] for r in res]
    assert all(_info(r)["counters"] > 0 and _info(r)["rounds"] >= 4 for r in res)
    sudden = [r for r in res if _info(r)["end"] == "gleiche Karten bei leerem Stapel"]
    assert sudden and all(_info(r)["cards_left_max"] <= 6 for r in sudden)
    assert "alle Karten gespielt" in ends


@pytest.mark.slow
def test_empires_ends_by_the_exhausted_deck_with_armies_on_the_table() -> None:
    """"Gewonnen hat, wer am Ende des verdeckten Kartenstapels das größte
    Imperium beeinflußt": greedy games end by the exhausted deck, with armies
    on the table and few full ties; random games too end by the deck."""
    res = run_batch("empires_of_middle_earth", {"players": 4}, ["greedy"] * 4, 30, 19)
    s = summarize(res, {})
    assert s["ending"]["causes"].get("deck exhausted", 0) >= 27
    assert s["full_ties"] <= 2
    assert s["ending"]["means"]["armies"] >= 5
    assert all(_info(r)["armies"] > 0 for r in res)
    rnd = summarize(run_batch("empires_of_middle_earth", {"players": 4}, ["random"] * 4, 200, 19), {})
    assert rnd["ending"]["causes"].get("deck exhausted", 0) >= 170


@pytest.mark.slow
def test_four_gods_fills_the_world_and_ends_by_the_empty_bag() -> None:
    """"Der Beutel mit den Geländeplättchen ist leer" is the usual end; "Alle
    Spieler passen ... Dies wird nur in sehr seltenen Fällen geschehen."
    Greedy games fill most of the world and end by the empty bag."""
    res = run_batch("four_gods", {"players": 4}, ["greedy"] * 4, 6, 19)
    s = summarize(res, {})
    assert s["ending"]["causes"].get("bag empty", 0) >= 5
    assert s["ending"]["means"]["fill"] >= 0.55
