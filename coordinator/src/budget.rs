//! The byte budget of Submits in flight. A Submit's gRPC frame says its length in its
//! first five bytes, so the layer reads only those, takes that many bytes of the budget
//! (waiting up to `Config::submit_wait`) and holds them until the call is answered:
//! receiving, decoding and checking all happen inside the budget. A Submit that cannot
//! get its bytes in time is refused with `RESOURCE_EXHAUSTED` before its body is read,
//! so a burst of large Submits costs the budget, not the burst (hyper reads no more of
//! a waiting body than its stream window).
//!
//! The layer then reads the message itself, within `Config::submit_body_time` (a body
//! trickled in would hold its bytes of the budget), and refuses anything after it: tonic
//! would decode and drop further messages of a unary call outside the budget. An
//! exhaustive result decodes to up to [`EXHAUSTIVE_DECODED_PER_BYTE`] times its wire
//! bytes, so before tonic decodes it, the layer takes that much more of the budget.

use crate::limits::BoxedCall;
use bytes::{Buf, Bytes};
use http_body::{Body as HttpBody, Frame};
use http_body_util::BodyExt;
use rrm_proto::EXHAUSTIVE_DECODED_PER_BYTE;
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
    body_time: Duration,
}

impl SubmitBudgetLayer {
    pub(crate) fn new(budget: usize, wait: Duration, body_time: Duration) -> SubmitBudgetLayer {
        let budget = u32::try_from(budget.max(1)).unwrap_or(u32::MAX);
        SubmitBudgetLayer {
            bytes: Arc::new(Semaphore::new(budget as usize)),
            budget,
            wait,
            body_time,
        }
    }

    /// `bytes` more of the budget within `wait`, or the refusal to answer with.
    async fn take(
        &self,
        bytes: u32,
        wait: Duration,
    ) -> Result<tokio::sync::OwnedSemaphorePermit, Status> {
        let permit = self.bytes.clone().acquire_many_owned(bytes);
        match tokio::time::timeout(wait, permit).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_closed)) => Err(Status::unavailable("stopping")),
            Err(_elapsed) => Err(Status::resource_exhausted(format!(
                "{} MiB of Submits are being checked and this one needs {:.1} MiB more; \
                 it waited {} s for room; retry later",
                self.budget >> 20,
                f64::from(bytes) / 1048576.0,
                wait.as_secs()
            ))),
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
            let mut head = Chunks::default();
            read_into(&mut body, &mut head, PREFIX).await;
            let claimed = message_length(&head);
            let length = claimed.min(layer.budget);
            let started = tokio::time::Instant::now();
            let permit = match layer.take(length, layer.wait).await {
                Ok(permit) => permit,
                Err(refused) => return Ok(refused.into_http()),
            };
            if head.remaining() < PREFIX || claimed as usize > rrm_proto::MAX_MINING_MESSAGE {
                // Cut short or over the message limit: tonic refuses it as it reads it.
                let body = Body::new(Prefixed { head, rest: body });
                let response = inner.call(http::Request::from_parts(parts, body)).await;
                drop(permit);
                return response;
            }
            let whole = PREFIX + claimed as usize;
            let message =
                match tokio::time::timeout(layer.body_time, read_message(head, &mut body, whole))
                    .await
                {
                    Ok(Ok(message)) => message,
                    Ok(Err(refused)) => return Ok(refused.into_http()),
                    Err(_elapsed) => {
                        let slow = Status::deadline_exceeded(format!(
                            "a Submit's {:.1} MiB must arrive within {} s",
                            f64::from(claimed) / 1048576.0,
                            layer.body_time.as_secs()
                        ));
                        return Ok(slow.into_http());
                    }
                };
            let exhaustive = {
                let mut fields = message.clone();
                fields.advance(PREFIX);
                rrm_proto::submit_exhaustive_bytes(fields)
            };
            let decoded = exhaustive.saturating_mul(EXHAUSTIVE_DECODED_PER_BYTE - 1);
            let more = match u32::try_from(decoded) {
                Ok(more) if more <= layer.budget - length => more,
                _ => {
                    let large = Status::resource_exhausted(format!(
                        "an exhaustive result of {} KiB decodes to more than the {} MiB \
                         of Submits the coordinator holds at once",
                        exhaustive >> 10,
                        layer.budget >> 20
                    ));
                    return Ok(large.into_http());
                }
            };
            let left = layer.wait.saturating_sub(started.elapsed());
            let decoding = match more {
                0 => None,
                more => match layer.take(more, left).await {
                    Ok(permit) => Some(permit),
                    Err(refused) => return Ok(refused.into_http()),
                },
            };
            let body = Body::new(message);
            let response = inner.call(http::Request::from_parts(parts, body)).await;
            drop((permit, decoding));
            response
        })
    }
}

/// The rest of a Submit's one message after its first bytes `head`: `whole` bytes in
/// all, kept as the chunks hyper received (tonic copies them as it decodes, so a copy
/// here would double the message). Bytes after it (a second message, which tonic would
/// decode and drop outside the budget) are refused; a body that ends short is handed on
/// for tonic to refuse.
async fn read_message<B>(mut message: Chunks, body: &mut B, whole: usize) -> Result<Chunks, Status>
where
    B: HttpBody<Data = Bytes> + Unpin,
{
    read_into(body, &mut message, whole).await;
    let beyond = || Status::invalid_argument("a Submit is one message; bytes follow it");
    if message.remaining() > whole {
        return Err(beyond());
    }
    if message.remaining() == whole && !body.is_end_stream() {
        // Whatever comes next must be the end (or trailers), not more data.
        if let Some(Ok(frame)) = body.frame().await {
            if frame.data_ref().is_some_and(|data| !data.is_empty()) {
                return Err(beyond());
            }
        }
    }
    Ok(message)
}

/// Reads `body`'s data frames into `into` until it holds `bytes` bytes (or more, of the
/// same frames), the body ends or fails, or trailers come (tonic then refuses what it
/// gets as it would have).
async fn read_into<B>(body: &mut B, into: &mut Chunks, bytes: usize)
where
    B: HttpBody<Data = Bytes> + Unpin,
{
    while into.remaining() < bytes {
        match body.frame().await {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => into.push(data),
                Err(_trailers) => return,
            },
            _ => return,
        }
    }
}

/// A message as received chunks: a [`Buf`] for reading it in place, and a body that
/// hands the chunks on.
#[derive(Clone, Default)]
struct Chunks {
    parts: std::collections::VecDeque<Bytes>,
    bytes: usize,
}

impl Chunks {
    fn push(&mut self, part: Bytes) {
        self.bytes += part.len();
        if !part.is_empty() {
            self.parts.push_back(part);
        }
    }

    /// The first chunk, taken out.
    fn pop(&mut self) -> Option<Bytes> {
        let part = self.parts.pop_front()?;
        self.bytes -= part.len();
        Some(part)
    }
}

impl Buf for Chunks {
    fn remaining(&self) -> usize {
        self.bytes
    }

    fn chunk(&self) -> &[u8] {
        self.parts.front().map_or(&[], |part| part.as_ref())
    }

    fn advance(&mut self, mut count: usize) {
        self.bytes -= count;
        while count > 0 {
            let front = self.parts.front_mut().expect("advanced within remaining");
            if count < front.len() {
                front.advance(count);
                return;
            }
            count -= front.len();
            self.parts.pop_front();
        }
    }
}

impl HttpBody for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Poll::Ready(self.pop().map(|part| Ok(Frame::data(part))))
    }

    fn is_end_stream(&self) -> bool {
        self.parts.is_empty()
    }
}

/// The length the prefix gives (0 when there is none).
fn message_length(head: &Chunks) -> u32 {
    if head.remaining() < PREFIX {
        return 0;
    }
    let mut prefix = head.clone();
    prefix.advance(1);
    prefix.get_u32()
}

/// A body whose first bytes were read already: them, then the rest.
struct Prefixed<B> {
    head: Chunks,
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
        if let Some(head) = self.head.pop() {
            return Poll::Ready(Some(Ok(Frame::data(head))));
        }
        Pin::new(&mut self.rest).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.head.is_end_stream() && self.rest.is_end_stream()
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
        let layer = SubmitBudgetLayer::new(1000, Duration::from_millis(50), Duration::from_secs(5));
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

    /// A body that sends its bytes, then neither more nor its end.
    struct Trickle(Option<Bytes>);

    impl HttpBody for Trickle {
        type Data = Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            match self.0.take() {
                Some(bytes) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
                None => Poll::Pending,
            }
        }
    }

    /// A framed Submit whose exhaustive result lists `placements` empty placements.
    fn exhaustive(placements: usize) -> Bytes {
        use prost::Message as _;
        let message = rrm_proto::v1::SubmitRequest {
            exhaustive: Some(rrm_proto::v1::ExhaustiveResult {
                hardest: vec![Default::default(); placements],
                ..Default::default()
            }),
            ..Default::default()
        }
        .encode_to_vec();
        let mut framed = vec![0];
        framed.extend_from_slice(&(message.len() as u32).to_be_bytes());
        framed.extend_from_slice(&message);
        Bytes::from(framed)
    }

    fn request<B>(body: B) -> http::Request<B> {
        http::Request::builder().uri(SUBMIT).body(body).unwrap()
    }

    #[tokio::test]
    async fn a_second_message_a_trickled_body_and_a_large_exhaustive_result_are_refused() {
        let layer = SubmitBudgetLayer::new(
            100_000,
            Duration::from_millis(50),
            Duration::from_millis(200),
        );
        let mut service = layer.layer(Reader {
            delay: Duration::ZERO,
        });
        // A message of 10 bytes, then another: tonic would decode the second outside
        // the budget.
        let mut two = submit(10)
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        two.extend_from_slice(&two.clone());
        let refused = service.call(request(http_body_util::Full::new(Bytes::from(two))));
        assert_eq!(
            answer(refused.await.unwrap()).await,
            Err("3".into()),
            "INVALID_ARGUMENT"
        );
        // A prefix claiming 50,000 bytes, then nothing: refused when the body time is up,
        // and its bytes given back.
        let mut prefix = vec![0];
        prefix.extend_from_slice(&50_000u32.to_be_bytes());
        let slow = service.call(request(Trickle(Some(Bytes::from(prefix)))));
        assert_eq!(
            answer(slow.await.unwrap()).await,
            Err("4".into()),
            "DEADLINE_EXCEEDED"
        );
        assert_eq!(layer.bytes.available_permits(), 100_000);
        // Field 7 (an exhaustive result) of 4,000 bytes decodes to up to 128,000.
        let large = service.call(request(http_body_util::Full::new(exhaustive(2000))));
        assert_eq!(
            answer(large.await.unwrap()).await,
            Err("8".into()),
            "RESOURCE_EXHAUSTED"
        );
        // A tenth of it fits, and passes whole.
        let framed = exhaustive(200);
        let fits = service.call(request(http_body_util::Full::new(framed.clone())));
        assert_eq!(answer(fits.await.unwrap()).await, Ok(framed));
        assert_eq!(layer.bytes.available_permits(), 100_000);
    }
}
