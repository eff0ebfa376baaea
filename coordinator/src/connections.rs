//! The gRPC listener's connections, bounded. A new connection is *unproven* until a
//! call on it passes a service's token gate (any gated call on a coordinator without
//! tokens; [`Prover`]); an unproven connection is closed after
//! [`ConnectionLimits::grace`], whatever its pings. Unproven connections are capped per
//! network (/24 for IPv4, /64 for IPv6) and in all, [`ConnectionLimits::reserved`] slots
//! of the total being left to proven ones; a new connection beyond a cap takes the
//! place of the oldest unproven one in that bucket, so a flood of silent connections
//! cannot keep a worker out: it gets in, proves itself with its first call, and stays.
//! Connections from one address are capped whatever their standing
//! ([`ConnectionLimits::per_peer`]), and one with no bytes either way for
//! [`ConnectionLimits::idle`] is closed.

use atomic_waker::AtomicWaker;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// The bounds on a listener's connections.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once from one IP address, proven or not.
    pub per_peer: usize,
    /// Unproven connections open at once from one network (/24, /64).
    pub per_network: usize,
    /// Connections open at once over all peers.
    pub total: usize,
    /// Slots of `total` only proven connections hold.
    pub reserved: usize,
    /// A connection with no bytes either way for this long is closed.
    pub idle: Duration,
    /// A connection still unproven this long after it opened is closed (`None`: never,
    /// for a listener without gated services).
    pub grace: Option<Duration>,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            per_peer: 256,
            per_network: 256,
            total: 4096,
            reserved: 1024,
            idle: Duration::from_secs(60),
            grace: Some(Duration::from_secs(10)),
        }
    }
}

/// The network an address counts in: its /24 (IPv4, IPv4-mapped IPv6 included) or /64.
fn network(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(Ipv4Addr::from(v4.to_bits() & !0xff)),
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(v6.to_bits() & !u128::from(u64::MAX))),
    }
}

/// What a connection's I/O learns from the listener: it was proven, or closed to make
/// room for another.
#[derive(Default)]
struct Signal {
    proven: AtomicBool,
    evicted: AtomicBool,
    /// Woken on eviction, so that an idle connection closes at once.
    waker: AtomicWaker,
}

/// One open connection, by its peer's socket address.
struct Conn {
    /// Its number in the order of acceptance (older first).
    age: u64,
    proven: bool,
    signal: Arc<Signal>,
}

/// Open connections: by peer, the unproven ones by age, and counts per bucket.
#[derive(Default)]
struct Open {
    accepted: u64,
    conns: HashMap<SocketAddr, Conn>,
    unproven: BTreeMap<u64, SocketAddr>,
    by_address: HashMap<IpAddr, usize>,
    unproven_by_network: HashMap<IpAddr, usize>,
}

/// Subtracts one from `key`'s count, dropping it at zero.
fn decrement(counts: &mut HashMap<IpAddr, usize>, key: IpAddr) {
    if let Some(count) = counts.get_mut(&key) {
        *count -= 1;
        if *count == 0 {
            counts.remove(&key);
        }
    }
}

impl Open {
    /// Forgets the connection of `peer` accepted as number `age` (nothing if it is gone).
    fn forget(&mut self, peer: SocketAddr, age: u64) {
        if self.conns.get(&peer).is_none_or(|conn| conn.age != age) {
            return;
        }
        let conn = self.conns.remove(&peer).expect("just found");
        decrement(&mut self.by_address, peer.ip().to_canonical());
        if !conn.proven {
            self.unproven.remove(&conn.age);
            decrement(&mut self.unproven_by_network, network(peer.ip()));
        }
    }

    /// Closes the oldest unproven connection whose peer passes `bucket`; whether there
    /// was one.
    fn evict_oldest(&mut self, bucket: impl Fn(SocketAddr) -> bool) -> bool {
        let Some((&age, &peer)) = self.unproven.iter().find(|(_, &peer)| bucket(peer)) else {
            return false;
        };
        if let Some(conn) = self.conns.get(&peer) {
            conn.signal.evicted.store(true, Ordering::SeqCst);
            conn.signal.waker.wake();
        }
        self.forget(peer, age);
        tracing::debug!(%peer, "closed an unproven connection to make room");
        true
    }

    /// Room for a new connection from `peer` within `limits`, evicting unproven ones
    /// as needed; `false` when only proven connections stand in the way.
    fn make_room(&mut self, peer: SocketAddr, limits: &ConnectionLimits) -> bool {
        let ip = peer.ip().to_canonical();
        let net = network(ip);
        let count = |counts: &HashMap<IpAddr, usize>, key| counts.get(&key).copied().unwrap_or(0);
        if count(&self.by_address, ip) >= limits.per_peer
            && !self.evict_oldest(|other| other.ip().to_canonical() == ip)
        {
            return false;
        }
        if count(&self.unproven_by_network, net) >= limits.per_network {
            self.evict_oldest(|other| network(other.ip()) == net);
        }
        if self.unproven.len() >= limits.total.saturating_sub(limits.reserved) {
            self.evict_oldest(|_| true);
        }
        self.conns.len() < limits.total || self.evict_oldest(|_| true)
    }

    /// Counts a new unproven connection from `peer`; returns its age and signal.
    fn insert(&mut self, peer: SocketAddr) -> (u64, Arc<Signal>) {
        if let Some(age) = self.conns.get(&peer).map(|conn| conn.age) {
            self.forget(peer, age);
        }
        self.accepted += 1;
        let age = self.accepted;
        let signal = Arc::new(Signal::default());
        self.conns.insert(
            peer,
            Conn {
                age,
                proven: false,
                signal: signal.clone(),
            },
        );
        self.unproven.insert(age, peer);
        *self.by_address.entry(peer.ip().to_canonical()).or_default() += 1;
        *self
            .unproven_by_network
            .entry(network(peer.ip()))
            .or_default() += 1;
        (age, signal)
    }

    fn prove(&mut self, peer: SocketAddr) {
        let Some(conn) = self.conns.get_mut(&peer) else {
            return;
        };
        if conn.proven {
            return;
        }
        conn.proven = true;
        conn.signal.proven.store(true, Ordering::SeqCst);
        self.unproven.remove(&conn.age);
        decrement(&mut self.unproven_by_network, network(peer.ip()));
    }
}

fn lock(open: &Mutex<Open>) -> MutexGuard<'_, Open> {
    open.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marks connections proven: held by the token gates of the listener's services.
#[derive(Clone)]
pub(crate) struct Prover(Arc<Mutex<Open>>);

impl Prover {
    /// The connection from `peer` made a call that passed its gate.
    pub(crate) fn prove(&self, peer: SocketAddr) {
        lock(&self.0).prove(peer);
    }
}

/// A slot held by one open connection; given back when the connection is dropped.
struct Slot {
    open: Arc<Mutex<Open>>,
    peer: SocketAddr,
    age: u64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.open).forget(self.peer, self.age);
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

    /// What the listener's gates mark proven connections with.
    pub(crate) fn prover(&self) -> Prover {
        Prover(self.open.clone())
    }

    /// A slot for a connection from `peer`, if the limits leave one.
    fn admit(&self, peer: SocketAddr) -> Option<(Slot, Arc<Signal>)> {
        let mut open = lock(&self.open);
        if !open.make_room(peer, &self.limits) {
            return None;
        }
        let (age, signal) = open.insert(peer);
        let slot = Slot {
            open: self.open.clone(),
            peer,
            age,
        };
        Some((slot, signal))
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
                Ok((stream, peer)) => match self.admit(peer) {
                    Some((slot, signal)) => {
                        let _ = stream.set_nodelay(true);
                        let limited = Limited::new(stream, slot, signal, &self.limits);
                        return Poll::Ready(Some(Ok(limited)));
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

/// An accepted connection holding its slot, closed once idle, once evicted, or at the
/// end of its grace while unproven.
pub(crate) struct Limited {
    stream: TcpStream,
    _slot: Slot,
    signal: Arc<Signal>,
    idle: Duration,
    /// Fires `idle` after the last byte either way.
    deadline: Pin<Box<Sleep>>,
    /// Fires at the end of the grace, until the connection is proven.
    grace: Option<Pin<Box<Sleep>>>,
}

impl Limited {
    fn new(
        stream: TcpStream,
        slot: Slot,
        signal: Arc<Signal>,
        limits: &ConnectionLimits,
    ) -> Limited {
        Limited {
            stream,
            _slot: slot,
            signal,
            idle: limits.idle,
            deadline: Box::pin(tokio::time::sleep(limits.idle)),
            grace: limits
                .grace
                .map(|grace| Box::pin(tokio::time::sleep(grace))),
        }
    }

    /// An error once the connection was evicted or its unproven grace ended (registers
    /// the wake-ups otherwise).
    fn check_standing(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        self.signal.waker.register(cx.waker());
        if self.signal.evicted.load(Ordering::SeqCst) {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "closed to make room: no authenticated call yet",
            ));
        }
        if let Some(grace) = &mut self.grace {
            if self.signal.proven.load(Ordering::SeqCst) {
                self.grace = None;
            } else if grace.as_mut().poll(cx).is_ready() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "no authenticated call within the grace",
                ));
            }
        }
        Ok(())
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
        if let Err(error) = this.check_standing(cx) {
            return Poll::Ready(Err(error));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ConnectionLimits {
        ConnectionLimits {
            per_peer: 3,
            per_network: 4,
            total: 8,
            reserved: 2,
            ..ConnectionLimits::default()
        }
    }

    fn peer(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    /// Admits `peer` as the listener would; its signal if it got in.
    fn admit(open: &mut Open, peer: SocketAddr) -> Option<Arc<Signal>> {
        open.make_room(peer, &limits()).then(|| open.insert(peer).1)
    }

    #[test]
    fn networks_are_slash_24_and_slash_64() {
        let net = |ip: &str| network(ip.parse().unwrap()).to_string();
        assert_eq!(net("192.0.2.77"), "192.0.2.0");
        assert_eq!(net("::ffff:192.0.2.77"), "192.0.2.0");
        assert_eq!(net("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::");
    }

    #[test]
    fn newcomers_evict_the_oldest_unproven_and_proven_ones_stay() {
        let mut open = Open::default();
        // One network: its fifth unproven connection evicts the first.
        let first = admit(&mut open, peer("10.0.0.1:1")).unwrap();
        for port in 2..=3 {
            admit(&mut open, peer(&format!("10.0.0.1:{port}"))).unwrap();
        }
        // The address holds 3: a fourth from it evicts the oldest of its own.
        admit(&mut open, peer("10.0.0.1:4")).unwrap();
        assert!(first.evicted.load(Ordering::SeqCst));
        assert_eq!(open.by_address[&"10.0.0.1".parse::<IpAddr>().unwrap()], 3);
        // Proven connections are never evicted: an address full of them is refused.
        for port in 2..=4 {
            open.prove(peer(&format!("10.0.0.1:{port}")));
        }
        assert!(admit(&mut open, peer("10.0.0.1:5")).is_none());
        // Unproven ones are capped per network (4) and in all (8 - 2 reserved = 6).
        let network_a: Vec<_> = (2..=6)
            .map(|host| admit(&mut open, peer(&format!("10.0.1.{host}:1"))).unwrap())
            .collect();
        assert!(network_a[0].evicted.load(Ordering::SeqCst));
        assert_eq!(open.unproven.len(), 4);
        let others: Vec<_> = (1..=3)
            .map(|n| admit(&mut open, peer(&format!("10.0.{}.1:1", 10 + n))).unwrap())
            .collect();
        // In all 8: 3 proven and 5 unproven, each newcomer evicting the oldest unproven.
        assert_eq!(open.conns.len(), 8);
        assert_eq!(open.unproven.len(), 5);
        assert!(network_a[1].evicted.load(Ordering::SeqCst));
        assert!(network_a[2].evicted.load(Ordering::SeqCst));
        assert!(!others[0].evicted.load(Ordering::SeqCst));
        // With fewer proven, unproven ones stop short of the reserve: 8 - 2 = 6.
        open.forget(peer("10.0.0.1:2"), 2);
        open.forget(peer("10.0.0.1:3"), 3);
        for n in 0..4 {
            admit(&mut open, peer(&format!("10.0.{}.1:1", 20 + n))).unwrap();
        }
        assert_eq!(open.unproven.len(), 6, "the reserve stays free");
        assert_eq!(open.conns.len(), 7);
        // Forgetting a connection evicted earlier changes nothing.
        let before = open.conns.len();
        open.forget(peer("10.0.0.1:1"), 1);
        assert_eq!(open.conns.len(), before);
    }
}
