"""``wdg world mbw``: the Mitteilungsblatt of the world (MBW) as text, HTML and PDF.

"Das Mitteilungsblatt (MBW) von Welt der Götter erscheint in unregelmäßigen
Abständen und bringt in jeder Ausgabe zum Beispiel ausgewählte Kulturberichte,
Zeichnungen, Statistiken und Berichte von den einzelnen Spielsegmenten."

It is built from the segments' archives only (each archived month's state
after it and its events), never from the live files:

- per segment and month: the month, the number of kingdoms, and — when at
  least ``mbw.min_kingdoms`` kingdoms play there (``office.yaml``: :func:`office_rules`)
  — the sums over its kingdoms of land, soldiers, treasury and conquests; the
  battles (the Götterbotschaft's chronicle names every one), the kingdoms that
  ended, the game master's announcements and the rulers' open proclamations
  (both printed by the Götterbotschaft already);
- across segments: the largest realms (rank and name, no figures), the year's
  wars (which kingdoms fought how many battles: the chronicle's battles
  counted), plots of land and soldiers over the months (matplotlib where
  installed, SVG otherwise);
- the game master's own articles from a text file.

Nothing else of a segment is read into the MBW's model: no kingdom's own
figures, no sheet, no message, no player's name or address
(docs/rules.md, "The Mitteilungsblatt of the world").
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wdg.campaign import Campaign
from wdg.engine.history import archived_month_dirs
from wdg.errors import DataError, StateError, WdgError
from wdg.fsio import describe_os_error
from wdg.lab.plots import Panel, Series, draw, have_matplotlib
from wdg.office import segment_names
from wdg.procs import process_pool, stopping_pool
from wdg.reports.render import Renderer
from wdg.rules import safe_load_file
from wdg.store.files import read_events_data
from wdg.store.segment import load_segment
from wdg.textpolicy import clean_text
from wdg.world.calendar import MonthDate


@dataclass(slots=True)
class MonthFigures:
    """One segment's archived month as the MBW prints it."""

    month: str
    month_name: str
    year: int
    kingdoms: int
    """Kingdoms playing after the month (not city states, not ended)."""
    land: int | None = None
    """Gemarks held by kingdoms (sum; None: withheld, too few kingdoms)."""
    soldiers: int | None = None
    treasury: int | None = None
    conquests: int | None = None
    """Gemarks conquered in the month (sum over kingdoms)."""
    battles: int = 0
    battle_lines: list[str] = field(default_factory=list)
    """The chronicle's sentence of every battle (as in the Götterbotschaft)."""
    ended: list[str] = field(default_factory=list)
    """Names of the kingdoms that ended in the month."""
    bulletins: list[str] = field(default_factory=list)
    """The game master's announcements (``gm.bulletin``)."""
    proclamations: list[dict[str, str]] = field(default_factory=list)
    """Open proclamations of rulers (``announcement.published``): who and text."""
    wars: list[tuple[str, str]] = field(default_factory=list)
    """One (kingdom, kingdom) pair per battle, names sorted."""


@dataclass(slots=True)
class SegmentPage:
    """One segment's part of the MBW."""

    segment: str
    title: str
    months: list[MonthFigures] = field(default_factory=list)
    withheld: bool = False
    """Sums withheld: fewer than ``min_kingdoms`` kingdoms play."""
    largest: list[str] = field(default_factory=list)
    """Kingdom names by land, largest first (internal: ranks only are printed)."""
    problem: str | None = None
    """Why the segment's archive could not be read (then it has no months)."""

    @property
    def latest(self) -> MonthFigures | None:
        return self.months[-1] if self.months else None


@dataclass(slots=True)
class Article:
    """One of the game master's own articles."""

    title: str
    paragraphs: list[str]


@dataclass(slots=True)
class Mbw:
    """The whole Mitteilungsblatt."""

    segments: list[SegmentPage]
    largest: list[dict[str, Any]]
    """``{"rank", "kingdom", "segment"}`` across segments."""
    wars: list[dict[str, Any]]
    """``{"segment", "year", "sides", "battles"}``, most battles first."""
    articles: list[Article]
    min_kingdoms: int
    months: list[str] = field(default_factory=list)
    """Every month key of the plots (sorted)."""
    plots: list[str] = field(default_factory=list)
    """File names of the plots (in ``plots/`` beside the documents)."""

    def as_dict(self) -> dict[str, Any]:
        """For ``--json`` and ``mbw.json``."""
        return dataclasses.asdict(self)


OFFICE_RULES = Path(__file__).with_name("office.yaml")
"""The shipped rules of the office (``wdg/office/office.yaml``); a campaign's own
``office.yaml`` beside its ``worlds/`` replaces them. Not in ``worlds/rules/``:
they are no rules of a segment's month (a month's archived rules stay as they were)."""


def office_rules(camp: Campaign) -> tuple[Path, dict[str, Any]]:
    """The office's rules file of the campaign (its own, else the shipped one) and its content."""

    own = camp.root / "office.yaml"
    path = own if own.is_file() else OFFICE_RULES
    data = safe_load_file(path) or {}
    if not isinstance(data, dict):
        raise DataError(str(path), None, data, "eine Zuordnung (Schlüssel: Wert)")
    return path, data


def mbw_settings(camp: Campaign) -> tuple[int, int]:
    """``(min_kingdoms, largest_realms)`` from the office's rules (:func:`office_rules`)."""
    path, data = office_rules(camp)
    mbw = data.get("mbw")
    if not isinstance(mbw, dict):
        raise DataError(str(path), "mbw", mbw, "eine Zuordnung mit min_kingdoms und "
                        "largest_realms")
    n, top = mbw.get("min_kingdoms"), mbw.get("largest_realms")
    if not isinstance(n, int) or isinstance(n, bool) or n < 2:
        raise DataError(str(path), "mbw.min_kingdoms", n, "eine ganze Zahl, mindestens 2")
    if not isinstance(top, int) or isinstance(top, bool) or top < 0:
        raise DataError(str(path), "mbw.largest_realms", top, "eine ganze Zahl, mindestens 0")
    return n, top


def _playing(seg: Any) -> list[int]:
    return sorted(n for n, k in seg.kingdoms.items() if not k.city_state and not k.retired)


def month_figures(mdir: Path, before: Any | None, min_kingdoms: int) -> tuple[MonthFigures, Any]:
    """The figures of the archived month in ``mdir`` and its state after
    (``before``: the state before the month, for the kingdoms that ended;
    default: the month's ``state-before``)."""

    date = MonthDate.parse(mdir.name)
    after = load_segment(mdir / "state")
    if before is None:
        before = load_segment(mdir / "state-before")
    events = read_events_data(mdir)
    playing = _playing(after)
    fig = MonthFigures(date.key, date.short(), date.year, len(playing))
    if len(playing) >= min_kingdoms:
        fig.land = int(sum(int((after.owner == n).sum()) for n in playing))
        fig.soldiers = int(sum(a.units for a in after.armies.values() if a.kingdom in playing))
        fig.treasury = int(sum(after.kingdoms[n].treasury for n in playing))
        fig.conquests = sum(1 for e in events if e["kind"] == "conquest.won")
    name = {n: k.name for n, k in after.kingdoms.items()}
    for e in events:
        kind, data = e["kind"], e.get("data") or {}
        if kind == "combat.chronicle":
            fig.battles += 1
            fig.battle_lines.append(str(e.get("why", "")))
        elif kind == "combat.battle" and data.get("won") and e.get("kingdom") is not None:
            enemy = int(data.get("enemy_kingdom") or 0)
            sides = sorted((name.get(int(e["kingdom"]), f"Königreich {e['kingdom']}"),
                            name.get(enemy, f"Königreich {enemy}")))
            fig.wars.append((sides[0], sides[1]))
        elif kind == "gm.bulletin" and (data.get("kind") or "ankuendigung") == "ankuendigung":
            fig.bulletins.append(str(e.get("why", "")))
        elif kind == "announcement.published":
            k = int(data.get("from", e.get("kingdom") or 0))
            kd = after.kingdoms.get(k)
            fig.proclamations.append({"kingdom": kd.name if kd else f"Königreich {k}",
                                      "ruler": kd.ruler if kd else "",
                                      "text": str(data.get("text", ""))})
    before_playing = set(_playing(before))
    fig.ended = [after.kingdoms[n].name for n in sorted(before_playing - set(playing))
                 if n in after.kingdoms]
    return fig, after


def segment_page(camp: Campaign, name: str, min_kingdoms: int) -> SegmentPage:
    """One segment's months from its archive (errors become :attr:`SegmentPage.problem`)."""

    page = SegmentPage(name, name)
    try:
        page.title = load_segment(camp.segment_dir(name)).title or name
        before = None
        after = None
        for mdir in archived_month_dirs(camp, name):
            if not (mdir / "manifest.yaml").is_file() or not (mdir / "state").is_dir():
                continue  # a month archived before the state after it was kept
            fig, after = month_figures(mdir, before, min_kingdoms)
            page.months.append(fig)
            before = after
    except WdgError as exc:
        page.problem = str(exc)
        return page
    except OSError as exc:
        page.problem = describe_os_error(exc)
        return page
    if after is not None:
        playing = _playing(after)
        page.withheld = len(playing) < min_kingdoms
        if not page.withheld:
            land = {n: int((after.owner == n).sum()) for n in playing}
            page.largest = [after.kingdoms[n].name for n in
                            sorted(playing, key=lambda n: (-land[n], after.kingdoms[n].name))]
    return page


def read_articles(path: Path) -> list[Article]:
    """The game master's articles: UTF-8 text, an article begins with a line
    ``# Titel``, paragraphs are separated by blank lines."""

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise StateError(f"die Artikel {path} sind nicht lesbar: {describe_os_error(exc)}") \
            from None
    except UnicodeDecodeError as exc:
        raise DataError(str(path), None, f"Byte {exc.start}", "UTF-8-Text") from None
    out: list[Article] = []
    para: list[str] = []

    def flush() -> None:
        if para and out:
            out[-1].paragraphs.append(" ".join(para))
        para.clear()

    for i, raw in enumerate(clean_text(text).splitlines(), 1):
        line = raw.strip()
        if line.startswith("# "):
            flush()
            out.append(Article(line[2:].strip(), []))
        elif not line:
            flush()
        elif not out:
            raise DataError(str(path), None, line[:40], "zuerst eine Überschrift '# Titel'",
                            line=i)
        else:
            para.append(line)
    flush()
    return out


def _page(root: str, name: str, min_kingdoms: int) -> SegmentPage:
    return segment_page(Campaign(Path(root)), name, min_kingdoms)


def build_mbw(camp: Campaign, articles: Path | None = None, jobs: int = 1) -> Mbw:
    """The MBW model of the campaign's segments (see the module); ``jobs`` > 1
    reads the segments' archives in that many processes."""
    min_kingdoms, top = mbw_settings(camp)
    names = segment_names(camp)
    if jobs > 1 and len(names) > 1:
        with stopping_pool(process_pool(min(jobs, len(names)))) as pool:
            pages = list(pool.map(_page, [str(camp.root)] * len(names), names,
                                  [min_kingdoms] * len(names)))
    else:
        pages = [segment_page(camp, name, min_kingdoms) for name in names]
    ranked = sorted(((rank, k, p.segment) for p in pages for rank, k in enumerate(p.largest)),
                    key=lambda t: (t[0], t[2]))
    largest = [{"rank": i + 1, "kingdom": k, "segment": seg}
               for i, (_, k, seg) in enumerate(ranked[:top])]
    wars: list[dict[str, Any]] = []
    for p in pages:
        if p.latest is None:
            continue
        year = p.latest.year
        count: dict[tuple[str, str], int] = defaultdict(int)
        for m in p.months:
            if m.year == year:
                for pair in m.wars:
                    count[pair] += 1
        wars += [{"segment": p.segment, "year": year, "sides": list(pair), "battles": n}
                 for pair, n in count.items()]
    wars.sort(key=lambda w: (-w["battles"], w["segment"], w["sides"]))
    months = sorted({m.month for p in pages for m in p.months})
    return Mbw(pages, largest, wars, read_articles(articles) if articles else [],
               min_kingdoms, months)


def _plots(mbw: Mbw, out: Path, backend: str) -> list[str]:
    """Land and soldiers of each segment over the months (segments with sums only)."""

    shown = [p for p in mbw.segments if p.months and not p.withheld]
    if not shown or not mbw.months:
        return []
    pdir = out / "plots"
    pdir.mkdir(parents=True, exist_ok=True)
    files = []
    for key, title in (("land", "Land der Reiche (Gemarken)"), ("soldiers", "Soldaten")):
        series = []
        for p in shown:
            by = {m.month: getattr(m, key) for m in p.months}
            values, last = [], 0.0
            for month in mbw.months:  # a month the segment has no figure for repeats the last
                v = by.get(month)
                last = float(v) if v is not None else last
                values.append(last)
            series.append(Series(p.segment, values))
        files.append(draw(f"mbw-{key}", title, [Panel(title, series)], mbw.months, pdir,
                          backend).name)
    return files


def write_mbw(camp: Campaign, out: Path, *, articles: Path | None = None, pdf: bool = True,
              plots: str = "auto", jobs: int = 1) -> tuple[Mbw, list[Path]]:
    """Write ``mbw.txt``, ``mbw.html``, ``mbw.pdf`` (unless not ``pdf``),
    ``mbw.json`` and ``plots/`` into ``out``; returns the model and the files."""

    if plots not in ("auto", "matplotlib", "svg", "none"):
        raise DataError(None, "--plots", plots, "auto, matplotlib, svg oder none")
    if plots == "matplotlib" and not have_matplotlib():
        raise StateError("--plots matplotlib: matplotlib ist nicht installiert "
                         "(pip install 'wdg[lab]'); --plots svg zeichnet ohne")
    backend = "matplotlib" if plots == "matplotlib" or (plots == "auto" and have_matplotlib()) \
        else "svg"
    mbw = build_mbw(camp, articles, jobs=jobs)
    out.mkdir(parents=True, exist_ok=True)
    mbw.plots = _plots(mbw, out, backend) if plots != "none" else []
    r = Renderer(camp.templates_dir if camp.templates_dir.is_dir() else None)
    issue = max(mbw.months) if mbw.months else ""
    values = {"mbw": mbw, "issue": issue, "doc_date": "", "svg_plots": {
        name: (out / "plots" / name).read_text(encoding="utf-8")
        for name in mbw.plots if name.endswith(".svg")}}
    files = []
    text = out / "mbw.txt"
    text.write_text(r.text("mbw.txt.j2", **values), encoding="utf-8")
    html = r.html("mbw.html.j2", **values)
    (out / "mbw.html").write_text(html, encoding="utf-8")
    files += [text, out / "mbw.html"]
    if pdf:
        from wdg.reports.pdf import html_to_pdf  # lazy: WeasyPrint (over 1 s), only for the PDF

        data, refused = html_to_pdf(html, [out, *r.dirs], base=out)
        if refused:
            raise StateError(f"das MBW verweist auf fremde Dateien: {', '.join(refused)}")
        (out / "mbw.pdf").write_bytes(data)
        files.append(out / "mbw.pdf")
    import json

    (out / "mbw.json").write_text(json.dumps(mbw.as_dict(), ensure_ascii=False, indent=1) + "\n",
                                  encoding="utf-8")
    files.append(out / "mbw.json")
    files += [out / "plots" / n for n in mbw.plots]
    return mbw, files
