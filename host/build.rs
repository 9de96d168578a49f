//! Finds the tool-output-cap component and puts it in `OUT_DIR` as
//! `tool_output_cap.wasm`, so the library embeds it with `include_bytes!`.
//!
//! Where it comes from, first match wins (as wasmtime's
//! `wasi-preview1-component-adapter-provider` ships its adapter):
//! 1. `TOOLCAP_WASM=/path/to/tool_output_cap.wasm`, a component built elsewhere;
//! 2. `tool_output_cap.wasm` packaged beside this file (`make package` puts it
//!    there; the published crate carries it, so a dependent builds no guest);
//! 3. in this repository's checkout, the guest crate built here, into
//!    `OUT_DIR` only.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const ARTIFACT: &str = "tool_output_cap.wasm";
const WASM_ENV: &str = "TOOLCAP_WASM";
const GUEST_TARGET: &str = "wasm32-wasip2";
const GUEST_PROFILE: &str = "guest";
const GUEST_PACKAGE: &str = "toolcap-guest";

/// Variables the outer cargo sets for *this* build that must not reach the
/// nested guest build: host rustflags (for example `-C target-cpu=native` or
/// coverage flags) are wrong for wasm, a forced target or target dir would
/// redirect it, and clippy's workspace wrapper would lint the guest on every
/// host build. The jobserver (`CARGO_MAKEFLAGS`) is deliberately kept: the
/// nested cargo then shares the outer `-j` limit instead of adding its own.
const LEAKY_ENV: &[&str] = &[
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "CARGO_BUILD_TARGET",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "RUSTC_WORKSPACE_WRAPPER",
    "CLIPPY_ARGS",
    "CARGO_PRIMARY_PACKAGE",
];

fn main() {
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let embedded = out_dir.join(ARTIFACT);

    println!("cargo::rustc-check-cfg=cfg(toolcap_readme)");
    // In the repository, the README's Rust example runs as a doc test of this crate.
    if manifest_dir.join("../README.md").is_file() && manifest_dir.join("../guest").is_dir() {
        println!("cargo::rustc-cfg=toolcap_readme");
    }
    println!("cargo::rerun-if-env-changed={WASM_ENV}");
    if let Some(given) = env::var_os(WASM_ENV).filter(|path| !path.is_empty()) {
        let given = PathBuf::from(given);
        println!("cargo::rerun-if-changed={}", given.display());
        copy(&given, &embedded);
        return;
    }

    let packaged = manifest_dir.join(ARTIFACT);
    if packaged.is_file() {
        println!("cargo::rerun-if-changed={}", packaged.display());
        copy(&packaged, &embedded);
        return;
    }
    // Not packaged (yet): a `make package` that adds it must rerun this script.
    println!("cargo::rerun-if-changed={}", manifest_dir.display());

    let workspace = manifest_dir
        .parent()
        .filter(|root| root.join("guest").join("Cargo.toml").is_file());
    let Some(workspace) = workspace else {
        fail(&format!(
            "no component to embed: set {WASM_ENV}=/path/to/{ARTIFACT}, or use a packaged \
             crate (`make package` in the tool-output-cap repository)"
        ));
    };
    for input in [
        "guest/src",
        "guest/Cargo.toml",
        "core/src",
        "core/Cargo.toml",
        "wit",
        "Cargo.toml",
        "Cargo.lock",
        // Target rustflags of the guest (wasm SIMD).
        ".cargo/config.toml",
    ] {
        println!(
            "cargo::rerun-if-changed={}",
            workspace.join(input).display()
        );
    }

    require_guest_target();
    let target_dir = out_dir.join("guest-target");
    build_guest(workspace, &target_dir, &out_dir);
    let artifact = target_dir
        .join(GUEST_TARGET)
        .join(GUEST_PROFILE)
        .join(ARTIFACT);
    copy(&artifact, &embedded);
}

/// Fails early with the fix when the standard library for the guest target is
/// missing; otherwise the nested build would bury it in "can't find crate for `core`".
fn require_guest_target() {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .args(["--print", "target-libdir", "--target", GUEST_TARGET])
        .output();
    let libdir = match output {
        Ok(out) if out.status.success() => {
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        }
        // An old rustc that does not know the target at all.
        _ => fail(&format!(
            "rustc does not know the {GUEST_TARGET} target; use Rust 1.82 or newer"
        )),
    };
    if !libdir.is_dir() {
        fail(&format!(
            "the {GUEST_TARGET} target is not installed (no {}).\n\
             run: rustup target add {GUEST_TARGET}",
            libdir.display()
        ));
    }
}

/// Runs `cargo build` for the guest in its own target dir under `OUT_DIR`, so
/// it never waits on the lock the outer build holds and writes nothing else.
fn build_guest(workspace: &Path, target_dir: &Path, out_dir: &Path) {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("build")
        .args(["--profile", GUEST_PROFILE])
        .args(["--target", GUEST_TARGET])
        .args(["-p", GUEST_PACKAGE])
        .arg("--target-dir")
        .arg(target_dir)
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        .current_dir(workspace);
    for name in LEAKY_ENV {
        command.env_remove(name);
    }
    // Captured, not inherited: a build script's stdout is parsed for `cargo:` lines.
    let output = command
        .output()
        .unwrap_or_else(|err| fail(&format!("could not run cargo for the guest: {err}")));
    // Kept for debugging the nested build without `cargo build -vv`.
    let log = [output.stdout.as_slice(), output.stderr.as_slice()].concat();
    let _ = fs::write(out_dir.join("guest-build.log"), log);
    if !output.status.success() {
        fail(&format!(
            "building the guest component failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
}

fn copy(from: &Path, to: &Path) {
    if let Err(err) = fs::copy(from, to) {
        fail(&format!(
            "could not copy {} to {}: {err}",
            from.display(),
            to.display()
        ));
    }
}

/// Stops the build with one readable message (no build-script backtrace).
fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}
