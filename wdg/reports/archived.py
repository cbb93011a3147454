"""Reports of a month: rendered once into the archive, delivered from it.

``wdg turn run`` passes :func:`archive_writers` to the month's commit: every
report of the month — result sheets (text, HTML, PDF), kingdom views, order
forms, the Götterbotschaft and the overview — is rendered once, by a pool of
workers, into the staging folder's ``outputs/reports/`` before the commit
point, and so enters the manifest. After the commit :func:`wdg.store.delivery.deliver` builds
``reports/<segment>/<YYYY-MM>/`` from the archive (hard links where the file
system allows, else copies): the files players get are the archived bytes,
and ``wdg turn replay`` re-renders the month and compares them byte for byte
(:func:`wdg.store.delivery.check_delivered` also checks the delivered copies).

:func:`render_month` (``wdg reports render``) renders an archived month
again from that month's own archived state after it (``state/``), its event
log, sheets and rules — never from later state — and delivers: files equal to
the archived ones are delivered from the archive, files that differ (e.g.
after a template change) are written as rendered and listed.

The archive's writer gets no state before the month, so the treasury's
opening balance is computed from the ledger (:func:`wdg.reports.build.treasury`);
:func:`render_month` does the same, so both give the same bytes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wdg.campaign import Campaign
from wdg.engine.events import Event
from wdg.engine.month_sheets import take_in
from wdg.errors import DataError, StateError
from wdg.reports.batch import default_jobs, render_reports
from wdg.reports.jsonreport import FILE, previous_extract
from wdg.reports.render import template_dirs
from wdg.reports.settings import load_report_settings
from wdg.rules import safe_load_file
from wdg.store.edges import refuse_links, refuse_links_below
from wdg.store.delivery import (COMPRESSED, GZIP, OUTPUT_NAME, PACKED, PLAIN, archived_bytes,
                                archived_names, archived_reports, compress_tree, put, put_bytes,
                                storage_of)
from wdg.store.files import PackWriter, events_file, read_archived, read_events_data
from wdg.store.months import archived_templates, month_dir, read_order_files, read_provenance
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Hex
from wdg.world.state import Segment
from wdg.store.segment import FORMAT, format_of, load_segment, too_new

def event_from_dict(d: dict[str, Any], seg: Segment) -> Event:
    """An event from its plain form in the event log (addresses back to hexes)."""
    at = d.get("at")
    if isinstance(at, str):
        at = seg.grid.parse(at)
    elif isinstance(at, list) and len(at) == 2:
        at = Hex(int(at[0]), int(at[1]))
    return Event(kind=str(d["kind"]), kingdom=d.get("kingdom"), army=d.get("army"), at=at,
                 why=str(d.get("why", "")), gold=int(d.get("gold", 0)),
                 ledger=str(d.get("ledger", "")), public=bool(d.get("public", False)),
                 line=int(d.get("line", 0)), data=dict(d.get("data") or {}))


def load_events(path: Path, seg: Segment) -> list[Event]:
    """The event log of an archived month (``path``: its folder, or its event
    file as before)."""
    return [event_from_dict(d, seg) for d in read_events_data(path if path.is_dir()
                                                               else path.parent)]


@dataclass(slots=True)
class Rendered:
    """What :func:`render_month` wrote: every file, and those that differ from
    the archived month's reports (empty when all equal them)."""

    files: list[Path] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.files)

    def __iter__(self) -> Iterator[Path]:
        return iter(self.files)


def previous_reports(archive_dir: Path | None, month: MonthDate) -> dict[int, dict]:
    """Each kingdom's JSON report of the month before ``month`` from the archive
    (``{}`` when that month is not archived or has none)."""
    import json

    if archive_dir is None:
        return {}
    src = archived_reports(archive_dir / month.previous().key)
    out: dict[int, dict] = {}
    if not src.is_dir():
        return out
    for rel in archived_names(src):
        if len(rel.parts) == 2 and rel.name == FILE and rel.parts[0][:1] == "k" \
                and rel.parts[0][1:].isdigit():
            data = archived_bytes(src, rel)
            if data is not None:
                out[int(rel.parts[0][1:])] = json.loads(data)
    return out


def month_inputs(camp: Campaign, segment: str, date: MonthDate) -> tuple[Segment, list[Event],
                                                                           dict, object, Path]:
    """``(state after, events, sheets, game master's sheet, rules folder)`` of
    an archived month, all from the month's own folder."""
    mdir = month_dir(camp, segment, date)
    if not events_file(mdir).is_file() or not (mdir / "state-before").is_dir():
        raise StateError(f"Segment {segment!r}: kein archivierter Mond {date.key} in {mdir}; "
                         "erst mit 'wdg turn run' auswerten")
    if (mdir / "state").is_dir():
        after = load_segment(mdir / "state")  # the month's own state after it
    else:  # archives written before the state after the month was kept
        nxt = month_dir(camp, segment, date.next()) / "state-before"
        after = load_segment(nxt if nxt.is_dir() else camp.segment_dir(segment))
        if after.date != date.next():
            raise StateError(f"Segment {segment!r}: der Stand nach {date.key} ist nicht archiviert "
                             f"(das Segment steht bei {after.date.key})")
    intake = take_in(load_segment(mdir / "state-before"), read_order_files(mdir / "orders"))
    rules = mdir / "rules" if (mdir / "rules" / "reports.yaml").is_file() else camp.rules_dir
    return after, load_events(mdir, after), intake.sheets, intake.gm_sheet, rules


def render_month(campaign: Campaign | str | Path | None, segment: str, month: MonthDate | str, *,
                 jobs: int | None = None, pdf: bool = True, progress: bool = False,
                 kingdoms: list[int] | None = None) -> Rendered:
    """Render every report of an archived month again, from the month's own
    archived state, events, sheets and rules, and deliver them into
    ``reports/<segment>/<YYYY-MM>/``: files equal to the archived ones come
    from the archive, the others are written as rendered (and listed in
    ``differing``). ``kingdoms``: only these kingdoms' folders (a player's
    sheet and PDF again, issue #42)."""
    camp = campaign if isinstance(campaign, Campaign) else Campaign.locate(campaign)
    from wdg.digest import month_digest  # lazy: see _month_digest

    date = MonthDate.parse(month) if isinstance(month, str) else month
    after, events, sheets, gm_sheet, rules = month_inputs(camp, segment, date)
    archived = archived_reports(month_dir(camp, segment, date))
    out = camp.reports_dir(segment, date)
    refuse_links(out.parents[1], out, "liefert Berichte aus")  # (docs/storage.md, edges)
    refuse_links_below(out, "liefert Berichte aus")
    out.parent.mkdir(parents=True, exist_ok=True)
    result = Rendered()
    with tempfile.TemporaryDirectory(prefix=f".render-{date.key}-", dir=out.parent) as tmp:
        got = render_reports(None, after, events, sheets, gm_sheet, Path(tmp),
                             jobs=jobs or default_jobs(), templates=camp.templates_dir,
                             settings=load_report_settings(rules), pdf=pdf, progress=progress,
                             previous=previous_figures(month_dir(camp, segment, date), camp,
                                                       segment, date),
                             rules_dir=rules, only=kingdoms,
                             digest=month_digest(month_dir(camp, segment, date), segment))
        for p in got:
            rel = p.relative_to(tmp)
            old = archived_bytes(archived, rel)
            dst = out / rel
            if old is not None and old == p.read_bytes():
                stored = archived / rel
                gz = stored.with_name(rel.name + COMPRESSED)
                if stored.is_file() or gz.is_file():
                    put(stored if stored.is_file() else gz, dst)
                else:  # a member of the pack
                    put_bytes(old, dst)
            else:
                if old is not None:
                    result.differing.append(rel.as_posix())
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(p, dst)
            result.files.append(dst)
    result.files.sort()
    return result


PREVIOUS_REPORTS = "previous-reports.json"
"""``inputs/previous-reports.json(.xz)`` of an archived month: the figures of
each kingdom's report of the month before that this month's "changes since
last month" compare with (:func:`wdg.reports.jsonreport.previous_extract`)."""


def previous_extracts(archive_dir: Path | None, month: MonthDate) -> dict[int, dict]:
    """What a month's reports read of the month before: each kingdom's
    :func:`~wdg.reports.jsonreport.previous_extract` (``{}``: none archived)."""
    return {k: previous_extract(doc) for k, doc in previous_reports(archive_dir, month).items()}


def previous_bytes(extracts: dict[int, dict]) -> bytes:
    """The archived form of :func:`previous_extracts` (sorted JSON, UTF-8)."""
    import json

    return (json.dumps({str(k): v for k, v in sorted(extracts.items())}, ensure_ascii=False,
                       sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def read_previous(mdir: Path) -> dict[int, dict] | None:
    """The previous month's report figures archived with the month ``mdir``
    (``None``: a month archived before they were, replayed from the month
    before it as then)."""
    import json

    try:
        data = read_archived(mdir / "inputs" / PREVIOUS_REPORTS, root=mdir)
    except FileNotFoundError:
        return None
    try:
        return {int(k): v for k, v in json.loads(data).items()}
    except (ValueError, AttributeError) as e:
        raise StateError(f"{mdir / 'inputs' / PREVIOUS_REPORTS}: beschädigt ({e})") from None


def previous_figures(mdir: Path, camp: Campaign, segment: str,
                     date: MonthDate) -> dict[int, dict]:
    """The previous month's report figures the reports of the archived month
    ``mdir`` read: those archived with it (:func:`read_previous`), or — a month
    archived before they were — extracted from the month before
    (:func:`previous_extracts`)."""
    found = read_previous(mdir)
    return found if found is not None else previous_extracts(camp.archive_dir(segment), date)


def template_files(templates: Path | None) -> dict[str, bytes]:
    """Every template and asset the renderer finds (the campaign's
    ``templates/`` over the shipped ones): ``{relative name: bytes}``."""
    out: dict[str, bytes] = {}
    for d in reversed(template_dirs(templates)):
        for p in sorted(d.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                out[p.relative_to(d).as_posix()] = p.read_bytes()
    return dict(sorted(out.items()))


def archive_writers(templates: Path | None = None, rules_dir: Path | None = None, *,
                    pdf: bool = True, jobs: int = 1, progress: bool = False,
                    storage: str = PACKED, archive_dir: Path | None = None,
                    previous: dict[int, dict] | None = None,
                    replaying: Path | None = None) -> dict[str, Any]:
    """Every report of the month as an output of the archived month:
    ``{"reports": writer}`` for :func:`wdg.engine.turn.run_month` and
    ``replay_month`` (``outputs=``). The writer renders the result sheets (with
    their PDFs unless ``pdf`` is false), views, order forms, Götterbotschaft
    and overview over ``jobs`` workers into the staging folder, so they are
    archived before the commit point and a replay verifies them byte for byte.
    ``storage``: :data:`PACKED` (new months), :data:`GZIP` or :data:`PLAIN` (to
    replay a month archived before, as it was stored). ``previous``: the
    previous month's report figures (a replay passes the month's archived
    ones); default: read from ``archive_dir``. The writer puts them and the
    templates it renders with into the result (``archived_inputs``,
    ``templates``), so the archive stores them with the month.

    The month's digest (:mod:`wdg.digest`) is printed in the Götterbotschaft and every
    result sheet: in a month run it is computed from the inputs staged beside the
    outputs (``turns/.staging-<M>/``) and the previous month's digest, which the
    writer adds as an input (``inputs/previous-digest.txt``); ``replaying``: the
    archived month folder a replay re-renders (its digest from its own inputs)."""
    if storage not in (PACKED, GZIP, PLAIN):
        raise ValueError(f"unknown report storage {storage!r}")

    def write(result: Any, directory: Path, beside: Any = None) -> None:
        packers: list[PackWriter] = []

        def collect(files: list[Path]) -> None:
            # packed (compressed) as each task's files come in, beside the workers;
            # the pack is opened only then (after the workers were started)
            if not packers:
                packers.append(PackWriter(directory))
            for p in sorted(files):
                packers[0].add_file(p)

        prev = previous if previous is not None else previous_extracts(archive_dir, result.date)
        digest = None
        if hasattr(result, "archived_inputs"):
            result.archived_inputs[PREVIOUS_REPORTS] = previous_bytes(prev)
            result.templates = template_files(templates)
            digest = _month_digest(result, directory, replaying)
        try:
            render_reports(None, result.state, list(result.log), result.sheets,
                           getattr(result, "gm_sheet", None), directory, jobs=jobs,
                           templates=templates, settings=load_report_settings(rules_dir),
                           pdf=pdf, progress=progress,
                           previous=prev,
                           rules_dir=rules_dir, beside=beside,
                           collect=collect if storage == PACKED else None, digest=digest)
        except BaseException:
            for packer in packers:
                packer.abort()
            raise
        for packer in packers:
            packer.close()
        if storage == GZIP:
            compress_tree(directory)

    write.works_beside = True  # type: ignore[attr-defined]  # the writer marker wdg.store.months reads with getattr
    return {OUTPUT_NAME: write}


def _month_digest(result: Any, directory: Path, replaying: Path | None) -> str | None:
    """The digest of the month being rendered (``None``: not a month of an archive,
    e.g. a render into a folder of its own)."""
    # lazy: wdg.digest loads lzma; `wdg --help` imports this module
    from wdg.digest import PREVIOUS, digest_of, input_hashes, month_digest, previous_digest

    segment, key = result.state.name, result.date.key
    if replaying is not None:
        return month_digest(replaying, segment)
    if getattr(result, "digest", None):  # a replay: the archived month's (wdg.engine.replay)
        return str(result.digest)
    staging = Path(directory).parent.parent.parent  # turns/.staging-<M>/.out/outputs/<name>
    if not (staging.name == f".staging-{key}" and (staging / "state-before").is_dir()
            and (staging / "seed.yaml").is_file()):
        return None
    result.archived_inputs[PREVIOUS] = (previous_digest(staging.parent, segment, key)
                                        + "\n").encode("utf-8")
    result.digest = digest_of(segment, key, input_hashes(staging, result.archived_inputs))
    return result.digest


def replay_archived(camp: Campaign, segment: str, month: MonthDate | str, *,
                    jobs: int = 1) -> Any:
    """Replay an archived month as it was made: with the templates archived
    with it (months before 0.2.0: the campaign's or the shipped ones), its own
    rules and previous-month figures, with PDFs if it archived PDFs, its
    reports stored as it stored them. Returns the
    :class:`wdg.engine.replay.ReplayReport` (docs/turns.md, "Replay")."""
    # lazy: the replay loads the upgrade and wdg.provenance (importlib.metadata); `wdg --help`
    # imports this module
    from wdg.engine.replay import Layer, LayerKind, ReplayReport, fill_month_rules, replay_month
    date = MonthDate.parse(month) if isinstance(month, str) else month
    mdir = month_dir(camp, segment, date)
    live = camp.segment_dir(segment)
    if (live / "segment.yaml").is_file():  # a segment of a newer wdg: refused, as everywhere
        if (fmt := format_of(live)) > FORMAT:
            raise too_new(live / "segment.yaml", fmt)
    if not (mdir / "manifest.yaml").is_file():
        raise StateError(f"Segment {segment!r}: kein archivierter Mond {date.key} ({mdir})")
    manifest = (safe_load_file(mdir / "manifest.yaml") or {}).get("files") or {}
    with_pdf = any(str(name).endswith(".pdf") for name in manifest)
    with tempfile.TemporaryDirectory(prefix="wdg-replay-templates-") as tmp:
        def _refused(e: Exception) -> Any:
            from wdg.provenance import build_info, describe  # lazy: see replay_archived

            prov = read_provenance(mdir)
            return ReplayReport(date, len(manifest), f"{e}", [Layer(LayerKind.INPUTS, False, str(e))],
                                made_by=describe((prov or {}).get("wdg")),
                                this_version=describe(build_info()))

        try:
            used = archived_templates(mdir, Path(tmp))
            previous = previous_figures(mdir, camp, segment, date)
        except StateError as e:
            return _refused(e)
        try:
            # a rules key this version needs that did not exist then: completed
            added = fill_month_rules(mdir, Path(tmp) / ".rules")
        except StateError as e:
            return _refused(e)
        except DataError as e:  # (a damaged archived rules file: named by the inputs' layer)
            added = []
            del e
        rules = Path(tmp) / ".rules" if added else mdir / "rules"
        tdir = Path(tmp) if used is not None else camp.templates_dir
        writers = archive_writers(tdir, rules, pdf=with_pdf, jobs=jobs,
                                  storage=storage_of(mdir, manifest), previous=previous,
                                  replaying=mdir)
        # the campaign's templates (a month that archived none) may not render with this
        # version: then the shipped ones, said so (issue #40 item 3)
        fallback = archive_writers(None, rules, pdf=with_pdf, jobs=jobs,
                                   storage=storage_of(mdir, manifest), previous=previous,
                                   replaying=mdir) \
            if used is None and camp.templates_dir.is_dir() else None
        return replay_month(camp, segment, date, writers,
                            templates=Path(tmp) if used is not None else None,
                            rules_dir=rules, rules_added=added, fallback=fallback)
