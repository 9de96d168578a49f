"""`toolcap mcp` in front of servers broken on purpose (tests/mcp/faulty/):
each fault gives the client a clear JSON-RPC error and the proxy a log line,
never a hang, and the proxy keeps working where the server still does."""

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from paths import FAULTY, faulty_server
from proxy import READ_TOOL, Proxy, connect, run
from rawrpc import RawPeer
from spill import read_page, refs_in

sys.path.insert(0, str(FAULTY))
import crash  # noqa: E402
import flood  # noqa: E402
import garbage  # noqa: E402
import huge  # noqa: E402
import silent  # noqa: E402

# cli-spec.md: what the proxy answers when the server does not.
SERVER_GONE_CODE = -32000
TIMEOUT_CODE = -32001
INVALID_JSON_CODE = -32003
# The proxy's peak resident memory while it caps a 100 MiB result must stay
# under this: a generous bound (the result itself is 100 MiB) that a proxy
# holding a few copies of the result passes and one that grows without
# bound does not.
FLOOD_MIB = 100
FLOOD_RSS_BOUND = 1536 << 20
# Safety net for what a test waits to appear in a server's log.
LOG_SECONDS = 60


def call(peer: RawPeer, request_id, tool: str, arguments: dict | None = None, **params) -> None:
    peer.request(request_id, "tools/call", {"name": tool, "arguments": arguments or {}, **params})


def stderr_lines(path: Path) -> list[str]:
    return path.read_text(errors="replace").splitlines()


def received(log: Path) -> list[dict]:
    """The messages a faulty server read, in order."""
    if not log.exists():
        return []
    # The last piece is empty, or a line still being written.
    return [json.loads(line) for line in log.read_bytes().split(b"\n")[:-1]]


def wait_for_message(log: Path, wanted) -> dict:
    """The first message the server read that `wanted` accepts; waits for it."""
    deadline = time.monotonic() + LOG_SECONDS
    while time.monotonic() < deadline:
        for message in received(log):
            if wanted(message):
                return message
        time.sleep(0.02)
    raise AssertionError(f"the server never received the expected message; it got {received(log)}")


def cancellation_of(request_id):
    return lambda m: m.get("method") == "notifications/cancelled" and m["params"]["requestId"] == request_id


def names_number(text: str, n: int) -> bool:
    """`text` holds `n` as a number of its own (not inside -32002, say)."""
    return re.search(rf"(?<![\d-]){n}(?!\d)", text) is not None


def ids_in(lines: list[bytes]) -> list:
    return [json.loads(raw).get("id") for raw in lines]


# --- the server crashes in the middle of a call -----------------------------


@pytest.mark.parametrize("tool", ["crash_quietly", "crash"])
def test_crash_mid_call_gives_an_error_naming_the_exit(proxy: Proxy, tool: str):
    """The server dies while a call is pending, with or without the start
    of its answer written: the call's error says how it died."""
    err = proxy.logs / "proxy.log"
    with RawPeer(proxy.argv(faulty_server("crash")), err) as peer:
        peer.handshake()
        call(peer, 1, "echo", {"text": "before"})
        assert peer.response(1)["result"]["content"][0]["text"] == "before"
        call(peer, 2, tool)
        answer = peer.response(2)
        assert answer.get("error", {}).get("code") == SERVER_GONE_CODE, answer
        message = answer["error"]["message"]
        assert names_number(message, crash.EXIT_STATUS) and crash.LAST_WORDS in message, answer
        # Later requests get the same kind of error at once.
        call(peer, 3, "echo", {"text": "after"})
        later = peer.response(3)
        assert later["error"]["code"] == SERVER_GONE_CODE, later
        assert crash.LAST_WORDS in later["error"]["message"], later
        assert peer.close() == 0
    logged = [line for line in stderr_lines(err) if line.startswith("toolcap:")]
    assert any(names_number(line, crash.EXIT_STATUS) for line in logged), logged


def test_crash_through_the_sdk_client_is_an_error_not_a_hang(proxy: Proxy):
    async def body():
        async with connect(proxy.argv(faulty_server("crash")), proxy.logs / "proxy.log") as s:
            with pytest.raises(MCPError) as crashed:
                await s.call_tool("crash", {})
            assert crashed.value.error.code == SERVER_GONE_CODE
            assert crash.LAST_WORDS in crashed.value.error.message
            with pytest.raises(MCPError):
                await s.call_tool("echo", {"text": "after"})

    run(body)


# --- the server writes what is not JSON -------------------------------------


def test_broken_answer_gives_an_error_at_once(proxy: Proxy):
    err = proxy.logs / "proxy.log"
    with RawPeer(proxy.argv(faulty_server("garbage")), err) as peer:
        peer.handshake()
        call(peer, 1, "garbage")
        answer = peer.response(1)
        assert answer["error"]["code"] == INVALID_JSON_CODE, answer
        assert "not valid JSON" in answer["error"]["message"], answer
        # The server is still there: the next call works.
        call(peer, 2, "echo", {"text": "still here"})
        assert peer.response(2)["result"]["content"][0]["text"] == "still here"
        assert peer.close() == 0
    assert any(line.startswith("toolcap:") and "cut sh" in line for line in stderr_lines(err))


def test_a_line_of_noise_is_logged_and_skipped(proxy: Proxy):
    err = proxy.logs / "proxy.log"
    with RawPeer(proxy.argv(faulty_server("garbage")), err) as peer:
        peer.handshake()
        call(peer, 1, "noise")
        lines = peer.lines_until_response(1)
        assert len(lines) == 1, lines
        assert json.loads(lines[0])["result"]["content"][0]["text"] == "the answer after the noise"
        assert peer.close() == 0
    noise = garbage.NOISE.decode()
    assert any(line.startswith("toolcap:") and noise[:100] in line for line in stderr_lines(err))


# --- huge answers, each broken in one way -----------------------------------

# Under the lift's minimum (cli/src/mcp/lifted.rs, LIFT_MIN_BYTES, 1 MiB) an
# answer is parsed whole; over it, without its text. Both are over the
# default budget.
SMALL_KIB = 256
HUGE_KIB = 2048
# What the client must be told of each of huge.py's answers.
HUGE_EXPECTED = {
    "plain": "full content at",
    "in_structured": "full content at",
    "result_is_a_string": "could not be capped",
    "error": "it is an error of",
    "twice_in_result": "writes the member `content[0].type` twice",
    "twice_in_envelope": "the member `id` is written twice",
    "control_byte": "not valid JSON",
    "unknown_escape": "not valid JSON",
    "short_unicode_escape": "not valid JSON",
}


def what_client_gets(answer: dict) -> tuple:
    """An answer without its numbers and digests (sizes, offsets, spill
    names): what must not depend on the answer's size."""

    def plain(text: str) -> str:
        return re.sub(r"\d+|[0-9a-f]{16,}", "N", text)

    if "error" in answer:
        return ("error", answer["error"]["code"], plain(answer["error"]["message"]))
    result = answer["result"]
    texts = [block.get("text", "") for block in result.get("content", [])]
    if result.get("isError"):
        return ("tool error", sorted(result), [plain(text) for text in texts])
    return ("result", sorted(result), [len(refs_in(text)) for text in texts])


@pytest.mark.parametrize("tool", sorted(huge.TOOLS))
def test_a_huge_answer_is_treated_as_the_same_answer_written_small(proxy: Proxy, tool: str):
    assert sorted(HUGE_EXPECTED) == sorted(huge.TOOLS)
    err = proxy.logs / "proxy.log"
    with RawPeer(proxy.argv(faulty_server("huge")), err) as peer:
        peer.handshake()
        call(peer, 1, tool, {"kib": SMALL_KIB})
        small = peer.response(1)
        call(peer, 2, tool, {"kib": HUGE_KIB})
        large = peer.response(2)
        for answer in (small, large):
            assert HUGE_EXPECTED[tool] in json.dumps(answer), answer
            assert len(json.dumps(answer)) < 64 << 10
        assert what_client_gets(large) == what_client_gets(small)
        # The server is still there: the next call works.
        call(peer, 3, "echo", {"text": "still here"})
        assert peer.response(3)["result"]["content"][0]["text"] == "still here"
        assert peer.close() == 0


# --- the server floods 100 MiB ----------------------------------------------


def peak_rss(pid: int) -> int:
    """VmHWM of `pid`: the most resident memory it has had, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            value, unit = line.split()[1:3]
            assert unit == "kB"
            return int(value) << 10
    raise AssertionError(f"no VmHWM for pid {pid}")


def test_flood_is_capped_in_bounded_memory_and_read_back(proxy: Proxy, capsys):
    total = FLOOD_MIB << 20
    with RawPeer(proxy.argv(faulty_server("flood")), proxy.logs / "proxy.log") as peer:
        peer.handshake()
        call(peer, 1, "flood", {"mib": FLOOD_MIB})
        raw = peer.lines_until_response(1)[-1]
        rss = peak_rss(peer.pid)
        assert len(raw) < 64 << 10, f"a {len(raw)}-byte answer was not capped"
        answer = json.loads(raw)["result"]
        notice = answer["content"][0]["text"]
        assert notice.startswith("[toolcap]"), notice
        [ref] = refs_in(notice)
        assert ref.bytes == total
        full, rest = divmod(total, flood.LINE_BYTES)
        assert ref.lines == full + (rest > 0)

        # First and last pages through the read tool.
        async def read(arguments):
            return read_tool(peer, arguments)

        async def pages():
            first = await read_page(read, ref.path, 0)
            last = await read_page(read, ref.path, total - 5000)
            return first, last

        first, last = anyio.run(pages)
        expected_head = b"".join(flood.flood_line(n) for n in range(1000))
        assert first.body == expected_head[: len(first.body)] and len(first.body) > 30_000
        expected_tail = b"".join(flood.flood_line(n) for n in range(full - 60, full))
        expected_tail += flood.flood_line(full)[:rest]
        assert last.body == expected_tail[-5000:] and last.next_args is None
        assert peer.close() == 0
    # The whole spill on disk, compared piece by piece.
    with open(ref.path, "rb") as spilled:
        for chunk in flood.flood_chunks(total):
            assert spilled.read(len(chunk)) == chunk
        assert spilled.read(1) == b""
    with capsys.disabled():
        print(f"\n[flood] toolcap mcp peak RSS (VmHWM) on a {FLOOD_MIB} MiB result: {rss / (1 << 20):.1f} MiB")
    assert rss < FLOOD_RSS_BOUND, f"peak RSS {rss >> 20} MiB"


next_read_id = iter(range(1000, 10**9))


def read_tool(peer: RawPeer, arguments: dict) -> tuple[str, bool]:
    request_id = next(next_read_id)
    call(peer, request_id, READ_TOOL, arguments)
    result = peer.response(request_id)["result"]
    [block] = result["content"]
    return block["text"], bool(result.get("isError"))


# --- the server never answers -----------------------------------------------


def test_timeout_gives_an_error_and_cancels_at_the_server(proxy: Proxy):
    log = proxy.logs / "server.log"
    argv = proxy.argv(faulty_server("silent", "--log", str(log), "--answer-late"), "--timeout", "2")
    with RawPeer(argv, proxy.logs / "proxy.log") as peer:
        peer.handshake()
        call(peer, 7, "hang")
        answer = peer.response(7)
        assert answer["error"]["code"] == TIMEOUT_CODE, answer
        assert "tools/call" in answer["error"]["message"], answer
        assert re.search(r"\b2 ?s\b", answer["error"]["message"]), answer
        wait_for_message(log, cancellation_of(7))
        # The server answers the cancelled call anyway, before it reads the
        # next one: that late answer must not reach the client.
        call(peer, 8, "echo", {"text": "after the timeout"})
        lines = peer.lines_until_response(8)
        assert ids_in(lines) == [8], lines
        assert json.loads(lines[-1])["result"]["content"][0]["text"] == "after the timeout"
        assert peer.close() == 0


def test_timeout_through_the_sdk_client(proxy: Proxy):
    log = proxy.logs / "server.log"

    async def body():
        argv = proxy.argv(faulty_server("silent", "--log", str(log)), "--timeout", "2")
        async with connect(argv, proxy.logs / "proxy.log") as s:
            with pytest.raises(MCPError) as timed_out:
                await s.call_tool("hang", {})
            assert timed_out.value.error.code == TIMEOUT_CODE
            hung = wait_for_message(log, lambda m: m.get("params", {}).get("name") == "hang")
            wait_for_message(log, cancellation_of(hung["id"]))
            assert (await s.call_tool("echo", {"text": "next"})).content[0].text == "next"

    run(body)


def test_progress_restarts_the_timeout_clock(proxy: Proxy):
    # 12 ticks 0.5 s apart take 6 s, beyond the 4 s timeout; no gap comes
    # near it.
    argv = proxy.argv(faulty_server("silent"), "--timeout", "4")

    async def body():
        async with connect(argv, proxy.logs / "proxy.log") as s:
            ticks = []

            async def on_progress(done, total, message):
                ticks.append(done)

            result = await s.call_tool("tick", {"ticks": 12, "every": 0.5}, progress_callback=on_progress)
            assert result.content[0].text == "12 ticks"
            assert ticks == [float(n) for n in range(1, 13)]

    run(body)


# --- the client cancels -----------------------------------------------------


def test_client_cancel_reaches_the_server_and_settles_the_call(proxy: Proxy):
    log = proxy.logs / "server.log"
    argv = proxy.argv(faulty_server("silent", "--log", str(log)), "--timeout", "2")
    with RawPeer(argv, proxy.logs / "proxy.log") as peer:
        peer.handshake()
        call(peer, "long-one", "hang")
        wait_for_message(log, lambda m: m.get("id") == "long-one")
        peer.notify("notifications/cancelled", {"requestId": "long-one", "reason": "the user pressed stop"})
        cancelled = wait_for_message(log, cancellation_of("long-one"))
        assert cancelled["params"]["reason"] == "the user pressed stop"
        call(peer, 2, "echo", {"text": "next"})
        assert ids_in(peer.lines_until_response(2)) == [2]
        # Past the 2 s timeout of the cancelled call: no error may come for it.
        time.sleep(4)
        peer.request(3, "ping")
        assert ids_in(peer.lines_until_response(3)) == [3]
        assert peer.close() == 0


def test_client_cancel_through_the_sdk_client(proxy: Proxy):
    log = proxy.logs / "server.log"

    async def body():
        async with connect(proxy.argv(faulty_server("silent", "--log", str(log))), proxy.logs / "p.log") as s:
            async with anyio.create_task_group() as group:

                async def long_call():
                    await s.call_tool("hang", {})

                group.start_soon(long_call)
                hung = await anyio.to_thread.run_sync(
                    wait_for_message, log, lambda m: m.get("params", {}).get("name") == "hang"
                )
                group.cancel_scope.cancel()
            await anyio.to_thread.run_sync(wait_for_message, log, cancellation_of(hung["id"]))
            assert (await s.call_tool("echo", {"text": "next"})).content[0].text == "next"

    run(body)


# --- order ------------------------------------------------------------------


def test_concurrent_calls_and_cancellations_keep_every_answer(proxy: Proxy):
    """Hanging calls cancelled between 100 echoes in one burst: each echo is
    answered exactly once with its own text, and nothing else comes back."""
    log = proxy.logs / "server.log"
    with RawPeer(proxy.argv(faulty_server("silent", "--log", str(log))), proxy.logs / "p.log") as peer:
        peer.handshake()
        burst = []
        for i in range(100):
            burst.append({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                          "params": {"name": "echo", "arguments": {"text": f"echo {i}"}}})
            if i % 10 == 0:
                burst.append({"jsonrpc": "2.0", "id": f"h{i}", "method": "tools/call",
                              "params": {"name": "hang", "arguments": {}}})
                burst.append({"jsonrpc": "2.0", "method": "notifications/cancelled",
                              "params": {"requestId": f"h{i}"}})
        peer.send(b"".join(json.dumps(m).encode() + b"\n" for m in burst))
        answers = [json.loads(peer.next_line()) for _ in range(100)]
        assert [a["id"] for a in answers] == list(range(100))
        assert all(a["result"]["content"][0]["text"] == f"echo {a['id']}" for a in answers)
        peer.request("last", "ping")
        assert ids_in(peer.lines_until_response("last")) == ["last"]
        assert peer.close() == 0
    # The server read everything, in the order it was sent.
    got = [m for m in received(log) if m.get("method") != "initialize" and m.get("method") != "notifications/initialized"]
    assert got[: len(burst)] == burst


# --- the server cannot start ------------------------------------------------


def test_a_server_that_cannot_start_is_reported(proxy: Proxy, tmp_path: Path):
    missing = tmp_path / "no-such-server"
    err = proxy.logs / "proxy.log"
    with RawPeer(proxy.argv([str(missing), "--flag"]), err) as peer:
        try:
            peer.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError("the proxy kept running without its server") from None
        assert peer.close() == 1
    logged = [line for line in stderr_lines(err) if line.startswith("toolcap:")]
    assert any(str(missing) in line for line in logged), logged
