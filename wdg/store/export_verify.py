#!/usr/bin/env python3
"""Verify a wdg archive package (``wdg export --archive``) with Python's standard library alone.

Shipped inside every package as ``verify.py``; run it in the unpacked package:

    python3 -I verify.py [PACKAGE_DIR]

It checks (exit code 0 when everything holds, 1 otherwise, one line per problem):

1. every file listed in ``index.json`` exists with its SHA-256, and no other file is there;
2. every archived month's manifest: the content of each output (stored as it is,
   gzip/xz-compressed as ``name.gz``/``name.xz``, or a member of a ``pack.tar.xz``)
   has the SHA-256 the manifest gives;
3. every month's provenance record: each input (state before, sheets, rules, further
   inputs, seed) has the recorded SHA-256 — sheets whose passwords were redacted for
   the export are compared by the hash of the original the index records;
4. every template a month names exists in ``blobs/`` with the hash it is named by;
5. the chain: the months follow each other without a gap, and each month's provenance
   names the SHA-256 of the previous month's manifest.

No third-party module is imported (YAML files are not parsed: the index carries the
manifests and provenance records as JSON).
"""

import gzip
import hashlib
import io
import json
import lzma
import sys
import tarfile
from pathlib import Path


def sha(data):
    return hashlib.sha256(data).hexdigest()


def content(path):
    """The content of a stored file: .gz and .xz decompressed."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        return gzip.decompress(data)
    if path.suffix == ".xz":
        return lzma.decompress(data)
    return data


_PACKS: dict = {}


def pack_members(pack):
    if pack not in _PACKS:
        members = {}
        with tarfile.open(fileobj=io.BytesIO(lzma.decompress(pack.read_bytes()))) as tar:
            for m in tar.getmembers():
                f = tar.extractfile(m) if m.isfile() else None
                if f is not None:
                    members[m.name] = f.read()
        _PACKS.clear()
        _PACKS[pack] = members
    return _PACKS[pack]


def stored(month, name):
    """The bytes a manifest hash of ``name`` is taken of (see wdg.store.files.stored_bytes)."""
    path = month / name
    if path.is_file():
        return path.read_bytes()
    for suffix in (".gz", ".xz"):
        p = path.with_name(path.name + suffix)
        if p.is_file():
            return content(p)
    for d in path.parents:
        if d == month.parent:
            break
        if (d / "pack.tar.xz").is_file():
            rel = path.relative_to(d).as_posix()
            members = pack_members(d / "pack.tar.xz")
            if rel in members:
                return members[rel]
            break
    raise FileNotFoundError(name)


def next_month(key):
    year, month = int(key[:4]), int(key[5:7])
    return f"{year + (month == 12):04d}-{month % 12 + 1:02d}"


def input_hashes(month):
    out = {}
    for folder in ("state-before", "orders", "rules", "inputs"):
        root = month / folder
        if not root.is_dir():
            continue
        for p in sorted(root.rglob("*")):
            if p.is_file():
                rel = p.relative_to(month).as_posix()
                if p.suffix in (".gz", ".xz"):
                    rel = rel[:-3]
                out[rel] = sha(content(p))
    if (month / "seed.yaml").is_file():
        out["seed.yaml"] = sha((month / "seed.yaml").read_bytes())
    return out


def verify(root):
    problems = []
    index = json.loads((root / "index.json").read_text(encoding="utf-8"))
    files = index["files"]
    for rel, digest in sorted(files.items()):
        p = root / rel
        if not p.is_file():
            problems.append(f"{rel}: fehlt / missing")
        elif sha(p.read_bytes()) != digest:
            problems.append(f"{rel}: SHA-256 weicht ab / hash differs")
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and rel != "index.json" and rel not in files:
            problems.append(f"{rel}: nicht im Index / not listed in index.json")
    seg = index["segment"]
    turns = root / "worlds" / seg / "turns"
    keys = [m["month"] for m in index["months"]]
    for a, b in zip(keys, keys[1:]):
        if next_month(a) != b:
            problems.append(f"Monate {a} → {b}: Lücke in der Kette / gap in the chain")
    previous = None
    for m in index["months"]:
        key = m["month"]
        mdir = turns / key
        for name, digest in sorted(m["manifest"].items()):
            try:
                ok = sha(stored(mdir, name)) == digest
            except (OSError, EOFError, lzma.LZMAError, tarfile.TarError, FileNotFoundError):
                ok = False
            if not ok:
                problems.append(f"worlds/{seg}/turns/{key}/{name}: Inhalt weicht vom Manifest ab "
                                "/ content differs from the manifest")
        prov = m.get("provenance")
        if prov:
            redacted = m.get("redacted", {})
            try:
                now = input_hashes(mdir)
            except (OSError, EOFError, lzma.LZMAError) as e:
                problems.append(f"worlds/{seg}/turns/{key}: Eingaben nicht lesbar ({e})")
                now = {}
            for name, digest in sorted(prov.get("inputs", {}).items()):
                have = redacted.get(name, {}).get("original_sha256") if name in redacted \
                    else now.get(name)
                if have != digest:
                    problems.append(f"worlds/{seg}/turns/{key}/{name}: Eingabe weicht von "
                                    "provenance.yaml ab / input differs from the provenance")
            for name, digest in sorted((prov.get("templates") or {}).items()):
                blob = root / "blobs" / "sha256" / digest
                if not blob.is_file() or sha(blob.read_bytes()) != digest:
                    problems.append(f"blobs/sha256/{digest} ({name}): Vorlage fehlt oder "
                                    "beschädigt / template missing or damaged")
            link = prov.get("previous_month")
            if previous is not None and link and link.get("month") == previous[0] \
                    and link.get("manifest_sha256") != previous[1]:
                problems.append(f"{key}: provenance nennt ein anderes Manifest von {previous[0]} "
                                "/ the chain to the previous month is broken")
        manifest_file = mdir / "manifest.yaml"
        previous = (key, sha(manifest_file.read_bytes()) if manifest_file.is_file() else None)
    return problems, index


def main(argv):
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parent)
    try:
        problems, index = verify(root)
    except (OSError, ValueError, KeyError) as e:
        print(f"Paket nicht lesbar / package unreadable: {e}")
        return 1
    for p in problems:
        print(p)
    n = len(index["months"])
    if problems:
        print(f"{len(problems)} Problem(e) in {n} Monaten / problems found")
        return 1
    print(f"Paket in Ordnung: {len(index['files'])} Dateien, {n} Monate "
          f"({', '.join(m['month'] for m in index['months'])}) / package verified")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
