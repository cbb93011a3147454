"""The text sheet's wrap/hang helpers take a short cut for lines that fit;
their output must stay exactly textwrap's (the sheets are archived and
replayed byte for byte)."""

from __future__ import annotations

import random
import textwrap

from wdg.reports.render import WIDTH, hang, wrap


def _textwrap_wrap(text: str, width: int = WIDTH, indent: int = 0, first: str = "") -> str:
    lead = first.ljust(indent) if first else " " * indent
    sub = " " * indent
    out: list[str] = []
    for i, para in enumerate(text.split("\n")):
        if not para.strip():
            out.append("")
            continue
        out.extend(textwrap.wrap(para.strip(), width=width, initial_indent=lead if i == 0 else sub,
                                 subsequent_indent=sub, break_long_words=True,
                                 break_on_hyphens=False) or [lead.rstrip()])
    return "\n".join(out)


def _textwrap_hang(text: str, width: int = WIDTH, indent: int = 4) -> str:
    return "\n".join(textwrap.wrap(text, width=width, subsequent_indent=" " * indent,
                                   break_long_words=True, break_on_hyphens=False,
                                   drop_whitespace=True))


def test_wrap_and_hang_equal_textwrap_on_random_text():
    rng = random.Random(20261124)
    alphabet = "ab cd\u00a0ä  \t\r\x0b\x0c\n-.\u2003"
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        width, indent = rng.randint(5, 30), rng.randint(0, 6)
        first = rng.choice(["", "x", "Heer 1", "Ein langer Titel"])
        assert wrap(s, width, indent, first) == _textwrap_wrap(s, width, indent, first), (s, width)
        assert hang(s, width, indent) == _textwrap_hang(s, width, indent), (s, width)
