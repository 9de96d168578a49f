"""The saved outputs as MCP resources, through `toolcap mcp` with the
official Python SDK client: a capped result is listed as a resource and read
back page by page, exactly; forged and outside URIs are refused; a server
without resources (server-filesystem) gains the capability, and one with
its own (server-everything) keeps them, the spills listed after them."""

from pathlib import Path

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from paths import everything_server, filesystem_server
from proxy import READ_TOOL, Proxy, connect, dump, run
from samples import big_text
from spill import refs_in

SPILL_SCHEME = "toolcap://spill/"
PAGE_TEMPLATE = "toolcap://spill/{+path}{?bytes,lines,tag,offset}"
DEFAULT_MAX_BYTES = 24576
BIG_MESSAGE = "".join(f"line {i:05d} of a long echo — ünïcödé\n" for i in range(5_000))


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """The folder granted to server-filesystem, with a 1 MiB text file in it."""
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "big.txt").write_bytes(big_text(1 << 20).encode())
    return folder.resolve()


async def list_all(session) -> list[dict]:
    """Every resource, page after page, as a client pages through."""
    resources, cursor = [], None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_resources(params=params)
        resources += [dump(r) for r in page.resources]
        cursor = page.next_cursor
        if not cursor:
            return resources


async def read_pages(session, uri: str) -> tuple[bytes, int]:
    """A spill resource read page after page, each page naming the next:
    the pages joined (as bytes), and how many there were."""
    texts, next_uri = [], uri
    while next_uri:
        result = dump(await session.read_resource(next_uri))
        [contents] = result["contents"]
        assert contents["uri"] == next_uri
        assert len(contents["text"].encode()) <= DEFAULT_MAX_BYTES
        texts.append(contents["text"])
        next_uri = contents["_meta"].get("toolcap/nextUri")
        assert len(texts) < 10_000, "the pages never end"
    return "".join(texts).encode(), len(texts)


async def refused(session, uri: str) -> types.ErrorData:
    with pytest.raises(MCPError) as caught:
        await session.read_resource(uri)
    return caught.value.error


def test_a_capped_result_is_a_resource_read_back_exactly(proxy: Proxy, shared: Path):
    original = (shared / "big.txt").read_bytes()

    async def body():
        async with connect(proxy.argv(filesystem_server(shared)), proxy.logs / "proxy.log") as s:
            # server-filesystem has no resources: the proxy offers its own.
            assert s.server_capabilities.resources is not None
            assert await list_all(s) == []
            result = dump(await s.call_tool("read_text_file", {"path": str(shared / "big.txt")}))
            ref = {r.bytes: r for r in refs_in(result["content"][0]["text"])}[len(original)]
            listed = await list_all(s)
            assert listed and all(r["uri"].startswith(SPILL_SCHEME) for r in listed), listed
            [entry] = [r for r in listed if r["size"] == len(original)]
            assert entry["mimeType"] == "text/plain"
            meta = entry["_meta"]
            assert meta["toolcap/path"] == ref.path
            assert meta["toolcap/lines"] == ref.lines
            assert meta["toolcap/tool"] == "read_text_file"
            assert meta["toolcap/expiresAt"] > meta["toolcap/savedAt"]
            text, pages = await read_pages(s, entry["uri"])
            assert text == original
            assert pages >= len(original) // DEFAULT_MAX_BYTES
            templates = dump(await s.list_resource_templates())["resourceTemplates"]
            assert [t["uriTemplate"] for t in templates] == [PAGE_TEMPLATE]

    run(body)


def test_forged_and_outside_uris_are_refused(proxy: Proxy):
    async def body():
        async with connect(proxy.argv(everything_server()), proxy.logs / "proxy.log") as s:
            await s.call_tool("echo", {"message": BIG_MESSAGE})
            [entry] = [r for r in await list_all(s) if r["uri"].startswith(SPILL_SCHEME)]
            uri = entry["uri"]
            thread = uri[len(SPILL_SCHEME) :].split("/")[0]
            tag = uri[uri.index("tag=") + 4 :][:16]
            forged_tag = ("0" if tag[0] != "0" else "1") + tag[1:]
            for forged in [
                uri.replace(f"tag={tag}", f"tag={forged_tag}"),
                uri.replace("bytes=", "bytes=1", 1),
                uri.replace(f"/{thread}/", "/mcp-elsewhere-000000000000/"),
            ]:
                error = await refused(s, forged)
                assert error.code == -32602 and "not a genuine reference" in error.message, error
            for outside in [
                "toolcap://spill/../../etc/passwd?bytes=1&lines=1&tag=00",
                f"toolcap://spill/{thread}/.expired?bytes=1&lines=1&tag=00",
                uri.split("?")[0],
            ]:
                error = await refused(s, outside)
                assert error.code == -32602 and "not a toolcap spill URI" in error.message, error
            # The read still works after all that.
            text, _ = await read_pages(s, uri)
            assert text == f"Echo: {BIG_MESSAGE}".encode()

    run(body)


def test_a_server_with_resources_keeps_them_and_the_spills_follow(proxy: Proxy):
    async def body():
        async with connect(everything_server(), proxy.logs / "direct.log") as s:
            direct = await list_all(s)
            direct_templates = dump(await s.list_resource_templates())["resourceTemplates"]
            direct_read = dump(await s.read_resource(direct[0]["uri"]))
        async with connect(proxy.argv(everything_server()), proxy.logs / "proxy.log") as s:
            before = await list_all(s)
            await s.call_tool("echo", {"message": BIG_MESSAGE})
            after = await list_all(s)
            templates = dump(await s.list_resource_templates())["resourceTemplates"]
            proxied_read = dump(await s.read_resource(direct[0]["uri"]))
            text, _ = await read_pages(s, after[-1]["uri"])
        assert direct and before == direct
        # The server's resources, in its order, then the spill.
        assert after[: len(direct)] == direct and len(after) == len(direct) + 1
        assert after[-1]["uri"].startswith(SPILL_SCHEME)
        assert text == f"Echo: {BIG_MESSAGE}".encode()
        assert proxied_read == direct_read
        assert templates[:-1] == direct_templates
        assert templates[-1]["uriTemplate"] == PAGE_TEMPLATE

    run(body)


def test_the_resource_link_is_the_readable_spill_resource(proxy: Proxy):
    async def body():
        argv = proxy.argv(everything_server(), "--resource-link")
        async with connect(argv, proxy.logs / "proxy.log") as s:
            result = dump(await s.call_tool("echo", {"message": BIG_MESSAGE}))
            [ref] = refs_in(result["content"][0]["text"])
            [link] = [b for b in result["content"] if b["type"] == "resource_link"]
            assert link["uri"].startswith(SPILL_SCHEME) and link["size"] == ref.bytes
            text, _ = await read_pages(s, link["uri"])
            assert text == Path(ref.path).read_bytes()
            # A model that copies the link's URI into the read tool reads the
            # spill; one naming another thread's file is refused.
            answer = dump(await s.call_tool(READ_TOOL, {"path": link["uri"], "grep": "line 04999"}))
            assert not answer.get("isError"), answer
            assert "line 5000: line 04999 of a long echo" in answer["content"][0]["text"]
            elsewhere = link["uri"].replace(f"/{Path(ref.path).parent.name}/", "/other-thread/", 1)
            answer = dump(await s.call_tool(READ_TOOL, {"path": elsewhere}))
            assert answer.get("isError"), answer
            assert "another session's folder" in answer["content"][0]["text"]

    run(body)
