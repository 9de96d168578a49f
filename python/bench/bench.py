"""Times the Python host: a small result that fits (pure call overhead) and a
large one that is cut and spilled. Prints ONE JSON line on stdout, a summary
on stderr.

    python bench/bench.py [--small FILE] [--large FILE] [--spill-dir DIR] [--quick]

Run from python/ with the venv of `make py-setup` (.venv/bin/python), or
with .venv-lowest/bin/python (`sh scripts/test-lowest.sh` makes it) to time
the lowest supported wasmtime-py.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tool_output_cap import Budget, Session, open_session  # noqa: E402

THREAD_ID = "bench-thread"
DISPLAY_ROOT = "/spill-root"
KEY = bytes([7]) * 32
CALL_ID = "bench-call"
SMALL_BUDGET = Budget(131072, None, 2000, "head-and-tail", 40)
LARGE_BUDGET = Budget(16384, 400, 2000, "head-and-tail", 40)
WASMTIME = importlib.metadata.version("wasmtime")


def log_lines(target_bytes: int) -> str:
    """ASCII log lines of about `target_bytes`."""
    lines, size, n = [], 0, 0
    while size < target_bytes:
        n += 1
        line = f"2024-05-01T12:00:{n % 60:02d}Z INFO worker-{n % 8} step {n}: ok, 42 items\n"
        lines.append(line)
        size += len(line)
    return "".join(lines)


def read_text(path: str | None, default_bytes: int) -> str:
    return Path(path).read_text(encoding="utf-8") if path else log_lines(default_bytes)


def median_ns(run: Callable[[], None], batches: int, per_batch: int, warmup: int) -> float:
    """Median over `batches` of the mean time of one call in a batch."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(batches):
        start = time.perf_counter_ns()
        for _ in range(per_batch):
            run()
        samples.append((time.perf_counter_ns() - start) / per_batch)
    return statistics.median(samples)


def bench_small(session: Session, text: str, quick: bool) -> float:
    def run() -> None:
        capped = session.cap(text, SMALL_BUDGET, CALL_ID)
        assert not capped.report.truncated

    return median_ns(run, 5 if quick else 20, 50 if quick else 200, 50)


def bench_large(session: Session, text: str, quick: bool) -> float:
    def run() -> None:
        capped = session.cap(text, LARGE_BUDGET, CALL_ID)
        report = capped.report
        assert report.truncated and report.spill is not None, report.spill_error

    return median_ns(run, 5 if quick else 15, 1, 1 if quick else 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", help="text file for the small case (default ~1 KiB of log)")
    parser.add_argument("--large", help="text file for the large case (default 4 MiB of log)")
    parser.add_argument("--spill-dir", help="spill directory (default: a temp dir)")
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args = parser.parse_args()

    small = read_text(args.small, 1024)
    large = read_text(args.large, 4 * 1024 * 1024)
    with tempfile.TemporaryDirectory(prefix="toolcap-bench-") as temp:
        spill_dir = args.spill_dir or temp
        start = time.perf_counter_ns()
        session = open_session(THREAD_ID, spill_dir, display_root=DISPLAY_ROOT, key=KEY)
        open_ms = (time.perf_counter_ns() - start) / 1e6
        with session:
            small_ns = bench_small(session, small, args.quick)
            large_ns = bench_large(session, large, args.quick)

    result = {
        "host": "python",
        "small_bytes": len(small.encode()),
        "small_median_ns": round(small_ns),
        "large_bytes": len(large.encode()),
        "large_median_ns": round(large_ns),
    }
    print(json.dumps(result))
    print(
        f"python (wasmtime {WASMTIME}): first open_session (compile + instantiate) {open_ms:.1f} ms; "
        f"cap of {result['small_bytes']} B that fits: {small_ns / 1e3:.1f} µs; "
        f"cap + spill of {result['large_bytes']} B: {large_ns / 1e6:.2f} ms",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
