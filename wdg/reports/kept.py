"""``wdg segment upgrade --templates keep``: render the kept templates before the
upgrade accepts them (issue #40 item 2; docs/turns.md).

It lives in the reports' layer because it renders with them; the upgrade
(:func:`wdg.engine.upgrade.upgrade_segment`), below, gets it from the command as
``check_templates`` and never imports it (docs/architecture.md).
"""

from __future__ import annotations

from pathlib import Path

from wdg.campaign import Campaign
from wdg.engine.replay import fill_month_rules
from wdg.errors import InvalidInputError
from wdg.reports.archived import month_inputs, previous_figures
from wdg.reports.batch import MonthInput, render_common, render_kingdom, report_kingdoms
from wdg.reports.build import MonthEvents
from wdg.reports.settings import load_report_settings
from wdg.rules import Rules
from wdg.world.calendar import MonthDate


def check_kept_templates(camp: Campaign, segment: str) -> str | None:
    """``--templates keep``: render the Götterbotschaft, the overview and one result
    sheet (text and HTML) of the last archived month with the campaign's templates
    over the shipped ones, as the next ``turn run`` would render them, before the
    upgrade changes anything (issue #40 item 2). Raises InvalidInputError with the
    template's own error when they cannot render; returns the line for the report
    (``None``: no own templates or no archived month to render)."""
    import tempfile

    if not camp.templates_dir.is_dir():
        return None
    turns = camp.archive_dir(segment)
    months = sorted(d.name for d in turns.iterdir() if d.is_dir() and not d.name.startswith(".")
                    and (d / "state-before").is_dir()) if turns.is_dir() else []
    if not months:
        return "behaltene Vorlagen: kein archivierter Mond zum Probe-Rendern"
    date = MonthDate.parse(months[-1])
    after, events, sheets, gm_sheet, rules_dir = month_inputs(camp, segment, date)
    kingdoms = report_kingdoms(after)
    with tempfile.TemporaryDirectory(prefix="wdg-upgrade-templates-") as tmp:
        filled = Path(tmp) / "rules"
        if fill_month_rules(turns / date.key, filled):
            rules_dir = filled  # the keys this version needs, as the upgraded rules have them
        inp = MonthInput(None, after, events, sheets, gm_sheet, Path(tmp) / "out",
                         camp.templates_dir, load_report_settings(rules_dir), pdf=False,
                         previous=previous_figures(turns / date.key, camp, segment, date),
                         rules=Rules.load(rules_dir))
        inp.index = MonthEvents(inp.events)
        what = "Götterbotschaft und Übersicht"
        try:
            render_common(inp)
            if kingdoms:
                what = f"Ergebnisblatt von Königreich {kingdoms[0]}"
                render_kingdom(inp, kingdoms[0])
        except OSError:
            raise  # writing the trial render failed (a full disk): the machine's, not the templates'
        except Exception as e:  # noqa: BLE001 — any template error is the answer
            raise InvalidInputError(
                f"--templates keep: die eigenen Vorlagen (templates/) lassen sich mit dieser "
                f"wdg-Version nicht rendern ({what}, Mond {date.key}): {type(e).__name__}: "
                f"{str(e)[:300]}. Nichts wurde verändert. Die Vorlagen anpassen oder "
                f"--templates replace wählen (die mitgelieferten gelten)") from None
    return (f"behaltene Vorlagen probeweise gerendert: Götterbotschaft, Übersicht und das "
            f"Ergebnisblatt von Königreich {kingdoms[0] if kingdoms else '-'} (Text und HTML) "
            f"des Monds {date.key}")
