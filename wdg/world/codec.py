"""A generic codec between state records and YAML-able plain data.

The codec is driven by the dataclass type hints, so a field another module
appends to a record later (with a default) is saved, loaded and type-checked
without touching storage. Supported types: ``int``, ``str``, ``bool``,
``float``, enums (by value), ``X | None``, ``list[X]``, ``dict[K, V]``, nested
dataclasses (fields at their default value are left out when writing),
:class:`~wdg.world.hexgrid.Hex` (written as the address
``PPP.GG``; ``Hex | None`` writes ``None`` as the passive gemark ``000.00``)
and :class:`~wdg.world.calendar.MonthDate` (``YYYY-MM``).

Decoding validates: a wrong type, an unknown enum value, an address off the
map, a missing required key or an unknown key raises
:class:`~wdg.errors.DataError` with the key path (``armies[3].units``) and no
file; :mod:`wdg.store.segment` adds the file name.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import lru_cache
from typing import Any

from wdg.errors import DataError, InvalidInputError
from wdg.world.address import PASSIVE, Grid
from wdg.world.calendar import MonthDate
from wdg.world.hexgrid import Hex

Encoder = Callable[[Any, Grid], Any]
"""``encode(value, grid) -> plain data``."""
Decoder = Callable[[Any, str, Grid], Any]
"""``decode(data, key_path, grid) -> value``; raises DataError."""


def encode(value: Any, tp: Any, grid: Grid) -> Any:
    """Plain data (for YAML) of ``value`` of type ``tp``."""
    return codec(tp)[0](value, grid)


def decode(data: Any, tp: Any, where: str, grid: Grid) -> Any:
    """The value of type ``tp`` that ``data`` (from YAML) describes; ``where`` is
    the key path used in error messages."""
    return codec(tp)[1](data, where, grid)


def _bad(where: str, found: Any, expected: str) -> DataError:
    return DataError(None, where, found, expected)


@lru_cache(maxsize=None)
def codec(tp: Any) -> tuple[Encoder, Decoder]:
    """The (encoder, decoder) pair of a type; built once per type."""
    origin = typing.get_origin(tp)
    if tp is bool:
        return _identity, _decode_bool
    if tp is int:
        return _identity, _decode_int
    if tp is float:
        return _encode_float, _decode_float
    if tp is str:
        return _identity, _decode_str
    if tp is Hex:
        return _encode_hex, _decode_hex
    if tp is MonthDate:
        return _encode_month, _decode_month
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum_codec(tp)
    if origin in (typing.Union, types.UnionType):
        return _optional_codec(tp)
    if origin is list:
        return _list_codec(typing.get_args(tp)[0])
    if origin is dict:
        k, v = typing.get_args(tp)
        return _dict_codec(k, v)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_codec(tp)
    raise TypeError(f"the segment codec does not support the type {tp!r}")


# --- scalars -----------------------------------------------------------------

def _identity(value: Any, grid: Grid) -> Any:
    return value


def _decode_bool(data: Any, where: str, grid: Grid) -> bool:
    if not isinstance(data, bool):
        raise _bad(where, data, "true oder false")
    return data


def _decode_int(data: Any, where: str, grid: Grid) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise _bad(where, data, "eine ganze Zahl")
    return data


def _encode_float(value: float, grid: Grid) -> float:
    return float(value)


def _decode_float(data: Any, where: str, grid: Grid) -> float:
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise _bad(where, data, "eine Zahl")
    return float(data)


def _decode_str(data: Any, where: str, grid: Grid) -> str:
    if not isinstance(data, str):
        raise _bad(where, data, "ein Text")
    return data


def _encode_hex(value: Hex, grid: Grid) -> str:
    return grid.label(value)


def _decode_hex(data: Any, where: str, grid: Grid) -> Hex:
    if not isinstance(data, str):
        raise _bad(where, data, "eine Adresse wie '101.01' (in Anführungszeichen)")
    try:
        return grid.parse(data)
    except InvalidInputError as exc:
        raise _bad(where, data, f"eine gültige Adresse ({exc})") from None


def _encode_month(value: MonthDate, grid: Grid) -> str:
    return value.key


def _decode_month(data: Any, where: str, grid: Grid) -> MonthDate:
    if not isinstance(data, str):
        raise _bad(where, data, "einen Monat 'JJJJ-MM' (in Anführungszeichen), z. B. '0412-04'")
    try:
        return MonthDate.parse(data)
    except InvalidInputError:
        raise _bad(where, data, "einen Monat 'JJJJ-MM', z. B. '0412-04'") from None


# --- composites ----------------------------------------------------------------

def _enum_codec(tp: type[Enum]) -> tuple[Encoder, Decoder]:
    by_value = {m.value: m for m in tp}
    expected = "einen von " + ", ".join(repr(v) for v in by_value)

    def enc(value: Enum, grid: Grid) -> Any:
        return value.value

    def dec(data: Any, where: str, grid: Grid) -> Enum:
        try:
            return by_value[data]
        except (KeyError, TypeError):
            raise _bad(where, data, expected) from None

    return enc, dec


def _optional_codec(tp: Any) -> tuple[Encoder, Decoder]:
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if len(args) != 1 or len(typing.get_args(tp)) != 2:
        raise TypeError(f"only 'X | None' unions are supported, got {tp!r}")
    inner_enc, inner_dec = codec(args[0])
    if args[0] is Hex:
        # Positions: None is the special gemark of passive armies.
        def enc_pos(value: Any, grid: Grid) -> Any:
            return PASSIVE if value is None else inner_enc(value, grid)

        def dec_pos(data: Any, where: str, grid: Grid) -> Any:
            if data is None or (isinstance(data, str) and data.strip() == PASSIVE):
                return None
            return inner_dec(data, where, grid)

        return enc_pos, dec_pos

    def enc(value: Any, grid: Grid) -> Any:
        return None if value is None else inner_enc(value, grid)

    def dec(data: Any, where: str, grid: Grid) -> Any:
        return None if data is None else inner_dec(data, where, grid)

    return enc, dec


def _list_codec(item: Any) -> tuple[Encoder, Decoder]:
    item_enc, item_dec = codec(item)

    def enc(value: list[Any], grid: Grid) -> list[Any]:
        return [item_enc(v, grid) for v in value]

    def dec(data: Any, where: str, grid: Grid) -> list[Any]:
        if not isinstance(data, list):
            raise _bad(where, data, "eine Liste")
        return [item_dec(v, f"{where}[{i}]", grid) for i, v in enumerate(data)]

    return enc, dec


def _dict_codec(key: Any, value: Any) -> tuple[Encoder, Decoder]:
    key_enc, key_dec = codec(key)
    val_enc, val_dec = codec(value)

    def enc(value_: dict[Any, Any], grid: Grid) -> dict[Any, Any]:
        items = sorted(value_.items(), key=lambda kv: _sort_key(kv[0]))
        return {key_enc(k, grid): val_enc(v, grid) for k, v in items}

    def dec(data: Any, where: str, grid: Grid) -> dict[Any, Any]:
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise _bad(where, data, "eine Zuordnung (Schlüssel: Wert)")
        out = {}
        for k, v in data.items():
            out[key_dec(k, f"{where}.{k}", grid)] = val_dec(v, f"{where}.{k}", grid)
        return out

    return enc, dec


def _sort_key(k: Any) -> Any:
    return k.value if isinstance(k, Enum) else k


_NO_DEFAULT = object()


def _dataclass_codec(cls: type) -> tuple[Encoder, Decoder]:
    hints = typing.get_type_hints(cls)
    plan: list[tuple[str, Encoder, Decoder, Any]] = []
    omit: list[tuple[str, Any]] = []
    for f in dataclasses.fields(cls):
        enc_f, dec_f = codec(hints[f.name])
        if f.default is not dataclasses.MISSING:
            default: Any = lambda d=f.default: d
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory
        else:
            default = _NO_DEFAULT
        plan.append((f.name, enc_f, dec_f, default))
        if default is not _NO_DEFAULT and hints[f.name] != Hex | None:
            omit.append((f.name, default()))
    names = [p[0] for p in plan]
    known = set(names)
    expected_keys = "Schlüssel aus " + ", ".join(names)
    omittable = dict(omit)

    def enc(value: Any, grid: Grid) -> dict[str, Any]:
        # Fields at their default are left out (positions are always written),
        # which keeps files short and loading fast; decoding fills them in.
        out = {}
        for name, enc_f, _, _ in plan:
            v = getattr(value, name)
            if name in omittable and type(v) is type(omittable[name]) and v == omittable[name]:
                continue
            out[name] = enc_f(v, grid)
        return out

    def dec(data: Any, where: str, grid: Grid) -> Any:
        if not isinstance(data, dict):
            raise _bad(where, data, f"eine Zuordnung mit {expected_keys}")
        for k in data:
            if k not in known:
                raise _bad(f"{where}.{k}" if where else str(k), k, expected_keys)
        kwargs = {}
        for name, _, dec_f, default in plan:
            sub = f"{where}.{name}" if where else name
            if name in data:
                kwargs[name] = dec_f(data[name], sub, grid)
            elif default is _NO_DEFAULT:
                raise _bad(sub, "nichts (Schlüssel fehlt)", f"einen Wert für den Pflichtschlüssel {name!r}")
            else:
                kwargs[name] = default()
        return cls(**kwargs)

    return enc, dec


def deep_equal(a: Any, b: Any) -> bool:
    """Structural equality that understands numpy arrays (same shape, dtype and
    values) inside dataclasses, dicts, lists and tuples."""
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and a.dtype == b.dtype and bool(np.array_equal(a, b)))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            deep_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(deep_equal(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(deep_equal(x, y) for x, y in zip(a, b)))
    return bool(a == b) and type(a) is type(b)
