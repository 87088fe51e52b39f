//! Errors on the wire: RFC 9457 `application/problem+json` bodies with a stable `code`.
//!
//! Every error the service returns, including the ones axum and the guards produce, goes out
//! in this shape; clients branch on `code` (and `status`), never on `detail`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;

/// Media type of problem bodies.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// An RFC 9457 problem.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Problem {
    /// `urn:ckg:problem:<code>`.
    #[serde(rename = "type")]
    pub type_uri: String,
    pub title: String,
    pub status: u16,
    /// What went wrong and what to do about it, for people.
    pub detail: String,
    /// A stable machine-readable code (`invalid_parameter`, `not_found`, ...).
    pub code: String,
    /// For `ambiguous_target`: the qnames the name could mean.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub candidates: Vec<String>,
    /// Seconds to wait before retrying (also sent as `Retry-After`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

/// The codes the service uses, with their status and title.
pub const CODES: &[(&str, u16, &str)] = &[
    ("invalid_parameter", 400, "Invalid parameter"),
    ("unknown_parameter", 400, "Unknown parameter"),
    ("missing_parameter", 400, "Missing parameter"),
    ("invalid_page_token", 400, "Invalid page token"),
    ("path_outside_root", 400, "Path outside the indexed root"),
    ("bad_request", 400, "Bad request"),
    ("invalid_body", 400, "Invalid request body"),
    ("missing_host", 400, "Missing Host header"),
    ("unauthorized", 401, "Missing or wrong token"),
    ("forbidden_host", 403, "Host not allowed"),
    ("forbidden_origin", 403, "Origin not allowed"),
    ("sql_disabled", 403, "SQL is disabled"),
    ("not_found", 404, "Not found"),
    ("unknown_route", 404, "Unknown route"),
    ("method_not_allowed", 405, "Method not allowed"),
    ("request_timeout", 408, "Request timeout"),
    ("page_token_expired", 410, "Page token expired"),
    ("body_too_large", 413, "Request body too large"),
    ("uri_too_long", 414, "URI too long"),
    ("unsupported_media_type", 415, "Unsupported media type"),
    ("ambiguous_target", 422, "Ambiguous target"),
    ("headers_too_large", 431, "Request header fields too large"),
    ("internal", 500, "Internal error"),
    ("overloaded", 503, "Too many requests in flight"),
    ("not_ready", 503, "No index loaded yet"),
    ("index_unavailable", 503, "Index unavailable"),
    ("timeout", 504, "Query timed out"),
];

impl Problem {
    /// A problem with one of the [`CODES`].
    pub fn new(code: &str, detail: impl Into<String>) -> Problem {
        let (code, status, title) = CODES.iter().copied().find(|c| c.0 == code).unwrap_or(("internal", 500, "Internal error"));
        Problem {
            type_uri: format!("urn:ckg:problem:{code}"),
            title: title.to_string(),
            status,
            detail: detail.into(),
            code: code.to_string(),
            candidates: Vec::new(),
            retry_after: None,
        }
    }

    pub fn retry_after(mut self, seconds: u64) -> Problem {
        self.retry_after = Some(seconds);
        self
    }

    /// The problem for a status that axum or hyper produced without a body of ours.
    pub fn for_status(status: StatusCode) -> Problem {
        let code = match status.as_u16() {
            404 => "unknown_route",
            405 => "method_not_allowed",
            408 => "request_timeout",
            413 => "body_too_large",
            414 => "uri_too_long",
            415 => "unsupported_media_type",
            431 => "headers_too_large",
            s if s >= 500 => "internal",
            _ => "bad_request",
        };
        let mut p = Problem::new(code, status.canonical_reason().unwrap_or("error").to_string());
        p.status = status.as_u16();
        p
    }
}

impl From<crate::Error> for Problem {
    fn from(e: crate::Error) -> Problem {
        use crate::Error as E;
        match e {
            E::NotFound(_) => Problem::new("not_found", e.to_string()),
            E::Ambiguous { name, candidates } => {
                let mut p = Problem::new(
                    "ambiguous_target",
                    format!("{name:?} names {} symbols; ask again with one of the candidates' qnames", candidates.len()),
                );
                p.candidates = candidates;
                p
            }
            E::Invalid(msg) => Problem::new("invalid_parameter", msg),
            E::Timeout(_) => Problem::new("timeout", format!("{e}; narrow the query (smaller depth, a more specific target)")),
            E::PageToken(_) => Problem::new("invalid_page_token", e.to_string()),
            E::PageTokenExpired { .. } => Problem::new("page_token_expired", e.to_string()),
            E::Core(ckg_core::Error::NoIndex(_) | ckg_core::Error::NoIndexAt(_)) => Problem::new("not_ready", e.to_string()).retry_after(1),
            E::Core(ckg_core::Error::Locked { .. }) => Problem::new("index_unavailable", e.to_string()).retry_after(1),
            E::Core(ckg_core::Error::Invalid(msg)) if msg.contains("schema version") => {
                Problem::new("index_unavailable", msg).retry_after(1)
            }
            E::Core(other) => {
                eprintln!("ckg serve: error: {other}");
                Problem::new("internal", "the index could not be read; see the server's log")
            }
        }
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = serde_json::to_vec(&self).unwrap_or_default();
        let mut res = (status, body).into_response();
        let headers = res.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if let Some(s) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        if self.status == 401 {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"ckg\""));
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_unique_and_client_codes_are_4xx() {
        let mut seen = std::collections::HashSet::new();
        for (code, status, _) in CODES {
            assert!(seen.insert(*code), "{code} twice");
            assert!((400..600).contains(status));
        }
        assert_eq!(Problem::new("ambiguous_target", "x").status, 422);
        assert_eq!(Problem::new("no such code", "x").code, "internal");
    }
}
