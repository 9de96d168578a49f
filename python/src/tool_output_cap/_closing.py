"""The `with` block of every handle on the component: leaving it closes."""

from __future__ import annotations

from types import TracebackType
from typing import Optional, Self


class ClosesOnExit:
    """A handle whose `with` block ends in its `close`."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()
