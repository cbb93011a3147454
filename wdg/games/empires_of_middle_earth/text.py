"""Text of positions and actions of Empires of Middle-earth (playthroughs, records)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wdg.games.base import CHANCE
from wdg.games.empires_of_middle_earth.codes import BRIBE_MAX, DRAW, NO, TAKE, YES
from wdg.games.empires_of_middle_earth.common import DRAWING, END, START

if TYPE_CHECKING:
    from wdg.games.empires_of_middle_earth.state import EmpiresState


def _table_text(s: EmpiresState, p: int) -> str:
    cards, me = s.g.cards, s.g.map
    parts = []
    for c in s.table[p]:
        card = cards[c]
        if card.kind != "character":
            continue
        site = me.sites[s.site[c]] if s.site[c] >= 0 else "/".join(me.sites[h] for h in card.homes)
        flags = ("*" if s.acted[c] else "") + (f" follows {cards[s.master[c]].name}" if s.master[c] >= 0 else "")
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
        if type(pend).__name__ == "Roll":
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
        return f"start player P{a}"
    return f"draw {s.card_name(a)}"


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
                    f"P{p} {cards[a].name} ({cards[a].strength}, {'hero' if cards[a].edition == 0 else 'minion'}, "
                    f"Fürst {lord})")
    lines = [f"Runde {s.rounds}, Spieler am Zug P{s.player}, Stapel {len(s.deck)} Karten, "
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
        lines.append(f"P{p}: Gold {s.gold[p]}, Hand {len(s.hands[p])}, Heere {int(s.scores()[p])}; "
                     f"{_table_text(s, p)}")
    return "\n".join(lines)


def _pair(s: EmpiresState, a: int, base: int, verb: str) -> str:
    x, y = divmod(a - base, s.g.codes.n)
    return f"{s.card_name(x)} {verb} {s.card_name(y)}"


def action_text(s: EmpiresState, a: int) -> str:
    """A readable, unique name of action ``a`` in state ``s``."""
    if s.current_player() == CHANCE:
        return _chance_text(s, a)
    k, name = s.g.codes, s.card_name
    if s.pend is not None:
        return _pending_text(s, a)
    if s.phase == DRAWING:
        if s.taking:
            return f"take {name(a - k.take)}"
        return {NO: "stop drawing", DRAW: "draw from the deck",
                TAKE: "take from the discard pile"}.get(a) or f"action {a}"
    if s.phase == END:
        return f"discard {name(a - k.final)}"
    return _main_text(s, a)


def _pending_text(s: EmpiresState, a: int) -> str:
    k, name = s.g.codes, s.card_name
    stage = getattr(s.pend, "stage", "")
    if a in (NO, YES) and stage in ("passage", "help", "siege", "capture", "support", "prep_a", "prep_d"):
        words = {"passage": ("forbid passage", "allow passage"), "help": ("stay out", "join defence"),
                 "siege": ("retreat", "besiege"), "capture": ("discard captive", "take captive"),
                 "support": ("no more support", ""), "prep_a": ("ready", "buy siege engines"),
                 "prep_d": ("ready", "")}
        return words[stage][a]
    if a >= k.fort and a < k.fort + 3:
        return f"mountain defence +{a - k.fort}"
    if a >= k.use:
        c = a - k.use
        return f"play {name(c)} for the roll" if c < k.n else f"play {name(c - k.n)} against the roll"
    if a >= k.bribe:
        return f"bribe {a - k.bribe - BRIBE_MAX:+d}"
    if a >= k.site:
        return f"home site {s.g.map.sites[a - k.site]}"
    return f"choose {name(a - k.pick)}"


def _main_text(s: EmpiresState, a: int) -> str:
    k, name = s.g.codes, s.card_name
    if a == NO:
        return "end main phase"
    if a < k.drop:
        return f"play {name(a - k.play)}"
    if a < k.final:
        return f"discard character {name(a - k.drop)}"
    if a < k.intrigue:
        return _pair(s, a, k.mob, "mobilises")
    if a < k.campaign:
        return _pair(s, a, k.intrigue, "intrigues against")
    if a < k.liberate:
        return _pair(s, a, k.campaign, "campaigns against")
    if a < k.hazard:
        return _pair(s, a, k.liberate, "freed under")
    return _pair(s, a, k.hazard, "played on")
