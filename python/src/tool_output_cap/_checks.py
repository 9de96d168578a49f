"""Integer range checks for arguments, with wasmtime-py's public API only.

wasmtime-py stores an int argument into a ctypes field, which silently
wraps: `max_bytes=2**32` would reach the component as 0 ("no cap"), and
`exit_code=2**32` as 0 ("succeeded").
`_runtime.Instance.call` refuses such values before the call, by walking the
arguments along the export's type (`arg_checks`, built once per export).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from wasmtime.component import (
    EnumType,
    FlagsType,
    ListType,
    OptionType,
    RecordType,
    ResultType,
    S8,
    S16,
    S32,
    S64,
    TupleType,
    U8,
    U16,
    U32,
    U64,
    ValType,
    Variant,
    VariantType,
)

Check = Callable[[Any], None]

UNSIGNED_BITS = ((U8, 8), (U16, 16), (U32, 32), (U64, 64))
SIGNED_BITS = ((S8, 8), (S16, 16), (S32, 32), (S64, 64))


def check_uint(val: Any, bits: int) -> None:
    """Raises `TypeError` unless `val` is an int (not a bool), and
    `OverflowError` unless it fits a WIT `u<bits>`."""
    if isinstance(val, bool) or not isinstance(val, int):
        raise TypeError(f"expected an int for a u{bits}, got {val!r}")
    if val < 0 or val >> bits:
        raise OverflowError(f"{val} is out of range for a u{bits}")


def check_sint(val: Any, bits: int) -> None:
    """Raises `TypeError` unless `val` is an int (not a bool), and
    `OverflowError` unless it fits a WIT `s<bits>`."""
    if isinstance(val, bool) or not isinstance(val, int):
        raise TypeError(f"expected an int for an s{bits}, got {val!r}")
    if not -(1 << (bits - 1)) <= val < 1 << (bits - 1):
        raise OverflowError(f"{val} is out of range for an s{bits}")


def arg_checks(params: list[ValType]) -> Optional[Check]:
    """A function that checks a call's arguments (a tuple) in lowering order,
    or `None` if the parameters hold no ints."""
    checks = [(i, c) for i, c in enumerate(map(_check_of, params)) if c is not None]
    if not checks:
        return None

    def check(args: Any) -> None:
        for i, c in checks:
            if i < len(args):  # a missing argument is wasmtime's TypeError
                c(args[i])

    return check


def _check_of(ty: ValType) -> Optional[Check]:
    for unsigned, bits in UNSIGNED_BITS:
        if isinstance(ty, unsigned):
            return lambda v: check_uint(v, bits)
    for signed, bits in SIGNED_BITS:
        if isinstance(ty, signed):
            return lambda v: check_sint(v, bits)
    if isinstance(ty, RecordType):
        fields = [(name, c) for name, c in ((n, _check_of(t)) for n, t in ty.fields) if c]
        if not fields:
            return None

        def record(v: Any) -> None:
            for name, c in fields:
                c(getattr(v, name))

        return record
    if isinstance(ty, ListType):
        element = ty.element
        if isinstance(element, U8):
            return None  # a `bytes` value: wasmtime refuses anything else
        each = _check_of(element)
        if each is None:
            return None

        def elements(v: Any) -> None:
            if isinstance(v, list):  # otherwise wasmtime raises its TypeError
                for e in v:
                    each(e)

        return elements
    if isinstance(ty, OptionType):
        some = _check_of(ty.payload)
        if some is None:
            return None
        return lambda v: None if v is None else some(v)
    if isinstance(ty, VariantType):
        cases = {name: _check_of(t) for name, t in ty.cases if t is not None}
        if not any(cases.values()):
            return None

        def variant(v: Any) -> None:
            # No variant of this API carries ints; a tagged one (values are
            # `Variant(tag, payload)`) is checked, an untagged one would need
            # wasmtime's case matching by Python type: refuse to guess.
            if not isinstance(v, Variant):
                raise NotImplementedError(f"no range check for the untagged variant {v!r}")
            c = cases.get(v.tag)
            if c is not None:
                c(v.payload)

        return variant
    if isinstance(ty, TupleType):
        element_types = ty.elements
        members = [(i, c) for i, c in enumerate(map(_check_of, element_types)) if c is not None]
        if not members:
            return None

        def tuple_(v: Any) -> None:
            # Anything but a tuple of the right length is wasmtime's TypeError.
            if isinstance(v, tuple) and len(v) == len(element_types):
                for i, c in members:
                    c(v[i])

        return tuple_
    if isinstance(ty, ResultType):
        # No parameter of this API has such a type; refuse to guess rather
        # than let an int through unchecked if the WIT grows one.
        if any(t is not None and _check_of(t) is not None for t in (ty.ok, ty.err)):
            raise NotImplementedError("no range check for ints inside a result")
        return None
    if isinstance(ty, (EnumType, FlagsType)):
        return None
    # Strings, bools, chars, floats and resource handles: wasmtime's own
    # checks apply.
    return None
