"""Runs every shared vector in ../tests/vectors/*.json through the real
component (one test per file), and checks that the runner itself rejects bad
vectors and catches wrong expectations and broken results."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from tool_output_cap import (
    BatchResult,
    Capped,
    CapStream,
    PrunePolicy,
    RequestLimits,
    Session,
    budget,
    open_session,
)
from vectors_support import vector_files
from vectors_support.checker import Checker
from vectors_support.format import OPS, VectorError, parse
from vectors_support.invariants import CapView, Disk, check_cap, check_directory, tree
from vectors_support.run import run_vector

FILES = vector_files()


def test_the_vectors_are_there() -> None:
    assert len(FILES) >= 25, f"only {len(FILES)} vector files"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_vector(path: Path, tmp_path: Path) -> None:
    vector = parse(path.read_text(encoding="utf-8"))
    assert vector["name"] == path.stem, f"name {vector['name']!r} is not the file name"
    failures = run_vector(path.name, vector, tmp_path)
    assert not failures, f"{len(failures)} check(s) failed:\n" + "\n".join(failures)


def test_vectors_cover_every_op() -> None:
    used = {step["op"] for p in FILES for step in parse(p.read_text("utf-8"))["steps"]}
    assert set(OPS) - used == set(), f"no vector uses {set(OPS) - used}"


# A small valid vector that the checks below break one field at a time (shared
# with the Rust and JS runners).
BASE = (Path(__file__).parents[2] / "tests" / "vectors-selftest" / "base.json").read_text("utf-8")


def run_text(text: str, tmp: Path) -> list[str]:
    return run_vector("inline.json", parse(text), tmp)


def test_base_vector_passes(tmp_path: Path) -> None:
    assert run_text(BASE, tmp_path) == []


WRONG = [
    ('"original_bytes": 3492', '"original_bytes": 3493', "step 0"),
    ('"truncated": true', '"truncated": false', "step 0"),
    ('"spilled": true', '"spilled": false', "step 0"),
    (r'["line 400\n"]', r'["line 401\n"]', "step 0"),
    (r'"text": "line 2\nline 3\n"', r'"text": "line 2\nline 4\n"', "step 1"),
    ('"next_line": 4', '"next_line": null', "step 1"),
    ('"count": 2, "max_bytes": 100,', '"count": 0, "max_bytes": 100,', "step 1"),
    ('"request-too-large"', '"context-length-exceeded"', "step 2"),
    ('"kind": "request-too-large"', '"kind": null', "step 2"),
    ('"expect": { "text": "line 2', '"expect": { "error": "not-found", "text": "line 2', "step 1"),
    ('"original_lines": 400,', '"original_lines": 400, "notable_lines": 1,', "step 0"),
    ('"original_lines": 400,', '"original_lines": 400, "folded_lines": 7,', "step 0"),
]


@pytest.mark.parametrize(("old", "new", "step"), WRONG, ids=[w[1] for w in WRONG])
def test_wrong_expectations_fail_with_file_and_step(
    old: str, new: str, step: str, tmp_path: Path
) -> None:
    assert old in BASE
    failures = run_text(BASE.replace(old, new), tmp_path)
    assert any(f.startswith(f"inline.json {step} ") for f in failures), failures


BROKEN = [
    BASE.replace('"about"', '"comment": 1, "about"'),
    BASE.replace('"thread_id"', '"threadId": "x", "thread_id"'),
    BASE.replace('"op": "classify"', '"op": "classify-error"'),
    BASE.replace('"call_id": "c1",', '"call_id": "c1", "callid": "c1",'),
    BASE.replace('"truncated": true', '"truncated": true, "trunc": true'),
    BASE.replace('"from": 1,', '"from": 1, "step": 2,'),
    BASE.replace('"keep": "tail"', '"keep": "middle"'),
    BASE.replace('"call_id": "c1",', ""),
    BASE.replace('"key_hex"', '"preopen": "rw", "key_hex"'),
    BASE.replace('"body": ""', '"body": 7'),
    BASE.replace('"text": "line 2', '"txt": "line 2'),
    BASE.replace('"max_bytes": 1200', '"max_bytes": 1200.5'),
    BASE.replace('"status": 413', '"status": 70000'),
    BASE.replace('"truncated": true', '"truncated": true, "truncated": false'),
    BASE.replace('"expect": { "kind"', '"expect": { "kind": null, "kind"'),
    BASE.replace('"call_id": "c1",', '"call_id": "c1", "call": { "id": "c1" },'),
    BASE.replace('"call_id": "c1",', '"call_id": null, "call": null,'),
    BASE.replace('"call_id": "c1",', '"call": { "id": "c1", "exitCode": 2 },'),
    BASE.replace('"call_id": "c1",', '"call": { "tool": "cargo" },'),
    BASE.replace('"call_id": "c1",', '"call": "c1",'),
    BASE.replace('"call_id": "c1",', '"call": { "id": "c1", "exit_code": 2147483648 },'),
    BASE.replace('"call_id": "c1",', '"call": { "id": "c1", "exit_code": -2147483649 },'),
    BASE.replace('"call_id": "c1",', '"call": { "id": "c1", "exit_code": 1.5 },'),
    BASE.replace('"call_id": "c1",', '"call": { "id": "c1", "is_error": "yes" },'),
    BASE.replace('"call_id": "c1",', '"call": { "id": 1 },'),
    # A vector's search is a string (lines of alternatives), as in the WIT.
    BASE.replace('"call_id": "c1",', '"call": { "id": "c1", "search": 7 },'),
    BASE.replace('"call_id": "c1",', '"call": { "id": "c1", "search": ["line 7"] },'),
    BASE.replace('"call_id": "c1",', '"call": { "id": "c1", "pattern": "line 7" },'),
    BASE.replace('"key_hex"', '"read_tool": 7, "key_hex"'),
    BASE.replace('"key_hex"', '"shell_hints": "no", "key_hex"'),
    BASE.replace('"key_hex"', '"notable_patterns": "FATAL", "key_hex"'),
    BASE.replace('"key_hex"', '"notable_patterns": [1], "key_hex"'),
    BASE.replace('"original_lines": 400,', '"original_lines": 400, "notable_lines": -1,'),
    BASE.replace('"original_lines": 400,', '"original_lines": 400, "folded_lines": "2",'),
    BASE.replace('"original_lines": 400,', '"original_lines": 400, "notable": 1,'),
]


@pytest.mark.parametrize("text", BROKEN, ids=[f"broken-{i}" for i in range(len(BROKEN))])
def test_strict_parsing_rejects_unknown_fields_ops_and_shapes(text: str) -> None:
    assert text != BASE
    with pytest.raises(VectorError):
        parse(text)


# BASE with its cap step naming a failed call by a `call` record.
WITH_CALL = BASE.replace(
    '"call_id": "c1",',
    '"call": { "id": "c1", "tool": "cargo", "exit_code": 2, "is_error": false },',
)


def test_a_call_record_runs_and_its_id_names_the_step(tmp_path: Path) -> None:
    assert WITH_CALL != BASE
    # `$spill:c1` of the read step finds the call's id.
    assert run_text(WITH_CALL, tmp_path) == []
    stated = WITH_CALL.replace(
        r'"text_contains": ["line 400\n"]',
        r'"text_contains": ["line 400\n", "The tool `cargo` failed (exit code 2)."]',
    )
    assert stated != WITH_CALL
    (tmp_path / "stated").mkdir()
    assert run_text(stated, tmp_path / "stated") == []
    # The same expectation fails for a call known only by its id.
    plain = stated.replace('"tool": "cargo", "exit_code": 2, ', "")
    (tmp_path / "plain").mkdir()
    failures = run_text(plain, tmp_path / "plain")
    assert any(f.startswith("inline.json step 0 (cap): text does not contain") for f in failures)


def search_vector(search: Any, expect: dict[str, Any]) -> str:
    """A one-step vector: a cut of 400 lines by a call that searched for
    `search`, expecting `expect`."""
    return json.dumps(
        {
            "name": "search",
            "about": "a call's search reaches the component",
            "session": {"thread_id": "t1", "key_hex": "000102030405060708090a0b0c0d0e0f"},
            "steps": [
                {
                    "op": "cap",
                    "call": {"id": "c1", "tool": "grep", "search": search},
                    "input": {"gen": [{"lines": "line {n}", "from": 1, "count": 400}]},
                    "budget": {"max_bytes": 1200, "keep": "head-and-tail", "head_percent": 40},
                    "expect": expect,
                }
            ],
        }
    )


@pytest.mark.parametrize("search", ["line 7", "line 7\nline 9", None])
def test_a_call_with_a_search_parses(search: Any) -> None:
    assert parse(search_vector(search, {"truncated": True}))


def test_a_calls_search_reaches_the_component_over_its_limits_invalid_argument(
    tmp_path: Path,
) -> None:
    def lines(n: int) -> str:
        return "\n".join(f"line {i}" for i in range(1, n + 1))

    runs = [
        (lines(16), {"truncated": True}),
        (lines(17), {"error": "invalid-argument"}),
        ("x" * 257, {"error": "invalid-argument"}),
    ]
    for i, (search, expect) in enumerate(runs):
        (tmp_path / str(i)).mkdir()
        assert run_text(search_vector(search, expect), tmp_path / str(i)) == [], search
    # The runner notices a search the component refused when the vector expects a cut.
    (tmp_path / "wrong").mkdir()
    failures = run_text(search_vector(lines(17), {"truncated": True}), tmp_path / "wrong")
    assert any(f.startswith("inline.json step 0 ") for f in failures), failures


def test_session_settings_reach_the_component(tmp_path: Path) -> None:
    tool = BASE.replace(
        '"key_hex"',
        '"read_tool": "read_spilled_output", "shell_hints": false, '
        '"notable_patterns": ["QUOTA-EXCEEDED"], "key_hex"',
    ).replace(r'"text_contains": ["line 400\n"]', r'"text_contains": ["read_spilled_output"]')
    assert run_text(tool, tmp_path) == []
    for i, bad in enumerate(['"read_tool": "no spaces"', '"notable_patterns": [""]']):
        (tmp_path / str(i)).mkdir()
        failures = run_text(BASE.replace('"key_hex"', bad + ', "key_hex"'), tmp_path / str(i))
        assert failures and "cannot open the session" in failures[0], failures


def test_a_generator_mixing_both_segment_kinds_is_a_bad_vector(tmp_path: Path) -> None:
    mixed = BASE.replace('"from": 1,', '"from": 1, "text": "x",')
    failures = run_text(mixed, tmp_path)
    assert any("bad vector" in f for f in failures), failures


def test_an_unknown_call_id_is_a_bad_vector(tmp_path: Path) -> None:
    failures = run_text(BASE.replace("$spill:c1", "$spill:c9"), tmp_path)
    assert any("$spill:c9" in f and "bad vector" in f for f in failures), failures


def test_parts_expectation_on_cap_is_a_bad_vector(tmp_path: Path) -> None:
    text = BASE.replace('"truncated": true', '"parts": [], "truncated": true')
    failures = run_text(text, tmp_path)
    assert any("step 0" in f and "bad vector" in f for f in failures), failures


# BASE with a `host-path` step (step 2) before the classify step.
HOST_STEP = '{ "op": "host-path", "path": "$host-dir/../x", "expect": { "relative": null } }'
WITH_HOST = BASE.replace('{ "op": "classify"', HOST_STEP + ',\n    { "op": "classify"')


def test_host_path_steps_run_and_catch_wrong_mappings(tmp_path: Path) -> None:
    assert WITH_HOST != BASE
    assert run_text(WITH_HOST, tmp_path) == []
    for i, (old, new) in enumerate([
        ('"$host-dir/../x"', '"$spill:c1"'),
        ('"relative": null', '"relative": "t1/c1-0123456789abcdef.txt"'),
    ]):
        (tmp_path / str(i)).mkdir()
        failures = run_text(WITH_HOST.replace(old, new), tmp_path / str(i))
        assert any(f.startswith("inline.json step 2 (host-path): host_path(") for f in failures), (
            failures
        )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"path": "$host-dir/../x",', '"path": "$host-dir/../x", "paths": [],'),
        ('"path": "$host-dir/../x",', ""),
        ('{ "relative": null }', "{}"),
        ('{ "relative": null }', '{ "relative": 7 }'),
        ('{ "relative": null }', '{ "relative": null, "error": "io" }'),
        ('"key_hex"', '"display_root_default": "yes", "key_hex"'),
    ],
)
def test_strict_parsing_of_host_path_steps(old: str, new: str) -> None:
    assert old in WITH_HOST
    with pytest.raises(VectorError):
        parse(WITH_HOST.replace(old, new))


def test_host_dir_or_a_mapping_without_a_grant_is_a_bad_vector(tmp_path: Path) -> None:
    no_grant = WITH_HOST.replace('"key_hex"', '"preopen": "none", "key_hex"')
    no_grant = no_grant.replace('"spilled": true, ', "")
    failures = run_text(no_grant, tmp_path)
    assert any("step 2" in f and "bad vector: $host-dir" in f for f in failures), failures
    mapped = no_grant.replace('"$host-dir/../x"', '"/spill/t1/x"').replace(
        '"relative": null', '"relative": "t1/x"'
    )
    failures = run_text(mapped, tmp_path)
    assert any("step 2" in f and "bad vector" in f for f in failures), failures


CORRUPTIONS = {
    "over max_bytes": lambda v: dataclasses.replace(v, text=v.text + "x" * 900),
    "original_bytes": lambda v: dataclasses.replace(v, original_bytes=v.original_bytes - 1),
    "original_lines": lambda v: dataclasses.replace(v, original_lines=v.original_lines + 1),
    "truncated": lambda v: dataclasses.replace(v, truncated=False),
    "neither spill nor error": lambda v: dataclasses.replace(v, spill=None),
    "reference missing from the text": lambda v: dataclasses.replace(
        v, text=v.text.replace("full content at", "full content @")
    ),
    "forged tag": lambda v: dataclasses.replace(
        v, spill=dataclasses.replace(v.spill, tag="0" * 16)
    ),
    "relative_path of another file": lambda v: dataclasses.replace(
        v, spill=dataclasses.replace(v.spill, relative_path=f"t1/c9-{v.spill.digest}.txt")
    ),
    "relative_path without its thread": lambda v: dataclasses.replace(
        v,
        spill=dataclasses.replace(v.spill, relative_path=v.spill.relative_path.split("/")[1]),
    ),
    "relative_path of another digest": lambda v: dataclasses.replace(
        v,
        spill=dataclasses.replace(
            v.spill,
            relative_path="t1/c1-0123456789abcdef.txt",
            path="/spill-host/t1/c1-0123456789abcdef.txt",
        ),
    ),
}


def test_invariants_catch_broken_results(tmp_path: Path) -> None:
    """Each corruption of a genuine result below must be reported."""
    session = open_session("t1", tmp_path, display_root="/spill-host", key=bytes(range(32)))
    text = "a line of output\n" * 500
    b = budget(1000, max_lines=None, max_line_bytes=None, head_percent=50)
    disk = Disk(tmp_path.resolve(), [])
    good = CapView.of(session.cap(text, b, "c1"))

    def failures_of(view: CapView, input_text: str, d: Disk = disk) -> list[str]:
        failures: list[str] = []
        check_cap(Checker("corrupted", failures), session, d, input_text, b, view)
        return failures

    assert failures_of(good, text) == []
    for what, corrupt in CORRUPTIONS.items():
        assert failures_of(corrupt(good), text), f"{what} went unnoticed"

    # A fitting input must come back unchanged.
    later = Disk(tmp_path.resolve(), tree(tmp_path.resolve()))
    fits = CapView.of(session.cap("short", b, "c2"))
    assert failures_of(fits, "short", later) == []
    assert failures_of(dataclasses.replace(fits, text="shorT"), "short", later)
    assert failures_of(dataclasses.replace(fits, folded_lines=1), "short", later)
    assert failures_of(dataclasses.replace(fits, notable_lines=1), "short", later)

    # The spill file must hold the input, and no temporary file may linger.
    assert good.spill is not None
    spill_file = session.host_path(good.spill)
    assert spill_file is not None
    spill_file.write_text("tampered")
    assert failures_of(good, text)
    spill_file.write_text(text)
    assert failures_of(good, text) == []
    (spill_file.parent / ".tmp-leftover").write_text("x")
    assert failures_of(good, text)
    session.close()


# A small valid vector of the token and turn ops (the shared base.json has
# none), broken one field at a time below. Its token counts (`@SMALL@`, ...)
# are the component's estimates, filled in at run time (`tokens_vector`), so
# that tuning the estimator does not break the runner's self-tests.
TOKENS = r"""{
  "name": "tokens",
  "about": "the token and turn ops",
  "session": { "thread_id": "t1", "key_hex": "000102030405060708090a0b0c0d0e0f",
               "image_tokens": 85, "audio_tokens": 7, "token_scale": 1 },
  "steps": [
    { "op": "estimate-tokens", "text": "small\n", "expect": { "tokens": @SMALL@ } },
    { "op": "calibrate", "text": "short", "actual_tokens": 10, "expect": { "scale": 1.0 } },
    { "op": "plan", "results": [ { "text": "small\n" }, { "parts": [ { "text": "hi" } ] } ],
      "limits": { "max_tokens": 100000, "floor_bytes": 0,
                  "ceiling": { "max_bytes": 16384, "keep": "tail", "head_percent": 0 } },
      "expect": { "budgets": [ { "max_bytes": 16384, "keep": "tail", "head_percent": 0 },
                               { "max_bytes": 16384, "keep": "tail", "head_percent": 0 } ] } },
    { "op": "cap-batch",
      "results": [ { "call_id": "c1", "text": "small\n" },
                   { "call": { "id": "c2" },
                     "parts": [ { "text": "hi" },
                                { "image": { "data": "AAAA", "mime_type": "image/png" } },
                                { "audio": { "data": "AAAA", "mime_type": "audio/wav" } } ] } ],
      "limits": { "max_tokens": 100000, "max_body_bytes": 100000, "floor_bytes": 0,
                  "ceiling": { "max_bytes": 16384, "keep": "tail", "head_percent": 0 } },
      "expect": { "results": [ { "truncated": false, "original_tokens": @SMALL@, "tokens": @SMALL@ },
                               { "truncated": false, "tokens": @HI_MEDIA@, "text": "hi" } ] } },
    { "op": "prune", "messages": [{ "gen": [ { "text": "x", "times": 200 } ] }],
      "policy": { "keep_last": null, "max_total_bytes": null, "max_total_tokens": 0 },
      "expect": { "replaced": [0], "total_tokens": @MARKER@ } },
    { "op": "classify", "status": 400,
      "body": "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your messages resulted in 131392 tokens.\",\"code\":\"context_length_exceeded\"}}",
      "expect": { "kind": "context-length-exceeded", "limit": 128000, "requested": 131392,
                  "unit": "tokens" } }
  ]
}"""


@pytest.fixture(scope="module")
def tokens_vector() -> str:
    """`TOKENS` with the session's estimates filled in."""
    with open_session("t1", None, key=bytes(range(16))) as s:
        marker = s.prune(["x" * 200], PrunePolicy(max_total_tokens=0)).total_tokens
        values = {
            "@SMALL@": s.estimate_tokens("small\n"),
            "@HI_MEDIA@": s.estimate_tokens("hi") + 85 + 7,
            "@MARKER@": marker,
        }
    text = TOKENS
    for name, value in values.items():
        text = text.replace(name, str(value))
    return text


def test_tokens_vector_passes(tokens_vector: str, tmp_path: Path) -> None:
    assert run_text(tokens_vector, tmp_path) == []


def bump(match: re.Match[str]) -> str:
    """`"field": n` with n + 1."""
    return f"{match[1]}{int(match[2]) + 1}"


TOKENS_WRONG = [
    (r'("tokens": )(\d+)(?= \} \},)', "step 0"),
    (r'("original_tokens": )(\d+)', "step 3"),
    (r'("tokens": )(\d+)(?=, "text": "hi")', "step 3"),
    (r'("total_tokens": )(\d+)', "step 4"),
    (r'("image_tokens": )(\d+)', "step 3"),
    (r'("audio_tokens": )(\d+)', "step 3"),
]


@pytest.mark.parametrize(("pattern", "step"), TOKENS_WRONG, ids=[w[0] for w in TOKENS_WRONG])
def test_wrong_token_counts_fail(
    pattern: str, step: str, tokens_vector: str, tmp_path: Path
) -> None:
    wrong, count = re.subn(pattern, bump, tokens_vector, count=1)
    assert count == 1
    failures = run_text(wrong, tmp_path)
    assert any(f.startswith(f"inline.json {step} ") for f in failures), failures


TURN_WRONG = [
    ('"scale": 1.0', '"scale": 1.000001', "step 1"),
    ('"token_scale": 1 ', '"token_scale": 2 ', "step 0"),
    ('{ "max_bytes": 16384, "keep": "tail", "head_percent": 0 } ] } }',
     '{ "max_bytes": 16384, "keep": "tail", "head_percent": 0, "max_tokens": 9 } ] } }', "step 2"),
    ('"text": "hi" } ] } },', '"text": "hi\\n" } ] } },', "step 3"),
    ('"max_tokens": 100000, "max_body_bytes"', '"max_tokens": 10, "max_body_bytes"', "step 3"),
    ('"limit": 128000', '"limit": 128001', "step 5"),
    ('"requested": 131392', '"requested": null', "step 5"),
    ('"unit": "tokens"', '"unit": "bytes"', "step 5"),
]


@pytest.mark.parametrize(("old", "new", "step"), TURN_WRONG, ids=[w[1] for w in TURN_WRONG])
def test_wrong_turn_expectations_fail(
    old: str, new: str, step: str, tokens_vector: str, tmp_path: Path
) -> None:
    assert tokens_vector.count(old) == 1
    failures = run_text(tokens_vector.replace(old, new), tmp_path)
    assert any(f.startswith(f"inline.json {step} ") for f in failures), failures


def test_a_cap_batch_expectation_per_result(tokens_vector: str, tmp_path: Path) -> None:
    fewer = re.sub(r'\{ "truncated": false, "original_tokens": \d+, "tokens": \d+ \},', "",
                   tokens_vector)
    assert fewer != tokens_vector
    failures = run_text(fewer, tmp_path)
    assert any("step 3" in f and "bad vector" in f for f in failures), failures
    (tmp_path / "parts").mkdir()
    parts_on_text = tokens_vector.replace('"original_tokens"', '"parts": [], "original_tokens"')
    failures = run_text(parts_on_text, tmp_path / "parts")
    assert any("step 3" in f and "bad vector" in f for f in failures), failures


TOKENS_BROKEN = [
    ('"floor_bytes": 0,', '"floor_bytes": 0, "floor": 0,'),
    ('"max_tokens": 100000, "floor_bytes": 0,', '"max_tokens": 100000,'),
    ('{ "text": "small\\n" }, { "parts"', '{ "text": "small\\n", "parts": [] }, { "parts"'),
    ('{ "text": "small\\n" }, { "parts"', '{ }, { "parts"'),
    ('{ "text": "small\\n" }, { "parts"', '{ "call_id": "c0", "text": "small\\n" }, { "parts"'),
    ('{ "call_id": "c1", "text": "small\\n" }', '{ "text": "small\\n" }'),
    ('{ "call": { "id": "c2" },', '{ "call_id": "c2", "call": { "id": "c2" },'),
    ('"token_scale": 1 ', '"token_scale": "1" '),
    ('"token_scale": 1 ', '"token_scale": true '),
    ('"image_tokens": 85', '"image_tokens": -1'),
    ('"audio_tokens": 7', '"audio_tokens": 4294967296'),
    ('"scale": 1.0', '"scale": "1.0"'),
    ('"actual_tokens": 10', '"actual_tokens": -10'),
    ('"tokens": @SMALL@ } },', '"tokens": @SMALL@, "scale": 1 } },'),
    ('"unit": "tokens"', '"unit": "words"'),
    ('"kind": "context-length-exceeded"', '"kind": null'),
    ('"limit": 128000', '"limit": 1.5'),
    ('"total_tokens": @MARKER@', '"total_tokens": -1'),
    ('"max_total_tokens": 0', '"max_total_tokens": 0, "max_tokens": 0'),
    ('"tokens": @HI_MEDIA@', '"tokens": @HI_MEDIA@, "budgets": []'),
    ('"budgets": [ {', '"results": [], "budgets": [ {'),
    ('"head_percent": 0 } },', '"head_percent": 0, "max_tokens": 4294967296 } },'),
]


@pytest.mark.parametrize(
    "old_new", TOKENS_BROKEN, ids=[f"broken-{i}" for i in range(len(TOKENS_BROKEN))]
)
def test_strict_parsing_of_token_and_turn_fields(old_new: tuple[str, str]) -> None:
    old, new = old_new
    assert old in TOKENS
    with pytest.raises(VectorError):
        parse(TOKENS.replace(old, new, 1))


def corrupt_cap_batch(
    monkeypatch: pytest.MonkeyPatch, corrupt: Callable[[list[BatchResult]], list[BatchResult]]
) -> None:
    """Every session's `cap_batch` answers with `corrupt` of its true answer."""
    real = Session.cap_batch

    def fake(self: Session, results: Any, limits: RequestLimits) -> list[BatchResult]:
        return corrupt(real(self, results, limits))

    monkeypatch.setattr(Session, "cap_batch", fake)


BATCH_CORRUPTIONS: dict[str, Callable[[list[BatchResult]], list[BatchResult]]] = {
    "a result missing": lambda out: out[:1],
    "results swapped": lambda out: out[::-1],
    "text changed": lambda out: [dataclasses.replace(out[0], text="smalL\n"), out[1]],
    "tokens miscounted": lambda out: [
        out[0],
        dataclasses.replace(
            out[1], report=dataclasses.replace(out[1].report, tokens=out[1].report.tokens - 1)
        ),
    ],
    "image dropped": lambda out: [
        out[0], dataclasses.replace(out[1], parts=out[1].parts[:1])  # type: ignore[union-attr]
    ],
}


@pytest.mark.parametrize("what", list(BATCH_CORRUPTIONS))
def test_cap_batch_invariants_catch_broken_results(
    what: str, tokens_vector: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the expectations: the invariants alone must notice.
    bare = re.sub(r'"expect": \{ "results": .*?\] \} \},', '"expect": {} },', tokens_vector,
                  flags=re.S)
    assert bare != tokens_vector
    assert run_text(bare, tmp_path) == []
    corrupt_cap_batch(monkeypatch, BATCH_CORRUPTIONS[what])
    (tmp_path / "c").mkdir()
    failures = run_text(bare, tmp_path / "c")
    assert any(f.startswith("inline.json step 3 (cap-batch)") for f in failures), failures


# One result that the limits make cap-batch cut, though it fits the ceiling.
OVER = r"""{
  "name": "over", "about": "a turn over its limits",
  "session": { "thread_id": "t1", "key_hex": "000102030405060708090a0b0c0d0e0f" },
  "steps": [
    { "op": "cap-batch",
      "results": [ { "call_id": "c1", "text": { "gen": [ { "text": "word ", "times": 2000 } ] } } ],
      "limits": { "LIMIT": 1500, "floor_bytes": 0,
                  "ceiling": { "max_bytes": 16384, "keep": "tail", "head_percent": 0 } },
      "expect": { "results": [ { "truncated": true } ] } }
  ]
}"""


@pytest.mark.parametrize(
    ("limit", "message"),
    [("max_tokens", "over max_tokens"), ("max_body_bytes", "over max_body_bytes")],
)
def test_cap_batch_totals_are_checked_against_the_limits(
    limit: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The result uncut (consistent with its input: unchanged, as a cap with
    no limit returns it) passes every check of its own; only the totals
    catch it."""
    vector = OVER.replace("LIMIT", limit)
    assert run_text(vector, tmp_path) == []
    with open_session("t1", None, key=bytes(range(16))) as s:
        whole = s.cap("word " * 2000, budget(0), "c1")
    # Not a call of the real one, which would spill a file no result names.
    monkeypatch.setattr(Session, "cap_batch", lambda self, results, limits: [whole])
    (tmp_path / "c").mkdir()
    failures = run_text(vector.replace('"truncated": true', '"truncated": false'), tmp_path / "c")
    assert len(failures) == 1 and message in failures[0], failures


# A small valid vector of the spill lifecycle ops (stream, read tool, list,
# stats, sweep), which no shared vector may use yet; broken below one field
# at a time, like BASE.
# The session's key: an anchor for edits of the session's fields. The session
# states no retention, so its sweep may delete what it saved.
KEY_HEX = '"key_hex": "000102030405060708090a0b0c0d0e0f"'

LIFECYCLE = r"""{
  "name": "lifecycle",
  "about": "a streamed cut, the read tool, the catalog, retention",
  "session": { "thread_id": "t1", "key_hex": "000102030405060708090a0b0c0d0e0f" },
  "steps": [
    { "op": "stream", "call_id": "c1", "chunk_bytes": [1, 7, 100],
      "input": { "gen": [ { "lines": "line {n} ✓", "from": 1, "count": 400 } ] },
      "budget": { "max_bytes": 1200, "max_lines": null, "max_line_bytes": null, "keep": "tail", "head_percent": 0 },
      "expect": { "truncated": true, "spilled": true, "original_bytes": 5092, "original_lines": 400,
                  "text_contains": ["line 400 ✓\n"], "redactions": {} } },
    { "op": "read-tool",
      "expect": { "name": @NAME@, "schema_properties": @PROPERTIES@ } },
    { "op": "run-read-tool", "arguments": { "path": "$spill:c1", "line": 2, "lines": 2 },
      "expect": { "is_error": false, "text_contains": ["line 2 ✓", "line 3 ✓"],
                  "text_not_contains": ["line 4 ✓"] } },
    { "op": "run-read-tool", "arguments": "not json", "expect": { "is_error": true } },
    { "op": "list",
      "expect": { "entries": [ { "call_id": "c1", "tool": null, "bytes": 5092, "lines": 400 } ] } },
    { "op": "stats", "expect": { "threads": 1, "files": 1, "bytes": 5092 } },
    { "op": "sweep", "policy": { "max_files": 0 },
      "expect": { "deleted": [ { "bytes": 5092, "reason": "file-count" } ],
                  "kept_files": 0, "kept_bytes": 0 } },
    { "op": "run-read-tool", "arguments": { "path": "$spill:c1" },
      "expect": { "is_error": true, "text_contains": ["expired"] } },
    { "op": "read", "path": "$spill:c1", "offset": 0, "max_bytes": 100,
      "expect": { "error": "not-found", "text_contains": [] } },
    { "op": "stats", "expect": { "threads": 1, "files": 0, "bytes": 0 } }
  ]
}"""


@pytest.fixture(scope="module")
def lifecycle_vector() -> str:
    """`LIFECYCLE` with the read tool's default name and argument names
    filled in (the component's own, so renaming them breaks no self-test)."""
    with open_session("t1", None, key=bytes(range(16))) as s:
        spec = s.read_tool()
    text = LIFECYCLE.replace("@PROPERTIES@", json.dumps(sorted(spec.schema["properties"])))
    return text.replace("@NAME@", json.dumps(spec.name))


def test_lifecycle_vector_passes(lifecycle_vector: str, tmp_path: Path) -> None:
    assert run_text(lifecycle_vector, tmp_path) == []


LIFECYCLE_WRONG = [
    ('"original_bytes": 5092', '"original_bytes": 4693', "step 0"),
    ('"redactions": {}', '"redactions": { "literal": 1 }', "step 0"),
    ('"expect": { "name": "', '"expect": { "name": "not-', "step 1"),
    ('"schema_properties": [', '"schema_properties": ["nope", ', "step 1"),
    ('"expect": { "name"', '"expect": { "description_contains": ["no such words"], "name"', "step 1"),
    ('"is_error": false', '"is_error": true', "step 2"),
    ('"text_not_contains": ["line 4 ✓"]', '"text_not_contains": ["line 3 ✓"]', "step 2"),
    ('"entries": [ { "call_id": "c1"', '"entries": [ { "call_id": "c2"', "step 4"),
    ('"tool": null', '"tool": "cargo"', "step 4"),
    ('"lines": 400 } ] }', '"lines": 401 } ] }', "step 4"),
    ('"threads": 1, "files": 1', '"threads": 2, "files": 1', "step 5"),
    ('"reason": "file-count"', '"reason": "age"', "step 6"),
    ('"kept_files": 0', '"kept_files": 1', "step 6"),
    ('"kept_bytes": 0 }', '"kept_bytes": 0, "skipped_contains": ["link"] }', "step 6"),
    ('"text_contains": ["expired"]', '"text_contains": ["never existed"]', "step 7"),
]


@pytest.mark.parametrize(
    ("old", "new", "step"), LIFECYCLE_WRONG, ids=[w[1] for w in LIFECYCLE_WRONG]
)
def test_wrong_lifecycle_expectations_fail(
    old: str, new: str, step: str, lifecycle_vector: str, tmp_path: Path
) -> None:
    assert lifecycle_vector.count(old) == 1, old
    failures = run_text(lifecycle_vector.replace(old, new), tmp_path)
    assert any(f.startswith(f"inline.json {step} ") for f in failures), failures


LIFECYCLE_BROKEN = [
    ('"chunk_bytes": [1, 7, 100]', '"chunk_bytes": []'),
    ('"chunk_bytes": [1, 7, 100]', '"chunk_bytes": [0]'),
    ('"chunk_bytes": [1, 7, 100]', '"chunk_bytes": 7'),
    ('"call_id": "c1", "chunk_bytes": [1, 7, 100],', '"call_id": "c1",'),
    ('"call_id": "c1", "chunk_bytes"', '"call_id": "c1", "call": { "id": "c1" }, "chunk_bytes"'),
    ('"redactions": {}', '"redactions": { "literal": -1 }'),
    ('"redactions": {}', '"redactions": []'),
    (KEY_HEX, KEY_HEX + ', "retention_seconds": -1'),
    (KEY_HEX, KEY_HEX + ', "redaction": { "literals": [] }'),
    (KEY_HEX, KEY_HEX + ', "redaction": { "literals": "x", "spill": true }'),
    (KEY_HEX, KEY_HEX + ', "redaction": { "literals": [], "spill": true, "x": 1 }'),
    ('{ "op": "read-tool",', '{ "op": "read-tool", "name": "x",'),
    ('"schema_properties": [', '"schema": [], "schema_properties": ['),
    ('"schema_properties": [', '"schema_properties": "path", "x": ['),
    ('"arguments": "not json", ', ""),
    ('"expect": { "is_error": true } }', '"expect": { "error": "io" } }'),
    ('"tool": null, "bytes"', '"tools": null, "bytes"'),
    ('"lines": 400 } ] }', '"lines": "400" } ] }'),
    ('"policy": { "max_files": 0 }', '"policy": { "max_files": 0, "max_count": 0 }'),
    ('"policy": { "max_files": 0 }', '"policy": { "max_files": 4294967296 }'),
    ('"policy": { "max_files": 0 },', ""),
    ('"reason": "file-count"', '"reason": "expired"'),
    ('"kept_bytes": 0 }', '"kept_bytes": 0, "skipped": [] }'),
    ('"threads": 1, "files": 1', '"threads": 1, "thread": 1, "files": 1'),
]


@pytest.mark.parametrize(
    "old_new", LIFECYCLE_BROKEN, ids=[f"broken-{i}" for i in range(len(LIFECYCLE_BROKEN))]
)
def test_strict_parsing_of_lifecycle_fields(
    old_new: tuple[str, str], lifecycle_vector: str
) -> None:
    old, new = old_new
    assert old in lifecycle_vector, old
    parse(lifecycle_vector)
    with pytest.raises(VectorError):
        parse(lifecycle_vector.replace(old, new, 1))


def test_spill_text_needs_a_session_that_redacts_its_spills(
    lifecycle_vector: str, tmp_path: Path
) -> None:
    text = lifecycle_vector.replace('"redactions": {}', '"spill_text": "x"')
    failures = run_text(text, tmp_path)
    assert any("step 0" in f and "bad vector: spill_text" in f for f in failures), failures


def test_a_store_needs_a_granted_directory(lifecycle_vector: str, tmp_path: Path) -> None:
    no_grant = '{ "name": "x", "about": "y", "session": { "thread_id": "t1", ' \
        '"key_hex": "000102030405060708090a0b0c0d0e0f", "preopen": "none" }, ' \
        '"steps": [ { "op": "stats", "expect": {} } ] }'
    failures = run_text(no_grant, tmp_path)
    assert any("step 0" in f and "bad vector" in f for f in failures), failures


STREAM_CORRUPTIONS: dict[str, Callable[[Capped], Capped]] = {
    "text": lambda c: dataclasses.replace(c, text=c.text.replace("line 400", "line 40O")),
    "report": lambda c: dataclasses.replace(
        c, report=dataclasses.replace(c.report, folded_lines=c.report.folded_lines + 1)
    ),
}


@pytest.mark.parametrize("what", list(STREAM_CORRUPTIONS))
def test_a_stream_that_differs_from_cap_is_reported(
    what: str, lifecycle_vector: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = CapStream.finish

    def fake(self: CapStream) -> Capped:
        return STREAM_CORRUPTIONS[what](real(self))

    monkeypatch.setattr(CapStream, "finish", fake)
    failures = run_text(lifecycle_vector, tmp_path)
    assert any(
        f.startswith("inline.json step 0 (stream)") and "differs from cap's" in f
        for f in failures
    ), failures


def test_catalog_notes_are_allowed_in_the_spill_directory_and_nothing_else(
    tmp_path: Path,
) -> None:
    root = tmp_path.resolve()
    (root / "t1").mkdir()
    disk = Disk(root, tree(root))
    spill = root / "t1" / "c1-0123456789abcdef.txt"
    for name in ("c1-0123456789abcdef.txt", ".c1-0123456789abcdef.txt.meta", ".expired"):
        (root / "t1" / name).write_text("x")
    failures: list[str] = []
    check_directory(Checker("dir", failures), disk, [spill])
    assert failures == []
    (root / "t1" / ".c2-0123456789abcdef.txt.meta").write_text("x")
    check_directory(Checker("dir", failures), disk, [spill])
    assert failures and "unexpected new files" in failures[0]
    failures.clear()
    (root / "t1" / ".c2-0123456789abcdef.txt.meta").unlink()
    (root / ".expired").write_text("x")  # a note outside any thread folder
    check_directory(Checker("dir", failures), disk, [spill])
    assert failures and "unexpected new files" in failures[0]
    failures.clear()
    (root / ".expired").unlink()
    (root / "t1" / ".tmp-0123-c1").write_text("x")
    check_directory(Checker("dir", failures), disk, [spill])
    assert failures and "temporary files" in failures[0]
