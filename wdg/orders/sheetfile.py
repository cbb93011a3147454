"""Checking sheet files: the library side of ``wdg orders check`` and ``wdg
orders simulate``, and the checker's verdict on the demo campaign's sheets
(for ``wdg demo``)."""

from __future__ import annotations

import textwrap

from pathlib import Path

import json

from wdg.campaign import PACKAGE_ROOT, Campaign
from wdg.errors import InvalidInputError
from wdg.fsio import german_strerror
from wdg.orders.checker import check_sheet
from wdg.engine.events import Reason
from wdg.orders.forecast import Forecast, forecast, forecast_text
from wdg.orders.acceptance import refusals
from wdg.orders.model import Diagnostic, Severity, Sheet
from wdg.orders.outcome import IntakeReason
from wdg.orders.parser import parse_sheet
from wdg.orders.verdict import echo, summary, to_json
from wdg.orders.view import build_view, load_view
from wdg.rules import Rules
from wdg.store.segment import load_segment
from wdg.world.state import Segment


def _segment_of(sheet: Sheet, campaign: Campaign) -> Segment | None:
    """The campaign's segment named in the sheet; with exactly one segment at
    hand, that one; else ``None``."""
    d = None
    if sheet.segment:
        try:
            d = campaign.segment_dir(sheet.segment)
        except InvalidInputError:
            d = None
    if d is None or not (d / "segment.yaml").is_file():
        present = sorted(p.parent for p in campaign.worlds.glob("*/segment.yaml"))
        d = present[0] if len(present) == 1 else None
    return load_segment(d) if d is not None else None


def diagnose(data: bytes, *, view: Path | None = None,
             campaign: Campaign | None = None) -> list[Diagnostic]:
    """All diagnostics of a sheet: against ``view`` if given, else against the
    campaign's segment named in the sheet (if present), else the parser's.

    With the segment at hand the import's own decision
    (:func:`wdg.orders.acceptance.refusals`: unknown kingdom, wrong segment,
    wrong month, missing or wrong password) comes first, as errors."""
    sheet = parse_sheet(data)
    if view is not None:
        return check_sheet(sheet, load_view(view))
    if campaign is not None:
        # a sheet naming no segment of this campaign: with exactly one segment
        # at hand, the import into it would refuse it — say so
        seg = _segment_of(sheet, campaign)
        if seg is not None:
            return sheet_verdict(sheet, seg)
    return list(sheet.diagnostics)


FORM_ONLY = (
    "Hinweis: geprüft wurde nur die Form des Spielzugs – ohne die Sicht Ihres Königreiches "
    "(--view ansicht.yaml) und ohne das Segment. Nicht geprüft sind: ob es die Heere, "
    "Gemarken, Siedlungen und Feldherren gibt und ob sie Ihnen gehören, wo die Heere stehen "
    "und wohin sie ziehen können (etwa ins Meer), was die Befehle kosten und ob der "
    "Reichsschatz reicht, der Mond und das Passwort. Geben Sie die Sicht mit --view an."
)
"""What ``wdg orders check`` says when it has neither a view nor the segment."""


def checks_only_the_form(data: bytes, *, view: Path | None = None,
                         campaign: Campaign | None = None) -> bool:
    """True if :func:`diagnose` has neither a view nor the sheet's segment: only
    the parser's messages (the form) are checked."""
    if view is not None:
        return False
    return campaign is None or _segment_of(parse_sheet(data), campaign) is None


def sheet_verdict(sheet: Sheet, seg: Segment) -> list[Diagnostic]:
    """The import's refusals plus the checker's verdict, sorted by line — what
    ``wdg orders check`` shows and what the import's confirmation quotes."""
    out = refusals(sheet, seg)
    if sheet.kingdom in seg.kingdoms:
        checked = check_sheet(sheet, build_view(seg, sheet.kingdom))
        known = {(d.line, d.message) for d in out}
        out += [d for d in checked if (d.line, d.message) not in known
                and not (d.code is IntakeReason.OTHER_MONTH
                         and any(r.code is IntakeReason.OTHER_MONTH for r in out))]
    else:
        out += sheet.diagnostics
    return sorted(out, key=lambda d: (d.line, d.column))


def check_file(path: Path, *, view: Path | None = None, campaign: Campaign | None = None,
               fmt: str = "text", with_forecast: bool = False) -> tuple[str, int]:
    """The verdict on one sheet file as text or JSON, and its number of errors;
    with ``with_forecast`` the text ends with the forecast ("Vorschau") when a view
    or the segment is at hand (else one line saying why not)."""
    data = _read(path)
    diags = diagnose(data, view=view, campaign=campaign)
    errors = sum(d.severity is Severity.ERROR for d in diags)
    diags = sorted(diags + forecast_warnings(data, diags, view=view, campaign=campaign),
                   key=lambda d: (d.line, d.column))
    ignored = parse_sheet(data).outside_lines
    out = to_json(diags, source=str(path), ignored=ignored) if fmt == "json" \
        else echo(data, diags, ignored)
    if fmt == "text" and checks_only_the_form(data, view=view, campaign=campaign):
        out = out.rstrip("\n") + "\n\n" + "\n".join(textwrap.wrap(FORM_ONLY, 80)) + "\n"
    if with_forecast and fmt == "text":
        try:
            out = out.rstrip("\n") + "\n\n" + forecast_text(
                sheet_forecast(data, view=view, campaign=campaign))
        except InvalidInputError as exc:
            out = out.rstrip("\n") + f"\n\nKeine Vorschau möglich: {exc}\n"
    return out, errors


FORECAST_WARNING = "Vorschau: voraussichtlich {what} – {reason}"
"""The checker's warning for an order the forecast foresees refused or cut short."""
_WHAT = {Reason.GOLD: "verweigert (Gold)", Reason.CAPACITY: "nur teilweise ausgeführt (Tragkraft)",
         Reason.VOLUME: "nur teilweise ausgeführt (Rüstvolumen)",
         Reason.COUNT: "nur teilweise ausgeführt (Bestand)",
         Reason.RANGE: "nur teilweise ausgeführt (Reichweite)", Reason.RULE: "verweigert (Regel)"}


def forecast_warnings(data: bytes, diags: list[Diagnostic], *, view: Path | None = None,
                      campaign: Campaign | None = None) -> list[Diagnostic]:
    """A warning at each order the forecast (:func:`sheet_forecast`, the engine's
    own month on the kingdom's view) foresees refused or cut short that the
    checker's errors do not already name — an ``o`` at a diplomatic status
    that allows no conquest, an order the gold will not reach after pay and
    upkeep, an ``e`` by an army that deserts below the soldiers it needs. A
    refusal with no line of its own (pay the treasury cannot pay) stands at
    its army's line. Nothing without a view or the segment (only the form is
    checked then), nor for a sheet refused whole."""
    if checks_only_the_form(data, view=view, campaign=campaign):
        return []
    try:
        fc = sheet_forecast(data, view=view, campaign=campaign)
    except InvalidInputError:
        return []
    if fc.refused_whole:
        return []
    errors = {d.line for d in diags if d.severity is Severity.ERROR}
    blocks = {b.number: b.line for b in parse_sheet(data).armies}
    out = []
    for r in fc.refused:
        if r.line and r.line in errors:
            continue  # the checker's own error says it
        out.append(Diagnostic(r.line or blocks.get(r.army or 0, 0), 1, Severity.WARNING,
                              FORECAST_WARNING.format(what=_WHAT[r.cause], reason=r.reason),
                              found=r.order))
    return out


def _read(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"der Befehlsbogen {str(path)!r} ist nicht lesbar: {german_strerror(exc)}") from None


def sheet_forecast(data: bytes, *, view: Path | None = None,
                   campaign: Campaign | None = None) -> Forecast:
    """The forecast (:func:`wdg.orders.forecast.forecast`) of a sheet: against
    ``view`` if given, else against the kingdom's view of the campaign's segment
    named in the sheet. Raises :class:`InvalidInputError` with one clear line
    when there is nothing to forecast against (no segment, unknown kingdom)."""
    sheet = parse_sheet(data)
    diags = None
    if view is not None:
        kv = load_view(view)
        rules_dir = campaign.rules_dir if campaign is not None \
            else PACKAGE_ROOT / "worlds" / "rules"
    else:
        seg = _segment_of(sheet, campaign) if campaign is not None else None
        if campaign is None or seg is None:
            raise InvalidInputError(f"kein Segment für den Bogen (Kopfzeile 'Segment: "
                                    f"{sheet.segment or '?'}'); die Kampagne mit -C oder "
                                    "die Reichsansicht mit --view angeben")
        if not sheet.kingdom:
            raise InvalidInputError("der Bogen nennt kein Reich (keine Zeile 'Königreich:'); "
                                    "ein Spielleiterbogen hat keine Vorschau")
        if sheet.kingdom not in seg.kingdoms:
            raise InvalidInputError(f"der Bogen nennt Reich {sheet.kingdom!r}, das es in Segment "
                                    f"{seg.name!r} nicht gibt (Kopfzeile 'Königreich:')")
        kv = build_view(seg, sheet.kingdom)
        rules_dir = campaign.rules_dir
        # the import's own refusals (password, month ...) count: a sheet refused
        # whole gets no forecast, only the reason
        diags = sheet_verdict(sheet, seg)
    if sheet.kingdom != kv.kingdom:
        raise InvalidInputError(f"der Bogen ist für Reich {sheet.kingdom!r}, die Ansicht für "
                                f"Reich {kv.kingdom}")
    return forecast(kv, sheet, Rules.load(rules_dir), diagnostics=diags)


def simulate_file(path: Path, *, view: Path | None = None, campaign: Campaign | None = None,
                  fmt: str = "text") -> str:
    """``wdg orders simulate``: the forecast of one sheet file as German text or JSON."""
    fc = sheet_forecast(_read(path), view=view, campaign=campaign)
    if fmt == "json":
        return json.dumps(fc.to_dict(), ensure_ascii=False, indent=2) + "\n"
    return forecast_text(fc)


def demo_verdicts(campaign: Campaign, segment: str = "canura", month: str = "0412-04") -> str:
    """The checker's verdict on the demo's sheets of ``month`` (one summary line
    each) and, in full, on ``orders/<segment>/examples/fehlerhaft.txt``."""
    out = [f"Prüfung der Spielzüge {segment} {month}:"]
    folder = campaign.root / "orders" / segment / month
    for p in sorted(folder.glob("k*.txt"), key=lambda x: int(x.stem[1:])
                    if x.stem[1:].isdigit() else 0):
        diags = diagnose(p.read_bytes(), campaign=campaign)
        out.append(f"  {p.name}: {summary(diags)}")
    bad = campaign.root / "orders" / segment / "examples" / "fehlerhaft.txt"
    if bad.is_file():
        text, _ = check_file(bad, campaign=campaign)
        out += ["", f"Beispiel mit typischen Fehlern ({bad.relative_to(campaign.root)}):", text]
    return "\n".join(out) + "\n"
