"""The compiled component and the instances made from it.

Compiling takes ~0.1-0.5 s, so the engine, component and linker are made once
per process; each instance gets its own store and WASI context.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from wasmtime import Engine, Store, WasiConfig
from wasmtime import _ffi as ffi
from wasmtime.component import Component, ExportIndex, Func, Linker, ValType
from wasmtime.component._enter import enter_wasm

from ._frozen_types import freeze

WASM_PATH = Path(__file__).with_name("tool_output_cap.wasm")
CAPPER = "toolcap:tool-output-cap/capper@0.1.0"
ERRORS = "toolcap:tool-output-cap/errors@0.1.0"
SPILL_GUEST_PATH = "/spill"
"""Guest path of the spill directory preopen."""

# Every exported function, by (interface, export name).
FUNCTIONS = {
    "open": (CAPPER, "[static]session.open"),
    "cap": (CAPPER, "[method]session.cap"),
    "cap-parts": (CAPPER, "[method]session.cap-parts"),
    "find-refs": (CAPPER, "[method]session.find-refs"),
    "pruned-placeholder": (CAPPER, "[method]session.pruned-placeholder"),
    "read": (CAPPER, "[method]session.read"),
    "read-lines": (CAPPER, "[method]session.read-lines"),
    "grep": (CAPPER, "[method]session.grep"),
    "prune": (CAPPER, "[method]session.prune"),
    "purge": (CAPPER, "[method]session.purge"),
    "classify": (ERRORS, "classify"),
}


@dataclass(frozen=True)
class _Signature:
    params: list[ValType]
    result: Optional[ValType]


class Runtime:
    """Engine, component, linker and the exports' types, shared by all instances."""

    def __init__(self, wasm: Path) -> None:
        if not wasm.is_file():
            raise FileNotFoundError(
                f"{wasm} is missing: build it with `make py-setup` in the repository root"
            )
        self.engine = Engine()
        self.component = Component.from_file(self.engine, str(wasm))
        self.linker = Linker(self.engine)
        self.linker.add_wasip2()
        self._indices: dict[str, ExportIndex] = {}
        for name, (interface, export) in FUNCTIONS.items():
            parent = self.component.get_export_index(interface)
            index = self.component.get_export_index(export, parent)
            if index is None:
                raise RuntimeError(f"the component does not export {interface}#{export}")
            self._indices[name] = index
        self._signatures: dict[str, _Signature] = {}
        self._lock = threading.Lock()

    def instantiate(self, spill_dir: Optional[str], read_only: bool) -> "Instance":
        """A fresh instance whose only grant is `spill_dir` (if any) at `/spill`."""
        wasi = WasiConfig()
        # stderr only, so that a guest panic explains the trap it causes; no
        # env, args, stdin or stdout. wasmtime's WASI denies every socket
        # address by default, so there is no network either.
        wasi.inherit_stderr()
        if spill_dir is not None:
            # `fs_mutable=False` is wasmtime-py 50's read-only grant (directory
            # and files): its `preopen_dir` has no separate dir/file perms.
            wasi.preopen_dir(spill_dir, SPILL_GUEST_PATH, not read_only)
        store = Store(self.engine)
        store.set_wasi(wasi)
        instance = self.linker.instantiate(store, self.component)
        return Instance(self, store, instance)

    def signature(self, name: str, store: Store, func: Func) -> _Signature:
        with self._lock:
            found = self._signatures.get(name)
            if found is None:
                ty = func.type(store)
                result = ty.result
                found = _Signature(
                    [freeze(t) for _, t in ty.params],
                    None if result is None else freeze(result),
                )
                self._signatures[name] = found
            return found

    def index(self, name: str) -> ExportIndex:
        return self._indices[name]


class Instance:
    """One store and component instance; not safe to share between threads."""

    def __init__(self, runtime: Runtime, store: Store, instance: Any) -> None:
        self.store = store
        self._calls: dict[str, tuple[Func, _Signature]] = {}
        for name in FUNCTIONS:
            func = instance.get_func(store, runtime.index(name))
            assert func is not None, name
            self._calls[name] = (func, runtime.signature(name, store, func))

    def call(self, name: str, *args: Any) -> Any:
        """Calls export `name`: wasmtime-py's `Func.__call__` without its
        per-call type lookups (the types are frozen once per process)."""
        func, sig = self._calls[name]
        store = self.store
        params = (ffi.wasmtime_component_val_t * len(args))()
        lowered = 0
        try:
            for ty, value in zip(sig.params, args, strict=True):
                ty.convert_to_c(store, value, ctypes.pointer(params[lowered]))
                lowered += 1
            if sig.result is None:
                result_ptr, result_len, result = None, 0, None
            else:
                result = ffi.wasmtime_component_val_t()
                result_ptr, result_len = ctypes.byref(result), 1
            raw = func._func
            context = store._context()
            enter_wasm(
                lambda: ffi.wasmtime_component_func_call(
                    ctypes.byref(raw), context, params, lowered, result_ptr, result_len
                )
            )
            if sig.result is None:
                return None
            return sig.result.convert_from_c(result)
        finally:
            for i in range(lowered):
                ffi.wasmtime_component_val_delete(ctypes.byref(params[i]))


_runtime: Optional[Runtime] = None
_runtime_lock = threading.Lock()


def runtime() -> Runtime:
    """The process-wide runtime, compiled on first use."""
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            _runtime = Runtime(WASM_PATH)
        return _runtime
