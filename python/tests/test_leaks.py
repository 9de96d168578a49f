"""Memory: many calls, each lowering and lifting C-owned strings, records,
lists and variants, and each ending with `post_return`, must not grow the
process.

A value never freed, by the package or by the wasmtime-py it runs on, of a
result string (~1 KiB per small `cap`) over 20,000 calls would leak ~20 MB,
well over the bound. No timing is asserted.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import pytest

from tool_output_cap import (
    Call,
    Image,
    RequestLimits,
    Session,
    Text,
    ToolCapError,
    budget,
    open_session,
)

STATM = Path("/proc/self/statm")
BOUND = 8 * 1024 * 1024
"""Allowed growth of the resident set over the measured loop."""

LOG = "".join(f"2024-05-01T12:00:00Z INFO worker step {n}: ok, 42 items\n" for n in range(19))
IMAGE = Image("iVBORw0KGgo=" * 500, "image/png")  # 6 KB of base64
BIG = budget(128 * 1024)
INVALID = budget(10)  # below the notice's size: `invalid-budget`
FAILED = Call("call-parts", tool="cargo", exit_code=101)  # lowers an option<string>
LIMITS = RequestLimits(max_tokens=100_000, max_body_bytes=1 << 20, ceiling=BIG)


def rss() -> int:
    """The process's resident set size in bytes (Linux)."""
    return int(STATM.read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def churn(s: Session, refs_text: str, scale: int) -> None:
    """20,000 small caps, 2,000 cap_parts with an image (and a full `Call`),
    2,000 find_refs, 500 plans and cap_batches of a text and a parts result
    (tuples in, tagged variants out) and 500 invalid-budget errors, divided
    by `scale`."""
    for _ in range(20_000 // scale):
        capped = s.cap(LOG, BIG, "call-small")
        assert capped.text == LOG and not capped.report.truncated
    for _ in range(2_000 // scale):
        out = s.cap_parts([Text(LOG), IMAGE], BIG, FAILED)
        assert out.parts[1] == IMAGE
    for _ in range(2_000 // scale):
        assert len(s.find_refs(refs_text)) == 1
    for _ in range(500 // scale):
        assert s.plan([LOG, [Text(LOG), IMAGE]], LIMITS) == [BIG, BIG]
        batch = s.cap_batch([("call-a", LOG), (FAILED, [Text(LOG), IMAGE])], LIMITS)
        assert batch[0].report.truncated is False and batch[1].report.truncated is False
    for _ in range(500 // scale):
        with pytest.raises(ToolCapError) as err:
            s.cap(LOG, INVALID, "call-error")
        assert err.value.case == "invalid-budget" and err.value.message


@pytest.mark.skipif(not STATM.exists(), reason="reads the RSS from /proc/self/statm")
def test_many_calls_do_not_grow_the_process(tmp_path: Path) -> None:
    with open_session("thread-leak", tmp_path, key=b"leak-test-key-32-bytes-long!!!!!") as s:
        spilled = s.cap("a line of output\n" * 5000, budget(2000), "call-spill")
        assert spilled.report.spill is not None
        # Warm up: the guest's memory, Python's arenas and caches settle.
        churn(s, spilled.text, 10)
        gc.collect()
        before = rss()
        churn(s, spilled.text, 1)
        gc.collect()
        growth = rss() - before
    print(f"\nRSS grew {growth / 1024:.0f} KiB (bound {BOUND // 1024} KiB)", file=sys.stderr)
    assert growth < BOUND, f"RSS grew by {growth} bytes: a leak in the calls?"
