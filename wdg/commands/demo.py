"""``wdg demo --out DIR``: run the shipped demo campaign in a fresh directory.

The steps are plain library calls, one after the other, so that later parts
of the month (check the order sheets, run the month, render the result
sheets, replay) can be appended here:

1. copy the demo campaign (``worlds/canura/``, ``worlds/rules/``,
   ``orders/canura/`` and ``templates/`` when present) from the checkout into
   DIR, replacing an earlier demo output there;
2. load the segment and print its status;
3. write its map to ``DIR/reports/canura/map.svg``;
4. print the checker's verdict on the month's sheets and on the example
   sheet with typical mistakes;
4a. import the small mailbox ``orders/canura/examples/posteingang.mbox``
   (sheets re-sent as attachment and as a reply, a wrong password, HTML only,
   a hostile ``From:``, a duplicate) and print the import's summary;
5. run the month (``wdg turn run``) and commit it with its archive;
6. render every kingdom's result sheet (text, HTML, PDF), the Götterbotschaft
   and the game master's overview into ``DIR/reports/canura/<YYYY-MM>/``;
7. replay the archived month and verify every output byte (``wdg turn replay``);
8. print the new status and where everything is.
"""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.bots.npc import write_npc_sheets
from wdg.campaign import DEMO_SEGMENT, Campaign, copy_demo
from wdg.commands.common import locked
from wdg.commands.map import write_map
from wdg.engine.turn import run_month
from wdg.errors import StateError
from wdg.orders.sheetfile import demo_verdicts
from wdg.orders.intake import import_mailbox
from wdg.reports.archived import archive_writers, replay_archived
from wdg.store.delivery import deliver
from wdg.reports.batch import default_jobs
from wdg.reports.status import render_status
from wdg.store.segment import load_segment

DEMO_NEXT_DEADLINE = "2026-12-03 13:00"
"""The EINTREFFSCHLUSS the demo's game master sets for the second month's sheets
(``wdg turn run --next-deadline``): the sheets and the Götterbotschaft name this
one deadline, the game master's announcement none of its own (issue #32)."""


def register(root: typer.Typer) -> None:
    """Add ``demo`` to the root app."""

    @root.command("demo")
    def demo(out: Path = typer.Option(Path("out/demo"), "--out", "-o",
                                      help="Verzeichnis für den Demo-Lauf (wird ersetzt).")) -> None:
        """Die mitgelieferte Demo-Kampagne (worlds/canura) in einem frischen Verzeichnis spielen."""
        run_demo(out)


def run_demo(out: Path) -> Campaign:
    """The whole demo as library calls (see the module docstring)."""
    camp = copy_demo(out)
    typer.echo(f"Demo-Kampagne kopiert nach {camp.root}\n")
    seg = load_segment(camp.segment_dir(DEMO_SEGMENT))
    typer.echo(render_status(seg), nl=False)
    typer.echo(f"Karte geschrieben: {write_map(camp, DEMO_SEGMENT)}\n")
    for s in write_npc_sheets(camp, seg):
        typer.echo(f"Bot {s.bot} spielt Königreich {s.kingdom}: "
                   + (f"Spielzug {s.path.name} geschrieben" if s.written else s.note))
    typer.echo(demo_verdicts(camp, DEMO_SEGMENT, seg.date.key))
    box = camp.root / "orders" / DEMO_SEGMENT / "examples" / "posteingang.mbox"
    if box.is_file():
        typer.echo(f"Posteingang {box.relative_to(camp.root)} einlesen (wdg orders import):")
        with locked(camp, DEMO_SEGMENT) as locked_seg:
            report = import_mailbox(camp, locked_seg, box)
        typer.echo(report.table())
    typer.echo(f"Auswertung des Mondes {seg.date.long()} ...")
    result = run_month(camp, DEMO_SEGMENT, next_deadline=DEMO_NEXT_DEADLINE, outputs=archive_writers(
        camp.templates_dir, camp.rules_dir, jobs=default_jobs(),
        archive_dir=camp.archive_dir(DEMO_SEGMENT)), deliver=True)
    sheets = ", ".join(str(k) for k in sorted(result.sheets)) or "keine"
    mdir = camp.archive_dir(DEMO_SEGMENT) / result.date.key
    typer.echo(f"  Spielzüge verwendet: {sheets}; {len(result.log)} Ereignisse; Archiv: {mdir}")
    files = deliver(camp, DEMO_SEGMENT, result.date)
    rdir = camp.reports_dir(DEMO_SEGMENT, result.date)
    typer.echo(f"  {len(files)} Berichte geschrieben nach {rdir}:")
    for k in sorted(result.sheets):
        typer.echo(f"    Königreich {k}: {rdir / f'k{k}'}/ergebnis.{{txt,html,pdf}}")
    typer.echo(f"    Götterbotschaft: {rdir}/goetterbotschaft.pdf (auch .html, .txt)")
    typer.echo(f"    Übersicht des Segmentleiters: {rdir}/overview.html (auch .txt)")
    report = replay_archived(camp, DEMO_SEGMENT, result.date, jobs=default_jobs())
    if not report.ok:
        raise StateError(f"die Wiederholung von {result.date.key} weicht ab: {report.first_difference}")
    typer.echo(f"  Wiederholung von {result.date.key}: alle Ausgaben byte-gleich\n")
    after = load_segment(camp.segment_dir(DEMO_SEGMENT))
    typer.echo(render_status(after), nl=False)
    typer.echo(f"Karte nach dem Mond: {write_map(camp, DEMO_SEGMENT)}")
    return camp
