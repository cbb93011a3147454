"""``wdg kingdom``: registering kingdoms and players, changes, retirement.

Rules: "Das Königreich", "Der Stadtstaat", "Die Kontakte zwischen Herrschern".
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wdg.cli import app
from wdg.errors import WdgError
from wdg.world import admin
from wdg.world.factory import add_army, add_kingdom, own, small_segment
from wdg.world.passwords import verify_password
from wdg.world.state import Contact
from wdg.store.segment import save_segment


def _seg():
    seg = small_segment(["T. T. T. T. T. T. T. T."] * 6, prov_cols=2)
    add_kingdom(seg, 1, diplomacy={2: 7})
    add_kingdom(seg, 2, diplomacy={1: 3})
    own(seg, 1, (0, 0), (1, 0))
    own(seg, 2, (15, 5))
    add_army(seg, 101, 1, (0, 0))
    return seg


def _files(d: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.iterdir()) if p.is_file()}


def test_a_new_kingdom_gets_a_free_start_a_settlement_and_armies():
    seg = _seg()
    k, plain, cap = admin.add_new_kingdom(seg, name="Nordmark", ruler="Ulf", email="ulf@example.org")
    assert k.number == 3 and verify_password(plain, k.player.password_hash)
    assert seg.at(seg.owner, cap) == 3 and seg.at(seg.settlement, cap) >= 300
    assert min(cap.distance(seg.grid.hex_at(0, 0)), cap.distance(seg.grid.hex_at(5, 15))) >= 4
    mine = [a for a in seg.armies.values() if a.kingdom == 3]
    assert sum(a.is_active for a in mine) == 1 and len(mine) == 3


def test_a_hundredth_kingdom_is_refused_with_the_reason_and_nothing_changes():
    """An army's number has four digits, kingdom x 100 + 1..99 (docs/storage.md, the
    generator's caps): kingdom number 100 cannot exist, and ``wdg kingdom add`` says so
    instead of writing five-digit army numbers."""
    seg = _seg()
    add_kingdom(seg, 99, city_state=True)
    before = (dict(seg.kingdoms), dict(seg.armies), seg.owner.copy())
    with pytest.raises(WdgError, match="höchstens 99 Reiche"):
        admin.add_new_kingdom(seg, name="Zuviel", ruler="Z", email="z@example.org")
    assert (seg.kingdoms, seg.armies) == before[:2] and (seg.owner == before[2]).all()


def test_a_new_kingdom_on_owned_gemarks_is_refused():
    seg = _seg()
    with pytest.raises(WdgError, match="gehört schon Reich 1"):
        admin.add_new_kingdom(seg, name="X", ruler="Y", email="y@example.org", at=[seg.grid.hex_at(0, 0)])
    assert 3 not in seg.kingdoms


def test_the_contact_status_can_be_changed_at_any_time():
    """Kontakte: "Der jeweilige Kontaktstatus ... kann jederzeit geändert werden"."""
    seg = _seg()
    admin.set_player(seg, 1, contact="geheim", email="neu@example.org")
    assert seg.kingdoms[1].player.contact is Contact.SECRET
    assert seg.kingdoms[1].player.email == "neu@example.org"
    with pytest.raises(WdgError, match="keine E-Mail-Adresse"):
        admin.set_player(seg, 1, email="kaputt")


def test_retiring_to_a_city_state_removes_armies_and_diplomacy():
    """Stadtstaaten: "verfügen nicht über Heere"; "Zu Stadtstaaten können keine
    diplomatischen Beziehungen aufgenommen werden"."""
    seg = _seg()
    admin.retire(seg, 1, "stadtstaat")
    assert seg.kingdoms[1].city_state and not seg.armies
    assert seg.kingdoms[2].diplomacy == {} and seg.kingdoms[1].diplomacy == {}
    assert seg.at(seg.owner, seg.grid.hex_at(0, 0)) == 1


def test_retiring_to_neutral_frees_the_land():
    seg = _seg()
    admin.retire(seg, 1, "neutral")
    assert int((seg.owner == 1).sum()) == 0 and seg.kingdoms[1].retired


def test_cli_unknown_kingdom_is_a_clear_message_and_nothing_changes(tmp_path):
    seg = _seg()
    save_segment(seg, tmp_path / "worlds" / "test")
    before = _files(tmp_path / "worlds" / "test")
    r = CliRunner().invoke(app, ["kingdom", "set-password", "test", "9", "-C", str(tmp_path)])
    assert r.exit_code != 0 and "unbekanntes Reich 9" in (r.output + str(r.exception))
    assert _files(tmp_path / "worlds" / "test") == before


def test_cli_add_then_list_shows_the_new_kingdom(tmp_path):
    save_segment(_seg(), tmp_path / "worlds" / "test")
    r = CliRunner().invoke(app, ["kingdom", "add", "test", "--name", "Ostland", "--ruler", "Ida",
                                 "--email", "ida@example.org", "-C", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "Passwort" in r.output
    r = CliRunner().invoke(app, ["kingdom", "list", "test", "-C", str(tmp_path)])
    assert "Ostland" in r.output and "ida@example.org" in r.output
