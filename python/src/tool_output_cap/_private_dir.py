"""Spill folders readable by their owner only: tool output can hold anything
a command printed, so other users of the machine must not read it (the Rust
host's `private_dir.rs` does the same)."""

from __future__ import annotations

import os

PRIVATE_MODE = 0o700


def create(path: str) -> None:
    """Create directory `path` and any missing parents, each new one with
    mode 0700 (before the umask; elsewhere than on Unix, the platform's
    default). A directory that exists is left as it is: its owner chose its
    mode. Raises `OSError` when it cannot be created.

    `os.makedirs(path, mode=0o700, exist_ok=True)` alone would give the
    parents it creates the default mode (Python 3.7+), so each missing
    level is made here."""
    if os.path.isdir(path):
        return
    missing = []
    head = os.path.abspath(path)
    while head and not os.path.isdir(head):
        missing.append(head)
        parent = os.path.dirname(head)
        if parent == head:
            break
        head = parent
    for level in reversed(missing):
        try:
            os.mkdir(level, PRIVATE_MODE)
        except FileExistsError:
            if not os.path.isdir(level):
                raise
