"""Python-specific behaviour of the package: the host directory, isolation
between threads, big integers, errors and the sandbox grants."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from tool_output_cap import (
    Image,
    PrunePolicy,
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


def test_spill_files_land_in_the_host_directory(tmp_path: Path, session: Session) -> None:
    capped = session.cap(LOG, SMALL, "call-1")
    assert capped.truncated and capped.spill is not None
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 1
    assert files[0].read_bytes() == LOG.encode()
    assert session.host_path(capped.spill) == files[0]
    # The default display root is the real absolute path of the directory.
    assert capped.spill.path == str(files[0].resolve())
    assert session.display_root == os.path.realpath(tmp_path)


def test_a_fitting_result_is_returned_unchanged_and_nothing_is_written(
    tmp_path: Path, session: Session
) -> None:
    capped = session.cap("short\n", SMALL, "call-1")
    assert (capped.text, capped.truncated, capped.spill) == ("short\n", False, None)
    assert list(tmp_path.iterdir()) == []


def test_another_thread_cannot_read_the_first_ones_folder(
    tmp_path: Path, session: Session
) -> None:
    spill = session.cap(LOG, SMALL, "call-1").spill
    assert spill is not None
    relative = spill.path.removeprefix(session.display_root + "/")
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


def test_u64_values_come_through_as_exact_ints(session: Session) -> None:
    spill = session.cap(LOG, SMALL, "call-1").spill
    assert spill is not None
    # The largest u64 reaches the component exactly: it echoes it back.
    with pytest.raises(ToolCapError) as err:
        session.read(spill.path, 2**64 - 1, 100)
    assert err.value.case == "invalid-argument"
    assert str(2**64 - 1) in err.value.message
    page = session.read_lines(spill.path, 2**64 - 1, 1, 100)
    assert page.text == "" and page.first_line == 3001
    assert type(page.total_bytes) is int and page.total_bytes == len(LOG.encode())
    pruned = session.prune(["x" * 50], PrunePolicy(keep_last=0, max_total_bytes=2**64 - 1))
    assert pruned.replaced == [0] and type(pruned.bytes_saved) is int


@pytest.mark.parametrize(
    "call",
    [
        lambda s, p: s.read(p, 2**64, 100),
        lambda s, p: s.read(p, -1, 100),
        lambda s, p: s.read(p, 0, 2**32),
        lambda s, p: s.cap("x", budget(2**32), "c"),
        lambda s, p: s.cap("x", budget(2000, head_percent=256), "c"),
    ],
    ids=["u64-overflow", "negative", "u32-overflow", "max-bytes-2**32", "u8-overflow"],
)
def test_out_of_range_ints_are_refused_not_wrapped(session: Session, call) -> None:  # type: ignore[no-untyped-def]
    spill = session.cap(LOG, SMALL, "call-1").spill
    assert spill is not None
    with pytest.raises(OverflowError):
        call(session, spill.path)


def test_ints_must_be_ints(session: Session) -> None:
    with pytest.raises(TypeError):
        session.cap("x", budget(True), "c")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        session.read("p", 1.5, 100)  # type: ignore[arg-type]


def test_a_missing_spill_directory_gives_the_notice_and_no_exception(tmp_path: Path) -> None:
    missing = tmp_path / "does" / "not" / "exist"
    with open_session("thread-a", missing, key=KEY) as s:
        capped = s.cap(LOG, SMALL, "call-1")
        assert capped.truncated and capped.spill is None
        assert capped.spill_error is not None
        assert "could NOT be saved" in capped.text
        assert s.spill_dir is None
    assert not missing.exists()


def test_read_only_gives_the_could_not_be_saved_notice(tmp_path: Path) -> None:
    with open_session("thread-a", tmp_path, key=KEY, read_only=True) as s:
        capped = s.cap(LOG, SMALL, "call-1")
    assert capped.truncated and capped.spill is None
    assert capped.spill_error is not None and "could NOT be saved" in capped.text
    assert list(tmp_path.iterdir()) == []


def test_an_empty_spill_dir_grants_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `Path("")` is `.`: an empty string must not grant the working directory.
    monkeypatch.chdir(tmp_path)
    with open_session("t1", "", key=KEY) as s:
        assert s.spill_dir is None and s.display_root == "/spill"
        capped = s.cap(LOG, SMALL, "call-1")
        assert capped.truncated and capped.spill is None
        assert capped.spill_error is not None and "could NOT be saved" in capped.text
        assert s.host_path("/spill/t1/call-1-0123456789abcdef.txt") is None
        with pytest.raises(ToolCapError) as err:
            s.purge()
        assert err.value.case == "no-spill-dir"
    assert list(tmp_path.iterdir()) == []


def test_no_spill_directory_at_all(tmp_path: Path) -> None:
    with open_session("thread-a") as s:
        assert s.display_root == "/spill"
        capped = s.cap(LOG, SMALL, "call-1")
        assert capped.spill is None and "could NOT be saved" in capped.text
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
    [("", {}), ("t", {"key": b"short"}), ("t", {"display_root": ""})],
    ids=["empty-thread", "short-key", "empty-display-root"],
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
    assert out.truncated
    assert out.parts[1:] == [image, blob]
    assert isinstance(out.parts[0], Text) and "do not run it again" in out.parts[0].text


def test_random_keys_differ_between_sessions(tmp_path: Path) -> None:
    with open_session("t", tmp_path) as a, open_session("t", tmp_path) as b:
        text = a.cap(LOG, SMALL, "call-1").text
        assert len(a.find_refs(text)) == 1
        assert b.find_refs(text) == []


def test_classify_module_level_and_on_a_session(session: Session) -> None:
    assert classify(413, "<html>too big</html>") == "request-too-large"
    body = '{"error": {"code": "context_length_exceeded"}}'
    assert classify(400, body) == session.classify(400, body) == "context-length-exceeded"
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
        spill = s.cap(LOG, SMALL, "c1").spill
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
        # A reference whose path was edited is a path like any other.
        assert s.host_path(dataclasses.replace(spill, path="/r/../etc/passwd")) is None
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


def test_host_path_is_none_without_a_grant_whatever_the_component_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with open_session("t1", display_root="/r", key=KEY) as s:
        monkeypatch.setattr(s, "_call", lambda name, *args: "t1/c1-0123456789abcdef.txt")
        assert s.host_path("/r/t1/c1-0123456789abcdef.txt") is None
