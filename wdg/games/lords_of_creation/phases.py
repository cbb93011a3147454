"""Lords of Creation: the phases of a state and the rule numbers in the text."""

from __future__ import annotations

MAX_KEPT = 3
"""2.: "Man darf insgesamt bis zu drei Marker zurückhalten"."""
SAME_TERRAIN_HIT, OTHER_TERRAIN_HIT = 6, 8
"""3.7: attacker needs a sum of six on the same terrain, eight on another."""

# phases
(DEAL, START, CREATE, CREATE_DRAW, CREATE_PLACE, CHOOSE, REFILL, TIE, PLACE, ACT,
 MOVE_PAIR, MOVE_COUNT, ATTACK_PAIR, DICE, ADVANCE, CIVILISE, ALTAR, OVER) = range(18)
PHASE_NAMES = (
    "Austeilen", "Startspieler", "Schöpfung", "Schöpfung: Ziehen", "Schöpfung: Legen",
    "Karte wählen", "Nachziehen", "Gleichstand", "Einsetzen", "Aktionen",
    "Bewegen: wohin", "Bewegen: wie viele", "Angriff: wohin", "Angriff: Würfel",
    "Nachrücken", "Zivilisieren: wo", "Altar: wo", "Spielende",
)
