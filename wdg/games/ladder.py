"""A bot ladder: head-to-head batches between bots listed from the weakest
to the strongest, each with seats rotated from game to game.

``bots = [b0, b1, b2, ...]`` gives the pairings ``b1 vs b0``, ``b2 vs b1``,
... (every bot against the one below it) and, for every bot from ``b3`` on,
``bk vs b1`` (every stronger bot against the second, the reference: greedy
in ``random,greedy,mcts:30,mcts:100``). Pairing ``k`` (from 0, in that
order) is exactly the batch ``wdg games batch GAME --bots UPPER,LOWER
--games G --seed SEED+k`` (the upper bot listed first), so each figure can
be reproduced on its own; its win rates are the bots' mean returns (a
shared win among k counts 1/k) with 95 % Wilson intervals.

With ``paired`` every seed is played once in each seat rotation
(``batch --paired``): the luck of the deal and of the seat (who takes the
last turn) falls on both bots alike, and the interval is the normal 95 %
interval of the mean over the seeds (each seed's share of the wins is one
observation), which takes the pairing into account.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wdg.games.base import GameError, load_game
from wdg.games.batch import run_batch
from wdg.games.stats import mean_ci, wilson


@dataclass(frozen=True, slots=True)
class Pairing:
    """The result of one head-to-head batch of a ladder."""

    upper: str
    lower: str
    seed: int
    games: int
    upper_wins: float
    lower_wins: float
    shared: int
    """Games with more than one winner."""
    per_seed: tuple[float, ...] = ()
    """Paired pairings: per seed the upper bot's share of the wins of its
    games (empty when unpaired)."""

    @property
    def paired(self) -> bool:
        return bool(self.per_seed)

    @property
    def upper_rate(self) -> float:
        return self.upper_wins / self.games

    @property
    def lower_rate(self) -> float:
        return self.lower_wins / self.games

    def upper_ci(self) -> tuple[float, float]:
        """95 % interval of the upper bot's win rate: Wilson over the games,
        or (paired) the normal interval of the mean over the seeds."""
        if self.per_seed:
            lo, hi = mean_ci(list(self.per_seed))["ci95"]
            return max(0.0, lo), min(1.0, hi)
        return wilson(self.upper_wins, self.games)

    def lower_ci(self) -> tuple[float, float]:
        if self.per_seed:
            lo, hi = mean_ci([1.0 - x for x in self.per_seed])["ci95"]
            return max(0.0, lo), min(1.0, hi)
        return wilson(self.lower_wins, self.games)


def pairings(bots: list[str]) -> list[tuple[str, str]]:
    """``(upper, lower)`` pairs of a ladder of ``bots`` (weakest first)."""
    if len(bots) < 2:
        raise GameError(f"eine Leiter braucht mindestens zwei Bots, nicht {bots!r}")
    if len(set(bots)) != len(bots):
        raise GameError(f"eine Leiter nennt jeden Bot einmal, nicht {bots!r}")
    out = [(bots[i + 1], bots[i]) for i in range(len(bots) - 1)]
    out += [(bots[k], bots[1]) for k in range(3, len(bots))]
    return out


def run_ladder(name: str, params: dict[str, Any], bots: list[str], games: int, seed: int,
               jobs: int = 1, progress: Callable[[int], None] | None = None, *,
               scheduler: str | None = None, paired: bool = False) -> list[Pairing]:
    """Play every pairing of the ladder (see :func:`pairings`); pairing ``k``
    uses the seed ``seed + k`` and seats rotated from game to game (with
    ``paired`` each seed in every rotation)."""
    players = int(params.get("players", 2))
    out = []
    for k, (upper, lower) in enumerate(pairings(bots)):
        seats = [(upper, lower)[s % 2] for s in range(players)]
        results = run_batch(name, params, seats, games, seed + k, jobs, True, progress,
                            scheduler=scheduler, paired=paired)
        up = low = 0.0
        shared = 0
        by_seed: dict[int, list[float]] = {}
        for r in results:
            u = sum(x for b, x in zip(r.bots, r.returns) if b == upper)
            up += u
            low += sum(x for b, x in zip(r.bots, r.returns) if b == lower)
            shared += max(r.returns) < 1.0
            by_seed.setdefault(r.seed, []).append(u)
        per_seed = tuple(sum(v) / len(v) for v in by_seed.values()) if paired else ()
        out.append(Pairing(upper, lower, seed + k, games, up, low, shared, per_seed))
    return out


def to_markdown(name: str, params: dict[str, Any], pairs: list[Pairing]) -> str:
    """The ladder as a Markdown table and the commands that reproduce each
    row (``params``: the players and the parameters that differ from the
    game's defaults)."""
    n = params.get("players", 2)
    defaults = load_game(name).default_params()
    extra = "".join(f" --param {k}={_yaml(v)}" for k, v in sorted(params.items())
                    if k != "players" and defaults.get(k) != v)
    paired = any(p.paired for p in pairs)
    lines = ["| pairing | games | seed | first bot wins | 95 % CI | second bot wins | 95 % CI | shared |",
             "|---|---|---|---|---|---|---|---|"]
    for p in pairs:
        (a, b), (c, d) = p.upper_ci(), p.lower_ci()
        lines.append(f"| {p.upper} vs {p.lower} | {p.games} | {p.seed} | {p.upper_rate:.3f} | "
                     f"[{a:.3f}, {b:.3f}] | {p.lower_rate:.3f} | [{c:.3f}, {d:.3f}] | {p.shared} |")
    lines.append("")
    if paired:
        lines.append(f"(paired: each of the {pairs[0].games // n} seeds of a row played in all {n} "
                     f"seat rotations; the 95 % CI is over the seeds' win shares)")
        lines.append("")
    flag = " --paired" if paired else ""
    for p in pairs:
        lines.append(f"    wdg games batch {name} -n {n}{extra} --bots {p.upper},{p.lower} "
                     f"--games {p.games} --seed {p.seed}{flag}")
    return "\n".join(lines)


def _yaml(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
