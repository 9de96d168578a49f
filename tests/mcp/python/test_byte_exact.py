"""The same raw lines sent to a server directly and through `toolcap mcp`:
every line that comes back, notifications included, must be the same bytes
in the same order; only tools/list gains the read tool (and the spills'
resources their capability and template: see without_spill_additions). Nothing is parsed
and re-encoded on the way, so key order, spacing and escapes all count."""

import json

import pytest

from paths import everything_server, time_server
from proxy import READ_TOOL, Proxy, as_capped
from rawrpc import RawPeer

EVERYTHING_CALLS = [
    (1, "resources/list", {}),
    (2, "resources/read", {"uri": "demo://resource/static/document/architecture.md"}),
    (3, "resources/templates/list", None),
    (4, "prompts/list", None),
    (5, "prompts/get", {"name": "args-prompt", "arguments": {"city": "Zürich"}}),
    (6, "tools/call", {"name": "echo", "arguments": {"message": "plain ascii"}}),
    ("seven", "tools/call", {"name": "echo", "arguments": {"message": "é \u2028 😀 \"quoted\" \\ \t"}}),
    (2**53 - 1, "tools/call", {"name": "get-tiny-image", "arguments": {}}),
    (9, "tools/call", {"name": "get-structured-content", "arguments": {"location": "New York"}}),
    (10, "tools/call", {"name": "get-annotated-message", "arguments": {"messageType": "success", "includeImage": True}}),
    (12, "tools/call", {"name": "no-such-tool", "arguments": {}}),
    (13, "no/such/method", {}),
    (14, "ping", None),
]

TIME_CALLS = [
    (1, "tools/call", {"name": "get_current_time", "arguments": {"timezone": "Nowhere/Special"}}),
    (2, "tools/call", {"name": "convert_time", "arguments": {"source_timezone": "Etc/UTC", "time": "25:99", "target_timezone": "Etc/UTC"}}),
    (3, "prompts/list", None),
    (4, "ping", None),
]

SERVERS = {
    "server-everything": (everything_server, EVERYTHING_CALLS),
    "mcp-server-time": (time_server, TIME_CALLS),
}


def conversation(peer: RawPeer, calls) -> tuple[list[bytes], bytes]:
    """Every line back from the handshake and the calls, one call at a time;
    then the tools/list response on its own."""
    got = peer.handshake()
    for request_id, method, params in calls:
        peer.request(request_id, method, params)
        got += peer.lines_until_response(request_id)
    peer.request(99, "tools/list")
    listed = peer.lines_until_response(99)
    return got + listed[:-1], listed[-1]


@pytest.mark.parametrize("name", SERVERS)
def test_lines_come_back_byte_for_byte(proxy: Proxy, name: str):
    server, calls = SERVERS[name]
    with RawPeer(server(), proxy.logs / "direct.log") as direct:
        expected, expected_tools = conversation(direct, calls)
    with RawPeer(proxy.argv(server()), proxy.logs / "proxy.log") as proxied:
        got, got_tools = conversation(proxied, calls)
        assert proxied.close() == 0
    assert len(got) == len(expected)
    for n, (g, e) in enumerate(zip(got, expected)):
        g = without_spill_additions(g)
        assert g == e, f"line {n} differs:\n through the proxy: {g[:400]!r}\n directly:          {e[:400]!r}"
    expected_tools = json.loads(expected_tools)
    got_tools = json.loads(got_tools)
    added = got_tools["result"]["tools"].pop()
    assert added["name"] == READ_TOOL
    # Capped tools lose their outputSchema (a dropped structuredContent
    # would fail the client's check) and state the result size Claude Code
    # may show whole; nothing else of the list changes.
    expected_tools["result"]["tools"] = [as_capped(t) for t in expected_tools["result"]["tools"]]
    assert got_tools == expected_tools


def without_spill_additions(line: bytes) -> bytes:
    """A line through the proxy without what it adds for the spills'
    resources (test_resources.py), which it inserts leaving every other
    byte as it was: the `resources` capability of a server without any, and
    the template of the spill pages at the end of the templates list."""
    message = json.loads(line)
    result = message.get("result") or {}
    if "serverInfo" in result and result["capabilities"].get("resources") == {}:
        return line.replace(b',"resources":{}', b"", 1)
    templates = result.get("resourceTemplates") or [{}]
    if templates[-1].get("uriTemplate", "").startswith("toolcap://spill/"):
        added = json.dumps(templates[-1], ensure_ascii=False, separators=(",", ":"))
        return line.replace(b"," + added.encode(), b"", 1)
    return line


def responses(peer: RawPeer, count: int) -> list[bytes]:
    """Every line up to the `count`th response."""
    got = []
    while count:
        got.append(peer.next_line())
        count -= "id" in json.loads(got[-1])
    return got


def test_a_burst_of_requests_is_answered_once_each_in_order_of_notifications(proxy: Proxy):
    """200 requests written at once: each id is answered exactly once, with
    its own content, and the proxy keeps the server's order."""
    calls = 200
    burst = b"".join(
        json.dumps(
            {"jsonrpc": "2.0", "id": i, "method": "tools/call",
             "params": {"name": "echo", "arguments": {"message": f"n{i}"}}}
        ).encode() + b"\n"
        for i in range(calls)
    )
    with RawPeer(everything_server(), proxy.logs / "direct.log") as direct:
        direct.handshake()
        direct.send(burst)
        expected = responses(direct, calls)
    with RawPeer(proxy.argv(everything_server()), proxy.logs / "proxy.log") as proxied:
        proxied.handshake()
        proxied.send(burst)
        got = responses(proxied, calls)
        assert proxied.close() == 0
    answers = [a for a in map(json.loads, got) if "id" in a]
    assert sorted(a["id"] for a in answers) == list(range(calls))
    for a in answers:
        assert a["result"]["content"] == [{"type": "text", "text": f"Echo: n{a['id']}"}]
    # The server answers in the order it read: the proxy changes nothing.
    assert got == expected
