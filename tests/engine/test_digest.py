"""The month's digest leaves the disk (issue #40 item 7; wdg/digest.py).

The digest is checked against an independent computation from the month's
provenance (the SHA-256 of its input list), and ``wdg turn verify-digest``
answers in German with its exit code: 0 when the quoted digest is the archive's,
1 when a sheet of the month was changed afterwards.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import yaml
from typer.testing import CliRunner

from wdg.cli import app

CAMPAIGN = Path(__file__).resolve().parent.parent / "fixtures" / "releases" / "c97684b"


def independent_digest(mdir: Path) -> str:
    """From provenance.yaml's inputs, as docs/storage.md defines the digest."""
    prov = yaml.safe_load((mdir / "provenance.yaml").read_text(encoding="utf-8"))
    text = f"wdg-monatspruefsumme 1\nsegment {prov['segment']}\nmonth {prov['month']}\n" + \
        "".join(f"{sha}  {path}\n" for path, sha in sorted(prov["inputs"].items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_verify_digest_says_whether_the_archive_still_holds_the_month(tmp_path: Path):
    camp = tmp_path / "c"
    shutil.copytree(CAMPAIGN, camp)
    mdir = camp / "worlds/canura/turns/0412-05"
    good = independent_digest(mdir)
    run = lambda h: CliRunner().invoke(app, ["turn", "verify-digest", "canura", "0412-05", h,
                                             "-C", str(camp)])
    got = run(good)
    assert got.exit_code == 0 and "0412-05: Prüfsumme stimmt" in got.output, got.output
    got = run(good.upper())  # as a player may type it
    assert got.exit_code == 0, got.output
    got = run("0" * 64)
    assert got.exit_code == 1 and "Prüfsumme WEICHT AB" in got.output, got.output
    got = run("xyz")
    assert got.exit_code != 0 and "erwartet 64 Hex-Ziffern" in str(got.exception) + got.output
    sheet = mdir / "orders" / "k2.txt"  # an insider changes a sheet afterwards
    sheet.write_bytes(sheet.read_bytes().replace(b"Passwort", b"Passwort ", 1))
    got = run(good)
    assert got.exit_code == 1 and "WEICHT AB" in got.output, got.output


def test_every_result_mail_names_the_digest(tmp_path: Path):
    from wdg.campaign import Campaign
    from wdg.mail.results import result_mails
    from wdg.store.segment import load_segment
    from wdg.store.sent import Ledger
    from wdg.world.calendar import MonthDate

    camp = Campaign(CAMPAIGN)
    seg = load_segment(camp.segment_dir("canura"))
    mdir = CAMPAIGN / "worlds/canura/turns/0412-06"
    ledger = Ledger(tmp_path)  # an empty send record (nothing sent yet)
    mails = result_mails(camp, seg, MonthDate.parse("0412-06"), "sl@example.org", ledger)
    assert mails.mails
    for m in mails.mails:
        body = m.build(False).get_body(("plain",)).get_content()
        assert independent_digest(mdir) in body, body[:600]
        assert "wdg turn verify-digest canura 0412-06" in body


def test_each_month_prints_its_digest_and_the_chain_leaves_the_disk(tmp_path: Path):
    """A month run prints the month's digest in the Götterbotschaft and every result
    sheet; the next month records it as an input; verify-digest walks the chain and
    names a month changed afterwards (an insider who edits month 1's sheet cannot
    keep month 2's quoted digest valid)."""
    import lzma

    from wdg.commands.demo import DEMO_SEGMENT, copy_demo

    camp = copy_demo(tmp_path / "c").root
    run = lambda *a: CliRunner().invoke(app, [*a, "-C", str(camp)])
    got = run("turn", "run", DEMO_SEGMENT, "--no-pdf", "-q")
    assert got.exit_code == 0, got.output
    nxt = camp / "orders" / DEMO_SEGMENT / "0412-05"
    nxt.mkdir(parents=True)
    for k in (1, 2, 3):
        (nxt / f"k{k}.txt").write_text(f"Segment: canura\nKönigreich: {k}\nPasswort: canura-{k}\n",
                                       encoding="utf-8")
    got = run("turn", "run", DEMO_SEGMENT, "--no-pdf", "-q", "--force")
    assert got.exit_code == 0, got.output
    turns = camp / "worlds" / DEMO_SEGMENT / "turns"
    digests = {}
    for month in ("0412-04", "0412-05"):
        d = digests[month] = independent_digest(turns / month)
        delivered = camp / "reports" / DEMO_SEGMENT / month
        for name in ("goetterbotschaft.txt", "goetterbotschaft.html", "k1/ergebnis.txt",
                     "k3/ergebnis.html"):
            assert d in (delivered / name).read_text(encoding="utf-8"), (month, name)
    recorded = lzma.decompress((turns / "0412-05" / "inputs" / "previous-digest.txt.xz")
                               .read_bytes()).decode().strip()
    assert recorded == digests["0412-04"]
    got = run("turn", "verify-digest", DEMO_SEGMENT, "0412-05", digests["0412-05"])
    assert got.exit_code == 0 and "Kette: 1 Verknüpfungen bis 0412-04 stimmen" in got.output, \
        got.output
    got = run("turn", "replay", DEMO_SEGMENT, "0412-05")
    assert got.exit_code == 0 and "Dateien identisch" in got.output, got.output
    sheet = turns / "0412-04" / "orders" / "k2.txt"  # an insider rewrites month 1
    sheet.write_bytes(sheet.read_bytes() + b"\n")
    got = run("turn", "verify-digest", DEMO_SEGMENT, "0412-05", digests["0412-05"])
    assert got.exit_code == 1 and "0412-04 wurde nachträglich verändert" in got.output, got.output
    got = run("turn", "verify-digest", DEMO_SEGMENT, "0412-04", digests["0412-04"])
    assert got.exit_code == 1 and "WEICHT AB" in got.output, got.output
