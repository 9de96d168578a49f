#!/bin/sh
# `make package`: the Python package as a dependent gets it. Builds the wheel
# from python/ (the build puts the component in it, see python/setup.py),
# installs it with its dependencies from PyPI into a fresh venv outside the
# repository, with no cache, and runs the README's Python block there, where
# nothing of the checkout is importable.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

pip_quiet="--quiet --disable-pip-version-check --no-cache-dir"
"${PYTHON:-python3}" -m venv "$scratch/venv"
"$scratch/venv/bin/python" -m pip wheel $pip_quiet --no-deps -w "$scratch/dist" "$root/python"
rm -rf "$root/python/build" "$root/python/src/tool_output_cap.egg-info"
wheel=$(ls "$scratch"/dist/tool_output_cap-*.whl)
unzip -l "$wheel" | grep -q 'tool_output_cap/tool_output_cap.wasm' \
    || { echo "the wheel has no tool_output_cap.wasm" >&2; exit 1; }
"$scratch/venv/bin/python" -m pip install $pip_quiet "$wheel"

python3 "$root/scripts/readme-block.py" "$root/README.md" PY python > "$scratch/example.py"
cd "$scratch"
env -u TOOLCAP_WASM -u PYTHONPATH TMPDIR="$scratch" "$scratch/venv/bin/python" example.py
echo "python package: $(basename "$wheel") installed outside the repository runs the README example"
