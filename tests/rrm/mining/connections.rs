//! Connections held without a token, as an attacker holds them: raw HTTP/2 that sends
//! the preface and settings and pings every 300 ms (the server answers each ping, so
//! the connection is never idle) but makes no call. Each is closed at the end of the
//! grace whatever its pings; a flood of them from many addresses and networks holds at
//! most the unproven share of the slots, and an honest worker with a token gets in
//! beside them and finishes its campaign exactly. Before, 4,096 such connections from
//! 16 addresses were held for as long as they liked and a worker got nothing.

use super::attacks::{honest_worker_finishes, secured};
use super::*;
use rrm_coordinator::ConnectionLimits;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const SETTINGS: [u8; 9] = [0, 0, 0, 4, 0, 0, 0, 0, 0];
const SETTINGS_ACK: [u8; 9] = [0, 0, 0, 4, 1, 0, 0, 0, 0];
const PING: [u8; 17] = [0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];

/// A silent connection from `from` to `to`, as in the module doc, open at most
/// `limit`; how long it stayed open (`None` if it never connected). `held` counts it
/// from the server's first bytes (it was admitted) until it is closed.
async fn silent_connection(
    from: IpAddr,
    to: SocketAddr,
    limit: Duration,
    held: &AtomicUsize,
) -> Option<Duration> {
    let socket = tokio::net::TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::new(from, 0)).ok()?;
    let mut stream = socket.connect(to).await.ok()?;
    let opened = Instant::now();
    let mut greeting = PREFACE.to_vec();
    greeting.extend_from_slice(&SETTINGS);
    if stream.write_all(&greeting).await.is_err() {
        return Some(opened.elapsed());
    }
    let mut acknowledged = false;
    let mut buffer = [0u8; 4096];
    let mut ping = tokio::time::interval(Duration::from_millis(300));
    while opened.elapsed() < limit {
        tokio::select! {
            _ = ping.tick() => {
                if stream.write_all(&PING).await.is_err() {
                    break;
                }
            }
            read = stream.read(&mut buffer) => match read {
                Ok(0) | Err(_) => break,
                Ok(_) if !acknowledged => {
                    acknowledged = true;
                    held.fetch_add(1, Ordering::SeqCst);
                    if stream.write_all(&SETTINGS_ACK).await.is_err() {
                        break;
                    }
                }
                Ok(_) => {}
            },
            () = tokio::time::sleep(limit.saturating_sub(opened.elapsed())) => {}
        }
    }
    if acknowledged {
        held.fetch_sub(1, Ordering::SeqCst);
    }
    Some(opened.elapsed())
}

/// The coordinator's address from its URL.
fn address(server: &Server) -> SocketAddr {
    server.url.trim_start_matches("http://").parse().unwrap()
}

#[test]
fn a_connection_with_no_authenticated_call_is_closed_whatever_its_pings() {
    let config = Config {
        connections: ConnectionLimits {
            grace: Some(Duration::from_secs(2)),
            ..ConnectionLimits::default()
        },
        ..checking(0.0)
    };
    let seeds = 1..401;
    let (server, tokens) = secured(config, spec("graced", seeds.clone(), 50));
    let to = address(&server);
    let lifetimes: Vec<Duration> = block_on(async {
        let tasks: Vec<_> = (0..40)
            .map(|n| {
                let from: IpAddr = format!("127.0.0.{}", 2 + n % 4).parse().unwrap();
                tokio::spawn(async move {
                    let held = AtomicUsize::new(0);
                    silent_connection(from, to, Duration::from_secs(15), &held).await
                })
            })
            .collect();
        let mut lifetimes = Vec::new();
        for task in tasks {
            lifetimes.push(task.await.unwrap().expect("connected"));
        }
        lifetimes
    });
    let longest = lifetimes.iter().max().unwrap();
    let shortest = lifetimes.iter().min().unwrap();
    eprintln!("40 pinging connections without a call lived {shortest:?} to {longest:?}");
    assert!(*shortest >= Duration::from_millis(1500), "{shortest:?}");
    assert!(*longest < Duration::from_secs(5), "{longest:?}");
    honest_worker_finishes(&server, &tokens, "graced", seeds);
}

#[test]
fn a_flood_of_silent_connections_leaves_room_for_a_worker_with_a_token() {
    let limits = ConnectionLimits {
        per_peer: 16,
        per_network: 48,
        total: 160,
        reserved: 32,
        // Long: here eviction, not the grace, must make the room.
        grace: Some(Duration::from_secs(60)),
        ..ConnectionLimits::default()
    };
    let config = Config {
        connections: limits,
        ..checking(0.0)
    };
    let seeds = 1..801;
    let (server, tokens) = secured(config, spec("flooded", seeds.clone(), 50));
    let to = address(&server);
    // 16 addresses of the worker's own /24 and 8 other /24s, 16 connections each,
    // reconnecting 500 ms after each close.
    let sources: Vec<IpAddr> = (2..18)
        .map(|host| format!("127.0.0.{host}"))
        .chain((1..9).map(|net| format!("127.0.{net}.2")))
        .map(|ip| ip.parse().unwrap())
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let held = Arc::new(AtomicUsize::new(0));
    let made = Arc::new(AtomicUsize::new(0));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for &from in &sources {
        for _ in 0..16 {
            let (stop, held, made) = (stop.clone(), held.clone(), made.clone());
            runtime.spawn(async move {
                while !stop.load(Ordering::SeqCst) {
                    made.fetch_add(1, Ordering::SeqCst);
                    silent_connection(from, to, Duration::from_secs(300), &held).await;
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            });
        }
    }
    std::thread::sleep(Duration::from_secs(3));
    honest_worker_finishes(&server, &tokens, "flooded", seeds);
    // Sampled after the worker is done, with the flood still going: admitted and not
    // yet seen closed, counted client-side, so an eviction shows a moment late.
    let mut samples: Vec<usize> = (0..10)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(200));
            held.load(Ordering::SeqCst)
        })
        .collect();
    stop.store(true, Ordering::SeqCst);
    samples.sort_unstable();
    eprintln!(
        "{} silent connections tried from {} addresses; held at once: {} to {} (median \
         {}); the worker finished",
        made.load(Ordering::SeqCst),
        sources.len(),
        samples[0],
        samples[9],
        samples[5],
    );
    // The unproven share is 160 - 32 = 128.
    assert!(samples[0] <= 128, "{samples:?}");
    runtime.shutdown_background();
}
