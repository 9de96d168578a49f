"""Streams: one tool result written in chunks as a command produces it."""

from __future__ import annotations

from typing import Any, Optional, Union

from wasmtime.component import Record, ResourceAny

from . import _convert as cv
from ._closing import ClosesOnExit
from ._runtime import Instance
from .types import Capped, CappedMcp

Chunk = Union[bytes, bytearray, memoryview, str]
"""What `CapStream.write` takes: bytes as the command wrote them (any split,
even inside a UTF-8 character), or text (written as UTF-8)."""


class _Stream(ClosesOnExit):
    """A stream's handle on the component: calls on it until `close` (or
    leaving a `with` block) releases it."""

    def __init__(self, instance: Instance, resource: ResourceAny) -> None:
        self._instance: Optional[Instance] = instance
        self._resource = resource

    def _closed(self) -> str:
        """What a call after `close` is told."""
        return "the stream is finished or closed"

    def _call(self, name: str, *args: object) -> Any:
        if self._instance is None:
            raise ValueError(self._closed())
        return self._instance.call(name, self._resource, *args)

    def close(self) -> None:
        """Release the stream, abandoning it if not finished (nothing is
        saved). Idempotent."""
        instance, self._instance = self._instance, None
        if instance is not None:
            self._resource.drop(instance.store)


class CapStream(_Stream):
    """One tool result written in chunks, made by `Session.stream`, and
    capped at the end with exactly the result `Session.cap` gives on the
    whole text, whatever the chunking: the bytes are decoded as UTF-8, a
    character split between chunks is joined, and invalid sequences become
    U+FFFD (as `bytes.decode("utf-8", "replace")` of the whole would make
    them). The component's memory stays within a few MiB whatever the
    output's size: a large output is written to its spill file as it
    arrives.

    ```python
    with session.stream(budget(16 * 1024), Call("call-1", tool="make")) as stream:
        for chunk in process.stdout:
            stream.write(chunk)
        stream.set_exit_code(process.wait())
        capped = stream.finish()
    ```

    `finish` releases the stream; leaving the `with` block (or `close`)
    releases it too, and abandons it if it was not finished: nothing is
    saved, no temporary file is left. Closing the session closes its
    streams. Use a stream from one thread at a time, like its session.
    """

    def __init__(self, instance: Instance, resource: ResourceAny) -> None:
        super().__init__(instance, resource)
        self._finished = False
        self._written = 0

    def _closed(self) -> str:
        return "the stream is finished" if self._finished else "the stream is closed"

    def write(self, chunk: Chunk) -> None:
        """Add the next bytes of the output (a `str` is written as UTF-8).
        A full disk is not an error here: the result then says the output
        could not be saved. Raises `ValueError` once finished or closed,
        `TypeError` for anything but bytes or a `str`."""
        if isinstance(chunk, str):
            data = chunk.encode("utf-8")
        elif isinstance(chunk, bytes):
            data = chunk
        elif isinstance(chunk, (bytearray, memoryview)):
            data = bytes(chunk)
        else:
            raise TypeError(f"expected bytes or a str, got {chunk!r}")
        # wasmtime-py lifts `result<_, cap-error>`'s ok to `None`.
        cv.unwrap(self._call("stream-write", data), type(None))

    def bytes_written(self) -> int:
        """Total bytes written so far (after `finish`: all of them)."""
        if self._instance is None and self._finished:
            return self._written
        return cv.int_out(self._call("stream-bytes-written"))

    def set_exit_code(self, code: int) -> None:
        """Record how the command ended, once it has (any time before
        `finish`; the last call counts): `finish` then gives what `cap`
        gives with `code` as the call's exit code (a non-zero code is stated
        first in the notice, and the preview leans to the tail). Raises
        `ValueError` once finished or closed, `TypeError` for anything but
        an int, `OverflowError` outside a WIT `s32`."""
        cv.unwrap(self._call("stream-set-exit-code", code), type(None))

    def finish(self) -> Capped:
        """The capped result of everything written, exactly as `cap` returns
        it for the whole text (with the exit code of `set_exit_code`, if
        called, in the call), and the stream released. Raises `ValueError`
        when called again."""
        self._written = self.bytes_written()
        try:
            out = self._call("stream-finish")
        finally:
            self._finished = True
            self.close()
        return cv.capped_out(cv.unwrap(out, Record))

    @property
    def finished(self) -> bool:
        """Whether `finish` was called."""
        return self._finished



class McpStream(_Stream):
    """An MCP result whose huge text is written in pieces, made by
    `Session.stream_mcp`: `write` each piece of the text's JSON string
    body as received (escapes and all, cut anywhere between characters),
    then `finish` gives exactly what `Session.cap_mcp` gives for the whole
    result. The component then holds what the preview needs, not the
    result. A failed `write` ends the stream; leaving the `with` block (or
    `close`) releases it, and an unfinished one saves nothing."""

    def write(self, raw: str) -> None:
        """Add the next piece of the string's raw body. Raises `ToolCapError`
        (`invalid-argument`) past the declared length or for what a JSON
        string cannot hold, `ValueError` once finished or closed."""
        if not isinstance(raw, str):
            raise TypeError(f"expected a str (the string's raw JSON body), got {raw!r}")
        cv.unwrap(self._call("mcp-stream-write", raw), type(None))

    def finish(self) -> CappedMcp:
        """The capped result, as `cap_mcp` returns it for the whole result,
        and the stream released."""
        try:
            out = self._call("mcp-stream-finish")
        finally:
            self.close()
        return cv.capped_mcp_out(cv.unwrap(out, Record))
