"""Test data made here, deterministic, so a failure reproduces."""

import random

WORDS = ["alpha", "beta", "gamma", "δέλτα", "ε", "中文字", "🦀", "naïve", "x", "ERROR", "ok", "\t"]


def big_text(size: int, seed: int = 13) -> str:
    """About `size` bytes of UTF-8 text that stresses paging: lines short
    and empty, multi-byte characters, tabs, CRLF endings, one line longer
    than any page, and no line break at the very end."""
    rng = random.Random(seed)
    parts = []
    total = 0
    n = 0
    long_line_at = size // 2
    while total < size:
        n += 1
        if total >= long_line_at:
            long_line_at = size * 10
            text = "LONG " + "".join(rng.choice(WORDS) for _ in range(40_000))
        else:
            text = f"{n:07d} " + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 30)))
        ending = rng.choice(["\n", "\n", "\n", "\r\n"])
        parts.append(text + ending)
        total += len((text + ending).encode())
    return "".join(parts) + "the last line has no line break"
