"""PyYAML's safe dumping and loading of plain data, without most of its
per-node Python cost, and with exactly its bytes and values.

A stress segment's state (3,600 armies) and sixty kingdom views are dumped
every month, and the state is loaded before anything else can start; PyYAML's
representer and constructor (Python, a dozen calls per node) took most of
that time although the parsing and emitting are done by libyaml. Here the
node tree is built (:func:`dump`) or read (:func:`load`) by one small
function for the plain types — ``dict``, ``list``, ``str``, ``int``,
``bool``, ``None``, ``float`` — and libyaml does the rest through PyYAML's own
classes, so the text is the one :func:`yaml.dump` writes and the values are
the ones :func:`yaml.safe_load` gives. Anything else (another type, an object
met twice, which PyYAML writes as an alias; tags beyond the plain ones,
aliases and merge keys when loading) goes to PyYAML itself, which then also
raises its own errors. ``tests/world/test_yamlfast.py`` holds the two to
the same output.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

try:
    _Dumper: type = yaml.CSafeDumper
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _Dumper = yaml.SafeDumper
    _Loader = yaml.SafeLoader

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_FLOAT = "tag:yaml.org,2002:float"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"

_MEMO_LIMIT = 1 << 17
"""Resolved scalars kept per process (then forgotten and learnt again)."""


def _memo_resolve(base: Any) -> type:
    """``base`` whose ``resolve`` of plain scalars is remembered: PyYAML
    asks for every scalar (twice when writing) which tag its text implies,
    which depends only on the text and the two flags (no path resolvers are
    registered), and a month's files repeat most of their scalars."""
    memo: dict[tuple[str, tuple[bool, bool]], str] = {}

    def resolve(self: Any, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is not ScalarNode or self.yaml_path_resolvers:
            return base.resolve(self, kind, value, implicit)
        key = (value, implicit)
        got = memo.get(key)
        if got is None:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            got = memo[key] = base.resolve(self, kind, value, implicit)
        return got

    return type(f"Memo{base.__name__}", (base,), {"resolve": resolve})


_FastDumper = _memo_resolve(_Dumper)
_FastLoader = _memo_resolve(_Loader)
_REPRESENTER = yaml.representer.SafeRepresenter()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


class _Other(Exception):
    """The data holds something only PyYAML itself handles."""


# --- dumping ------------------------------------------------------------------------------

def dump(data: Any, **options: Any) -> str:
    """``yaml.dump(data, Dumper=<C safe dumper>, **options)``, the same text.
    ``options``: those of :func:`yaml.dump` (``sort_keys``, ``allow_unicode``,
    ``default_flow_style``, ``width``, ...)."""
    sort_keys = options.pop("sort_keys", True)
    flow = options.pop("default_flow_style", False)
    try:
        node = _Represent(sort_keys, flow).node(data)
    except _Other:
        return yaml.dump(data, Dumper=_Dumper, sort_keys=sort_keys, default_flow_style=flow,
                         **options)
    return yaml.serialize(node, Dumper=_FastDumper, **options)


class _Represent:
    def __init__(self, sort_keys: bool, flow: bool | None) -> None:
        self.sort_keys = sort_keys
        self.flow = flow
        self.seen: set[int] = set()

    def node(self, x: Any) -> Any:  # one branch per type
        t = type(x)
        if t is str:
            return ScalarNode(_STR, x)
        if t is int:
            return ScalarNode(_INT, str(x))
        if t is bool:
            return ScalarNode(_BOOL, "true" if x else "false")
        if x is None:
            return ScalarNode(_NULL, "null")
        if t is float:
            return _REPRESENTER.represent_float(x)
        if t is dict:
            self._once(x)
            items = list(x.items())
            if self.sort_keys:
                try:
                    items = sorted(items)
                except TypeError:
                    pass
            pairs = [(self.node(k), self.node(v)) for k, v in items]
            # the flattened nodes only when the style depends on them
            return MappingNode(_MAP, pairs, flow_style=self.flow if self.flow is not None
                               else self._style([n for kv in pairs for n in kv]))
        if t is list:
            self._once(x)
            nodes = [self.node(v) for v in x]
            return SequenceNode(_SEQ, nodes, flow_style=self._style(nodes))
        raise _Other

    def _once(self, x: Any) -> None:
        # PyYAML writes a container met twice as an anchor and an alias
        if id(x) in self.seen:
            raise _Other
        self.seen.add(id(x))

    def _style(self, nodes: list[Any]) -> bool:
        if self.flow is not None:
            return self.flow
        return all(isinstance(n, ScalarNode) and not n.style for n in nodes)


# --- loading ------------------------------------------------------------------------------

def load(text: str) -> Any:
    """``yaml.safe_load(text)`` (with libyaml when PyYAML has it): the same
    values, or PyYAML's own error."""
    node = yaml.compose(text, Loader=_FastLoader)
    if node is None:
        return None
    try:
        return _Construct().value(node)
    except (_Other, RecursionError):
        return yaml.load(text, Loader=_Loader)


class _Construct:
    def __init__(self) -> None:
        self.seen: set[int] = set()

    def value(self, node: Any) -> Any:  # one branch per tag
        tag = node.tag
        if tag == _STR:
            if type(node) is not ScalarNode:
                raise _Other
            return node.value
        if id(node) in self.seen:  # an alias: PyYAML gives the same object twice
            raise _Other
        self.seen.add(id(node))
        if tag == _MAP and type(node) is MappingNode:
            out: dict[Any, Any] = {}
            for k, v in node.value:
                if k.tag != _STR and k.tag != _INT:  # merge keys, values, odd keys
                    raise _Other
                out[self.value(k)] = self.value(v)
            return out
        if tag == _SEQ and type(node) is SequenceNode:
            return [self.value(v) for v in node.value]
        if type(node) is not ScalarNode:
            raise _Other
        if tag == _INT:
            v = node.value
            if v.isdigit() and (v[0] != "0" or v == "0"):
                return int(v)
            return _CONSTRUCTOR.construct_yaml_int(node)
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return _CONSTRUCTOR.construct_yaml_bool(node)
        if tag == _FLOAT:
            return _CONSTRUCTOR.construct_yaml_float(node)
        raise _Other
