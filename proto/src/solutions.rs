//! The kept solutions of a Submit, packed into one `bytes` field: decoding a message
//! costs no more memory than the message, and the count is checked before anything is
//! allocated for it (a list of a million tiny entries used to take 21 times its size).
//!
//! Format: per solution, the seed as a LEB128 varint, the number of moves (one byte),
//! then each move's notation as a length byte and its UTF-8 bytes ("BS" = blue south).

use prost::encoding::{decode_varint, encode_varint};

/// The most solutions one Submit may keep: a unit's record candidates and its hardest.
pub const MAX_SOLUTIONS: usize = 4096;

/// Why packed solutions were refused.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum SolutionsError {
    #[error("more than {MAX_SOLUTIONS} solutions in one submission")]
    TooMany,
    #[error("packed solutions end in the middle of an entry")]
    Truncated,
    #[error("a move's notation is not UTF-8")]
    NotUtf8,
    #[error("a solution of more than 255 moves, or a move notation over 255 bytes")]
    TooLong,
    #[error("more solutions than the unit may keep ({allowed})")]
    BeyondUnit { allowed: usize },
    #[error("a solution of {moves} moves, beyond the {limit} moves any seed may need")]
    BeyondMoveLimit { moves: u8, limit: u8 },
}

/// Packs `solutions` (seed, moves) for a Submit.
pub fn pack(solutions: &[(u64, Vec<String>)]) -> Result<Vec<u8>, SolutionsError> {
    if solutions.len() > MAX_SOLUTIONS {
        return Err(SolutionsError::TooMany);
    }
    let mut packed = Vec::new();
    for (seed, moves) in solutions {
        encode_varint(*seed, &mut packed);
        packed.push(u8::try_from(moves.len()).map_err(|_| SolutionsError::TooLong)?);
        for notation in moves {
            packed.push(u8::try_from(notation.len()).map_err(|_| SolutionsError::TooLong)?);
            packed.extend_from_slice(notation.as_bytes());
        }
    }
    Ok(packed)
}

/// Walks packed solutions without unpacking them: at most `allowed` solutions, none of
/// more than `limit` moves. What a Submit may carry is known from its unit, so a
/// hostile one is refused before anything is allocated for it.
pub fn check_shape(mut packed: &[u8], allowed: usize, limit: u8) -> Result<(), SolutionsError> {
    let mut count = 0;
    while !packed.is_empty() {
        count += 1;
        if count > allowed.min(MAX_SOLUTIONS) {
            return Err(SolutionsError::BeyondUnit { allowed });
        }
        decode_varint(&mut packed).map_err(|_| SolutionsError::Truncated)?;
        let (&moves, rest) = packed.split_first().ok_or(SolutionsError::Truncated)?;
        if moves > limit {
            return Err(SolutionsError::BeyondMoveLimit { moves, limit });
        }
        packed = rest;
        for _ in 0..moves {
            let (&len, rest) = packed.split_first().ok_or(SolutionsError::Truncated)?;
            packed = rest
                .get(usize::from(len)..)
                .ok_or(SolutionsError::Truncated)?;
        }
    }
    Ok(())
}

/// Unpacks a Submit's solutions, refusing more than [`MAX_SOLUTIONS`].
pub fn unpack(mut packed: &[u8]) -> Result<Vec<(u64, Vec<String>)>, SolutionsError> {
    let mut solutions = Vec::new();
    while !packed.is_empty() {
        if solutions.len() == MAX_SOLUTIONS {
            return Err(SolutionsError::TooMany);
        }
        let seed = decode_varint(&mut packed).map_err(|_| SolutionsError::Truncated)?;
        let (&count, rest) = packed.split_first().ok_or(SolutionsError::Truncated)?;
        packed = rest;
        let mut moves = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            let (&len, rest) = packed.split_first().ok_or(SolutionsError::Truncated)?;
            let (notation, rest) = rest
                .split_at_checked(usize::from(len))
                .ok_or(SolutionsError::Truncated)?;
            let notation = std::str::from_utf8(notation).map_err(|_| SolutionsError::NotUtf8)?;
            moves.push(notation.to_string());
            packed = rest;
        }
        solutions.push((seed, moves));
    }
    Ok(solutions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_beyond_the_unit_is_refused_before_unpacking() {
        let solutions = vec![
            (7, vec!["BS".to_string(), "RN".to_string()]),
            (300, vec!["GW".to_string()]),
        ];
        let packed = pack(&solutions).unwrap();
        assert_eq!(check_shape(&packed, 2, 2), Ok(()));
        assert_eq!(
            check_shape(&packed, 1, 2),
            Err(SolutionsError::BeyondUnit { allowed: 1 })
        );
        assert_eq!(
            check_shape(&packed, 2, 1),
            Err(SolutionsError::BeyondMoveLimit { moves: 2, limit: 1 })
        );
        assert_eq!(
            check_shape(&packed[..packed.len() - 1], 2, 2),
            Err(SolutionsError::Truncated)
        );
    }

    #[test]
    fn solutions_round_trip_and_damage_is_refused() {
        let solutions = vec![
            (7, vec!["BS".to_string(), "RN".to_string()]),
            (u64::MAX, Vec::new()),
            (300, vec!["GW".to_string()]),
        ];
        let packed = pack(&solutions).unwrap();
        assert_eq!(unpack(&packed).unwrap(), solutions);
        for cut in 1..packed.len() {
            // Every prefix either ends on an entry or is refused, never misread.
            match unpack(&packed[..cut]) {
                Ok(prefix) => assert_eq!(prefix, solutions[..prefix.len()]),
                Err(error) => assert_eq!(error, SolutionsError::Truncated),
            }
        }
        assert_eq!(unpack(&[1, 1, 1, 0xFF]), Err(SolutionsError::NotUtf8));
    }

    #[test]
    fn more_than_the_cap_is_refused_both_ways() {
        let many: Vec<(u64, Vec<String>)> =
            (0..=MAX_SOLUTIONS as u64).map(|s| (s, vec![])).collect();
        assert_eq!(pack(&many), Err(SolutionsError::TooMany));
        let packed = pack(&many[..MAX_SOLUTIONS]).unwrap();
        assert_eq!(unpack(&packed).unwrap().len(), MAX_SOLUTIONS);
        let over = [packed, vec![5, 0]].concat();
        assert_eq!(unpack(&over), Err(SolutionsError::TooMany));
    }
}
