"""Replay of an archived month: re-run it from its own archive and compare
every output with the manifest, in layers (docs/turns.md, "Replay").

The archive itself — commit, undo, files, packs, blobs, provenance — is the
store's (:mod:`wdg.store.months`); replay lives above it, beside the month
runner it calls (:mod:`wdg.engine.turn`) and the upgrade whose rule defaults
it uses for months resolved before a rule key existed (:mod:`wdg.engine.upgrade`).

Each layer is one function — :func:`inputs_layer`, :func:`resolve_layer`,
:func:`state_layer`, :func:`events_layer`, :func:`output_layers`,
:func:`archive_layer`, :func:`hash_list_check` (with :func:`state_before`,
:func:`seed_check`, :func:`output_writers` and :func:`render_outputs` between
them) — that returns its :class:`Layer` (or layers) or a :class:`Stop`;
:func:`replay_month` runs them in order. The code compares a layer's
:class:`LayerKind`; its German name, which :meth:`ReplayReport.lines`
prints, comes from :data:`LAYER_LABELS`.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import shutil
import tempfile
import zlib
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from wdg.campaign import Campaign, PACKAGE_ROOT
from wdg.digest import month_digest
from wdg.engine.replay_explain import StateChange, align_events, pdf_reason, state_difference
from wdg.engine.turn import resolve_from_inputs
from wdg.engine.upgrade import RULE_KEYS_ADDED, RULES_OFF_WHEN_ABSENT
from wdg.engine.upgrade import has_path, leaf_paths, off_when_absent, old_value, yaml_scalar
from wdg.errors import DataError, MissingKeyError, StateError, WdgError
from wdg.provenance import build_info, describe, environment
from wdg.rules import Rules, safe_load_file
from wdg.store import integrity
from wdg.store.files import (EVENT_FILES, EVENTS, YAML_LOADER, decompress, dump_yaml, hash_tree,
                             read_archived, sha256, stored_bytes)
from wdg.store.months import (INPUTS, PROVENANCE, OutputWriter, content_hashes, month_dir,
                              read_order_files, read_provenance, registered_outputs,
                              write_outputs)
from wdg.store.segment import load_segment
from wdg.world.calendar import MonthDate

if TYPE_CHECKING:
    from wdg.engine.turn import MonthResult
    from wdg.world.state import Segment

class LayerKind(Enum):
    """What a layer of a replay compares (docs/turns.md, "Replay"); the code
    compares kinds, the game master reads their German :data:`LAYER_LABELS`."""

    INPUTS = "inputs"
    """every input against the provenance's hashes, and the state before"""
    EVALUATION = "evaluation"
    """resolving the month again with this version"""
    RULES = "rules"
    """rules keys this version needs that the month's rules lack"""
    SEED = "seed"
    """the generator's entropy against ``seed.yaml``"""
    WRITERS = "writers"
    """the outputs the manifest lists: a writer for each, each renders"""
    STATE = "state"
    """the state after the month"""
    EVENTS = "events"
    """the event log"""
    TEMPLATES = "templates"
    """the campaign's templates replaced by the shipped ones"""
    OUTPUT = "output"
    """one kind of rendered file (``subject``: ``<output>: <file kind>``)"""
    ARCHIVE = "archive"
    """the archived copies against the manifest"""
    HASH_LIST = "hash_list"
    """every stored file against the month's hash list"""


LAYER_LABELS: dict[LayerKind, str] = {
    LayerKind.INPUTS: "Eingaben",
    LayerKind.EVALUATION: "Auswertung",
    LayerKind.RULES: "Regeln",
    LayerKind.SEED: "Seed",
    LayerKind.WRITERS: "Ausgaben",
    LayerKind.STATE: "Zustand",
    LayerKind.EVENTS: "Ereignisse",
    LayerKind.TEMPLATES: "Vorlagen",
    LayerKind.OUTPUT: "Ausgabe",
    LayerKind.ARCHIVE: "Archiv",
    LayerKind.HASH_LIST: "Hashliste",
}
"""The German name of each layer in ``wdg turn replay``'s lines."""


@dataclass(slots=True)
class Layer:
    """One layer of a replay's comparison: its ``kind`` (and ``subject``, e.g.
    which output), ``ok``, what differs (``detail``) and, where the replay can
    tell, why (``why``)."""

    kind: LayerKind
    ok: bool
    detail: str = ""
    why: str = ""
    subject: str = ""

    @property
    def name(self) -> str:
        """The layer's German name as printed: ``Ausgabe reports: ergebnis.txt``."""
        label = LAYER_LABELS[self.kind]
        return f"{label} {self.subject}" if self.subject else label


@dataclass(slots=True)
class Stop:
    """A layer that ends the replay: ``layer`` is its last line and ``first``
    the report's ``first_difference``."""

    layer: Layer
    first: str


@dataclass(slots=True)
class ReplayReport:
    """The outcome of a replay: ``first_difference`` is ``None`` when every
    output matched the manifest byte for byte. ``layers`` compare in order:
    inputs, rules, state, events, each rendered output, the archived copies;
    ``made_by`` names the software that resolved the month, ``this_version``
    the one replaying it."""

    month: MonthDate
    checked: int
    first_difference: str | None
    layers: list[Layer] = field(default_factory=list)
    made_by: str = ""
    this_version: str = ""
    same_software: bool | None = None

    @property
    def ok(self) -> bool:
        """True if the replay reproduced every output."""
        return self.first_difference is None

    def stopped(self, stop: Stop) -> ReplayReport:
        """This report ended by ``stop``: its layer is the last."""
        self.layers.append(stop.layer)
        self.first_difference = stop.first
        return self

    def lines(self) -> list[str]:
        """The explanation, one line per layer (German, for the game master)."""
        out = [f"ausgewertet mit {self.made_by}; dies ist {self.this_version}"]
        for layer in self.layers:
            text = f"  {layer.name}: {'gleich' if layer.ok else 'ABWEICHUNG'}"
            if layer.detail:
                text += f" — {layer.detail}"
            out.append(text)
            if layer.why:
                out.append(f"    Grund: {layer.why}")
        return out


def _rules_with_defaults(month_rules: Path, missing: list[str]) -> Any:
    """The month's rules with every key they lack taken from the shipped rules
    (for a replay of a month resolved before those keys existed)."""
    archived = Rules.load(month_rules)
    shipped = Rules.load(PACKAGE_ROOT / "worlds" / "rules")

    def merge(base: Any, over: Any) -> Any:
        if isinstance(base, dict) and isinstance(over, dict):
            return {**base, **{k: merge(base.get(k), v) for k, v in over.items()}}
        return over if over is not None or base is None else base

    data = {area: merge(shipped.area_data(area), archived.area_data(area))
            for area in sorted(set(shipped.areas()) | set(archived.areas()))}
    for file, key in RULES_OFF_WHEN_ABSENT:  # absent then = off then: not completed
        area = file.removesuffix(".yaml")
        if area not in archived.areas():
            if key is None or area not in data:
                data.pop(area, None)
                continue
        if key is not None and isinstance(data.get(area), dict):
            parts, node = key.split("."), archived.area_data(area)
            for part in parts:
                node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                target = data[area]
                for part in parts[:-1]:
                    target = target.get(part) if isinstance(target, dict) else None
                if isinstance(target, dict):
                    target.pop(parts[-1], None)

    for k in RULE_KEYS_ADDED:  # the value that gives the old behaviour, where it is known
        area, parts = k.file.removesuffix(".yaml"), k.key.split(".")
        node = archived.area_data(area)
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        if node is None and isinstance(data.get(area), dict):
            target = data[area]
            for part in parts[:-1]:  # (a damaged file: no mapping on the way, nothing set)
                target = target.setdefault(part, {}) if isinstance(target, dict) else None
            if isinstance(target, dict):
                target[parts[-1]] = k.old_value
    return Rules(data, {**shipped.paths(), **archived.paths()})


def fill_month_rules(mdir: Path, target: Path) -> list[str]:
    """The month's rules with every key this version's shipped rules have and
    they lack (the key did not exist then) — the value of the old behaviour
    where known (:data:`wdg.engine.upgrade.RULE_KEYS_ADDED`), else the shipped
    one — written into ``target``; returns what was added (``[]``: nothing was
    missing, ``target`` is not written). For a replay by a newer version."""
    shipped_dir = PACKAGE_ROOT / "worlds" / "rules"
    files: dict[str, Any] = {}
    added: list[str] = []
    for shipped in sorted(shipped_dir.glob("*.yaml")):
        want = safe_load_file(shipped) or {}
        mine = mdir / "rules" / shipped.name
        if not mine.is_file():
            if off_when_absent(shipped.name, None):
                continue  # a rule that is off without its file: off then, off now
            files[shipped.name] = want
            added.append(f"{shipped.name} (die ganze Datei)")
            continue
        have = safe_load_file(mine) or {}
        for path, value in leaf_paths(want):
            if has_path(have, path):
                continue
            key = ".".join(map(str, path))
            if off_when_absent(shipped.name, key):
                continue
            known, old = old_value(shipped.name, key)
            node = have
            for part in path[:-1]:
                node = node.setdefault(part, {}) if isinstance(node, dict) else node
            if isinstance(node, dict):
                node[path[-1]] = old if known else value
                added.append(f"{shipped.name}: {key} = {yaml_scalar(old if known else value)}"
                             + (" (altes Verhalten)" if known else " (mitgeliefert)"))
        files[shipped.name] = have
    if not added:
        return []
    target.mkdir(parents=True, exist_ok=True)
    for p in sorted((mdir / "rules").glob("*.yaml")):
        if p.name not in files:
            shutil.copyfile(p, target / p.name)
    for name, data in files.items():
        dump_yaml(data, target / name)
    return added


def _first_line_difference(a: bytes, b: bytes) -> str:
    """``Zeile N: 'archived' → 'now'`` for two texts."""
    la = a.decode("utf-8", "replace").split("\n")
    lb = b.decode("utf-8", "replace").split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<Ende>"
        y = lb[i] if i < len(lb) else "<Ende>"
        if x != y:
            return f"Zeile {i + 1}: archiviert {x[:100]!r}, jetzt {y[:100]!r}"
    return "gleicher Text, andere Bytes"


def _explain_state(name: str, old: bytes | None, new: bytes | None) -> str:
    if old is None or new is None:
        return f"{name}: {'fehlt im Archiv' if old is None else 'entsteht nicht mehr'}"
    if name.endswith(".yaml"):
        try:
            a, b = yaml.load(old, Loader=YAML_LOADER), yaml.load(new, Loader=YAML_LOADER)
        except yaml.YAMLError:
            a = b = None
        if isinstance(a, dict) and isinstance(b, dict) and a.get("format") != b.get("format") \
                and {**a, "format": 0} == {**b, "format": 0}:
            return (f"{name}: nur das Segmentformat (format: {a.get('format')} → "
                    f"{b.get('format')}); derselbe Spielstand")
    if name.endswith(".npz"):
        return f"{name}: andere Karten-Ebenen"
    return f"{name}: {_first_line_difference(old, new)}"


def _event_rows(data: bytes, name: str) -> list[dict[str, Any]] | None:
    try:
        raw = decompress(Path(name), data)
        if name.startswith(EVENTS.split(".")[0]) and ".jsonl" in name:
            return [json.loads(line) for line in raw.decode("utf-8").split("\n") if line]
        loaded = yaml.load(raw, Loader=YAML_LOADER)
        return loaded if isinstance(loaded, list) else None
    except (StateError, ValueError, yaml.YAMLError, UnicodeDecodeError):
        return None


def _explain_events(old: bytes | None, new: bytes, name: str) -> tuple[str, str, bool]:
    """What differs between two event logs, why, and whether only the wording
    of their texts does (``True``: the same game told in other words)."""
    a = _event_rows(old, name) if old is not None else None
    b = _event_rows(new, name)
    if a is None or b is None:
        return "das archivierte Ereignisprotokoll ist nicht lesbar", "", False
    if len(a) != len(b):
        kinds = lambda rows: {r.get("kind") for r in rows}
        extra = sorted(kinds(b) - kinds(a)) or sorted(kinds(a) - kinds(b))
        text, _same, _reworded = align_events(a, b)
        return (text + (f" (Arten nur auf einer Seite: {', '.join(map(str, extra[:5]))})"
                        if extra else ""),
                "andere Ereignisarten dieser Version" if extra else "anderer Spielverlauf",
                False)
    texts = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    wording = [i for i in texts if {**a[i], "why": ""} == {**b[i], "why": ""}]
    if texts and len(wording) == len(texts):
        i = wording[0]
        return (f"{len(texts)} von {len(a)} Ereignissen nur im Wortlaut, z. B. Nr. {i + 1} "
                f"({a[i].get('kind')}): archiviert {str(a[i].get('why'))[:80]!r}, jetzt "
                f"{str(b[i].get('why'))[:80]!r}",
                "gleicher Spielverlauf, andere Formulierung der Ereignistexte", True)
    other = [i for i in texts if i not in wording]
    i = other[0] if other else 0
    keys = sorted(k for k in set(a[i]) | set(b[i]) if a[i].get(k) != b[i].get(k)) if other else []
    detail = (f"{len(texts)} von {len(a)} Ereignissen weichen ab, {len(wording)} davon nur im "
              f"Wortlaut; das erste mit anderem Inhalt: Nr. {i + 1} ({a[i].get('kind')}) in "
              f"{', '.join(keys) or '?'}")
    if keys and set(keys) <= {"why", "data"}:
        return detail + f": archiviert {a[i].get('data')!r}, jetzt {b[i].get('data')!r}"[:200], \
            "dieselben Ereignisse mit anderen Zusatzangaben oder Texten", False
    return detail, "", False


def _output_group(name: str) -> str:
    """``outputs/reports/k3/ergebnis.txt`` -> ``reports: ergebnis.txt`` (by file kind)."""
    parts = name.split("/")
    return f"{parts[1]}: {parts[-1]}" if len(parts) > 2 else name


def _archived(mdir: Path, name: str) -> bytes | None:
    """The content of the archived file ``name`` of the month ``mdir``
    (``None``: missing or unreadable)."""
    try:
        return stored_bytes(mdir, name)
    except (OSError, StateError):
        return None


def read_manifest(mdir: Path, segment: str, date: MonthDate) -> dict[str, str]:
    """The archived month's manifest, ``{file: SHA-256}``; StateError when there
    is no archived month or its manifest is none."""
    if not (mdir / "manifest.yaml").is_file():
        raise StateError(f"Segment {segment!r}: kein archivierter Mond {date.key} ({mdir})")
    manifest = safe_load_file(mdir / "manifest.yaml")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise StateError(f"{mdir / 'manifest.yaml'}: kein Manifest eines Monds (keine Zuordnung 'files')")
    return {str(k): str(v) for k, v in manifest["files"].items()}


def _report_for(date: MonthDate, checked: int, prov: dict[str, Any] | None) -> ReplayReport:
    """An empty report of the month: which software made it (its provenance)
    and which replays it, and whether they are the same."""
    ours = build_info()
    made = prov.get("wdg") if prov else None
    report = ReplayReport(date, checked, None, made_by=describe(made), this_version=describe(ours))
    if isinstance(made, dict):
        report.same_software = made.get("version") == ours["version"] and (
            not made.get("commit") or not ours["commit"] or made.get("commit") == ours["commit"])
    return report


def inputs_layer(mdir: Path, prov: dict[str, Any] | None) -> Layer | Stop:
    """Layer 1, **Eingaben**: every input of the month folder against the
    hashes its provenance recorded (months before 0.2.0 have none: said so)."""
    if not (prov and isinstance(prov.get("inputs"), dict)):
        return Layer(LayerKind.INPUTS, True, "keine Herkunftsangaben (vor wdg 0.2.0): "
                     "Eingaben nicht einzeln geprüft")
    label = LAYER_LABELS[LayerKind.INPUTS]
    now: dict[str, str] = {}
    try:
        for folder in ("state-before", "orders", "rules", INPUTS):
            now.update(content_hashes(mdir, folder))
        now["seed.yaml"] = sha256(mdir / "seed.yaml")
    except (OSError, StateError) as e:
        return Stop(Layer(LayerKind.INPUTS, False, str(e)), label)
    for name in sorted(set(prov["inputs"]) | set(now)):
        if prov["inputs"].get(name) != now.get(name):
            what = "fehlt" if name not in now else \
                "ist neu" if name not in prov["inputs"] else "wurde verändert"
            return Stop(Layer(LayerKind.INPUTS, False, f"{name} {what} (SHA-256 laut "
                              f"{PROVENANCE})", "eine archivierte Eingabe ist nicht mehr "
                              "die, mit der der Mond ausgewertet wurde"),
                        f"{name} (Eingabe weicht von {PROVENANCE} ab)")
    return Layer(LayerKind.INPUTS, True, f"{len(now)} Dateien wie in {PROVENANCE}")


def state_before(mdir: Path) -> Segment | Stop:
    """The state the month started from (``state-before/``), or the stop of the
    inputs' layer that names why it cannot be read."""
    try:
        return load_segment(mdir / "state-before")
    except (OSError, WdgError, ValueError, EOFError) as e:
        return Stop(Layer(LayerKind.INPUTS, False, f"state-before/: {e}"), "state-before")
    except Exception as e:  # noqa: BLE001 - a damaged archived file (a map layer's zip, pickle, xz...) can fail in any library; named, never a traceback
        return Stop(Layer(LayerKind.INPUTS, False,
                          f"state-before/ nicht lesbar: {type(e).__name__}: {e}"), "state-before")


@dataclass(slots=True)
class Resolved:
    """The month resolved again: its ``result``, the rules layer (``layer``)
    and the rules keys completed for it (``added``)."""

    result: MonthResult
    layer: Layer
    added: list[str]


def resolve_layer(mdir: Path, seg: Segment, rules_dir: Path | None = None,
                  rules_added: list[str] | None = None) -> Resolved | Stop:
    """Layer 2, **Regeln** (and **Auswertung** when it fails): resolve the month
    again from its archived state, sheets and rules. A rules key this version
    needs that did not exist then is taken from the shipped rules (with the old
    behaviour's value where known) and named; ``rules_dir``, ``rules_added``:
    the rules :func:`fill_month_rules` completed already."""
    failed = LAYER_LABELS[LayerKind.EVALUATION]
    orders = read_order_files(mdir / "orders")
    rules = Rules.load(rules_dir or mdir / "rules")
    added: list[str] = list(rules_added or [])
    for _ in range(50):
        try:
            # a month resolved before wdg 0.2.0 (no provenance) kept its PBKDF2 hashes
            result = resolve_from_inputs(load_segment(mdir / "state-before") if added else seg,
                                         orders, rules,
                                         upgrade_passwords=(mdir / PROVENANCE).is_file())
            break
        except MissingKeyError as e:
            key = f"{Path(str(e.path)).name}: {e.where}"
            if key in added or rules_added:  # (completed already: the shipped rules lack it too)
                return Stop(Layer(LayerKind.EVALUATION, False, str(e)), failed)
            added.append(key)
            rules = _rules_with_defaults(mdir / "rules", added)
        except DataError as e:
            return Stop(Layer(LayerKind.EVALUATION, False, str(e)), failed)
        except Exception as e:  # noqa: BLE001 - this version's engine on an old month may fail anywhere; explained, never a traceback
            return Stop(Layer(LayerKind.EVALUATION, False, f"{type(e).__name__}: {e}",
                              "diese Version kann den Mond nicht erneut auswerten"), failed)
    else:
        return Stop(Layer(LayerKind.RULES, False, "zu viele fehlende Schlüssel"),
                    LAYER_LABELS[LayerKind.RULES])
    if not added:
        return Resolved(result, Layer(LayerKind.RULES, True), added)
    return Resolved(result, Layer(
        LayerKind.RULES, False, "fehlende Schlüssel ergänzt: " + "; ".join(added),
        "diese Schlüssel gab es nicht, als der Mond ausgewertet wurde; für den Vergleich "
        "ergänzt mit dem Wert des alten Verhaltens, wo er bekannt ist "
        "(wdg.engine.upgrade.RULE_KEYS_ADDED), sonst mit dem der mitgelieferten Regeln"), added)


def seed_check(result: MonthResult, seed: Any) -> Stop | None:
    """The **Seed** layer: the generator's entropy of the month resolved again
    against ``seed.yaml`` (a layer only when it differs)."""
    if result.entropy != list(seed["entropy"]):
        return Stop(Layer(LayerKind.SEED, False, f"{result.entropy} statt {seed['entropy']}"),
                    "seed.yaml")
    return None


def _as_archived(result: MonthResult, mdir: Path, segment: str, seed: Any) -> None:
    """What the run set on the month's result after resolving it, before the
    outputs were written: the next deadline and the digest printed in them."""
    if seed.get("next_deadline"):  # set by the run before the month was archived
        result.set_next_deadline(str(seed["next_deadline"]))
    try:  # printed in the reports as the run printed it
        result.digest = month_digest(mdir, segment)
    except (OSError, EOFError, lzma.LZMAError, zlib.error):
        result.digest = None  # a damaged input: no digest; the outputs layer says it


def output_writers(manifest: dict[str, str],
                   writers: dict[str, OutputWriter] | None) -> dict[str, OutputWriter] | Stop:
    """The **Ausgaben** layer's first check: a writer for every output the
    manifest lists (``outputs/<name>/``), by name in order, from ``writers``
    over the registered ones."""
    available = {**registered_outputs(), **(writers or {})}
    archived = sorted({k.split("/")[1] for k in manifest if k.startswith("outputs/")})
    for name in archived:
        if name not in available:
            return Stop(Layer(LayerKind.WRITERS, False, f"outputs/{name}/: kein Schreiber"),
                        f"outputs/{name}/ (no writer to regenerate it)")
    return {name: available[name] for name in archived}


def _write(writer: OutputWriter, result: MonthResult, d: Path) -> None:
    if getattr(writer, "works_beside", False):
        writer(result, d, beside=lambda: None)
    else:
        writer(result, d)


@dataclass(slots=True)
class Rendered:
    """The month's outputs written again under ``root``: ``got`` the SHA-256 of
    every file by its manifest name, ``new_bytes`` the state and event files;
    ``failure``: the **Ausgaben** layer of an output that did not render;
    ``fell_back``: the campaign templates' error when the shipped ones were used."""

    root: Path
    got: dict[str, str] = field(default_factory=dict)
    new_bytes: dict[str, bytes] = field(default_factory=dict)
    failure: Layer | None = None
    fell_back: list[str] = field(default_factory=list)

    def differing(self, manifest: dict[str, str], first_output: str) -> list[str]:
        """The files whose hash differs from the manifest's (or that only one
        side has), sorted; with an output that did not render, its own files
        are not compared: ``outputs/<first_output>/`` stands for them."""
        out = [n for n in sorted(set(manifest) | set(self.got))
               if manifest.get(n) != self.got.get(n)]
        if self.failure is not None:
            out = [n for n in out if not n.startswith("outputs/")] or [f"outputs/{first_output}/"]
        return out

    def output_bytes(self, name: str) -> bytes | None:
        """The content of the output ``outputs/<name>/...`` written now."""
        p = self.root / "out" / name
        if p.is_file():
            return p.read_bytes()
        try:
            return read_archived(p, root=self.root / "out" / "outputs" / name.split("/")[1])
        except (OSError, StateError):
            return None


def render_outputs(result: MonthResult, tmp: Path, writers: dict[str, OutputWriter],
                   events_name: str, templates: Path | None,
                   fallback: dict[str, OutputWriter] | None) -> Rendered:
    """Write the month's state and events and every output of ``writers`` into
    ``tmp``. An output that cannot render (e.g. a template that does not fit
    this version) is the ``failure``, not an exception; a failure to write into
    ``tmp`` (OSError: a full disk) is raised, not blamed on the templates."""
    out = Rendered(tmp)
    own = tmp / "own"
    out.got.update(write_outputs(result, own, {}, events_name=events_name))
    for name in out.got:
        if not name.startswith("outputs/"):
            out.new_bytes[name] = (own / name).read_bytes()
    for name, writer in writers.items():
        d = tmp / "out" / "outputs" / name
        d.mkdir(parents=True)
        try:
            _write(writer, result, d)
        except OSError:
            raise
        except Exception as e:  # noqa: BLE001 - a template of an archived month that no longer renders can fail in any way; it is the finding
            spare = (fallback or {}).get(name) if templates is None else None
            if spare is not None:  # the campaign's templates: try the shipped ones
                shutil.rmtree(d)
                d.mkdir(parents=True)
                try:
                    _write(spare, result, d)
                    out.fell_back.append(f"{type(e).__name__}: {str(e)[:160]}")
                    for rel, digest in hash_tree(d).items():
                        out.got[f"outputs/{name}/{rel}"] = digest
                    continue
                except OSError:
                    raise
                except Exception:  # noqa: BLE001 - the shipped templates fail too: then the first error is the finding
                    pass
            why = "die Vorlagen dieses Monats sind nicht archiviert (vor wdg 0.2.0); " \
                  "gerendert mit den Vorlagen der Kampagne bzw. den mitgelieferten, die " \
                  "nicht zu dieser Version passen" if templates is None else \
                  "die archivierten Vorlagen passen nicht zu dieser Version"
            out.failure = Layer(LayerKind.WRITERS, False,
                                f"Rendern fehlgeschlagen: {type(e).__name__}: {str(e)[:200]}",
                                why, subject=name)
            continue
        for rel, digest in hash_tree(d).items():
            out.got[f"outputs/{name}/{rel}"] = digest
    return out


def state_layer(mdir: Path, state_diff: list[str], new_bytes: dict[str, bytes],
                added: list[str]) -> tuple[Layer, bool]:
    """Layer 3, **Zustand**: the state after the month (``state_diff``: its
    files that differ); ``True`` beside it when the game differs, not only the
    segment format or the password scheme."""
    if not state_diff:
        return Layer(LayerKind.STATE, True), False
    kinds: dict[str, tuple[StateChange, str]] = {}
    for m in state_diff:
        a_, b_ = _archived(mdir, m), new_bytes.get(m)
        kinds[m] = state_difference(m, a_, b_) if a_ is not None and b_ is not None \
            else (StateChange.GAME, "")
    same_game = all(k is not StateChange.GAME for k, _ in kinds.values())
    n = next((m for m in state_diff if kinds[m][0] is StateChange.GAME), state_diff[0])
    detail = kinds[n][1] or _explain_state(n, _archived(mdir, n), new_bytes.get(n))
    others = [kinds[m][1].split(": ", 1)[-1].split(";")[0] for m in state_diff
              if m != n and kinds[m][0] is not StateChange.GAME]
    if not same_game:
        why = "anderer Spielstand" + (" — mit den ergänzten Regel-Schlüsseln" if added else "")
    elif any(k is StateChange.PASSWORDS for k, _ in kinds.values()):
        why = ("derselbe Spielstand: nur das Passwortverfahren (diese Version ersetzt "
               "alte Passwort-Hashes)" + (", dazu das neuere Segmentformat" if any(
                   k is StateChange.FORMAT for k, _ in kinds.values()) else ""))
    else:
        why = "derselbe Spielstand, nur im neueren Segmentformat geschrieben"
    return Layer(LayerKind.STATE, False, detail + (
        f" (und {len(state_diff) - 1} weitere Dateien"
        + (f": {'; '.join(sorted(set(others)))}" if others and same_game else "") + ")"
        if len(state_diff) > 1 else ""), why), not same_game


def events_layer(mdir: Path, events_name: str, differs: bool,
                 new: bytes) -> tuple[Layer, bool]:
    """Layer 4, **Ereignisse**: the event log (``differs``: its hash differs
    from the manifest's); ``True`` beside it when only the events' wording does."""
    if not differs:
        return Layer(LayerKind.EVENTS, True), False
    detail, why, reworded = _explain_events(_archived(mdir, events_name), new, events_name)
    return Layer(LayerKind.EVENTS, False, detail, why), reworded


@dataclass(slots=True)
class OutputReasons:
    """What the layers before found that explains a differing output."""

    other_game: bool
    """the state differs in the game, not only in its format"""
    events_differ: bool
    """the event log differs in more than its wording"""
    reworded: bool
    """the event log differs only in its wording"""
    same_software: bool | None
    fell_back: bool
    """rendered with the shipped templates (the campaign's do not fit)"""
    templates_archived: bool
    rules_completed: bool

    def text(self) -> str:
        """The ``Grund:`` of a differing output (German)."""
        reasons = []
        if self.other_game or self.events_differ:
            reasons.append("folgt aus den abweichenden Ereignissen bzw. dem Zustand")
        elif self.reworded:
            reasons.append("folgt aus dem anderen Wortlaut der Ereignistexte")
        if self.same_software is not True:
            reasons.append("andere wdg-Version (anderer Programmcode der Berichte)")
        if self.fell_back:
            reasons.append("gerendert mit den mitgelieferten Vorlagen (die der "
                           "Kampagne passen nicht zu dieser Version)")
        elif not self.templates_archived:
            reasons.append("die Vorlagen dieses Monats sind nicht archiviert (vor "
                           "wdg 0.2.0): gerendert mit den heutigen Vorlagen")
        if self.rules_completed:
            reasons.append("ergänzte Regel-Schlüssel")
        return "; ".join(reasons)


def output_layers(mdir: Path, manifest: dict[str, str], rendered: Rendered,
                  differing: list[str], reasons: OutputReasons,
                  prov: dict[str, Any] | None) -> list[Layer]:
    """Layer 5, **Ausgabe <output>: <file kind>**: each rendered kind of file,
    the first that differs named with why; before them **Vorlagen** when the
    shipped templates stood in for the campaign's, and instead of them the
    **Ausgaben** layer of an output that did not render."""
    layers: list[Layer] = []
    if rendered.fell_back and rendered.failure is None:
        layers.append(Layer(
            LayerKind.TEMPLATES, False, f"die Vorlagen der Kampagne lassen sich mit dieser "
            f"Version nicht rendern ({rendered.fell_back[0]})", "die Berichte wurden "
            "stattdessen mit den mitgelieferten Vorlagen gerendert und verglichen"))
    if rendered.failure is not None:
        layers.append(rendered.failure)
        return layers
    names = set(manifest) | set(rendered.got)
    groups: dict[str, list[str]] = {}
    for name in sorted(names):
        if name.startswith("outputs/"):
            groups.setdefault(_output_group(name), []).append(name)
    for group, members in sorted(groups.items()):
        bad = [n for n in members if n in differing]
        if not bad:
            layers.append(Layer(LayerKind.OUTPUT, True, f"{len(members)} Dateien", subject=group))
            continue
        n = bad[0]
        old, new = _archived(mdir, n), rendered.output_bytes(n)
        why = ""
        if old is None or new is None:
            detail = f"{n} {'ist neu' if old is None else 'entsteht nicht mehr'}"
            why = "diese Version schreibt andere Dateien"
        elif n.endswith(".pdf"):
            html = n[: -len(".pdf")] + ".html"
            detail = f"{n}"
            why = pdf_reason(old, new, html_differs=(html in differing) if html in names
                             else None,
                             made_with=(prov or {}).get("dependencies") if prov else None,
                             ours=environment()["dependencies"])
        else:
            detail = f"{n}: {_first_line_difference(old, new)}"
        if not why:
            why = reasons.text()
        layers.append(Layer(LayerKind.OUTPUT, False, detail + (
            f" (und {len(bad) - 1} weitere)" if len(bad) > 1 else ""), why, subject=group))
    return layers


def archive_layer(mdir: Path, manifest: dict[str, str]) -> Layer | Stop:
    """Layer 6, **Archiv**: the archived copies against the manifest (a
    hand-edited or damaged file in the archive is named, not silently passed)."""
    for name, digest in sorted(manifest.items()):
        data = _archived(mdir, name)
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            return Stop(Layer(LayerKind.ARCHIVE, False, f"{name} weicht vom Manifest ab"),
                        f"{name} (archivierte Datei weicht vom Manifest ab)")
    return Layer(LayerKind.ARCHIVE, True, f"{len(manifest)} Dateien wie im Manifest")


def hash_list_check(mdir: Path) -> Stop | None:
    """Layer 7, **Hashliste**: every stored file against the month's hash list
    (the index, the list itself and its link included: what neither the
    provenance nor the manifest covers); a layer only when it finds damage."""
    damage = [f for f in integrity.verify_month(mdir) if not f.uncovered]
    if damage:
        return Stop(Layer(LayerKind.HASH_LIST, False, str(damage[0])), str(damage[0]))
    return None


def replay_month(camp: Campaign, segment: str, month: MonthDate | str,
                 writers: dict[str, OutputWriter] | None = None, *,
                 templates: Path | None = None, rules_dir: Path | None = None,
                 rules_added: list[str] | None = None,
                 fallback: dict[str, OutputWriter] | None = None) -> ReplayReport:
    """Re-run an archived month from its own archive — state before, sheets,
    rules, further inputs, templates, seed — in a temporary directory and
    compare every output with the manifest, in layers (docs/turns.md,
    "Replay"): the provenance first (which software resolved it), then the
    inputs against their recorded hashes, the rules, the state and events,
    each rendered output, and the archived copies. Never raises for a
    difference; it names the layer and, where it can, why.

    The outputs regenerated are exactly those the manifest lists
    (``outputs/<name>/...``), taken from ``writers`` or the registered ones; an
    archived output with no writer available is reported as the difference.
    ``templates``: where :func:`wdg.store.months.archived_templates` wrote the
    month's templates (``None``: the month archived none, or the caller did not
    ask). ``rules_dir``, ``rules_added``: the month's rules completed by
    :func:`fill_month_rules` and what it added (the writers must be given the
    same folder). ``fallback``: writers with the shipped templates, used when the
    campaign's templates (a month that archived none) cannot render with this
    version — said so in a layer of its own."""
    date = MonthDate.parse(month) if isinstance(month, str) else month
    mdir = month_dir(camp, segment, date)
    manifest = read_manifest(mdir, segment, date)
    prov = read_provenance(mdir)
    report = _report_for(date, len(manifest), prov)
    # 1. inputs against the provenance's hashes, and the state before
    inputs = inputs_layer(mdir, prov)
    if isinstance(inputs, Stop):
        return report.stopped(inputs)
    report.layers.append(inputs)
    seed = safe_load_file(mdir / "seed.yaml")
    seg = state_before(mdir)
    if isinstance(seg, Stop):
        return report.stopped(seg)
    # 2. rules: the month resolved again (a key this version needs completed); the seed
    resolved = resolve_layer(mdir, seg, rules_dir, rules_added)
    if isinstance(resolved, Stop):
        return report.stopped(resolved)
    report.layers.append(resolved.layer)
    if (stop := seed_check(resolved.result, seed)) is not None:
        return report.stopped(stop)
    _as_archived(resolved.result, mdir, segment, seed)
    archived = output_writers(manifest, writers)
    if isinstance(archived, Stop):
        return report.stopped(archived)
    events_name = next((n for n in EVENT_FILES if n in manifest), EVENTS)
    with tempfile.TemporaryDirectory(prefix="wdg-replay-") as tmp:
        rendered = render_outputs(resolved.result, Path(tmp), archived, events_name,
                                  templates, fallback)
        differing = rendered.differing(manifest, next(iter(archived), ""))
        # 3. state, 4. events
        state, other_game = state_layer(mdir, [n for n in differing if n.startswith("state/")],
                                        rendered.new_bytes, resolved.added)
        events, reworded = events_layer(mdir, events_name, events_name in differing,
                                        rendered.new_bytes.get(events_name, b""))
        report.layers += [state, events]
        # 5. each rendered output, by kind
        reasons = OutputReasons(
            other_game=other_game, events_differ=events_name in differing and not reworded,
            reworded=reworded, same_software=report.same_software,
            fell_back=bool(rendered.fell_back), templates_archived=templates is not None,
            rules_completed=bool(resolved.added))
        report.layers += output_layers(mdir, manifest, rendered, differing, reasons, prov)
    if differing:
        report.first_difference = differing[0]
        return report
    if not resolved.layer.ok:  # completed keys that made no difference: not a finding
        resolved.layer.ok = True
        resolved.layer.why = "ergänzte Schlüssel ohne Einfluß auf das Ergebnis"
    # 6. the replay reproduced the manifest; the archived copies must match it too
    archive = archive_layer(mdir, manifest)
    if isinstance(archive, Stop):
        return report.stopped(archive)
    report.layers.append(archive)
    # 7. every stored file against the month's hash list
    if (stop := hash_list_check(mdir)) is not None:
        return report.stopped(stop)
    return report
