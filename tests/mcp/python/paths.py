"""Where the parts under test are: the `toolcap` binary and the real MCP
servers that `make mcp-setup` installed. A missing part fails the test with
what to run; nothing is skipped."""

import os
from pathlib import Path

import pytest

MCP_DIR = Path(__file__).resolve().parents[1]
REPO = MCP_DIR.parents[1]
FAULTY = MCP_DIR / "faulty"
VENV_BIN = MCP_DIR / ".venv" / "bin"
NODE_BIN = MCP_DIR / "node_modules" / ".bin"


def toolcap_bin() -> str:
    """The binary under test: $TOOLCAP_BIN, else target/release/toolcap."""
    path = Path(os.environ.get("TOOLCAP_BIN") or REPO / "target" / "release" / "toolcap")
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"the toolcap binary is missing at {path}: build it with "
            "`cargo build --release -p toolcap` (or `make mcp-test`), or point "
            "TOOLCAP_BIN at it",
            pytrace=False,
        )
    return str(path)


def _installed(path: Path, setup: str) -> str:
    if not path.exists():
        pytest.fail(f"{path} is missing: run `{setup}` first", pytrace=False)
    return str(path)


def everything_server() -> list[str]:
    """@modelcontextprotocol/server-everything over stdio."""
    return [_installed(NODE_BIN / "mcp-server-everything", "make mcp-setup")]


def filesystem_server(*allowed: Path) -> list[str]:
    """@modelcontextprotocol/server-filesystem, granted `allowed`."""
    exe = _installed(NODE_BIN / "mcp-server-filesystem", "make mcp-setup")
    return [exe, *(str(p) for p in allowed)]


def time_server() -> list[str]:
    """mcp-server-time from PyPI, in UTC so its answers do not depend on the machine."""
    exe = _installed(VENV_BIN / "mcp-server-time", "make mcp-setup")
    return [exe, "--local-timezone", "Etc/UTC"]


def faulty_server(name: str, *args: str) -> list[str]:
    """One of the deliberately broken servers in tests/mcp/faulty/."""
    script = _installed(FAULTY / f"{name}.py", "git checkout tests/mcp/faulty")
    python = _installed(VENV_BIN / "python", "make mcp-setup")
    return [python, script, *args]


def everything_http_server() -> list[str]:
    """@modelcontextprotocol/server-everything over Streamable HTTP (its
    port comes from $PORT)."""
    return [_installed(NODE_BIN / "mcp-server-everything", "make mcp-setup"), "streamableHttp"]


def served_fixture(*args: str) -> list[str]:
    """The Python SDK's server over Streamable HTTP, with its faults
    (remote/served.py)."""
    python = _installed(VENV_BIN / "python", "make mcp-setup")
    return [python, str(MCP_DIR / "remote" / "served.py"), *args]
