"""A raw JSON-RPC peer over stdio: writes the exact lines a test gives and
hands back the exact lines the process wrote, with nothing parsed or
re-encoded in between. For byte-for-byte comparisons and for the fault tests,
where the SDK client would hide what arrived."""

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

# Safety net for one expected line on a loaded machine; no test waits it out.
LINE_SECONDS = float(__import__("os").environ.get("RAW_LINE_SECONDS", 120))
# How long a process gets to exit after its stdin closed.
EXIT_SECONDS = 20

PROTOCOL_VERSION = "2025-06-18"


def initialize_line(request_id: int = 0) -> bytes:
    return line(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "toolcap-e2e-raw", "version": "1.0.0"},
            },
        }
    )


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


class RawPeer:
    """A process spoken to in raw lines. Use as a context manager: leaving
    it closes stdin, waits for the exit, and kills only as a last resort."""

    def __init__(self, argv: list[str], stderr: Path):
        self._stderr = open(stderr, "ab")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr
        )
        self.pid = self.proc.pid
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.exit_code: int | None = None

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self._lines.put(raw)
        self._lines.put(None)

    def __enter__(self) -> "RawPeer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, request_id: int, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(line(message))

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(line(message))

    def next_line(self, timeout: float = LINE_SECONDS) -> bytes:
        """The next line the process wrote, LF included."""
        try:
            got = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line from pid {self.pid} within {timeout} s") from None
        if got is None:
            self._lines.put(None)
            raise AssertionError(f"pid {self.pid} closed its stdout (exit {self.proc.poll()})")
        return got

    def lines_until_response(self, request_id: Any) -> list[bytes]:
        """Every line up to and including the response to `request_id`."""
        got = []
        while True:
            raw = self.next_line()
            got.append(raw)
            message = json.loads(raw)
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return got

    def response(self, request_id: Any) -> dict[str, Any]:
        return json.loads(self.lines_until_response(request_id)[-1])

    def handshake(self) -> list[bytes]:
        """initialize + notifications/initialized, as any client starts."""
        self.send(initialize_line(0))
        got = self.lines_until_response(0)
        self.notify("notifications/initialized")
        return got

    def pending_lines(self) -> list[bytes]:
        """Lines already written and not yet taken."""
        got = []
        while True:
            try:
                raw = self._lines.get_nowait()
            except queue.Empty:
                return got
            if raw is None:
                self._lines.put(None)
                return got
            got.append(raw)

    def close(self) -> int:
        """Close stdin and wait for the exit; its status."""
        if self.exit_code is not None:
            return self.exit_code
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.exit_code = self.proc.wait(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"pid {self.pid} did not exit within {EXIT_SECONDS} s of stdin closing")
        finally:
            self._reader.join(timeout=EXIT_SECONDS)
            if self.proc.stdout is not None:
                self.proc.stdout.close()
            self._stderr.close()
        return self.exit_code
