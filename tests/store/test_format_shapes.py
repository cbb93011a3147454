"""A stored kind's shape cannot change without its format number (issue #40,
"A format registry": "a test fails when a stored file's shape changes without
its number"; wdg.store.shapes, docs/storage.md "Format registry")."""

from __future__ import annotations

import json

import pytest

from wdg.store import formats, shapes


def _fixture() -> dict:
    return json.loads(shapes.FIXTURE.read_text(encoding="utf-8"))


def test_every_kind_numbered_on_its_own_has_a_recorded_shape():
    own = {k for k in formats.BUILTIN if not formats.KINDS[k].carried_by}
    assert set(_fixture()) == set(shapes.shapes()) == own


@pytest.mark.parametrize("kind", sorted(shapes.shapes()))
def test_a_shape_changes_only_with_its_number(kind):
    recorded, now = _fixture()[kind], shapes.current()[kind]
    if now["format"] == recorded["format"]:
        assert now["shape"] == recorded["shape"], (
            f"the stored shape of '{kind}' changed but its format number ({now['format']}) did "
            "not: raise it in wdg/store/formats.py (with an upgrade step, docs/storage.md) — or, "
            "if an older wdg reads the new shape unchanged, say so in the commit and record it "
            "with 'python -m wdg.store.shapes --write'")
    else:
        assert now["format"] > recorded["format"], f"the format of '{kind}' went down"
        pytest.fail(f"'{kind}' is at format {now['format']} now: record its shape with "
                    "'python -m wdg.store.shapes --write'")


def test_the_fingerprint_sees_a_changed_password_scheme(monkeypatch):
    """The change that slipped past the number (pbkdf2 -> scrypt) changes the shape."""
    from wdg.world import passwords

    before = shapes.shapes()["segment"]
    monkeypatch.setattr(passwords, "SCHEME", "argon2")
    assert shapes.shapes()["segment"] != before


def test_the_fingerprint_sees_a_new_field_of_a_record(monkeypatch):
    import dataclasses

    from wdg.world import state

    before = shapes.shapes()["segment"]

    @dataclasses.dataclass
    class Treasure:  # the same name, one field more
        position: object
        value: int = 0
        cursed: bool = False

    Treasure.__module__ = state.__name__
    monkeypatch.setattr(state, "Treasure", Treasure)
    assert shapes.shapes()["segment"] != before
