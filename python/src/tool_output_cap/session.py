"""Sessions: one conversation thread's view of the spill directory."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, Optional, Sequence, Union

from wasmtime.component import Record, ResourceAny

from . import _convert as cv
from ._runtime import SPILL_GUEST_PATH, Instance, runtime
from .types import (
    Budget,
    Call,
    Capped,
    CappedParts,
    ContentPart,
    GrepResult,
    OverflowKind,
    OverflowRef,
    Page,
    PrunePolicy,
    Pruned,
)

StrPath = Union[str, "os.PathLike[str]"]


def open_session(
    thread_id: str,
    spill_dir: Optional[StrPath] = None,
    *,
    display_root: Optional[str] = None,
    key: Optional[bytes] = None,
    read_only: bool = False,
    read_tool: Optional[str] = None,
    shell_hints: bool = True,
    notable_patterns: Sequence[str] = (),
) -> "Session":
    """Open a session of `thread_id` that spills into `<spill_dir>/<thread>/`.

    The component gets `spill_dir` as its only grant, read-write (or read-only
    with `read_only=True`). Without `spill_dir` (`None` or `""`), or if it
    does not exist, it gets nothing and cut results say the full output could
    NOT be saved. `display_root` starts every path in notices (default: the
    real absolute path of `spill_dir`, or `/spill` without one). `key` signs
    references: at least 16 bytes; empty or `None` draws a random key for this
    session.

    Notices tell the model how to look inside a spilled file: `read_tool`
    names the host's read tool (1 to 64 ASCII letters, digits, `_`, `-`, `.`
    or `:`; `None`: "the read tool"), and `shell_hints=False` leaves out the
    `grep`/`sed` commands (for an agent without a shell). `notable_patterns`
    are literal, case-sensitive substrings (at most 64, each 1 to 200 bytes
    on one line) whose lines the preview keeps from the omitted middle, as it
    does the built-in failure patterns.

    Raises `ToolCapError` (`invalid-settings`) for an empty thread id or
    display root, a key shorter than 16 bytes, a bad read tool name or a bad
    pattern; `TypeError` for a single `str` as `notable_patterns` (a list of
    its characters is surely not what was meant).
    """
    if isinstance(notable_patterns, str):
        raise TypeError("notable_patterns is a sequence of patterns, not one str")
    patterns = list(notable_patterns)
    # An empty path is no directory: `Path("")` and `realpath("")` would
    # make it the working directory, granted read-write.
    given = os.fspath(spill_dir) if spill_dir is not None else ""
    host_dir = os.path.realpath(given) if given else None
    # wasmtime-py refuses to preopen a missing directory ("failed to add
    # preopen dir"); the documented behaviour is a session that cannot save.
    granted = host_dir if host_dir is not None and os.path.isdir(host_dir) else None
    if display_root is None:
        display_root = host_dir if host_dir is not None else SPILL_GUEST_PATH
    instance = runtime().instantiate(granted, read_only)
    settings = cv.record(
        thread_id=thread_id,
        spill_dir=SPILL_GUEST_PATH,
        display_root=display_root,
        key=bytes(key or b""),
        read_tool=read_tool,
        shell_hints=shell_hints,
        notable_patterns=patterns,
    )
    try:
        resource = cv.unwrap(instance.call("open", settings), ResourceAny)
    except BaseException:
        instance.store.close()
        raise
    return Session(instance, resource, granted, display_root)


class Session:
    """A thread's session, made by `open_session`. Each session owns its own
    component instance; use one session from one thread at a time.

    Methods raise `ToolCapError` for the component's documented failures; a
    trap in the component raises wasmtime's error and ends the session's use.
    """

    def __init__(
        self,
        instance: Instance,
        resource: ResourceAny,
        spill_dir: Optional[str],
        display_root: str,
    ) -> None:
        self._instance: Optional[Instance] = instance
        self._resource = resource
        self.spill_dir: Optional[Path] = Path(spill_dir) if spill_dir is not None else None
        """The host directory granted to the component, if any."""
        self.display_root = display_root
        """The prefix of every path in this session's notices."""

    def _call(self, name: str, *args: object) -> Any:
        """The export's raw value (`Record`, `Variant`, ...): `_convert`
        checks and converts it."""
        if self._instance is None:
            raise ValueError("the session is closed")
        return self._instance.call(name, self._resource, *args)

    def cap(self, output: str, budget: Budget, call: Union[str, Call]) -> Capped:
        """Fit one tool result to `budget`, spilling the full output if cut.
        `call` is the tool call it came from (a `str` is `Call(call)`)."""
        out = self._call("cap", output, cv.budget_in(budget), _call_in(call))
        return cv.capped_out(cv.unwrap(out, Record))

    def cap_parts(
        self, parts: Sequence[ContentPart], budget: Budget, call: Union[str, Call]
    ) -> CappedParts:
        """Fit a structured result; non-text parts pass through untouched."""
        lowered = [cv.part_in(p) for p in parts]
        out = self._call("cap-parts", lowered, cv.budget_in(budget), _call_in(call))
        return cv.capped_parts_out(cv.unwrap(out, Record))

    def find_refs(self, text: str) -> list[OverflowRef]:
        """Every genuine reference of this session's key and thread in `text`."""
        found: list[Record] = self._call("find-refs", text)
        return [r for r in map(cv.ref_out, found) if r is not None]

    def pruned_placeholder(self, ref: OverflowRef) -> str:
        """The pruned placeholder line for a genuine reference."""
        return cv.unwrap(self._call("pruned-placeholder", cv.ref_in(ref)), str)

    def read(self, path: str, offset: int, max_bytes: int) -> Page:
        """At most `max_bytes` of a spilled file from byte `offset`."""
        return cv.page_out(cv.unwrap(self._call("read", path, offset, max_bytes), Record))

    def read_lines(self, path: str, first_line: int, count: int, max_bytes: int) -> Page:
        """`count` lines from 1-based `first_line`, at most `max_bytes`."""
        out = self._call("read-lines", path, first_line, count, max_bytes)
        return cv.page_out(cv.unwrap(out, Record))

    def grep(self, path: str, pattern: str, max_matches: int) -> GrepResult:
        """The first `max_matches` occurrences of the literal `pattern`."""
        return cv.grep_out(cv.unwrap(self._call("grep", path, pattern, max_matches), Record))

    def prune(self, messages: Sequence[str], policy: PrunePolicy) -> Pruned:
        """Replace stale tool message bodies (given oldest first)."""
        out = self._call("prune", list(messages), cv.policy_in(policy))
        return cv.pruned_out(cv.unwrap(out, Record))

    def purge(self) -> int:
        """Delete this thread's spill folder; the bytes of file content freed."""
        return cv.unwrap(self._call("purge"), int)

    def classify(self, status: int, body: str) -> Optional[OverflowKind]:
        """`classify` in this session's instance."""
        if self._instance is None:
            raise ValueError("the session is closed")
        return cv.overflow_kind_out(self._instance.call("classify", status, body))

    def host_path(self, ref_or_path: Union[OverflowRef, str]) -> Optional[Path]:
        """The host path `<spill_dir>/<thread>/<file>` of a spilled file.

        For a reference: its `relative_path` joined onto `spill_dir`, if it is
        two plain names and its `path` ends with `/` + `relative_path` (a
        reference edited into disagreement gives `None`). For a path the
        model wrote: only one that is exactly
        `<display_root>/<thread>/<file>` (this session's thread, a spill file
        name; the component decides) maps; any other (another thread, `..`,
        `//`, a relative path, a temporary file) gives `None`. `None` too
        when no directory was granted: the answer never lies outside
        `spill_dir`. Raises `TypeError` for anything but an `OverflowRef` or
        a `str`, `ValueError` once closed."""
        if isinstance(ref_or_path, OverflowRef):
            if self._instance is None:
                raise ValueError("the session is closed")
            relative: Optional[str] = ref_or_path.relative_path
            if not ref_or_path.path.endswith("/" + ref_or_path.relative_path):
                relative = None
        elif isinstance(ref_or_path, str):
            relative = cv.optional_str_out(self._call("relative-path", ref_or_path))
        else:
            raise TypeError(f"expected an OverflowRef or a str, got {ref_or_path!r}")
        if self.spill_dir is None or relative is None:
            return None
        # `<thread>/<file>`, from the component or a reference: joined onto
        # the granted directory only if it is two plain names, whatever it says.
        parts = relative.split("/")
        if len(parts) != 2 or not all(map(_plain_name, parts)):
            return None
        return self.spill_dir.joinpath(*parts)

    def close(self) -> None:
        """Drop the component's session and its instance. Idempotent."""
        instance, self._instance = self._instance, None
        if instance is not None:
            self._resource.drop(instance.store)
            instance.store.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()


def _call_in(call: Union[str, Call]) -> Record:
    """The WIT `call` of a `Call`, or of a bare id."""
    if isinstance(call, str):
        return cv.call_in(Call(call))
    if isinstance(call, Call):
        return cv.call_in(call)
    raise TypeError(f"expected a Call or a str (the call id), got {call!r}")


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _plain_name(name: str) -> bool:
    """A folder or file name of the spill scheme: ASCII letters, digits, `.`,
    `_` and `-`, not `.` or `..`. No separator, drive, NUL or `..` can get
    through, on any platform."""
    return name not in ("", ".", "..") and set(name) <= _NAME_CHARS


_classifier: Optional[Instance] = None
_classifier_lock = threading.Lock()


def classify(status: int, body: str) -> Optional[OverflowKind]:
    """Whether an HTTP error response means "the request was too large":
    `'request-too-large'`, `'context-length-exceeded'` or `None`. Runs in one
    shared instance with no grant at all."""
    global _classifier
    with _classifier_lock:
        if _classifier is None:
            _classifier = runtime().instantiate(None, read_only=True)
        return cv.overflow_kind_out(_classifier.call("classify", status, body))
