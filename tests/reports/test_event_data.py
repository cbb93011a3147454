"""Every event kind carries its facts in ``data``, described in
docs/report-schema.json (issue #42, 5: "Facts still only in prose"; "a test
fails on an event kind without a data schema").

Two nets: every event kind written literally in the engine's code (``Event("…"``,
``kind="…"``) has an entry in the schema's ``$defs.event_data``; and every
line of every kingdom's JSON report of the demo's first two months and of
the stress preset's month (fights, fleets, creatures, wizards …) has an
entry for its kind, and its data validates against it."""

from __future__ import annotations

import fnmatch
import json
import re

import pytest

from tests.reports.reportkit import demo_two_months, stress_month
from tests.reports.schema_check import check
from wdg.campaign import PACKAGE_ROOT
from wdg.reports.build import build_kingdom_report
from wdg.reports.jsonreport import build_json
from wdg.reports.settings import load_report_settings

SCHEMA = json.loads((PACKAGE_ROOT / "docs" / "report-schema.json").read_text(encoding="utf-8"))
KINDS = SCHEMA["$defs"]["event_data"]["properties"]
LITERAL = re.compile(r'(?:Event\(\s*|kind=|_emit\(\s*\w+,\s*)"([a-z_]+(?:\.[a-z_]+)+)"')


def data_schema(kind: str) -> dict | None:
    """The schema of ``kind``'s data: its own entry, else the most specific
    pattern that matches it."""
    if kind in KINDS:
        return KINDS[kind]
    hits = [k for k in KINDS if "*" in k and fnmatch.fnmatchcase(kind, k)]
    return KINDS[max(hits, key=len)] if hits else None


def _lines(node):
    """Every event line (``kind`` and ``data``) anywhere in a report."""
    if isinstance(node, dict):
        if "kind" in node and "data" in node and "text" in node:
            yield node
        for v in node.values():
            yield from _lines(v)
    elif isinstance(node, list):
        for v in node:
            yield from _lines(v)


def test_every_kind_the_engine_writes_has_a_data_schema():
    found: dict[str, str] = {}
    for p in sorted((PACKAGE_ROOT / "wdg").rglob("*.py")):
        for m in LITERAL.finditer(p.read_text(encoding="utf-8")):
            found.setdefault(m.group(1), str(p.relative_to(PACKAGE_ROOT)))
    assert len(found) > 60
    missing = {k: where for k, where in found.items() if data_schema(k) is None}
    assert not missing, f"event kinds without a data schema in docs/report-schema.json: {missing}"


def test_the_kinds_the_issue_names_carry_their_facts():
    """``pay.shortfall``, ``morale.desertion``, ``conquest.won``,
    ``recon.sighting``, ``a.eh.joined``, ``creature.effect``, ``pay.active``:
    each has required facts, not an empty object."""
    for kind in ("pay.shortfall", "morale.desertion", "conquest.won", "recon.sighting",
                 "a.eh.joined", "creature.effect", "pay.active"):
        s = KINDS[kind]
        assert s["required"] and set(s["required"]) <= set(s["properties"]), kind


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> list[dict]:
    settings = load_report_settings()
    out = []
    result, intake = stress_month()
    for k in sorted(intake.sheets)[:20]:
        rep = build_kingdom_report(result.state, list(result.log), intake.sheets.get(k), k,
                                   settings)
        out.append(json.loads(json.dumps(build_json(rep, result.state, k, None))))
    camp = demo_two_months(tmp_path_factory.mktemp("data") / "c")
    for f in sorted(camp.root.glob("reports/*/*/k*/bericht.json")):
        out.append(json.loads(f.read_text(encoding="utf-8")))
    return out


def test_every_line_of_every_report_has_data_as_its_schema_says(reports):
    kinds: set[str] = set()
    bad = []
    for doc in reports:
        for line in _lines(doc["report"]):
            kinds.add(line["kind"])
            s = data_schema(line["kind"])
            if s is None:
                bad.append(f"{line['kind']}: no data schema")
                continue
            bad += [f"{line['kind']}: {e}" for e in check(line["data"], s, SCHEMA)]
    assert not bad, sorted(set(bad))[:20]
    assert len(kinds) >= 40, sorted(kinds)
