"""A client of MCP 2026-07-28 through `toolcap mcp`: the official Python
SDK's `Client` in its default mode sends `server/discover`, no
`initialize`, and states its version in every request's `_meta`; results of
2026-07-28 need `resultType` (listings also `ttlMs` and `cacheScope`), which
the client checks. The server is the SDK's own (remote/served.py over
stdio), which speaks 2026-07-28 too."""

from mcp import Client

from paths import served_fixture
from proxy import READ_TOOL, Proxy, logged, run

LINES = 20_000


def test_every_answer_of_the_proxy_has_the_shape_of_2026_07_28(proxy: Proxy):
    async def body():
        argv = proxy.argv(served_fixture("--stdio"), "--max-bytes", "4000")
        async with Client(logged(argv, proxy.logs / "proxy.log"), mode="auto") as client:
            assert client.protocol_version == "2026-07-28"
            assert READ_TOOL in {t.name for t in (await client.list_tools()).tools}
            capped = await client.call_tool("numbered", {"lines": LINES})
            notice = capped.content[0].text
            assert "full content at" in notice and len(notice) < 4000, notice
            # The read tool: a page, and an error, each a 2026-07-28 result.
            last = await client.call_tool(READ_TOOL, {"path": notice, "line": LINES, "lines": 1})
            assert not last.is_error and f"{LINES - 1:06d} a line" in last.content[0].text
            wrong = await client.call_tool(READ_TOOL, {"path": "/nowhere/call-1-0123456789abcdef.txt"})
            assert wrong.is_error and "not a saved output" in wrong.content[0].text
            # The spill as a resource, listed after the server's own (none).
            assert client.server_capabilities.resources is not None
            first = await client.list_resources()
            assert first.resources == [] and first.next_cursor
            spills = (await client.list_resources(cursor=first.next_cursor)).resources
            # The text, and the structuredContent the cap dropped.
            assert len(spills) == 2 and all(s.uri.startswith("toolcap://spill/") for s in spills)
            pages = [(await client.read_resource(s.uri)).contents[0].text for s in spills]
            assert any(page.startswith("000000 a line") for page in pages), [p[:80] for p in pages]

    run(body)
