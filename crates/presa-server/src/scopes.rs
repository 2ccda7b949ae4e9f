//! Scopes as part of a definition: what a caller's verified identity must hold to call a tool,
//! read a resource or get a prompt.

use std::fmt;

use presa_core::{ErrorObject, Prompt, Resource, ResourceTemplate, Tool};

use crate::auth::{InsufficientScope, scope_list};
use crate::context::Context;

/// A definition (a [`Tool`], [`Resource`], [`ResourceTemplate`] or [`Prompt`]) with the scopes a
/// caller needs for it. The server checks them before the handler runs and answers a caller
/// without them with [`InsufficientScope`] (on Streamable HTTP: `403` with
/// `WWW-Authenticate: Bearer error="insufficient_scope"`). Every registration method takes one;
/// a plain definition converts into one that requires nothing.
///
/// ```
/// use presa_core::Tool;
/// use presa_server::{Context, RequireScopes, Server};
/// use serde_json::Value;
///
/// let server = Server::builder("tickets", "1.0.0")
///     .tool(
///         Tool::without_params("close_ticket").requires_scopes(["tickets:write"]),
///         |_: Value, cx: Context| async move {
///             format!("closed by {}", cx.auth().and_then(|a| a.subject()).unwrap_or("?"))
///         },
///     )
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Scoped<T> {
    pub(crate) definition: T,
    pub(crate) scopes: Vec<String>,
}

impl<T> Scoped<T> {
    /// The wire description.
    pub fn definition(&self) -> &T {
        &self.definition
    }

    /// The scopes a caller needs, each once, in the order given.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Requires `scopes` as well.
    #[must_use]
    pub fn requires_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let more = self
            .scopes
            .drain(..)
            .chain(scopes.into_iter().map(Into::into));
        self.scopes = scope_list(more);
        self
    }
}

impl<T> From<T> for Scoped<T> {
    fn from(definition: T) -> Self {
        Self {
            definition,
            scopes: Vec::new(),
        }
    }
}

/// A tool named `name` ([`Tool::named`]): what the typed registrations take, e.g.
/// `.typed_tool("add", handler)`.
impl From<&str> for Scoped<Tool> {
    fn from(name: &str) -> Self {
        Tool::named(name).into()
    }
}

/// A tool named `name` ([`Tool::named`]).
impl From<String> for Scoped<Tool> {
    fn from(name: String) -> Self {
        Tool::named(name).into()
    }
}

/// A prompt named `name`: what the typed registrations take, e.g.
/// `.typed_prompt("review", handler)`.
impl From<&str> for Scoped<Prompt> {
    fn from(name: &str) -> Self {
        Prompt::new(name).into()
    }
}

/// A prompt named `name`.
impl From<String> for Scoped<Prompt> {
    fn from(name: String) -> Self {
        Prompt::new(name).into()
    }
}

/// `requires_scopes` on the wire descriptions themselves: `Tool::new(..).requires_scopes([..])`.
pub trait RequireScopes: Sized {
    /// This definition, requiring every one of `scopes` of its callers (see [`Scoped`]).
    fn requires_scopes<I, S>(self, scopes: I) -> Scoped<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>;
}

macro_rules! require_scopes {
    ($($definition:ty),*) => {$(
        impl RequireScopes for $definition {
            fn requires_scopes<I, S>(self, scopes: I) -> Scoped<Self>
            where
                I: IntoIterator<Item = S>,
                S: Into<String>,
            {
                Scoped::from(self).requires_scopes(scopes)
            }
        }
    )*};
}

require_scopes!(Tool, Resource, ResourceTemplate, Prompt);

/// What a definition is called in an error: `tool "write"`.
pub(crate) struct Described<'a>(pub(crate) &'static str, pub(crate) &'a str);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}", self.0, self.1)
    }
}

/// Checks the request's identity against what `what` requires (nothing required: `Ok`). A
/// request without an identity holds no scopes.
pub(crate) fn check_scopes(
    cx: &Context,
    what: Described<'_>,
    required: &[String],
) -> Result<(), ErrorObject> {
    if required.is_empty() {
        return Ok(());
    }
    let why = match cx.auth() {
        Some(auth) if auth.has_scopes(required) => return Ok(()),
        Some(_) => format!("Insufficient scope: {what} requires {}", required.join(" ")),
        None => format!(
            "Insufficient scope: {what} requires {}, and the request carries no verified identity",
            required.join(" ")
        ),
    };
    Err(InsufficientScope::new(required.iter().cloned())
        .description(why)
        .into_error())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::AuthInfo;

    #[test]
    fn checks_name_the_definition_and_every_required_scope() {
        let required = vec!["a".to_owned(), "b".to_owned()];
        let tool = || Described("tool", "t");
        let cx = Context::detached();
        let error = check_scopes(&cx, tool(), &required).unwrap_err();
        assert!(error.message.contains("no verified identity"), "{error:?}");
        assert!(
            error.message.contains(r#"tool "t" requires a b"#),
            "{error:?}"
        );
        let cx = cx.with_auth(AuthInfo::new().with_scopes(["a"]));
        let error = check_scopes(&cx, tool(), &required).unwrap_err();
        assert_eq!(
            InsufficientScope::from_error(&error).unwrap().scope(),
            "a b"
        );
        let cx = cx.with_auth(AuthInfo::new().with_scopes(["a", "b", "c"]));
        assert!(check_scopes(&cx, tool(), &required).is_ok());
        assert!(check_scopes(&Context::detached(), tool(), &[]).is_ok());
    }

    #[test]
    fn scopes_accumulate_once_each() {
        let tool = Tool::without_params("t")
            .requires_scopes(["a", "b"])
            .requires_scopes(["b", "c"]);
        assert_eq!(tool.scopes(), ["a", "b", "c"]);
        assert_eq!(
            Scoped::from(Tool::without_params("t")).scopes(),
            [] as [&str; 0]
        );
    }
}
