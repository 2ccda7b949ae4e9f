//! The layer that adds [`Auth`] to a service.

use std::sync::Arc;

use tower::Layer;

use super::options::AuthOptions;
use super::service::Auth;

/// Adds the [`Auth`] check to a service.
#[derive(Clone, Debug)]
pub struct AuthLayer {
    options: Arc<AuthOptions>,
}

impl AuthLayer {
    /// Checks requests as `options` says.
    pub fn new(options: AuthOptions) -> Self {
        Self {
            options: Arc::new(options),
        }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Auth<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Auth::new(inner, Arc::clone(&self.options))
    }
}
