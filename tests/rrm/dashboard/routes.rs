//! What the server answers outside a campaign's pages: JSON errors under `/api`, an
//! HTML page for an unknown campaign, and the style sheet.

use super::*;
use rrm_coordinator::Config;
use rrm_store::Store;

#[test]
fn unknown_api_paths_answer_json_and_pages_html() {
    let data = tempfile::tempdir().unwrap();
    let coordinator =
        Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap());
    let (runtime, address, stop, server) = serve(coordinator);
    for path in ["/api/nothing-here", "/api/campaign/none/stats"] {
        let (status, content_type, body) = get(address, path);
        assert_eq!(status, 404, "{path}");
        assert!(
            content_type.starts_with("application/json"),
            "{path}: {content_type}"
        );
        let error: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(error["error"].is_string(), "{path}: {body}");
    }
    let (status, content_type, body) = get(address, "/campaign/none");
    assert_eq!((status, content_type.starts_with("text/html")), (404, true));
    assert!(body.contains("unknown campaign"), "{body}");
    let (status, content_type, body) = get(address, "/assets/dashboard.css");
    assert_eq!(
        (status, content_type.as_str()),
        (200, "text/css; charset=utf-8")
    );
    assert!(body.contains(".hardest"));
    let _ = stop.send(());
    runtime.block_on(server).unwrap().unwrap();
}
