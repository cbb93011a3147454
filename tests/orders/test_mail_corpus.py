"""The mail corpus (``tests/orders/mail/``, written by ``make_corpus.py``)
imported as one mbox and as one Maildir: every mail's outcome asserted —
stored sheet, refusal reason, confirmation — and nothing raised.

"Der Spielzug muß den Segmentleiter bis zu dem von ihm angegebenen Datum
(EINTREFFSCHLUSS) bis 13:00 Uhr (mittags) erreicht haben" (arrival decides);
docs/orders.md "Mailbox intake" for the rest.
"""

from __future__ import annotations

import email
import email.policy
import mailbox
from pathlib import Path

import pytest
import yaml

from wdg.campaign import Campaign
from wdg.orders.intake import import_mailbox, parse_deadline
from wdg.orders.mailbox import KEEP_BYTES
from wdg.orders.parser import parse_sheet
from wdg.textpolicy import has_unsafe
from wdg.world.passwords import hash_password

CORPUS = Path(__file__).parent / "mail"
EXPECTED = yaml.safe_load((CORPUS / "expected.yaml").read_text(encoding="utf-8"))
DEADLINE = parse_deadline("2024-05-01 13:00")
START = 1714550400  # 2024-05-01 10:00 +02:00


def corpus_world(world):
    world.kingdoms[4].player.password_hash = hash_password("gemüse-4")
    return world


def build_mbox(path: Path) -> None:
    box = mailbox.mbox(str(path))
    for e in EXPECTED:
        box.add((CORPUS / e["file"]).read_bytes())
    box.flush()
    box.close()


def build_maildir(path: Path) -> None:
    mailbox.Maildir(str(path)).close()
    for i, e in enumerate(EXPECTED):
        (path / "new" / f"{START + 60 * i}.M{i:06d}P7Q{i}.sl").write_bytes(
            (CORPUS / e["file"]).read_bytes())


def test_the_corpus_has_every_case_of_the_issue():
    assert len(EXPECTED) >= 50
    assert len(list(CORPUS.glob("*.eml"))) == len(EXPECTED)


def _stored_files(folder: Path, kingdom: int) -> list[Path]:
    return [folder / f"k{kingdom}.txt", *sorted((folder / "replaced").glob(f"k{kingdom}.*.txt"))]


def _holding(folder: Path, kingdom: int, marker: int) -> Path:
    for p in _stored_files(folder, kingdom):
        if p.is_file() and f"F+ {marker}\n" in p.read_text(encoding="utf-8"):
            return p
    raise AssertionError(f"no stored sheet of kingdom {kingdom} holds F+ {marker}")


def _check_sheet(path: Path, e: dict) -> None:
    sheet = parse_sheet(path.read_bytes())
    if "orders" in e:
        assert len(sheet.kingdom_orders) == e["orders"], (e["file"], sheet.kingdom_orders)
    if "messages" in e:
        assert len(sheet.messages) == e["messages"], e["file"]
    if "announcements" in e:
        assert len(sheet.announcements) == e["announcements"], e["file"]
    for number in e.get("armies_with_b", []):
        block = sheet.army(number)
        assert block is not None and block.phase_b is not None, (e["file"], number)
    if "stored" in e:
        assert e["stored"] in path.read_text(encoding="utf-8"), e["file"]


@pytest.mark.parametrize("kind", ["mbox", "maildir"])
def test_the_corpus_imports_with_every_outcome_as_expected(world, tmp_path, kind):
    seg = corpus_world(world)
    camp = Campaign(tmp_path)
    box = tmp_path / ("in.mbox" if kind == "mbox" else "Maildir")
    (build_mbox if kind == "mbox" else build_maildir)(box)
    out = tmp_path / "outbox"
    report = import_mailbox(camp, seg, box, deadline=DEADLINE, outbox=out, max_bytes=200_000)
    folder = camp.orders_dir("test", seg.date)
    by_position: dict[int, list] = {}
    for r in report.results:
        by_position.setdefault(r.position, []).append(r)
    assert sorted(by_position) == list(range(1, len(EXPECTED) + 1))
    in_force: dict[int, int] = {}
    for pos, e in enumerate(EXPECTED, start=1):
        results = by_position[pos]
        wanted = [e] + ([{"file": e["file"], **e["second"]}] if "second" in e else [])
        assert len(results) == len(wanted), (e["file"], results)
        for r, w in zip(results, wanted):
            assert r.status == w["status"], (w["file"], r.status, r.reason)
            if "kingdom" in w:
                assert r.kingdom == w["kingdom"], w["file"]
            if "reason" in w:
                assert w["reason"] in r.reason, (w["file"], r.reason)
            if "note" in w:
                assert any(w["note"] in n for n in r.notes), (w["file"], r.notes)
            if w.get("quarantined"):  # the raw bytes are kept, with the reason beside them
                assert r.quarantined is not None and r.quarantined.is_file(), w["file"]
                assert r.quarantined.parent == tmp_path / "quarantine" / "test" / seg.date.key
                whole = (CORPUS / w["file"]).read_bytes()
                kept = r.quarantined.read_bytes()
                reason = r.quarantined.parent / (r.quarantined.stem + ".grund.txt")
                assert reason.is_file()
                if "zu groß" in r.reason:  # a bounded prefix and the whole mail's size
                    assert len(kept) == KEEP_BYTES < len(whole)
                    assert kept[:1000] == whole[:1000] and "SHA-256 der ganzen Mail" in \
                        reason.read_text(encoding="utf-8")
                else:
                    assert len(kept) >= 0.9 * len(whole)
            if "confirmation" in w and w["confirmation"] is None:
                assert r.confirmation is None, w["file"]
            else:
                assert r.confirmation is not None and r.confirmation.is_file(), w["file"]
                msg = email.message_from_bytes(r.confirmation.read_bytes(),
                                               policy=email.policy.default)
                body = msg.get_content()
                assert w["status"] in str(msg["Subject"]), w["file"]
                if w.get("confirmation"):
                    assert w["confirmation"] in body, (w["file"], body)
                if w.get("confirmation_lacks"):
                    assert w["confirmation_lacks"] not in body, (w["file"], body)
                if w.get("in_reply_to") is False:
                    assert msg["In-Reply-To"] is None, w["file"]
                elif r.message_id:
                    assert msg["In-Reply-To"] == r.message_id
            if "marker" in w:
                _check_sheet(_holding(folder, w["kingdom"], w["marker"]), w)
            if w["status"] == "angenommen":
                in_force[w["kingdom"]] = w["marker"]
    # the sheet that arrived last is in force, for every kingdom
    for k, marker in in_force.items():
        assert f"F+ {marker}\n" in (folder / f"k{k}.txt").read_text(encoding="utf-8"), k
    assert report.valid == [1, 2, 3, 4]
    # nothing the import wrote holds a control, bidi or zero-width character
    for p in [*folder.rglob("*"), *out.rglob("*")]:
        if p.is_file():
            text = p.read_bytes().decode("utf-8", errors="replace")
            assert not has_unsafe(text.replace("\n", "").replace("\r", "")), p
    assert not has_unsafe(report.table().replace("\n", ""))
    # importing the same mailbox again changes nothing
    before = sorted((p.relative_to(tmp_path), p.stat().st_size) for p in tmp_path.rglob("*")
                    if p.is_file() and box not in p.parents and p != box)
    again = import_mailbox(camp, seg, box, deadline=DEADLINE, outbox=out, max_bytes=200_000)
    assert not any(r.status == "angenommen" for r in again.results)
    after = sorted((p.relative_to(tmp_path), p.stat().st_size) for p in tmp_path.rglob("*")
                   if p.is_file() and box not in p.parents and p != box)
    assert after == before
