"""The Python example of ../README.md (between the PY-SECTION markers) is
run as written, so the README cannot drift from the package."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = re.search(r"<!-- PY-SECTION-START.*?-->(.*?)<!-- PY-SECTION-END -->", text, re.S)
    assert section, "the README has no PY-SECTION markers"
    blocks = re.findall(r"```python\n(.*?)```", section.group(1), re.S)
    assert len(blocks) == 1, f"expected one python block, found {len(blocks)}"
    return blocks[0]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Runs in `tmp_path`, which `tempfile.mkdtemp` then uses too."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_the_readme_example_runs(in_tmp: Path) -> None:
    code = readme_example()
    assert "from tool_output_cap import" in code and "assert" in code
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    # The example purged its thread: only the empty spill dir is left.
    assert [p for p in in_tmp.rglob("*") if p.is_file()] == []


def test_a_failing_readme_assertion_would_fail_the_test(in_tmp: Path) -> None:
    broken = readme_example().replace("total_matches == 100_000", "total_matches == 1")
    assert broken != readme_example()
    with pytest.raises(AssertionError):
        exec(compile(broken, "broken-readme", "exec"), {"__name__": "readme_example"})


PY_README = Path(__file__).resolve().parents[1] / "README.md"


def spill_examples() -> list[str]:
    """The python blocks of this package's README section on spilled
    outputs (streams, the read tool, retention), in order."""
    text = PY_README.read_text(encoding="utf-8")
    section = re.search(r"### Spilled outputs.*?(?=\nThe full semantics)", text, re.S)
    assert section, "python/README.md has no section on spilled outputs"
    blocks = re.findall(r"```python\n(.*?)```", section.group(0), re.S)
    assert len(blocks) == 3, f"expected three python blocks, found {len(blocks)}"
    return blocks


@pytest.mark.skipif(shutil.which("seq") is None, reason="the stream example runs `seq`")
def test_the_spilled_output_examples_run(in_tmp: Path) -> None:
    namespace = {"__name__": "readme_example", "spill_dir": str(in_tmp / "spill")}
    for i, code in enumerate(spill_examples()):
        exec(compile(code, f"{PY_README}#block{i}", "exec"), namespace)
