"""The month: one module per concern, run in the fixed order of ARCHITECTURE.md.

Modules register their steps with :func:`wdg.engine.month.step`; the turn
runner imports every module listed in :data:`ENGINE_MODULES` and runs the
registered steps sorted by their order number. The engine never imports
typer, jinja2 or weasyprint and never touches files.
"""

ENGINE_MODULES = (
    "gamemaster",   # 15: the game master's sheet
    "economy",      # 10 pay/upkeep, 80+ end of month
    "kingdom_orders",  # 20
    "army_orders",  # 30: Phase A
    "movement",     # 40: Phase B movement and transport
    "actions",      # 45: Phase B orders that do not fight
    "militia",      # partisan fights, militia growth
    "combat",       # 50
    "conquest",     # 60
    "creatures",
    "wizards",
    "diplomacy",
    "recon",        # 70: Phase E
)
