"""A minimal MCP server over stdio in raw JSON-RPC lines, for the servers in
this folder, each broken on purpose in one way. It is not the thing under
test: it only has to be simple enough that what `toolcap mcp` does with it
is plain to see.

Every server has the tool `echo` (answers `arguments.text` at once) next to
its broken ones. With `--log FILE`, every line it reads is appended to FILE
as it arrives, so a test can see what reached the server (a
`notifications/cancelled`, say)."""

import json
import sys
from collections.abc import Callable
from typing import Any

Handler = Callable[["Stub", dict[str, Any]], None]


class Stub:
    def __init__(self, name: str, tools: dict[str, Handler]):
        self.name = name
        self.tools = {"echo": echo, **tools}
        self.on_cancel: Callable[[Any], None] | None = None
        self.log = None
        args = sys.argv[1:]
        if args[:1] == ["--log"]:
            self.log = open(args[1], "ab", buffering=0)
            args = args[2:]
        self.args = args
        self.out = sys.stdout.buffer

    def write_raw(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write_raw(json.dumps(message).encode() + b"\n")

    def result(self, request_id: Any, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def text_result(self, request_id: Any, text: str) -> None:
        self.result(request_id, {"content": [{"type": "text", "text": text}]})

    def run(self) -> None:
        for raw in sys.stdin.buffer:
            if self.log:
                self.log.write(raw)
            message = json.loads(raw)
            method = message.get("method")
            request_id = message.get("id")
            if method == "initialize":
                self.result(
                    request_id,
                    {
                        "protocolVersion": message["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": self.name, "version": "1.0.0"},
                    },
                )
            elif method == "tools/list":
                tools = [
                    {"name": name, "inputSchema": {"type": "object"}} for name in self.tools
                ]
                self.result(request_id, {"tools": tools})
            elif method == "tools/call":
                name = message["params"]["name"]
                self.tools[name](self, message)
            elif method == "ping":
                self.result(request_id, {})
            elif method == "notifications/cancelled":
                if self.on_cancel:
                    self.on_cancel(message["params"]["requestId"])
            elif request_id is not None:
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": request_id,
                        "error": {"code": -32601, "message": f"no method {method}"},
                    }
                )


def echo(stub: Stub, message: dict[str, Any]) -> None:
    stub.text_result(message["id"], message["params"].get("arguments", {}).get("text", ""))
