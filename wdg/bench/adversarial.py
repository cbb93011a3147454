"""Adversarial player text (issues "mail intake" and "player text"): 512 kB
sheets — the mail size limit — built to be the worst case for each reader.

* the parser and checker on a 100,000-line sheet (target < 1 s), on a 1 MB
  single line (target < 0.1 s), on one 512 kB word, on 512 kB of words, on a
  100,000-blank run;
* the mail import of one 512 kB mail of each kind;
* the month's extra time for each content rule: reading the sheet (parse and
  check) plus the content filter over everything it would forward, for a
  512 kB BOTSCHAFT built against each pattern of ``diplomacy.yaml``
  (target < 1 s each); and, for the record, the filter on 512 kB of raw text
  without the parser's length bounds.

Run it alone with ``python -m wdg.bench --only adversarial --out FILE``.
"""

from __future__ import annotations

from functools import partial
import mailbox
from email.message import EmailMessage
from pathlib import Path

from wdg.bench.harness import Results, repeat, seconds_figure
from wdg.campaign import PACKAGE_ROOT, Campaign
from wdg.engine.diplomacy import content_problems
from wdg.orders.checker import check_sheet
from wdg.orders.intake import import_mailbox
from wdg.orders.parser import parse_sheet
from wdg.orders.view import KingdomView, build_view
from wdg.rules import Rules
from wdg.store.segment import load_segment, save_segment

G = "adversarial"
SIZE = 512_000
HEAD = "Segment: canura\nKönigreich: 3\nPasswort: canura-3\nK\nDS 1 +\n"


def _parse_and_check(text: str, view: KingdomView) -> None:
    check_sheet(parse_sheet(text), view)


def _fill(unit: str, size: int = SIZE) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def sheets() -> dict[str, str]:
    """The adversarial sheets by name (each about 512 kB, the 1 MB line excepted)."""
    return {
        "100,000 lines": HEAD + "F+ 10\n" * 100_000,
        "1 MB single line": HEAD + "F+ " + "9" * 1_000_000 + "\n",
        "one 512 kB word": HEAD + _fill("W") + "\n",
        "512 kB of unknown words, one a line": HEAD + "".join(
            f"Wort{i}\n" for i in range(SIZE // 9)),
        "512 kB of words": HEAD + _fill("Wort Heer b NW A: ") + "\n",
        "100,000-blank run": HEAD + "Passwort:" + " " * 100_000 + "x\n" + "Heer 0301"
        + " " * 100_000 + "x\n" + " " * 300_000 + ":\n",
    }


def message_sheets() -> dict[str, str]:
    """A 512 kB BOTSCHAFT built against each content pattern."""
    worst = {
        "one word": _fill("a"),
        "many words": _fill("Frieden und Handel "),
        "e-mail pattern": _fill("a.") + "@",
        "internet pattern": _fill("a-") + ".d",
        "telephone pattern": "0" + _fill("1 "),
        "street pattern": _fill("gassenweg"),
    }
    return {name: HEAD + "BOTSCHAFT 1\n" + text + "\nENDE\n" for name, text in worst.items()}


def run_all(work: Path, res: Results, quick: bool) -> None:
    """Every adversarial figure."""
    runs = 2 if quick else 3
    camp = Campaign(work / "adversarial")
    save_segment(load_segment(PACKAGE_ROOT / "worlds" / "canura"),
                 camp.root / "worlds" / "canura")
    seg = load_segment(camp.root / "worlds" / "canura")
    view = build_view(seg, 3)
    rules = Rules.load(PACKAGE_ROOT / "worlds" / "rules")
    for name, text in sheets().items():
        limit = 0.1 if name == "1 MB single line" else 1.0
        t = repeat(partial(_parse_and_check, text, view), runs)
        res.add(seconds_figure(G, f"parse + check: {name}", t, limit=limit,
                               note=f"{len(text.encode()):,} bytes"))
    for name, text in message_sheets().items():
        def month_part(text: str = text) -> None:
            sheet = parse_sheet(text)
            check_sheet(sheet, view)
            for said in [m.text for m in sheet.messages] + [a.text for a in sheet.announcements]:
                content_problems(seg, rules, said)

        t = repeat(month_part, runs)
        res.add(seconds_figure(G, f"month's extra time, 512 kB BOTSCHAFT: {name}", t, limit=1.0,
                               note="parse + check of the sheet + content filter of what it "
                               "forwards (the parser bounds a message at text.yaml's "
                               "message_length)"))
        raw = text.split("BOTSCHAFT 1\n", 1)[1]
        t = repeat(partial(content_problems, seg, rules, raw), runs)
        res.add(seconds_figure(G, f"  content filter on 512 kB unbounded: {name}", t,
                               limit=1.0, note="windows of filter_window characters"))
    for name, text in [*sheets().items(), *message_sheets().items()][:6]:
        box_path = work / "adversarial" / f"{abs(hash(name))}.mbox"
        box = mailbox.mbox(str(box_path))
        msg = EmailMessage()
        msg["From"] = "k3@example.org"
        msg["Message-ID"] = f"<{abs(hash(name))}@example.org>"
        msg.set_content(text[:SIZE - 2000])
        box.add(msg)
        box.flush()
        box.close()
        n = [0]

        def one(box_path: Path = box_path, n: list[int] = n) -> None:
            n[0] += 1
            out = camp.root / f"run{n[0]}"
            import_mailbox(Campaign(out), seg, box_path, outbox=out / "outbox",
                           max_bytes=1_000_000)

        t = repeat(one, runs)
        res.add(seconds_figure(G, f"import one 512 kB mail: {name}", t,
                               note="read, decode, split, parse, refuse/store, confirm"))
