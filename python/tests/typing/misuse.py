"""Type-checked (never run) by tests/test_types.py with `mypy --strict`:
misuse the package's types must refuse. Every line marked `# expect: <code>`
must get a mypy error of that code, and no other line may get one."""

from __future__ import annotations

from pathlib import Path

from tool_output_cap import (
    Call,
    ErrorCase,
    Image,
    OverflowKind,
    PrunePolicy,
    RedactionPolicy,
    RequestLimits,
    RetentionPolicy,
    Session,
    Text,
    budget,
    classify,
    open_session,
    open_spill_store,
)


def misuse(session: Session, spill_dir: Path) -> None:
    budget("16k")  # expect: arg-type
    budget(1024, keep="middle")  # expect: arg-type
    budget(1024, max_lines="400")  # expect: arg-type
    budget(1024, mid_percent=50)  # expect: call-arg
    open_session()  # expect: call-arg
    open_session(spill_dir=spill_dir)  # expect: call-arg
    open_session("t", spill_dir, key="not bytes")  # expect: arg-type
    open_session("t", spill_dir, read_tool=7)  # expect: arg-type
    open_session("t", spill_dir, notable_patterns=[b"FATAL"])  # expect: list-item
    open_session("t", spill_dir, None, None)  # expect: call-arg

    capped = session.cap("output", budget(4096), "call-1")
    session.cap("output", 4096, "call-1")  # expect: arg-type
    session.cap("output", budget(4096), 7)  # expect: arg-type
    session.cap("output", budget(4096), call_id="call-1")  # expect: call-arg
    session.cap_parts([], budget(4096), {"id": "c"})  # expect: arg-type
    Call("c", exit_code="2")  # expect: arg-type
    Call("c", 2)  # expect: arg-type
    Call(id="c", exitCode=2)  # expect: call-arg
    Call("c").is_error = True  # expect: misc
    Call("c", search=7)  # expect: arg-type
    Call("c", search=[b"needle"])  # expect: list-item
    Call("c", pattern="needle")  # expect: call-arg
    size: int = capped.spill.bytes  # expect: attr-defined
    lost: bool = capped.truncated  # expect: attr-defined
    size = capped.report.spill.bytes  # expect: union-attr
    capped.text = "edited"  # expect: misc
    capped.report.truncated = False  # expect: misc
    spill = capped.report.spill
    if spill is not None:
        wrong: str = spill.bytes  # expect: assignment
        session.read(spill.path, "0", 100)  # expect: arg-type
        session.host_path(ref=spill)  # expect: call-arg
    session.host_path(spill_dir / "t" / "c-0123456789abcdef.txt")  # expect: arg-type
    session.host_path(capped.report.spill)  # expect: arg-type

    part = Image(data="")  # expect: call-arg
    policy = PrunePolicy(keep_last="3")  # expect: arg-type
    not_a_case: ErrorCase = "timeout"  # expect: assignment
    kind: OverflowKind = classify(413, "")  # expect: assignment
    if classify(413, "") == "request-too-large":  # expect: comparison-overlap
        pass
    budget(1024, max_tokens="1k")  # expect: arg-type
    session.plan([b"bytes"], RequestLimits())  # expect: list-item
    session.plan(["output"], budget(4096))  # expect: arg-type
    session.plan([Text("x")], RequestLimits())  # expect: list-item
    session.cap_batch(["output"], RequestLimits())  # expect: list-item
    session.cap_batch([("c", "output", "extra")], RequestLimits())  # expect: list-item
    session.cap_batch([(7, "output")], RequestLimits())  # expect: list-item
    RequestLimits(30_000)  # expect: call-arg
    RequestLimits(ceiling=4096)  # expect: arg-type
    session.calibrate("text", "123")  # expect: arg-type
    open_session("t", spill_dir, token_scale="1.1")  # expect: arg-type
    session.estimate_tokens(["a"])  # expect: arg-type
    open_session("t", spill_dir, retention_seconds="7d")  # expect: arg-type
    open_session("t", spill_dir, redaction=["hunter2-secret"])  # expect: arg-type
    RedactionPolicy(literals=[b"secret"])  # expect: list-item
    RedactionPolicy(["secret"], spill="yes")  # expect: arg-type
    stream = session.stream(budget(4096), "call-1")
    stream.write(7)  # expect: arg-type
    stream.write(["line"])  # expect: arg-type
    stream.set_exit_code("2")  # expect: arg-type
    streamed: str = stream.finish()  # expect: assignment
    session.stream(4096, "call-1")  # expect: arg-type
    session.run_read_tool(["path"])  # expect: arg-type
    session.run_read_tool(b"{}")  # expect: arg-type
    listed: list[str] = session.list()  # expect: assignment
    store = open_spill_store(spill_dir)
    store.sweep(max_files=10)  # expect: call-arg
    store.sweep(RetentionPolicy(max_files="10"))  # expect: arg-type
    store.sweep(PrunePolicy(keep_last=3))  # expect: arg-type
    reason_ok: bool = store.sweep(RetentionPolicy()).deleted[0].reason == "expired"  # expect: comparison-overlap
    open_spill_store()  # expect: call-arg
    print(size, lost, wrong, part, policy, not_a_case, kind, streamed, listed, reason_ok)
