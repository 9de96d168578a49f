"""Component value types whose nested types are looked up once.

wasmtime-py 50 asks the C API for a record's fields, a variant's cases, an
option's payload ... on every value it converts, builds a new type tree on
every call, and copies each string and field name twice. That cost ~200 µs per
`cap` of a small string, forty times the call itself. These subclasses keep
wasmtime's conversion code for variants, options, results and lists and only
cache the answers of those lookups; records and strings get leaner
conversions of their own.

Part of the fast call path (`_fast`): it subclasses wasmtime-py internals and
is imported only once `_runtime.fast_calls_unavailable()` has passed.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Optional, TypeAlias

from wasmtime import _ffi as ffi
from wasmtime.component import (
    ListType,
    OptionType,
    Record,
    RecordType,
    ResultType,
    String,
    U8,
    ValType,
    VariantType,
)
from wasmtime.component._types import VariantLikeType

from ._checks import UNSIGNED_BITS, check_uint

if TYPE_CHECKING:
    # The store type of `ValType.convert_to_c` (wasmtime does not re-export it).
    from wasmtime._store import Storelike

Cases = list[tuple[str, Optional[ValType]]]


def freeze(ty: ValType) -> ValType:
    """A copy of `ty` whose nested types are computed now, once."""
    if isinstance(ty, RecordType):
        return _Record([(name, freeze(field)) for name, field in ty.fields])
    if isinstance(ty, ListType):
        element = ty.element
        return _List(freeze(element), isinstance(element, U8))
    if isinstance(ty, VariantType):
        return _Variant([(name, _freeze_opt(case)) for name, case in ty.cases])
    if isinstance(ty, OptionType):
        return _Option(freeze(ty.payload))
    if isinstance(ty, ResultType):
        return _Result(_freeze_opt(ty.ok), _freeze_opt(ty.err))
    if isinstance(ty, String):
        return _String()
    for unsigned, bits in UNSIGNED_BITS:
        if isinstance(ty, unsigned):
            return _Checked(ty, bits)
    # Scalars, strings, enums and resource handles convert without lookups.
    return ty


def _freeze_opt(ty: Optional[ValType]) -> Optional[ValType]:
    return None if ty is None else freeze(ty)


# None of these hold a C pointer: `Managed.close` skips objects that never set
# one, so dropping them frees nothing twice.


_BYTES = ctypes.POINTER(ffi.wasm_byte_t)
_ValPtr: TypeAlias = "ctypes._Pointer[ffi.wasmtime_component_val_t]"


def _byte_vec(data: bytes) -> ffi.wasm_byte_vec_t:
    """A C-owned copy of `data` (one copy, where `ffi.str_to_capi` makes two)."""
    vec = ffi.wasm_byte_vec_t()
    # `c_char_p` points at `data`'s own buffer (no copy), alive for the call.
    ffi.wasm_byte_vec_new(ctypes.byref(vec), len(data), ctypes.cast(ctypes.c_char_p(data), _BYTES))
    return vec


def _take_str(vec: ffi.wasm_byte_vec_t) -> str:
    """The text of a C-owned byte vector, which is then freed."""
    text = ctypes.string_at(vec.data, vec.size).decode("utf-8")
    ffi.wasm_byte_vec_delete(ctypes.byref(vec))
    return text


class _Checked(ValType):
    """An unsigned integer type that refuses values out of its range:
    wasmtime-py stores them into ctypes fields, which silently wrap
    (2**32 would become a `max_bytes` of 0, "no cap")."""

    def __init__(self, inner: ValType, bits: int) -> None:
        self._inner = inner
        self._bits = bits

    def add_classes(self, s: set[type]) -> None:
        self._inner.add_classes(s)

    def convert_to_c(self, store: Storelike, val: Any, ptr: _ValPtr) -> None:
        check_uint(val, self._bits)  # the public path's check too
        self._inner.convert_to_c(store, val, ptr)

    def convert_from_c(self, c: ffi.wasmtime_component_val_t) -> Any:
        return self._inner.convert_from_c(c)


class _String(String):
    def convert_to_c(self, store: Storelike, val: Any, ptr: _ValPtr) -> None:
        if not isinstance(val, str):
            raise TypeError("expected a str")
        ptr.contents.kind = ffi.WASMTIME_COMPONENT_STRING
        ptr.contents.of.string = _byte_vec(val.encode("utf-8"))

    def convert_from_c(self, c: ffi.wasmtime_component_val_t) -> Any:
        assert c.kind == ffi.WASMTIME_COMPONENT_STRING.value
        return _take_str(c.of.string)


class _Record(RecordType):
    """Field names encoded once; lifted fields taken by position (the
    component's records have a fixed field order)."""

    def __init__(self, fields: list[tuple[str, ValType]]) -> None:
        self._fields = fields
        self._encoded = [(name, name.encode("utf-8"), ty) for name, ty in fields]

    @property
    def fields(self) -> list[tuple[str, ValType]]:
        return self._fields

    def convert_to_c(self, store: Storelike, val: Any, ptr: _ValPtr) -> None:
        raw = ffi.wasmtime_component_valrecord_t()
        ffi.wasmtime_component_valrecord_new_uninit(raw, len(self._encoded))
        done = 0
        try:
            for name, encoded, ty in self._encoded:
                entry = raw.data[done]
                ty.convert_to_c(store, getattr(val, name), ctypes.pointer(entry.val))
                entry.name = _byte_vec(encoded)
                done += 1
        except BaseException:
            # As wasmtime-py does: make the unfilled entries harmless, then free.
            for j in range(done, len(self._encoded)):
                raw.data[j].val.kind = ffi.WASMTIME_COMPONENT_BOOL
                raw.data[j].val.of.boolean = False
            ffi.wasmtime_component_valrecord_delete(ctypes.byref(raw))
            raise
        ptr.contents.kind = ffi.WASMTIME_COMPONENT_RECORD
        ptr.contents.of.record = raw

    def convert_from_c(self, c: ffi.wasmtime_component_val_t) -> Any:
        assert c.kind == ffi.WASMTIME_COMPONENT_RECORD.value
        out = Record()
        values = out.__dict__
        try:
            data = c.of.record.data
            for i, (name, _, ty) in enumerate(self._encoded):
                field = data[i].val
                values[name] = ty.convert_from_c(field)
                # The value is moved out: leave a plain bool for the delete below.
                field.kind = ffi.WASMTIME_COMPONENT_BOOL
                field.of.boolean = False
            return out
        finally:
            ffi.wasmtime_component_valrecord_delete(c.of.record)


class _List(ListType):
    def __init__(self, element: ValType, is_bytes: bool) -> None:
        self._element = element
        self._bytes = is_bytes

    @property
    def element(self) -> ValType:
        return self._element

    def _is_bytes(self) -> bool:
        return self._bytes


class _CachedCases(VariantLikeType):
    """Remembers the cases and whether values need a `Variant` wrapper."""

    def _init_cases(self, cases: Cases) -> None:
        self._case_list = cases
        self._is_tagged = VariantLikeType._tagged(self)

    def _cases(self) -> Cases:
        return self._case_list

    def _tagged(self) -> bool:
        return self._is_tagged


class _Variant(_CachedCases, VariantType):
    def __init__(self, cases: Cases) -> None:
        self._init_cases(cases)

    @property
    def cases(self) -> Cases:
        return self._case_list


class _Option(_CachedCases, OptionType):
    def __init__(self, payload: ValType) -> None:
        self._payload = payload
        self._init_cases([("none", None), ("some", payload)])

    @property
    def payload(self) -> ValType:
        return self._payload


class _Result(_CachedCases, ResultType):
    def __init__(self, ok: Optional[ValType], err: Optional[ValType]) -> None:
        self._ok = ok
        self._err = err
        self._init_cases([("ok", ok), ("err", err)])

    @property
    def ok(self) -> Optional[ValType]:
        return self._ok

    @property
    def err(self) -> Optional[ValType]:
        return self._err
