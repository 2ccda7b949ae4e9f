//! What a list shows to whom: [`ListFilter`], and [`ScopeFilteredLists`], which hides what the
//! caller's scopes do not allow.

use std::fmt;
use std::sync::Arc;

use super::{McpRequest, McpResponse, Middleware, Next, Target};
use crate::BoxFuture;
use crate::context::Context;

/// Which definitions the lists show to one request. A middleware puts one in the request's
/// [extensions](McpRequest::extensions_mut); `tools/list`, `prompts/list`, `resources/list` and
/// `resources/templates/list` then show only what it admits (their pages are made for the
/// request instead of taken from the snapshot's cache). Calling a hidden definition is not
/// refused by the filter: the definition's own scopes, or a middleware, decide that.
///
/// ```
/// use presa_server::{ListFilter, McpRequest, Next, Server, Target};
///
/// // tools whose name starts with `admin_` are listed only to the subject `root`
/// let server = Server::builder("admin", "1.0.0")
///     .middleware(|mut request: McpRequest, next: Next| async move {
///         request.extensions_mut().insert(ListFilter::new(|target: &Target<'_>, cx: &presa_server::Context| {
///             !target.name().starts_with("admin_")
///                 || cx.auth().and_then(|a| a.subject()) == Some("root")
///         }));
///         next.run(request).await
///     })
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct ListFilter(Arc<Admits>);

type Admits = dyn Fn(&Target<'_>, &Context) -> bool + Send + Sync;

impl fmt::Debug for ListFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListFilter").finish_non_exhaustive()
    }
}

impl ListFilter {
    /// A filter admitting what `admits` says yes to, for the request of `cx`.
    pub fn new(admits: impl Fn(&Target<'_>, &Context) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(admits))
    }

    /// Whether the lists show `target` to the request of `cx`.
    pub fn admits(&self, target: &Target<'_>, cx: &Context) -> bool {
        (self.0)(target, cx)
    }
}

/// Lists show a caller only the tools, prompts, resources and templates whose
/// [required scopes](crate::RequireScopes) its verified identity holds; a caller without an
/// identity sees only what requires no scope. Without this middleware every list shows
/// everything, and calling what one lacks the scopes for is refused.
///
/// ```
/// use presa_server::{ScopeFilteredLists, Server};
///
/// let server = Server::builder("tickets", "1.0.0")
///     .middleware(ScopeFilteredLists)
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ScopeFilteredLists;

impl Middleware for ScopeFilteredLists {
    fn call(&self, mut request: McpRequest, next: Next) -> BoxFuture<'static, McpResponse> {
        let is_list = matches!(
            request.method(),
            "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list"
        );
        if is_list {
            request.extensions_mut().insert(ListFilter::new(
                |target: &Target<'_>, cx: &Context| {
                    let scopes = target.scopes();
                    scopes.is_empty() || cx.auth().is_some_and(|auth| auth.has_scopes(scopes))
                },
            ));
        }
        Box::pin(next.run(request))
    }
}
