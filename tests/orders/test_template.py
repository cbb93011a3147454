

def test_a_city_state_gets_no_order_form():
    """Stadtstaaten "werden im allgemeinen nicht von Mitspielern geführt": no form."""
    import pytest

    from wdg.errors import WdgError
    from wdg.orders.template import render_template
    from wdg.world.factory import add_kingdom, small_segment

    seg = small_segment()
    add_kingdom(seg, 7, city_state=True)
    with pytest.raises(WdgError, match="Stadtstaat"):
        render_template(seg, 7)


def test_the_form_can_be_saved_as_latin_1():
    """Players edit the form in whatever editor they have; old ones save Latin-1
    (the parser reads both), so the form uses only Latin-1 characters."""
    from pathlib import Path

    from wdg.orders.template import render_template
    from wdg.store.segment import load_segment

    seg = load_segment(Path(__file__).resolve().parents[2] / "worlds" / "canura")
    for k in (1, 2, 3, 4, 5, 6):
        render_template(seg, k).encode("latin-1")
