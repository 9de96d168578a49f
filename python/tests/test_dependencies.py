"""The wasmtime-py range the package declares, and the two ends of it the
suite runs on: requirements-dev.txt pins the newest, requirements-lowest.txt
the lowest (`sh scripts/test-lowest.sh`), each with hashes."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

PY_ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)==(?P<version>\S+) \\$", re.M)


def wasmtime_range() -> Requirement:
    project = tomllib.loads((PY_ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    (dependency,) = project["dependencies"]
    requirement = Requirement(dependency)
    assert requirement.name == "wasmtime"
    return requirement


def pins(name: str) -> dict[str, str]:
    return {m["name"]: m["version"] for m in PIN.finditer((PY_ROOT / name).read_text("utf-8"))}


def test_the_range_is_bounded_by_the_two_pins() -> None:
    specifier = wasmtime_range().specifier
    lowest = Version(pins("requirements-lowest.txt")["wasmtime"])
    newest = Version(pins("requirements-dev.txt")["wasmtime"])
    assert {(s.operator, Version(s.version)) for s in specifier} == {
        (">=", lowest),
        ("<", Version(f"{newest.major + 1}")),
    }, f"expected wasmtime>={lowest},<{newest.major + 1}, got {specifier}"


def test_both_pin_files_agree_on_everything_but_wasmtime() -> None:
    def after_wasmtime(name: str) -> str:
        text = (PY_ROOT / name).read_text("utf-8")
        return text[text.index("\n# The test runner") :]

    assert after_wasmtime("requirements-lowest.txt") == after_wasmtime("requirements-dev.txt")
    assert len(pins("requirements-dev.txt")) >= 10


def test_the_installed_wasmtime_is_in_the_range() -> None:
    installed = importlib.metadata.version("wasmtime")
    assert installed in wasmtime_range().specifier
