"""Where the component comes from (`TOOLCAP_WASM`), and that the package
reaches wasmtime-py through its public API only."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tool_output_cap import _runtime, budget, open_session
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

