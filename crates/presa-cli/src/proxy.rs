//! `presa proxy`: one server served in another transport.
//!
//! The proxy is a presa client of the proxied server (the upstream) and a presa server of its
//! own (the front) that mirrors it: the upstream's identity, instructions and capabilities, and
//! a tool, prompt, resource and template for each of the upstream's, whose handlers forward to
//! it. So each side speaks its own era, presa translating between them as it does for any
//! server and client: a stdio server of 2024 can be reached on 2026-07-28 over HTTP, and the
//! other way round.
//!
//! What crosses, both ways: each call with its progress and its cancellation (dropping the
//! front's handler drops the upstream call, which tells the upstream); the upstream's input
//! requests (elicitation, sampling, roots), asked of the host through the call they belong to
//! (the one they were made within, 2026-07-28's rounds; else the one call in flight, and none
//! when several are); its log messages, given to the one call in flight; its list changes,
//! which refresh the mirror; and its resource updates.

use std::sync::{Arc, Mutex, PoisonError};

use presa::client::{ChangeEvent, Client, ClientOptions, InputContext, SubscriptionOptions};
use presa::core::{ErrorCode, ErrorObject};
use presa::server::{
    BusReceiver, Cancellation, Change, Context, EventBus, InMemoryBus, InputError, ListKind, Server,
};

use crate::args::Proxy;
use crate::connect::connect_with;
use crate::failure::{Failure, chain};

mod mirror;

use mirror::Mirror;

/// Runs `presa proxy`.
pub(crate) async fn run(proxy: Proxy) -> Result<(), Failure> {
    if let Some(url) = &proxy.stdio
        && !crate::connect::is_url(std::slice::from_ref(url))
    {
        return Err(Failure::Usage(format!(
            "--stdio {url}: not an http(s):// URL"
        )));
    }
    let routes = Routes::default();
    let upstream = {
        let routes = routes.clone();
        connect_with(&proxy.upstream(), move |options| {
            Ok(routes.handlers(options))
        })
        .await?
    };
    // everything the upstream logs, for the front to pass on what its own clients ask for
    crate::connect::ask_for_logs(&upstream, mirror::EVERY_LOG).await;
    let bus = Arc::new(Muted::default());
    let (server, mirror) = Mirror::build(&upstream, Arc::clone(&bus), &routes).await?;
    let relay = relay(upstream.clone(), server.clone(), bus, mirror);
    let serving = async {
        match &proxy.listen {
            Some(address) => serve_http(server, address).await,
            None => presa::stdio::serve(server, presa::stdio::ServeOptions::default())
                .await
                .map_err(|e| Failure::Transport(chain(&e))),
        }
    };
    // the proxy ends with either side: its host's, or the proxied server's
    let served = tokio::select! {
        served = serving => served,
        () = relay => Err(Failure::Transport("the proxied server went away".to_owned())),
    };
    upstream.close().await;
    served
}

/// Serves the front on Streamable HTTP at `address` until Ctrl-C.
async fn serve_http(server: Server, address: &str) -> Result<(), Failure> {
    let (host, port) = address
        .rsplit_once(':')
        .ok_or_else(|| Failure::Usage(format!("--listen {address}: not HOST:PORT")))?;
    let port: u16 = port
        .parse()
        .map_err(|_| Failure::Usage(format!("--listen {address}: not a port")))?;
    let loopback = host == "localhost"
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        eprintln!(
            "presa proxy: serving on {host}, not a loopback address: anyone who reaches it can use \
             the proxied server, with no authorization"
        );
    }
    let options = presa::http::HttpOptions::default().host(host).port(port);
    let running = presa::http::serve(server, options)
        .await
        .map_err(|e| Failure::Transport(chain(&e)))?;
    println!("listening {}", running.url());
    let _ = tokio::signal::ctrl_c().await;
    running
        .stop()
        .await
        .map_err(|e| Failure::Transport(chain(&e)))
}

/// The most resources whose updates the proxy watches upstream (each one a subscription).
const MOST_WATCHED: usize = 256;

/// Subscribes to the upstream's changes (a listen on 2026-07-28, the session's notifications
/// before), then acts on them: a list change refreshes the mirror's list (announced once), a
/// resource update is passed on. The resources listed at the start are watched, when the
/// upstream offers subscriptions. (Log messages go to the call in flight: [`mirror`]'s
/// forwarding handlers pass them on.) Returns when the upstream's changes end: it went away.
async fn relay(upstream: Client, server: Server, bus: Arc<Muted>, mirror: Mirror) {
    let mut options = SubscriptionOptions::new()
        .tools_list_changed(true)
        .prompts_list_changed(true)
        .resources_list_changed(true);
    if server.supports_subscriptions() {
        for uri in server.resource_uris().into_iter().take(MOST_WATCHED) {
            options = options.resource(uri);
        }
    }
    let mut notifications = upstream.notifications();
    let mut changes = match upstream.subscribe(options).await {
        Ok(changes) => changes,
        Err(error) => {
            eprintln!(
                "presa proxy: no changes from the proxied server: {}",
                chain(&error)
            );
            // its end is still the proxy's
            while notifications.recv().await.is_some() {}
            return;
        }
    };
    drop(notifications);
    while let Some(change) = changes.next().await {
        let kind = match change {
            ChangeEvent::ToolsListChanged => ListKind::Tools,
            ChangeEvent::PromptsListChanged => ListKind::Prompts,
            ChangeEvent::ResourcesListChanged => ListKind::Resources,
            ChangeEvent::ResourceUpdated { uri } => {
                server.resource_updated(uri);
                continue;
            }
            _ => continue,
        };
        if let Err(error) = mirror.refresh(&server, &bus, kind).await {
            eprintln!("presa proxy: the proxied server's {kind:?} list: {error}");
        }
    }
}

/// The front's event bus: while the mirror refreshes a list, the list changes each of its
/// edits makes are held back, and one is announced at the end.
#[derive(Debug, Default)]
pub(crate) struct Muted {
    bus: InMemoryBus,
    muted: std::sync::atomic::AtomicBool,
}

impl Muted {
    /// Runs `edit` with list changes held back, then announces one of `kind`.
    pub(crate) fn quietly<T>(&self, kind: ListKind, edit: impl FnOnce() -> T) -> T {
        use std::sync::atomic::Ordering;
        self.muted.store(true, Ordering::Release);
        let edited = edit();
        self.muted.store(false, Ordering::Release);
        self.bus.publish(Change::ListChanged(kind));
        edited
    }
}

impl EventBus for Muted {
    fn publish(&self, change: Change) {
        let muted = self.muted.load(std::sync::atomic::Ordering::Acquire);
        if !(muted && matches!(change, Change::ListChanged(_))) {
            self.bus.publish(change);
        }
    }

    fn subscribe(&self) -> BusReceiver<Change> {
        self.bus.subscribe()
    }
}

tokio::task_local! {
    /// The front call an upstream call is made for, within that call (where 2026-07-28's input
    /// rounds ask their questions).
    pub(crate) static SERVING: Route;
}

/// The front's calls in flight, oldest first: where the upstream's input requests and log
/// messages go.
#[derive(Clone, Debug, Default)]
pub(crate) struct Routes {
    calls: Arc<Mutex<Vec<Route>>>,
    next: Arc<std::sync::atomic::AtomicU64>,
}

/// One front call in flight.
#[derive(Clone, Debug)]
pub(crate) struct Route {
    id: u64,
    cx: Context,
    /// Fires when the call ends: an input request still asking the host through it fails.
    ended: Cancellation,
}

/// A call's place among the routes, given back when dropped.
pub(crate) struct Entered {
    routes: Routes,
    id: u64,
    ended: Cancellation,
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.ended.cancel();
        let id = self.id;
        self.routes.lock().retain(|route| route.id != id);
    }
}

impl Routes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Route>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the call `cx` serves until the returned guard is dropped; its route, for the
    /// upstream call made for it.
    pub(crate) fn enter(&self, cx: &Context) -> (Entered, Route) {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let route = Route {
            id,
            cx: cx.clone(),
            ended: Cancellation::new(),
        };
        self.lock().push(route.clone());
        let entered = Entered {
            routes: self.clone(),
            id,
            ended: route.ended.clone(),
        };
        (entered, route)
    }

    /// The one call in flight, if there is exactly one.
    fn only(&self) -> Option<Route> {
        match self.lock().as_slice() {
            [only] => Some(only.clone()),
            _ => None,
        }
    }

    /// Whether `entered` is the one call in flight.
    pub(crate) fn is_only(&self, entered: &Entered) -> bool {
        self.only().is_some_and(|route| route.id == entered.id)
    }

    /// The upstream client's input handlers: each asks the host through the call it belongs to.
    fn handlers(&self, options: ClientOptions) -> ClientOptions {
        let (elicit, sample, roots) = (self.clone(), self.clone(), self.clone());
        options
            .elicitation(move |params, _cx: InputContext| {
                let routes = elicit.clone();
                async move {
                    routes
                        .ask(|cx| async move { cx.elicit(params).await })
                        .await
                }
            })
            .sampling(move |params, _cx: InputContext| {
                let routes = sample.clone();
                async move {
                    routes
                        .ask(|cx| async move { cx.sample(params).await })
                        .await
                }
            })
            .roots(move |_params, _cx: InputContext| {
                let routes = roots.clone();
                async move { routes.ask(|cx| async move { cx.roots().await }).await }
            })
    }

    /// Asks the host with `ask` through the call the request belongs to, while that call lasts:
    /// the call it was made within (2026-07-28's input rounds), else the one call in flight.
    /// With several in flight and no way to tell, the request is refused rather than asked of
    /// the wrong host.
    async fn ask<T, F, Fut>(&self, ask: F) -> Result<T, ErrorObject>
    where
        F: FnOnce(Context) -> Fut,
        Fut: Future<Output = Result<T, InputError>>,
    {
        let within = SERVING.try_with(Route::clone).ok();
        let Some(route) = within.or_else(|| self.only()) else {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                "the proxy cannot tell which of its host's requests this one belongs to \
                 (none, or several, are in flight)",
            ));
        };
        tokio::select! {
            answer = ask(route.cx) => answer.map_err(|error| match error {
                InputError::Rejected(error) => error,
                InputError::NotAllowed => ErrorObject::new(
                    ErrorCode::INVALID_REQUEST,
                    "the host's request cannot ask for input",
                ),
                other => ErrorObject::internal_error(other.to_string()),
            }),
            () = route.ended.cancelled() => Err(ErrorObject::internal_error(
                "the host's request ended before it answered",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use presa::core::{ClientCapabilities, ClientContext, ProtocolVersion};

    use super::*;

    /// A context that says which call it is by the revision it names.
    fn call(version: ProtocolVersion) -> Context {
        Context::for_client(ClientContext {
            protocol_version: version,
            capabilities: ClientCapabilities::default(),
            client_info: None,
        })
    }

    /// Which call `routes` would ask through.
    async fn asked(routes: &Routes) -> Result<ProtocolVersion, ErrorObject> {
        routes
            .ask(|cx| async move { Ok::<_, InputError>(cx.protocol_version()) })
            .await
    }

    #[tokio::test]
    async fn an_input_request_goes_to_the_call_it_belongs_to_or_nowhere() {
        let routes = Routes::default();
        assert!(asked(&routes).await.is_err(), "no call in flight");
        let (first, first_route) = routes.enter(&call(ProtocolVersion::V2025_06_18));
        assert_eq!(asked(&routes).await.unwrap(), ProtocolVersion::V2025_06_18);
        let (second, _) = routes.enter(&call(ProtocolVersion::V2025_11_25));
        // two in flight and nothing to tell them apart: refused, not asked of the wrong one
        let refused = asked(&routes).await.unwrap_err();
        assert!(
            refused.message.contains("cannot tell"),
            "{}",
            refused.message
        );
        assert!(!routes.is_only(&first) && !routes.is_only(&second));
        // made within a call: that call, whatever else is in flight
        let within = SERVING.scope(first_route, asked(&routes)).await;
        assert_eq!(within.unwrap(), ProtocolVersion::V2025_06_18);
        // the first ends: the second is the only one
        drop(first);
        assert!(routes.is_only(&second));
        assert_eq!(asked(&routes).await.unwrap(), ProtocolVersion::V2025_11_25);
    }

    #[tokio::test]
    async fn an_input_request_fails_when_its_call_ends_first() {
        let routes = Routes::default();
        let (entered, _) = routes.enter(&call(ProtocolVersion::V2025_11_25));
        let (asking, asked) = tokio::sync::oneshot::channel();
        let waiting = {
            let routes = routes.clone();
            tokio::spawn(async move {
                routes
                    .ask(|_cx| async move {
                        let _ = asking.send(());
                        std::future::pending::<Result<(), InputError>>().await
                    })
                    .await
            })
        };
        // the call ends while its host has not answered
        asked.await.unwrap();
        drop(entered);
        let failed = waiting.await.unwrap().unwrap_err();
        assert!(failed.message.contains("ended"), "{}", failed.message);
    }
}
