"""Strict parsing of vector files: every object denies unknown fields and
checks the type of each value, so a typo fails loudly instead of checking
nothing.

Parsed vectors stay plain dicts. As with the Rust runner's serde types, an
optional field set to `null` counts as absent, except the nullable
expectations (`gap_line`, `next_offset`, `next_line`, and classify's
`kind`, `limit`, `requested`, `unit`), where `null` means "must be none".
`host-path`'s `relative` is required, and `null` there means "maps to
nothing"; so is a `list` entry's `tool`, where `null` means "no tool".
"""

from __future__ import annotations

import json
from typing import Any, Callable

Spec = Callable[[Any, str], Any]
"""Checks a value found at a path; returns it normalised, or raises."""


class VectorError(ValueError):
    """The vector file is malformed."""


class Nullable:
    """An optional expectation where an explicit `null` is kept."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec


def string(value: Any, at: str) -> str:
    if not isinstance(value, str):
        raise VectorError(f"{at}: expected a string, got {value!r}")
    return value


def boolean(value: Any, at: str) -> bool:
    if not isinstance(value, bool):
        raise VectorError(f"{at}: expected true or false, got {value!r}")
    return value


def uint(bits: int) -> Spec:
    def check(value: Any, at: str) -> int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok or not 0 <= value < 1 << bits:
            raise VectorError(f"{at}: expected a u{bits}, got {value!r}")
        return value

    return check


u8, u16, u32, u64 = uint(8), uint(16), uint(32), uint(64)


def number(value: Any, at: str) -> float:
    """A JSON number (an `f64`): an int or a float, not a bool."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise VectorError(f"{at}: expected a number, got {value!r}")
    return float(value)


def s32(value: Any, at: str) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok or not -(1 << 31) <= value < 1 << 31:
        raise VectorError(f"{at}: expected an s32, got {value!r}")
    return value


def nullable(spec: Spec) -> Spec:
    """A required value that may be `null` (kept as `None`)."""

    def check(value: Any, at: str) -> Any:
        return None if value is None else spec(value, at)

    return check


def one_of(*choices: str) -> Spec:
    def check(value: Any, at: str) -> str:
        if value not in choices:
            raise VectorError(f"{at}: expected one of {choices}, got {value!r}")
        return value

    return check


def list_of(spec: Spec) -> Spec:
    def check(value: Any, at: str) -> list[Any]:
        if not isinstance(value, list):
            raise VectorError(f"{at}: expected a list, got {value!r}")
        return [spec(item, f"{at}[{i}]") for i, item in enumerate(value)]

    return check


def obj(required: dict[str, Spec], optional: dict[str, Spec | Nullable] | None = None) -> Spec:
    optional = optional or {}

    def check(value: Any, at: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise VectorError(f"{at}: expected an object, got {value!r}")
        unknown = set(value) - set(required) - set(optional)
        if unknown:
            raise VectorError(f"{at}: unknown field(s) {sorted(unknown)}")
        out: dict[str, Any] = {}
        for name, spec in required.items():
            if name not in value:
                raise VectorError(f"{at}: missing field {name!r}")
            out[name] = spec(value[name], f"{at}.{name}")
        for name, opt in optional.items():
            if name not in value:
                continue
            item = value[name]
            if isinstance(opt, Nullable):
                out[name] = None if item is None else opt.spec(item, f"{at}.{name}")
            elif item is not None:
                out[name] = opt(item, f"{at}.{name}")
        return out

    return check


_segment = obj(
    {}, {"text": string, "times": u64, "lines": string, "from": u64, "count": u64}
)
_generator = obj({"gen": list_of(_segment)})


def text_input(value: Any, at: str) -> Any:
    """A plain string, or `{"gen": [segments]}` (built by `inputs.build`)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _generator(value, at)
    raise VectorError(f'{at}: a text input must be a string or {{"gen": [...]}}, got {value!r}')


_media = obj({"data": string, "mime_type": string})
_resource = obj({"uri": string}, {"mime_type": string, "text": string, "blob": string})
_PART_KINDS: dict[str, Spec] = {
    "text": text_input,
    "image": _media,
    "audio": _media,
    "resource": _resource,
    "other": string,
}


def part(value: Any, at: str) -> dict[str, Any]:
    """A content part: an object with exactly one of the part kinds."""
    if not isinstance(value, dict) or len(value) != 1:
        raise VectorError(f"{at}: a part is an object with one key, got {value!r}")
    ((kind, payload),) = value.items()
    if kind not in _PART_KINDS:
        raise VectorError(f"{at}: unknown part kind {kind!r}")
    return {kind: _PART_KINDS[kind](payload, f"{at}.{kind}")}


def any_json(value: Any, at: str) -> Any:
    """Any JSON value (`run-read-tool`'s `arguments`)."""
    return value


def positive_u32(value: Any, at: str) -> int:
    n: int = u32(value, at)
    if n == 0:
        raise VectorError(f"{at}: a chunk size must be at least 1")
    return n


def non_empty(spec: Spec) -> Spec:
    def check(value: Any, at: str) -> Any:
        out = spec(value, at)
        if not out:
            raise VectorError(f"{at}: must not be empty")
        return out

    return check


def redaction_counts(value: Any, at: str) -> dict[str, int]:
    """A cap's `redactions` expectation: `{"<kind>": count}`."""
    if not isinstance(value, dict):
        raise VectorError(f"{at}: expected an object of counts by kind, got {value!r}")
    return {kind: u32(count, f"{at}.{kind}") for kind, count in value.items()}


_budget = obj(
    {"max_bytes": u32, "keep": one_of("head", "tail", "head-and-tail"), "head_percent": u8},
    {"max_lines": u32, "max_line_bytes": u32, "max_tokens": u32},
)
_policy = obj({}, {"keep_last": u32, "max_total_bytes": u64, "max_total_tokens": u64})
_texts = list_of(string)

_cap_expect = obj(
    {},
    {
        "error": string,
        "truncated": boolean,
        "spilled": boolean,
        "original_bytes": u32,
        "original_lines": u32,
        "omitted_bytes": u32,
        "omitted_lines": u32,
        "gap_line": Nullable(u32),
        "notable_lines": u32,
        "folded_lines": u32,
        "original_tokens": u32,
        "tokens": u32,
        "spill_error_contains": string,
        "text_contains": _texts,
        "text_not_contains": _texts,
        "text": string,
        "parts": list_of(part),
        "redactions": redaction_counts,
        "spill_text": text_input,
    },
)
_text_expect = obj(
    {}, {"error": string, "text_contains": _texts, "text_not_contains": _texts, "text": string}
)
_page_expect = obj(
    {},
    {
        "error": string,
        "offset": u64,
        "first_line": u64,
        "next_offset": Nullable(u64),
        "next_line": Nullable(u64),
        "total_bytes": u64,
        "text_contains": _texts,
        "text_not_contains": _texts,
        "text": string,
    },
)
_match_expect = obj({}, {"line": u64, "offset": u64, "excerpt": string, "excerpt_offset": u64})
_tamper = obj({}, {"path": string, "bytes": u64, "lines": u64, "digest": string, "tag": string})

_call = obj(
    {"id": string}, {"tool": string, "exit_code": s32, "is_error": boolean, "search": string}
)


def one_call(spec: Spec) -> Spec:
    """A cap step names its call by `call_id` or by `call`, not both."""

    def check(value: Any, at: str) -> dict[str, Any]:
        out = spec(value, at)
        if ("call_id" in out) == ("call" in out):
            raise VectorError(f"{at}: a cap step needs exactly one of call_id and call")
        return out

    return check


def one_kind(spec: Spec) -> Spec:
    """A pending result is `text` or `parts`, not both."""

    def check(value: Any, at: str) -> dict[str, Any]:
        out = spec(value, at)
        if ("text" in out) == ("parts" in out):
            raise VectorError(f"{at}: a pending result needs exactly one of text and parts")
        return out

    return check


_PENDING: dict[str, Spec] = {"text": text_input, "parts": list_of(part)}
# `plan` takes results without calls; `cap-batch` each with its call, as a
# cap step names it.
_plan_result = one_kind(obj({}, _PENDING))
_batch_result = one_call(one_kind(obj({}, {**_PENDING, "call_id": string, "call": _call})))
_limits = obj(
    {"floor_bytes": u32, "ceiling": _budget}, {"max_tokens": u64, "max_body_bytes": u64}
)
_SIZE_UNITS = ("tokens", "bytes", "characters")


def classify_expect(value: Any, at: str) -> dict[str, Any]:
    """`kind`, and the amounts only when `kind` is not null."""
    out = obj({}, {
        "kind": Nullable(one_of("request-too-large", "context-length-exceeded")),
        "limit": Nullable(u64),
        "requested": Nullable(u64),
        "unit": Nullable(one_of(*_SIZE_UNITS)),
    })(value, at)
    amounts = sorted({"limit", "requested", "unit"} & set(out))
    if amounts and out.get("kind", "") is None:
        raise VectorError(f"{at}: {amounts} expected, but kind is null")
    return out


_SWEEP_REASONS = ("age", "total-bytes", "file-count", "stale-temporary")
_entry_expect = obj(
    {},
    {
        "call_id": string,
        "tool": Nullable(string),
        "bytes": u64,
        "lines": u64,
        "relative_path": string,
        "digest": string,
    },
)
_swept_expect = obj(
    {}, {"relative_path": string, "bytes": u64, "reason": one_of(*_SWEEP_REASONS)}
)
_retention = obj({}, {"max_age_seconds": u64, "max_total_bytes": u64, "max_files": u32})

def _pair(value: Any, at: str) -> list[int]:
    """`[output index, input index]` of `same_blocks`."""
    if not isinstance(value, list) or len(value) != 2:
        raise VectorError(f"{at}: expected [output index, input index], got {value!r}")
    return [u32(v, f"{at}[{i}]") for i, v in enumerate(value)]


def _counts(value: Any, at: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise VectorError(f"{at}: expected an object, got {value!r}")
    return {k: u32(v, f"{at}.{k}") for k, v in value.items()}


def _json_object(value: Any, at: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise VectorError(f"{at}: expected an object, got {value!r}")
    return value


_mcp_expect = obj(
    {},
    {
        "error": string,
        "unchanged": boolean,
        "truncated": boolean,
        "spilled": boolean,
        "original_bytes": u32,
        "original_lines": u32,
        "omitted_bytes": u32,
        "original_tokens": u32,
        "tokens": u32,
        "redactions": _counts,
        "structured_dropped": boolean,
        "structured_spilled": boolean,
        "content_types": _texts,
        "notice_contains": _texts,
        "text_contains": _texts,
        "text_not_contains": _texts,
        "result_contains": _texts,
        "result_not_contains": _texts,
        "same_blocks": list_of(_pair),
        "is_error": boolean,
        "meta_record": Nullable(_json_object),
    },
)

_STEPS: dict[str, Spec] = {
    "cap": one_call(obj(
        {"op": string, "input": text_input, "budget": _budget, "expect": _cap_expect},
        {"call_id": string, "call": _call},
    )),
    "cap-parts": one_call(obj(
        {"op": string, "parts": list_of(part), "budget": _budget, "expect": _cap_expect},
        {"call_id": string, "call": _call},
    )),
    "cap-mcp": one_call(obj(
        {"op": string, "result": any_json, "budget": _budget, "expect": _mcp_expect},
        {"call_id": string, "call": _call, "options": obj({}, {"resource_link": boolean})},
    )),
    "find-refs": obj(
        {"op": string, "text": text_input, "expect": obj({}, {"count": u64, "paths": _texts})}
    ),
    "pruned-placeholder": obj(
        {"op": string, "call_id": string, "expect": _text_expect}, {"tamper": _tamper}
    ),
    "read": obj(
        {"op": string, "path": string, "offset": u64, "max_bytes": u32, "expect": _page_expect}
    ),
    "read-lines": obj(
        {"op": string, "path": string, "first_line": u64, "count": u32, "max_bytes": u32,
         "expect": _page_expect}
    ),
    "grep": obj(
        {"op": string, "path": string, "pattern": string, "max_matches": u32,
         "expect": obj({}, {"error": string, "total_matches": u64,
                            "matches": list_of(_match_expect)})}
    ),
    "prune": obj(
        {"op": string, "messages": list_of(text_input), "policy": _policy,
         "expect": obj({}, {"error": string, "replaced": list_of(u32), "bytes_saved": u64,
                            "total_bytes": u64, "total_tokens": u64, "messages": _texts})}
    ),
    "host-path": obj(
        {"op": string, "path": string, "expect": obj({"relative": nullable(string)})}
    ),
    "purge": obj({"op": string, "expect": obj({}, {"error": string, "freed": u64})}),
    "classify": obj(
        {"op": string, "status": u16, "body": text_input, "expect": classify_expect}
    ),
    "estimate-tokens": obj(
        {"op": string, "text": text_input, "expect": obj({}, {"tokens": u64})}
    ),
    "calibrate": obj(
        {"op": string, "text": text_input, "actual_tokens": u64,
         "expect": obj({}, {"scale": number})}
    ),
    "plan": obj(
        {"op": string, "results": list_of(_plan_result), "limits": _limits,
         "expect": obj({}, {"error": string, "budgets": list_of(_budget)})}
    ),
    "cap-batch": obj(
        {"op": string, "results": list_of(_batch_result), "limits": _limits,
         "expect": obj({}, {"error": string, "results": list_of(_cap_expect)})}
    ),
    "stream": one_call(obj(
        {"op": string, "input": text_input, "budget": _budget,
         "chunk_bytes": non_empty(list_of(positive_u32)), "expect": _cap_expect},
        {"call_id": string, "call": _call, "exit_code_at_end": s32},
    )),
    "read-tool": obj(
        {"op": string,
         "expect": obj({}, {"name": string, "description_contains": _texts,
                            "schema_properties": _texts})}
    ),
    "run-read-tool": obj(
        {"op": string, "arguments": any_json,
         "expect": obj({}, {"is_error": boolean, "text": string, "text_contains": _texts,
                            "text_not_contains": _texts})}
    ),
    "list": obj(
        {"op": string,
         "expect": obj({}, {"error": string, "entries": list_of(_entry_expect)})}
    ),
    "sweep": obj(
        {"op": string, "policy": _retention,
         "expect": obj({}, {"error": string, "deleted": list_of(_swept_expect),
                            "kept_files": u64, "kept_bytes": u64,
                            "skipped_contains": _texts})}
    ),
    "stats": obj(
        {"op": string,
         "expect": obj({}, {"error": string, "threads": u32, "files": u64, "bytes": u64})}
    ),
}

OPS = tuple(_STEPS)


def step(value: Any, at: str) -> dict[str, Any]:
    """One step; its `op` selects the fields it may have."""
    if not isinstance(value, dict) or "op" not in value:
        raise VectorError(f"{at}: a step is an object with an `op`")
    op = value["op"]
    if op not in _STEPS:
        raise VectorError(f"{at}: unknown op {op!r}")
    return _STEPS[op](value, at)


_session = obj(
    {"thread_id": string, "key_hex": string},
    {
        "display_root": string,
        "display_root_default": boolean,
        "preopen": one_of("read-write", "read-only", "none"),
        "read_tool": string,
        "shell_hints": boolean,
        "notable_patterns": _texts,
        "image_tokens": u32,
        "audio_tokens": u32,
        "token_scale": number,
        "retention_seconds": u64,
        "redaction": obj({"literals": _texts, "spill": boolean}),
    },
)
_vector = obj({"name": string, "about": string, "session": _session, "steps": list_of(step)})


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise VectorError(f"duplicate field(s) {duplicates}")
    return dict(pairs)


def parse(text: str) -> dict[str, Any]:
    """Parses and checks one vector file's text; raises `VectorError`."""
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as err:
        raise VectorError(f"not JSON: {err}") from err
    return _vector(value, "vector")
