//! Faults under `ckg watch` and `ckg serve --watch`: a full disk during a commit, the database
//! removed or replaced, files deleted, renamed, truncated and replaced by directories or symlink
//! loops in the middle of a batch, and SIGKILL at random points of a batch. After each, the last
//! committed generation passes `PRAGMA integrity_check`, the process reports the fault and goes
//! on, and the index converges to what a fresh index of the tree gives. `scripts/faults.py`
//! runs the larger version of these (hundreds of faults) and prints the figures.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Repo, synth_repo, wait_for};

/// A watcher process (killed when dropped) with its stdout and stderr lines collected.
struct Watcher {
    child: Child,
    stdout: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn collect(stream: impl std::io::Read + Send + 'static) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
    lines
}

impl Watcher {
    /// `ckg ARGS` in the repository; with `max_file_size`, no file the process writes may
    /// grow past it (writes beyond fail with EFBIG, as on a full disk).
    fn start(repo: &Repo, args: &[&str], max_file_size: Option<u64>) -> Watcher {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ckg"));
        cmd.args(args).current_dir(repo.path()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(limit) = max_file_size {
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                    let lim = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                    if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().unwrap();
        let stdout = collect(child.stdout.take().unwrap());
        let stderr = collect(child.stderr.take().unwrap());
        Watcher { child, stdout, stderr }
    }

    /// Waits until a line of stdout (or stderr) contains the needle; returns that line.
    fn wait_line(&self, stderr: bool, needle: &str) -> String {
        let lines = if stderr { &self.stderr } else { &self.stdout };
        let start = Instant::now();
        loop {
            if let Some(l) = lines.lock().unwrap().iter().find(|l| l.contains(needle)) {
                return l.clone();
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no line with {needle:?}; stdout: {:?}; stderr: {:?}",
                self.stdout.lock().unwrap(),
                self.stderr.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn count(&self, stderr: bool, needle: &str) -> usize {
        let lines = if stderr { &self.stderr } else { &self.stdout };
        lines.lock().unwrap().iter().filter(|l| l.contains(needle)).count()
    }
}

fn export(db: &Path) -> Option<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_ckg")).args(["export", "--db"]).arg(db).output().unwrap();
    out.status.success().then(|| String::from_utf8(out.stdout).unwrap())
}

/// Waits until the index at `db` equals a fresh index of the tree (made with `extra` options).
fn converges(repo: &Repo, db: &Path, extra: &[&str]) {
    let want = repo.fresh_export(extra);
    let start = Instant::now();
    loop {
        if export(db).as_deref() == Some(want.as_str()) {
            return;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let got = export(db).unwrap_or_default();
            let missing: Vec<_> = want.lines().filter(|l| !got.contains(l)).take(5).collect();
            let extra: Vec<_> = got.lines().filter(|l| !want.contains(l)).take(5).collect();
            panic!("the index did not converge to a fresh index: missing {missing:?}, extra {extra:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Replaces the database by a file that is not one, in one step (renamed over it), so that
/// the path never names no file.
fn replace_by_junk(db: &Path) {
    let junk = db.with_extension("junk");
    std::fs::write(&junk, b"not a database").unwrap();
    std::fs::rename(&junk, db).unwrap();
}

/// The database opens and `PRAGMA integrity_check` says ok.
fn intact(db: &Path) {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok", "integrity_check of {}", db.display());
}

fn generation(db: &Path) -> i64 {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row("SELECT value FROM meta WHERE key = 'generation'", [], |r| r.get::<_, String>(0)).unwrap().parse().unwrap()
}

fn largest_file(dir: &Path) -> u64 {
    std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).max().unwrap_or(0)
}

/// A Python module with `n` functions, each calling the one before.
fn big_module(n: usize) -> String {
    let mut s = String::from("def f0():\n    return 0\n");
    for i in 1..n {
        s.push_str(&format!("\n\ndef f{i}(x=None):\n    return f{}() + {i}\n", i - 1));
    }
    s
}

#[test]
fn a_full_disk_fails_the_update_and_the_watcher_recovers_when_space_is_freed() {
    let repo = Repo::new();
    synth_repo(&repo, 15, 1);
    repo.ok(&["index", ".", "-q"]);
    let db = repo.db();
    let before = export(&db).unwrap();
    let gen_before = generation(&db);
    // Room for what exists and small updates, not for a module of 6,000 functions.
    let limit = largest_file(db.parent().unwrap()) * 2 + 256 * 1024;
    let mut w = Watcher::start(&repo, &["watch", ".", "--json"], Some(limit));
    w.wait_line(false, "\"generation\"");

    repo.write("pkg/big.py", big_module(6000));
    let line = w.wait_line(true, "\"error\"");
    let error: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert!(error["retry_in_ms"].as_u64().unwrap() >= 1000, "{line}");
    // The failed batch rolled back: the last committed generation, intact.
    intact(&db);
    assert_eq!(generation(&db), gen_before);
    assert_eq!(export(&db).unwrap(), before);

    // Space is freed (the big module goes) and another edit arrives: the watcher goes on.
    repo.remove("pkg/big.py");
    repo.write("pkg/m3.py", "def only():\n    return 3\n");
    converges(&repo, &db, &[]);
    intact(&db);
    assert!(w.child.try_wait().unwrap().is_none(), "the watcher exited after a failed update");
}

#[test]
fn a_failed_update_is_retried_without_further_changes() {
    let repo = Repo::new();
    synth_repo(&repo, 5, 1);
    repo.ok(&["index", ".", "-q"]);
    let db = repo.db();
    let limit = largest_file(db.parent().unwrap()) * 2 + 256 * 1024;
    let w = Watcher::start(&repo, &["watch", ".", "--json"], Some(limit));
    w.wait_line(false, "\"generation\"");
    repo.write("pkg/big.py", big_module(6000));
    w.wait_line(true, "\"error\"");
    // Nothing changes any more: the batch is tried again on its own, after a longer pause.
    let start = Instant::now();
    while w.count(true, "\"error\"") < 2 {
        assert!(start.elapsed() < Duration::from_secs(20), "no retry after a failed update: {:?}", w.stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(50));
    }
    let errors: Vec<serde_json::Value> =
        w.stderr.lock().unwrap().iter().filter(|l| l.contains("\"error\"")).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(errors[1]["retry_in_ms"].as_u64() > errors[0]["retry_in_ms"].as_u64(), "{errors:?}");
    intact(&db);
}

#[test]
fn a_database_removed_while_watching_is_built_again() {
    let repo = Repo::new();
    synth_repo(&repo, 10, 1);
    let w = Watcher::start(&repo, &["watch", "."], None);
    w.wait_line(false, "watching");
    let db = repo.db();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    w.wait_line(true, "was removed or replaced");
    converges(&repo, &db, &[]);
    // And it keeps watching the new one.
    repo.write("pkg/m2.py", "def renamed():\n    return 2\n");
    converges(&repo, &db, &[]);
    intact(&db);

    // A database replaced by another file (not an index): reported, and the update fails
    // without touching that file; once it is gone, the index is built again.
    replace_by_junk(&db);
    w.wait_line(true, "error");
    assert_eq!(std::fs::read(&db).unwrap(), b"not a database");
    std::fs::remove_file(&db).unwrap();
    converges(&repo, &db, &[]);
}

/// The database made read-only while watching: the update fails (reported, the index keeps
/// its generation) until it is writable again. As root, permissions do not apply, so the
/// watcher then runs as `nobody`.
#[test]
fn a_database_made_read_only_while_watching() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::new();
    synth_repo(&repo, 5, 1);
    let set = |p: &Path, mode| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    let bin = repo.path().join("ckg-bin");
    std::fs::copy(env!("CARGO_BIN_EXE_ckg"), &bin).unwrap();
    set(&bin, 0o755);
    for dir in walk_dirs(repo.path()) {
        set(&dir, 0o777);
    }
    let mut cmd = common::unprivileged(&bin);
    cmd.args(["watch", ".", "--json"]).current_dir(repo.path()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let w = Watcher { stdout: collect(child.stdout.take().unwrap()), stderr: collect(child.stderr.take().unwrap()), child };
    w.wait_line(false, "\"generation\"");
    let db = repo.db();
    let before = export(&db).unwrap();
    let ckg_dir = db.parent().unwrap().to_path_buf();
    let files: Vec<_> = std::fs::read_dir(&ckg_dir).unwrap().map(|e| e.unwrap().path()).collect();
    for f in &files {
        set(f, 0o444);
    }
    set(&ckg_dir, 0o555);
    repo.write("pkg/m1.py", "def changed():\n    return 1\n");
    w.wait_line(true, "\"error\"");
    // Checked on a copy taken before the watcher may write again: its retry needs no change.
    let copy = tempfile::tempdir().unwrap();
    for f in &files {
        std::fs::copy(f, copy.path().join(f.file_name().unwrap())).unwrap();
    }
    set(&ckg_dir, 0o777);
    for f in &files {
        set(f, 0o666);
    }
    let copied = copy.path().join(db.file_name().unwrap());
    intact(&copied);
    assert_eq!(export(&copied).unwrap(), before, "a failed update changed the index");
    // Writable again: the retry (no further change needed) brings the index up to date.
    converges(&repo, &db, &[]);
}

fn walk_dirs(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        for e in std::fs::read_dir(&out[i]).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                out.push(e.path());
            }
        }
        i += 1;
    }
    out
}

/// Random changes of every kind in the middle of batches: files deleted, renamed, truncated,
/// replaced by directories, and a symlink loop (the watcher follows links).
#[test]
fn files_that_change_kind_in_the_middle_of_batches() {
    let repo = Repo::new();
    synth_repo(&repo, 120, 1);
    let mut w = Watcher::start(&repo, &["watch", ".", "--follow", "--debounce-ms", "5"], None);
    w.wait_line(false, "watching");
    let mut rng = common::Rng(0x9e37_79b9_7f4a_7c15);
    let mut next = move |n: usize| rng.below(n);
    for round in 0..12 {
        // Touch many files so that a batch is running while the next changes land.
        for i in 0..40 {
            let k = next(120);
            repo.write(&format!("pkg/m{k}.py"), format!("def helper{k}(x):\n    return {round} + {i}\n"));
        }
        std::thread::sleep(Duration::from_millis(next(40) as u64));
        let k = next(120);
        let path = repo.path().join(format!("src/m{k}/mod.ts"));
        match round % 6 {
            0 => {
                let _ = std::fs::remove_file(&path);
            }
            1 => {
                let _ = std::fs::rename(&path, path.with_file_name(format!("moved{round}.ts")));
            }
            2 => {
                let _ = std::fs::OpenOptions::new().write(true).truncate(true).open(&path);
            }
            3 => {
                let _ = std::fs::remove_file(&path);
                let _ = std::fs::create_dir_all(&path);
                let _ = std::fs::write(path.join("inner.ts"), "export const inner = 1;\n");
            }
            4 => {
                let _ = std::os::unix::fs::symlink("..", path.with_file_name(format!("loop{round}")));
            }
            _ => {
                let _ = std::fs::write(&path, [0xffu8, 0xfe, 0x00, 0x41]);
            }
        }
    }
    let db = repo.db();
    converges(&repo, &db, &["--follow"]);
    intact(&db);
    assert!(w.child.try_wait().unwrap().is_none(), "the watcher exited");
}

/// SIGKILL at random points of batches: the last committed generation is intact every time
/// and the next `ckg index` converges to a fresh index.
#[test]
fn sigkill_at_random_points_of_batches() {
    let repo = Repo::new();
    synth_repo(&repo, 80, 1);
    repo.ok(&["index", ".", "-q"]);
    let db = repo.db();
    let mut delays = [3u64, 40, 11, 90, 25, 0, 60, 150, 7, 33].into_iter().cycle();
    for round in 0..10 {
        let mut w = Watcher::start(&repo, &["watch", ".", "--json", "--debounce-ms", "1"], None);
        w.wait_line(false, "\"generation\"");
        for i in 0..30 {
            repo.write(&format!("pkg/m{}.py", (round * 7 + i) % 80), format!("def helper{i}(x):\n    return {round}\n"));
        }
        std::thread::sleep(Duration::from_millis(delays.next().unwrap()));
        w.child.kill().unwrap();
        w.child.wait().unwrap();
        intact(&db);
        assert!(export(&db).is_some(), "the index does not open after a kill");
    }
    repo.ok(&["index", ".", "-q"]);
    converges(&repo, &db, &[]);
}

/// Under `ckg serve --watch`: a failed update shows in /v1/status and the last committed
/// generation is served; a database removed while serving is built again and queries answer
/// from the new one.
#[test]
fn serve_reports_a_failed_update_and_answers_from_a_rebuilt_database() {
    let repo = Repo::new();
    synth_repo(&repo, 10, 1);
    repo.write("pkg/keep.py", "def kept():\n    return 1\n");
    let server = common::http::Server::start(repo.path(), &["--watch"]);
    let status = server.get("/v1/status").json();
    assert!(status["watch_error"].is_null(), "{status}");

    // The database is replaced by something that is not an index: updates fail, reported.
    let db = repo.db();
    replace_by_junk(&db);
    repo.write("pkg/new.py", "def fresh_one():\n    return 1\n");
    let status = || server.get("/v1/status").json();
    wait_for("no watch_error in /v1/status", Duration::from_secs(20), status, |s| s["watch_error"].is_string());
    // Removed: the next retry builds it again, and queries see the new file.
    std::fs::remove_file(&db).unwrap();
    let symbols = || {
        let r = server.get("/v1/symbols?pattern=fresh_one");
        (r.status, r.text())
    };
    wait_for("queries never saw the rebuilt index", Duration::from_secs(30), symbols, |(status, text)| {
        *status == 200 && text.contains("pkg.new.fresh_one")
    });
    // The error is cleared once the update that built it again is reported.
    wait_for("the watch error stayed after the rebuild", Duration::from_secs(30), status, |s| s["watch_error"].is_null());
    intact(&db);
}
