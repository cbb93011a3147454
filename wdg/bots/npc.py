"""NPC kingdoms: kingdoms the game master hands to a bot.

``wdg kingdom set SEG K --bot Kriegsherr`` (:func:`set_bot`) gives kingdom K
to a bot — a dropped player's kingdom kept alive, or a power of the game
master such as the Mächte der Nacht (``Kriegsherr+feind``: at war with every
kingdom it meets). The bot gets a new password, kept with the kingdom
(``bot_password``) because the bot is the game master's own player; only its
hash is the player's password. ``--bot ''`` gives the kingdom back to a
human with a new password (shown once).

``wdg turn run`` calls :func:`write_npc_sheets` before the month: for every
bot kingdom without a sheet in ``orders/<segment>/<YYYY-MM>/`` the bot writes
``k<n>.txt`` from the kingdom's briefing (its view and the last archived
month's events, i.e. its last result sheet). From there the sheet is an
ordinary input (the bot also reads its own last archived sheet, whose
``# Notiz:`` lines are its notebook): parsed, checked, taken in and archived with the month, so
``wdg turn replay`` reproduces the month byte for byte. A sheet that arrived
(a game master's correction) is never overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wdg.bots.briefing import brief
from wdg.bots.players import personality, write_sheet
from wdg.campaign import Campaign
from wdg.engine.events import Event
from wdg.errors import IllegalOrderError, InvalidInputError
from wdg.reports.archived import load_events
from wdg.rules import Rules
from wdg.store.files import events_file
from wdg.store.months import month_dir
from wdg.world.passwords import generate_password, hash_password, verify_password
from wdg.world.state import Kingdom, Player, Segment


def set_bot(seg: Segment, number: int, who: str) -> tuple[Kingdom, str]:
    """Hand kingdom ``number`` to the bot ``who`` (``''``: back to a human).
    Returns the kingdom and the new password (the human's, to be shown once;
    for a bot the one it writes on its sheets)."""
    k = seg.kingdoms.get(number)
    if k is None:
        raise InvalidInputError(f"Reich {number!r} gibt es in Segment {seg.name!r} nicht")
    if k.city_state or k.retired:
        raise IllegalOrderError(f"Reich {number} ({k.name}) spielt nicht mehr (Stadtstaat oder "
                                "ausgeschieden); ein Bot kann es nicht spielen")
    plain = generate_password()
    if k.player is None:
        k.player = Player(name="Spielleitung", email=f"spielleitung@{seg.name}.invalid")
    k.player.password_hash = hash_password(plain)
    if who.strip():
        k.bot = personality(who).name
        k.bot_password = plain
    else:
        k.bot, k.bot_password = "", ""
    return k, plain


@dataclass(slots=True)
class NpcSheet:
    """What :func:`write_npc_sheets` did for one bot kingdom."""

    kingdom: int
    bot: str
    path: Path
    written: bool
    note: str = ""


def last_events(camp: Campaign, seg: Segment) -> list[Event] | None:
    """The event log of the last archived month (the last result sheets), if any."""
    mdir = month_dir(camp, seg.name, seg.date.previous())
    return load_events(mdir, seg) if events_file(mdir).is_file() else None


def last_sheet(camp: Campaign, seg: Segment, kingdom: int) -> str | None:
    """The kingdom's sheet of the last archived month (the bot's notebook)."""
    path = month_dir(camp, seg.name, seg.date.previous()) / "orders" / f"k{kingdom}.txt"
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else None
    except UnicodeDecodeError:
        return None


def write_npc_sheets(camp: Campaign, seg: Segment) -> list[NpcSheet]:
    """Write the sheet of every bot kingdom of ``seg`` that has none this month."""
    out: list[NpcSheet] = []
    bots = [k for k in sorted(seg.kingdoms) if seg.kingdoms[k].bot
            and not seg.kingdoms[k].retired and not seg.kingdoms[k].city_state]
    if not bots:
        return out
    folder = camp.orders_dir(seg.name, seg.date)
    rules = Rules.load(camp.rules_dir)
    events = last_events(camp, seg)
    for n in bots:
        k = seg.kingdoms[n]
        path = folder / f"k{n}.txt"
        if path.exists():
            out.append(NpcSheet(n, k.bot, path, False, "ein Spielzug liegt schon vor"))
            continue
        if k.player is None or not verify_password(k.bot_password, k.player.password_hash):
            out.append(NpcSheet(n, k.bot, path, False, "das Passwort des Bots gilt nicht mehr "
                                f"(wdg kingdom set {seg.name} {n} --bot {k.bot})"))
            continue
        text = write_sheet(brief(seg, n, events, last_sheet(camp, seg, n)), k.bot, rules,
                           password=k.bot_password, seed=seg.seed)
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        out.append(NpcSheet(n, k.bot, path, True))
    return out

