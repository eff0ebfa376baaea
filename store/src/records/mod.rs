//! The store's records: how each domain value is laid out on disk, and the one place
//! where the two meet (`From` to store a value, `From` or `TryFrom` to read it back).
//!
//! Postcard is not self-describing, so a record's fields and their order are its format:
//! the domain types (`rrm_model`) may change freely, these may not. A change of layout is
//! a new version beside the old one (a new kind or version byte, see the crate doc), read
//! into the same domain type. `v2` is what this code writes (store format 2); `v1` holds
//! what it still reads of older versions.

pub(crate) mod v1;
pub(crate) mod v2;

use crate::Result;
use rrm_model as model;
use serde::{de::DeserializeOwned, Serialize};

/// A domain value the store keeps, and the record it keeps it as.
pub(crate) trait Stored: Sized {
    type Record: Serialize + DeserializeOwned + for<'a> From<&'a Self>;

    fn from_record(record: Self::Record) -> Result<Self>;
}

impl Stored for model::Campaign {
    type Record = v2::Campaign;
    fn from_record(record: v2::Campaign) -> Result<Self> {
        record.try_into()
    }
}

/// The records that read back whole into their domain type.
macro_rules! stored_as {
    ($($domain:ident => $record:ident),* $(,)?) => {$(
        impl Stored for model::$domain {
            type Record = v2::$record;
            fn from_record(record: v2::$record) -> Result<Self> {
                Ok(record.into())
            }
        }
    )*};
}

stored_as! {
    UnitRecord => UnitRecord,
    HardEntry => HardEntry,
    Aggregates => Aggregates,
    ExhaustiveSpec => ExhaustiveSpec,
    ExhaustiveRecord => ExhaustiveRecord,
    Mismatch => Mismatch,
    Distrust => Distrust,
}
