//! The partition tests' TCP proxy: listens on 127.0.0.1, forwards each connection to the
//! coordinator under faults (latency, bytes held in one direction, connections refused,
//! closed or reset) and logs each gRPC call it forwards, from the HTTP/2 frames.

use super::super::*;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// Faults on a proxied connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Faults {
    /// Latency added to every chunk, each way.
    pub(super) delay: Duration,
    /// Bytes from the worker to the coordinator wait in the proxy while set.
    pub(super) hold_requests: bool,
    /// Bytes from the coordinator to the worker wait in the proxy while set.
    pub(super) hold_replies: bool,
}

/// How the proxy ends a connection: on both sides, the worker's and the coordinator's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// An orderly close (FIN).
    Close,
    /// A reset (RST): `SO_LINGER` zero, then close.
    Reset,
}

/// Which way bytes cross the proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Way {
    /// Worker to coordinator.
    Up,
    /// Coordinator to worker.
    Down,
}

impl Faults {
    pub(super) fn holds(&self, way: Way) -> bool {
        match way {
            Way::Up => self.hold_requests,
            Way::Down => self.hold_replies,
        }
    }
}

/// What one connection is told.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LinkState {
    pub(super) faults: Faults,
    pub(super) end: Option<Ending>,
}

/// Where a gRPC call stands, as seen from the proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fate {
    /// Not answered yet.
    Open,
    /// The end of its answer was forwarded to the worker.
    Answered,
    /// The worker reset it (its timeout) before its answer reached it.
    Cancelled,
    /// The coordinator reset it, or its connection ended first.
    Lost,
}

/// One gRPC call through the proxy.
#[derive(Clone, Debug)]
pub(super) struct Call {
    /// The request body as forwarded (gRPC framing included).
    pub(super) body: Vec<u8>,
    /// The whole request reached the coordinator.
    pub(super) sent: bool,
    pub(super) fate: Fate,
}

impl Call {
    /// Whether this is a submission carrying `digest` (32 bytes no other request holds).
    pub(super) fn carries(&self, digest: &[u8; 32]) -> bool {
        self.body
            .windows(digest.len())
            .any(|window| window == digest)
    }
}

/// The proxy's settings, connections and log of calls.
#[derive(Default)]
pub(super) struct ProxyState {
    /// Faults new connections start with.
    pub(super) faults: Faults,
    /// New connections are ended at once this way.
    pub(super) refuse: Option<Ending>,
    /// Every connection accepted, by number; closed ones have no receiver left.
    pub(super) links: Vec<watch::Sender<LinkState>>,
    pub(super) calls: Vec<Call>,
    /// Calls not answered yet, by (link, HTTP/2 stream).
    pub(super) open: HashMap<(usize, u32), usize>,
}

impl ProxyState {
    /// Follows one HTTP/2 event forwarded on `link`.
    pub(super) fn record(&mut self, link: usize, way: Way, event: Event<'_>) {
        match (way, event) {
            (Way::Up, Event::Opened(stream)) => {
                if !self.open.contains_key(&(link, stream)) {
                    self.open.insert((link, stream), self.calls.len());
                    self.calls.push(Call {
                        body: Vec::new(),
                        sent: false,
                        fate: Fate::Open,
                    });
                }
            }
            (Way::Up, Event::Body(stream, bytes)) => {
                if let Some(&call) = self.open.get(&(link, stream)) {
                    self.calls[call].body.extend_from_slice(bytes);
                }
            }
            (Way::Up, Event::Ended(stream)) => {
                if let Some(&call) = self.open.get(&(link, stream)) {
                    self.calls[call].sent = true;
                }
            }
            (way, Event::Ended(stream) | Event::Reset(stream)) => {
                let fate = match (way, event) {
                    (Way::Up, _) => Fate::Cancelled,
                    (Way::Down, Event::Ended(_)) => Fate::Answered,
                    (Way::Down, _) => Fate::Lost,
                };
                if let Some(call) = self.open.remove(&(link, stream)) {
                    self.calls[call].fate = fate;
                }
            }
            (Way::Down, Event::Opened(_) | Event::Body(..)) => {}
        }
    }

    /// `link` is gone, and with it the answers it still owed.
    pub(super) fn link_ended(&mut self, link: usize) {
        let calls = &mut self.calls;
        self.open.retain(|&(on, _), &mut call| {
            if on == link {
                calls[call].fate = Fate::Lost;
            }
            on != link
        });
    }
}

/// A TCP proxy to the coordinator on 127.0.0.1, serving its connections on its own
/// runtime until dropped.
pub(super) struct Proxy {
    /// Where workers connect: `http://127.0.0.1:PORT`.
    pub(super) url: String,
    pub(super) state: Arc<Mutex<ProxyState>>,
    pub(super) _runtime: tokio::runtime::Runtime,
}

impl Proxy {
    /// A proxy to the coordinator at `upstream` (an `http://` URL).
    pub(super) fn start(upstream: &str) -> Proxy {
        let upstream: SocketAddr = upstream
            .strip_prefix("http://")
            .and_then(|address| address.parse().ok())
            .expect("an http://IP:PORT URL");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(ProxyState::default()));
        runtime.spawn(accept(listener, upstream, state.clone()));
        Proxy {
            url,
            state,
            _runtime: runtime,
        }
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, ProxyState> {
        self.state.lock().unwrap()
    }

    /// Sets `faults` on every connection, open and to come.
    pub(super) fn set_faults(&self, faults: Faults) {
        let mut state = self.lock();
        state.faults = faults;
        for link in &state.links {
            link.send_modify(|link| link.faults = faults);
        }
    }

    /// Sets `faults` on one connection (see [`Proxy::open_links`]).
    pub(super) fn set_link_faults(&self, link: usize, faults: Faults) {
        self.lock().links[link].send_modify(|link| link.faults = faults);
    }

    /// Ends new connections at once (`Some`), or serves them again (`None`).
    pub(super) fn refuse(&self, ending: Option<Ending>) {
        self.lock().refuse = ending;
    }

    /// Ends every open connection.
    pub(super) fn end_all(&self, ending: Ending) {
        for link in &self.lock().links {
            link.send_modify(|link| link.end = Some(ending));
        }
    }

    /// The numbers of the connections still open.
    pub(super) fn open_links(&self) -> Vec<usize> {
        let state = self.lock();
        (0..state.links.len())
            .filter(|&link| !state.links[link].is_closed())
            .collect()
    }

    /// Every call so far, in the order they started.
    pub(super) fn calls(&self) -> Vec<Call> {
        self.lock().calls.clone()
    }

    /// Calls waiting for their answer.
    pub(super) fn in_flight(&self) -> usize {
        self.lock().open.len()
    }
}

/// Takes connections: each is refused or served under the faults of the moment.
pub(super) async fn accept(
    listener: TcpListener,
    upstream: SocketAddr,
    state: Arc<Mutex<ProxyState>>,
) {
    while let Ok((client, _)) = listener.accept().await {
        let _ = client.set_nodelay(true);
        let mut proxy = state.lock().unwrap();
        if let Some(ending) = proxy.refuse {
            drop(proxy);
            prepare_end(&client, ending);
            continue;
        }
        let (link, told) = watch::channel(LinkState {
            faults: proxy.faults,
            end: None,
        });
        proxy.links.push(link);
        let number = proxy.links.len() - 1;
        drop(proxy);
        tokio::spawn(serve(client, upstream, number, told, state.clone()));
    }
}

/// Makes closing `stream` reset it, if so told; the caller then drops it.
pub(super) fn prepare_end(stream: &TcpStream, ending: Ending) {
    if ending == Ending::Reset {
        let _ = stream.set_zero_linger();
    }
}

/// Forwards one connection both ways until either side closes it or the proxy ends it.
pub(super) async fn serve(
    client: TcpStream,
    upstream: SocketAddr,
    link: usize,
    told: watch::Receiver<LinkState>,
    state: Arc<Mutex<ProxyState>>,
) {
    let Ok(server) = TcpStream::connect(upstream).await else {
        return;
    };
    let _ = server.set_nodelay(true);
    let (client, server) = (Arc::new(client), Arc::new(server));
    let mut pumps = JoinSet::new();
    for (from, to, way) in [(&client, &server, Way::Up), (&server, &client, Way::Down)] {
        pumps.spawn(pump(
            from.clone(),
            to.clone(),
            way,
            link,
            told.clone(),
            state.clone(),
        ));
    }
    let mut watching = told;
    let told_to_end = async {
        watching
            .wait_for(|link| link.end.is_some())
            .await
            .ok()
            .and_then(|link| link.end)
    };
    let ending = tokio::select! {
        _ = pumps.join_next() => Ending::Close,
        ending = told_to_end => ending.unwrap_or(Ending::Close),
    };
    pumps.abort_all();
    while pumps.join_next().await.is_some() {}
    state.lock().unwrap().link_ended(link);
    // The pumps are gone, so these are the last handles: dropping them closes the sockets.
    prepare_end(&client, ending);
    prepare_end(&server, ending);
}

/// Moves bytes from `from` to `to`: a reader queues what arrives (so held bytes wait
/// here, not in the kernel), a writer forwards it when its delay has passed and nothing
/// holds it, and logs the HTTP/2 frames it forwarded.
pub(super) async fn pump(
    from: Arc<TcpStream>,
    to: Arc<TcpStream>,
    way: Way,
    link: usize,
    mut told: watch::Receiver<LinkState>,
    state: Arc<Mutex<ProxyState>>,
) {
    let (queue, mut queued) = mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
    let reading = async move {
        let mut buffer = vec![0; 16 << 10];
        loop {
            if from.readable().await.is_err() {
                return;
            }
            match from.try_read(&mut buffer) {
                Ok(0) => return,
                Ok(read) => {
                    let chunk = buffer[..read].to_vec();
                    if queue.send((tokio::time::Instant::now(), chunk)).is_err() {
                        return;
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => return,
            }
        }
    };
    let writing = async move {
        let mut frames = Frames::new(way);
        while let Some((arrived, chunk)) = queued.recv().await {
            let delay = told.borrow().faults.delay;
            tokio::time::sleep_until(arrived + delay).await;
            if told.wait_for(|link| !link.faults.holds(way)).await.is_err() {
                return;
            }
            if write_all(&to, &chunk).await.is_err() {
                return;
            }
            let mut proxy = state.lock().unwrap();
            frames.feed(&chunk, |event| proxy.record(link, way, event));
        }
    };
    tokio::join!(reading, writing);
}

pub(super) async fn write_all(to: &TcpStream, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        to.writable().await?;
        match to.try_write(bytes) {
            Ok(written) => bytes = &bytes[written..],
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// HTTP/2 (RFC 9113 §4.1, §6): the frame types and the flag the log follows.
pub(super) const DATA: u8 = 0x0;
pub(super) const HEADERS: u8 = 0x1;
pub(super) const RST_STREAM: u8 = 0x3;
pub(super) const END_STREAM: u8 = 0x1;
/// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`: what a client sends before its first frame.
pub(super) const CLIENT_PREFACE: usize = 24;
pub(super) const FRAME_HEADER: usize = 9;

/// What the log learns from the frames of one direction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Event<'a> {
    /// A HEADERS frame began (a request, or an answer's headers or trailers).
    Opened(u32),
    /// Body bytes of a stream.
    Body(u32, &'a [u8]),
    /// A frame ending its stream (this direction's half) was forwarded whole.
    Ended(u32),
    /// The stream was reset.
    Reset(u32),
}

/// One direction's HTTP/2 frames, followed across the chunks they arrive in.
pub(super) struct Frames {
    /// Preface bytes still to pass.
    pub(super) preface: usize,
    /// The next frame header, as far as it arrived.
    pub(super) header: Vec<u8>,
    /// The frame whose payload is passing: type, flags, stream, payload bytes still due.
    pub(super) frame: Option<(u8, u8, u32, usize)>,
}

impl Frames {
    pub(super) fn new(way: Way) -> Frames {
        Frames {
            preface: if way == Way::Up { CLIENT_PREFACE } else { 0 },
            header: Vec::with_capacity(FRAME_HEADER),
            frame: None,
        }
    }

    pub(super) fn feed<'a>(&mut self, mut bytes: &'a [u8], mut event: impl FnMut(Event<'a>)) {
        let passed = self.preface.min(bytes.len());
        self.preface -= passed;
        bytes = &bytes[passed..];
        loop {
            if let Some((kind, flags, stream, due)) = &mut self.frame {
                let here = (*due).min(bytes.len());
                if *kind == DATA && here > 0 {
                    event(Event::Body(*stream, &bytes[..here]));
                }
                *due -= here;
                bytes = &bytes[here..];
                if *due > 0 {
                    return;
                }
                if matches!(*kind, DATA | HEADERS) && *flags & END_STREAM != 0 {
                    event(Event::Ended(*stream));
                } else if *kind == RST_STREAM {
                    event(Event::Reset(*stream));
                }
                self.frame = None;
            }
            if bytes.is_empty() {
                return;
            }
            let here = (FRAME_HEADER - self.header.len()).min(bytes.len());
            self.header.extend_from_slice(&bytes[..here]);
            bytes = &bytes[here..];
            if self.header.len() < FRAME_HEADER {
                return;
            }
            let h = std::mem::take(&mut self.header);
            let length = u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
            let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
            if h[3] == HEADERS {
                event(Event::Opened(stream));
            }
            self.frame = Some((h[3], h[4], stream, length));
        }
    }
}
