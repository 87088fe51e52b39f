//! A hostile-input suite for `ckg serve`: hundreds of generated malformed or adversarial
//! requests sent over raw TCP. Every one must get a 4xx (or 503 when shedding load), never a
//! 5xx; the server must keep running and answer a normal query afterwards.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use common::http::{Server, send_raw};
use common::{Repo, copy_dir};

fn fixture() -> Repo {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/query/repo"), repo.path());
    repo.index_json(&[]);
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc", repo.path().join("escape")).unwrap();
    repo
}

const ENDPOINTS: &[&str] = &[
    "/v1/impact",
    "/v1/symbols",
    "/v1/def",
    "/v1/refs",
    "/v1/callers",
    "/v1/callees",
    "/v1/deps",
    "/v1/rdeps",
    "/v1/path",
    "/v1/cycles",
    "/v1/unused",
    "/v1/status",
    "/v1/ready",
    "/v1/sql",
    "/openapi.json",
];

/// Bad values for every parameter name any endpoint takes.
const BAD_QUERIES: &[&str] = &[
    "depth=-1",
    "depth=0",
    "depth=65",
    "depth=1e99",
    "depth=99999999999999999999999",
    "depth=NaN",
    "depth=",
    "page_size=0",
    "page_size=1001",
    "page_size=-5",
    "page_token=%ff%ff",
    "page_token=00112233",
    "line=0",
    "col=-3",
    "kind=%00",
    "min_evidence=%27%20OR%201%3D1",
    "target=",
    "target=%ff",
    "target=%c0%af",
    "target=a%00b",
    "target=%",
    "target=%zz",
    "file=..%2f..%2fetc%2fpasswd",
    "file=%2fetc%2fpasswd",
    "file=escape%2fpasswd",
    "file=src%2f..%2f..%2f..%2fetc%2fpasswd",
    "file=..%5c..%5cwindows",
    "include_exported=maybe",
    "unknown=1",
    "target=x&target=y",
];

fn status_of(port: u16, raw: &[u8]) -> Option<u16> {
    send_raw(port, raw, Duration::from_secs(20)).map(|r| r.status)
}

fn get_raw(port: u16, target: &str, extra_headers: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n{extra_headers}\r\n").into_bytes()
}

#[test]
fn hostile_requests_get_client_errors_and_the_server_survives() {
    let repo = fixture();
    let server = Server::start(repo.path(), &["--allow-sql", "--timeout-ms", "2000"]);
    let port = server.port;
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();

    // Bad parameters on every endpoint (with a valid required parameter where one is needed,
    // so the bad one is what gets checked).
    for e in ENDPOINTS {
        for q in BAD_QUERIES {
            cases.push((format!("GET {e}?{q}"), get_raw(port, &format!("{e}?{q}"), "")));
        }
    }
    // Huge parameters.
    for n in [5_000, 8_500, 60_000] {
        cases.push((format!("huge target {n}"), get_raw(port, &format!("/v1/impact?target={}", "a".repeat(n)), "")));
    }
    cases.push(("many params".into(), get_raw(port, &format!("/v1/symbols?{}", "pattern=a&".repeat(500)), "")));
    // Raw invalid UTF-8 and control bytes in the request target.
    for bytes in [&b"\xff\xfe"[..], b"\x00", b"\x7f", b"%", b"\xc0\xaf"] {
        let mut raw = b"GET /v1/symbols?pattern=".to_vec();
        raw.extend_from_slice(bytes);
        raw.extend_from_slice(format!(" HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").as_bytes());
        cases.push((format!("raw bytes {bytes:?}"), raw));
    }
    // Wrong methods.
    for e in ENDPOINTS {
        for m in ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"] {
            cases.push((
                format!("{m} {e}"),
                format!("{m} {e} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").into_bytes(),
            ));
        }
    }
    cases.push(("GET /v1/sql".into(), get_raw(port, "/v1/sql", "")));
    cases.push((
        "POST /v1/impact".into(),
        format!("POST /v1/impact?target=x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{{}}")
            .into_bytes(),
    ));
    // Unknown routes and traversal in the path itself.
    for p in
        ["/", "/v1", "/v2/impact", "/v1/impact/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/v1/IMPACT", "//v1/impact", "/v1/impact%00"]
    {
        cases.push((format!("route {p}"), get_raw(port, p, "")));
    }
    // Bodies: wrong types, malformed and adversarial JSON, sizes.
    let post = |body: &[u8], ct: &str| {
        let mut raw = format!(
            "POST /v1/sql HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        raw.extend_from_slice(body);
        raw
    };
    let nested_obj = format!("{}1{}", "{\"a\":".repeat(5000), "}".repeat(5000));
    let bodies: Vec<(String, Vec<u8>, &str)> = vec![
        ("nested arrays".into(), [b"[".repeat(10_000), b"]".repeat(10_000)].concat(), "application/json"),
        ("nested objects".into(), nested_obj.into_bytes(), "application/json"),
        ("huge string".into(), format!("{{\"query\": \"{}\"}}", "x".repeat(60_000)).into_bytes(), "application/json"),
        ("too large".into(), vec![b'a'; 200_000], "application/json"),
        ("not json".into(), b"query=SELECT 1".to_vec(), "application/json"),
        ("form".into(), b"query=SELECT 1".to_vec(), "application/x-www-form-urlencoded"),
        ("no type".into(), b"{\"query\":\"SELECT 1\"}".to_vec(), ""),
        ("write".into(), b"{\"query\":\"DROP TABLE edges\"}".to_vec(), "application/json"),
        ("txn".into(), b"{\"query\":\"BEGIN EXCLUSIVE\"}".to_vec(), "application/json"),
        ("pragma".into(), b"{\"query\":\"PRAGMA writable_schema = 1\"}".to_vec(), "application/json"),
        ("attach".into(), b"{\"query\":\"ATTACH '/tmp/x' AS x\"}".to_vec(), "application/json"),
        ("two statements".into(), b"{\"query\":\"SELECT 1; DELETE FROM edges\"}".to_vec(), "application/json"),
        ("nul".into(), b"{\"query\":\"SELECT 1\\u0000\"}".to_vec(), "application/json"),
        ("invalid utf8".into(), b"{\"query\":\"SELECT '\xff'\"}".to_vec(), "application/json"),
        ("wrong field type".into(), b"{\"query\": 5}".to_vec(), "application/json"),
        ("negative limit".into(), b"{\"query\":\"SELECT 1\",\"limit\":-1}".to_vec(), "application/json"),
        ("huge limit".into(), b"{\"query\":\"SELECT 1\",\"limit\":1e300}".to_vec(), "application/json"),
        ("empty".into(), Vec::new(), "application/json"),
    ];
    // (A statement that runs past the time limit is a 504 by design: tests/serve.rs.)
    for (name, body, ct) in &bodies {
        cases.push((format!("body {name}"), post(body, ct)));
    }
    // Lying lengths and framing.
    for head in [
        "Content-Length: -1",
        "Content-Length: abc",
        "Content-Length: 99999999999999999999",
        "Content-Length: 5\r\nContent-Length: 6",
        "Transfer-Encoding: chunked\r\nContent-Length: 5",
        "Transfer-Encoding: gzip",
    ] {
        let raw = format!(
            "POST /v1/sql HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\n{head}\r\n\r\n{{}}"
        )
        .into_bytes();
        cases.push((format!("framing {head:?}"), raw));
    }
    let chunked_big = {
        let mut raw = format!("POST /v1/sql HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").into_bytes();
        for _ in 0..20 {
            raw.extend_from_slice(format!("{:x}\r\n{}\r\n", 8192, "a".repeat(8192)).as_bytes());
        }
        raw.extend_from_slice(b"0\r\n\r\n");
        raw
    };
    cases.push(("chunked body past the limit".into(), chunked_big));
    cases.push((
        "GET with a chunked body".into(),
        format!("GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
            .into_bytes(),
    ));
    // Garbage on the wire.
    for raw in [
        &b"GARBAGE\r\n\r\n"[..],
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
        b"GET /v1/health HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n",
        b"GET /v1/health HTTP/1.1\r\nHost: \xff\xfe\r\n\r\n",
        b"GET /v1/health HTTP/1.1\r\n: empty-name\r\n\r\n",
        b"GET http://evil.example/v1/health HTTP/1.1\r\nHost: evil.example\r\n\r\n",
        b"CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n",
    ] {
        cases.push((format!("garbage {:?}", String::from_utf8_lossy(raw)), raw.to_vec()));
    }
    let many_headers: String = (0..150).map(|i| format!("X-H{i}: v\r\n")).collect();
    cases.push(("150 headers".into(), get_raw(port, "/v1/health", &many_headers)));
    cases.push(("huge header".into(), get_raw(port, "/v1/health", &format!("X-Big: {}\r\n", "b".repeat(200_000)))));
    cases.push(("bad host".into(), b"GET /v1/health HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n".to_vec()));
    cases.push(("bad origin".into(), get_raw(port, "/v1/status", "Origin: http://attacker.example\r\n")));
    cases.push(("null origin".into(), get_raw(port, "/v1/status", "Origin: null\r\n")));
    cases.push((
        "non-ascii origin".into(),
        [get_raw(port, "/v1/status", "")[..get_raw(port, "/v1/status", "").len() - 2].to_vec(), b"Origin: \xff\r\n\r\n".to_vec()].concat(),
    ));

    // Slow partial requests: stalled connections do not stop others from being served.
    let stalled: Vec<std::net::TcpStream> = (0..20)
        .map(|_| {
            use std::io::Write;
            let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(b"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1").unwrap();
            s
        })
        .collect();

    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut slow = Vec::new();
    for (name, raw) in &cases {
        let t = std::time::Instant::now();
        let status = status_of(port, raw);
        if t.elapsed() > Duration::from_secs(1) {
            slow.push(format!("{name}: {:?}", t.elapsed()));
        }
        match status {
            Some(s) if (400..500).contains(&s) || s == 503 => *by_status.entry(s.to_string()).or_default() += 1,
            Some(s) => failures.push(format!("{name}: {s}")),
            None => failures.push(format!("{name}: no response")),
        }
    }
    drop(stalled);
    eprintln!("{} hostile requests: {by_status:?}; slower than 1 s: {slow:?}", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} requests were not answered with a 4xx/503:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(server.stderr().lines().all(|l| !l.contains("panicked")), "{}", server.stderr());
    // Still serving.
    let r = server.get("/v1/symbols?pattern=Router");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["symbols"][0]["qname"], "src/router.ts#Router");
}

#[test]
fn bad_tokens_are_refused() {
    let repo = fixture();
    let token_file = repo.path().join("token.txt");
    std::fs::write(&token_file, "a-long-enough-test-token\n").unwrap();
    let server = Server::spawn(repo.path(), &["--token-file", token_file.to_str().unwrap()]);
    let port = server.port;
    let mut headers: Vec<Vec<u8>> = [
        "",
        "Authorization: Bearer\r\n",
        "Authorization: Bearer \r\n",
        "Authorization: Basic YTpi\r\n",
        "Authorization: Bearer a-long-enough-test-toke\r\n",
        "Authorization: Bearer a-long-enough-test-tokenn\r\n",
        "Authorization: Bearer A-LONG-ENOUGH-TEST-TOKEN\r\n",
        "Authorization: Token a-long-enough-test-token\r\n",
        "Authorization: a-long-enough-test-token\r\n",
    ]
    .iter()
    .map(|h| h.as_bytes().to_vec())
    .collect();
    headers.push(format!("Authorization: Bearer {}\r\n", "x".repeat(10_000)).into_bytes());
    headers.push(b"Authorization: Bearer \xff\xfe\r\n".to_vec());
    for e in ENDPOINTS {
        for h in &headers {
            let mut raw = format!("GET {e} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n").into_bytes();
            raw.extend_from_slice(h);
            raw.extend_from_slice(b"\r\n");
            let status = status_of(port, &raw);
            assert_eq!(status, Some(401), "{e} with {:?}", String::from_utf8_lossy(h));
        }
        // The scheme's name is case-insensitive.
        for scheme in ["Bearer", "bearer", "BEARER"] {
            let raw = format!(
                "GET {e} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nAuthorization: {scheme} a-long-enough-test-token\r\n\r\n"
            );
            assert_ne!(status_of(port, raw.as_bytes()), Some(401), "{e} with {scheme}");
        }
    }
}
