//! `http_request`: any request to any endpoint of the HTTP service, in process.
//!
//! The router `ckg serve` builds (the query endpoints, the agent layer's, the guards) over a
//! small index, called with tower's `oneshot`: no socket, so the fuzzer spends its time in
//! request parsing and the handlers. Two services: an open one (SQL on, any Host) and a locked
//! one (a token, allowed hosts and origins, SQL off). The input picks the service, the method,
//! the path (an endpoint's, a near miss, or any text), the query (the endpoint's parameter
//! names with tricky or arbitrary values, or any text), headers and a body (a SQL request or
//! any bytes).
//!
//! Properties: an answer comes within the time limit; nothing is a 500 (a panic caught by the
//! guard or in a query is one); every error is a problem+json body whose `code` is one of
//! `problem::CODES` with its status; the only 5xx allowed is 504 `timeout` from SQL that the
//! time limit stopped; a 200's body is JSON (except the event stream).

use std::sync::Arc;
use std::time::Duration;

use arbitrary::{Result, Unstructured};
use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use ckg_query::http::problem::{CODES, PROBLEM_JSON};
use ckg_query::http::{ENDPOINTS, IndexState, Service, ServiceConfig};
use tower::ServiceExt;

/// The token of the locked service.
const TOKEN: &str = "s3cret-token";
const HOST: &str = "127.0.0.1:8080";
const ORIGIN: &str = "http://localhost:3000";
/// The service's own time limit for queries; the harness waits a little longer.
const QUERY_TIMEOUT: Duration = Duration::from_secs(2);
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

const PATHS: &[&str] =
    &["/", "/v1", "/v1/", "/v1/refs/", "//v1/refs", "/V1/REFS", "/v1/%72efs", "/v1/refs/..", "/v1/plan/status/x", "/mcp", "/openapi.json?"];
const PARAM_NAMES: &[&str] = &["page_size", "page_token", "target", "file", "depth", "kind", "x", "", "target[]", "TARGET"];
const VALUES: &[&str] = &[
    "",
    "0",
    "1",
    "-1",
    "65",
    "4294967296",
    "99999999999999999999",
    "1e3",
    "true",
    "yes",
    "src/app.ts",
    "src/app.ts#App.run",
    "src/app.ts#App",
    "App",
    "helper",
    "pkg.mod.Service.go",
    "pkg/mod.py",
    "os",
    "os.getcwd",
    "../../etc/passwd",
    "/etc/passwd",
    "src/../../x",
    "*",
    "src/*#create*",
    "%00",
    "%ff",
    "%2",
    "a%20b",
    "+",
    "express,flask",
    "calls,imports",
    "exact",
    "flask",
    "express-to-fastify",
];
const SQL: &[&str] = &[
    "SELECT * FROM files",
    "SELECT count(*) FROM edges",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
    "DELETE FROM files",
    "SELECT 1; DELETE FROM files",
    "PRAGMA query_only = 0",
    "EXPLAIN SELECT * FROM symbols",
    "VALUES (1), (2)",
    "SELECT randomblob(1000)",
];

/// The services and the runtime that drives them.
pub struct Harness {
    _dir: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
    open: Router,
    locked: Router,
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    pub fn new() -> Harness {
        let dir = super::project::sample_index();
        let root = dir.path().canonicalize().expect("canonical root");
        let db = ckg_core::index::default_db_path(&root);
        let open = ServiceConfig { allow_sql: true, timeout: QUERY_TIMEOUT, ..ServiceConfig::new(root.clone(), db.clone()) };
        let locked = ServiceConfig {
            timeout: QUERY_TIMEOUT,
            token: Some(TOKEN.into()),
            allowed_hosts: vec![HOST.into(), "localhost:8080".into()],
            allowed_origins: vec![ORIGIN.into()],
            ..ServiceConfig::new(root, db)
        };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        Harness { _dir: dir, runtime, open: app(open), locked: app(locked) }
    }

    /// The `http_request` target.
    pub fn fuzz(&self, data: &[u8]) {
        let mut u = Unstructured::new(data);
        let Ok((locked, request)) = request(&mut u) else { return };
        let Some(request) = request else { return };
        let app = if locked { &self.locked } else { &self.open };
        let shown = format!("{} {}", request.method(), request.uri());
        let head = request.method() == Method::HEAD;
        self.runtime.block_on(async {
            let response = tokio::time::timeout(ANSWER_WITHIN, app.clone().oneshot(request))
                .await
                .unwrap_or_else(|_| panic!("no answer within {ANSWER_WITHIN:?}: {shown}"))
                .expect("the router is infallible");
            let status = response.status();
            let media = response.headers().get(header::CONTENT_TYPE).map(|v| v.as_bytes().to_vec()).unwrap_or_default();
            if media == b"text/event-stream" {
                assert_eq!(status, StatusCode::OK, "{shown}");
                return;
            }
            let body = tokio::time::timeout(ANSWER_WITHIN, axum::body::to_bytes(response.into_body(), 1 << 24))
                .await
                .unwrap_or_else(|_| panic!("the body did not end within {ANSWER_WITHIN:?}: {shown}"))
                .expect("a body");
            let text = String::from_utf8_lossy(&body);
            if status.is_success() {
                if !(head && body.is_empty()) {
                    assert!(
                        serde_json::from_slice::<serde_json::Value>(&body).is_ok(),
                        "{shown}: a {status} whose body is not JSON: {text}"
                    );
                }
                return;
            }
            assert!(status.is_client_error() || status == StatusCode::GATEWAY_TIMEOUT, "{shown}: {status} {text}");
            assert_eq!(media, PROBLEM_JSON.as_bytes(), "{shown}: a {status} without a problem body: {text}");
            if head && body.is_empty() {
                return;
            }
            let problem: serde_json::Value =
                serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{shown}: the problem body is not JSON ({e}): {text}"));
            let code = problem["code"].as_str().unwrap_or_else(|| panic!("{shown}: a problem without a code: {text}"));
            let known = CODES.iter().find(|(c, ..)| *c == code).unwrap_or_else(|| panic!("{shown}: unknown code {code:?}"));
            assert_eq!(known.1, status.as_u16(), "{shown}: code {code} with status {status}");
            assert_eq!(problem["status"].as_u64(), Some(u64::from(status.as_u16())), "{shown}: {text}");
            if status == StatusCode::GATEWAY_TIMEOUT {
                assert!(shown.contains("/v1/sql"), "{shown}: only SQL may run into the time limit: {text}");
            }
        });
    }
}

fn app(config: ServiceConfig) -> Router {
    let service = Arc::new(Service::new(config));
    service.add_endpoints(ckg_agent::http::ENDPOINTS);
    service.set_state(IndexState::Ready);
    service.update_graph(None, None);
    let router = ckg_query::http::router(Arc::clone(&service));
    ckg_query::http::guard::protect(router, service)
}

fn all_paths() -> impl Iterator<Item = (&'static str, &'static [ckg_query::http::params::Param])> {
    ENDPOINTS.iter().chain(ckg_agent::http::ENDPOINTS).map(|e| (e.path, e.params))
}

/// A request read from the input: which service, and the request (`None` when the input
/// makes one that HTTP cannot carry, such as a header value with a newline).
fn request(u: &mut Unstructured) -> Result<(bool, Option<Request<Body>>)> {
    let locked = u.arbitrary::<bool>()?;
    let method = match u.int_in_range(0..=9u8)? {
        0..=3 => Method::GET,
        4 | 5 => Method::POST,
        6 => Method::HEAD,
        7 => [Method::PUT, Method::DELETE, Method::OPTIONS, Method::PATCH, Method::TRACE][u.choose_index(5)?].clone(),
        _ => match Method::from_bytes({
            let len = u.int_in_range(1..=8usize)?;
            u.bytes(len)?
        }) {
            Ok(m) => m,
            Err(_) => return Ok((locked, None)),
        },
    };
    let endpoints: Vec<_> = all_paths().collect();
    let (path, params) = match u.int_in_range(0..=9u8)? {
        0..=6 => {
            let (p, params) = endpoints[u.choose_index(endpoints.len())?];
            (p.to_string(), params)
        }
        7 | 8 => (PATHS[u.choose_index(PATHS.len())?].to_string(), &[][..]),
        _ => (format!("/{}", u.arbitrary::<&str>()?), &[][..]),
    };
    let query = match u.int_in_range(0..=5u8)? {
        0 => None,
        1 => Some(u.arbitrary::<&str>()?.to_string()),
        _ => {
            let mut pairs = Vec::new();
            for _ in 0..u.int_in_range(0..=5u8)? {
                let name = if !params.is_empty() && u.ratio(3, 4)? {
                    params[u.choose_index(params.len())?].name
                } else {
                    PARAM_NAMES[u.choose_index(PARAM_NAMES.len())?]
                };
                let value = match u.int_in_range(0..=3u8)? {
                    0 => u.arbitrary::<&str>()?.to_string(),
                    1 => encode(u.arbitrary::<&str>()?),
                    _ => VALUES[u.choose_index(VALUES.len())?].to_string(),
                };
                pairs.push(if u.ratio(1, 16)? { name.to_string() } else { format!("{name}={value}") });
            }
            Some(pairs.join("&"))
        }
    };
    let uri = match query {
        Some(q) => format!("{path}?{q}"),
        None => path,
    };
    let body: Vec<u8> = match u.int_in_range(0..=3u8)? {
        0 | 1 => Vec::new(),
        2 => {
            let query = if u.arbitrary()? { SQL[u.choose_index(SQL.len())?].to_string() } else { u.arbitrary::<&str>()?.to_string() };
            let mut req = serde_json::json!({ "query": query });
            if u.arbitrary()? {
                req["limit"] = u.int_in_range(0..=20_000u32)?.into();
            }
            if u.arbitrary()? {
                req["page_size"] = u.int_in_range(0..=2000u32)?.into();
            }
            if u.arbitrary()? {
                req["page_token"] = u.arbitrary::<&str>()?.into();
            }
            serde_json::to_vec(&req).unwrap_or_default()
        }
        _ => u.arbitrary::<&[u8]>()?.to_vec(),
    };
    let mut builder = Request::builder().method(method).uri(uri);
    let mut host = !locked || u.ratio(7, 8)?;
    for _ in 0..u.int_in_range(0..=5u8)? {
        let (name, value): (String, Vec<u8>) = match u.int_in_range(0..=7u8)? {
            0 => {
                host = false;
                ("host".into(), u.arbitrary::<&[u8]>()?.to_vec())
            }
            1 => ("origin".into(), if u.arbitrary()? { ORIGIN.into() } else { u.arbitrary::<&[u8]>()?.to_vec() }),
            2 => ("authorization".into(), u.arbitrary::<&[u8]>()?.to_vec()),
            3 => ("content-type".into(), if u.arbitrary()? { b"application/json".to_vec() } else { u.arbitrary::<&[u8]>()?.to_vec() }),
            4 => ("content-length".into(), u.arbitrary::<&[u8]>()?.to_vec()),
            5 => ("accept".into(), u.arbitrary::<&[u8]>()?.to_vec()),
            6 => ("x-filler".into(), vec![b'x'; u.int_in_range(0..=20_000usize)?]),
            _ => (u.arbitrary::<&str>()?.to_string(), u.arbitrary::<&[u8]>()?.to_vec()),
        };
        builder = builder.header(name, value);
    }
    if host {
        builder = builder.header(header::HOST, HOST);
    }
    if locked && u.ratio(7, 8)? {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {TOKEN}"));
    }
    if !body.is_empty() && u.ratio(3, 4)? {
        builder = builder.header(header::CONTENT_TYPE, "application/json").header(header::CONTENT_LENGTH, body.len());
    }
    Ok((locked, builder.body(Body::from(body)).ok()))
}

/// Percent-encodes every byte that is not unreserved.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
