"""The state of a segment: plain data, no behaviour.

Records are ``@dataclass(slots=True)``; the dense per-gemark layers are numpy
arrays of shape ``grid.shape`` (``[row, col]`` in odd-r offset layout). The
engine modules are functions over this state (ARCHITECTURE.md, "State and
storage"); :mod:`wdg.store.segment` loads and saves it.

Rule references: "Das Königreich", "Der Reichsschatz", "Die Siedlung",
"Die Bauwerke", "Das Heer", "Der Feldherr", "Die Fabelwesen",
"Der Diplomatiestatus", "Die Kontakte zwischen Herrschern".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import TypedDict

import numpy as np

from wdg.world.address import Grid
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Hex


class TroopType(Enum):
    """"Truppengattung", set by the army's general."""

    KRIEGER = "Krieger"
    REITER = "Reiter"
    SCHIFFE = "Schiffe"

    @property
    def is_fleet(self) -> bool:
        """True for ship armies ("Flotten")."""
        return self is TroopType.SCHIFFE


class MoverKind(StrEnum):
    """How an army moves ("Die Bewegung"): its troop type, or warriors in boats
    ("Das Boot"). The values are the keys of ``movement.yaml`` (``costs``,
    ``landing``) and ``recon.yaml``; programs compare members."""

    KRIEGER = "krieger"
    REITER = "reiter"
    BOOTE = "boote"
    SCHIFFE = "schiffe"


class Building(Enum):
    """"Die Bauwerke". The value is the letter of the build/destroy codes
    (``BH``/``x H`` = Hafen ...)."""

    HAFEN = "H"
    KASERNE = "K"
    PALAST = "Q"
    MINE = "M"

    @property
    def german(self) -> str:
        """The building's German name."""
        return {"H": "Hafen", "K": "Kaserne", "Q": "Palast", "M": "Mine"}[self.value]

    @property
    def only_in_settlement(self) -> bool:
        """Kaserne, Hafen and Palast: "Bau nur in Siedlungen möglich"."""
        return self is not Building.MINE


BUILDING_ORDER: tuple[Building, ...] = (Building.HAFEN, Building.KASERNE, Building.PALAST,
                                        Building.MINE)
"""The order of the building layers in :attr:`Segment.buildings`."""


class Contact(Enum):
    """A player's contact status ("Kontaktstatus")."""

    OPEN = "offen"
    SECRET = "geheim"


@dataclass(slots=True)
class Player:
    """The person behind a kingdom's ruler."""

    name: str
    email: str
    contact: Contact = Contact.OPEN
    password_hash: str = ""
    """``scrypt$<N>$<r>$<p>$<salt hex>$<hash hex>`` (older: ``pbkdf2_sha256$…``;
    see :mod:`wdg.world.passwords`)."""
    address: str = ""
    """The real postal address shared with open players on first contact."""


@dataclass(slots=True)
class General:
    """"Der Feldherr": leads exactly one army and fixes its troop type."""

    name: str
    troop: TroopType
    experience: int = 10
    """"Erfahrungswert", 0..100 (scale: rules file ``generals.yaml``)."""
    ability: str | None = None
    """Code of a special ability ("Spezialfähigkeit"), handed out by the game master."""
    wizard: bool = False
    """"Der Zauberer": a general with magic."""


@dataclass(slots=True)
class GeneralOffer:
    """A general who offered himself to a ruler last month ("Der Feldherr" (a))."""

    general: General
    price: int


class ArmyStatus(Enum):
    """Active at a gemark, passive at 000.00, or placed by ``nh`` this month and
    active from the next ("Ab dem Beginn des folgenden Mondes")."""

    ACTIVE = "aktiv"
    PASSIVE = "passiv"
    ACTIVATING = "aktivierend"


@dataclass(slots=True)
class Army:
    """"Das Heer": identified by its number for the whole game."""

    number: int
    kingdom: int
    status: ArmyStatus = ArmyStatus.PASSIVE
    position: Hex | None = None
    """The gemark of an active (or activating) army; ``None`` = 000.00."""
    general: General | None = None
    units: int = 0
    """Soldiers (Krieger, Reiter) or ships ("Rüstgüter")."""
    morale: int = 50
    """"Heeresmoral", 0..100."""
    durability: int = 100
    """Ships' durability ("Haltbarkeit") in percent; unused for land armies."""
    boats: int = 0
    """Boats a warrior army built (``bb``) and sails in; 0 = not in boats."""
    boat_durability: int = 100
    carried_by: int | None = None
    """Number of the fleet carrying this land army."""
    carrying: int | None = None
    """Number of the land army this fleet carries."""
    items: list[str] = field(default_factory=list)
    """Items the army found (``s`` Suche) or took from creatures; carried along."""

    @property
    def troop(self) -> TroopType | None:
        """The troop type, given by the general (``None`` without a general)."""
        return self.general.troop if self.general else None

    @property
    def is_active(self) -> bool:
        """True for an army that may receive every order this month."""
        return self.status is ArmyStatus.ACTIVE

    @property
    def is_fleet(self) -> bool:
        """True for ship armies."""
        return self.troop is TroopType.SCHIFFE


RULER_TITLES = {
    (False, "nom"): "Herrscher", (True, "nom"): "Herrscherin",
    (False, "gen"): "des Herrschers", (True, "gen"): "der Herrscherin",
    (False, "subject"): "Der Herrscher", (True, "subject"): "Die Herrscherin",
    (False, "dear"): "Sehr geehrter Herrscher", (True, "dear"): "Sehr geehrte Herrscherin",
}
"""The ruler's title by gender and use: as a title ("Herrscherin: …"), in the
genitive with its article ("die Beliebtheit der Herrscherin"), a sentence's
subject with its article ("Die Herrscherin von …") and a mail's salutation."""


def ruler_title(herrscherin: bool, use: str = "nom") -> str:
    """"Herrscher" or "Herrscherin" as ``use`` needs it (:data:`RULER_TITLES`)."""
    return RULER_TITLES[(bool(herrscherin), use)]


@dataclass(slots=True)
class Kingdom:
    """"Das Königreich" (or a city state, "Stadtstaat")."""

    number: int
    name: str
    ruler: str = ""
    herrscherin: bool = False
    """The ruler is a woman: sheets, forms, mails and the Götterbotschaft call
    her "Herrscherin" (:func:`ruler_title`); not set: "Herrscher", as the rule
    text does."""
    player: Player | None = None
    city_state: bool = False
    treasury: int = 0
    """"Reichsschatz" in Goldsterne (GS); never negative."""
    popularity: int = 50
    """The ruler's popularity with the people ("Beliebtheit"), 0..100."""
    diplomacy: dict[int, int] = field(default_factory=dict)
    """"Liste der diplomatischen Beziehungen": kingdom number -> own status 1..9."""
    offer: GeneralOffer | None = None
    """The general offered for next month's ``nf``."""
    retired: bool = False
    bot: str = ""
    """The bot that plays this kingdom (``wdg kingdom set --bot``, docs/bots.md):
    a personality of :mod:`wdg.bots`; empty = a human player."""
    bot_password: str = ""
    """The password the bot writes on its sheets: it is the game master's own
    player, so the game master keeps it (the player record holds its hash)."""


@dataclass(slots=True)
class Creature:
    """"Die Fabelwesen": a creature or horde placed by the game master."""

    id: int
    kind: str
    """Key into the rules file ``creatures.yaml``."""
    position: Hex
    count: int = 1
    tamed_by: int | None = None
    """Number of the wizard's army that tamed it."""
    gold: int = 0
    """Treasure it carries; goes to the victor."""
    items: list[str] = field(default_factory=list)
    name: str = ""


@dataclass(slots=True)
class Treasure:
    """Treasure or an item the game master placed ("Schätze oder Gegenstände")."""

    id: int
    position: Hex
    gold: int = 0
    item: str = ""
    note: str = ""


@dataclass(slots=True)
class Deposit:
    """A "Bodenschatz" in the ground of a gemark ("Die Bauwerke": a Mine is for
    "die Ausbeutung eines bereits bekannten Bodenschatzes"): placed by the
    generator by terrain (``worlds/rules/deposits.yaml``), unknown until an army
    finds it with ``s`` (Suche)."""

    position: Hex
    kind: str
    """Key into ``deposits.yaml`` ``kinds`` (Salz, Eisen, Kupfer, Silber, Gold, Edelsteine)."""
    known_by: list[int] = field(default_factory=list)
    """Kingdoms that found it (ascending); a mine yields for its owner only if
    the owner is among them."""


class ProjectKind(Enum):
    """What a construction project builds."""

    SETTLEMENT = "Siedlung"
    HAFEN = "Hafen"
    KASERNE = "Kaserne"
    PALAST = "Palast"
    MINE = "Mine"

    @property
    def building(self) -> Building | None:
        """The building, or ``None`` for a settlement."""
        return None if self is ProjectKind.SETTLEMENT else Building[self.name]


@dataclass(slots=True)
class Construction:
    """A project under construction, paid in full at its start.

    Settlements: ``remaining`` Baueinheiten, up to 50 finished per month
    ("Die Siedlung" (e)). Buildings: one month ("Die Bauwerke" (b)).
    """

    kingdom: int
    position: Hex
    kind: ProjectKind
    remaining: int
    started: MonthDate


@dataclass(slots=True)
class Settings:
    """Per-segment settings a game master may change."""

    deadline_hour: int = 13
    """"EINTREFFSCHLUSS ... bis 13:00 Uhr": the hour when a deadline names only a day."""
    deadline: str = ""
    """The real date and time (``YYYY-MM-DD HH:MM``, :attr:`timezone`) by which the
    sheets of the month :attr:`deadline_month` must arrive; empty = not set."""
    deadline_month: str = ""
    """The month (``YYYY-MM``) whose sheets :attr:`deadline` is for."""
    timezone: str = "Europe/Berlin"
    """The game master's time zone (deadlines, mail dates)."""
    default_contact: Contact = Contact.OPEN
    retire_to: str = "stadtstaat"
    """What a retired kingdom becomes: ``stadtstaat`` or ``neutral``."""
    missing_sheet_share: float = 0.5
    """``wdg turn run`` asks for ``--force`` when more kingdoms than this share sent nothing."""
    season_event: str = ""
    """A special event of the season set by the game master."""


@dataclass(slots=True)
class KnownMap:
    """What one kingdom knows of the map ("Erkundungskarte").

    ``seen`` holds for every gemark the ordinal of the month it was last seen
    (:attr:`MonthDate.ordinal`, 0 = never); ``terrain`` the terrain id as last
    seen (255 = unknown). Terrain once seen stays known.
    """

    seen: np.ndarray
    terrain: np.ndarray
    owner: np.ndarray
    """int16 owner as last seen; -1 = unknown."""
    settlement: np.ndarray
    """int32 settlement size as last seen; -1 = unknown."""


UNKNOWN_TERRAIN = 255


@dataclass(slots=True)
class Segment:
    """A whole segment: map layers, kingdoms, armies, creatures, projects."""

    name: str
    title: str
    seed: int
    """The campaign seed; with year and month it seeds each month's generator."""
    date: MonthDate
    """The month to be resolved next."""
    grid: Grid
    terrain: np.ndarray
    """uint8 terrain ids (:data:`wdg.world.terrain.TERRAINS`)."""
    owner: np.ndarray
    """int16 kingdom number owning each gemark; 0 = neutral."""
    militia: np.ndarray
    """int32 militia per gemark ("Die Miliz")."""
    settlement: np.ndarray
    """int32 settlement size in Baueinheiten; 0 = no settlement."""
    buildings: np.ndarray
    """uint8 levels, shape ``(4, rows, cols)`` in :data:`BUILDING_ORDER`; 0 = none."""
    settlement_names: dict[Hex, str] = field(default_factory=dict)
    kingdoms: dict[int, Kingdom] = field(default_factory=dict)
    armies: dict[int, Army] = field(default_factory=dict)
    creatures: dict[int, Creature] = field(default_factory=dict)
    treasures: dict[int, Treasure] = field(default_factory=dict)
    constructions: list[Construction] = field(default_factory=list)
    known: dict[int, KnownMap] = field(default_factory=dict)
    settings: Settings = field(default_factory=Settings)
    deposits: dict[Hex, Deposit] | None = field(default_factory=dict)
    """"Bodenschätze" by gemark; ``None`` for a segment saved before deposits
    existed (its world.yaml has no ``deposits`` key): its mines keep the old
    reading until ``wdg segment upgrade`` places deposits (docs/rules.md)."""
    damage: dict[Hex, int] = field(default_factory=dict)
    """Baueinheiten of a settlement destroyed by ``x`` and not yet repaired
    (``h`` repairs them: "indem es z.B. Beschädigungen repariert")."""

    # -- small read helpers (no behaviour beyond lookups) ---------------------

    def at(self, layer: np.ndarray, h: Hex) -> int:
        """The value of a dense layer at a hex."""
        row, col = self.grid.index(h)
        return int(layer[row, col])

    def building_level(self, h: Hex, b: Building) -> int:
        """The level of building ``b`` at ``h`` (0 = none)."""
        row, col = self.grid.index(h)
        return int(self.buildings[BUILDING_ORDER.index(b), row, col])

    def label(self, h: Hex | None) -> str:
        """The printed address of a hex (``000.00`` for ``None``)."""
        return "000.00" if h is None else self.grid.label(h)


class Layers(TypedDict):
    """The dense layers of a :class:`Segment` (keyword arguments of its constructor)."""

    terrain: np.ndarray
    owner: np.ndarray
    militia: np.ndarray
    settlement: np.ndarray
    buildings: np.ndarray


def empty_layers(grid: Grid) -> Layers:
    """Zeroed dense layers of the right shapes and dtypes for a grid."""
    shape = grid.shape
    return {
        "terrain": np.zeros(shape, dtype=np.uint8),
        "owner": np.zeros(shape, dtype=np.int16),
        "militia": np.zeros(shape, dtype=np.int32),
        "settlement": np.zeros(shape, dtype=np.int32),
        "buildings": np.zeros((len(BUILDING_ORDER), *shape), dtype=np.uint8),
    }


def new_known_map(grid: Grid) -> KnownMap:
    """A known map that knows nothing."""
    return KnownMap(
        seen=np.zeros(grid.shape, dtype=np.int32),
        terrain=np.full(grid.shape, UNKNOWN_TERRAIN, dtype=np.uint8),
        owner=np.full(grid.shape, -1, dtype=np.int16),
        settlement=np.full(grid.shape, -1, dtype=np.int32),
    )
