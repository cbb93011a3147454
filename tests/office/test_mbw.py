"""``wdg world mbw``: the Mitteilungsblatt of the world in three formats,
naming every segment, and nothing a segment keeps secret in it
(docs/rules.md, "The Mitteilungsblatt of the world")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner
from worldkit import MONTH, SECRET, SEGMENTS, WANDERER, email, world_copy

from wdg.cli import app
from wdg.store.months import month_dir
from wdg.reports.model import gs
from wdg.store.segment import load_segment

runner = CliRunner()


def _outputs(out: Path) -> dict[str, str]:
    import pypdf

    texts = {n: (out / n).read_text(encoding="utf-8") for n in ("mbw.txt", "mbw.html", "mbw.json")}
    texts["mbw.pdf"] = "\n".join(p.extract_text() for p in pypdf.PdfReader(out / "mbw.pdf").pages)
    return texts


@pytest.fixture
def mbw_out(ran_world_template: Path, tmp_path: Path) -> tuple[Path, Path]:
    camp = world_copy(ran_world_template, tmp_path / "w")
    art = tmp_path / "artikel.txt"
    art.write_text("# Vom Treffen in Kassel\nDie Herrscher trafen sich <script>x</script>.\n\n"
                   "Zweiter Absatz.\n", encoding="utf-8")
    res = runner.invoke(app, ["world", "mbw", "-o", str(tmp_path / "mbw"), "--articles", str(art),
                              "-C", str(camp.root)])
    assert res.exit_code == 0, res.output
    # the archives read in two processes give the same MBW
    res = runner.invoke(app, ["world", "mbw", "-o", str(tmp_path / "mbw2"), "--articles",
                              str(art), "--jobs", "2", "--no-pdf", "-C", str(camp.root)])
    assert res.exit_code == 0, res.output
    for name in ("mbw.txt", "mbw.html", "mbw.json"):
        assert (tmp_path / "mbw2" / name).read_bytes() == (tmp_path / "mbw" / name).read_bytes()
    return camp.root, tmp_path / "mbw"


def test_the_mbw_in_three_formats_names_every_segment(mbw_out: tuple[Path, Path]) -> None:
    _, out = mbw_out
    texts = _outputs(out)
    for name, text in texts.items():
        for seg in SEGMENTS:
            assert f"({seg})" in text or f'"{seg}"' in text, (name, seg)
        assert "Nordreich 1" in text and "Nordreich 3" in text, name
    txt = texts["mbw.txt"]
    # the published parts of the Götterbotschaft, the battle, the war, the article
    assert "Ankündigung des Segmentleiters: Im Norden wird gekämpft." in txt
    assert "verkündet: Der Norden wird fallen." in txt
    assert "Nordreich 3 gewann, Heer 0101 wurde vernichtet" in txt
    assert "nord, Jahr 412: Nordreich 1 gegen Nordreich 3 — 1 Schlacht" in txt
    assert "VOM TREFFEN IN KASSEL" in txt and "Zweiter Absatz." in txt
    # the article's text is data: escaped in the HTML
    assert "&lt;script&gt;x&lt;/script&gt;" in texts["mbw.html"]
    assert "<script>" not in texts["mbw.html"]
    assert (out / "plots").is_dir() and list((out / "plots").iterdir())


def test_sums_only_where_enough_kingdoms_play(mbw_out: tuple[Path, Path]) -> None:
    """``nord`` (3 kingdoms) prints its sums; ``ost``/``sued`` (2) do not:
    a ruler would subtract his own figures and read the other kingdom's."""
    root, out = mbw_out
    doc = json.loads((out / "mbw.json").read_text(encoding="utf-8"))
    pages = {p["segment"]: p for p in doc["segments"]}
    from wdg.campaign import Campaign

    camp = Campaign(root)
    after = load_segment(month_dir(camp, "nord", MONTH) / "state")
    nord = pages["nord"]["months"][0]
    assert nord["kingdoms"] == 3
    assert nord["treasury"] == sum(k.treasury for k in after.kingdoms.values())
    assert nord["soldiers"] == sum(a.units for a in after.armies.values())
    assert nord["land"] == int((after.owner > 0).sum())
    assert nord["battles"] == 1
    for seg in ("ost", "sued"):
        m = pages[seg]["months"][0]
        assert pages[seg]["withheld"] is True
        assert m["treasury"] is m["soldiers"] is m["land"] is m["conquests"] is None
    assert pages["west"]["months"] == []
    assert [r["segment"] for r in doc["largest"]] == ["nord"] * 3


def test_no_secret_of_a_segment_leaks_into_the_mbw(mbw_out: tuple[Path, Path]) -> None:
    """No kingdom's own treasury or soldiers, no private message, no player's
    name, e-mail or password, in any of the formats."""
    from wdg.campaign import Campaign

    root, out = mbw_out
    camp = Campaign(root)
    texts = _outputs(out)
    secrets = [SECRET, WANDERER, "pw-1", "pw-2", "pw-3"]
    for seg in ("nord", "ost", "sued", "west"):
        state = camp.segment_dir(seg) if seg == "west" else month_dir(camp, seg, MONTH) / "state"
        after = load_segment(state)
        for n, k in after.kingdoms.items():
            secrets += [email(seg, n), k.player.name if k.player else "", gs(k.treasury),
                        str(k.treasury)]
            soldiers = sum(a.units for a in after.armies.values() if a.kingdom == n)
            if soldiers >= 100:  # a number that long does not appear by chance
                secrets += [gs(soldiers), str(soldiers)]
    secrets = [s for s in secrets if s]
    for name, text in texts.items():
        for s in secrets:  # a number as a whole word (not inside a colour or another number)
            assert not re.search(rf"(?<![\w#.]){re.escape(s)}(?![\w])", text), (name, s)


def test_a_campaigns_own_office_rules_set_the_threshold(ran_world_template: Path,
                                                        tmp_path: Path) -> None:
    """``office.yaml`` beside ``worlds/`` replaces the shipped one: with
    ``min_kingdoms: 2`` the two-kingdom segments print their sums; a bad value
    is one German message naming the file and key."""
    from wdg.office.mbw import build_mbw

    camp = world_copy(ran_world_template, tmp_path / "w")
    (camp.root / "office.yaml").write_text("mbw:\n  min_kingdoms: 2\n  largest_realms: 1\n",
                                           encoding="utf-8")
    mbw = build_mbw(camp)
    ost = next(p for p in mbw.segments if p.segment == "ost")
    after = load_segment(month_dir(camp, "ost", MONTH) / "state")
    assert ost.months[0].treasury == sum(k.treasury for k in after.kingdoms.values())
    assert len(mbw.largest) == 1
    (camp.root / "office.yaml").write_text("mbw:\n  min_kingdoms: 1\n  largest_realms: 1\n",
                                           encoding="utf-8")
    res = runner.invoke(app, ["world", "mbw", "--no-pdf", "-o", str(tmp_path / "o"),
                              "-C", str(camp.root)])
    assert res.exit_code == 1
    assert "office.yaml" in str(res.exception) and "mbw.min_kingdoms" in str(res.exception)
