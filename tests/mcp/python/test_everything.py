"""server-everything (npm) through `toolcap mcp`, driven by the official
Python SDK client: images, resources, prompts, structured content and
progress arrive as the server sent them; a big result is capped and read
back exactly; many calls in flight each get their own answer."""

import base64

import anyio
import mcp.types as types

from paths import everything_server
from proxy import READ_TOOL, Proxy, connect, direct_and_proxied, dump, run
from spill import read_all, refs_in

# The PNG that get-tiny-image returns starts like every PNG.
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_image_arrives_intact(proxy: Proxy):
    async def conversation(s):
        return dump(await s.call_tool("get-tiny-image", {}))

    direct, proxied = run(lambda: direct_and_proxied(proxy, everything_server(), conversation))
    assert proxied == direct
    images = [b for b in proxied["content"] if b["type"] == "image"]
    assert len(images) == 1 and images[0]["mimeType"] == "image/png"
    assert base64.b64decode(images[0]["data"], validate=True).startswith(PNG_MAGIC)


def test_resources_arrive_intact(proxy: Proxy):
    async def conversation(s):
        listed = await s.list_resources()
        templates = await s.list_resource_templates()
        contents = [dump(await s.read_resource(r.uri)) for r in listed.resources]
        return dump(listed), dump(templates), contents

    direct, proxied = run(lambda: direct_and_proxied(proxy, everything_server(), conversation))
    # The proxy adds the template of its spill pages (test_resources.py).
    added = proxied[1]["resourceTemplates"].pop()
    assert added["uriTemplate"].startswith("toolcap://spill/")
    assert proxied == direct
    listed, templates, contents = proxied
    assert listed["resources"] and templates["resourceTemplates"]
    kinds = {("text" in c) for read in contents for c in read["contents"]}
    assert kinds == {True}, "expected the text resources of server-everything"


def test_prompts_arrive_intact(proxy: Proxy):
    async def conversation(s):
        listed = await s.list_prompts()
        simple = await s.get_prompt("simple-prompt")
        with_args = await s.get_prompt("args-prompt", {"city": "Lyon", "state": "Rhône"})
        return dump(listed), dump(simple), dump(with_args)

    direct, proxied = run(lambda: direct_and_proxied(proxy, everything_server(), conversation))
    assert proxied == direct
    assert "Lyon" in str(proxied[2])


def test_small_structured_content_is_kept(proxy: Proxy):
    async def conversation(s):
        # call_tool checks structuredContent against the tool's outputSchema.
        return dump(await s.call_tool("get-structured-content", {"location": "Chicago"}))

    direct, proxied = run(lambda: direct_and_proxied(proxy, everything_server(), conversation))
    assert proxied == direct
    assert proxied["structuredContent"]["temperature"] is not None


def test_progress_notifications_arrive_in_order(proxy: Proxy):
    async def conversation(s):
        progress = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total))

        result = await s.call_tool(
            "trigger-long-running-operation", {"duration": 1, "steps": 5}, progress_callback=on_progress
        )
        return dump(result), progress

    direct, proxied = run(lambda: direct_and_proxied(proxy, everything_server(), conversation))
    assert proxied == direct
    assert proxied[1] == [(float(i), 5.0) for i in range(1, 6)]


def test_small_results_are_unchanged(proxy: Proxy):
    async def conversation(s):
        return [
            dump(await s.call_tool("echo", {"message": "hello through the proxy"})),
            dump(await s.call_tool("get-sum", {"a": 2, "b": 40})),
            dump(await s.call_tool("get-annotated-message", {"messageType": "error", "includeImage": True})),
            dump(await s.call_tool("get-resource-links", {"count": 4})),
            dump(await s.send_ping()),
        ]

    direct, proxied = run(lambda: direct_and_proxied(proxy, everything_server(), conversation))
    assert proxied == direct


def test_big_echo_is_capped_and_read_back_exactly(proxy: Proxy):
    message = "".join(f"{i:06d} the quick brown fox — ünïcödé 🦊\n" for i in range(40_000))
    original = f"Echo: {message}".encode()

    async def body():
        async with connect(proxy.argv(everything_server(), "--max-bytes", "8000"), proxy.logs / "p.log") as s:
            result = dump(await s.call_tool("echo", {"message": message}))
            first = result["content"][0]
            assert first["type"] == "text" and first["text"].startswith("[toolcap]"), first
            text_bytes = sum(len(b["text"].encode()) for b in result["content"] if b["type"] == "text")
            assert text_bytes <= 8000
            [ref] = refs_in(first["text"])
            assert ref.bytes == len(original)

            async def read(arguments):
                answer = await s.call_tool(READ_TOOL, arguments)
                return answer.content[0].text, bool(answer.is_error)

            assert await read_all(read, ref.path) == original

    run(body)


def test_many_calls_in_flight_each_get_their_own_answer(proxy: Proxy):
    calls = 200

    async def body():
        answers: dict[int, list[str]] = {}
        async with connect(proxy.argv(everything_server()), proxy.logs / "proxy.log") as s:

            async def one(i: int) -> None:
                result = await s.call_tool("echo", {"message": f"call {i}"})
                answers.setdefault(i, []).extend(b.text for b in result.content)

            async with anyio.create_task_group() as group:
                for i in range(calls):
                    group.start_soon(one, i)
        assert answers == {i: [f"Echo: call {i}"] for i in range(calls)}

    run(body)


def test_unknown_tool_error_is_the_servers(proxy: Proxy):
    async def conversation(s):
        request = types.CallToolRequest(params=types.CallToolRequestParams(name="no-such-tool", arguments={}))
        try:
            return dump(await s.send_request(request, types.CallToolResult))
        except Exception as e:  # an MCPError carries the JSON-RPC error
            return repr(e)

    direct, proxied = run(lambda: direct_and_proxied(proxy, everything_server(), conversation))
    assert proxied == direct


BIG_MESSAGE = "".join(f"line {i:05d} of a long echo\n" for i in range(5_000))


def test_passthrough_leaves_results_untouched(proxy: Proxy):
    async def conversation(s):
        tools = [t.name for t in (await s.list_tools()).tools]
        return tools, dump(await s.call_tool("echo", {"message": BIG_MESSAGE}))

    direct, proxied = run(lambda: direct_and_proxied(proxy, everything_server(), conversation, "--passthrough"))
    assert proxied[0] == direct[0] + [READ_TOOL]
    assert proxied[1] == direct[1]


def test_a_tools_own_budget_and_read_tool_name(proxy: Proxy):
    async def body():
        argv = proxy.argv(everything_server(), "--tool-budget", "echo=3000", "--read-tool-name", "open_saved")
        async with connect(argv, proxy.logs / "proxy.log") as s:
            assert (await s.list_tools()).tools[-1].name == "open_saved"
            result = dump(await s.call_tool("echo", {"message": BIG_MESSAGE}))
            texts = [b["text"] for b in result["content"] if b["type"] == "text"]
            assert sum(len(t.encode()) for t in texts) <= 3000
            assert "open_saved" in texts[0]
            [ref] = refs_in(texts[0])
            answer = await s.call_tool("open_saved", {"path": ref.path, "lines": 2})
            assert answer.content[0].text.split("\n")[1:3] == ["1\tEcho: line 00000 of a long echo", "2\tline 00001 of a long echo"]

    run(body)


def test_references_still_read_after_a_restart(proxy: Proxy):
    """Same key file and spill dir, a new proxy process: the reference of a
    result capped by the first one still reads."""
    original = f"Echo: {BIG_MESSAGE}".encode()

    async def body():
        async with connect(proxy.argv(everything_server()), proxy.logs / "first.log") as s:
            result = await s.call_tool("echo", {"message": BIG_MESSAGE})
            [ref] = refs_in(result.content[0].text)
        async with connect(proxy.argv(everything_server()), proxy.logs / "second.log") as s:

            async def read(arguments):
                answer = await s.call_tool(READ_TOOL, arguments)
                return answer.content[0].text, bool(answer.is_error)

            assert await read_all(read, ref.path) == original

    run(body)
