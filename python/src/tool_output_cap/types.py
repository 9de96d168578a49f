"""The WIT types of tool-output-cap as Python dataclasses (snake_case fields).

Sizes are plain `int`s: `u64` totals come through exactly, whatever their size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional, Union

Keep = Literal["head", "tail", "head-and-tail"]
"""Which part of an oversized result the preview keeps."""

OverflowKind = Literal["request-too-large", "context-length-exceeded"]
"""Why a provider rejected a request for its size (see `classify`)."""

ErrorCase = Literal[
    "invalid-budget",
    "invalid-settings",
    "invalid-argument",
    "outside-root",
    "not-found",
    "no-spill-dir",
    "io",
    "other",
]
"""The cases of the WIT `cap-error` variant."""


@dataclass(frozen=True)
class Budget:
    """How much of a tool result may reach the model, notice included.

    `max_bytes` 0 disables capping; `None` for `max_lines` / `max_line_bytes`
    means no limit. Use `budget()` for the usual defaults.
    """

    max_bytes: int
    max_lines: Optional[int]
    max_line_bytes: Optional[int]
    keep: Keep
    head_percent: int


# The Rust host's defaults (host-demo/src/budget.rs): a useful preview that is
# small next to a context window, with the tail favoured because logs end
# with their errors.
DEFAULT_MAX_LINES = 400
DEFAULT_MAX_LINE_BYTES = 2000
DEFAULT_HEAD_PERCENT = 40


def budget(
    max_bytes: int,
    *,
    max_lines: Optional[int] = DEFAULT_MAX_LINES,
    max_line_bytes: Optional[int] = DEFAULT_MAX_LINE_BYTES,
    keep: Keep = "head-and-tail",
    head_percent: int = DEFAULT_HEAD_PERCENT,
) -> Budget:
    """A budget of `max_bytes` with the defaults: at most 400 lines, preview
    lines cut at 2000 bytes, head and tail kept (40 % head). Keyword arguments
    override single fields: `budget(16384, max_lines=None)`."""
    return Budget(
        max_bytes=max_bytes,
        max_lines=max_lines,
        max_line_bytes=max_line_bytes,
        keep=keep,
        head_percent=head_percent,
    )


@dataclass(frozen=True)
class OverflowRef:
    """A genuine reference to a spilled file, made and verified by the component.

    `path` is what the model sees (`<display_root>/<thread>/<file>`);
    `relative_path` is `<thread>/<file>`, the file's place in the spill
    directory and exactly what the tag covers."""

    path: str
    relative_path: str
    bytes: int
    lines: int
    digest: str
    tag: str


@dataclass(frozen=True)
class Call:
    """The tool call a result came from.

    `id` names the spill file (any text; the component maps it to a safe
    name). A failed call, `is_error` (MCP `isError`) or a non-zero
    `exit_code` (a WIT `s32`), is stated first in the notice, quoting `tool`
    when given, and its preview leans to the tail. A plain `str` wherever a
    `Call` is taken means `Call(id)`."""

    id: str
    tool: Optional[str] = None
    exit_code: Optional[int] = None
    is_error: bool = False


@dataclass(frozen=True)
class CapReport:
    """What a cap did, in numbers: the same for `Capped` and `CappedParts`.

    Sizes are of the input (for parts: their texts joined by LF).
    `omitted_bytes` counts bytes not shown verbatim, `omitted_lines` lines of
    which no byte is shown, `gap_line` is the 1-based line of the first
    omitted byte (`None` when nothing was omitted), `notable_lines` the
    notable (failure) lines of the omitted middle shown with their line
    numbers, `folded_lines` the preview lines folded into "more lines like
    the one above" markers. A cut result has exactly one of `spill` (where
    the full output was saved) and `spill_error` (why it could not be)."""

    truncated: bool
    original_bytes: int
    original_lines: int
    omitted_bytes: int
    omitted_lines: int
    gap_line: Optional[int]
    notable_lines: int
    folded_lines: int
    spill: Optional[OverflowRef]
    spill_error: Optional[str]


@dataclass(frozen=True)
class Capped:
    """A tool result fitted to a budget: `text` for the model (the input
    unchanged if it fit, else a preview and a notice) and its `report`."""

    text: str
    report: CapReport


@dataclass(frozen=True)
class Text:
    """A text part: all text of one result shares one budget."""

    text: str


@dataclass(frozen=True)
class Image:
    """An image (base64 `data`): never cut, never counted."""

    data: str
    mime_type: str


@dataclass(frozen=True)
class Audio:
    """Audio (base64 `data`): never cut, never counted."""

    data: str
    mime_type: str


@dataclass(frozen=True)
class Resource:
    """An embedded resource: its `text` is capped, its `blob` carried through."""

    uri: str
    mime_type: Optional[str] = None
    text: Optional[str] = None
    blob: Optional[str] = None


@dataclass(frozen=True)
class Other:
    """Any other part (for example JSON of an unknown type), carried through."""

    value: str


ContentPart = Union[Text, Image, Audio, Resource, Other]
"""One part of a structured tool result (an MCP content list)."""


@dataclass(frozen=True)
class CappedParts:
    """A structured tool result fitted to a budget; the `report` covers the
    text parts and resource texts joined by LF."""

    parts: list[ContentPart]
    report: CapReport


@dataclass(frozen=True)
class Page:
    """A page of a spilled file, cut on UTF-8 character boundaries."""

    text: str
    offset: int
    first_line: int
    next_offset: Optional[int]
    next_line: Optional[int]
    total_bytes: int


@dataclass(frozen=True)
class GrepMatch:
    """One occurrence of a grep pattern."""

    line: int
    offset: int
    excerpt: str
    excerpt_offset: int


@dataclass(frozen=True)
class GrepResult:
    """The first matches, in file order, and the count of all."""

    matches: list[GrepMatch]
    total_matches: int


@dataclass(frozen=True)
class PrunePolicy:
    """Which stale tool messages `prune` replaces; `None` = no such limit."""

    keep_last: Optional[int] = None
    max_total_bytes: Optional[int] = None


@dataclass(frozen=True)
class Pruned:
    """The bodies after pruning, which were replaced, and the byte accounting."""

    messages: list[str]
    replaced: list[int]
    bytes_saved: int
    total_bytes: int
