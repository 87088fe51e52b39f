//! `ckg watch` on a real temporary directory: changes made on disk show up in queries.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::Repo;

struct Watcher(Child);

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for(repo: &Repo, args: &[&str], needle: &str) -> String {
    let start = Instant::now();
    loop {
        let out = repo.ckg(args);
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        if stdout.contains(needle) {
            return stdout;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {needle:?} in `ckg {args:?}`:\n{stdout}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts `ckg watch . --json` in the repository: the process (killed when dropped) and its
/// output lines.
fn watch(repo: &Repo) -> (Watcher, std::io::Lines<BufReader<std::process::ChildStdout>>) {
    watch_with(repo, &[])
}

/// [`watch`] with more arguments.
fn watch_with(repo: &Repo, extra: &[&str]) -> (Watcher, std::io::Lines<BufReader<std::process::ChildStdout>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ckg"))
        .args(["watch", ".", "--json"])
        .args(extra)
        .current_dir(repo.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    (Watcher(child), BufReader::new(stdout).lines())
}

#[test]
fn changes_on_disk_show_up_in_queries() {
    let repo = Repo::new();
    repo.write("src/lib.ts", "export function target() { return 1; }\n");
    repo.write("src/a.ts", "export function a() { return 0; }\n");
    let (_guard, mut lines) = watch(&repo);
    let first: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["generation"], 1);

    // An edit that adds a call.
    repo.write("src/a.ts", "import { target } from './lib';\nexport function a() { return target(); }\n");
    wait_for(&repo, &["query", "callers", "src/lib.ts#target"], "src/a.ts#a calls -> src/lib.ts#target");

    // An editor-style save: write a temporary file, then rename it over the original.
    repo.write("src/a.ts.tmp~", "import { target } from './lib';\nexport function renamed() { return target(); }\n");
    std::fs::rename(repo.path().join("src/a.ts.tmp~"), repo.path().join("src/a.ts")).unwrap();
    wait_for(&repo, &["query", "callers", "src/lib.ts#target"], "src/a.ts#renamed calls");

    // A new file in a new folder, then the folder deleted.
    repo.write("src/extra/b.py", "def b():\n    return 1\n");
    wait_for(&repo, &["query", "symbols", "b"], "extra.b.b");
    std::fs::remove_dir_all(repo.path().join("src/extra")).unwrap();
    let start = Instant::now();
    loop {
        let out = repo.ckg(&["query", "symbols", "extra"]);
        if out.status.code() == Some(1) {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "deleted folder still indexed");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Each batch was logged as one update with a new generation.
    let update: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert!(update["generation"].as_i64().unwrap() >= 2);
    assert!(update["latency_ms"].as_f64().unwrap() > 0.0);
    let status = repo.ok(&["status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert!(v["generation"].as_i64().unwrap() >= 4, "{v}");
    assert_eq!(v["stale"]["stale"], false);
}

/// Regression: the watcher's own scan opens every folder it walks; those reads were taken for
/// changes and started a new (empty) batch every few tens of milliseconds, forever.
#[test]
fn an_idle_tree_makes_no_updates() {
    let repo = Repo::new();
    for i in 0..10 {
        repo.write(&format!("src/d{i}/m.ts"), "export function f() { return 1; }\n");
    }
    repo.write(".gitignore", "dist/\n");
    let (guard, lines) = watch(&repo);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines {
            let _ = tx.send(line.unwrap());
        }
    });
    let first = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(first.contains("\"generation\":1"), "{first}");
    // Queries read the index (and the tree, for staleness) meanwhile.
    repo.ok(&["query", "symbols", "f"]);
    repo.ok(&["status"]);
    let extra: Vec<String> =
        rx.try_iter().chain(std::iter::from_fn(|| rx.recv_timeout(Duration::from_millis(1500)).ok())).take(3).collect();
    assert!(extra.is_empty(), "updates without changes: {extra:?}");
    drop(guard);
}

/// `ckg watch --rebuild` rebuilds the index it starts from, once: the batches after it are
/// updates (an edit parses the one file), not rebuilds.
#[test]
fn watch_rebuilds_once_then_updates() {
    let repo = Repo::new();
    for i in 0..4 {
        repo.write(&format!("src/m{i}.ts"), "export function f() { return 1; }\n");
    }
    repo.ok(&["index", "."]);
    let (_guard, mut lines) = watch_with(&repo, &["--rebuild"]);
    let mut next = || -> serde_json::Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
    let first = next();
    assert_eq!(first["parsed"], 4, "{first}");
    repo.write("src/m0.ts", "export function g() { return 2; }\n");
    let update = next();
    assert_eq!(update["parsed"], 1, "an edit after the rebuild: {update}");
    assert!(update["generation"].as_i64().unwrap() > first["generation"].as_i64().unwrap(), "{first} then {update}");
}
