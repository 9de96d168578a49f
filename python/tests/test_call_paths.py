"""The choice between the fast and the public call path (`_runtime`)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
import wasmtime.component._enter

from tool_output_cap import _runtime, open_session
from tool_output_cap._runtime import (
    CALLS_ENV,
    FAST_CALLS_WASMTIME,
    choose_fast_calls,
    fast_calls_unavailable,
)


def test_the_pinned_wasmtime_gets_the_fast_path() -> None:
    # If this fails after a wasmtime upgrade, review `_fast.py` and
    # `_frozen_types.py` against the new wasmtime-py, then bump
    # FAST_CALLS_WASMTIME (and the pin in pyproject.toml / requirements).
    assert importlib.metadata.version("wasmtime") == FAST_CALLS_WASMTIME
    assert fast_calls_unavailable() is None


def test_sessions_use_the_path_under_test(calls: str, tmp_path: Path) -> None:
    with open_session("t", tmp_path) as s:
        assert s._instance is not None
        assert s._instance.fast_calls == (calls == "fast")


def test_the_environment_variable_picks_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CALLS_ENV, raising=False)
    assert choose_fast_calls() == (True, None)
    monkeypatch.setenv(CALLS_ENV, "auto")
    assert choose_fast_calls() == (True, None)
    monkeypatch.setenv(CALLS_ENV, "public")
    assert choose_fast_calls() == (False, f"{CALLS_ENV}=public")
    # An explicit choice wins over the environment.
    assert choose_fast_calls(True) == (True, None)
    monkeypatch.setenv(CALLS_ENV, "fastest")
    with pytest.raises(ValueError, match=CALLS_ENV):
        choose_fast_calls()
    assert choose_fast_calls(False) == (False, "fast_calls=False")


def test_another_wasmtime_version_gets_the_public_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CALLS_ENV, raising=False)
    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata,
        "version",
        lambda name: "50.0.2" if name == "wasmtime" else real(name),
    )
    reason = fast_calls_unavailable()
    assert reason is not None and "50.0.2" in reason
    assert choose_fast_calls() == (False, reason)
    with pytest.raises(RuntimeError, match="50.0.2"):
        choose_fast_calls(True)


def test_a_missing_internal_gets_the_public_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CALLS_ENV, raising=False)
    monkeypatch.delattr(wasmtime.component._enter, "enter_wasm")
    reason = fast_calls_unavailable()
    assert reason is not None and "enter_wasm" in reason
    assert choose_fast_calls() == (False, reason)
    monkeypatch.undo()
    monkeypatch.delattr(wasmtime._ffi, "wasm_byte_vec_delete")
    assert "wasm_byte_vec_delete" in (fast_calls_unavailable() or "")


def test_the_default_runtime_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # `runtime()` compiles the process-wide runtime with fast_calls=None.
    monkeypatch.setattr(_runtime, "_runtime", None)
    monkeypatch.setenv(CALLS_ENV, "public")
    rt = _runtime.runtime()
    assert not rt.fast_calls and rt.public_calls_reason == f"{CALLS_ENV}=public"
