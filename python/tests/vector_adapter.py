"""The Python host's vector adapter (see tests/vectors/ADAPTERS.md).

The Rust vector runner starts it as `python/.venv/bin/python
python/tests/vector_adapter.py`, writes one JSON request per line to its
stdin and reads one JSON answer per line from its stdout. It drives the
package's public API only and converts between serde's JSON of the Rust
crate's types and the package's dataclasses; it checks nothing itself.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, Optional, TextIO

# The package is not installed in the venv (pytest finds it through
# pyproject's `pythonpath`), so import it from the source tree.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tool_output_cap import (  # noqa: E402 - needs the path above
    Audio, Budget, Call, Capped, ContentPart, Image, Other, Overflow, OverflowRef,
    PendingResult, PrunePolicy, RedactionPolicy, RequestLimits, Resource,
    RetentionPolicy, Session, SweptFile, Text, ToolCapError, classify, open_session,
    open_spill_store,
)

Json = Any  # a value as `json` reads or writes it

# Content-part cases by serde's name; each takes its payload's fields.
_PARTS: dict[str, Callable[..., ContentPart]] = {
    "Text": Text, "Image": Image, "Audio": Audio, "Resource": Resource, "Other": Other,
}

# The package's fields that hold a WIT enum, as a kebab-case literal
# (`RedactionCount.kind`, a plain string, is not one of them).
_ENUM_FIELDS: dict[type, set[str]] = {
    Budget: {"keep"}, Overflow: {"kind", "unit"}, SweptFile: {"reason"},
}

# `open_session` keywords named as the runner's session settings.
_SETTINGS = (
    "read_only", "display_root", "read_tool", "shell_hints", "notable_patterns",
    "image_tokens", "audio_tokens", "token_scale", "retention_seconds",
)


def _kebab(pascal: str) -> str:
    """serde's enum case (`HeadAndTail`) as the package's literal (`head-and-tail`)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", pascal).lower()


def _pascal(kebab: Optional[str]) -> Optional[str]:
    """The package's enum literal as serde's case; `None` (an option) stays."""
    return None if kebab is None else "".join(w.capitalize() for w in kebab.split("-"))


def _budget(b: Json) -> Budget:
    return Budget(**{**b, "keep": _kebab(b["keep"])})


def _part(v: Json) -> ContentPart:
    ((case, payload),) = v.items()
    make = _PARTS[case]
    # `Text` and `Other` carry a bare string, the others a record.
    return make(**payload) if isinstance(payload, dict) else make(payload)


def _pending(v: Json) -> PendingResult:
    """`{"Text": s}` is the `str` itself, `{"Parts": [...]}` a list of parts."""
    ((case, payload),) = v.items()
    if case == "Text":
        return str(payload)
    if case == "Parts":
        return [_part(p) for p in payload]
    raise ValueError(f"unknown pending-result case {case!r}")


def _limits(v: Json) -> RequestLimits:
    return RequestLimits(**{**v, "ceiling": _budget(v["ceiling"])})


def encode(value: Any) -> Json:
    """A package value as serde writes the matching Rust type: dataclasses
    as objects with every field, content parts as one-member variants,
    enum literals in PascalCase."""
    if isinstance(value, (Text, Other)):
        return {type(value).__name__: dataclasses.astuple(value)[0]}
    if isinstance(value, (Image, Audio, Resource)):
        return {type(value).__name__: encode_fields(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode_fields(value)
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def encode_fields(value: Any) -> dict[str, Json]:
    enums = _ENUM_FIELDS.get(type(value), set())
    out: dict[str, Json] = {}
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        out[f.name] = _pascal(item) if f.name in enums else encode(item)
    return out


class Adapter:
    """One session at a time, as the runner opens and closes it."""

    def __init__(self) -> None:
        self._session: Optional[Session] = None

    @property
    def session(self) -> Session:
        if self._session is None:
            raise RuntimeError("no session is open")
        return self._session

    def answer(self, request: Json) -> Json:
        """The `ok` value of one request; raises what the call raised."""
        handler = getattr(self, "op_" + str(request["op"]).replace("-", "_"), None)
        if handler is None:
            raise ValueError(f"unknown op {request['op']!r}")
        return handler(request)

    def op_open(self, r: Json) -> None:
        self.op_close(r)
        spec = r["session"]
        # A null setting passes nothing: the package's default applies.
        kwargs: dict[str, Any] = {k: spec[k] for k in _SETTINGS if spec[k] is not None}
        if spec["key_hex"] is not None:
            kwargs["key"] = bytes.fromhex(spec["key_hex"])
        if spec["redaction"] is not None:
            kwargs["redaction"] = RedactionPolicy(**spec["redaction"])
        # A null `dir` grants nothing.
        self._session = open_session(spec["thread_id"], r["dir"], **kwargs)

    def op_close(self, r: Json) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.close()

    def op_cap(self, r: Json) -> Json:
        return encode(self.session.cap(r["input"], _budget(r["budget"]), Call(**r["call"])))

    def op_cap_parts(self, r: Json) -> Json:
        parts = [_part(p) for p in r["parts"]]
        return encode(self.session.cap_parts(parts, _budget(r["budget"]), Call(**r["call"])))

    def op_cap_mcp(self, r: Json) -> Json:
        return encode(self.session.cap_mcp(
            r["result"], _budget(r["budget"]), Call(**r["call"]),
            resource_link=r["options"]["resource_link"],
        ))

    def op_stream(self, r: Json) -> Json:
        data, sizes = r["input"].encode("utf-8"), r["chunk_bytes"]
        if not sizes or min(sizes) < 1:
            raise ValueError("chunk_bytes needs sizes of at least 1")  # else no end
        with self.session.stream(_budget(r["budget"]), Call(**r["call"])) as stream:
            at = 0
            for size in itertools.cycle(sizes):
                if at >= len(data):
                    break
                stream.write(data[at : at + size])  # may split a character
                at += size
            written = stream.bytes_written()
            if r["exit_code_at_end"] is not None:
                stream.set_exit_code(r["exit_code_at_end"])
            return {"capped": encode(stream.finish()), "bytes_written": written}

    def op_find_refs(self, r: Json) -> Json:
        return encode(self.session.find_refs(r["text"]))

    def op_pruned_placeholder(self, r: Json) -> Json:
        return self.session.pruned_placeholder(OverflowRef(**r["reference"]))

    def op_read(self, r: Json) -> Json:
        return encode(self.session.read(r["path"], r["offset"], r["max_bytes"]))

    def op_read_lines(self, r: Json) -> Json:
        page = self.session.read_lines(r["path"], r["first_line"], r["count"], r["max_bytes"])
        return encode(page)

    def op_grep(self, r: Json) -> Json:
        return encode(self.session.grep(r["path"], r["pattern"], r["max_matches"]))

    def op_prune(self, r: Json) -> Json:
        return encode(self.session.prune(r["messages"], PrunePolicy(**r["policy"])))

    def op_purge(self, r: Json) -> Json:
        return self.session.purge()

    def op_host_path(self, r: Json) -> Json:
        path = self.session.host_path(r["path"])
        return None if path is None else str(path)

    def op_estimate_tokens(self, r: Json) -> Json:
        return self.session.estimate_tokens(r["text"])

    def op_calibrate(self, r: Json) -> Json:
        return self.session.calibrate(r["text"], r["actual_tokens"])

    def op_plan(self, r: Json) -> Json:
        results = [_pending(p) for p in r["results"]]
        return encode(self.session.plan(results, _limits(r["limits"])))

    def op_cap_batch(self, r: Json) -> Json:
        turn = [(Call(**call), _pending(pending)) for call, pending in r["results"]]
        out = self.session.cap_batch(turn, _limits(r["limits"]))
        # `batch-result` is a variant: its case says which kind came back.
        return [{"Text" if isinstance(b, Capped) else "Parts": encode(b)} for b in out]

    def op_read_tool(self, r: Json) -> Json:
        return encode(self.session.read_tool())

    def op_run_read_tool(self, r: Json) -> Json:
        return encode(self.session.run_read_tool(r["arguments"]))

    def op_list(self, r: Json) -> Json:
        return encode(self.session.list())

    def op_classify(self, r: Json) -> Json:
        return encode(classify(r["status"], r["body"]))

    def op_sweep(self, r: Json) -> Json:
        with open_spill_store(r["dir"]) as store:
            return encode(store.sweep(RetentionPolicy(**r["policy"])))

    def op_stats(self, r: Json) -> Json:
        with open_spill_store(r["dir"]) as store:
            return encode(store.stats())


def _error(exc: BaseException) -> Json:
    if isinstance(exc, ToolCapError):
        return {"case": exc.case, "message": exc.message}
    return {"case": "runtime", "message": f"{type(exc).__name__}: {exc}"}


def _protocol_stdout() -> TextIO:
    """The answers' channel: the real stdout, while anything else written to
    it (a print, a native library) goes to stderr and cannot break a line."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", newline="\n")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return out


def main() -> int:
    out = _protocol_stdout()
    adapter = Adapter()
    try:
        for raw in sys.stdin.buffer:
            line = raw.decode("utf-8").strip()
            if not line:
                continue
            try:
                answer = {"ok": adapter.answer(json.loads(line))}
            except Exception as exc:  # noqa: BLE001 - every failure is an answer
                answer = {"error": _error(exc)}
            out.write(json.dumps(answer) + "\n")
            out.flush()
    finally:
        adapter.op_close({})
    return 0


if __name__ == "__main__":
    sys.exit(main())
