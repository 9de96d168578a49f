"""Building step arguments: generators, `$spill:` / `$capped:` references
to earlier `cap` steps, and `$host-dir`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .format import VectorError


def build(text: Any) -> str:
    """The text a text input stands for: itself, or its generator's output."""
    if isinstance(text, str):
        return text
    out: list[str] = []
    for i, segment in enumerate(text["gen"]):
        try:
            _emit(segment, out)
        except VectorError as why:
            raise VectorError(f"generator segment {i}: {why}") from None
    return "".join(out)


def _emit(segment: dict[str, Any], out: list[str]) -> None:
    keys = set(segment)
    if "text" in keys and keys <= {"text", "times"}:
        out.append(segment["text"] * segment.get("times", 1))
    elif {"lines", "count"} <= keys and keys <= {"lines", "from", "count"}:
        template = segment["lines"]
        first = segment.get("from", 1)
        for n in range(first, first + segment["count"]):
            out.append(template.replace("{n}", str(n)))
            out.append("\n")
    else:
        raise VectorError(
            'a segment is either {"text", "times"} or {"lines", "from", "count"} '
            "(count required)"
        )


@dataclass(frozen=True)
class Recorded:
    """What later steps may refer to of an earlier `cap` or `cap-parts` step."""

    spill_path: Optional[str]
    text: str


_REFERENCE = re.compile(r"\$(spill|capped):([A-Za-z0-9_-]*)|\$host-dir")


def substitute(text: str, calls: dict[str, Recorded], host_dir: Optional[Path] = None) -> str:
    """Replaces every `$spill:<call_id>`, `$capped:<call_id>` and `$host-dir`
    (the canonical path of the granted directory). An unknown call id, a
    `$spill:` of a step that did not spill, or a `$host-dir` with nothing
    granted is a vector error."""

    def replace(match: re.Match[str]) -> str:
        kind, call_id = match.group(1), match.group(2)
        if kind is None:
            if host_dir is None:
                raise VectorError("$host-dir: the session has no directory")
            return str(host_dir)
        recorded = calls.get(call_id)
        if recorded is None:
            raise VectorError(f"${kind}:{call_id} names no earlier cap step")
        if kind == "capped":
            return recorded.text
        if recorded.spill_path is None:
            raise VectorError(f"$spill:{call_id}: that cap step did not spill")
        return recorded.spill_path

    return _REFERENCE.sub(replace, text)
