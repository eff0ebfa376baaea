//! Partitions and flaky networks: workers reach a real coordinator through a TCP proxy of
//! the test's own, which drops, stalls, delays and resets their connections; whatever
//! the network does, the campaign's totals must equal solving every seed directly.
//!
//! The proxy ([`Proxy`]) listens on 127.0.0.1 and forwards each connection to the
//! coordinator. Faults apply to every connection or to one: added latency, bytes held
//! (not lost) in one direction, connections refused, closed or reset (RST). It also follows
//! the HTTP/2 frames it forwards, enough to log each gRPC call's request body and fate
//! (answered, or cancelled by the worker): a submission carries its unit's digest, so the
//! tests see which results were sent again, and when, without decoding protobuf.

use super::*;
use std::collections::HashMap;
use std::io::BufRead;
use std::net::SocketAddr;
use std::sync::Mutex;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// Faults on a proxied connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Faults {
    /// Latency added to every chunk, each way.
    delay: Duration,
    /// Bytes from the worker to the coordinator wait in the proxy while set.
    hold_requests: bool,
    /// Bytes from the coordinator to the worker wait in the proxy while set.
    hold_replies: bool,
}

/// How the proxy ends a connection: on both sides, the worker's and the coordinator's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// An orderly close (FIN).
    Close,
    /// A reset (RST): `SO_LINGER` zero, then close.
    Reset,
}

/// Which way bytes cross the proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// Worker to coordinator.
    Up,
    /// Coordinator to worker.
    Down,
}

impl Faults {
    fn holds(&self, way: Way) -> bool {
        match way {
            Way::Up => self.hold_requests,
            Way::Down => self.hold_replies,
        }
    }
}

/// What one connection is told.
#[derive(Clone, Copy, Debug, Default)]
struct LinkState {
    faults: Faults,
    end: Option<Ending>,
}

/// Where a gRPC call stands, as seen from the proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
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
struct Call {
    /// The request body as forwarded (gRPC framing included).
    body: Vec<u8>,
    /// The whole request reached the coordinator.
    sent: bool,
    fate: Fate,
}

impl Call {
    /// Whether this is a submission carrying `digest` (32 bytes no other request holds).
    fn carries(&self, digest: &[u8; 32]) -> bool {
        self.body
            .windows(digest.len())
            .any(|window| window == digest)
    }
}

/// The proxy's settings, connections and log of calls.
#[derive(Default)]
struct ProxyState {
    /// Faults new connections start with.
    faults: Faults,
    /// New connections are ended at once this way.
    refuse: Option<Ending>,
    /// Every connection accepted, by number; closed ones have no receiver left.
    links: Vec<watch::Sender<LinkState>>,
    calls: Vec<Call>,
    /// Calls not answered yet, by (link, HTTP/2 stream).
    open: HashMap<(usize, u32), usize>,
}

impl ProxyState {
    /// Follows one HTTP/2 event forwarded on `link`.
    fn record(&mut self, link: usize, way: Way, event: Event<'_>) {
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
    fn link_ended(&mut self, link: usize) {
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
struct Proxy {
    /// Where workers connect: `http://127.0.0.1:PORT`.
    url: String,
    state: Arc<Mutex<ProxyState>>,
    _runtime: tokio::runtime::Runtime,
}

impl Proxy {
    /// A proxy to the coordinator at `upstream` (an `http://` URL).
    fn start(upstream: &str) -> Proxy {
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

    fn lock(&self) -> std::sync::MutexGuard<'_, ProxyState> {
        self.state.lock().unwrap()
    }

    /// Sets `faults` on every connection, open and to come.
    fn set_faults(&self, faults: Faults) {
        let mut state = self.lock();
        state.faults = faults;
        for link in &state.links {
            link.send_modify(|link| link.faults = faults);
        }
    }

    /// Sets `faults` on one connection (see [`Proxy::open_links`]).
    fn set_link_faults(&self, link: usize, faults: Faults) {
        self.lock().links[link].send_modify(|link| link.faults = faults);
    }

    /// Ends new connections at once (`Some`), or serves them again (`None`).
    fn refuse(&self, ending: Option<Ending>) {
        self.lock().refuse = ending;
    }

    /// Ends every open connection.
    fn end_all(&self, ending: Ending) {
        for link in &self.lock().links {
            link.send_modify(|link| link.end = Some(ending));
        }
    }

    /// The numbers of the connections still open.
    fn open_links(&self) -> Vec<usize> {
        let state = self.lock();
        (0..state.links.len())
            .filter(|&link| !state.links[link].is_closed())
            .collect()
    }

    /// Every call so far, in the order they started.
    fn calls(&self) -> Vec<Call> {
        self.lock().calls.clone()
    }

    /// Calls waiting for their answer.
    fn in_flight(&self) -> usize {
        self.lock().open.len()
    }
}

/// Takes connections: each is refused or served under the faults of the moment.
async fn accept(listener: TcpListener, upstream: SocketAddr, state: Arc<Mutex<ProxyState>>) {
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
fn prepare_end(stream: &TcpStream, ending: Ending) {
    if ending == Ending::Reset {
        let _ = stream.set_zero_linger();
    }
}

/// Forwards one connection both ways until either side closes it or the proxy ends it.
async fn serve(
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
async fn pump(
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

async fn write_all(to: &TcpStream, mut bytes: &[u8]) -> std::io::Result<()> {
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
const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const END_STREAM: u8 = 0x1;
/// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`: what a client sends before its first frame.
const CLIENT_PREFACE: usize = 24;
const FRAME_HEADER: usize = 9;

/// What the log learns from the frames of one direction.
#[derive(Clone, Copy, Debug)]
enum Event<'a> {
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
struct Frames {
    /// Preface bytes still to pass.
    preface: usize,
    /// The next frame header, as far as it arrived.
    header: Vec<u8>,
    /// The frame whose payload is passing: type, flags, stream, payload bytes still due.
    frame: Option<(u8, u8, u32, usize)>,
}

impl Frames {
    fn new(way: Way) -> Frames {
        Frames {
            preface: if way == Way::Up { CLIENT_PREFACE } else { 0 },
            header: Vec::with_capacity(FRAME_HEADER),
            frame: None,
        }
    }

    fn feed<'a>(&mut self, mut bytes: &'a [u8], mut event: impl FnMut(Event<'a>)) {
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

/// A one-thread `rrm worker` for `url` whose log (stderr) is kept as it comes.
fn logged_worker(url: &str) -> (Process, Arc<Mutex<String>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args(["worker", "--coordinator", url, "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rrm starts");
    let stderr = child.stderr.take().unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let mut log = kept.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    (Process(child), log)
}

/// The units of campaign `id` and their records.
fn unit_records(server: &Server, id: u32) -> HashMap<u64, rrm_store::UnitRecord> {
    server
        .coordinator
        .store()
        .units(id)
        .unwrap()
        .into_iter()
        .collect()
}

/// The digest a done unit's result was stored with.
fn stored_digest(record: &rrm_store::UnitRecord) -> Option<[u8; 32]> {
    match record.state {
        UnitState::Done { digest, .. } => Some(digest),
        _ => None,
    }
}

/// Solves `seeds` directly, meanwhile.
fn solve_directly(seeds: Range<u64>) -> std::thread::JoinHandle<Vec<u64>> {
    std::thread::spawn(move || direct_histogram(seeds))
}

/// Checks that campaign `name` is mined to exactly what solving `seeds` directly gave
/// (`expected`): every seed counted once, nothing quarantined, nobody disagreed.
fn assert_exact(server: &Server, name: &str, seeds: Range<u64>, expected: Vec<u64>) {
    let count = seeds.end - seeds.start;
    let stored = stats(&server.url, name);
    assert_eq!(stored.histogram, expected, "nothing lost, nothing twice");
    assert_eq!(stored.puzzles, count);
    let status = status(&server.url, name).unwrap();
    assert_eq!(status.seeds_done, count);
    assert_eq!(status.units_quarantined, 0);
    assert!(status.mismatches.is_empty(), "{:?}", status.mismatches);
}

/// A worker cut off mid-unit (its connections reset, new ones refused) loses its leases;
/// another worker, on a slow link, takes them over. Reconnected after that, the cut-off
/// worker delivers its results late: they are refused or taken as duplicates, never
/// counted again.
#[test]
fn a_worker_cut_off_mid_unit_is_replaced_and_its_late_results_count_once() {
    let seeds = 1..4_001;
    let config = Config {
        lease_duration: Duration::from_secs(2),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("cut", seeds.clone(), 500));
    let expected = solve_directly(seeds.clone());
    let id = server.coordinator.status("cut").unwrap().campaign.id;
    let held_by = |worker: u64| {
        let units = unit_records(&server, id);
        let mut held: Vec<u64> = units
            .into_iter()
            .filter(
                |(_, record)| matches!(record.state, UnitState::Leased(l) if l.worker == worker),
            )
            .map(|(unit, _)| unit)
            .collect();
        held.sort_unstable();
        held
    };

    let cut_proxy = Proxy::start(&server.url);
    let (_cut_worker, log) = logged_worker(&cut_proxy.url);
    let mut cut_id = 0;
    wait_until(
        Duration::from_secs(60),
        "the first worker holds a lease",
        || {
            let units = unit_records(&server, id);
            let leased = units.values().find_map(|record| match record.state {
                UnitState::Leased(lease) => Some(lease.worker),
                _ => None,
            });
            leased.inspect(|&worker| cut_id = worker).is_some()
        },
    );
    let other_proxy = Proxy::start(&server.url);
    other_proxy.set_faults(Faults {
        delay: Duration::from_millis(20),
        ..Faults::default()
    });
    let _other_worker = worker(&other_proxy.url, 1);
    // Both units solving and no call on the wire: the cut loses no lease in transit.
    wait_until(
        Duration::from_secs(60),
        "both workers mine, the first with both units in hand",
        || {
            let held = held_by(cut_id).len();
            let all = server.coordinator.status("cut").unwrap().units_leased as usize;
            held == rrm_worker::IN_FLIGHT && all > held && cut_proxy.in_flight() == 0
        },
    );
    cut_proxy.refuse(Some(Ending::Close));
    cut_proxy.end_all(Ending::Reset);
    let cut_units = held_by(cut_id);
    let started = Instant::now();
    assert!(!cut_units.is_empty(), "units held at the cut");

    let log_text = || log.lock().unwrap().clone();
    let in_log = |what: &dyn Fn(u64) -> String| {
        let text = log_text();
        cut_units.iter().all(|&unit| text.contains(&what(unit)))
    };
    wait_until(
        Duration::from_secs(60),
        "the cut-off worker's leases expire and go to the other worker",
        || {
            let units = unit_records(&server, id);
            cut_units.iter().all(|unit| units[unit].leases_issued >= 2)
        },
    );
    wait_until(
        Duration::from_secs(60),
        "the cut-off worker has its results and fails to submit them",
        || in_log(&|unit| format!("submitting unit {unit} of cut failed")),
    );
    let expired_after = started.elapsed();
    cut_proxy.refuse(None);
    wait_until(
        Duration::from_secs(60),
        "the late results are judged",
        || {
            let text = log_text();
            cut_units.iter().all(|&unit| {
                text.lines().any(|line| {
                    line.contains(&format!(" unit={unit} campaign=cut"))
                        && (line.contains("submitted") || line.contains("result refused"))
                })
            })
        },
    );
    let judged_after = started.elapsed();
    wait_until(Duration::from_secs(120), "the campaign is mined", || {
        status(&server.url, "cut").is_some_and(|s| is_done(&s))
    });
    eprintln!(
        "cut: leases re-issued and results ready {expired_after:?} after the cut, \
         late results judged after {judged_after:?}, mined after {:?}",
        started.elapsed()
    );

    let text = log_text();
    for line in text.lines() {
        for &unit in &cut_units {
            let late = line.contains(&format!(" unit={unit} campaign=cut"));
            assert!(
                !(late && line.contains("outcome=Accepted")),
                "a late result was accepted: {line}"
            );
        }
    }
    // The late results named their units (by digest) and were answered.
    let units = unit_records(&server, id);
    let calls = cut_proxy.calls();
    for unit in &cut_units {
        let record = &units[unit];
        let UnitState::Done { worker, .. } = record.state else {
            panic!("unit {unit} is not done: {record:?}");
        };
        assert_ne!(worker, cut_id, "unit {unit} was taken from its late result");
        let digest = stored_digest(record).unwrap();
        assert!(
            calls
                .iter()
                .any(|call| call.carries(&digest) && call.fate == Fate::Answered),
            "no late result of unit {unit} went through\n{text}"
        );
    }
    assert_exact(&server, "cut", seeds, expected.join().unwrap());
}

/// The coordinator's answers stall (held in the proxy) while a worker submits: the
/// coordinator stores the result, the worker's call times out and it sends the result
/// again, which the coordinator recognises once the answers flow again.
#[test]
fn a_result_whose_answer_stalls_is_sent_again_and_counted_once() {
    let seeds = 4_001..6_001;
    let config = Config {
        lease_duration: Duration::from_secs(4),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("stall", seeds.clone(), 500));
    let expected = solve_directly(seeds.clone());
    let id = server.coordinator.status("stall").unwrap().campaign.id;
    let proxy = Proxy::start(&server.url);
    let mut config = rrm_worker::Config::new(proxy.url.clone(), 1, "stalled");
    config.call_timeout = Duration::from_secs(1);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let worker = std::thread::spawn(move || {
        block_on(rrm_worker::run(config, async {
            let _ = stopped.await;
        }))
    });
    wait_until(
        Duration::from_secs(60),
        "the worker holds both its units, no call on the wire",
        || {
            let leased = server.coordinator.status("stall").unwrap().units_leased;
            leased == rrm_worker::IN_FLIGHT as u64 && proxy.in_flight() == 0
        },
    );
    let links = proxy.open_links();
    assert_eq!(links.len(), 1, "the worker keeps one connection");
    proxy.set_link_faults(
        links[0],
        Faults {
            hold_replies: true,
            ..Faults::default()
        },
    );
    let started = Instant::now();
    // A result is stored, its answer held; the call times out and the result goes again.
    let mut repeated = None;
    wait_until(
        Duration::from_secs(60),
        "a stored result is sent again after its call timed out",
        || {
            let calls = proxy.calls();
            repeated = unit_records(&server, id)
                .values()
                .filter_map(stored_digest)
                .find(|digest| {
                    let sent: Vec<&Call> = calls
                        .iter()
                        .filter(|call| call.sent && call.carries(digest))
                        .collect();
                    sent.len() >= 2 && sent[0].fate == Fate::Cancelled
                });
            repeated.is_some()
        },
    );
    let repeated = repeated.unwrap();
    let resent_after = started.elapsed();
    proxy.set_link_faults(links[0], Faults::default());
    wait_until(
        Duration::from_secs(60),
        "a repeated submission is answered",
        || {
            proxy
                .calls()
                .iter()
                .any(|call| call.carries(&repeated) && call.fate == Fate::Answered)
        },
    );
    wait_until(Duration::from_secs(120), "the campaign is mined", || {
        status(&server.url, "stall").is_some_and(|s| is_done(&s))
    });
    eprintln!(
        "stall: result sent again {resent_after:?} after the stall began, mined after {:?}",
        started.elapsed()
    );
    stop.send(()).unwrap();
    worker.join().unwrap().expect("the worker stops cleanly");

    let units = unit_records(&server, id);
    let (unit, record) = units
        .iter()
        .find(|(_, record)| stored_digest(record) == Some(repeated))
        .unwrap();
    assert_eq!(
        record.leases_issued, 1,
        "unit {unit} was never leased again: its result was not lost"
    );
    let sends = proxy
        .calls()
        .iter()
        .filter(|call| call.sent && call.carries(&repeated))
        .count();
    assert!(sends >= 2, "unit {unit} was submitted {sends} times");
    assert_exact(&server, "stall", seeds, expected.join().unwrap());
}
