//! The walk's cache: what the last walk listed, so that a run in which no directory changed
//! lists nothing again (on django, 3,249 directories: reading them all is most of a no-change
//! run).
//!
//! A directory's modification time changes when an entry is added to it, removed from it or
//! renamed in it, so a directory whose time is what the cache recorded (and was not modified
//! within [`RACY_WINDOW_NS`] before the walk that recorded it) still has the entries the cache
//! lists. Only the changed directories are listed again, one level deep; a new directory is
//! walked whole, a removed one drops its subtree. What changes which entries a walk keeps
//! falls back to a full walk: an ignore file edited, added or removed (`.gitignore`, `.ignore`,
//! `.git/info/exclude`, in the tree or above the root), a repository boundary (`.git`)
//! appearing or going, a virtualenv gaining or losing its `pyvenv.cfg`, other settings, walk
//! errors, or many changed directories. File sizes and times are read on every run
//! ([`super::finish`]); the index compares them with what it stored.
//!
//! The cache is a text file next to the database (`index.walk`), written whole to a temporary
//! file and renamed; one that cannot be read or is of another version is ignored.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{Skipped, Walker, mtime_ns};

/// A directory modified this close before the walk that listed it may have changed again
/// within the same timestamp tick: it is listed again on the next run.
pub const RACY_WINDOW_NS: i64 = 200_000_000;

/// More changed directories than this and a full walk is as cheap.
const MAX_RELISTED: usize = 256;

/// The cache's format and what a walk lists in it (2: links to source files, reported as
/// skipped); another is ignored, and the tree walked whole.
const HEADER: &str = "ckg-walk 2";

/// What a walk listed.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// Settings the listing depends on (root, discovery options, ckg version).
    pub fingerprint: String,
    /// When the walk that recorded the oldest directory time started.
    pub scan_started_ns: i64,
    /// Directories entered, relative to the root (`""` is the root), with their times.
    pub dirs: BTreeMap<String, i64>,
    /// Virtualenvs seen and not entered, with their times.
    pub venvs: BTreeMap<String, i64>,
    /// Source and configuration files.
    pub files: BTreeSet<String>,
    /// Ignore files that shape the walk, relative to the root for those in the tree and
    /// absolute for those above it: their time and size, or `None` when absent (a `.git`
    /// folder is recorded by presence only, as `(0, 0)`).
    pub ignore_files: BTreeMap<String, Option<(i64, u64)>>,
    /// Errors of the walk (a listing with errors is never reused).
    pub errors: Vec<Skipped>,
}

/// The ignore files looked for in each directory.
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".git/info/exclude"];

fn file_state(path: &Path, presence_only: bool) -> Option<(i64, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some(if presence_only { (0, 0) } else { (mtime_ns(&meta), meta.len()) })
}

fn join_rel(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

impl Listing {
    /// Records the ignore files present in a directory being walked.
    pub(super) fn record_ignore_files(&mut self, rel: &str, abs: &Path) {
        for name in IGNORE_FILES {
            if let Some(state) = file_state(&abs.join(name), false) {
                self.ignore_files.insert(join_rel(rel, name), Some(state));
            }
        }
        if abs.join(".git").exists() {
            self.ignore_files.insert(join_rel(rel, ".git"), Some((0, 0)));
        }
    }

    /// Records the ignore files of the root's ancestors, present or not.
    fn record_ancestors(&mut self, root: &Path) {
        for dir in root.ancestors().skip(1) {
            for name in IGNORE_FILES.iter().chain(&[".git"]) {
                let path = dir.join(name);
                self.ignore_files.insert(path.to_string_lossy().into_owned(), file_state(&path, *name == ".git"));
            }
        }
    }

    /// Whether every ignore file is as recorded.
    fn ignore_files_unchanged(&self, root: &Path) -> bool {
        self.ignore_files.iter().all(|(key, state)| {
            let path = if Path::new(key).is_absolute() { PathBuf::from(key) } else { root.join(key) };
            file_state(&path, key.ends_with(".git")) == *state
        })
    }

    /// Drops a directory and everything under it.
    fn remove_subtree(&mut self, dir: &str) {
        fn drop_under<V>(map: &mut BTreeMap<String, V>, dir: &str) {
            let prefix = format!("{dir}/");
            let keys: Vec<String> = map.range(prefix.clone()..).map(|(k, _)| k).take_while(|k| k.starts_with(&prefix)).cloned().collect();
            for k in keys {
                map.remove(&k);
            }
            map.remove(dir);
        }
        drop_under(&mut self.dirs, dir);
        drop_under(&mut self.venvs, dir);
        drop_under(&mut self.ignore_files, dir);
        let prefix = format!("{dir}/");
        let files: Vec<String> = self.files.range(prefix.clone()..).take_while(|k| k.starts_with(&prefix)).cloned().collect();
        for f in files {
            self.files.remove(&f);
        }
    }

    /// Adds what a walk of a subtree, or one thread of a walk, listed.
    pub(super) fn merge(&mut self, other: Listing) {
        self.dirs.extend(other.dirs);
        self.venvs.extend(other.venvs);
        self.files.extend(other.files);
        self.ignore_files.extend(other.ignore_files);
        self.errors.extend(other.errors);
    }

    fn serialize(&self) -> Option<String> {
        let mut out = format!("{HEADER}\nfingerprint\t{}\nscan_started_ns\t{}\n", self.fingerprint, self.scan_started_ns);
        let plain = |s: &str| !s.contains(['\n', '\t', '\r']);
        for (d, t) in &self.dirs {
            out.push_str(&format!("D\t{t}\t{d}\n"));
        }
        for (d, t) in &self.venvs {
            out.push_str(&format!("V\t{t}\t{d}\n"));
        }
        for (k, state) in &self.ignore_files {
            match state {
                Some((t, n)) => out.push_str(&format!("I\t{t}\t{n}\t{k}\n")),
                None => out.push_str(&format!("I\t-\t-\t{k}\n")),
            }
        }
        for f in &self.files {
            out.push_str(&format!("F\t{f}\n"));
        }
        let all_plain = self.dirs.keys().chain(self.venvs.keys()).chain(self.ignore_files.keys()).chain(&self.files).all(|k| plain(k));
        (all_plain && plain(&self.fingerprint)).then_some(out)
    }

    fn parse(text: &str) -> Option<Listing> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let fingerprint = lines.next()?.strip_prefix("fingerprint\t")?.to_string();
        let scan_started_ns = lines.next()?.strip_prefix("scan_started_ns\t")?.parse().ok()?;
        // Collected first and built in bulk: the file lists each table sorted.
        let (mut dirs, mut venvs, mut ignore_files, mut files) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for line in lines {
            let mut parts = line.split('\t');
            match parts.next()? {
                "D" => dirs.push((parts.next()?.parse().ok()?, parts.next()?)),
                "V" => venvs.push((parts.next()?.parse().ok()?, parts.next()?)),
                "I" => {
                    let (t, n) = (parts.next()?, parts.next()?);
                    let state = if t == "-" { None } else { Some((t.parse().ok()?, n.parse().ok()?)) };
                    ignore_files.push((parts.next()?.to_string(), state));
                }
                "F" => files.push(parts.next()?.to_string()),
                _ => return None,
            }
        }
        let timed = |v: Vec<(i64, &str)>| v.into_iter().map(|(t, d)| (d.to_string(), t)).collect();
        Some(Listing {
            fingerprint,
            scan_started_ns,
            dirs: timed(dirs),
            venvs: timed(venvs),
            files: files.into_iter().collect(),
            ignore_files: ignore_files.into_iter().collect(),
            errors: Vec::new(),
        })
    }
}

fn now_ns() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as i64).unwrap_or(0)
}

fn fingerprint(walker: &Walker) -> String {
    let text = format!("{}|{:?}|{}", walker.root.display(), walker.config, env!("CARGO_PKG_VERSION"));
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}

/// Walks the whole tree and records what a later run needs to trust the listing.
fn full_walk(walker: &Walker) -> Listing {
    let started = now_ns();
    let mut listing = walker.walk(walker.root, None);
    listing.fingerprint = fingerprint(walker);
    listing.scan_started_ns = started;
    if walker.config.respect_ignore_files {
        listing.record_ancestors(walker.root);
    }
    listing
}

/// The listing of the tree: the cached one brought up to date when it can be, a full walk
/// otherwise; and whether it differs from what is cached.
pub(super) fn refresh(walker: &Walker, cached: Option<Listing>) -> (Listing, bool) {
    match cached {
        Some(mut listing) => match update(walker, &mut listing) {
            Some(changed) => (listing, changed),
            None => (full_walk(walker), true),
        },
        None => (full_walk(walker), true),
    }
}

/// The listing cached at `cache`, if it was made with the walk's settings.
pub(super) fn load(walker: &Walker, cache: &Path) -> Option<Listing> {
    let cached = std::fs::read_to_string(cache).ok().and_then(|t| Listing::parse(&t))?;
    (cached.fingerprint == fingerprint(walker)).then_some(cached)
}

/// Lists the cached listing's changed directories again; whether any changed, or `None` when
/// a full walk is needed.
pub(super) fn update(walker: &Walker, listing: &mut Listing) -> Option<bool> {
    let root = walker.root;
    let started = now_ns();
    if !listing.errors.is_empty() || !listing.ignore_files_unchanged(root) {
        return None;
    }
    let racy_after = listing.scan_started_ns - RACY_WINDOW_NS;
    let stale = |(rel, recorded): (&String, &i64)| -> Option<String> {
        let now = std::fs::metadata(root.join(rel)).ok().filter(|m| m.is_dir()).map(|m| mtime_ns(&m));
        (now != Some(*recorded) || *recorded >= racy_after).then(|| rel.clone())
    };
    if listing.venvs.iter().any(|e| stale(e).is_some()) {
        return None;
    }
    // On every core, in order.
    let dirs: Vec<(&String, &i64)> = listing.dirs.iter().collect();
    let changed: Vec<String> = dirs.par_iter().with_min_len(256).filter_map(|&e| stale(e)).collect();
    if changed.is_empty() {
        return Some(false);
    }
    if changed.len() > MAX_RELISTED {
        return None;
    }
    // Directory times are trusted when older than the start of the walk that read them; one
    // start is kept for all, the latest (trusting less is safe).
    listing.scan_started_ns = started;
    // Parents come before their children (sorted paths), so a removed directory is gone
    // from the listing before its own turn.
    for dir in changed {
        if !listing.dirs.contains_key(&dir) {
            continue;
        }
        let abs = root.join(&dir);
        if !abs.is_dir() {
            // Removed: its parent changed too and was listed first, unless it is the root.
            return None;
        }
        if !dir.is_empty() && abs.join("pyvenv.cfg").exists() {
            // Became a virtualenv: its parent's walk would not enter it.
            return None;
        }
        let fresh = walker.walk(&abs, Some(1));
        if !fresh.errors.is_empty() {
            return None;
        }
        // A repository boundary or an ignore file appearing here changes the walk below.
        let recorded = |name: &str| listing.ignore_files.contains_key(&join_rel(&dir, name));
        let present = |name: &str| fresh.ignore_files.contains_key(&join_rel(&dir, name));
        if IGNORE_FILES.iter().chain(&[".git"]).any(|n| recorded(n) != present(n)) {
            return None;
        }
        let is_child = |path: &str| match path.rsplit_once('/') {
            Some((parent, _)) => parent == dir,
            None => dir.is_empty() && !path.is_empty(),
        };
        // The directory's own entries, replaced.
        let old_files: Vec<String> = listing.files.iter().filter(|f| is_child(f)).cloned().collect();
        for f in old_files {
            listing.files.remove(&f);
        }
        listing.files.extend(fresh.files.iter().filter(|f| is_child(f)).cloned());
        let old_dirs: BTreeSet<String> = listing.dirs.keys().chain(listing.venvs.keys()).filter(|d| is_child(d)).cloned().collect();
        let new_dirs: BTreeSet<String> = fresh.dirs.keys().filter(|d| is_child(d)).cloned().collect();
        for gone in old_dirs.iter().filter(|d| !new_dirs.contains(*d)) {
            listing.remove_subtree(gone);
        }
        listing.venvs.extend(fresh.venvs.into_iter().filter(|(d, _)| is_child(d)));
        for added in new_dirs.iter().filter(|d| !old_dirs.contains(*d)) {
            let sub = walker.walk(&root.join(added), None);
            if !sub.errors.is_empty() {
                return None;
            }
            listing.merge(sub);
        }
        listing.dirs.insert(dir.clone(), *fresh.dirs.get(&dir)?);
    }
    // The walk's start moved on, so the listing differs from the cached one even when the
    // directories were listed with the same entries.
    Some(true)
}

/// Writes a listing to the cache file ([`crate::cache_file::replace`]); a listing that cannot
/// be written as text, or a failure to write, leaves no cache.
pub fn save(listing: &Listing, cache: &Path) {
    let Some(text) = listing.serialize() else {
        let _ = std::fs::remove_file(cache);
        return;
    };
    if !listing.errors.is_empty() {
        let _ = std::fs::remove_file(cache);
        return;
    }
    let _ = crate::cache_file::replace(cache, &[text.as_bytes()]);
}
