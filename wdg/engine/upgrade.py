"""``wdg segment upgrade``: bring a campaign made by an older wdg to this version's format.

The segment's format number (``format:`` in ``segment.yaml``,
:data:`wdg.store.segment.FORMAT`) says which wdg wrote it. Every command that
changes a segment refuses one of another format
(:func:`wdg.store.segment.check_live_format`); :func:`upgrade_segment` migrates
an older one step by step and reports every change:

- **rules**: every key this version needs that the campaign's rules
  (``worlds/rules/``) lack is added — with the value that reproduces how the
  old version behaved where that is known (:data:`RULE_KEYS_ADDED`), else with
  the shipped rules' value (said so in the report); a missing rules file is
  copied from the shipped ones. Values the campaign has are never changed.
- **templates**: a campaign's own ``templates/`` that differ from the shipped
  ones are kept or replaced, as the game master chooses (``--templates keep``
  or ``replace``; replace moves the folder aside to ``templates.vor-upgrade-<n>/``,
  nothing is deleted).
- the steps other parts of wdg register (:func:`register_step`): e.g. moving
  old mail records into ``worlds/<segment>/mail/``.
- finally ``format:`` is written (the segment saved with this version's
  commit protocol) and the report appended to ``worlds/<segment>/upgrades.yaml``.

Archived months (``turns/``) are never touched: they keep the format, rules and
templates they were made with, and replay reads them as they are.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wdg import __version__
from wdg.campaign import Campaign, PACKAGE_ROOT, SHIPPED_TEMPLATES
from wdg.engine.deposits import upgrade as place_deposits
from wdg.errors import InvalidInputError, StateError
from wdg.rules import Rules, safe_load_file
from wdg.store.integrity import precheck, tree_size
from wdg.store.journal import FILES
from wdg.store.lock import segment_lock
from wdg.store.segment import FORMAT, format_of, load_segment, save_segment, too_new
from wdg.world.passwords import needs_upgrade

SHIPPED_RULES = PACKAGE_ROOT / "worlds" / "rules"
UPGRADES = "upgrades.yaml"


@dataclass(frozen=True, slots=True)
class RuleKeyAdded:
    """A rules key added by a later version, with the value that gives the old
    behaviour (what a month before it was resolved with)."""

    file: str
    key: str
    """Dotted path inside the file."""
    old_value: Any
    since: str
    """The commit (or version) that added it."""
    why: str


RULE_KEYS_ADDED: tuple[RuleKeyAdded, ...] = (
    RuleKeyAdded("economy.yaml", "settlement.treasury_min_units", 0, "8861014",
                 "before it every construction site stored a share of the treasury"),
    RuleKeyAdded("actions.yaml", "minimum_soldiers.e", 0, "4b16c09",
                 "before it an army of only a general could take a gemark"),
    RuleKeyAdded("actions.yaml", "minimum_soldiers.o", 0, "4b16c09",
                 "before it an army of only a general could occupy"),
    RuleKeyAdded("actions.yaml", "minimum_soldiers.x", 0, "4b16c09",
                 "before it an army of only a general could destroy"),
    RuleKeyAdded("actions.yaml", "minimum_soldiers.bb", 0, "4b16c09",
                 "before it an army of only a general could build boats"),
)
"""Keys whose old behaviour is known. Whoever adds a rules key whose absence
meant something appends it here (INTERFACES.md, "Segment format")."""


RULES_OFF_WHEN_ABSENT: tuple[tuple[str, str | None], ...] = (
    ("deposits.yaml", None),
    ("morale.yaml", None),
    ("actions.yaml", "help.repair_per_1000_soldiers"),
    ("diplomacy.yaml", "game_term_patterns"),
    ("economy.yaml", "taxes.income_needs_a_treasury_site"),
    ("combat.yaml", "halves_round_up"),
)
"""Rules whose absence means "this rule is off" (the engine asks ``Rules.has``):
a campaign or month without them plays as before they existed. The upgrade
adds them only when the game master adopts the new rules (``--rules adopt``),
and a replay never fills them in. (file, dotted key; ``None``: the whole file.)"""


def off_when_absent(file: str, key: str | None) -> bool:
    """True if the rule ``file``/``key`` (or the whole file) is one of
    :data:`RULES_OFF_WHEN_ABSENT` or lies inside one."""
    for f, k in RULES_OFF_WHEN_ABSENT:
        if f == file and (k is None or key is not None and (key == k or key.startswith(k + "."))):
            return True
    return False


def old_value(file: str, key: str) -> tuple[bool, Any]:
    """``(True, value)`` for a key of :data:`RULE_KEYS_ADDED`, else ``(False, None)``."""
    for k in RULE_KEYS_ADDED:
        if k.file == file and k.key == key:
            return True, k.old_value
    return False, None


@dataclass(slots=True)
class Context:
    """What an upgrade step sees: the campaign, the segment, the formats, the
    game master's choices; ``dry_run``: report only, change nothing."""

    camp: Campaign
    segment: str
    from_format: int
    to_format: int
    templates: str | None
    dry_run: bool
    rules: str = "keep"
    """``keep``: rules whose absence means "off" stay absent (the campaign plays as
    before); ``adopt``: they are taken from the shipped rules too."""


StepFn = Callable[[Context], list[str]]
"""``step(ctx) -> report lines`` (German; empty: nothing to do)."""


SegmentStepFn = Callable[[Context, Any], list[str]]
"""``step(ctx, seg) -> report lines``: changes the loaded segment in memory; the
upgrade saves it once, after every step (not in a dry run)."""


@dataclass(slots=True)
class Step:
    name: str
    to_format: int
    """Applied when upgrading a segment below this format (``always``: every upgrade)."""
    fn: Any
    on_segment: bool = False
    always: bool = False


_STEPS: list[Step] = []


def register_step(name: str, fn: StepFn, *, to_format: int = 2, always: bool = False) -> None:
    """Add an upgrade step (run in registration order, for segments older than
    ``to_format``, or on every upgrade with ``always``). Idempotent steps only:
    an upgrade interrupted before the format is written is run again."""
    if any(s.name == name for s in _STEPS):
        raise StateError(f"upgrade step {name!r} registered twice")
    _STEPS.append(Step(name, to_format, fn, always=always))


def register_segment_step(name: str, fn: SegmentStepFn, *, to_format: int = 2,
                          always: bool = False) -> None:
    """Add a step that changes the segment itself (``fn(ctx, seg)``, after the
    file steps; the upgrade saves the segment once with the commit protocol)."""
    if any(s.name == name for s in _STEPS):
        raise StateError(f"upgrade step {name!r} registered twice")
    _STEPS.append(Step(name, to_format, fn, on_segment=True, always=always))


@dataclass(slots=True)
class UpgradeReport:
    segment: str
    from_format: int
    to_format: int
    changes: dict[str, list[str]] = field(default_factory=dict)
    dry_run: bool = False

    def lines(self) -> list[str]:
        head = (f"Segment {self.segment}: Format {self.from_format} → {self.to_format}"
                + (" (Probelauf, nichts geändert)" if self.dry_run else ""))
        out = [head]
        for step, notes in self.changes.items():
            out.append(f"  {step}:")
            out.extend(f"    {n}" for n in notes or ["nichts zu tun"])
        out.append("  Archivierte Monate (turns/): unverändert")
        return out


# --- rules ---------------------------------------------------------------------------

def leaf_paths(data: Any, prefix: tuple = ()) -> list[tuple[tuple, Any]]:
    """Every leaf key path of a rules mapping (a tuple of its keys) with its
    value, in the mapping's order; an empty mapping is a leaf."""
    out: list[tuple[tuple, Any]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            path = (*prefix, k)
            if isinstance(v, dict) and v:
                out.extend(leaf_paths(v, path))
            else:
                out.append((path, v))
    return out


def has_path(data: Any, path: tuple) -> bool:
    """True if the nested mapping ``data`` has the key path ``path`` (a tuple
    of keys as :func:`leaf_paths` gives them), whatever its value."""
    node = data
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def yaml_scalar(value: Any) -> str:
    """``value`` as one line of YAML flow text (``30``, ``[1, 2]``, ``{a: 1}``),
    as the upgrade's report and a rules file's added key show it."""
    return yaml.safe_dump(value, default_flow_style=True, allow_unicode=True,
                          width=1000).strip().removesuffix("...").strip()


def insert_key(text: str, path: str, value: Any, comment: str) -> str:
    """``text`` (a YAML mapping) with the key ``path`` (dotted) added as
    ``key: value  # comment``, after its parent's line, comments and order of
    everything else kept. The missing part of the path is written as nested
    blocks. Checked by parsing: the result must equal the old data plus the key."""
    parts = path.split(".")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    start, end, indent = 0, len(lines), 0  # the block the key belongs to
    depth = 0
    for depth, part in enumerate(parts[:-1]):  # noqa: B007
        found = None
        for i in range(start, end):
            line = lines[i]
            stripped = line.lstrip(" ")
            if not stripped or stripped.startswith("#"):
                continue
            ind = len(line) - len(stripped)
            if ind == indent and (stripped.startswith(f"{part}:") or
                                  stripped.startswith(f"'{part}':") or
                                  stripped.startswith(f'"{part}":')):
                found = i
                break
        if found is None:
            break
        child_end = end
        child_indent = None
        for j in range(found + 1, end):
            line = lines[j]
            stripped = line.lstrip(" ")
            if not stripped or stripped.startswith("#"):
                continue
            ind = len(line) - len(stripped)
            if ind <= indent:
                child_end = j
                break
            if child_indent is None:
                child_indent = ind
        if child_indent is None:
            raise StateError(f"{path} läßt sich nicht hinzufügen: {part} ist keine Block-Zuordnung")
        start, end, indent = found + 1, child_end, child_indent
    else:
        depth = len(parts) - 1
    rest = parts[depth:]
    new = []
    for n, part in enumerate(rest[:-1]):
        new.append(" " * (indent + 2 * n) + f"{part}:")
    pad = " " * (indent + 2 * (len(rest) - 1))
    new.append(f"{pad}{rest[-1]}: {yaml_scalar(value)}  # {comment}")
    while end > start and not lines[end - 1].strip():
        end -= 1  # after the block's last line, before blank lines
    at = end if depth or len(rest) > 1 or start else len(lines)
    lines[at:at] = new
    out = "\n".join(lines) + "\n"
    before, after = yaml.safe_load(text) or {}, yaml.safe_load(out)
    node = after
    for part in parts[:-1]:
        node = node[part]
    if node.get(parts[-1]) != value:
        raise StateError(f"{path} läßt sich der Regeldatei nicht als Text hinzufügen")
    node.pop(parts[-1])
    if _prune(after) != _prune(before):
        raise StateError(f"{path} hinzuzufügen würde andere Schlüssel ändern")
    return out


def _prune(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _prune(v) for k, v in data.items() if not (isinstance(v, dict) and not _prune(v))}
    return data


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.upgrade.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def rules_step(ctx: Context) -> list[str]:
    """Add the keys this version needs to the campaign's own rules (every file
    is worked out first, then written, so a refusal changes nothing)."""
    own = ctx.camp.worlds / "rules"
    if not own.is_dir():
        return ["die Kampagne nutzt die mitgelieferten Regeln (kein worlds/rules/): nichts zu tun"]
    notes: list[str] = []
    writes: dict[Path, bytes] = {}
    for shipped in sorted(SHIPPED_RULES.glob("*.yaml")):
        target = own / shipped.name
        if not target.is_file():
            if off_when_absent(shipped.name, None) and ctx.rules != "adopt":
                notes.append(f"worlds/rules/{shipped.name}: neue Regel, nicht übernommen (ohne "
                             "die Datei ist sie aus, wie bisher; --rules adopt übernimmt sie)")
                continue
            notes.append(f"worlds/rules/{shipped.name}: fehlte, von den mitgelieferten Regeln "
                         "übernommen")
            writes[target] = shipped.read_bytes()
            continue
        want = safe_load_file(shipped) or {}
        original = text = target.read_text(encoding="utf-8")
        have = yaml.safe_load(text) or {}
        for path, value in leaf_paths(want):
            if has_path(have, path):
                continue
            key = ".".join(map(str, path))
            if off_when_absent(shipped.name, key) and ctx.rules != "adopt":
                if not any(n.startswith(f"worlds/rules/{shipped.name}: {key.split('.')[0]}")
                           for n in notes):
                    notes.append(f"worlds/rules/{shipped.name}: {key}: neue Regel, nicht "
                                 "übernommen (ohne den Schlüssel ist sie aus, wie bisher; "
                                 "--rules adopt übernimmt sie)")
                continue
            known, old = old_value(shipped.name, key)
            use = old if known else value
            since = next((k.since for k in RULE_KEYS_ADDED
                          if k.file == shipped.name and k.key == key), "")
            why = (f"Wert des alten Verhaltens (eingeführt mit {since})" if known
                   else "Wert der mitgelieferten Regeln; ein altes Verhalten ist nicht bekannt")
            try:
                text = insert_key(text, key, use, f"added by wdg segment upgrade: {why}")
            except StateError as e:
                raise StateError(f"worlds/rules/{shipped.name}: {key} fehlt und kann nicht "
                                 f"automatisch ergänzt werden ({e}); bitte von Hand eintragen "
                                 f"(mitgelieferter Wert: {yaml_scalar(value)}); nichts wurde "
                                 "verändert") from None
            notes.append(f"worlds/rules/{shipped.name}: {key} = {yaml_scalar(use)} ergänzt ({why})")
            have = yaml.safe_load(text) or {}
        if text != original:
            writes[target] = text.encode("utf-8")
    if not ctx.dry_run:
        for target, data in writes.items():
            _write_atomic(target, data)
    return notes


# --- templates -----------------------------------------------------------------------

def _tree_hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def differing_templates(camp: Campaign) -> list[str]:
    """The campaign's own templates (``templates/``) that differ from the shipped
    ones, by name (none without own templates)."""
    own = camp.templates_dir
    if not own.is_dir():
        return []
    mine, shipped = _tree_hashes(own), _tree_hashes(SHIPPED_TEMPLATES)
    return sorted(n for n in mine if shipped.get(n) != mine[n])


def templates_step(ctx: Context) -> list[str]:
    """Keep or replace (move aside) the campaign's own templates."""
    own = ctx.camp.templates_dir
    if not own.is_dir():
        return ["keine eigenen Vorlagen (templates/): die mitgelieferten gelten"]
    differ = differing_templates(ctx.camp)
    if not differ:
        return ["templates/ ist gleich den mitgelieferten Vorlagen: nichts zu tun"]
    listed = ", ".join(differ[:8]) + (f" und {len(differ) - 8} weitere" if len(differ) > 8 else "")
    if ctx.templates is None:
        raise InvalidInputError(
            f"die Kampagne hat eigene Vorlagen, die von den mitgelieferten dieser Version "
            f"abweichen ({listed}); ältere Vorlagen passen oft nicht zu einer neuen Version. "
            "Bitte wählen: --templates replace (templates/ wird nach templates.vor-upgrade-<n>/ "
            "verschoben, die mitgelieferten gelten) oder --templates keep (bleiben wie sie "
            "sind; bei Fehlern anpassen)")
    if ctx.templates == "keep":
        return [f"templates/ behalten (weicht ab in: {listed})"]
    n = 1
    while (ctx.camp.root / f"templates.vor-upgrade-{n}").exists():
        n += 1
    aside = ctx.camp.root / f"templates.vor-upgrade-{n}"
    if not ctx.dry_run:
        os.replace(own, aside)
    return [f"templates/ nach {aside.name}/ verschoben (weicht ab in: {listed}); es gelten "
            "die mitgelieferten Vorlagen"]


# --- mail records --------------------------------------------------------------------

def mail_step(ctx: Context) -> list[str]:
    """Old send records ``reports/<segment>/<M>/outbox/sent.yaml`` into the
    segment (``worlds/<segment>/mail/``): each record is copied to
    ``worlds/<segment>/mail/legacy-sent/<M>.yaml`` (the original stays)."""
    seg_dir = ctx.camp.segment_dir(ctx.segment)
    found = sorted((ctx.camp.root / "reports" / ctx.segment).glob("*/outbox/sent.yaml"))
    if not found:
        return []
    notes = []
    for path in found:
        month = path.parent.parent.name
        target = seg_dir / "mail" / "legacy-sent" / f"{month}.yaml"
        notes.append(f"{path.relative_to(ctx.camp.root)} nach "
                     f"{target.relative_to(ctx.camp.root)} kopiert")
        if not ctx.dry_run and not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(target, path.read_bytes())
    return notes


def password_step(ctx: Context) -> list[str]:
    """Name kingdoms whose password hash has an older scheme (no rehash: the
    upgrade has no passwords; the next accepted sheet replaces it)."""
    seg = load_segment(ctx.camp.segment_dir(ctx.segment))
    return [f"Königreich {n}: Passwort-Hash im alten Format; er wird beim nächsten angenommenen "
            f"Spielzug ersetzt. Wurde das Passwort von wdg erzeugt (vor wdg 0.2.0: aus dem Seed "
            f"ableitbar), ein neues setzen: wdg kingdom set-password {ctx.segment} {n}"
            for n, k in sorted(seg.kingdoms.items())
            if k.player is not None and k.player.password_hash
            and needs_upgrade(k.player.password_hash)]


def password_scheme_step(ctx: Context) -> list[str]:
    """Segment format 3 (wdg 0.3.0, issue #40 item 1): password hashes may be of the
    scrypt scheme, which wdg 0.2.0 cannot check — it would refuse every sheet as
    "das Passwort ist falsch" and resolve the month. Format 3 makes every older
    release refuse the segment instead. Nothing is rehashed (the upgrade has no
    passwords); the step says which schemes the segment holds."""
    from collections import Counter

    seg = load_segment(ctx.camp.segment_dir(ctx.segment))
    schemes = Counter(str(k.player.password_hash).split("$", 1)[0]
                      for k in seg.kingdoms.values()
                      if k.player is not None and k.player.password_hash)
    held = ", ".join(f"{n} × {s}" for s, n in sorted(schemes.items())) or "keine"
    return [f"Passwort-Hashes: {held}. Ab Segmentformat 3 dürfen sie scrypt sein; wdg 0.2.0 "
            "und älter verweigern das Segment dann mit ihrer eigenen Meldung (statt jeden "
            "Spielzug als 'Passwort falsch' abzulehnen)"]


def deposits_step(ctx: Context, seg: Any) -> list[str]:
    """Deposits for a segment saved before they existed, when the campaign's rules
    (after the rules step) have them (``wdg.engine.deposits.upgrade``, rules #31)."""
    rules_dir = ctx.camp.rules_dir
    if ctx.dry_run and ctx.rules == "adopt" and not (rules_dir / "deposits.yaml").is_file():
        return ["Bodenschätze würden nach dem Übernehmen von deposits.yaml verteilt"]
    return list(place_deposits(seg, Rules.load(rules_dir)))


register_step("Regeln", rules_step)
register_step("Vorlagen", templates_step)
register_step("Post-Aufzeichnungen", mail_step)
register_step("Passwörter", password_step)
register_step("Passwortverfahren", password_scheme_step, to_format=3)
register_segment_step("Bodenschätze", deposits_step, always=True)


# --- the upgrade ---------------------------------------------------------------------

TemplateCheck = Callable[[Campaign, str], "str | None"]
"""Renders a month with the campaign's kept templates before the upgrade accepts
them: raises InvalidInputError with the template's error, else returns the line
for the report (:func:`wdg.reports.kept.check_kept_templates`)."""


def upgrade_segment(camp: Campaign, segment: str, *, check_templates: TemplateCheck,
                    templates: str | None = None, rules: str = "keep",
                    dry_run: bool = False) -> UpgradeReport:
    """Migrate the segment (and the campaign's rules and templates) to this
    version's format; returns what changed. A segment of this format gets only
    the steps registered ``always`` (e.g. deposits for a segment saved before
    them); a newer one is refused. ``check_templates`` is called with ``--templates
    keep`` before anything is written; it comes from the caller because rendering
    is the reports' layer, above this one (docs/architecture.md)."""
    if templates not in (None, "keep", "replace"):
        raise InvalidInputError(f"--templates {templates!r}: erwartet 'keep' oder 'replace'")
    if rules not in ("keep", "adopt"):
        raise InvalidInputError(f"--rules {rules!r}: erwartet 'keep' oder 'adopt'")
    seg_dir = camp.segment_dir(segment)
    if not (seg_dir / "segment.yaml").is_file():
        raise StateError(f"kein Segment {segment!r} in {camp.worlds}")
    with segment_lock(seg_dir, any_format=True):
        fmt = format_of(seg_dir)
        if fmt > FORMAT:
            raise too_new(seg_dir / "segment.yaml", fmt)
        report = UpgradeReport(segment, fmt, FORMAT, dry_run=dry_run)
        ctx = Context(camp, segment, fmt, FORMAT, templates, dry_run, rules)
        due = [s for s in _STEPS if s.always or fmt < s.to_format]
        if due and not dry_run:
            _can_finish(camp, seg_dir)
        if ctx.templates is None and any(s.fn is templates_step for s in due):
            templates_step(Context(camp, segment, fmt, FORMAT, None, True))  # ask first
        kept = None
        if ctx.templates == "keep" and any(s.fn is templates_step for s in due) and \
                differing_templates(camp):
            kept = check_templates(camp, segment)  # before anything is written
        for step in (s for s in due if not s.on_segment):
            report.changes[step.name] = step.fn(ctx)
            if step.fn is templates_step and kept:
                report.changes[step.name].append(kept)
        seg = load_segment(seg_dir)
        for step in (s for s in due if s.on_segment):
            lines = step.fn(ctx, seg)
            if lines or fmt < step.to_format:
                report.changes[step.name] = lines
        changed = fmt < FORMAT or any(report.changes.values())
        if changed and not dry_run:
            save_segment(seg, seg_dir)  # writes format: FORMAT under the commit protocol

            log = seg_dir / UPGRADES
            old = safe_load_file(log) if log.is_file() else None
            entries = old if isinstance(old, list) else []
            entries.append({"from_format": fmt, "to_format": FORMAT, "wdg": __version__,
                            "changes": {k: v for k, v in report.changes.items()}})
            _write_atomic(log, yaml.safe_dump(entries, allow_unicode=True, sort_keys=False,
                                              width=100).encode("utf-8"))
        if fmt < FORMAT:
            report.changes["Segmentformat"] = [f"segment.yaml: format {fmt} → {FORMAT}"]
        elif not changed:
            report.changes.clear()
    return report


def _can_finish(camp: Campaign, seg_dir: Path) -> None:
    """Before the first step writes: the folders the upgrade writes into take
    files and have room (issue #30 item 5; :func:`wdg.store.integrity.precheck`) —
    the segment (its files saved anew, the mail records) and the campaign's
    rules (at most the shipped rules written)."""
    own_rules = camp.worlds / "rules"
    live = sum(tree_size(seg_dir / n) for n in FILES)
    space = {seg_dir: 2 * live + (64 << 10)}
    if own_rules.is_dir():
        space[own_rules] = tree_size(SHIPPED_RULES)
    precheck("Segment-Upgrade", (seg_dir, seg_dir / "mail", *space), space=space)

