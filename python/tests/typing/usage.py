"""Type-checked (never run) by tests/test_types.py with `mypy --strict`: the
public API used as a typed host would. Any error here fails the test;
`assert_type` pins exact types, so a field that became `Any` fails too."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence, Union, assert_type

from tool_output_cap import (
    Audio,
    BatchResult,
    Budget,
    Call,
    CapReport,
    CapStream,
    Capped,
    CappedParts,
    ContentPart,
    ErrorCase,
    GrepMatch,
    GrepResult,
    Image,
    Keep,
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
    Session,
    SizeUnit,
    SpillEntry,
    SpillStore,
    StoreStats,
    SweepReason,
    SweepReport,
    SweptFile,
    Text,
    ToolCapError,
    budget,
    classify,
    open_session,
    open_spill_store,
)


def agent_turn(spill_dir: Path, output: str) -> str:
    session = open_session(
        "thread-1",
        spill_dir,
        display_root="/spill",
        key=bytes(32),
        read_tool="read_spilled_output",
        shell_hints=False,
        notable_patterns=["QUOTA-EXCEEDED"],
        image_tokens=1600,
        audio_tokens=None,
        token_scale=1,
    )
    assert_type(session, Session)
    assert_type(session.token_scale, Optional[float])
    keep: Keep = "tail"
    b = budget(16 * 1024, max_lines=200, max_line_bytes=None, keep=keep, head_percent=30)
    assert_type(b, Budget)
    assert_type(b.max_lines, Optional[int])
    assert_type(b.keep, Keep)
    assert_type(b.max_tokens, Optional[int])
    assert_type(budget(4096, max_tokens=1000), Budget)

    capped = session.cap(output, b, "call-1")
    assert_type(capped, Capped)
    assert_type(capped.text, str)
    report = capped.report
    assert_type(report, CapReport)
    assert_type(report.truncated, bool)
    assert_type(report.original_bytes, int)
    assert_type(report.original_lines, int)
    assert_type(report.omitted_bytes, int)
    assert_type(report.omitted_lines, int)
    assert_type(report.gap_line, Optional[int])
    assert_type(report.notable_lines, int)
    assert_type(report.folded_lines, int)
    assert_type(report.original_tokens, int)
    assert_type(report.tokens, int)
    assert_type(report.spill, Optional[OverflowRef])
    assert_type(report.spill_error, Optional[str])

    call = Call("call-3", tool="cargo", exit_code=101, is_error=False)
    assert_type(call.id, str)
    assert_type(call.tool, Optional[str])
    assert_type(call.exit_code, Optional[int])
    assert_type(call.is_error, bool)
    assert_type(session.cap(output, b, call), Capped)
    assert_type(session.cap(output, b, call=Call("call-4", is_error=True)), Capped)
    searched = Call("grep-1", tool="bash", search="needle")
    assert_type(searched.search, Union[str, Sequence[str], None])
    assert_type(session.cap(output, b, Call("grep-2", search=["needle", "pin"])), Capped)
    assert_type(session.cap(output, b, Call("grep-3", search=("needle",))), Capped)

    spill = report.spill
    if spill is not None:
        assert_type(spill.path, str)
        assert_type(spill.relative_path, str)
        assert_type(spill.bytes, int)
        assert_type(spill.lines, int)
        assert_type(spill.digest, str)
        page = session.read_lines(spill.path, 1, 10, 4096)
        assert_type(page, Page)
        assert_type(page.next_offset, Optional[int])
        assert_type(page.next_line, Optional[int])
        assert_type(page.total_bytes, int)
        again = session.read(spill.path, 0, 100)
        assert_type(again.text, str)
        hits = session.grep(spill.path, "error", 5)
        assert_type(hits, GrepResult)
        assert_type(hits.total_matches, int)
        for hit in hits.matches:
            assert_type(hit, GrepMatch)
            assert_type(hit.excerpt_offset, int)
        assert_type(session.pruned_placeholder(spill), str)
        assert_type(session.host_path(spill), Optional[Path])
        assert_type(session.host_path(spill.path), Optional[Path])
    assert_type(session.find_refs(capped.text), list[OverflowRef])

    parts: list[ContentPart] = [
        Text(output),
        Image(data="iVBORw0KGgo=", mime_type="image/png"),
        Audio(data="UklGRg==", mime_type="audio/wav"),
        Resource(uri="file:///x", text="y"),
        Other('{"type":"custom"}'),
    ]
    structured = session.cap_parts(parts, budget(4096), "call-2")
    assert_type(structured, CappedParts)
    assert_type(structured.parts, list[ContentPart])
    assert_type(structured.report, CapReport)
    assert_type(session.cap_parts(parts, budget(4096), Call("call-5")), CappedParts)
    for part in structured.parts:
        if isinstance(part, Resource):
            assert_type(part.text, Optional[str])
        elif isinstance(part, (Image, Audio)):
            assert_type(part.mime_type, str)

    limits = RequestLimits(max_tokens=30_000, max_body_bytes=None, floor_bytes=2048)
    assert_type(limits.ceiling, Budget)
    assert_type(limits.max_tokens, Optional[int])
    pending: list[PendingResult] = [output, parts, (Text(output),)]
    budgets = session.plan(pending, limits)
    assert_type(budgets, list[Budget])
    assert_type(session.plan([output, [Text(output)]], RequestLimits()), list[Budget])
    turn: list[tuple[str | Call, PendingResult]] = [("call-6", output)]
    assert_type(session.cap_batch(turn, limits), list[BatchResult])
    batch = session.cap_batch(
        [("call-6", output), (Call("call-7", tool="grep"), [Text(output), Image("", "")])],
        limits,
    )
    assert_type(batch, list[BatchResult])
    for result in batch:
        assert_type(result, BatchResult)
        assert_type(result.report.tokens, int)
        if isinstance(result, Capped):
            assert_type(result.text, str)
        else:
            assert_type(result.parts, list[ContentPart])
    assert_type(session.estimate_tokens(output), int)
    scale = session.calibrate(output, 12_345)
    assert_type(scale, float)
    open_session("thread-1", spill_dir, token_scale=session.token_scale).close()

    pruned = session.prune(
        [capped.text], PrunePolicy(keep_last=0, max_total_bytes=10_000, max_total_tokens=2_000)
    )
    assert_type(pruned, Pruned)
    assert_type(pruned.messages, list[str])
    assert_type(pruned.replaced, list[int])
    assert_type(pruned.bytes_saved, int)
    assert_type(pruned.total_tokens, int)
    assert_type(session.purge(), int)
    assert_type(session.classify(413, ""), Optional[Overflow])
    assert_type(session.spill_dir, Optional[Path])
    assert_type(session.display_root, str)

    try:
        session.read("../x", 0, 10)
    except ToolCapError as err:
        assert_type(err.case, ErrorCase)
        assert_type(err.message, str)
        if err.case == "outside-root":
            pass
    session.close()

    with open_session("thread-2") as other:
        assert_type(other, Session)
    overflow = classify(413, "prompt is too long")
    assert_type(overflow, Optional[Overflow])
    if overflow is not None:
        assert_type(overflow.kind, OverflowKind)
        assert_type(overflow.limit, Optional[int])
        assert_type(overflow.requested, Optional[int])
        assert_type(overflow.unit, Optional[SizeUnit])
        if overflow.kind == "context-length-exceeded" and overflow.unit == "tokens":
            pass
    return capped.text


def spill_lifecycle(spill_dir: Path, chunks: list[bytes]) -> None:
    session = open_session(
        "thread-1",
        spill_dir,
        retention_seconds=7 * 86_400,
        redaction=RedactionPolicy(["hunter2-secret"], spill=True),
    )
    assert_type(RedactionPolicy().spill, bool)
    assert_type(session.thread_folder(), str)

    with session.stream(budget(16 * 1024), Call("call-1", tool="cargo")) as stream:
        assert_type(stream, CapStream)
        for chunk in chunks:
            stream.write(chunk)
        stream.write("text too\n")
        stream.write(bytearray(b"and bytes\n"))
        assert_type(stream.bytes_written(), int)
        stream.set_exit_code(2)
        capped = stream.finish()
        assert_type(capped, Capped)
        assert_type(stream.finished, bool)
    assert_type(session.stream(budget(4096), "call-2"), CapStream)
    for count in capped.report.redactions:
        assert_type(count, RedactionCount)
        assert_type(count.kind, str)
        assert_type(count.count, int)

    spec = session.read_tool()
    assert_type(spec, ReadToolSpec)
    assert_type(spec.name, str)
    assert_type(spec.description, str)
    assert_type(spec.input_schema, str)
    assert_type(spec.schema, dict[str, Any])
    out = session.run_read_tool({"path": "/spill/thread-1/x", "line": 1})
    assert_type(out, ReadToolOutput)
    assert_type(out.text, str)
    assert_type(out.is_error, bool)
    assert_type(session.run_read_tool('{"path": "p"}'), ReadToolOutput)

    entries = session.list()
    assert_type(entries, list[SpillEntry])
    for entry in entries:
        assert_type(entry.reference, OverflowRef)
        assert_type(entry.created_ms, int)
        assert_type(entry.call_id, str)
        assert_type(entry.tool, Optional[str])
    session.close()

    with open_spill_store(spill_dir) as store:
        assert_type(store, SpillStore)
        assert_type(store.spill_dir, Path)
        stats = store.stats()
        assert_type(stats, StoreStats)
        assert_type(stats.threads, int)
        assert_type(stats.files, int)
        assert_type(stats.bytes, int)
        assert_type(stats.oldest_ms, Optional[int])
        assert_type(stats.newest_ms, Optional[int])
        report = store.sweep(RetentionPolicy(max_age_seconds=7 * 86_400, max_files=1000))
        assert_type(report, SweepReport)
        assert_type(report.deleted, list[SweptFile])
        assert_type(report.kept_files, int)
        assert_type(report.kept_bytes, int)
        assert_type(report.skipped, list[str])
        for swept in report.deleted:
            assert_type(swept.relative_path, str)
            assert_type(swept.bytes, int)
            assert_type(swept.created_ms, int)
            assert_type(swept.reason, SweepReason)
            if swept.reason == "stale-temporary":
                pass
    assert_type(open_spill_store(str(spill_dir)), SpillStore)
