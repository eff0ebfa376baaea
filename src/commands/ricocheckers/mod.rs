//! `rrm ricocheckers`: the two-player game on Ricochet moves. `show` draws a position,
//! `play` plays a game in the terminal (a human or any player on each side),
//! `tournament` plays many games between two players (`rrm-dev ricocheckers-bench`
//! measures the engine). `mined` shows a mined forced-win campaign (`rrm top`, `rrm pack`).

pub mod mined;
mod play;
mod tournament;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use ricochet::ricocheckers::players::{Kind, UnknownPlayer};
use ricochet::ricocheckers::{render, Field, Position};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct RicocheckersArgs {
    #[command(subcommand)]
    command: GameCommand,
}

#[derive(Subcommand)]
enum GameCommand {
    /// Draw a position as text (the published README's grid) or SVG.
    Show(ShowArgs),
    /// Play a game in the terminal: a human or a player on each side.
    Play(play::PlayArgs),
    /// Play N games between two players in parallel: wins, ties, losses, intervals.
    Tournament(tournament::TournamentArgs),
}

/// The board every subcommand plays on.
#[derive(Args)]
pub struct BoardArgs {
    /// A Ricocheckers board file (JSON, as ../shared/boards/ricocheckers-11x11.json);
    /// default: the published 11×11 board, built in.
    #[arg(long)]
    board: Option<PathBuf>,
}

impl BoardArgs {
    pub fn field(&self) -> Result<Field> {
        match &self.board {
            None => Ok(Field::standard()),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                Field::from_json(&text).with_context(|| path.display().to_string())
            }
        }
    }
}

#[derive(Args)]
struct ShowArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// The position: `P1/P2/SIDE`, e.g. `49,50,59/61,70,71/1` (default: the start).
    #[arg(long)]
    position: Option<String>,
    /// Write an SVG picture here too.
    #[arg(long)]
    svg: Option<PathBuf>,
}

/// Reads a player name (clap's value parser).
pub fn parse_kind(text: &str) -> Result<Kind, UnknownPlayer> {
    Kind::parse(text)
}

pub fn run(args: RicocheckersArgs) -> Result<ExitCode> {
    match args.command {
        GameCommand::Show(args) => show(args),
        GameCommand::Play(args) => play::run(args),
        GameCommand::Tournament(args) => tournament::run(args),
    }
}

/// The position the arguments name, or the start.
fn position_of(field: &Field, text: Option<&str>) -> Result<Position> {
    match text {
        None => Ok(field.start()),
        Some(text) => Ok(field.parse_position(text)?),
    }
}

fn show(args: ShowArgs) -> Result<ExitCode> {
    let field = args.board.field()?;
    let position = position_of(&field, args.position.as_deref())?;
    if let Some(path) = &args.svg {
        let title = format!("Ricocheckers {}", field.write_position(&position));
        std::fs::write(path, render::svg(&field, &position, &title))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = crate::output::stdout::lock();
    write!(out, "{}", render::text(&field, &position))?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
