//! The connection to Redis that the stores and the bus share, and where it is configured.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::{AsyncPushSender, ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, IntoConnectionInfo, Pipeline, ProtocolVersion, RedisFuture, Value};

use crate::error::RedisError;

/// Where presa's Redis is, and how its keys are named.
///
/// ```
/// use std::time::Duration;
/// use presa_redis::RedisOptions;
///
/// let standalone = RedisOptions::new("redis://127.0.0.1:6379/").prefix("mcp-prod");
/// assert_eq!(standalone.get_prefix(), "mcp-prod");
/// let cluster = RedisOptions::cluster(["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"])
///     .response_timeout(Duration::from_secs(1));
/// assert!(cluster.is_cluster());
/// ```
#[derive(Clone)]
pub struct RedisOptions {
    nodes: Vec<String>,
    cluster: bool,
    prefix: String,
    response_timeout: Duration,
    connection_timeout: Duration,
    events_kept: usize,
}

impl RedisOptions {
    /// A standalone Redis at `url` (`redis://[user:password@]host:port[/db]`), with keys under
    /// `presa:`, a 2 s response timeout, a 2 s connection timeout, and the newest 1,024 events
    /// of each session's GET stream kept for resumption.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            nodes: vec![url.into()],
            cluster: false,
            prefix: "presa".to_owned(),
            response_timeout: Duration::from_secs(2),
            connection_timeout: Duration::from_secs(2),
            events_kept: 1024,
        }
    }

    /// A Redis Cluster, found through any of `nodes` (the rest of the cluster is discovered).
    pub fn cluster(nodes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            nodes: nodes.into_iter().map(Into::into).collect(),
            cluster: true,
            ..Self::new(String::new())
        }
    }

    /// What every key starts with (default `presa`), so that several deployments can share one
    /// Redis: keys are `<prefix>:…`. It may not contain `{` or `}` (Redis Cluster reads those as
    /// a hash tag).
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long a command may take before it fails (default 2 s).
    #[must_use]
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// How long connecting may take (default 2 s).
    #[must_use]
    pub fn connection_timeout(mut self, timeout: Duration) -> Self {
        self.connection_timeout = timeout;
        self
    }

    /// The key prefix.
    pub fn get_prefix(&self) -> &str {
        &self.prefix
    }

    /// How many of the newest events of a session's GET stream its event log keeps (default
    /// 1,024, as an instance keeps in memory): a client resuming with `Last-Event-ID` on another
    /// instance gets every event after it while the log still holds that event. At least 1.
    pub fn events_kept(mut self, events: usize) -> Self {
        self.events_kept = events.max(1);
        self
    }

    /// See [`events_kept`](Self::events_kept).
    pub fn get_events_kept(&self) -> usize {
        self.events_kept
    }

    /// Whether these options name a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.cluster
    }

    /// The nodes, each shown without its password.
    fn shown(&self) -> String {
        self.nodes
            .iter()
            .map(|url| redacted(url))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn check(&self) -> Result<(), RedisError> {
        if self.nodes.is_empty() || self.nodes.iter().any(String::is_empty) {
            return Err(RedisError::InvalidOptions("no Redis URL given".to_owned()));
        }
        if self.prefix.is_empty() || self.prefix.contains(['{', '}']) {
            return Err(RedisError::InvalidOptions(format!(
                "the key prefix {:?} must be non-empty and contain no '{{' or '}}'",
                self.prefix
            )));
        }
        Ok(())
    }
}

impl fmt::Debug for RedisOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisOptions")
            .field("nodes", &self.shown())
            .field("cluster", &self.cluster)
            .field("prefix", &self.prefix)
            .field("response_timeout", &self.response_timeout)
            .field("connection_timeout", &self.connection_timeout)
            .field("events_kept", &self.events_kept)
            .finish()
    }
}

/// `url` as it may be shown: its password, and a `pass` or `password` query parameter (a Unix
/// socket URL's), replaced by `***`; a URL that does not parse is not shown past its scheme.
fn redacted(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        let scheme = url.split_once("://").map_or("?", |(scheme, _)| scheme);
        return format!("{scheme}://<not a URL>");
    };
    if parsed.password().is_some() {
        // only fails for URLs that cannot have a password, which this one has
        let _ = parsed.set_password(Some("***"));
    }
    let secret =
        |key: &str| key.eq_ignore_ascii_case("pass") || key.eq_ignore_ascii_case("password");
    if parsed.query_pairs().any(|(key, _)| secret(&key)) {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(key, value)| {
                let value = if secret(&key) {
                    "***".into()
                } else {
                    value.into_owned()
                };
                (key.into_owned(), value)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.to_string()
}

/// A connection to Redis shared by presa's stores and bus. It reconnects by itself: while Redis
/// is down, commands fail (the stores answer with their errors, HTTP 503 for sessions) and they
/// work again once it is back.
///
/// Cloning is cheap: clones share the connection.
#[derive(Clone)]
pub struct Redis {
    inner: Arc<Inner>,
}

struct Inner {
    options: RedisOptions,
    commands: Connection,
}

impl fmt::Debug for Redis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redis")
            .field("nodes", &self.inner.options.shown())
            .field("cluster", &self.inner.options.cluster)
            .field("prefix", &self.inner.options.prefix)
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// Connects, and checks that Redis answers.
    ///
    /// # Errors
    ///
    /// [`RedisError::InvalidOptions`] or [`RedisError::InvalidUrl`] for options that cannot be
    /// used, and
    /// [`RedisError::Unreachable`] (naming the URL) when Redis does not answer.
    pub async fn connect(options: RedisOptions) -> Result<Self, RedisError> {
        options.check()?;
        let commands = Connection::open(&options, None).await?;
        let mut probe = commands.clone();
        redis::cmd("PING")
            .query_async::<()>(&mut probe)
            .await
            .map_err(|source| unreachable(&options, source))?;
        Ok(Self {
            inner: Arc::new(Inner { options, commands }),
        })
    }

    /// The options this connection was made with.
    pub fn options(&self) -> &RedisOptions {
        &self.inner.options
    }

    /// The shared command connection.
    pub(crate) fn commands(&self) -> Connection {
        self.inner.commands.clone()
    }

    /// `<prefix>:<rest>`.
    pub(crate) fn key(&self, rest: impl fmt::Display) -> String {
        format!("{}:{rest}", self.inner.options.prefix)
    }

    /// A new connection whose pushed messages (pub/sub) go to `push`, subscribed to `channel`
    /// again by itself whenever it reconnects.
    pub(crate) async fn subscribed(
        &self,
        channel: &str,
        push: impl AsyncPushSender,
    ) -> Result<Connection, RedisError> {
        let options = &self.inner.options;
        let mut connection = Connection::open(options, Some(Arc::new(push))).await?;
        connection
            .subscribe(channel)
            .await
            .map_err(|source| unreachable(options, source))?;
        Ok(connection)
    }
}

fn unreachable(options: &RedisOptions, source: redis::RedisError) -> RedisError {
    RedisError::Unreachable {
        url: options.shown(),
        source: Box::new(source),
    }
}

/// A standalone connection or a cluster's.
#[derive(Clone)]
pub(crate) enum Connection {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

/// A push sender the two kinds of connection can share.
type Push = Arc<dyn AsyncPushSender>;

struct SharedPush(Push);

impl AsyncPushSender for SharedPush {
    fn send(&self, info: redis::PushInfo) -> Result<(), redis::aio::SendError> {
        self.0.send(info)
    }
}

impl Connection {
    /// Opens a connection speaking RESP3 (what pub/sub on a connection that also sends
    /// commands, and on a cluster, needs).
    async fn open(options: &RedisOptions, push: Option<Push>) -> Result<Self, RedisError> {
        let invalid = |source: redis::RedisError| RedisError::InvalidUrl {
            url: options.shown(),
            source: Box::new(source),
        };
        let mut infos = Vec::with_capacity(options.nodes.len());
        for url in &options.nodes {
            let info = url.as_str().into_connection_info().map_err(invalid)?;
            let settings = info
                .redis_settings()
                .clone()
                .set_protocol(ProtocolVersion::RESP3);
            infos.push(info.set_redis_settings(settings));
        }
        if options.cluster {
            let mut builder = ClusterClientBuilder::new(infos)
                .use_protocol(ProtocolVersion::RESP3)
                .connection_timeout(options.connection_timeout)
                .response_timeout(options.response_timeout);
            if let Some(push) = push {
                builder = builder.push_sender(SharedPush(push));
            }
            let client = builder.build().map_err(invalid)?;
            let connection = client
                .get_async_connection()
                .await
                .map_err(|source| unreachable(options, source))?;
            return Ok(Self::Cluster(connection));
        }
        let Some(info) = infos.pop() else {
            return Err(RedisError::InvalidOptions("no Redis URL given".to_owned()));
        };
        let client = redis::Client::open(info).map_err(invalid)?;
        let mut config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.connection_timeout))
            .set_response_timeout(Some(options.response_timeout))
            .set_number_of_retries(3)
            .set_max_delay(Duration::from_secs(1));
        if let Some(push) = push {
            config = config
                .set_push_sender(SharedPush(push))
                .set_automatic_resubscription();
        }
        let manager = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|source| unreachable(options, source))?;
        Ok(Self::Single(manager))
    }

    async fn subscribe(&mut self, channel: &str) -> redis::RedisResult<()> {
        match self {
            Self::Single(manager) => manager.subscribe(channel).await,
            Self::Cluster(cluster) => cluster.subscribe(channel).await,
        }
    }
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Single(manager) => manager.req_packed_command(cmd),
            Self::Cluster(cluster) => cluster.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Single(manager) => manager.req_packed_commands(pipeline, offset, count),
            Self::Cluster(cluster) => cluster.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Single(manager) => manager.get_db(),
            Self::Cluster(cluster) => cluster.get_db(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_their_password() {
        assert_eq!(
            redacted("redis://127.0.0.1:6379/"),
            "redis://127.0.0.1:6379/"
        );
        assert_eq!(
            redacted("redis://app:s3cret@redis.internal:6379/2"),
            "redis://app:***@redis.internal:6379/2"
        );
        assert_eq!(
            redacted("rediss://:s3cret@redis.internal/"),
            "rediss://:***@redis.internal/"
        );
        assert_eq!(redacted("redis://app@host/"), "redis://app@host/");
        // a password with an unescaped '/' does not parse as one: nothing of it is shown
        assert_eq!(redacted("redis://app:s3/cret@host/"), "redis://<not a URL>");
        assert_eq!(
            redacted("redis+unix:///run/redis.sock?db=1&pass=s3cret"),
            "redis+unix:///run/redis.sock?db=1&pass=***"
        );
        assert_eq!(redacted("not a url"), "?://<not a URL>");
        let debug = format!("{:?}", RedisOptions::new("redis://app:s3cret@host/"));
        assert!(!debug.contains("s3cret"), "{debug}");
    }

    #[test]
    fn tls_urls_are_understood() {
        assert!(
            "rediss://redis.internal:6380/"
                .into_connection_info()
                .is_ok()
        );
    }

    #[test]
    fn a_prefix_may_not_hold_a_hash_tag() {
        let bad = RedisOptions::new("redis://127.0.0.1/").prefix("a{b}");
        assert!(matches!(bad.check(), Err(RedisError::InvalidOptions(_))));
        assert!(RedisOptions::new("redis://127.0.0.1/").check().is_ok());
        assert!(RedisOptions::cluster(Vec::<String>::new()).check().is_err());
    }
}
