"""A human player at the terminal (``--bots human,...``).

At each of his decisions the player sees, in German: what happened since
his last one (every action as it looks to him: cards drawn by others and
cards chosen face down stay hidden; the end of every turn is said), the
position once as he sees it (:meth:`State.human_view`), what is left of
his turn and the points he may know (:meth:`State.turn_status`), and the
legal actions grouped by kind, then target (:func:`group_actions`): first
he picks a kind from a short list, then a target from another (``0`` goes
back). ``q`` abandons the game. Input comes from standard input, so a test
(or a script) can drive a game through it.

A decision with a single legal action is taken without asking, said in one
line (``Einzige Möglichkeit, ohne Nachfrage ausgeführt: ...``). The first
list's numbers are stable (:func:`stable_numbers`): an entry offered again
keeps the number it had, as long as the list is long enough, and new
entries take the free numbers — an option does not move because another
one appears.
"""

from __future__ import annotations

import sys
from typing import TextIO, TypeGuard

import numpy as np

from wdg.games.base import Band, CHANCE, GameAbandoned, Num, State, load_game
from wdg.games.bots import get_bot

FLAT_LIMIT = 8
"""Up to this many legal actions are offered as one list (no grouping)."""

LIST_LIMIT = 12
"""The longest list the grouping aims at. Where no grouping into two lists
keeps both this short (Lords of Creation: one new marker and three kept
ones of different kinds on an empty board are 1 + 3 x 91 = 274 actions,
more than 12 x 12), a kind's numbered targets (:class:`Num`: hexes, points,
counters, slots) are asked for by their number instead of a list."""

Group = tuple[str, list[tuple[str, int]]]
"""A menu entry: its label and its members (label, index into the actions)."""


def _member_label(rest: tuple[str, ...]) -> str:
    """The label of a target in the second list: the rest of its path
    without the labels that only group (:class:`Band`); a single numbered
    target stays a :class:`Num`."""
    parts = [x for x in rest if not isinstance(x, Band)]
    if len(parts) == 1:
        return parts[0]
    return " ".join(parts)


def _build(paths: list[tuple[str, ...]], depth: dict[str, int],
           numbered: frozenset[str] = frozenset()) -> list[Group]:
    out: dict[tuple[str, ...], list[tuple[str, int]]] = {}
    for i, p in enumerate(paths):
        if p[0] in numbered:
            key = tuple(x for x in p[:-1] if not isinstance(x, Band))
            out.setdefault(key, []).append((p[-1], i))
            continue
        d = depth[p[0]]
        out.setdefault(p[:d], []).append((_member_label(p[d:]), i))
    return [(" ".join(k), v) for k, v in out.items()]


def number_entry(members: list[tuple[str, int]]) -> TypeGuard[list[tuple[Num, int]]]:
    """Whether a second list is asked for by number: more than
    :data:`LIST_LIMIT` targets, all numbered, each number once."""
    if len(members) <= LIST_LIMIT:
        return False
    nums = [m for m, _ in members if isinstance(m, Num)]
    return len(nums) == len(members) and len({m.number for m in nums}) == len(members)


def _cost(groups: list[Group], typed: bool = False) -> tuple[int, int]:
    """The longer of the two lists, then the sum of both; with ``typed`` a
    number entry counts as short."""
    second = max((len(m) for _, m in groups if not (typed and number_entry(m))), default=1)
    return max(len(groups), second), len(groups) + second


def group_actions(paths: list[tuple[str, ...]]) -> list[Group]:
    """Group actions by their label paths (:meth:`State.action_path`) into a
    two-level menu: an entry of the first list is a prefix of the paths (the
    kind, or the kind and a coarse target), its members the actions with
    that prefix, labelled by the rest of their path. Every kind starts with
    its first label as the prefix; a kind is split one label deeper while
    that makes the longer of the two lists shorter. Where a list stays
    longer than :data:`LIST_LIMIT`, the kinds whose targets are numbered
    are grouped by kind alone and their targets asked for by number
    (:func:`number_entry`), or each kind's targets are packed into entries
    of at most :data:`LIST_LIMIT` actions (:func:`_packed`) — whichever
    makes the longer list shortest. Up to :data:`FLAT_LIMIT` actions form
    one list of single entries."""
    if len(paths) <= FLAT_LIMIT:
        return [(" ".join(x for x in p if not isinstance(x, Band)), [("", i)])
                for i, p in enumerate(paths)]
    kinds = sorted({p[0] for p in paths}, key=[p[0] for p in paths].index)
    depth = dict.fromkeys(kinds, 1)
    groups = _build(paths, depth)
    best = _cost(groups)
    while True:
        trials = []
        deeper = [k for k in kinds if any(len(p) > depth[k] for p in paths if p[0] == k)]
        longest = max(len(m) for _, m in groups)
        widest = [k for k in deeper if any(len(m) == longest and paths[m[0][1]][0] == k
                                           for _, m in groups)]
        for ks in [[k] for k in deeper] + [widest]:
            if ks:
                trial = {**depth, **{k: depth[k] + 1 for k in ks}}
                trials.append((_cost(_build(paths, trial)), ks, trial))
        if not trials:
            break
        c, _, trial = min(trials, key=lambda t: t[0])
        if c >= best:
            break
        best, depth = c, trial
        groups = _build(paths, depth)
    if best[0] > LIST_LIMIT:
        numbered = frozenset(k for k in kinds if all(
            len(p) > 1 and isinstance(p[-1], Num) for p in paths if p[0] == k))
        options = [(best, groups)]
        if numbered:
            typed = _build(paths, depth, numbered)
            options.append((_cost(typed, typed=True), typed))
        for num in ({frozenset(), numbered} if numbered else {frozenset()}):
            packed = _packed(paths, kinds, num)
            options.append((_cost(packed, typed=True), packed))
        best, groups = min(options, key=lambda o: o[0])
    return groups


def _packed(paths: list[tuple[str, ...]], kinds: list[str], numbered: frozenset[str]) -> list[Group]:
    """The fallback grouping where the tree of labels has no two short
    lists: each kind's targets (its paths' second labels, in order) packed
    into entries of at most :data:`LIST_LIMIT` actions — several small
    targets together (``Plättchen 29 (Hand 1) legen an B1 bis an C4``), a
    large one in parts (``..., Teil 1 von 2``); kinds in ``numbered`` keep
    their number entry."""
    out: list[Group] = []
    typed = [g for g in _build(paths, dict.fromkeys(kinds, 1), numbered)] if numbered else []
    for kind in kinds:
        if kind in numbered:
            out += [g for g in typed if paths[g[1][0][1]][0] == kind]
            continue
        subs: dict[tuple[str, ...], list[int]] = {}
        for i, p in enumerate(paths):
            if p[0] == kind:
                subs.setdefault(p[:2], []).append(i)
        chunk: list[tuple[str, ...]] = []

        def flush(kind: str = kind, chunk: list[tuple[str, ...]] = chunk,
                  subs: dict[tuple[str, ...], list[int]] = subs, out: list[Group] = out) -> None:
            if not chunk:
                return
            if len(chunk) == len(subs):  # the whole kind in one entry
                out.append((kind, [(_member_label(paths[i][1:]), i) for sk in chunk for i in subs[sk]]))
            elif len(chunk) == 1:
                sk = chunk[0]
                out.append((" ".join(x for x in sk if not isinstance(x, Band)),
                            [(_member_label(paths[i][2:]), i) for i in subs[sk]]))
            else:
                out.append((f"{kind} {chunk[0][1]} bis {chunk[-1][1]}",
                            [(_member_label(paths[i][1:]), i) for sk in chunk for i in subs[sk]]))
            chunk.clear()

        for sk, members in subs.items():
            if len(members) > LIST_LIMIT:
                flush()
                parts = -(-len(members) // LIST_LIMIT)
                size = -(-len(members) // parts)
                label = " ".join(x for x in sk if not isinstance(x, Band))
                for j in range(parts):
                    out.append((f"{label}, Teil {j + 1} von {parts}",
                                [(_member_label(paths[i][2:]), i) for i in members[j * size:(j + 1) * size]]))
            elif sum(len(subs[x]) for x in chunk) + len(members) <= LIST_LIMIT:
                chunk.append(sk)
            else:
                flush()
                chunk.append(sk)
        flush()
    return out


def stable_numbers(labels: list[str], known: dict[str, int]) -> list[int]:
    """The numbers of a menu's entries ``labels``: each keeps its number
    from ``known`` (the label's number when it was last offered) if that
    number is at most the menu's length and not taken by an earlier entry;
    the others take the free numbers from 1 up, in menu order. So the
    numbers are always 1..len(labels) and an entry offered again keeps its
    number unless the menu has become too short for it. ``known`` is
    updated."""
    k = len(labels)
    out = [0] * k
    taken: set[int] = set()
    for i, label in enumerate(labels):
        n = known.get(label, 0)
        if 1 <= n <= k and n not in taken:
            out[i] = n
            taken.add(n)
    free = (n for n in range(1, k + 1) if n not in taken)
    for i, label in enumerate(labels):
        if not out[i]:
            out[i] = next(free)
        known[label] = out[i]
    return out


def number_ranges(numbers: list[int]) -> str:
    """Sorted numbers as ranges: ``0-5, 7, 9-90``."""
    out: list[str] = []
    start: int | None = None
    prev: int | None = None
    for x in [*numbers, None]:
        if start is not None and prev is not None and (x is None or x != prev + 1):
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = None
        if x is not None and start is None:
            start = x
        prev = x
    return ", ".join(out)


def menu_shape(state: State) -> tuple[int, int, int]:
    """The menu a human choosing now would see: the length of the first
    list, of the longest second list shown as a list (0 where every entry
    of the first list is a single action) and of the largest set of
    targets asked for by number (0 if none, :func:`number_entry`)."""
    acts = state.legal_actions()
    groups = group_actions([state.action_path(a) for a in acts])
    lists = [len(m) for _, m in groups if not number_entry(m)]
    longest = max(lists, default=0)
    typed = max((len(m) for _, m in groups if number_entry(m)), default=0)
    return len(groups), (longest if longest > 1 else 0), typed


def menu_sizes(state: State) -> tuple[int, int]:
    """The lengths of the two lists a human choosing now would see: the
    first list, and the longest second list shown as a list (0 where every
    entry of the first list is a single action; targets asked for by
    number are not a list, see :func:`menu_shape`)."""
    first, second, _ = menu_shape(state)
    return first, second


def measure_menus(name: str, players: int, seeds: int) -> dict[str, float]:
    """Menu sizes over ``seeds`` seeded games (even seeds random players,
    odd ones greedy): at every decision the flat number of legal actions,
    the first list, the longest second list and the targets asked for by
    number (``python -m wdg.games.human``, the figures of docs/games.md)."""
    from statistics import median

    flat, firsts, seconds, typed = [], [], [], []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        bot = get_bot("greedy" if seed % 2 else "random")
        s = load_game(name, players=players).new_initial_state()
        while not s.is_terminal():
            if s.current_player() == CHANCE:
                s.apply_action(s.sample_chance(rng))
                continue
            f, sec, num = menu_shape(s)
            flat.append(len(s.legal_actions()))
            firsts.append(f)
            seconds.append(sec)
            typed.append(num)
            s.apply_action(bot(s, rng))
    two = [x for x in seconds if x]
    return {"decisions": len(flat), "flat_median": median(flat), "flat_max": max(flat),
            "first_median": median(firsts), "first_max": max(firsts),
            "second_share": len(two) / len(flat), "second_median": median(two) if two else 0,
            "second_max": max(seconds), "number_share": sum(1 for x in typed if x) / len(flat),
            "number_max": max(typed)}


class HumanPlayer:
    """A seat played by a person through standard input and output."""

    def __init__(self, inp: TextIO | None = None, out: TextIO | None = None) -> None:
        self._inp = inp
        self._out = out
        self.seat = -1
        """Set by the game loop before the first action."""
        self.news: list[str] = []
        self.numbers: dict[str, int] = {}
        """The number each entry of the first list had when last offered
        (:func:`stable_numbers`)."""

    @property
    def inp(self) -> TextIO:
        return self._inp or sys.stdin

    @property
    def out(self) -> TextIO:
        return self._out or sys.stdout

    def inform(self, state: State, player: int, action: int) -> None:
        """Remember ``action`` (about to be applied) as this seat sees it,
        and the end of a turn if it ends one (said at once when it is his)."""
        who = "Zufall" if player == CHANCE else f"Spieler {player}" + (
            " (du)" if player == self.seat else "")
        self.news.append(f"  {who}: {state.human_action_string(action, self.seat)}")
        owner = state.turn_owner()
        if owner < 0:
            return
        after = state.clone()
        after.apply_action(action)
        if after.turn_owner() != owner or after.is_terminal():
            if owner == self.seat:
                self.out.write("--- Dein Zug ist beendet. ---\n")
            self.news.append(f"  --- Zug von Spieler {owner} beendet ---")

    def _line(self, seat: int) -> str:
        """The next answer; ``q`` or the end of the input abandons the game."""
        self.out.flush()
        line = self.inp.readline()
        if not line:
            raise GameAbandoned(f"Spieler {seat}: die Eingabe endete vor dem Ende des Spiels",
                                quit=False)
        text = line.strip()
        if text.lower() in ("q", "quit"):
            raise GameAbandoned(f"Spieler {seat} hat das Spiel abgebrochen", quit=True)
        return text

    def _ask(self, seat: int, count: int, back: bool) -> int | None:
        """A number 1..count from the input (None: back to the first list)."""
        w = self.out.write
        while True:
            extra = ", 0 zurück" if back else ""
            w(f"Deine Wahl [1-{count}{extra}, q beendet das Spiel]: ")
            text = self._line(seat)
            if back and text == "0":
                return None
            if text.isdigit() and 1 <= int(text) <= count:
                return int(text)
            w(f"Bitte eine Zahl von 1 bis {count} eingeben (nicht {text!r}).\n")

    def _ask_number(self, seat: int, label: str, members: list[tuple[Num, int]]) -> int | None:
        """A target typed by its number (:func:`number_entry`): the index of
        the chosen member, None for back to the first list."""
        w = self.out.write
        by_number = {m.number: i for m, i in members}
        allowed = number_ranges(sorted(by_number))
        unit = members[0][0].unit
        while True:
            w(f"{label}: {unit} eingeben (möglich: {allowed}; z zurück, "
              f"q beendet das Spiel): ")
            text = self._line(seat)
            if text.lower() == "z":
                return None
            if text.isdigit() and int(text) in by_number:
                return by_number[int(text)]
            w(f"{text!r} ist hier nicht möglich; möglich: {allowed}.\n")

    def __call__(self, state: State, rng: np.random.Generator) -> int:
        seat = state.current_player()
        self.seat = seat
        acts = state.legal_actions()
        w = self.out.write
        if len(acts) == 1:  # nothing to choose: said in one line, not asked
            w(f"Spieler {seat}: einzige Möglichkeit, ohne Nachfrage ausgeführt: "
              f"{state.human_action_string(acts[0], seat)}\n")
            return acts[0]
        w(f"\n=== Spieler {seat} ist am Zug ===\n")
        if self.news:
            w("Seit deiner letzten Entscheidung:\n")
            if len(self.news) > 40:
                w(f"  ({len(self.news) - 40} frühere Aktionen nicht gezeigt)\n")
            w("\n".join(self.news[-40:]) + "\n")
            self.news = []
        w(state.human_view(seat) + "\n")
        for line in state.turn_status(seat):
            w(line + "\n")
        grouped = group_actions([state.action_path(a) for a in acts])
        numbers = stable_numbers([label for label, _ in grouped], self.numbers)
        groups = [g for _, g in sorted(zip(numbers, grouped), key=lambda x: x[0])]
        while True:
            w("Deine Möglichkeiten:\n")
            for i, (label, members) in enumerate(groups, 1):
                more = f" ({len(members)})" if len(members) > 1 else ""
                w(f"  {i:>3}) {label}{more}\n")
            pick = self._ask(seat, len(groups), back=False)
            assert pick is not None
            label, members = groups[pick - 1]
            if len(members) == 1:
                return acts[members[0][1]]
            if number_entry(members):
                index = self._ask_number(seat, label, members)
                if index is not None:
                    return acts[index]
                continue
            w(f"{label}:\n")
            for i, (sub, _) in enumerate(members, 1):
                w(f"  {i:>3}) {sub}\n")
            sub_pick = self._ask(seat, len(members), back=True)
            if sub_pick is not None:
                return acts[members[sub_pick - 1][1]]


def main(argv: list[str] | None = None) -> None:
    """``python -m wdg.games.human``: the menu sizes behind docs/games.md."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m wdg.games.human",
        description="Measure the menus a human player sees (wdg games play --bots human,...): at "
        "every decision of seeded games (even seeds random players, odd seeds greedy) the flat "
        "number of legal actions, the first list, the longest second list and the targets asked "
        "for by number. Prints one line per game and player count (the table of docs/games.md).")
    parser.add_argument("--games", nargs="*", default=["lords_of_creation", "four_gods",
                                                       "empires_of_middle_earth"],
                        help="games to measure (default: all three)")
    parser.add_argument("--players", nargs="*", type=int, default=[2, 4],
                        help="player counts (default: 2 4)")
    parser.add_argument("--seeds", type=int, default=20, help="games per game and player count (default 20)")
    args = parser.parse_args(argv)
    for game_name in args.games:
        for n in args.players:
            print(game_name, n, measure_menus(game_name, n, args.seeds))


if __name__ == "__main__":  # pragma: no cover - the measurement behind docs/games.md
    main()
