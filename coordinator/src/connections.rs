//! The gRPC listener's connections, bounded: at most [`ConnectionLimits::per_peer`]
//! from one IP address and [`ConnectionLimits::total`] over all (more are closed as soon
//! as they are accepted), and a connection that sends and receives nothing for
//! [`ConnectionLimits::idle`] is closed. Honest clients ping every 15 s (see
//! `rrm_proto::access`), so only connections that do nothing at all are idle; a peer
//! that answers pings but never calls holds at most its per-peer share.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// The bounds on a listener's connections.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once from one IP address.
    pub per_peer: usize,
    /// Connections open at once over all peers.
    pub total: usize,
    /// A connection with no bytes either way for this long is closed.
    pub idle: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            per_peer: 256,
            total: 4096,
            idle: Duration::from_secs(60),
        }
    }
}

/// Open connections by peer address.
#[derive(Default)]
struct Open {
    by_peer: HashMap<IpAddr, usize>,
    total: usize,
}

/// A slot held by one open connection; given back when the connection is dropped.
struct Slot {
    open: Arc<Mutex<Open>>,
    peer: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.total -= 1;
        if let Some(count) = open.by_peer.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                open.by_peer.remove(&self.peer);
            }
        }
    }
}

/// Accepted connections within the limits, as tonic's `serve_with_incoming` takes them.
pub(crate) struct Incoming {
    listener: TcpListener,
    limits: ConnectionLimits,
    open: Arc<Mutex<Open>>,
    /// After a failed accept (out of file descriptors, say), a pause instead of a spin.
    pause: Option<Pin<Box<Sleep>>>,
}

/// After a failed accept, the listener waits this long before trying again.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

impl Incoming {
    pub(crate) fn new(listener: TcpListener, limits: ConnectionLimits) -> Incoming {
        Incoming {
            listener,
            limits,
            open: Arc::default(),
            pause: None,
        }
    }

    /// A slot for a connection from `peer`, if the limits leave one.
    fn admit(&self, peer: IpAddr) -> Option<Slot> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let from_peer = open.by_peer.get(&peer).copied().unwrap_or(0);
        if open.total >= self.limits.total || from_peer >= self.limits.per_peer {
            return None;
        }
        open.total += 1;
        *open.by_peer.entry(peer).or_default() += 1;
        Some(Slot {
            open: self.open.clone(),
            peer,
        })
    }
}

impl tokio_stream::Stream for Incoming {
    type Item = io::Result<Limited>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(pause) = &mut self.pause {
                std::task::ready!(pause.as_mut().poll(cx));
                self.pause = None;
            }
            match std::task::ready!(self.listener.poll_accept(cx)) {
                Ok((stream, peer)) => match self.admit(peer.ip()) {
                    Some(slot) => {
                        let _ = stream.set_nodelay(true);
                        return Poll::Ready(Some(Ok(Limited::new(stream, slot, self.limits.idle))));
                    }
                    // Dropped: closed at once.
                    None => tracing::debug!(%peer, "connection refused: too many open"),
                },
                Err(error) => {
                    tracing::warn!("accepting a connection failed: {error}");
                    self.pause = Some(Box::pin(tokio::time::sleep(ACCEPT_PAUSE)));
                }
            }
        }
    }
}

/// An accepted connection holding its slot, closed once idle.
pub(crate) struct Limited {
    stream: TcpStream,
    _slot: Slot,
    idle: Duration,
    /// Fires `idle` after the last byte either way.
    deadline: Pin<Box<Sleep>>,
}

impl Limited {
    fn new(stream: TcpStream, slot: Slot, idle: Duration) -> Limited {
        Limited {
            stream,
            _slot: slot,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    fn active(&mut self) {
        let next = Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }

    /// An error once the connection has been idle too long (registers the wake-up
    /// otherwise).
    fn check_idle(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "connection idle too long",
            )),
            Poll::Pending => Ok(()),
        }
    }
}

impl Connected for Limited {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Limited {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    this.active();
                }
                Poll::Ready(result)
            }
            Poll::Pending => match this.check_idle(cx) {
                Ok(()) => Poll::Pending,
                Err(error) => Poll::Ready(Err(error)),
            },
        }
    }
}

impl AsyncWrite for Limited {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.stream).poll_write(cx, data);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            this.active();
        }
        written
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            this.active();
        }
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
