"""Replay's explanations (issue #40 items 3, 9): wdg/engine/replay_explain.py."""

from __future__ import annotations

import gzip
from pathlib import Path

from wdg.engine.replay_explain import StateChange, align_events, pdf_reason, state_difference
from wdg.world.passwords import hash_password

KINGDOMS = (Path(__file__).resolve().parent.parent / "fixtures" / "releases" / "3c97e08"
            / "worlds/canura/turns/0412-05/state/kingdoms.yaml.gz")


def test_a_password_scheme_migration_is_not_another_game():
    old = gzip.decompress(KINGDOMS.read_bytes())
    lines = old.decode().splitlines()
    assert sum("password_hash: pbkdf2_sha256$" in x for x in lines) >= 6
    new = "\n".join(x.split("password_hash:")[0] + "password_hash: " + hash_password("x")
                    if "password_hash: pbkdf2" in x else x for x in lines).encode()
    kind, text = state_difference("state/kingdoms.yaml", old, new)
    assert kind is StateChange.PASSWORDS, text
    assert "nur das Passwortverfahren (pbkdf2_sha256 → scrypt" in text and "derselbe Spielstand" in text
    other = new.replace(b"treasury: 83800", b"treasury: 83801", 1)  # a real change stays one
    assert other != new
    assert state_difference("state/kingdoms.yaml", old, other)[0] is StateChange.GAME
    same_scheme = old.replace(b"pbkdf2_sha256$50000$9", b"pbkdf2_sha256$50000$8", 1)
    assert state_difference("state/kingdoms.yaml", old, same_scheme)[0] is StateChange.GAME


def test_events_are_aligned_when_their_counts_differ():
    a = [{"kind": "tax", "kingdom": k, "why": f"Steuern {k}"} for k in range(1, 9)]
    b = a[:3] + [{"kind": "pay", "kingdom": 9, "why": "Sold"}] + \
        [dict(r, why=r["why"] + ".") for r in a[3:]]
    text, same, reworded = align_events(a, b)
    assert text.startswith("8 Ereignisse archiviert, jetzt 9"), text
    assert "nur jetzt: 1, zuerst Nr. 4 (pay" in text and "nur archiviert" not in text, text
    assert (same, reworded) == (3, 5), text  # not shifted by one: the rest is only reworded


def test_the_reason_for_a_pdf_is_named_never_none():
    pdf = b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n"
    assert "None" not in pdf_reason(pdf, pdf + b" ", html_differs=False, made_with=None, ours={})
    assert "HTML-Blatt" in pdf_reason(pdf, pdf, html_differs=True, made_with={}, ours={})
    got = pdf_reason(pdf, pdf + b" ", html_differs=False,
                     made_with={"weasyprint": {"version": "62.3"}},
                     ours={"weasyprint": {"version": "70.0"}})
    assert "andere WeasyPrint-Version (archiviert 62.3, jetzt 70.0)" in got
    got = pdf_reason(pdf, pdf + b" ", html_differs=False,
                     made_with={"weasyprint": {"version": "70.0"}},
                     ours={"weasyprint": {"version": "70.0"}})
    assert "Schriften oder Systembibliotheken" in got
