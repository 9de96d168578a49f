//! The `toolcap` command: `toolcap cap` caps any command's output (or its
//! standard input), `toolcap mcp` puts a capping proxy in front of any MCP
//! server. Both run the tool-output-cap component through the
//! `tool-output-cap` host crate. `cargo run --release -p toolcap -- --help`

mod cap_command;
mod config;
mod events;
mod failure;
mod headers;
mod key_file;
mod log;
mod mcp;
mod options;
mod runtime;
mod search;
mod settings;
mod signals;
mod spills;
mod sweep;

use std::process::ExitCode;

use clap::Parser as _;

use crate::options::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Cap(args) => cap_command::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::Spills(args) => spills::run(args),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            log::line(&failure.message);
            ExitCode::from(failure.code)
        }
    }
}
