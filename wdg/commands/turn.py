"""``wdg turn``: run, replay and undo a month of a segment.

More sub-commands (status, list, show) are added to :data:`sub` in this
module; each parses its flags, makes one library call and prints.
"""

from __future__ import annotations

from pathlib import Path

import typer

from wdg.commands.common import campaign_option, open_campaign
from wdg.engine import turn

sub = typer.Typer(help="The month: run it, replay it from the archive, undo it.",
                  no_args_is_help=True)


def _progress_printer() -> turn.Progress:
    """A one-line progress display on stderr (steps of the month)."""
    def show(name: str, i: int, n: int) -> None:
        text = f"\r[{i}/{n}] {name:<20}" if name else f"\r[{n}/{n}] fertig{' ' * 16}\n"
        typer.echo(text, nl=False, err=True)
    return show


@sub.command("run")
def run(
    segment: str = typer.Argument(..., help="Segment name."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Resolve and report, commit nothing."),
    force: bool = typer.Option(False, "--force", help="Run even if many sheets are missing."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Resolve the segment's current month from orders/<segment>/<YYYY-MM>/ and commit it."""
    camp = open_campaign(campaign)
    result = turn.run_month(camp, segment, dry_run=dry_run, force=force,
                            progress=None if quiet else _progress_printer())
    kinds: dict[str, int] = {}
    for e in result.log:
        kinds[e.kind.split(".")[0]] = kinds.get(e.kind.split(".")[0], 0) + 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    state = "ausgewertet (nicht gespeichert, --dry-run)" if dry_run else "ausgewertet und gespeichert"
    typer.echo(f"{segment} {result.date.key} ({result.date.short()}) {state}: "
               f"{len(result.log)} Ereignisse ({summary}); Sheets: "
               f"{', '.join(sorted(result.inputs)) or 'keine'}")


@sub.command("replay")
def replay(
    segment: str = typer.Argument(..., help="Segment name."),
    month: str = typer.Argument(..., help="The archived month, YYYY-MM."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Re-run an archived month and verify every output byte against its manifest."""
    report = turn.replay_month(open_campaign(campaign), segment, month)
    if report.ok:
        typer.echo(f"{segment} {report.month.key}: {report.checked} Dateien identisch")
        return
    typer.echo(f"{segment} {report.month.key}: Abweichung in {report.first_difference}", err=True)
    raise typer.Exit(1)


@sub.command("undo")
def undo(
    segment: str = typer.Argument(..., help="Segment name."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Restore the state before the last month; its sheets stay for a re-run."""
    month = turn.undo_month(open_campaign(campaign), segment)
    typer.echo(f"{segment} {month.key} rückgängig gemacht; die Spielzüge liegen weiter in "
               f"orders/{segment}/{month.key}/")


def register(app: typer.Typer) -> None:
    """Add ``wdg turn`` to the root app."""
    app.add_typer(sub, name="turn")
