"""Whole-month properties through the real runner (``wdg.engine.turn.run_month``).

Random small segments from the generator (``generate_segment``) get random
order sheets (``sheetgen``, Phase A, Phase B and K orders) for several months
in a row; every month is committed to a temporary campaign and must keep the
laws below. They are the seams between the month's steps: pay, K orders,
Phase A, movement, Phase B, combat, conquest, end of month.

- soldiers are conserved: recruited - dismissed - deserted - lost (+ handed
  over from a dismissed army) = change, from the events' data;
- every gemark that changed hands has exactly one winner event, and nobody
  won a gemark twice in a month;
- ``check_segment`` finds nothing (no army where its type may not stand ...);
- the ledger holds: treasury after = before + the sum of the events' gold;
- every order line of a used sheet is answered by an event of that kingdom;
- the archived month replays byte for byte.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sheetgen import sheet_text

from wdg.campaign import Campaign
from wdg.engine.events import EventLog
from wdg.engine.turn import MonthResult, replay_month, run_month
from wdg.orders.model import Sheet
from wdg.world.consistency import check_segment
from wdg.world.generator import generate_segment
from wdg.world.state import Segment
from wdg.store.segment import load_segment, save_segment

NAME = "probe"
OWNER_EVENTS = ("conquest.won", "mission.won", "gm.owner")
"""Events that give a gemark a new owner (the event's ``kingdom`` is the new one)."""


def new_campaign(root: Path, seed: int) -> Campaign:
    """A campaign with a small generated segment: 3 kingdoms, a city state."""
    seg, _ = generate_segment(NAME, 2, 2, 3, seed, city_states=1, armies_per_kingdom=4,
                              active_per_kingdom=3, creatures=3, demo_passwords=True)
    camp = Campaign(root)
    save_segment(seg, camp.segment_dir(NAME))
    return camp


def write_sheets(camp: Campaign, seg: Segment, rng: np.random.Generator) -> None:
    """Random sheets (with Phase B) for every playing kingdom of ``seg``'s month."""
    d = camp.orders_dir(seg.name, seg.date)
    d.mkdir(parents=True, exist_ok=True)
    for n, k in sorted(seg.kingdoms.items()):
        if k.player is not None and not k.city_state and not k.retired:
            text = sheet_text(seg, n, f"{seg.name}-{n}", rng, phase_b=True)
            (d / f"k{n}.txt").write_text(text, encoding="utf-8")


def order_lines(sheet: Sheet) -> list[int]:
    """The lines of every order and message of a sheet."""
    lines = [o.line for b in sheet.armies for o in (b.phase_a, b.phase_b) if o is not None]
    lines += [o.line for o in sheet.kingdom_orders]
    lines += [x.line for x in (*sheet.messages, *sheet.announcements)]
    return lines


# --- the laws -----------------------------------------------------------------------

def soldiers_conserved(before: Segment, after: Segment, log: EventLog) -> None:
    """Per army: change = sum of ``soldiers``; and by cause: recruited -
    dismissed - deserted - lost + handed over = change."""
    total: Counter[int] = Counter()
    cause: Counter[tuple[int, str]] = Counter()
    for e in log:
        if e.army is None or "soldiers" not in e.data:
            continue
        s = e.data["soldiers"]
        total[e.army] += s
        if "lost" in e.data:
            assert s == -e.data["lost"], e
            cause[e.army, "lost"] += e.data["lost"]
        elif e.kind == "pay.shortfall":
            assert s == -e.data["deserters"], e
            cause[e.army, "deserted"] += e.data["deserters"]
        elif e.kind.startswith("a.nr"):
            cause[e.army, "recruited"] += s
        elif e.kind == "a.eh.joined":
            cause[e.army, "joined"] += s
        else:
            assert e.kind.startswith(("a.er", "a.eh", "a.nh")), e
            cause[e.army, "dismissed"] -= s
    for n, a in after.armies.items():
        change = a.units - before.armies[n].units
        assert change == total[n], (n, change, total[n])
        assert change == (cause[n, "recruited"] + cause[n, "joined"] - cause[n, "dismissed"]
                          - cause[n, "deserted"] - cause[n, "lost"]), n
        assert a.units >= 0


def one_owner_per_gemark(before: Segment, after: Segment, log: EventLog) -> None:
    """A gemark changes hands only by one winner event, and to that winner."""
    won = [e for e in log if e.kind in OWNER_EVENTS]
    assert len({e.at for e in won}) == len(won), "a gemark won twice in one month"
    last = {e.at: e.kingdom or 0 for e in won}
    changed = np.argwhere(before.owner != after.owner)
    for r, c in changed:
        h = after.grid.hex_at(int(r), int(c))
        assert h in last, f"{after.label(h)} changed hands without an event"
        assert int(after.owner[r, c]) == last[h]


def ledger_holds(before: Segment, after: Segment, log: EventLog) -> None:
    """"Der Reichsschatz": every Goldstern is an event with ``gold``."""
    for n, k in after.kingdoms.items():
        assert k.treasury >= 0
        assert k.treasury == before.kingdoms[n].treasury + log.gold_total(n), n
    assert all(e.ledger for e in log if e.gold)


def every_order_answered(result: MonthResult) -> None:
    """Every order line of a used sheet has an event of that kingdom on that line."""
    for k, sheet in result.sheets.items():
        answered = {e.line for e in result.log if e.kingdom == k and e.line}
        silent = sorted(set(order_lines(sheet)) - answered)
        assert not silent, f"kingdom {k}: no event answers line(s) {silent}"


def run_and_check(camp: Campaign, segment: str) -> MonthResult:
    """Run the month through the runner and check every law."""
    before = load_segment(camp.segment_dir(segment))
    result = run_month(camp, segment, force=True)
    after = result.state
    soldiers_conserved(before, after, result.log)
    one_owner_per_gemark(before, after, result.log)
    ledger_holds(before, after, result.log)
    every_order_answered(result)
    assert check_segment(after) == []
    assert replay_month(camp, segment, result.date).ok
    return result


# --- the tests ------------------------------------------------------------------------

@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000))
def test_whole_months_keep_soldiers_owners_positions_ledger_and_replay(seed):
    """Three months of random sheets on a random small segment, through the real
    runner: every month keeps the laws of this module's docstring."""
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp:
        camp = new_campaign(Path(tmp), seed)
        kinds: set[str] = set()
        for _ in range(3):
            write_sheets(camp, load_segment(camp.segment_dir(NAME)), rng)
            kinds |= {e.kind for e in run_and_check(camp, NAME).log}
        assert {"pay.upkeep", "tax.gemarks", "action.rest"} <= kinds


def test_every_order_of_the_demo_month_reaches_its_player(tmp_path):
    """The demo month (worlds/canura, orders/canura/0412-04) through the runner:
    every order line is answered, and the month keeps every law."""
    from wdg.commands.demo import copy_demo

    camp = copy_demo(tmp_path / "demo")
    result = run_and_check(camp, "canura")
    assert sorted(result.sheets) == [1, 2, 3, 4, 5, 6]


def test_hostile_neighbours_fight_conquer_and_keep_every_law(tmp_path):
    """The stress preset (hostile neighbours at statuses 1-3 with armies on a
    front, wizards, fleets in harbour) at a small scale, with generated sheets
    for two months: battles, partisan fights and conquests really happen, and
    every law of this module still holds through the real runner."""
    from wdg.orders.generate import generate_sheets
    from wdg.world.stress import stress_segment

    seg, passwords = stress_segment(0.1, name=NAME)
    camp = Campaign(tmp_path)
    save_segment(seg, camp.segment_dir(NAME))
    rng = np.random.default_rng(5)
    kinds: Counter[str] = Counter()
    for _ in range(2):
        now = load_segment(camp.segment_dir(NAME))
        d = camp.orders_dir(NAME, now.date)
        d.mkdir(parents=True, exist_ok=True)
        for k, text in sorted(generate_sheets(now, rng, passwords).items()):
            (d / f"k{k}.txt").write_text(text, encoding="utf-8")
        kinds.update(e.kind.split(".")[0] for e in run_and_check(camp, NAME).log)
    assert kinds["combat"] > 0 and kinds["conquest"] > 0
    assert kinds["militia"] + kinds["partisan"] > 0
