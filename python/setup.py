"""Puts the component into every wheel and sdist of this package, so that a
package built from a fresh clone cannot ship without `tool_output_cap.wasm`.

The metadata is in pyproject.toml; this file only adds the step that finds
the component. Where it comes from, first match wins (as the Rust crate's
build script does):
1. `TOOLCAP_WASM=/path/to/tool_output_cap.wasm`, a component built elsewhere;
2. in this repository's checkout, the guest built now with cargo (a no-op
   when it is up to date, so the wheel never carries a stale component);
3. the copy already in the source tree (an unpacked sdist carries one).
Otherwise the build fails and says how to get the component.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
ARTIFACT = "tool_output_cap.wasm"
PACKAGE = "tool_output_cap"
IN_TREE = HERE / "src" / PACKAGE / ARTIFACT
REPO = HERE.parent
GUEST_BUILD = [
    "cargo", "build", "--profile", "guest", "--target", "wasm32-wasip2",
    "-p", "toolcap-guest", "--target-dir", "target/wasm-guest",
]  # fmt: skip
GUEST_OUTPUT = REPO / "target/wasm-guest/wasm32-wasip2/guest" / ARTIFACT
HOW_TO_GET_IT = (
    "tool-output-cap: no component to package. Build it with `make guest` in the "
    "repository (needs Rust; the Makefile adds the wasm32-wasip2 target), or set "
    "TOOLCAP_WASM=/path/to/tool_output_cap.wasm, then build the package again."
)


def component() -> Path:
    """The component this build packages, or a SystemExit saying how to get one."""
    given = os.environ.get("TOOLCAP_WASM", "")
    if given:
        path = Path(given)
        if not path.is_file():
            raise SystemExit(f"tool-output-cap: TOOLCAP_WASM={given} is not a file. {HOW_TO_GET_IT}")
        return path
    if (REPO / "guest" / "Cargo.toml").is_file() and shutil.which("cargo"):
        built = subprocess.run(GUEST_BUILD, cwd=REPO, check=False)
        if built.returncode != 0 or not GUEST_OUTPUT.is_file():
            raise SystemExit(f"tool-output-cap: building the guest failed. {HOW_TO_GET_IT}")
        return GUEST_OUTPUT
    if IN_TREE.is_file():
        return IN_TREE
    raise SystemExit(HOW_TO_GET_IT)


def put_component(package_dir: Path) -> None:
    source = component()
    target = package_dir / ARTIFACT
    if target.exists() and os.path.samefile(source, target):
        return
    # The build tree may hold a hard link to the source tree's copy: replace
    # the link rather than write through it.
    target.unlink(missing_ok=True)
    package_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


class BuildPyWithComponent(build_py):
    """The wheel's package folder gets the component beside the modules."""

    def run(self) -> None:
        super().run()
        put_component(Path(self.build_lib) / PACKAGE)


class SdistWithComponent(sdist):
    """The sdist carries the component, so a wheel built from it needs no Rust."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        put_component(Path(base_dir) / "src" / PACKAGE)


setup(cmdclass={"build_py": BuildPyWithComponent, "sdist": SdistWithComponent})
