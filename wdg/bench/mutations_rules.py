"""The rule mutations of ``python -m wdg.bench.mutants`` (issue #44): one-line
slips in the engine's rules other than roundings, which ``MUTATIONS`` in
:mod:`wdg.bench.mutants` covers.

Each changes one rule the way a slip would: a comparison turned (``<`` for
``<=``), a condition dropped or negated, two keys of a rules file swapped, a
number of ``worlds/rules/*.yaml`` off by one. ``tests`` lists the test files
that cover the rule and must notice the change. The rule each one breaks is
named in a comment (section of the 1994 rules, /work/shared/seeds or
docs/rules.md); docs/testing.md keeps the score.
"""

from __future__ import annotations

from wdg.bench.mutants import Mutation

MOVE = ("tests/engine/test_movement.py", "tests/engine/test_movement_properties.py",
        "tests/rules/test_allgemeine_regeln.py")
COMBAT = ("tests/engine/test_combat.py", "tests/rules/test_kampf.py")
CONQUEST = ("tests/engine/test_conquest.py", "tests/engine/test_rule_points_42.py")
DIPLOMACY = ("tests/engine/test_diplomacy.py", "tests/rules/test_diplomatiestatus.py")
ECONOMY = ("tests/engine/test_economy_end.py", "tests/engine/test_economy_pay.py",
           "tests/rules/test_reichsschatz.py", "tests/rules/test_siedlung.py")
KINGDOM = ("tests/engine/test_kingdom_orders.py", "tests/rules/test_siedlung.py",
           "tests/rules/test_diplomatiestatus.py")
ARMY = ("tests/engine/test_phase_a.py", "tests/engine/test_transport.py",
        "tests/rules/test_tragkraft.py", "tests/rules/test_heer.py")
RECON = ("tests/engine/test_recon.py",)
MORALE = ("tests/rules/test_heeresmoral.py", "tests/engine/test_actions.py")
MILITIA = ("tests/engine/test_militia.py", "tests/engine/test_conquest.py")
CREATURES = ("tests/engine/test_creatures.py", "tests/engine/test_wizards.py",
             "tests/engine/test_rule_points_42.py")

RULE_MUTATIONS = (
    # --- movement: "Die Bewegung", "Allgemeine Regeln für Heere", "Schwieriges Gelände"
    # "nur möglich, wenn ... die Bewegungssumme nicht über die maximale
    # Bewegungsreichweite ... steigen läßt": 100 % may be used up
    Mutation("a step may not use up the whole budget", "wdg/engine/movement.py",
             "if spent + cost > t.budget:",
             "if spent + cost >= t.budget:", MOVE),
    # "Bei zusammengesetzten Geländearten ist immer die jeweils geringere
    # Bewegungsreichweite der Einzelgeländearten maßgeblich"
    Mutation("a composite terrain costs its cheaper component", "wdg/engine/movement.py",
             "out[t.id] = max(known)",
             "out[t.id] = min(known)", MOVE),
    # "... bei 'Verluste' die addierten Verluste beider Einzelgeländearten"
    Mutation("composite losses take the larger, not the sum", "wdg/engine/movement.py",
             "loss = np.array([sum(int(rates.get(c.value, 0)) for c in loss_components(t))",
             "loss = np.array([max((int(rates.get(c.value, 0)) for c in loss_components(t)), "
             "default=0)", MOVE),
    # "7, 8, 9: Die Bewegung anderer Heere im eigenen Reichsgebiet ist nicht behindert"
    Mutation("free passage only from status 8", "worlds/rules/diplomacy.yaml",
             "passage_statuses: [7, 8, 9] ",
             "passage_statuses: [8, 9] ", (*MOVE, *DIPLOMACY)),
    # "immer nur Gemarken der direkt darüber- oder darunterliegende Höhenstufe"
    Mutation("a step over two height levels", "wdg/engine/movement.py",
             "if abs(step_height(kind, there_tid) - step_height(kind, here_tid)) > 1:",
             "if abs(step_height(kind, there_tid) - step_height(kind, here_tid)) > 2:", MOVE),
    # (e) "außerhalb des eigenen Reichsgebietes ... verirrt"
    Mutation("armies get lost at home, not abroad", "wdg/engine/movement.py",
             "return bool(GETS_LOST[tid]) and not own_at_start",
             "return bool(GETS_LOST[tid]) and own_at_start", MOVE),
    # "Kontrollbereich": "innerhalb des zum Beginn des Mondes bestehenden Kontrollbereiches"
    Mutation("the control area as it stands now", "wdg/engine/movement.py",
             "owner = int(ctx.start_owner[r, c])",
             "owner = int(seg.owner[r, c])", MOVE),
    # (f) "In den Monden des Frühjahres (4-6) kann die Geländeart Stromtal nicht betreten werden"
    Mutation("the Stromtal opens in month 6", "wdg/world/terrain.py",
             "C.STROMTAL: frozenset({4, 5, 6}),",
             "C.STROMTAL: frozenset({4, 5}),",
             (*MOVE, "tests/world/test_terrain_calendar.py")),
    # (g) "In den Monden des Winters (1-3) können die Geländearten Bergland und
    # Gebirge nicht betreten werden"
    Mutation("the Bergland opens in month 3", "wdg/world/terrain.py",
             "C.BERGLAND: frozenset({1, 2, 3}),",
             "C.BERGLAND: frozenset({1, 2}),",
             (*MOVE, "tests/world/test_terrain_calendar.py")),
    # "33% der Bewegungsreichweite in den Geländearten: Tiefland und Hochland"
    Mutation("a rider's Tiefland step costs 34 %", "worlds/rules/movement.yaml",
             "    Tiefland: 33 ", "    Tiefland: 34 ", MOVE),

    # --- combat: "Der Kampf", "Der Diplomatiestatus", "Allgemeine Regeln" (r)
    # the stronger side has the better chance ("Stärke der Heere")
    Mutation("the draw favours the weaker side", "wdg/engine/combat.py",
             "win, lose_side = (sa, sb) if m.rng.random() < p else (sb, sa)",
             "win, lose_side = (sb, sa) if m.rng.random() < p else (sa, sb)", COMBAT),
    # "kämpfen die Heere eines Königreiches immer nach der aufsteigenden Heeresnummer"
    Mutation("a kingdom's armies fight in descending number", "wdg/engine/combat.py",
             "for a in sorted(mine.get(k, []), key=lambda x: x.number):",
             "for a in sorted(mine.get(k, []), key=lambda x: -x.number):", COMBAT),
    # "Jedes Heer kann in jedem Mond nur 1 Kampf austragen!"
    Mutation("an army fights twice a month", "wdg/engine/combat.py",
             "if o.kingdom == army.kingdom or o.number in m.fought or not can_fight(o):",
             "if o.kingdom == army.kingdom or not can_fight(o):", COMBAT),
    # docs/rules.md "Combat": riders are weaker in difficult terrain only
    Mutation("riders weaker in every terrain", "wdg/engine/combat.py",
             "if troop is TroopType.REITER and is_difficult(terrain(m.state.at(m.state.terrain, "
             "at))):",
             "if troop is TroopType.REITER:", COMBAT),
    # "das Besitzverhältnis des Kampfschauplatzes": the owner fights better
    Mutation("the home bonus goes to the visitor", "wdg/engine/combat.py",
             "if kingdom is None or seg.at(seg.owner, at) != kingdom:",
             "if kingdom is None or seg.at(seg.owner, at) == kingdom:", COMBAT),
    # (r) "Landheere, die auf Schiffen befördert werden, können bei einem
    # Seegefecht nicht mitkämpfen"
    Mutation("a carried army fights", "wdg/engine/combat.py",
             "and army.general is not None and army.carried_by is None)",
             "and army.general is not None)", COMBAT),
    # "1, 2, 3: Angriff auf fremde Heere möglich" — one side's status suffices
    Mutation("a fight needs both sides hostile", "wdg/engine/diplomacy.py",
             'return _in(rules, "attack_statuses", status(seg, a, b)) or \\',
             'return _in(rules, "attack_statuses", status(seg, a, b)) and \\',
             (*COMBAT, *DIPLOMACY)),
    # "Die Heeresmoral": "Erfolge des Heeres heben die Moral"
    Mutation("a victory lowers morale", "wdg/engine/combat.py",
             'key = "win" if won else "loss"',
             'key = "loss" if won else "win"', (*COMBAT, *MORALE)),

    # --- conquest: "Die Eroberung", "(e) Einnahme", "(o) Okkupation"
    # "(e) ... nur neutrale Gemarken ohne Siedlung und Bauwerk"
    Mutation("an Einnahme takes a gemark with a building", "wdg/engine/conquest.py",
             "if owner != 0 or settlement or building:",
             "if owner != 0 or settlement:", CONQUEST),
    # "Eine Eroberung kann ferner mißlingen, wenn auch andere Heere in demselben
    # Mond eine Eroberung durchführen": the first valid claim wins
    Mutation("two claims on one gemark both win", "wdg/engine/conquest.py",
             "        taken.add(claim.at)\n",
             "        taken.discard(claim.at)\n", CONQUEST),
    # "Vor einer Okkupation kann es zu einem Kampf gegen die Milizen dieser
    # Gemark kommen": only a won (or no) partisan fight claims the gemark
    Mutation("a lost partisan fight still claims", "wdg/engine/conquest.py",
             "    if won:\n        m.claims.append(Claim(",
             "    if True:\n        m.claims.append(Claim(", (*CONQUEST, *MILITIA)),
    # "1, 2: Fremde Gemarken können erobert werden"
    Mutation("conquest allowed at status 3", "worlds/rules/diplomacy.yaml",
             "conquest_statuses: [1, 2] ",
             "conquest_statuses: [1, 2, 3] ", (*CONQUEST, *DIPLOMACY)),
    # "9: Automatischer Bericht über die eigenen Steuereinnahmen und die Höhe des Reichsschatzes"
    Mutation("status 8 reports the treasury", "wdg/engine/diplomacy.py",
             'if _in(m.rules, "treasury_report_statuses", st):',
             'if _in(m.rules, "report_statuses", st):', DIPLOMACY),

    # --- economy: "Die Siedlung" (e), "Das Schiff", "Der Reichsschatz" (a)
    # docs/rules.md: a settlement grows by at most 50 Baueinheiten a month
    Mutation("a settlement grows its whole order at once", "wdg/engine/economy.py",
             "done = min(per_month, p.remaining)",
             "done = p.remaining", ECONOMY),
    # "ruht die Flotte, so steigt sie um 5% (in einem Hafen um 20%)"
    Mutation("harbour and open-sea rest swapped", "wdg/engine/economy.py",
             'key, what = ("fleet_harbour", "ruht im Hafen") if in_harbour else ("fleet_rest", '
             '"ruht")',
             'key, what = ("fleet_rest", "ruht im Hafen") if in_harbour else ("fleet_harbour", '
             '"ruht")', (*ECONOMY, "tests/engine/test_transport.py")),
    # "Der Reichsschatz" (a): a Flecken (100 BE) is a settlement and stores the treasury
    Mutation("a Flecken stores no treasury", "wdg/engine/economy.py",
             'return size >= rules.int("economy", "settlement", "treasury_min_units")',
             'return size > rules.int("economy", "settlement", "treasury_min_units")',
             (*ECONOMY, *CONQUEST)),

    # "Der Reichsschatz" (b) "Alle Steuer- und sonstige Einnahmen entstehen
    # grundsätzlich in den Lagerstätten des Reichsschatzes": income is forfeit
    # only when the last site was lost this month (docs/rules.md, issue #42)
    Mutation("a kingdom that never had a settlement earns nothing", "wdg/engine/economy.py",
             "return had and not treasury_sites(m.state, kingdom, rules)",
             "return not treasury_sites(m.state, kingdom, rules)", ECONOMY),
    # docs/rules.md "Pay, upkeep and the treasury": popularity above 50 raises the taxes
    Mutation("popularity lowers the taxes", "wdg/engine/economy.py",
             'return 1.0 + (popularity - 50) * rules.num("economy", "taxes", "popularity_effect")',
             'return 1.0 - (popularity - 50) * rules.num("economy", "taxes", "popularity_effect")',
             ECONOMY),
    # "Das Boot": "Die Haltbarkeit von Booten sinkt in jedem Mond um 10%"
    Mutation("boats wear 9 % a month", "worlds/rules/economy.yaml",
             "  boat_loss: 10\n", "  boat_loss: 9\n",
             (*ECONOMY, "tests/engine/test_transport.py")),

    # --- kingdom orders: "K: Königreichbefehle", (SS), (Bn), (DS), (F+)
    # "Die Bauwerke": "Hafen 100.000 GS"
    Mutation("a Hafen costs 50.000 GS", "worlds/rules/economy.yaml",
             "    Hafen: 100000", "    Hafen: 50000", KINGDOM),
    # "Pro Palast und Mond ... einen Befehl"
    Mutation("one kingdom order more than palaces", "wdg/engine/kingdom_orders.py",
             "if i >= limit:", "if i > limit:", KINGDOM),
    # palaces counted at the start of the month (docs/rules.md)
    Mutation("palaces counted after the month's conquests", "wdg/engine/kingdom_orders.py",
             "owner = m.start.owner if m.start is not None else seg.owner",
             "owner = seg.owner", KINGDOM),
    # "(DS) ... pro Mond nur maximal um den Wert +2 oder -2"
    Mutation("the status limit per order, not per month", "wdg/engine/kingdom_orders.py",
             'lo = max(rules.int("economy", "diplomacy", "min"), start[other] - step_max)',
             'lo = max(rules.int("economy", "diplomacy", "min"), k.diplomacy[other] - step_max)',
             KINGDOM),
    # "Die Siedlung" (c): 1.000 GS per Baueinheit, x2 / x3 by terrain
    Mutation("a settlement costs the same in every terrain", "wdg/engine/kingdom_orders.py",
             'price = order.units * rules.int("economy", "settlement", "unit_price") * factor',
             'price = order.units * rules.int("economy", "settlement", "unit_price")', KINGDOM),
    # economy.yaml buildings.max_level: no level beyond the cap
    Mutation("a building enlarged past its cap", "wdg/engine/kingdom_orders.py",
             "if seg.building_level(h, b) + pending >= cap:",
             "if seg.building_level(h, b) + pending > cap:", KINGDOM),
    # "(F+) ... in allen Gemarken des Königreiches": the gold per point is per gemark
    Mutation("a festival's price ignores the kingdom's size", "wdg/engine/kingdom_orders.py",
             'per = rules.int("economy", "festival", "gold_per_point_per_gemark") * max(1, gemarks)',
             'per = rules.int("economy", "festival", "gold_per_point_per_gemark")', KINGDOM),

    # --- army orders: "Das Militär" (d), (h), "Das Schiff", (m)
    # (d) "ein Reiter wie 2 Milizionäre": the militia falls by the Rüstvolumen used
    Mutation("a rider costs one militiaman", "wdg/engine/army_orders.py",
             "seg.militia[r, c] -= n * per",
             "seg.militia[r, c] -= n", ARMY),
    # (d) "doch nur so lange, wie das Rüstvolumen dieser Siedlung noch nicht ausgeschöpft ist"
    Mutation("recruiting beyond the Rüstvolumen", "wdg/engine/army_orders.py",
             "n = min(order.count, recruit_volume(int(seg.militia[r, c]), troop, rules))",
             "n = order.count", ARMY),
    # "Rüsten mehrere Heere in einem Mond in derselben Siedlung, so geschieht die
    # Rüstung in der Reihenfolge der aufsteigenden Heeresnumerierung"
    Mutation("Phase A in descending army number", "wdg/engine/army_orders.py",
             "    for number in sorted(blocks):\n",
             "    for number in sorted(blocks, reverse=True):\n", ARMY),
    # "Das Boot": "Jedes Kriegerheer, das sich in einer Küstengemark der
    # Geländearten Wald, Regenwald oder Sumpf aufhält, kann primitive Boote bauen"
    Mutation("boats built in a wood that is no Küstengemark", "wdg/engine/army_orders.py",
             "if not (woods and bool(coastal_mask(seg.terrain)[r, c])):",
             "if not woods:", (*ARMY, "tests/engine/test_transport.py")),
    # "Ein Schiff hat eine Tragkraft von 100 Raumfaktoren": 100 fit
    Mutation("a fleet carries one Raumfaktor less", "wdg/engine/army_orders.py",
             "if _space(m, army) > capacity:",
             "if _space(m, army) >= capacity:", ARMY),
    # (m) "nicht möglich, in demselben Mond ein Landheer von einer Flotte
    # auszuschiffen und ein anderes Landheer auf dieselbe Flotte einzuschiffen"
    Mutation("a fleet unloads and loads in one month", "wdg/engine/army_orders.py",
             "if fleet.carrying is not None or fleet.number in notes(m).disembarked:",
             "if fleet.carrying is not None:", ARMY),
    # (h) "Der Raumfaktor eines Reiters ist 2"
    Mutation("a rider takes one Raumfaktor", "worlds/rules/economy.yaml",
             '  Krieger: 1\n  Reiter: 2\n  # "Das Schiff"',
             '  Krieger: 1\n  Reiter: 1\n  # "Das Schiff"', ARMY),

    # --- recon: "Die Erkundung der Heere"
    # "Bei Heeren, die aus weniger als 1.000 Kriegern ... bestehen"
    Mutation("1.000 Krieger count as a small army", "wdg/engine/recon.py",
             'if army.units < rules.int(AREA, "small_army", kind):',
             'if army.units <= rules.int(AREA, "small_army", kind):', RECON),
    # (b) the 1-GF-Bereich: "geschätzte Angaben über fremde Heere"
    Mutation("scouts report exact numbers", "wdg/engine/recon.py",
             'exact=False, source="aufklaerer")',
             'exact=True, source="aufklaerer")', RECON),
    # (c) the 2-GF-Bereich: "Angaben über die Geländearten" only
    Mutation("the 2-GF ring shows settlements", "wdg/engine/recon.py",
             "            if radius == 1:",
             "            if radius <= 2:", RECON),

    # --- morale: "Erfahrung des Feldherren", "Die Heeresmoral"
    Mutation("the general's factor reads the morale", "wdg/engine/morale.py",
             '+ max(0, min(100, experience or 0)) / 100 * float(sec["experience_weight"])',
             '+ max(0, min(100, morale)) / 100 * float(sec["experience_weight"])', MORALE),

    # "Eine niedrige Moral kann aber auch ... Desertionen zur Folge haben":
    # morale.yaml, the chance grows from 0 at ``below`` to ``max_chance`` at 0
    Mutation("the desertion chance scaled by 100, not by the threshold", "wdg/engine/morale.py",
             'return rules.num(AREA, "desertion", "max_chance") * (below - max(0, morale)) / below',
             'return rules.num(AREA, "desertion", "max_chance") * (below - max(0, morale)) / 100',
             (*MORALE, "tests/engine/test_economy_pay.py")),
    # "Zu einem Königreich, das neu in die Liste ... aufgenommen wird, besteht
    # immer ein Diplomatiestatus von '5' (neutral)"
    Mutation("a new contact starts at status 4", "worlds/rules/diplomacy.yaml",
             "initial_status: 5", "initial_status: 4", DIPLOMACY),

    # --- militia: "Die Miliz", "Die Eroberung"
    # the own militia does not fight its own kingdom's army
    Mutation("partisans fight their own kingdom", "wdg/engine/militia.py",
             "if militia <= 0 or seg.at(seg.owner, at) == army.kingdom:",
             "if militia <= 0:", MILITIA),
    # "Eingeborene Einwohner einer Gemark mit schwierigem Gelände kämpfen hier
    # meist mit erheblichen Vorteilen" ("Schwieriges Gelände")
    Mutation("natives strong outside difficult terrain", "wdg/engine/militia.py",
             '    if is_difficult(terrain(seg.at(seg.terrain, at))):\n'
             '        s *= m.rules.num(AREA, "natives_difficult_bonus")',
             '    if not is_difficult(terrain(seg.at(seg.terrain, at))):\n'
             '        s *= m.rules.num(AREA, "natives_difficult_bonus")', MILITIA),

    # --- creatures: "Der Zauberer" (a), "Die Fabelwesen"
    # "Die Fabelwesen bleiben jedoch nur so lange zahm, wie sich der Zauberer bei ihnen aufhält"
    Mutation("a creature stays tame when its wizard leaves", "wdg/engine/creatures.py",
             "or not w.general.wizard or w.position != cr.position:",
             "or not w.general.wizard:", CREATURES),
    # "Jedes Heer kann in jedem Mond nur 1 Kampf austragen"
    Mutation("a creature attacks an army that fought", "wdg/engine/creatures.py",
             "here = [a for a in index.get(cr.position, []) if a.number not in m.fought",
             "here = [a for a in index.get(cr.position, []) if a.number >= 0", CREATURES),

    # --- the combat table and the minimum of soldiers (issue #44's outside review:
    # these survived while tests/engine/test_combat.py compared strengths with "<")
    # "die Art ... der Bauwerke": fortification at most combat.yaml fortification_cap
    Mutation("fortification without its cap", "wdg/engine/combat.py",
             'return f * (1 + min(fort, num(m, "fortification_cap")))',
             "return f * (1 + fort)", (*COMBAT, "tests/engine/test_combat_numbers.py")),
    # docs/rules.md "Combat" 3: the levels of Kaserne and Palast fortify
    Mutation("a Palast does not fortify", "wdg/engine/combat.py",
             "levels = seg.building_level(at, Building.KASERNE) + "
             "seg.building_level(at, Building.PALAST)",
             "levels = seg.building_level(at, Building.KASERNE)",
             (*COMBAT, "tests/engine/test_combat_numbers.py")),
    # docs/rules.md "Combat" 4: sA^k / (sA^k + sB^k), k = combat.yaml sharpness
    Mutation("the winning chance ignores sharpness", "wdg/engine/combat.py",
             'k = num(m, "sharpness")', "k = 1.0",
             (*COMBAT, "tests/engine/test_combat_numbers.py")),
    # "Das Heer": "zu keinen besonderen Aktionen fähig" without soldiers; e o x bb
    # need at least actions.minimum_soldiers ("Armies without soldiers")
    Mutation("the minimum of soldiers is not enough", "wdg/engine/movement.py",
             "if army.units >= need:", "if army.units > need:",
             ("tests/rules/test_heer.py", "tests/engine/test_movement.py")),
)
