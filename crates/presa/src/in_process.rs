//! A client and a server in one process, over the real protocol path.

use presa_client::{ClientChannel, Incoming};
use presa_core::Transmit;
use presa_server::{ConnectionOptions, Inputs, Server, ServerChannel, Transport, serve_connection};
use tokio::sync::mpsc;

/// How many messages may wait in each direction.
const QUEUE: usize = 64;

/// Connects a client to `server` in this process.
///
/// Messages are serialized to JSON and parsed again on the other side, so the client and the
/// server run exactly as they would over stdio, in both protocol eras. Must be called inside a
/// tokio runtime; the server runs on a task of its own until the client closes.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use presa::client::{Client, ClientOptions};
/// use presa::server::{Context, Server};
/// use presa::core::Tool;
/// use serde_json::Value;
///
/// let server = Server::builder("demo", "1.0.0")
///     .tool_sync(Tool::without_params("ping"), |_: Value, _: Context| "pong")
///     .build()
///     .unwrap();
/// let client = Client::connect(presa::in_process(server), ClientOptions::default()).await.unwrap();
/// let result = client.call_tool("ping", serde_json::json!({})).await.unwrap();
/// assert_eq!(result.content[0].as_text(), Some("pong"));
/// # });
/// ```
pub fn in_process(server: Server) -> ClientChannel {
    in_process_with(server, ConnectionOptions::default())
}

/// [`in_process`] with connection options for the server side.
pub fn in_process_with(server: Server, options: ConnectionOptions) -> ClientChannel {
    // Each end serializes and parses what it takes from the other, on its own task: a message
    // goes from one connection's task straight to the other's.
    let (to_server, from_client) = mpsc::channel::<Transmit>(QUEUE);
    let (to_client, from_server) = mpsc::channel::<Transmit>(QUEUE);
    tokio::spawn(serve_connection(
        server,
        ServerChannel {
            incoming: Inputs::serialized(from_client),
            outgoing: to_client,
        },
        options.transport(Transport::InProcess),
    ));
    ClientChannel::new(to_server, Incoming::serialized(from_server))
}
