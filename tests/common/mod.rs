//! Test helpers: a temporary repository and a way to run the `ckg` binary in it
//! (ripgrep's `Dir` / `TestCommand` pattern).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Asks for `state` every 50 ms until `done` holds for it; fails with `what` and the last
/// state after `limit`.
pub fn wait_for<T: std::fmt::Debug>(what: &str, limit: std::time::Duration, mut state: impl FnMut() -> T, done: impl Fn(&T) -> bool) {
    let start = std::time::Instant::now();
    loop {
        let s = state();
        if done(&s) {
            return;
        }
        assert!(start.elapsed() < limit, "{what}: {s:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A small deterministic PRNG (xorshift64*): the same stream on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Repo {
    pub fn new() -> Repo {
        Repo { dir: tempfile::Builder::new().prefix("ckg-test-").tempdir().unwrap() }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.dir.path().join(rel)).unwrap();
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join(".ckg").join("index.db")
    }

    /// Runs `ckg ARGS` with the repository as working directory.
    pub fn ckg(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ckg")).args(args).current_dir(self.path()).output().unwrap()
    }

    /// Runs `ckg ARGS` and asserts success, returning stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.ckg(args);
        assert!(
            out.status.success(),
            "ckg {args:?} failed with {:?}\nstdout:\n{}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn index_json(&self, extra: &[&str]) -> serde_json::Value {
        let mut args = vec!["index", ".", "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&self.ok(&args)).unwrap()
    }

    pub fn export(&self) -> String {
        self.ok(&["export"])
    }

    /// The export of a fresh index of the tree as it is now, built with `extra` options into
    /// a database outside the tree (what an incremental index must equal).
    pub fn fresh_export(&self, extra: &[&str]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("fresh.db");
        let run = |cmd: &mut Command| {
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
            out.stdout
        };
        let ckg = || Command::new(env!("CARGO_BIN_EXE_ckg"));
        run(ckg().arg("index").arg(self.path()).arg("--db").arg(&db).arg("-q").args(extra));
        String::from_utf8(run(ckg().arg("export").arg("--db").arg(&db))).unwrap()
    }
}

/// A command that runs `bin` without root's privileges: as `nobody` through `setpriv` when
/// the tests run as root (permissions do not apply to root), as is otherwise.
pub fn unprivileged(bin: &Path) -> Command {
    let is_root = Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false);
    if is_root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(bin);
        c
    } else {
        Command::new(bin)
    }
}

/// Copies a folder tree (skipping `.ckg`), e.g. a fixture into a temporary repository.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() == ".ckg" {
                continue;
            }
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The resolved edges of an index as (kind, src, dst, evidence), leaving out unresolved ones
/// and the `references` edges whose site is a type annotation (the suites do not list those).
pub fn resolved_edges(db: &Path) -> Vec<(String, String, String, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let type_sites: std::collections::HashSet<(i64, u32, u32)> = ckg_core::store::load_refs(&conn, None)
        .unwrap()
        .iter()
        .flat_map(|f| f.sites())
        .filter(|r| r.kind == ckg_core::facts::RefKind::Type)
        .map(|r| (r.file, r.line, r.col))
        .collect();
    let mut s = conn
        .prepare(
            "SELECT e.kind, src.qname, dst.qname, e.file_id, e.line, e.col, e.evidence FROM edges e JOIN symbols src ON src.id = e.src_id
             JOIN symbols dst ON dst.id = e.dst_id WHERE e.evidence != 'unresolved'",
        )
        .unwrap();
    type Row = ((String, String, String, String), (i64, u32, u32));
    s.query_map([], |r| Ok(((r.get(0)?, r.get(1)?, r.get(2)?, r.get(6)?), (r.get::<_, i64>(3)?, r.get::<_, u32>(4)?, r.get::<_, u32>(5)?))))
        .unwrap()
        .map(Result::unwrap)
        .filter(|(e, site): &Row| !(e.0 == "references" && type_sites.contains(site)))
        .map(|(e, _)| e)
        .collect()
}

/// Every symbol's kind, by qname.
pub fn symbol_kinds(db: &Path) -> std::collections::HashMap<String, String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut s = conn.prepare("SELECT qname, kind FROM symbols").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

/// Edge lines of an export, as `kind src -> dst [evidence]`.
pub fn edges(export: &str) -> Vec<String> {
    export
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["type"] == "edge").then(|| {
                format!(
                    "{} {} -> {} [{}]",
                    v["kind"].as_str().unwrap(),
                    v["src"].as_str().unwrap(),
                    v["dst"].as_str().unwrap(),
                    v["evidence"].as_str().unwrap()
                )
            })
        })
        .collect()
}

/// A deterministic synthetic repository: `n` TypeScript and `n` Python modules that import,
/// call, instantiate and subclass each other.
pub fn synth_repo(repo: &Repo, n: usize, variant: u32) {
    for i in 0..n {
        let prev = if i == 0 { n - 1 } else { i - 1 };
        let ts = format!(
            "import {{ helper{prev}, Base{prev} }} from '../m{prev}/mod';\nimport express from 'express';\n\n\
             export class Base{i} extends Base{prev} {{\n  run(x: number): number {{ return helper{prev}(x) + this.size(); }}\n  size(): number {{ return {variant}; }}\n}}\n\n\
             export function helper{i}(x: number): number {{\n  const b = new Base{i}();\n  const app = express();\n  app.use(helper{prev});\n  return b.run(x) + {variant};\n}}\n"
        );
        repo.write(&format!("src/m{i}/mod.ts"), ts);
        let py = format!(
            "from pkg.m{prev} import helper{prev}, Base{prev}\nimport os.path\n\n\nclass Base{i}(Base{prev}):\n    def run(self, x):\n        return helper{prev}(x) + self.size()\n\n    def size(self):\n        return {variant}\n\n\n\
             def helper{i}(x):\n    b = Base{i}()\n    os.path.join('a', str(x))\n    return b.run(x) + {variant}\n"
        );
        repo.write(&format!("pkg/m{i}.py"), py);
    }
    repo.write("pkg/__init__.py", "");
}

pub mod http;
pub mod schema;
