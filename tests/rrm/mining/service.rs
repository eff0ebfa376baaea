//! The standard gRPC services beside rrm.v1: health and reflection.

use super::*;

#[test]
fn health_and_reflection_are_served() {
    let server = Server::start(Config::default());
    block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(server.url.clone())
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        let reply = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: "rrm.v1.Mining".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            reply.status(),
            tonic_health::pb::health_check_response::ServingStatus::Serving
        );
        use tonic_reflection::pb::v1::{
            server_reflection_client::ServerReflectionClient,
            server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
            ServerReflectionRequest,
        };
        let mut reflection = ServerReflectionClient::new(channel);
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut replies = reflection
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .unwrap()
            .into_inner();
        let Some(MessageResponse::ListServicesResponse(list)) =
            replies.message().await.unwrap().unwrap().message_response
        else {
            panic!("not a service list");
        };
        let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
        for wanted in [
            "rrm.v1.Mining",
            "rrm.v1.Query",
            "rrm.v1.Campaigns",
            "grpc.health.v1.Health",
        ] {
            assert!(
                names.iter().any(|n| n == wanted),
                "{wanted} missing from {names:?}"
            );
        }
    });
}
