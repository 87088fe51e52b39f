//! Edit -> index consistent and queryable again, on a generated ~100k-line repository
//! (`ckg-gen`, TypeScript and Python). For each kind of edit, p50/p95 over 50 edits, through
//! the in-process update path (what `ckg watch` runs after its debounce) and through a
//! `ckg index` process, next to the full-index time.
//!
//! `cargo bench --bench incremental` (CKG_BENCH_LINES, CKG_BENCH_EDITS to change sizes).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ckg_core::index::{IndexConfig, Session, index_with};

fn pct(mut d: Vec<Duration>) -> String {
    d.sort();
    let at = |q: f64| d[((d.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1e3;
    format!("p50 {:>8.2} ms  p95 {:>8.2} ms  (n={})", at(0.5), at(0.95), d.len())
}

struct Corpus {
    root: PathBuf,
    lang: ckg_gen::Lang,
}

impl Corpus {
    fn files(&self) -> Vec<PathBuf> {
        let ext = if self.lang == ckg_gen::Lang::Python { "py" } else { "ts" };
        let mut out = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    if !p.ends_with(".ckg") {
                        stack.push(p);
                    }
                } else if p.extension().is_some_and(|x| x == ext) && !p.ends_with("__init__.py") && !p.ends_with("index.ts") {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }

    /// A body-only edit: a statement added before the first `return` of the file (or removed).
    fn body_edit(&self, file: &Path, n: usize) {
        let src = std::fs::read_to_string(file).unwrap();
        let marker = if self.lang == ckg_gen::Lang::Python { "\n        return " } else { "\n    return " };
        let edited = match src.find("// ckg-bench-edit").or_else(|| src.find("# ckg-bench-edit")) {
            Some(_) => src.lines().filter(|l| !l.contains("ckg-bench-edit")).collect::<Vec<_>>().join("\n") + "\n",
            None => {
                let Some(pos) = src.find(marker).or_else(|| src.find("\n    return ")).or_else(|| src.find("\n  return ")) else {
                    return;
                };
                let indent: String = src[pos + 1..].chars().take_while(|c| *c == ' ').collect();
                let stmt = if self.lang == ckg_gen::Lang::Python {
                    format!("\n{indent}_edit = {n}  # ckg-bench-edit")
                } else {
                    format!("\n{indent}const _edit = {n}; // ckg-bench-edit")
                };
                format!("{}{}{}", &src[..pos], stmt, &src[pos..])
            }
        };
        std::fs::write(file, edited).unwrap();
    }
}

fn main() {
    let lines: usize = std::env::var("CKG_BENCH_LINES").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let edits: usize = std::env::var("CKG_BENCH_EDITS").ok().and_then(|s| s.parse().ok()).unwrap_or(50);
    let ckg = env!("CARGO_BIN_EXE_ckg");
    println!("incremental update latency; {lines} generated lines per language, {edits} edits per kind; {}", std::env::consts::ARCH);
    for lang in [ckg_gen::Lang::TypeScript, ckg_gen::Lang::Python] {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target").join(format!("bench-incr-{lang:?}-{lines}"));
        let _ = std::fs::remove_dir_all(&root);
        ckg_gen::generate(&ckg_gen::Config { lang, lines, seed: 11 }, &root).unwrap();
        let corpus = Corpus { root: root.clone(), lang };
        let mut config = IndexConfig::new(&root);
        // The watcher's update path: facts kept in memory between runs (from the full index on).
        let mut session = Session::default();
        let t = Instant::now();
        let full = index_with(&config, &|_| {}, &mut session).unwrap();
        // ... and no index-wide totals.
        config.totals = false;
        // Files are "racily clean" right after they are written; a watcher sees them later.
        std::thread::sleep(Duration::from_millis(300));
        let full_time = t.elapsed();
        let files = corpus.files();
        println!(
            "\n{lang:?}: {} files, {} lines; full index {:.0} ms",
            full.files_by_lang.values().sum::<u64>(),
            full.lines,
            full_time.as_secs_f64() * 1e3
        );

        // Body-only edits, in process.
        let mut d = Vec::new();
        let mut re = 0;
        for i in 0..edits {
            corpus.body_edit(&files[(i * 7919) % files.len()], i);
            let t = Instant::now();
            let s = index_with(&config, &|_| {}, &mut session).unwrap();
            d.push(t.elapsed());
            re += s.re_resolved;
        }
        println!("  body-only edit, in process:       {}  ({:.1} files re-resolved on average)", pct(d), re as f64 / edits as f64);
        let mut d = Vec::new();
        for i in 0..edits {
            corpus.body_edit(&files[(i * 104_729) % files.len()], i);
            let t = Instant::now();
            let ok = Command::new(ckg).args(["index", "-q"]).arg(&root).status().unwrap().success();
            assert!(ok);
            d.push(t.elapsed());
        }
        println!("  body-only edit, `ckg index`:      {}", pct(d));

        // Interface edits of a definition with many dependents: rename it and back, so every
        // dependent must re-bind.
        let index_db = ckg_query::Index::open(&root.join(".ckg/index.db")).unwrap();
        let rows = index_db
            .sql(
                "SELECT s.name, f.path, count(DISTINCT e.file_id) AS n FROM edges e JOIN symbols s ON s.id = e.dst_id
                 JOIN files f ON f.id = s.file_id WHERE s.kind = 'function' GROUP BY s.id ORDER BY abs(n - 50), s.qname LIMIT 1",
                1,
                Duration::from_secs(30),
            )
            .unwrap();
        drop(index_db);
        let name = rows.rows[0][0].as_str().unwrap().to_string();
        let path = root.join(rows.rows[0][1].as_str().unwrap());
        let dependents = rows.rows[0][2].as_i64().unwrap();
        let original = std::fs::read_to_string(&path).unwrap();
        let decl = if lang == ckg_gen::Lang::Python { format!("def {name}(") } else { format!("function {name}(") };
        let renamed_decl = if lang == ckg_gen::Lang::Python { format!("def {name}_v2(") } else { format!("function {name}_v2(") };
        let mut d = Vec::new();
        let mut re = 0;
        for i in 0..edits {
            let text = if i % 2 == 0 { original.replacen(&decl, &renamed_decl, 1) } else { original.clone() };
            std::fs::write(&path, text).unwrap();
            let t = Instant::now();
            let s = index_with(&config, &|_| {}, &mut session).unwrap();
            d.push(t.elapsed());
            re += s.re_resolved;
        }
        println!(
            "  rename of `{name}` ({dependents} dependent files), in process: {}  ({:.1} files re-resolved on average)",
            pct(d),
            re as f64 / edits as f64
        );

        // A signature edit with 50 dependents: a hub function that 50 files import and call,
        // renamed and renamed back, so every dependent must re-bind.
        let hub_path = if lang == ckg_gen::Lang::Python { root.join("hub_mod.py") } else { root.join("src/hub-mod.ts") };
        let (hub_a, hub_b) = if lang == ckg_gen::Lang::Python {
            ("def hub_fn(x):\n    return x\n", "def hub_fn(x, y=0) -> int:\n    return x\n")
        } else {
            (
                "export class Hub {}\nexport function hubFn(x: number) { return x; }\n",
                "export class Hub {}\nexport function hubFn(x: number, y = 0): Hub { return new Hub(); }\n",
            )
        };
        std::fs::write(&hub_path, hub_a).unwrap();
        for f in files.iter().take(50) {
            let src = std::fs::read_to_string(f).unwrap();
            let line = if lang == ckg_gen::Lang::Python {
                "\nfrom hub_mod import hub_fn\nhub_fn(1)\n".to_string()
            } else {
                let depth = f.strip_prefix(&root).unwrap().components().count() - 2;
                let prefix = if depth == 0 { "./".to_string() } else { "../".repeat(depth) };
                format!("\nimport {{ hubFn }} from '{prefix}hub-mod';\nhubFn(1);\n")
            };
            std::fs::write(f, src + &line).unwrap();
        }
        index_with(&config, &|_| {}, &mut session).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let mut d = Vec::new();
        let mut re = 0;
        for i in 0..edits {
            std::fs::write(&hub_path, if i % 2 == 0 { hub_b } else { hub_a }).unwrap();
            let t = Instant::now();
            let s = index_with(&config, &|_| {}, &mut session).unwrap();
            d.push(t.elapsed());
            re += s.re_resolved;
        }
        println!(
            "  signature + export edit of a function with 50 dependent files, in process: {}  ({:.1} files re-resolved on average)",
            pct(d),
            re as f64 / edits as f64
        );

        // A 200-file branch switch: 200 files change at once, then change back.
        let mut d = Vec::new();
        let rounds = (edits / 5).max(4);
        for r in 0..rounds {
            for k in 0..200.min(files.len()) {
                corpus.body_edit(&files[k % files.len()], r);
            }
            let t = Instant::now();
            let s = index_with(&config, &|_| {}, &mut session).unwrap();
            d.push(t.elapsed());
            assert!(s.parsed >= 150, "branch switch parsed only {} files", s.parsed);
        }
        println!("  200-file branch switch, in process: {}", pct(d));
    }
}
