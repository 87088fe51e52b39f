//! Real files to start from: the resolution fixtures and the two hand-written applications.

use std::path::{Path, PathBuf};

use ckg_core::lang::Lang;

/// The folders, relative to the repository root, whose source files are seeds.
pub const SEED_DIRS: &[&str] = &["tests/fixtures/python", "tests/fixtures/typescript", "corpora/express-app", "corpora/flask-app"];

/// Larger files are left out: mutations of small files find the same shapes faster.
pub const MAX_SEED: u64 = 16 * 1024;

pub struct Seed {
    pub path: PathBuf,
    pub lang: Lang,
    pub src: Vec<u8>,
}

/// Every seed under `root` (the repository), sorted by path so that an input picks the same
/// seed on every run.
pub fn load(root: &Path) -> Vec<Seed> {
    let mut files = Vec::new();
    for dir in SEED_DIRS {
        collect(&root.join(dir), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let lang = Lang::from_path(path.to_str()?)?;
            let src = std::fs::read(&path).ok()?;
            Some(Seed { path, lang, src })
        })
        .collect()
}

/// The repository root, from the manifest folder of the crate being built (the root package
/// or `fuzz/`).
pub fn repo_root(manifest_dir: &str) -> PathBuf {
    let dir = Path::new(manifest_dir);
    if dir.join("fuzz").is_dir() { dir.to_path_buf() } else { dir.parent().unwrap_or(dir).to_path_buf() }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                stack.push(path);
            } else if meta.len() <= MAX_SEED && Lang::from_path(&path.to_string_lossy()).is_some() {
                out.push(path);
            }
        }
    }
}
