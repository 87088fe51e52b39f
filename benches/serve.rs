//! HTTP load on loopback: `ckg serve` on a generated ~100k-line TypeScript repository, a
//! small keep-alive client (one thread and one connection per simulated agent), requests per
//! second and latency percentiles for `def`, `callers` and `impact --depth 5`, first idle and
//! then while the watcher applies a body-only edit every 100 ms; then the server's peak RSS
//! serving a generated 1M-line repository.
//!
//! `cargo bench --bench serve` (CKG_BENCH_LINES, CKG_BENCH_SECS, CKG_BENCH_CLIENTS,
//! CKG_BENCH_RSS_LINES to change sizes; CKG_BENCH_RSS_LINES=0 skips the 1M-line part;
//! CKG_BENCH_BIN=PATH serves with another `ckg` binary, to compare builds).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The `ckg` binary under test: this build's, or `CKG_BENCH_BIN`.
fn ckg_bin() -> PathBuf {
    std::env::var_os("CKG_BENCH_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ckg")), PathBuf::from)
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(root: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(ckg_bin())
            .arg("serve")
            .arg(root)
            .args(["--addr", "127.0.0.1:0", "--max-concurrency", "64", "--quiet"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.split("127.0.0.1:").nth(1).unwrap().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
        let server = Server { child, port };
        let t = Instant::now();
        loop {
            let mut c = Client::connect(port);
            if c.get("/v1/ready").0 == 200 {
                break;
            }
            assert!(t.elapsed() < Duration::from_secs(600), "server not ready");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// Peak resident memory of the server process (VmHWM), in MiB.
    fn peak_rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

/// One keep-alive connection.
struct Client {
    port: u16,
    reader: BufReader<TcpStream>,
}

impl Client {
    fn connect(port: u16) -> Client {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_nodelay(true).unwrap();
        Client { port, reader: BufReader::new(s) }
    }

    /// (status, body length); a non-200 body is printed once per status.
    fn get(&mut self, target: &str) -> (u16, usize) {
        let req = format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", self.port);
        if self.reader.get_mut().write_all(req.as_bytes()).is_err() {
            return (0, 0);
        }
        let mut line = String::new();
        if self.reader.read_line(&mut line).unwrap_or(0) == 0 {
            return (0, 0);
        }
        let status: u16 = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut len = 0;
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body).unwrap();
        if status != 200 {
            static SEEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
            let mut seen = SEEN.lock().unwrap();
            if !seen.contains(&status) {
                seen.push(status);
                eprintln!("{status} for {target}: {}", String::from_utf8_lossy(&body));
            }
        }
        (status, len)
    }
}

fn pct(sorted: &[Duration], q: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1e3
}

/// Runs `clients` threads for `secs` seconds, each cycling through `targets`; prints a row.
fn load(port: u16, name: &str, targets: &[String], clients: usize, secs: u64, label: &str) {
    let targets = Arc::new(targets.to_vec());
    let start = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|c| {
            let targets = Arc::clone(&targets);
            std::thread::spawn(move || {
                let mut client = Client::connect(port);
                let mut lat = Vec::new();
                let mut errors = 0usize;
                let mut i = c * 7919;
                let until = Instant::now() + Duration::from_secs(secs);
                while Instant::now() < until {
                    let t = Instant::now();
                    let (status, _) = client.get(&targets[i % targets.len()]);
                    lat.push(t.elapsed());
                    if status != 200 {
                        errors += 1;
                        if status == 0 {
                            client = Client::connect(port);
                        }
                    }
                    i += 1;
                }
                (lat, errors)
            })
        })
        .collect();
    let mut all = Vec::new();
    let mut errors = 0;
    for h in handles {
        let (lat, e) = h.join().unwrap();
        all.extend(lat);
        errors += e;
    }
    let wall = start.elapsed().as_secs_f64();
    all.sort();
    println!(
        "| {name} | {label} | {clients} | {:.0} | {:.2} ms | {:.2} ms | {:.2} ms | {errors} |",
        all.len() as f64 / wall,
        pct(&all, 0.5),
        pct(&all, 0.99),
        pct(&all, 1.0),
    );
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// Query targets from the index: (def positions, callers targets, impact targets).
fn targets(db: &Path, n: usize) -> (Vec<String>, Vec<String>, Vec<String>) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut defs = Vec::new();
    let mut s = conn
        .prepare("SELECT f.path, e.line, e.col FROM edges e JOIN files f ON f.id = e.file_id WHERE e.kind = 'calls' AND e.dst_id IS NOT NULL ORDER BY e.id")
        .unwrap();
    let rows: Vec<(String, i64, i64)> = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect();
    let step = (rows.len() / n).max(1);
    for (f, l, c) in rows.iter().step_by(step).take(n) {
        defs.push(format!("/v1/def?file={}&line={l}&col={c}", enc(f)));
    }
    let mut s = conn
        .prepare("SELECT qname FROM symbols WHERE kind IN ('function', 'method', 'class') AND file_id IS NOT NULL ORDER BY id")
        .unwrap();
    let names: Vec<String> = s.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    let step = (names.len() / n).max(1);
    let picked: Vec<&String> = names.iter().step_by(step).take(n).collect();
    let callers = picked.iter().map(|q| format!("/v1/callers?target={}", enc(q))).collect();
    let impact = picked.iter().map(|q| format!("/v1/impact?target={}&depth=5", enc(q))).collect();
    (defs, callers, impact)
}

fn generate(lines: usize) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target").join(format!("bench-serve-ts-{lines}"));
    let _ = std::fs::remove_dir_all(&root);
    ckg_gen::generate(&ckg_gen::Config { lang: ckg_gen::Lang::TypeScript, lines, seed: 5 }, &root).unwrap();
    let t = Instant::now();
    let out = Command::new(ckg_bin()).arg("index").arg(&root).arg("--quiet").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    println!("generated {lines} lines of TypeScript at {}; indexed in {:.2} s", root.display(), t.elapsed().as_secs_f64());
    root
}

/// Edits one file's body every 100 ms until stopped (toggling one statement).
fn editor(root: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let file = walk_ts(&root).into_iter().next().unwrap();
        let original = std::fs::read_to_string(&file).unwrap();
        let mut n = 0;
        while !stop.load(Ordering::Relaxed) {
            let edited = if n % 2 == 0 { format!("{original}\nconst _benchEdit{n} = {n};\n") } else { original.clone() };
            // Atomic (a rename), as editors save: the watcher never reads half a file.
            let tmp = file.with_extension("tmp");
            std::fs::write(&tmp, edited).unwrap();
            std::fs::rename(&tmp, &file).unwrap();
            n += 1;
            std::thread::sleep(Duration::from_millis(100));
        }
        std::fs::write(&file, original).unwrap();
        n
    })
}

fn walk_ts(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() && !p.ends_with(".ckg") {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ts") && !p.ends_with("index.ts") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn main() {
    // `cargo bench` passes --bench; nothing else is accepted.
    let lines = env_or("CKG_BENCH_LINES", 100_000);
    let secs = env_or("CKG_BENCH_SECS", 5) as u64;
    let clients = env_or("CKG_BENCH_CLIENTS", 8);
    let rss_lines = env_or("CKG_BENCH_RSS_LINES", 1_000_000);
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("ckg serve load on loopback; {cores} cores; {secs} s per row; client threads share the machine with the server");
    let root = generate(lines);
    let db = root.join(".ckg/index.db");
    let (defs, callers, impact) = targets(&db, 300);
    println!();
    println!("| query | index | clients | req/s | p50 | p99 | max | non-200 |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    {
        let server = Server::start(&root, &[]);
        load(server.port, "def", &defs, clients, secs, "idle");
        load(server.port, "callers", &callers, clients, secs, "idle");
        load(server.port, "impact --depth 5", &impact, clients, secs, "idle");
        println!("(server peak RSS {:.0} MiB at {lines} lines)", server.peak_rss_mib());
    }
    {
        let server = Server::start(&root, &["--watch"]);
        let stop = Arc::new(AtomicBool::new(false));
        let ed = editor(root.clone(), Arc::clone(&stop));
        load(server.port, "def", &defs, clients, secs, "edit every 100 ms");
        load(server.port, "callers", &callers, clients, secs, "edit every 100 ms");
        load(server.port, "impact --depth 5", &impact, clients, secs, "edit every 100 ms");
        stop.store(true, Ordering::Relaxed);
        let edits = ed.join().unwrap();
        let mut c = Client::connect(server.port);
        let _ = c.get("/v1/status");
        println!("({edits} edits applied while loaded)");
    }
    if rss_lines > 0 {
        let root = generate(rss_lines);
        let (defs, callers, impact) = targets(&root.join(".ckg/index.db"), 300);
        let server = Server::start(&root, &[]);
        println!();
        println!("| query | index | clients | req/s | p50 | p99 | max | non-200 |");
        println!("|---|---|---:|---:|---:|---:|---:|---:|");
        load(server.port, "def", &defs, clients, secs, &format!("{rss_lines} lines"));
        load(server.port, "callers", &callers, clients, secs, &format!("{rss_lines} lines"));
        load(server.port, "impact --depth 5", &impact, clients, secs, &format!("{rss_lines} lines"));
        println!("server peak RSS serving {rss_lines} lines: {:.0} MiB", server.peak_rss_mib());
    }
}
