//! The byte budget of Submits in flight. A Submit's gRPC frame says its length in its
//! first five bytes, so the layer reads only those, takes that many bytes of the budget
//! (waiting up to `Config::submit_wait`) and holds them until the call is answered:
//! receiving, decoding and checking all happen inside the budget. A Submit that cannot
//! get its bytes in time is refused with `RESOURCE_EXHAUSTED` before its body is read,
//! so a burst of large Submits costs the budget, not the burst (hyper reads no more of
//! a waiting body than its stream window).

use crate::limits::BoxedCall;
use bytes::{Buf, Bytes, BytesMut};
use http_body::{Body as HttpBody, Frame};
use http_body_util::BodyExt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::Semaphore;
use tonic::body::Body;
use tonic::Status;

/// The only call whose body is large.
const SUBMIT: &str = "/rrm.v1.Mining/Submit";
/// A gRPC message's prefix: a compression flag and a big-endian length.
const PREFIX: usize = 5;

/// The layer holding the budget; one for the whole server.
#[derive(Clone)]
pub(crate) struct SubmitBudgetLayer {
    bytes: Arc<Semaphore>,
    budget: u32,
    wait: Duration,
}

impl SubmitBudgetLayer {
    pub(crate) fn new(budget: usize, wait: Duration) -> SubmitBudgetLayer {
        let budget = u32::try_from(budget.max(1)).unwrap_or(u32::MAX);
        SubmitBudgetLayer {
            bytes: Arc::new(Semaphore::new(budget as usize)),
            budget,
            wait,
        }
    }
}

impl<S> tower::Layer<S> for SubmitBudgetLayer {
    type Service = SubmitBudget<S>;

    fn layer(&self, inner: S) -> SubmitBudget<S> {
        SubmitBudget {
            inner,
            layer: self.clone(),
        }
    }
}

#[derive(Clone)]
pub(crate) struct SubmitBudget<S> {
    inner: S,
    layer: SubmitBudgetLayer,
}

impl<S, B> tower::Service<http::Request<B>> for SubmitBudget<S>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: HttpBody<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Into<tonic::codegen::StdError>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxedCall<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if request.uri().path() != SUBMIT {
            return Box::pin(self.inner.call(request.map(Body::new)));
        }
        // The ready service is the one to call; its clone waits for the next call.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let layer = self.layer.clone();
        Box::pin(async move {
            let (parts, mut body) = request.into_parts();
            let head = read_prefix(&mut body).await;
            let length = message_length(&head).min(layer.budget);
            let body = Body::new(Prefixed {
                head: (!head.is_empty()).then(|| head.freeze()),
                rest: body,
            });
            let bytes = layer.bytes.clone().acquire_many_owned(length);
            let permit = match tokio::time::timeout(layer.wait, bytes).await {
                Ok(Ok(permit)) => permit,
                Ok(Err(_closed)) => return Ok(Status::unavailable("stopping").into_http()),
                Err(_elapsed) => {
                    let refused = Status::resource_exhausted(format!(
                        "{} MiB of Submits are being checked and this one of {:.1} MiB \
                         waited {} s for room; retry later",
                        layer.budget >> 20,
                        f64::from(length) / 1048576.0,
                        layer.wait.as_secs()
                    ));
                    return Ok(refused.into_http());
                }
            };
            let response = inner.call(http::Request::from_parts(parts, body)).await;
            drop(permit);
            response
        })
    }
}

/// Reads a request body until its first message's prefix is in: those bytes and any
/// others of the same frames. Fewer than [`PREFIX`] if the body ends or fails first
/// (then tonic refuses it as it would have).
async fn read_prefix<B>(body: &mut B) -> BytesMut
where
    B: HttpBody<Data = Bytes> + Unpin,
{
    let mut head = BytesMut::new();
    while head.len() < PREFIX {
        match body.frame().await {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => head.extend_from_slice(&data),
                Err(_trailers) => break,
            },
            _ => break,
        }
    }
    head
}

/// The length the prefix gives (0 when there is none).
fn message_length(head: &[u8]) -> u32 {
    match head.get(1..PREFIX) {
        Some(mut length) => length.get_u32(),
        None => 0,
    }
}

/// A body whose first bytes were read already: them, then the rest.
struct Prefixed<B> {
    head: Option<Bytes>,
    rest: B,
}

impl<B> HttpBody for Prefixed<B>
where
    B: HttpBody<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        if let Some(head) = self.head.take() {
            return Poll::Ready(Some(Ok(Frame::data(head))));
        }
        Pin::new(&mut self.rest).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.head.is_none() && self.rest.is_end_stream()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::{Layer, Service};

    /// A service that reads its request's body to the end and answers with its length
    /// after `delay`.
    #[derive(Clone)]
    struct Reader {
        delay: Duration,
    }

    impl Service<http::Request<Body>> for Reader {
        type Response = http::Response<Body>;
        type Error = std::convert::Infallible;
        type Future = BoxedCall<Self::Response, Self::Error>;
        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
            Poll::Ready(Ok(()))
        }
        fn call(&mut self, request: http::Request<Body>) -> Self::Future {
            let delay = self.delay;
            Box::pin(async move {
                let body = request.into_body().collect().await.unwrap().to_bytes();
                tokio::time::sleep(delay).await;
                Ok(http::Response::new(Body::new(http_body_util::Full::new(
                    body,
                ))))
            })
        }
    }

    fn submit(length: u32) -> http::Request<http_body_util::Full<Bytes>> {
        let mut message = vec![0];
        message.extend_from_slice(&length.to_be_bytes());
        message.resize(PREFIX + length as usize, 7);
        http::Request::builder()
            .uri(SUBMIT)
            .body(http_body_util::Full::new(Bytes::from(message)))
            .unwrap()
    }

    async fn answer(response: http::Response<Body>) -> Result<Bytes, String> {
        match response.headers().get("grpc-status") {
            Some(code) => Err(code.to_str().unwrap().to_string()),
            None => Ok(response.into_body().collect().await.unwrap().to_bytes()),
        }
    }

    #[tokio::test]
    async fn submits_beyond_the_budget_wait_then_are_refused_and_bodies_pass_whole() {
        let layer = SubmitBudgetLayer::new(1000, Duration::from_millis(50));
        let mut slow = layer.layer(Reader {
            delay: Duration::from_millis(300),
        });
        // 600 bytes in flight for 300 ms: another 600 cannot wait that long; 400 fit.
        let first = tokio::spawn(slow.call(submit(600)));
        tokio::time::sleep(Duration::from_millis(10)).await;
        let refused = slow.call(submit(600)).await.unwrap();
        assert_eq!(answer(refused).await, Err("8".into()), "RESOURCE_EXHAUSTED");
        let fits = slow.call(submit(400)).await.unwrap();
        assert_eq!(answer(fits).await.map(|b| b.len()), Ok(PREFIX + 400));
        let whole = answer(first.await.unwrap().unwrap()).await.unwrap();
        assert_eq!(whole.len(), PREFIX + 600);
        assert_eq!((whole[4], whole[5], whole[PREFIX + 599]), (88, 7, 7));
        // Given back: the whole budget is free again.
        assert_eq!(layer.bytes.available_permits(), 1000);
        let other = http::Request::builder()
            .uri("/rrm.v1.Mining/Lease")
            .body(http_body_util::Full::new(Bytes::from_static(b"x")))
            .unwrap();
        let passed = slow.call(other).await.unwrap();
        assert_eq!(answer(passed).await, Ok(Bytes::from_static(b"x")));
    }
}
