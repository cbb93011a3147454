"""The segment generator: a deterministic, playable start (issue #2, item 6)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wdg.world.generator import generate_segment
from wdg.world.neighbours import neighbour_values
from wdg.world.passwords import verify_password
from wdg.world.state import TroopType
from wdg.store.segment import load_segment, save_segment, segments_equal
from wdg.world.terrain import HEIGHTS, WATER, BY_NAME, coastal_mask


@pytest.fixture(scope="module")
def demo():
    return generate_segment("canura", 4, 3, 6, 412, demo_passwords=True, capital_radius=2)


def test_the_same_seed_gives_the_same_bytes_but_new_passwords(tmp_path: Path) -> None:
    """The same seed gives the same world byte for byte; the passwords (and so
    their hashes) come from the operating system's CSPRNG, never from the seed
    (issue #30). Known demo passwords keep the whole segment byte-identical."""
    plain = []
    for d in ("a", "b", "demo-a", "demo-b"):
        seg, pw = generate_segment("probe", 3, 2, 4, 99, demo_passwords=d.startswith("demo"))
        save_segment(seg, tmp_path / d)
        plain.append(pw)
    assert not set(plain[0].values()) & set(plain[1].values())
    for a, b in (("a", "b"), ("demo-a", "demo-b")):
        files = sorted(p.name for p in (tmp_path / a).iterdir())
        assert files == sorted(p.name for p in (tmp_path / b).iterdir())
        for f in files:
            x, y = (tmp_path / a / f).read_bytes(), (tmp_path / b / f).read_bytes()
            if f == "SHA256SUMS" and a == "a":
                continue  # the hash list names kingdoms.yaml's hash, which differs
            if f == "kingdoms.yaml" and a == "a":
                assert x != y
                x, y = (b"\n".join(line for line in z.splitlines() if b"password_hash" not in line)
                        for z in (x, y))
            assert x == y, f


def test_a_different_seed_gives_a_different_map() -> None:
    a, _ = generate_segment("probe", 3, 2, 4, 1)
    b, _ = generate_segment("probe", 3, 2, 4, 2)
    assert not np.array_equal(a.terrain, b.terrain)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_neighbouring_land_differs_by_at_most_one_height_level(seed: int) -> None:
    """"Ein Heer kann, wenn es die Höhenstufe wechselt, immer nur Gemarken der direkt
    darüber- oder darunterliegende Höhenstufe betreten": the generated land keeps
    every step passable, and every land gemark touching water is lowland."""
    seg, _ = generate_segment("probe", 2, 2, 2, seed, city_states=0, creatures=1)
    h = HEIGHTS[seg.terrain].astype(int)
    nb = neighbour_values(h, -1)
    on_map = nb >= 0
    assert (np.abs(nb - h)[on_map] <= 1).all()
    water = WATER[seg.terrain]
    touches_water = neighbour_values(water, False).any(axis=0)
    assert (h[touches_water & ~water] == 1).all()


def test_the_map_edge_is_sea(demo) -> None:
    seg, _ = demo
    edge = np.concatenate([seg.terrain[0], seg.terrain[-1], seg.terrain[:, 0], seg.terrain[:, -1]])
    assert WATER[edge].all()


def test_every_kingdom_starts_with_a_dorf_with_kaserne_and_palast(demo) -> None:
    """"Die Siedlung": a Dorf has 300-399 Baueinheiten."""
    seg, _ = demo
    for k in range(1, 7):
        palace = (seg.owner == k) & (seg.buildings[2] > 0)
        assert palace.sum() == 1
        r, c = np.argwhere(palace)[0]
        assert 300 <= seg.settlement[r, c] <= 399
        assert seg.buildings[1, r, c] == 1
        assert seg.settlement_names[seg.grid.hex_at(r, c)]
        assert 7 <= (seg.owner == k).sum() <= 19


def test_capitals_are_far_apart(demo) -> None:
    seg, _ = demo
    caps = [seg.grid.hex_at(*np.argwhere((seg.owner == k) & (seg.settlement > 0))[0])
            for k in seg.kingdoms]
    assert min(a.distance(b) for i, a in enumerate(caps) for b in caps[i + 1:]) >= 5


def test_at_least_one_coastal_kingdom_has_a_hafen(demo) -> None:
    """Fleets can only be activated where there is a Hafen ("Das Heer")."""
    seg, _ = demo
    hafen = seg.buildings[0] > 0
    assert hafen.any()
    assert coastal_mask(seg.terrain)[hafen].all()


def test_city_states_have_no_player_and_no_armies(demo) -> None:
    seg, _ = demo
    cities = [k for k in seg.kingdoms.values() if k.city_state]
    assert [k.number for k in cities] == [7, 8]
    assert all(k.player is None for k in cities)
    assert not any(a.kingdom in (7, 8) for a in seg.armies.values())


def test_every_kingdom_has_an_active_warrior_army_at_its_capital_and_generals(demo) -> None:
    """"Der Feldherr": an army can only be activated with a general, so every
    kingdom starts with generals on its passive armies and one offered."""
    seg, _ = demo
    for k in range(1, 7):
        first = seg.armies[k * 100 + 1]
        assert first.is_active and first.troop is TroopType.KRIEGER
        assert 900 <= first.units <= 1100
        r, c = seg.grid.index(first.position)
        assert seg.buildings[2, r, c] == 1
        passive = [a for a in seg.armies.values() if a.kingdom == k and not a.is_active]
        assert passive and all(a.general and a.position is None for a in passive)
        assert seg.kingdoms[k].offer is not None


def test_demo_passwords_match_the_stored_hashes_and_are_not_stored_plain(demo, tmp_path) -> None:
    seg, passwords = demo
    assert passwords == {k: f"canura-{k}" for k in range(1, 7)}
    for k, pw in passwords.items():
        assert verify_password(pw, seg.kingdoms[k].player.password_hash)
        assert not verify_password("falsch", seg.kingdoms[k].player.password_hash)
    save_segment(seg, tmp_path / "canura")
    for f in (tmp_path / "canura").iterdir():
        assert b"canura-1" not in f.read_bytes()


def test_militia_lives_on_land_only_and_is_about_a_tenth_of_the_cap(demo) -> None:
    seg, _ = demo
    water = WATER[seg.terrain]
    assert (seg.militia[water] == 0).all()
    plain = (seg.terrain == BY_NAME["Tiefland"].id) & (seg.settlement == 0)
    assert ((seg.militia[plain] >= 2000) & (seg.militia[plain] <= 4000)).all()


def test_known_maps_cover_the_own_realm(demo) -> None:
    seg, _ = demo
    for k, known in seg.known.items():
        own = seg.owner == k
        assert (known.terrain[own] == seg.terrain[own]).all()
        assert (known.seen[own] == seg.date.ordinal).all()
        assert (known.seen[~own] == 0).sum() > 0


def test_stress_size_generates_and_round_trips(tmp_path: Path) -> None:
    seg, pw = generate_segment("stress", 20, 9, 60, 7, city_states=4, armies_per_kingdom=50,
                               active_per_kingdom=50, creatures=40)
    armies = seg.armies.values()
    assert seg.grid.size == 8640 and len(seg.kingdoms) == 64 and len(pw) == 60
    assert sum(a.is_active for a in armies) == 3000
    assert {a.troop for a in armies} == set(TroopType)
    assert any(a.carried_by for a in armies)
    assert any(a.is_fleet and WATER[seg.at(seg.terrain, a.position)] for a in armies)
    assert len(seg.creatures) == 40
    save_segment(seg, tmp_path / "stress")
    assert segments_equal(load_segment(tmp_path / "stress"), seg)
