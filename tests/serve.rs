//! End-to-end tests of `ckg serve` over real HTTP on an ephemeral loopback port: every
//! endpoint against the CLI's `--json` (one serializer), every error class, paging, the
//! token, Host/Origin checks, events after an edit, consistent answers during a burst of
//! edits under `--watch`, graceful shutdown, and every answer validated against the
//! service's own OpenAPI document.

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::http::{Response, Server, get, request, send_raw};
use common::{Repo, copy_dir};
use serde_json::{Value, json};

fn fixture() -> Repo {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/query/repo"), repo.path());
    repo.index_json(&[]);
    repo
}

/// Validates answers against `/openapi.json`: a 200 against its endpoint's answer schema,
/// anything else against the Problem schema.
struct Checker {
    doc: Value,
    checked: Mutex<usize>,
}

impl Checker {
    fn new(server: &Server) -> Checker {
        let r = server.get("/openapi.json");
        assert_eq!(r.status, 200);
        let doc = r.json();
        assert_eq!(doc["openapi"], "3.1.0");
        Checker { doc, checked: Mutex::new(0) }
    }

    fn check(&self, method: &str, path: &str, r: &Response) {
        let components = &self.doc["components"]["schemas"];
        let schema = if r.status == 200 {
            assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
            self.doc["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"].clone()
        } else {
            assert_eq!(r.header("content-type"), Some("application/problem+json"), "{method} {path}: {}", r.text());
            json!({"$ref": "#/components/schemas/Problem"})
        };
        assert!(!schema.is_null(), "{method} {path} is not in the OpenAPI document");
        let errors = common::schema::validate(&schema, &r.json(), components, "$");
        assert!(errors.is_empty(), "{method} {path} ({}): {errors:#?}\n{}", r.status, r.text());
        *self.checked.lock().unwrap() += 1;
    }

    /// GET, check against the document, return.
    fn get(&self, server: &Server, target: &str) -> Response {
        let r = server.get(target);
        let path = target.split('?').next().unwrap();
        self.check("get", path, &r);
        r
    }
}

fn cli_json(repo: &Repo, args: &[&str]) -> Value {
    let mut full = vec!["query"];
    full.extend_from_slice(args);
    full.push("--json");
    let out = repo.ckg(&full);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{args:?}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn every_query_answers_as_the_cli_does() {
    let repo = fixture();
    let server = Server::start(repo.path(), &["--allow-sql"]);
    let checker = Checker::new(&server);
    let cases: &[(&str, &[&str])] = &[
        ("/v1/impact?target=express&depth=2&page_size=1000", &["impact", "express", "--depth", "2"]),
        ("/v1/impact?target=src%2Futil%2Flog.ts%23logger&page_size=1000", &["impact", "src/util/log.ts#logger"]),
        (
            "/v1/impact?target=py.models.User.greet&min_evidence=exact&page_size=1000",
            &["impact", "py.models.User.greet", "--min-evidence", "exact"],
        ),
        ("/v1/impact?target=express&kind=imports&page_size=1000", &["impact", "express", "--kind", "imports"]),
        ("/v1/symbols?pattern=Router&page_size=1000", &["symbols", "Router"]),
        ("/v1/symbols?pattern=*e*&kind=function&page_size=1000", &["symbols", "*e*", "--kind", "function"]),
        ("/v1/def?file=src/app.ts&line=15&col=10", &["def", "src/app.ts:15:10"]),
        ("/v1/def?file=src/app.ts&line=3&col=1", &["def", "src/app.ts:3:1"]),
        ("/v1/refs?target=handler&page_size=1000", &["refs", "handler"]),
        ("/v1/callers?target=helper&depth=3&page_size=1000", &["callers", "helper", "--depth", "3"]),
        ("/v1/callees?target=src%2Fapp.ts%23createApp&page_size=1000", &["callees", "src/app.ts#createApp"]),
        ("/v1/deps?file=src/app.ts&page_size=1000", &["deps", "src/app.ts"]),
        ("/v1/rdeps?file=src/app.ts&page_size=1000", &["rdeps", "src/app.ts"]),
        ("/v1/path?from=src/main.ts&to=express.static", &["path", "src/main.ts", "express.static"]),
        ("/v1/cycles?page_size=1000", &["cycles"]),
        ("/v1/unused?page_size=1000", &["unused"]),
        ("/v1/unused?include_exported=true&entry=src/main.ts&page_size=1000", &["unused", "--include-exported", "--entry", "src/main.ts"]),
    ];
    for (target, args) in cases {
        let r = checker.get(&server, target);
        assert_eq!(r.status, 200, "{target}: {}", r.text());
        assert_eq!(r.json(), cli_json(&repo, args), "{target} differs from ckg query {args:?} --json");
    }
    let sql = "SELECT kind, count(*) AS n FROM edges GROUP BY kind ORDER BY kind";
    let body = serde_json::to_vec(&json!({"query": sql, "page_size": 1000})).unwrap();
    let r = request(server.port, "POST", "/v1/sql", &[("Content-Type", "application/json")], &body);
    checker.check("post", "/v1/sql", &r);
    assert_eq!(r.json(), cli_json(&repo, &["sql", sql]));

    for target in ["/v1/status", "/v1/health", "/v1/ready"] {
        let r = checker.get(&server, target);
        assert_eq!(r.status, 200, "{target}");
    }
    let status = server.get("/v1/status").json();
    assert_eq!(status["generation"], 1);
    assert_eq!(status["index"]["state"], "ready");
    assert_eq!(status["totals"]["files"], 7);
    assert_eq!(status["stale"]["stale"], false);
    assert!(*checker.checked.lock().unwrap() >= 20);
}

#[test]
fn errors_are_problems_with_stable_codes() {
    let repo = fixture();
    repo.write("src/other.ts", "export function handler() { return 2; }\n");
    repo.index_json(&[]);
    let server = Server::start(repo.path(), &[]);
    let checker = Checker::new(&server);
    let cases: &[(&str, u16, &str)] = &[
        ("/v1/def?file=src/app.ts&line=0&col=1", 400, "invalid_parameter"),
        ("/v1/def?file=src/app.ts&line=x&col=1", 400, "invalid_parameter"),
        ("/v1/def?file=src/app.ts&line=1", 400, "missing_parameter"),
        ("/v1/symbols?pattern=x&kind=gizmo", 400, "invalid_parameter"),
        ("/v1/impact?target=express&depth=65", 400, "invalid_parameter"),
        ("/v1/impact?target=express&min_evidence=sure", 400, "invalid_parameter"),
        ("/v1/impact?target=express&kind=calls,teleports", 400, "invalid_parameter"),
        ("/v1/impact?target=%ff%fe", 400, "invalid_parameter"),
        ("/v1/impact?target=a%00b", 400, "invalid_parameter"),
        ("/v1/impact?target=express&bogus=1", 400, "unknown_parameter"),
        ("/v1/impact?target=express&page_size=1001", 400, "invalid_parameter"),
        ("/v1/impact?target=express&page_token=nonsense", 400, "invalid_page_token"),
        ("/v1/deps?file=../../etc/passwd", 400, "path_outside_root"),
        ("/v1/def?file=/etc/passwd&line=1&col=1", 400, "path_outside_root"),
        ("/v1/impact?target=..%2F..%2Fetc%2Fpasswd", 400, "path_outside_root"),
        ("/v1/impact?target=noSuchThing", 404, "not_found"),
        ("/v1/deps?file=missing.ts", 404, "not_found"),
        ("/v1/nope", 404, "unknown_route"),
        ("/v1/callers?target=handler", 422, "ambiguous_target"),
    ];
    for (target, status, code) in cases {
        let r = checker.get(&server, target);
        assert_eq!((r.status, r.json()["code"].as_str().unwrap_or("")), (*status, *code), "{target}: {}", r.text());
        assert_eq!(r.json()["type"], format!("urn:ckg:problem:{code}"));
    }
    let r = server.get("/v1/callers?target=handler");
    assert_eq!(
        r.json()["candidates"],
        json!(["src/app.ts#handler (function, src/app.ts:14)", "src/other.ts#handler (function, src/other.ts:1)"])
    );

    let method = request(server.port, "DELETE", "/v1/impact?target=express", &[], b"");
    checker.check("get", "/v1/impact", &method);
    assert_eq!((method.status, method.json()["code"].clone()), (405, json!("method_not_allowed")));
    let sql_off = request(server.port, "POST", "/v1/sql", &[("Content-Type", "application/json")], br#"{"query":"SELECT 1"}"#);
    assert_eq!((sql_off.status, sql_off.json()["code"].clone()), (403, json!("sql_disabled")));
    let long_uri = server.get(&format!("/v1/symbols?pattern={}", "a".repeat(9000)));
    assert_eq!((long_uri.status, long_uri.json()["code"].clone()), (414, json!("uri_too_long")));
    let big_header = "x".repeat(20_000);
    let headers = request(server.port, "GET", "/v1/health", &[("X-Filler", &big_header)], b"");
    assert_eq!((headers.status, headers.json()["code"].clone()), (431, json!("headers_too_large")));
}

#[test]
fn sql_limits_body_size_time_and_concurrency() {
    let repo = fixture();
    // The time limit leaves the shedding check below room on a slow machine.
    let server = Server::start(repo.path(), &["--allow-sql", "--timeout-ms", "2000", "--max-concurrency", "1"]);
    let checker = Checker::new(&server);
    let post = |body: &[u8], ct: &str| request(server.port, "POST", "/v1/sql", &[("Content-Type", ct)], body);
    let cases: Vec<(Response, u16, &str)> = vec![
        (post(&vec![b' '; 70 * 1024], "application/json"), 413, "body_too_large"),
        (post(br#"{"query": "DELETE FROM edges"}"#, "application/json"), 400, "invalid_parameter"),
        (post(br#"{"query": "BEGIN IMMEDIATE"}"#, "application/json"), 400, "invalid_parameter"),
        (post(br#"{"query": "PRAGMA query_only = 0"}"#, "application/json"), 400, "invalid_parameter"),
        (post(br#"{"query": "SELECT 1", "extra": 1}"#, "application/json"), 400, "invalid_body"),
        (post(b"{not json", "application/json"), 400, "invalid_body"),
        (post(&[b'['; 10_000], "application/json"), 400, "invalid_body"),
        (post(br#"{"query": "SELECT 1"}"#, "text/plain"), 415, "unsupported_media_type"),
        (post(br#"{"query": "SELECT 1", "limit": 0}"#, "application/json"), 400, "invalid_parameter"),
    ];
    for (r, status, code) in cases {
        checker.check("post", "/v1/sql", &r);
        assert_eq!((r.status, r.json()["code"].as_str().unwrap()), (status, code), "{}", r.text());
    }
    // A statement that would run forever is interrupted at the time limit.
    let forever = br#"{"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"}"#;
    let t = Instant::now();
    let r = post(forever, "application/json");
    assert_eq!((r.status, r.json()["code"].clone()), (504, json!("timeout")), "{}", r.text());
    assert!((Duration::from_millis(1900)..Duration::from_secs(5)).contains(&t.elapsed()), "{:?}", t.elapsed());
    // With one query slot busy, another request is shed with Retry-After, not queued.
    let port = server.port;
    let busy = std::thread::spawn(move || request(port, "POST", "/v1/sql", &[("Content-Type", "application/json")], forever));
    // Asked until the busy statement holds the slot (it holds it for the time limit).
    let shed = loop {
        std::thread::sleep(Duration::from_millis(50));
        let r = server.get("/v1/symbols?pattern=Router");
        if r.status != 200 || busy.is_finished() {
            break r;
        }
    };
    assert_eq!((shed.status, shed.json()["code"].clone()), (503, json!("overloaded")), "{}", shed.text());
    assert_eq!(shed.header("retry-after"), Some("1"));
    assert_eq!(busy.join().unwrap().status, 504);
    // And the server answers normally afterwards.
    assert_eq!(server.get("/v1/symbols?pattern=Router").status, 200);
}

#[test]
fn paging_walks_a_long_answer_once() {
    let repo = Repo::new();
    let mut hub = String::from("export function hub() { return 1; }\n");
    for i in 0..40 {
        hub.push_str(&format!("export function c{i}() {{ return hub(); }}\n"));
    }
    repo.write("src/hub.ts", hub);
    repo.index_json(&[]);
    let server = Server::start(repo.path(), &[]);
    let checker = Checker::new(&server);
    let all = checker.get(&server, "/v1/callers?target=src%2Fhub.ts%23hub&page_size=1000").json();
    assert_eq!(all["edges"].as_array().unwrap().len(), 40);
    assert!(all.get("next_page_token").is_none());
    let mut edges = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut target = "/v1/callers?target=src%2Fhub.ts%23hub&page_size=7".to_string();
        if let Some(t) = &token {
            target.push_str(&format!("&page_token={t}"));
        }
        let page = checker.get(&server, &target).json();
        pages += 1;
        edges.extend(page["edges"].as_array().unwrap().iter().cloned());
        match page["next_page_token"].as_str() {
            Some(t) => token = Some(t.to_string()),
            None => break,
        }
    }
    assert_eq!(pages, 6);
    assert_eq!(Value::Array(edges), all["edges"]);
    // A token continues only the query it came from.
    let first = server.get("/v1/callers?target=src%2Fhub.ts%23hub&page_size=7").json();
    let t = first["next_page_token"].as_str().unwrap();
    let other = server.get(&format!("/v1/refs?target=src%2Fhub.ts%23hub&page_size=7&page_token={t}"));
    assert_eq!(other.json()["code"], "invalid_page_token");
}

#[test]
fn a_page_token_from_an_older_generation_is_gone() {
    let repo = fixture();
    let server = Server::start(repo.path(), &["--watch"]);
    let first = server.get("/v1/symbols?pattern=*&page_size=2").json();
    let token = first["next_page_token"].as_str().unwrap().to_string();
    let g = first["generation"].as_i64().unwrap();
    repo.write("src/new.ts", "export function fresh() { return 1; }\n");
    server.wait_generation_after(g);
    let r = server.get(&format!("/v1/symbols?pattern=*&page_size=2&page_token={token}"));
    assert_eq!((r.status, r.json()["code"].clone()), (410, json!("page_token_expired")), "{}", r.text());
}

#[test]
fn the_token_is_required_and_checked() {
    let repo = fixture();
    let token_file = repo.path().join("token.txt");
    std::fs::write(&token_file, "s3cret-token-for-tests\n").unwrap();
    let server = Server::start_with_token(repo.path(), &token_file);
    let port = server.port;
    let none = get(port, "/v1/symbols?pattern=Router");
    assert_eq!((none.status, none.json()["code"].clone()), (401, json!("unauthorized")));
    assert!(none.header("www-authenticate").unwrap().starts_with("Bearer"));
    let wrong = request(port, "GET", "/v1/symbols?pattern=Router", &[("Authorization", "Bearer s3cret-token-for-testz")], b"");
    assert_eq!(wrong.status, 401);
    let short = request(port, "GET", "/v1/symbols?pattern=Router", &[("Authorization", "Bearer s3cret")], b"");
    assert_eq!(short.status, 401);
    let right = request(port, "GET", "/v1/symbols?pattern=Router", &[("Authorization", "Bearer s3cret-token-for-tests")], b"");
    assert_eq!(right.status, 200, "{}", right.text());
    assert_eq!(get(port, "/v1/health").status, 200, "liveness needs no token");
}

trait StartWithToken {
    fn start_with_token(root: &Path, token: &Path) -> Server;
}

impl StartWithToken for Server {
    fn start_with_token(root: &Path, token: &Path) -> Server {
        let server = Server::spawn(root, &["--token-file", token.to_str().unwrap()]);
        let t = Instant::now();
        let auth = format!("Bearer {}", std::fs::read_to_string(token).unwrap().trim());
        while request(server.port, "GET", "/v1/ready", &[("Authorization", &auth)], b"").status != 200 {
            assert!(t.elapsed() < Duration::from_secs(30));
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }
}

#[test]
fn host_and_origin_are_checked_on_loopback() {
    let repo = fixture();
    let server = Server::start(repo.path(), &["--allow-origin", "http://localhost:3000"]);
    let port = server.port;
    let send = |host: &str, origin: Option<&str>| {
        let mut req = format!("GET /v1/symbols?pattern=Router HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
        if let Some(o) = origin {
            req.push_str(&format!("Origin: {o}\r\n"));
        }
        req.push_str("\r\n");
        let r = send_raw(port, req.as_bytes(), Duration::from_secs(10)).unwrap();
        common::http::conforms(port, "GET", "/v1/symbols", &[], &r);
        r
    };
    assert_eq!(send(&format!("localhost:{port}"), None).status, 200);
    assert_eq!(send(&format!("[::1]:{port}"), None).status, 200);
    assert_eq!(send(&format!("127.0.0.1:{port}"), Some(&format!("http://127.0.0.1:{port}"))).status, 200);
    assert_eq!(send(&format!("127.0.0.1:{port}"), Some("http://localhost:3000")).status, 200);
    let rebound = send("attacker.example", None);
    assert_eq!((rebound.status, rebound.json()["code"].clone()), (403, json!("forbidden_host")));
    let cross = send(&format!("127.0.0.1:{port}"), Some("https://attacker.example"));
    assert_eq!((cross.status, cross.json()["code"].clone()), (403, json!("forbidden_origin")));
    let no_host = send_raw(port, b"GET /v1/health HTTP/1.0\r\n\r\n", Duration::from_secs(10)).unwrap();
    common::http::conforms(port, "GET", "/v1/health", &[], &no_host);
    assert_eq!((no_host.status, no_host.json()["code"].clone()), (400, json!("missing_host")));
}

#[test]
fn a_non_loopback_address_needs_a_token() {
    let repo = fixture();
    let out = repo.ckg(&["serve", ".", "--addr", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("without a token: pass --token-file"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn without_an_index_the_server_indexes_first_then_serves() {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/query/repo"), repo.path());
    let server = Server::start(repo.path(), &[]);
    assert_eq!(server.get("/v1/symbols?pattern=Router").status, 200);
    assert!(server.stderr().contains("indexing"), "{}", server.stderr());
    assert_eq!(server.get("/v1/status").json()["last_update"]["files_parsed"], 7);
}

/// Reads server-sent events from a stream until `want` events named `generation` arrived.
fn read_events(port: u16, want: usize, timeout: Duration, after_connect: impl FnOnce()) -> Vec<Value> {
    use std::io::{BufRead, BufReader, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(timeout)).unwrap();
    write!(s, "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n").unwrap();
    let mut reader = BufReader::new(s);
    let mut events = Vec::new();
    let mut name = String::new();
    let mut after = Some(after_connect);
    let mut line = String::new();
    let start = Instant::now();
    while events.len() < want && start.elapsed() < timeout {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        let l = line.trim_end();
        if let Some(n) = l.strip_prefix("event: ") {
            name = n.to_string();
        } else if let Some(d) = l.strip_prefix("data: ") {
            if name == "hello" {
                if let Some(f) = after.take() {
                    f();
                }
            } else if name == "generation" {
                events.push(serde_json::from_str(d).unwrap());
            }
        }
    }
    events
}

/// The first event says which generation is served, also for an index that existed before
/// the server started (no update has been made by it yet).
#[test]
fn the_first_event_names_the_served_generation() {
    use std::io::{BufRead, BufReader, Write};
    let repo = fixture();
    let server = Server::start(repo.path(), &[]);
    let g = server.generation();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: text/event-stream\r\n\r\n", server.port).unwrap();
    let mut reader = BufReader::new(s);
    let mut line = String::new();
    let (mut name, mut id) = (String::new(), None);
    loop {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended before its first event");
        let l = line.trim_end();
        if let Some(n) = l.strip_prefix("event: ") {
            name = n.to_string();
        } else if let Some(i) = l.strip_prefix("id: ") {
            id = Some(i.to_string());
        } else if let Some(d) = l.strip_prefix("data: ") {
            assert_eq!(name, "hello");
            let data: Value = serde_json::from_str(d).unwrap();
            assert_eq!(data["generation"].as_i64(), Some(g), "{d}");
            assert_eq!(id, Some(g.to_string()));
            break;
        }
    }
}

#[test]
fn events_report_each_committed_generation() {
    let repo = fixture();
    let server = Server::start(repo.path(), &["--watch"]);
    let g = server.generation();
    let checker = Checker::new(&server);
    let path = repo.path().to_path_buf();
    let events = read_events(server.port, 1, Duration::from_secs(30), move || {
        // Written whole, in one step: one generation must hold the whole file.
        std::fs::write(path.join("src/new.tmp"), "export function fresh() { return 1; }\n").unwrap();
        std::fs::rename(path.join("src/new.tmp"), path.join("src/new.ts")).unwrap();
    });
    assert_eq!(events.len(), 1, "no event after an edit: {}", server.stderr());
    let e = &events[0];
    assert!(e["generation"].as_i64().unwrap() > g);
    assert_eq!(e["files_parsed"], 1);
    let schema = &checker.doc["paths"]["/v1/events"]["get"]["responses"]["200"]["content"]["text/event-stream"]["schema"];
    assert!(common::schema::validate(schema, e, &checker.doc["components"]["schemas"], "$").is_empty());
    // The edit is queryable at that generation.
    let found = server.get("/v1/symbols?pattern=fresh").json();
    assert!(found["generation"].as_i64().unwrap() >= e["generation"].as_i64().unwrap());
    assert_eq!(found["symbols"][0]["qname"], "src/new.ts#fresh");
    // A client that went away does not hold up indexing.
    let g = server.generation();
    repo.write("src/new2.ts", "export function fresher() { return 1; }\n");
    server.wait_generation_after(g);
}

/// A file that adds exactly three symbols (module, two functions) and its edges.
fn unit(i: usize) -> String {
    format!(
        "import {{ base }} from './base';\nexport function a{i}() {{ return b{i}() + base(); }}\nexport function b{i}() {{ return {i}; }}\n"
    )
}

/// Writes a unit file atomically (a rename), so the watcher never reads half of one.
fn write_unit(root: &Path, i: usize) {
    let tmp = root.join(format!("src/u{i}.tmp"));
    std::fs::write(&tmp, unit(i)).unwrap();
    std::fs::rename(&tmp, root.join(format!("src/u{i}.ts"))).unwrap();
}

/// A repository of `n` unit files and the base they call, served with `--watch`.
fn units_served(n: usize) -> (Repo, Server) {
    let repo = Repo::new();
    repo.write("src/base.ts", "export function base() { return 1; }\n");
    for i in 0..n {
        repo.write(&format!("src/u{i}.ts"), unit(i));
    }
    let server = Server::start(repo.path(), &["--watch", "--debounce-ms", "5"]);
    (repo, server)
}

#[test]
fn answers_never_mix_generations_during_a_burst_of_edits() {
    let (repo, server) = units_served(5);
    // Totals grow linearly with the number of unit files: fit the line from two states.
    let totals = |v: &Value| {
        let t = &v["totals"];
        (t["files"].as_i64().unwrap(), t["symbols"].as_i64().unwrap(), t["edges"].as_i64().unwrap())
    };
    let (f0, s0, e0) = totals(&server.get("/v1/status").json());
    let g0 = server.generation();
    write_unit(repo.path(), 5);
    server.wait_generation_after(g0);
    let (f1, s1, e1) = totals(&server.get("/v1/status").json());
    assert_eq!(f1, f0 + 1);
    let (ds, de) = (s1 - s0, e1 - e0);
    assert!(ds > 0 && de > 0);

    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let port = server.port;
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let v = get(port, "/v1/status").json();
                    let t = &v["totals"];
                    let (f, s, e) = (t["files"].as_i64().unwrap(), t["symbols"].as_i64().unwrap(), t["edges"].as_i64().unwrap());
                    seen.push((v["generation"].as_i64().unwrap(), t["generation"].as_i64().unwrap(), f, s, e));
                    let c = get(port, "/v1/callers?target=src%2Fbase.ts%23base&page_size=1000").json();
                    seen.push((c["generation"].as_i64().unwrap(), -1, c["edges"].as_array().unwrap().len() as i64, 0, 0));
                }
                seen
            })
        })
        .collect();
    // The burst: files created and removed as fast as the disk takes them, for at least 40
    // rounds and until it has spanned several generations (however slow the machine).
    let burst = Instant::now();
    for round in 0.. {
        if round >= 40 && (server.generation() >= g0 + 4 || burst.elapsed() > Duration::from_secs(30)) {
            break;
        }
        let i = 6 + round % 12;
        if round % 3 == 2 {
            let _ = std::fs::remove_file(repo.path().join(format!("src/u{}.ts", i - 1)));
        } else {
            write_unit(repo.path(), i);
        }
        std::thread::sleep(Duration::from_millis(7));
    }
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut answers = 0;
    let mut generations = std::collections::BTreeSet::new();
    for r in readers {
        let seen = r.join().unwrap();
        let mut last = 0;
        for (g, tg, f, s, e) in seen {
            answers += 1;
            assert!(g >= last, "generations went backwards: {last} then {g}");
            last = g;
            generations.insert(g);
            if tg == -1 {
                // callers of base: one per unit file's a{i}; files = units + base.
                continue;
            }
            assert_eq!(g, tg, "the answer names one generation");
            let units = f - f0;
            assert_eq!((s, e), (s0 + units * ds, e0 + units * de), "generation {g}: totals of different generations mixed");
        }
    }
    assert!(generations.len() >= 3, "the burst should span several generations: {generations:?}");
    assert!(answers > 20);
    // Settled: the server's answers come to equal a fresh index of the final tree.
    let fresh = Repo::new();
    copy_dir(repo.path(), fresh.path());
    fresh.index_json(&[]);
    let comparable = |mut v: Value| {
        v.as_object_mut().unwrap().remove("generation");
        v.as_object_mut().unwrap().remove("stale");
        v
    };
    let expected = comparable(cli_json(&fresh, &["callers", "src/base.ts#base"]));
    let served = || comparable(server.get("/v1/callers?target=src%2Fbase.ts%23base&page_size=1000").json());
    common::wait_for(&format!("never settled on {expected:#}"), Duration::from_secs(30), served, |v| *v == expected);
}

#[test]
fn shutdown_during_edits_leaves_an_intact_index() {
    let (repo, mut server) = units_served(20);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let editor = {
        let (stop, root) = (Arc::clone(&stop), repo.path().to_path_buf());
        std::thread::spawn(move || {
            let mut i = 20;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::fs::write(root.join(format!("src/u{i}.ts")), unit(i)).unwrap();
                i += 1;
                std::thread::sleep(Duration::from_millis(3));
            }
        })
    };
    let port = server.port;
    let client = std::thread::spawn(move || {
        let mut statuses = Vec::new();
        for _ in 0..200 {
            match common::http::send_raw(
                port,
                format!("GET /v1/callers?target=src%2Fbase.ts%23base HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
                Duration::from_secs(10),
            ) {
                Some(r) => statuses.push(r.status),
                None => break,
            }
        }
        statuses
    });
    std::thread::sleep(Duration::from_millis(600));
    let status = server.terminate(Duration::from_secs(15)).expect("the server did not stop within 15 s");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    editor.join().unwrap();
    let statuses = client.join().unwrap();
    assert!(status.success(), "exit status {status:?}: {}", server.stderr());
    assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    assert!(server.stderr().contains("stopped"), "{}", server.stderr());
    let conn = rusqlite::Connection::open(repo.db()).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    // The next run converges to a fresh index of the final tree.
    repo.index_json(&[]);
    let fresh = Repo::new();
    copy_dir(repo.path(), fresh.path());
    fresh.index_json(&["--rebuild"]);
    assert_eq!(repo.export(), fresh.export());
}

#[test]
fn the_agent_endpoints_answer_as_the_cli_does() {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/express-app"), repo.path());
    repo.index_json(&[]);
    let server = Server::start(repo.path(), &[]);
    let checker = Checker::new(&server);
    let without_generation = |mut v: Value| {
        v.as_object_mut().unwrap().remove("generation");
        v
    };
    // Roles and checks: the CLI's answers.
    let roles = checker.get(&server, "/v1/roles?pack=express");
    assert_eq!(roles.status, 200);
    assert_eq!(
        without_generation(roles.json()),
        without_generation(serde_json::from_str(&repo.ok(&["query", "roles", "--pack", "express", "--json"])).unwrap())
    );
    let check = checker.get(&server, "/v1/check?pack=express-to-fastify&file=src/routes/books.ts");
    assert_eq!(check.status, 200);
    let out = repo.ckg(&["check", "--pack", "express-to-fastify", "--files", "src/routes/books.ts", "--json"]);
    assert_eq!(without_generation(check.json()), without_generation(serde_json::from_slice(&out.stdout).unwrap()));
    // No plan yet; then one made over HTTP, and its status.
    assert_eq!(checker.get(&server, "/v1/plan/status").status, 404);
    let plan = common::http::request(server.port, "POST", "/v1/plan?pack=express-to-fastify", &[], b"");
    checker.check("post", "/v1/plan", &plan);
    assert_eq!(plan.status, 200, "{}", plan.text());
    assert_eq!(plan.json()["units"].as_array().unwrap().len(), 41);
    let status = checker.get(&server, "/v1/plan/status");
    assert_eq!(status.status, 200);
    assert_eq!(status.json()["units"].as_array().unwrap().len(), 41);
    // Bad input is a 400 with a problem, never a 500.
    for (method, target) in [
        ("POST", "/v1/plan"),
        ("POST", "/v1/plan?pack=nope"),
        ("GET", "/v1/check"),
        ("GET", "/v1/check?pack=express-to-fastify&file=../etc/passwd"),
    ] {
        let r = common::http::request(server.port, method, target, &[], b"");
        assert_eq!(r.status, 400, "{method} {target}: {}", r.text());
        checker.check(&method.to_ascii_lowercase(), target.split('?').next().unwrap(), &r);
    }
}
