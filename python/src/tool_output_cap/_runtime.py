"""The compiled component and the instances made from it.

Compiling takes most of a second, so the engine, component and linker are
made once per process (and, with `use_compiled_code_cache`, loaded from
wasmtime's cache of compiled code in later processes); each instance gets its
own store and WASI context.

Calls go through wasmtime-py's public API only (`func(store, *args)`, then
`func.post_return(store)`), after the integer range checks of `_checks`.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Optional

import wasmtime
from wasmtime import Config, Engine, Store, WasiConfig
from wasmtime.component import Component, ExportIndex, Func, Linker

from ._checks import Check, arg_checks

WASM_ENV = "TOOLCAP_WASM"
"""Names the component to load instead of the packaged one (every host of
this project reads the same variable)."""

PACKAGED_WASM = Path(__file__).with_name("tool_output_cap.wasm")
"""The component shipped inside the package (`make py-setup` copies it)."""

CONTRACT = "toolcap:tool-output-cap@0.2.0"
"""The WIT package this module speaks (`../wit/`): no other version loads."""
CAPPER = "toolcap:tool-output-cap/capper@0.2.0"
ERRORS = "toolcap:tool-output-cap/errors@0.2.0"
SPILL_GUEST_PATH = "/spill"
"""Guest path of the spill directory preopen."""

# Every exported function, by (interface, export name).
FUNCTIONS = {
    "open": (CAPPER, "[static]session.open"),
    "cap": (CAPPER, "[method]session.cap"),
    "cap-parts": (CAPPER, "[method]session.cap-parts"),
    "cap-mcp": (CAPPER, "[method]session.cap-mcp"),
    "plan": (CAPPER, "[method]session.plan"),
    "cap-batch": (CAPPER, "[method]session.cap-batch"),
    "estimate-tokens": (CAPPER, "[method]session.estimate-tokens"),
    "calibrate": (CAPPER, "[method]session.calibrate"),
    "find-refs": (CAPPER, "[method]session.find-refs"),
    "pruned-placeholder": (CAPPER, "[method]session.pruned-placeholder"),
    "relative-path": (CAPPER, "[method]session.relative-path"),
    "read": (CAPPER, "[method]session.read"),
    "read-lines": (CAPPER, "[method]session.read-lines"),
    "grep": (CAPPER, "[method]session.grep"),
    "prune": (CAPPER, "[method]session.prune"),
    "purge": (CAPPER, "[method]session.purge"),
    "thread-folder": (CAPPER, "[method]session.thread-folder"),
    "read-tool": (CAPPER, "[method]session.read-tool"),
    "run-read-tool": (CAPPER, "[method]session.run-read-tool"),
    "list": (CAPPER, "[method]session.list"),
    "stream": (CAPPER, "[method]session.stream"),
    "stream-write": (CAPPER, "[method]cap-stream.write"),
    "stream-bytes-written": (CAPPER, "[method]cap-stream.bytes-written"),
    "stream-set-exit-code": (CAPPER, "[method]cap-stream.set-exit-code"),
    "stream-finish": (CAPPER, "[method]cap-stream.finish"),
    "stream-mcp": (CAPPER, "[method]session.stream-mcp"),
    "mcp-stream-write": (CAPPER, "[method]mcp-stream.write"),
    "mcp-stream-finish": (CAPPER, "[method]mcp-stream.finish"),
    "store-open": (CAPPER, "[static]spill-store.open"),
    "store-stats": (CAPPER, "[method]spill-store.stats"),
    "store-sweep": (CAPPER, "[method]spill-store.sweep"),
    "classify": (ERRORS, "classify"),
}


def wasm_path() -> Path:
    """The component to load: `$TOOLCAP_WASM` if set and not empty, else the
    packaged `tool_output_cap.wasm` next to this module."""
    given = os.environ.get(WASM_ENV, "")
    return Path(given) if given else PACKAGED_WASM


def preopen(wasi: WasiConfig, host_dir: str, guest_dir: str, read_only: bool) -> None:
    """Grants `host_dir` at `guest_dir`, read-write or read-only (the
    directory and its files).

    wasmtime-py 48 replaced `preopen_dir`'s `dir_perms` and `file_perms`
    (`DirPerms`, `FilePerms`) with one `fs_mutable` switch; both are public,
    so the package follows whichever the installed version has.
    """
    dir_perms: Any = getattr(wasmtime, "DirPerms", None)
    file_perms: Any = getattr(wasmtime, "FilePerms", None)
    preopen_dir: Any = wasi.preopen_dir  # typed for the installed version only
    if dir_perms is not None and file_perms is not None:
        mode = "READ_ONLY" if read_only else "READ_WRITE"
        preopen_dir(host_dir, guest_dir, getattr(dir_perms, mode), getattr(file_perms, mode))
    else:
        preopen_dir(host_dir, guest_dir, not read_only)


class Runtime:
    """Engine, component, linker and the exports' argument checks, shared by
    all instances."""

    def __init__(self, wasm: Path, cache_config: Optional[Path] = None) -> None:
        if not wasm.is_file():
            how = (
                f"unset {WASM_ENV} or point it at a built tool_output_cap.wasm"
                if os.environ.get(WASM_ENV)
                else "build it with `make py-setup` in the repository root"
            )
            raise FileNotFoundError(f"{wasm} is missing: {how}")
        self.wasm = wasm
        """The component file this runtime was compiled from."""
        config = Config()
        if cache_config is not None:
            config.cache = str(cache_config)
        self.engine = Engine(config)
        self.component = Component.from_file(self.engine, str(wasm))
        self.linker = Linker(self.engine)
        self.linker.add_wasip2()
        self._indices: dict[str, ExportIndex] = {}
        for name, (interface, export) in FUNCTIONS.items():
            parent = self.component.get_export_index(interface)
            index = self.component.get_export_index(export, parent)
            if index is None:
                raise RuntimeError(
                    f"{wasm} does not export {interface}#{export}: this package needs a "
                    f"component of {CONTRACT} (rebuild it with `make py-setup`)"
                )
            self._indices[name] = index
        self._checks: dict[str, Optional[Check]] = {}
        self._lock = threading.Lock()

    def instantiate(self, spill_dir: Optional[str], read_only: bool) -> "Instance":
        """A fresh instance whose only grant is `spill_dir` (if any) at `/spill`."""
        wasi = WasiConfig()
        # stderr only, so that a guest panic explains the trap it causes; no
        # env, args, stdin or stdout. wasmtime's WASI denies every socket
        # address by default, so there is no network either.
        wasi.inherit_stderr()
        if spill_dir is not None:
            preopen(wasi, spill_dir, SPILL_GUEST_PATH, read_only)
        store = Store(self.engine)
        store.set_wasi(wasi)
        instance = self.linker.instantiate(store, self.component)
        return Instance(self, store, instance)

    def checks(self, name: str, store: Store, func: Func) -> Optional[Check]:
        """The argument checks of export `name` (`None` if there is nothing
        to check), computed once per process."""
        with self._lock:
            if name not in self._checks:
                self._checks[name] = arg_checks([t for _, t in func.type(store).params])
            return self._checks[name]

    def index(self, name: str) -> ExportIndex:
        return self._indices[name]


class Instance:
    """One store and component instance; not safe to share between threads."""

    def __init__(self, runtime: Runtime, store: Store, instance: Any) -> None:
        self.store = store
        self._calls: dict[str, tuple[Func, Optional[Check]]] = {}
        for name in FUNCTIONS:
            func = instance.get_func(store, runtime.index(name))
            assert func is not None, name
            self._calls[name] = (func, runtime.checks(name, store, func))

    def call(self, name: str, *args: Any) -> Any:
        """Calls export `name`. Out-of-range ints raise `OverflowError`,
        non-ints `TypeError`, before anything reaches the component."""
        func, check = self._calls[name]
        if check is not None:
            check(args)
        result = func(self.store, *args)
        # The canonical ABI's cleanup of the call: wasmtime-py 39-41 refuse
        # the next call into the instance without it.
        func.post_return(self.store)
        return result


_runtime: Optional[Runtime] = None
_runtime_lock = threading.Lock()
_cache_config: Optional[Path] = None

CACHE_CONFIG_NAME = "wasmtime-cache.toml"
"""The file in a cache directory that tells wasmtime where the cache is."""
CACHE_LEVELS = "baseline-compression-level = 3\noptimized-compression-level = 3\n"
"""Entries stay at the zstd level they were written with: by default wasmtime
recompresses an entry at level 20 on its 256th load, in whichever process
loads it then (about 200 MB more resident and a second or more of CPU there,
for an entry 16% smaller). The Rust host's cache is set the same way."""
CACHE_SUBDIR = "wasmtime"
"""The folder of a cache directory that wasmtime manages: beside its
configuration, which wasmtime's clean-up would delete from its own folder."""


def runtime() -> Runtime:
    """The process-wide runtime, compiled on first use from `wasm_path()`."""
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            _runtime = Runtime(wasm_path(), _cache_config)
        return _runtime


def use_compiled_code_cache(directory: str | os.PathLike[str]) -> None:
    """Keep the compiled component in `directory`, wasmtime's cache of
    compiled code: the first process compiles it (most of a second) and
    stores the result there, later processes load it in milliseconds.
    The Rust host's `RuntimeOptions::compiled_code_cache` works the same way
    (each wasmtime version keeps entries of its own).

    Call it before the first session, spill store or `classify` of the
    process: the component is compiled once per process, and a call after
    that raises `RuntimeError`. The directory is created (mode 0o700) if
    missing; give one only you can write, since wasmtime runs the code it
    finds there. A directory that cannot be used raises `OSError` here,
    and nothing changes.
    """
    global _cache_config
    path = Path(os.fspath(directory)).absolute()
    with _runtime_lock:
        if _runtime is not None:
            raise RuntimeError(
                "the component is already compiled in this process: call "
                "use_compiled_code_cache before the first session, spill store or classify"
            )
        _cache_config = write_cache_config(path)


def write_cache_config(directory: Path) -> Path:
    """Creates `directory` if missing and writes there the wasmtime cache
    configuration naming its `CACHE_SUBDIR` (replaced whole, so a process
    reading it never sees half of it); returns the configuration's path."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        # A JSON string without ASCII escapes is a TOML basic string (the
        # same escapes for quotes, backslashes and control characters), once
        # DEL, which TOML also refuses raw, is escaped.
        quoted = json.dumps(str(directory / CACHE_SUBDIR), ensure_ascii=False)
        quoted = quoted.replace("\x7f", "\\u007f")
        text = f"[cache]\ndirectory = {quoted}\n{CACHE_LEVELS}".encode("utf-8")
    except UnicodeEncodeError as e:
        raise OSError(f"{directory} cannot be named in wasmtime's cache configuration: {e}") from e
    config = directory / CACHE_CONFIG_NAME
    partial = directory / f".{CACHE_CONFIG_NAME}.{os.getpid()}.{threading.get_ident()}"
    partial.write_bytes(text)
    os.replace(partial, config)
    # wasmtime reads it now, so that what it refuses is refused here.
    try:
        Config().cache = str(config)
    except wasmtime.WasmtimeError as e:
        raise OSError(f"wasmtime refuses the cache configuration {config}: {e}") from e
    return config
