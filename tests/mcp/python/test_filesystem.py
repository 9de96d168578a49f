"""server-filesystem (npm) through `toolcap mcp`, driven by the official
Python SDK client: a multi-MiB file read is capped, its notice comes first
and names a real file, and the read tool gives back exactly the bytes."""

import base64
import json
import os
from pathlib import Path

import mcp.types as types
import pytest

from paths import filesystem_server
from proxy import READ_TOOL, Proxy, as_capped, connect, dump, run
from samples import big_text
from spill import PAGE_BYTES, read_all, read_page, refs_in

DEFAULT_MAX_BYTES = 24576
META_KEY = "tool-output-cap/cap"


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """The folder granted to the server, with a 3 MiB text file in it."""
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "big.txt").write_bytes(big_text(3 << 20).encode())
    (folder / "small.txt").write_bytes("two lines,\nnothing to cut\n".encode())
    return folder.resolve()


def texts(result: dict) -> list[str]:
    return [block["text"] for block in result["content"] if block["type"] == "text"]


async def read_text_file(session, path: Path) -> dict:
    """tools/call through the SDK's request API, which leaves the result as
    the proxy sent it (call_tool also checks it against the outputSchema:
    see test_capped_read_through_call_tool)."""
    request = types.CallToolRequest(
        params=types.CallToolRequestParams(name="read_text_file", arguments={"path": str(path)})
    )
    return dump(await session.send_request(request, types.CallToolResult))


def read_tool_of(session):
    async def call(arguments: dict) -> tuple[str, bool]:
        result = await session.call_tool(READ_TOOL, arguments)
        assert len(result.content) == 1 and result.content[0].type == "text", dump(result)
        return result.content[0].text, bool(result.is_error)

    return call


def test_tools_list_is_the_servers_plus_the_read_tool(proxy: Proxy, shared: Path):
    async def body():
        async with connect(filesystem_server(shared), proxy.logs / "direct.log") as direct:
            expected = [dump(t) for t in (await direct.list_tools()).tools]
        async with connect(proxy.argv(filesystem_server(shared)), proxy.logs / "proxy.log") as s:
            got = [dump(t) for t in (await s.list_tools()).tools]
        async with connect(
            proxy.argv(filesystem_server(shared), "--passthrough"), proxy.logs / "passthrough.log"
        ) as s:
            untouched = [dump(t) for t in (await s.list_tools()).tools]
        # A tool whose results may be capped loses its outputSchema (a
        # dropped structuredContent must not fail the client's check); with
        # --passthrough nothing is capped and the list is the server's.
        assert any("outputSchema" in t for t in expected)
        assert got[:-1] == [as_capped(t) for t in expected]
        assert untouched[:-1] == expected
        read_tool = got[-1]
        assert read_tool["name"] == READ_TOOL
        assert "path" in read_tool["inputSchema"]["properties"]
        assert read_tool["inputSchema"]["required"] == ["path"]
        assert "full output" in read_tool["description"]

    run(body)


def test_capped_read_spills_the_exact_bytes(proxy: Proxy, shared: Path):
    original = (shared / "big.txt").read_bytes()

    async def body():
        async with connect(proxy.argv(filesystem_server(shared)), proxy.logs / "proxy.log") as s:
            result = await read_text_file(s, shared / "big.txt")
            notice = result["content"][0]
            assert notice["type"] == "text" and notice["text"].startswith("[toolcap]"), notice
            assert sum(len(t.encode()) for t in texts(result)) <= DEFAULT_MAX_BYTES
            # The file's first line leads the preview, in the block after the notice.
            assert result["content"][1]["text"].startswith(original.split(b"\n")[0].decode())
            refs = {r.bytes: r for r in refs_in(notice["text"])}
            ref = refs[len(original)]
            assert ref.lines == original.count(b"\n") + 1
            # A real path on disk, inside the spill dir, holding the bytes.
            assert Path(ref.path).is_absolute()
            assert Path(ref.path).resolve().is_relative_to(proxy.spill_dir.resolve())
            assert Path(ref.path).read_bytes() == original
            assert ref.path in json.dumps(result["_meta"][META_KEY])
            # structuredContent ({"content": <the file>}) cannot fit: dropped
            # whole, and saved as the server sent it.
            assert "structuredContent" not in result
            structured = json.dumps({"content": original.decode()}, ensure_ascii=False, separators=(",", ":"))
            saved = refs[len(structured.encode())]
            assert Path(saved.path).read_bytes() == structured.encode()

            read = read_tool_of(s)
            assert await read_all(read, ref.path) == original
            # Pages can also start anywhere, and end at the last byte.
            last = await read_page(read, ref.path, len(original) - 100)
            assert last.body == original[-100:] and last.next_args is None
            # grep finds the one long line, with its line number.
            text, is_error = await read({"path": ref.path, "grep": "LONG "})
            assert not is_error, text
            line_no = original[: original.index(b"LONG ")].count(b"\n") + 1
            assert text.split("\n")[1].startswith(f"line {line_no}: LONG "), text[:500]

    run(body)


def test_capped_read_through_call_tool(proxy: Proxy, shared: Path):
    """The plain client API, as an agent calls a tool. read_text_file
    declares an outputSchema, and the SDK checks every result against it."""
    original = (shared / "big.txt").read_bytes()

    async def body():
        async with connect(proxy.argv(filesystem_server(shared)), proxy.logs / "proxy.log") as s:
            result = dump(await s.call_tool("read_text_file", {"path": str(shared / "big.txt")}))
            assert result["content"][0]["text"].startswith("[toolcap]")
            assert any(r.bytes == len(original) for r in refs_in(result["content"][0]["text"]))

    run(body)


def test_small_read_is_unchanged(proxy: Proxy, shared: Path):
    async def body():
        async with connect(filesystem_server(shared), proxy.logs / "direct.log") as direct:
            expected = dump(await direct.call_tool("read_text_file", {"path": str(shared / "small.txt")}))
        async with connect(proxy.argv(filesystem_server(shared)), proxy.logs / "proxy.log") as s:
            got = dump(await s.call_tool("read_text_file", {"path": str(shared / "small.txt")}))
        assert got == expected
        assert got["structuredContent"] == {"content": "two lines,\nnothing to cut\n"}

    run(body)


def test_spill_dir_is_private(proxy: Proxy, shared: Path):
    async def body():
        async with connect(proxy.argv(filesystem_server(shared)), proxy.logs / "proxy.log") as s:
            await read_text_file(s, shared / "big.txt")

    run(body)
    assert proxy.spill_dir.stat().st_mode & 0o777 == 0o700
    assert proxy.key_file.stat().st_mode & 0o777 == 0o600
    assert proxy.key_file.stat().st_size == 32


def test_big_image_and_blob_pass_through_byte_for_byte(proxy: Proxy, shared: Path):
    """read_media_file of 2 MiB files: the image and the blob arrive with
    exactly the files' bytes, whatever happens to the rest of the result."""
    image = b"\x89PNG\r\n\x1a\n" + os.urandom(2 << 20)
    blob = os.urandom(2 << 20)
    (shared / "picture.png").write_bytes(image)
    (shared / "data.bin").write_bytes(blob)

    async def media(session, name: str) -> dict:
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name="read_media_file", arguments={"path": str(shared / name)})
        )
        return dump(await session.send_request(request, types.CallToolResult))

    async def body():
        async with connect(proxy.argv(filesystem_server(shared)), proxy.logs / "proxy.log") as s:
            return await media(s, "picture.png"), await media(s, "data.bin")

    got_image, got_blob = run(body)
    [image_block] = [b for b in got_image["content"] if b["type"] == "image"]
    assert image_block["mimeType"] == "image/png"
    assert base64.b64decode(image_block["data"], validate=True) == image
    [resource] = [b["resource"] for b in got_blob["content"] if b["type"] == "resource"]
    assert resource["uri"] == (shared / "data.bin").as_uri()
    assert base64.b64decode(resource["blob"], validate=True) == blob
