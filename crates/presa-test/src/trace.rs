//! The `tracing` events a test's code emits, recorded so the test can assert on them: the
//! diagnostics of presa-http and presa-stdio are events, not lines handed to a callback.
//!
//! [`capture`] makes a recorder the default subscriber of the calling thread until the returned
//! [`Capture`] is dropped. It sees what runs on that thread only: under `#[tokio::test]` (a
//! current-thread runtime) that is the test and every task it spawns; on a multi-thread runtime
//! or another thread, events would be missed.
//!
//! ```
//! let capture = presa_test::trace::capture();
//! tracing::warn!(target: "presa_stdio", max = 64, "skipping an input line longer than the limit");
//! let events = capture.events("presa_stdio");
//! assert_eq!(events[0].message, "skipping an input line longer than the limit");
//! assert_eq!(events[0].field("max"), Some("64"));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use tracing::dispatcher::DefaultGuard;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// One event as it was emitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// Its level.
    pub level: Level,
    /// Its target, e.g. `presa_http`.
    pub target: String,
    /// Its message (the `message` field), empty when it has none.
    pub message: String,
    /// Its other fields, each recorded as text: a `%value` as its `Display`, a `?value` as its
    /// `Debug`, a string as itself, a number in decimal.
    pub fields: BTreeMap<String, String>,
}

impl Captured {
    /// A field's value, as text.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// The recorder: a layer that appends each event to a shared list.
#[derive(Clone, Debug, Default)]
struct Recorder(Arc<Mutex<Vec<Captured>>>);

impl<S: Subscriber> Layer<S> for Recorder {
    fn on_event(&self, event: &Event<'_>, _cx: Context<'_, S>) {
        let metadata = event.metadata();
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let message = fields.remove("message").unwrap_or_default();
        self.0.lock().unwrap().push(Captured {
            level: *metadata.level(),
            target: metadata.target().to_owned(),
            message,
            fields,
        });
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

/// The events recorded since [`capture`]; recording stops when it is dropped.
pub struct Capture {
    recorder: Recorder,
    _guard: DefaultGuard,
}

impl fmt::Debug for Capture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Capture")
            .field("recorder", &self.recorder)
            .finish_non_exhaustive()
    }
}

/// Records every event emitted on this thread, at every level, until the [`Capture`] is dropped.
pub fn capture() -> Capture {
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    Capture {
        recorder,
        _guard: tracing::subscriber::set_default(subscriber),
    }
}

impl Capture {
    /// The events of `target` (e.g. `presa_http`), in the order they were emitted.
    pub fn events(&self, target: &str) -> Vec<Captured> {
        let all = self.recorder.0.lock().unwrap();
        all.iter().filter(|e| e.target == target).cloned().collect()
    }
}
