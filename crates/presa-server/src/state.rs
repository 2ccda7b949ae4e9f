//! Shared state for handlers: one value per type, given to the builder, read through the
//! request's [`Context`](crate::Context).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::error::ToolError;

/// The values given to [`ServerBuilder::state`](crate::ServerBuilder::state), by type.
#[derive(Default)]
pub(crate) struct StateMap {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMap")
            .field("values", &self.values.len())
            .finish()
    }
}

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values.get(&TypeId::of::<T>())?.downcast_ref()
    }
}

/// What [`Context::state`](crate::Context::state) answers when the server holds no state of the
/// type asked for: it was not given to [`ServerBuilder::state`](crate::ServerBuilder::state), or
/// the context was made outside a server ([`Context::detached`](crate::Context::detached)).
///
/// A handler's `?` turns it into a tool error ([`ToolError`] has a `From`), or any error type
/// the handler returns that takes a `std::error::Error`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingState {
    type_name: &'static str,
}

impl MissingState {
    pub(crate) fn of<T>() -> Self {
        Self {
            type_name: std::any::type_name::<T>(),
        }
    }

    /// The type asked for.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}

impl fmt::Display for MissingState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the server holds no state of type {} (give it with ServerBuilder::state)",
            self.type_name
        )
    }
}

impl std::error::Error for MissingState {}

impl From<MissingState> for ToolError {
    fn from(missing: MissingState) -> Self {
        ToolError::new(missing.to_string())
    }
}
