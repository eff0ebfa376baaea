//! Compiles `rrm/v1/rrm.proto` with protox (no protoc binary) and keeps the encoded
//! descriptor set for gRPC reflection.

use prost::Message;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=rrm/v1/rrm.proto");
    let descriptors = protox::compile(["rrm/v1/rrm.proto"], ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("rrm_descriptor.bin"), descriptors.encode_to_vec())?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
