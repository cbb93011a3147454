"""``wdg turn``: run, replay and undo a month of a segment.

More sub-commands (status, list, show) are added to :data:`sub` in this
module; each parses its flags, makes one library call and prints.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import typer

from wdg.commands.common import campaign_option, load, locked, open_campaign, save
from wdg.engine import history, turn
from wdg.store.intake import check_sheets
from wdg.store.months import PROVENANCE, month_dir, read_provenance
from wdg.engine.month_sheets import PasswordChecks
from wdg.errors import InvalidInputError, StateError
from wdg.rules import safe_load_file
from wdg.world.calendar import MonthDate
from wdg.bots.prepare import npc_sheet_lines
from wdg.engine.history import blockers
from wdg.world.deadline import deadline_for, deadline_json, normalise, set_deadline, stored_problem
from wdg.world.deadline import when as when_text

sub = typer.Typer(help="Der Monat: Stand, auswerten, aus dem Archiv nachspielen, rückgängig "
                  "machen; die Geschichte des Archivs.", no_args_is_help=True)


STAGES = {"intake": "Spielzüge einlesen", "month": "Mond auswerten",
          "archive": "Berichte rendern und archivieren", "deliver": "Berichte ausliefern"}


class _Display:
    """The run's stages and the month's steps on stderr: redrawn in place on a
    terminal, one line per stage otherwise; nothing with ``--quiet``."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.n = 0
        self.t0 = time.perf_counter()
        self.last: str | None = None

    def stage(self, name: str) -> None:
        if self.quiet:
            return
        self._done()
        self.n += 1
        self.last = STAGES.get(name, name)
        self.t0 = time.perf_counter()
        if self.tty:
            typer.echo(f"[{self.n}/{len(STAGES)}] {self.last} ...", err=True, nl=False)

    def _done(self) -> None:
        """The finished stage with its time (a log line when not on a terminal)."""
        if self.last is not None:
            typer.echo(f"{chr(13) if self.tty else ''}[{self.n}/{len(STAGES)}] {self.last}: "
                       f"{time.perf_counter() - self.t0:.1f} s{' ' * 30 if self.tty else ''}",
                       err=True)
        self.last = None

    def step(self, name: str, i: int, n: int) -> None:
        """The month's steps (the runner's progress callback)."""
        if self.quiet or not self.tty:
            return
        text = f"\r[{self.n}/{len(STAGES)}] {self.last}: Schritt {i + 1}/{n} {name:<24}" if name \
            else f"\r[{self.n}/{len(STAGES)}] {self.last}{' ' * 40}"
        typer.echo(text, nl=False, err=True)

    def close(self, ok: bool = True) -> None:
        """End the display: the last stage's time, or (failed) just a clean line."""
        if self.quiet:
            return
        if ok:
            self._done()
        elif self.tty and self.last is not None:
            typer.echo("\r" + " " * 70 + "\r", err=True, nl=False)


def _echo_lines(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)


@sub.command("run")
def run(
    segment: str = typer.Argument(..., help="Name des Segments."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Auswerten und berichten, nichts festschreiben."),
    force: bool = typer.Option(False, "--force", help="Auch auswerten, wenn viele Bögen fehlen."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Ohne Fortschrittsanzeige."),
    render: bool = typer.Option(True, "--render/--no-render",
                                help="Auch die PDFs erzeugen und die Berichte aus dem Archiv "
                                "nach reports/<segment>/<JJJJ-MM>/ ausliefern (--no-render: "
                                "das Archiv bekommt nur Text, HTML, Ansichten und Bögen; nichts "
                                "wird ausgeliefert)."),
    pdf: bool = typer.Option(True, "--pdf/--no-pdf", help="Mit den PDFs (Standard) oder nur "
                             "Text, HTML, Ansichten und Befehlsbögen."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Arbeitsprozesse für die Berichte "
                             "(0 = einer je Kern)."),
    next_deadline: str = typer.Option(None, "--next-deadline",
                                      help="EINTREFFSCHLUSS für die Bögen des nächsten "
                                      "Monats, 'JJJJ-MM-TT' (13:00) oder 'JJJJ-MM-TT HH:MM'; "
                                      "steht auf den Ergebnisbögen."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Den laufenden Monat des Segments aus orders/<segment>/<JJJJ-MM>/ auswerten, seine
    Berichte ins Archiv erzeugen, ihn festschreiben und die Berichte aus dem Archiv
    ausliefern."""
    camp = open_campaign(campaign)
    if next_deadline is not None:
        normalise(next_deadline)  # a bad date stops the run before it starts
    if jobs < 0:
        raise InvalidInputError(f"--jobs {jobs}: erwartet 0 (ein Prozeß je Kern) oder mehr")
    show = _Display(quiet)
    # The slow password checks start now, in threads, and run while the report
    # code is imported and the segment loads (the intake uses them).
    passwords = PasswordChecks()
    try:
        passwords.prefetch(camp.segment_dir(segment),
                           lambda key: camp.orders_dir(segment, MonthDate.parse(key)))
        from wdg.reports.archived import archive_writers
        from wdg.store.delivery import deliver
        from wdg.reports.batch import default_jobs

        # Text, HTML, views and forms are always archived (replay verifies them);
        # the PDFs unless --no-pdf or --no-render; --no-render delivers nothing.
        outputs = archive_writers(camp.templates_dir, camp.rules_dir, pdf=pdf and render,
                                  jobs=jobs or default_jobs(), progress=not quiet,
                                  archive_dir=camp.archive_dir(segment)) \
            if not dry_run else {}
    except BaseException:
        passwords.__exit__(None, None, None)
        raise
    ok = False
    try:
        with passwords:
            result = turn.run_month(camp, segment, dry_run=dry_run, force=force,
                                    progress=show.step, outputs=outputs,
                                    next_deadline=next_deadline, stage=show.stage,
                                    prepare=lambda seg: _echo_lines(npc_sheet_lines(camp, seg)),
                                    passwords=passwords, deliver=render)
        files = []
        if render and not dry_run:
            show.stage("deliver")
            try:
                files = deliver(camp, segment, result.date)
            except OSError as exc:
                from wdg.fsio import describe_os_error

                raise StateError(
                    f"Mond {result.date.key} ist ausgewertet und gespeichert (Archiv "
                    f"turns/{result.date.key}); die Berichte wurden nicht ausgeliefert: "
                    f"{describe_os_error(exc, committed=True, near=camp.reports_dir(segment, result.date))} "
                    f"Danach: wdg reports render "
                    f"{segment} {result.date.key}") from None
        ok = True
    finally:
        show.close(ok)
    kinds: dict[str, int] = {}
    for e in result.log:
        kinds[e.kind.split(".")[0]] = kinds.get(e.kind.split(".")[0], 0) + 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    state = "ausgewertet (nicht gespeichert, --dry-run)" if dry_run else "ausgewertet und gespeichert"
    typer.echo(f"{segment} {result.date.key} ({result.date.short()}) {state}: "
               f"{len(result.log)} Ereignisse ({summary}); Sheets: "
               f"{', '.join(sorted(result.inputs)) or 'keine'}")
    if result.next_deadline is not None and not dry_run:
        kept = " (vom zurückgenommenen Lauf übernommen)" if result.kept_deadline else ""
        typer.echo(f"Eintreffschluß für {result.date.next().short()}: {result.next_deadline} Uhr "
                   f"({result.state.settings.timezone}){kept}")
    if files:
        typer.echo(f"{len(files)} Berichte in {camp.reports_dir(segment, result.date)} "
                   "(aus dem Archiv)")


@sub.command("replay")
def replay(
    segment: str = typer.Argument(..., help="Name des Segments."),
    month: str = typer.Argument(..., help="Der archivierte Monat, JJJJ-MM."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Arbeitsprozesse für die Berichte "
                             "(0 = einer je Kern)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Einen archivierten Monat erneut auswerten und jedes Byte der Ausgaben gegen sein
    Manifest prüfen, in Schichten (Eingaben, Regeln, Stand, Ereignisse, jede Ausgabe),
    mit der abweichenden Schicht und, wo möglich, warum; dann die ausgelieferten Berichte
    (reports/<segment>/<JJJJ-MM>/)."""
    from wdg.store.delivery import check_delivered
    from wdg.reports.archived import replay_archived
    from wdg.reports.batch import default_jobs

    camp = open_campaign(campaign)
    date = MonthDate.parse(month)
    report = replay_archived(camp, segment, date, jobs=jobs or default_jobs())
    first = report.first_difference
    if report.ok:
        mdir = month_dir(camp, segment, date)
        manifest = (safe_load_file(mdir / "manifest.yaml") or {}).get("files", {})
        delivered = check_delivered(camp, segment, date, manifest)
        if delivered is not None:
            first = f"{delivered} (ausgelieferte Datei weicht vom Archiv ab)"
    for line in report.lines():
        typer.echo(line, err=first is not None)
    if first is None:
        typer.echo(f"{segment} {report.month.key}: {report.checked} Dateien identisch")
        return
    typer.echo(f"{segment} {report.month.key}: Abweichung in {first}", err=True)
    raise typer.Exit(1)


@sub.command("provenance")
def provenance(
    segment: str = typer.Argument(..., help="Name des Segments."),
    month: str = typer.Argument(..., help="Der archivierte Monat, JJJJ-MM."),
    requirements: bool = typer.Option(False, "--requirements", help="Die Abhängigkeiten des "
                                      "Monats als pip-requirements-Datei ausgeben "
                                      "(name==version), für 'pip install -r' in ein frisches "
                                      "venv."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Womit ein archivierter Monat ausgewertet wurde: wdg-Version, Commit, Python,
    Abhängigkeiten, die Hashes seiner Eingaben und Vorlagen (provenance.yaml;
    docs/turns.md)."""
    from wdg.provenance import describe
    from wdg.provenance import requirements as requirements_of

    camp = open_campaign(campaign)
    date = MonthDate.parse(month)
    mdir = month_dir(camp, segment, date)
    if not (mdir / "manifest.yaml").is_file():
        raise StateError(f"Segment {segment!r}: kein archivierter Mond {date.key} ({mdir})")
    prov = read_provenance(mdir)
    if prov is None:
        from wdg.provenance import MISSING, month_made_by

        if month_made_by(mdir) == MISSING:
            raise StateError(f"{mdir}: {MISSING} (gelöscht oder verloren); welche Version den "
                             "Mond erzeugt hat, sagt nur noch summary.yaml oder die Geschichte "
                             "der Kampagne")
        raise StateError(f"{mdir}: vor wdg 0.2.0 archiviert, ohne provenance.yaml; welche "
                         "Version ihn erzeugt hat, ist nicht vermerkt (docs/turns.md, 'Replaying "
                         "with the exact version')")
    if requirements:
        typer.echo(requirements_of(prov), nl=False)
        return
    py = prov.get("python") or {}
    typer.echo(f"{segment} {date.key}: ausgewertet mit {describe(prov.get('wdg'))}, "
               f"Python {py.get('version')} ({py.get('platform')}), Segmentformat "
               f"{prov.get('segment_format')}")
    typer.echo(f"  {len(prov.get('dependencies') or {})} Abhängigkeiten, "
               f"{len(prov.get('inputs') or {})} Eingaben, "
               f"{len(prov.get('templates') or {})} Vorlagen (je mit SHA-256 in {mdir.name}/"
               f"{PROVENANCE})")
    for name in ("jinja2", "numpy", "pyyaml", "typer", "weasyprint"):
        dep = (prov.get("dependencies") or {}).get(name)
        if dep:
            typer.echo(f"  {name} {dep.get('version')}")


@sub.command("verify-digest")
def verify_digest(
    segment: str = typer.Argument(..., help="Segment."),
    month: str = typer.Argument(..., help="Der archivierte Mond, JJJJ-MM."),
    digest: str = typer.Argument(..., help="Die Prüfsumme des Monats, wie sie in der "
                                 "Götterbotschaft, im Ergebnisblatt oder in der Ergebnis-Mail "
                                 "steht (64 Hex-Ziffern)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Prüft die Prüfsumme eines Monats, die ein Spieler nennt, gegen das Archiv und
    die Kette der Monate bis zum ersten (docs/storage.md, "The month's digest").
    Exit-Code 0: sie stimmt; 1: sie weicht ab oder die Kette ist gebrochen."""
    import re

    from wdg.digest import verify

    camp = open_campaign(campaign)
    date = MonthDate.parse(month)
    quoted = digest.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", quoted):
        raise InvalidInputError(f"Prüfsumme {digest!r}: erwartet 64 Hex-Ziffern (0-9, a-f), "
                                "wie sie im Ergebnis steht")
    load(camp, segment)
    check = verify(camp.archive_dir(segment), segment, date.key, quoted)
    for line in check.lines:
        typer.echo(line)
    if not check.ok:
        raise typer.Exit(1)


@sub.command("undo")
def undo(
    segment: str = typer.Argument(..., help="Name des Segments."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Den Stand vor dem letzten Monat wiederherstellen; seine Bögen bleiben für eine
    neue Auswertung."""
    month = turn.undo_month(open_campaign(campaign), segment)
    typer.echo(f"{segment} {month.key} rückgängig gemacht; die Spielzüge liegen weiter in "
               f"orders/{segment}/{month.key}/")


@sub.command("deadline")
def deadline(
    segment: str = typer.Argument(..., help="Name des Segments."),
    when: str = typer.Argument(None, help="'TT.MM.JJJJ' oder 'JJJJ-MM-TT' (13:00, wie die "
                               "Regel sagt), mit ' HH:MM' für eine andere Uhrzeit, z. B. "
                               "'03.12.2026 13:00'; weglassen, um den Eintreffschluß zu zeigen."),
    tz: str = typer.Option(None, "--tz", help="Zeitzone des Segments, z. B. Europe/Berlin "
                           "(Eintreffschlüsse und Maildaten)."),
    force: bool = typer.Option(False, "--force", help="Einen Eintreffschluß in der "
                               "Vergangenheit setzen (z. B. um alte Post nachträglich "
                               "einzulesen)."),
    as_json: bool = typer.Option(False, "--json", help="Maschinenlesbar (docs/gamemaster.md)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Den EINTREFFSCHLUSS für die Bögen des laufenden Monats setzen (oder zeigen): ihn
    nutzen 'wdg orders import' und 'wdg mail fetch/run', ihn zeigen 'wdg turn status' und
    die Ergebnisbögen. Ein Eintreffschluß in der Vergangenheit wird abgelehnt (außer mit
    --force)."""
    from wdg.world.deadline import check_timezone, refuse_past

    camp = open_campaign(campaign)
    if when is None:
        seg = load(camp, segment)
        d = deadline_for(seg, seg.date)
        problem = stored_problem(seg)
        if as_json:
            typer.echo(json.dumps(deadline_json(seg, d, problem), ensure_ascii=False))
            return
        typer.echo(f"{segment} {seg.date.key}: Eintreffschluß "
                   + (f"{when_text(d)} ({seg.settings.timezone})" if d else "nicht gesetzt"))
        if problem is not None:
            typer.echo(f"Warnung: {problem}", err=True)
        return
    value = normalise(when)  # a bad date is refused before the lock is taken
    with locked(camp, segment) as seg:
        if not force:
            refuse_past(value, check_timezone(tz) if tz else seg.settings.timezone)
        value = set_deadline(seg, when, tz=tz)
        save(camp, seg)
    if as_json:
        typer.echo(json.dumps(deadline_json(seg, deadline_for(seg, seg.date), None),
                              ensure_ascii=False))
        return
    d = deadline_for(seg, seg.date)
    assert d is not None  # set just above
    typer.echo(f"{segment} {seg.date.key}: Eintreffschluß {when_text(d)} "
               f"({seg.settings.timezone})")


@sub.command("status")
def status(
    segment: str = typer.Argument(..., help="Name des Segments."),
    as_json: bool = typer.Option(False, "--json", help="Maschinenlesbar (docs/gamemaster.md)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Vor der Auswertung: der Monat, der Eintreffschluß, welche Königreiche gültige
    Bögen geschickt haben, welche fehlen oder abgelehnt sind (genau wie die Auswertung
    sie übernähme)."""
    camp = open_campaign(campaign)
    seg = load(camp, segment)
    st = history.month_status(camp, segment)
    problem = stored_problem(seg)
    if as_json:
        data = status_json(seg, st, problem)
        data["stored_sheets"] = [str(f) for f in check_sheets(camp.orders_dir(segment, seg.date))]
        typer.echo(json.dumps(data, ensure_ascii=False))
        return
    typer.echo(f"{segment}: {st.date.long()} ({st.date.key})")
    d = deadline_for(seg, seg.date)
    typer.echo(f"Eintreffschluß: {st.deadline}" + (f" ({seg.settings.timezone})" if d else ""))
    if problem is not None:
        typer.echo(f"Warnung: {problem}")
    for finding in check_sheets(camp.orders_dir(segment, seg.date)):
        typer.echo(f"Warnung: {finding} — 'wdg turn run' verweigert den Start")
    typer.echo(f"Gültige Spielzüge:  {', '.join(map(str, st.valid)) or 'keine'}")
    typer.echo(f"Fehlende Spielzüge: {', '.join(map(str, st.missing)) or 'keine'}")
    if st.bots:
        typer.echo(f"Spielzüge der Bots (schreibt 'wdg turn run'): {', '.join(map(str, st.bots))}")
    for k, why in sorted(st.refused.items()):
        typer.echo(f"Abgelehnt: Königreich {k}: {why}")
    for line in st.texts:
        typer.echo(f"Prüfen: {line}")
    typer.echo(f"Bogen des Segmentleiters (sl.txt): {'vorhanden' if st.gm_sheet else 'keiner'}")
    for blocker in blockers(st):
        typer.echo(f"Warnung: {blocker}")


def status_json(seg, st, problem: str | None) -> dict:
    """``wdg turn status --json`` (docs/gamemaster.md)."""
    d = deadline_for(seg, seg.date)
    return {"segment": seg.name, "month": st.date.key, "month_name": st.date.short(),
            "deadline": deadline_json(seg, d, problem),
            "valid": st.valid, "missing": st.missing, "bots": st.bots,
            "refused": {str(k): why for k, why in sorted(st.refused.items())},
            "playing": st.playing, "gm_sheet": st.gm_sheet, "gm_errors": st.gm_errors or None,
            "needs_force": st.needs_force, "blockers": blockers(st)}


@sub.command("list")
def list_(
    segment: str = typer.Argument(..., help="Name des Segments."),
    verify: bool = typer.Option(False, "--verify", help="Den SHA-256 jeder archivierten Datei "
                                "gegen das Manifest prüfen (liest das ganze Archiv) statt ihrer "
                                "Größe aus dem Index des Monats."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Jeder archivierte Monat mit Seed, Reihenfolge der Königreiche, Bögen und ob seine
    gespeicherten Dateien vollständig sind (aus dem Index jedes Monats: Größen;
    --verify: Hashes)."""
    from wdg.store import integrity

    camp = open_campaign(campaign)
    load(camp, segment)
    months = history.list_months(camp, segment, verify=verify)
    chain = [f for f in integrity.check_chain(camp.segment_dir(segment)) if not f.uncovered]
    if not months and not chain:
        typer.echo(f"{segment}: noch kein Mond archiviert")
        return
    good = "Hashes ok (Eingaben und Ausgaben)" if verify else "Dateien vollständig"
    for m in months:
        ok = good if m.verified else f"ABWEICHUNG: {m.first_mismatch}"
        if m.verified and m.not_covered:
            ok = ("Ausgaben laut Manifest ok" if verify else "Dateien vorhanden") + \
                " — nicht abgesichert: Eingaben und Index (von einer älteren wdg archiviert)"
        typer.echo(f"{m.date.key}  {m.date.short():<14} Seed {m.entropy}  Reihenfolge "
                   f"{m.kingdom_order}  Bögen {', '.join(m.sheets) or '-'}  "
                   f"{m.events} Ereignisse  {ok}  ({m.made_by or 'wdg vor 0.2.0'})")
    for f in chain:
        typer.echo(f"Kette: {f}")
    blobs = integrity.verify_blobs(camp.segment_dir(segment)) if verify else []
    for f in blobs:
        typer.echo(f"Vorlagen: {f}")
    if chain or blobs or not all(m.verified for m in months):
        raise typer.Exit(1)


@sub.command("show")
def show(
    segment: str = typer.Argument(..., help="Name des Segments."),
    month: str = typer.Argument(..., help="Der archivierte Monat, JJJJ-MM."),
    kingdom: int = typer.Option(None, "--kingdom", "-k", help="Nur die Ereignisse dieses Königreichs."),
    fmt: str = typer.Option("text", "--format", "-f", help="'text': die Ereignisse; 'json': der "
                            "Bericht des Königreichs für den Monat (bericht.json, "
                            "docs/report-schema.json; braucht --kingdom)."),
    campaign: Path | None = campaign_option(),
) -> None:
    """Die Ereignisse eines archivierten Monats (mit --kingdom die eines Königreichs),
    oder mit --format json der ganze Bericht des Königreichs für diesen Monat."""
    camp = open_campaign(campaign)
    seg = load(camp, segment)
    if fmt not in ("text", "json"):
        raise InvalidInputError(f"unbekanntes Format {fmt!r}; erwartet 'text' oder 'json'")
    if fmt == "json":
        if kingdom is None:
            raise InvalidInputError("--format json zeigt den Bericht eines Reichs: --kingdom angeben")
        date = MonthDate.parse(month)
        src = month_dir(camp, segment, date) / "outputs" / "reports"
        from wdg.store.delivery import archived_bytes

        data = archived_bytes(src, Path(f"k{kingdom}") / "bericht.json")
        if data is None:
            raise StateError(f"Segment {segment!r}: der archivierte Mond {date.key} enthält keinen "
                             f"Bericht von Reich {kingdom} (vor dem JSON-Bericht archivierte Monde "
                             f"haben keinen; 'wdg reports render {segment} {date.key}' erzeugt ihn)")
        typer.echo(json.dumps(json.loads(data), ensure_ascii=False, sort_keys=True, indent=1))
        return
    if kingdom is not None and kingdom not in seg.kingdoms:
        raise StateError(f"Reich {kingdom} gibt es in Segment {segment!r} nicht; "
                         f"die Reiche sind {sorted(seg.kingdoms)}")
    for e in history.month_events(camp, segment, month, kingdom):
        who = f"K{e['kingdom']}" if "kingdom" in e else "--"
        army = f" Heer {e['army']:04d}" if "army" in e else ""
        where = f" {e['at']}" if "at" in e else ""
        gold = f" [{e['gold']:+d} GS {e.get('ledger', '')}]" if e.get("gold") else ""
        typer.echo(f"{who:<4} {e['kind']:<28}{army}{where}{gold} {e.get('why', '')}".rstrip())


def register(app: typer.Typer) -> None:
    """Add ``wdg turn`` to the root app."""
    app.add_typer(sub, name="turn")
