"""Running one vector through the real component: one session spilling into
a fresh directory, its steps in order."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Optional, Union

from tool_output_cap import (
    Audio,
    Budget,
    Call,
    Capped,
    CappedParts,
    ContentPart,
    Image,
    Other,
    OverflowRef,
    Page,
    PendingResult,
    PrunePolicy,
    RedactionPolicy,
    RequestLimits,
    Resource,
    RetentionPolicy,
    Session,
    Text,
    ToolCapError,
    classify,
    open_session,
    open_spill_store,
)

from . import invariants, mcp
from .checker import Checker, describe_difference, excerpt
from .format import VectorError
from .inputs import Recorded, build, substitute
from .invariants import CapView, Disk, MediaCosts, utf8_len

DEFAULT_DISPLAY_ROOT = "/spill-host"
"""Display root of a vector session that names none."""


def run_vector(label: str, vector: dict[str, Any], spill_dir: Path) -> list[str]:
    """Runs a parsed vector (from file `label`, for messages) with `spill_dir`
    (empty) as its spill directory; returns one line per failed check."""
    failures: list[str] = []
    spec = vector["session"]
    preopen = spec.get("preopen", "read-write")
    if spec.get("display_root_default") and "display_root" in spec:
        return [f"{label}: bad vector: display_root and display_root_default together"]
    # `display_root_default`: no display root, the package's default applies.
    display_root = None if spec.get("display_root_default") else DEFAULT_DISPLAY_ROOT
    redaction = (
        RedactionPolicy(spec["redaction"]["literals"], spec["redaction"]["spill"])
        if "redaction" in spec
        else None
    )
    try:
        session = open_session(
            spec["thread_id"],
            None if preopen == "none" else spill_dir,
            display_root=spec.get("display_root", display_root),
            key=bytes.fromhex(spec["key_hex"]),
            read_only=preopen == "read-only",
            read_tool=spec.get("read_tool"),
            shell_hints=spec.get("shell_hints", True),
            notable_patterns=spec.get("notable_patterns", []),
            image_tokens=spec.get("image_tokens"),
            audio_tokens=spec.get("audio_tokens"),
            token_scale=spec.get("token_scale"),
            retention_seconds=spec.get("retention_seconds"),
            redaction=redaction,
        )
    except Exception as why:  # noqa: BLE001 - any reason is a failure to report
        return [f"{label}: cannot open the session: {why}"]
    # The vector's own idea of the media costs, not the session's.
    costs = MediaCosts(spec.get("image_tokens", 1600), spec.get("audio_tokens", 1000))
    with session:
        runner = _Runner(session, None if preopen == "none" else spill_dir, costs, redaction)
        for index, step in enumerate(vector["steps"]):
            chk = Checker(f"{label} step {index} ({step['op']})", failures)
            try:
                runner.step(chk, step)
            except VectorError as why:
                chk.fail(f"bad vector: {why}")
            if chk.trapped:
                chk.fail("the component trapped; the remaining steps were not run")
                break
    return failures


def _budget(spec: dict[str, Any]) -> Budget:
    return Budget(
        max_bytes=spec["max_bytes"],
        max_lines=spec.get("max_lines"),
        max_line_bytes=spec.get("max_line_bytes"),
        keep=spec["keep"],
        head_percent=spec["head_percent"],
        max_tokens=spec.get("max_tokens"),
    )


def _budget_spec(b: Budget) -> dict[str, Any]:
    """A budget as a vector writes it (as parsed: `None` fields absent)."""
    fields = dataclasses.asdict(b)
    return {k: v for k, v in fields.items() if v is not None}


def _limits(spec: dict[str, Any]) -> RequestLimits:
    return RequestLimits(
        max_tokens=spec.get("max_tokens"),
        max_body_bytes=spec.get("max_body_bytes"),
        floor_bytes=spec["floor_bytes"],
        ceiling=_budget(spec["ceiling"]),
    )


def _pending(spec: dict[str, Any]) -> PendingResult:
    """A pending result: its text as a `str`, or its parts as a list."""
    if "text" in spec:
        return build(spec["text"])
    return [_part(p) for p in spec["parts"]]


def _call(step: dict[str, Any]) -> Union[str, Call]:
    """A cap step's call: a bare id (`call_id`, passed as a `str`) or a `Call`."""
    spec = step.get("call")
    if spec is None:
        return str(step["call_id"])
    return Call(
        spec["id"],
        spec.get("tool"),
        spec.get("exit_code"),
        spec.get("is_error", False),
        search=spec.get("search"),
    )


def _call_id(step: dict[str, Any]) -> str:
    """The id that `$spill:` and `$capped:` name a cap step by."""
    call = _call(step)
    return call if isinstance(call, str) else call.id


def _part(spec: dict[str, Any]) -> ContentPart:
    ((kind, value),) = spec.items()
    if kind == "text":
        return Text(build(value))
    if kind == "image":
        return Image(value["data"], value["mime_type"])
    if kind == "audio":
        return Audio(value["data"], value["mime_type"])
    if kind == "resource":
        return Resource(value["uri"], value.get("mime_type"), value.get("text"), value.get("blob"))
    return Other(value)


def _chunks(data: bytes, sizes: list[int]) -> list[bytes]:
    """`data` split by `sizes`, used in turn and cycled (each at least 1)."""
    out, at, i = [], 0, 0
    while at < len(data):
        size = sizes[i % len(sizes)]
        out.append(data[at : at + size])
        at += size
        i += 1
    return out


def _substitute_json(value: Any, resolve: Any) -> Any:
    """Every string inside a JSON value, substituted."""
    if isinstance(value, str):
        return resolve(value)
    if isinstance(value, list):
        return [_substitute_json(v, resolve) for v in value]
    if isinstance(value, dict):
        return {resolve(k): _substitute_json(v, resolve) for k, v in value.items()}
    return value


class _Runner:
    def __init__(
        self,
        session: Session,
        spill_dir: Optional[Path],
        costs: MediaCosts,
        redaction: Optional[RedactionPolicy] = None,
    ) -> None:
        self.session = session
        self.costs = costs
        self.redaction = redaction
        self.dir = Path(spill_dir).resolve() if spill_dir is not None else None
        self.calls: dict[str, Recorded] = {}
        self.refs: dict[str, OverflowRef] = {}

    def step(self, chk: Checker, step: dict[str, Any]) -> None:
        handler = getattr(self, "op_" + step["op"].replace("-", "_"))
        handler(chk, step, step["expect"])

    def disk(self) -> Disk:
        return Disk(self.dir, invariants.tree(self.dir) if self.dir is not None else [])

    def resolve(self, text: str) -> str:
        return substitute(text, self.calls, self.dir)

    def resolve_all(self, texts: Optional[list[str]]) -> list[str]:
        return [self.resolve(t) for t in texts or []]

    def record(self, call_id: str, view: CapView) -> None:
        spill = view.spill
        self.calls[call_id] = Recorded(spill.path if spill else None, view.text)
        if spill is not None:
            self.refs[call_id] = spill
        else:
            self.refs.pop(call_id, None)

    def op_cap(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        if "parts" in e:
            raise VectorError("`parts` is an expectation of cap-parts only")
        text = build(s["input"])
        budget = _budget(s["budget"])
        disk = self.disk()
        call = _call(s)
        capped = chk.outcome(e.get("error"), lambda: self.session.cap(text, budget, call))
        if capped is None:
            return
        view = CapView.of(capped)
        invariants.check_cap(chk, self.session, disk, text, budget, view,
                             redaction=self.redaction)
        self.check_capped(chk, e, view)
        self.record(_call_id(s), view)

    def op_cap_parts(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        parts = [_part(p) for p in s["parts"]]
        joined = invariants.joined_text(parts)
        budget = _budget(s["budget"])
        disk = self.disk()
        call = _call(s)
        capped = chk.outcome(e.get("error"), lambda: self.session.cap_parts(parts, budget, call))
        if capped is None:
            return
        view = CapView.of(capped)
        fixed, _ = invariants.fixed_cost(self.session, self.costs, parts)
        invariants.check_cap(chk, self.session, disk, joined, budget, view, fixed,
                             redaction=self.redaction)
        invariants.check_parts(chk, parts, capped)
        self.check_capped(chk, e, view)
        chk.exact(e, "parts", [invariants.part_spec(p) for p in capped.parts])
        self.record(_call_id(s), view)

    def op_cap_mcp(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        sent = mcp.input_of(s["result"])
        budget = _budget(s["budget"])
        disk = self.disk()
        call = _call(s)
        resource_link = s.get("options", {}).get("resource_link", False)
        got = chk.outcome(
            e.get("error"),
            lambda: self.session.cap_mcp(sent.text, budget, call, resource_link=resource_link),
        )
        if got is None:
            return
        output = mcp.check_invariants(chk, self.session, disk, sent, budget, resource_link, got)
        if output is None:
            return
        # Recorded first: the expectations may name this step's spills.
        # `$spill:<id>` names the text's spill, `$spill:<id>-structured` the
        # structured content's; `$capped:` the text blocks.
        text = mcp.output_text(output)
        call_id = _call_id(s)
        for cid, spill in ((call_id, got.report.spill), (f"{call_id}-structured", got.structured_spill)):
            self.calls[cid] = Recorded(spill.path if spill else None, text)
            if spill is not None:
                self.refs[cid] = spill
            else:
                self.refs.pop(cid, None)
        resolved = dict(e)
        for field in ("text_contains", "text_not_contains", "notice_contains"):
            if field in e:
                resolved[field] = self.resolve_all(e[field])
        if e.get("meta_record") is not None:
            resolved["meta_record"] = _substitute_json(e["meta_record"], self.resolve)
        mcp.check_expect(chk, resolved, sent, got, output)

    def check_capped(self, chk: Checker, e: dict[str, Any], got: CapView) -> None:
        """The expectations of `cap` and `cap-parts` on their shared accounting."""
        chk.exact(e, "truncated", got.truncated)
        chk.exact(e, "spilled", got.spill is not None)
        for field in ("original_bytes", "original_lines", "omitted_bytes", "omitted_lines",
                      "gap_line", "notable_lines", "folded_lines", "original_tokens", "tokens"):
            chk.exact(e, field, getattr(got, field))
        if "spill_error_contains" in e:
            needle = e["spill_error_contains"]
            if got.spill_error is None:
                chk.fail(f"expected a spill_error containing {needle!r}, got none")
            elif needle not in got.spill_error:
                chk.fail(f"spill_error {got.spill_error!r} does not contain {needle!r}")
        if "redactions" in e:
            want = {kind: n for kind, n in e["redactions"].items() if n}
            counts = invariants.redaction_counts(got.redactions)
            if counts != want:
                chk.fail(f"redactions: expected {want!r}, got {counts!r} ({got.redactions!r})")
        if "spill_text" in e:
            self.check_spill_text(chk, build(e["spill_text"]), got)
        # The README substitutes `$spill:` / `$capped:` in every text_contains.
        # (The Rust runner does not for cap steps; no vector depends on it.)
        self.check_text(chk, e, got.text)

    def check_spill_text(self, chk: Checker, want: str, got: CapView) -> None:
        """`spill_text`: what a session that redacts its spills saved."""
        if self.redaction is None or not self.redaction.spill:
            raise VectorError("spill_text needs a session whose redaction.spill is true")
        spill_file = self.session.host_path(got.spill) if got.spill is not None else None
        if spill_file is None:
            chk.fail("spill_text is expected but nothing was spilled")
            return
        try:
            data = spill_file.read_bytes()
        except OSError as err:
            chk.fail(f"cannot read the spill file {spill_file}: {err}")
            return
        chk.exact({"spill_text": want}, "spill_text", data.decode("utf-8", "replace"))

    def op_find_refs(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        text = self.resolve(build(s["text"]))
        want = {"paths": self.resolve_all(e["paths"])} if "paths" in e else {}
        refs = chk.outcome(None, lambda: self.session.find_refs(text))
        if refs is None:
            return
        chk.exact(e, "count", len(refs))
        chk.exact(want, "paths", [r.path for r in refs])

    def op_pruned_placeholder(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        reference = self.refs.get(s["call_id"])
        if reference is None:
            raise VectorError(f"call {s['call_id']!r} has no spill reference")
        tamper = dict(s.get("tamper", {}))
        if "path" in tamper:
            tamper["path"] = self.resolve(tamper["path"])
        reference = dataclasses.replace(reference, **tamper)
        text = chk.outcome(e.get("error"), lambda: self.session.pruned_placeholder(reference))
        if text is None:
            return
        self.check_text(chk, e, text)
        found = self.session.find_refs(text)
        chk.ensure(
            [invariants.ref_key(r) for r in found] == [invariants.ref_key(reference)],
            lambda: f"find-refs of the placeholder found {found!r}, not {reference!r}",
        )

    def check_text(self, chk: Checker, e: dict[str, Any], got: str) -> None:
        contains = self.resolve_all(e.get("text_contains"))
        not_contains = self.resolve_all(e.get("text_not_contains"))
        chk.substrings(contains, not_contains, got)
        chk.exact(e, "text", got)

    def op_read(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        path = self.resolve(s["path"])
        page = chk.outcome(
            e.get("error"), lambda: self.session.read(path, s["offset"], s["max_bytes"])
        )
        if page is None:
            return
        size = invariants.utf8_len(page.text)
        chk.ensure(
            size <= s["max_bytes"],
            lambda: f"the page has {size} bytes, over {s['max_bytes']}",
        )
        self.check_page(chk, e, page)

    def op_read_lines(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        path = self.resolve(s["path"])
        page = chk.outcome(
            e.get("error"),
            lambda: self.session.read_lines(path, s["first_line"], s["count"], s["max_bytes"]),
        )
        if page is None:
            return
        chk.ensure(
            invariants.utf8_len(page.text) <= s["max_bytes"]
            and invariants.count_lines(page.text) <= s["count"],
            lambda: f"the page exceeds {s['count']} lines or {s['max_bytes']} bytes",
        )
        self.check_page(chk, e, page)

    def check_page(self, chk: Checker, e: dict[str, Any], page: Page) -> None:
        for field in ("offset", "first_line", "next_offset", "next_line", "total_bytes"):
            chk.exact(e, field, getattr(page, field))
        self.check_text(chk, e, page.text)

    def op_grep(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        path = self.resolve(s["path"])
        found = chk.outcome(
            e.get("error"), lambda: self.session.grep(path, s["pattern"], s["max_matches"])
        )
        if found is None:
            return
        chk.ensure(
            len(found.matches) <= s["max_matches"],
            lambda: f"{len(found.matches)} matches, over max_matches",
        )
        chk.exact(e, "total_matches", found.total_matches)
        if "matches" not in e:
            return
        want = e["matches"]
        if len(want) != len(found.matches):
            chk.fail(
                f"matches: expected {len(want)} entries, got {len(found.matches)}: "
                f"{found.matches!r}"
            )
            return
        for i, (w, g) in enumerate(zip(want, found.matches)):
            for field in ("line", "offset", "excerpt", "excerpt_offset"):
                chk.exact(w, field, getattr(g, field), f"matches[{i}].{field}")

    def op_prune(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        messages = [self.resolve(build(m)) for m in s["messages"]]
        p = s["policy"]
        policy = PrunePolicy(
            p.get("keep_last"), p.get("max_total_bytes"), p.get("max_total_tokens")
        )
        pruned = chk.outcome(e.get("error"), lambda: self.session.prune(messages, policy))
        if pruned is None:
            return
        invariants.check_prune(chk, self.session, messages, pruned)
        for field in ("replaced", "bytes_saved", "total_bytes", "total_tokens", "messages"):
            chk.exact(e, field, getattr(pruned, field))

    def op_host_path(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        path = self.resolve(s["path"])
        relative = e["relative"]
        if relative is not None and self.dir is None:
            raise VectorError("a mapping is expected but no directory was granted")
        # The real path of the directory the runner granted, joined with
        # `relative`: not the session's own idea of its directory.
        expected = None if relative is None or self.dir is None else self.dir / relative
        boxed = chk.outcome(None, lambda: [self.session.host_path(path)])
        if boxed is not None:
            chk.ensure(
                boxed[0] == expected,
                lambda: f"host_path({path!r}) is {boxed[0]!r}, expected {expected!r}",
            )

    def op_purge(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        freed = chk.outcome(e.get("error"), self.session.purge)
        if freed is not None:
            chk.exact(e, "freed", freed)

    def op_classify(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        body = build(s["body"])
        # `classify` answers `None` for "not an overflow", so the outcome is boxed.
        boxed = chk.outcome(None, lambda: [classify(s["status"], body)])
        if boxed is None:
            return
        overflow = boxed[0]
        chk.exact(e, "kind", overflow.kind if overflow is not None else None)
        for field in ("limit", "requested", "unit"):
            chk.exact(e, field, getattr(overflow, field) if overflow is not None else None)

    def op_estimate_tokens(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        text = build(s["text"])
        tokens = chk.outcome(None, lambda: self.session.estimate_tokens(text))
        if tokens is not None:
            chk.exact(e, "tokens", tokens)

    def op_calibrate(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        text = build(s["text"])
        scale = chk.outcome(None, lambda: self.session.calibrate(text, s["actual_tokens"]))
        if scale is None:
            return
        chk.ensure(0.5 <= scale <= 2.0, lambda: f"scale {scale} is outside 0.5..=2")
        if "scale" in e and not abs(scale - e["scale"]) <= 1e-9:
            chk.fail(f"scale: expected {e['scale']!r}, got {scale!r}")

    def op_plan(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        results = [_pending(r) for r in s["results"]]
        limits = _limits(s["limits"])
        budgets = chk.outcome(e.get("error"), lambda: self.session.plan(results, limits))
        if budgets is None:
            return
        chk.ensure(
            len(budgets) == len(results),
            lambda: f"{len(budgets)} budgets for {len(results)} results",
        )
        # Each budget is one the session accepts: a cap of the empty text
        # with it checks it and writes nothing.
        for i, b in enumerate(budgets):
            try:
                self.session.cap("", b, f"plan-check-{i}")
            except ToolCapError as err:
                chk.fail(f"budget {i} {b!r} is refused: {err}")
        chk.exact(e, "budgets", [_budget_spec(b) for b in budgets])

    def op_cap_batch(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        turn = [(_call(r), _pending(r)) for r in s["results"]]
        want = e.get("results")
        if want is not None and len(want) != len(turn):
            raise VectorError(f"{len(want)} expectations for {len(turn)} results")
        for i, w in enumerate(want or []):
            if "parts" in w and "text" in s["results"][i]:
                raise VectorError(f"results[{i}]: `parts` is an expectation of parts results")
        limits = _limits(s["limits"])
        disk = self.disk()
        out = chk.outcome(e.get("error"), lambda: self.session.cap_batch(turn, limits))
        if out is None:
            return
        if len(out) != len(turn):
            chk.fail(f"{len(out)} results for {len(turn)} pending results")
            return
        tokens = body = 0
        spill_files: list[Path] = []
        for i, ((call, pending), got) in enumerate(zip(turn, out)):
            item = Checker(f"{chk.label} result {i}", chk.failures)
            if isinstance(pending, str) and isinstance(got, Capped):
                view = CapView.of(got)
                spilled = invariants.check_cap(
                    item, self.session, disk, pending, limits.ceiling, view, planned=True,
                    redaction=self.redaction,
                )
            elif not isinstance(pending, str) and isinstance(got, CappedParts):
                view = CapView.of(got)
                fixed, _ = invariants.fixed_cost(self.session, self.costs, pending)
                joined = invariants.joined_text(pending)
                spilled = invariants.check_cap(
                    item, self.session, disk, joined, limits.ceiling, view, fixed, planned=True,
                    redaction=self.redaction,
                )
                invariants.check_parts(item, pending, got)
                if want is not None:
                    item.exact(want[i], "parts", [invariants.part_spec(p) for p in got.parts])
            else:
                item.fail(f"a {type(got).__name__} for a pending result of the other kind")
                continue
            spill_files += [spilled] if spilled is not None else []
            tokens += got.report.tokens
            body += invariants.body_bytes(self.session, self.costs, got)
            if want is not None:
                self.check_capped(item, want[i], view)
            self.record(call if isinstance(call, str) else call.id, view)
        invariants.check_directory(chk, disk, spill_files)
        if limits.max_tokens is not None:
            chk.ensure(
                tokens <= limits.max_tokens,
                lambda: f"the results take {tokens} tokens, over max_tokens {limits.max_tokens}",
            )
        if limits.max_body_bytes is not None:
            chk.ensure(
                body <= limits.max_body_bytes,
                lambda: f"the results take {body} body bytes, over max_body_bytes "
                f"{limits.max_body_bytes}",
            )

    def op_stream(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        """Written in chunks of `chunk_bytes` (cycled), given
        `exit_code_at_end` (if any) after the last write, finished, checked
        as a cap step is, and then identical to `cap` of the same input with
        that exit code in the call."""
        if "parts" in e:
            raise VectorError("`parts` is an expectation of cap-parts only")
        text = build(s["input"])
        budget = _budget(s["budget"])
        disk = self.disk()
        call = _call(s)
        exit_code = s.get("exit_code_at_end")
        # The call as it ended, for `cap` to compare with.
        ended = call if exit_code is None else dataclasses.replace(
            Call(call) if isinstance(call, str) else call, exit_code=exit_code
        )
        chunks = _chunks(text.encode("utf-8"), s["chunk_bytes"])

        def streamed() -> Capped:
            with self.session.stream(budget, call) as stream:
                for chunk in chunks:
                    stream.write(chunk)
                written = stream.bytes_written()
                chk.ensure(
                    written == utf8_len(text),
                    lambda: f"bytes_written {written} but {utf8_len(text)} were written",
                )
                if exit_code is not None:
                    stream.set_exit_code(exit_code)
                return stream.finish()

        capped = chk.outcome(e.get("error"), streamed)
        if capped is None:
            if "error" in e:
                # `cap` must refuse it the same way.
                chk.outcome(e["error"], lambda: self.session.cap(text, budget, ended))
            return
        view = CapView.of(capped)
        invariants.check_cap(chk, self.session, disk, text, budget, view,
                             redaction=self.redaction)
        self.check_capped(chk, e, view)
        self.record(_call_id(s), view)
        again_disk = self.disk()
        whole = chk.outcome(None, lambda: self.session.cap(text, budget, ended))
        if whole is None:
            return
        invariants.check_cap(chk, self.session, again_disk, text, budget, CapView.of(whole),
                             redaction=self.redaction)
        if whole.text != capped.text:
            chk.fail("the stream's text differs from cap's of the same input: "
                     + describe_difference(whole.text, capped.text))
        if whole.report != capped.report:
            fields = [f.name for f in dataclasses.fields(whole.report)
                      if getattr(whole.report, f.name) != getattr(capped.report, f.name)]
            chk.fail(f"the stream's report differs from cap's in {fields}: "
                     f"stream {capped.report!r}, cap {whole.report!r}")

    def op_read_tool(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        spec = chk.outcome(None, self.session.read_tool)
        if spec is None:
            return
        chk.exact(e, "name", spec.name)
        for needle in e.get("description_contains", []):
            if needle not in spec.description:
                chk.fail(f"the description does not contain {needle!r}: "
                         f"{excerpt(spec.description)}")
        try:
            schema = json.loads(spec.input_schema)
        except ValueError as err:
            chk.fail(f"input_schema is not JSON: {err}: {excerpt(spec.input_schema)}")
            return
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(properties, dict):
            chk.fail(f"input_schema has no properties object: {excerpt(spec.input_schema)}")
            return
        if "schema_properties" in e:
            want, got = sorted(e["schema_properties"]), sorted(properties)
            chk.ensure(want == got, lambda: f"schema properties: expected {want}, got {got}")

    def op_run_read_tool(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        arguments = _substitute_json(s["arguments"], self.resolve)
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        disk = self.disk()
        out = chk.outcome(None, lambda: self.session.run_read_tool(text))
        if out is None:
            return
        chk.exact(e, "is_error", out.is_error)
        self.check_text(chk, e, out.text)
        invariants.check_directory(chk, disk, [])

    def op_list(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        entries = chk.outcome(e.get("error"), self.session.list)
        if entries is None:
            return
        for i, entry in enumerate(entries):
            reference = entry.reference
            try:
                placeholder = self.session.pruned_placeholder(reference)
            except ToolCapError as err:
                chk.fail(f"entries[{i}]: the reference is not genuine: {err}")
                continue
            found = self.session.find_refs(placeholder)
            chk.ensure(
                [invariants.ref_key(r) for r in found] == [invariants.ref_key(reference)],
                lambda: f"entries[{i}]: find-refs of its placeholder found {found!r}",
            )
        if "entries" not in e:
            return
        want = e["entries"]
        if len(want) != len(entries):
            chk.fail(f"entries: expected {len(want)}, got {len(entries)}: {entries!r}")
            return
        for i, (w, g) in enumerate(zip(want, entries)):
            got = {
                "call_id": g.call_id,
                "tool": g.tool,
                "bytes": g.reference.bytes,
                "lines": g.reference.lines,
                "relative_path": g.reference.relative_path,
                "digest": g.reference.digest,
            }
            for name, value in got.items():
                chk.exact(w, name, value, f"entries[{i}].{name}")

    def store_dir(self) -> Path:
        if self.dir is None:
            raise VectorError("a spill-store needs a granted directory (preopen is none)")
        return self.dir

    def op_sweep(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        p = s["policy"]
        policy = RetentionPolicy(
            p.get("max_age_seconds"), p.get("max_total_bytes"), p.get("max_files")
        )
        root = self.store_dir()
        disk = self.disk()

        def sweep() -> Any:
            with open_spill_store(root) as store:
                return store.sweep(policy)

        report = chk.outcome(e.get("error"), sweep)
        if report is None:
            return
        invariants.check_directory(chk, disk, [])
        for swept in report.deleted:
            chk.ensure(
                not (root / swept.relative_path).exists(),
                lambda: f"{swept.relative_path} was reported deleted but is still there",
            )
        if "deleted" in e:
            want = e["deleted"]
            if len(want) != len(report.deleted):
                chk.fail(f"deleted: expected {len(want)} files, got {len(report.deleted)}: "
                         f"{report.deleted!r}")
            else:
                for i, (w, g) in enumerate(zip(want, report.deleted)):
                    for name in ("relative_path", "bytes", "reason"):
                        chk.exact(w, name, getattr(g, name), f"deleted[{i}].{name}")
        chk.exact(e, "kept_files", report.kept_files)
        chk.exact(e, "kept_bytes", report.kept_bytes)
        for needle in e.get("skipped_contains", []):
            if not any(needle in entry for entry in report.skipped):
                chk.fail(f"no skipped entry contains {needle!r}: {report.skipped!r}")

    def op_stats(self, chk: Checker, s: dict[str, Any], e: dict[str, Any]) -> None:
        root = self.store_dir()

        def stats() -> Any:
            with open_spill_store(root) as store:
                return store.stats()

        got = chk.outcome(e.get("error"), stats)
        if got is None:
            return
        for name in ("threads", "files", "bytes"):
            chk.exact(e, name, getattr(got, name))
