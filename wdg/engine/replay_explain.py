"""What a replay's differences mean, layer by layer (issue #40 items 3, 5, 9).

Pure functions over bytes and parsed rows, used by the replay
(:func:`wdg.engine.replay.replay_month`):

- :func:`state_difference` classifies one differing state file: only the segment
  format (``format:``), only the password scheme (every ``password_hash`` of
  another scheme, e.g. PBKDF2 → scrypt, nothing else), or another game state;
- :func:`align_events` says, when the archived and the replayed event logs differ in
  length, which events are on one side only — aligned, so the events after them
  are compared with their counterparts, not shifted by one;
- :func:`pdf_reason` names why a PDF differs when it can be told: the HTML it is
  made from differs, the recorded WeasyPrint version differs, or only what is not
  recorded (fonts, system libraries) is left — never "None".
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from enum import Enum
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

class StateChange(Enum):
    """How a state file of a replay differs from the archived one
    (:func:`state_difference`)."""

    FORMAT = "format"
    """in nothing but ``format:``: the same game in a newer segment format"""
    PASSWORDS = "passwords"
    """in nothing but password hashes of another scheme (and perhaps ``format:``)"""
    GAME = "game"
    """anything else: another state of the game"""



def _scheme(value: Any) -> str:
    return str(value).split("$", 1)[0] if value else "-"


def _blank_hashes(data: Any, schemes: Counter) -> Any:
    """``data`` with every ``password_hash`` value replaced by its scheme's name
    (counted in ``schemes``)."""
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            if k == "password_hash":
                schemes[_scheme(v)] += 1
                out[k] = "*"
            else:
                out[k] = _blank_hashes(v, schemes)
        return out
    if isinstance(data, list):
        return [_blank_hashes(v, schemes) for v in data]
    return data


def _hashes(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [str(v) for k, v in data.items() if k == "password_hash"] + \
            [h for k, v in data.items() if k != "password_hash" for h in _hashes(v)]
    if isinstance(data, list):
        return [h for v in data for h in _hashes(v)]
    return []


def state_difference(name: str, old: bytes, new: bytes) -> tuple[StateChange, str]:
    """``(kind, text)`` of one differing state file: ``FORMAT`` — the files differ
    in nothing but ``format:``; ``PASSWORDS`` — in nothing but password hashes of
    another scheme (and perhaps ``format:``); ``GAME`` — anything else (``text``
    empty: the caller names the first differing line)."""
    if not name.endswith(".yaml"):
        return StateChange.GAME, ""
    try:
        a, b = yaml.load(old, Loader=_Loader), yaml.load(new, Loader=_Loader)
    except yaml.YAMLError:
        return StateChange.GAME, ""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return StateChange.GAME, ""
    if a.get("format") != b.get("format") and {**a, "format": 0} == {**b, "format": 0}:
        return StateChange.FORMAT, (f"{name}: nur das Segmentformat (format: "
                                    f"{a.get('format')} → {b.get('format')}); derselbe Spielstand")
    sa: Counter[str] = Counter()
    sb: Counter[str] = Counter()
    ba, bb = _blank_hashes({**a, "format": 0}, sa), _blank_hashes({**b, "format": 0}, sb)
    if ba != bb:
        return StateChange.GAME, ""
    changed = [(x, y) for x, y in zip(_hashes(a), _hashes(b)) if x != y]
    schemes = sorted({f"{_scheme(x)} → {_scheme(y)}" for x, y in changed})
    same_scheme = [1 for x, y in changed if _scheme(x) == _scheme(y)]
    if not changed or same_scheme:
        # a hash of the same scheme changed: another password, not a migration
        return StateChange.GAME, ""
    fmt = (f"; dazu das Segmentformat (format: {a.get('format')} → {b.get('format')})"
           if a.get("format") != b.get("format") else "")
    return StateChange.PASSWORDS, (f"{name}: nur das Passwortverfahren ({', '.join(schemes)}, "
                                   f"{len(changed)} Königreiche{fmt}); derselbe Spielstand — "
                                   "diese Version ersetzt alte Passwort-Hashes beim Speichern")


def _row_key(row: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in row.items() if k != "why"}, sort_keys=True,
                      ensure_ascii=False, default=str)


def _label(rows: list[dict[str, Any]], i: int) -> str:
    r = rows[i]
    where = f" {r.get('where')}" if r.get("where") else ""
    text = str(r.get("why") or "")[:60]
    return f"Nr. {i + 1} ({r.get('kind')}{where}{': ' + repr(text) if text else ''})"


def align_events(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> tuple[str, int, int]:
    """Align two event logs of different length (by content, the wording aside):
    ``(text, same, reworded)`` — which events are only archived, only made now or
    changed, and how many of the aligned ones are equal and only reworded."""
    ka, kb = [_row_key(r) for r in a], [_row_key(r) for r in b]
    sm = difflib.SequenceMatcher(a=ka, b=kb, autojunk=False)
    only_old: list[int] = []
    only_new: list[int] = []
    changed: list[tuple[int, int]] = []
    same = reworded = 0
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                if a[i] == b[j]:
                    same += 1
                else:
                    reworded += 1
        elif tag == "delete":
            only_old.extend(range(i1, i2))
        elif tag == "insert":
            only_new.extend(range(j1, j2))
        else:  # replace: pair as far as both sides go, the rest is one-sided
            n = min(i2 - i1, j2 - j1)
            changed.extend(zip(range(i1, i1 + n), range(j1, j1 + n)))
            only_old.extend(range(i1 + n, i2))
            only_new.extend(range(j1 + n, j2))
    parts = [f"{len(a)} Ereignisse archiviert, jetzt {len(b)}"]
    if only_old:
        parts.append(f"nur archiviert: {len(only_old)}, zuerst {_label(a, only_old[0])}")
    if only_new:
        parts.append(f"nur jetzt: {len(only_new)}, zuerst {_label(b, only_new[0])}")
    if changed:
        i, j = changed[0]
        keys = sorted(k for k in set(a[i]) | set(b[j]) if a[i].get(k) != b[j].get(k))
        parts.append(f"anders: {len(changed)}, zuerst {_label(a, i)} in {', '.join(keys)}")
    parts.append(f"die übrigen {same + reworded} einander zugeordnet: {same} gleich"
                 + (f", {reworded} nur im Wortlaut" if reworded else ""))
    return "; ".join(parts), same, reworded


def pdf_producer(data: bytes | None) -> str | None:
    """The ``/Producer`` of a PDF (``None``: none recorded)."""
    if not data:
        return None
    m = re.search(rb"/Producer\s*\(([^)]*)\)", data)
    return m.group(1).decode("latin-1") if m else None


def pdf_reason(old: bytes | None, new: bytes | None, *, html_differs: bool | None,
               made_with: dict[str, Any] | None, ours: dict[str, Any] | None) -> str:
    """Why a PDF differs, as far as it can be told: its HTML differs, the PDF
    producer or the recorded WeasyPrint version differs, or only what no record
    holds (fonts, system libraries) is left."""
    po, pn = pdf_producer(old), pdf_producer(new)
    if html_differs:
        return "folgt aus dem abweichenden HTML-Blatt, aus dem das PDF entsteht"
    if po != pn and (po or pn):
        return f"PDF-Erzeuger: archiviert {po or 'nicht vermerkt'}, jetzt {pn or 'nicht vermerkt'}"

    def weasy(deps: dict[str, Any] | None) -> str | None:
        d = (deps or {}).get("weasyprint")
        return str(d.get("version")) if isinstance(d, dict) and d.get("version") else None

    wa, wn = weasy(made_with), weasy(ours)
    if wa and wn and wa != wn:
        return f"andere WeasyPrint-Version (archiviert {wa}, jetzt {wn}); gleiches HTML-Blatt"
    if made_with is None:
        return ("gleiches HTML-Blatt; die WeasyPrint-Version dieses Monats ist nicht "
                "aufgezeichnet (vor wdg 0.2.0): Version, Schriften oder Systembibliotheken")
    return ("gleiches HTML-Blatt und gleiche WeasyPrint-Version"
            + (f" ({wn})" if wn else "")
            + ": Schriften oder Systembibliotheken dieses Rechners (nicht aufgezeichnet)")
