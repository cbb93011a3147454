"""The shape of each stored kind, as a fingerprint (docs/storage.md, "Format
registry"): ``python -m wdg.store.shapes`` prints them as JSON.

``tests/store/test_format_shapes.py`` keeps the fingerprints of the current
format numbers in ``tests/fixtures/store/format_shapes.json`` and fails when
a kind's shape changes while its number in :mod:`wdg.store.formats` stays —
the change an older wdg could misread slipping past the number (issue #40:
the password scheme changed from pbkdf2 to scrypt under the same segment
format). What a fingerprint covers:

- ``segment`` (and with it ``kingdoms`` and ``archive-month``): the segment's
  file names, every record of :mod:`wdg.world.state` field by field with its
  type, every enum's stored values, the layers' types, and the password
  scheme's name;
- the other kinds: the code that writes them (its syntax tree, without
  comments and docstrings), and the events of the mail records.

A change that an older wdg reads unchanged (or refuses clearly, naming what
it does not know) may keep its number: then the fixture is updated with
``python -m wdg.store.shapes --write`` in the same commit, which says why.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import hashlib
import inspect
import io
import json
import sys
import textwrap
import tokenize
from pathlib import Path
from typing import Any

from wdg.store import formats, intake, integrity, journal, mailrecords, months, seen, segment, sent
from wdg.world import passwords, state

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "store" / "format_shapes.json"


def _code(*objs: Any) -> str:
    """The tokens of functions' source, without comments, blank lines and
    docstrings (the same on every Python version, unlike a syntax tree's dump)."""
    out = []
    for obj in objs:
        src = textwrap.dedent(inspect.getsource(obj))
        docs = set()
        for node in ast.walk(ast.parse(src)):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                    and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                docs.add((body[0].lineno, body[0].col_offset))
        skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                tokenize.DEDENT, tokenize.ENDMARKER}
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type in skip or (tok.type == tokenize.STRING and tok.start in docs):
                continue
            out.append(tok.string)
    return " ".join(out)


def _segment() -> str:
    parts = [repr(journal.FILES), repr(sorted(segment.HANDLED_FIELDS)),
             repr(sorted((k, str(v)) for k, v in segment.LAYER_DTYPES.items())),
             repr(passwords.SCHEME)]
    for name, obj in sorted(vars(state).items()):
        if getattr(obj, "__module__", None) != state.__name__:
            continue
        if dataclasses.is_dataclass(obj):
            parts.append(f"{name}: " + ", ".join(f"{f.name}:{f.type}"
                                                   for f in dataclasses.fields(obj)))
        elif isinstance(obj, type) and issubclass(obj, enum.Enum):
            parts.append(f"{name}: " + ", ".join(repr(m.value) for m in obj))
    return "\n".join(parts)


def shapes() -> dict[str, str]:
    """``{kind: fingerprint}`` of every kind numbered on its own."""
    text = {
        "segment": _segment(),
        "provenance": _code(months.provenance_record),
        "hash-lists": _code(integrity.format_list, integrity.seal_month, integrity.live_list),
        "mail-sent": repr(sent.EVENTS) + _code(*sent.WRITERS),
        "mail-seen": repr(seen.EVENTS) + _code(seen.SeenRecord.record),
        "intake-receipts": _code(intake.receipt_text, intake.write_sheet),
        "mail-record": _code(mailrecords.save),
    }
    return {k: hashlib.sha256(v.encode()).hexdigest()[:16] for k, v in sorted(text.items())}


def current() -> dict[str, dict[str, Any]]:
    """Every kind's format number with its fingerprint (the fixture's form)."""
    return {k: {"format": formats.current(k), "shape": v} for k, v in shapes().items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wdg.store.shapes",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write them to {FIXTURE}")
    args = ap.parse_args(argv)
    text = json.dumps(current(), indent=1, sort_keys=True) + "\n"
    if args.write:
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
