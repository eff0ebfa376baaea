//! `rrm health`: asks a coordinator's gRPC health service whether it is serving, for
//! container health checks and scripts (the image carries no other probe). Exit status 0
//! when serving, 1 when not or unreachable.

use crate::client::access::ClientArgs;
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

#[derive(Args)]
pub struct HealthArgs {
    /// The coordinator's URL: its gRPC port, or its plaintext --health port.
    #[arg(long, env = "RRM_COORDINATOR", default_value = "http://127.0.0.1:7878")]
    coordinator: String,
    /// The service to ask about (default: the whole server), e.g. rrm.v1.Mining.
    #[arg(long, default_value = "")]
    service: String,
    /// Give up after this long.
    #[arg(long, value_name = "DURATION", value_parser = crate::commands::services::duration, default_value = "5s")]
    timeout: Duration,
    #[command(flatten)]
    access: ClientArgs,
}

pub fn run(args: HealthArgs) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // The channel starts its connection task on the runtime.
    let _entered = runtime.enter();
    let channel = args
        .access
        .access()?
        .channel(&args.coordinator, args.timeout)?;
    let request = HealthCheckRequest {
        service: args.service.clone(),
    };
    let answer = runtime.block_on(async {
        tokio::time::timeout(args.timeout, HealthClient::new(channel).check(request)).await
    });
    let status = match answer {
        Err(_) => Err(format!("no answer within {:?}", args.timeout)),
        Ok(Err(status)) => Err(status.message().to_string()),
        Ok(Ok(reply)) => Ok(reply.into_inner().status()),
    };
    match status {
        Ok(ServingStatus::Serving) => {
            writeln!(crate::output::stdout::lock(), "serving")?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(other) => {
            eprintln!(
                "rrm: {} is {}",
                args.coordinator,
                other.as_str_name().to_lowercase()
            );
            Ok(ExitCode::from(1))
        }
        Err(reason) => {
            eprintln!("rrm: {} is unreachable: {reason}", args.coordinator);
            Ok(ExitCode::from(1))
        }
    }
}
