//! `rrm ricocheckers play`: one game in the terminal. A human types moves as piece and
//! direction (`a N`, `c west`), or `q` to quit; a player answers at once. The board is
//! drawn after every move.

use super::{parse_kind, position_of, BoardArgs};
use anyhow::{bail, Result};
use clap::Args;
use ricochet::ricocheckers::players::Player;
use ricochet::ricocheckers::{render, Field, Outcome, Step};
use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Player 1 (moves first): `human`, `random`, `minimax:N`, `alphabeta:N`, `rrm[:NODES]`.
    #[arg(long, default_value = "human")]
    first: String,
    /// Player 2.
    #[arg(long, default_value = "rrm")]
    second: String,
    /// Seed of the players' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start from this position (`P1/P2/SIDE`) instead of the opening.
    #[arg(long)]
    position: Option<String>,
}

/// A side: a person at the terminal, or a player.
enum Side {
    Human,
    Machine(Box<dyn Player + Send>),
}

fn side(text: &str, field: &Field, seed: u64) -> Result<Side> {
    Ok(match text {
        "human" => Side::Human,
        _ => Side::Machine(parse_kind(text)?.player(field, seed)),
    })
}

pub fn run(args: PlayArgs) -> Result<ExitCode> {
    let field = args.board.field()?;
    let mut position = position_of(&field, args.position.as_deref())?;
    let mut sides = [
        side(&args.first, &field, args.seed * 2 + 1)?,
        side(&args.second, &field, args.seed * 2 + 2)?,
    ];
    let names = [args.first.clone(), args.second.clone()];
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = crate::output::stdout::lock();
    loop {
        write!(out, "{}", render::text(&field, &position))?;
        if let Some(outcome) = field.outcome(&position) {
            match outcome {
                Outcome::Win(player) => writeln!(
                    out,
                    "player {} ({}) wins after {} plies",
                    player + 1,
                    names[usize::from(player)],
                    position.plies
                )?,
                Outcome::Tie => writeln!(out, "a tie after {} plies", position.plies)?,
            }
            out.flush()?;
            return Ok(ExitCode::SUCCESS);
        }
        let mover = usize::from(position.to_move);
        let step = match &mut sides[mover] {
            Side::Machine(player) => player.choose(&field, &position),
            Side::Human => loop {
                write!(
                    out,
                    "player {} move (piece a-c, direction N/E/S/W; q quits): ",
                    mover + 1
                )?;
                out.flush()?;
                let Some(line) = lines.next() else {
                    bail!("the input ended before the game did");
                };
                let line = line?;
                if matches!(
                    line.trim().to_ascii_lowercase().as_str(),
                    "q" | "quit" | "exit"
                ) {
                    writeln!(
                        out,
                        "player {} quits after {} plies",
                        mover + 1,
                        position.plies
                    )?;
                    return Ok(ExitCode::SUCCESS);
                }
                match Step::parse(&line) {
                    Ok(step) if field.steps(&position).contains(&step) => break step,
                    Ok(step) => writeln!(out, "{step}: that piece cannot move that way")?,
                    Err(error) => writeln!(out, "{error}")?,
                }
            },
        };
        writeln!(
            out,
            "player {} plays {} ({})",
            mover + 1,
            render::piece_name(mover * 3 + usize::from(step.piece)),
            step
        )?;
        position = field.play(&position, step);
    }
}
