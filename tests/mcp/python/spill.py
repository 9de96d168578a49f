"""Reading a capped result the way a model would: find the reference in the
notice, then page through the spilled file with the read tool, and put the
exact bytes back together from its numbered pages."""

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

# The reference line that ends a notice (core/src/refs.rs, `RefScheme::token`).
REF = re.compile(
    r"full content at (?P<path>.+?)\] \(ref bytes=(?P<bytes>\d+) lines=(?P<lines>\d+) "
    r"blake3=(?P<digest>[0-9a-f]+) tag=(?P<tag>[0-9a-f]+)\)"
)
# A byte-mode page's header (core/src/read_tool/pages.rs, `bytes`).
HEADER = re.compile(r" — bytes (\d+)-(\d+) of (\d+)(?: \(from inside line \d+\))?$")
NUMBERED = re.compile(r"^ *\d+\t")
NEXT_CALL = "More: call again with "
# The most a page may hold (core/src/read_tool/args.rs, MAX_MAX_BYTES).
PAGE_BYTES = 65536

# A call of the read tool: arguments in, (text, is_error) out.
ReadCall = Callable[[dict], Awaitable[tuple[str, bool]]]


@dataclass
class Ref:
    path: str
    bytes: int
    lines: int


def refs_in(text: str) -> list[Ref]:
    return [Ref(m["path"], int(m["bytes"]), int(m["lines"])) for m in REF.finditer(text)]


@dataclass
class Page:
    first: int
    last: int
    size: int
    body: bytes
    next_args: dict | None


def parse_page(text: str) -> Page:
    """One byte-mode answer: the file bytes it shows, numbers stripped."""
    lines = text.split("\n")
    header = HEADER.search(lines[0])
    assert header, f"not a byte-mode page header: {lines[0]!r}"
    first, last, size = (int(g) for g in header.groups())
    contents = []
    i = 1
    while i < len(lines) and NUMBERED.match(lines[i]):
        contents.append(NUMBERED.sub("", lines[i], count=1))
        i += 1
    trailer = lines[i:]
    assert contents and trailer, f"a page without lines or an ending: {text[:300]!r}"
    # Every shown line ends with LF; the file's last line on this page had
    # none when the page cuts it or the file ends without one.
    unterminated = trailer[0].startswith("[line ") or trailer[0].startswith(
        "End of file (no line break"
    )
    body = "\n".join(contents) + ("" if unterminated else "\n")
    more = [t for t in trailer if t.startswith(NEXT_CALL)]
    next_args = json.loads(more[0][len(NEXT_CALL) :]) if more else None
    if next_args is None:
        assert trailer[0].startswith("End of file"), f"a page with no next call: {trailer!r}"
    return Page(first, last, size, body.encode(), next_args)


async def read_page(call: ReadCall, path: str, offset: int) -> Page:
    text, is_error = await call({"path": path, "offset": offset, "max_bytes": PAGE_BYTES})
    assert not is_error, f"the read tool failed at offset {offset}: {text}"
    page = parse_page(text)
    assert page.first == offset, f"asked for offset {offset}, got a page from {page.first}"
    assert len(page.body) == page.last - page.first + 1, (
        f"page {page.first}-{page.last} holds {len(page.body)} bytes"
    )
    return page


async def read_all(call: ReadCall, path: str) -> bytes:
    """The whole spilled file through the read tool, page after page,
    following each answer's own next call."""
    got = bytearray()
    offset = 0
    while True:
        page = await read_page(call, path, offset)
        got += page.body
        if page.next_args is None:
            assert page.last + 1 == page.size, f"ended at {page.last} of {page.size} bytes"
            return bytes(got)
        assert page.next_args == {"path": path, "offset": page.last + 1, "max_bytes": PAGE_BYTES}, (
            f"unexpected next call {page.next_args}"
        )
        offset = page.next_args["offset"]
