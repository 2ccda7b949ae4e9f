//! "notes": a small MCP server in presa's typed tier, on stdio by default or on Streamable HTTP
//! at `/mcp` with `--http HOST:PORT`.
//!
//! ```sh
//! cargo run -p presa --example notes
//! cargo run -p presa --example notes -- --http 127.0.0.1:8080
//! ```

mod definitions;

use std::process::ExitCode;

use definitions::{Notes, notes_server};

#[tokio::main]
async fn main() -> ExitCode {
    let notes = Notes::default();
    // a first note, so that there is something to look at
    notes.add(
        "Welcome".into(),
        "This is the notes server. Add notes with add_note and search them with search_notes."
            .into(),
        vec!["intro".into()],
    );
    let server = match notes_server(notes) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("notes: {error}");
            return ExitCode::FAILURE;
        }
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => presa::stdio::serve(server, presa::stdio::ServeOptions::default())
            .await
            .map_err(|e| e.to_string()),
        [flag, address] if flag == "--http" => serve_http(server, address).await,
        _ => Err("usage: notes [--http HOST:PORT]".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("notes: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http(server: presa::server::Server, address: &str) -> Result<(), String> {
    let (host, port) = address.rsplit_once(':').ok_or("--http takes HOST:PORT")?;
    let port: u16 = port.parse().map_err(|_| format!("not a port: {port}"))?;
    let options = presa::http::HttpOptions::default().host(host).port(port);
    let running = presa::http::serve(server, options)
        .await
        .map_err(|e| e.to_string())?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running.stop().await.map_err(|e| e.to_string())
}
