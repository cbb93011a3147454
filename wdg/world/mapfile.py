"""``map.txt``: the terrain layer as readable rows of two-character map codes.

One text row per gemark row; codes separated by one blank; odd rows indented
by one character so that the hex layout (odd-r offset) shows. Lines starting
with ``#`` are comments (the header with size and legend); blank lines are
ignored. Codes are those of :mod:`wdg.world.terrain` (``~M``, ``T.``, ``Hw``...).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wdg.errors import DataError
from wdg.world.address import Grid
from wdg.world.terrain import BY_CODE, TERRAINS

_CODES = np.array([t.code for t in TERRAINS])


def render_map(terrain: np.ndarray, name: str, grid: Grid) -> str:
    """The text of ``map.txt`` for a terrain layer."""
    rows, cols = terrain.shape
    head = [
        f"# map of segment {name}: {cols} columns x {rows} rows of gemarks "
        f"({grid.prov_cols}x{grid.prov_rows} provinces of 8x6)",
        "# one line per gemark row, top to bottom; odd rows are indented (hex layout)",
        "# legend:",
    ]
    legend = [f"{t.code} {t.name}" for t in TERRAINS]
    for i in range(0, len(legend), 4):
        head.append("#   " + "   ".join(f"{x:<24}" for x in legend[i:i + 4]).rstrip())
    codes = _CODES[terrain]
    body = [(" " if r % 2 else "") + " ".join(codes[r].tolist()) for r in range(rows)]
    return "\n".join(head + body) + "\n"


def write_map(path: Path, terrain: np.ndarray, name: str, grid: Grid) -> None:
    """Write ``map.txt``."""
    path.write_text(render_map(terrain, name, grid), encoding="utf-8")


def read_map(path: Path, grid: Grid) -> np.ndarray:
    """Read ``map.txt`` into a uint8 terrain layer of ``grid.shape``; an unknown
    code, a short or long row or a wrong row count is a DataError with the line
    (and column)."""
    p = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(p, None, "Datei fehlt", "die Geländekarte map.txt") from None
    except UnicodeDecodeError as exc:
        raise DataError(p, None, f"Byte {exc.start}", "UTF-8-Text") from None
    out = np.zeros(grid.shape, dtype=np.uint8)
    row = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if row >= grid.rows:
            raise DataError(p, None, line.strip()[:20], f"nur {grid.rows} Kartenzeilen "
                            f"(das Segment hat {grid.prov_rows} Provinzzeilen)", line=lineno)
        out[row] = _parse_row(p, line, lineno, grid, row)
        row += 1
    if row != grid.rows:
        raise DataError(p, None, f"{row} Kartenzeilen", f"{grid.rows} Zeilen von Gemarken", line=None)
    return out


def _parse_row(p: str, line: str, lineno: int, grid: Grid, row: int) -> list[int]:
    ids = []
    col = 0
    pos = 0
    n = len(line)
    while pos < n:
        if line[pos] in " \t":
            pos += 1
            continue
        code = line[pos:pos + 2]
        t = BY_CODE.get(code)
        if t is None or (pos + 2 < n and line[pos + 2] not in " \t"):
            word = line[pos:].split()[0]
            raise DataError(p, f"Spalte {pos + 1}", word,
                            "einen Geländecode aus zwei Zeichen wie '~M', 'T.', 'Hw' "
                            "(siehe die Legende am Anfang der Datei)", line=lineno)
        if col >= grid.cols:
            raise DataError(p, f"Spalte {pos + 1}", code,
                            f"{grid.cols} Codes je Zeile (Zeilenende)", line=lineno)
        ids.append(t.id)
        col += 1
        pos += 2
    if col != grid.cols:
        raise DataError(p, None, f"{col} Codes", f"{grid.cols} Codes je Zeile", line=lineno)
    return ids
