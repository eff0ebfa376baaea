//! The dashboard's door when reads need a token: a request passes with a read (or admin)
//! token as a bearer header or as the `rrm_token` cookie that `/login` sets. Pages send a
//! visitor without one to the login form, `/api/` answers 401 in JSON. Assets and the
//! login form itself are open.

use super::{escape, page};
use crate::auth::{Keyring, Roles};
use axum::extract::{Form, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Json, Redirect, Response};
use rrm_proto::access::bearer_token;
use serde::Deserialize;

/// The cookie holding the token of a logged-in browser.
const COOKIE: &str = "rrm_token";

/// What the door needs to know.
#[derive(Clone)]
pub(super) struct Door {
    pub keyring: Keyring,
    /// Served over TLS: cookies are marked `Secure`.
    pub secure: bool,
}

/// The token a request shows: its bearer header, else its cookie.
fn presented(headers: &HeaderMap) -> Option<&str> {
    if let Some(value) = headers.get(header::AUTHORIZATION) {
        return value.to_str().ok().and_then(bearer_token);
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|cookies| cookies.split(';'))
        .find_map(|cookie| cookie.trim().strip_prefix(COOKIE)?.strip_prefix('='))
}

/// Middleware: lets readers through (or everyone, when reads need no token).
pub(super) async fn require_reader(
    State(door): State<Door>,
    request: Request,
    next: Next,
) -> Response {
    match door
        .keyring
        .check(presented(request.headers()), Roles::Reader)
    {
        Ok(_) => next.run(request).await,
        Err(refusal) => {
            tracing::warn!(path = %request.uri().path(), "refused a dashboard request: {refusal}");
            let path = request.uri().path();
            if path.starts_with("/api/") || path == "/metrics" {
                let body = Json(super::api::ErrorJson {
                    error: refusal.to_string(),
                });
                let challenge = [(header::WWW_AUTHENTICATE, "Bearer")];
                (StatusCode::UNAUTHORIZED, challenge, body).into_response()
            } else {
                let next = request.uri().path_and_query().map_or("/", |p| p.as_str());
                Redirect::to(&format!("/login?next={}", encode(next))).into_response()
            }
        }
    }
}

#[derive(Deserialize)]
pub(super) struct ReturnTo {
    next: Option<String>,
}

/// Only paths of this site are followed after a login: a `/` then plain URL characters
/// (no `//host`, no backslash, tab or other byte a browser might drop or reinterpret).
fn local_path(next: Option<&str>) -> &str {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"/-_.~%?=&+:".contains(&b);
    match next {
        Some(path)
            if path.starts_with('/') && !path.starts_with("//") && path.bytes().all(plain) =>
        {
            path
        }
        _ => "/",
    }
}

fn form(next: &str, message: Option<&str>) -> String {
    let message = message.map_or_else(String::new, |m| {
        format!("<p class=\"error\">{}</p>", escape(m))
    });
    format!(
        r#"{message}<form method="post" action="/login">
<input type="hidden" name="next" value="{next}">
<label>Read token <input type="password" name="token" autocomplete="current-password" required></label>
<button type="submit">Log in</button>
</form>"#,
        next = escape(next)
    )
}

pub(super) async fn login_form(Query(query): Query<ReturnTo>) -> Html<String> {
    Html(page(
        "Log in",
        &form(local_path(query.next.as_deref()), None),
        None,
    ))
}

#[derive(Deserialize)]
pub(super) struct Login {
    token: String,
    next: Option<String>,
}

/// Checks the token and, if it may read, keeps it in an HTTP-only cookie.
pub(super) async fn login(State(door): State<Door>, Form(login): Form<Login>) -> Response {
    let next = local_path(login.next.as_deref()).to_string();
    let token = login.token.trim();
    let cookie_safe = token
        .bytes()
        .all(|b| b.is_ascii_graphic() && b != b';' && b != b',');
    let allowed =
        cookie_safe && matches!(door.keyring.check(Some(token), Roles::Reader), Ok(Some(_)));
    if !allowed {
        tracing::warn!("refused a dashboard login");
        let body = page(
            "Log in",
            &form(&next, Some("That token may not read here.")),
            None,
        );
        return (StatusCode::UNAUTHORIZED, Html(body)).into_response();
    }
    let secure = if door.secure { "; Secure" } else { "" };
    let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict{secure}");
    let mut response = Redirect::to(&next).into_response();
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// Percent-encodes a path for a query parameter.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_followed() {
        assert_eq!(local_path(Some("/campaign/x")), "/campaign/x");
        for bad in [
            "//evil.example",
            "https://evil.example",
            "evil",
            "/\\evil",
            "/\t/evil.example",
        ] {
            assert_eq!(local_path(Some(bad)), "/", "{bad}");
        }
        assert_eq!(local_path(None), "/");
    }

    #[test]
    fn cookies_and_headers_present_tokens() {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, "a=b; rrm_token=rrm_x".parse().unwrap());
        assert_eq!(presented(&headers), Some("rrm_x"));
        headers.insert(header::AUTHORIZATION, "Bearer rrm_y".parse().unwrap());
        assert_eq!(presented(&headers), Some("rrm_y"));
        assert_eq!(encode("/c/a b?x=1&y"), "/c/a%20b%3Fx%3D1%26y");
    }
}
