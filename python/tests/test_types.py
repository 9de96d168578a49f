"""The package's types, checked by mypy like the JS package's .d.ts by tsc
(../js/test/types.test.js): one `mypy --strict` run (configured in
pyproject.toml) over the package, `tests/typing/usage.py` (the public API used
as a typed host would, with `assert_type` on every result and field) and
`tests/typing/misuse.py` (misuse the types must refuse, each line marked
`# expect: <code>`).

The package and the usage file must be free of errors; the misuse file must
get exactly the marked errors: one the types no longer catch fails the test,
and so does an error on an unmarked line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

PY_ROOT = Path(__file__).resolve().parents[1]
TYPING = PY_ROOT / "tests" / "typing"
MISUSE = TYPING / "misuse.py"
# `path:line: error: message  [code]`, as mypy prints without --pretty.
ERROR = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): error: .*?(?:  \[(?P<code>[a-z-]+)\])?$")
EXPECT = re.compile(r"#\s*expect:\s*(?P<code>[a-z-]+)\s*$")


@pytest.fixture(scope="module")
def mypy_errors() -> dict[str, list[tuple[int, str]]]:
    """mypy's errors, by file relative to python/: (line, code) pairs."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "pyproject.toml",
            "--no-pretty",
            "--show-error-codes",
            "--no-error-summary",
            "src/tool_output_cap",
            "tests/typing/usage.py",
            "tests/typing/misuse.py",
        ],
        cwd=PY_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # 0: no errors, 1: errors found; 2 is a crash or bad configuration.
    assert run.returncode in (0, 1) and not run.stderr, run.stdout + run.stderr
    errors: dict[str, list[tuple[int, str]]] = {}
    for line in run.stdout.splitlines():
        if ": note: " in line:
            continue
        m = ERROR.match(line)
        assert m, f"unexpected mypy output line: {line!r}\n{run.stdout}"
        path = Path(m["path"]).as_posix()
        errors.setdefault(path, []).append((int(m["line"]), m["code"] or "?"))
    return errors


def expected_misuse() -> list[tuple[int, str]]:
    lines = MISUSE.read_text(encoding="utf-8").splitlines()
    return [(n, m["code"]) for n, text in enumerate(lines, 1) if (m := EXPECT.search(text))]


def test_the_package_and_its_typed_use_check_strictly(
    mypy_errors: dict[str, list[tuple[int, str]]],
) -> None:
    clean = {p: e for p, e in mypy_errors.items() if p != "tests/typing/misuse.py"}
    assert clean == {}, f"mypy --strict found errors: {clean}"


def test_every_marked_misuse_is_refused_and_nothing_else(
    mypy_errors: dict[str, list[tuple[int, str]]],
) -> None:
    expected = expected_misuse()
    assert len(expected) >= 10, "the misuse file lost its markers"
    got = sorted(set(mypy_errors.get("tests/typing/misuse.py", [])))
    missed = [e for e in expected if e not in got]
    unexpected = [e for e in got if e not in expected]
    assert not missed, f"misuse mypy no longer refuses (line, code): {missed}"
    assert not unexpected, f"errors on unmarked lines or of other codes: {unexpected}"
