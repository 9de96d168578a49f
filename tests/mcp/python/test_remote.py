"""`toolcap mcp --url`: remote servers over Streamable HTTP, driven by the
official Python SDK client over stdio. server-everything (npm) in its
Streamable HTTP mode gives the same answers through the proxy as to the
SDK's own HTTP client, big results are capped and read back exactly; the
Python SDK's server (remote/served.py) checks that a bearer header reaches
it and never shows up anywhere else, and breaks on purpose: HTTP 500, an
expired session, a server gone in the middle of a call. A client of MCP
2026-07-28 reaches it without a session, even when it refuses `initialize`."""

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from paths import everything_http_server, served_fixture
from proxy import READ_TOOL, Proxy, connect, dump, logged, run
from rawrpc import RawPeer
from remote import free_port, serving
from spill import read_all, refs_in

SERVER_GONE_CODE = -32000
HTTP_ERROR_CODE = -32006
TOKEN = "fixture-token-Zq81x7Lw"


async def everything_conversation(s: ClientSession):
    progress = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total))

    listed = await s.list_resources()
    return [
        dump(await s.call_tool("echo", {"message": "hello over HTTP"})),
        dump(await s.call_tool("get-sum", {"a": 2, "b": 40})),
        dump(await s.call_tool("get-tiny-image", {})),
        dump(await s.call_tool("get-annotated-message", {"messageType": "error", "includeImage": True})),
        dump(await s.call_tool("get-resource-links", {"count": 3})),
        dump(listed),
        dump(await s.list_resource_templates()),
        [dump(await s.read_resource(r.uri)) for r in listed.resources[:3]],
        dump(await s.get_prompt("args-prompt", {"city": "Lyon", "state": "Rhône"})),
        dump(
            await s.call_tool(
                "trigger-long-running-operation", {"duration": 1, "steps": 4}, progress_callback=on_progress
            )
        ),
        progress,
    ]


def test_everything_over_http_answers_as_it_does_to_the_sdk_directly(proxy: Proxy):
    async def body():
        with serving(everything_http_server(), proxy.logs / "everything.log") as url:
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    direct = await everything_conversation(s)
            async with connect(proxy.argv_url(url), proxy.logs / "proxy.log") as s:
                proxied = await everything_conversation(s)
                tools = {t.name for t in (await s.list_tools()).tools}
        # The proxy adds the template of its spill pages (test_resources.py).
        templates = proxied[6]["resourceTemplates"]
        assert templates[-1]["uriTemplate"].startswith("toolcap://spill/")
        proxied[6]["resourceTemplates"] = templates[:-1]
        assert proxied == direct
        assert proxied[-1] == [(float(i), 4.0) for i in range(1, 5)]
        assert READ_TOOL in tools and "echo" in tools

    run(body)


def test_big_remote_result_is_capped_and_read_back_exactly(proxy: Proxy):
    message = "".join(f"{i:06d} over HTTP — ünïcödé 🦊\n" for i in range(30_000))
    original = f"Echo: {message}".encode()

    async def body():
        with serving(everything_http_server(), proxy.logs / "everything.log") as url:
            async with connect(proxy.argv_url(url, "--max-bytes", "8000"), proxy.logs / "proxy.log") as s:
                result = dump(await s.call_tool("echo", {"message": message}))
                first = result["content"][0]
                assert first["text"].startswith("[toolcap]"), first
                assert sum(len(b["text"].encode()) for b in result["content"]) <= 8000
                [ref] = refs_in(first["text"])
                assert ref.bytes == len(original)

                async def read(arguments):
                    answer = await s.call_tool(READ_TOOL, arguments)
                    return answer.content[0].text, bool(answer.is_error)

                assert await read_all(read, ref.path) == original

    run(body)


def test_many_remote_calls_in_flight_each_get_their_own_answer(proxy: Proxy):
    calls = 200

    async def body():
        answers: dict[int, list[str]] = {}
        with serving(everything_http_server(), proxy.logs / "everything.log") as url:
            async with connect(proxy.argv_url(url), proxy.logs / "proxy.log") as s:

                async def one(i: int) -> None:
                    result = await s.call_tool("echo", {"message": f"call {i}"})
                    answers.setdefault(i, []).extend(b.text for b in result.content)

                async with anyio.create_task_group() as group:
                    for i in range(calls):
                        group.start_soon(one, i)
        assert answers == {i: [f"Echo: call {i}"] for i in range(calls)}

    run(body)


def served(proxy: Proxy, *args: str):
    return serving(served_fixture("--port", str(port := free_port()), *args), proxy.logs / "served.log", port=port)


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*")]


def test_bearer_header_reaches_the_server_and_appears_nowhere_else(proxy: Proxy, tmp_path: Path):
    record = tmp_path / "headers.jsonl"
    events = tmp_path / "events.jsonl"
    env = {"FIXTURE_TOKEN": TOKEN}

    async def body():
        with serving(
            served_fixture("--port", str(port := free_port()), "--token-env", "FIXTURE_TOKEN", "--record", str(record)),
            proxy.logs / "served.log",
            env=env,
            port=port,
        ) as url:
            argv = proxy.argv_url(
                url, "--header", "Authorization: Bearer ${FIXTURE_TOKEN}", "--max-bytes", "4000", "--log-file", str(events)
            )
            assert not any(TOKEN in part for part in argv)
            async with connect(argv, proxy.logs / "proxy.log", env=env) as s:
                result = dump(await s.call_tool("numbered", {"lines": 5000}))
                text = result["content"][0]["text"]
                assert text.startswith("[toolcap]"), text[:200]
                # The text, then the structuredContent the SDK server adds.
                ref, structured = refs_in(text)
                assert "-structured-" in structured.path

                async def read(arguments):
                    answer = await s.call_tool(READ_TOOL, arguments)
                    return answer.content[0].text, bool(answer.is_error)

                saved = await read_all(read, ref.path)
                assert saved.startswith(b"000000 a line of the remote server")
                shown = json.dumps(result)
        assert TOKEN not in shown
        seen = [json.loads(line) for line in record.read_text().splitlines()]
        assert seen and all(s["headers"].get("authorization") == f"Bearer {TOKEN}" for s in seen)
        assert {s["method"] for s in seen} >= {"POST", "DELETE"}
        posts = [s["headers"] for s in seen if s["method"] == "POST"]
        assert all("mcp-session-id" in h for h in posts[1:]), "every request after initialize has the session"
        assert all(h.get("mcp-protocol-version") for h in posts[1:]), "and the protocol version"
        for path in files_under(proxy.spill_dir):
            assert TOKEN not in str(path)
            if path.is_file():
                assert TOKEN.encode() not in path.read_bytes(), path
        assert events.read_text().strip(), "the call was logged"
        assert TOKEN not in events.read_text()
        assert TOKEN not in (proxy.logs / "proxy.log").read_text()

    run(body)


def test_a_refused_token_is_a_clear_error(proxy: Proxy, tmp_path: Path):
    env = {"FIXTURE_TOKEN": TOKEN, "WRONG_TOKEN": "not-the-token-4411"}

    async def body():
        with serving(
            served_fixture("--port", str(port := free_port()), "--token-env", "FIXTURE_TOKEN"),
            proxy.logs / "served.log",
            env=env,
            port=port,
        ) as url:
            argv = proxy.argv_url(url, "--header", "Authorization: Bearer ${WRONG_TOKEN}")
            with pytest.raises(Exception) as refused:
                async with connect(argv, proxy.logs / "proxy.log", env=env):
                    pass
        text = repr(refused.value) + "".join(repr(e) for e in getattr(refused.value, "exceptions", []))
        assert "401" in text and "--header" in text, text
        assert "not-the-token-4411" not in text
        assert "not-the-token-4411" not in (proxy.logs / "proxy.log").read_text()

    run(body)


def test_http_errors_expiry_and_a_vanished_server(proxy: Proxy):
    async def body():
        with served(proxy) as url:
            async with connect(proxy.argv_url(url), proxy.logs / "proxy.log") as s:
                with pytest.raises(MCPError) as failed:
                    await s.call_tool("fail_500", {})
                assert failed.value.error.code == HTTP_ERROR_CODE
                assert "HTTP 500" in failed.value.error.message
                assert "failed on purpose" in failed.value.error.message
                # The session goes on after an error.
                assert (await s.call_tool("echo", {"text": "still here"})).content[0].text == "still here"
                # The server forgets the session: the proxy opens a new one
                # and the next call works as if nothing happened.
                await s.call_tool("expire_session", {})
                assert (await s.call_tool("echo", {"text": "new session"})).content[0].text == "new session"
                # The server goes away in the middle of a call.
                with pytest.raises(MCPError) as gone:
                    await s.call_tool("vanish", {})
                assert gone.value.error.code == SERVER_GONE_CODE
                with pytest.raises(MCPError) as after:
                    await s.call_tool("echo", {"text": "anyone?"})
                assert "cannot reach the MCP server" in after.value.error.message
        log = (proxy.logs / "proxy.log").read_text()
        assert "ended the session: opening a new one" in log

    run(body)


def test_an_answer_stream_cut_before_the_answer_is_resumed(proxy: Proxy, tmp_path: Path):
    record = tmp_path / "headers.jsonl"

    async def body():
        with served(proxy, "--resumable", "--record", str(record)) as url:
            async with connect(proxy.argv_url(url), proxy.logs / "proxy.log") as s:
                result = await s.call_tool("cut_stream", {})
                assert result.content[0].text == "after the cut"
                assert not result.is_error
        seen = [json.loads(line) for line in record.read_text().splitlines()]
        resumed = [s for s in seen if s["method"] == "GET" and "last-event-id" in s["headers"]]
        assert resumed, "the proxy resumed the stream with Last-Event-ID"

    run(body)


@pytest.mark.parametrize("modern_only", [False, True], ids=["both-eras", "modern-only"])
def test_a_client_of_2026_07_28_reaches_the_server_without_a_session(proxy: Proxy, modern_only: bool):
    """The SDK's `Client` in its default mode speaks 2026-07-28: each
    request POSTed alone, no session, its version, method and name in
    headers the server checks against the body. A server of that version
    alone (`--modern-only` refuses `initialize`) is reached too."""

    async def body():
        flags = ["--modern-only"] if modern_only else []
        with served(proxy, *flags) as url:
            argv = proxy.argv_url(url, "--max-bytes", "4000")
            async with Client(logged(argv, proxy.logs / "proxy.log"), mode="auto") as client:
                assert client.protocol_version == "2026-07-28"
                assert {"echo", READ_TOOL} <= {t.name for t in (await client.list_tools()).tools}
                echoed = await client.call_tool("echo", {"text": "ünï"})
                assert echoed.content[0].text == "ünï"
                # Its marked argument goes in an `Mcp-Param-Region` header,
                # base64 when it is not plain ASCII, as the server checks.
                for region in ["eu-west-1", "zürich ✓"]:
                    placed = await client.call_tool("regional", {"region": region, "text": "hi"})
                    assert not placed.is_error, placed
                    assert placed.content[0].text == f"{region}: hi"
                capped = await client.call_tool("numbered", {"lines": 20_000})
                notice = capped.content[0].text
                assert "full content at" in notice, notice
                last = await client.call_tool(READ_TOOL, {"path": notice, "line": 20_000, "lines": 1})
                assert "019999 a line" in last.content[0].text
        # No request of the client met an HTTP error on its way.
        assert "answered HTTP" not in (proxy.logs / "proxy.log").read_text()

    run(body)


def test_a_tool_whose_marks_2026_07_28_forbids_is_left_out_for_that_version(proxy: Proxy):
    """`misdeclared` marks a `number` argument for a header, which MCP
    2026-07-28 does not allow, and that version has a client drop such a
    tool from `tools/list`. The proxy is that client of the server: a
    2026-07-28 listing reaches the stdio client without it (raw lines, since
    the SDK's client would drop it itself), with why in the log; a 2025
    client, whose version has no such marks, gets it."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "toolcap-e2e-raw", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    log = proxy.logs / "proxy.log"
    with served(proxy) as url:
        with RawPeer(proxy.argv_url(url), log) as peer:
            peer.request(1, "tools/list", {"_meta": meta})
            modern = {t["name"] for t in peer.response(1)["result"]["tools"]}
            assert {"regional", "echo", READ_TOOL} <= modern and "misdeclared" not in modern, modern
        with RawPeer(proxy.argv_url(url), log) as peer:
            peer.handshake()
            peer.request(1, "tools/list")
            older = {t["name"] for t in peer.response(1)["result"]["tools"]}
            assert {"regional", "misdeclared", READ_TOOL} <= older, older
    said = log.read_text()
    assert "tool `misdeclared` out of its tools/list answer" in said and "`number`" in said, said
