//! One server over every transport (in-process, stdio over pipes, Streamable HTTP on
//! 127.0.0.1) under 2026-07-28 and under 2025-11-25, reached by callers with identities of
//! their own: what the middleware and telemetry tests run each test body on.

use std::time::Duration;

use presa::client::{Client, ClientChannel, ClientOptions, TransportEvent};
use presa::core::{Implementation, ProtocolVersion, decode_message};
use presa::http::{AuthOptions, HttpOptions, RunningServer, VerifyError};
use presa::server::{AuthInfo, ConnectionOptions, Server, Transport};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub(crate) const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;
pub(crate) const LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// Fails a test that hangs; no test comes near it.
pub(crate) const GUARD: Duration = Duration::from_secs(60);

/// Fails a test that hangs instead of letting it hang the suite (a guard, not a timing check).
pub(crate) async fn guarded(test: impl std::future::Future<Output = ()>) {
    tokio::time::timeout(GUARD, test)
        .await
        .expect("the test hung");
}

/// The path of a built example of this package (cargo builds examples for `cargo test`).
pub(crate) fn example(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("examples")
        .join(name)
}

/// A caller: a subject and its scopes. On HTTP it is a bearer token the server's verifier reads
/// back; on stdio and in-process, the connection's identity.
#[derive(Clone, Copy)]
pub(crate) struct Caller(&'static str, &'static [&'static str]);

pub(crate) const ALICE: Caller = Caller("alice", &[]);
pub(crate) const BOB: Caller = Caller("bob", &[]);
pub(crate) const CAROL: Caller = Caller("carol", &["secret:read"]);

impl Caller {
    fn identity(self) -> AuthInfo {
        AuthInfo::new()
            .with_subject(self.0)
            .with_scopes(self.1.iter().copied())
    }

    /// Its bearer token: its subject, which the HTTP server's verifier looks up.
    fn token(self) -> &'static str {
        self.0
    }
}

const CALLERS: [Caller; 3] = [ALICE, BOB, CAROL];

/// One server, reached over one transport by as many callers as a test needs.
pub(crate) struct Harness {
    transport: Transport,
    version: ProtocolVersion,
    server: Server,
    http: Option<RunningServer>,
    clients: Vec<Client>,
}

impl Harness {
    pub(crate) async fn start(
        transport: Transport,
        version: ProtocolVersion,
        server: Server,
    ) -> Self {
        let http = match transport {
            Transport::Http => {
                let verify = |token: String| async move {
                    CALLERS
                        .iter()
                        .find(|caller| caller.token() == token)
                        .map(|caller| caller.identity())
                        .ok_or_else(|| VerifyError::Invalid("unknown token".into()))
                };
                let auth = AuthOptions::new("https://login.example.net", verify);
                let options = HttpOptions::default().auth(auth);
                Some(presa::http::serve(server.clone(), options).await.unwrap())
            }
            _ => None,
        };
        Self {
            transport,
            version,
            server,
            http,
            clients: Vec::new(),
        }
    }

    pub(crate) async fn connect(&mut self, caller: Caller) -> Client {
        self.connect_with(caller, |options| options).await
    }

    /// A client of `caller` with its options edited by `edit` (input handlers, tasks).
    pub(crate) async fn connect_with(
        &mut self,
        caller: Caller,
        edit: impl FnOnce(ClientOptions) -> ClientOptions,
    ) -> Client {
        let connection = ConnectionOptions::default().auth(caller.identity());
        let channel = match self.transport {
            Transport::InProcess => presa::in_process_with(self.server.clone(), connection),
            Transport::Stdio => stdio_pipes(self.server.clone(), connection),
            Transport::Http => {
                let url = self.http.as_ref().unwrap().url();
                let options = presa::http::HttpClientOptions::default()
                    .header("authorization", format!("Bearer {}", caller.token()));
                presa::http::client(url, options).unwrap()
            }
            other => panic!("no harness for {other:?}"),
        };
        let options = ClientOptions::new(Implementation::new("middleware-test", "1.0.0"))
            .protocol_version(Some(self.version));
        let options = edit(options);
        let client = Client::connect(channel, options).await.unwrap();
        self.clients.push(client.clone());
        client
    }

    pub(crate) async fn stop(self) {
        for client in &self.clients {
            client.close().await;
        }
        if let Some(http) = self.http {
            http.stop().await.unwrap();
        }
    }
}

/// presa-stdio's server on in-memory pipes, and a client channel on their other ends: the stdio
/// transport's framing, reading and writing, in this process.
fn stdio_pipes(server: Server, connection: ConnectionOptions) -> ClientChannel {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_io);
    let options = presa::stdio::ServeOptions::default()
        .input(server_read)
        .output(server_write)
        .connection(connection);
    tokio::spawn(presa::stdio::serve(server, options));
    let (client_read, mut client_write) = tokio::io::split(client_io);
    let (outgoing, mut to_server) = mpsc::channel::<presa::core::Transmit>(64);
    let (to_client, incoming) = mpsc::channel(64);
    tokio::spawn(async move {
        while let Some(transmit) = to_server.recv().await {
            let mut line = transmit.message.to_json().into_bytes();
            line.push(b'\n');
            if client_write.write_all(&line).await.is_err() {
                return;
            }
        }
        // the client closed: so does the server's input
        let _ = client_write.shutdown().await;
    });
    tokio::spawn(async move {
        let mut lines = BufReader::new(client_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message = decode_message(line.as_bytes()).unwrap();
            if to_client
                .send(TransportEvent::Message(message))
                .await
                .is_err()
            {
                return;
            }
        }
        let _ = to_client.send(TransportEvent::Closed(None)).await;
    });
    ClientChannel::new(outgoing, incoming).with_network("pipe", None)
}

/// Runs `scenario` on every transport under both eras.
pub(crate) async fn everywhere<F, Fut>(scenario: F)
where
    F: Fn(Transport, ProtocolVersion) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for transport in [Transport::InProcess, Transport::Stdio, Transport::Http] {
        for version in [MODERN, LEGACY] {
            tokio::time::timeout(GUARD, scenario(transport, version))
                .await
                .unwrap_or_else(|_| panic!("{transport:?} {version}: hung"));
        }
    }
}
