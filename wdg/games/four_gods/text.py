"""Text of 4 Gods states and actions (playthrough files, records, logs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wdg.games.base import Band
from wdg.games.four_gods.tiles import GOD_NAMES, TERRAIN_NAMES, TERRAINS, orient_grid, side_text

if TYPE_CHECKING:
    from wdg.games.four_gods.state import FourGodsState as St


COLOUR_NAMES = ("Rot", "Blau", "Gelb", "Lila")
"""Prophet colours of the hidden gods ("Verdeckte Götter"): "Jeder von euch
wählt bei Spielbeginn eine Spielerfarbe ... Die Farbe der gewählten
Propheten hat in diesem Modus nichts mit der Gottheit zu tun"."""


def end_reason_de(s: St) -> str:
    """Why the game ends (or will end), in German: the names the batch
    statistics use (the game's ``end_labels``)."""
    return s.game.end_labels.get(s.end_reason, s.end_reason)


def prophet_colour(s: St, g: int) -> int:
    """The colour index of god ``g``'s prophets with hidden gods: its
    player's seat (a player's second god, in the two-player game with four
    gods, the seat plus the number of players); -1 for a god not dealt."""
    p = s.owner[g] if g >= 0 else -1
    if p < 0:
        return -1
    return p + s.game.num_players * s.gods[p].index(g)


def prophet_label(s: St, g: int) -> str:
    """How a god's prophets (and cities) are named where players see them:
    the god with open gods, the colour with hidden gods (the god stays
    secret until the scoring)."""
    if g < 0:
        return "ohne Propheten"
    if s.game.hidden_gods:
        k = prophet_colour(s, g)
        return COLOUR_NAMES[k] if k >= 0 else "?"
    return GOD_NAMES[g]


def cell_name(s: St, c: int) -> str:
    """Column letter and row number, e.g. ``C4`` (A1 is the north-west corner)."""
    r, col = divmod(c, s.game.tileset.cols)
    return f"{chr(ord('A') + col)}{r + 1}"


def orient_name(o: int) -> str:
    """``A0``..``B3``: side and quarter turns clockwise."""
    return f"{'AB'[o // 4]}{o % 4}"


def describe(s: St, a: int) -> str:
    """A readable, unique German name of action ``a`` in state ``s`` (the
    text of records and playthrough files; records are replayed by the
    action numbers, so older records with English texts stay valid)."""
    kind, args = s.game.layout.decode(a)
    if kind == "deal":
        return f"Spieler {s.deal_next % s.game.num_players} erhält die Gottheit {GOD_NAMES[args[0]]}"
    if kind == "start":
        return f"Startspieler: Spieler {args[0]}"
    if kind == "draw_tile":
        return (f"Plättchen {args[0]} gezogen ({tile_terrain(s, args[0], 0)} | "
                f"{tile_terrain(s, args[0], 4)})")
    if kind == "end":
        return "Zug beenden"
    if kind == "draw":
        return f"{args[0]} Plättchen aus dem Beutel ziehen"
    if kind == "place":
        h, c, o = args
        verb = "Stadt zerstören an" if c in s.world.cities else "an"
        t = s.hands[h]
        return (f"Plättchen {t} (Hand {h + 1}) legen ({tile_terrain(s, t, o) if t is not None else '?'}, "
                f"{orient_name(o)}) {verb} {cell_name(s, c)}")
    if kind == "reserve":
        h, side = args
        return f"Plättchen {s.hands[h]} (Hand {h + 1}) mit Seite {'AB'[side]} oben in die Ablagereihe"
    if kind in ("flip", "take"):
        q, i = args
        tile = s.rows[q][i][0] if i < len(s.rows[q]) else None
        verb = "wenden" if kind == "flip" else "nehmen"
        return f"Plättchen {tile} in der Reihe von Spieler {q} auf Platz {i + 1} {verb}"
    if kind == "god":
        return f"Gottheit {GOD_NAMES[args[0]]} wählen"
    if kind == "city":
        return f"Legendäre Stadt an {cell_name(s, args[0])} bauen"
    if kind == "prophet":
        return f"Prophet ({prophet_label(s, args[0])}) aus dem Vorrat nach {_region(s, args[1], german=True)}"
    if kind == "move":
        return f"Prophet von {cell_name(s, args[0])} nach {_region(s, args[1], german=True)} versetzen"
    if kind == "skip":
        return "keinen Propheten setzen"
    return f"Plättchen zurück in die Reihe von Spieler {s.taken_from}"


def _region(s: St, k: int, german: bool = False) -> str:
    """The region ``k`` of the tile (or city) just laid, as in the actions;
    German for play by hand (regions counted from 1)."""
    tile = s.world.tiles[s.focus]
    where = cell_name(s, s.focus)
    if tile is None:
        return f"{'Stadt' if german else 'city'} {where}"
    if german:
        return f"{where} Gebiet {k + 1} ({TERRAIN_NAMES[tile.region_terrain[k]]})"
    return f"{where} region {k} ({TERRAIN_NAMES[tile.region_terrain[k]]})"


def render(s: St) -> str:
    """The full position as text: status, world, prophets, cities, players."""
    lines = [f"turn {s.turn} player {s.player} phase {s.phase} actions {s.turn_actions} "
             f"final {s.final_turns} idle {s.idle_turns} end {s.end_reason or '-'}",
             f"bag {len(s.bag)}: {' '.join(map(str, s.bag))}",
             f"hands {s.hands[0]} {s.hands[1]} focus {s.focus} taken {s.taken_from}/{s.taken_hand} "
             f"draws {s.draws_left} cities_left {s.cities_left}"]
    ts = s.game.tileset
    for r in range(ts.rows):
        cells = []
        for col in range(ts.cols):
            c = r * ts.cols + col
            o = s.world.tiles[c]
            if o is not None:
                cells.append(f"{o.tile:2d}{orient_name(o.orient)}")
            elif c in s.world.cities:
                g = s.world.cities[c]
                cells.append(f"C{g:+d} " if not s.game.hidden_gods or g < 0
                             else f"C{prophet_label(s, g)[0]}  ")
            else:
                cells.append("  . ")
        lines.append(" ".join(cells))
    lines.append("prophets " + " ".join(
        f"{cell_name(s, c)}:{prophet_label(s, g)}/{k}" for c, (g, (_, k)) in sorted(s.prophets.items())))
    lines.append("supply " + " ".join(f"{prophet_label(s, g)}={s.supply[g]}" for g in _supply_gods(s)))
    for p in range(s.game.num_players):
        row = " ".join(f"{t}{'AB'[side]}" for t, side in s.rows[p])
        gods = ",".join(GOD_NAMES[g] for g in s.gods[p]) or "-"
        lines.append(f"player {p} gods {gods} destroyed {s.destroyed[p]} row [{row}]")
    return "\n".join(lines)



def _supply_gods(s: St) -> list[int]:
    """The gods whose supply is shown: all four with open gods, the dealt
    ones by colour with hidden gods."""
    if not s.game.hidden_gods:
        return list(range(4))
    return sorted((g for g in range(4) if s.owner[g] >= 0), key=lambda g: prophet_colour(s, g))


def tile_terrain(s: St, tile: int, orient: int = 0) -> str:
    """A tile's terrains in one orientation, rows joined by ``/`` (e.g. ``MMW/MMW/WWW``)."""
    return side_text(orient_grid(s.game.tileset.sides[tile], orient))


def board_text(s: St, viewer: int | None = None) -> str:
    """The world as terrain: every cell as its 3 x 3 terrains (M Meer,
    E Ebene, W Wald, G Gebirge), ``( )`` a city with its god's initial,
    ``·`` an empty cell, ``+`` an empty cell where a tile may go now; a
    prophet shows as ``*`` in the area it stands on (and is listed below). Columns A.. and rows
    1.. name cells as the actions do ("at C4"). Then hands, rows and gods."""
    ts = s.game.tileset
    prophet_at: dict[tuple[int, int, int], str] = {}
    for c, (_g, (_, k)) in s.prophets.items():
        o = s.world.tiles[c]
        if o is None:
            continue
        cells = [(rr, cc) for rr in range(3) for cc in range(3) if o.region_of[rr][cc] == k]
        rr, cc = cells[len(cells) // 2]
        prophet_at[(c, rr, cc)] = "*"
    head = "    " + " ".join(f" {chr(ord('A') + col)}  " for col in range(ts.cols))
    who = "" if s.phase == "over" else f", Spieler {s.player} am Zug"
    lines = [f"{turn_label(s)}{who}, Beutel {len(s.bag)} Plättchen, "
             f"Städte übrig {s.cities_left}" + (f", Ende: {end_reason_de(s)}" if s.end_reason else ""),
             head]
    for r in range(ts.rows):
        for rr in range(3):
            parts = []
            for col in range(ts.cols):
                c = r * ts.cols + col
                o = s.world.tiles[c]
                if o is not None:
                    parts.append("".join(prophet_at.get((c, rr, cc), TERRAINS[o.grid[rr][cc]])
                                         for cc in range(3)))
                elif c in s.world.cities:
                    god = s.world.cities[c]
                    parts.append(f"({prophet_label(s, god)[0] if god >= 0 else ' '})" if rr == 1 else "( )")
                else:
                    parts.append(" + " if rr == 1 and c in s.world.frontier else " · " if rr == 1 else "   ")
            label = f"{r + 1:>3} " if rr == 1 else "    "
            lines.append(label + "  ".join(parts))
        lines.append("")
    lines.append(board_key(s))
    for h in (0, 1):
        if (t := s.hands[h]) is not None:
            lines.append(f"Hand {h + 1}: Plättchen {t} Seite A {tile_terrain(s, t, 0)}, "
                         f"Seite B {tile_terrain(s, t, 4)}")
    for p in range(s.game.num_players):
        row = ", ".join(f"{i}:{tile_terrain(s, t, 4 * side)}" for i, (t, side) in enumerate(s.rows[p]))
        gods = ",".join(GOD_NAMES[g] for g in s.gods[p]) or "-"
        if s.game.hidden_gods:
            colours = ",".join(prophet_label(s, g) for g in s.gods[p])
            if viewer is not None and p in s.hidden_gods_of(viewer):
                gods = "?"
            gods = f"{gods} (Farbe {colours or '-'})"
        lines.append(f"Spieler {p}: Götter {gods}; zerstörte Städte {s.destroyed[p]}; "
                     f"Ablagereihe [{row}]")
    if s.prophets:
        lines.append("Propheten: " + ", ".join(
            f"{cell_name(s, c)} {prophet_label(s, g)} ({TERRAIN_NAMES[laid.region_terrain[k]]})"
            for c, (g, (_, k)) in sorted(s.prophets.items())
            if (laid := s.world.tiles[c]) is not None))
    lines.append("Propheten im Vorrat: " + ", ".join(f"{prophet_label(s, g)} {s.supply[g]}"
                                                    for g in _supply_gods(s)))
    return "\n".join(lines)


def turn_label(s: St) -> str:
    """The turn in German, counted from 1 (``s.turn`` counts the turns done)."""
    return f"nach {s.turn} Zügen" if s.phase == "over" else f"Zug {s.turn + 1}"


def board_key(s: St) -> str:
    """The key to the letters and marks of :func:`board_text`, in German."""
    if s.game.hidden_gods:
        used = sorted(prophet_colour(s, g) for g in range(4) if s.owner[g] >= 0) or range(4)
        city = "( ) eine legendäre Stadt, darin der Anfangsbuchstabe der Farbe ihrer Propheten (" + \
            ", ".join(f"{COLOUR_NAMES[k][0]} {COLOUR_NAMES[k]}" for k in used) + ")"
    else:
        city = "( ) eine legendäre Stadt, darin der Anfangsbuchstabe ihres Gottes (" + \
            ", ".join(f"{g[0]} {g}" for g in GOD_NAMES) + ")"
    return ("Zeichen: " + ", ".join(f"{t} {n}" for t, n in zip(TERRAINS, TERRAIN_NAMES))
            + f"; * ein Prophet (unten aufgeführt); {city}; · ein leeres Feld; "
            "+ ein leeres Feld, an das jetzt ein Plättchen gelegt werden darf")


# ------------------------------------------------------------------ by hand
def action_path(s: St, a: int) -> tuple[str, ...]:
    """The menu labels of action ``a`` for play by hand (German): kind, then
    target, then detail — a tile to lay by hand, then the cell, then side
    and turn with the terrain it shows."""
    kind, args = s.game.layout.decode(a)
    if kind == "draw":
        return ("Ziehen aus dem Beutel", f"{args[0]} Plättchen")
    if kind == "place":
        h, c, o = args
        t = s.hands[h]
        verb = "Stadt zerstören an" if c in s.world.cities else "an"
        terrain = tile_terrain(s, t, o) if t is not None else "?"
        return (f"Plättchen {t} (Hand {h + 1}) legen", f"{verb} {cell_name(s, c)}",
                f"Seite {'AB'[o // 4]}, {o % 4}x gedreht: {terrain}")
    if kind == "reserve":
        h, side = args
        t = s.hands[h]
        return ("Plättchen in die eigene Ablagereihe", f"Plättchen {t} (Hand {h + 1})",
                f"Seite {'AB'[side]} oben")
    if kind in ("flip", "take"):
        q, i = args
        tile, side = s.rows[q][i] if i < len(s.rows[q]) else (None, 0)
        shown = tile_terrain(s, tile, 4 * (1 - side)) if tile is not None else "?"
        verb = "Plättchen in einer Ablagereihe wenden" if kind == "flip" else \
            "Plättchen aus einer Ablagereihe nehmen"
        return (verb, f"Reihe von Spieler {q}", Band(f"Plätze {10 * (i // 10) + 1}-{10 * (i // 10) + 10}"),
                f"Platz {i + 1}: Plättchen {tile}" + (f" (danach {shown})" if kind == "flip" else ""))
    if kind == "god":
        return ("Gottheit wählen", GOD_NAMES[args[0]])
    if kind == "city":
        return ("Legendäre Stadt bauen", f"an {cell_name(s, args[0])}")
    if kind == "prophet":
        return (f"Prophet ({prophet_label(s, args[0])}) aus dem Vorrat setzen", _region(s, args[1], german=True))
    if kind == "move":
        return ("Prophet versetzen", f"von {cell_name(s, args[0])}", f"nach {_region(s, args[1], german=True)}")
    if kind == "skip":
        return ("Keinen Propheten setzen",)
    if kind == "end":
        return ("Zug beenden",)
    if kind == "ret":
        return (f"Plättchen zurück in die Reihe von Spieler {s.taken_from}",)
    return (describe(s, a),)


def action_de(s: St, a: int, viewer: int) -> str:
    """An action as ``viewer`` sees it, in German (a hidden god dealt to
    another player unnamed)."""
    kind, args = s.game.layout.decode(a)
    n = s.game.num_players
    if kind == "deal":
        who = s.deal_next % n
        return (f"Spieler {who} erhält verdeckt eine Gottheit" if who != viewer
                else f"Spieler {who} erhält die Gottheit {GOD_NAMES[args[0]]}")
    if kind == "start":
        return f"Startspieler: Spieler {args[0]}"
    if kind == "draw_tile":
        return (f"Plättchen {args[0]} gezogen (Seite A {tile_terrain(s, args[0], 0)}, "
                f"Seite B {tile_terrain(s, args[0], 4)})")
    return ": ".join(x for x in (" ".join(action_path(s, a)),) if x)


def turn_status(s: St, player: int) -> list[str]:
    """Actions left in the turn (the hourglass), the last turns once the end
    is triggered, and the points: every god of ``player`` on its own (with
    two gods the lower counts), the others' where he may know their gods."""
    out = []
    if s.phase not in ("over", "deal", "start"):
        left = max(0, s.game.actions_per_turn - s.turn_actions)
        who = "Dein Zug" if s.player == player else f"Zug von Spieler {s.player}"
        out.append(f"{who}: {s.turn_actions} von {s.game.actions_per_turn} Aktionen genutzt, "
                   f"noch {left}." + (" Ein Prophet kann noch auf das gelegte Plättchen."
                                      if s.phase == "prophet" else "")
                   + (" Die neue Stadt braucht ihren Propheten." if s.phase == "city" else ""))
    if s.final_turns > 0:
        out.append(f"Das Ende ist ausgelöst ({end_reason_de(s)}): noch {s.final_turns} Züge.")
    b = s.breakdown()
    pts = s.scores()
    hidden = s.hidden_gods_of(player)
    for p in range(s.game.num_players):
        gods = s.gods[p]
        if p in hidden:
            text = "? (verdeckte Gottheit)"
        elif not gods:
            text = "noch keine Gottheit"
        else:
            each = ", ".join(f"{GOD_NAMES[g]} {b.total(g)}" for g in gods)
            text = each + (f" (es zählt die niedrigere: {pts[p]:.0f})"
                           if s.gods_per_player() == 2 else "")
            if s.gods_per_player() == 2 and len(gods) < 2:
                text += " — die zweite Gottheit fehlt noch (zählt 0)"
        mine = " (du)" if p == player else ""
        out.append(f"Punkte Spieler {p}{mine}: {text}")
    return out
