"""Diplomacy, contacts, messages ("Die Außenpolitik", "Der Diplomatiestatus",
"Die Kontakte zwischen Herrschern").

Status helpers used by movement, combat and conquest:

- :func:`status` — a kingdom's own status toward another (``None`` = not on
  its "Liste der diplomatischen Beziehungen");
- :func:`hostile` — a fight happens when at least one of the two holds a
  status in ``attack_statuses`` (1-3) toward the other;
- :func:`may_conquer` — ``o`` on a foreign gemark needs 1-2;
- :func:`free_passage` — 7-9: "Die Bewegung anderer Heere im eigenen
  Reichsgebiet ist nicht behindert".

Steps:

- ``messages`` (8): ``BOTSCHAFT`` blocks are forwarded only to kingdoms on the
  sender's list (as it stood when the sheet was written, i.e. at the start of
  the month); messages and announcements naming real persons, addresses,
  e-mail addresses, phone numbers or links are held back with the reason.
  Events: ``message.sent`` (to the sender; ``data`` to), ``message.delivered``
  (to the receiver; ``data`` from, text),
  ``message.held`` (to the sender; why), ``announcement.published`` (public;
  ``data`` from, text), ``announcement.held``.
- ``contacts`` (65): kingdoms whose armies or territories meet enter each
  other's list at status 5 (``contact.met``); open players learn the other's
  real address (``contact.address``), secret ones do not (``contact.secret``).
- ``missions`` (66): city states win a neighbouring neutral gemark by mission
  (``mission.won``).
- ``diplomacy_reports`` (89, after taxes): for status 8-9 the automatic report
  of soldiers and gemarks, for 9 also taxes and treasury (``diplomacy.report``
  to the receiving kingdom).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import numpy as np

from wdg.engine.events import Event
from wdg.engine.month import Month, step
from wdg.errors import DataError
from wdg.orders.gmsheet import GmSheet, HoldMessage
from wdg.rules import Rules
from wdg.textpolicy import limits, windows
from wdg.world.hexgrid import Hex
from wdg.world.state import ArmyStatus, Contact, Segment, ruler_title
from wdg.world.terrain import WATER

if TYPE_CHECKING:
    from wdg.orders.gmsheet import HoldMessage

AREA = "diplomacy"


# --- status helpers ------------------------------------------------------------

def status(seg: Segment, kingdom: int, other: int) -> int | None:
    """``kingdom``'s own status toward ``other`` (None when not on its list)."""
    k = seg.kingdoms.get(kingdom)
    return None if k is None else k.diplomacy.get(other)


def _in(rules: Rules, key: str, value: int | None) -> bool:
    return value is not None and value in rules.get(AREA, key)


def hostile(seg: Segment, rules: Rules, a: int, b: int) -> bool:
    """True when armies of ``a`` and ``b`` fight on meeting: "Angriff auf fremde
    Heere möglich" at 1-3 — read as: at least one side holds 1-3 toward the other."""
    if a == b:
        return False
    return _in(rules, "attack_statuses", status(seg, a, b)) or \
        _in(rules, "attack_statuses", status(seg, b, a))


def may_conquer(seg: Segment, rules: Rules, kingdom: int, owner: int) -> bool:
    """May ``kingdom`` occupy a gemark of ``owner``? Neutral (0) gemarks and
    city states' gemarks (no diplomacy possible) always; a kingdom's only at
    status 1-2 ("Fremde Gemarken können erobert werden")."""
    if owner == 0 or owner == kingdom:
        return owner == 0
    other = seg.kingdoms.get(owner)
    if other is not None and other.city_state:
        return True
    return status_allows_conquest(rules, status(seg, kingdom, owner))


def status_allows_conquest(rules: Rules, value: int | None) -> bool:
    """True if a kingdom's own status ``value`` toward another lets it conquer
    that kingdom's gemarks (``conquest_statuses``, 1-2: "Fremde Gemarken
    können erobert werden"); ``None`` (not on the list) never. The engine's
    :func:`may_conquer` and the order editor's choices both ask this."""
    return _in(rules, "conquest_statuses", value)


def conquest_statuses(rules: Rules) -> list[int]:
    """The statuses at which conquest is allowed (for the reasons the editor gives)."""
    return sorted(int(x) for x in rules.get(AREA, "conquest_statuses"))


def free_passage(rules: Rules, owner_status: int | None) -> bool:
    """True when an owner whose status toward a mover is ``owner_status`` lets
    the mover's armies pass its realm unhindered (``passage_statuses``, 7-9;
    ``None``, no relation or a city state: never)."""
    return _in(rules, "passage_statuses", owner_status)


# --- contacts -----------------------------------------------------------------

def _can_have_relations(seg: Segment, k: int) -> bool:
    kd = seg.kingdoms.get(k)
    return kd is not None and not kd.city_state and not kd.retired


def meet(m: Month, a: int, b: int, at: Hex | None, how: str) -> list[Event]:
    """Put ``a`` and ``b`` on each other's list (status 5) if not there yet;
    "Königreiche werden, sobald ein Herrscher auf sie getroffen ist, in der
    Liste der diplomatischen Beziehungen des Königreiches aufgeführt"."""
    seg = m.state
    if a == b or not (_can_have_relations(seg, a) and _can_have_relations(seg, b)):
        return []
    out: list[Event] = []
    initial = m.rules.int(AREA, "initial_status")
    for me, other in ((a, b), (b, a)):
        kd = seg.kingdoms[me]
        if other in kd.diplomacy:
            continue
        kd.diplomacy[other] = initial
        oth = seg.kingdoms[other]
        out.append(m.emit(Event(
            "contact.met", kingdom=me, at=at,
            why=f"Begegnung mit {oth.name} ({how}); Diplomatiestatus {initial} (neutral)",
            data={"other": other, "status": initial})))
        out.append(_address_event(m, me, other, at))
    return out


def _address_event(m: Month, me: int, other: int, at: Hex | None) -> Event:
    """Open players learn the other's real address, secret ones do not."""
    oth = m.state.kingdoms[other]
    p = oth.player
    if p is not None and p.contact is Contact.OPEN:
        return m.emit(Event(
            "contact.address", kingdom=me, at=at,
            why=f"{ruler_title(oth.herrscherin, 'subject')} von {oth.name} ist "
                f"{'offene Mitspielerin' if oth.herrscherin else 'offener Mitspieler'}",
            data={"other": other, "name": p.name, "email": p.email, "address": p.address}))
    return m.emit(Event(
        "contact.secret", kingdom=me, at=at,
        why=f"{ruler_title(oth.herrscherin, 'subject')} von {oth.name} ist "
            f"{'geheime Mitspielerin' if oth.herrscherin else 'geheimer Mitspieler'}; Kontakt nur "
            f"über Botschaften durch den Segmentleiter",
        data={"other": other}))


def _army_meetings(m: Month) -> list[tuple[int, int, Hex, str]]:
    """Pairs of kingdoms whose armies share a gemark or whose army stands on the
    other's territory (as it stood at the start of the month or now)."""
    seg = m.state
    by_hex: dict[Hex, set[int]] = {}
    for n in sorted(seg.armies):
        a = seg.armies[n]
        if a.status is ArmyStatus.PASSIVE or a.position is None:
            continue
        by_hex.setdefault(a.position, set()).add(a.kingdom)
    out: list[tuple[int, int, Hex, str]] = []
    for h in sorted(by_hex):
        ks = sorted(by_hex[h])
        for i, k in enumerate(ks):
            for j in ks[i + 1:]:
                out.append((k, j, h, "Heere in derselben Gemark"))
        owners = {seg.at(seg.owner, h)}
        if m.start is not None:
            r, c = seg.grid.index(h)
            owners.add(int(m.start.owner[r, c]))
        for o in sorted(owners):
            for k in ks:
                if o and o != k:
                    out.append((k, o, h, "Heer im fremden Reichsgebiet"))
    return out


def _shifted_neighbours(layer: np.ndarray) -> list[np.ndarray]:
    """For an odd-r offset layer, six arrays: the value of each neighbour
    (edges padded with 0)."""
    rows, cols = layer.shape
    pad = np.zeros((rows + 2, cols + 2), dtype=layer.dtype)
    pad[1:-1, 1:-1] = layer
    even = (np.arange(rows) % 2 == 0)[:, None]
    out = [pad[1:-1, :-2], pad[1:-1, 2:]]  # W, O
    for dr in (-1, 1):
        rowsl = slice(1 + dr, rows + 1 + dr)
        left = np.where(even, pad[rowsl, :-2], pad[rowsl, 1:-1])
        right = np.where(even, pad[rowsl, 1:-1], pad[rowsl, 2:])
        out.extend([left, right])
    return out


def _territory_meetings(seg: Segment) -> list[tuple[int, int]]:
    """Pairs of kingdoms whose territories border each other."""
    owner = seg.owner.astype(np.int32)
    pairs: set[tuple[int, int]] = set()
    for nb in _shifted_neighbours(owner):
        mask = (owner > 0) & (nb > 0) & (owner != nb)
        if mask.any():
            a = owner[mask]
            b = nb[mask]
            lo = np.minimum(a, b)
            hi = np.maximum(a, b)
            for x, y in np.unique(np.stack([lo, hi], axis=1), axis=0):
                pairs.add((int(x), int(y)))
    return sorted(pairs)


@step("contacts", 65)
def contacts(m: Month) -> list[Event]:
    """"Jeder Herrscher begegnet im Verlauf des Spieles den Heeren und
    Reichsgebieten anderer Herrscher": every meeting adds both kingdoms to each
    other's list."""
    out: list[Event] = []
    for a, b, h, how in _army_meetings(m):
        out.extend(meet(m, a, b, h, how))
    for a, b in _territory_meetings(m.state):
        out.extend(meet(m, a, b, None, "Reichsgebiete grenzen aneinander"))
    return out


# --- city states ---------------------------------------------------------------

@step("missions", 66)
def missions(m: Month) -> list[Event]:
    """"Stadtstaaten können auf dem Wege der Missionierung ... neue Gemarken in
    ihr Königreich aufnehmen": each city state (ascending number) wins one
    neutral land gemark bordering its realm with ``mission_chance``."""
    seg = m.state
    chance = m.rules.num(AREA, "mission_chance")
    out: list[Event] = []
    free = (seg.owner == 0) & ~WATER[seg.terrain]
    for n in sorted(seg.kingdoms):
        if not seg.kingdoms[n].city_state:
            continue
        mine = seg.owner == n
        if not mine.any():
            continue
        near = np.zeros_like(mine)
        for nb in _shifted_neighbours(mine.astype(np.int8)):
            near |= nb.astype(bool)
        rows, cols = np.nonzero(near & free)
        if len(rows) == 0:
            continue
        if m.rng.random() >= chance:
            continue
        i = int(m.rng.integers(len(rows)))
        r, c = int(rows[i]), int(cols[i])
        seg.owner[r, c] = n
        free[r, c] = False
        h = seg.grid.hex_at(r, c)
        out.append(m.emit(Event("mission.won", kingdom=n, at=h, data={"to": n},
                                why=f"Die Gemark {seg.label(h)} schließt sich dem Stadtstaat "
                                    f"{seg.kingdoms[n].name} an")))
    return out


# --- messages and announcements ------------------------------------------------

def filter_pieces(text: str, rules: Rules) -> list[str]:
    """The bounded pieces the content patterns see: overlapping windows of
    ``filter_window`` characters (``worlds/rules/text.yaml``), so that every
    pattern runs in time linear in the message, however it is written."""
    try:
        size = rules.int("text", "filter_window")
    except DataError:  # an archived month's rules from before text.yaml: the shipped value
        size = limits().filter_window
    return windows(text, max(16, size))


@functools.lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def content_problems(seg: Segment, rules: Rules, text: str) -> list[str]:
    """Reasons a message or announcement may not be forwarded: "reale Namen
    und Adressen der Mitspieler ... sind in Botschaften und Bekanntmachungen
    grundsätzlich nicht erlaubt"."""
    reasons: list[str] = []
    pieces = filter_pieces(text, rules)
    for label, pattern in rules.section(AREA, "content_patterns").items():
        rx = _compiled(pattern)
        if any(rx.search(piece) for piece in pieces):
            reasons.append(f"enthält {label}")
    low = text.lower()
    for n in sorted(seg.kingdoms):
        p = seg.kingdoms[n].player
        if p is None:
            continue
        for what, value in (("den realen Namen eines Mitspielers", p.name),
                            ("die E-Mail-Adresse eines Mitspielers", p.email),
                            ("die Anschrift eines Mitspielers", p.address)):
            if value and len(value.strip()) >= 4 and value.strip().lower() in low:
                reasons.append(f"enthält {what}")
    return sorted(set(reasons))


def game_terms(rules: Rules, text: str) -> list[str]:
    """The kinds of game terms in a message or announcement ("formale Begriffe
    und Abkürzungen, die zu Spielzwecken im Spielzug ... verwendet werden":
    ``game_term_patterns`` of diplomacy.yaml) — flagged for the game master, who
    decides; none for a rules set without the patterns."""
    if not rules.has(AREA, "game_term_patterns"):
        return []
    pieces = filter_pieces(text, rules)
    return [f"enthält {label}" for label, pattern in
            rules.section(AREA, "game_term_patterns").items()
            if any(_compiled(pattern).search(piece) for piece in pieces)]


def gm_holds(m: Month) -> dict[tuple[int, str, int], HoldMessage]:
    """The game master's ZURUECKHALTEN commands of the month by (kingdom,
    ``botschaft``/``bekanntmachung``, number on the sheet)."""
    sheet = m.gm_sheet
    if not isinstance(sheet, GmSheet):
        return {}
    return {(c.kingdom, c.what, c.number): c for c in sheet.commands if isinstance(c, HoldMessage)}


def _held(holds: dict[tuple[int, str, int], HoldMessage], used: set[tuple[int, str, int]],
          key: tuple[int, str, int]) -> list[str]:
    """The game master's reason for holding the text ``key`` back (marked used), or []."""
    hold = holds.get(key)
    if hold is None:
        return []
    used.add(key)
    return [f"vom Segmentleiter zurückgehalten: {getattr(hold, 'reason', '')}"]


def _start_lists(m: Month) -> dict[int, set[int]]:
    lists = m.notes.get("diplomacy.start_lists")
    if not isinstance(lists, dict):
        lists = {n: set(k.diplomacy) for n, k in m.state.kingdoms.items()}
        m.notes["diplomacy.start_lists"] = lists
    return lists


def deliverable_messages(m: Month) -> list[Event]:
    """Check every ``BOTSCHAFT``: forwarded only to a kingdom on the sender's
    list and only when its content passes; one event per message."""
    seg = m.state
    lists = _start_lists(m)
    holds = gm_holds(m)
    used: set[tuple[int, str, int]] = set()
    out: list[Event] = []
    for k in sorted(m.sheets):
        for i, msg in enumerate(m.sheets[k].messages, start=1):
            reasons = _held(holds, used, (k, "botschaft", i))
            if msg.to not in lists.get(k, set()):
                reasons.append(f"Königreich {msg.to} steht nicht in der Liste der "
                               f"diplomatischen Beziehungen")
            reasons += content_problems(seg, m.rules, msg.text)
            if reasons:
                out.append(m.emit(Event(
                    "message.held", kingdom=k, line=msg.line,
                    why="Botschaft nicht weitergeleitet: " + "; ".join(reasons),
                    data={"to": msg.to, "reasons": reasons})))
            else:
                terms = game_terms(m.rules, msg.text)
                out.append(m.emit(Event(
                    "message.sent", kingdom=k, line=msg.line,
                    why=f"Botschaft an {seg.kingdoms[msg.to].name} weitergeleitet",
                    data={"to": msg.to, **({"game_terms": terms, "number": i} if terms else {})})))
                out.append(m.emit(Event(
                    "message.delivered", kingdom=msg.to, line=msg.line,
                    why=f"Botschaft von {seg.kingdoms[k].name}",
                    data={"from": k, "text": msg.text})))
    m.notes["diplomacy.holds_used"] = used
    return out


def publishable_announcements(m: Month) -> list[Event]:
    """Check every ``BEKANNTMACHUNG`` for the Götterbotschaft."""
    seg = m.state
    holds = gm_holds(m)
    used = m.notes.get("diplomacy.holds_used") or set()
    assert isinstance(used, set)
    out: list[Event] = []
    for k in sorted(m.sheets):
        for i, ann in enumerate(m.sheets[k].announcements, start=1):
            reasons = _held(holds, used, (k, "bekanntmachung", i))
            reasons += content_problems(seg, m.rules, ann.text)
            if reasons:
                out.append(m.emit(Event(
                    "announcement.held", kingdom=k, line=ann.line,
                    why="Bekanntmachung nicht veröffentlicht: " + "; ".join(reasons),
                    data={"reasons": reasons})))
            else:
                terms = game_terms(m.rules, ann.text)
                out.append(m.emit(Event(
                    "announcement.published", kingdom=k, line=ann.line, public=True,
                    why=f"Bekanntmachung von {seg.kingdoms[k].name}",
                    data={"from": k, "text": ann.text,
                          **({"game_terms": terms, "number": i} if terms else {})})))
    for key, hold in sorted(holds.items()):
        if key not in used:
            k, what, number = key
            out.append(m.emit(Event(
                "gm.refused", line=hold.line,
                why=f"ZURUECKHALTEN: Königreich {k} hat in diesem Mond keine "
                    f"{'Botschaft' if what == 'botschaft' else 'Bekanntmachung'} Nr. {number}")))
    return out


@step("messages", 8)
def messages(m: Month) -> list[Event]:
    """Messages and announcements of this month's sheets."""
    _start_lists(m)
    return deliverable_messages(m) + publishable_announcements(m)


# --- automatic reports ----------------------------------------------------------

TAX_KINDS = ("tax.gemarks", "tax.settlements")
"""The events of step 82 that are "Steuereinnahmen aus den Gemarken und Siedlungen"."""


@step("diplomacy_reports", 89)
def diplomacy_reports(m: Month) -> list[Event]:
    """"Automatischer Bericht": status 8-9 reports the own soldiers and
    gemarks, 9 also the month's taxes and the treasury; the report goes to the
    other kingdom ("erhält das andere Königreich"). Taxes are the "Steuereinnahmen
    aus den Gemarken und Siedlungen" ("Währung und Steuern"): the gemarks' taxes and
    the settlements' income of step 82 (a mine's yield is no tax)."""
    seg = m.state
    soldiers: dict[int, int] = {}
    for a in seg.armies.values():
        if a.is_fleet:
            continue
        soldiers[a.kingdom] = soldiers.get(a.kingdom, 0) + a.units
    counts = np.bincount(seg.owner.ravel().clip(0), minlength=max(seg.kingdoms, default=0) + 1)
    taxes: dict[int, int] = {}
    for e in m.log:
        if e.kind in TAX_KINDS and e.kingdom is not None:
            taxes[e.kingdom] = taxes.get(e.kingdom, 0) + e.gold
    out: list[Event] = []
    for n in sorted(seg.kingdoms):
        kd = seg.kingdoms[n]
        for other in sorted(kd.diplomacy):
            st = kd.diplomacy[other]
            if other not in seg.kingdoms or not _in(m.rules, "report_statuses", st):
                continue
            data = {"from": n, "status": st, "soldiers": soldiers.get(n, 0),
                    "gemarks": int(counts[n]) if n < len(counts) else 0}
            if _in(m.rules, "treasury_report_statuses", st):
                data["taxes"] = taxes.get(n, 0)
                data["treasury"] = kd.treasury
            out.append(m.emit(Event("diplomacy.report", kingdom=other,
                                    why=f"Automatischer Bericht von {kd.name} "
                                        f"(Diplomatiestatus {st})", data=data)))
    return out
