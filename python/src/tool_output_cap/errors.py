"""The one exception the component's documented failures raise."""

from __future__ import annotations

from .types import ErrorCase


class ToolCapError(Exception):
    """A `cap-error` returned by the component.

    `case` is the WIT case name (`'invalid-budget'`, `'outside-root'`, ...),
    `message` the sentence the component wrote for a human or model.
    """

    case: ErrorCase
    message: str

    def __init__(self, case: ErrorCase, message: str) -> None:
        super().__init__(f"{case}: {message}")
        self.case = case
        self.message = message
