"""The reports' settings: ``worlds/rules/reports.yaml`` (the campaign's, else the shipped one).

Which event kinds the Götterbotschaft's chronicle shows, which event data
players never see, the German names of the ledger categories and settlement
sizes, the effects of the diplomacy statuses, the overview's warning level and
the map's page size. Every value is validated on load; a missing or wrong
value is a :class:`~wdg.errors.DataError` naming the file and the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wdg.campaign import PACKAGE_ROOT
from wdg.errors import DataError, MissingKeyError, kind_of
from wdg.rules import safe_load_file

FILE_NAME = "reports.yaml"
_ADDRESS = re.compile(r"[^\s@<>\"'&?#%]{1,64}@[A-Za-z0-9.-]{1,190}")
"""A plain mail address (no name, no spaces; nothing that needs escaping in a URL)."""
SHIPPED = PACKAGE_ROOT / "worlds" / "rules" / FILE_NAME


@dataclass(frozen=True, slots=True)
class ReportSettings:
    """The validated content of ``reports.yaml``."""

    chronicle_include: tuple[str, ...]
    chronicle_exclude: tuple[str, ...]
    hidden_data_keys: frozenset[str]
    ledger_labels: dict[str, str]
    settlement_sizes: tuple[tuple[int, str], ...]
    diplomacy_effects: dict[int, str]
    treasury_warning: int
    militia_rounding: int
    hex_size: float
    page_provinces: tuple[int, int]
    source: str = ""
    all_details: bool = False
    """Show every data key of every event (the game master's overview), not only
    those of :data:`wdg.reports.model.DETAIL_KEYS`."""
    orders_address: str = ""
    """The game master's mail address for order sheets: the HTML sheet's order
    editor offers a ``mailto:`` link to it ('' = none)."""

    def ledger_label(self, category: str) -> str:
        """The German name of a ledger category (the category itself if unnamed)."""
        if not category:
            return "Sonstiges"
        return self.ledger_labels.get(category, category)

    def settlement_name(self, size: int) -> str:
        """"Flecken", "Markt", "Dorf" ... by Baueinheiten."""
        name = self.settlement_sizes[0][1]
        for bound, label in self.settlement_sizes:
            if size >= bound:
                name = label
        return name

    def in_chronicle(self, kind: str, public: bool) -> bool:
        """True if an event of ``kind`` belongs in the Götterbotschaft's chronicle."""
        if any(kind.startswith(p) for p in self.chronicle_exclude):
            return False
        return public or any(kind.startswith(p) for p in self.chronicle_include)


def load_report_settings(rules_dir: Path | None = None) -> ReportSettings:
    """``reports.yaml`` of ``rules_dir`` if it has one, else the shipped file."""
    path = SHIPPED
    if rules_dir is not None and (Path(rules_dir) / FILE_NAME).is_file():
        path = Path(rules_dir) / FILE_NAME
    data = safe_load_file(path)
    return parse_report_settings(data, str(path))


def _need(data: dict[str, Any], key: str, typ: type | tuple[type, ...], path: str,
          what: str) -> Any:
    if key not in data:
        raise MissingKeyError(path, key, "Schlüssel fehlt", what)
    value = data[key]
    if not isinstance(value, typ) or isinstance(value, bool) and typ is not bool:
        raise DataError(path, key, value, what)
    return value


def _strings(value: Any, path: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(path, key, value, "eine Liste von Texten")
    return tuple(value)


def parse_report_settings(data: Any, path: str = FILE_NAME) -> ReportSettings:
    """Validate the plain data of ``reports.yaml``."""
    if not isinstance(data, dict):
        raise DataError(path, None, kind_of(data), "eine Zuordnung (Schlüssel: Wert) auf oberster Ebene")
    chron = _need(data, "chronicle", dict, path, "eine Zuordnung mit include und exclude")
    sizes = _need(data, "settlement_sizes", list, path, "eine Liste von [Baueinheiten, Name]")
    if not sizes or not all(isinstance(s, list) and len(s) == 2 and isinstance(s[0], int)
                            and isinstance(s[1], str) for s in sizes):
        raise DataError(path, "settlement_sizes", sizes, "eine nicht leere Liste von [Baueinheiten, Name]")
    effects = _need(data, "diplomacy_effects", dict, path, "eine Zuordnung Status -> Text")
    if sorted(effects) != list(range(1, 10)) or not all(isinstance(v, str) for v in effects.values()):
        raise DataError(path, "diplomacy_effects", sorted(effects), "Texte für die Status 1..9")
    labels = _need(data, "ledger_labels", dict, path, "eine Zuordnung Kategorie -> deutscher Name")
    mp = _need(data, "map", dict, path, "eine Zuordnung mit hex_size und page_provinces")
    pages = _need(mp, "page_provinces", list, f"{path}: map", "[Spalten, Zeilen]")
    if len(pages) != 2 or not all(isinstance(v, int) and v >= 1 for v in pages):
        raise DataError(path, "map.page_provinces", pages, "[Spalten, Zeilen], beide >= 1")
    hex_size = _need(mp, "hex_size", (int, float), f"{path}: map", "eine Zahl > 0")
    if hex_size <= 0:
        raise DataError(path, "map.hex_size", hex_size, "eine Zahl > 0")
    rounding = _need(data, "militia_rounding", int, path, "eine ganze Zahl >= 1")
    if rounding < 1:
        raise DataError(path, "militia_rounding", rounding, "eine ganze Zahl >= 1")
    address = data.get("orders_address") or ""
    if not isinstance(address, str) or (address and not _ADDRESS.fullmatch(address)):
        raise DataError(path, "orders_address", address, "eine Mailadresse wie sl@example.org oder ''")
    return ReportSettings(
        chronicle_include=_strings(chron.get("include", []), path, "chronicle.include"),
        chronicle_exclude=_strings(chron.get("exclude", []), path, "chronicle.exclude"),
        hidden_data_keys=frozenset(_strings(_need(data, "hidden_data_keys", list, path,
                                                  "eine Liste von Texten"), path, "hidden_data_keys")),
        ledger_labels={str(k): str(v) for k, v in labels.items()},
        settlement_sizes=tuple(sorted((int(b), str(n)) for b, n in sizes)),
        diplomacy_effects={int(k): v for k, v in effects.items()},
        treasury_warning=_need(data, "treasury_warning", int, path, "eine ganze Zahl"),
        militia_rounding=rounding,
        hex_size=float(hex_size),
        page_provinces=(pages[0], pages[1]),
        source=path,
        orders_address=address,
    )
