//! [`serve`](super::serve)'s accept loop: hyper HTTP/1 connections with a timer, so that the
//! header-read timeout is in force (`axum::serve` runs hyper without one, which leaves that
//! timeout off), `TCP_NODELAY` on each socket, at most so many connections at once, and a
//! graceful stop.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

use super::options::HttpOptions;

/// What a connection past the cap is told before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\n\
content-type: text/plain\r\ncontent-length: 37\r\nconnection: close\r\n\r\n\
Too many connections; retry shortly.\n";

/// How many connections past the cap are being told so at once; more are closed unanswered.
const MOST_TURNED_AWAY: usize = 64;

/// Serves `app` on `listener` until `stop` resolves, then lets every connection finish what it
/// is answering (`on_stop` runs first: it ends the sessions' streams) and returns once all are
/// closed.
pub(crate) async fn run(
    listener: TcpListener,
    app: Router,
    options: &HttpOptions,
    stop: impl Future<Output = ()>,
    on_stop: impl FnOnce(),
) -> io::Result<()> {
    let permits = Arc::new(Semaphore::new(options.max_connections));
    let turning_away = Arc::new(Semaphore::new(MOST_TURNED_AWAY));
    let (closing, closing_seen) = watch::channel(false);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        .keep_alive(true);
    tokio::pin!(stop);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                Err(error) => {
                    pause_after(&error).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(target: "presa_http", "could not set TCP_NODELAY: {error}");
        }
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
            // a flood past the cap costs at most so many sockets held for a second
            if let Ok(telling) = Arc::clone(&turning_away).try_acquire_owned() {
                tokio::spawn(async move {
                    turn_away(tcp).await;
                    drop(telling);
                });
            }
            continue;
        };
        let connection =
            builder.serve_connection(TokioIo::new(tcp), TowerToHyperService::new(app.clone()));
        let mut closing_seen = closing_seen.clone();
        tokio::spawn(async move {
            let _permit = permit;
            tokio::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => return log_end(result),
                _ = closing_seen.wait_for(|closing| *closing) => {}
            }
            connection.as_mut().graceful_shutdown();
            log_end(connection.await);
        });
    }
    drop(listener);
    on_stop();
    drop(closing_seen);
    // every connection task holds a receiver: `closed` resolves once the last has ended
    let _ = closing.send(true);
    closing.closed().await;
    Ok(())
}

fn log_end(result: hyper::Result<()>) {
    if let Err(error) = result {
        tracing::debug!(target: "presa_http", "connection ended: {error}");
    }
}

/// A connection past the cap: told to come back, then closed (a peer that does not read is
/// not waited for).
async fn turn_away(mut tcp: TcpStream) {
    let told = async {
        tcp.write_all(BUSY).await?;
        tcp.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), told).await;
}

/// After a failed accept: a connection that failed on its way in is nothing to wait for; any
/// other error (out of file descriptors, above all) would fail again at once, so the loop
/// waits a moment before the next accept.
async fn pause_after(error: &io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::warn!(target: "presa_http", "accepting a connection failed: {error}");
    tokio::time::sleep(Duration::from_millis(100)).await;
}
