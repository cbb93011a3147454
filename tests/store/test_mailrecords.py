"""Small mail records (wdg.store.mailrecords, docs/storage.md "Small mail
records"): written whole and sealed, read back exactly, damage named and
never read as empty, a newer format refused, every kind in the format
registry, found by ``wdg segment check``'s store verification."""

from __future__ import annotations

import os

import pytest

from wdg.errors import StateError
from wdg.store import formats, mailrecords
from wdg.store.integrity import IntegrityError, verify_segment

KIND = mailrecords.define("test-counter", 1, "a counter of the tests")


def test_absent_is_empty_and_a_saved_record_reads_back(tmp_path):
    assert mailrecords.load(tmp_path, KIND) == {}
    data = {"k3": 2, "Grüße": ["ä", 1.5], "nested": {"a": None}}
    path = mailrecords.save(tmp_path, KIND, data)
    assert path == tmp_path / "mail" / "test-counter.yaml"
    assert mailrecords.load(tmp_path, KIND) == data
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)  # players' addresses may be in it
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]


def test_the_kind_has_its_row_in_the_format_registry():
    row = formats.KINDS["mail-test-counter"]
    assert row.format == 1 and row.where.endswith("mail/test-counter.yaml")
    assert formats.current("mail-test-counter") == 1
    with pytest.raises(ValueError):
        mailrecords.define("test-counter", 2, "another shape under the same name")
    with pytest.raises(ValueError):
        mailrecords.define("sent", 1, "the send record's name")


@pytest.mark.parametrize("damage", ["flip", "cut", "unsealed", "foreign"])
def test_damage_is_named_never_read_as_empty(tmp_path, damage):
    path = mailrecords.save(tmp_path, KIND, {"k1": 5})
    raw = path.read_bytes()
    if damage == "flip":
        i = raw.index(b'"k1": 5') + 6
        path.write_bytes(raw[:i] + b"6" + raw[i + 1:])
    elif damage == "cut":
        path.write_bytes(raw[:-20])
    elif damage == "unsealed":
        path.write_bytes(b'{"format": 1, "kind": "test-counter", "data": {}}\n')
    else:
        mailrecords.save(tmp_path, mailrecords.define("test-other", 1, "another kind"), {})
        os.replace(tmp_path / "mail" / "test-other.yaml", path)
    before = path.read_bytes()
    with pytest.raises(IntegrityError) as e:
        mailrecords.load(tmp_path, KIND)
    assert str(path) in str(e.value) and "nichts wurde verändert" in str(e.value)
    assert path.read_bytes() == before
    found = mailrecords.check_records(tmp_path)
    assert [f.path for f in found] == [str(path)]


def test_a_newer_format_is_refused_with_both_numbers(tmp_path):
    newer = mailrecords.RecordKind("test-counter", 3, "")
    mailrecords.save(tmp_path, newer, {"k1": 1})
    with pytest.raises(StateError) as e:
        mailrecords.load(tmp_path, KIND)
    assert "Format 3" in str(e.value) and "bis Format 1" in str(e.value)


def test_a_linked_mail_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    seg = tmp_path / "seg"
    seg.mkdir()
    os.symlink(outside, seg / "mail")
    with pytest.raises(StateError, match="symbolischer Link"):
        mailrecords.save(seg, KIND, {"k1": 1})
    assert list(outside.iterdir()) == []


def test_segment_verification_lists_a_damaged_record_of_any_kind(tmp_path):
    """Also a kind this process never defined (its module not imported)."""
    path = mailrecords.save(tmp_path, mailrecords.RecordKind("test-unknown", 1, ""), {"a": 1})
    path.write_bytes(path.read_bytes().replace(b'"a": 1', b'"a": 2'))
    found = verify_segment(tmp_path, full=False)
    assert any(f.path == str(path) for f in found), found
