//! A scripted protected resource and authorization servers on 127.0.0.1, for tests of OAuth
//! clients: documents (protected resource metadata, authorization server metadata) are served
//! from paths the test sets, authorization servers live under path prefixes (`/as1`,
//! `/tenant1`: path issuers) and answer `/authorize` (a redirect with a code), `/token` and
//! `/register` as their [`AuthServer`] settings say, and every request is recorded as a
//! [`Hit`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

/// One request the client made.
#[derive(Clone, Debug)]
pub struct Hit {
    /// The HTTP method.
    pub method: Method,
    /// The request's path.
    pub path: String,
    /// The query's pairs.
    pub query: HashMap<String, String>,
    /// The pairs of a form body (`application/x-www-form-urlencoded`); empty otherwise.
    pub form: HashMap<String, String>,
    /// The body, when it is JSON.
    pub json: Option<Value>,
    /// The request's headers.
    pub headers: HeaderMap,
}

impl Hit {
    /// A header's value, as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }
}

/// What `/authorize` puts in the redirect's `iss`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iss {
    /// The server's issuer.
    Correct,
    /// None.
    Omit,
    /// Another server's issuer.
    Wrong,
    /// The issuer with a trailing slash.
    TrailingSlash,
}

/// One authorization server, under a path prefix of the mock.
#[derive(Clone, Debug)]
pub struct AuthServer {
    /// `""` for the origin, `/tenant1` for a path issuer.
    pub prefix: String,
    /// What `/authorize` puts in the redirect's `iss`.
    pub iss: Iss,
    /// Token responses include a refresh token.
    pub issue_refresh_tokens: bool,
    /// The client secret DCR hands out (`None`: a public client).
    pub dcr_secret: Option<String>,
    /// The `token_endpoint_auth_method` the DCR response names.
    pub dcr_method: Option<String>,
    /// Refresh grants fail with `invalid_grant`.
    pub refresh_fails: bool,
    /// Token requests without this DPoP nonce get `use_dpop_nonce`.
    pub dpop_nonce: Option<String>,
}

impl AuthServer {
    /// A server under `prefix` that issues no refresh tokens and registers public clients.
    pub fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.to_owned(),
            iss: Iss::Correct,
            issue_refresh_tokens: false,
            dcr_secret: None,
            dcr_method: None,
            refresh_fails: false,
            dpop_nonce: None,
        }
    }
}

#[derive(Debug, Default)]
struct World {
    docs: HashMap<String, Value>,
    servers: Vec<AuthServer>,
    hits: Vec<Hit>,
    counter: u32,
    base: String,
}

/// The mock: a base URL, documents, authorization servers, and the log.
#[derive(Clone, Debug)]
pub struct Mock {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    world: Arc<Mutex<World>>,
}

impl Mock {
    /// Starts the mock on a free port of 127.0.0.1, with no documents and no servers; it
    /// serves until the runtime ends.
    pub async fn start() -> Self {
        let world = Arc::new(Mutex::new(World::default()));
        let shared = world.clone();
        let app = Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let world = shared.clone();
                async move { handle(&world, method, uri, headers, body) }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        world.lock().unwrap().base = base.clone();
        Self { base, world }
    }

    /// The MCP server URL: `<base>/mcp`.
    pub fn server_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// The issuer of the authorization server under `prefix`.
    pub fn issuer(&self, prefix: &str) -> String {
        format!("{}{prefix}", self.base)
    }

    /// Serves `doc` at `path`.
    pub fn doc(&self, path: &str, doc: Value) {
        self.world.lock().unwrap().docs.insert(path.to_owned(), doc);
    }

    /// Stops serving `path`.
    pub fn remove_doc(&self, path: &str) {
        self.world.lock().unwrap().docs.remove(path);
    }

    /// Serves protected resource metadata at `path` naming the authorization server `issuer`.
    pub fn prm(&self, path: &str, resource: &str, issuer: &str, scopes: Option<&[&str]>) {
        let mut doc = json!({"resource": resource, "authorization_servers": [issuer]});
        if let Some(scopes) = scopes {
            doc["scopes_supported"] = json!(scopes);
        }
        self.doc(path, doc);
    }

    /// Adds an authorization server and serves its RFC 8414 metadata at `metadata_path`
    /// (`None`: the default path for its issuer), merged with `extra`.
    pub fn auth_server(&self, server: AuthServer, metadata_path: Option<&str>, extra: Value) {
        let issuer = self.issuer(&server.prefix);
        let prefix = &server.prefix;
        let mut metadata = json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": format!("{issuer}/token"),
            "registration_endpoint": format!("{issuer}/register"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true,
            "token_endpoint_auth_methods_supported": ["none"],
        });
        for (key, value) in extra.as_object().cloned().unwrap_or_default() {
            if value.is_null() {
                metadata.as_object_mut().unwrap().remove(&key);
            } else {
                metadata[key] = value;
            }
        }
        let path = metadata_path
            .map(str::to_owned)
            .unwrap_or_else(|| format!("/.well-known/oauth-authorization-server{prefix}"));
        self.doc(&path, metadata);
        let mut world = self.world.lock().unwrap();
        world.servers.retain(|s| s.prefix != server.prefix);
        world.servers.push(server);
    }

    /// Changes an authorization server's behaviour.
    pub fn update(&self, prefix: &str, change: impl FnOnce(&mut AuthServer)) {
        let mut world = self.world.lock().unwrap();
        let server = world
            .servers
            .iter_mut()
            .find(|s| s.prefix == prefix)
            .unwrap();
        change(server);
    }

    /// Every request so far.
    pub fn hits(&self) -> Vec<Hit> {
        self.world.lock().unwrap().hits.clone()
    }

    /// The paths requested so far, in order.
    pub fn paths(&self) -> Vec<String> {
        self.hits().into_iter().map(|h| h.path).collect()
    }

    /// The requests to `path`.
    pub fn hits_at(&self, path: &str) -> Vec<Hit> {
        self.hits().into_iter().filter(|h| h.path == path).collect()
    }
}

fn pairs(text: &str) -> HashMap<String, String> {
    url_pairs(text).into_iter().collect()
}

fn url_pairs(text: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(&format!("http://x/?{text}"))
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

fn json_response(status: u16, body: Value) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn handle(
    world: &Mutex<World>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let text = String::from_utf8_lossy(&body).into_owned();
    let hit = Hit {
        method: method.clone(),
        path: uri.path().to_owned(),
        query: pairs(uri.query().unwrap_or_default()),
        form: if headers.get("content-type").is_some_and(|c| {
            c.to_str()
                .unwrap()
                .starts_with("application/x-www-form-urlencoded")
        }) {
            pairs(&text)
        } else {
            HashMap::new()
        },
        json: serde_json::from_str(&text).ok(),
        headers,
    };
    let mut world = world.lock().unwrap();
    world.hits.push(hit.clone());
    if let Some(doc) = world.docs.get(&hit.path) {
        return json_response(200, doc.clone());
    }
    let path = hit.path.clone();
    let Some(server) = world
        .servers
        .iter()
        .find(|s| {
            path.strip_prefix(s.prefix.as_str())
                .is_some_and(|rest| ["/authorize", "/token", "/register"].contains(&rest))
        })
        .cloned()
    else {
        return json_response(404, json!({"error": "not_found"}));
    };
    let issuer = format!("{}{}", world.base, server.prefix);
    world.counter += 1;
    let n = world.counter;
    let endpoint = &path[server.prefix.len()..];
    match endpoint {
        "/authorize" => {
            let mut redirect = reqwest::Url::parse(&hit.query["redirect_uri"]).unwrap();
            {
                let mut query = redirect.query_pairs_mut();
                query.append_pair("code", &format!("code-{n}"));
                if let Some(state) = hit.query.get("state") {
                    query.append_pair("state", state);
                }
                match server.iss {
                    Iss::Correct => {
                        query.append_pair("iss", &issuer);
                    }
                    Iss::Omit => {}
                    Iss::Wrong => {
                        query.append_pair("iss", "https://evil.example.com");
                    }
                    Iss::TrailingSlash => {
                        query.append_pair("iss", &format!("{issuer}/"));
                    }
                }
            }
            Response::builder()
                .status(302)
                .header("location", redirect.to_string())
                .body(Body::empty())
                .unwrap()
        }
        "/register" => {
            let mut body = json!({"client_id": format!("{}-client-{n}", server.prefix.trim_start_matches('/'))});
            if let Some(secret) = &server.dcr_secret {
                body["client_secret"] = json!(secret);
            }
            if let Some(method) = &server.dcr_method {
                body["token_endpoint_auth_method"] = json!(method);
            }
            json_response(201, body)
        }
        _ => {
            if let Some(nonce) = &server.dpop_nonce {
                let proof_nonce = hit.header("dpop").and_then(|p| {
                    let claims = p.split('.').nth(1)?;
                    let claims: Value = serde_json::from_slice(&base64_url_decode(claims)).ok()?;
                    claims["nonce"].as_str().map(str::to_owned)
                });
                if proof_nonce.as_deref() != Some(nonce) {
                    return Response::builder()
                        .status(400)
                        .header("content-type", "application/json")
                        .header("dpop-nonce", nonce)
                        .body(Body::from(json!({"error": "use_dpop_nonce"}).to_string()))
                        .unwrap();
                }
            }
            if hit.form.get("grant_type").map(String::as_str) == Some("refresh_token")
                && server.refresh_fails
            {
                return json_response(400, json!({"error": "invalid_grant"}));
            }
            let token_type = if hit.header("dpop").is_some() {
                "DPoP"
            } else {
                "Bearer"
            };
            let mut body = json!({
                "access_token": format!("tok-{}-{n}", server.prefix.trim_start_matches('/')),
                "token_type": token_type,
                "expires_in": 3600,
            });
            if server.issue_refresh_tokens {
                body["refresh_token"] = json!(format!("ref-{n}"));
            }
            json_response(200, body)
        }
    }
}

/// base64url without padding, decoded.
pub fn base64_url_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .unwrap()
}

/// The claims of a compact JWT.
pub fn jwt_claims(jwt: &str) -> Value {
    serde_json::from_slice(&base64_url_decode(jwt.split('.').nth(1).unwrap())).unwrap()
}

/// The header of a compact JWT.
pub fn jwt_header(jwt: &str) -> Value {
    serde_json::from_slice(&base64_url_decode(jwt.split('.').next().unwrap())).unwrap()
}
