"""BLAKE3 (unkeyed, 32-byte output) in plain Python, after the specification's
reference implementation: the runner checks a redacted spill file against
its reference's digest (the first 16 hex digits of the file's BLAKE3), and
the standard library has no BLAKE3. Slow (tens of KiB per second), which is
plenty for the small files of vectors."""

from __future__ import annotations

MASK = 0xFFFFFFFF
IV = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
      0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
PERMUTATION = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)
CHUNK_START, CHUNK_END, PARENT, ROOT = 1, 2, 4, 8
BLOCK, CHUNK = 64, 1024


def _g(s: list[int], a: int, b: int, c: int, d: int, x: int, y: int) -> None:
    s[a] = (s[a] + s[b] + x) & MASK
    v = s[d] ^ s[a]
    s[d] = ((v >> 16) | (v << 16)) & MASK
    s[c] = (s[c] + s[d]) & MASK
    v = s[b] ^ s[c]
    s[b] = ((v >> 12) | (v << 20)) & MASK
    s[a] = (s[a] + s[b] + y) & MASK
    v = s[d] ^ s[a]
    s[d] = ((v >> 8) | (v << 24)) & MASK
    s[c] = (s[c] + s[d]) & MASK
    v = s[b] ^ s[c]
    s[b] = ((v >> 7) | (v << 25)) & MASK


def _compress(cv: list[int], m: list[int], counter: int, length: int, flags: int) -> list[int]:
    s = list(cv) + list(IV[:4]) + [counter & MASK, (counter >> 32) & MASK, length, flags]
    for r in range(7):
        _g(s, 0, 4, 8, 12, m[0], m[1])
        _g(s, 1, 5, 9, 13, m[2], m[3])
        _g(s, 2, 6, 10, 14, m[4], m[5])
        _g(s, 3, 7, 11, 15, m[6], m[7])
        _g(s, 0, 5, 10, 15, m[8], m[9])
        _g(s, 1, 6, 11, 12, m[10], m[11])
        _g(s, 2, 7, 8, 13, m[12], m[13])
        _g(s, 3, 4, 9, 14, m[14], m[15])
        if r < 6:
            m = [m[i] for i in PERMUTATION]
    for i in range(8):
        s[i] ^= s[i + 8]
        s[i + 8] ^= cv[i]
    return s


def _words(block: bytes) -> list[int]:
    block = block.ljust(BLOCK, b"\0")
    return [int.from_bytes(block[i : i + 4], "little") for i in range(0, BLOCK, 4)]


class _Output:
    """A node's last compression, before it is known whether it is the root."""

    def __init__(self, cv: list[int], m: list[int], counter: int, length: int, flags: int):
        self.args = (cv, m, counter, length, flags)

    def chaining_value(self) -> list[int]:
        return _compress(*self.args)[:8]

    def root(self) -> bytes:
        cv, m, _, length, flags = self.args
        words = _compress(cv, m, 0, length, flags | ROOT)[:8]
        return b"".join(w.to_bytes(4, "little") for w in words)


def _chunk_output(chunk: bytes, counter: int) -> _Output:
    blocks = [chunk[i : i + BLOCK] for i in range(0, len(chunk), BLOCK)] or [b""]
    cv = list(IV)
    for i, block in enumerate(blocks[:-1]):
        flags = CHUNK_START if i == 0 else 0
        cv = _compress(cv, _words(block), counter, BLOCK, flags)[:8]
    last = blocks[-1]
    flags = CHUNK_END | (CHUNK_START if len(blocks) == 1 else 0)
    return _Output(cv, _words(last), counter, len(last), flags)


def _parent(left: list[int], right: list[int]) -> _Output:
    return _Output(list(IV), left + right, 0, BLOCK, PARENT)


def blake3(data: bytes) -> bytes:
    """The 32-byte BLAKE3 hash of `data`."""
    chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)] or [b""]
    stack: list[list[int]] = []
    for counter, chunk in enumerate(chunks[:-1]):
        cv = _chunk_output(chunk, counter).chaining_value()
        total = counter + 1
        while total & 1 == 0:
            cv = _parent(stack.pop(), cv).chaining_value()
            total >>= 1
        stack.append(cv)
    output = _chunk_output(chunks[-1], len(chunks) - 1)
    while stack:
        output = _parent(stack.pop(), output.chaining_value())
    return output.root()
