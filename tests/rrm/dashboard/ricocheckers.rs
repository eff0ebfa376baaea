//! A mined Ricocheckers campaign on the dashboard: its page in Ricocheckers words
//! (forced wins, not move counts), its hardest positions drawn, and a position's page
//! with the main line by player and its playback.

use super::*;
use ricochet::Generator;
use rrm_coordinator::Config;
use rrm_store::Store;

/// The Ricocheckers position a seed deals.
fn dealer_position(dealer: &ricochet::Dealer, seed: u64) -> ricochet::ricocheckers::Position {
    match dealer.deal(seed).unwrap() {
        ricochet::Dealt::Ricocheckers(position) => position,
        ricochet::Dealt::Puzzle(_) => panic!("seed {seed} dealt a Ricochet puzzle"),
    }
}

#[test]
fn ricocheckers_campaigns_show_positions_and_forced_wins() {
    let data = tempfile::tempdir().unwrap();
    let store = data.path().join("store");
    crate::rrm_ok(&[
        "mine",
        "--generator",
        "ricocheckers",
        "--seeds",
        "1..301",
        "--record-threshold",
        "5",
        "--data",
        store.to_str().unwrap(),
    ]);
    let coordinator =
        Arc::new(Coordinator::open(Store::open(&store).unwrap(), Config::default()).unwrap());
    let name = "ricocheckers-1-301";
    let hardest = coordinator.hardest(name, 1, 0).unwrap()[0].clone();
    assert!(hardest.moves > 0);
    let without_win = coordinator.aggregates(name).unwrap().histogram[0];
    assert!(without_win > 0);
    let dealer = ricochet::Dealer::standard(Generator::Ricocheckers);
    let no_win = (1..301)
        .find(|&seed| {
            let dealt = dealer.deal(seed).unwrap();
            dealer.answer(&dealt, 7).unwrap().moves == 0
        })
        .unwrap();
    let (runtime, address, stop, server) = serve(coordinator);
    let (status, _, page) = get(address, &format!("/campaign/{name}"));
    assert_eq!(status, 200);
    assert!(page.contains("<circle"), "the hardest positions are drawn");
    // Ricocheckers words, not Ricochet's: positions without a forced win are not 0 moves.
    assert!(page.contains("with a forced win within 7 moves"), "{page}");
    assert!(page.contains("<td>none within 7</td>"), "{page}");
    // Having no forced win is not rare: that row has no rarity.
    let none_row = page
        .split(r#"<tr data-moves="0""#)
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("a row of positions without a forced win");
    assert!(
        none_row.ends_with(r#"<td class="num">–</td>"#),
        "{none_row}"
    );
    // The chart in Ricocheckers words, with no bar at 0 moves: those positions are
    // counted in the summary instead.
    assert!(
        page.contains(&format!("Forced wins by length: {name}")),
        "{page}"
    );
    assert!(page.contains(">moves to a forced win<"), "{page}");
    assert!(!page.contains(r#"class="bar" data-moves="0""#), "{page}");
    assert!(
        !page.contains("Optimal move counts") && !page.contains(">optimal moves<"),
        "{page}"
    );
    assert!(
        page.contains(&format!("{without_win} with no forced win within 7 moves")),
        "{page}"
    );
    assert!(page.contains("Every seed is mined."), "{page}");
    assert!(tables_scroll(&page), "{page}");
    let (_, _, index) = get(address, "/");
    assert!(index.contains(r#"<td class="num rate">–</td>"#), "{index}");
    assert!(
        index.contains(r#"<td class="num eta">finished</td>"#),
        "{index}"
    );
    assert!(
        page.contains(&format!("win in {}", hardest.moves)),
        "{page}"
    );
    assert!(page.contains(r#"class="legend""#), "{page}");
    assert!(!page.contains("puzzles mined"), "{page}");
    let (status, _, page) = get(
        address,
        &format!("/campaign/{name}/puzzle/{}", hardest.seed),
    );
    assert_eq!(status, 200);
    let verdict = format!("forces a win in <b>{}</b> moves", hardest.moves);
    assert!(page.contains(&verdict), "{page}");
    // The main line names each move's player, the side to move first.
    let to_move = usize::from(dealer_position(&dealer, hardest.seed).to_move);
    let line: Vec<String> = (hardest.solution.iter().enumerate())
        .map(|(ply, step)| format!("{}:{step}", (to_move + ply) % 2 + 1))
        .collect();
    assert!(page.contains(&line.join(" ")), "{page}");
    assert!(page.contains(r#"class="legend""#), "{page}");
    // Playback: buttons, each ply as a step, and the pieces' places after each ply, which
    // end where the main line, replayed by the rules, leaves them.
    assert!(page.contains(r#"<button id="play">"#), "{page}");
    assert!(page.contains(r#"src="/assets/puzzle.js""#), "{page}");
    for (ply, label) in line.iter().enumerate() {
        let step = format!(r#"<span data-step="{}">{label}</span>"#, ply + 1);
        assert!(page.contains(&step), "{step} in {page}");
    }
    let frames: Vec<Vec<(f64, f64)>> = serde_json::from_str(
        page.split(r#"<script type="application/json" id="frames">"#)
            .nth(1)
            .and_then(|rest| rest.split("</script>").next())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(frames.len(), hardest.solution.len() + 1);
    let field = ricochet::ricocheckers::puzzles::standard_field();
    let mut at = dealer_position(&dealer, hardest.seed);
    for step in &hardest.solution {
        at = field.play(&at, ricochet::ricocheckers::Step::parse(step).unwrap());
    }
    let end: Vec<(f64, f64)> = (at.pieces.iter())
        .map(|&cell| {
            let (x, y) = ricochet::ricocheckers::render::centre(field, cell);
            (x as f64, y as f64)
        })
        .collect();
    assert_eq!(frames.last().unwrap(), &end);
    for piece in 0..6 {
        assert!(page.contains(&format!(r#"id="robot-{piece}""#)), "{page}");
    }
    let (status, _, page) = get(address, &format!("/campaign/{name}/puzzle/{no_win}"));
    assert_eq!(status, 200);
    assert!(page.contains("has no forced win within 7 moves"), "{page}");
    let _ = stop.send(());
    runtime.block_on(server).unwrap().unwrap();
}
