//! `vaultlink`: the MCP server for agents and the command line for people. This file only
//! wires things up; stdout belongs to the command (for `mcp`, to the protocol), logs go to
//! stderr. Exit status: 0 done, 1 `lint` found something, 2 an error.

mod apply;
mod bridge;
mod catalogue;
mod cli;
mod cli_graph;
mod discovery;
mod disk;
mod error;
mod history;
mod http;
mod journal;
mod lease;
mod link_form;
mod lock;
mod mcp;
mod moves;
mod obsidian;
// Only Windows has named pipes to check; the decision is tested everywhere.
#[cfg(any(windows, test))]
mod pipe_owner;
mod presence;
mod progress;
mod replace;
mod seal_keys;
mod standalone;
mod state;
mod store;
mod tools;
mod trash;
mod watch;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VAULTLINK_LOG").unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_ansi(false)
        .init();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("vaultlink: could not start: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    match runtime.block_on(cli::run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("vaultlink: {error:#}");
            std::process::ExitCode::from(2)
        }
    }
}
