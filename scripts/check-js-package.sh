#!/bin/sh
# `make package`: the npm package as a dependent gets it. Packs js/ (after
# `make js-setup` has transpiled the component into js/generated/), installs
# the tarball into a scratch project outside the repository with an empty
# npm cache, and runs the README's JavaScript block there.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

tarball=$(cd "$root/js" && npm pack --silent --pack-destination "$scratch")
mkdir "$scratch/app"
cd "$scratch/app"
echo '{ "name": "scratch-dependent", "version": "0.0.0", "private": true, "type": "module" }' > package.json
npm install --silent --no-audit --no-fund --cache "$scratch/npm-cache" "$scratch/$tarball"

python3 "$root/scripts/readme-block.py" "$root/README.md" JS js > example.mjs
env -u TOOLCAP_WASM TMPDIR="$scratch" node example.mjs
echo "npm package: $tarball installed outside the repository runs the README example"
