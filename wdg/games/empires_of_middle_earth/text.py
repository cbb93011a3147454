"""Text of positions and actions of Empires of Middle-earth (playthroughs, records)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wdg.games.base import CHANCE, Band, Num
from wdg.games.empires_of_middle_earth.codes import BRIBE_MAX, DRAW, NO, TAKE, YES
from wdg.games.empires_of_middle_earth.common import ARMY_KINDS, DRAWING, END, START
from wdg.games.empires_of_middle_earth.rolls import Roll

if TYPE_CHECKING:
    from wdg.games.empires_of_middle_earth.state import EmpiresState

EDITION_DE = ("Held", "Scherge")
"""The two editions of the cards (hero, minion), as the German views name them."""


def _table_text(s: EmpiresState, p: int, german: bool = False) -> str:
    cards, me = s.g.cards, s.g.map
    parts = []
    for c in s.table[p]:
        card = cards[c]
        if card.kind != "character":
            continue
        site = me.sites[s.site[c]] if s.site[c] >= 0 else "/".join(me.sites[h] for h in card.homes)
        follows = " folgt" if german else " follows"
        flags = ("*" if s.acted[c] else "") + (f"{follows} {cards[s.master[c]].name}" if s.master[c] >= 0 else "")
        armies = [f"{cards[a].name} {cards[a].strength}"
                  f"@{me.regions[s.region[a]] if s.region[a] >= 0 else '-'}{'*' if s.acted[a] else ''}"
                  for a in s.table[p] if s.lord[a] == c]
        parts.append(f"{card.name}@{site}{flags}" + (f" [{'; '.join(armies)}]" if armies else ""))
    return " | ".join(parts)


def state_text(s: EmpiresState, viewer: int | None = None) -> str:
    """The full position, a few lines; for a ``viewer`` the other players'
    hands only as a number of cards."""
    cards = s.g.cards
    lines = [f"round {s.rounds} turn {s.turn} first P{s.first} player P{s.player} phase {s.phase} "
             f"drawn {s.drawn} deck {len(s.deck)} waive {s.waive}",
             "discard: " + ", ".join(cards[c].name for c in s.discard)]
    for p in range(s.g.num_players):
        if viewer is None or viewer == p:
            hand = ", ".join(cards[c].name for c in sorted(s.hands[p]))
        else:
            hand = f"{len(s.hands[p])} cards"
        lines.append(f"P{p} gold {s.gold[p]} hand [{hand}]")
        lines.append(f"P{p} table {_table_text(s, p)}")
    seen = [cards[c].name for c in range(len(cards)) if s.mobilised[c] and s.where[c] != 3]
    if seen:
        lines.append("influenced before: " + ", ".join(seen))
    for owner, t, armies, turn in s.sieges:
        lines.append(f"siege P{owner} on {cards[t].name} by {', '.join(cards[a].name for a in armies)} "
                     f"since turn {turn}")
    if s.pend is not None:
        lines.append("pending: " + s.pend.describe(s))
    if s.note:
        lines.append("last: " + s.note)
    return "\n".join(lines)


def _chance_text(s: EmpiresState, a: int) -> str:
    """A chance outcome with what it means: the dice of a roll against the
    number it must beat, a battle die and whether it hits."""
    pend = s.pend
    if pend is not None:
        if isinstance(pend, Roll):
            name = s.card_name
            if pend.kind == "intrigue" and pend.a == 0:
                return (f"Intrige {name(pend.char)} gegen {name(pend.target)}: 2W6 = {a} "
                        f"(+ freier Einfluss {pend.base}{pend.points:+d} Bestechung, "
                        f"gegen {pend.need} + 2W6 des Verteidigers)")
            if pend.kind == "intrigue":
                total, other = pend.base + pend.a + pend.points, pend.need + a
                return (f"Verteidiger 2W6 = {a}: {pend.base}+{pend.a}{pend.points:+d} = {total} gegen "
                        f"{pend.need}+{a} = {other}: {'Erfolg' if total > other else 'misslungen'}"
                        f" (vor Bestechung nach dem Wurf)")
            total = a + pend.points
            return (f"Mobilmachung {name(pend.target)} durch {name(pend.char)}: 2W6 = {a}"
                    f"{pend.points:+d} = {total} gegen {pend.need}: "
                    f"{'Erfolg' if total > pend.need else 'misslungen'} (vor Bestechung nach dem Wurf)")
        queue = getattr(pend, "queue", None)
        if queue:
            x = queue[0]
            val = pend.val[x]
            side = "Angreifer" if x in pend.att else "Verteidiger"
            return (f"Würfel {a} für {side} {s.card_name(x)} (Kampfwert {val}): "
                    f"{'Treffer' if a <= val else 'daneben'}")
        return f"Würfel {a}"
    if s.phase == START:
        return f"Startspieler: P{a}"
    return f"P{s.player} zieht {s.card_name(a)}"


def _edition(e: int) -> str:
    return EDITION_DE[e] if e in (0, 1) else str(e)


def board_text(s: EmpiresState) -> str:
    """The board: every region with its number (as in the map file), the
    armies in it (owner, strength, lord) and the sieges; then each player's
    gold, cards in hand and characters."""
    me, cards = s.g.map, s.g.cards
    by_region: dict[int, list[str]] = {}
    for p in range(s.g.num_players):
        for a in s.table[p]:
            if cards[a].kind != "character":
                r = s.region[a]
                lord = cards[s.lord[a]].name if s.lord[a] >= 0 else "-"
                by_region.setdefault(r, []).append(
                    f"P{p} {cards[a].name} ({cards[a].strength}, {_edition(cards[a].edition)}, Fürst {lord})")
    lines = [f"Runde {s.rounds}, Spieler am Zug P{s.player}, Stapel {len(s.deck)} "
             f"{'Karte' if len(s.deck) == 1 else 'Karten'}, "
             f"Abwurf {len(s.discard)}"]
    for r, name in enumerate(me.regions):
        if r in by_region:
            lines.append(f"[{r:2d}] {name}{' (Gebirge)' if me.mountain[r] else ''}: "
                         + "; ".join(by_region[r]))
    if -1 in by_region:
        lines.append("[--] ohne Region: " + "; ".join(by_region[-1]))
    if not by_region:
        lines.append("(noch keine Heere)")
    for owner, t, armies, _ in s.sieges:
        lines.append(f"Belagerung durch P{owner}: {cards[t].name} von "
                     + ", ".join(cards[a].name for a in armies))
    for p in range(s.g.num_players):
        table = _table_text(s, p, german=True)
        lines.append(f"P{p}: Gold {s.gold[p]}, Hand {len(s.hands[p])}, Heere {int(s.scores()[p])}"
                     + (f"; {table}" if table else ""))
    lines.append("(* hat in diesem Zug gehandelt; Heer: Stärke@Region)")
    return "\n".join(lines)


def _pair(s: EmpiresState, a: int, base: int, verb: str) -> str:
    x, y = divmod(a - base, s.g.codes.n)
    return f"{s.card_name(x)} {verb} {s.card_name(y)}"


def action_text(s: EmpiresState, a: int) -> str:
    """A readable, unique German name of action ``a`` in state ``s`` (the
    text of records and playthrough files; records are replayed by the
    action numbers, so older records with English texts stay valid)."""
    if s.current_player() == CHANCE:
        return _chance_text(s, a)
    k, name = s.g.codes, s.card_name
    if s.pend is not None:
        return _pending_text(s, a)
    if s.phase == DRAWING:
        if s.taking:
            return f"{name(a - k.take)} vom Abwurfstapel nehmen"
        return {NO: "nicht mehr ziehen", DRAW: "vom Stapel ziehen",
                TAKE: "vom Abwurfstapel nehmen"}.get(a) or f"Aktion {a}"
    if s.phase == END:
        return f"{name(a - k.final)} zum Zugende abwerfen"
    return _main_text(s, a)


def _pending_text(s: EmpiresState, a: int) -> str:
    k, name = s.g.codes, s.card_name
    stage = getattr(s.pend, "stage", "")
    if a in (NO, YES) and stage in _STAGE_DE:
        return _STAGE_DE[stage][a]
    if a >= k.fort and a < k.fort + 3:
        return f"Gebirgsverteidigung +{a - k.fort}"
    if a >= k.use:
        c = a - k.use
        return f"{name(c)} für den Wurf spielen" if c < k.n else f"{name(c - k.n)} gegen den Wurf spielen"
    if a >= k.bribe:
        return f"Bestechung {a - k.bribe - BRIBE_MAX:+d}"
    if a >= k.site:
        return f"Heimatort {s.g.map.sites[a - k.site]}"
    return f"{name(a - k.pick)} wählen"


def _main_text(s: EmpiresState, a: int) -> str:
    k, name = s.g.codes, s.card_name
    if a == NO:
        return "Hauptphase beenden"
    if a < k.drop:
        return f"{name(a - k.play)} ausspielen"
    if a < k.final:
        return f"Charakter {name(a - k.drop)} abwerfen"
    if a < k.intrigue:
        return _pair(s, a, k.mob, "mobilisiert")
    if a < k.campaign:
        return _pair(s, a, k.intrigue, "intrigiert gegen")
    if a < k.liberate:
        return _pair(s, a, k.campaign, "zieht zu Felde gegen")
    if a < k.hazard:
        return _pair(s, a, k.liberate, "befreit unter")
    return _pair(s, a, k.hazard, "gespielt auf")


# ------------------------------------------------------------------ by hand
_STAGE_DE = {"passage": ("Durchzug verbieten", "Durchzug erlauben"),
             "help": ("nicht eingreifen", "bei der Verteidigung helfen"),
             "siege": ("abziehen", "belagern"),
             "capture": ("Gefangenen abwerfen", "Gefangenen nehmen"),
             "support": ("keine weitere Unterstützung", ""),
             "prep_a": ("bereit", "Belagerungsgerät kaufen"), "prep_d": ("bereit", "")}


def _card_group(s: EmpiresState, c: int) -> str:
    card = s.g.cards[c]
    kind = "Charakter" if card.kind == "character" else "Heer" if card.kind in ARMY_KINDS else card.kind
    return f"{kind} ({_edition(card.edition)})"


def action_path(s: EmpiresState, a: int) -> tuple[str, ...]:
    """The menu labels of action ``a`` for play by hand (German): kind, then
    the acting card, then its target; a card out of a pile or the hand by
    its kind and edition, then its name."""
    k, name = s.g.codes, s.card_name
    if s.pend is not None:
        stage = getattr(s.pend, "stage", "")
        if a in (NO, YES) and stage in _STAGE_DE:
            return (_STAGE_DE[stage][a],)
        if k.fort <= a < k.fort + 3:
            return ("Gebirgsverteidigung", f"+{a - k.fort}")
        if a >= k.use:
            c = a - k.use
            return (("Karte für den Wurf spielen", name(c)) if c < k.n
                    else ("Karte gegen den Wurf spielen", name(c - k.n)))
        if a >= k.bribe:
            v = a - k.bribe - BRIBE_MAX
            if not v:
                return ("Keine Bestechung",)
            top = max(abs(b - k.bribe - BRIBE_MAX) for b in s.legal_actions()
                      if k.bribe <= b < k.use and (b - k.bribe - BRIBE_MAX) * v > 0)
            lo = 10 * ((abs(v) - 1) // 10) + 1
            hi = min(lo + 9, top)
            band = f"{lo} Punkt" if lo == hi == 1 else f"{lo} Punkte" if lo == hi else f"{lo} bis {hi} Punkte"
            return (f"Bestechung {'für' if v > 0 else 'gegen'} den Wurf", Band(band),
                    Num(f"{abs(v)} {'Punkt' if abs(v) == 1 else 'Punkte'}", abs(v), "Punkte"))
        if a >= k.site:
            return ("Heimatort wählen", s.g.map.sites[a - k.site])
        return ("Karte wählen", name(a - k.pick))
    if s.phase == DRAWING:
        if s.taking:
            return ("Vom Abwurfstapel nehmen", _card_group(s, a - k.take), name(a - k.take))
        return ({NO: "Nicht mehr ziehen", DRAW: "Vom verdeckten Stapel ziehen",
                 TAKE: "Vom offenen Abwurfstapel nehmen"}.get(a, f"Aktion {a}"),)
    if s.phase == END:
        return ("Zum Zugende eine Karte abwerfen", _card_group(s, a - k.final), name(a - k.final))
    if a == NO:
        return ("Hauptphase beenden",)
    if a < k.drop:
        return ("Karte ausspielen", _card_group(s, a - k.play), name(a - k.play))
    if a < k.final:
        return ("Eigenen Charakter abwerfen", name(a - k.drop))
    for base, kind, prep in ((k.hazard, "Gefahr spielen", "auf"), (k.liberate, "Gefangene befreien", "unter"),
                             (k.campaign, "Feldzug", "gegen"), (k.intrigue, "Intrige", "gegen"),
                             (k.mob, "Heer mobilisieren", "")):
        if a >= base:
            x, y = divmod(a - base, k.n)
            actor = {"Heer mobilisieren": "durch", "Feldzug": "mit"}.get(kind, "von")
            return (kind, f"{actor} {name(x)}", f"{prep} {name(y)}".strip())
    return (action_text(s, a),)


def action_de(s: EmpiresState, a: int, viewer: int) -> str:
    """An action as ``viewer`` sees it, in German (a card another player
    draws from the deck unnamed)."""
    if s.current_player() == CHANCE:
        if s.pend is None and s.phase == START:
            return f"Startspieler: P{a}"
        if s.pend is None:
            return (f"P{s.player} zieht {s.card_name(a)}" if s.player == viewer
                    else f"P{s.player} zieht eine Karte vom Stapel")
        return _chance_text(s, a)
    return " ".join(action_path(s, a))


def human_view(s: EmpiresState, viewer: int) -> str:
    """The position for play by hand, in German: the board (regions and
    armies with edition and lord, the players' characters), the open
    discard pile, the viewer's own hand (the others' by their size) and a
    pending roll or battle."""
    cards = s.g.cards
    lines = [board_text(s)]
    lines.append("Abwurfstapel (offen): " + (", ".join(cards[c].name for c in s.discard) or "leer"))
    lines.append("Deine Hand: " + (", ".join(cards[c].name for c in sorted(s.hands[viewer])) or "leer"))
    for p in range(s.g.num_players):
        if p != viewer:
            k = len(s.hands[p])
            lines.append(f"Hand P{p}: {k} {'Karte' if k == 1 else 'Karten'}")
    if s.pend is not None:
        pend = s.pend
        if isinstance(pend, Roll):
            what = (f"Mobilmachung von {s.card_name(pend.target)} durch {s.card_name(pend.char)}, "
                    f"nötig mehr als {pend.need}" if pend.kind == "mobilise"
                    else f"Intrige von {s.card_name(pend.char)} gegen {s.card_name(pend.target)}, "
                    f"freier Einfluss {pend.base} + 2W6 gegen {pend.need} + 2W6 des Verteidigers")
            lines.append(f"Offener Wurf: {what}; Bestechung bisher {pend.points:+d} Punkte")
        else:
            lines.append("Laufender Feldzug: Angreifer " + ", ".join(s.card_name(x) for x in pend.att)
                         + "; Verteidiger " + ", ".join(s.card_name(x) for x in pend.dfn))
    return "\n".join(lines)


def turn_status(s: EmpiresState, player: int) -> list[str]:
    """What is left of the turn: drawing (cards drawn, the next one's cost)
    or the main phase (characters and armies that have not acted yet), and
    every player's armies (the score)."""
    cards = s.g.cards
    out = []
    me = "Dein Zug" if s.player == player else f"Zug von P{s.player}"
    if s.phase == DRAWING:
        drawn = "1 Karte" if s.drawn == 1 else f"{s.drawn} Karten"
        out.append(f"{me}, Ziehphase: {drawn} gezogen; die nächste kostet {s.draw_cost()} Gold "
                   f"(du hast {s.gold[player]}).")
    elif s.phase == END:
        out.append(f"{me}: zum Zugende eine Karte abwerfen.")
    elif s.phase not in (START, "over"):
        ready = [cards[c].name for c in s.table[s.player] if not s.acted[c]
                 and cards[c].kind == "character"]
        out.append(f"{me}, Hauptphase: noch nicht gehandelt: {', '.join(ready) or 'niemand'}.")
    out.append("Heere: " + ", ".join(f"P{p} {x:.0f}" for p, x in enumerate(s.scores())))
    return out
