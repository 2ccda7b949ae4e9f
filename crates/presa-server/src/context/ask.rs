//! A handler asking the client for input: whether it can ask, and elicitation, sampling and
//! roots, in both eras (an input round in 2026-07-28, a request to the client otherwise).

use presa_core::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, Era,
    ErrorObject, InputRequest, InputResponse, ListRootsResult,
};
use tracing::Instrument;

use super::Context;
use crate::input::{
    InputError, check_elicit_answer, elicit_answer, missing_capability_error, request_params,
    roots_answer, sample_answer,
};
use crate::telemetry;

impl Context {
    /// Whether this request can ask the client for `request` (an elicitation, a sampling, the
    /// roots): the client declared the capability it needs, and the request is one that can ask
    /// (any request of an initialize-era session; on 2026-07-28 `tools/call`, `prompts/get`,
    /// `resources/read` and the tasks they became).
    ///
    /// Asking without it fails the whole request (`-32021` on 2026-07-28, `-32602` before),
    /// which is right when the input is essential (a notification handler's context has no
    /// request to fail: there the ask returns an [`InputError`](crate::InputError)). A handler with another way forward asks
    /// this first, or uses the shorthands [`can_elicit`](Self::can_elicit),
    /// [`can_elicit_url`](Self::can_elicit_url), [`can_sample`](Self::can_sample) and
    /// [`can_list_roots`](Self::can_list_roots):
    ///
    /// ```
    /// use presa_server::{Context, ToolError};
    /// use presa_core::{ElicitRequestFormParams, ElicitationSchema, ElicitAction};
    ///
    /// async fn delete(cx: Context) -> Result<String, ToolError> {
    ///     if !cx.can_elicit() {
    ///         // no one to ask: refuse the destructive part instead of failing the request
    ///         return Err(ToolError::new("confirmation needed; this client cannot ask for it"));
    ///     }
    ///     let form = ElicitRequestFormParams::new("Delete it?", ElicitationSchema::default());
    ///     let answer = cx.elicit(form.into()).await?;
    ///     Ok(match answer.action {
    ///         ElicitAction::Accept => "deleted".into(),
    ///         _ => "kept".into(),
    ///     })
    /// }
    /// # let _ = delete;
    /// ```
    pub fn can_ask(&self, request: &InputRequest) -> bool {
        self.able_to_ask()
            && request
                .required_capability(self.client_capabilities())
                .is_none()
    }

    /// Whether this request can ask the user to fill in a form ([`can_ask`](Self::can_ask)
    /// for a form elicitation).
    pub fn can_elicit(&self) -> bool {
        let form = presa_core::ElicitRequestFormParams::default();
        self.can_ask(&InputRequest::Elicit(ElicitRequestParams::Form(form)))
    }

    /// Whether this request can send the user to a URL ([`can_ask`](Self::can_ask) for a URL
    /// elicitation).
    pub fn can_elicit_url(&self) -> bool {
        let url = presa_core::ElicitRequestUrlParams::default();
        self.can_ask(&InputRequest::Elicit(ElicitRequestParams::Url(url)))
    }

    /// Whether this request can ask the client's model for a completion without tools
    /// ([`can_ask`](Self::can_ask) for a sampling; one offering tools needs the client's
    /// `sampling.tools` as well).
    pub fn can_sample(&self) -> bool {
        self.can_ask(&InputRequest::CreateMessage(Default::default()))
    }

    /// Whether this request can ask the client for its roots ([`can_ask`](Self::can_ask)
    /// for `roots/list`).
    pub fn can_list_roots(&self) -> bool {
        self.can_ask(&InputRequest::ListRoots(None))
    }

    /// Whether this request is one that can ask the client for input at all, whatever the
    /// client declared.
    fn able_to_ask(&self) -> bool {
        match self.protocol_version().era() {
            Era::Initialize => true,
            Era::Stateless => self.inner.round.get().is_some() || self.inner.task.get().is_some(),
        }
    }

    /// Asks the user for input through the client (`elicitation/create`): a form, or a URL to
    /// visit. Named by its position among this handler's requests; see
    /// [`elicit_keyed`](Self::elicit_keyed) to name it.
    ///
    /// Initialize era: a request to the client, answered while the handler waits. 2026-07-28:
    /// the request ends with an `input_required` result, and when the client retries with the
    /// answer the handler runs again from the start and this call returns it — so code before
    /// it runs once per round. A client that did not declare the capability fails the whole
    /// request (`-32021` on 2026-07-28); in a notification handler, which has no request, the
    /// ask returns [`InputError::Unavailable`](crate::InputError::Unavailable).
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, InputError> {
        let key = self.inner.asks.default_key("elicit");
        self.elicit_keyed(key, params).await
    }

    /// Asks the user to fill in a form of type `T` (registered with
    /// [`ServerBuilder::elicitation_form`](crate::ServerBuilder::elicitation_form), where its
    /// schema is derived and checked), and reads the submitted values as a `T`; see
    /// [`elicit`](Self::elicit) for how the two eras ask. Values that do not read as a `T` are
    /// [`InputError::InvalidAnswer`].
    #[cfg(feature = "schemars")]
    pub async fn elicit_as<T>(
        &self,
        message: impl Into<String>,
    ) -> Result<crate::Elicitation<T>, InputError>
    where
        T: serde::de::DeserializeOwned + 'static,
    {
        let form = self
            .inner
            .server
            .as_ref()
            .and_then(|server| server.inner.forms.get::<T>())
            .cloned()
            .ok_or(InputError::UnregisteredForm(std::any::type_name::<T>()))?;
        let params = presa_core::ElicitRequestFormParams::new(message, form);
        let answer = self.elicit(params.into()).await?;
        Ok(match answer.action {
            presa_core::ElicitAction::Accept => {
                let content = answer.content.unwrap_or_default();
                let value = T::deserialize(serde_json::Value::Object(content))
                    .map_err(|error| InputError::InvalidAnswer(error.to_string()))?;
                crate::Elicitation::Accepted(value)
            }
            presa_core::ElicitAction::Decline => crate::Elicitation::Declined,
            presa_core::ElicitAction::Cancel => crate::Elicitation::Cancelled,
        })
    }

    /// [`elicit`](Self::elicit) under a key of your choosing (the key of `inputRequests` on
    /// 2026-07-28; unique within the request).
    pub async fn elicit_keyed(
        &self,
        key: impl Into<String>,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, InputError> {
        let check = params.clone();
        self.ask(
            key.into(),
            InputRequest::Elicit(params),
            elicit_answer,
            move |answer| check_elicit_answer(&check, answer),
        )
        .await
    }

    /// Asks the client's model for a completion (`sampling/createMessage`), the same way as
    /// [`elicit`](Self::elicit).
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, InputError> {
        let key = self.inner.asks.default_key("sample");
        self.sample_keyed(key, params).await
    }

    /// [`sample`](Self::sample) under a key of your choosing.
    pub async fn sample_keyed(
        &self,
        key: impl Into<String>,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, InputError> {
        self.ask(
            key.into(),
            InputRequest::CreateMessage(params),
            sample_answer,
            |_| Ok(()),
        )
        .await
    }

    /// Asks the client for its roots (`roots/list`), the same way as [`elicit`](Self::elicit).
    pub async fn roots(&self) -> Result<ListRootsResult, InputError> {
        let key = self.inner.asks.default_key("roots");
        self.roots_keyed(key).await
    }

    /// [`roots`](Self::roots) under a key of your choosing.
    pub async fn roots_keyed(&self, key: impl Into<String>) -> Result<ListRootsResult, InputError> {
        self.ask(
            key.into(),
            InputRequest::ListRoots(None),
            roots_answer,
            |_| Ok(()),
        )
        .await
    }

    async fn ask<T: serde::de::DeserializeOwned + 'static>(
        &self,
        key: String,
        request: InputRequest,
        read: fn(&InputResponse) -> Option<T>,
        check: impl Fn(&T) -> Result<(), String> + Send + Sync + 'static,
    ) -> Result<T, InputError> {
        let era = self.protocol_version().era();
        if self.inner.notification && !self.able_to_ask() {
            return Err(InputError::NotAllowed);
        }
        if let Some(required) = request.required_capability(self.client_capabilities()) {
            let error = missing_capability_error(required, era);
            if self.inner.notification {
                // no request to fail: the ask does
                return Err(InputError::Unavailable(error.message));
            }
            self.inner.asks.fail(error);
            return std::future::pending().await;
        }
        let method = request.method().to_owned();
        let kind = method.clone();
        let checked = move |response: &InputResponse| {
            read(response)
                .ok_or_else(|| format!("is not a {kind} result"))
                .and_then(|answer| check(&answer).map(|()| answer))
        };
        // an answer of the input rounds before the request became a task counts in the task too
        let answered = self
            .inner
            .round
            .get()
            .and_then(|round| round.responses.get(&key).map(|r| (round, r)));
        if let Some((round, response)) = answered {
            return match checked(response) {
                Ok(answer) => {
                    round
                        .used
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(key);
                    Ok(answer)
                }
                Err(why) => {
                    self.inner.asks.fail(ErrorObject::invalid_params(format!(
                        "inputResponses.{key} {why}"
                    )));
                    std::future::pending().await
                }
            };
        }
        if era == Era::Initialize {
            // a request of the server's own, in a span of its own (with `otel`, its context goes
            // with the request for the client's span of it)
            let span = telemetry::outgoing_span(&method);
            let mut params = request_params(&request);
            telemetry::inject(&span, &mut params);
            let asked = async {
                match self.inner.task.get() {
                    Some(task) => task.ask_client(&method, params).await,
                    None => {
                        let id = Some(&self.inner.request_id);
                        self.inner.peer.request(id, &method, params).await
                    }
                }
            };
            let answer = asked.instrument(span.clone()).await;
            telemetry::record_outgoing_end(&span, &answer);
            return serde_json::from_value(answer?)
                .map_err(|e| InputError::InvalidAnswer(format!("{method}: {e}")));
        }
        if let Some(task) = self.inner.task.get() {
            let check: crate::tasks::AnswerCheck =
                Box::new(move |response| checked(response).map(drop));
            let response = task.ask(key, request, check).await?;
            return read(&response)
                .ok_or_else(|| InputError::InvalidAnswer(format!("is not a {method} result")));
        }
        if self.inner.round.get().is_none() {
            return Err(InputError::NotAllowed);
        }
        self.inner.asks.ask(key, request);
        std::future::pending().await
    }
}
