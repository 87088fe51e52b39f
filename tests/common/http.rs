//! A small HTTP/1.1 client over a raw TCP stream (so tests can send anything, malformed
//! requests included) and a `ckg serve` process that stops when dropped.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn decode_chunked(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(nl) = body.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&body[..nl]).unwrap_or("0").split(';').next().unwrap().trim(), 16).unwrap_or(0);
        body = &body[nl + 2..];
        if size == 0 || body.len() < size {
            out.extend_from_slice(&body[..size.min(body.len())]);
            break;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[(size + 2).min(body.len())..];
    }
    out
}

/// Parses one whole response (read until the connection closed).
pub fn parse_response(raw: &[u8]) -> Option<Response> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = decode_chunked(&body);
    }
    Some(Response { status, headers, body })
}

/// Sends raw bytes and reads until the server closes the connection (or the timeout).
/// `None` when the server closed without a response, or refused the connection (a server
/// that has just stopped: callers that expect an answer unwrap it).
pub fn send_raw(port: u16, request: &[u8], timeout: Duration) -> Option<Response> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(timeout)).unwrap();
    s.set_write_timeout(Some(timeout)).unwrap();
    // The server may answer (and close) before it has read everything; that is fine.
    let _ = s.write_all(request);
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
        // A kept-alive connection stays open: stop once the response is complete.
        if let Some(r) = parse_response(&raw) {
            let head_len = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
            if r.header("content-length").and_then(|l| l.parse::<usize>().ok()).is_some_and(|l| raw.len() - head_len >= l) {
                break;
            }
        }
    }
    parse_response(&raw)
}

/// The OpenAPI documents of the servers seen, by port.
static DOCS: std::sync::Mutex<Vec<(u16, serde_json::Value)>> = std::sync::Mutex::new(Vec::new());

/// Checks a response against the server's own `/openapi.json`: a 200 against its endpoint's
/// answer schema, an error against the Problem schema. Every answer of the end-to-end suite
/// goes through here; a response the document does not describe fails the test.
pub fn conforms(port: u16, method: &str, target: &str, headers: &[(&str, &str)], r: &Response) {
    let auth: Vec<(&str, &str)> = headers.iter().copied().filter(|(k, _)| k.eq_ignore_ascii_case("authorization")).collect();
    let doc = {
        let known = DOCS.lock().unwrap().iter().find(|(p, _)| *p == port).map(|(_, d)| d.clone());
        match known {
            Some(d) => d,
            None => {
                let got = send(port, "GET", "/openapi.json", &auth, b"");
                if got.status != 200 {
                    return; // no document to check against (e.g. a token is missing)
                }
                let d = got.json();
                DOCS.lock().unwrap().push((port, d.clone()));
                d
            }
        }
    };
    let path = target.split('?').next().unwrap_or(target);
    let content_type = r.header("content-type").unwrap_or("");
    let schema = if r.status == 200 {
        let op = &doc["paths"][path][method.to_ascii_lowercase()];
        if op.is_null() {
            panic!("{method} {path} answered 200 but is not in the OpenAPI document");
        }
        assert_eq!(content_type, "application/json", "{method} {target}");
        op["responses"]["200"]["content"]["application/json"]["schema"].clone()
    } else {
        assert_eq!(content_type, "application/problem+json", "{method} {target} ({}): {}", r.status, r.text());
        serde_json::json!({"$ref": "#/components/schemas/Problem"})
    };
    let errors = super::schema::validate(&schema, &r.json(), &doc["components"]["schemas"], "$");
    assert!(errors.is_empty(), "{method} {target} ({}) does not match the OpenAPI document: {errors:#?}\n{}", r.status, r.text());
}

/// A request with `Connection: close` and the headers given; the answer is checked against
/// the server's OpenAPI document.
pub fn request(port: u16, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
    let r = send(port, method, target, headers, body);
    conforms(port, method, target, headers, &r);
    r
}

fn send(port: u16, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body);
    send_raw(port, &bytes, Duration::from_secs(30)).unwrap_or_else(|| panic!("no response to {method} {target}"))
}

pub fn get(port: u16, target: &str) -> Response {
    request(port, "GET", target, &[], b"")
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// A running `ckg serve`; killed when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub stderr_path: std::path::PathBuf,
    _logs: tempfile::TempDir,
}

impl Server {
    /// Starts `ckg serve ROOT --addr 127.0.0.1:0 EXTRA` and waits until it answers `/v1/ready`.
    pub fn start(root: &Path, extra: &[&str]) -> Server {
        let server = Server::spawn(root, extra);
        server.wait_ready();
        server
    }

    /// Starts the server without waiting for an index.
    pub fn spawn(root: &Path, extra: &[&str]) -> Server {
        let logs = tempfile::tempdir().unwrap();
        let stderr_path = logs.path().join("stderr");
        let mut child = Command::new(env!("CARGO_BIN_EXE_ckg"))
            .arg("serve")
            .arg(root)
            .args(["--addr", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr_path).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line
            .split("127.0.0.1:")
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server { child, port, stderr_path, _logs: logs }
    }

    pub fn wait_ready(&self) {
        let t = Instant::now();
        loop {
            if get(self.port, "/v1/ready").status == 200 {
                return;
            }
            assert!(t.elapsed() < Duration::from_secs(60), "server not ready: {}", self.stderr());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn get(&self, target: &str) -> Response {
        get(self.port, target)
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    /// The generation `/v1/status` reports.
    pub fn generation(&self) -> i64 {
        self.get("/v1/status").json()["generation"].as_i64().unwrap()
    }

    /// Waits until the generation is past `after`.
    pub fn wait_generation_after(&self, after: i64) -> i64 {
        let t = Instant::now();
        loop {
            let g = self.generation();
            if g > after {
                return g;
            }
            assert!(t.elapsed() < Duration::from_secs(30), "generation stayed at {g}: {}", self.stderr());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends SIGTERM and waits for the exit status (at most `within`).
    pub fn terminate(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let t = Instant::now();
        while t.elapsed() < within {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
