//! The walk's cache against a full walk: a random sequence of changes to a tree (files and
//! directories added, removed, renamed, saved through a temporary file, ignore files edited,
//! virtualenvs and skipped folders appearing), and after each, discovery through the cache
//! must give what a full walk gives.
//!
//! Directory times are what the cache trusts. Left alone, every directory a change touches is
//! within the racy window of the last walk and listed again anyway; so one run moves the
//! times of the directories each change touched to a distinct second in the past, as if the
//! change had happened long after the last walk, and the cache must notice them by their
//! times alone. Another run leaves the times as they are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ckg_core::discover::{self, DiscoverConfig, Discovery};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Every directory under the root (the root included), relative, with its modification time.
fn dir_times(root: &Path) -> BTreeMap<PathBuf, SystemTime> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(m) = std::fs::symlink_metadata(&d)
            && m.is_dir()
        {
            out.insert(d.clone(), m.modified().unwrap());
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                stack.push(e.path());
            }
        }
    }
    out
}

fn set_dir_time(dir: &Path, t: SystemTime) {
    let f = std::fs::File::open(dir).unwrap();
    f.set_times(std::fs::FileTimes::new().set_modified(t).set_accessed(t)).unwrap();
}

/// All directories and files of the tree, relative.
fn entries(root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut dirs, mut files) = (Vec::new(), Vec::new());
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                dirs.push(p.strip_prefix(root).unwrap().to_path_buf());
                stack.push(p);
            } else {
                files.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    dirs.sort();
    files.sort();
    (dirs, files)
}

const NAMES: [&str; 12] =
    ["a.py", "b.py", "c.ts", "d.tsx", "e.js", "f.txt", "package.json", "tsconfig.json", "g.pyi", "h.mjs", "README", "i.py"];
const DIRS: [&str; 8] = ["pkg", "src", "lib", "node_modules", "build", "util", "env", "web"];
const IGNORES: [&str; 5] = ["*.ts\n", "b.py\n", "lib/\n", "# nothing\n", "!keep.py\n*.js\n"];

/// One random change; returns what it did.
fn change(root: &Path, rng: &mut Rng, step: usize) -> String {
    let (dirs, files) = entries(root);
    let pick_dir = |rng: &mut Rng| -> PathBuf {
        if dirs.is_empty() || rng.below(3) == 0 { PathBuf::new() } else { dirs[rng.below(dirs.len())].clone() }
    };
    match rng.below(12) {
        0 | 1 => {
            let p = pick_dir(rng).join(NAMES[rng.below(NAMES.len())]);
            std::fs::write(root.join(&p), format!("x = {step}\n")).unwrap();
            format!("write {}", p.display())
        }
        2 if !files.is_empty() => {
            let p = &files[rng.below(files.len())];
            std::fs::remove_file(root.join(p)).unwrap();
            format!("remove {}", p.display())
        }
        3 => {
            let d = pick_dir(rng).join(DIRS[rng.below(DIRS.len())]);
            std::fs::create_dir_all(root.join(&d)).unwrap();
            std::fs::write(root.join(&d).join(NAMES[rng.below(NAMES.len())]), "y = 1\n").unwrap();
            format!("mkdir {}", d.display())
        }
        4 if !dirs.is_empty() => {
            let d = &dirs[rng.below(dirs.len())];
            std::fs::remove_dir_all(root.join(d)).unwrap();
            format!("rmdir {}", d.display())
        }
        5 if !files.is_empty() => {
            let from = &files[rng.below(files.len())];
            let to = pick_dir(rng).join(NAMES[rng.below(NAMES.len())]);
            if root.join(&to).is_dir() {
                return "nothing".into();
            }
            std::fs::rename(root.join(from), root.join(&to)).unwrap();
            format!("rename {} -> {}", from.display(), to.display())
        }
        6 if !dirs.is_empty() => {
            let from = &dirs[rng.below(dirs.len())];
            let to = PathBuf::from(format!("{}{step}", DIRS[rng.below(DIRS.len())]));
            std::fs::rename(root.join(from), root.join(&to)).unwrap();
            format!("rename dir {} -> {}", from.display(), to.display())
        }
        7 if !files.is_empty() => {
            // An editor's atomic save: a temporary file renamed over the original.
            let p = &files[rng.below(files.len())];
            let tmp = root.join(p).with_extension("swp");
            std::fs::write(&tmp, format!("z = {step}\n")).unwrap();
            std::fs::rename(&tmp, root.join(p)).unwrap();
            format!("atomic save {}", p.display())
        }
        8 => {
            let d = pick_dir(rng);
            let p = d.join(if rng.below(2) == 0 { ".gitignore" } else { ".ignore" });
            if rng.below(3) == 0 && root.join(&p).exists() {
                std::fs::remove_file(root.join(&p)).unwrap();
                format!("remove {}", p.display())
            } else {
                std::fs::write(root.join(&p), IGNORES[rng.below(IGNORES.len())]).unwrap();
                format!("ignore file {}", p.display())
            }
        }
        9 if !dirs.is_empty() => {
            let d = &dirs[rng.below(dirs.len())];
            let cfg = root.join(d).join("pyvenv.cfg");
            if cfg.exists() {
                std::fs::remove_file(&cfg).unwrap();
                format!("unvenv {}", d.display())
            } else {
                std::fs::write(&cfg, "home = /usr\n").unwrap();
                format!("venv {}", d.display())
            }
        }
        10 if !files.is_empty() => {
            // Content only: no directory changes.
            let p = &files[rng.below(files.len())];
            std::fs::write(root.join(p), format!("w = {step}\n")).unwrap();
            format!("edit {}", p.display())
        }
        _ => {
            let p = pick_dir(rng).join(format!("n{step}.py"));
            std::fs::write(root.join(&p), "v = 2\n").unwrap();
            format!("new {}", p.display())
        }
    }
}

fn summary(d: &Discovery) -> Vec<String> {
    let mut out: Vec<String> =
        d.files.iter().map(|f| format!("file {} {:?} {} {} {}", f.path, f.lang, f.size, f.mtime_ns, f.module)).collect();
    out.extend(d.configs.iter().map(|(p, _)| format!("config {p}")));
    out.extend(d.skipped.iter().map(|s| format!("skipped {} {}", s.path, s.diagnostic.kind.as_str())));
    out
}

fn run(seed: u64, move_times: bool, config: DiscoverConfig) {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().canonicalize().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = cache_dir.path().join("index.walk");
    let mut rng = Rng(seed);
    for d in ["pkg", "src/app", "lib/x"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    for f in ["pkg/__init__.py", "pkg/m.py", "src/app/main.ts", "lib/x/y.js", "package.json", "a.py"] {
        std::fs::write(root.join(f), "pass\n").unwrap();
    }
    let past = SystemTime::now() - Duration::from_secs(100_000);
    if move_times {
        for d in dir_times(&root).keys() {
            set_dir_time(d, past);
        }
    }
    let mut reused = 0;
    for step in 0..250 {
        let before = dir_times(&root);
        let what = if step == 0 { "start".to_string() } else { change(&root, &mut rng, step) };
        if move_times {
            // The directories this change touched get a time of their own, long past.
            let t = past + Duration::from_secs(10 * (step as u64 + 1));
            for (d, now) in dir_times(&root) {
                if before.get(&d) != Some(&now) {
                    set_dir_time(&d, t);
                }
            }
        }
        let (cached, listing) = discover::discover_cached(&root, &config, &cache, &|_| {}).unwrap();
        if listing.is_none() {
            reused += 1;
        }
        if let Some(l) = &listing {
            discover::cache::save(l, &cache);
        }
        let full = discover::discover(&root, &config).unwrap();
        assert_eq!(summary(&cached), summary(&full), "seed {seed}, step {step}: {what}");
    }
    if move_times {
        assert!(reused > 20, "the cache was reused as is in {reused} of 250 steps");
    }
}

#[test]
fn cached_walk_equals_a_full_walk_with_times_moved() {
    for seed in [1, 7, 42] {
        run(seed, true, DiscoverConfig::default());
    }
}

#[test]
fn cached_walk_equals_a_full_walk_with_real_times() {
    run(3, false, DiscoverConfig::default());
}

#[test]
fn cached_walk_equals_a_full_walk_with_globs_and_without_ignore_files() {
    let config = DiscoverConfig { exclude: vec!["lib/**".into(), "**/*.tsx".into()], ..DiscoverConfig::default() };
    run(5, true, config);
    let config =
        DiscoverConfig { include: vec!["src/**".into(), "pkg/**".into()], respect_ignore_files: false, ..DiscoverConfig::default() };
    run(9, true, config);
}

#[test]
fn an_unreadable_or_foreign_cache_is_ignored() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().canonicalize().unwrap();
    std::fs::write(root.join("a.py"), "pass\n").unwrap();
    let cache = root.join("index.walk");
    for junk in [&b"garbage"[..], b"ckg-walk 1\nfingerprint\tx\n", b"\xff\xfe", b"ckg-walk 1\nfingerprint\tf\nscan_started_ns\tzz\n"] {
        std::fs::write(&cache, junk).unwrap();
        let (d, listing) = discover::discover_cached(&root, &DiscoverConfig::default(), &cache, &|_| {}).unwrap();
        assert_eq!(d.files.len(), 1);
        assert!(listing.is_some(), "a fresh listing replaces the junk");
    }
}
