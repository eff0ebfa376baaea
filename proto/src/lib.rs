//! The rrm gRPC protocol (package `rrm.v1`), generated from `rrm/v1/rrm.proto`.
//!
//! Only this crate and the service crates (coordinator, worker, the `rrm` binary's edge)
//! see these types; they convert to the store's and the solver's own types at once.

pub mod access;
pub mod solutions;
pub mod wire;

#[allow(clippy::all, missing_docs, unused_qualifications)]
pub mod v1 {
    tonic::include_proto!("rrm.v1");

    /// The gRPC path of every method of `rrm.v1`, e.g. `/rrm.v1.Mining/Lease`.
    pub const METHODS: &[&str] = include!(concat!(env!("OUT_DIR"), "/rrm_methods.rs"));

    /// The encoded descriptor set, for the gRPC reflection service.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/rrm_descriptor.bin"));
}

/// Largest message either side accepts: a long list of puzzles in a query's reply.
pub const MAX_MESSAGE: usize = 64 << 20;

/// Largest mining message (a Submit): a unit of 2^20 seeds (2 MiB of counts and robots
/// moved) with [`solutions::MAX_SOLUTIONS`] kept solutions, or an exhaustive result.
pub const MAX_MINING_MESSAGE: usize = 4 << 20;

/// Bytes a decoded exhaustive result may take in memory for each byte it had on the
/// wire, at worst: an empty `Placement` is 2 bytes on the wire and a 32-byte element of
/// a `Vec`, whose capacity may be twice its length.
pub const EXHAUSTIVE_DECODED_PER_BYTE: usize = 32;

/// The wire bytes of a `SubmitRequest`'s exhaustive result (every occurrence of its
/// field: prost merges them all), read from the encoded message without decoding the
/// result itself; 0 when the message does not parse (tonic then refuses it).
pub fn submit_exhaustive_bytes(message: impl prost::bytes::Buf) -> usize {
    /// `SubmitRequest` seen through its field 7 alone, each occurrence as raw bytes.
    #[derive(Clone, PartialEq, prost::Message)]
    struct ExhaustivePart {
        #[prost(bytes = "bytes", repeated, tag = "7")]
        occurrences: Vec<prost::bytes::Bytes>,
    }
    <ExhaustivePart as prost::Message>::decode(message)
        .map_or(0, |part| part.occurrences.iter().map(|b| b.len()).sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;

    #[test]
    fn an_exhaustive_results_bytes_are_read_without_decoding_it() {
        let result = v1::ExhaustiveResult {
            hardest: vec![v1::Placement::default(); 1000],
            ..Default::default()
        };
        let request = v1::SubmitRequest {
            worker_id: 7,
            move_counts: vec![3; 100],
            exhaustive: Some(result.clone()),
            ..Default::default()
        };
        let encoded = request.encode_to_vec();
        assert_eq!(submit_exhaustive_bytes(&encoded[..]), result.encoded_len());
        // Split over two occurrences of the field, which prost merges: both count.
        let mut twice = encoded.clone();
        twice.extend_from_slice(
            &v1::SubmitRequest {
                exhaustive: Some(result.clone()),
                ..Default::default()
            }
            .encode_to_vec(),
        );
        assert_eq!(
            submit_exhaustive_bytes(&twice[..]),
            2 * result.encoded_len()
        );
        let seeds = v1::SubmitRequest {
            move_counts: vec![3; 100],
            ..Default::default()
        };
        assert_eq!(submit_exhaustive_bytes(&seeds.encode_to_vec()[..]), 0);
    }
}
