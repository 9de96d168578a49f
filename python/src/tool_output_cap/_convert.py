"""Between the package's dataclasses and wasmtime-py's component values.

wasmtime-py 50 lifts a record to a `Record` whose attributes carry the WIT
(kebab-case) field names, a variant whose cases cannot be told apart by
Python type to `Variant(tag, payload)` (a variant whose cases can, like
`pending-result`'s `str` and `list`, to the bare payload), an option to the
value or `None`, an enum to its case name, and a `result<T, E>` to the bare
ok value or the bare error value (no exception). Lowering takes the same
shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, TypeVar, Union, cast, get_args

from wasmtime.component import Record, Variant

from .errors import ToolCapError
from .types import (
    Audio,
    BatchResult,
    Budget,
    Call,
    CapReport,
    Capped,
    CappedMcp,
    CappedParts,
    ContentPart,
    ErrorCase,
    GrepMatch,
    GrepResult,
    Image,
    Other,
    Overflow,
    OverflowKind,
    OverflowRef,
    Page,
    PendingResult,
    PrunePolicy,
    Pruned,
    ReadToolOutput,
    ReadToolSpec,
    RedactionCount,
    RedactionPolicy,
    RequestLimits,
    Resource,
    RetentionPolicy,
    SizeUnit,
    SpillEntry,
    StoreStats,
    SweepReason,
    SweepReport,
    SweptFile,
    Text,
)

T = TypeVar("T")


def record(**fields: Any) -> Record:
    """A `Record` for lowering; `a_b=1` becomes the WIT field `a-b`."""
    out = Record()
    out.__dict__.update({name.replace("_", "-"): value for name, value in fields.items()})
    return out


def unwrap(value: object, ok: type[T]) -> T:
    """The ok value of a `result<T, cap-error>` (checked to be an `ok`), or
    raises its error.

    No ok type of this API is a variant, so a `Variant` is always the error:
    `cap-error`'s cases all carry a string, its tag is one of `ErrorCase`.
    """
    if isinstance(value, Variant):
        raise ToolCapError(cast(ErrorCase, value.tag), cast(str, value.payload))
    if not isinstance(value, ok):
        raise TypeError(f"expected a {ok.__name__} from the component, got {value!r}")
    return value


_OVERFLOW_KINDS = frozenset(get_args(OverflowKind))
_SIZE_UNITS = frozenset(get_args(SizeUnit))
_SWEEP_REASONS = frozenset(get_args(SweepReason))


def overflow_out(value: object) -> Optional[Overflow]:
    """`classify`'s `option<overflow>`: an `Overflow` or `None`."""
    if value is None:
        return None
    if not isinstance(value, Record):
        raise TypeError(f"expected an overflow record from the component, got {value!r}")
    f = value.__dict__
    kind, unit = f["kind"], f["unit"]
    if kind not in _OVERFLOW_KINDS:
        raise TypeError(f"expected an overflow-kind from the component, got {kind!r}")
    if unit is not None and unit not in _SIZE_UNITS:
        raise TypeError(f"expected a size-unit from the component, got {unit!r}")
    return Overflow(
        kind=cast(OverflowKind, kind),
        limit=f["limit"],
        requested=f["requested"],
        unit=cast(Optional[SizeUnit], unit),
    )


def int_out(value: object) -> int:
    """A bare integer (`u64`) answer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an int from the component, got {value!r}")
    return value


def float_out(value: object) -> float:
    """A bare `f64` answer."""
    if not isinstance(value, float):
        raise TypeError(f"expected a float from the component, got {value!r}")
    return value


def optional_str_out(value: object) -> Optional[str]:
    """An `option<string>`: the string or `None`."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"expected an optional string from the component, got {value!r}")
    return value


def budget_in(b: Budget) -> Record:
    if not isinstance(b, Budget):
        raise TypeError(f"expected a Budget, got {b!r}")
    return record(
        max_bytes=b.max_bytes,
        max_lines=b.max_lines,
        max_line_bytes=b.max_line_bytes,
        keep=b.keep,
        head_percent=b.head_percent,
        max_tokens=b.max_tokens,
    )


def budget_out(r: Record) -> Budget:
    f = r.__dict__
    return Budget(
        max_bytes=f["max-bytes"],
        max_lines=f["max-lines"],
        max_line_bytes=f["max-line-bytes"],
        keep=f["keep"],
        head_percent=f["head-percent"],
        max_tokens=f["max-tokens"],
    )


def limits_in(limits: RequestLimits) -> Record:
    if not isinstance(limits, RequestLimits):
        raise TypeError(f"expected RequestLimits, got {limits!r}")
    return record(
        max_tokens=limits.max_tokens,
        max_body_bytes=limits.max_body_bytes,
        floor_bytes=limits.floor_bytes,
        ceiling=budget_in(limits.ceiling),
    )


def pending_in(p: PendingResult) -> Union[str, list[Variant]]:
    """A `pending-result`. Its cases carry a `string` and a `list`, which
    wasmtime-py tells apart by Python type: it takes the bare `str` or
    `list`, not a `Variant`."""
    if isinstance(p, str):
        return p
    if isinstance(p, Sequence) and not isinstance(p, (bytes, bytearray)):
        return [part_in(part) for part in cast(Sequence[ContentPart], p)]
    raise TypeError(f"expected a str or a sequence of content parts, got {p!r}")


def batch_result_out(v: object) -> BatchResult:
    """A `batch-result`: both cases carry records, so wasmtime-py tags them."""
    if not isinstance(v, Variant) or not isinstance(v.payload, Record):
        raise TypeError(f"expected a batch-result from the component, got {v!r}")
    if v.tag == "text":
        return capped_out(v.payload)
    if v.tag == "parts":
        return capped_parts_out(v.payload)
    raise ValueError(f"unknown batch-result case {v.tag!r}")


def policy_in(p: PrunePolicy) -> Record:
    return record(
        keep_last=p.keep_last,
        max_total_bytes=p.max_total_bytes,
        max_total_tokens=p.max_total_tokens,
    )


def call_in(c: Call) -> Record:
    return record(
        id=c.id,
        tool=c.tool,
        exit_code=c.exit_code,
        is_error=c.is_error,
        search=c.search,
    )


def ref_in(r: OverflowRef) -> Record:
    return record(
        path=r.path,
        relative_path=r.relative_path,
        bytes=r.bytes,
        lines=r.lines,
        digest=r.digest,
        tag=r.tag,
    )


def ref_out(r: Optional[Record]) -> Optional[OverflowRef]:
    if r is None:
        return None
    f = r.__dict__
    return OverflowRef(
        path=f["path"],
        relative_path=f["relative-path"],
        bytes=f["bytes"],
        lines=f["lines"],
        digest=f["digest"],
        tag=f["tag"],
    )


def report_out(r: Record) -> CapReport:
    """The `cap-report` that `capped` and `capped-parts` share."""
    f = r.__dict__
    return CapReport(
        truncated=f["truncated"],
        original_bytes=f["original-bytes"],
        original_lines=f["original-lines"],
        omitted_bytes=f["omitted-bytes"],
        omitted_lines=f["omitted-lines"],
        gap_line=f["gap-line"],
        notable_lines=f["notable-lines"],
        folded_lines=f["folded-lines"],
        original_tokens=f["original-tokens"],
        tokens=f["tokens"],
        spill=ref_out(f["spill"]),
        spill_error=f["spill-error"],
        redactions=[RedactionCount(c.kind, c.count) for c in f["redactions"]],
    )


def capped_out(r: Record) -> Capped:
    f = r.__dict__
    return Capped(text=f["text"], report=report_out(f["report"]))


def capped_parts_out(r: Record) -> CappedParts:
    f = r.__dict__
    return CappedParts(parts=[part_out(p) for p in f["parts"]], report=report_out(f["report"]))


def capped_mcp_out(r: Record) -> CappedMcp:
    f = r.__dict__
    return CappedMcp(
        result=f["result"],
        report=report_out(f["report"]),
        structured_dropped=f["structured-dropped"],
        structured_spill=ref_out(f["structured-spill"]),
    )


def part_in(p: ContentPart) -> Variant:
    if isinstance(p, Text):
        return Variant("text", p.text)
    if isinstance(p, Image):
        return Variant("image", record(data=p.data, mime_type=p.mime_type))
    if isinstance(p, Audio):
        return Variant("audio", record(data=p.data, mime_type=p.mime_type))
    if isinstance(p, Resource):
        return Variant(
            "resource",
            record(uri=p.uri, mime_type=p.mime_type, text=p.text, blob=p.blob),
        )
    if isinstance(p, Other):
        return Variant("other", p.value)
    raise TypeError(f"not a content part: {p!r}")


def part_out(v: Variant) -> ContentPart:
    payload = v.payload
    if v.tag == "text":
        return Text(cast(str, payload))
    if v.tag == "other":
        return Other(cast(str, payload))
    f = payload.__dict__
    if v.tag == "image":
        return Image(f["data"], f["mime-type"])
    if v.tag == "audio":
        return Audio(f["data"], f["mime-type"])
    if v.tag == "resource":
        return Resource(f["uri"], f["mime-type"], f["text"], f["blob"])
    raise ValueError(f"unknown content-part case {v.tag!r}")


def page_out(r: Record) -> Page:
    f = r.__dict__
    return Page(
        text=f["text"],
        offset=f["offset"],
        first_line=f["first-line"],
        next_offset=f["next-offset"],
        next_line=f["next-line"],
        total_bytes=f["total-bytes"],
    )


def grep_out(r: Record) -> GrepResult:
    f = r.__dict__
    matches = [
        GrepMatch(m.line, m.offset, m.excerpt, m.__dict__["excerpt-offset"]) for m in f["matches"]
    ]
    return GrepResult(matches, f["total-matches"])


def pruned_out(r: Record) -> Pruned:
    f = r.__dict__
    return Pruned(
        messages=f["messages"],
        replaced=f["replaced"],
        bytes_saved=f["bytes-saved"],
        total_bytes=f["total-bytes"],
        total_tokens=f["total-tokens"],
    )


def redaction_in(p: Optional[RedactionPolicy]) -> Optional[Record]:
    """`session-settings.redaction`: `None`, or the policy's record."""
    if p is None:
        return None
    if not isinstance(p, RedactionPolicy):
        raise TypeError(f"expected a RedactionPolicy, got {p!r}")
    if isinstance(p.literals, str):
        raise TypeError("RedactionPolicy.literals is a sequence of secrets, not one str")
    if not isinstance(p.spill, bool):
        raise TypeError(f"RedactionPolicy.spill must be a bool, got {p.spill!r}")
    return record(literals=list(p.literals), spill=p.spill)


def read_tool_spec_out(r: Record) -> ReadToolSpec:
    f = r.__dict__
    return ReadToolSpec(
        name=f["name"], description=f["description"], input_schema=f["input-schema"]
    )


def read_tool_output_out(r: Record) -> ReadToolOutput:
    f = r.__dict__
    return ReadToolOutput(text=f["text"], is_error=f["is-error"])


def spill_entry_out(r: Record) -> SpillEntry:
    f = r.__dict__
    reference = ref_out(f["reference"])
    if reference is None:
        raise TypeError(f"expected a spill-entry with a reference from the component, got {r!r}")
    return SpillEntry(
        reference=reference, created_ms=f["created-ms"], call_id=f["call-id"], tool=f["tool"]
    )


def retention_in(p: RetentionPolicy) -> Record:
    if not isinstance(p, RetentionPolicy):
        raise TypeError(f"expected a RetentionPolicy, got {p!r}")
    return record(
        max_age_seconds=p.max_age_seconds,
        max_total_bytes=p.max_total_bytes,
        max_files=p.max_files,
    )


def swept_file_out(r: Record) -> SweptFile:
    f = r.__dict__
    reason = f["reason"]
    if reason not in _SWEEP_REASONS:
        raise TypeError(f"expected a sweep-reason from the component, got {reason!r}")
    return SweptFile(
        relative_path=f["relative-path"],
        bytes=f["bytes"],
        created_ms=f["created-ms"],
        reason=cast(SweepReason, reason),
    )


def sweep_report_out(r: Record) -> SweepReport:
    f = r.__dict__
    return SweepReport(
        deleted=[swept_file_out(d) for d in f["deleted"]],
        kept_files=f["kept-files"],
        kept_bytes=f["kept-bytes"],
        skipped=list(f["skipped"]),
    )


def store_stats_out(r: Record) -> StoreStats:
    f = r.__dict__
    return StoreStats(
        threads=f["threads"],
        files=f["files"],
        bytes=f["bytes"],
        oldest_ms=f["oldest-ms"],
        newest_ms=f["newest-ms"],
    )
