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
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, rng.choice([30, 120]))))
        width, indent = rng.randint(5, 30), rng.randint(0, 6)
        first = rng.choice(["", "x", "Heer 1", "Ein langer Titel"])
        assert wrap(s, width, indent, first) == _textwrap_wrap(s, width, indent, first), (s, width)
        assert hang(s, width, indent) == _textwrap_hang(s, width, indent), (s, width)


def test_the_greedy_wrap_makes_textwraps_lines():
    """Long event lines (the overview, the chronicle) are wrapped by
    render._greedy, a copy of textwrap's algorithm for text whose only
    breaking whitespace is the space: the same lines, long words cut alike."""
    from wdg.reports.render import _greedy

    rng = random.Random(3)
    alphabet = "ab cd\u00a0ä   -.x\u2003"
    checked = 0
    while checked < 3000:
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, rng.choice([5, 60, 200]))))
        width = rng.randint(1, 90)
        first = " " * rng.randint(0, 8) + rng.choice(["", "- ", "Heer 0101: "])
        rest = " " * rng.randint(0, 8)
        if len(first) >= width or len(rest) >= width:
            continue  # textwrap itself may not end there
        checked += 1
        want = textwrap.wrap(s, width=width, initial_indent=first, subsequent_indent=rest,
                             break_long_words=True, break_on_hyphens=False)
        assert _greedy(s, width, first, rest) == want, (s, width, first, rest)
