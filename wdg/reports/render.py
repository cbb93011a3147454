"""Render report models through Jinja2 templates: plain text and HTML.

Templates live in the shipped ``templates/`` folder; a campaign's own
``templates/`` overrides any of them by file name (the campaign's folder is
searched first). HTML templates autoescape; text templates do not escape
(there is no markup to protect) — in both, player text (settlement names,
announcements, messages) is only ever passed as a *value*, never compiled as
a template, so ``{{ ... }}`` in it stays literal text. CSS and other assets
are read through :meth:`Renderer.asset` as raw text, not as templates.

Text output fits 80 columns: the ``wrap``, ``pad`` and ``rpad`` filters do
the layout.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

from jinja2 import (BytecodeCache, ChoiceLoader, Environment, FileSystemLoader, StrictUndefined,
                    select_autoescape)
from jinja2.bccache import Bucket
from markupsafe import Markup

from wdg.campaign import SHIPPED_TEMPLATES
from wdg.reports.model import SECTION_NUMBERS, count, gs, money, pct, signed_money
from wdg.textpolicy import xml_safe
from wdg.world.state import ruler_title

WIDTH = 80


def template_dirs(campaign_templates: Path | None = None) -> list[Path]:
    """The folders searched for templates and assets, the campaign's first."""
    dirs = []
    if campaign_templates is not None and Path(campaign_templates).is_dir():
        dirs.append(Path(campaign_templates).resolve())
    dirs.append(SHIPPED_TEMPLATES.resolve())
    return dirs


def wrap(text: Any, width: int = WIDTH, indent: int = 0, first: str = "") -> str:
    """Wrap ``text`` to ``width`` columns; continuation lines indented by
    ``indent`` spaces, the first line starting with ``first`` (padded to the
    indent). Paragraphs (blank lines) and single line breaks are kept."""
    lead = (first.ljust(indent) if first else " " * indent)
    sub = " " * indent
    out: list[str] = []
    for i, para in enumerate(str(text).split("\n")):
        p = para.strip()
        if not p:
            out.append("")
            continue
        start = lead if i == 0 else sub
        if len(start) + len(p) <= width and _fits_as_is(p):
            out.append(start + p)  # what textwrap gives a line that fits, without its cost
            continue
        got = _greedy(p, width, start, sub) if _fits_as_is(p) else \
            textwrap.wrap(p, width=width, initial_indent=start, subsequent_indent=sub,
                          break_long_words=True, break_on_hyphens=False)
        out.extend(got or [lead.rstrip()])
    return "\n".join(out)


_SPACES = re.compile("( +)")


def _greedy(text: str, width: int, initial: str, subsequent: str) -> list[str]:
    """``textwrap.wrap(text, width, initial_indent=initial,
    subsequent_indent=subsequent, break_long_words=True,
    break_on_hyphens=False)`` for a text whose only whitespace that textwrap
    splits at is the space (:func:`_fits_as_is`, no line feed): the same
    lines, step for step as ``TextWrapper._wrap_chunks`` makes them, without
    its general machinery (a sheet wraps thousands of lines)."""
    chunks = [c for c in _SPACES.split(text) if c]
    chunks.reverse()
    lines: list[str] = []
    while chunks:
        line: list[str] = []
        used = 0
        indent = subsequent if lines else initial
        room = width - len(indent)
        if lines and chunks[-1].strip() == "":
            del chunks[-1]
        while chunks and used + len(chunks[-1]) <= room:
            c = chunks.pop()
            line.append(c)
            used += len(c)
        if chunks and len(chunks[-1]) > room:  # a word longer than a line: cut it
            left = 1 if room < 1 else room - used
            c = chunks[-1]
            line.append(c[:left])
            chunks[-1] = c[left:]
        if line and line[-1].strip() == "":
            del line[-1]
        if line:
            lines.append(indent + "".join(line))
    return lines


def _fits_as_is(text: str) -> bool:
    """True if textwrap would leave a line that fits unchanged: no whitespace
    character but the space that it would replace or expand."""
    return not ("\t" in text or "\r" in text or "\x0b" in text or "\x0c" in text)


def hang(text: Any, width: int = WIDTH, indent: int = 4) -> str:
    """Wrap ``text`` to ``width`` columns, the first line as it is, the
    continuation lines indented by ``indent`` spaces."""
    s = str(text)
    if s and len(s) <= width and s.strip() == s and "\n" not in s and _fits_as_is(s):
        return s
    if "\n" not in s and _fits_as_is(s):
        return "\n".join(_greedy(s, width, "", " " * indent))
    lines = textwrap.wrap(s, width=width, subsequent_indent=" " * indent,
                          break_long_words=True, break_on_hyphens=False, drop_whitespace=True)
    return "\n".join(lines)


def pad(value: Any, n: int) -> str:
    """Left-justify to ``n`` columns, cutting with ``…`` when longer."""
    s = str(value)
    return s.ljust(n) if len(s) <= n else s[: n - 1] + "…"


def rpad(value: Any, n: int) -> str:
    """Right-justify to ``n`` columns."""
    s = str(value)
    return s.rjust(n) if len(s) <= n else s[: n - 1] + "…"


def _policy(value: Any) -> Any:
    """Every value a template prints: characters XML forbids and control,
    bidi and zero-width characters removed (docs/security.md), so every HTML,
    text and PDF output is well-formed and shows no hidden text."""
    t = type(value)
    if t is str:  # most of the ~200,000 values a month's sheets print
        return xml_safe(value)
    if t is int:
        return value
    if isinstance(value, Markup):
        return Markup(xml_safe(str(value)))
    if isinstance(value, str):
        return xml_safe(value)
    return value


class _MemoryBytecodeCache(BytecodeCache):
    """Compiled templates kept in memory for the process: every Renderer after
    the first (a worker's, a replay's, a forked child's) skips compiling.
    Jinja keys a template by its file name and checks its source's checksum, so
    a changed template is compiled anew. One cache per environment kind: text
    and HTML compile the same file differently (autoescape)."""

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self.store.get(bucket.key)
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()


_BYTECODE = {"text": _MemoryBytecodeCache(), "html": _MemoryBytecodeCache()}
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(Environment):
    """Jinja's environment, reading ``row.name`` of a dict (the report model is
    JSON: every value on the sheet is one) by its key at once. Jinja tries the
    attribute first and takes the key after the AttributeError — the same
    answer (a dict has no other attributes than ``dir(dict)``), but an
    exception for each of the ~4,000 values of a sheet."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def title_of(who: Any, use: str = "nom") -> str:
    """The ruler's title ("Herrscher"/"Herrscherin", :func:`wdg.world.state.ruler_title`)
    of a report's header (a mapping without ``herrscherin``: "Herrscher") or of a
    row or announcement with a ``herrscherin`` attribute."""
    female = who.get("herrscherin", False) if isinstance(who, dict) \
        else getattr(who, "herrscherin", False)
    return ruler_title(female, use)


def around_lines(cells: list[dict[str, Any]]) -> list[str]:
    """The gemarks around an army (:class:`wdg.reports.model.AroundCell` as data)
    as a small hex map of terrain codes, the army's gemark in brackets, ``??``
    never seen, blank off the map: two rings in five lines."""
    rows: dict[int, dict[int, dict[str, Any]]] = {}
    n = max((c["ring"] for c in cells), default=0)
    for c in cells:
        rows.setdefault(c["dr"], {})[c["dq"]] = c
    out = []
    for dr in range(-n, n + 1):
        if dr not in rows:
            continue  # beyond the map's edge
        line = " " * (2 * abs(dr))
        for dq in range(max(-n, -n - dr), min(n, n - dr) + 1):
            cell = rows.get(dr, {}).get(dq)
            code = "  " if cell is None else (cell["code"] or "??")
            line += f"[{code}]" if (dq, dr) == (0, 0) else f" {code} "
        out.append(line.rstrip())
    return out


def around_legend(armies: list[dict[str, Any]]) -> str:
    """The terrain codes the armies' surroundings use, with their names."""
    names = {c["code"]: c["terrain"] for a in armies for c in a.get("around", []) if c["code"]}
    return ", ".join(f"{code}\u00a0{names[code]}" for code in sorted(names))


OPTIONAL_SECTIONS = frozenset({"battles", "offers", "messages", "contacts", "notes", "events"})
"""Sections the sheet leaves out when the report has nothing for them."""


def section_numbers(r: dict[str, Any]) -> dict[str, int]:
    """The sheet's section numbers without gaps (issue #42): the sections in the
    order of :data:`~wdg.reports.model.SECTION_NUMBERS`, an optional one
    (:data:`OPTIONAL_SECTIONS`) counted only when the report ``r`` has
    something for it — as the templates show it."""
    out, n = {}, 0
    for key in sorted(SECTION_NUMBERS, key=SECTION_NUMBERS.__getitem__):
        if key in OPTIONAL_SECTIONS and not r.get(key):
            continue
        n += 1
        out[key] = n
    return out


ARMY_STATUS_WORDS = {"active": "aktiv", "passive": "passiv", "activating": "wird aktiv"}
"""An army's status (the report model's value) as the sheets say it."""


def army_status(value: str) -> str:
    """The German word for an army's status; a report of version 3 or older
    wrote the word itself, which stays."""
    return ARMY_STATUS_WORDS.get(value, value)


def army_gemark(army: dict[str, Any], own: int, short: bool = True) -> str:
    """Whose gemark an army stands on, in German ("Zugehörigkeit zu einem
    Königreich"; ``own``: the report's kingdom): "" in 000.00 or in an older
    report without the owner."""
    owner = army.get("owner")
    if owner is None:
        return ""
    if owner == own:
        return "eigene Gemark" if short else "eigenes Reich"
    if owner == 0:
        return "Gemark neutral" if short else "neutral"
    name = army.get("owner_name") or f"Königreich {owner}"
    return (f"Gemark von {name} ({owner})" if short else f"{name} ({owner})")


def volume_text(volume: dict[str, int]) -> str:
    """A settlement's Rüstvolumen in German: "3.642 Krieger oder 1.821 Reiter"
    ("keine Rüstung" without Kaserne or Hafen)."""
    if not volume:
        return "keine Rüstung (weder Kaserne noch Hafen)"
    one = {"Schiffe": "Schiff"}
    return " oder ".join(count(n, one.get(t, t), t) for t, n in volume.items())


class Renderer:
    """The Jinja2 environments (text and HTML) over the template folders."""

    def __init__(self, campaign_templates: Path | None = None, *,
                 month_digest: str | None = None) -> None:
        self.dirs = template_dirs(campaign_templates)
        loader = ChoiceLoader([FileSystemLoader(str(d)) for d in self.dirs])
        common: dict[str, Any] = dict(loader=loader, undefined=StrictUndefined,
                                      finalize=_policy,
                                      keep_trailing_newline=True, trim_blocks=True,
                                      lstrip_blocks=True, auto_reload=False)
        self.text_env = _Environment(autoescape=False, bytecode_cache=_BYTECODE["text"], **common)
        self.html_env = _Environment(autoescape=select_autoescape(default=True,
                                                                 default_for_string=True),
                                    bytecode_cache=_BYTECODE["html"], **common)
        for env in (self.text_env, self.html_env):
            env.filters.update(gs=gs, money=money, signed_money=signed_money, pct=pct, count=count,
                               wrap=wrap, pad=pad, rpad=rpad, safe_svg=svg, hang=hang,
                               print_map=print_svg, volume=volume_text,
                               around=around_lines, around_legend=around_legend,
                               army_status=army_status, army_gemark=army_gemark,
                               zfill4=lambda v: str(v).zfill(4))
            env.globals["asset"] = self.asset
            env.globals["WIDTH"] = WIDTH
            env.globals["SECTION_NUMBERS"] = SECTION_NUMBERS  # (archived templates)
            env.globals["section_numbers"] = section_numbers
            env.globals["ruler_title"] = title_of
            # the month's digest (wdg.digest), printed when known; set per month
            env.globals["month_digest"] = month_digest

    def asset(self, name: str) -> Markup:
        """The raw text of an asset (CSS) from the template folders, for inlining."""
        if "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"asset names are plain file names, got {name!r}")
        for d in self.dirs:
            p = d / name
            if p.is_file():
                css = p.read_text(encoding="utf-8")
                # Inline in <style>: a "</" could close the element.
                return Markup(css.replace("</", "<\\/"))
        raise FileNotFoundError(f"Vorlagendatei {name!r} fehlt in {', '.join(map(str, self.dirs))}")

    def text(self, template: str, **values: Any) -> str:
        """Render a text template; lines are right-stripped."""
        out = self.text_env.get_template(template).render(**values)
        return "\n".join(line.rstrip() for line in out.split("\n"))

    def html(self, template: str, **values: Any) -> str:
        """Render an HTML template (autoescaped)."""
        return self.html_env.get_template(template).render(**values)


def print_svg(markup: str) -> Markup:
    """A map SVG in its printed form (:func:`wdg.reports.printmap.print_map`):
    the SVG without text, the text laid over it as HTML (PDF only)."""
    from wdg.reports.printmap import print_map  # lazy: xml.etree, PDFs only; `wdg --help` imports this module

    return Markup(print_map(markup))


def svg(markup: str) -> Markup:
    """Mark an SVG produced by :mod:`wdg.reports.exploration` as safe to inline
    (it escapes every text it writes)."""
    return Markup(markup)
