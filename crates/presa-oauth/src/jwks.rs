//! A JWKS fetched over HTTP and cached, for the JWT verifier.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::key::JwtKey;
use presa_http::VerifyError;

/// The largest JWKS document read.
const MAX_JWKS_BYTES: usize = 1 << 20;

/// Where the keys come from, and how often they may be fetched.
#[derive(Clone, Debug)]
pub(crate) struct JwksSource {
    url: String,
    pub(crate) client: reqwest::Client,
    pub(crate) max_age: Duration,
    pub(crate) min_refresh: Duration,
    cache: Arc<Cache>,
}

#[derive(Debug, Default)]
struct Cache {
    state: Mutex<State>,
    /// Held while fetching, so that concurrent requests wait for one fetch.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Debug, Default)]
struct State {
    keys: Option<(Arc<[JwtKey]>, Instant)>,
    last_attempt: Option<Instant>,
}

impl Cache {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl JwksSource {
    pub(crate) fn new(url: String) -> Self {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_default();
        Self {
            url,
            client,
            max_age: Duration::from_secs(3600),
            min_refresh: Duration::from_secs(30),
            cache: Arc::default(),
        }
    }

    /// The cached keys, fetched first when there are none or they are older than `max_age`
    /// (stale keys are kept when fetching fails).
    pub(crate) async fn keys(&self) -> Result<Arc<[JwtKey]>, VerifyError> {
        if let Some((keys, at)) = &self.cache.state().keys
            && at.elapsed() < self.max_age
        {
            return Ok(Arc::clone(keys));
        }
        let _fetching = self.cache.fetching.lock().await;
        let (cached, recent) = {
            let state = self.cache.state();
            let recent = state
                .last_attempt
                .is_some_and(|at| at.elapsed() < self.min_refresh);
            (state.keys.clone(), recent)
        };
        match cached {
            // fetched while this request waited
            Some((keys, at)) if at.elapsed() < self.max_age => return Ok(keys),
            // stale, and fetching failed a moment ago
            Some((keys, _)) if recent => return Ok(keys),
            None if recent => {
                return Err(VerifyError::Unavailable(
                    "the authorization server's keys could not be fetched".into(),
                ));
            }
            _ => {}
        }
        match self.fetch().await {
            Ok(keys) => Ok(keys),
            Err(error) => match cached {
                Some((keys, _)) => {
                    tracing::warn!(target: "presa_http", "keeping stale JWKS keys: {error}");
                    Ok(keys)
                }
                None => Err(error),
            },
        }
    }

    /// Fetches the keys again because a token names one that `seen` lacks, unless another
    /// request just did, or the last fetch was less than `min_refresh` ago.
    pub(crate) async fn refresh(&self, seen: &Arc<[JwtKey]>) -> Result<Arc<[JwtKey]>, VerifyError> {
        let _fetching = self.cache.fetching.lock().await;
        {
            let state = self.cache.state();
            if let Some((keys, _)) = &state.keys
                && !Arc::ptr_eq(keys, seen)
            {
                return Ok(Arc::clone(keys));
            }
            if state
                .last_attempt
                .is_some_and(|at| at.elapsed() < self.min_refresh)
            {
                return Ok(Arc::clone(seen));
            }
        }
        match self.fetch().await {
            Ok(keys) => Ok(keys),
            Err(error) => {
                tracing::warn!(target: "presa_http", "could not refresh the JWKS: {error}");
                Ok(Arc::clone(seen))
            }
        }
    }

    /// Fetches and caches the keys (the caller holds the fetch lock).
    async fn fetch(&self) -> Result<Arc<[JwtKey]>, VerifyError> {
        self.cache.state().last_attempt = Some(Instant::now());
        let unavailable = |why: String| {
            VerifyError::Unavailable(format!(
                "the JWKS at {} could not be fetched: {why}",
                self.url
            ))
        };
        let mut response = self
            .client
            .get(&self.url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        if !response.status().is_success() {
            return Err(unavailable(format!("status {}", response.status())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| unavailable(e.to_string()))?
        {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(unavailable("the document is too large".into()));
            }
            body.extend_from_slice(&chunk);
        }
        let text = String::from_utf8(body).map_err(|e| unavailable(e.to_string()))?;
        let keys: Arc<[JwtKey]> = JwtKey::from_jwks(&text)
            .map_err(|e| unavailable(e.to_string()))?
            .into();
        if keys.is_empty() {
            return Err(unavailable("it holds no usable signing key".into()));
        }
        self.cache.state().keys = Some((Arc::clone(&keys), Instant::now()));
        Ok(keys)
    }
}
