"""wdg — the turn processor for the play-by-mail game *Welt der Götter*.

The package is a library first (``wdg.world``, ``wdg.orders``, ``wdg.engine``,
``wdg.reports``, ``wdg.games``) and a command line last (``wdg.cli``).
"""

__version__ = "0.3.0"
"""The release number: bumped by every release (docs/turns.md, "Releases"), never
between releases; the commit and dirty flag come from wdg.provenance.build_info."""
