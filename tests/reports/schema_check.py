"""A small JSON Schema checker for docs/report-schema.json: the keywords that
schema uses (type, const, enum, required, properties, additionalProperties,
items, minItems, maxItems, minimum, maximum, pattern, propertyNames, $ref to
#/$defs; additionalProperties false or a schema). Returns every violation as
"path: message"; a keyword outside that subset is an error of the schema
(so the schema never says more than is checked). ``x-text: true`` marks a
field whose value is German text for people (:func:`german_outside_text`)."""

from __future__ import annotations

import re
from typing import Any

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


_KEYWORDS = {"type", "const", "enum", "required", "properties", "additionalProperties", "items",
             "minItems", "maxItems", "minimum", "maximum", "pattern", "propertyNames", "$ref",
             "description", "title", "$schema", "$id", "$defs", "x-text"}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def check(value: Any, schema: dict[str, Any], root: dict[str, Any] | None = None,
          path: str = "$") -> list[str]:
    root = root or schema
    unknown = set(schema) - _KEYWORDS
    assert not unknown, f"{path}: schema keywords {sorted(unknown)} are not checked"
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        return check(value, root["$defs"][ref.split("/")[-1]], root, path)
    errs: list[str] = []
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, t) for t in types):
            return [f"{path}: {type(value).__name__} is not {schema['type']}"]
    if "const" in schema and value != schema["const"]:
        errs.append(f"{path}: {value!r} != {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{path}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errs.append(f"{path}: {value} < {schema['minimum']}")
    if "maximum" in schema and isinstance(value, (int, float)) and value > schema["maximum"]:
        errs.append(f"{path}: {value} > {schema['maximum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errs.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errs.append(f"{path}: missing {key!r}")
        props = schema.get("properties", {})
        for key, v in value.items():
            if key in props:
                errs += check(v, props[key], root, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                errs.append(f"{path}: unexpected key {key!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                errs += check(v, schema["additionalProperties"], root, f"{path}.{key}")
            if "propertyNames" in schema:
                errs += check(key, schema["propertyNames"], root, f"{path}.{key}(name)")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errs.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errs.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, v in enumerate(value):
                errs += check(v, schema["items"], root, f"{path}[{i}]")
    return errs


_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{2,}")


def _resolve(schema: dict[str, Any] | None, root: dict[str, Any]) -> dict[str, Any] | None:
    while schema is not None and "$ref" in schema:
        schema = root["$defs"][schema["$ref"].split("/")[-1]]
    return schema


def german_outside_text(value: Any, schema: dict[str, Any], root: dict[str, Any] | None = None,
                        path: str = "$", key: str = "", text: bool = False) -> list[str]:
    """Paths of strings that read as German phrases (three words or more) in a
    field that is not text: its key is neither ``text`` nor ends in ``_text``,
    and its schema does not mark it (or a field around it) ``x-text``. Issue
    #32: "German text only in fields named as text"."""
    root = root or schema
    node = _resolve(schema, root)
    text = text or key == "text" or key.endswith("_text") or bool(node and node.get("x-text"))
    if isinstance(value, str):
        phrase = " " in value.strip() and len(_WORD.findall(value)) >= 3
        return [f"{path}: {value[:60]!r}"] if phrase and not text else []
    out: list[str] = []
    if isinstance(value, dict):
        props = (node or {}).get("properties", {})
        extra = (node or {}).get("additionalProperties")
        for k, v in value.items():
            sub = props.get(k, extra if isinstance(extra, dict) else None)
            out += german_outside_text(v, sub or {}, root, f"{path}.{k}", k, text)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += german_outside_text(v, (node or {}).get("items") or {}, root, f"{path}[{i}]",
                                       key, text)
    return out
