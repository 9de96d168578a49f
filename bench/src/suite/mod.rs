//! The comparisons of the report, one module per question bench/README.md
//! answers.
//! Each suite appends its rows; a suite runs only if the filter names it.

pub mod cap_mcp;
pub mod component;
pub mod core_cap;
pub mod hosts;
pub mod mcp_http;
pub mod mcp_proxy;
pub mod memory;
pub mod readback;
pub mod recall;
pub mod refs;
pub mod startup;
pub mod stream;
pub mod tokens;
pub mod toolcap;
pub mod toolcap_cap;

use crate::measure::Plan;
use crate::table::Row;

/// A suite: its name (for the filter) and how to run it.
pub struct Suite {
    /// Name given on the command line to run only this suite.
    pub name: &'static str,
    /// Measures and appends rows.
    pub run: fn(Plan, &mut Vec<Row>),
}

/// Every suite, in table order.
pub const ALL: [Suite; 10] = [
    Suite {
        name: "core",
        run: core_cap::run,
    },
    Suite {
        name: "call",
        run: component::run_call_overhead,
    },
    Suite {
        name: "spill",
        run: component::run_spill,
    },
    Suite {
        name: "stream",
        run: stream::run,
    },
    Suite {
        name: "startup",
        run: startup::run,
    },
    Suite {
        name: "refs",
        run: refs::run,
    },
    Suite {
        name: "readback",
        run: readback::run,
    },
    Suite {
        name: "hosts",
        run: hosts::run,
    },
    Suite {
        name: "tokens",
        run: tokens::run,
    },
    Suite {
        name: "toolcap",
        run: toolcap::run,
    },
];
