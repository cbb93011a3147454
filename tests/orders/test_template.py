

def test_a_city_state_gets_no_order_form():
    """Stadtstaaten "werden im allgemeinen nicht von Mitspielern geführt": no form."""
    import pytest

    from wdg.errors import WdgError
    from wdg.orders.template import render_template
    from wdg.world.factory import add_kingdom, small_segment

    seg = small_segment()
    add_kingdom(seg, 7, city_state=True)
    with pytest.raises(WdgError, match="city state"):
        render_template(seg, 7)
