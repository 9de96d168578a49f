"""Python-specific behaviour of the package: the host directory, isolation
between threads, big integers, errors, the sandbox grants, what a session's
settings and a call's failure do to the notice, and a whole turn planned
into what the next request has left (tokens and body bytes)."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from tool_output_cap import (
    Audio,
    BatchResult,
    Budget,
    Call,
    CapReport,
    Capped,
    CappedParts,
    Image,
    Overflow,
    OverflowRef,
    PendingResult,
    PrunePolicy,
    RequestLimits,
    Resource,
    Session,
    Text,
    ToolCapError,
    budget,
    classify,
    open_session,
)

KEY = b"python-tests-fixed-key-32-bytes!"
LOG = "".join(f"line {n} of the build log\n" for n in range(1, 3001))
SMALL = budget(2000)


@pytest.fixture
def session(tmp_path: Path) -> Session:
    with open_session("thread-a", tmp_path, key=KEY) as s:
        yield s  # type: ignore[misc]


def spill_files(root: Path) -> list[Path]:
    """The files below `root`, without the catalog notes (`.<file>.meta`,
    `.expired`) the component keeps beside spills."""
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def notice(text: str) -> str:
    """The notice at the end of a cut text: from its `[toolcap]` line on."""
    return text[text.rindex("[toolcap] ") :]


def test_spill_files_land_in_the_host_directory(tmp_path: Path, session: Session) -> None:
    capped = session.cap(LOG, SMALL, "call-1")
    spill = capped.report.spill
    assert capped.report.truncated and spill is not None
    files = spill_files(tmp_path)
    assert len(files) == 1
    assert files[0].read_bytes() == LOG.encode()
    assert session.host_path(spill) == session.host_path(spill.path) == files[0]
    # The default display root is the real absolute path of the directory.
    assert spill.path == str(files[0].resolve())
    assert session.display_root == os.path.realpath(tmp_path)


def test_references_carry_their_relative_path(tmp_path: Path, session: Session) -> None:
    spill = session.cap(LOG, SMALL, "call-1").report.spill
    assert spill is not None
    (file,) = spill_files(tmp_path)
    assert spill.relative_path == f"thread-a/{file.name}"
    assert file.name.endswith(f"-{spill.digest}.txt")
    assert spill.path == f"{session.display_root}/{spill.relative_path}"
    # find_refs and pruned_placeholder keep it; an edited one does not verify.
    placeholder = session.pruned_placeholder(spill)
    assert session.find_refs(placeholder) == [spill]
    with pytest.raises(ToolCapError) as err:
        session.pruned_placeholder(dataclasses.replace(spill, relative_path="thread-a/x.txt"))
    assert err.value.case == "invalid-argument"
    # A thread id that is no plain folder name gets a hashed folder.
    with open_session("thread a/b", tmp_path, display_root="/r", key=KEY) as other:
        ref = other.cap(LOG, SMALL, "call-1").report.spill
        assert ref is not None
        folder, name = ref.relative_path.split("/")
        assert folder != "thread a" and name == spill.relative_path.split("/")[1]
        assert ref.path == "/r/" + ref.relative_path
        assert other.host_path(ref) == Path(os.path.realpath(tmp_path), folder, name)
        assert other.host_path(ref) == other.host_path(ref.path)


def test_calls_are_ids_or_call_records(session: Session) -> None:
    by_id = session.cap(LOG, SMALL, "call-1")
    assert session.cap(LOG, SMALL, Call("call-1")) == by_id
    # A call that succeeded reads like one known only by its id.
    assert session.cap(LOG, SMALL, Call("call-1", tool="cargo", exit_code=0)) == by_id
    parts = session.cap_parts([Text(LOG)], SMALL, Call("call-1"))
    assert parts.report == by_id.report
    with pytest.raises(TypeError):
        session.cap(LOG, SMALL, 7)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        session.cap_parts([Text(LOG)], SMALL, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [2000, 20_000], ids=["compact-notice", "full-notice"])
def test_a_failed_calls_notice_starts_by_stating_the_failure(
    session: Session, size: int
) -> None:
    b = budget(size)
    plain = notice(session.cap(LOG, b, "call-1").text)
    assert "failed" not in plain.splitlines()[0]
    cargo = notice(session.cap(LOG, b, Call("call-1", tool="cargo", exit_code=2)).text)
    assert cargo.startswith("[toolcap] The tool `cargo` failed (exit code 2). ")
    mcp = notice(session.cap(LOG, b, Call("call-1", is_error=True)).text)
    assert mcp.startswith("[toolcap] The tool failed (it reported an error). ")
    negative = notice(session.cap(LOG, b, Call("call-1", exit_code=-(2**31))).text)
    assert negative.startswith(f"[toolcap] The tool failed (exit code {-(2**31)}). ")
    parts = session.cap_parts([Text(LOG)], b, Call("call-1", tool="cargo", exit_code=2))
    assert isinstance(parts.parts[0], Text) and notice(parts.parts[0].text) == cargo


def test_read_tool_and_shell_hints_change_the_notice(tmp_path: Path) -> None:
    full, compact = budget(20_000), budget(2000)
    with open_session("t1", tmp_path, key=KEY) as default:
        assert "grep -n -F" in notice(default.cap(LOG, full, "c1").text)
        assert "read_spilled_output" not in notice(default.cap(LOG, compact, "c1").text)
    with open_session(
        "t1", tmp_path, key=KEY, read_tool="read_spilled_output", shell_hints=False
    ) as s:
        for b in (full, compact):
            text = notice(s.cap(LOG, b, "c1").text)
            assert "read_spilled_output" in text
            assert "grep -n" not in text and "sed -n" not in text
    with open_session("t1", tmp_path, key=KEY, read_tool="read_spilled_output") as s:
        text = notice(s.cap(LOG, full, "c1").text)
        assert "read_spilled_output" in text and "grep -n -F" in text


def test_notable_patterns_are_accepted(tmp_path: Path) -> None:
    patterns = ["QUOTA-EXCEEDED", "é" * 100]  # 200 bytes: the longest allowed
    with open_session("t1", tmp_path, key=KEY, notable_patterns=patterns) as s:
        report = s.cap(LOG, SMALL, "c1").report
        assert report.truncated and type(report.notable_lines) is int
    with open_session("t1", tmp_path, key=KEY, notable_patterns=("x",) * 64):
        pass
    with pytest.raises(TypeError, match="not one str"):
        open_session("t1", tmp_path, key=KEY, notable_patterns="QUOTA-EXCEEDED")


def test_a_fitting_result_is_returned_unchanged_and_nothing_is_written(
    tmp_path: Path, session: Session
) -> None:
    capped = session.cap("short\n", SMALL, "call-1")
    assert capped.text == "short\n"
    tokens = session.estimate_tokens("short\n")
    assert capped.report == CapReport(False, 6, 1, 0, 0, None, 0, 0, tokens, tokens, None, None)
    # Only the (empty) thread folder, made at open.
    assert [p.name for p in tmp_path.rglob("*")] == ["thread-a"]


def test_another_thread_cannot_read_the_first_ones_folder(
    tmp_path: Path, session: Session
) -> None:
    spill = session.cap(LOG, SMALL, "call-1").report.spill
    assert spill is not None
    relative = spill.relative_path
    with open_session("thread-b", tmp_path, key=KEY) as other:
        for path in (spill.path, relative):
            for call in (
                lambda: other.read(path, 0, 100),
                lambda: other.read_lines(path, 1, 1, 100),
                lambda: other.grep(path, "line", 1),
            ):
                with pytest.raises(ToolCapError) as err:
                    call()
                assert err.value.case == "outside-root"
        text = session.cap(LOG, SMALL, "call-2").text
        assert session.find_refs(text) != []
        assert other.find_refs(text) == []


def test_readback_takes_display_paths_and_relative_paths_only(tmp_path: Path) -> None:
    with open_session("t1", tmp_path, display_root="/r", key=KEY) as s:
        spill = s.cap(LOG, SMALL, "c1").report.spill
        assert spill is not None
        for path in (spill.path, spill.relative_path):
            assert s.read_lines(path, 2, 1, 100).text == "line 2 of the build log\n"
        # The component's own guest path of the file is no name for it.
        guest_path = f"/spill/{spill.relative_path}"
        for read in (
            lambda: s.read(guest_path, 0, 100),
            lambda: s.read_lines(guest_path, 1, 1, 100),
            lambda: s.grep(guest_path, "line", 1),
        ):
            with pytest.raises(ToolCapError) as err:
                read()
            assert err.value.case == "outside-root"


def test_u64_values_come_through_as_exact_ints(session: Session) -> None:
    spill = session.cap(LOG, SMALL, "call-1").report.spill
    assert spill is not None
    # The largest u64 reaches the component exactly: it echoes it back.
    with pytest.raises(ToolCapError) as err:
        session.read(spill.path, 2**64 - 1, 100)
    assert err.value.case == "invalid-argument"
    assert str(2**64 - 1) in err.value.message
    page = session.read_lines(spill.path, 2**64 - 1, 1, 100)
    assert page.text == "" and page.first_line == 3001
    assert type(page.total_bytes) is int and page.total_bytes == len(LOG.encode())
    pruned = session.prune(["x" * 500], PrunePolicy(keep_last=0, max_total_bytes=2**64 - 1))
    assert pruned.replaced == [0] and type(pruned.bytes_saved) is int


@pytest.mark.parametrize(
    "call",
    [
        lambda s, p: s.read(p, 2**64, 100),
        lambda s, p: s.read(p, -1, 100),
        lambda s, p: s.read(p, 0, 2**32),
        lambda s, p: s.cap("x", budget(2**32), "c"),
        lambda s, p: s.cap("x", budget(2000, head_percent=256), "c"),
        lambda s, p: s.cap("x", SMALL, Call("c", exit_code=2**31)),
        lambda s, p: s.cap_parts([Text("x")], SMALL, Call("c", exit_code=-(2**31) - 1)),
    ],
    ids=[
        "u64-overflow",
        "negative",
        "u32-overflow",
        "max-bytes-2**32",
        "u8-overflow",
        "s32-overflow",
        "s32-underflow",
    ],
)
def test_out_of_range_ints_are_refused_not_wrapped(session: Session, call) -> None:  # type: ignore[no-untyped-def]
    spill = session.cap(LOG, SMALL, "call-1").report.spill
    assert spill is not None
    with pytest.raises(OverflowError):
        call(session, spill.path)


def test_ints_must_be_ints(session: Session) -> None:
    with pytest.raises(TypeError):
        session.cap("x", budget(True), "c")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        session.read("p", 1.5, 100)  # type: ignore[arg-type]
    for code in (2.0, True, "2"):
        with pytest.raises(TypeError):
            session.cap("x", SMALL, Call("c", exit_code=code))  # type: ignore[arg-type]


def test_a_str_with_lone_surrogates_is_refused_and_the_session_goes_on(session: Session) -> None:
    # What `bytes.decode("utf-8", "surrogateescape")` makes of bytes that are
    # not UTF-8: no UTF-8 string holds it. The bytes themselves go whole
    # through `stream`, which saves them as they are.
    escaped = b"ok \xff bad\n".decode("utf-8", "surrogateescape") * 10
    with pytest.raises(UnicodeEncodeError):
        session.cap(escaped, SMALL, "c1")
    assert session.cap("after\n", SMALL, "c2").text == "after\n"
    stream = session.stream(SMALL, "c3")
    stream.write(escaped.encode("utf-8", "surrogateescape"))
    assert stream.finish().text.startswith("ok \ufffd bad\n")


def test_a_missing_spill_directory_is_created_and_granted(tmp_path: Path) -> None:
    missing = tmp_path / "does" / "not" / "exist"
    with open_session("thread-a", missing, key=KEY) as s:
        assert s.spill_dir == missing.resolve()
        capped = s.cap(LOG, SMALL, "call-1")
        assert capped.report.spill is not None
        assert s.host_path(capped.report.spill) == missing.resolve() / "thread-a" / (
            capped.report.spill.relative_path.split("/")[1]
        )
    assert spill_files(missing) == [missing / capped.report.spill.relative_path]


def test_a_missing_directory_is_not_created_for_a_read_only_grant(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with open_session("thread-a", missing, key=KEY, read_only=True) as s:
        capped = s.cap(LOG, SMALL, "call-1")
        assert capped.report.truncated and capped.report.spill is None
        assert capped.report.spill_error is not None and "could NOT be saved" in capped.text
        assert s.spill_dir is None
    assert not missing.exists()


def test_a_directory_that_cannot_be_created_gives_the_notice_and_no_exception(
    tmp_path: Path,
) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    impossible = tmp_path / "a-file" / "spill"
    with open_session("thread-a", impossible, key=KEY) as s:
        capped = s.cap(LOG, SMALL, "call-1")
        assert capped.report.truncated and capped.report.spill is None
        assert capped.report.spill_error is not None
        assert "could NOT be saved" in capped.text
        assert s.spill_dir is None


def test_read_only_gives_the_could_not_be_saved_notice(tmp_path: Path) -> None:
    with open_session("thread-a", tmp_path, key=KEY, read_only=True) as s:
        capped = s.cap(LOG, SMALL, "call-1")
    assert capped.report.truncated and capped.report.spill is None
    assert capped.report.spill_error is not None and "could NOT be saved" in capped.text
    assert list(tmp_path.iterdir()) == []


def test_an_empty_spill_dir_grants_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `Path("")` is `.`: an empty string must not grant the working directory.
    monkeypatch.chdir(tmp_path)
    with open_session("t1", "", key=KEY) as s:
        assert s.spill_dir is None and s.display_root == "/spill"
        capped = s.cap(LOG, SMALL, "call-1")
        assert capped.report.truncated and capped.report.spill is None
        assert capped.report.spill_error is not None and "could NOT be saved" in capped.text
        assert s.host_path("/spill/t1/call-1-0123456789abcdef.txt") is None
        with pytest.raises(ToolCapError) as err:
            s.purge()
        assert err.value.case == "no-spill-dir"
    assert list(tmp_path.iterdir()) == []


def test_no_spill_directory_at_all(tmp_path: Path) -> None:
    with open_session("thread-a") as s:
        assert s.display_root == "/spill"
        capped = s.cap(LOG, SMALL, "call-1")
        assert capped.report.spill is None and "could NOT be saved" in capped.text
        with pytest.raises(ToolCapError) as err:
            s.purge()
        assert err.value.case == "no-spill-dir"


@pytest.mark.parametrize(
    ("call", "case"),
    [
        (lambda s: s.cap("x", budget(10), "c"), "invalid-budget"),
        (lambda s: s.cap("x", budget(2000, head_percent=101), "c"), "invalid-budget"),
        (lambda s: s.read("thread-a/call-1-0123456789abcdef.txt", 0, 100), "not-found"),
        (lambda s: s.read("../x", 0, 100), "outside-root"),
        (lambda s: s.grep("../x", "a", 1), "outside-root"),
    ],
    ids=["max-bytes-10", "head-percent-101", "not-found", "read-dotdot", "grep-dotdot"],
)
def test_errors_carry_their_case(session: Session, call, case: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolCapError) as err:
        call(session)
    assert err.value.case == case
    assert err.value.message and str(err.value).startswith(case + ": ")


@pytest.mark.parametrize(
    ("thread_id", "kwargs"),
    [
        ("", {}),
        ("t", {"key": b"short"}),
        ("t", {"display_root": ""}),
        ("t", {"read_tool": ""}),
        ("t", {"read_tool": "read spilled output"}),
        ("t", {"read_tool": "read/spill"}),
        ("t", {"read_tool": "r" * 65}),
        ("t", {"read_tool": "lire_sortie_é"}),
        ("t", {"notable_patterns": [""]}),
        ("t", {"notable_patterns": ["two\nlines"]}),
        ("t", {"notable_patterns": ["cr\r"]}),
        ("t", {"notable_patterns": ["x" * 201]}),
        ("t", {"notable_patterns": ["ok", "é" * 101]}),
        ("t", {"notable_patterns": ["x"] * 65}),
    ],
    ids=[
        "empty-thread",
        "short-key",
        "empty-display-root",
        "empty-read-tool",
        "read-tool-with-spaces",
        "read-tool-with-slash",
        "read-tool-65-bytes",
        "read-tool-not-ascii",
        "empty-pattern",
        "pattern-with-lf",
        "pattern-with-cr",
        "pattern-201-bytes",
        "pattern-202-utf8-bytes",
        "65-patterns",
    ],
)
def test_bad_settings_raise_invalid_settings(
    tmp_path: Path, thread_id: str, kwargs: dict
) -> None:  # type: ignore[type-arg]
    with pytest.raises(ToolCapError) as err:
        open_session(thread_id, tmp_path, **kwargs)
    assert err.value.case == "invalid-settings"


def test_cap_parts_passes_an_image_through_untouched(session: Session) -> None:
    image = Image("iVBORw0KGgo=" * 1000, "image/png")
    blob = Resource("file:///a.bin", "application/octet-stream", None, "AAAA")
    out = session.cap_parts([Text(LOG), image, blob], SMALL, "call-1")
    assert out.report.truncated and out.report.spill is not None
    assert out.parts[1:] == [image, blob]
    assert isinstance(out.parts[0], Text)
    assert session.find_refs(out.parts[0].text) == [out.report.spill]


def test_random_keys_differ_between_sessions(tmp_path: Path) -> None:
    with open_session("t", tmp_path) as a, open_session("t", tmp_path) as b:
        text = a.cap(LOG, SMALL, "call-1").text
        assert len(a.find_refs(text)) == 1
        assert b.find_refs(text) == []


def test_classify_module_level_and_on_a_session(session: Session) -> None:
    assert classify(413, "<html>too big</html>") == Overflow("request-too-large", None, None, None)
    body = '{"error": {"code": "context_length_exceeded"}}'
    overflow = classify(400, body)
    assert overflow == session.classify(400, body)
    assert overflow is not None and overflow.kind == "context-length-exceeded"
    assert classify(429, "rate limited") is None
    assert classify(200, "") is None


def test_a_closed_session_refuses_calls(tmp_path: Path) -> None:
    s = open_session("t", tmp_path, key=KEY)
    s.close()
    s.close()
    with pytest.raises(ValueError):
        s.cap("x", SMALL, "c")


def test_purge_frees_the_thread_folder(tmp_path: Path, session: Session) -> None:
    session.cap(LOG, SMALL, "call-1")
    assert session.purge() == len(LOG.encode())
    assert session.purge() == 0
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_host_path_maps_only_this_threads_display_paths(tmp_path: Path) -> None:
    with open_session("t1", tmp_path, display_root="/r", key=KEY) as s:
        spill = s.cap(LOG, SMALL, "c1").report.spill
        assert spill is not None
        file = spill.path.removeprefix("/r/t1/")
        real = Path(os.path.realpath(tmp_path)) / "t1" / file
        assert s.host_path(spill) == s.host_path(spill.path) == real
        assert real.read_text() == LOG
        for hostile in (
            "/r//etc/passwd",
            "/r/../secret.txt",
            f"/r/t1/../t1/{file}",
            f"/r/t2/{file}",
            f"t1/{file}",
            f"{real}",
            "",
        ):
            assert s.host_path(hostile) is None, hostile
        # A reference maps by its relative path, if its path agrees and it is
        # two plain names.
        for edit in (
            {"path": "/r/../etc/passwd"},
            {"relative_path": "t2/" + file},
            {"path": "/r/t1/../passwd", "relative_path": "t1/../passwd"},
            {"path": "/r/../etc/passwd", "relative_path": "../etc/passwd"},
            {"path": "/etc/passwd", "relative_path": "/etc/passwd"},
            {"path": "/r/t1", "relative_path": "t1"},
            {"path": "/r/t1/a/b", "relative_path": "t1/a/b"},
        ):
            assert s.host_path(dataclasses.replace(spill, **edit)) is None, edit
        with pytest.raises(TypeError):
            s.host_path(real)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            s.host_path(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="closed"):
        s.host_path(spill)


@pytest.mark.parametrize(
    "answer",
    [
        "..",
        "../x",
        "t1/..",
        "./x",
        "t1/.",
        "/etc/passwd",
        "t1/../../x",
        "t1/a/b",
        "t1/",
        "/x",
        "t1//x",
        "t1/..\\x",
        "..\\t1/x",
        "t1/x\0",
        "C:/x",
        "t1/C:x",
        "",
        "x",
    ],
)
def test_host_path_refuses_an_answer_that_is_not_two_plain_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    """The second check, with a stand-in for the component's `relative-path`."""
    with open_session("t1", tmp_path, display_root="/r", key=KEY) as s:
        monkeypatch.setattr(s, "_call", lambda name, *args: answer)
        assert s.host_path("/r/t1/x") is None
        monkeypatch.setattr(s, "_call", lambda name, *args: "t1/c1-0123456789abcdef.txt")
        assert s.spill_dir is not None
        assert s.host_path("/r/t1/x") == s.spill_dir / "t1" / "c1-0123456789abcdef.txt"


def test_host_path_of_a_reference_needs_no_component_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_session("t1", tmp_path, display_root="/r", key=KEY) as s:
        spill = s.cap(LOG, SMALL, "c1").report.spill
        assert spill is not None and s.spill_dir is not None
        monkeypatch.setattr(s, "_call", lambda name, *args: None)
        assert s.host_path(spill.path) is None
        assert s.host_path(spill) == s.spill_dir / spill.relative_path
        # Unverified: a reference maps by its two names, like a path would.
        file = "x-0123456789abcdef.txt"
        made_up = OverflowRef(f"/r/t1/{file}", f"t1/{file}", 1, 1, "0123456789abcdef", "0" * 16)
        assert s.host_path(made_up) == s.spill_dir / "t1" / file
    with open_session("t1", display_root="/r", key=KEY) as s:
        assert s.host_path(spill) is None


def test_host_path_is_none_without_a_grant_whatever_the_component_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with open_session("t1", display_root="/r", key=KEY) as s:
        monkeypatch.setattr(s, "_call", lambda name, *args: "t1/c1-0123456789abcdef.txt")
        assert s.host_path("/r/t1/c1-0123456789abcdef.txt") is None


# A turn of parallel tool calls (issue "The whole next request, in tokens and
# bytes"): three results that each fit the per-result ceiling, but not the
# request together.
CEILING = budget(16 * 1024, max_lines=None)
TURN = [
    "".join(f"{tool} step {n}: compiled module_{n} in {n % 7}.{n % 10}s\n" for n in range(300))
    for tool in ("cargo", "tsc", "pytest")
]


def body_bytes(result: BatchResult) -> int:
    """What a result adds to a JSON request body: its texts as JSON strings
    (without the quotes), its media's data and MIME type."""

    def json_len(text: str) -> int:
        return len(json.dumps(text, ensure_ascii=False).encode()) - 2

    if isinstance(result, Capped):
        return json_len(result.text)
    total = 0
    for part in result.parts:
        if isinstance(part, Text):
            total += json_len(part.text)
        elif isinstance(part, (Image, Audio)):
            total += len(part.data.encode()) + len(part.mime_type.encode())
    return total


def test_plan_shares_what_the_request_has_left(session: Session) -> None:
    sizes = [len(t.encode()) for t in TURN]
    assert all(size < CEILING.max_bytes for size in sizes)
    together = sum(session.estimate_tokens(t) for t in TURN)
    limits = RequestLimits(max_tokens=together // 2, ceiling=CEILING)
    small = "ok\n" * 10
    budgets = session.plan([*TURN, small, [Text(small)]], limits)
    assert len(budgets) == 5 and all(isinstance(b, Budget) for b in budgets)
    cut, whole = budgets[:3], budgets[3:]
    # Every big result gets the same share, below its size, in bytes and in
    # tokens; the small ones keep everything: their budget is the ceiling.
    assert len({b.max_bytes for b in cut}) == 1
    assert all(b.max_bytes < size for b, size in zip(cut, sizes))
    assert all(b.max_tokens is not None and b.max_tokens < together // 3 for b in cut)
    assert sum(b.max_tokens or 0 for b in cut) <= together // 2
    assert whole == [CEILING, CEILING]
    # The ceiling's other fields shape every budget.
    assert {(b.max_lines, b.max_line_bytes, b.keep, b.head_percent) for b in budgets} == {
        (None, CEILING.max_line_bytes, CEILING.keep, CEILING.head_percent)
    }
    # The same input gives the same plan (prompt caches depend on it).
    assert session.plan([*TURN, small, [Text(small)]], limits) == budgets
    # With room for everything, every result keeps everything.
    roomy = RequestLimits(max_tokens=together * 2, max_body_bytes=10**9, ceiling=CEILING)
    assert session.plan(TURN, roomy) == [CEILING] * 3
    assert session.plan([], limits) == []


def test_plan_counts_media_first_and_in_body_bytes(session: Session) -> None:
    image = Image("iVBORw0KGgo=" * 200, "image/png")  # 2400 bytes of data
    text_only = RequestLimits(max_body_bytes=12_000, ceiling=CEILING)
    without = session.plan([TURN[0]], text_only)[0]
    with_image = session.plan([[Text(TURN[0]), image]], text_only)[0]
    assert with_image.max_bytes < without.max_bytes
    assert without.max_tokens is None  # no token limit: budgets get none either
    # The image's tokens count against max_tokens: the session's cost of it.
    with open_session("t-img", key=KEY, image_tokens=5_000) as s:
        with pytest.raises(ToolCapError) as err:
            s.plan([[Text("x"), image]], RequestLimits(max_tokens=4_999, ceiling=CEILING))
        assert err.value.case == "invalid-budget" and "media" in err.value.message


def test_cap_batch_returns_results_within_the_request(tmp_path: Path, session: Session) -> None:
    image = Image("iVBORw0KGgo=" * 100, "image/png")
    together = sum(session.estimate_tokens(t) for t in TURN)
    limits = RequestLimits(max_tokens=together // 2, max_body_bytes=20_000, ceiling=CEILING)
    turn: list[tuple[str | Call, PendingResult]] = [
        ("call-1", TURN[0]),
        (Call("call-2", tool="tsc", exit_code=2), TURN[1]),
        ("call-3", [Text(TURN[2]), image]),
        ("call-4", "fits\n"),
    ]
    out = session.cap_batch(turn, limits)
    assert [type(r) for r in out] == [Capped, Capped, CappedParts, Capped]
    assert sum(r.report.tokens for r in out) <= together // 2
    assert sum(map(body_bytes, out)) <= 20_000
    for (call, pending), result in zip(turn[:3], out):
        report = result.report
        assert report.truncated and report.spill is not None
        assert report.tokens < report.original_tokens
        if isinstance(result, Capped):
            text = result.text
        else:
            text = "\n".join(p.text for p in result.parts if isinstance(p, Text))
        assert len(text.encode()) <= CEILING.max_bytes
        assert report.tokens == session.estimate_tokens(text) + (
            1600 if isinstance(result, CappedParts) else 0
        )
        spilled = session.host_path(report.spill)
        assert spilled is not None
        full = pending if isinstance(pending, str) else TURN[2]
        assert spilled.read_text() == full
        assert session.find_refs(text)[-1] == report.spill
    assert isinstance(out[1], Capped) and "The tool `tsc` failed (exit code 2)." in out[1].text
    assert isinstance(out[2], CappedParts) and out[2].parts[1] == image
    assert out[3] == session.cap("fits\n", CEILING, "call-4")
    assert len(spill_files(tmp_path)) == 3
    # Roomy limits: every result as `cap` / `cap_parts` with the ceiling.
    roomy = session.cap_batch(turn, RequestLimits(ceiling=CEILING))
    assert roomy[0] == session.cap(TURN[0], CEILING, "call-1")
    assert roomy[2] == session.cap_parts([Text(TURN[2]), image], CEILING, "call-3")


def test_estimate_tokens(tmp_path: Path, session: Session) -> None:
    assert session.estimate_tokens("") == 0
    tokens = session.estimate_tokens(LOG)
    assert type(tokens) is int and 0 < tokens < len(LOG)
    # The reports count with the same estimator (the WIT's
    # `original-tokens`): under max-tokens an input within max-bytes whole,
    # since its tokens cut it; a cut input over 64 KiB and over max-bytes,
    # with max-tokens or without, from samples within 20%.
    cut_by_tokens = dataclasses.replace(SMALL, max_bytes=len(LOG), max_lines=None, max_tokens=1000)
    report = session.cap(LOG, cut_by_tokens, "call-1").report
    assert report.truncated and report.original_tokens == tokens
    assert len(LOG) > 64 * 1024
    for budget in [SMALL, dataclasses.replace(SMALL, max_tokens=1000)]:
        sampled = session.cap(LOG, budget, "call-1").report.original_tokens
        assert sampled != tokens and abs(sampled - tokens) * 100 <= tokens * 20
    # CJK takes more tokens per byte than ASCII (and is not under-counted).
    cjk = "日本語のテキストです。" * 100
    assert session.estimate_tokens(cjk) >= len(cjk) // 2
    # A starting scale of 2 doubles the estimate (within rounding up).
    with open_session("t2", tmp_path, key=KEY, token_scale=2) as doubled:
        assert abs(doubled.estimate_tokens(LOG) - 2 * tokens) <= 1
        assert doubled.token_scale == 2.0
    # Media cost the session's fixed amounts.
    parts = [Text("x"), Image("AAAA", "image/png"), Audio("AAAA", "audio/wav")]
    default = session.cap_parts(parts, SMALL, "c").report
    assert default.tokens == session.estimate_tokens("x") + 1600 + 1000
    with open_session("t3", tmp_path, key=KEY, image_tokens=85, audio_tokens=7) as cheap:
        report = cheap.cap_parts(parts, SMALL, "c").report
        assert report.tokens == report.original_tokens == cheap.estimate_tokens("x") + 85 + 7


def test_calibrate_moves_the_scale_and_carries_over(tmp_path: Path, session: Session) -> None:
    assert session.token_scale is None
    estimate = session.estimate_tokens(LOG)
    # A text under 256 bytes teaches nothing.
    assert session.calibrate("short", 10_000) == 1.0
    assert session.estimate_tokens(LOG) == estimate
    # The provider counted twice as many: the scale moves up by a bounded step.
    first = session.calibrate(LOG, 2 * estimate)
    assert 1.0 < first <= 1.25 and session.token_scale == first
    assert session.estimate_tokens(LOG) > estimate
    scale = first
    for _ in range(50):
        scale = session.calibrate(LOG, 10 * estimate)
    assert 1.99 < scale <= 2.0  # toward the true ratio, clamped at 2
    for _ in range(50):
        scale = session.calibrate(LOG, estimate // 10)
    assert 0.5 <= scale < 0.51
    # A later session starts from the calibrated scale.
    with open_session("t2", tmp_path, key=KEY, token_scale=session.token_scale) as later:
        assert later.estimate_tokens(LOG) == session.estimate_tokens(LOG) < estimate
    # An out-of-range scale is clamped, and `token_scale` says what is used.
    with open_session("t3", tmp_path, key=KEY, token_scale=5) as clamped:
        assert clamped.token_scale == 2.0
    with pytest.raises(TypeError):
        open_session("t2", tmp_path, key=KEY, token_scale="1.5")  # type: ignore[arg-type]


def test_classify_states_the_amounts(session: Session) -> None:
    body = json.dumps({"error": {
        "message": "This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 131392 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }})
    want = Overflow("context-length-exceeded", 128000, 131392, "tokens")
    assert classify(400, body) == session.classify(400, body) == want


def test_max_tokens_caps_a_result_and_prune_keeps_a_token_total(session: Session) -> None:
    generous = budget(64 * 1024, max_lines=None)
    assert not session.cap(LOG[:20_000], generous, "c").report.truncated
    capped = session.cap(LOG[:20_000], budget(64 * 1024, max_lines=None, max_tokens=1000), "c")
    report = capped.report
    assert report.truncated and report.tokens <= 1000 < report.original_tokens
    assert report.tokens == session.estimate_tokens(capped.text)
    messages = [LOG[:5000], capped.text, "x" * 3000]
    pruned = session.prune(messages, PrunePolicy(max_total_tokens=1500))
    assert pruned.total_tokens <= 1500
    assert pruned.total_tokens == sum(map(session.estimate_tokens, pruned.messages))
    assert session.find_refs(pruned.messages[1]) == [report.spill]


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.plan(TURN, RequestLimits(max_tokens=100, ceiling=CEILING)),
        lambda s: s.plan(TURN, RequestLimits(max_body_bytes=1000, ceiling=CEILING)),
        lambda s: s.plan(["x"], RequestLimits(ceiling=budget(10))),
        lambda s: s.plan(["x"], RequestLimits(ceiling=budget(4096, max_tokens=10))),
        lambda s: s.cap_batch([("c", t) for t in TURN], RequestLimits(max_tokens=100)),
        lambda s: s.cap_batch([("c", "x")], RequestLimits(ceiling=budget(2000, head_percent=101))),
    ],
    ids=[
        "plan-tokens",
        "plan-body-bytes",
        "plan-ceiling",
        "plan-ceiling-tokens",
        "cap-batch-tokens",
        "cap-batch-ceiling",
    ],
)
def test_limits_too_small_raise_invalid_budget(tmp_path: Path, session: Session, call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolCapError) as err:
        call(session)
    assert err.value.case == "invalid-budget" and err.value.message
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []  # nothing was spilled


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda s: s.plan([Text("x")], RequestLimits()), TypeError),
        (lambda s: s.plan([b"x"], RequestLimits()), TypeError),
        (lambda s: s.plan(["x"], CEILING), TypeError),
        (lambda s: s.cap_batch(["x"], RequestLimits()), TypeError),
        (lambda s: s.cap_batch([("c", "x", "y")], RequestLimits()), TypeError),
        (lambda s: s.cap_batch([(7, "x")], RequestLimits()), TypeError),
        (lambda s: s.plan(["x"], RequestLimits(max_tokens=2**64)), OverflowError),
        (lambda s: s.plan(["x"], RequestLimits(floor_bytes=-1)), OverflowError),
        (lambda s: s.plan(["x"], RequestLimits(ceiling=budget(2000, max_tokens=2**32))),
         OverflowError),
        (lambda s: s.cap_batch([(Call("c", exit_code=2**31), "x")], RequestLimits()),
         OverflowError),
        (lambda s: s.calibrate("x", -1), OverflowError),
        (lambda s: s.prune([], PrunePolicy(max_total_tokens=2**64)), OverflowError),
    ],
    ids=[
        "part-not-in-a-list",
        "bytes",
        "budget-for-limits",
        "no-call",
        "triple",
        "int-call",
        "max-tokens-u64",
        "floor-negative",
        "ceiling-max-tokens-u32",
        "exit-code-s32",
        "actual-tokens-negative",
        "max-total-tokens-u64",
    ],
)
def test_bad_turn_arguments_are_refused(session: Session, call, error: type) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error):
        call(session)
