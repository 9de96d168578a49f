"""Servers over Streamable HTTP for the `toolcap mcp --url` tests: start one
on a free loopback port, wait until it answers, stop it after the test."""

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# How long a server may take to listen on a loaded machine.
START_SECONDS = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(argv: list[str], log: Path, env: dict[str, str] | None = None, port: int | None = None) -> Iterator[str]:
    """Runs `argv` (which listens on $PORT, or on `port` it was given) and
    yields its MCP endpoint URL once it accepts connections."""
    port = port or free_port()
    full_env = {**os.environ, "PORT": str(port), **(env or {})}
    with open(log, "ab") as err:
        process = subprocess.Popen(argv, env=full_env, stdout=err, stderr=err, start_new_session=True)
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            if process.poll() is not None:
                raise AssertionError(f"{argv} exited with {process.returncode}: {log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"{argv} did not listen on {port}: {log.read_text()[-2000:]}")
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
