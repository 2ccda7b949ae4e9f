//! Catching a panic in a handler's future, so that the connection and the process live on.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind as catch};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::BoxFuture;

/// Polls `future`, turning a panic into `Err` with the panic's message.
pub(crate) fn catch_unwind<T>(future: BoxFuture<'static, T>) -> CatchUnwind<T> {
    CatchUnwind { future }
}

pub(crate) struct CatchUnwind<T> {
    future: BoxFuture<'static, T>,
}

impl<T> Future for CatchUnwind<T> {
    type Output = Result<T, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = self.future.as_mut();
        match catch(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(&*payload))),
        }
    }
}

/// The message of a panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("handler panicked: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("handler panicked: {s}")
    } else {
        "handler panicked".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_an_error_with_its_message() {
        let ok: BoxFuture<'static, u8> = Box::pin(async { 7 });
        assert_eq!(catch_unwind(ok).await, Ok(7));
        let boom: BoxFuture<'static, u8> = Box::pin(async { panic!("boom {}", 1) });
        assert_eq!(
            catch_unwind(boom).await,
            Err("handler panicked: boom 1".to_owned())
        );
    }
}
