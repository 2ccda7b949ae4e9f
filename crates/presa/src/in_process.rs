//! A client and a server in one process, over the real protocol path.

use presa_client::{ClientChannel, TransportError, TransportErrorKind, TransportEvent};
use presa_core::{Transmit, decode_message};
use presa_server::{
    ConnectionOptions, Incoming, Server, ServerChannel, Transport, serve_connection,
};
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
    let (client_out, mut from_client) = mpsc::channel::<Transmit>(QUEUE);
    let (to_client, client_in) = mpsc::channel::<TransportEvent>(QUEUE);
    let (to_server, server_in) = mpsc::channel::<Incoming>(QUEUE);
    let (server_out, mut from_server) = mpsc::channel(QUEUE);

    tokio::spawn(serve_connection(
        server,
        ServerChannel {
            incoming: server_in,
            outgoing: server_out,
        },
        options.transport(Transport::InProcess),
    ));
    // client → server: serialized, then decoded by the connection like a stdio line
    tokio::spawn(async move {
        while let Some(transmit) = from_client.recv().await {
            if to_server
                .send(Incoming::Frame(transmit.message.to_json().into_bytes()))
                .await
                .is_err()
            {
                break;
            }
        }
    });
    // server → client: serialized and decoded again
    tokio::spawn(async move {
        while let Some(transmit) = from_server.recv().await {
            let event = match decode_message(transmit.message.to_json().as_bytes()) {
                Ok(message) => TransportEvent::Message(message),
                Err(error) => TransportEvent::Closed(Some(TransportError::new(
                    TransportErrorKind::Protocol,
                    format!("server sent an undecodable message: {error}"),
                ))),
            };
            if to_client.send(event).await.is_err() {
                return;
            }
        }
        let _ = to_client.send(TransportEvent::Closed(None)).await;
    });
    ClientChannel::new(client_out, client_in)
}
