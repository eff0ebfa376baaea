//! Forced-win puzzles dealt from seeds, as a mining campaign's generator (`ricocheckers`)
//! deals them: a position per seed, its exact shortest forced win up to a bound with a
//! main line, and the replay that checks a claimed line.
//!
//! Positions are placed uniformly (six distinct open cells, a random side to move, the
//! game still on), not reached by random play. Random play keeps each side's pieces around
//! their own start cells, which are the opponent's goals: measured on the built-in board,
//! none of 2,000 positions 1 to 60 random plies from the start has a forced win in at most
//! 5 moves, and none of 300 in 6; of 2,000 placed uniformly, 20 have one.

use super::proof::{forced_win, OutOfBudget};
use super::{Field, Outcome, Position, PositionError, Step, PIECES};
use crate::mt::PyRandom;
use std::sync::OnceLock;

/// The longest forced win searched for, in the winner's moves (13 plies).
pub const FORCED_WIN_BOUND: u8 = 7;

/// Positions a proof may search before the seed is left unsettled; the hardest of 100
/// measured positions needed about 140,000.
pub const PROOF_BUDGET: u64 = 50_000_000;

/// The built-in board, read once.
pub fn standard_field() -> &'static Field {
    static FIELD: OnceLock<Field> = OnceLock::new();
    FIELD.get_or_init(Field::standard)
}

/// A seed's answer: the shortest forced win of the side to move within the bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The winner's moves; 0 when no forced win exists within the bound.
    pub moves: u8,
    /// Different pieces the winner moves on the main line.
    pub pieces: u8,
    /// The main line, the winner's moves and the opponent's replies (empty for 0).
    pub line: Vec<Step>,
}

/// Why a claimed line does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error(transparent)]
    Step(#[from] PositionError),
    #[error("step {index} ({step}) is not a legal move there")]
    Illegal { index: usize, step: Step },
    #[error("the line does not end with the side to move winning on its last step")]
    NoWin,
}

/// The position of `seed`: six distinct open cells drawn uniformly (player 1's pieces
/// first), the side to move drawn, redrawn while the game would already be over.
pub fn deal(field: &Field, seed: u64) -> Position {
    let mut rng = PyRandom::new(seed);
    let mut cells = field.open_cells();
    loop {
        rng.shuffle(&mut cells);
        let mut pieces = [0; 2 * PIECES];
        pieces.copy_from_slice(&cells[..2 * PIECES]);
        let position = Position {
            pieces,
            to_move: rng.randint(0, 1) as u8,
            plies: 0,
        };
        // `outcome` looks at a ply's mover only; neither side may stand on its goals yet.
        if !field.has_filled(&position, 0) && !field.has_filled(&position, 1) {
            return position;
        }
    }
}

/// The shortest forced win within `max_moves` (at most [`FORCED_WIN_BOUND`]), proven.
pub fn answer(field: &Field, position: &Position, max_moves: u8) -> Result<Answer, OutOfBudget> {
    let proof = forced_win(
        field,
        position,
        max_moves.min(FORCED_WIN_BOUND),
        PROOF_BUDGET,
    )?;
    Ok(match proof.win {
        Some(win) => Answer {
            moves: win.moves,
            pieces: winner_pieces(&win.line),
            line: win.line,
        },
        None => Answer {
            moves: 0,
            pieces: 0,
            line: Vec::new(),
        },
    })
}

/// Replays a claimed main line: every step legal, the game going on until the last step,
/// which wins for the side to move. An empty line claims no win. This checks the line,
/// not that the win is forced: only a search proves that.
pub fn replay(field: &Field, position: &Position, line: &[String]) -> Result<Answer, LineError> {
    let steps = (line.iter())
        .map(|text| Step::parse(text))
        .collect::<Result<Vec<_>, _>>()?;
    let mut at = *position;
    for (index, &step) in steps.iter().enumerate() {
        if field.outcome(&at).is_some() || !field.steps(&at).contains(&step) {
            return Err(LineError::Illegal { index, step });
        }
        at = field.play(&at, step);
    }
    let won = field.outcome(&at) == Some(Outcome::Win(position.to_move));
    if !steps.is_empty() && (!won || steps.len() % 2 == 0) {
        return Err(LineError::NoWin);
    }
    Ok(Answer {
        moves: steps.len().div_ceil(2) as u8,
        pieces: winner_pieces(&steps),
        line: steps,
    })
}

/// Different pieces the side to move moves in `line` (its steps are the even ones).
fn winner_pieces(line: &[Step]) -> u8 {
    let moved = line
        .iter()
        .step_by(2)
        .fold(0u8, |set, s| set | 1 << s.piece);
    moved.count_ones() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dealt_positions_are_legal_deterministic_and_varied() {
        let field = standard_field();
        let open = field.open_cells();
        let mut sides = [0; 2];
        for seed in 1..200 {
            let position = deal(field, seed);
            assert_eq!(position, deal(field, seed));
            let mut cells = position.pieces.to_vec();
            cells.sort_unstable();
            cells.dedup();
            assert_eq!(cells.len(), 2 * PIECES, "seed {seed}");
            assert!(cells.iter().all(|c| open.contains(c)));
            assert!(!field.has_filled(&position, 0) && !field.has_filled(&position, 1));
            sides[usize::from(position.to_move)] += 1;
        }
        assert!(sides.iter().all(|&n| n > 60), "{sides:?}");
    }

    #[test]
    fn answers_replay_and_damaged_lines_are_refused() {
        let field = standard_field();
        let mut wins = 0;
        for seed in 1..400 {
            let position = deal(field, seed);
            let found = answer(field, &position, 4).unwrap();
            let text: Vec<String> = found.line.iter().map(Step::to_string).collect();
            assert_eq!(replay(field, &position, &text), Ok(found.clone()));
            if found.moves == 0 {
                continue;
            }
            wins += 1;
            assert_eq!(found.line.len(), 2 * usize::from(found.moves) - 1);
            // Without its last step the line wins nothing.
            let short = &text[..text.len() - 1];
            assert!(replay(field, &position, short).is_err());
        }
        assert!(wins > 0, "no forced win in 399 positions");
        let position = deal(field, 1);
        let illegal = ["a x".to_string()];
        assert!(matches!(
            replay(field, &position, &illegal),
            Err(LineError::Step(_))
        ));
    }
}
