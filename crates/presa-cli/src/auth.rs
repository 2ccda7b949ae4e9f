//! OAuth: `presa auth login|status|logout`, and the kept tokens every command on a URL uses.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use presa::client::BoxFuture;
use presa::http::TokenError;
use presa::oauth::{
    AuthorizationHandler, ClientCredentials, FileTokenStore, OAuthClient, OAuthError, OAuthOptions,
    StoredTokens, TokenStore as _,
};
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use crate::args::AuthCommand;
use crate::failure::{Failure, chain};
use crate::output::{json_line, table};

/// Runs `presa auth …`.
pub(crate) async fn run(command: AuthCommand) -> Result<(), Failure> {
    match command {
        AuthCommand::Login {
            url,
            no_browser,
            scopes,
            client_id,
            client_secret,
            client_metadata_url,
            timeout,
        } => {
            let mut options = OAuthOptions::default();
            if !scopes.is_empty() {
                options = options.scopes(scopes);
            }
            if let Some(id) = client_id {
                let mut credentials = ClientCredentials::new(id);
                if let Some(secret) = client_secret {
                    credentials = credentials.client_secret(secret);
                }
                options = options.credentials(credentials);
            }
            if let Some(metadata) = client_metadata_url {
                options = options.client_metadata_url(metadata);
            }
            let login = login(&url, options, !no_browser);
            tokio::time::timeout(Duration::from_secs(timeout), login)
                .await
                .map_err(|_| Failure::Transport(format!("no login within {timeout} s")))?
        }
        AuthCommand::Status { url, json } => status(url.as_deref(), json).await,
        AuthCommand::Logout { url, all } => logout(url.as_deref(), all).await,
    }
}

/// The store every command keeps tokens in.
pub(crate) fn store() -> Result<FileTokenStore, Failure> {
    FileTokenStore::in_config_dir().map_err(|e| Failure::Usage(chain(&e)))
}

/// The OAuth client of a command on `url`: the kept tokens, refreshed when they expire; no
/// login (a server that refuses without one fails, naming `presa auth login`). `None` where
/// no tokens can be kept (no home directory).
pub(crate) fn kept(url: &str) -> Option<OAuthClient> {
    let options = OAuthOptions::default().token_store(store().ok()?);
    OAuthClient::new(url, options).ok()
}

/// Whether `error` (a failed command's) says the server wanted a login presa does not have.
pub(crate) fn needs_login(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if matches!(
            error.downcast_ref::<OAuthError>(),
            Some(OAuthError::NoAuthorizationHandler)
        ) {
            return true;
        }
        cause = error.source();
    }
    false
}

async fn login(url: &str, options: OAuthOptions, open: bool) -> Result<(), Failure> {
    let store = store()?;
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| Failure::Transport(format!("no loopback port for the login: {e}")))?;
    let address = listener
        .local_addr()
        .map_err(|e| Failure::Transport(e.to_string()))?;
    let options = options
        .client_name("presa")
        .redirect_uri(format!("http://{address}/callback"))
        .token_store(store.clone())
        .authorization_handler(Loopback {
            listener: Arc::new(listener),
            address,
            open,
        });
    let oauth = OAuthClient::new(url, options).map_err(|e| Failure::Usage(chain(&e)))?;
    oauth
        .authorize()
        .await
        .map_err(|e| Failure::Protocol(format!("login to {url} failed: {}", chain(&e))))?;
    let issuer = oauth
        .tokens()
        .map(|tokens| tokens.issuer)
        .unwrap_or_default();
    println!(
        "logged in to {url} (tokens from {issuer}, kept in {})",
        store.path().display()
    );
    Ok(())
}

/// Shows the user the authorization page and takes the redirect on a loopback port.
struct Loopback {
    listener: Arc<TcpListener>,
    address: SocketAddr,
    open: bool,
}

impl AuthorizationHandler for Loopback {
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, TokenError>> {
        Box::pin(async move {
            eprintln!("Open this page to log in:\n  {url}");
            if self.open && !open_browser(url) {
                eprintln!("(no browser could be opened: open the page yourself)");
            }
            // only the answer to this very request ends the login: its `state`
            let state = query_value(url, "state");
            let (answers, mut answered) = tokio::sync::mpsc::channel::<String>(1);
            loop {
                tokio::select! {
                    accepted = self.listener.accept() => {
                        let (stream, _) = accepted?;
                        // each connection on its own: a browser's idle preconnect holds up nothing
                        let (answers, state) = (answers.clone(), state.clone());
                        tokio::spawn(async move { answer(stream, state, answers).await });
                    }
                    Some(target) = answered.recv() => {
                        return Ok(format!("http://{}{target}", self.address));
                    }
                }
            }
        })
    }
}

/// Answers one connection to the loopback listener: a `GET /callback` carrying `state` is the
/// login's answer (its target is sent on `answers`); anything else is turned away.
async fn answer(
    mut stream: tokio::net::TcpStream,
    state: Option<String>,
    answers: tokio::sync::mpsc::Sender<String>,
) {
    let Some(target) = request_target(&mut stream).await else {
        return;
    };
    let (path, _) = target.split_once('?').unwrap_or((&target, ""));
    let ours = path == "/callback" && query_value(&target, "state") == state;
    let page = if ours { DONE } else { NOT_OURS };
    let _ = stream.write_all(page.as_bytes()).await;
    let _ = stream.shutdown().await;
    if ours {
        let _ = answers.send(target).await;
    }
}

/// The value of `name` in the query of `url` (or of a request target), percent-decoded.
fn query_value(url: &str, name: &str) -> Option<String> {
    let (_, query) = url.split_once('?')?;
    let query = query.split('#').next().unwrap_or(query);
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| presa::core::percent_decode(&value.replace('+', " ")))?
    })
}

const DONE: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\nconnection: close\r\n\r\n\
<!doctype html><title>presa</title><p>presa has the answer: you can close this page.";
const NOT_OURS: &str = "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n\
not the login presa is waiting for";

/// The target of an HTTP request's `GET` line (its head read up to 16 KiB, for 10 s at most);
/// `None` for anything else.
async fn request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .ok()?
            .ok()?;
        if read == 0 {
            break;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let line = head.split(|&b| b == b'\r').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut parts = line.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) if target.starts_with('/') => Some(target.to_owned()),
        _ => None,
    }
}

/// Opens `url` in the user's browser; whether a browser could be started.
fn open_browser(url: &str) -> bool {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut command = std::process::Command::new("rundll32");
        command.arg("url.dll,FileProtocolHandler");
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok()
}

async fn status(url: Option<&str>, as_json: bool) -> Result<(), Failure> {
    let store = store()?;
    let kept = store
        .all_tokens()
        .await
        .map_err(|e| Failure::Usage(chain(&e)))?;
    let kept: Vec<(&String, &StoredTokens)> = kept
        .iter()
        .filter(|(server, _)| url.is_none_or(|url| url == server.as_str()))
        .collect();
    if as_json {
        let servers: Vec<_> = kept
            .iter()
            .map(|(server, tokens)| {
                json!({
                    "url": server,
                    "issuer": tokens.issuer,
                    "tokenType": tokens.token_type,
                    "expiresAt": tokens.expires_at,
                    "refreshable": tokens.refresh_token.is_some(),
                    "scopes": tokens.scopes,
                })
            })
            .collect();
        return json_line(&json!({ "store": store.path(), "servers": servers }));
    }
    if kept.is_empty() {
        match url {
            Some(url) => println!("not logged in to {url}"),
            None => println!("not logged in anywhere"),
        }
        return Ok(());
    }
    let rows: Vec<Vec<String>> = kept
        .iter()
        .map(|(server, tokens)| {
            vec![
                (*server).clone(),
                tokens.issuer.clone(),
                tokens.token_type.clone(),
                expiry(tokens),
                tokens.scopes.join(" "),
            ]
        })
        .collect();
    table(&["SERVER", "ISSUER", "TYPE", "EXPIRES", "SCOPES"], &rows);
    println!("(kept in {})", store.path().display());
    Ok(())
}

/// When the tokens expire, in words.
fn expiry(tokens: &StoredTokens) -> String {
    let refresh = if tokens.refresh_token.is_some() {
        ", refreshable"
    } else {
        ""
    };
    let Some(at) = tokens.expires_at else {
        return format!("never said{refresh}");
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    if at <= now {
        format!("expired{refresh}")
    } else {
        format!("in {} min{refresh}", (at - now).div_ceil(60))
    }
}

async fn logout(url: Option<&str>, all: bool) -> Result<(), Failure> {
    let store = store()?;
    let servers: Vec<String> = if all {
        store
            .all_tokens()
            .await
            .map_err(|e| Failure::Usage(chain(&e)))?
            .into_keys()
            .collect()
    } else {
        url.map(str::to_owned).into_iter().collect()
    };
    for server in &servers {
        store
            .save_tokens(server, None)
            .await
            .map_err(|e| Failure::Usage(format!("{server}: {e}")))?;
        println!("logged out of {server}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_is_read_from_the_page_and_from_the_answer() {
        let page = "https://as.example/authorize?response_type=code&state=a%2Bb&x=1";
        assert_eq!(query_value(page, "state").as_deref(), Some("a+b"));
        assert_eq!(
            query_value("/callback?code=c&state=a%2Bb", "state").as_deref(),
            Some("a+b")
        );
        assert_eq!(query_value("/callback?code=c", "state"), None);
        assert_eq!(query_value("/callback", "state"), None);
    }
}
