//! The bound on `rrm.v1` calls in progress over all connections. Only calls of the rrm
//! services count: health and reflection stay answerable under load, and a client
//! without a token holds a slot only until its gate refuses it, which happens on the
//! call's headers, so withheld request bodies cannot starve the workers. A call beyond
//! the bound is refused at once with `RESOURCE_EXHAUSTED` (workers back off and retry)
//! rather than queued.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::Semaphore;
use tonic::body::Body;
use tonic::Status;

/// The layer holding the bound's permits; one for the whole server.
#[derive(Clone)]
pub(crate) struct CallLimitLayer {
    permits: Arc<Semaphore>,
}

impl CallLimitLayer {
    pub(crate) fn new(max_calls: usize) -> CallLimitLayer {
        CallLimitLayer {
            permits: Arc::new(Semaphore::new(max_calls)),
        }
    }
}

impl<S> tower::Layer<S> for CallLimitLayer {
    type Service = CallLimit<S>;

    fn layer(&self, inner: S) -> CallLimit<S> {
        CallLimit {
            inner,
            permits: self.permits.clone(),
        }
    }
}

#[derive(Clone)]
pub(crate) struct CallLimit<S> {
    inner: S,
    permits: Arc<Semaphore>,
}

/// The future of a call through one of the coordinator's tower layers.
pub(crate) type BoxedCall<R, E> = Pin<Box<dyn Future<Output = Result<R, E>> + Send>>;

impl<S, B> tower::Service<http::Request<B>> for CallLimit<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxedCall<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if !request.uri().path().starts_with("/rrm.v1.") {
            return Box::pin(self.inner.call(request));
        }
        let Ok(permit) = self.permits.clone().try_acquire_owned() else {
            let refused = Status::resource_exhausted("too many calls in progress; retry later");
            return Box::pin(std::future::ready(Ok(refused.into_http())));
        };
        let call = self.inner.call(request);
        Box::pin(async move {
            let response = call.await;
            drop(permit);
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::{Layer, Service};

    /// A service that never answers, so permits stay held.
    #[derive(Clone)]
    struct Never;

    impl Service<http::Request<()>> for Never {
        type Response = http::Response<Body>;
        type Error = std::convert::Infallible;
        type Future = BoxedCall<Self::Response, Self::Error>;
        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
            Poll::Ready(Ok(()))
        }
        fn call(&mut self, _: http::Request<()>) -> Self::Future {
            Box::pin(std::future::pending())
        }
    }

    fn call(path: &str) -> http::Request<()> {
        http::Request::builder().uri(path).body(()).unwrap()
    }

    #[tokio::test]
    async fn rrm_calls_beyond_the_bound_are_refused_and_others_pass() {
        let layer = CallLimitLayer::new(2);
        let mut service = layer.layer(Never);
        let held: Vec<_> = (0..2)
            .map(|_| service.call(call("/rrm.v1.Mining/Lease")))
            .collect();
        let refused = service.call(call("/rrm.v1.Query/GetStats")).await.unwrap();
        assert_eq!(refused.headers()["grpc-status"], "8", "RESOURCE_EXHAUSTED");
        // Health is not counted: it reaches the service (which here never answers).
        let health = service.call(call("/grpc.health.v1.Health/Check"));
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(20), health)
                .await
                .is_err()
        );
        drop(held);
        // Dropped calls give their permits back.
        let again = service.call(call("/rrm.v1.Mining/Lease"));
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(20), again)
                .await
                .is_err()
        );
    }
}
