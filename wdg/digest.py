"""The month's digest: the hash that closes the chain at a month, printed where it
leaves the disk (issue #40 item 7; docs/storage.md, "The month's digest").

A month's digest is the SHA-256 of one line per input of the month, sorted by
path — ``<SHA-256 of the content>  <path>`` for every file of ``state-before/``,
``orders/`` (the sheets as received, the game master's ``sl.txt``), ``rules/``,
``inputs/`` and ``seed.yaml``, compressed files by their content under their
plain name, exactly the ``inputs`` a month's ``provenance.yaml`` lists — under a
first line naming the scheme, the segment and the month. Since 0.3.0 the inputs
include ``inputs/previous-digest.txt``, the digest of the month before: each
digest covers every month before it. The outputs (state after, events,
reports) follow from the inputs (a replay proves it byte for byte), so the
digest covers them too.

The digest is printed in the Götterbotschaft, in every result sheet (text, HTML,
PDF) and in every result mail. A player who keeps it can later ask the game
master to show that the archive still holds the month they were sent:
``wdg turn verify-digest SEG MONTH HASH`` recomputes the digest from the
archived files and walks the chain back. Someone who undoes two months, changes
a sheet and re-runs them produces other digests than the players were sent.
"""

from __future__ import annotations

import gzip
import hashlib
import lzma
from dataclasses import dataclass, field
from pathlib import Path

SCHEME = "wdg-monatspruefsumme 1"
PREVIOUS = "previous-digest.txt"
"""``inputs/previous-digest.txt``: the digest of the month before (one line), an input."""
INPUT_FOLDERS = ("state-before", "orders", "rules", "inputs")
_SUFFIXES = {".gz": gzip.decompress, ".xz": lzma.decompress}


def content(path: Path) -> bytes:
    """A stored file's content (compressed files decompressed)."""
    data = path.read_bytes()
    dec = _SUFFIXES.get(path.suffix)
    return dec(data) if dec and not path.name.endswith(".npz") else data


def _plain_name(rel: str) -> str:
    for suffix in _SUFFIXES:
        if rel.endswith(suffix):
            return rel[: -len(suffix)]
    return rel


def input_hashes(mdir: Path, extra: dict[str, bytes] | None = None) -> dict[str, str]:
    """``{path: SHA-256 of the content}`` of every input of the month folder
    ``mdir``; ``extra``: inputs not yet stored (``inputs/<name>`` -> bytes)."""
    out: dict[str, str] = {}
    for folder in INPUT_FOLDERS:
        d = mdir / folder
        if not d.is_dir():
            continue
        for p in sorted(d.iterdir()):
            if p.is_file() and not p.name.startswith("."):
                if folder == "orders" and p.suffix not in (".txt", ".gz", ".xz"):
                    continue
                rel = _plain_name(f"{folder}/{p.name}")
                out[rel] = hashlib.sha256(content(p)).hexdigest()
    if (mdir / "seed.yaml").is_file():
        out["seed.yaml"] = hashlib.sha256((mdir / "seed.yaml").read_bytes()).hexdigest()
    for name, data in (extra or {}).items():
        out[f"inputs/{name}"] = hashlib.sha256(data).hexdigest()
    return dict(sorted(out.items()))


def digest_of(segment: str, month: str, inputs: dict[str, str]) -> str:
    """The digest of a month with these input hashes."""
    text = f"{SCHEME}\nsegment {segment}\nmonth {month}\n" + "".join(
        f"{sha}  {path}\n" for path, sha in sorted(inputs.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def month_digest(mdir: Path, segment: str, extra: dict[str, bytes] | None = None) -> str:
    """The digest of the archived (or staged) month folder ``mdir``."""
    return digest_of(segment, mdir.name if not mdir.name.startswith(".") else
                     mdir.name.split("-", 1)[-1], input_hashes(mdir, extra))


def previous_digest(turns: Path, segment: str, month: str) -> str:
    """The digest of the month archived before ``month`` in ``turns`` (``-``: none)."""
    months = sorted(d.name for d in turns.iterdir() if d.is_dir() and not d.name.startswith(".")
                    and d.name < month) if turns.is_dir() else []
    return month_digest(turns / months[-1], segment) if months else "-"


def recorded_previous(mdir: Path) -> str | None:
    """The previous month's digest as the month recorded it (``None``: a month
    archived before 0.3.0 records none)."""
    for name in (PREVIOUS, PREVIOUS + ".xz", PREVIOUS + ".gz"):
        p = mdir / "inputs" / name
        if p.is_file():
            return content(p).decode("utf-8", "replace").strip()
    return None


@dataclass(slots=True)
class Check:
    """What :func:`verify` found: ``ok`` and one German line per finding."""

    ok: bool
    digest: str
    lines: list[str] = field(default_factory=list)


def verify(turns: Path, segment: str, month: str, quoted: str) -> Check:
    """Check ``quoted`` (a digest a player was sent) against the archived month
    ``month``, and the chain from that month back to the first: every month's
    recorded previous digest equals the digest of the month before as archived."""
    mdir = turns / month
    quoted = quoted.strip().lower()
    if not mdir.is_dir():
        return Check(False, "", [f"Mond {month} ist in {turns} nicht archiviert"])
    got = month_digest(mdir, segment)
    lines: list[str] = []
    ok = got == quoted
    if ok:
        lines.append(f"{month}: Prüfsumme stimmt ({got}) — die archivierten Eingaben des "
                     "Monds sind die, deren Ergebnis mit dieser Prüfsumme verschickt wurde "
                     f"(die Ausgaben prüft 'wdg turn replay {segment} {month}')")
    else:
        lines.append(f"{month}: Prüfsumme WEICHT AB — genannt {quoted}, aus dem Archiv "
                     f"berechnet {got}: der archivierte Mond ist nicht der, dessen "
                     "Ergebnis mit dieser Prüfsumme verschickt wurde")
    months = sorted(d.name for d in turns.iterdir() if d.is_dir() and not d.name.startswith(".")
                    and d.name <= month)
    unrecorded = []
    for before, this in zip(months, months[1:]):
        rec = recorded_previous(turns / this)
        if rec is None:
            unrecorded.append(this)
            continue
        want = month_digest(turns / before, segment)
        if rec != want:
            ok = False
            lines.append(f"Kette: {this} nennt als Prüfsumme des Vormonds {before} {rec}, "
                         f"das Archiv ergibt {want} — {before} wurde nachträglich verändert")
    if unrecorded:
        lines.append("Kette vor wdg 0.3.0 nicht aufgezeichnet (keine Prüfsumme des Vormonds): "
                     + ", ".join(unrecorded))
    elif len(months) > 1 and ok:
        lines.append(f"Kette: {len(months) - 1} Verknüpfungen bis {months[0]} stimmen")
    return Check(ok, got, lines)
