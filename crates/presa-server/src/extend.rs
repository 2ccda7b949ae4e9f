//! Serving extensions: the builder's methods that declare an extension and register the
//! methods it brings, and the [`Extension`] trait for what registers several at once.

use std::future::Future;
use std::sync::Arc;

use presa_core::{NotificationMethod, RequestMethod};

use crate::builder::ServerBuilder;
use crate::context::Context;
use crate::error::{BuildError, IntoHandlerFailure};
use crate::extension::{MethodHandler, NotificationHandler, TypedMethod, TypedNotification};

impl ServerBuilder {
    /// Declares extension `id` under `capabilities.extensions`, with its `settings` (a JSON
    /// object; `{}` for none). Clients see it in `server/discover` and in `initialize`'s
    /// capabilities. `build()` refuses an id that breaks the naming rules
    /// ([`check_extension_id`](presa_core::check_extension_id)), settings that are not an
    /// object, and an extension declared again with other settings.
    ///
    /// ```
    /// use presa_server::Server;
    ///
    /// let server = Server::builder("demo", "1")
    ///     .extension("com.example/weather", serde_json::json!({"units": ["metric"]}))
    ///     .build()
    ///     .unwrap();
    /// assert!(server.capabilities().has_extension("com.example/weather"));
    /// ```
    pub fn extension(mut self, id: impl Into<String>, settings: impl serde::Serialize) -> Self {
        let id = id.into();
        let declared = match serde_json::to_value(settings) {
            Ok(settings) => self.extensions_mut().declare(id, settings),
            Err(error) => Err(BuildError::Extension {
                id,
                reason: format!("its settings could not be serialized: {error}"),
            }),
        };
        self.record(declared)
    }

    /// Makes [`build`](Self::build) fail with `error`, unless an earlier problem does: for an
    /// [`Extension`] that finds what it was given unusable while it registers.
    pub fn refuse(self, error: BuildError) -> Self {
        self.record(Err(error))
    }

    /// Serves request method `M` (a [`RequestMethod`] of your own: its name, params and result
    /// types) with `handler`. The request goes through the middleware stack, the session's
    /// limits, cancellation and progress like a built-in one, in both eras and on every
    /// transport; params that do not read as `M::Params` are refused with `-32602`, and an
    /// error the handler returns is a JSON-RPC error (a [`ProtocolError`] keeps its code, any
    /// other error is `-32603` with its message). `build()` refuses a method MCP defines.
    ///
    /// [`ProtocolError`]: crate::ProtocolError
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use presa_core::RequestMethod;
    /// use presa_server::{Context, ProtocolError, Server};
    /// use serde_json::{Value, json};
    ///
    /// enum Echo {}
    /// impl RequestMethod for Echo {
    ///     const METHOD: &'static str = "example/echo";
    ///     type Params = Value;
    ///     type Result = Value;
    /// }
    ///
    /// let server = Server::builder("demo", "1")
    ///     .method::<Echo>(|params: Value, _cx: Context| async move { Ok::<_, ProtocolError>(params) })
    ///     .build()
    ///     .unwrap();
    /// let params = serde_json::value::to_raw_value(&json!({"say": "hi"})).unwrap();
    /// let echoed = server.handle("example/echo", Some(&params), Context::detached()).await.unwrap();
    /// assert_eq!(serde_json::from_str::<Value>(echoed.get()).unwrap()["say"], "hi");
    /// # });
    /// ```
    pub fn method<M: RequestMethod + 'static>(self, handler: impl MethodFn<M>) -> Self {
        self.method_handler(M::METHOD, handler.into_handler())
    }

    /// Serves request method `method` with an object-safe handler (see [`method`](Self::method)).
    pub fn method_handler(
        mut self,
        method: impl Into<String>,
        handler: Arc<dyn MethodHandler>,
    ) -> Self {
        let served = self.extensions_mut().serve_method(method.into(), handler);
        self.record(served)
    }

    /// Takes notification method `N` from clients with `handler`: a notification nobody takes
    /// is dropped, as MCP says, and one whose params do not read as `N::Params` too. The
    /// connection does not wait for the handler: it is polled once as the notification
    /// arrives, and moves to a task of its own if it has to wait. A session has at most as
    /// many waiting at once as it may have requests in flight
    /// ([`SessionLimits::max_in_flight_requests`](presa_core::SessionLimits::max_in_flight_requests));
    /// past that one is dropped. When the session ends, its handlers' contexts are cancelled and
    /// the handlers dropped at their next wait (cleanup that waits does not complete). (A
    /// 2026-07-28 notification posted over HTTP on its own has no session: its handler runs to
    /// its end, its context's cancellation never fires, and such handlers share one bound of
    /// the same size across the server, so a handler there must end by itself.) What it sends relates to no request, so it goes to the session
    /// as a whole (its context's `request_id()` is 0); asking the client for input works in
    /// the initialize era, where the session can carry a request to the client, and fails
    /// with an [`InputError`](crate::InputError) otherwise.
    pub fn notification<N: NotificationMethod + 'static>(
        self,
        handler: impl NotificationFn<N>,
    ) -> Self {
        self.notification_handler(N::METHOD, handler.into_handler())
    }

    /// Takes notification method `method` with an object-safe handler (see
    /// [`notification`](Self::notification)).
    pub fn notification_handler(
        mut self,
        method: impl Into<String>,
        handler: Arc<dyn NotificationHandler>,
    ) -> Self {
        let taken = self
            .extensions_mut()
            .take_notification(method.into(), handler);
        self.record(taken)
    }
}

/// An extension a server can serve with [`ServerBuilder::with`]: what it declares, the methods
/// and definitions it adds, registered through the builder's public API. [`Skills`] is one.
///
/// [`Skills`]: crate::Skills
///
/// ```
/// use presa_server::{Extension, Server, ServerBuilder};
///
/// struct Weather;
///
/// impl Extension for Weather {
///     fn register(self, builder: ServerBuilder) -> ServerBuilder {
///         builder.extension("com.example/weather", serde_json::json!({}))
///     }
/// }
///
/// let server = Server::builder("demo", "1").with(Weather).build().unwrap();
/// assert!(server.capabilities().has_extension("com.example/weather"));
/// ```
pub trait Extension {
    /// Registers the extension on `builder`.
    fn register(self, builder: ServerBuilder) -> ServerBuilder;
}

impl ServerBuilder {
    /// Serves `extension` (see [`Extension`]).
    pub fn with(self, extension: impl Extension) -> Self {
        extension.register(self)
    }
}

/// A handler of request method `M`: an async closure of `(M::Params, Context)` whose output is
/// `Result<M::Result, E>` for any error type `E` (see [`ServerBuilder::method`]).
pub trait MethodFn<M: RequestMethod>: Send + Sync + 'static {
    /// The handler as an object.
    fn into_handler(self) -> Arc<dyn MethodHandler>;
}

impl<M, F, Fut, E> MethodFn<M> for F
where
    M: RequestMethod + 'static,
    F: Fn(M::Params, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<M::Result, E>> + Send + 'static,
    E: IntoHandlerFailure + 'static,
{
    fn into_handler(self) -> Arc<dyn MethodHandler> {
        Arc::new(TypedMethod::<M, F>::new(self))
    }
}

/// A handler of notification method `N`: an async closure of `(N::Params, Context)` (see
/// [`ServerBuilder::notification`]).
pub trait NotificationFn<N: NotificationMethod>: Send + Sync + 'static {
    /// The handler as an object.
    fn into_handler(self) -> Arc<dyn NotificationHandler>;
}

impl<N, F, Fut> NotificationFn<N> for F
where
    N: NotificationMethod + 'static,
    F: Fn(N::Params, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn into_handler(self) -> Arc<dyn NotificationHandler> {
        Arc::new(TypedNotification::<N, F>::new(self))
    }
}
