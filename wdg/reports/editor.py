"""The order editor of the HTML result sheet: its data, embedded as JSON.

The editor (``templates/_editor.html.j2``, ``editor.js``, ``editor.css``)
shows next month's order sheet as a form with legal choices only and writes
the sheet's text. It runs from the file alone: everything it needs is one
JSON document inside the page (``<script type="application/json">``), built
here from what the kingdom's own result sheet already holds — its JSON
report (``bericht.json``) and map pages, the kingdom view
(:func:`wdg.orders.view.build_view`, shipped as ``ansicht.yaml``: own armies,
settlements, palaces, diplomacy list, known map) and the forecast's
treasury, reach, costs and income through
:func:`wdg.orders.choices.order_choices`. Nothing of the segment beyond the
kingdom's view enters it.

Same inputs, same bytes: keys sorted, no clock. :func:`script_json` makes the
JSON safe inside a ``<script>`` element whatever a name contains.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from wdg.orders.choices import order_choices
from wdg.orders.parser import COMMENT_MARKS
from wdg.orders.view import KingdomView
from wdg.reports.model import MapPage
from wdg.rules import Rules
from wdg.rules import shipped_rules as _shipped_rules
from wdg.textpolicy import limits, xml_safe


def editor_context(doc: dict[str, Any], view: KingdomView, maps: list[MapPage], form: str,
                   rules: Rules, orders_address: str = "") -> dict[str, Any]:
    """What ``_editor.html.j2`` needs: ``data`` (:func:`editor_data`), ``json``
    (the same as safe script text) and ``form``, the pre-filled order form
    (:func:`wdg.orders.template.render_view_template`) that the text field
    holds when JavaScript is off."""
    data = editor_data(doc, view, maps, rules, orders_address)
    return {"data": data, "json": script_json(data), "form": form}


def editor_data(doc: dict[str, Any], view: KingdomView, maps: list[MapPage], rules: Rules,
                orders_address: str = "") -> dict[str, Any]:
    """The editor's data for one kingdom's sheet (plain, JSON-able).

    ``doc``: the kingdom's JSON report (``bericht.json``: the deadline, the
    names on the diplomacy list, the settlements of others on the known map,
    where ``x`` may be ordered); ``maps``: the sheet's map pages, in the order
    the page shows them; ``orders_address``: where sheets are mailed ('' = not
    known: no ``mailto:`` link)."""
    foreign = frozenset(c["gemark"] for c in doc["known_map"]
                        if (c.get("settlement") or 0) > 0 and c.get("owner") != view.kingdom)
    lim = limits()
    report = doc["report"]
    return {
        "segment": view.segment,
        "kingdom": view.kingdom,
        "name": view.name,
        "month": view.month.short(),
        "month_long": view.month.long(),
        "deadline": report["header"]["deadline"],
        "address": orders_address,
        "maps": [{"r0": p.origin[0], "c0": p.origin[1], "s": p.origin[2]} for p in maps],
        "limits": {"name": lim.settlement_name_length, "line": lim.message_line_length,
                   "text": lim.message_length, "comment": list(COMMENT_MARKS)},
        "offer": None if view.offer is None else {"name": view.offer.general.name,
                                                  "price": view.offer.price},
        "choices": order_choices(view, rules, foreign),
        "names": {str(d["kingdom"]): d["name"] for d in report["diplomacy"]},
    }


def _number(value: Any) -> Any:
    """numpy scalars (a gemark's value read from a layer) as plain numbers."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON data: {type(value).__name__}")


_SCRIPT_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                   ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def script_json(data: dict[str, Any]) -> Markup:
    """``data`` as JSON text safe inside ``<script type="application/json">``:
    ``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no text (a kingdom
    called ``</script><script>…``) can end the element or start markup; the
    characters the text policy removes everywhere on the sheet (XML's
    forbidden ones, and the line separators U+2028/2029) are removed here too
    (:func:`wdg.textpolicy.xml_safe`; the separators would be escaped if they
    were not). ``JSON.parse`` reads the same values back."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      default=_number)
    text = xml_safe(text)
    for ch, esc in _SCRIPT_ESCAPES:  # str.replace: translate() is slow on long text
        if ch in text:
            text = text.replace(ch, esc)
    return Markup(text)


shipped_rules = _shipped_rules
"""The rules files shipped with the package (:func:`wdg.rules.shipped_rules`)."""
