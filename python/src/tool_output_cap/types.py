"""The WIT types of tool-output-cap as Python dataclasses (snake_case fields).

Sizes are plain `int`s: `u64` totals come through exactly, whatever their size.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Sequence, Union

Keep = Literal["head", "tail", "head-and-tail"]
"""Which part of an oversized result the preview keeps."""

OverflowKind = Literal["request-too-large", "context-length-exceeded"]
"""Why a provider rejected a request for its size (see `classify`)."""

SizeUnit = Literal["tokens", "bytes", "characters"]
"""The unit of the amounts a provider states (`Overflow.unit`)."""

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

SweepReason = Literal["age", "total-bytes", "file-count", "stale-temporary"]
"""Why a sweep deleted a file (`SweptFile.reason`): older than
`max_age_seconds`, the store over `max_total_bytes` or `max_files`, or a
temporary file of a writer that stopped more than a day ago (a crash)."""


@dataclass(frozen=True)
class Budget:
    """How much of a tool result may reach the model, notice included.

    `max_bytes` 0 disables capping (and every other field); `None` for
    `max_lines` / `max_line_bytes` / `max_tokens` means no such limit.
    `max_tokens` counts the session's estimate (`Session.estimate_tokens`).
    Use `budget()` for the usual defaults.
    """

    max_bytes: int
    max_lines: Optional[int]
    max_line_bytes: Optional[int]
    keep: Keep
    head_percent: int
    max_tokens: Optional[int] = None


# The Rust host's defaults (host-demo/src/budget.rs): a useful preview that is
# small next to a context window, with the tail favoured because logs end
# with their errors.
DEFAULT_MAX_BYTES = 16 * 1024
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
    max_tokens: Optional[int] = None,
) -> Budget:
    """A budget of `max_bytes` with the defaults: at most 400 lines, preview
    lines cut at 2000 bytes, head and tail kept (40 % head), no token limit.
    Keyword arguments override single fields:
    `budget(16384, max_lines=None, max_tokens=4000)`."""
    return Budget(
        max_bytes=max_bytes,
        max_lines=max_lines,
        max_line_bytes=max_line_bytes,
        keep=keep,
        head_percent=head_percent,
        max_tokens=max_tokens,
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
    `Call` is taken means `Call(id)`.

    `search` is what the tool searched for, when it was a search (a `grep`
    or `rg` command, a tool's `pattern` or `query` argument): literal text,
    one alternative per line as grep reads its patterns, or a sequence of
    alternatives (a `list` or `tuple` of `str`, joined with LF). A cut
    preview then shows a window around the first hits, even inside a line of
    megabytes. `None`, or only empty lines: no search. A sequence is joined
    when the `Call` is made (so `search` reads back as a `str` and the call
    stays hashable); anything else is a `TypeError` then. More than 16
    alternatives, or one over 256 bytes, is the component's
    `invalid-argument` when the call is used."""

    id: str
    tool: Optional[str] = None
    exit_code: Optional[int] = None
    is_error: bool = False
    search: Union[str, Sequence[str], None] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "search", _joined_search(self.search))


def _joined_search(search: object) -> Optional[str]:
    """A call's `search` as the WIT's `option<string>`: a `str` as it is, a
    `list`, `tuple` or other sequence of `str` (the alternatives) joined
    with LF, `None` as none. The component checks the limits."""
    if search is None or isinstance(search, str):
        return search
    if isinstance(search, Sequence) and not isinstance(search, (bytes, bytearray)):
        for i, alternative in enumerate(search):
            if not isinstance(alternative, str):
                raise TypeError(f"Call.search[{i}] must be a str, got {alternative!r}")
        return "\n".join(search)
    raise TypeError(f"Call.search must be a str or a list of str, got {search!r}")


@dataclass(frozen=True)
class RedactionCount:
    """How many secrets of one kind a cap replaced. `kind` is the name the
    replacement shows (`[redacted: github-token]`): `aws-access-key`,
    `aws-secret-key`, `google-api-key`, `azure-key`, `github-token`,
    `gitlab-token`, `openai-key`, `anthropic-key`, `openrouter-key`,
    `groq-key`, `xai-key`, `huggingface-token`, `stripe-key`, `npm-token`,
    `pypi-token`, `docker-token`, `digitalocean-token`, `slack-token`,
    `slack-webhook`, `jwt`, `bearer-token`, `private-key`, `password`,
    `secret` or `literal` (one of the policy's `literals`)."""

    kind: str
    count: int


@dataclass(frozen=True)
class CapReport:
    """What a cap did, in numbers: the same for `Capped` and `CappedParts`.

    Sizes are of the input (for parts: their texts joined by LF).
    `omitted_bytes` counts bytes not shown verbatim, `omitted_lines` lines of
    which no byte is shown, `gap_line` is the 1-based line of the first
    omitted byte (`None` when nothing was omitted), `notable_lines` the
    notable (failure) lines of the omitted middle shown with their line
    numbers, `folded_lines` the preview lines folded into "more lines like
    the one above" markers. `original_tokens` and `tokens` are the session's
    token estimates of the input and of what is returned (for parts: of the
    text, plus the fixed cost of each image and audio part and the estimate
    of each resource blob and `Other` part); a large input's are estimated
    from evenly spread samples unless the budget has `max_tokens` and the
    input is within `max_bytes` (for parts and MCP results: the texts within
    what the rest leaves them of `max_bytes`; the WIT's `original-tokens`
    states the bounds). A cut result has exactly one of
    `spill` (where the full output was saved) and `spill_error` (why it
    could not be). `redactions` counts the secrets the session's
    `RedactionPolicy` replaced, per kind (empty without a policy or when
    none was found)."""

    truncated: bool
    original_bytes: int
    original_lines: int
    omitted_bytes: int
    omitted_lines: int
    gap_line: Optional[int]
    notable_lines: int
    folded_lines: int
    original_tokens: int
    tokens: int
    spill: Optional[OverflowRef]
    spill_error: Optional[str]
    redactions: list[RedactionCount] = field(default_factory=list)


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
    """An image (base64 `data`): never cut, never counted against a budget's
    bytes; its tokens are the session's `image_tokens`."""

    data: str
    mime_type: str


@dataclass(frozen=True)
class Audio:
    """Audio (base64 `data`): never cut, never counted against a budget's
    bytes; its tokens are the session's `audio_tokens`."""

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
class CappedMcp:
    """An MCP `CallToolResult` fitted to a budget (`Session.cap_mcp`).

    `result` is the JSON to give the client: exactly the input string if it
    fit; otherwise a valid `CallToolResult` whose first `text` block is the
    notice, with the preview in place of the first textual block, every
    other block untouched and in place, `isError` kept, and the reference
    and accounting under `_meta["tool-output-cap/cap"]`. `report` covers the
    joined text of the content blocks. `structured_dropped`: the
    `structuredContent` did not fit and was left out whole; `structured_spill`
    is where it was saved, exactly as received."""

    result: str
    report: CapReport
    structured_dropped: bool
    structured_spill: Optional[OverflowRef]


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
    """Which stale tool messages `prune` replaces; `None` = no such limit.

    Keep the newest `keep_last`, then prune the oldest remaining until the
    bodies total at most `max_total_bytes` and `max_total_tokens` (the
    session's estimate); both targets hold when both are set. A body aged
    out by `keep_last` alone becomes a marker only when that at least halves
    it; over a limit every saving counts."""

    keep_last: Optional[int] = None
    max_total_bytes: Optional[int] = None
    max_total_tokens: Optional[int] = None


@dataclass(frozen=True)
class Pruned:
    """The bodies after pruning, which were replaced, and the accounting:
    `total_bytes` and `total_tokens` (the session's estimate) of the bodies
    after pruning."""

    messages: list[str]
    replaced: list[int]
    bytes_saved: int
    total_bytes: int
    total_tokens: int


@dataclass(frozen=True)
class Overflow:
    """A provider's rejection of a request for its size (see `classify`):
    which limit was hit, and the amounts when the error body states them
    (`limit`, e.g. 128000, and `requested`, e.g. 131392, both in `unit`;
    `unit` is `None` when the body states neither)."""

    kind: OverflowKind
    limit: Optional[int]
    requested: Optional[int]
    unit: Optional[SizeUnit]


@dataclass(frozen=True, kw_only=True)
class RequestLimits:
    """What the next request has left for the results of one turn, for
    `Session.plan` and `Session.cap_batch`.

    `max_tokens`: tokens of the model's window left for these results (the
    window minus the rest of the conversation and the answer's reserve), as
    the session estimates them; `max_body_bytes`: request body bytes left
    for them (a proxy's body limit minus the rest of the request); `None`:
    no such limit. `floor_bytes`: text bytes every result keeps at least,
    when the limits allow it. `ceiling`: the per-result budget: no result
    gets more, and its other fields (`max_lines`, `keep`, ...) shape every
    budget of the plan; `max_bytes` 0 sets no per-result ceiling. Default:
    `budget(16 * 1024)`. Fields are keyword-only:
    `RequestLimits(max_tokens=30_000, ceiling=budget(8192))`."""

    max_tokens: Optional[int] = None
    max_body_bytes: Optional[int] = None
    floor_bytes: int = 0
    ceiling: Budget = budget(DEFAULT_MAX_BYTES)


PendingResult = Union[str, Sequence[ContentPart]]
"""One pending result of a turn (`Session.plan`, `Session.cap_batch`): a
`str` is a text result (as `cap` takes it), a sequence of content parts a
structured one (as `cap_parts` takes it)."""

BatchResult = Union[Capped, CappedParts]
"""One result of `Session.cap_batch`: a `Capped` for a text result, a
`CappedParts` for a structured one."""


@dataclass(frozen=True)
class RedactionPolicy:
    """Opt-in secret redaction for `open_session(redaction=...)`: each secret
    becomes `[redacted: <kind>]` before text reaches the model; the text
    around it (a header name, `password=`, a PEM block's BEGIN and END lines)
    stays, and no line is added or removed.

    Built in: AWS access and secret keys, Google API keys, Azure account
    keys, GitHub and GitLab tokens, OpenAI, Anthropic, OpenRouter, Groq and
    xAI API keys, Hugging Face, npm, PyPI, Docker Hub and DigitalOcean
    tokens, Stripe keys, Slack tokens and webhooks, JWTs, `Authorization:
    Bearer` values, PEM private key blocks and `password=`/`secret=`-style
    assignments. `literals` adds
    the host's own secrets (for example the API keys it holds), replaced
    wherever they occur as `[redacted: literal]`: at most 64, each 4 to 512
    bytes on one line (otherwise `invalid-settings`; a single `str` is a
    `TypeError`). `spill=True` redacts the saved file too; `False` saves the
    full output as it was, so the reference's sizes and digest describe the
    saved file."""

    literals: Sequence[str] = ()
    spill: bool = False


@dataclass(frozen=True)
class ReadToolSpec:
    """The model-facing read tool (`Session.read_tool`): register it with the
    model as it is. `input_schema` is the JSON Schema of its arguments as
    compact JSON; `schema` is the same, parsed."""

    name: str
    description: str
    input_schema: str

    @property
    def schema(self) -> dict[str, Any]:
        """`input_schema` parsed: the `parameters` / `input_schema` object a
        provider's tool definition takes."""
        parsed: dict[str, Any] = json.loads(self.input_schema)
        return parsed


@dataclass(frozen=True)
class ReadToolOutput:
    """What one call of the read tool gives back to the model: `text` as it
    is (never cap or spill it again), and `is_error` (MCP's `isError`) when
    the call was a mistake that `text` explains (bad arguments, a path that
    is not a spill of this thread, a forged reference, an expired file)."""

    text: str
    is_error: bool


@dataclass(frozen=True)
class SpillEntry:
    """One spilled output of the thread (`Session.list`): a genuine
    `reference`, when it was saved (`created_ms`, milliseconds since the
    Unix epoch, UTC), and the `call_id` and `tool` of the call whose output
    it is. A second call with identical output reuses the first call's
    file."""

    reference: OverflowRef
    created_ms: int
    call_id: str
    tool: Optional[str]


@dataclass(frozen=True)
class RetentionPolicy:
    """Which spilled outputs `SpillStore.sweep` deletes, oldest first; `None`
    = no such limit, and every limit that is set holds afterwards: outputs
    saved more than `max_age_seconds` ago, then the oldest until all total
    at most `max_total_bytes`, then the oldest until at most `max_files`
    remain."""

    max_age_seconds: Optional[int] = None
    max_total_bytes: Optional[int] = None
    max_files: Optional[int] = None


@dataclass(frozen=True)
class SweptFile:
    """One file a sweep deleted: `relative_path` is `<thread>/<file>`,
    `created_ms` when it was saved (milliseconds since the Unix epoch)."""

    relative_path: str
    bytes: int
    created_ms: int
    reason: SweepReason


@dataclass(frozen=True)
class SweepReport:
    """What a sweep did: the files `deleted`, oldest first; the spilled
    outputs kept and their bytes; and the entries left alone (`skipped`),
    each with why: symbolic links (never followed), temporary files of a
    cap in progress, anything that is not a spill."""

    deleted: list[SweptFile]
    kept_files: int
    kept_bytes: int
    skipped: list[str]


@dataclass(frozen=True)
class StoreStats:
    """What the spill directory holds across every thread: thread folders,
    spilled outputs and their bytes, and when the oldest and newest were
    saved (milliseconds since the Unix epoch; `None` when there are none)."""

    threads: int
    files: int
    bytes: int
    oldest_ms: Optional[int]
    newest_ms: Optional[int]
