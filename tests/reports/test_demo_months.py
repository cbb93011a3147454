"""The demo campaign over three months, read as its players read it: the text
sheets carry no raw event kinds or English data keys, the treasury adds up
line by line, every army is listed with its number, and the pre-filled form
of every kingdom passes ``wdg orders check`` untouched."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from wdg.commands.demo import DEMO_SEGMENT, copy_demo
from wdg.engine.turn import run_month
from wdg.orders.sheetfile import check_file
from wdg.orders.generate import generate_sheets
from wdg.reports.archived import archive_writers
from wdg.store.delivery import deliver
from wdg.store.segment import load_segment

MONTHS = 3
RAW_KIND = re.compile(r"\b(?:recon|move|combat|militia|pay|tax|treasury|build|offer|action|a|k|"
                      r"message|announcement|creature|durability|gm|diplomacy|conquest)\.[a-z_.]+\b")
ENGLISH_KEY = re.compile(r"(?:\(|; ) ?[a-z][a-z_]*: ")


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    camp = copy_demo(tmp_path_factory.mktemp("demo") / "c")
    for i in range(MONTHS):
        if i:
            seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
            out = camp.root / "orders" / DEMO_SEGMENT / seg.date.key
            out.mkdir(parents=True, exist_ok=True)
            for k, text in generate_sheets(seg, np.random.default_rng(i)).items():
                (out / f"k{k}.txt").write_text(text, encoding="utf-8")
        result = run_month(camp, DEMO_SEGMENT, force=True,
                           outputs=archive_writers(camp.templates_dir, camp.rules_dir, pdf=False))
        deliver(camp, DEMO_SEGMENT, result.date)  # the sheets as the players get them
    return camp.root / "reports" / DEMO_SEGMENT


def _sheets(delivered: Path) -> list[Path]:
    found = sorted(delivered.glob("*/k*/ergebnis.txt"))
    assert len(found) >= MONTHS * 6
    return found


def test_no_raw_event_kind_or_english_data_key_reaches_a_text_sheet(demo):
    for f in _sheets(demo):
        text = f.read_text(encoding="utf-8")
        assert not RAW_KIND.search(text), (f, RAW_KIND.search(text).group(0))
        assert not ENGLISH_KEY.search(text), (f, ENGLISH_KEY.search(text).group(0))
        assert max(len(line) for line in text.splitlines()) <= 80, f


def _gs(s: str) -> int:
    return int(s.replace(".", ""))


def test_the_treasury_reads_like_an_account_book_and_adds_up(demo):
    for f in _sheets(demo):
        text = f.read_text(encoding="utf-8")
        book = text[text.index("2. REICHSSCHATZ"):text.index("3. REICHSGEBIET")]
        before = _gs(re.search(r"Beginn des Mondes +([\d.]+)\u00a0GS", book).group(1))
        after = _gs(re.search(r"Ende des Mondes +([\d.]+)\u00a0GS", book).group(1))
        income = _gs(re.search(r"Summe der Einnahmen +\+ ([\d.]+)\u00a0GS", book).group(1))
        expense = _gs(re.search(r"Summe der Ausgaben +- ([\d.]+)\u00a0GS", book).group(1))
        assert before + income - expense == after, f
        for part, total in (("Einnahmen\n", income), ("Ausgaben\n", expense)):
            body = book[book.index(part):]
            body = body[:body.index("  Summe der")]
            cats = [_gs(m) for m in re.findall(r"^  \S.{37}\s{10}\s*([\d.]+)$", body, re.M)]
            assert sum(cats) == total, (f, part)


def test_every_army_of_the_form_is_on_the_sheet_and_the_form_checks_without_errors(demo, tmp_path):
    for f in _sheets(demo):
        text = f.read_text(encoding="utf-8")
        form = (f.parent / "spielzug.txt").read_text(encoding="utf-8")
        assert max(len(line) for line in form.splitlines()) <= 80, f
        armies = re.findall(r"^Heer (\d{4}) ", form, re.M)
        assert armies, f
        for n in armies:
            assert re.search(rf"\b{n}\b", text[text.index("4. HEERE"):]), (f, n)
        filled = tmp_path / "form.txt"
        filled.write_text(form.replace("Passwort: ", "Passwort: x", 1), encoding="utf-8")
        out, errors = check_file(filled, view=f.parent / "ansicht.yaml", campaign=None, fmt="text")
        assert errors == 0, out


WRONG_FORMATS = {
    "a thousand without its dot": re.compile(r"(?<![\d.,])\d{4,}[\s\u00a0]?(?:GS|BE)\b|etwa \d{4,}"),
    "GS not after a non-breaking space": re.compile(r"\d(?: |)GS\b"),
    "% not after a non-breaking space": re.compile(r"\d(?: |)%"),
    "an arrow instead of words": re.compile(r"\s->\s|→"),
    "a kingdom's number without its name": re.compile(r"\bKönigreich \d+\b(?![:)]| \()"),
    "one with a plural": re.compile(r"(?<![\d.])\b1 (?:Befehle|Gemarken|Heere|Boote|Rüstgüter)\b"),
    "an empty count": re.compile(r"ohne Feldherrn: 0\b"),
}


def _bad_formats(name: str, text: str) -> list[str]:
    return [f"{name}: {what}: {text[max(0, m.start() - 30):m.end() + 10]!r}"
            for what, rx in WRONG_FORMATS.items() for m in rx.finditer(text)]


def _player_text(p: Path) -> str:
    text = p.read_text(encoding="utf-8")
    if p.suffix == ".html":
        import html

        text = re.sub(r"<style.*?</style>|<svg.*?</svg>", " ", text, flags=re.S)
        text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return text


def test_numbers_percentages_and_kingdoms_are_written_one_way_in_every_player_output(demo):
    """Issue 20: "1.000 GS" and "3 %" (non-breaking space) everywhere, never
    "1000 GS" or "(3%)"; changes in words, not "5 -> 6"; a kingdom by its name;
    "1 Befehl", not "1 Befehle" — in every sheet, form and Götterbotschaft of
    the demo's months, text and HTML."""
    files = [p for p in sorted(demo.rglob("*")) if p.suffix in (".txt", ".html")
             and "outbox" not in p.parts and not p.name.startswith("overview")]
    assert len(files) >= MONTHS * 20
    bad = []
    for p in files:
        bad += _bad_formats(str(p.relative_to(demo)), _player_text(p))
    assert bad == []


def test_the_import_confirmation_and_the_forecast_write_numbers_the_same_way(tmp_path):
    """Issue 20: the same formats in the import's confirmation mail (with its
    forecast) and in ``wdg orders check --forecast`` — "33 %" with a no-break
    space as on the sheets — for every sheet of the demo's first month."""
    import email
    import email.policy
    import mailbox
    from email.message import EmailMessage

    from typer.testing import CliRunner

    from wdg.campaign import PACKAGE_ROOT
    from wdg.cli import app
    from wdg.orders.intake import import_mailbox

    sheets = sorted((PACKAGE_ROOT / "orders" / DEMO_SEGMENT / "0412-04").glob("k*.txt"))
    assert len(sheets) >= 6
    camp = copy_demo(tmp_path / "c")
    box = mailbox.mbox(str(tmp_path / "in.mbox"))
    for i, p in enumerate(sheets):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = f"spieler{i}@example.org", "sl@example.org", "Zug"
        msg["Date"], msg["Message-ID"] = "Wed, 01 May 2024 10:00:00 +0200", f"<{i}@example.org>"
        msg.set_content(p.read_text(encoding="utf-8"))
        box.add(msg)
    box.flush()
    report = import_mailbox(camp, load_segment(camp.segment_dir(DEMO_SEGMENT)),
                            tmp_path / "in.mbox", outbox=tmp_path / "out")
    outputs = {}
    for r in report.results:
        mail = email.message_from_bytes(r.confirmation.read_bytes(), policy=email.policy.default)
        outputs[r.confirmation.name] = mail.get_content()
    for p in sheets:
        res = CliRunner().invoke(app, ["orders", "check", str(p), "--forecast", "-C",
                                       str(PACKAGE_ROOT)])
        outputs[f"check --forecast {p.name}"] = res.output
    assert len(outputs) == 2 * len(sheets)
    joined = "\n".join(outputs.values())
    assert "Vorschau:" in joined and "\u00a0%" in joined and "\u00a0GS" in joined
    # the player's own lines, echoed with their numbers ("  13  A: nf  # ... für
    # 5000 GS"), are his text, not ours
    echo = re.compile(r"^ *\d+  .*$", re.M)
    bad = [b for name, text in outputs.items() for b in _bad_formats(name, echo.sub("", text))]
    assert bad == [], "\n".join(bad)


def test_the_gazette_names_one_deadline(demo):
    """Issue #32: the demo's Götterbotschaft named two different deadlines (its
    head and the game master's announcement); the deadline stands in one place."""
    for month in sorted(p for p in demo.iterdir() if p.is_dir()):
        gazette = (month / "goetterbotschaft.txt").read_text(encoding="utf-8")
        assert gazette.count("Eintreffschluß") == 1, month.name
