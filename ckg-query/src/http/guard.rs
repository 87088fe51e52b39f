//! What stands between the network and the router: panics caught, sizes capped, `Host` and
//! `Origin` checked (DNS-rebinding protection for a loopback service), the bearer token
//! compared in constant time, and every error turned into a problem+json body.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt;

use super::problem::{PROBLEM_JSON, Problem};
use super::{MAX_BODY, Service};

/// The longest request target (path and query) accepted.
pub const MAX_URI: usize = 8 * 1024;
/// The most header bytes (names and values) accepted.
pub const MAX_HEADERS: usize = 16 * 1024;

/// Wraps a router with the guards, outermost first: panic catching, problem bodies for bare
/// errors, size limits, `Host`/`Origin` checks, the token.
pub fn protect(router: Router, service: Arc<Service>) -> Router {
    router
        .layer(middleware::from_fn_with_state(Arc::clone(&service), authorize))
        .layer(middleware::from_fn_with_state(service, check_host_and_origin))
        .layer(middleware::from_fn(limit_sizes))
        .layer(middleware::from_fn(problem_bodies))
        .layer(middleware::from_fn(catch_panics))
}

async fn catch_panics(req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    match std::panic::AssertUnwindSafe(next.run(req)).catch_unwind().await {
        Ok(res) => res,
        Err(_) => {
            eprintln!("ckg serve: a handler panicked on {path}; the server goes on");
            Problem::new("internal", "the request failed inside the server; see the server's log").into_response()
        }
    }
}

/// Errors produced below us without a problem body (axum's rejections) get one.
async fn problem_bodies(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let status = res.status();
    if status.is_client_error() || status.is_server_error() {
        let is_problem = res.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes() == PROBLEM_JSON.as_bytes());
        if !is_problem {
            let mut p = Problem::for_status(status);
            if let Some(ra) = res.headers().get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()?.parse().ok()) {
                p = p.retry_after(ra);
            }
            return p.into_response();
        }
    }
    res
}

async fn limit_sizes(req: Request, next: Next) -> Response {
    let uri_len = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if uri_len > MAX_URI {
        return Problem::new("uri_too_long", format!("the request target is {uri_len} bytes; at most {MAX_URI} are accepted"))
            .into_response();
    }
    let header_bytes: usize = req.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum();
    if header_bytes > MAX_HEADERS {
        return Problem::new("headers_too_large", format!("the headers take {header_bytes} bytes; at most {MAX_HEADERS} are accepted"))
            .into_response();
    }
    if let Some(len) = req.headers().get(header::CONTENT_LENGTH) {
        match len.to_str().ok().and_then(|v| v.parse::<u64>().ok()) {
            Some(n) if n > MAX_BODY as u64 => {
                return Problem::new("body_too_large", format!("the body is {n} bytes; at most {MAX_BODY} are accepted")).into_response();
            }
            Some(_) => {}
            None => return Problem::new("bad_request", "Content-Length is not a number").into_response(),
        }
    }
    // Bodies are only read by POST endpoints; a GET with a body is refused rather than drained.
    if req.method() == axum::http::Method::GET
        && (req.headers().get(header::CONTENT_LENGTH).is_some_and(|v| v.as_bytes() != b"0")
            || req.headers().contains_key(header::TRANSFER_ENCODING))
    {
        return Problem::new("bad_request", "GET requests take no body").into_response();
    }
    next.run(req).await
}

/// The host part of a `Host` header or an origin (`http://host:port` -> `host:port`).
fn authority(value: &str) -> &str {
    let v = value.split_once("://").map_or(value, |(_, rest)| rest);
    v.split('/').next().unwrap_or(v)
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Result<Option<&str>, Problem> {
    match headers.get(&name) {
        None => Ok(None),
        Some(v) => v.to_str().map(Some).map_err(|_| Problem::new("bad_request", format!("the {name} header is not ASCII"))),
    }
}

async fn check_host_and_origin(State(s): State<Arc<Service>>, req: Request, next: Next) -> Response {
    let c = &s.config;
    let host = match header_str(req.headers(), header::HOST) {
        Ok(h) => h.map(str::to_ascii_lowercase),
        Err(p) => return p.into_response(),
    };
    if !c.allowed_hosts.is_empty() {
        match &host {
            None => return Problem::new("missing_host", "HTTP/1.1 requests must carry a Host header").into_response(),
            Some(h) if !c.allowed_hosts.iter().any(|a| a == h) => {
                return Problem::new(
                    "forbidden_host",
                    format!("Host {h:?} is not allowed (this service answers to {})", c.allowed_hosts.join(", ")),
                )
                .into_response();
            }
            Some(_) => {}
        }
    }
    match header_str(req.headers(), header::ORIGIN) {
        Err(p) => return p.into_response(),
        Ok(Some(origin)) => {
            let o = origin.to_ascii_lowercase();
            let same_host = o.starts_with("http://") && c.allowed_hosts.iter().any(|a| a == authority(&o));
            let listed = c.allowed_origins.iter().any(|a| a.eq_ignore_ascii_case(&o));
            if !same_host && !listed {
                return Problem::new("forbidden_origin", format!("Origin {origin:?} is not allowed")).into_response();
            }
        }
        Ok(None) => {}
    }
    next.run(req).await
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn authorize(State(s): State<Arc<Service>>, req: Request<Body>, next: Next) -> Response {
    let Some(token) = &s.config.token else { return next.run(req).await };
    if req.uri().path() == "/v1/health" {
        return next.run(req).await;
    }
    // The scheme's name is case-insensitive (RFC 9110, 11.1).
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .and_then(|(scheme, credentials)| scheme.eq_ignore_ascii_case("bearer").then_some(credentials));
    match given {
        Some(g) if constant_time_eq(g.trim().as_bytes(), token.as_bytes()) => next.run(req).await,
        Some(_) => Problem::new("unauthorized", "the bearer token is wrong").into_response(),
        None => Problem::new("unauthorized", "send Authorization: Bearer <token> (the token of --token-file)").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorities() {
        assert_eq!(authority("http://127.0.0.1:7420"), "127.0.0.1:7420");
        assert_eq!(authority("localhost:7420"), "localhost:7420");
        assert_eq!(authority("http://evil.example/x"), "evil.example");
    }

    #[test]
    fn constant_time_comparison() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(constant_time_eq(b"", b""));
    }
}
