"""How a test starts `toolcap mcp`: the command line, and a session of the
official Python SDK client over it (or over a server directly)."""

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from paths import toolcap_bin

READ_TOOL = "read_spilled_output"
# What the proxy tells Claude Code of a tool it caps at the default budget
# (24576 bytes, plus a quarter): a capped result is shown whole.
MAX_RESULT_SIZE_KEY = "anthropic/maxResultSizeChars"
DEFAULT_MAX_RESULT_CHARS = 30720


def as_capped(tool: dict) -> dict:
    """A server's tool entry as the proxy lists it when it caps the tool:
    without `outputSchema` (a dropped structuredContent would fail the
    client's check), with the result size Claude Code may show whole."""
    listed = {key: value for key, value in tool.items() if key not in ("outputSchema", "_meta")}
    meta = dict(tool.get("_meta") or {})
    meta[MAX_RESULT_SIZE_KEY] = DEFAULT_MAX_RESULT_CHARS
    listed["_meta"] = meta
    return listed
# A safety net for one test's whole conversation on a loaded machine; no
# test waits for it to pass.
SAFETY_SECONDS = 180

T = TypeVar("T")


@dataclass
class Proxy:
    """`toolcap mcp` with a spill dir and key file of the test's own."""

    spill_dir: Path
    key_file: Path
    logs: Path

    def _toolcap(self) -> list[str]:
        """`toolcap mcp` with this test's spill dir and key file."""
        return [toolcap_bin(), "mcp", "--spill-dir", str(self.spill_dir), "--key-file", str(self.key_file)]

    def argv_url(self, url: str, *options: str) -> list[str]:
        """`toolcap mcp --url`: a remote server over Streamable HTTP."""
        return [*self._toolcap(), "--url", url, *options]

    def argv(self, server: list[str], *options: str) -> list[str]:
        return [*self._toolcap(), *options, "--", *server]


def run(body: Callable[[], Awaitable[T]], limit: float = SAFETY_SECONDS) -> T:
    """Run an async test body under a deadline, so a hang fails instead of
    stalling the suite."""

    async def main() -> T:
        with anyio.fail_after(limit):
            return await body()

    return anyio.run(main)


@asynccontextmanager
async def connect(
    argv: list[str], errlog: Path, env: dict[str, str] | None = None, **session_args: Any
) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session with the process `argv` (a proxy or
    a server), its stderr going to `errlog`, with `env` added to its
    environment."""
    params = StdioServerParameters(command=argv[0], args=argv[1:], env={**os.environ, **env} if env else None)
    with open(errlog, "a") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write, **session_args) as session:
                await session.initialize()
                yield session


def logged(argv: list[str], log: Path) -> StdioServerParameters:
    """`argv` for the SDK's `Client` (which takes no log file), its stderr
    appended to `log`."""
    shell = 'exec "$0" "$@" 2>>"$TOOLCAP_TEST_LOG"'
    env = {**os.environ, "TOOLCAP_TEST_LOG": str(log)}
    return StdioServerParameters(command="sh", args=["-c", shell, *argv], env=env)


def dump(model: Any) -> Any:
    """An SDK result as the JSON object it was on the wire."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def direct_and_proxied(
    proxy: Proxy, server: list[str], conversation: Callable[[ClientSession], Awaitable[T]], *options: str
) -> tuple[T, T]:
    """The same conversation with the server directly, then through the
    proxy: what each gave back."""
    async with connect(server, proxy.logs / "direct.log") as session:
        direct = await conversation(session)
    async with connect(proxy.argv(server, *options), proxy.logs / "proxy.log") as session:
        proxied = await conversation(session)
    return direct, proxied
