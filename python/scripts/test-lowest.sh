#!/bin/sh
# Runs the Python suite on the lowest wasmtime-py the package supports:
# requirements-lowest.txt (hash-pinned) in its own venv, python/.venv-lowest,
# installed on first use and again when that file changes. Extra arguments go
# to pytest. The component comes from $TOOLCAP_WASM, else the package's copy
# (`make py-setup`). With INSTALL_ONLY=1 it only installs (`make deps`). From
# the repository root:
#
#   make py-setup && sh python/scripts/test-lowest.sh
set -eu
cd "$(dirname "$0")/.."
venv=.venv-lowest
stamp=$venv/.installed
if [ ! -f "$stamp" ] || [ requirements-lowest.txt -nt "$stamp" ]; then
    test -x "$venv/bin/python" || "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-cache-dir --require-hashes --only-binary :all: -r requirements-lowest.txt
    touch "$stamp"
fi
[ -z "${INSTALL_ONLY:-}" ] || exit 0
exec "$venv/bin/python" -m pytest "$@"
