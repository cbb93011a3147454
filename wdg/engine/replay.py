"""Replay of an archived month: re-run it from its own archive and compare
every output with the manifest, in layers (docs/turns.md, "Replay").

The archive itself — commit, undo, files, packs, blobs, provenance — is the
store's (:mod:`wdg.store.months`); replay lives above it, beside the month
runner it calls (:mod:`wdg.engine.turn`) and the upgrade whose rule defaults
it uses for months resolved before a rule key existed (:mod:`wdg.engine.upgrade`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wdg.campaign import Campaign
from wdg.errors import DataError, StateError, WdgError
from wdg.rules import safe_load_file
from wdg.store import integrity
from wdg.store.files import (EVENT_FILES, EVENTS, YAML_LOADER, decompress, dump_yaml, hash_tree,
                             read_archived, sha256, stored_bytes)
from wdg.store.months import (INPUTS, PROVENANCE, OutputWriter, content_hashes, month_dir,
                              read_order_files, read_provenance, registered_outputs,
                              write_outputs)
from wdg.world.calendar import MonthDate

@dataclass(slots=True)
class Layer:
    """One layer of a replay's comparison: ``ok``, what differs (``detail``)
    and, where the replay can tell, why (``why``)."""

    name: str
    ok: bool
    detail: str = ""
    why: str = ""


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
    from wdg.campaign import PACKAGE_ROOT
    from wdg.rules import Rules

    archived = Rules.load(month_rules)
    shipped = Rules.load(PACKAGE_ROOT / "worlds" / "rules")

    def merge(base: Any, over: Any) -> Any:
        if isinstance(base, dict) and isinstance(over, dict):
            return {**base, **{k: merge(base.get(k), v) for k, v in over.items()}}
        return over if over is not None or base is None else base

    from wdg.engine.upgrade import RULE_KEYS_ADDED, RULES_OFF_WHEN_ABSENT

    data = {area: merge(shipped._data.get(area), archived._data.get(area))
            for area in sorted(set(shipped._data) | set(archived._data))}
    for file, key in RULES_OFF_WHEN_ABSENT:  # absent then = off then: not completed
        area = file.removesuffix(".yaml")
        if area not in archived._data:
            if key is None or area not in data:
                data.pop(area, None)
                continue
        if key is not None and isinstance(data.get(area), dict):
            parts, node = key.split("."), archived._data.get(area)
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
        node = archived._data.get(area)
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        if node is None and isinstance(data.get(area), dict):
            target = data[area]
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = k.old_value
    return Rules(data, {**shipped._paths, **archived._paths})


def fill_month_rules(mdir: Path, target: Path) -> list[str]:
    """The month's rules with every key this version's shipped rules have and
    they lack (the key did not exist then) — the value of the old behaviour
    where known (:data:`wdg.engine.upgrade.RULE_KEYS_ADDED`), else the shipped
    one — written into ``target``; returns what was added (``[]``: nothing was
    missing, ``target`` is not written). For a replay by a newer version."""
    from wdg.campaign import PACKAGE_ROOT
    from wdg.engine.upgrade import _has, _scalar, _walk, off_when_absent, old_value

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
        for path, value in _walk(want):
            if _has(have, path):
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
                added.append(f"{shipped.name}: {key} = {_scalar(old if known else value)}"
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


def _explain_events(old: bytes | None, new: bytes, name: str) -> tuple[str, str]:
    """What differs between two event logs and whether only the wording does."""
    a = _event_rows(old, name) if old is not None else None
    b = _event_rows(new, name)
    if a is None or b is None:
        return "das archivierte Ereignisprotokoll ist nicht lesbar", ""
    if len(a) != len(b):
        from wdg.engine.replay_explain import align_events

        kinds = lambda rows: {r.get("kind") for r in rows}
        extra = sorted(kinds(b) - kinds(a)) or sorted(kinds(a) - kinds(b))
        text, _same, _reworded = align_events(a, b)
        return (text + (f" (Arten nur auf einer Seite: {', '.join(map(str, extra[:5]))})"
                        if extra else ""),
                "andere Ereignisarten dieser Version" if extra else "anderer Spielverlauf")
    texts = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    wording = [i for i in texts if {**a[i], "why": ""} == {**b[i], "why": ""}]
    if texts and len(wording) == len(texts):
        i = wording[0]
        return (f"{len(texts)} von {len(a)} Ereignissen nur im Wortlaut, z. B. Nr. {i + 1} "
                f"({a[i].get('kind')}): archiviert {str(a[i].get('why'))[:80]!r}, jetzt "
                f"{str(b[i].get('why'))[:80]!r}",
                "gleicher Spielverlauf, andere Formulierung der Ereignistexte")
    other = [i for i in texts if i not in wording]
    i = other[0] if other else 0
    keys = sorted(k for k in set(a[i]) | set(b[i]) if a[i].get(k) != b[i].get(k)) if other else []
    detail = (f"{len(texts)} von {len(a)} Ereignissen weichen ab, {len(wording)} davon nur im "
              f"Wortlaut; das erste mit anderem Inhalt: Nr. {i + 1} ({a[i].get('kind')}) in "
              f"{', '.join(keys) or '?'}")
    if keys and set(keys) <= {"why", "data"}:
        return detail + f": archiviert {a[i].get('data')!r}, jetzt {b[i].get('data')!r}"[:200], \
            "dieselben Ereignisse mit anderen Zusatzangaben oder Texten"
    return detail, ""


def _pdf_producer(data: bytes | None) -> str | None:
    import re

    if not data:
        return None
    m = re.search(rb"/Producer\s*\(([^)]*)\)", data)
    return m.group(1).decode("latin-1") if m else None


def _output_group(name: str) -> str:
    """``outputs/reports/k3/ergebnis.txt`` -> ``reports: ergebnis.txt`` (by file kind)."""
    parts = name.split("/")
    return f"{parts[1]}: {parts[-1]}" if len(parts) > 2 else name


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
    ``templates``: where :func:`wdg.store.months.archived_templates` wrote the month's templates
    (``None``: the month archived none, or the caller did not ask). ``rules_dir``,
    ``rules_added``: the month's rules completed by :func:`fill_month_rules` and
    what it added (the writers must be given the same folder). ``fallback``: writers
    with the shipped templates, used when the campaign's templates (a month that
    archived none) cannot render with this version — said so in a layer of its own."""
    from wdg.engine.turn import resolve_from_inputs
    from wdg.provenance import build_info, describe
    from wdg.rules import Rules
    from wdg.store.segment import load_segment

    date = MonthDate.parse(month) if isinstance(month, str) else month
    mdir = month_dir(camp, segment, date)
    if not (mdir / "manifest.yaml").is_file():
        raise StateError(f"Segment {segment!r}: kein archivierter Mond {date.key} ({mdir})")
    manifest = safe_load_file(mdir / "manifest.yaml")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise StateError(f"{mdir / 'manifest.yaml'}: kein Manifest eines Monds (keine Zuordnung 'files')")
    manifest = {str(k): str(v) for k, v in manifest["files"].items()}
    prov = read_provenance(mdir)
    ours = build_info()
    made = prov.get("wdg") if prov else None
    report = ReplayReport(date, len(manifest), None, made_by=describe(made),
                          this_version=describe(ours))
    if isinstance(made, dict):
        report.same_software = made.get("version") == ours["version"] and (
            not made.get("commit") or not ours["commit"] or made.get("commit") == ours["commit"])

    def stop(layer: Layer, first: str) -> ReplayReport:
        report.layers.append(layer)
        report.first_difference = first
        return report

    # 1. inputs against the provenance's hashes
    if prov and isinstance(prov.get("inputs"), dict):
        now: dict[str, str] = {}
        try:
            for folder in ("state-before", "orders", "rules", INPUTS):
                now.update(content_hashes(mdir, folder))
            now["seed.yaml"] = sha256(mdir / "seed.yaml")
        except (OSError, StateError) as e:
            return stop(Layer("Eingaben", False, str(e)), "Eingaben")
        for name in sorted(set(prov["inputs"]) | set(now)):
            if prov["inputs"].get(name) != now.get(name):
                what = "fehlt" if name not in now else \
                    "ist neu" if name not in prov["inputs"] else "wurde verändert"
                return stop(Layer("Eingaben", False, f"{name} {what} (SHA-256 laut "
                                  f"{PROVENANCE})", "eine archivierte Eingabe ist nicht mehr "
                                  "die, mit der der Mond ausgewertet wurde"),
                            f"{name} (Eingabe weicht von {PROVENANCE} ab)")
        report.layers.append(Layer("Eingaben", True, f"{len(now)} Dateien wie in {PROVENANCE}"))
    else:
        report.layers.append(Layer("Eingaben", True, "keine Herkunftsangaben (vor wdg 0.2.0): "
                                   "Eingaben nicht einzeln geprüft"))
    seed = safe_load_file(mdir / "seed.yaml")
    try:
        seg = load_segment(mdir / "state-before")
    except (OSError, WdgError, ValueError, EOFError) as e:
        return stop(Layer("Eingaben", False, f"state-before/: {e}"), "state-before")
    except Exception as e:  # noqa: BLE001 — a damaged archive file must not end in a traceback
        return stop(Layer("Eingaben", False, f"state-before/ nicht lesbar: {type(e).__name__}: {e}"),
                    "state-before")

    # 2. rules: a key this version needs that did not exist then is taken from the shipped rules
    orders = read_order_files(mdir / "orders")
    rules = Rules.load(rules_dir or mdir / "rules")
    added: list[str] = list(rules_added or [])
    result = None
    for _ in range(50):
        try:
            # a month resolved before wdg 0.2.0 (no provenance) kept its PBKDF2 hashes
            result = resolve_from_inputs(load_segment(mdir / "state-before") if added else seg,
                                         orders, rules,
                                         upgrade_passwords=(mdir / PROVENANCE).is_file())
            break
        except DataError as e:
            if e.found != "missing key" or not e.path:
                return stop(Layer("Auswertung", False, str(e)), "Auswertung")
            key = f"{Path(str(e.path)).name}: {e.where}"
            if key in added or rules_added:  # (completed already: the shipped rules lack it too)
                return stop(Layer("Auswertung", False, str(e)), "Auswertung")
            added.append(key)
            rules = _rules_with_defaults(mdir / "rules", added)
        except Exception as e:  # noqa: BLE001 — explained, never a traceback
            return stop(Layer("Auswertung", False, f"{type(e).__name__}: {e}",
                              "diese Version kann den Mond nicht erneut auswerten"), "Auswertung")
    if result is None:
        return stop(Layer("Regeln", False, "zu viele fehlende Schlüssel"), "Regeln")
    if added:
        report.layers.append(Layer(
            "Regeln", False, "fehlende Schlüssel ergänzt: " + "; ".join(added),
            "diese Schlüssel gab es nicht, als der Mond ausgewertet wurde; für den Vergleich "
            "ergänzt mit dem Wert des alten Verhaltens, wo er bekannt ist "
            "(wdg.engine.upgrade.RULE_KEYS_ADDED), sonst mit dem der mitgelieferten Regeln"))
    else:
        report.layers.append(Layer("Regeln", True))
    if result.entropy != list(seed["entropy"]):
        return stop(Layer("Seed", False, f"{result.entropy} statt {seed['entropy']}"), "seed.yaml")
    if seed.get("next_deadline"):  # set by the run before the month was archived
        result.set_next_deadline(str(seed["next_deadline"]))
    from wdg.digest import month_digest

    try:  # printed in the reports as the run printed it
        result.digest = month_digest(mdir, segment)
    except Exception:  # noqa: BLE001 — a damaged input: no digest; the outputs layer says it
        result.digest = None
    available = {**registered_outputs(), **(writers or {})}
    archived = sorted({k.split("/")[1] for k in manifest if k.startswith("outputs/")})
    for name in archived:
        if name not in available:
            return stop(Layer("Ausgaben", False, f"outputs/{name}/: kein Schreiber"),
                        f"outputs/{name}/ (no writer to regenerate it)")
    events_name = next((n for n in EVENT_FILES if n in manifest), EVENTS)

    def archived_content(name: str) -> bytes | None:
        try:
            return stored_bytes(mdir, name)
        except (OSError, StateError):
            return None

    got: dict[str, str] = {}
    new_bytes: dict[str, bytes] = {}
    failure: Layer | None = None
    fell_back: list[str] = []
    with tempfile.TemporaryDirectory(prefix="wdg-replay-") as tmp:
        own = Path(tmp) / "own"
        got.update(write_outputs(result, own, {}, events_name=events_name))
        for name in got:
            if not name.startswith("outputs/"):
                new_bytes[name] = (own / name).read_bytes()
        for name in archived:
            d = Path(tmp) / "out" / "outputs" / name
            d.mkdir(parents=True)
            writer = available[name]
            try:
                if getattr(writer, "works_beside", False):
                    writer(result, d, beside=lambda: None)
                else:
                    writer(result, d)
            except Exception as e:  # noqa: BLE001 — e.g. a template that does not fit
                spare = (fallback or {}).get(name) if templates is None else None
                if spare is not None:  # the campaign's templates: try the shipped ones
                    shutil.rmtree(d)
                    d.mkdir(parents=True)
                    try:
                        if getattr(spare, "works_beside", False):
                            spare(result, d, beside=lambda: None)
                        else:
                            spare(result, d)
                        fell_back.append(f"{type(e).__name__}: {str(e)[:160]}")
                        for rel, digest in hash_tree(d).items():
                            got[f"outputs/{name}/{rel}"] = digest
                        continue
                    except Exception:  # noqa: BLE001 — then the first error is the finding
                        pass
                why = "die Vorlagen dieses Monats sind nicht archiviert (vor wdg 0.2.0); " \
                      "gerendert mit den Vorlagen der Kampagne bzw. den mitgelieferten, die " \
                      "nicht zu dieser Version passen" if templates is None else \
                      "die archivierten Vorlagen passen nicht zu dieser Version"
                failure = Layer(f"Ausgaben {name}", False,
                                f"Rendern fehlgeschlagen: {type(e).__name__}: {str(e)[:200]}", why)
                continue
            for rel, digest in hash_tree(d).items():
                got[f"outputs/{name}/{rel}"] = digest
        groups: dict[str, list[str]] = {}
        for name in sorted(set(manifest) | set(got)):
            if name.startswith("outputs/"):
                groups.setdefault(_output_group(name), []).append(name)
        differing = [n for n in sorted(set(manifest) | set(got)) if manifest.get(n) != got.get(n)]
        if failure is not None:
            differing = [n for n in differing if not n.startswith("outputs/")] or \
                [f"outputs/{archived[0]}/"]

        def output_bytes(name: str) -> bytes | None:
            p = Path(tmp) / "out" / name
            if p.is_file():
                return p.read_bytes()
            try:
                return read_archived(p, root=Path(tmp) / "out" / "outputs" / name.split("/")[1])
            except (OSError, StateError):
                return None

        # 3. state, then events
        state_diff = [n for n in differing if n.startswith("state/")]
        same_game = True
        if state_diff:
            from wdg.engine.replay_explain import FORMAT as ONLY_FORMAT
            from wdg.engine.replay_explain import GAME, PASSWORDS, state_difference

            kinds: dict[str, tuple[str, str]] = {}
            for m in state_diff:
                a_, b_ = archived_content(m), new_bytes.get(m)
                kinds[m] = state_difference(m, a_, b_) if a_ is not None and b_ is not None \
                    else (GAME, "")
            same_game = all(k != GAME for k, _ in kinds.values())
            n = next((m for m in state_diff if kinds[m][0] == GAME), state_diff[0])
            detail = kinds[n][1] or _explain_state(n, archived_content(n), new_bytes.get(n))
            others = [kinds[m][1].split(": ", 1)[-1].split(";")[0] for m in state_diff
                      if m != n and kinds[m][0] != GAME]
            if not same_game:
                why = "anderer Spielstand" + (" — mit den ergänzten Regel-Schlüsseln" if added
                                              else "")
            elif any(k == PASSWORDS for k, _ in kinds.values()):
                why = ("derselbe Spielstand: nur das Passwortverfahren (diese Version ersetzt "
                       "alte Passwort-Hashes)" + (", dazu das neuere Segmentformat" if any(
                           k == ONLY_FORMAT for k, _ in kinds.values()) else ""))
            else:
                why = "derselbe Spielstand, nur im neueren Segmentformat geschrieben"
            report.layers.append(Layer("Zustand", False, detail + (
                f" (und {len(state_diff) - 1} weitere Dateien"
                + (f": {'; '.join(sorted(set(others)))}" if others and same_game else "") + ")"
                if len(state_diff) > 1 else ""), why))
        else:
            report.layers.append(Layer("Zustand", True))
        if events_name in differing:
            detail, why = _explain_events(archived_content(events_name),
                                          new_bytes.get(events_name, b""), events_name)
            report.layers.append(Layer("Ereignisse", False, detail, why))
        else:
            report.layers.append(Layer("Ereignisse", True))
        # 4. each rendered output, by kind
        if fell_back and failure is None:
            report.layers.append(Layer(
                "Vorlagen", False, f"die Vorlagen der Kampagne lassen sich mit dieser Version "
                f"nicht rendern ({fell_back[0]})", "die Berichte wurden stattdessen mit den "
                "mitgelieferten Vorlagen gerendert und verglichen"))
        if failure is not None:
            report.layers.append(failure)
        else:
            for group, names in sorted(groups.items()):
                bad = [n for n in names if n in differing]
                if not bad:
                    report.layers.append(Layer(f"Ausgabe {group}", True, f"{len(names)} Dateien"))
                    continue
                n = bad[0]
                old, new = archived_content(n), output_bytes(n)
                why = ""
                if old is None or new is None:
                    detail = f"{n} {'ist neu' if old is None else 'entsteht nicht mehr'}"
                    why = "diese Version schreibt andere Dateien"
                elif n.endswith(".pdf"):
                    from wdg.engine.replay_explain import pdf_reason
                    from wdg.provenance import environment

                    html = n[: -len(".pdf")] + ".html"
                    detail = f"{n}"
                    why = pdf_reason(old, new, html_differs=(html in differing) if html in
                                     set(manifest) | set(got) else None,
                                     made_with=(prov or {}).get("dependencies") if prov else None,
                                     ours=environment()["dependencies"])
                else:
                    detail = f"{n}: {_first_line_difference(old, new)}"
                if not why:
                    reasons = []
                    wording = any(x.name == "Ereignisse" and "andere Formulierung" in x.why
                                  for x in report.layers)
                    if (state_diff and not same_game) or (events_name in differing
                                                          and not wording):
                        reasons.append("folgt aus den abweichenden Ereignissen bzw. dem Zustand")
                    elif wording:
                        reasons.append("folgt aus dem anderen Wortlaut der Ereignistexte")
                    if report.same_software is not True:
                        reasons.append("andere wdg-Version (anderer Programmcode der Berichte)")
                    if fell_back:
                        reasons.append("gerendert mit den mitgelieferten Vorlagen (die der "
                                       "Kampagne passen nicht zu dieser Version)")
                    elif templates is None:
                        reasons.append("die Vorlagen dieses Monats sind nicht archiviert (vor "
                                       "wdg 0.2.0): gerendert mit den heutigen Vorlagen")
                    if added:
                        reasons.append("ergänzte Regel-Schlüssel")
                    why = "; ".join(reasons)
                report.layers.append(Layer(f"Ausgabe {group}", False,
                                           detail + (f" (und {len(bad) - 1} weitere)"
                                                     if len(bad) > 1 else ""), why))
    if differing:
        report.first_difference = differing[0]
        return report
    for layer in report.layers:  # completed keys that made no difference: not a finding
        if layer.name == "Regeln" and not layer.ok:
            layer.ok, layer.why = True, "ergänzte Schlüssel ohne Einfluß auf das Ergebnis"
    # The replay reproduced the manifest; the archived copies must match it too
    # (a hand-edited or damaged file in the archive is named, not silently passed).
    for name, digest in sorted(manifest.items()):
        data = archived_content(name)
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            report.layers.append(Layer("Archiv", False, f"{name} weicht vom Manifest ab"))
            report.first_difference = f"{name} (archivierte Datei weicht vom Manifest ab)"
            return report
    report.layers.append(Layer("Archiv", True, f"{len(manifest)} Dateien wie im Manifest"))
    # Every stored file against the month's hash list (the index, the list itself
    # and its link included: what neither the provenance nor the manifest covers).
    damage = [f for f in integrity.verify_month(mdir) if not f.uncovered]
    if damage:
        report.layers.append(Layer("Hashliste", False, str(damage[0])))
        report.first_difference = str(damage[0])
    return report
