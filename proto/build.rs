//! Compiles `rrm/v1/rrm.proto` with protox (no protoc binary), keeps the encoded
//! descriptor set for gRPC reflection and lists the gRPC paths of its methods.

use prost::Message;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=rrm/v1/rrm.proto");
    let descriptors = protox::compile(["rrm/v1/rrm.proto"], ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("rrm_descriptor.bin"), descriptors.encode_to_vec())?;
    let mut paths = String::new();
    for file in &descriptors.file {
        for service in &file.service {
            for method in &service.method {
                paths.push_str(&format!(
                    "    \"/{}.{}/{}\",\n",
                    file.package(),
                    service.name(),
                    method.name()
                ));
            }
        }
    }
    std::fs::write(out.join("rrm_methods.rs"), format!("&[\n{paths}]"))?;
    // Packed solutions stay a slice of the received message rather than a copy.
    tonic_prost_build::configure()
        .bytes(".rrm.v1.SubmitRequest.solutions")
        .compile_fds(descriptors)?;
    Ok(())
}
