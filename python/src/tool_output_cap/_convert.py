"""Between the package's dataclasses and wasmtime-py's component values.

wasmtime-py 50 lifts a record to a `Record` whose attributes carry the WIT
(kebab-case) field names, a variant whose cases cannot be told apart by
Python type to `Variant(tag, payload)`, an option to the value or `None`, an
enum to its case name, and a `result<T, E>` to the bare ok value or the bare
error value (no exception). Lowering takes the same shapes.
"""

from __future__ import annotations

from typing import Any, Optional, TypeVar, cast, get_args

from wasmtime.component import Record, Variant

from .errors import ToolCapError
from .types import (
    Audio,
    Budget,
    Call,
    CapReport,
    Capped,
    CappedParts,
    ContentPart,
    ErrorCase,
    GrepMatch,
    GrepResult,
    Image,
    Other,
    OverflowKind,
    OverflowRef,
    Page,
    PrunePolicy,
    Pruned,
    Resource,
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


def overflow_kind_out(value: object) -> Optional[OverflowKind]:
    """`classify`'s `option<overflow-kind>`: the enum's case name or `None`."""
    if value is not None and value not in _OVERFLOW_KINDS:
        raise TypeError(f"expected an overflow-kind from the component, got {value!r}")
    return cast(Optional[OverflowKind], value)


def optional_str_out(value: object) -> Optional[str]:
    """An `option<string>`: the string or `None`."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"expected an optional string from the component, got {value!r}")
    return value


def budget_in(b: Budget) -> Record:
    return record(
        max_bytes=b.max_bytes,
        max_lines=b.max_lines,
        max_line_bytes=b.max_line_bytes,
        keep=b.keep,
        head_percent=b.head_percent,
    )


def policy_in(p: PrunePolicy) -> Record:
    return record(keep_last=p.keep_last, max_total_bytes=p.max_total_bytes)


def call_in(c: Call) -> Record:
    return record(id=c.id, tool=c.tool, exit_code=c.exit_code, is_error=c.is_error)


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
        spill=ref_out(f["spill"]),
        spill_error=f["spill-error"],
    )


def capped_out(r: Record) -> Capped:
    f = r.__dict__
    return Capped(text=f["text"], report=report_out(f["report"]))


def capped_parts_out(r: Record) -> CappedParts:
    f = r.__dict__
    return CappedParts(parts=[part_out(p) for p in f["parts"]], report=report_out(f["report"]))


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
    )
