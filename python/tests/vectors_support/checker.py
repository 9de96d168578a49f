"""Comparing one step's answer with its expectations."""

from __future__ import annotations

from typing import Any, Callable, Optional, TypeVar

from wasmtime import WasmtimeError

from tool_output_cap import ToolCapError

T = TypeVar("T")


class Checker:
    """Collects the failures of one step, each prefixed with its label."""

    def __init__(self, label: str, failures: list[str]) -> None:
        self.label = label
        self.failures = failures
        self.trapped = False
        """Set when the runtime failed (a trap): the session is unusable."""

    def fail(self, message: str) -> None:
        self.failures.append(f"{self.label}: {message}")

    def ensure(self, ok: bool, message: Callable[[], str]) -> None:
        """A condition no expectation can change."""
        if not ok:
            self.fail(message())

    def outcome(self, want_error: Optional[str], call: Callable[[], T]) -> Optional[T]:
        """The call's value if it succeeded as expected; otherwise records why
        not. `want_error` is the expected `cap-error` case, if any."""
        try:
            value = call()
        except ToolCapError as err:
            got, shown = err.case, str(err)
        except WasmtimeError as err:
            self.trapped = True
            got, shown = "runtime", f"runtime: {err}"
        else:
            if want_error is not None:
                self.fail(f"expected error {want_error}, but the call succeeded")
                return None
            return value
        if want_error != got:
            want = "success" if want_error is None else f"error {want_error}"
            self.fail(f"expected {want}, got {shown}")
        return None

    def exact(self, expect: dict[str, Any], field: str, got: Any, name: str = "") -> None:
        """`expect[field]`, if present, must equal `got`."""
        if field not in expect:
            return
        want = expect[field]
        if want == got:
            return
        label = name or field
        if isinstance(want, str) and isinstance(got, str):
            self.fail(f"{label} differs: {describe_difference(want, got)}")
        else:
            self.fail(f"{label}: expected {want!r}, got {got!r}")

    def substrings(self, contains: list[str], not_contains: list[str], got: str) -> None:
        """`text_contains` and `text_not_contains`."""
        for needle in contains:
            if needle not in got:
                self.fail(f"text does not contain {needle!r}: {excerpt(got)}")
        for needle in not_contains:
            if needle in got:
                self.fail(f"text contains {needle!r}: {excerpt(got)}")


def describe_difference(want: str, got: str) -> str:
    """Where two texts part (in UTF-8 bytes), with a little context."""
    a, b = want.encode(), got.encode()
    common = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))

    def context(s: bytes) -> str:
        part = s[max(0, common - 40) : common + 80]
        return repr(part.decode("utf-8", errors="replace"))

    return (
        f"expected {len(a)} bytes, got {len(b)} bytes; first difference at byte {common}: "
        f"expected ...{context(a)}..., got ...{context(b)}..."
    )


def excerpt(text: str) -> str:
    """The start and end of a possibly huge text, for failure messages."""
    each = 300
    if len(text) <= 2 * each:
        return repr(text)
    return f"{text[:each]!r} ... {text[-each:]!r} ({len(text.encode())} bytes)"
