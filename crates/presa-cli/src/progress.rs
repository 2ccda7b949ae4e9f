//! A call's progress notifications, as a bar on stderr (drawn only on a terminal).

use std::sync::{Arc, Mutex, PoisonError};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use presa::core::ProgressNotificationParams;

/// The bar being drawn, if any: what prints on stderr meanwhile suspends it.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Steps of a bar whose total is known.
const STEPS: u64 = 1000;

/// The progress of one call: nothing drawn until the server reports progress; cleared when
/// finished, or when the last copy is dropped (the call interrupted).
#[derive(Clone)]
pub(crate) struct Progress {
    bar: Arc<Bar>,
}

/// The bar of one call, once drawn.
#[derive(Default)]
struct Bar(Mutex<Option<ProgressBar>>);

impl Bar {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn clear(&self) {
        if let Some(bar) = self.lock().take() {
            bar.finish_and_clear();
            *ACTIVE.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.clear();
    }
}

impl Progress {
    pub(crate) fn new() -> Self {
        Self {
            bar: Arc::default(),
        }
    }

    /// Shows `update`: a bar when the server gives a total, a spinner with the count when not.
    pub(crate) fn update(&self, update: &ProgressNotificationParams) {
        let mut bar = self.bar.lock();
        let bar = bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            *ACTIVE.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar.clone());
            bar
        });
        let message = update.message.clone().unwrap_or_default();
        match update.total.filter(|total| *total > 0.0) {
            Some(total) => {
                if bar.length() != Some(STEPS) {
                    bar.set_length(STEPS);
                    bar.set_style(
                        ProgressStyle::with_template("{bar:30} {percent:>3}% {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                }
                let done = (update.progress / total).clamp(0.0, 1.0);
                // a fraction of STEPS: exact enough for a bar
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                bar.set_position((done * STEPS as f64).round() as u64);
                bar.set_message(crate::output::printable(&message));
            }
            None => {
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                let message = crate::output::printable(&message);
                bar.set_message(format!("{} {message}", update.progress));
                bar.tick();
            }
        }
    }

    /// Clears the bar.
    pub(crate) fn finish(&self) {
        self.bar.clear();
    }

    /// Runs `print` (which writes to stderr) with the bar, if one is drawn, out of its way.
    pub(crate) fn suspended(print: impl FnOnce()) {
        let active = ACTIVE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match active {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }
}
