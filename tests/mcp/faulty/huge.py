"""Answers of a size `arguments.kib` sets (default 2048 KiB of text), each
broken in one way, or not: the proxy reads a huge answer without parsing
its text, and must treat each as it treats the same answer written small.

Every tool writes one line from a template in which `@ID@` is the request's
id and `@TEXT@` the body of the text's JSON string, with its fault."""

import json

from stub import Stub

TEXT_LINE = 'a line of a large result, with a "quote", a tab\tand a path C:\\logs\n'

TEMPLATES = {
    # Valid answers.
    "plain": '{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","text":"@TEXT@"}]}}',
    "in_structured": '{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","text":"see the log"}],'
    '"structuredContent":{"log":"@TEXT@"}}}',
    "result_is_a_string": '{"jsonrpc":"2.0","id":@ID@,"result":"@TEXT@"}',
    "error": '{"jsonrpc":"2.0","id":@ID@,"error":{"code":-32000,"message":"@TEXT@"}}',
    # Members written twice, in the result and in the envelope.
    "twice_in_result": '{"jsonrpc":"2.0","id":@ID@,"result":{"content":[{"type":"text","type":"text","text":"@TEXT@"}]}}',
    "twice_in_envelope": '{"jsonrpc":"2.0","id":@ID@,"id":@ID@,"result":{"content":[{"type":"text","text":"@TEXT@"}]}}',
}

# Faults in the text's body: what a JSON string cannot hold, in its middle.
BODY_FAULTS = {
    "control_byte": "\x01",
    "unknown_escape": "\\q",
    "short_unicode_escape": "\\u12G4",
}


def body(kib: int, fault: str = "") -> str:
    size = kib << 10
    text = (TEXT_LINE * (size // len(TEXT_LINE) + 1))[:size]
    escaped = json.dumps(text)[1:-1]
    middle = len(escaped) // 2
    # Not inside an escape: after the escaped line break nearest the middle.
    middle = escaped.index("\\n", middle) + 2
    return escaped[:middle] + fault + escaped[middle:]


def answer(template: str, fault: str = ""):
    def handler(stub: Stub, message: dict) -> None:
        kib = int(message["params"].get("arguments", {}).get("kib", 2048))
        line = template.replace("@ID@", json.dumps(message["id"])).replace("@TEXT@", body(kib, fault))
        stub.write_raw(line.encode() + b"\n")

    return handler


TOOLS = {name: answer(template) for name, template in TEMPLATES.items()}
TOOLS.update({name: answer(TEMPLATES["plain"], fault) for name, fault in BODY_FAULTS.items()})


if __name__ == "__main__":
    Stub("huge", TOOLS).run()
