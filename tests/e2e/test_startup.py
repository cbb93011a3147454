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
