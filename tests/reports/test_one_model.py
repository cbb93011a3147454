"""One report model, every format rendered from it (issue 20): the text, HTML
and PDF sheets, the map and the order form come from the kingdom's
``bericht.json`` alone — rendering again from the file gives the same bytes,
and a value changed in the file changes every format that shows it."""

from __future__ import annotations

import copy
import io

import pytest
from pypdf import PdfReader

from wdg.reports.batch import MonthInput, render_kingdom
from wdg.reports.jsonreport import loads
from wdg.reports.render import Renderer
from wdg.reports.sheet import render_sheets


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Kingdom 1 of the fixed scenario, rendered with its PDF the normal way."""
    import tests.reports.scenario as scenario
    from wdg.reports.settings import load_report_settings

    before, after = scenario.segments()
    settings = load_report_settings()
    out = tmp_path_factory.mktemp("one")
    inp = MonthInput(None, after, scenario.events(before), {1: scenario.sheet()}, None, out,
                     None, settings, True, {})
    render_kingdom(inp, 1)
    return out / "k1", settings


def _pdf_text(pdf: bytes) -> str:
    return "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)


def test_rendering_again_from_the_report_file_gives_every_file_byte_for_byte(rendered):
    folder, settings = rendered
    from wdg.orders.view import load_view

    doc = loads((folder / "bericht.json").read_text(encoding="utf-8"))
    # the HTML's order editor also reads the kingdom view, as the player's tools do
    again = render_sheets(doc, Renderer(), settings, pdf=True,
                          view=load_view(folder / "ansicht.yaml"))
    assert set(again) == {"ergebnis.txt", "ergebnis.html", "ergebnis.pdf", "spielzug.txt"}
    for name, data in again.items():
        want = (folder / name).read_bytes()
        got = data if isinstance(data, bytes) else data.encode("utf-8")
        assert got == want, name


def _render(doc, settings) -> dict[str, str]:
    got = render_sheets(doc, Renderer(), settings, pdf=True)
    return {"txt": got["ergebnis.txt"], "html": got["ergebnis.html"],
            "pdf": _pdf_text(got["ergebnis.pdf"]), "form": got["spielzug.txt"]}


def test_a_value_changed_in_the_report_changes_every_format_that_shows_it(rendered):
    """Perturb the model: the kingdom's name, its treasury, an army's strength,
    the deadline, a gemark's terrain and a sighted army on the map — each
    appears (or changes the map) in every format that shows it, so no format
    takes it from anywhere else."""
    folder, settings = rendered
    base = loads((folder / "bericht.json").read_text(encoding="utf-8"))
    plain = _render(base, settings)

    doc = copy.deepcopy(base)
    doc["report"]["header"]["kingdom_name"] = "Zyrnowald"
    doc["report"]["header"]["deadline"] = "EINTREFFSCHLUSS: Quatember 9999"
    doc["report"]["treasury"]["after"] = 987_654
    army = next(a for a in doc["report"]["armies"] if a["status"] == "active")
    army["units"] = 4_321
    got = _render(doc, settings)
    for fmt in ("txt", "html", "pdf", "form"):
        assert "Zyrnowald" in got[fmt] and "Zyrnowald" not in plain[fmt], fmt
        assert "Quatember 9999" in got[fmt], fmt
        assert "4.321" in got[fmt] and "4.321" not in plain[fmt], fmt
    for fmt in ("txt", "html", "pdf"):
        assert "987.654" in got[fmt], fmt

    # issue #42: whose gemark an army stands on ("Zugehörigkeit zu einem
    # Königreich") and its general's wizardry and action codes, in every format
    doc = copy.deepcopy(base)
    army = next(a for a in doc["report"]["armies"] if a["status"] == "active")
    army["owner"], army["owner_name"] = 9, "Thaledorf"
    army["wizard"] = True
    army["actions"] = [{"code": "TP", "usage": "c TP <Gemark>", "meaning": "teleportiert weit"}]
    got = _render(doc, settings)
    for fmt in ("txt", "html", "pdf"):
        assert "Thaledorf (9)" in got[fmt] and "Thaledorf" not in plain[fmt], fmt
        assert "Zauberer" in got[fmt] and "teleportiert weit" in got[fmt], fmt
    assert "Zauberer" in got["form"] and "c TP <Gemark>" in got["form"]

    # the map: a gemark's terrain and a sighted foreign army
    doc = copy.deepcopy(base)
    cell = next(c for c in doc["known_map"] if c["owner"] != doc["kingdom"])
    cell["terrain"] = "Hochgebirge" if cell["terrain"] != "Hochgebirge" else "Meer"
    doc["report"]["markers"].append({"kind": "army", "gemark": cell["gemark"], "label": "0777"})
    got = _render(doc, settings)
    assert got["html"] != plain["html"] and "0777" in got["html"] and "0777" not in plain["html"]
    assert "0777" in got["pdf"]
