//! Handlers for what a server asks of the client: sampling, elicitation and roots.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use presa_core::{
    CreateMessage, Elicit, ErrorObject, InputRequest, InputResponse, ListRoots, ProtocolVersion,
    RawJson, RequestMethod, RequestParams, to_raw,
};

/// A boxed, sendable future, as input handlers return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What an input handler knows about the request it answers.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct InputContext {
    protocol_version: ProtocolVersion,
}

impl InputContext {
    /// A context for a request served under `protocol_version`.
    pub fn new(protocol_version: ProtocolVersion) -> Self {
        Self { protocol_version }
    }

    /// The revision spoken with the server: an initialize-era one when the server sent a
    /// request, 2026-07-28 when the input was asked for in an `input_required` result.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }
}

/// Answers one kind of input request from the server: `M` is
/// [`CreateMessage`](presa_core::CreateMessage) (sampling), [`Elicit`](presa_core::Elicit)
/// (elicitation) or [`ListRoots`](presa_core::ListRoots) (roots).
///
/// The same handler serves both eras: in the initialize era the server sends it as a request,
/// in 2026-07-28 it arrives inside an `input_required` result and the client retries the
/// original call with the answer. Closures `Fn(M::Params, InputContext) -> impl Future` implement
/// it; implement it on a struct for anything bigger, and share it as an `Arc<dyn
/// InputHandler<M>>`.
///
/// Returning an error answers a server request with that error (initialize era) and stops a
/// 2026-07-28 call with [`ClientError::InputRefused`](crate::ClientError::InputRefused). To
/// decline an elicitation, return `Ok(ElicitResult::decline())` instead.
///
/// ```
/// use std::sync::Arc;
/// use presa_client::{BoxFuture, InputContext, InputHandler};
/// use presa_core::{ErrorObject, ListRoots, ListRootsResult, RequestParams, Root};
///
/// struct Workspace(Vec<Root>);
///
/// impl InputHandler<ListRoots> for Workspace {
///     fn handle<'a>(
///         &'a self,
///         _params: RequestParams,
///         _cx: InputContext,
///     ) -> BoxFuture<'a, Result<ListRootsResult, ErrorObject>> {
///         Box::pin(async move { Ok(ListRootsResult::new(self.0.clone())) })
///     }
/// }
///
/// let handler: Arc<dyn InputHandler<ListRoots>> =
///     Arc::new(Workspace(vec![Root::new("file:///src", "src")]));
/// # let _ = handler;
/// ```
pub trait InputHandler<M: RequestMethod>: Send + Sync + 'static {
    /// Answers one request.
    fn handle<'a>(
        &'a self,
        params: M::Params,
        cx: InputContext,
    ) -> BoxFuture<'a, Result<M::Result, ErrorObject>>;
}

impl<M, F, Fut> InputHandler<M> for F
where
    M: RequestMethod,
    F: Fn(M::Params, InputContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<M::Result, ErrorObject>> + Send + 'static,
{
    fn handle<'a>(
        &'a self,
        params: M::Params,
        cx: InputContext,
    ) -> BoxFuture<'a, Result<M::Result, ErrorObject>> {
        Box::pin(self(params, cx))
    }
}

/// The registered handlers, one per input kind.
#[derive(Clone, Default)]
pub(crate) struct InputHandlers {
    pub(crate) sampling: Option<Arc<dyn InputHandler<CreateMessage>>>,
    pub(crate) elicitation: Option<Arc<dyn InputHandler<Elicit>>>,
    pub(crate) roots: Option<Arc<dyn InputHandler<ListRoots>>>,
}

impl fmt::Debug for InputHandlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputHandlers")
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

/// Why an input request got no answer.
#[derive(Debug)]
pub(crate) enum Unanswered {
    /// No handler for this kind of request (or a method presa does not know).
    NoHandler,
    /// The handler returned an error.
    Refused { method: String, error: ErrorObject },
}

impl InputHandlers {
    /// Answers a server→client request (initialize era) given its method and raw params.
    pub(crate) async fn serve(
        &self,
        method: &str,
        params: Option<&RawJson>,
        cx: InputContext,
    ) -> Result<RawJson, ErrorObject> {
        let text = params.map_or("{}", |p| p.get());
        let invalid =
            |e: serde_json::Error| ErrorObject::invalid_params(format!("Invalid params: {e}"));
        let result = match method {
            CreateMessage::METHOD if self.sampling.is_some() => {
                let request =
                    InputRequest::CreateMessage(serde_json::from_str(text).map_err(invalid)?);
                self.answer(request, cx).await
            }
            Elicit::METHOD if self.elicitation.is_some() => {
                let request = InputRequest::Elicit(serde_json::from_str(text).map_err(invalid)?);
                self.answer(request, cx).await
            }
            ListRoots::METHOD if self.roots.is_some() => {
                let params: RequestParams = serde_json::from_str(text).map_err(invalid)?;
                self.answer(InputRequest::ListRoots(Some(params)), cx).await
            }
            _ => return Err(ErrorObject::method_not_found(method)),
        };
        match result {
            Ok(response) => to_raw(&response)
                .map_err(|e| ErrorObject::internal_error(format!("unserializable result: {e}"))),
            Err(Unanswered::Refused { error, .. }) => Err(error),
            Err(Unanswered::NoHandler) => Err(ErrorObject::method_not_found(method)),
        }
    }

    /// Answers one input request, whichever era it came from.
    pub(crate) async fn answer(
        &self,
        request: InputRequest,
        cx: InputContext,
    ) -> Result<InputResponse, Unanswered> {
        let method = request.method().to_owned();
        let refused = |error| Unanswered::Refused {
            method: method.clone(),
            error,
        };
        match request {
            InputRequest::CreateMessage(params) => {
                let handler = self.sampling.as_ref().ok_or(Unanswered::NoHandler)?;
                handler
                    .handle(params, cx)
                    .await
                    .map(InputResponse::CreateMessage)
                    .map_err(refused)
            }
            InputRequest::Elicit(params) => {
                let handler = self.elicitation.as_ref().ok_or(Unanswered::NoHandler)?;
                handler
                    .handle(params, cx)
                    .await
                    .map(InputResponse::Elicit)
                    .map_err(refused)
            }
            InputRequest::ListRoots(params) => {
                let handler = self.roots.as_ref().ok_or(Unanswered::NoHandler)?;
                handler
                    .handle(params.unwrap_or_default(), cx)
                    .await
                    .map(InputResponse::ListRoots)
                    .map_err(refused)
            }
            _ => Err(Unanswered::NoHandler),
        }
    }
}
