"""Where the component comes from (`TOOLCAP_WASM`), and that the package
reaches wasmtime-py through its public API only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tool_output_cap import _runtime, budget, open_session, use_compiled_code_cache
from tool_output_cap._runtime import PACKAGED_WASM, WASM_ENV, Runtime, wasm_path

PACKAGE = Path(_runtime.__file__).parent


def test_the_packaged_component_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WASM_ENV, raising=False)
    assert wasm_path() == PACKAGED_WASM
    assert PACKAGED_WASM.name == "tool_output_cap.wasm"
    monkeypatch.setenv(WASM_ENV, "")
    assert wasm_path() == PACKAGED_WASM


def test_toolcap_wasm_names_the_component(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "elsewhere.wasm"
    shutil.copyfile(wasm_path(), copy)
    monkeypatch.setenv(WASM_ENV, str(copy))
    monkeypatch.setattr(_runtime, "_runtime", None)
    assert _runtime.runtime().wasm == copy
    with open_session("t1", tmp_path) as s:
        assert s.cap("fits\n", budget(1000), "c1").text == "fits\n"


def test_a_missing_component_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WASM_ENV, str(tmp_path / "missing.wasm"))
    monkeypatch.setattr(_runtime, "_runtime", None)
    with pytest.raises(FileNotFoundError, match=WASM_ENV):
        open_session("t1")
    monkeypatch.delenv(WASM_ENV)
    with pytest.raises(FileNotFoundError, match="make py-setup"):
        Runtime(tmp_path / "missing.wasm")


# `wasmtime._ffi`, `from wasmtime.component._types import ...`, `Func._func`,
# `store._context()`: any name of wasmtime-py that starts with `_`.
PRIVATE = re.compile(
    r"\bwasmtime(?:\.\w+)*\._\w+|from wasmtime\S* import[^\n]*\b_\w+|\._(?:func|context)\b"
)


def test_the_package_uses_public_wasmtime_names_only() -> None:
    sources = sorted(PACKAGE.glob("*.py"))
    assert len(sources) >= 5
    used = {p.name: PRIVATE.findall(p.read_text("utf-8")) for p in sources}
    assert {name: found for name, found in used.items() if found} == {}


# A fresh process each: the runtime is compiled once per process.
CACHED_RUN = """
import sys
from tool_output_cap import budget, open_session, use_compiled_code_cache
use_compiled_code_cache(sys.argv[1])
with open_session("t1", sys.argv[2]) as s:
    print(s.cap("line\\n" * 5000, budget(2000), "c1").text)
try:
    use_compiled_code_cache(sys.argv[1])
except RuntimeError as e:
    print("refused:", e)
"""


def compiled_entries(cache: Path) -> list[Path]:
    """The compiled components wasmtime keeps in `cache` (not its stats)."""
    return sorted(
        p
        for p in (cache / _runtime.CACHE_SUBDIR / "modules").rglob("*")
        if p.is_file() and p.suffix != ".stats"
    )


def run_cached(cache: Path, spill: Path) -> str:
    # The package as this suite imports it, from wherever that is.
    path = os.pathsep.join(filter(None, [str(PACKAGE.parent), os.environ.get("PYTHONPATH")]))
    run = subprocess.run(
        [sys.executable, "-c", CACHED_RUN, str(cache), str(spill)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_a_compiled_code_cache_is_filled_once_and_loaded_after(tmp_path: Path) -> None:
    cache = tmp_path / "compiled" / "toolcap"
    first = run_cached(cache, tmp_path / "spill-1")
    entries = compiled_entries(cache)
    assert len(entries) == 1, entries
    assert (cache / _runtime.CACHE_CONFIG_NAME).is_file()
    assert cache.stat().st_mode & 0o777 == 0o700
    stored = entries[0].read_bytes()
    written = (entries[0].stat().st_ino, entries[0].stat().st_mtime_ns)
    # The second process loads what the first stored: nothing new is
    # compiled, and it answers the same.
    second = run_cached(cache, tmp_path / "spill-2")
    assert compiled_entries(cache) == entries
    assert entries[0].read_bytes() == stored
    assert (entries[0].stat().st_ino, entries[0].stat().st_mtime_ns) == written
    # Each process has a key of its own, so only the tags differ.
    untagged = [re.sub(r"tag=[0-9a-f]+", "tag=", out) for out in (first, second)]
    assert untagged[1].replace("spill-2", "spill-1") == untagged[0]
    assert "[toolcap]" in first
    assert "refused: the component is already compiled in this process" in first


def test_the_cache_never_recompresses_an_entry(tmp_path: Path) -> None:
    # wasmtime recompresses an entry only when its level is under the
    # optimized one: equal levels mean never.
    config = _runtime.write_cache_config(tmp_path / "cache")
    levels = tomllib.loads(config.read_text(encoding="utf-8"))["cache"]
    assert levels["optimized-compression-level"] == levels["baseline-compression-level"]


def test_a_cache_directory_with_quotes_spaces_or_controls_in_its_name_works(
    tmp_path: Path,
) -> None:
    cache = tmp_path / 'my "cache" dir\\x\x7f\t\u00e9'
    run_cached(cache, tmp_path / "spill")
    assert len(compiled_entries(cache)) == 1


def test_a_cache_directory_that_cannot_be_made_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setattr(_runtime, "_runtime", None)
    monkeypatch.setattr(_runtime, "_cache_config", None)
    with pytest.raises(OSError):
        use_compiled_code_cache(blocker / "cache")
    # Nothing changed: the runtime compiles without a cache.
    assert _runtime._cache_config is None
    with open_session("t1", tmp_path / "spill") as s:
        assert s.cap("fits\n", budget(1000), "c1").text == "fits\n"


def test_the_cache_is_refused_once_the_component_is_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_runtime, "_cache_config", None)
    _runtime.runtime()
    with pytest.raises(RuntimeError, match="before the first session"):
        use_compiled_code_cache(tmp_path / "cache")
    assert _runtime._cache_config is None
    assert not (tmp_path / "cache").exists()
