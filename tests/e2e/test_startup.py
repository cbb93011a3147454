"""The command line starts fast: WeasyPrint (about a second to import) is loaded
only when a PDF is rendered, not for `wdg kingdom list` or a player's `wdg orders check`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_cli_does_not_import_weasyprint_until_a_pdf_is_rendered():
    code = ("import sys, wdg.cli, wdg.reports.archived, wdg.reports.batch; "
            "print('weasyprint' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    assert out.strip() == "False"


def _imported(*args: str) -> set[str]:
    """The modules ``wdg ARGS`` imports (``python -X importtime``), run in the checkout."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "wdg", *args],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_help_and_the_players_checker_load_no_heavy_library():
    """`wdg --help` and `wdg orders check` on a demo sheet (docs/architecture.md,
    "Imports inside functions"): neither loads WeasyPrint, matplotlib or Dask;
    the checker not jinja2 either (what they import was measured when the
    imports of wdg modules moved to the tops of their modules)."""
    heavy = {"weasyprint", "matplotlib", "dask", "distributed"}
    helped = _imported("--help")
    assert "wdg.cli" in helped and heavy & helped == set()
    checked = _imported("orders", "check", "orders/canura/0412-04/k3.txt")
    assert "wdg.orders.checker" in checked
    assert (heavy | {"jinja2"}) & checked == set()
