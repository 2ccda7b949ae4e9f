//! Extensions: what a server declares under `capabilities.extensions`, and the handlers of the
//! request and notification methods it serves beyond the ones MCP defines. The builder's side
//! (declaring, registering) is extend.rs.
//!
//! A custom method is served like a built-in one: through the middleware stack, under the
//! session's limits, cancellable, with progress and logging through its [`Context`]. Its params
//! and result are typed by a [`RequestMethod`] (or [`NotificationMethod`]) of the user's own.

use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use presa_core::{
    ErrorObject, JsonObject, NotificationMethod, RequestMethod, defined_method, parse_params,
};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::BoxFuture;
use crate::context::Context;
use crate::error::{BuildError, IntoHandlerFailure};

/// A request method of an extension, object-safe: what [`ServerBuilder::method`] makes of a
/// typed handler, and what a server that picks its methods at run time implements itself.
///
/// [`ServerBuilder::method`]: crate::ServerBuilder::method
pub trait MethodHandler: Send + Sync + 'static {
    /// Serves one request: its raw `params` (absent when the request had none) for the client
    /// `cx` describes. The result is a JSON object; a 2026-07-28 answer gets `resultType` and
    /// the server's identity added, as every result does.
    fn call(
        &self,
        params: Option<&RawValue>,
        cx: Context,
    ) -> BoxFuture<'static, Result<Value, ErrorObject>>;
}

/// A notification method of an extension, object-safe (see [`MethodHandler`]).
pub trait NotificationHandler: Send + Sync + 'static {
    /// Takes one notification: its raw `params`, from the client `cx` describes. A notification
    /// has no answer; params that cannot be read are dropped (and logged).
    fn notify(&self, params: Option<&RawValue>, cx: Context) -> BoxFuture<'static, ()>;
}

/// A typed request handler: `M::Params` in, `M::Result` (or an error) out.
pub(crate) struct TypedMethod<M, F> {
    handler: F,
    method: PhantomData<fn() -> M>,
}

impl<M, F> TypedMethod<M, F> {
    pub(crate) fn new(handler: F) -> Self {
        Self {
            handler,
            method: PhantomData,
        }
    }
}

impl<M, F, Fut, E> MethodHandler for TypedMethod<M, F>
where
    M: RequestMethod + 'static,
    F: Fn(M::Params, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<M::Result, E>> + Send + 'static,
    E: IntoHandlerFailure + 'static,
{
    fn call(
        &self,
        params: Option<&RawValue>,
        cx: Context,
    ) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        let params = match parse_params::<M::Params>(params) {
            Ok(params) => params,
            Err(error) => return Box::pin(std::future::ready(Err(error))),
        };
        let answer = (self.handler)(params, cx);
        Box::pin(async move {
            let result = answer
                .await
                .map_err(|error| error.into_handler_failure().into_error_object())?;
            serde_json::to_value(result).map_err(|error| {
                ErrorObject::internal_error(format!(
                    "the result of {} could not be serialized: {error}",
                    M::METHOD
                ))
            })
        })
    }
}

/// A typed notification handler.
pub(crate) struct TypedNotification<N, F> {
    handler: F,
    method: PhantomData<fn() -> N>,
}

impl<N, F> TypedNotification<N, F> {
    pub(crate) fn new(handler: F) -> Self {
        Self {
            handler,
            method: PhantomData,
        }
    }
}

impl<N, F, Fut> NotificationHandler for TypedNotification<N, F>
where
    N: NotificationMethod + 'static,
    F: Fn(N::Params, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn notify(&self, params: Option<&RawValue>, cx: Context) -> BoxFuture<'static, ()> {
        match parse_params::<N::Params>(params) {
            Ok(params) => Box::pin((self.handler)(params, cx)),
            Err(error) => {
                tracing::debug!(
                    method = N::METHOD,
                    error = %error.message,
                    "dropped a notification whose params cannot be read"
                );
                Box::pin(std::future::ready(()))
            }
        }
    }
}

/// What a server serves beyond MCP: the extensions it declares and their methods. Fixed when
/// the server is built.
#[derive(Clone, Default)]
pub(crate) struct Extensions {
    /// `capabilities.extensions` as declared (the tasks extension, which presa declares by
    /// itself when a tool may run as a task, is not among them).
    pub(crate) declared: JsonObject,
    pub(crate) methods: HashMap<String, Arc<dyn MethodHandler>>,
    pub(crate) notifications: HashMap<String, Arc<dyn NotificationHandler>>,
}

impl Extensions {
    /// Declares extension `id` with `settings`.
    pub(crate) fn declare(&mut self, id: String, settings: Value) -> Result<(), BuildError> {
        let refused = |reason: String| BuildError::Extension {
            id: id.clone(),
            reason,
        };
        if let Err(reason) = presa_core::check_extension_id(&id) {
            return Err(refused(reason.to_owned()));
        }
        if id == presa_core::TASKS_EXTENSION {
            return Err(refused(
                "presa declares the tasks extension by itself, for tools that may run as tasks"
                    .to_owned(),
            ));
        }
        let Value::Object(settings) = settings else {
            return Err(refused(format!(
                "its settings must be a JSON object, not {}",
                presa_core::json_kind(&settings)
            )));
        };
        match self.declared.get(&id) {
            // declared again as it was (two apps of one extension): nothing to add
            Some(Value::Object(declared)) if *declared == settings => return Ok(()),
            Some(_) => {
                return Err(refused(
                    "it is declared twice, with different settings".to_owned(),
                ));
            }
            None => {}
        }
        self.declared.insert(id, Value::Object(settings));
        Ok(())
    }

    /// Serves request method `method` with `handler`.
    pub(crate) fn serve_method(
        &mut self,
        method: String,
        handler: Arc<dyn MethodHandler>,
    ) -> Result<(), BuildError> {
        check_method(&method, self.methods.contains_key(&method))?;
        self.methods.insert(method, handler);
        Ok(())
    }

    /// Takes notification method `method` with `handler`.
    pub(crate) fn take_notification(
        &mut self,
        method: String,
        handler: Arc<dyn NotificationHandler>,
    ) -> Result<(), BuildError> {
        check_method(&method, self.notifications.contains_key(&method))?;
        self.notifications.insert(method, handler);
        Ok(())
    }
}

/// Refuses a method name that MCP defines (or that presa serves as part of an extension of its
/// own), that is empty, or that is registered twice.
fn check_method(method: &str, taken: bool) -> Result<(), BuildError> {
    let refused = |reason: &str| BuildError::Method {
        method: method.to_owned(),
        reason: reason.to_owned(),
    };
    if method.is_empty() {
        return Err(refused("a method needs a name"));
    }
    if defined_method(method).is_some() {
        return Err(refused(
            "MCP defines it: a custom method cannot replace a built-in one",
        ));
    }
    if method.starts_with("tasks/") {
        return Err(refused(
            "`tasks/` methods are the tasks extension's, which presa serves",
        ));
    }
    if taken {
        return Err(refused("it is registered twice"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn an_extension_is_declared_once_with_an_object_of_settings() {
        let mut extensions = Extensions::default();
        extensions
            .declare("com.example/things".into(), json!({"a": 1}))
            .unwrap();
        for (id, settings, reason) in [
            (
                "com.example/things",
                json!({}),
                "it is declared twice, with different settings",
            ),
            (
                "com.example/other",
                json!(true),
                "its settings must be a JSON object, not a boolean",
            ),
            (
                "io.modelcontextprotocol/tasks",
                json!({}),
                "presa declares the tasks extension by itself, for tools that may run as tasks",
            ),
        ] {
            let Err(BuildError::Extension { reason: got, .. }) =
                extensions.declare(id.into(), settings)
            else {
                panic!("{id} was accepted");
            };
            assert_eq!(got, reason, "{id}");
        }
        assert!(matches!(
            extensions.declare("no-prefix".into(), json!({})),
            Err(BuildError::Extension { .. })
        ));
        // again as it was: accepted, once
        extensions
            .declare("com.example/things".into(), json!({"a": 1}))
            .unwrap();
        assert_eq!(extensions.declared.len(), 1);
    }

    #[test]
    fn a_custom_method_may_not_take_a_name_mcp_or_presa_serves() {
        for method in [
            "tools/call",
            "initialize",
            "notifications/cancelled",
            "tasks/anything",
            "",
        ] {
            let error = check_method(method, false).unwrap_err();
            assert!(
                matches!(&error, BuildError::Method { method: m, .. } if m == method),
                "{method}: {error}"
            );
        }
        assert!(check_method("skills/list", false).is_ok());
        assert!(check_method("skills/list", true).is_err());
    }
}
