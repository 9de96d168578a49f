"""The compiled component and the instances made from it.

Compiling takes ~0.1-0.5 s, so the engine, component and linker are made once
per process; each instance gets its own store and WASI context.

Calls take one of two paths, chosen per `Runtime`:

- fast (`_fast`, `_frozen_types`): wasmtime-py's `Func.__call__` without its
  per-call type lookups, ~4x faster for small calls. It uses wasmtime-py
  internals, so it is used only if the installed wasmtime is exactly
  `FAST_CALLS_WASMTIME` and every private name it needs exists
  (`fast_calls_unavailable()`);
- public: `func(store, *args)`, wasmtime-py's public API, after the same
  integer range checks (`_checks`). Used otherwise, or when the environment
  variable `TOOLCAP_PY_CALLS` is `public`.

Both return the same values (`Record`, `Variant`, bare ok/err values ...), so
`_convert` serves both.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

from wasmtime import Engine, Store, WasiConfig
from wasmtime.component import Component, ExportIndex, Func, Linker

from ._checks import arg_checks

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


FAST_CALLS_WASMTIME = "50.0.1"
"""The wasmtime-py version whose internals the fast call path was written
against: any other version gets the public path."""

CALLS_ENV = "TOOLCAP_PY_CALLS"
"""`public` forces the public call path; unset, empty or `auto` lets the
version guard decide."""

# What `_fast` and `_frozen_types` use of wasmtime-py's internals.
_FFI_NAMES = (
    "wasm_byte_t",
    "wasm_byte_vec_t",
    "wasm_byte_vec_new",
    "wasm_byte_vec_delete",
    "wasmtime_component_val_t",
    "wasmtime_component_val_delete",
    "wasmtime_component_func_call",
    "wasmtime_component_valrecord_t",
    "wasmtime_component_valrecord_new_uninit",
    "wasmtime_component_valrecord_delete",
    "WASMTIME_COMPONENT_BOOL",
    "WASMTIME_COMPONENT_RECORD",
    "WASMTIME_COMPONENT_STRING",
)
_VARIANT_LIKE_METHODS = ("_cases", "_tagged", "_lower", "_lift")


def fast_calls_unavailable() -> Optional[str]:
    """Why the fast call path cannot be used here, or `None` if it can."""
    try:
        installed = importlib.metadata.version("wasmtime")
    except importlib.metadata.PackageNotFoundError:
        return "the installed wasmtime's version is unknown"
    if installed != FAST_CALLS_WASMTIME:
        return f"wasmtime {installed} is installed, the fast path is for {FAST_CALLS_WASMTIME}"
    try:
        ffi = importlib.import_module("wasmtime._ffi")
        enter = importlib.import_module("wasmtime.component._enter")
        types = importlib.import_module("wasmtime.component._types")
    except ImportError as err:
        return f"a wasmtime-py internal module is missing: {err}"
    missing = [f"wasmtime._ffi.{n}" for n in _FFI_NAMES if not hasattr(ffi, n)]
    val_t = getattr(ffi, "wasmtime_component_val_t", None)
    if val_t is not None and not (hasattr(val_t, "kind") and hasattr(val_t, "of")):
        missing.append("wasmtime_component_val_t.kind/of")
    if not callable(getattr(enter, "enter_wasm", None)):
        missing.append("wasmtime.component._enter.enter_wasm")
    variant_like = getattr(types, "VariantLikeType", None)
    if variant_like is None:
        missing.append("wasmtime.component._types.VariantLikeType")
    else:
        missing += [
            f"VariantLikeType.{m}" for m in _VARIANT_LIKE_METHODS if not hasattr(variant_like, m)
        ]
    if not callable(getattr(Store, "_context", None)):
        missing.append("Store._context")
    try:
        has_func_field = "_func" in Func.__annotations__
    except Exception:  # an annotation that no longer evaluates
        has_func_field = False
    if not has_func_field:
        missing.append("Func._func")
    if missing:
        return "wasmtime-py internals are missing: " + ", ".join(missing)
    return None


def choose_fast_calls(fast_calls: Optional[bool] = None) -> tuple[bool, Optional[str]]:
    """Whether to take the fast call path, and if not, why.

    `fast_calls=None` reads `TOOLCAP_PY_CALLS` (`public` forces the public
    path) and then asks the version guard; `False` forces the public path;
    `True` requires the fast path (`RuntimeError` if the guard refuses it).
    """
    if fast_calls is None:
        mode = os.environ.get(CALLS_ENV, "").strip().lower()
        if mode == "public":
            return False, f"{CALLS_ENV}=public"
        if mode not in ("", "auto"):
            raise ValueError(f"{CALLS_ENV} must be 'public', 'auto' or unset, not {mode!r}")
    elif not fast_calls:
        return False, "fast_calls=False"
    why_not = fast_calls_unavailable()
    if why_not is not None and fast_calls:
        raise RuntimeError(f"the fast call path is unavailable: {why_not}")
    return why_not is None, why_not


class Runtime:
    """Engine, component, linker and the exports' types, shared by all instances.

    `fast_calls` picks the call path, see `choose_fast_calls` (default: the
    environment and the version guard decide).
    """

    def __init__(self, wasm: Path, fast_calls: Optional[bool] = None) -> None:
        if not wasm.is_file():
            raise FileNotFoundError(
                f"{wasm} is missing: build it with `make py-setup` in the repository root"
            )
        self.fast_calls, self.public_calls_reason = choose_fast_calls(fast_calls)
        """Whether calls take the fast path; if not, why (for diagnostics)."""
        self._fast: Optional[ModuleType] = None
        if self.fast_calls:
            from . import _fast

            self._fast = _fast
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
        self._plans: dict[str, Any] = {}
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

    def plan(self, name: str, store: Store, func: Func) -> Any:
        """What a call of export `name` needs besides `func`, computed once
        per process: the frozen signature (fast path) or the argument checks
        (public path, `None` if there is nothing to check)."""
        with self._lock:
            if name not in self._plans:
                if self._fast is not None:
                    self._plans[name] = self._fast.signature(func, store)
                else:
                    self._plans[name] = arg_checks([t for _, t in func.type(store).params])
            return self._plans[name]

    def index(self, name: str) -> ExportIndex:
        return self._indices[name]


class Instance:
    """One store and component instance; not safe to share between threads."""

    def __init__(self, runtime: Runtime, store: Store, instance: Any) -> None:
        self.store = store
        self.fast_calls = runtime.fast_calls
        self._fast_call = None if runtime._fast is None else runtime._fast.call
        self._calls: dict[str, tuple[Func, Any]] = {}
        for name in FUNCTIONS:
            func = instance.get_func(store, runtime.index(name))
            assert func is not None, name
            self._calls[name] = (func, runtime.plan(name, store, func))

    def call(self, name: str, *args: Any) -> Any:
        """Calls export `name` on the runtime's call path. Out-of-range ints
        raise `OverflowError` (non-ints `TypeError`) on both paths."""
        func, plan = self._calls[name]
        if self._fast_call is not None:
            return self._fast_call(func, self.store, plan, args)
        if plan is not None:
            plan(args)
        return func(self.store, *args)


_runtime: Optional[Runtime] = None
_runtime_lock = threading.Lock()


def runtime() -> Runtime:
    """The process-wide runtime, compiled on first use."""
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            _runtime = Runtime(WASM_PATH)
        return _runtime
