"""History for archivists and the game master's look before a run.

- :func:`month_status`: the current month, its deadline, and which kingdoms
  have sent valid sheets, which are missing and which were refused (the same
  intake the runner uses, so what it says is what the run will do).
- :func:`list_months`: every archived month with seed, kingdom order, sheets
  and whether the stored outputs still match the manifest's hashes (a quick
  check; ``wdg turn replay`` re-runs the month for the full proof).
- :func:`month_events`: the events of an archived month, optionally of one kingdom.
- :func:`export_history`: the whole history as one JSON-ready document.

Only reading; nothing here changes the segment or its archive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wdg.campaign import Campaign
from wdg.engine.diplomacy import content_problems, game_terms
from wdg.store import integrity
from wdg.store.files import SUMMARY, events_file, read_events_data
from wdg.store.integrity import month_dirs
from wdg.store.months import read_order_files
from wdg.engine.month_sheets import take_in
from wdg.orders.parser import decode, redact_passwords
from wdg.errors import DataError, StateError
from wdg.orders.model import Sheet
from wdg.rules import Rules, safe_load_file
from wdg.world.calendar import MonthDate
from wdg.world.deadline import deadline_for, when
from wdg.world.state import Segment
from wdg.store.segment import load_segment


@dataclass(slots=True)
class MonthStatus:
    """What the next run would find."""

    segment: str
    date: MonthDate
    deadline: str
    valid: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    refused: dict[int, str] = field(default_factory=dict)
    gm_sheet: bool = False
    playing: int = 0
    missing_share_limit: float = 0.5
    gm_errors: str = ""
    """Why the run would refuse the game master's sheet (empty: no errors)."""
    bots: list[int] = field(default_factory=list)
    """Kingdoms played by a bot without a sheet yet: ``wdg turn run`` lets the
    bot write it (docs/bots.md), so they are not missing."""
    texts: list[str] = field(default_factory=list)
    """Messages and announcements of the valid sheets that the content filter
    flags (game terms: the game master decides; real names and addresses: held
    back by the run), one German line each with the ZURUECKHALTEN line to use."""

    @property
    def needs_force(self) -> bool:
        """True when more kingdoms than the setting allows sent nothing usable."""
        return bool(self.playing) and len(self.missing) / self.playing > self.missing_share_limit


@dataclass(slots=True)
class ArchivedMonth:
    """One month of the archive."""

    date: MonthDate
    entropy: list[int]
    kingdom_order: list[int]
    sheets: list[str]
    events: int
    verified: bool
    first_mismatch: str | None = None
    not_covered: str | None = None
    """What the month's hash lists do not cover (a month archived by an older wdg)."""
    made_by: str = ""
    """Which wdg resolved the month (from its index; empty: before wdg 0.2.0)."""


def month_status(camp: Campaign, segment: str) -> MonthStatus:
    """The current month's sheets as the runner would take them in."""
    seg = load_segment(camp.segment_dir(segment))
    files = read_order_files(camp.orders_dir(segment, seg.date))
    gm_errors = ""
    try:
        intake = take_in(seg, files)
    except StateError as exc:
        # the game master's sheet has errors: name them, report the players' sheets anyway
        gm_errors = str(exc)
        intake = take_in(seg, {k: v for k, v in files.items() if k != "sl.txt"})
    s = seg.settings
    d = deadline_for(seg, seg.date)
    deadline = when(d) if d is not None else \
        f"nicht gesetzt (wdg turn deadline {seg.name} JJJJ-MM-TT [HH:MM])"
    st = MonthStatus(segment, seg.date, deadline, gm_sheet="sl.txt" in files,
                     missing_share_limit=s.missing_sheet_share, gm_errors=gm_errors)
    playing = sorted(n for n, k in seg.kingdoms.items()
                     if not k.city_state and not k.retired and k.player is not None)
    st.playing = len(playing)
    st.valid = sorted(intake.sheets)
    for e in intake.events:
        if e.kind == "sheet.refused" and e.kingdom is not None:
            st.refused[e.kingdom] = e.why
    st.bots = [k for k in playing if k not in intake.sheets and seg.kingdoms[k].bot
               and k not in st.refused]
    st.missing = [k for k in playing if k not in intake.sheets and k not in st.bots]
    st.texts = flagged_texts(seg, intake.sheets, Rules.load(camp.rules_dir))
    return st


def flagged_texts(seg: Segment, sheets: dict[int, Sheet], rules: Rules) -> list[str]:
    """The messages and announcements the game master should look at before
    the run ("Alle Botschaften und Bekanntmachungen müssen sich in der
    Wortwahl ... am Zeitalter des Spieles orientieren"): game terms are flagged
    for his judgement (``ZURUECKHALTEN``), real names and addresses are held
    back by the run itself."""
    out = []
    for k in sorted(sheets):
        texts = [("BOTSCHAFT", i, msg.line, msg.text, f" an Königreich {msg.to}")
                 for i, msg in enumerate(sheets[k].messages, start=1)]
        texts += [("BEKANNTMACHUNG", i, ann.line, ann.text, "")
                  for i, ann in enumerate(sheets[k].announcements, start=1)]
        for what, i, line, text, to in texts:
            held = content_problems(seg, rules, text)
            terms = game_terms(rules, text)
            head = f"Königreich {k}: {what.capitalize()} Nr. {i}{to} (Zeile {line})"
            if held:
                out.append(f"{head} {', '.join(held)} — wird zurückgehalten")
            elif terms:
                out.append(f"{head} {', '.join(terms)} (Spielbegriffe) — zurückhalten mit "
                           f"'ZURUECKHALTEN {k} {what} {i} <Grund>' in sl.txt")
    return out


def archived_month_dirs(camp: Campaign, segment: str) -> list[Path]:
    """The folders of the segment's archived months, oldest first; only real
    folders (a symlink or a file named like a month is no archived month)."""
    return [p for p in month_dirs(camp.archive_dir(segment)) if p.is_dir() and not p.is_symlink()]


def _check_sizes(month_dir: Path, sizes: dict[str, int]) -> str | None:
    """The first file of the month's index that is missing or changed its size."""
    for name, size in sorted(sizes.items()):
        p = month_dir / name
        if not p.is_file() or p.stat().st_size != size:
            return name
    return None


def list_months(camp: Campaign, segment: str, *, verify: bool = False) -> list[ArchivedMonth]:
    """Every archived month, oldest first, read from its index
    (``summary.yaml``; months archived before it: seed and event log). Each is
    checked against its hash list (:func:`wdg.store.integrity.verify_month`): by
    default the index files' hashes and every file's presence and size (a few
    hundred bytes read per month, whatever its size); ``verify``: every
    file's SHA-256, inputs as well as outputs. Damage is reported in the
    month's entry (the first finding), never raised."""
    # lazy: wdg.provenance loads importlib.metadata; `wdg --help` imports this module
    from wdg.provenance import month_made_by

    out = []
    for d in archived_month_dirs(camp, segment):
        findings = integrity.verify_month(d, full=verify)
        damage = [f for f in findings if not f.uncovered]
        note = next((f.what for f in findings if f.uncovered), None)
        info: dict[str, Any] = {}
        sheets: list[str] = []
        events = 0
        try:
            summary = safe_load_file(d / SUMMARY) if (d / SUMMARY).is_file() else None
            if isinstance(summary, dict):
                info = summary
                sheets = [str(x) for x in summary.get("sheets") or []]
                events = int(summary.get("events") or 0)
                if not verify and not damage:
                    wrong = _check_sizes(d, summary.get("sizes") or {})
                    if wrong:
                        damage.append(integrity.Finding(str(d / wrong), "fehlt oder hat eine "
                                                        "andere Größe als im Index"))
            else:
                info = safe_load_file(d / "seed.yaml") or {}
                events = len(read_events_data(d))
                sheets = sorted(p.name for p in (d / "orders").glob("*.txt")) \
                    if (d / "orders").is_dir() else []
        except (DataError, StateError, OSError, TypeError, ValueError) as e:
            if not damage:
                damage.append(integrity.Finding(str(d), f"Index nicht lesbar ({e})"))
        if not isinstance(info, dict):
            info = {}
        out.append(ArchivedMonth(
            MonthDate.parse(d.name), list(info.get("entropy") or []),
            list(info.get("kingdom_order") or []), sheets, events, not damage,
            str(damage[0]) if damage else None, note, month_made_by(d)))
    return out


def month_events(camp: Campaign, segment: str, month: MonthDate | str,
                 kingdom: int | None = None) -> list[dict[str, Any]]:
    """The events of an archived month (of one kingdom if given)."""
    date = MonthDate.parse(month) if isinstance(month, str) else month
    d = camp.archive_dir(segment) / date.key
    if not events_file(d).is_file():
        have = ", ".join(p.name for p in archived_month_dirs(camp, segment)) or "keiner"
        raise StateError(f"Mond {date.key} von {segment!r} ist nicht archiviert (archiviert: {have})")
    events = read_events_data(d)
    if kingdom is not None:
        events = [e for e in events if e.get("kingdom") == kingdom]
    return events


def export_history(camp: Campaign, segment: str, month: str | None = None) -> dict[str, Any]:
    """The whole history of a segment as one JSON-ready document: per archived
    month its seed, kingdom order, sheets (text, passwords replaced by
    ``******``), game master's sheet, events and manifest; and a summary of the
    current state."""
    seg = load_segment(camp.segment_dir(segment))
    months = []
    dirs = archived_month_dirs(camp, segment)
    if month is not None:
        key = MonthDate.parse(month).key
        dirs = [d for d in dirs if d.name == key]
        if not dirs:
            raise StateError(f"Mond {key} von {segment!r} ist nicht archiviert")
    for d in dirs:
        orders = d / "orders"
        months.append({
            "month": d.name,
            "seed": safe_load_file(d / "seed.yaml"),
            "sheets": {p.name: redact_passwords(decode(p.read_bytes()))
                       for p in sorted(orders.glob("*.txt"))} if orders.is_dir() else {},
            "events": read_events_data(d),
            "manifest": (safe_load_file(d / "manifest.yaml") or {}).get("files", {}),
        })
    current = {
        "month": seg.date.key,
        "kingdoms": [
            {"number": n, "name": k.name, "ruler": k.ruler, "city_state": k.city_state,
             "treasury": k.treasury, "gemarks": int((seg.owner == n).sum()),
             "soldiers": sum(a.units for a in seg.armies.values() if a.kingdom == n)}
            for n, k in sorted(seg.kingdoms.items())
        ],
    }
    return {"segment": seg.name, "title": seg.title, "seed": seg.seed, "months": months,
            "current": current}


def blockers(st: MonthStatus) -> list[str]:
    """Why ``wdg turn run`` (and ``wdg mail run``) would refuse to start, in German."""
    out = []
    if st.gm_errors:
        out.append(f"{st.gm_errors} — 'wdg turn run' verweigert den Start")
    if st.needs_force:
        out.append(f"{len(st.missing)} von {st.playing} Königreichen ohne gültigen Spielzug "
                   "(verlorene Post?) — 'wdg turn run' verlangt --force")
    return out
