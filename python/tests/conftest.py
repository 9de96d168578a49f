"""Every test runs twice: once on the fast call path and once on the public
one (`[fast]` / `[public]` in the test ids).

The package's runtime is a process-wide singleton (`_runtime.runtime()`);
the `calls` fixture swaps in a runtime compiled for the path under test, so
`open_session`, `classify` and everything built on them use that path.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from tool_output_cap import _runtime, session
from tool_output_cap._runtime import WASM_PATH, Runtime

CALL_PATHS = ("fast", "public")
_runtimes: dict[str, Runtime] = {}


def runtime_for(path: str) -> Runtime:
    """The runtime of call path `path` (`fast` or `public`), compiled once."""
    if path not in _runtimes:
        # `fast_calls=True` fails loudly if the version guard refuses the fast
        # path: with wasmtime pinned exactly, that is a bug to look at.
        _runtimes[path] = Runtime(WASM_PATH, fast_calls=path == "fast")
    return _runtimes[path]


@pytest.fixture(params=CALL_PATHS, autouse=True)
def calls(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The call path under test; the package's singletons use it meanwhile."""
    path: str = request.param
    monkeypatch.setattr(_runtime, "_runtime", runtime_for(path))
    monkeypatch.setattr(session, "_classifier", None)
    yield path
