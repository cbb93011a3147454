"""JSON Schemas (draft 2020-12) of the archive's formats, shipped in every archive
package (``schemas/``, :mod:`wdg.engine.export_archive`) and described in
docs/storage.md and docs/turns.md. YAML files are described by the schema of the
data they hold."""

from __future__ import annotations

from typing import Any

_S = "https://json-schema.org/draft/2020-12/schema"
_SHA = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_MONTH = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$", "description": "YYYY-MM"}
_HASHES = {"type": "object", "additionalProperties": _SHA}

SCHEMAS: dict[str, dict[str, Any]] = {
    "manifest": {
        "$schema": _S, "title": "manifest.yaml of an archived month",
        "description": "SHA-256 of the content of every output of the month (state after, "
                       "event log, outputs/...; compressed files and pack members by content).",
        "type": "object", "required": ["segment", "month", "files"],
        "properties": {"segment": {"type": "string"}, "month": _MONTH, "files": _HASHES},
    },
    "seed": {
        "$schema": _S, "title": "seed.yaml of an archived month",
        "type": "object", "required": ["segment", "month", "entropy", "kingdom_order"],
        "properties": {
            "segment": {"type": "string"}, "month": _MONTH,
            "entropy": {"type": "array", "items": {"type": "integer"}, "minItems": 3,
                        "maxItems": 3, "description": "[campaign seed, year, month]"},
            "kingdom_order": {"type": "array", "items": {"type": "integer"}},
            "next_deadline": {"type": "string"}},
    },
    "summary": {
        "$schema": _S, "title": "summary.yaml: an archived month's index entry",
        "type": "object",
        "properties": {
            "segment": {"type": "string"}, "month": _MONTH,
            "entropy": {"type": "array", "items": {"type": "integer"}},
            "kingdom_order": {"type": "array", "items": {"type": "integer"}},
            "sheets": {"type": "array", "items": {"type": "string"}},
            "events": {"type": "integer"},
            "events_by_kingdom": {"type": "object", "additionalProperties": {"type": "integer"}},
            "sizes": {"type": "object", "additionalProperties": {"type": "integer"}}},
    },
    "provenance": {
        "$schema": _S, "title": "provenance.yaml: what made an archived month",
        "type": "object",
        "required": ["format", "segment", "month", "wdg", "python", "dependencies", "inputs"],
        "properties": {
            "format": {"const": 1}, "segment": {"type": "string"}, "month": _MONTH,
            "segment_format": {"type": "integer"},
            "wdg": {"type": "object", "required": ["version"], "properties": {
                "version": {"type": "string"},
                "commit": {"type": ["string", "null"]},
                "dirty": {"type": ["boolean", "null"]},
                "source": {"enum": ["git", "build", "unknown"]},
                "wheel_sha256": {"anyOf": [_SHA, {"type": "null"}], "description":
                                 "SHA-256 of the wdg wheel built from the running code "
                                 "(wdg.software; since 0.3.0)"}}},
            "python": {"type": "object", "properties": {
                "version": {"type": "string"}, "implementation": {"type": "string"},
                "platform": {"type": "string"}}},
            "dependencies": {"type": "object", "additionalProperties": {
                "type": "object", "required": ["version"], "properties": {
                    "version": {"type": "string"}, "record_sha256": _SHA}}},
            "inputs": {**_HASHES, "description": "path in the month folder (compressed files "
                       "under their plain name) -> SHA-256 of the content"},
            "templates": {**_HASHES, "description": "template name -> SHA-256 (a blob)"},
            "previous_month": {"type": "object", "properties": {
                "month": _MONTH, "manifest_sha256": _SHA}}},
    },
    "event": {
        "$schema": _S, "title": "one line of events.jsonl.xz",
        "type": "object", "required": ["kind"],
        "properties": {
            "kind": {"type": "string"}, "kingdom": {"type": "integer"},
            "army": {"type": "integer"},
            "at": {"type": ["string", "array"], "description": "address PPP.GG"},
            "why": {"type": "string"}, "gold": {"type": "integer"},
            "ledger": {"type": "string"}, "public": {"type": "boolean"},
            "line": {"type": "integer"}, "data": {"type": "object"}},
    },
    "index": {
        "$schema": _S, "title": "index.json of a wdg archive package",
        "type": "object", "required": ["format", "segment", "months", "files"],
        "properties": {
            "format": {"const": 1}, "segment": {"type": "string"},
            "made_by": {"type": "object"},
            "files": {**_HASHES, "description": "every file of the package but index.json"},
            "months": {"type": "array", "items": {
                "type": "object", "required": ["month", "manifest"],
                "properties": {
                    "month": _MONTH, "manifest": _HASHES,
                    "provenance": {"type": ["object", "null"]},
                    "redacted": {"type": "object", "additionalProperties": {
                        "type": "object", "properties": {"original_sha256": _SHA,
                                                         "note": {"type": "string"}}}}}}}},
    },
}
