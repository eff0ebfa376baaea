//! A Submit built to blow up the coordinator's memory: millions of tiny solution entries.
//! It used to take 21 times its size once decoded (60 MiB in, 1.3 GiB more RSS). Now a
//! mining message is at most 4 MiB, solutions are packed in one field, and its shape is
//! checked against its unit before anything is unpacked (one move count per seed, no more
//! solutions than the unit keeps): a real coordinator process's peak RSS grows by less
//! than twice what it was sent.

use super::*;

/// A coordinator process on its own store, with a seed campaign `name` of `seeds` in
/// units of `unit_size`: the process (kept alive by the holder), its pid and its URL.
fn coordinator_with(
    data: &std::path::Path,
    name: &str,
    seeds: &str,
    unit_size: &str,
) -> (Process, u32, String) {
    let (coordinator, address) = coordinator_process(data, "127.0.0.1:0");
    let pid = coordinator.0.id();
    let url = format!("http://{address}");
    rrm_ok(&[
        "campaign",
        "create",
        name,
        "--seeds",
        seeds,
        "--unit-size",
        unit_size,
        "--coordinator",
        &url,
    ]);
    (coordinator, pid, url)
}

/// The coordinator process's peak resident set (VmHWM), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// A Submit from `worker` whose packed solutions are `bytes` long, every entry as small
/// as it gets (a one-byte seed and no moves).
fn hostile(worker: &Registered, bytes: usize) -> pb::SubmitRequest {
    pb::SubmitRequest {
        worker_id: worker.id,
        session: worker.session.clone(),
        lease: Some(pb::LeaseRef {
            campaign: "hostile".into(),
            unit: 0,
            lease: 1,
        }),
        solutions: [1u8, 0].repeat(bytes / 2).into(),
        ..Default::default()
    }
}

#[test]
fn a_submit_of_tiny_solutions_costs_less_than_twice_its_size() {
    let data = tempfile::tempdir().unwrap();
    let (_coordinator, pid, url) = coordinator_with(data.path(), "hostile", "1..101", "100");
    let message = rrm_proto::MAX_MINING_MESSAGE - 1024;
    let before = peak_rss(pid);
    block_on(async {
        let (client, worker) = raw_worker(&url, "hostile").await;
        let client = client.max_encoding_message_size(128 << 20);
        let mut calls = tokio::task::JoinSet::new();
        for _ in 0..4 {
            let (mut client, request) = (client.clone(), hostile(&worker, message));
            calls.spawn(async move { client.submit(request).await });
        }
        while let Some(refused) = calls.join_next().await {
            let refused = refused.unwrap().unwrap_err();
            assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
            assert!(
                refused.message().contains("has 100 seeds, got 0"),
                "{refused:?}"
            );
        }
        // Over the limit: refused before it is decoded.
        let refused = client
            .clone()
            .submit(hostile(&worker, 60 << 20))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::OutOfRange, "{refused:?}");
    });
    let grown = peak_rss(pid).saturating_sub(before);
    eprintln!(
        "4 hostile Submits of {:.1} MiB and one of 60 MiB: peak RSS {:.1} -> {:.1} MiB (+{:.1})",
        message as f64 / 1048576.0,
        before as f64 / 1048576.0,
        (before + grown) as f64 / 1048576.0,
        grown as f64 / 1048576.0
    );
    assert!(
        grown < 2 * 4 * message as u64,
        "peak RSS grew by {grown} bytes for four messages of {message}"
    );
}

/// The peak RSS at most twice the bytes in flight above the baseline, and RSS within
/// 50 MiB of it 10 s after the burst.
fn assert_within_budget(baseline: u64, peak: u64, settled: u64, in_flight: u64) {
    assert!(
        peak.saturating_sub(baseline) <= 2 * in_flight,
        "peak RSS {peak} is more than twice {in_flight} bytes in flight above {baseline}"
    );
    assert!(
        settled.saturating_sub(baseline) <= 50 << 20,
        "RSS {settled} 10 s after the burst, against {baseline} before it"
    );
}

/// The coordinator process's resident set now (VmRSS), in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// The largest Submit a hostile worker can send for its leased unit: every seed a
/// record candidate and 4,096 solutions of 255 moves (3 MiB), as the attacker of issue
/// 44 sent them.
fn largest(worker: &Registered, lease: &pb::LeaseRef, seeds: usize) -> pb::SubmitRequest {
    let moves: Vec<String> = vec!["BS".into(); 255];
    let solutions: Vec<(u64, Vec<String>)> = (0..4096).map(|s| (s, moves.clone())).collect();
    pb::SubmitRequest {
        worker_id: worker.id,
        session: worker.session.clone(),
        lease: Some(lease.clone()),
        move_counts: vec![30; seeds],
        robots_moved: vec![1; seeds],
        solutions: rrm_proto::solutions::pack(&solutions).unwrap().into(),
        ..Default::default()
    }
}

/// 32 of the largest Submits at once, each on its own connection. The coordinator
/// decodes and checks at most its budget of Submit bytes at a time; the others wait and
/// are refused with RESOURCE_EXHAUSTED when the wait is over. Its peak RSS stays within
/// twice that budget of the baseline, and 10 s later its RSS is back within 50 MiB of it.
#[test]
fn a_burst_of_large_submits_costs_at_most_twice_the_bytes_in_flight() {
    const BURST: usize = 32;
    let data = tempfile::tempdir().unwrap();
    let (_coordinator, pid, url) = coordinator_with(data.path(), "burst", "1..10001", "10000");
    let (baseline, outcomes) = block_on(async {
        let (mut client, worker) = raw_worker(&url, "burst").await;
        let unit = client
            .lease(worker.lease())
            .await
            .unwrap()
            .into_inner()
            .unit;
        let lease = unit.and_then(|unit| unit.lease).expect("a unit is leased");
        let request = largest(&worker, &lease, 10_000);
        let mut connections = Vec::new();
        for _ in 0..BURST {
            let channel = tonic::transport::Endpoint::from_shared(url.clone())
                .unwrap()
                .connect()
                .await
                .unwrap();
            connections.push(pb::mining_client::MiningClient::new(channel));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let baseline = rss(pid);
        let mut calls = tokio::task::JoinSet::new();
        for mut client in connections {
            let request = request.clone();
            calls.spawn(async move { client.submit(request).await.map(|_| ()) });
        }
        let mut outcomes = Vec::new();
        while let Some(outcome) = calls.join_next().await {
            outcomes.push(outcome.unwrap());
        }
        (baseline, outcomes)
    });
    let peak = peak_rss(pid);
    std::thread::sleep(Duration::from_secs(10));
    let settled = rss(pid);
    let mib = |bytes: u64| bytes as f64 / 1048576.0;
    let checked = (outcomes.iter())
        .filter(|o| matches!(o, Err(s) if s.code() == Code::InvalidArgument))
        .count();
    let waited_out = (outcomes.iter())
        .filter(|o| matches!(o, Err(s) if s.code() == Code::ResourceExhausted))
        .count();
    let in_flight = Config::default().submit_budget as u64;
    eprintln!(
        "{BURST} Submits of 3.1 MiB: {checked} checked and refused, {waited_out} refused \
         for the budget ({:.0} MiB in flight); RSS {:.1} MiB, peak {:.1} (+{:.1}), \
         10 s later {:.1} (+{:.1})",
        mib(in_flight),
        mib(baseline),
        mib(peak),
        mib(peak.saturating_sub(baseline)),
        mib(settled),
        mib(settled.saturating_sub(baseline)),
    );
    assert_eq!(checked + waited_out, BURST, "{outcomes:?}");
    assert!(checked >= 1, "{outcomes:?}");
    assert_within_budget(baseline, peak, settled, in_flight);
}

/// A unary Submit that carries one tiny message and then 4 MiB ones (tonic used to
/// decode and drop those after the first, outside the budget), beside Submits whose
/// exhaustive result is millions of empty placements (2 bytes each on the wire, 32 in
/// memory). 16 of each at once: every one is refused, the peak RSS stays within twice the
/// budget of the baseline, and 10 s later RSS is back within 50 MiB of it.
#[test]
fn submits_of_several_messages_or_empty_placements_stay_within_the_budget() {
    const EACH: usize = 16;
    let data = tempfile::tempdir().unwrap();
    let (_coordinator, pid, url) = coordinator_with(data.path(), "hostile", "1..101", "100");
    let message = rrm_proto::MAX_MINING_MESSAGE - 1024;
    let (baseline, several, placements) = block_on(async {
        let (_, worker) = raw_worker(&url, "hostile").await;
        let mut channels = Vec::new();
        for _ in 0..2 * EACH {
            let channel = tonic::transport::Endpoint::from_shared(url.clone())
                .unwrap()
                .connect()
                .await
                .unwrap();
            channels.push(channel);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let baseline = rss(pid);
        let mut calls = tokio::task::JoinSet::new();
        for (index, channel) in channels.into_iter().enumerate() {
            let worker = worker.clone();
            calls.spawn(async move {
                if index % 2 == 0 {
                    let mut messages = vec![pb::SubmitRequest::default()];
                    messages.extend((0..6).map(|_| hostile(&worker, message)));
                    let mut grpc =
                        tonic::client::Grpc::new(channel).max_encoding_message_size(8 << 20);
                    grpc.ready().await.unwrap();
                    let codec =
                        tonic_prost::ProstCodec::<pb::SubmitRequest, pb::SubmitReply>::default();
                    let path = tonic::codegen::http::uri::PathAndQuery::from_static(
                        "/rrm.v1.Mining/Submit",
                    );
                    let stream = tokio_stream::iter(messages);
                    let outcome = grpc
                        .client_streaming(tonic::Request::new(stream), path, codec)
                        .await;
                    (true, outcome.map(|_| ()))
                } else {
                    let mut request = hostile(&worker, 0);
                    request.exhaustive = Some(pb::ExhaustiveResult {
                        hardest: vec![pb::Placement::default(); message / 2 - 8],
                        ..Default::default()
                    });
                    let mut client = pb::mining_client::MiningClient::new(channel)
                        .max_encoding_message_size(8 << 20);
                    (false, client.submit(request).await.map(|_| ()))
                }
            });
        }
        let (mut several, mut placements) = (Vec::new(), Vec::new());
        while let Some(outcome) = calls.join_next().await {
            match outcome.unwrap() {
                (true, outcome) => several.push(outcome),
                (false, outcome) => placements.push(outcome),
            }
        }
        (baseline, several, placements)
    });
    let peak = peak_rss(pid);
    std::thread::sleep(Duration::from_secs(10));
    let settled = rss(pid);
    let mib = |bytes: u64| bytes as f64 / 1048576.0;
    let said = |outcomes: &[Result<(), tonic::Status>], words: &str| {
        (outcomes.iter())
            .filter(|o| matches!(o, Err(s) if s.message().contains(words)))
            .count()
    };
    let in_flight = Config::default().submit_budget as u64;
    eprintln!(
        "{EACH} Submits of 1 + 6 messages: {} refused as more than one message; {EACH} of \
         {:.1} MiB of empty placements: {} refused for what they decode to; RSS {:.1} MiB, \
         peak {:.1} (+{:.1}), 10 s later {:.1} (+{:.1})",
        said(&several, "one message"),
        mib(message as u64),
        said(&placements, "decodes to more"),
        mib(baseline),
        mib(peak),
        mib(peak.saturating_sub(baseline)),
        mib(settled),
        mib(settled.saturating_sub(baseline)),
    );
    assert!(several.iter().all(Result::is_err), "{several:?}");
    assert!(said(&several, "one message") >= 1, "{several:?}");
    assert_eq!(said(&placements, "decodes to more"), EACH, "{placements:?}");
    assert_within_budget(baseline, peak, settled, in_flight);
}
