"""An MCP server of the official Python SDK (MCPServer) over Streamable
HTTP, for the `toolcap mcp --url` tests. It is the peer, not the thing
under test; what it does on purpose:

- with `--token-env NAME`, every request must carry `Authorization: Bearer
  <$NAME>` (else 401), and each request's headers are appended to
  `--record FILE` as a JSON line, so a test sees what reached the server;
- a request whose body names the tool `fail_500` gets HTTP 500;
- after the tool `expire_session`, the session it was called in is
  unknown to the server (the SDK answers 404, as for an expired session);
- the tool `vanish` ends the process in the middle of the call;
- the tool `regional` marks its `region` argument `x-mcp-header: Region`:
  a 2026-07-28 call must repeat it in an `Mcp-Param-Region` header;
- the tool `misdeclared` marks a `number` argument, which 2026-07-28 does
  not allow: a client of that version must leave it out of `tools/list`
  (the SDK refuses such a tool, so its schema is marked after it is added);
- with `--resumable`, events are numbered and kept (an event store), and
  the answer stream of the tool `cut_stream` is closed after its first
  event, before the answer: a client must resume it with `Last-Event-ID`.

- with `--modern-only`, an `initialize` is refused with -32022 (the
  protocol version is not supported), as a server of MCP 2026-07-28 alone
  does: a client reaches it only with that version's sessionless requests.

With `--stdio` it serves the same tools over stdio instead (the SDK speaks
2026-07-28 there too: `server/discover`, no `initialize`).

Usage: served.py --port N [--token-env NAME] [--record FILE] [--resumable] [--modern-only]
       served.py --stdio"""

import argparse
import json
import os
from typing import Annotated

import anyio
import uvicorn
from pydantic import Field
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.streamable_http import EventMessage, EventStore

def misdeclared(size: float) -> str:
    """The size back."""
    return str(size)


MISDECLARED = Tool.from_function(misdeclared)
MISDECLARED.parameters["properties"]["size"]["x-mcp-header"] = "Size"
server = MCPServer("remote-fixture", tools=[MISDECLARED])
EXPIRED: set[str] = set()
EXPIRE_AFTER: set[str] = set()


@server.tool()
def echo(text: str) -> str:
    """The text back."""
    return text


@server.tool()
def numbered(lines: int) -> str:
    """`lines` numbered lines of text."""
    return "".join(f"{i:06d} a line of the remote server — ünïcödé\n" for i in range(lines))


@server.tool()
def regional(
    region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], text: str
) -> str:
    """The text, placed in a region that its `Mcp-Param-Region` header
    repeats (MCP 2026-07-28: the SDK refuses a call whose header is missing
    or differs from the argument)."""
    return f"{region}: {text}"


@server.tool()
def fail_500() -> str:
    """Never runs: its request is answered with HTTP 500."""
    return "unreachable"


@server.tool()
def expire_session() -> str:
    """Answers, then forgets the session it was called in."""
    return "this session ends now"


@server.tool()
def vanish() -> str:
    """Ends the server in the middle of the call."""
    os._exit(3)


@server.tool()
async def cut_stream(ctx: Context) -> str:
    """Logs a line, waits a moment, then answers (its stream is cut between)."""
    await ctx.info("before the cut")
    await anyio.sleep(0.5)
    return "after the cut"


class Events(EventStore):
    """Every event, numbered, kept in memory for replay."""

    def __init__(self):
        self.events = []

    async def store_event(self, stream_id, message):
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        index = next((i for i, (e, _, _) in enumerate(self.events) if e == last_event_id), None)
        if index is None:
            return None
        stream_id = self.events[index][1]
        for event_id, stream, message in self.events[index + 1 :]:
            if stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


class Faults:
    """ASGI middleware: the checks and faults above, around the SDK's app."""

    def __init__(self, app, token: str | None, record: str | None, modern_only: bool = False):
        self.app = app
        self.token = token
        self.record = record
        self.modern_only = modern_only

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if self.record:
            with open(self.record, "a") as out:
                out.write(json.dumps({"method": scope["method"], "headers": headers}) + "\n")
        if self.token is not None and headers.get("authorization") != f"Bearer {self.token}":
            return await respond(send, 401, b'{"error":"invalid_token"}', [(b"www-authenticate", b"Bearer")])
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if self.modern_only and (message := initialize_in(body)) is not None:
            params = message.get("params")
            requested = params.get("protocolVersion") if isinstance(params, dict) else None
            refusal = {
                "jsonrpc": "2.0",
                "id": message.get("id"),
                "error": {
                    "code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {"supported": ["2026-07-28"], "requested": requested},
                },
            }
            return await respond(send, 400, json.dumps(refusal).encode(), [(b"content-type", b"application/json")])
        if b'"fail_500"' in body:
            return await respond(send, 500, b"internal error: the fixture failed on purpose", [])
        session = headers.get("mcp-session-id")
        if session in EXPIRED:
            # The SDK itself answers for a session it does not know.
            scope = dict(scope)
            scope["headers"] = [
                (k, b"expired-" + v if k.lower() == b"mcp-session-id" else v) for k, v in scope["headers"]
            ]
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        if b'"cut_stream"' in body:
            send = cut_after_first_message(send)
        await self.app(scope, replay, send)
        if b'"expire_session"' in body and session:
            EXPIRED.add(session)


def initialize_in(body: bytes) -> dict | None:
    """The `initialize` request `body` holds, if it is one."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    return message if isinstance(message, dict) and message.get("method") == "initialize" else None


def cut_after_first_message(send):
    """`send` that ends the response after the first event with a message
    in it, and drops what the app sends after that."""
    cut = False

    async def cutting(message):
        nonlocal cut
        if cut:
            return
        if message["type"] == "http.response.body" and b"notifications/message" in message.get("body", b""):
            cut = True
            await send({"type": "http.response.body", "body": message["body"], "more_body": False})
            return
        await send(message)

    return cutting


async def respond(send, status: int, body: bytes, headers: list) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    parser.add_argument("--stdio", action="store_true")
    parser.add_argument("--token-env")
    parser.add_argument("--record")
    parser.add_argument("--resumable", action="store_true")
    parser.add_argument("--modern-only", action="store_true")
    args = parser.parse_args()
    if args.stdio:
        server.run("stdio")
        return
    if args.port is None:
        parser.error("--port is needed (or --stdio)")
    token = os.environ[args.token_env] if args.token_env else None
    events = Events() if args.resumable else None
    app = Faults(server.streamable_http_app(event_store=events), token, args.record, args.modern_only)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
