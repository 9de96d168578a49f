"""`cap-mcp` steps: the input a runner sends, the invariants of every
capped MCP result, and its expectations. Mirrors
tests/tests/vectors_support/mcp.rs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from tool_output_cap import Budget, CappedMcp, OverflowRef, Session

from .checker import Checker, excerpt
from .inputs import build
from .invariants import Disk, check_directory, count_lines, ref_key, utf8_len

META_KEY = "tool-output-cap/cap"
"""The key of the component's record in `_meta`."""

_NOT_JSON = object()


def _expand(value: Any) -> Any:
    """`value` with every `{"gen": [...]}` object replaced by its text."""
    if isinstance(value, list):
        return [_expand(v) for v in value]
    if isinstance(value, dict):
        if list(value) == ["gen"]:
            return build(value)
        return {k: _expand(v) for k, v in value.items()}
    return value


def canonical(value: Any) -> str:
    """Compact JSON, keys sorted by their UTF-8 bytes (as serde_json's map)."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-8"))
        inner = ",".join(f"{json.dumps(k, ensure_ascii=False)}:{canonical(value[k])}" for k in keys)
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class McpInput:
    """What a step sends: the text, what it parses to (`_NOT_JSON` if
    nothing), and whether the text is that value's canonical form."""

    text: str
    value: Any
    canonical: bool


def input_of(result: Any) -> McpInput:
    """A string as it is; any other value serialised canonically."""
    if isinstance(result, str):
        try:
            value = json.loads(result)
        except ValueError:
            value = _NOT_JSON
        return McpInput(result, value, False)
    value = _expand(result)
    return McpInput(canonical(value), value, True)


def _blocks(v: Any) -> list[Any]:
    content = v.get("content") if isinstance(v, dict) else None
    return content if isinstance(content, list) else []


def _text_of(block: Any) -> Optional[str]:
    """The text that shares the budget: the block's `text`, or its resource's."""
    if not isinstance(block, dict):
        return None
    if block.get("type") == "text":
        return block["text"] if isinstance(block.get("text"), str) else None
    r = block.get("resource")
    if block.get("type") != "resource" or not isinstance(r, dict):
        return None
    string_or_absent = all(k not in r or isinstance(r[k], str) for k in ("mimeType", "blob"))
    valid = isinstance(r.get("uri"), str) and string_or_absent
    return r["text"] if valid and isinstance(r.get("text"), str) else None


def joined_text(v: Any) -> str:
    """The joined text of a result's textual blocks, as cap-mcp budgets it."""
    return "\n".join(t for t in map(_text_of, _blocks(v)) if t is not None)


def _is_media(block: Any) -> bool:
    """Media the budget does not count: an image or audio with string data
    and MIME type, or a valid resource with a blob."""
    if not isinstance(block, dict):
        return False
    if block.get("type") in ("image", "audio"):
        return isinstance(block.get("data"), str) and isinstance(block.get("mimeType"), str)
    r = block.get("resource")
    if block.get("type") != "resource" or not isinstance(r, dict):
        return False
    string_or_absent = all(k not in r or isinstance(r[k], str) for k in ("mimeType", "text"))
    return isinstance(r.get("uri"), str) and isinstance(r.get("blob"), str) and string_or_absent


def _other_blocks(v: Any) -> list[Any]:
    """The blocks beside the texts that the budget counts (neither textual nor media)."""
    return [b for b in _blocks(v) if _text_of(b) is None and not _is_media(b)]


_HANDLED_MEMBERS = ("content", "structuredContent", "_meta", "isError")


def _top_level_extras(v: dict[str, Any]) -> Optional[str]:
    """The server's _meta members (as one _meta object) and members MCP does
    not define, as one JSON object; None when there are none."""
    members = []
    if isinstance(v.get("_meta"), dict) and v["_meta"]:
        members.append(("_meta", v["_meta"]))
    members += [(k, x) for k, x in v.items() if k not in _HANDLED_MEMBERS]
    if not members:
        return None
    return "{" + ",".join(f"{canonical(k)}:{canonical(x)}" for k, x in members) + "}"


def _joined_with_extras(v: dict[str, Any]) -> str:
    """The text spill when the extras were cut as text: each other block's
    JSON in place, media left out, the top-level extras last."""
    pieces = []
    for b in _blocks(v):
        t = _text_of(b)
        if t is not None:
            pieces.append(t)
        elif not _is_media(b):
            pieces.append(canonical(b))
    top = _top_level_extras(v)
    if top is not None:
        pieces.append(top)
    return "\n".join(pieces)


def _extras_cut(inp: dict[str, Any], output: dict[str, Any], rest: list[Any], alike: Any) -> bool:
    """Whether the blocks and members beside the texts were cut as text: the
    output lacks one of them."""
    block_missing = any(not any(alike(o, b) for o in rest) for b in _other_blocks(inp))
    meta = output.get("_meta")
    meta_missing = isinstance(inp.get("_meta"), dict) and any(
        k != META_KEY and not (isinstance(meta, dict) and k in meta) for k in inp["_meta"])
    member_missing = any(k not in _HANDLED_MEMBERS and k not in output for k in inp)
    return block_missing or meta_missing or member_missing


def _is_plain_text(b: Any) -> bool:
    return isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)


def _output_texts(v: Any) -> list[str]:
    return [b["text"] for b in _blocks(v) if _is_plain_text(b)]


def output_text(v: Any) -> str:
    """The output's text blocks joined by LF (what `text_contains` searches)."""
    return "\n".join(_output_texts(v))


def _textless_resource_of_input(b: Any, inputs: list[Any]) -> bool:
    """A resource with a blob whose text was cut: an input block without its text."""
    for i in inputs:
        if _text_of(i) is None or not isinstance(i.get("resource"), dict):
            continue
        resource = {k: v for k, v in i["resource"].items() if k != "text"}
        if {**i, "resource": resource} == b:
            return True
    return False


def _same(a: Any, b: Any) -> bool:
    """JSON equality (Python's `==` takes `1 == True` and `1 == 1.0`)."""
    return canonical(a) == canonical(b)


def check_invariants(
    chk: Checker,
    session: Session,
    disk: Disk,
    sent: McpInput,
    budget: Budget,
    resource_link: bool,
    got: CappedMcp,
) -> Any:
    """Everything that holds for any cap-mcp answer; the parsed output, or None."""
    try:
        output = json.loads(got.result)
    except ValueError:
        output = None
    if not isinstance(output, dict):
        chk.fail(f"the result is not a JSON object: {excerpt(got.result)}")
        return None
    r = got.report
    changed = r.truncated or got.structured_dropped or bool(r.redactions)
    chk.ensure(
        changed == (got.result != sent.text),
        lambda: "the result differs from the input exactly when something was cut, "
        f"dropped or redacted (changed: {changed})",
    )
    out_blocks = _blocks(output)
    chk.ensure(all(isinstance(b, dict) for b in out_blocks), lambda: "a content block is not an object")
    if not isinstance(sent.value, dict):
        return output
    inp = sent.value
    chk.ensure(_same(output.get("isError"), inp.get("isError")), lambda: "isError changed")
    if budget.max_bytes > 0 and changed:
        texts = _output_texts(output)
        size = sum(utf8_len(t) for t in texts)
        chk.ensure(size <= budget.max_bytes,
                   lambda: f"the text blocks hold {size} bytes, over max_bytes {budget.max_bytes}")
        if budget.max_lines is not None:
            lines = sum(count_lines(t) for t in texts)
            chk.ensure(lines <= budget.max_lines,
                       lambda: f"the text blocks hold {lines} lines, over max_lines {budget.max_lines}")
    cut = r.truncated or got.structured_dropped
    meta = output.get("_meta")
    record = meta.get(META_KEY) if isinstance(meta, dict) else None
    chk.ensure((record is not None) == cut,
               lambda: f"_meta[{META_KEY}] is there: {record is not None}, but cut or dropped: {cut}")
    # Redaction rewrites every string the model is shown, beyond the texts:
    # then values are compared by their shape (keys, block types) only.
    redacted = bool(r.redactions)

    def alike(a: Any, b: Any) -> bool:
        return _same(a, b) or (redacted and _same_shape(a, b))

    in_blocks = _blocks(inp)
    links = (int(r.spill is not None) + int(got.structured_spill is not None)) if resource_link else 0
    rest = out_blocks[int(cut) + links:]
    # Blocks and members beside the texts that would take the texts' room are
    # cut as text, all of them: nothing of them is left in the result.
    extras_as_text = r.truncated and _extras_cut(inp, output, rest, alike)
    if extras_as_text:
        left = any(_same(o, b) for b in _other_blocks(inp) for o in rest)
        chk.ensure(not left, lambda: "some blocks beside the texts were cut as text, not all")
    if isinstance(inp.get("_meta"), dict) and not extras_as_text:
        for k, v in inp["_meta"].items():
            if k == META_KEY:
                continue
            kept = isinstance(meta, dict) and k in meta and alike(meta[k], v)
            chk.ensure(kept, lambda k=k: f"the input's _meta key {k!r} was not kept")
    if cut:
        first = out_blocks[0] if out_blocks else {}
        notice = first.get("text") if isinstance(first.get("text"), str) else ""
        chk.ensure(notice.startswith("[toolcap] "),
                   lambda: f"the first block is not the notice: {excerpt(notice)}")
        found = [ref_key(f) for f in session.find_refs(notice)]
        for spill in (s for s in (r.spill, got.structured_spill) if s is not None):
            chk.ensure(ref_key(spill) in found,
                       lambda spill=spill: f"the notice does not hold the reference {spill}")
    if r.truncated:
        # Only the media pass through when the other blocks were cut as text.
        kept_blocks = [b for b in in_blocks
                       if _text_of(b) is None and (not extras_as_text or _is_media(b))]
        passed = [b for b in rest if not _is_plain_text(b)
                  and not _textless_resource_of_input(b, in_blocks)]
        same = len(passed) == len(kept_blocks) and all(
            alike(p, k) for p, k in zip(passed, kept_blocks))
        chk.ensure(same,
                   lambda: f"the blocks that pass through changed: {passed} / {kept_blocks}")
    elif not r.redactions:
        chk.ensure(_same(rest, in_blocks), lambda: "the content changed though no text was cut")
    if "structuredContent" in inp and not got.structured_dropped:
        chk.ensure("structuredContent" in output
                   and alike(output["structuredContent"], inp["structuredContent"]),
                   lambda: "structuredContent changed")
    _check_disk(chk, session, disk, inp, sent.canonical, extras_as_text, got)
    return output


def _check_disk(chk: Checker, session: Session, disk: Disk, inp: dict[str, Any],
                is_canonical: bool, extras_as_text: bool, got: CappedMcp) -> None:
    """The spills hold the joined text and the structured content (as sent);
    nothing else appeared."""
    redacted = bool(got.report.redactions)
    files = []

    def expect(ref: OverflowRef, content: Optional[str]) -> None:
        file = session.host_path(ref.path)
        if file is None:
            chk.fail(f"the spill path is not under the display root: {ref}")
            return
        try:
            data = file.read_bytes()
        except OSError as err:
            chk.fail(f"cannot read {file}: {err}")
            return
        chk.ensure(len(data) == ref.bytes, lambda: f"{file} is not the reference's size")
        if content is not None:
            chk.ensure(data == content.encode("utf-8"),
                       lambda: f"the spill file {file} differs from what it stands for")
        files.append(file)

    if got.report.spill is not None:
        # Blocks beside the texts cut as text are their JSON as sent.
        if extras_as_text:
            joined = _joined_with_extras(inp) if is_canonical else None
        else:
            joined = joined_text(inp)
        expect(got.report.spill, None if redacted else joined)
    if got.structured_spill is not None:
        known = not redacted and is_canonical and "structuredContent" in inp
        expect(got.structured_spill, canonical(inp["structuredContent"]) if known else None)
    check_directory(chk, disk, files)


def _subset(want: Any, got: Any) -> bool:
    """Whether `want` is `got` or, for objects, a subset of it (recursively)."""
    if isinstance(want, dict) and isinstance(got, dict):
        return all(k in got and _subset(v, got[k]) for k, v in want.items())
    return _same(want, got)


def check_expect(chk: Checker, e: dict[str, Any], sent: McpInput, got: CappedMcp,
                 output: Any) -> None:
    """The expectations of a cap-mcp step, `e` with `$spill:`/`$capped:` resolved."""
    r = got.report
    chk.exact(e, "unchanged", got.result == sent.text)
    chk.exact(e, "truncated", r.truncated)
    chk.exact(e, "spilled", r.spill is not None)
    for field in ("original_bytes", "original_lines", "omitted_bytes", "original_tokens", "tokens"):
        chk.exact(e, field, getattr(r, field))
    if "redactions" in e:
        counts: dict[str, int] = {}
        for c in r.redactions:
            counts[c.kind] = counts.get(c.kind, 0) + c.count
        want = {k: n for k, n in e["redactions"].items() if n}
        chk.ensure(want == counts, lambda: f"redactions: expected {want}, got {counts}")
    chk.exact(e, "structured_dropped", got.structured_dropped)
    chk.exact(e, "structured_spilled", got.structured_spill is not None)
    out_blocks = _blocks(output)
    types = [b.get("type") if isinstance(b.get("type"), str) else "" for b in out_blocks]
    chk.exact(e, "content_types", types)
    first = out_blocks[0] if out_blocks else {}
    notice = first.get("text") if isinstance(first.get("text"), str) else ""
    for needle in e.get("notice_contains", []):
        chk.ensure(needle in notice,
                   lambda needle=needle: f"the notice does not contain {needle!r}: {excerpt(notice)}")
    text = output_text(output)
    for needle in e.get("text_contains", []):
        chk.ensure(needle in text, lambda needle=needle: f"text does not contain {needle!r}: {excerpt(text)}")
    for needle in e.get("text_not_contains", []):
        chk.ensure(needle not in text, lambda needle=needle: f"text contains {needle!r}: {excerpt(text)}")
    for needle in e.get("result_contains", []):
        chk.ensure(needle in got.result, lambda needle=needle: f"the result does not contain {needle!r}")
    for needle in e.get("result_not_contains", []):
        chk.ensure(needle not in got.result, lambda needle=needle: f"the result contains {needle!r}")
    in_blocks = _blocks(sent.value)
    for o, i in e.get("same_blocks", []):
        ok = o < len(out_blocks) and i < len(in_blocks) and _same(out_blocks[o], in_blocks[i])
        chk.ensure(ok, lambda o=o, i=i: f"output block {o} is not input block {i}")
    chk.exact(e, "is_error", output.get("isError") is True)
    if "meta_record" in e:
        meta = output.get("_meta")
        record = meta.get(META_KEY) if isinstance(meta, dict) else None
        want = e["meta_record"]
        if want is None:
            chk.ensure(record is None, lambda: f"meta_record: expected none, got {record}")
        else:
            chk.ensure(record is not None and _subset(want, record),
                       lambda: f"meta_record: {want} is not within {record}")


def _same_shape(a: Any, b: Any) -> bool:
    """Whether two JSON values differ at most in their strings (what redaction
    rewrites): same kinds, same keys, same lengths of lists."""
    if isinstance(a, str) and isinstance(b, str):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_shape(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_shape(a[k], b[k]) for k in a)
    return _same(a, b)
