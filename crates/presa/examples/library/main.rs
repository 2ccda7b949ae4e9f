//! The `library` server: on stdio by default, or on Streamable HTTP at `/mcp` with
//! `--http HOST:PORT` (port 0 picks a free one; the URL is printed on the first line).
//!
//! ```sh
//! cargo run -p presa --example library
//! cargo run -p presa --example library -- --http 127.0.0.1:8080
//! ```

mod definitions;

use std::process::ExitCode;

use presa::http::{HttpOptions, serve};
use presa::stdio::ServeOptions;

#[tokio::main]
async fn main() -> ExitCode {
    let server = match definitions::library() {
        Ok(server) => server,
        Err(error) => {
            eprintln!("library: {error}");
            return ExitCode::FAILURE;
        }
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => presa::stdio::serve(server, ServeOptions::default())
            .await
            .map_err(|e| e.to_string()),
        [flag, address] if flag == "--http" => serve_http(server, address).await,
        _ => Err("usage: library [--http HOST:PORT]".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("library: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http(server: presa::server::Server, address: &str) -> Result<(), String> {
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
    let port: u16 = port.parse().map_err(|_| format!("not a port: {port}"))?;
    let running = serve(server, HttpOptions::default().host(host).port(port))
        .await
        .map_err(|e| e.to_string())?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running.stop().await.map_err(|e| e.to_string())
}
