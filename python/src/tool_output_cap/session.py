"""Sessions: one conversation thread's view of the spill directory."""

from __future__ import annotations

import builtins
import json
import os
import threading
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from wasmtime.component import Record, ResourceAny

from . import _convert as cv
from ._closing import ClosesOnExit
from . import _private_dir
from ._runtime import SPILL_GUEST_PATH, Instance, runtime
from .stream import CapStream, McpStream
from .types import (
    BatchResult,
    Budget,
    Call,
    Capped,
    CappedMcp,
    CappedParts,
    ContentPart,
    GrepResult,
    Overflow,
    OverflowRef,
    Page,
    PendingResult,
    PrunePolicy,
    Pruned,
    ReadToolOutput,
    ReadToolSpec,
    RedactionPolicy,
    RequestLimits,
    SpillEntry,
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
    image_tokens: Optional[int] = None,
    audio_tokens: Optional[int] = None,
    token_scale: Optional[float] = None,
    retention_seconds: Optional[int] = None,
    redaction: Optional[RedactionPolicy] = None,
) -> "Session":
    """Open a session of `thread_id` that spills into `<spill_dir>/<thread>/`.

    The component gets `spill_dir` as its only grant, read-write (or read-only
    with `read_only=True`). A `spill_dir` that does not exist is created
    (with its missing parents) readable by its owner only (mode 0700), and so
    is the thread's folder inside it (`Session.thread_folder`); neither is
    created for a read-only grant. Without `spill_dir` (`None` or `""`), or
    if it cannot be created (or is missing and `read_only`), the component
    gets nothing and cut results say the full output could NOT be saved. `display_root` starts every path in notices (default: the
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

    The token estimator (`Session.estimate_tokens`, budgets' `max_tokens`,
    `plan`, `cap_batch`) counts `image_tokens` per image part (`None`: 1600)
    and `audio_tokens` per audio part (`None`: 1000), and starts from
    `token_scale` (`None`: 1), clamped between 0.5 and 2: pass an earlier
    session's `Session.token_scale` to carry its calibration over.

    `retention_seconds` is how long the host keeps spilled outputs (the
    `max_age_seconds` of its `SpillStore.sweep`): notices then say how long
    the full output is kept ("kept for 7 days"), and each spill's note
    records that promise, so that no sweep (of any host or policy) deletes
    the file sooner; an identical output capped again renews it. `None`: not
    stated, nothing promised.
    `redaction` replaces secrets before text reaches the model (and, with
    `RedactionPolicy(spill=True)`, the disk); `None` redacts nothing.

    Raises `ToolCapError` (`invalid-settings`) for an empty thread id or
    display root, a key shorter than 16 bytes, a bad read tool name or a bad
    pattern, a `retention_seconds` of 0 or a bad redaction literal;
    `TypeError` for a single `str` as `notable_patterns` or as the policy's
    `literals` (a list of its characters is surely not what was meant) or a
    `token_scale` that is not a number.
    """
    if isinstance(notable_patterns, str):
        raise TypeError("notable_patterns is a sequence of patterns, not one str")
    patterns = list(notable_patterns)
    scale = _float_or_none(token_scale, "token_scale")
    # An empty path is no directory: `Path("")` and `realpath("")` would
    # make it the working directory, granted read-write.
    given = os.fspath(spill_dir) if spill_dir is not None else ""
    host_dir = os.path.realpath(given) if given else None
    redaction_record = cv.redaction_in(redaction)
    if host_dir is not None and not read_only:
        try:
            _private_dir.create(host_dir)
        except OSError:
            pass  # granted as nothing, below: the notice says why
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
        image_tokens=image_tokens,
        audio_tokens=audio_tokens,
        token_scale=scale,
        retention_seconds=retention_seconds,
        redaction=redaction_record,
    )
    try:
        resource = cv.unwrap(instance.call("open", settings), ResourceAny)
    except BaseException:
        instance.store.close()
        raise
    session = Session(instance, resource, granted, display_root, scale)
    try:
        if scale is not None:
            # The scale the component really uses (clamped): `calibrate("", 0)`
            # teaches nothing and returns it.
            session.calibrate("", 0)
        if granted is not None and not read_only:
            # The thread folder too is the owner's only: the component would
            # create it with the process's default mode. Only a plain name
            # is joined, so nothing is created outside the grant.
            folder = session.thread_folder()
            if _plain_name(folder):
                try:
                    _private_dir.create(os.path.join(granted, folder))
                except OSError:
                    pass  # the component reports it when it cannot spill
    except BaseException:
        session.close()
        raise
    return session


class Session(ClosesOnExit):
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
        token_scale: Optional[float] = None,
    ) -> None:
        self._instance: Optional[Instance] = instance
        self._resource = resource
        self.spill_dir: Optional[Path] = Path(spill_dir) if spill_dir is not None else None
        """The host directory granted to the component, if any."""
        self.display_root = display_root
        """The prefix of every path in this session's notices."""
        self.token_scale: Optional[float] = token_scale
        """The estimator's scale as this session's settings carry it: the
        `token_scale` it was opened with, then each `calibrate` result. Pass
        it to `open_session(token_scale=...)` to carry the calibration over
        to a later session."""
        self._streams: "weakref.WeakSet[Union[CapStream, McpStream]]" = weakref.WeakSet()

    def _call(self, name: str, *args: object) -> Any:
        """The export's raw value (`Record`, `Variant`, ...): `_convert`
        checks and converts it."""
        if self._instance is None:
            raise ValueError("the session is closed")
        return self._instance.call(name, self._resource, *args)

    def cap(self, output: str, budget: Budget, call: Union[str, Call]) -> Capped:
        """Fit one tool result to `budget`, spilling the full output if cut.
        `call` is the tool call it came from (a `str` is `Call(call)`): a
        failure it reports is stated first, and what it searched for
        (`Call.search`) is shown around its first hits in a cut preview."""
        out = self._call("cap", output, cv.budget_in(budget), _call_in(call))
        return cv.capped_out(cv.unwrap(out, Record))

    def cap_parts(
        self, parts: Sequence[ContentPart], budget: Budget, call: Union[str, Call]
    ) -> CappedParts:
        """Fit a structured result; non-text parts pass through untouched."""
        lowered = [cv.part_in(p) for p in parts]
        out = self._call("cap-parts", lowered, cv.budget_in(budget), _call_in(call))
        return cv.capped_parts_out(cv.unwrap(out, Record))

    def cap_mcp(
        self,
        result: str,
        budget: Budget,
        call: Union[str, Call],
        *,
        resource_link: bool = False,
    ) -> CappedMcp:
        """Fit an MCP `CallToolResult`, given as its JSON text, to `budget`:
        the very same string when it fits, else a valid result whose notice
        is its own first `text` block (see `CappedMcp`). `resource_link` also
        adds `resource_link` blocks to the spilled files. Raises
        `ToolCapError` (`invalid-argument`) when `result` is not JSON, not an
        object, or its `content` is not a list of objects."""
        if not isinstance(result, str):
            raise TypeError("result must be the JSON text of a CallToolResult (a str)")
        options = cv.record(resource_link=bool(resource_link))
        out = self._call("cap-mcp", result, cv.budget_in(budget), _call_in(call), options)
        return cv.capped_mcp_out(cv.unwrap(out, Record))

    def stream_mcp(
        self,
        skeleton: str,
        block: int,
        raw_bytes: int,
        budget: Budget,
        call: Union[str, Call],
        *,
        resource_link: bool = False,
    ) -> McpStream:
        """`cap_mcp` of a result too large to hand over whole: `skeleton` is
        the result's JSON with the text of content block `block` (a text
        block's or an embedded resource's) written `""`; write that string's
        raw body (`raw_bytes` bytes in all) to the returned stream in pieces.
        Raises `ToolCapError` (`invalid-argument`) unless the text is sure
        to be cut (`raw_bytes` over six times `max_bytes`), or the skeleton
        has no `""` there."""
        if not isinstance(skeleton, str):
            raise TypeError("skeleton must be the JSON text of a CallToolResult (a str)")
        if self._instance is None:
            raise ValueError("the session is closed")
        options = cv.record(resource_link=bool(resource_link))
        out = self._call(
            "stream-mcp", skeleton, block, raw_bytes, cv.budget_in(budget), _call_in(call), options
        )
        stream = McpStream(self._instance, cv.unwrap(out, ResourceAny))
        self._streams.add(stream)
        return stream

    def plan(
        self, results: Sequence[PendingResult], limits: RequestLimits
    ) -> builtins.list[Budget]:
        """One budget per pending result of a turn, in order, so that the
        results together fit what the next request has left (`limits`).

        A turn of parallel tool calls can overflow the request together
        although each result fits its own cap. Each result gets the same
        number of text bytes, or its whole text when that is smaller, or the
        ceiling when that is smaller, at the largest level within every limit
        (max-min fair); media parts cannot be cut and count first. A result
        is a `str` or a sequence of content parts. Raises `ToolCapError`
        (`invalid-budget`) when the ceiling is invalid or the limits leave a
        result to be cut below the least budget (the message says how much
        is missing)."""
        lowered = [cv.pending_in(p) for p in results]
        out = self._call("plan", lowered, cv.limits_in(limits))
        return [cv.budget_out(b) for b in cv.unwrap(out, list)]

    def cap_batch(
        self,
        results: Sequence[tuple[Union[str, Call], PendingResult]],
        limits: RequestLimits,
    ) -> builtins.list[BatchResult]:
        """Plan and cap a whole turn: `results` are `(call, result)` pairs,
        `call` a `Call` or its id, `result` a `str` or a sequence of content
        parts. Each is capped (and spilled) as `cap` or `cap_parts` would
        with its planned budget, and comes back in order as a `Capped` (for
        a `str`) or a `CappedParts`; together they are within every limit of
        `limits` (tokens by `estimate_tokens`, body bytes as
        `RequestLimits` counts them). Raises `ToolCapError` as `plan` does."""
        turn = []
        for entry in results:
            if not isinstance(entry, tuple) or len(entry) != 2:
                raise TypeError(f"expected a (call, result) pair, got {entry!r}")
            call, pending = entry
            turn.append((_call_in(call), cv.pending_in(pending)))
        out = self._call("cap-batch", turn, cv.limits_in(limits))
        return [cv.batch_result_out(r) for r in cv.unwrap(out, list)]

    def estimate_tokens(self, text: str) -> int:
        """The session's token estimate of `text`: a character-class
        heuristic biased not to under-count, times the calibration scale."""
        return cv.int_out(self._call("estimate-tokens", text))

    def calibrate(self, text: str, actual_tokens: int) -> float:
        """Report what the provider counted for `text` (e.g. the prompt
        tokens of a request whose only variable part was `text`): the scale
        moves toward the true ratio by a bounded step, clamped between 0.5
        and 2; texts under 256 bytes are ignored. Returns the new scale and
        keeps it in `token_scale`."""
        scale = cv.float_out(self._call("calibrate", text, actual_tokens))
        self.token_scale = scale
        return scale

    def find_refs(self, text: str) -> builtins.list[OverflowRef]:
        """Every genuine reference of this session's key and thread in `text`."""
        found: builtins.list[Record] = self._call("find-refs", text)
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
        """Replace stale tool message bodies (given oldest first): one with
        genuine references by their placeholders, any other by a short marker
        (one aged out by `keep_last` only when the marker at least halves it;
        over `max_total_bytes` or `max_total_tokens` every saving counts)."""
        out = self._call("prune", list(messages), cv.policy_in(policy))
        return cv.pruned_out(cv.unwrap(out, Record))

    def purge(self) -> int:
        """Delete this thread's spill folder; the bytes of file content freed."""
        return cv.unwrap(self._call("purge"), int)

    def thread_folder(self) -> str:
        """The thread's folder name inside the spill directory: the thread id
        mapped to a name valid on every file system (`open_session` creates
        it, mode 0700, in a directory it grants read-write)."""
        return cv.unwrap(self._call("thread-folder"), str)

    def read_tool(self) -> ReadToolSpec:
        """The model-facing read tool: its name (the session's `read_tool`,
        or the component's default name), a description written for a model and the
        JSON Schema of its arguments. Register it with the model as it is."""
        return cv.read_tool_spec_out(cv.unwrap(self._call("read-tool"), Record))

    def run_read_tool(self, arguments: Union[str, Mapping[str, Any]]) -> ReadToolOutput:
        """Run one call of the read tool with the arguments the model sent:
        their JSON text as it came, or a mapping (sent as `json.dumps` of
        it). Its `path` may be the notice's path, the notice text, the
        file's name alone, the path's `file://` URI (as `resource_link`
        blocks give it) or a Markdown link to it. Never raises for a model mistake: the output's `is_error` is
        set and its `text` says what was wrong. Give `text` to the model as
        it is; never cap or spill it again."""
        if isinstance(arguments, Mapping):
            text = json.dumps(dict(arguments))
        elif isinstance(arguments, str):
            text = arguments
        else:
            raise TypeError(f"expected the arguments as a str or a mapping, got {arguments!r}")
        return cv.read_tool_output_out(cv.unwrap(self._call("run-read-tool", text), Record))

    def list(self) -> builtins.list[SpillEntry]:
        """This thread's spilled outputs, oldest first, each with a genuine
        reference, to name them to the model again after compacting a
        conversation. Raises `ToolCapError` (`no-spill-dir`) without a
        granted directory."""
        entries = cv.unwrap(self._call("list"), builtins.list)
        return [cv.spill_entry_out(e) for e in entries]

    def stream(self, budget: Budget, call: Union[str, Call]) -> CapStream:
        """Start capping a result that arrives in chunks (a command's output
        as it runs): `write` the chunks, then `finish` for exactly the
        `Capped` that `cap` gives on the whole text. Use it as a context
        manager, which releases it (abandoning it, if not finished).
        Raises `ToolCapError` (`invalid-budget`) as `cap` does."""
        if self._instance is None:
            raise ValueError("the session is closed")
        out = self._call("stream", cv.budget_in(budget), _call_in(call))
        stream = CapStream(self._instance, cv.unwrap(out, ResourceAny))
        self._streams.add(stream)
        return stream

    def classify(self, status: int, body: str) -> Optional[Overflow]:
        """`classify` in this session's instance."""
        if self._instance is None:
            raise ValueError("the session is closed")
        return cv.overflow_out(self._instance.call("classify", status, body))

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
        """Drop the component's session (and its open streams) and its
        instance. Idempotent."""
        instance, self._instance = self._instance, None
        if instance is not None:
            for stream in builtins.list(self._streams):
                stream.close()
            self._resource.drop(instance.store)
            instance.store.close()


def _float_or_none(value: Optional[float], name: str) -> Optional[float]:
    """An `option<f64>` argument: wasmtime-py takes only a `float`, so an
    `int` is converted; anything else (a `bool` too) is a `TypeError`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    return float(value)


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


def classify(status: int, body: str) -> Optional[Overflow]:
    """Whether an HTTP error response means "the request was too large": an
    `Overflow` (`kind` `'request-too-large'` or `'context-length-exceeded'`,
    with the `limit` and `requested` amounts in `unit` when the body states
    them) or `None`. Runs in one shared instance with no grant at all."""
    global _classifier
    with _classifier_lock:
        if _classifier is None:
            _classifier = runtime().instantiate(None, read_only=True)
        return cv.overflow_out(_classifier.call("classify", status, body))
