"""Retention across every thread: the component's `spill-store`, in its own
instance whose only grant is the spill directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Union

from wasmtime.component import Record, ResourceAny

from . import _convert as cv
from ._closing import ClosesOnExit
from . import _private_dir
from ._runtime import SPILL_GUEST_PATH, Instance, runtime
from .types import RetentionPolicy, StoreStats, SweepReport

StrPath = Union[str, "os.PathLike[str]"]


def open_spill_store(spill_dir: StrPath) -> "SpillStore":
    """Open the spill directory `spill_dir` (the one sessions spill into) for
    retention: statistics, and sweeping by age, total size and count.

    The directory is created (with its missing parents) readable by its
    owner only (mode 0700) if it does not exist, and granted read-write at
    `/spill` to a fresh instance, as `open_session` grants it; nothing else
    is granted. Raises `ValueError` for an empty path, `OSError` when the
    directory cannot be created, `ToolCapError` (`no-spill-dir`) when the
    component cannot open it.
    """
    given = os.fspath(spill_dir)
    if not given:
        # An empty path would be the working directory: never granted.
        raise ValueError("spill_dir names no directory")
    host_dir = os.path.realpath(given)
    _private_dir.create(host_dir)
    instance = runtime().instantiate(host_dir, read_only=False)
    try:
        resource = cv.unwrap(instance.call("store-open", SPILL_GUEST_PATH), ResourceAny)
    except BaseException:
        instance.store.close()
        raise
    return SpillStore(instance, resource, Path(host_dir))


class SpillStore(ClosesOnExit):
    """Every thread's spilled outputs under one spill directory, made by
    `open_spill_store`. Sweeps delete oldest first, never follow a symbolic
    link, never touch a file that a cap is still writing, and leave a note
    in each thread folder so that a reference to a deleted file reads as
    expired (`not-found` says when), not as unknown.

    Sessions may keep spilling into the directory meanwhile, from this
    process or another. Methods raise `ToolCapError` for the component's
    documented failures. Use a store from one thread at a time.
    """

    def __init__(self, instance: Instance, resource: ResourceAny, spill_dir: Path) -> None:
        self._instance: Optional[Instance] = instance
        self._resource = resource
        self.spill_dir = spill_dir
        """The host directory granted to the component (its real path)."""

    def _call(self, name: str, *args: object) -> Any:
        if self._instance is None:
            raise ValueError("the spill store is closed")
        return self._instance.call(name, self._resource, *args)

    def stats(self) -> StoreStats:
        """Thread folders, spilled outputs and their bytes, and when the
        oldest and newest were saved."""
        return cv.store_stats_out(cv.unwrap(self._call("store-stats"), Record))

    def sweep(self, policy: RetentionPolicy) -> SweepReport:
        """Delete spilled outputs, oldest first, until every limit of
        `policy` holds; report what was deleted, kept and skipped. Pass the
        same age to sessions as `open_session(retention_seconds=...)` so
        their notices say how long outputs are kept."""
        out = self._call("store-sweep", cv.retention_in(policy))
        return cv.sweep_report_out(cv.unwrap(out, Record))

    def close(self) -> None:
        """Drop the component's store and its instance. Idempotent."""
        instance, self._instance = self._instance, None
        if instance is not None:
            self._resource.drop(instance.store)
            instance.store.close()
