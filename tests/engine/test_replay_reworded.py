"""A replay tells "only the wording of the events differs" by a flag the event
layer sets (``Layer.reworded``), not by searching "andere Formulierung" in the
layer's German reason (issue #44): the outputs that differ then say why
("folgt aus dem anderen Wortlaut der Ereignistexte")."""

from __future__ import annotations

import json

from wdg.engine.replay import _explain_events

ROWS = [{"kind": "tax.income", "kingdom": k, "gold": 100 * k, "why": f"Steuern {k}"}
        for k in range(1, 4)]


def _log(rows) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_only_reworded_texts_are_flagged_as_such():
    reworded = [dict(r, why=r["why"] + " (neu formuliert)") for r in ROWS]
    detail, why, flag = _explain_events(_log(ROWS), _log(reworded), "events.jsonl")
    assert flag is True and detail.startswith("3 von 3 Ereignissen nur im Wortlaut"), detail
    other_game = [dict(ROWS[0], gold=101), *ROWS[1:]]
    assert _explain_events(_log(ROWS), _log(other_game), "events.jsonl")[2] is False
    more = [*ROWS, {"kind": "pay.wages", "kingdom": 1, "gold": -5, "why": "Sold"}]
    assert _explain_events(_log(ROWS), _log(more), "events.jsonl")[2] is False
    assert _explain_events(None, _log(ROWS), "events.jsonl")[2] is False
