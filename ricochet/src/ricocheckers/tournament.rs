//! Tournaments: games between two players, in parallel on the caller's rayon pool, each
//! game's seed derived from the tournament's, the first move alternating between them.
//! Two deterministic players would replay the same two games over and over, so games may
//! start after an opening of random plies, the same for both orders of a pair of games.

use super::players::Kind;
use super::{Field, Outcome, Step};
use rayon::prelude::*;

/// One game's record.
#[derive(Clone, Debug)]
pub struct Game {
    /// Whether player A moved first.
    pub a_first: bool,
    pub outcome: Outcome,
    pub moves: Vec<Step>,
}

/// The opening of a pair of games: up to `plies` uniformly random legal plies from the
/// start (fewer if one would end the game), drawn from `seed`.
pub fn opening(field: &Field, plies: u16, seed: u64) -> Vec<Step> {
    let mut rng = crate::mt::PyRandom::new(seed);
    let mut position = field.start();
    let mut steps = Vec::new();
    for _ in 0..plies {
        let legal = field.steps(&position);
        if legal.is_empty() {
            break;
        }
        let step = legal[rng.randint(0, legal.len() as u32 - 1) as usize];
        let next = field.play(&position, step);
        if field.outcome(&next).is_some() {
            break;
        }
        steps.push(step);
        position = next;
    }
    steps
}

/// Plays one game, `first` against `second` (`first` plays player 1's pieces), from the
/// position after `opening`; each player's seed is derived from `seed` and its side.
pub fn play_game(
    field: &Field,
    first: Kind,
    second: Kind,
    opening: &[Step],
    seed: u64,
) -> (Outcome, Vec<Step>) {
    let mut players = [
        first.player(field, seed * 2 + 1),
        second.player(field, seed * 2 + 2),
    ];
    let mut position = field.start();
    let mut moves = opening.to_vec();
    for &step in opening {
        position = field.play(&position, step);
    }
    loop {
        if let Some(outcome) = field.outcome(&position) {
            return (outcome, moves);
        }
        if field.steps(&position).is_empty() {
            return (Outcome::Tie, moves);
        }
        let step = players[usize::from(position.to_move)].choose(field, &position);
        moves.push(step);
        position = field.play(&position, step);
    }
}

/// Plays `games` games of `a` against `b`, A first in the even-numbered ones; games `2k`
/// and `2k + 1` share an opening of `opening_plies` random plies.
pub fn tournament(
    field: &Field,
    (a, b): (Kind, Kind),
    games: u32,
    opening_plies: u16,
    seed: u64,
    on_game: impl Fn() + Sync,
) -> Vec<Game> {
    (0..games)
        .into_par_iter()
        .map(|game| {
            let a_first = game % 2 == 0;
            let (first, second) = if a_first { (a, b) } else { (b, a) };
            let game_seed = seed.wrapping_mul(1_000_003) + u64::from(game);
            let opened = opening(
                field,
                opening_plies,
                seed.wrapping_mul(1_000_003) + u64::from(game / 2),
            );
            let (outcome, moves) = play_game(field, first, second, &opened, game_seed);
            on_game();
            Game {
                a_first,
                outcome,
                moves,
            }
        })
        .collect()
}

/// A tournament's counts from A's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub a_wins: u32,
    pub ties: u32,
    pub b_wins: u32,
    /// Games the first mover won.
    pub first_wins: u32,
    /// Games the second mover won.
    pub second_wins: u32,
}

impl Tally {
    pub fn of(games: &[Game]) -> Tally {
        let mut tally = Tally::default();
        for game in games {
            match game.outcome {
                Outcome::Tie => tally.ties += 1,
                Outcome::Win(winner) => {
                    // Player 0 moves first.
                    let first_won = winner == 0;
                    if first_won {
                        tally.first_wins += 1;
                    } else {
                        tally.second_wins += 1;
                    }
                    if first_won == game.a_first {
                        tally.a_wins += 1;
                    } else {
                        tally.b_wins += 1;
                    }
                }
            }
        }
        tally
    }

    pub fn games(&self) -> u32 {
        self.a_wins + self.ties + self.b_wins
    }
}

/// The Wilson score interval at 95 % for `successes` out of `trials`, as shares.
pub fn wilson(successes: u32, trials: u32) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = f64::from(trials);
    let p = f64::from(successes) / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}
