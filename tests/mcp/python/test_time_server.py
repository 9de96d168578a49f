"""mcp-server-time (PyPI, a server on the official Python SDK) through
`toolcap mcp`, driven by the official Python SDK client."""

from paths import time_server
from proxy import READ_TOOL, Proxy, as_capped, connect, dump, run

TO_TOKYO = {"source_timezone": "Etc/UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}


def test_tools_list_and_calls_through_the_proxy(proxy: Proxy):
    async def conversation(s):
        return (
            [dump(t) for t in (await s.list_tools()).tools],
            dump(await s.call_tool("convert_time", TO_TOKYO)),
            dump(await s.call_tool("get_current_time", {"timezone": "Mars/Olympus"})),
        )

    async def body():
        # The answers carry today's date: a direct conversation on each side
        # of the proxied one, so a date change in between cannot fail it.
        async with connect(time_server(), proxy.logs / "direct.log") as s:
            before = await conversation(s)
        async with connect(proxy.argv(time_server()), proxy.logs / "proxy.log") as s:
            proxied = await conversation(s)
        async with connect(time_server(), proxy.logs / "direct.log") as s:
            after = await conversation(s)
        return before, proxied, after

    before, proxied, after = run(body)
    tools, converted, failed = proxied
    assert [t["name"] for t in tools] == ["get_current_time", "convert_time", READ_TOOL]
    # Capped tools lose their outputSchema and state the result size Claude
    # Code may show whole; nothing else of the list changes.
    assert tools[:-1] == [as_capped(tool) for tool in before[0]]
    assert (converted, failed) in [(before[1], before[2]), (after[1], after[2])]
    assert converted["structuredContent"]["target"]["datetime"].endswith("T21:00:00+09:00")
    assert failed["isError"] is True and "Mars/Olympus" in failed["content"][0]["text"]
