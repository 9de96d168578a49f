"""A call's `search` (what the tool searched for): accepted as a `str` or a
sequence of alternatives by every method that takes a call, checked for its
type before the call, held to the component's limits, and it makes a cut
preview show the hits."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, Union

import pytest

from tool_output_cap import (
    Call,
    Capped,
    CappedMcp,
    CappedParts,
    RequestLimits,
    Session,
    Text,
    ToolCapError,
    budget,
    open_session,
)
from tool_output_cap._convert import call_in

KEY = b"python-search-fixed-key-32-byte!"
BIG = "".join(f"src/m{i}.rs:{i + 1}: let value_{i} = compute({i});\n" for i in range(5000))
B = budget(4096)

Result = Union[Capped, CappedParts, CappedMcp]
Method = Callable[[Session, str, Union[str, Call]], Result]


def _stream(s: Session, text: str, call: Union[str, Call]) -> Capped:
    with s.stream(B, call) as stream:
        stream.write(text)
        return stream.finish()


def _batch(s: Session, text: str, call: Union[str, Call]) -> Result:
    out = s.cap_batch([(call, text)], RequestLimits(max_body_bytes=1_000_000, ceiling=B))
    return out[0]


# Each method that takes a call, run on one text.
EVERY_METHOD: dict[str, Method] = {
    "cap": lambda s, text, call: s.cap(text, B, call),
    "cap_parts": lambda s, text, call: s.cap_parts([Text(text)], B, call),
    "cap_mcp": lambda s, text, call: s.cap_mcp(
        json.dumps({"content": [{"type": "text", "text": text}]}), B, call
    ),
    "cap_batch": _batch,
    "stream": _stream,
}
METHODS = pytest.mark.parametrize("name", sorted(EVERY_METHOD))


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    with open_session("t", tmp_path, key=KEY) as s:
        yield s


def shown(result: Result) -> str:
    """What the model is shown: the text, the parts' texts, the MCP result JSON."""
    if isinstance(result, Capped):
        return result.text
    if isinstance(result, CappedParts):
        return "\n".join(p.text for p in result.parts if isinstance(p, Text))
    return result.result


def shape(result: Result) -> tuple[type, list[str]]:
    return type(result), [f.name for f in dataclasses.fields(result.report)]


@METHODS
def test_a_call_with_a_search_is_accepted_with_the_same_result_shape(
    session: Session, name: str
) -> None:
    run = EVERY_METHOD[name]
    plain = run(session, BIG, Call(f"{name}-plain"))
    searches: list[Any] = ["value_4000", ["value_4000", "compute(12)"], ("a", "b"), None, "", "\n\n"]
    for search in searches:
        searched = run(session, BIG, Call(f"{name}-s", tool="grep", search=search))
        assert shape(searched) == shape(plain), search
        assert searched.report.truncated
    # A result that fits comes back unchanged, search or not.
    small = run(session, "one hit: value_1\n", Call(f"{name}-small", search="value_1"))
    assert not small.report.truncated


def test_a_sequence_of_alternatives_is_joined_with_lf_when_the_call_is_made() -> None:
    assert Call("c", search=["foo", "bar baz", "x.y"]).search == "foo\nbar baz\nx.y"
    assert Call("c", search=("foo", "bar")).search == "foo\nbar"
    assert Call("c", search=[]).search == ""
    assert Call("c", search="a\nb").search == "a\nb"
    assert Call("c", search=None).search is None
    assert Call("c").search is None
    # The same search either way: equal, hashable, and so is what reaches the component.
    listed = Call("c", tool="grep", search=["foo", "bar"])
    assert listed == Call("c", tool="grep", search="foo\nbar")
    assert hash(listed) == hash(Call("c", tool="grep", search="foo\nbar"))
    assert call_in(listed).__dict__["search"] == "foo\nbar"
    assert call_in(Call("c")).__dict__["search"] is None
    assert dataclasses.replace(listed, exit_code=1).search == "foo\nbar"


@pytest.mark.parametrize(
    ("search", "message"),
    [
        (7, r"^Call\.search must be a str or a list of str, got 7$"),
        (b"needle", r"^Call\.search must be a str or a list of str, got b'needle'$"),
        ({"pattern": "x"}, r"^Call\.search must be a str or a list of str, got \{"),
        (["ok", 7], r"^Call\.search\[1\] must be a str, got 7$"),
        (["ok", None], r"^Call\.search\[1\] must be a str, got None$"),
        (("ok", b"x"), r"^Call\.search\[1\] must be a str, got b'x'$"),
    ],
)
def test_a_search_that_is_not_str_or_a_list_of_str_is_a_type_error(
    search: Any, message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        Call("c", search=search)


SEVENTEEN = [f"alternative {i}" for i in range(17)]


@METHODS
def test_more_than_16_alternatives_or_one_over_256_bytes_is_invalid_argument(
    session: Session, name: str
) -> None:
    run = EVERY_METHOD[name]
    # At the limits: accepted. Empty lines are not alternatives.
    for search in [
        SEVENTEEN[:16],
        "\n\n".join(SEVENTEEN[:16]),
        "a" * 256,
        "é" * 128 + "\n",
    ]:
        run(session, BIG, Call("ok", search=search))
    # Over them: the component's invalid-argument, as a list or as lines.
    for search in [SEVENTEEN, "\n".join(SEVENTEEN), "a" * 257, ["ok", "é" * 128 + "x"]]:
        with pytest.raises(ToolCapError) as raised:
            run(session, BIG, Call("over", search=search))
        assert raised.value.case == "invalid-argument", search
        assert "search" in raised.value.message


# One line of 300 KB, as grep prints a minified file, with the one hit in its middle.
TOKEN = "needle_7f3a9c21"
HALF = "".join(f"v{i}={(i * 7919) % 1000};" for i in range(15_000))[:150_000]
LONG_LINE = f"dist/app.min.js:{HALF}{TOKEN}{HALF}\n"


@METHODS
def test_a_cut_preview_of_a_search_shows_the_hit_in_a_300_kb_line(
    session: Session, name: str
) -> None:
    run = EVERY_METHOD[name]
    assert len(LONG_LINE) > 300_000 and LONG_LINE.count(TOKEN) == 1
    # Without the search, the middle of the line is cut away.
    blind = run(session, LONG_LINE, Call(f"{name}-blind", tool="grep"))
    assert blind.report.truncated
    assert TOKEN not in shown(blind)
    for search in [TOKEN, ["no such text", TOKEN]]:
        found = run(session, LONG_LINE, Call(f"{name}-search", tool="grep", search=search))
        assert found.report.truncated
        assert TOKEN in shown(found), f"no hit in the preview of {search!r}"
