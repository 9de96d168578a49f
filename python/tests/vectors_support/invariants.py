"""What holds for every input, checked on every step whatever its
expectations say (README: "universal invariants")."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from blake3 import blake3
from tool_output_cap import (
    Audio,
    Budget,
    Capped,
    CappedParts,
    ContentPart,
    Image,
    Other,
    OverflowRef,
    Pruned,
    RedactionCount,
    RedactionPolicy,
    Resource,
    Session,
    Text,
)

from .checker import Checker, excerpt


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def count_lines(text: str) -> int:
    """Naive line count, as the WIT defines it: lines end at LF, a last line
    without LF still counts."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def tree(root: Path) -> list[Path]:
    """Every entry below `root` (links not followed), relative to it, sorted."""
    out = []
    for path in root.rglob("*"):
        out.append(path.relative_to(root))
    return sorted(out)


EXPIRED_NOTE = ".expired"
"""The note a sweep leaves in a thread folder of what it deleted."""


def meta_note(spill_file: Path) -> Path:
    """The catalog note beside a spill file: `.<spill file>.meta`."""
    return spill_file.with_name(f".{spill_file.name}.meta")


def digest_of(data: bytes) -> str:
    """A reference's `digest` of a file's bytes: the first 16 hex digits of
    its BLAKE3."""
    return blake3(data).digest()[:8].hex()


def temp_files(root: Path) -> list[Path]:
    """Entries below `root` whose name marks an unfinished write."""
    return [p for p in tree(root) if p.name.startswith(".tmp")]


@dataclass
class CapView:
    """The report shared by `Capped` and `CappedParts`, flat, with the text
    the model gets (for parts: the text parts joined by LF)."""

    text: str
    truncated: bool
    original_bytes: int
    original_lines: int
    omitted_bytes: int
    omitted_lines: int
    gap_line: Optional[int]
    notable_lines: int
    folded_lines: int
    original_tokens: int
    tokens: int
    spill: Optional[OverflowRef]
    spill_error: Optional[str]
    redactions: list[RedactionCount] = field(default_factory=list)

    @classmethod
    def of(cls, capped: Union[Capped, CappedParts]) -> "CapView":
        report = capped.report
        fields = {f.name: getattr(report, f.name) for f in dataclasses.fields(report)}
        text = capped.text if isinstance(capped, Capped) else joined_text(capped.parts)
        return cls(text=text, **fields)


def joined_text(parts: Sequence[ContentPart]) -> str:
    """The text of text parts and resource texts, in order, joined by LF: the
    document `cap-parts` budgets."""
    texts = []
    for p in parts:
        if isinstance(p, Text):
            texts.append(p.text)
        elif isinstance(p, Resource) and p.text is not None:
            texts.append(p.text)
    return "\n".join(texts)


def part_spec(p: ContentPart) -> dict[str, Any]:
    """A part as a vector writes it (absent optional fields left out)."""
    if isinstance(p, Text):
        return {"text": p.text}
    if isinstance(p, Image):
        return {"image": {"data": p.data, "mime_type": p.mime_type}}
    if isinstance(p, Audio):
        return {"audio": {"data": p.data, "mime_type": p.mime_type}}
    if isinstance(p, Resource):
        fields = {"uri": p.uri, "mime_type": p.mime_type, "text": p.text, "blob": p.blob}
        return {"resource": {k: v for k, v in fields.items() if v is not None}}
    if isinstance(p, Other):
        return {"other": p.value}
    raise TypeError(p)


@dataclass(frozen=True)
class MediaCosts:
    """The session's tokens for one image and one audio part (its
    `image_tokens` and `audio_tokens`, default 1600 and 1000)."""

    image: int = 1600
    audio: int = 1000


def json_string_len(text: str) -> int:
    """Bytes of `text` as the contents of a JSON string: `"`, `\\` and
    control characters escaped (the shortest escapes), the others as UTF-8."""
    return utf8_len(json.dumps(text, ensure_ascii=False)) - 2


def fixed_cost(
    session: Session, costs: MediaCosts, parts: Sequence[ContentPart]
) -> tuple[int, int]:
    """Tokens and body bytes of what passes through whole: an image or audio
    part at the session's fixed cost, its data and MIME type; a resource's
    blob by `estimate-tokens`, its URI, MIME type and blob; an `other` part
    by `estimate-tokens`, its JSON-string-escaped length."""
    tokens = body = 0
    for p in parts:
        if isinstance(p, (Image, Audio)):
            tokens += costs.image if isinstance(p, Image) else costs.audio
            body += utf8_len(p.data) + utf8_len(p.mime_type)
        elif isinstance(p, Resource):
            blob = p.blob or ""
            tokens += session.estimate_tokens(blob)
            body += utf8_len(blob) + utf8_len(p.uri) + utf8_len(p.mime_type or "")
        elif isinstance(p, Other):
            tokens += session.estimate_tokens(p.value)
            body += json_string_len(p.value)
    return tokens, body


def body_bytes(session: Session, costs: MediaCosts, result: Union[Capped, CappedParts]) -> int:
    """What a result adds to a request body: its text (each text part and
    resource text) as a JSON string, plus what passes through whole."""
    if isinstance(result, Capped):
        return json_string_len(result.text)
    texts = [p.text for p in result.parts if isinstance(p, (Text, Resource))]
    text_bytes = sum(json_string_len(t) for t in texts if t is not None)
    return text_bytes + fixed_cost(session, costs, result.parts)[1]


def ref_key(r: OverflowRef) -> tuple[str, str, int, int, str, str]:
    return (r.path, r.relative_path, r.bytes, r.lines, r.digest, r.tag)


@dataclass
class Disk:
    """The spill directory of a session (if any) and what was in it before a step."""

    root: Optional[Path]
    before: list[Path]


def redaction_counts(redactions: Sequence[RedactionCount]) -> dict[str, int]:
    """A report's `redactions` as `{kind: count}`, zero counts left out
    (as the vectors write them)."""
    out: dict[str, int] = {}
    for r in redactions:
        out[r.kind] = out.get(r.kind, 0) + r.count
    return {kind: n for kind, n in out.items() if n}


def check_cap(
    chk: Checker,
    session: Session,
    disk: Disk,
    input_text: str,
    budget: Budget,
    got: CapView,
    fixed_tokens: int = 0,
    planned: bool = False,
    redaction: Optional[RedactionPolicy] = None,
) -> Optional[Path]:
    """Budget respected with the notice, unchanged when it fits, exact sizes
    and token counts (`fixed_tokens`: what parts that pass through whole
    add), the spill file equal to the input, and the notice's reference
    found last. Returns the spill file, if any.

    `planned`: a result of `cap-batch`, capped with a planned budget that
    is within `budget` (the ceiling) but not known: it must be cut when it
    does not fit the ceiling, and may be cut when it does; the caller
    checks the directory once for all results (`check_directory`).

    `redaction`: the session's policy. A result in which secrets were
    replaced cannot come back unchanged: uncut, it must keep the input's
    lines (no line is added or removed). With `spill=True` the spill file
    is the redacted output: it has the reference's size and digest and
    holds none of the `literals`, instead of equalling the input."""
    size = utf8_len(input_text)
    # With secrets replaced, the cap worked on the redacted text: its bytes
    # and tokens are not the input's (its lines are).
    redacted = redaction is not None and bool(redaction_counts(got.redactions))
    chk.ensure(
        redacted or got.original_bytes == size,
        lambda: f"original_bytes {got.original_bytes} but the input has {size} bytes",
    )
    lines = count_lines(input_text)
    chk.ensure(
        got.original_lines == lines,
        lambda: f"original_lines {got.original_lines} but the input has {lines} lines",
    )
    input_tokens = session.estimate_tokens(input_text)
    bound = _sampled_bound(size, budget, got.truncated)
    _check_tokens(chk, session, input_tokens, fixed_tokens, budget, got, redacted, bound)
    fits = budget.max_bytes == 0 or (
        size <= budget.max_bytes
        and (budget.max_lines is None or lines <= budget.max_lines)
        and (budget.max_tokens is None or input_tokens <= budget.max_tokens)
    )
    if redacted and not got.truncated:
        _check_redacted_uncut(chk, input_text, got)
    elif fits and not (planned and got.truncated) and not redacted:
        _check_unchanged(chk, input_text, got)
    else:
        _check_cut(chk, input_text, budget, got)
    spill_file = _check_spill(chk, session, disk, input_text, got, redaction)
    if not planned:
        check_directory(chk, disk, [spill_file] if spill_file is not None else [])
    return spill_file


# What the WIT's `original-tokens` says a report may count from samples when
# the budget has no `max-tokens`: a cut input over 64 KiB (within 20% of the
# whole estimate), an input that fits over 16 KiB (within 30%).
_SAMPLED_CUT = (64 * 1024, 20)
_SAMPLED_FIT = (16 * 1024, 30)


def _sampled_bound(size: int, budget: Budget, truncated: bool) -> int | None:
    """The bound in percent within which the report's count of an input of
    `size` bytes may differ from the whole estimate, or None: exact."""
    exact_up_to, bound = _SAMPLED_CUT if truncated else _SAMPLED_FIT
    if budget.max_tokens is None and size > exact_up_to:
        return bound
    return None


def _tokens_agree(got: int, whole: int, fixed: int, bound: int | None) -> bool:
    if bound is None:
        return got == whole + fixed
    return got >= fixed and abs(got - fixed - whole) * 100 <= whole * bound


def _check_tokens(
    chk: Checker,
    session: Session,
    input_tokens: int,
    fixed_tokens: int,
    budget: Budget,
    got: CapView,
    redacted: bool = False,
    bound: int | None = None,
) -> None:
    """`original_tokens` and `tokens` are the session's estimates of the
    input (of the redacted input, not checked, when `redacted`) and of the
    text, plus `fixed_tokens` (within `bound` percent for counts the report
    may give from samples); the text's tokens are within `max_tokens` (what
    passes through whole is not counted against it)."""
    original = input_tokens + fixed_tokens
    chk.ensure(
        redacted or _tokens_agree(got.original_tokens, input_tokens, fixed_tokens, bound),
        lambda: f"original_tokens {got.original_tokens} but the session estimates {original}",
    )
    shown = session.estimate_tokens(got.text)
    shown_bound = None if got.truncated else bound
    chk.ensure(
        _tokens_agree(got.tokens, shown, fixed_tokens, shown_bound),
        lambda: f"tokens {got.tokens} but the session estimates {shown} + {fixed_tokens}",
    )
    limit = budget.max_tokens
    if budget.max_bytes != 0 and limit is not None:
        chk.ensure(
            shown <= limit,
            lambda: f"the text has {shown} tokens, over max_tokens {limit}",
        )


def _check_unchanged(chk: Checker, input_text: str, got: CapView) -> None:
    chk.ensure(not got.truncated, lambda: "the input fits but truncated is true")
    chk.ensure(
        got.text == input_text,
        lambda: f"the input fits but the text changed: {excerpt(got.text)}",
    )
    chk.ensure(
        got.omitted_bytes == 0
        and got.omitted_lines == 0
        and got.gap_line is None
        and got.notable_lines == 0
        and got.folded_lines == 0
        and got.spill is None
        and got.spill_error is None,
        lambda: f"the input fits but the accounting says otherwise: {got!r}",
    )


def _check_redacted_uncut(chk: Checker, input_text: str, got: CapView) -> None:
    """An uncut result whose secrets were replaced: the same lines, and
    nothing omitted or saved."""
    lines, want = count_lines(got.text), count_lines(input_text)
    chk.ensure(
        lines == want,
        lambda: f"redaction changed the number of lines: {lines}, the input has {want}",
    )
    chk.ensure(
        got.omitted_bytes == 0
        and got.omitted_lines == 0
        and got.gap_line is None
        and got.spill is None
        and got.spill_error is None,
        lambda: f"an uncut result but the accounting says otherwise: {got!r}",
    )


def _check_cut(chk: Checker, input_text: str, budget: Budget, got: CapView) -> None:
    chk.ensure(got.truncated, lambda: "the input does not fit but truncated is false")
    size = utf8_len(got.text)
    chk.ensure(
        budget.max_bytes == 0 or size <= budget.max_bytes,
        lambda: f"text has {size} bytes, over max_bytes {budget.max_bytes}",
    )
    if budget.max_lines is not None:
        lines = count_lines(got.text)
        chk.ensure(
            lines <= budget.max_lines,
            lambda: f"text has {lines} lines, over max_lines {budget.max_lines}",
        )
    chk.ensure(
        0 < got.omitted_bytes <= utf8_len(input_text),
        lambda: f"omitted_bytes {got.omitted_bytes} is impossible",
    )
    last_line = max(count_lines(input_text), 1)
    chk.ensure(
        got.gap_line is not None and 1 <= got.gap_line <= last_line,
        lambda: f"gap_line {got.gap_line} is not a line of the input",
    )
    chk.ensure(
        (got.spill is None) != (got.spill_error is None),
        lambda: "a cut result needs exactly one of spill and spill_error: "
        f"{got.spill!r} / {got.spill_error!r}",
    )
    if got.spill is not None:
        # The full notice, or the compact one of small budgets.
        notice_ok = "do not run it again" in got.text or "Do not re-run" in got.text
    else:
        notice_ok = got.spill_error is not None and "could NOT be saved" in got.text
    chk.ensure(
        notice_ok,
        lambda: f"the notice does not say what became of the full output: {excerpt(got.text)}",
    )


def _check_spill(
    chk: Checker,
    session: Session,
    disk: Disk,
    input_text: str,
    got: CapView,
    redaction: Optional[RedactionPolicy] = None,
) -> Optional[Path]:
    """The reference's paths and sizes, the spill file equal to the input
    (or, redacted, of the reference's size and digest and without the
    literals), and the reference found last in the text. Returns the spill
    file."""
    spill = got.spill
    spill_file = _check_ref_paths(chk, session, disk, spill) if spill is not None else None
    redacted_spill = redaction is not None and redaction.spill
    if spill is not None:
        if not redacted_spill:
            chk.ensure(
                spill.bytes == utf8_len(input_text) and spill.lines == count_lines(input_text),
                lambda: f"the reference's sizes do not match the input: {spill!r}",
            )
        if spill_file is not None:
            try:
                data = spill_file.read_bytes()
            except OSError as err:
                chk.fail(f"cannot read the spill file {spill_file}: {err}")
            else:
                if redacted_spill:
                    assert redaction is not None
                    _check_redacted_file(chk, spill_file, data, spill, redaction)
                else:
                    want = input_text.encode("utf-8")
                    chk.ensure(
                        data == want,
                        lambda: f"the spill file {spill_file} ({len(data)} bytes) differs "
                        f"from the input ({len(want)} bytes)",
                    )
        refs = session.find_refs(got.text)
        chk.ensure(
            bool(refs) and ref_key(refs[-1]) == ref_key(spill),
            lambda: f"find-refs of the text found {refs!r}, not the spill reference last",
        )
    return spill_file


def _check_redacted_file(
    chk: Checker, spill_file: Path, data: bytes, spill: OverflowRef, redaction: RedactionPolicy
) -> None:
    """A spill file of a session that redacts its spills: the reference
    describes it, and no literal secret is in it."""
    digest = digest_of(data)
    chk.ensure(
        len(data) == spill.bytes and digest == spill.digest,
        lambda: f"the spill file {spill_file} ({len(data)} bytes, digest {digest}) is not "
        f"the one its reference describes: {spill!r}",
    )
    for literal in redaction.literals:
        chk.ensure(
            literal.encode("utf-8") not in data,
            lambda: f"the redacted spill file {spill_file} holds the literal {literal!r}",
        )


def check_directory(chk: Checker, disk: Disk, spill_files: list[Path]) -> None:
    """No temporary file is left, and no file appeared but `spill_files`,
    their catalog notes (`.<spill file>.meta`) and a thread's `.expired`
    note (and their thread folders)."""
    root = disk.root
    if root is None:
        return
    leftovers = temp_files(root)
    chk.ensure(not leftovers, lambda: f"temporary files left behind: {leftovers}")
    new_files = [
        p
        for p in tree(root)
        if p not in disk.before
        and not (root / p).is_dir()
        and not (len(p.parts) == 2 and p.name == EXPIRED_NOTE)
    ]
    spills = [f.relative_to(root) for f in spill_files]
    allowed = spills + [meta_note(f) for f in spills]
    chk.ensure(
        all(f in allowed for f in new_files),
        lambda: f"unexpected new files: {new_files} (spill: {allowed})",
    )


def _check_ref_paths(
    chk: Checker, session: Session, disk: Disk, spill: OverflowRef
) -> Optional[Path]:
    """`relative_path` is `<thread>/<file>` (two plain names, the file named
    after the digest), `path` ends with `/` + `relative_path`, and the
    host's mapping of `path` (and of the reference) is the granted directory
    joined with `relative_path`. Returns that file (`None` if `relative_path`
    is malformed or nothing was granted)."""
    relative = spill.relative_path
    names = relative.split("/")
    shape_ok = (
        len(names) == 2
        and all(n not in ("", ".", "..") and "\\" not in n for n in names)
        and names[1].endswith(f"-{spill.digest}.txt")
    )
    chk.ensure(shape_ok, lambda: f"relative_path {relative!r} is not <thread>/<file>: {spill!r}")
    chk.ensure(
        spill.path.endswith("/" + relative),
        lambda: f"path {spill.path!r} does not end with '/' + relative_path {relative!r}",
    )
    root = disk.root
    if root is None:
        chk.fail(f"a spill reference but no directory was granted: {spill!r}")
        return None
    want = root / relative if shape_ok else None
    by_path = session.host_path(spill.path)
    chk.ensure(
        want is not None and by_path == want,
        lambda: f"host_path({spill.path!r}) is {by_path!r}, expected {want!r}",
    )
    by_ref = session.host_path(spill)
    chk.ensure(
        want is not None and by_ref == want,
        lambda: f"host_path of the reference is {by_ref!r}, expected {want!r}",
    )
    return want


def check_parts(chk: Checker, given: Sequence[ContentPart], got: CappedParts) -> None:
    """A cut result (wit/types.wit, `capped-parts.parts`): one text part where
    the first textual part was; every other textual part removed, except a
    resource that also has a blob, which stays in place with its text
    removed (after the preview if it was the first textual part); media,
    `other` parts and resources without text untouched and in place."""
    output = [part_spec(p) for p in got.parts]
    if not got.report.truncated:
        unchanged = [part_spec(p) for p in given]
        chk.ensure(output == unchanged, lambda: "the text fits but the parts changed")
        return
    expected: list[Optional[dict[str, Any]]] = []
    placed = False
    for p in given:
        textual = isinstance(p, Text) or (isinstance(p, Resource) and p.text is not None)
        if textual and not placed:
            expected.append(None)
            placed = True
        if isinstance(p, Text) or (textual and isinstance(p, Resource) and p.blob is None):
            continue
        if isinstance(p, Resource):
            expected.append(part_spec(dataclasses.replace(p, text=None)))
        else:
            expected.append(part_spec(p))
    shape = [None if "text" in spec else spec for spec in output]
    chk.ensure(
        shape == expected,
        lambda: f"non-text parts were not carried through in place: {shape} vs {expected}",
    )


def check_prune(chk: Checker, session: Session, messages: list[str], got: Pruned) -> None:
    """Accounting adds up (bytes, and tokens by `estimate-tokens` of each
    body), only listed messages changed and each shrank, and no genuine
    reference is lost."""
    before = sum(utf8_len(m) for m in messages)
    after = sum(utf8_len(m) for m in got.messages)
    chk.ensure(
        got.total_bytes == after,
        lambda: f"total_bytes {got.total_bytes} but the bodies hold {after}",
    )
    tokens = sum(session.estimate_tokens(m) for m in got.messages)
    chk.ensure(
        got.total_tokens == tokens,
        lambda: f"total_tokens {got.total_tokens} but the bodies are estimated at {tokens}",
    )
    chk.ensure(
        got.bytes_saved == max(before - after, 0),
        lambda: f"bytes_saved {got.bytes_saved} but {before} - {after} were saved",
    )
    chk.ensure(
        len(got.messages) == len(messages), lambda: "prune changed the number of messages"
    )
    for i, (old, new) in enumerate(zip(messages, got.messages)):
        listed = i in got.replaced
        chk.ensure(
            listed == (old != new),
            lambda: f"message {i}: replaced lists it: {listed}, but changed: {old != new}",
        )
        chk.ensure(
            not listed or utf8_len(new) < utf8_len(old),
            lambda: f"message {i} was replaced but did not shrink",
        )

    def paths(texts: list[str]) -> set[str]:
        return {r.path for t in texts for r in session.find_refs(t)}

    kept = paths(got.messages)
    lost = sorted(p for p in paths(messages) if p not in kept)
    chk.ensure(not lost, lambda: f"prune lost genuine references: {lost}")
