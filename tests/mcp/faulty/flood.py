"""Floods: `flood` answers with one text block of `arguments.mib` MiB
(default 100), written in pieces so this server stays small. The text is
flood_text(), which the tests rebuild to check what was spilled."""

import json

from stub import Stub

LINE_BYTES = 100


def flood_line(n: int) -> bytes:
    head = f"{n:09d} flood line ".encode()
    return head + b"x" * (LINE_BYTES - 1 - len(head)) + b"\n"


def flood_chunks(total: int):
    """The text, `total` bytes, in pieces of whole lines: lines of 100
    bytes numbered from 0, the last one cut short (no line break)."""
    lines_per_chunk = 10_000
    full, rest = divmod(total, LINE_BYTES)
    for start in range(0, full, lines_per_chunk):
        yield b"".join(flood_line(n) for n in range(start, min(start + lines_per_chunk, full)))
    if rest:
        yield flood_line(full)[:rest]


def flood(stub: Stub, message: dict) -> None:
    total = int(message["params"].get("arguments", {}).get("mib", 100)) << 20
    head = {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": "@"}]}}
    before, after = json.dumps(head).encode().split(b'"@"')
    stub.out.write(before + b'"')
    for chunk in flood_chunks(total):
        # The text is ASCII: JSON escapes only the line breaks.
        stub.out.write(chunk.replace(b"\n", b"\\n"))
    stub.out.write(b'"' + after + b"\n")
    stub.out.flush()


if __name__ == "__main__":
    Stub("flood", {"flood": flood}).run()
