"""``wdg export SEG --archive -o FILE.tar``: the whole campaign as one self-describing package.

The package is a tar file (its members' times zeroed: the same campaign gives the
same bytes) holding one folder ``wdg-archiv-<segment>/`` laid out like a campaign:

- ``worlds/<segment>/`` the live segment's files and its whole archive ``turns/<M>/``
  (every month's inputs, state before and after, events, outputs, seed, summary,
  manifest, provenance), sheets with their passwords redacted;
- ``worlds/rules/`` the campaign's rules, ``templates/`` its own templates (if any);
- ``blobs/sha256/`` every template a month was rendered with (by hash);
- ``schemas/`` JSON Schemas of the formats (:mod:`wdg.engine.schemas`);
- ``index.json`` every file's SHA-256, and per month its manifest and provenance
  as JSON and the redacted sheets' original hashes;
- ``verify.py`` (:mod:`wdg.store.export_verify`): checks all of it with Python's
  standard library alone; ``README.md`` says what is where and how to verify.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

from wdg import __version__
from wdg.campaign import PACKAGE_ROOT, Campaign
from wdg.engine import schemas
from wdg.errors import StateError
from wdg.orders.parser import redact_passwords
from wdg.provenance import build_info, describe
from wdg.rules import safe_load_file
from wdg.software import dependency_wheels, wdg_wheel
from wdg.store.blobs import BLOBS
from wdg.store.months import TURNS, read_provenance

README = """# Archiv der Kampagne: Segment {segment}

Geschrieben von {made_by} mit `wdg export {segment} --archive`.
Monate: {months}.

## Prüfen / verify

    python3 -I verify.py

prüft mit der Standardbibliothek von Python allein (kein wdg, kein YAML-Modul nötig):
jede Datei gegen `index.json`, jeden Monat gegen sein Manifest (auch komprimierte
Dateien und Mitglieder von `pack.tar.xz`), jede Eingabe gegen `provenance.yaml`, die
Vorlagen in `blobs/`, die Kette der Monate (keine Lücke, jeder Monat nennt den
SHA-256 des Manifests des Vormonats). Exit-Code 0: alles in Ordnung.

Checks every file against `index.json`, every month against its manifest, every
input against its provenance record, the templates, and the chain of months, with
Python's standard library alone.

### Ein Monat mit `sha256sum` / one month with `sha256sum`

Die Liste `SHA256SUMS` eines Monats nennt die Spielzüge so, wie sie archiviert
wurden: mit Passwort. In diesem Paket sind die Passwörter geschwärzt, darum meldet
`sha256sum -c SHA256SUMS` die Spielzüge `orders/k<n>.txt` als FAILED. Alle anderen
Zeilen prüft:

    cd worlds/{segment}/turns/<JJJJ-MM>
    grep -v '  orders/' SHA256SUMS | sha256sum -c

Die ursprünglichen Hashes der geschwärzten Spielzüge stehen in `index.json`
(`redacted`, je Monat); `verify.py` prüft, daß sie die Hashes sind, die
`provenance.yaml` für die Spielzüge nennt.

A month's `SHA256SUMS` lists the sheets as archived, with their passwords; here they
are redacted, so check the other lines with the command above (`verify.py` checks
the sheets' original hashes in `index.json` against `provenance.yaml`).

## Inhalt / contents

- `worlds/{segment}/` das Segment (Stand nach dem letzten Monat) und `turns/<JJJJ-MM>/`,
  jeder archivierte Monat: `state-before/` (Stand davor), `orders/` (Spielzüge, die
  Passwörter geschwärzt: `******`), `rules/`, `inputs/`, `seed.yaml`,
  `events.jsonl.xz` (Ereignisse, JSON Lines), `state/` (Stand danach), `outputs/`
  (alle Berichte, `pack.tar.xz`: `tar xJf`), `manifest.yaml` (SHA-256 jeder Ausgabe),
  `summary.yaml`, `provenance.yaml` (womit der Monat ausgewertet wurde: wdg-Version,
  Commit, Python, jede Abhängigkeit, die Hashes aller Eingaben und Vorlagen).
- `blobs/sha256/<hash>`: die Vorlagen, mit denen die Monate gerendert wurden.
- `worlds/rules/`, `templates/`: Regeln und eigene Vorlagen der Kampagne.
- `schemas/`: JSON Schemas der Formate (index.json, provenance, manifest, seed,
  summary, ein Ereignis, der JSON-Bericht).
- `index.json`: SHA-256 jeder Datei; je Monat Manifest und Herkunft als JSON; die
  Original-Hashes geschwärzter Spielzüge.

Die Passwörter der Spielzüge sind geschwärzt; deshalb läßt sich ein Monat aus diesem
Paket nicht erneut auswerten (die Spielzüge würden abgelehnt) — das Paket dient dem
Nachweis und dem Lesen. Für eine Wiederholung dient das Original-Archiv der Kampagne
(docs/turns.md, "Replay").
"""


def _redact(data: bytes) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    return redact_passwords(text).encode("utf-8", "surrogateescape")


def _software(files: dict[str, bytes], months: list[dict[str, Any]]) -> dict[str, Any]:
    """Add ``software/`` to ``files``: the wheels of the running wdg and of every
    distribution it needs (built from the installed files, no network), and
    ``requirements.txt`` with each one's SHA-256; returns what the index records:
    the wheels, the months this very wheel resolved, and where a month's recorded
    dependency versions differ from the packed ones."""
    own = wdg_wheel()
    wheels = [("wdg", own.sha256, own)] + [
        (d.metadata["Name"], d.version, w) for d, w in dependency_wheels()]
    lines = []
    record: dict[str, Any] = {"wdg": {"file": own.filename, "sha256": own.sha256},
                              "dependencies": {}}
    for name, version, w in wheels:
        files[f"software/wheels/{w.filename}"] = w.data
        if name != "wdg":
            record["dependencies"][name.lower()] = {"version": version, "file": w.filename,
                                                    "sha256": w.sha256}
            lines.append(f"{name}=={version} --hash=sha256:{w.sha256}")

    lines.append(f"wdg=={__version__} --hash=sha256:{own.sha256}")
    files["software/requirements.txt"] = "".join(f"{x}\n" for x in sorted(lines)).encode()

    exact, differs, others = [], {}, {}
    packed = {k.replace("_", "-").replace(".", "-"): v["version"]
              for k, v in record["dependencies"].items()}
    for m in months:
        prov = m.get("provenance") or {}
        if (prov.get("wdg") or {}).get("wheel_sha256") == own.sha256:
            exact.append(m["month"])
        else:
            others[m["month"]] = describe(prov.get("wdg")) if prov else describe(None)
        other = {name: f"{d.get('version')} → {packed[name]}"
                 for name, d in sorted((prov.get("dependencies") or {}).items())
                 if name in packed and isinstance(d, dict) and d.get("version") != packed[name]}
        if other:
            differs[m["month"]] = other
    record["exact_months"] = exact
    record["other_software"] = others
    record["dependency_versions_differ"] = differs
    return record


def _files_of(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())


SOFTWARE_README = """
## Die Software / the exact version (`--software`)

`software/wheels/` enthält das Wheel von {made_by} (aus dem installierten Code beim
Export gebaut, SHA-256 {wdg_sha}) und die Wheels seiner Abhängigkeiten, aus den
installierten Dateien gepackt (jede gegen ihren RECORD geprüft);
`software/requirements.txt` nennt jede mit ihrem SHA-256. Ohne Netz:

    python3 -m venv /tmp/wdg-exakt
    /tmp/wdg-exakt/bin/pip install --no-index --find-links software/wheels \\
        --require-hashes -r software/requirements.txt
    /tmp/wdg-exakt/bin/wdg turn replay {segment} JJJJ-MM -C .

Monate, die genau dieses Wheel ausgewertet hat (ihre provenance.yaml nennt seinen
SHA-256): {exact}. Die Spielzüge sind in diesem Paket NICHT geschwärzt (eine
Wiederholung prüft ihre Passwörter); das Paket ist so vertraulich wie die Kampagne.
"""


def export_archive(camp: Campaign, segment: str, out: Path, *,
                   software: bool = False) -> dict[str, Any]:
    """Write the package of ``segment`` to ``out`` (a tar file); returns its index.

    ``software``: add ``software/`` (the running wdg's wheel and its dependencies'
    wheels, :mod:`wdg.software`, with ``requirements.txt`` and their hashes), keep the
    sheets as they are (a replay checks their passwords) and the template blobs also
    where a campaign has them (``worlds/<seg>/turns/.blobs/``): the unpacked folder is
    a campaign that replays offline (docs/turns.md, "Replaying with the exact version")."""
    seg_dir = camp.segment_dir(segment)
    if not (seg_dir / "segment.yaml").is_file():
        raise StateError(f"kein Segment {segment!r} in {camp.worlds}")
    top = f"wdg-archiv-{segment}"
    files: dict[str, bytes] = {}
    months: list[dict[str, Any]] = []
    skip = {".lock"}
    for p in _files_of(seg_dir):
        rel = p.relative_to(seg_dir)
        parts = rel.parts
        if parts[0] in skip or parts[0].startswith((".gen-", ".commit")):
            continue
        if parts[0] == TURNS and len(parts) > 1 and parts[1].startswith("."):
            continue  # staging, undone, abandoned months and the blobs (below)
        data = p.read_bytes()
        files[f"worlds/{segment}/{rel.as_posix()}"] = data
    turns = seg_dir / TURNS
    month_dirs = sorted(d for d in turns.iterdir() if d.is_dir() and not d.name.startswith(".")) \
        if turns.is_dir() else []
    for mdir in month_dirs:
        manifest = safe_load_file(mdir / "manifest.yaml") if (mdir / "manifest.yaml").is_file() \
            else None
        prov = read_provenance(mdir)
        entry: dict[str, Any] = {
            "month": mdir.name,
            "manifest": {str(k): str(v) for k, v in ((manifest or {}).get("files") or {}).items()},
            "provenance": prov,
            "redacted": {},
        }
        orders = mdir / "orders"
        for p in sorted(orders.glob("*.txt")) if orders.is_dir() else []:
            key = f"worlds/{segment}/{TURNS}/{mdir.name}/orders/{p.name}"
            original = files[key]
            red = original if software else _redact(original)
            if red != original:
                files[key] = red
                entry["redacted"][f"orders/{p.name}"] = {
                    "original_sha256": hashlib.sha256(original).hexdigest(),
                    "note": "Passwort geschwärzt / password redacted"}
        for digest in sorted(((prov or {}).get("templates") or {}).values()):
            blob = turns / BLOBS / "sha256" / str(digest)
            if blob.is_file():
                files[f"blobs/sha256/{digest}"] = blob.read_bytes()
                if software:
                    files[f"worlds/{segment}/{TURNS}/{BLOBS}/sha256/{digest}"] = blob.read_bytes()
        months.append(entry)
    rules = camp.worlds / "rules"
    for p in _files_of(rules) if rules.is_dir() else []:
        files[f"worlds/rules/{p.relative_to(rules).as_posix()}"] = p.read_bytes()
    if camp.templates_dir.is_dir():
        for p in _files_of(camp.templates_dir):
            files[f"templates/{p.relative_to(camp.templates_dir).as_posix()}"] = p.read_bytes()
    for name, schema in schemas.SCHEMAS.items():
        files[f"schemas/{name}.schema.json"] = (json.dumps(schema, ensure_ascii=False, indent=1,
                                                           sort_keys=True) + "\n").encode("utf-8")
    report_schema = PACKAGE_ROOT / "docs" / "report-schema.json"
    if report_schema.is_file():
        files["schemas/report.schema.json"] = report_schema.read_bytes()
    files["verify.py"] = (Path(__file__).parents[1] / "store" / "export_verify.py").read_bytes()
    readme = README.format(segment=segment, made_by=describe(build_info()),
                           months=", ".join(m["month"] for m in months) or "keine")
    soft: dict[str, Any] | None = None
    if software:
        soft = _software(files, months)
        readme += SOFTWARE_README.format(made_by=describe(build_info()), segment=segment,
                                         wdg_sha=soft["wdg"]["sha256"],
                                         exact=", ".join(soft["exact_months"]) or "keine")
    files["README.md"] = readme.encode("utf-8")
    index = {"format": 1, "segment": segment, "made_by": dict(build_info()),
             "months": months,
             **({"software": soft} if soft is not None else {}),
             "files": {k: hashlib.sha256(v).hexdigest() for k, v in sorted(files.items())}}
    files["index.json"] = (json.dumps(index, ensure_ascii=False, indent=1, sort_keys=True)
                           + "\n").encode("utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mtime = len(data), 0
            private = name.rsplit("/", 1)[-1].startswith(("kingdoms.yaml", "segment.yaml"))
            info.mode = 0o755 if name == "verify.py" else 0o600 if private else 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    tmp.replace(out)
    return index
