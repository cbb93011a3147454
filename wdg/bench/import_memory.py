"""Peak memory of ``wdg orders import`` against the mailbox's size (issue #30).

``python -m wdg.bench.import_memory DIR --mib 150`` writes a campaign with the demo
segment into ``DIR`` and an mbox of about that many MiB — the demo's sheets
as player mails, one mail in five with a 3 MiB attachment (over the size
limit: quarantined with its first 64 KiB) — then runs ``wdg orders import`` on
it in a process of its own and prints one JSON line: ``mbox_mib``, ``mails``,
``seconds`` and ``maxrss_mib`` (that process's peak resident set,
interpreter and libraries included). The import streams the mailbox, so
``maxrss_mib`` stays flat whatever ``--mib`` is (docs/performance.md,
"Mailbox import").
"""

from __future__ import annotations

import argparse
import json
import mailbox
import subprocess
import sys
import time
from email.message import EmailMessage
from pathlib import Path

_CHILD = """
import sys
from wdg.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
import resource
print("MAXRSS", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def write_mbox(path: Path, mib: float, sheets: list[bytes]) -> int:
    """An mbox of about ``mib`` MiB; returns the number of mails."""
    box = mailbox.mbox(str(path))
    n = 0
    blob = bytes(range(256)) * (3 * 2**20 // 256)
    try:
        while not path.exists() or path.stat().st_size < mib * 2**20:
            msg = EmailMessage()
            msg["From"] = f"spieler{n}@example.org"
            msg["Message-ID"] = f"<bench-{n}@example.org>"
            msg["Subject"] = "Spielzug"
            msg["Date"] = "Wed, 01 May 2024 10:00:00 +0200"
            msg.set_content(sheets[n % len(sheets)].decode("utf-8"))
            if n % 5 == 4:
                msg.add_attachment(blob, maintype="application", subtype="octet-stream",
                                   filename="karte.bin")
            box.add(msg)
            box.flush()
            n += 1
    finally:
        box.close()
    return n


def main(argv: list[str] | None = None) -> None:
    from wdg.campaign import copy_demo

    ap = argparse.ArgumentParser(prog="python -m wdg.bench.import_memory")
    ap.add_argument("dir", type=Path)
    ap.add_argument("--mib", type=float, default=150)
    args = ap.parse_args(argv)
    camp = copy_demo(args.dir / "kampagne")
    month = camp.root / "orders" / "canura" / "0412-04"
    sheets = [p.read_bytes() for p in sorted(month.glob("k*.txt"))]
    for p in month.glob("k*.txt"):
        p.unlink()
    box = args.dir / "posteingang.mbox"
    box.unlink(missing_ok=True)
    mails = write_mbox(box, args.mib, sheets)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, "orders", "import", "canura", str(box),
                           "-C", str(camp.root)], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    rss = [line for line in proc.stdout.splitlines() if line.startswith("MAXRSS")]
    if not rss:
        raise SystemExit(f"the import failed: {proc.stderr[-2000:]}")
    print(json.dumps({"mbox_mib": round(box.stat().st_size / 2**20, 1), "mails": mails,
                      "seconds": round(seconds, 1),
                      "maxrss_mib": round(int(rss[0].split()[1]) / 1024, 1)}))


if __name__ == "__main__":
    main()
