"""The pre-filled order form sent with each result sheet.

``render_template(seg, kingdom)`` writes the next month's sheet: the header
(the password line left for the player), every army with number and
position (as the rule demands) and its troop type and strength as a comment,
empty ``A:``/``B:`` slots, a one-line reminder of the commands, and the K
section with the number of orders allowed ("Pro Palast und Mond ... einen
Befehl ... maximal 10 und minimal 1"). The form parses without errors as it
is once the password is filled in (empty slots are allowed).
"""

from __future__ import annotations

import textwrap

from wdg.engine.wizards import action_codes
from wdg.errors import IllegalOrderError
from wdg.orders.lexicon import Part, commands
from wdg.orders.view import KingdomView, build_view
from wdg.rules import Rules, shipped_rules
from wdg.world.state import Segment


WIDTH = 80
"""The form fits 80 columns like the result sheet (mail, printing)."""


def _comment(text: str, indent: str = "") -> list[str]:
    """A comment wrapped to :data:`WIDTH` columns, never inside a command's usage."""
    return textwrap.wrap(text, width=WIDTH, initial_indent="# ",
                         subsequent_indent="# " + indent, break_long_words=False,
                         break_on_hyphens=False)


def _reminder(part: Part, title: str) -> list[str]:
    """The usages of a part's commands, as many per comment line as fit."""
    first = f"# {title} " if title else "# "
    lines, cur = [], first
    for c in commands(part):
        if len(cur) + 2 + len(c.usage) > WIDTH and cur.strip("# "):
            lines.append(cur.rstrip())
            cur = "#" + " " * (len(first) - 1)
        cur += ("" if cur.endswith(" ") else "  ") + c.usage
    lines.append(cur.rstrip())
    return lines


def _gs(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def render_template(seg: Segment, kingdom: int, view: KingdomView | None = None) -> str:
    """The order form of ``kingdom`` for the segment's next month (city states
    and retired kingdoms have no player and get none); ``view``: the kingdom's
    view if already built."""
    k = seg.kingdoms.get(kingdom)
    if k is not None and (k.city_state or k.retired or k.player is None):
        raise IllegalOrderError(
            f"Reich {kingdom} ({k.name}) ist ein Stadtstaat oder ausgeschieden: kein Spieler, kein Befehlsbogen")
    return render_view_template(view if view is not None else build_view(seg, kingdom))


def render_view_template(view: KingdomView, deadline: str = "", rules: Rules | None = None) -> str:
    """The order form from a kingdom view (what the player's own tools have);
    ``deadline``: the EINTREFFSCHLUSS line of the result sheet, repeated at the
    form's top (the result sheet passes it); ``rules``: the rules the action
    codes of wizards and special abilities are told from (default: the
    shipped ones)."""
    rules = rules if rules is not None else shipped_rules()
    out = [
        f"# Spielzug für Welt der Götter - Segment {view.segment}",
        *_comment(f"{view.month.long()}, Königreich {view.kingdom} ({view.name})"),
        *(_comment(deadline) if deadline else []),
        "# Kommentare beginnen mit '#'.",
        f"Segment: {view.segment}",
        f"Königreich: {view.kingdom}",
        "# Ihr Passwort steht nicht im Formular: bitte hinter \"Passwort:\" eintragen.",
        "Passwort: ",
        f"Mond: {view.month.short()}",
        "",
        "H: Heeresbefehle",
        "# Jedes Heer mit Nummer und Position; je ein Befehl in Phase A und B",
        "# (leer = keiner).",
        *_reminder(Part.A, "Phase A:"),
        *_reminder(Part.B, "Phase B:"),
        "# Richtungen: NW NO W O SW SO. Passive Heere (000.00): nur nf oder nh, kein B.",
        "",
    ]
    for a in sorted(view.armies.values(), key=lambda x: x.number):
        if a.passive:
            what = "passiv" + (f", Feldherr {a.general.name} ({a.troop}, Erfahrung "
                               f"{a.general.experience})" if a.general else ", ohne Feldherr")
        else:
            what = f"{a.troop or 'ohne Feldherr'}, {_gs(a.units)} " \
                f"{'Rüstgut' if a.units == 1 else 'Rüstgüter'}"
            if a.general:
                what += f", Feldherr {a.general.name} (Erfahrung {a.general.experience}" \
                    + (", Zauberer)" if a.general.wizard else ")")
            if a.carried_by:
                what += f", an Bord von {a.carried_by:04d}"
            if a.carrying:
                what += f", trägt {a.carrying:04d}"
        head = f"Heer {a.number:04d} {a.position}   # "
        out.append(head + what if len(head + what) <= WIDTH else
                   "\n".join(_comment(what, "  ")) + "\n" + head.rstrip(" #"))
        out.append("A: ")
        if not a.passive:
            out.append("B: ")
        # "werden ihm der dazu notwendige Aktionscode und etwaige Erläuterungen
        # automatisch vom Segmentleiter mitgeteilt"
        if a.general is not None and not a.passive:
            for x in action_codes(rules, a.general.wizard, a.general.ability):
                out += _comment(f"Charakteraktion (Phase B) {x['usage']}: {x['meaning']}", "  ")
        out.append("")
    limit = view.max_kingdom_orders()
    out += [
        "K: Königreichbefehle",
        f"# Erlaubt: {limit} Befehl{'e' if limit != 1 else ''} ({view.palaces} "
        f"Pal{'äste' if view.palaces != 1 else 'ast'}).",
        *_reminder(Part.K, ""),
    ]
    if view.offer is not None:
        g = view.offer.general
        extra = (", Zauberer" if g.wizard else "") + (f", Fähigkeit {g.ability}" if g.ability else "")
        codes = action_codes(rules, g.wizard, g.ability)
        out += _comment(f"Angebot: Feldherr {g.name} ({g.troop}, Erfahrung {g.experience}{extra}) "
                        f"für {_gs(view.offer.price)}\u00a0GS - mit nf in Phase A eines passiven "
                        "Heeres anwerben." + (" Er bringt die Charakteraktionen " + ", ".join(
                            x["usage"] for x in codes) + " mit." if codes else ""), "  ")
    dip = ", ".join(f"{k}: {v}" for k, v in sorted(view.diplomacy.items())) or "keine"
    out += [
        *_comment(f"Diplomatische Beziehungen (Königreich: Status): {dip}", "  "),
        "",
        "# Botschaften: BOTSCHAFT <Königreich> ... ENDE",
        "# Bekanntmachungen: BEKANNTMACHUNG ... ENDE",
        "",
    ]
    return "\n".join(out)
