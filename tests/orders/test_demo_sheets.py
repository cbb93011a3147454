"""The demo campaign's sheets (the shipped ``worlds/canura/``): valid for its first
month; the example has mistakes."""

from __future__ import annotations

import pytest

from wdg.campaign import PACKAGE_ROOT, Campaign
from wdg.orders.sheetfile import check_file, demo_verdicts

ROOT = PACKAGE_ROOT


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_each_demo_sheet_checks_without_errors_or_warnings(n):
    """Without errors; without warnings but those the forecast gives a move the
    range cuts short (kingdom 2's is the example of docs/players.md,
    "Vorschau"; issue #42: the checker warns at what the forecast foresees)."""
    out, errors = check_file(ROOT / "orders" / "canura" / "0412-04" / f"k{n}.txt",
                             campaign=Campaign(ROOT))
    warnings = [line for line in out.splitlines() if ">>> Warnung" in line]
    assert errors == 0 and out.rstrip().endswith(
        f"0 Fehler, {len(warnings)} Warnung{'' if len(warnings) == 1 else 'en'}"), out
    assert all("Vorschau: voraussichtlich nur teilweise ausgeführt (Reichweite) – Die "
               "Bewegungsreichweite ist erschöpft" in w for w in warnings), out
    assert (n in (2, 5)) == bool(warnings), out


def test_the_example_with_typical_mistakes_has_errors_and_stays_out_of_the_month():
    out, errors = check_file(ROOT / "orders" / "canura" / "examples" / "fehlerhaft.txt",
                             campaign=Campaign(ROOT))
    assert errors == 11  # the orders of the two refused armies carry their own errors
    assert "meinten Sie 'Bewegung'?" in out
    verdict = demo_verdicts(Campaign(ROOT))
    assert "fehlerhaft.txt" not in verdict.split("Beispiel")[0]
