//! `presa`: inspect and call any MCP server over stdio or Streamable HTTP, from the command
//! line. See `docs/cli.md`.

use std::process::ExitCode;

use clap::Parser as _;

mod args;
mod auth;
mod commands;
mod connect;
mod failure;
mod input;
mod output;
mod progress;
mod proxy;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("presa: could not start: {error}");
            return ExitCode::from(3);
        }
    };
    let outcome = runtime.block_on(commands::run(cli.command));
    // a started server still shutting down, a forgotten read: not waited for
    runtime.shutdown_background();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if !matches!(failure, failure::Failure::ToolError) {
                eprintln!("presa: {failure}");
            }
            failure.exit_code()
        }
    }
}
