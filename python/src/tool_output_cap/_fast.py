"""The fast call path: wasmtime-py 50.0.1's `Func.__call__` without its
per-call type lookups (the types are frozen once per process, see
`_frozen_types`).

This module uses wasmtime-py internals (`wasmtime._ffi`,
`component._enter.enter_wasm`, `Func._func`, `Store._context()`), so it is
imported only after `_runtime.fast_calls_unavailable()` has found the exact
wasmtime version it was written against and every private name it needs.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Optional

from wasmtime import Store
from wasmtime import _ffi as ffi
from wasmtime.component import Func, ValType
from wasmtime.component._enter import enter_wasm

from ._frozen_types import freeze


@dataclass(frozen=True)
class Signature:
    params: list[ValType]
    result: Optional[ValType]


def signature(func: Func, store: Store) -> Signature:
    """`func`'s parameter and result types, frozen."""
    ty = func.type(store)
    result = ty.result
    return Signature([freeze(t) for _, t in ty.params], None if result is None else freeze(result))


def call(func: Func, store: Store, sig: Signature, args: tuple[Any, ...]) -> Any:
    """What `func(store, *args)` does, with `sig`'s frozen types. (Like
    `Func.__call__` in 50.0.1, no `post_return`: in wasmtime 50 consecutive
    calls work without it and `Func.post_return` is a no-op.)"""
    params = (ffi.wasmtime_component_val_t * len(args))()
    lowered = 0
    try:
        for ty, value in zip(sig.params, args, strict=True):
            ty.convert_to_c(store, value, ctypes.pointer(params[lowered]))
            lowered += 1
        result = None if sig.result is None else ffi.wasmtime_component_val_t()
        result_ptr, result_len = (None, 0) if result is None else (ctypes.byref(result), 1)
        raw = func._func
        context = store._context()
        enter_wasm(
            lambda: ffi.wasmtime_component_func_call(
                ctypes.byref(raw), context, params, lowered, result_ptr, result_len
            )
        )
        if sig.result is None or result is None:
            return None
        return sig.result.convert_from_c(result)
    finally:
        for i in range(lowered):
            ffi.wasmtime_component_val_delete(ctypes.byref(params[i]))
