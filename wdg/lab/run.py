"""A campaign on a copy, played by bots, measured month by month.

:func:`run_campaign` copies a segment (its files only, not its archive) and a
rules directory into a fresh campaign directory, gives every playing kingdom
a bot (the ones the game master handed to a bot keep theirs) and a lab
password, and then runs the months with the ordinary machinery: each bot
writes its sheet from its briefing (:func:`wdg.bots.brief`: the view and the
last month's result sheet) into ``orders/<segment>/<YYYY-MM>/``, ``run_month``
takes them in, resolves and archives the month (without rendering result
sheets), and ``replay_month`` verifies it byte for byte. The real segment is
never opened for writing.

Per kingdom and month :mod:`wdg.lab.metrics` records the treasury, income,
costs, soldiers, gemarks, settlements, battles, conquests, losses by cause,
and the conservation checks of gold and soldiers.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wdg.bots.briefing import brief
from wdg.bots.players import personality, write_sheet
from wdg.campaign import Campaign
from wdg.engine.events import Event
from wdg.engine.turn import replay_month, run_month
from wdg.errors import InvalidInputError, StateError
from wdg.lab.metrics import MonthMetrics, measure, snapshot
from wdg.rules import Rules
from wdg.world.passwords import known_password_hash
from wdg.world.state import Segment
from wdg.store.journal import FILES
from wdg.store.segment import load_segment, save_segment

DEFAULT_BOTS = ("Baumeister", "Eroberer", "Kriegsherr")
# The lab copy's passwords are known (``lab-<k>``) and guard nothing: hashed at
# the low cost of known passwords (wdg.world.passwords.known_password_hash); the
# real segment keeps its own hashes.

Progress = Callable[[int, int, str], None]


@dataclass(slots=True)
class CampaignRun:
    """One campaign: who played whom, and the metrics of every month."""

    label: str
    segment: str
    rules_dir: Path
    directory: Path
    bots: dict[int, str]
    months: list[MonthMetrics] = field(default_factory=list)
    replay_failures: list[str] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)


def assign_bots(seg: Segment, spec: str | None) -> dict[int, str]:
    """Kingdom -> personality. ``spec``: ``Baumeister,Eroberer,...`` (cycled over
    the playing kingdoms in ascending order) or ``1=Baumeister,3=Kriegsherr``;
    kingdoms the game master handed to a bot (``Kingdom.bot``) keep it unless
    named."""
    playing = [n for n in sorted(seg.kingdoms) if not seg.kingdoms[n].city_state
               and not seg.kingdoms[n].retired]
    out: dict[int, str] = {}
    parts = [p.strip() for p in (spec or "").split(",") if p.strip()]
    named = [p for p in parts if "=" in p]
    cycle = [p for p in parts if "=" not in p]
    if named and cycle:
        raise InvalidInputError(f"--bots {spec!r}: entweder eine Liste von Persönlichkeiten oder Paare K=Name")
    for p in named:
        k, _, who = p.partition("=")
        if not k.strip().isdigit() or int(k) not in playing:
            raise InvalidInputError(f"--bots {spec!r}: {k!r} ist kein spielendes Reich "
                                    f"({', '.join(map(str, playing))})")
        out[int(k)] = personality(who).name
    free = [n for n in playing if n not in out and not getattr(seg.kingdoms[n], "bot", "")]
    names = cycle or list(DEFAULT_BOTS)
    for i, n in enumerate(free):
        out[n] = personality(names[i % len(names)]).name
    for n in playing:
        if n not in out:
            out[n] = personality(seg.kingdoms[n].bot).name
    return dict(sorted(out.items()))


def lab_password(k: int) -> str:
    return f"lab-{k}"


def _lab_hash(password: str, k: int) -> str:
    salt = hashlib.sha256(f"wdg-lab-{k}".encode()).digest()[:16]
    return known_password_hash(password, salt)


def prepare(source: Campaign, segment: str, rules_dir: Path, directory: Path,
            bots: dict[int, str], segment_seed: int | None = None) -> Campaign:
    """A fresh campaign in ``directory``: the segment's files and the rules
    (``segment_seed``: the copy's seed, for a sweep over seeds; default: the
    segment's own)."""
    src = source.segment_dir(segment)
    if not (src / "segment.yaml").is_file():
        raise StateError(f"kein Segment {segment!r} in {source.worlds}")
    if not (Path(rules_dir) / "economy.yaml").is_file():
        raise InvalidInputError(f"{rules_dir} ist kein Regelverzeichnis (keine economy.yaml)")
    if directory.exists():
        shutil.rmtree(directory)
    camp = Campaign(directory.resolve())
    dst = camp.segment_dir(segment)
    dst.mkdir(parents=True)
    for name in FILES:
        shutil.copy2(src / name, dst / name)
    shutil.copytree(rules_dir, camp.worlds / "rules")
    seg = load_segment(dst)
    for k, kd in seg.kingdoms.items():
        if k in bots and kd.player is not None:
            kd.player.password_hash = _lab_hash(lab_password(k), k)
    if segment_seed is not None:
        seg.seed = int(segment_seed)
    save_segment(seg, dst)
    return camp


def run_campaign(source: Campaign, segment: str, *, months: int, bots: dict[int, str],
                 directory: Path, rules_dir: Path | None = None, seed: int = 1,
                 label: str = "", replay: bool = True,
                 progress: Progress | None = None,
                 segment_seed: int | None = None) -> CampaignRun:
    """Play ``months`` months on a copy of ``segment`` in ``directory``
    (``segment_seed``: the copy's seed, :func:`prepare`)."""
    if months < 1:
        raise InvalidInputError("--months muß mindestens 1 sein")
    rules_path = Path(rules_dir) if rules_dir is not None else source.rules_dir
    camp = prepare(source, segment, rules_path, directory, bots, segment_seed)
    rules = Rules.load(camp.rules_dir)
    seg = load_segment(camp.segment_dir(segment))
    run = CampaignRun(label or rules_path.name, segment, rules_path, directory, dict(bots),
                      names={k: v.name for k, v in seg.kingdoms.items()})
    events: list[Event] | None = None
    sheets: dict[int, str] = {}
    for i in range(months):
        date = seg.date
        if progress is not None:
            progress(i, months, f"{run.label} {date.short()}")
        orders = camp.orders_dir(segment, date)
        orders.mkdir(parents=True, exist_ok=True)
        for k, who in bots.items():
            kd = seg.kingdoms.get(k)
            if kd is None or kd.retired or kd.city_state or kd.player is None:
                continue
            last = sheets.get(k)
            text = write_sheet(brief(seg, k, events, last), who, rules,
                               password=lab_password(k), seed=seed)
            sheets[k] = text
            (orders / f"k{k}.txt").write_text(text, encoding="utf-8")
        before = snapshot(seg)
        result = run_month(camp, segment, force=True, outputs={})
        seg, events = result.state, list(result.log)
        run.months.append(measure(before, seg, events, date))
        if replay:
            rep = replay_month(camp, segment, date, {})
            if not rep.ok:
                run.replay_failures.append(f"{date.key}: {rep.first_difference}")
    if progress is not None:
        progress(months, months, run.label)
    return run
