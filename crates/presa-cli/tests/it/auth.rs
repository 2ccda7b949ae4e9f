//! `presa auth` against a protected presa server on 127.0.0.1 whose authorization server is
//! presa-test's mock: the login (the browser's part done by the test, following the printed
//! page), the kept tokens used by later commands in other processes, status and logout.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use presa::core::Tool;
use presa::http::{AuthOptions, HttpOptions, VerifyError};
use presa::server::{AuthInfo, Context, Server};
use presa_test::oauth::{AuthServer, Mock};
use serde_json::Value;

/// A config folder of the test's own: where the token store lives.
struct Home(PathBuf);

impl Home {
    fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("presa-cli-auth-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn store(&self) -> PathBuf {
        self.0.join("config/presa/tokens.json")
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `presa ARGS` with its config folder in `home`.
fn presa(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_presa"));
    command
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null());
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `presa ARGS` to its end on a blocking thread.
async fn run(home: &Path, args: &[&str]) -> Output {
    let mut command = presa(home, args);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// A protected server: tokens the mock issued (`tok-…`) pass, nothing else.
async fn protected(mock: &Mock) -> presa::http::RunningServer {
    let server = Server::builder("vault", "1.0.0")
        .tool_sync(Tool::without_params("whoami"), |_: Value, cx: Context| {
            cx.auth()
                .and_then(AuthInfo::subject)
                .unwrap_or("nobody")
                .to_owned()
        })
        .build()
        .unwrap();
    let verify = |token: String| async move {
        if token.starts_with("tok-") {
            Ok(AuthInfo::new().with_subject("ada"))
        } else {
            Err(VerifyError::Invalid("not a token of the mock".into()))
        }
    };
    let options = HttpOptions::default().auth(AuthOptions::new(mock.issuer(""), verify));
    presa::http::serve(server, options).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_keeps_tokens_that_later_commands_use() {
    let mock = Mock::start().await;
    let mut issuer = AuthServer::new("");
    issuer.issue_refresh_tokens = true;
    mock.auth_server(issuer, None, serde_json::json!({}));
    let server = protected(&mock).await;
    let url = server.url().to_owned();
    let home = Home::new("login");

    // before a login: refused, naming the command that fixes it
    let refused = run(&home.0, &["tools", "--", &url]).await;
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr).contains(&format!("presa auth login {url}")),
        "{}",
        text(&refused.stderr)
    );

    // the login: the page printed, followed as a browser would, the answer taken back
    let mut login = presa(&home.0, &["auth", "login", &url, "--no-browser"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = login.stderr.take().unwrap();
    let page = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stderr).lines();
        loop {
            let line = lines.next().expect("the page to open").unwrap();
            if let Some(page) = line.strip_prefix("  http") {
                break format!("http{page}");
            }
        }
    })
    .await
    .unwrap();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let authorized = browser.get(&page).send().await.unwrap();
    assert_eq!(authorized.status(), 302);
    let back = authorized.headers()["location"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(back.starts_with("http://127.0.0.1:"), "{back}");
    let done = browser.get(&back).send().await.unwrap();
    assert_eq!(done.status(), 200);
    assert!(done.text().await.unwrap().contains("close this page"));
    let login = tokio::task::spawn_blocking(move || login.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(login.status.success(), "{}", text(&login.stderr));
    assert!(
        text(&login.stdout).starts_with(&format!("logged in to {url}")),
        "{}",
        text(&login.stdout)
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(home.store())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // other processes use the kept tokens
    let called = run(&home.0, &["call", "whoami", "--", &url]).await;
    assert_eq!(text(&called.stdout), "ada\n", "{}", text(&called.stderr));
    let listed = run(&home.0, &["tools", "--era", "legacy", "--", &url]).await;
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert_eq!(mock.hits_at("/authorize").len(), 1);

    let status = run(&home.0, &["auth", "status"]).await;
    let shown = text(&status.stdout);
    assert!(shown.contains(&url), "{shown}");
    assert!(shown.contains(&mock.issuer("")), "{shown}");
    assert!(shown.contains("refreshable"), "{shown}");
    let status: Value =
        serde_json::from_slice(&run(&home.0, &["auth", "status", "--json"]).await.stdout).unwrap();
    assert_eq!(status["servers"][0]["url"], url.as_str());

    // logged out: refused again
    let out = run(&home.0, &["auth", "logout", &url]).await;
    assert_eq!(text(&out.stdout), format!("logged out of {url}\n"));
    let refused = run(&home.0, &["call", "whoami", "--", &url]).await;
    assert_eq!(refused.status.code(), Some(2));
    let status = run(&home.0, &["auth", "status", &url]).await;
    assert_eq!(text(&status.stdout), format!("not logged in to {url}\n"));
}
