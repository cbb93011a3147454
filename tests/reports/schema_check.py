"""A small JSON Schema checker for docs/report-schema.json: the keywords that
schema uses (type, const, enum, required, properties, additionalProperties,
items, minItems, maxItems, minimum, maximum, pattern, propertyNames, $ref to
#/$defs; additionalProperties false or a schema). Returns every violation as
"path: message"; a keyword outside that subset is an error of the schema
(so the schema never says more than is checked)."""

from __future__ import annotations

import re
from typing import Any

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


_KEYWORDS = {"type", "const", "enum", "required", "properties", "additionalProperties", "items",
             "minItems", "maxItems", "minimum", "maximum", "pattern", "propertyNames", "$ref",
             "description", "title", "$schema", "$id", "$defs"}


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
