"""Shared fixtures: a temporary spill dir and key file per test, and a check
that every process a test started (proxies, servers, their children) is
gone when it ends."""

import ctypes
import os
import signal
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from proxy import Proxy  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36
# How long processes get to exit after their test closed them: a safety net
# for a loaded machine, not a measure of speed.
EXIT_GRACE_SECONDS = 20


def pytest_configure(config: pytest.Config) -> None:
    # Orphans (a server whose proxy died, say) are re-parented to this
    # process instead of init, so the leak check below sees them.
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _children() -> dict[int, tuple[str, str]]:
    """This process's children: pid -> (state, command line)."""
    me = os.getpid()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        # The command name in parentheses may hold spaces: split after it.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == me:
            found[int(entry.name)] = (fields[0], cmdline.strip())
    return found


@pytest.fixture(autouse=True)
def no_process_left_behind():
    before = set(_children())
    yield
    deadline = time.monotonic() + EXIT_GRACE_SECONDS
    while True:
        alive = {}
        for pid, (state, cmd) in _children().items():
            if pid in before:
                continue
            if state == "Z":
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
                continue
            alive[pid] = cmd
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
    assert not alive, f"processes left running after the test (killed now): {alive}"


@pytest.fixture
def proxy(tmp_path: Path) -> Proxy:
    """`toolcap mcp` with its own spill dir and key file under tmp_path."""
    return Proxy(spill_dir=tmp_path / "spill", key_file=tmp_path / "key", logs=tmp_path)
