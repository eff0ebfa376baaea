//! K. Cox's format: text → puzzle → text over hundreds of dealt five-robot games with
//! random mirrors, and every refusal naming its line.

use super::*;
use crate::driftingdroids::DdGame;
use crate::mt::PyRandom;

/// A DriftingDroids-style five-robot game with up to six random mirrors.
fn game_with_mirrors(seed: u64, rng: &mut PyRandom) -> Puzzle {
    let dealt = DdGame::deal(seed, 5).puzzle().unwrap();
    let mut mirrors = Vec::new();
    for _ in 0..rng.randint(0, 6) {
        let cell = rng.randint(0, 255) as Cell;
        let taken = dealt.robots().contains(&cell) || cell == dealt.target().cell;
        if !taken && !dealt.board().is_blocked(cell) {
            let colour = Colour::ALL[rng.randint(0, 4) as usize];
            let mirror = Mirror {
                leans_left: rng.randint(0, 1) == 1,
                colour,
            };
            mirrors.push((i64::from(cell), mirror));
        }
    }
    let board = dealt.board().clone().with_mirrors(&mirrors).unwrap();
    Puzzle::new(board, dealt.robots().to_vec(), dealt.target()).unwrap()
}

#[test]
fn text_puzzle_text_round_trips_over_hundreds_of_games() {
    let mut rng = PyRandom::new(7);
    let mut with_mirrors = 0;
    for seed in 1..=300 {
        let puzzle = game_with_mirrors(seed, &mut rng);
        with_mirrors += usize::from(puzzle.board().has_mirrors());
        let text = write(&puzzle).unwrap();
        let read = parse(&text).unwrap();
        assert_eq!(write(&read).unwrap(), text, "seed {seed}");
        assert_eq!(read.robots(), puzzle.robots(), "seed {seed}");
        assert_eq!(read.target().cell, puzzle.target().cell);
        assert_eq!(read.target().colour, puzzle.target().colour);
        assert_eq!(read.board().mirror_list(), puzzle.board().mirror_list());
        // Same slides everywhere a robot may stand (the centre reads as a closed room).
        for cell in puzzle
            .board()
            .cells()
            .filter(|&c| !puzzle.board().is_blocked(c))
        {
            for dir in Direction::ALL {
                assert_eq!(
                    read.board().step_open(cell, dir),
                    puzzle.board().step_open(cell, dir),
                    "seed {seed} cell {cell}"
                );
            }
        }
    }
    assert!(with_mirrors > 200, "{with_mirrors} games with mirrors");
}

#[test]
fn robots_are_numbered_as_k_cox_numbers_them() {
    let puzzle = game_with_mirrors(3, &mut PyRandom::new(1));
    let text = write(&puzzle).unwrap();
    let robot_lines: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "robots 5")
        .skip(1)
        .take(5)
        .collect();
    // Black (his 0) is rrm's silver, blue (his 4) rrm's blue.
    let at = |ours: usize| {
        let cell = puzzle.robots()[ours] as usize;
        format!("{} {}", cell % 16, cell / 16)
    };
    assert_eq!(robot_lines, [at(4), at(0), at(1), at(3), at(2)]);
}

#[test]
fn refusals_name_their_line() {
    let good = write(&game_with_mirrors(5, &mut PyRandom::new(2))).unwrap();
    let cases: [(String, &str); 6] = [
        (good.replacen("board 16 16", "board 8 8", 1), "line 1"),
        (good.replacen("\nB ", "\nQ ", 1), "line 2"),
        (good.replacen("robots 5", "robots 4", 1), "\"robots 5\""),
        (
            good.replacen("target 0 ", "target 1 ", 1),
            "target 0 x y robot",
        ),
        (
            good.lines().take(10).collect::<Vec<_>>().join("\n"),
            "ends before",
        ),
        (good.clone() + "extra\n", "the end of the puzzle"),
    ];
    for (text, says) in cases {
        let error = parse(&text).unwrap_err().to_string();
        assert!(error.contains(says), "{error}");
    }
    let board = Board::new(8, 8, &[0; 64], &[]).unwrap();
    let small = Puzzle::new(
        board,
        vec![0, 17],
        Target {
            cell: 34,
            colour: None,
            shape: None,
        },
    );
    assert!(matches!(
        write(&small.unwrap()),
        Err(KcoxError::Shape { width: 8, .. })
    ));
    assert!(looks_like(&good) && !looks_like("7650+42+E2302B12+C9"));
}

/// Four-robot games go out with the black robot shut in the centre: the same optimum.
#[test]
fn four_robot_games_park_the_black_robot_in_the_centre() {
    for seed in 1..=12 {
        let four = DdGame::deal(seed, 4).puzzle().unwrap();
        let read = parse(&write(&four).unwrap()).unwrap();
        assert_eq!(read.robots()[..4], four.robots()[..]);
        assert_eq!(read.robots()[4], CENTRE);
        let moves = |p: &Puzzle| crate::Solver::new().solve(p).map(|s| s.moves.len());
        assert_eq!(moves(&read), moves(&four), "seed {seed}");
    }
}

/// A mirror's colour may be K. Cox's robot name as well as its number (any case); an
/// unknown colour's refusal says which are known.
#[test]
fn mirror_colours_read_as_names_or_numbers() {
    let mut rng = PyRandom::new(1);
    let puzzle = (1..100)
        .map(|seed| game_with_mirrors(seed, &mut rng))
        .find(|p| p.board().has_mirrors())
        .expect("a game with mirrors");
    let written = write(&puzzle).unwrap();
    let (head, rest) = written.split_once("mirrors ").unwrap();
    let mut lines: Vec<String> = rest.lines().map(String::from).collect();
    let by_number = parse(&written).unwrap();
    for (name, number) in [
        ("black", "0"),
        ("Red", "1"),
        ("GREEN", "2"),
        ("yellow", "3"),
        ("blue", "4"),
        ("silver", "0"),
    ] {
        let place = lines[1].rsplit_once(' ').unwrap().0.to_string();
        lines[1] = format!("{place} {name}");
        let named = parse(&format!("{head}mirrors {}\n", lines.join("\n"))).unwrap();
        lines[1] = format!("{place} {number}");
        let numbered = parse(&format!("{head}mirrors {}\n", lines.join("\n"))).unwrap();
        assert_eq!(
            named.board().mirror_list(),
            numbered.board().mirror_list(),
            "{name}"
        );
    }
    assert_eq!(
        parse(&written).unwrap().board().mirror_list(),
        by_number.board().mirror_list()
    );
    let place = lines[1].rsplit_once(' ').unwrap().0.to_string();
    lines[1] = format!("{place} purple");
    let refused = parse(&format!("{head}mirrors {}\n", lines.join("\n"))).unwrap_err();
    assert!(
        refused.to_string().contains("black, red, green"),
        "{refused}"
    );
}
