"""A spilled output's life beyond `cap`: written as a stream, read back by
the model through the read tool, listed again after compaction, swept by
retention (and then read as expired), and kept in folders readable by their
owner only."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Optional

import pytest

from tool_output_cap import (
    Call,
    CapStream,
    McpStream,
    OverflowRef,
    RedactionPolicy,
    RetentionPolicy,
    Session,
    SpillStore,
    ToolCapError,
    budget,
    open_session,
    open_spill_store,
)

KEY = b"python-tests-fixed-key-32-bytes!"
LOG = "".join(f"line {n} of the build log\n" for n in range(1, 3001))
SMALL = budget(2000)
WIDE = budget(8192)

posix_only = pytest.mark.skipif(
    sys.platform == "win32", reason="POSIX permission bits only"
)


@pytest.fixture
def session(tmp_path: Path) -> Session:
    with open_session("thread-a", tmp_path, key=KEY) as s:
        yield s  # type: ignore[misc]


def spill_bytes(session: Session, spill: Optional[OverflowRef]) -> bytes:
    assert spill is not None
    path = session.host_path(spill)
    assert path is not None
    return path.read_bytes()


# Streams


def big_output(size: int) -> str:
    """About `size` bytes of a log with multibyte characters, so that chunks
    of 64 KiB cut characters in two."""
    lines = []
    total, n = 0, 0
    while total < size:
        n += 1
        line = f"línea {n}: étape ✓ compiled crate_{n % 97} — ok 🚀\n"
        if n % 50_000 == 0:
            line = f"error[E0{n % 1000:03}]: build failed at step {n}\n"
        lines.append(line)
        total += len(line.encode())
    return "".join(lines)


def test_a_5_mib_stream_gives_what_cap_gives_and_spills_the_input(
    tmp_path: Path, session: Session
) -> None:
    text = big_output(5 << 20)
    data = text.encode()
    chunk = 64 << 10
    assert any((data[i] & 0xC0) == 0x80 for i in range(chunk, len(data), chunk))
    # The exit code is known once the output has ended, as for a command.
    with session.stream(WIDE, Call("build", tool="cargo")) as stream:
        for at in range(0, len(data), chunk):
            stream.write(data[at : at + chunk])
        assert stream.bytes_written() == len(data)
        stream.set_exit_code(101)
        streamed = stream.finish()
    assert streamed.report.truncated and len(streamed.text.encode()) <= WIDE.max_bytes
    assert "The tool `cargo` failed (exit code 101)." in streamed.text
    assert streamed.report.spill is not None
    assert spill_bytes(session, streamed.report.spill) == data
    whole = session.cap(text, WIDE, Call("build", tool="cargo", exit_code=101))
    assert whole == streamed
    assert spill_bytes(session, whole.report.spill) == data


def test_chunks_may_split_characters_and_invalid_bytes_are_saved_as_they_came(
    session: Session,
) -> None:
    data = ("é✓🚀 mixed line\n" * 400).encode() + b"bad \xff\xfe bytes\n" + b"\xe2\x82"
    text = data.decode("utf-8", "replace")
    for size in (1, 2, 3, 7, 4096):
        with session.stream(SMALL, f"c{size}") as stream:
            for at in range(0, len(data), size):
                stream.write(data[at : at + size])
            streamed = stream.finish()
        # The preview is the lossy text's, as `cap` makes it; the file and
        # its reference are the bytes that arrived.
        whole = session.cap(text, SMALL, f"c{size}")
        assert streamed.text.split("[toolcap]")[0] == whole.text.split("[toolcap]")[0]
        assert "\ufffd" in streamed.text
        assert streamed.report.original_bytes == len(text.encode())
        assert streamed.report.original_lines == whole.report.original_lines
        spill = streamed.report.spill
        assert spill is not None and spill.bytes == len(data)
        assert spill_bytes(session, spill) == data
        assert spill.digest != whole.report.spill.digest


def test_a_stream_takes_str_bytearray_and_memoryview(session: Session) -> None:
    with session.stream(SMALL, "c1") as stream:
        assert isinstance(stream, CapStream)
        stream.write("héllo\n")
        stream.write(bytearray(b"two\n"))
        stream.write(memoryview(b"three\n"))
        assert stream.bytes_written() == len("héllo\ntwo\nthree\n".encode())
        capped = stream.finish()
    assert capped.text == "héllo\ntwo\nthree\n" and not capped.report.truncated
    with session.stream(SMALL, "c2") as stream:
        with pytest.raises(TypeError):
            stream.write(7)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            stream.write(["a"])  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            stream.set_exit_code("2")  # type: ignore[arg-type]
        with pytest.raises(OverflowError):
            stream.set_exit_code(1 << 31)


def test_a_finished_stream_refuses_more_and_keeps_its_count(session: Session) -> None:
    stream = session.stream(SMALL, "c1")
    stream.write(LOG)
    capped = stream.finish()
    assert capped.report.truncated and stream.finished
    assert stream.bytes_written() == len(LOG.encode())
    with pytest.raises(ValueError, match="finished"):
        stream.write("more")
    with pytest.raises(ValueError, match="finished"):
        stream.set_exit_code(1)
    with pytest.raises(ValueError, match="finished"):
        stream.finish()
    stream.close()


def test_stream_mcp_in_pieces_gives_what_cap_mcp_gives_for_the_whole_result(
    session: Session,
) -> None:
    log = LOG * 4 + 'error: the "last" step failed in C:\\build\n'

    def result(text: str) -> str:
        return json.dumps(
            {
                "content": [
                    {"type": "text", "text": "before"},
                    {"type": "resource", "resource": {"uri": "file:///build.log", "text": text}},
                ],
                "structuredContent": {"status": "failed"},
                "isError": True,
            }
        )

    body = json.dumps(log)[1:-1]
    with session.stream_mcp(result(""), 1, len(body.encode()), SMALL, "pieces") as stream:
        assert isinstance(stream, McpStream)
        # Pieces cut anywhere, inside escapes too.
        for at in range(0, len(body), 7777):
            stream.write(body[at : at + 7777])
        streamed = stream.finish()
    assert streamed.report.truncated
    assert session.cap_mcp(result(log), SMALL, "pieces") == streamed
    assert spill_bytes(session, streamed.report.spill) == f"before\n{log}".encode()


def test_stream_mcp_refuses_what_does_not_add_up(session: Session) -> None:
    skeleton = json.dumps({"content": [{"type": "text", "text": ""}]})
    with pytest.raises(ToolCapError) as err:
        session.stream_mcp(json.dumps({"content": [{"type": "text", "text": "x"}]}), 0, 1 << 20, SMALL, "c")
    assert err.value.case == "invalid-argument" and "content[0]" in err.value.message
    with pytest.raises(ToolCapError) as err:
        session.stream_mcp(skeleton, 0, 6 * 2000, SMALL, "c")
    assert "sure to be cut" in err.value.message
    with session.stream_mcp(skeleton, 0, 100_000, SMALL, "c") as stream:
        with pytest.raises(ToolCapError) as err:
            stream.write("a" * 100_001)
        assert "longer than the 100000 bytes" in err.value.message


def test_an_abandoned_stream_saves_nothing(tmp_path: Path, session: Session) -> None:
    with session.stream(SMALL, "c1") as stream:
        stream.write(LOG)
    with pytest.raises(ValueError, match="closed"):
        stream.write("more")
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
    # Closing the session closes a stream left open.
    other = session.stream(SMALL, "c2")
    other.write(LOG)
    session.close()
    with pytest.raises(ValueError):
        other.finish()
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_a_stream_refuses_a_bad_budget_as_cap_does(session: Session) -> None:
    with pytest.raises(ToolCapError) as err:
        session.stream(budget(10), "c1")
    assert err.value.case == "invalid-budget"


# The read tool


def test_the_read_tool_round_trip(tmp_path: Path) -> None:
    with open_session("thread-a", tmp_path, key=KEY, read_tool="read_spilled_output") as s:
        spec = s.read_tool()
        assert spec.name == "read_spilled_output" and spec.description
        assert spec.schema["type"] == "object"
        assert {"path", "line"} <= set(spec.schema["properties"])
        capped = s.cap(LOG, WIDE, "call-1")
        spill = capped.report.spill
        assert spill is not None and "read_spilled_output" in capped.text
        assert s.find_refs(capped.text)[-1] == spill

        page = s.run_read_tool({"path": spill.path, "line": 1})
        assert not page.is_error
        assert "line 1 of the build log" in page.text
        assert "line 2999 of the build log" not in page.text
        # The JSON text as the model sent it, and a line further on.
        later = s.run_read_tool(f'{{"path": "{spill.path}", "line": 2999}}')
        assert not later.is_error and "line 2999 of the build log" in later.text
        hits = s.run_read_tool({"path": spill.path, "grep": "line 1234 "})
        assert not hits.is_error and "line 1234 of the build log" in hits.text


@pytest.mark.parametrize(
    "arguments",
    [
        "not json",
        {"path": "SPILL", "line": 0},
        {"path": "SPILL", "line": "one"},
        {"path": "SPILL", "unknown": 1},
        {"path": "/etc/passwd", "line": 1},
        {"line": 1},
    ],
    ids=["not-json", "line-0", "line-str", "unknown-field", "outside", "no-path"],
)
def test_a_model_mistake_is_an_error_output_not_an_exception(
    session: Session, arguments: object
) -> None:
    spill = session.cap(LOG, WIDE, "call-1").report.spill
    assert spill is not None
    if isinstance(arguments, dict):
        arguments = {k: spill.path if v == "SPILL" else v for k, v in arguments.items()}
    out = session.run_read_tool(arguments)  # type: ignore[arg-type]
    assert out.is_error and out.text


def test_run_read_tool_takes_a_str_or_a_mapping(session: Session) -> None:
    with pytest.raises(TypeError):
        session.run_read_tool(["path"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        session.run_read_tool(b"{}")  # type: ignore[arg-type]


# Listing


def test_list_names_the_threads_spills_oldest_first(tmp_path: Path, session: Session) -> None:
    first = session.cap(LOG, SMALL, Call("call-1", tool="cargo")).report.spill
    session.cap("fits\n", SMALL, "call-2")
    second = session.cap(LOG.replace("build", "test"), SMALL, "call-3").report.spill
    assert first is not None and second is not None
    entries = session.list()
    assert [e.reference for e in entries] == [first, second]
    assert [(e.call_id, e.tool) for e in entries] == [("call-1", "cargo"), ("call-3", None)]
    assert entries[0].created_ms <= entries[1].created_ms
    for entry in entries:
        assert session.find_refs(session.pruned_placeholder(entry.reference)) == [entry.reference]
    with open_session("thread-b", tmp_path, key=KEY) as other:
        assert other.list() == []


def test_list_without_a_directory_raises_no_spill_dir() -> None:
    with open_session("thread-a", key=KEY) as s:
        with pytest.raises(ToolCapError) as err:
            s.list()
        assert err.value.case == "no-spill-dir"


# Retention


def test_a_sweep_deletes_spills_and_a_read_then_says_expired(
    tmp_path: Path, session: Session
) -> None:
    old = session.cap(LOG, SMALL, "call-1").report.spill
    new = session.cap(LOG.replace("build", "test"), SMALL, "call-2").report.spill
    assert old is not None and new is not None
    with open_spill_store(tmp_path) as store:
        assert isinstance(store, SpillStore)
        before = store.stats()
        assert (before.threads, before.files, before.bytes) == (1, 2, old.bytes + new.bytes)
        assert before.oldest_ms is not None and before.newest_ms is not None
        report = store.sweep(RetentionPolicy(max_files=1))
        assert [(d.relative_path, d.bytes, d.reason) for d in report.deleted] == [
            (old.relative_path, old.bytes, "file-count")
        ]
        assert (report.kept_files, report.kept_bytes) == (1, new.bytes)
        after = store.stats()
        assert (after.files, after.bytes) == (1, new.bytes)
    assert not (tmp_path / old.relative_path).exists()
    assert (tmp_path / new.relative_path).exists()

    with pytest.raises(ToolCapError) as err:
        session.read(old.path, 0, 100)
    assert err.value.case == "not-found" and "expired" in err.value.message
    out = session.run_read_tool({"path": old.path, "line": 1})
    assert out.is_error and "expired" in out.text
    # A file that never existed is not "expired".
    with pytest.raises(ToolCapError) as err:
        session.read("thread-a/call-9-0123456789abcdef.txt", 0, 100)
    assert err.value.case == "not-found" and "expired" not in err.value.message
    assert [e.reference for e in session.list()] == [new]
    assert session.read(new.path, 0, 20).text == "line 1 of the test l"


def test_a_sweep_by_age_keeps_recent_spills(tmp_path: Path, session: Session) -> None:
    spill = session.cap(LOG, SMALL, "call-1").report.spill
    assert spill is not None
    with open_spill_store(tmp_path) as store:
        report = store.sweep(RetentionPolicy(max_age_seconds=3600))
        assert report.deleted == [] and report.kept_files == 1
        assert store.sweep(RetentionPolicy()).deleted == []


def test_retention_seconds_is_stated_in_the_notice(tmp_path: Path) -> None:
    with open_session("thread-a", tmp_path, key=KEY, retention_seconds=7 * 86_400) as s:
        assert "kept for 7 days" in s.cap(LOG, WIDE, "call-1").text
    with pytest.raises(ToolCapError) as err:
        open_session("thread-a", tmp_path, key=KEY, retention_seconds=0)
    assert err.value.case == "invalid-settings"
    with pytest.raises(OverflowError):
        open_session("thread-a", tmp_path, key=KEY, retention_seconds=-1)


def test_open_spill_store_refuses_an_empty_path_and_closes(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        open_spill_store("")
    store = open_spill_store(tmp_path)
    store.close()
    store.close()
    with pytest.raises(ValueError, match="closed"):
        store.stats()


# Redaction settings


def test_a_redaction_policy_is_checked_at_open(tmp_path: Path) -> None:
    with open_session(
        "thread-a", tmp_path, key=KEY, redaction=RedactionPolicy(["hunter2-secret"], spill=True)
    ) as s:
        assert not s.cap("fits\n", SMALL, "c1").report.truncated
    with pytest.raises(TypeError):  # one str, not a list of secrets
        open_session("t", tmp_path, redaction=RedactionPolicy("hunter2-secret"))
    with pytest.raises(ToolCapError) as err:
        open_session("t", tmp_path, key=KEY, redaction=RedactionPolicy(["abc"]))
    assert err.value.case == "invalid-settings"


# Folders readable by their owner only


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@posix_only
def test_a_created_spill_dir_and_thread_folder_are_the_owners_only(tmp_path: Path) -> None:
    spill = tmp_path / "cache" / "spill"
    with open_session("Thread A", spill, key=KEY) as s:
        folder = spill / s.thread_folder()
        assert folder.is_dir()
        assert mode(tmp_path / "cache") == 0o700
        assert mode(spill) == 0o700
        assert mode(folder) == 0o700
        assert s.thread_folder() != "Thread A"  # mapped to a safe name
    store_dir = tmp_path / "store"
    with open_spill_store(store_dir):
        assert mode(store_dir) == 0o700


@posix_only
def test_an_existing_directory_keeps_its_mode(tmp_path: Path) -> None:
    spill = tmp_path / "spill"
    spill.mkdir()
    spill.chmod(0o755)
    (spill / "thread-a").mkdir()
    (spill / "thread-a").chmod(0o750)
    with open_session("thread-a", spill, key=KEY):
        pass
    assert mode(spill) == 0o755 and mode(spill / "thread-a") == 0o750


def test_a_read_only_grant_creates_no_folder(tmp_path: Path) -> None:
    with open_session("thread-a", tmp_path, key=KEY, read_only=True):
        pass
    assert list(tmp_path.iterdir()) == []


def test_os_makedirs_semantics_for_a_path_under_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        open_spill_store(tmp_path / "file" / "spill")
    assert os.path.isfile(tmp_path / "file")
