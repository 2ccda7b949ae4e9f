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
//! requests (elicitation, sampling, roots), asked of the host through the call they arrived
//! during (the latest one in flight when the upstream does not say); its log messages, given
//! to that call too; its list changes, which refresh the mirror; and its resource updates.

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

/// Runs `presa proxy`.
pub(crate) async fn run(proxy: Proxy) -> Result<(), Failure> {
    let routes = Routes::default();
    let upstream = {
        let routes = routes.clone();
        connect_with(&proxy.upstream(), move |options| {
            Ok(routes.handlers(options))
        })
        .await?
    };
    // an initialize-era upstream logs per session: everything, for the front to pass on what
    // its own clients ask for
    let logs = upstream.info().capabilities.logging.is_some();
    if logs && upstream.protocol_version().era() == presa::core::Era::Initialize {
        let level = serde_json::json!({ "level": mirror::EVERY_LOG });
        upstream
            .request_raw("logging/setLevel", level)
            .await
            .map_err(Failure::from)?;
    }
    let bus = Arc::new(Muted::default());
    let server = mirror::build(&upstream, Arc::clone(&bus), &routes).await?;
    let relay = tokio::spawn(relay(
        upstream.clone(),
        server.clone(),
        Arc::clone(&bus),
        routes.clone(),
    ));
    let served = match &proxy.listen {
        Some(address) => serve_http(server, address).await,
        None => presa::stdio::serve(server, presa::stdio::ServeOptions::default())
            .await
            .map_err(|e| Failure::Transport(chain(&e))),
    };
    relay.abort();
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
/// forwarding handlers pass them on.)
async fn relay(upstream: Client, server: Server, bus: Arc<Muted>, routes: Routes) {
    let mut options = SubscriptionOptions::new()
        .tools_list_changed(true)
        .prompts_list_changed(true)
        .resources_list_changed(true);
    if server.supports_subscriptions() {
        for uri in server.resource_uris().into_iter().take(MOST_WATCHED) {
            options = options.resource(uri);
        }
    }
    let mut changes = match upstream.subscribe(options).await {
        Ok(changes) => changes,
        Err(error) => {
            eprintln!(
                "presa proxy: no changes from the proxied server: {}",
                chain(&error)
            );
            return;
        }
    };
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
        if let Err(error) = mirror::refresh(&upstream, &server, &bus, &routes, kind).await {
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

/// The front's calls in flight, newest last: where the upstream's input requests and log
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

    /// Records the call `cx` serves until the returned guard is dropped.
    pub(crate) fn enter(&self, cx: &Context) -> Entered {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let ended = Cancellation::new();
        self.lock().push(Route {
            id,
            cx: cx.clone(),
            ended: ended.clone(),
        });
        Entered {
            routes: self.clone(),
            id,
            ended,
        }
    }

    /// The newest call in flight.
    fn latest(&self) -> Option<Route> {
        self.lock().last().cloned()
    }

    /// Whether `entered` is the newest call in flight.
    pub(crate) fn is_latest(&self, entered: &Entered) -> bool {
        self.lock()
            .last()
            .is_some_and(|route| route.id == entered.id)
    }

    /// The upstream client's input handlers: each asks the host through the newest call.
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

    /// Asks the host with `ask` through the newest call, while that call lasts.
    async fn ask<T, F, Fut>(&self, ask: F) -> Result<T, ErrorObject>
    where
        F: FnOnce(Context) -> Fut,
        Fut: Future<Output = Result<T, InputError>>,
    {
        let Some(route) = self.latest() else {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                "no request of the host's is in flight to ask through",
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
