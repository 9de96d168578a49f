"""`toolcap mcp --listen`: the proxy serves clients over Streamable HTTP.
The official Python SDK's HTTP client, in front of server-filesystem (npm):
a 3 MiB file capped with the notice first and paged back exactly through
the read tool and through resources/read; an image byte for byte; 200 calls in flight; each client
session in its own spill folder. With raw HTTP (httpx2, the SDK's own HTTP
library): a client that drops its stream resumes it with Last-Event-ID; a
foreign Origin and a missing or wrong client token are refused; a body that
is no JSON-RPC message, or an MCP-Protocol-Version other than the session's,
gets a 400 and the session goes on."""

import base64
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import httpx2
import mcp.types as types
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from paths import everything_server, filesystem_server, toolcap_bin
from proxy import READ_TOOL, Proxy, dump, run
from remote import free_port, serving
from samples import big_text
from spill import read_all, refs_in
from test_resources import list_all, read_pages

TOKEN = "client-token-Hq2v9"
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "big.txt").write_bytes(big_text(3 << 20).encode())
    return folder.resolve()


@contextmanager
def listening(proxy: Proxy, server: list[str], *options: str, env: dict | None = None) -> Iterator[str]:
    """`toolcap mcp --listen PORT -- server`, until the test is done."""
    port = free_port()
    argv = [
        toolcap_bin(),
        "mcp",
        "--spill-dir",
        str(proxy.spill_dir),
        "--key-file",
        str(proxy.key_file),
        "--listen",
        str(port),
        *options,
        "--",
        *server,
    ]
    with serving(argv, proxy.logs / "listen.log", env=env, port=port) as url:
        yield url


@asynccontextmanager
async def http_session(url: str, headers: dict | None = None):
    async with httpx2.AsyncClient(headers=headers or {}, timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def open_raw(client: httpx2.AsyncClient, url: str) -> tuple[httpx2.Response, dict]:
    """`initialize` over raw HTTP: the answer, and the headers of the session it opened."""
    opened = await client.post(url, json=INIT, headers=ACCEPT)
    assert opened.status_code == 200, opened.text
    return opened, {**ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"]}


async def call(session, name: str, arguments: dict) -> dict:
    request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))
    return dump(await session.send_request(request, types.CallToolResult))


def test_a_big_file_is_capped_and_paged_back_and_an_image_is_intact(proxy: Proxy, shared: Path):
    original = (shared / "big.txt").read_bytes()
    image = b"\x89PNG\r\n\x1a\n" + os.urandom(1 << 20)
    (shared / "picture.png").write_bytes(image)

    async def body():
        with listening(proxy, filesystem_server(shared)) as url:
            async with http_session(url) as s:
                tools = {t.name for t in (await s.list_tools()).tools}
                assert READ_TOOL in tools and "read_text_file" in tools
                result = await call(s, "read_text_file", {"path": str(shared / "big.txt")})
                notice = result["content"][0]["text"]
                assert notice.startswith("[toolcap]"), notice[:200]
                ref = {r.bytes: r for r in refs_in(notice)}[len(original)]

                async def read(arguments):
                    answer = await s.call_tool(READ_TOOL, arguments)
                    return answer.content[0].text, bool(answer.is_error)

                assert await read_all(read, ref.path) == original
                # And as a resource, page after page.
                [entry] = [r for r in await list_all(s) if r["size"] == len(original)]
                pages, count = await read_pages(s, entry["uri"])
                assert pages == original and count > 1
                media = await call(s, "read_media_file", {"path": str(shared / "picture.png")})
                [block] = [b for b in media["content"] if b["type"] == "image"]
                assert base64.b64decode(block["data"], validate=True) == image

    run(body)


def test_200_calls_in_flight_and_one_spill_folder_per_session(proxy: Proxy, shared: Path):
    async def body():
        with listening(proxy, filesystem_server(shared), "--max-bytes", "2000") as url:
            answers = {}
            async with http_session(url) as s:

                async def one(i: int) -> None:
                    result = await s.call_tool("list_allowed_directories", {})
                    answers[i] = result.content[0].text

                async with anyio.create_task_group() as group:
                    for i in range(200):
                        group.start_soon(one, i)
                await call(s, "read_text_file", {"path": str(shared / "big.txt")})
            async with http_session(url) as other:
                await call(other, "read_text_file", {"path": str(shared / "big.txt")})
        assert len(answers) == 200 and len(set(answers.values())) == 1
        assert str(shared) in answers[0]
        # Each session saved its read in a folder of its own.
        folders = [p for p in proxy.spill_dir.iterdir() if p.is_dir() and any(p.glob("*.txt"))]
        assert len(folders) == 2, folders

    run(body)


def events_of(text: str) -> list[tuple[str, dict]]:
    found = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if fields.get("data"):
            found.append((fields.get("id", ""), json.loads(fields["data"])))
    return found


def test_a_dropped_stream_is_resumed_with_last_event_id(proxy: Proxy):
    async def body():
        with listening(proxy, everything_server()) as url:
            async with httpx2.AsyncClient(timeout=60) as client:
                _, session = await open_raw(client, url)
                note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                assert (await client.post(url, json=note, headers=session)).status_code == 202
                slow = {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {
                        "name": "trigger-long-running-operation",
                        "arguments": {"duration": 2, "steps": 4},
                        "_meta": {"progressToken": "p1"},
                    },
                }
                # Read up to the first event, then drop the connection.
                async with client.stream("POST", url, json=slow, headers=session) as response:
                    buffered = ""
                    async for chunk in response.aiter_text():
                        buffered += chunk
                        if "\n\n" in buffered:
                            break
                assert events_of(buffered.split("\n\n")[0] + "\n\n"), repr(buffered[:500])
                [(last_id, first)] = events_of(buffered.split("\n\n")[0] + "\n\n")
                assert first["method"] == "notifications/progress" and last_id
                resumed = await client.get(url, headers={**session, "last-event-id": last_id})
                assert resumed.status_code == 200
                rest = events_of(resumed.text)
                progress = [e for _, e in rest if e.get("method") == "notifications/progress"]
                answers = [e for _, e in rest if e.get("id") == 1]
                assert len(progress) == 3 and [p["params"]["progress"] for p in progress] == [2, 3, 4]
                assert len(answers) == 1 and "Long running operation completed" in json.dumps(answers[0])
                assert (await client.delete(url, headers=session)).status_code == 200

    run(body)


def test_foreign_origins_and_missing_tokens_are_refused(proxy: Proxy, shared: Path):
    env = {"LISTEN_TOKEN": TOKEN}

    async def body():
        with listening(proxy, filesystem_server(shared), "--client-token", "${LISTEN_TOKEN}", env=env) as url:
            async with httpx2.AsyncClient(timeout=60) as client:
                bearer = {**ACCEPT, "authorization": f"Bearer {TOKEN}"}
                wrong = {**ACCEPT, "authorization": "Bearer not-it"}
                # A refusal does not read the message, so it closes the
                # connection and says so: the client's next request, on
                # the same client, goes on a new one (without the header
                # it could find the old one closed under it).
                for _ in range(10):
                    evil = await client.post(url, json=INIT, headers={**bearer, "origin": "http://evil.example"})
                    assert evil.status_code == 403 and evil.headers["connection"] == "close"
                    rebinding = await client.post(url, json=INIT, headers={**bearer, "origin": "http://127.0.0.1.evil.example"})
                    assert rebinding.status_code == 403 and rebinding.headers["connection"] == "close"
                    missing = await client.post(url, json=INIT, headers=ACCEPT)
                    assert missing.status_code == 401 and missing.headers["connection"] == "close"
                    assert (await client.post(url, json=INIT, headers=wrong)).status_code == 401
                local = await client.post(url, json=INIT, headers={**bearer, "origin": "http://localhost:5173"})
                assert local.status_code == 200
            async with http_session(url, {"authorization": f"Bearer {TOKEN}"}) as s:
                assert READ_TOOL in {t.name for t in (await s.list_tools()).tools}
        assert TOKEN not in (proxy.logs / "listen.log").read_text()

    run(body)


def test_bodies_that_are_no_message_and_other_protocol_versions_get_a_400(proxy: Proxy):
    async def body():
        with listening(proxy, everything_server()) as url:
            async with httpx2.AsyncClient(timeout=60) as client:
                opened, session = await open_raw(client, url)
                agreed = opened.json()["result"]["protocolVersion"]
                # Not a notification to accept with a 202: a JSON-RPC error
                # without an id says what is wrong.
                for sent, code in [(b'{"jsonrpc":"2.0","id":8,', -32700), (b"42", -32600), (b"[]", -32600)]:
                    refused = await client.post(url, content=sent, headers=session)
                    assert refused.status_code == 400, (sent, refused.text)
                    assert refused.json()["id"] is None and refused.json()["error"]["code"] == code
                ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
                other = {**session, "mcp-protocol-version": "2024-01-01"}
                for method in ("POST", "GET", "DELETE"):
                    wrong = await client.request(method, url, json=ping if method == "POST" else None, headers=other)
                    assert wrong.status_code == 400 and agreed in wrong.text, (method, wrong.text)
                # The session is untouched: the agreed version, or none, goes on.
                right = await client.post(url, json=ping, headers={**session, "mcp-protocol-version": agreed})
                assert right.status_code == 200 and right.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
                assert (await client.post(url, json={**ping, "id": 2}, headers=session)).status_code == 200
                assert (await client.delete(url, headers=session)).status_code == 200

    run(body)


def test_a_client_of_2026_07_28_is_told_which_versions_to_initialize_at(proxy: Proxy):
    """A sessionless request of MCP 2026-07-28 gets that version's -32022
    error naming the versions served, and the SDK's `Client` (which speaks
    2026-07-28 first) falls back to `initialize` and works."""
    modern = "2026-07-28"
    meta = {
        "io.modelcontextprotocol/protocolVersion": modern,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    discover = {"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {"_meta": meta}}

    async def body():
        with listening(proxy, everything_server()) as url:
            async with httpx2.AsyncClient(timeout=60) as client:
                for headers in ({"mcp-protocol-version": modern, "mcp-method": "server/discover"}, {}):
                    refused = await client.post(url, json=discover, headers={**ACCEPT, **headers})
                    assert refused.status_code == 400, refused.text
                    assert refused.headers["content-type"] == "application/json"
                    answer = refused.json()
                    assert answer["id"] == 7 and answer["error"]["code"] == -32022, answer
                    assert answer["error"]["data"]["requested"] == modern
                    assert "2025-11-25" in answer["error"]["data"]["supported"]
            async with Client(url, mode="auto") as client:
                assert client.protocol_version != modern
                echoed = await client.call_tool("echo", {"message": "ünï"})
                assert echoed.content[0].text == "Echo: ünï"

    run(body)


def test_a_session_left_without_delete_is_ended_after_the_idle_timeout(proxy: Proxy):
    async def body():
        with listening(proxy, everything_server(), "--idle-timeout", "1") as url:
            async with httpx2.AsyncClient(timeout=60) as client:
                _, session = await open_raw(client, url)
                ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
                assert (await client.post(url, json=ping, headers=session)).status_code == 200
                # While a stream is open the session lives, however quiet.
                async with client.stream("GET", url, headers=session) as stream:
                    assert stream.status_code == 200
                    await anyio.sleep(2.5)
                    assert (await client.post(url, json=ping, headers=session)).status_code == 200
                await anyio.sleep(3)
                gone = await client.post(url, json=ping, headers=session)
                assert gone.status_code == 404, gone.text
        assert "idle for 1 s: ended" in (proxy.logs / "listen.log").read_text()

    run(body)


def test_listen_in_front_of_a_remote_server(proxy: Proxy):
    """--listen with --url: HTTP on both sides, a remote session per client."""
    from paths import served_fixture

    async def body():
        port = free_port()
        with serving(served_fixture("--port", str(port)), proxy.logs / "served.log", port=port) as remote:
            listen_port = free_port()
            argv = [
                toolcap_bin(), "mcp", "--spill-dir", str(proxy.spill_dir), "--key-file", str(proxy.key_file),
                "--max-bytes", "3000", "--listen", str(listen_port), "--url", remote,
            ]
            with serving(argv, proxy.logs / "listen.log", port=listen_port) as url:
                async with http_session(url) as s:
                    echoed = await s.call_tool("echo", {"text": "both sides HTTP"})
                    assert echoed.content[0].text == "both sides HTTP"
                    capped = await call(s, "numbered", {"lines": 2000})
                    text = capped["content"][0]["text"]
                    assert text.startswith("[toolcap]"), text[:200]
                    ref = refs_in(text)[0]

                    async def read(arguments):
                        answer = await s.call_tool(READ_TOOL, arguments)
                        return answer.content[0].text, bool(answer.is_error)

                    saved = await read_all(read, ref.path)
                    assert saved.count(b"\n") == 2000

    run(body)
