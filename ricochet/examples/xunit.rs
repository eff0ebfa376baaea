use ricochet::exhaustive::{analyse, Options};
use ricochet::Layout;
use std::ops::ControlFlow;
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let board = args.get(1).map(String::as_str).unwrap_or("1B 2B 4B 3B");
    let token = args.get(2).map(String::as_str).unwrap_or("BT");
    let layout = Layout::parse(board).unwrap();
    let target = layout.target(token).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let options = Options {
        forbidden: layout.target_cells(),
        sample_size: 32,
        top_from: 12,
        top_per_depth: 8,
        legal_per_depth: 64,
        legal_hardest: 1024,
        ..Options::default()
    };
    let start = Instant::now();
    let mut last = Instant::now();
    let a = pool
        .install(|| {
            analyse(&layout.board(), target.cell, 3, &options, |l| {
                eprint!("{}:{:.2} ", l.depth, last.elapsed().as_secs_f64());
                last = Instant::now();
                ControlFlow::Continue(())
            })
        })
        .unwrap();
    eprintln!();
    println!(
        "{:?} {:?} max {} hardest {} total {:.2}s",
        a.histogram,
        a.legal_histogram,
        a.max_moves,
        a.hardest.len(),
        start.elapsed().as_secs_f64()
    );
    let mut h = std::collections::hash_map::DefaultHasher::new();
    use std::hash::{Hash, Hasher};
    (
        &a.histogram,
        &a.legal_histogram,
        &a.hardest,
        &a.top,
        &a.sample,
    )
        .hash(&mut h);
    eprintln!(
        "legal samples {:?} legal hardest {}",
        a.legal_samples.iter().map(|v| v.len()).collect::<Vec<_>>(),
        a.legal_hardest.len()
    );
    println!("digest {:x}", h.finish());
}
