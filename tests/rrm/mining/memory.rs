//! A Submit built to blow up the coordinator's memory: millions of tiny solution entries.
//! It used to take 21 times its size once decoded (60 MiB in, 1.3 GiB more RSS). Now a
//! mining message is at most 4 MiB, solutions are packed in one field, and its shape is
//! checked against its unit before anything is unpacked (one move count per seed, no more
//! solutions than the unit keeps): a real coordinator process's peak RSS grows by less
//! than twice what it was sent.

use super::*;

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
    let (coordinator, address) = coordinator_process(data.path(), "127.0.0.1:0");
    let pid = coordinator.0.id();
    let message = rrm_proto::MAX_MINING_MESSAGE - 1024;
    let url = format!("http://{address}");
    rrm_ok(&[
        "campaign",
        "create",
        "hostile",
        "--seeds",
        "1..101",
        "--unit-size",
        "100",
        "--coordinator",
        &url,
    ]);
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
