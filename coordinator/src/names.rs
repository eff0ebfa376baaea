//! Names that come from the network (worker names, campaign names, identities): at most
//! [`MAX_NAME`] bytes, refused beyond, and shown truncated wherever they are logged or
//! echoed, so that a huge name costs neither memory kept nor log volume.

use std::borrow::Cow;

/// The longest name the coordinator accepts, in bytes.
pub const MAX_NAME: usize = 128;

/// A name over [`MAX_NAME`] bytes.
#[derive(Debug, thiserror::Error)]
#[error("{what} {shown:?} is {len} bytes long, more than the {MAX_NAME} allowed")]
pub struct NameTooLong {
    pub what: &'static str,
    /// The name's start (see [`shown`]).
    pub shown: String,
    pub len: usize,
}

impl From<NameTooLong> for tonic::Status {
    fn from(error: NameTooLong) -> tonic::Status {
        tonic::Status::invalid_argument(error.to_string())
    }
}

/// Refuses a `what` name longer than [`MAX_NAME`] bytes.
pub fn check_name(what: &'static str, name: &str) -> Result<(), NameTooLong> {
    match name.len() {
        len if len > MAX_NAME => Err(NameTooLong {
            what,
            shown: shown(name).into_owned(),
            len,
        }),
        _ => Ok(()),
    }
}

/// `name` as logs show it: whole up to [`MAX_NAME`] bytes, else its first bytes (cut at
/// a character boundary) and an ellipsis.
pub fn shown(name: &str) -> Cow<'_, str> {
    if name.len() <= MAX_NAME {
        return Cow::Borrowed(name);
    }
    let cut = (0..=MAX_NAME)
        .rev()
        .find(|&i| name.is_char_boundary(i))
        .unwrap_or(0);
    Cow::Owned(format!("{}…", &name[..cut]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_refused_and_shown_cut_at_a_character() {
        assert!(check_name("worker name", &"a".repeat(MAX_NAME)).is_ok());
        let long = "é".repeat(MAX_NAME);
        let error = check_name("worker name", &long).unwrap_err();
        assert_eq!(error.len, 2 * MAX_NAME);
        assert_eq!(error.shown, format!("{}…", "é".repeat(MAX_NAME / 2)));
        assert!(error.to_string().len() < 3 * MAX_NAME);
        assert_eq!(shown("short"), "short");
    }
}
