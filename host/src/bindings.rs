//! Host bindings generated from the WIT (`wit/`), the single source of truth.

// Equality lets hosts compare references and results directly. `PartialEq`
// only: the settings carry a float (`token-scale`). With the `serde` feature
// the records also (de)serialize, as serde's derive writes them.
macro_rules! generate {
    ($($derive:path),*) => {
        wasmtime::component::bindgen!({
            // `wit` links to the workspace's `wit/`, and `cargo package` copies it in.
            path: "wit",
            world: "tool-output-cap",
            additional_derives: [PartialEq $(, $derive)*],
        });
    };
}

#[cfg(not(feature = "serde"))]
generate!();
#[cfg(feature = "serde")]
generate!(serde::Serialize, serde::Deserialize);

/// The WIT `types` interface: budgets, results, references and errors.
pub use toolcap::tool_output_cap::types;

/// The `session` resource's functions, as exported by the component.
pub(crate) use exports::toolcap::tool_output_cap::capper::GuestSession;
