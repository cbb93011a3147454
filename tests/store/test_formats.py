"""The format registry (wdg.store.formats, docs/storage.md "Format registry"):
one table, read by every format check, shown in the docs as it is."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import wdg.mail
from wdg.store import formats, months, segment

ROOT = Path(__file__).resolve().parents[2]


def _all_kinds() -> dict[str, formats.Kind]:
    """The table with every mail record kind the package defines (their
    modules imported), without those the tests define."""
    for info in pkgutil.walk_packages(wdg.mail.__path__, "wdg.mail."):
        importlib.import_module(info.name)
    return {n: k for n, k in formats.KINDS.items() if not n.startswith("mail-test-")}


def test_the_docs_show_the_table_as_it_is():
    text = (ROOT / "docs" / "storage.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- formats-table.*?-->\n(.*?)<!-- /formats-table -->", text, re.S)
    assert block, "docs/storage.md has no formats table"
    rows = [line for line in block.group(1).splitlines() if line.startswith("| `")]
    assert rows == formats.markdown_rows(_all_kinds()), (
        "docs/storage.md's format table differs from wdg/store/formats.py; regenerate it with "
        "formats.markdown_rows()")


def test_the_checks_read_the_table():
    assert segment.FORMAT == formats.current("segment") == formats.SEGMENT
    assert months.PROVENANCE_FORMAT == formats.current("provenance") == formats.PROVENANCE
    assert formats.current("kingdoms") == formats.current("segment")  # carried by the segment


def test_a_saved_segment_carries_the_tables_number(tmp_path):
    from wdg.commands.demo import copy_demo

    camp = copy_demo(tmp_path / "c")
    seg_dir = camp.segment_dir("canura")
    segment.save_segment(segment.load_segment(seg_dir), seg_dir)
    assert segment.format_of(seg_dir) == formats.current("segment")


def test_a_kind_cannot_be_registered_twice_differently():
    k = formats.KINDS["segment"]
    assert formats.register(k) is k
    with pytest.raises(ValueError):
        formats.register(formats.Kind("segment", k.format + 1, k.where, k.description))
