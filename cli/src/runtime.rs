//! The compiled component, shared by the subcommands.

use tool_output_cap::{COMPONENT_WASM, RuntimeOptions, Start, ToolCap};

use crate::failure::Failure;

/// Compiles the component, through wasmtime's on-disk cache of compiled
/// code in `<cache dir>/toolcap/compiled` when there is a cache directory:
/// compiling takes about a second, loading the cached code milliseconds,
/// and `toolcap cap` runs once per command. Without a usable cache, it
/// compiles.
pub fn tool_cap(options: &RuntimeOptions) -> Result<ToolCap, Failure> {
    if let Some(cache) = dirs::cache_dir().map(|dir| dir.join("toolcap").join("compiled")) {
        let cached = RuntimeOptions {
            compiled_code_cache: Some(cache),
            ..options.clone()
        };
        if let Ok(tool_cap) = ToolCap::with_options(COMPONENT_WASM, &cached) {
            return Ok(tool_cap);
        }
    }
    ToolCap::with_options(COMPONENT_WASM, options)
        .map_err(|e| Failure::failed(format!("cannot load the component: {e}")))
}

/// The options of a command that runs once and exits (`cap`, `spills`): the
/// optimized code from the start, which the cache loads in milliseconds. A
/// tiered start would compile it on a thread that dies with the process,
/// every time, and never reach the cache. `toolcap mcp` lives long and
/// starts tiered: it answers at once.
pub fn one_shot() -> RuntimeOptions {
    RuntimeOptions {
        start: Start::Optimized,
        ..RuntimeOptions::default()
    }
}
