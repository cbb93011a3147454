"""Kingdoms and players: the game master's administration between months.

Functions here change a loaded :class:`Segment` in memory and raise a
:class:`~wdg.errors.WdgError` before changing anything when the request is
impossible; the CLI loads, calls, and saves (atomically) only on success, so
a refused request leaves the segment on disk untouched.

Rules served: "Das Königreich" (one ruler per kingdom), "Der Stadtstaat"
(no armies, no diplomacy), "Die Kontakte zwischen Herrschern" (contact
status open/secret, changeable at any time for the whole segment).
"""

from __future__ import annotations

import re

import numpy as np

from wdg.errors import IllegalOrderError, InvalidInputError
from wdg.textpolicy import HEADER_NAME_LENGTH, char_name, has_unsafe, header_name
from wdg.world.generator import MAX_KINGDOMS, distinct_name, generals_of, random_general
from wdg.world.hexgrid import Hex
from wdg.world.passwords import generate_password, hash_password
from wdg.world.state import (
    BUILDING_ORDER,
    Army,
    ArmyStatus,
    Building,
    Contact,
    Kingdom,
    Player,
    Segment,
    TroopType,
    new_known_map,
)
from wdg.world.terrain import HEIGHTS, WATER, coastal_mask, terrain

_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def kingdom_of(seg: Segment, number: int) -> Kingdom:
    """The kingdom ``number`` or a clear error."""
    try:
        return seg.kingdoms[number]
    except KeyError:
        raise InvalidInputError(
            f"unbekanntes Reich {number!r} in Segment {seg.name!r}; die Reiche sind {sorted(seg.kingdoms)}"
        ) from None


def parse_contact(text: str) -> Contact:
    """``offen``/``open`` or ``geheim``/``secret``."""
    t = text.strip().lower()
    if t in ("offen", "open"):
        return Contact.OPEN
    if t in ("geheim", "secret"):
        return Contact.SECRET
    raise InvalidInputError(f"unbekannter Kontaktstatus {text!r}; erwartet 'offen' oder 'geheim'")


def check_email(email: str) -> str:
    """A plausible e-mail address or a clear error."""
    if not _EMAIL_RE.match(email.strip()):
        raise InvalidInputError(f"keine E-Mail-Adresse: {email!r}")
    return email.strip()


def clean_name(text: str, what: str, notes: list[str] | None = None) -> str:
    """A kingdom's, ruler's or player's name under the one text policy
    (:func:`wdg.textpolicy.header_name`): CR, LF, VT, FF, U+2028/2029, controls, bidi
    and zero-width characters become blanks (a name reaches mail headers: one with a
    line break stopped every result mail, issue #39), blanks collapse, the name is cut
    at :data:`~wdg.textpolicy.HEADER_NAME_LENGTH`. What was changed is added to
    ``notes`` (German); a name that is empty then is refused."""
    cleaned = header_name(text)
    if not cleaned:
        raise InvalidInputError(f"{what} {text!r} ist leer, wenn Steuer- und Trennzeichen "
                                "entfernt sind; erwartet ein sichtbarer Name")
    if notes is not None:
        bad = sorted({ch for ch in text if has_unsafe(ch) or ch in "\r\n"})
        if bad:
            notes.append(f"{what}: {', '.join(char_name(c) for c in bad)} durch Leerzeichen "
                         f"ersetzt; gespeichert wird {cleaned!r}")
        elif len(" ".join(text.split())) > HEADER_NAME_LENGTH:
            notes.append(f"{what}: auf {HEADER_NAME_LENGTH} Zeichen gekürzt")
    return cleaned


def set_password(seg: Segment, number: int, password: str | None = None) -> str:
    """Set a kingdom's password (generated when ``None``); returns the plain
    password, which is shown once and stored only as a salted hash."""
    k = kingdom_of(seg, number)
    if k.player is None:
        raise IllegalOrderError(f"Reich {number} ({k.name}) hat keinen Spieler (ein Stadtstaat?)")
    if password is not None and len(password) < 6:
        raise InvalidInputError("ein Passwort braucht mindestens 6 Zeichen")
    plain = password or generate_password()
    k.player.password_hash = hash_password(plain)
    return plain


def set_player(seg: Segment, number: int, *, email: str | None = None, contact: str | None = None,
               ruler: str | None = None, name: str | None = None,
               herrscherin: bool | None = None, notes: list[str] | None = None) -> Kingdom:
    """Change a player's e-mail, contact status, the ruler's or the kingdom's name, or
    whether the ruler is a woman (``herrscherin``; ``None``: unchanged). Names are
    cleaned by :func:`clean_name` (what changed is added to ``notes``)."""
    k = kingdom_of(seg, number)
    ruler = clean_name(ruler, "Name des Herrschers", notes) if ruler else ruler
    name = clean_name(name, "Name des Königreichs", notes) if name else name
    if (email or contact) and k.player is None:
        raise IllegalOrderError(f"Reich {number} ({k.name}) hat keinen Spieler (ein Stadtstaat?)")
    new_email = check_email(email) if email is not None else None
    new_contact = parse_contact(contact) if contact is not None else None
    if k.player is not None:
        if new_email is not None:
            k.player.email = new_email
        if new_contact is not None:
            k.player.contact = new_contact
    if ruler:
        k.ruler = ruler.strip()
    if name:
        k.name = name.strip()
    if herrscherin is not None:
        k.herrscherin = herrscherin
    return k


def retire(seg: Segment, number: int, to: str | None = None) -> Kingdom:
    """A kingdom leaves the game: it falls to a city state (``stadtstaat``) or
    to neutral (``neutral``), per ``to`` or the segment's setting. Its armies
    are disbanded (city states have no armies), diplomacy with it ends."""
    k = kingdom_of(seg, number)
    mode = (to or seg.settings.retire_to).lower()
    if mode not in ("stadtstaat", "neutral"):
        raise InvalidInputError(f"unbekannte Art des Ausscheidens {mode!r}; erwartet 'stadtstaat' oder 'neutral'")
    if k.retired or k.city_state:
        raise IllegalOrderError(f"Reich {number} ({k.name}) ist schon ein Stadtstaat oder ausgeschieden")
    for n in [n for n, a in seg.armies.items() if a.kingdom == number]:
        fleet = seg.armies[n].carried_by
        if fleet is not None and fleet in seg.armies:
            seg.armies[fleet].carrying = None
        del seg.armies[n]
    for other in seg.kingdoms.values():
        other.diplomacy.pop(number, None)
    k.diplomacy.clear()
    k.offer = None
    k.player = None
    if mode == "stadtstaat":
        k.city_state = True
    else:
        k.retired = True
        seg.owner[seg.owner == number] = 0
        seg.constructions = [p for p in seg.constructions if p.kingdom != number]
    return k


def free_start(seg: Segment, min_distance: int = 4) -> Hex:
    """A free starting gemark: lowland (coastal preferred), unowned, without
    settlement, at least ``min_distance`` from every owned gemark and from
    creatures; the one farthest from all owned gemarks (ties: map order)."""
    land1 = (~WATER[seg.terrain]) & (HEIGHTS[seg.terrain] == 1)
    ok = land1 & (seg.owner == 0) & (seg.settlement == 0)
    rows, cols = np.nonzero(ok)
    if len(rows) == 0:
        raise IllegalOrderError(f"Segment {seg.name!r} hat keine freie Flachland-Gemark für ein neues Reich")
    cand = [seg.grid.hex_at(int(r), int(c)) for r, c in zip(rows, cols)]
    orr, occ = np.nonzero(seg.owner != 0)
    taken = [seg.grid.hex_at(int(r), int(c)) for r, c in zip(orr, occ)]
    taken += [c.position for c in seg.creatures.values()]
    coast = coastal_mask(seg.terrain)

    def score(h: Hex) -> tuple[int, int]:
        d = min((h.distance(t) for t in taken), default=99)
        r, c = seg.grid.index(h)
        return (min(d, 99), int(coast[r, c]))

    best = max(cand, key=score)  # max keeps the first of equal scores: map order
    if taken and min(best.distance(t) for t in taken) < min_distance:
        raise IllegalOrderError(
            f"kein freies Startgebiet mindestens {min_distance} Gemarken von jedem Reich entfernt; "
            "die Gemarken mit --at angeben"
        )
    return best


def add_new_kingdom(seg: Segment, *, name: str, ruler: str, email: str, contact: str = "offen",
                    at: list[Hex] | None = None, treasury: int = 200_000,
                    password: str | None = None, herrscherin: bool = False,
                    notes: list[str] | None = None) -> tuple[Kingdom, str, Hex]:
    """Register a new kingdom: at ``at`` (first gemark = capital) or at a free
    starting area (the capital and its free neighbours). It gets a Dorf with
    Kaserne and Palast, one active warrior army of 1,000 and two passive
    armies with generals; ``herrscherin``: the ruler is a woman. Returns the
    kingdom, its plain password and its capital."""
    check_email(email)
    name = clean_name(name, "Name des Königreichs", notes)
    ruler = clean_name(ruler, "Name des Herrschers", notes)
    cstat = parse_contact(contact)
    if max(seg.kingdoms, default=0) + 1 > MAX_KINGDOMS:
        raise IllegalOrderError(
            f"Segment {seg.name!r} hat schon die Reichsnummer {max(seg.kingdoms)}; höchstens "
            f"{MAX_KINGDOMS} Reiche und Stadtstaaten: Heeresnummern haben vier Ziffern, "
            "Reich x 100 + 1..99")
    gemarks = list(at) if at else []
    for h in gemarks:
        if not seg.grid.contains(h):
            raise InvalidInputError(f"das Feld {tuple(h)} liegt nicht auf der Karte")
        r, c = seg.grid.index(h)
        if WATER[seg.terrain[r, c]]:
            raise IllegalOrderError(f"{seg.label(h)} ist Wasser; ein Reich braucht Land")
        if seg.owner[r, c] != 0:
            raise IllegalOrderError(f"{seg.label(h)} gehört schon Reich {int(seg.owner[r, c])}")
    if not gemarks:
        cap = free_start(seg)
        gemarks = [cap] + [n for n in seg.grid.neighbours(cap)
                           if not WATER[seg.terrain[seg.grid.index(n)]] and seg.owner[seg.grid.index(n)] == 0]
    cap = gemarks[0]
    if terrain(seg.at(seg.terrain, cap)).name.endswith("vulkan"):
        raise IllegalOrderError(f"{seg.label(cap)} ist ein Vulkan: dort kann keine Siedlung stehen")
    number = max(seg.kingdoms, default=0) + 1
    plain = password or generate_password()
    k = Kingdom(number=number, name=name, ruler=ruler, herrscherin=herrscherin,
                player=Player(ruler, email, cstat, hash_password(plain)), treasury=treasury)
    seg.kingdoms[number] = k
    seg.known[number] = new_known_map(seg.grid)
    for h in gemarks:
        seg.owner[seg.grid.index(h)] = number
    r, c = seg.grid.index(cap)
    seg.settlement[r, c] = max(int(seg.settlement[r, c]), 300)
    seg.settlement_names[cap] = name[:15]
    for b in (Building.KASERNE, Building.PALAST):
        seg.buildings[BUILDING_ORDER.index(b), r, c] = max(1, int(seg.buildings[BUILDING_ORDER.index(b), r, c]))
    base = max(max(seg.armies, default=0) + 1, number * 100 + 1)
    rng = np.random.default_rng([seg.seed, number, base])  # same request, same generals
    seg.armies[base] = Army(base, number, ArmyStatus.ACTIVE, cap,
                            random_general(rng, TroopType.KRIEGER), 1000, 60)
    for i, troop in enumerate((TroopType.KRIEGER, TroopType.REITER), start=1):
        g = random_general(rng, troop)
        g.name = distinct_name(g.name, generals_of(seg, number))
        seg.armies[base + i] = Army(base + i, number, general=g)
    _reveal(seg, number, gemarks)
    return k, plain, cap


def _reveal(seg: Segment, number: int, gemarks: list[Hex]) -> None:
    km = seg.known[number]
    for h in gemarks:
        for n in [h, *seg.grid.neighbours(h)]:
            r, c = seg.grid.index(n)
            km.seen[r, c] = seg.date.ordinal
            km.terrain[r, c] = seg.terrain[r, c]
            km.owner[r, c] = seg.owner[r, c]
            km.settlement[r, c] = seg.settlement[r, c]
