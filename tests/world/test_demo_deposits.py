"""The demo's deposits are the generator's: ``wdg segment new canura ...`` (the
command of worlds/canura/README.md) places exactly the deposits the shipped demo
has, and the rest of the generated map is the demo's own (issue #31)."""

from __future__ import annotations

from wdg.campaign import PACKAGE_ROOT
from wdg.world.generator import generate_segment
from wdg.store.segment import load_segment


def test_the_demo_has_the_deposits_its_generating_command_places():
    """Regenerating the demo with deposits changes nothing but the deposits."""
    demo = load_segment(PACKAGE_ROOT / "worlds" / "canura")
    fresh, _ = generate_segment("canura", 4, 3, 6, 412, capital_radius=2, demo_passwords=True)
    assert demo.deposits is not None and len(demo.deposits) > 0
    assert {h: d.kind for h, d in demo.deposits.items()} == \
        {h: d.kind for h, d in fresh.deposits.items()}
    assert all(d.known_by == [] for d in demo.deposits.values())
    assert (demo.terrain == fresh.terrain).all()
