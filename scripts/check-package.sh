#!/bin/sh
# `make package`: builds a scratch project that depends on the packaged
# `tool-output-cap` crate (the .crate file `cargo package` wrote, unpacked)
# by path, with no guest sources in reach and TOOLCAP_WASM unset, and runs it:
# the component must come from inside the crate. The workspace's target dir
# and lock file are reused, so wasmtime is not compiled again.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)
crate="$root/target/package/tool-output-cap-$version.crate"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

tar -xzf "$crate" -C "$scratch"
unpacked="$scratch/tool-output-cap-$version"
test -f "$unpacked/tool_output_cap.wasm" || { echo "the .crate has no tool_output_cap.wasm" >&2; exit 1; }
test -f "$unpacked/wit/types.wit" || { echo "the .crate has no wit/" >&2; exit 1; }

mkdir -p "$scratch/app/src"
cat > "$scratch/app/Cargo.toml" <<TOML
[package]
name = "scratch-dependent"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
# The features of the workspace build (the benches turn on the cache one), so
# that wasmtime is reused from its target dir, not compiled again.
tool-output-cap = { path = "$unpacked", features = ["cache"] }

[workspace]
TOML
cat > "$scratch/app/src/main.rs" <<'RS'
use tool_output_cap::{Budget, SessionConfig, ToolCap};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spill = std::env::temp_dir().join(format!("toolcap-scratch-{}", std::process::id()));
    std::fs::create_dir_all(&spill)?;
    let mut session = ToolCap::new()?.open_session(SessionConfig::new("t1", &spill))?;
    let capped = session.cap(&"x\n".repeat(50_000), &Budget::new(4096), "c1")?;
    assert!(capped.report.truncated && capped.text.len() <= 4096 && capped.report.spill.is_some());
    std::fs::remove_dir_all(&spill)?;
    println!("packaged crate: capped {} bytes to {}", capped.report.original_bytes, capped.text.len());
    Ok(())
}
RS
cp "$root/Cargo.lock" "$scratch/app/Cargo.lock"
cd "$scratch/app"
CARGO_TARGET_DIR="$root/target" cargo run --release --quiet
