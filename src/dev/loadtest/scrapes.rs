//! The `/metrics` part of `rrm-dev load-test`: with the store full and the metrics filled
//! by the load, scrapes timed one at a time, each on a new connection.

use anyhow::{Context, Result};
use rrm_coordinator::Coordinator;
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Timed scrapes of `/metrics`.
pub(super) struct Scrapes {
    pub(super) durations: Vec<Duration>,
    /// Process CPU seconds over all of them.
    pub(super) cpu: f64,
    /// The size of the last exposition.
    pub(super) bytes: usize,
}

/// Serves the dashboard of `coordinator` and GETs `/metrics` `count` times in a row, a
/// connection each, as Prometheus would; `None` for no scrapes.
pub(super) async fn time_scrapes(
    coordinator: Arc<Coordinator>,
    count: usize,
) -> Result<Option<Scrapes>> {
    if count == 0 {
        return Ok(None);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(rrm_coordinator::dashboard::serve(
        listener,
        coordinator,
        async {
            let _ = stopped.await;
        },
    ));
    let scrapes = tokio::task::spawn_blocking(move || {
        let cpu = cpu_time::ProcessTime::now();
        let mut durations = Vec::with_capacity(count);
        let mut bytes = 0;
        for _ in 0..count {
            let started = Instant::now();
            bytes = scrape(address)?.len();
            durations.push(started.elapsed());
        }
        let cpu = cpu.elapsed().as_secs_f64();
        anyhow::Ok(Scrapes {
            durations,
            cpu,
            bytes,
        })
    })
    .await
    .context("scraping")??;
    let _ = stop.send(());
    server.await??;
    Ok(Some(scrapes))
}

/// One `GET /metrics` on a new connection; returns the body.
fn scrape(address: std::net::SocketAddr) -> Result<String> {
    let mut stream = std::net::TcpStream::connect(address)?;
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .context("/metrics: no end of headers")?;
    anyhow::ensure!(
        head.starts_with("HTTP/1.1 200 "),
        "/metrics: {}",
        head.lines().next().unwrap_or_default()
    );
    Ok(body.to_string())
}
