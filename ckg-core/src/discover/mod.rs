//! Discovery: which files under the root are indexed, in a deterministic order, and the
//! module name each one gets.
//!
//! Uses the `ignore` crate (ripgrep's walker): `.gitignore`, `.ignore` and git excludes are
//! respected; `.git`, `node_modules`, virtualenvs, caches and `dist`/`build` output are
//! skipped by default; `--include`/`--exclude` globs refine the set. Symlinks are not followed
//! unless asked, and a symlink loop is reported, never followed forever.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use ignore::overrides::OverrideBuilder;

use crate::error::{Error, Result};
use crate::facts::{Diagnostic, DiagnosticKind};
use crate::lang::Lang;

pub mod cache;
mod python_roots;

/// Directory names never descended into (tool folders, dependencies, caches).
pub const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".ckg",
    "node_modules",
    "bower_components",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    ".cache",
    ".parcel-cache",
];

/// Folders that usually hold build output, skipped unless `build_dirs` is set (a package that
/// ships only its bundle, or a Python package named `build`, needs them).
pub const BUILD_DIRS: &[&str] = &["dist", "build", "out", ".next", ".nuxt", ".turbo", "coverage", ".svelte-kit"];

/// Whether discovery skips a folder of this name.
pub fn skipped_dir(name: &str, build_dirs: bool) -> bool {
    SKIPPED_DIRS.contains(&name) || (!build_dirs && BUILD_DIRS.contains(&name))
}

/// Options for discovery.
#[derive(Clone, Debug)]
pub struct DiscoverConfig {
    /// Globs a path must match (any of), relative to the root; empty means everything.
    pub include: Vec<String>,
    /// Globs that exclude paths.
    pub exclude: Vec<String>,
    pub follow_symlinks: bool,
    /// Files larger than this are skipped with a diagnostic.
    pub max_file_size: u64,
    /// Respect .gitignore and friends.
    pub respect_ignore_files: bool,
    /// Extra Python import roots, relative to the root (`lib`, `packages/core/src`).
    pub python_roots: Vec<String>,
    /// Also index the folders in `BUILD_DIRS`.
    pub build_dirs: bool,
}

impl Default for DiscoverConfig {
    fn default() -> Self {
        DiscoverConfig {
            include: Vec::new(),
            exclude: Vec::new(),
            follow_symlinks: false,
            max_file_size: 2 * 1024 * 1024,
            respect_ignore_files: true,
            python_roots: Vec::new(),
            build_dirs: false,
        }
    }
}

/// A file to index.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub abs: PathBuf,
    pub lang: Lang,
    pub size: u64,
    pub mtime_ns: i64,
    /// Module qname: dotted for Python, the path for TS/JS.
    pub module: String,
}

/// A path that was seen but not indexed, and why.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub path: String,
    pub diagnostic: Diagnostic,
}

#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<SourceFile>,
    pub skipped: Vec<Skipped>,
    /// Project configuration files (`package.json`, `tsconfig*.json`, `jsconfig*.json`, and
    /// for Python import roots `pyproject.toml`, `setup.cfg`, `pyrightconfig.json`):
    /// (relative path, absolute path), sorted.
    pub configs: Vec<(String, PathBuf)>,
}

/// Whether a file name is project configuration that module resolution reads.
pub fn is_config(name: &str) -> bool {
    matches!(name, "package.json" | "pyproject.toml" | "setup.cfg" | "pyrightconfig.json")
        || (name.ends_with(".json") && (name.starts_with("tsconfig") || name.starts_with("jsconfig")))
}

fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// A file's modification time in nanoseconds since the epoch (0 when unknown).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos() as i64).unwrap_or(0)
}

/// Walks the root and returns the files to index, sorted by path.
pub fn discover(root: &Path, config: &DiscoverConfig) -> Result<Discovery> {
    let walker = Walker::new(root, config)?;
    let listing = walker.walk(root, None);
    Ok(finish(root, config, &listing, None, &|_| {}))
}

/// The glob of ckg's own folder, which every walk of an index run excludes.
pub const OWN_FOLDER: &str = ".ckg/**";

/// The source files added under `root` since the walk cached at `cache` (the last index
/// run's), found by listing again only the directories whose time changed; `None` when that
/// is not known so cheaply: no cache, a walk with other settings than the defaults, or a change
/// that needs a whole walk (an ignore file edited, many directories changed).
pub fn added_source_files(root: &Path, cache: &Path) -> Option<Vec<String>> {
    let config = DiscoverConfig { exclude: vec![OWN_FOLDER.into()], ..DiscoverConfig::default() };
    let walker = Walker::new(root, &config).ok()?;
    let mut listing = cache::load(&walker, cache)?;
    let before = listing.files.clone();
    if !cache::update(&walker, &mut listing)? {
        return Some(Vec::new());
    }
    Some(listing.files.difference(&before).filter(|f| Lang::from_path(f).is_some()).cloned().collect())
}

/// Walks the root like [`discover`], reusing the listing cached at `cache` for the
/// directories whose modification time says nothing was added, removed or renamed in them
/// (see [`cache`]). Returns the listing to cache again when it changed. `seen` is called with
/// each source file as soon as its size and time are known (on any thread).
pub fn discover_cached(
    root: &Path,
    config: &DiscoverConfig,
    cache: &Path,
    seen: &(dyn Fn(&SourceFile) + Sync),
) -> Result<(Discovery, Option<cache::Listing>)> {
    let walker = Walker::new(root, config)?;
    let cached = cache::load(&walker, cache);
    // The cached listing's files are stat'ed before its directories' times are checked: a
    // changed file is seen (and `seen` told, which starts work that waits for it) at the
    // start of the walk rather than after every directory. A file the directories then show
    // to be new is stat'ed after them; one they show to be gone is dropped.
    let early = cached.as_ref().map(|listing| {
        let paths: Vec<&String> = listing.files.iter().collect();
        let found = stat_files(root, config, &paths, seen);
        (paths.into_iter().cloned().collect::<Vec<String>>(), found)
    });
    let (listing, changed) = cache::refresh(&walker, cached);
    let discovery = finish(root, config, &listing, early, seen);
    Ok((discovery, changed.then_some(listing)))
}

/// The walk's settings: ignore files, overrides, skipped directories, symlinks.
pub(crate) struct Walker<'a> {
    root: &'a Path,
    config: &'a DiscoverConfig,
    overrides: ignore::overrides::Override,
}

impl<'a> Walker<'a> {
    fn new(root: &'a Path, config: &'a DiscoverConfig) -> Result<Walker<'a>> {
        if !root.is_dir() {
            return Err(Error::NotADirectory(root.to_path_buf()));
        }
        let mut overrides = OverrideBuilder::new(root);
        // `./src/**` is written as a path from the root: in the globs' syntax, `/src/**`.
        let rooted = |g: &str| g.strip_prefix("./").map_or_else(|| g.to_string(), |rest| format!("/{rest}"));
        for g in &config.include {
            overrides.add(&rooted(g)).map_err(|e| Error::Pattern { pattern: g.clone(), message: e.to_string() })?;
        }
        for g in &config.exclude {
            overrides.add(&format!("!{}", rooted(g))).map_err(|e| Error::Pattern { pattern: g.clone(), message: e.to_string() })?;
        }
        let overrides = overrides.build().map_err(|e| Error::Pattern { pattern: "<globs>".into(), message: e.to_string() })?;
        Ok(Walker { root, config, overrides })
    }

    /// Lists the tree under `start` (the root or a directory below it), `max_depth` levels
    /// deep: the directories entered and the virtualenvs not entered (with their modification
    /// times), the source and configuration files, the ignore files that shaped the walk, and
    /// walk errors. A whole tree is walked on every core (a directory costs a listing and a
    /// stat of each ignore file it could hold; django's 3,249 took 0.2 s on one core); one
    /// level, as when the cache lists a changed directory again, on the calling thread.
    pub(crate) fn walk(&self, start: &Path, max_depth: Option<usize>) -> cache::Listing {
        self.walk_on(start, max_depth, max_depth.is_none())
    }

    /// [`Walker::walk`], on every core when `parallel`, else on the calling thread.
    fn walk_on(&self, start: &Path, max_depth: Option<usize>, parallel: bool) -> cache::Listing {
        let config = self.config;
        let build_dirs = config.build_dirs;
        let venvs: std::sync::Arc<std::sync::Mutex<Vec<PathBuf>>> = Default::default();
        let seen_venvs = venvs.clone();
        let mut builder = ignore::WalkBuilder::new(start);
        builder
            .follow_links(config.follow_symlinks)
            .hidden(false)
            .git_ignore(config.respect_ignore_files)
            .git_global(false)
            .git_exclude(config.respect_ignore_files)
            .ignore(config.respect_ignore_files)
            .parents(config.respect_ignore_files)
            .require_git(false)
            .max_depth(max_depth)
            .overrides(self.overrides.clone())
            .filter_entry(move |e| {
                if e.file_type().is_some_and(|t| t.is_dir()) && e.depth() > 0 {
                    let name = e.file_name().to_string_lossy();
                    if skipped_dir(&name, build_dirs) {
                        return false;
                    }
                    // A virtualenv under any name.
                    if e.path().join("pyvenv.cfg").exists() {
                        seen_venvs.lock().unwrap_or_else(|p| p.into_inner()).push(e.path().to_path_buf());
                        return false;
                    }
                }
                true
            });
        let mut out = cache::Listing::default();
        if parallel {
            // The walker's own number of threads: one per core, at most 12.
            let parts = std::sync::Mutex::new(Vec::new());
            builder.build_parallel().visit(&mut PartsBuilder { walker: self, parts: &parts });
            for part in parts.into_inner().unwrap_or_else(|p| p.into_inner()) {
                out.merge(part);
            }
        } else {
            for entry in builder.build() {
                self.take(&mut out, entry);
            }
        }
        // The threads' errors in one order, whichever thread met them.
        out.errors.sort_by(|a, b| (&a.path, &a.diagnostic.message).cmp(&(&b.path, &b.diagnostic.message)));
        for v in venvs.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            let mtime = std::fs::metadata(&v).map(|m| mtime_ns(&m)).unwrap_or(0);
            out.venvs.insert(rel_path(self.root, &v), mtime);
        }
        out
    }

    /// Adds what one entry of the walk is to `out`.
    fn take(&self, out: &mut cache::Listing, entry: std::result::Result<ignore::DirEntry, ignore::Error>) {
        let root = self.root;
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                let path = walk_error_path(&err).map(|p| rel_path(root, &p)).unwrap_or_else(|| ".".into());
                let message = if err.is_io() { err.to_string() } else { format!("{err}") };
                out.errors.push(Skipped { path, diagnostic: Diagnostic { kind: DiagnosticKind::WalkError, message, line: None } });
                return;
            }
        };
        let Some(file_type) = entry.file_type() else { return };
        if file_type.is_dir() {
            let rel = rel_path(root, entry.path());
            out.dirs.insert(rel.clone(), entry.metadata().map(|m| mtime_ns(&m)).unwrap_or(0));
            if self.config.respect_ignore_files {
                out.record_ignore_files(&rel, entry.path());
            }
            return;
        }
        // A link to a source file that the walk does not follow is listed, to be reported as
        // skipped (see `stat_files`), not dropped in silence.
        let path = rel_path(root, entry.path());
        if file_type.is_symlink() && Lang::from_path(&path).is_some() {
            out.files.insert(path);
            return;
        }
        if !file_type.is_file() {
            return;
        }
        if Lang::from_path(&path).is_some() || is_config(&entry.file_name().to_string_lossy()) {
            out.files.insert(path);
        }
    }
}

/// Gives each thread of a parallel walk its own part of the listing, handed in when the
/// thread is done.
struct PartsBuilder<'w, 'a> {
    walker: &'w Walker<'a>,
    parts: &'w std::sync::Mutex<Vec<cache::Listing>>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for PartsBuilder<'s, '_> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Part { walker: self.walker, parts: self.parts, listing: cache::Listing::default() })
    }
}

struct Part<'w, 'a> {
    walker: &'w Walker<'a>,
    parts: &'w std::sync::Mutex<Vec<cache::Listing>>,
    listing: cache::Listing,
}

impl ignore::ParallelVisitor for Part<'_, '_> {
    fn visit(&mut self, entry: std::result::Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        self.walker.take(&mut self.listing, entry);
        ignore::WalkState::Continue
    }
}

impl Drop for Part<'_, '_> {
    fn drop(&mut self) {
        let listing = std::mem::take(&mut self.listing);
        self.parts.lock().unwrap_or_else(|p| p.into_inner()).push(listing);
    }
}

/// What a path of a listing is once stat'ed.
enum Found {
    Source(SourceFile),
    Config(String, PathBuf),
    Skipped(Skipped),
    Gone,
}

/// Stats `paths` on every core (a run that changed nothing is mostly this and the
/// directories' times), in order; `seen` is told of each source file.
fn stat_files(root: &Path, config: &DiscoverConfig, paths: &[&String], seen: &(dyn Fn(&SourceFile) + Sync)) -> Vec<Found> {
    paths
        .par_iter()
        .with_min_len(256)
        .map(|path| {
            let abs = root.join(path.as_str());
            let Some(lang) = Lang::from_path(path) else { return Found::Config(path.to_string(), abs) };
            let meta = if config.follow_symlinks { std::fs::metadata(&abs) } else { std::fs::symlink_metadata(&abs) };
            let meta = match meta {
                Ok(m) if m.is_file() => m,
                Ok(m) if m.file_type().is_symlink() => {
                    let message = "a symbolic link, not followed (--follow follows links)".to_string();
                    let diagnostic = Diagnostic { kind: DiagnosticKind::Symlink, message, line: None };
                    return Found::Skipped(Skipped { path: path.to_string(), diagnostic });
                }
                Ok(_) => return Found::Gone,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Found::Gone,
                Err(err) => {
                    let diagnostic = Diagnostic { kind: DiagnosticKind::Unreadable, message: err.to_string(), line: None };
                    return Found::Skipped(Skipped { path: path.to_string(), diagnostic });
                }
            };
            if meta.len() > config.max_file_size {
                let message = format!("{} bytes is over the limit of {} bytes (--max-file-size)", meta.len(), config.max_file_size);
                let diagnostic = Diagnostic { kind: DiagnosticKind::TooLarge, message, line: None };
                return Found::Skipped(Skipped { path: path.to_string(), diagnostic });
            }
            let file = SourceFile { path: path.to_string(), abs, lang, size: meta.len(), mtime_ns: mtime_ns(&meta), module: String::new() };
            seen(&file);
            Found::Source(file)
        })
        .collect()
}

/// The files of a listing with their sizes and times, sorted, with their module names; files
/// over the size limit and unreadable ones are skipped with a diagnostic. `early`: paths
/// stat'ed already (those of an older listing), with what they were found to be.
fn finish(
    root: &Path,
    config: &DiscoverConfig,
    listing: &cache::Listing,
    early: Option<(Vec<String>, Vec<Found>)>,
    seen: &(dyn Fn(&SourceFile) + Sync),
) -> Discovery {
    let paths: Vec<&String> = listing.files.iter().collect();
    let found: Vec<Found> = match early {
        Some((early_paths, found)) if early_paths.iter().eq(paths.iter().copied()) => found,
        Some((early_paths, found)) => {
            let mut known: HashMap<String, Found> = early_paths.into_iter().zip(found).collect();
            let new: Vec<&String> = paths.iter().copied().filter(|p| !known.contains_key(p.as_str())).collect();
            let mut new = stat_files(root, config, &new, seen).into_iter();
            paths.iter().map(|p| known.remove(p.as_str()).or_else(|| new.next()).unwrap_or(Found::Gone)).collect()
        }
        None => stat_files(root, config, &paths, seen),
    };
    let mut out = Discovery { skipped: listing.errors.clone(), ..Discovery::default() };
    for f in found {
        match f {
            Found::Source(s) => out.files.push(s),
            Found::Config(rel, abs) => out.configs.push((rel, abs)),
            Found::Skipped(s) => out.skipped.push(s),
            Found::Gone => {}
        }
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    out.files.dedup_by(|b, a| a.path == b.path);
    out.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    out.configs.sort();
    // Roots given on the command line, then those the project's configuration names.
    let mut roots = config.python_roots.clone();
    roots.extend(python_roots::python_roots(&out.configs, &out.files));
    assign_modules(&mut out.files, &roots);
    out
}

fn walk_error_path(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } => walk_error_path(err),
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        ignore::Error::WithLineNumber { err, .. } => walk_error_path(err),
        ignore::Error::Partial(errs) => errs.first().and_then(walk_error_path),
        _ => None,
    }
}

/// The module name of a Python file: its path from the deepest import root that contains it
/// (configured roots like `lib` or `packages/core/src`, then `src/` when it is not itself a
/// package — the "src layout" — then the repository root).
fn python_module_name(path: &str, src_is_package: bool, roots: &[String]) -> String {
    let stem = path.strip_suffix(".pyi").or_else(|| path.strip_suffix(".py")).unwrap_or(path);
    let configured = roots
        .iter()
        .map(|r| r.trim_matches('/'))
        .filter(|r| !r.is_empty())
        .filter_map(|r| stem.strip_prefix(r).and_then(|s| s.strip_prefix('/')).map(|s| (r.len(), s)))
        .max_by_key(|(len, _)| *len)
        .map(|(_, s)| s);
    let stem = match configured {
        Some(s) => s,
        None if !src_is_package => stem.strip_prefix("src/").unwrap_or(stem),
        None => stem,
    };
    let dotted = stem.replace('/', ".");
    match dotted.strip_suffix(".__init__") {
        Some(pkg) => pkg.to_string(),
        None if dotted == "__init__" => "__init__".to_string(),
        None => dotted,
    }
}

/// Gives every file its module qname. Two files that would get the same Python module name
/// (`m.py` and `m.pyi`, or `pkg.py` next to `pkg/__init__.py`) are told apart
/// deterministically, the one Python imports keeping the name: `.py` before `.pyi`, a file
/// whose name has no dot of its own before one that no import can reach (`a.b.py` names
/// itself `a.b`, as `a/b.py` is), a package before a module of the same name, then path
/// order. The other is named with its path (`pkg[pkg.py]`).
pub fn assign_modules(files: &mut [SourceFile], python_roots: &[String]) {
    let src_is_package = files.iter().any(|f| f.path == "src/__init__.py");
    let mut taken: HashSet<String> = HashSet::with_capacity(files.len());
    let mut order: Vec<usize> = (0..files.len()).collect();
    let rank = |f: &SourceFile| {
        let file = f.path.rsplit('/').next().unwrap_or(&f.path);
        let stem = file.strip_suffix(".pyi").or_else(|| file.strip_suffix(".py")).unwrap_or(file);
        (f.path.ends_with(".pyi"), stem.contains('.'), stem != "__init__")
    };
    order.sort_by(|&a, &b| (rank(&files[a]), &files[a].path).cmp(&(rank(&files[b]), &files[b].path)));
    for i in order {
        let f = &files[i];
        let name = if f.lang == Lang::Python { python_module_name(&f.path, src_is_package, python_roots) } else { f.path.clone() };
        let name = if taken.contains(&name) { format!("{name}[{}]", f.path) } else { name };
        taken.insert(name.clone());
        files[i].module = name;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file Python imports keeps a contested name: a package before a module of its
    /// name, a file with no dot of its own before one with (which no import reaches), `.py`
    /// before `.pyi`; whatever order the paths sort in.
    #[test]
    fn the_module_python_imports_keeps_a_contested_name() {
        let file = |path: &str| SourceFile {
            path: path.into(),
            abs: PathBuf::from(path),
            lang: Lang::Python,
            size: 0,
            mtime_ns: 0,
            module: String::new(),
        };
        let mut files: Vec<SourceFile> = ["a.b.py", "a/b.py", "m.pyi", "m.py", "pkg.py", "pkg/__init__.py"].into_iter().map(file).collect();
        assign_modules(&mut files, &[]);
        let named: Vec<(&str, &str)> = files.iter().map(|f| (f.path.as_str(), f.module.as_str())).collect();
        assert_eq!(
            named,
            [
                ("a.b.py", "a.b[a.b.py]"),
                ("a/b.py", "a.b"),
                ("m.pyi", "m[m.pyi]"),
                ("m.py", "m"),
                ("pkg.py", "pkg[pkg.py]"),
                ("pkg/__init__.py", "pkg")
            ]
        );
    }

    #[test]
    fn python_module_names() {
        assert_eq!(python_module_name("pkg/mod.py", false, &[]), "pkg.mod");
        assert_eq!(python_module_name("pkg/__init__.py", false, &[]), "pkg");
        assert_eq!(python_module_name("src/pkg/mod.py", false, &[]), "pkg.mod");
        assert_eq!(python_module_name("src/pkg/mod.py", true, &[]), "src.pkg.mod");
        assert_eq!(python_module_name("stubs/x.pyi", false, &[]), "stubs.x");
        let roots = vec!["lib".to_string(), "services/api/src/".to_string()];
        assert_eq!(python_module_name("lib/tools/x.py", false, &roots), "tools.x");
        assert_eq!(python_module_name("services/api/src/app/main.py", false, &roots), "app.main");
        assert_eq!(python_module_name("services/api/tests/t.py", false, &roots), "services.api.tests.t");
    }

    #[test]
    fn a_walk_on_every_core_lists_what_a_walk_on_one_thread_does() {
        let tree = tempfile::tempdir().unwrap();
        let root = tree.path().canonicalize().unwrap();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        // Enough directories, at several depths, for the threads to share them.
        for i in 0..40 {
            for j in 0..(i % 4) {
                write(&format!("pkg{i}/sub{j}/deep/m{j}.py"), "x = 1\n");
                write(&format!("pkg{i}/sub{j}/view.tsx"), "export const v = 1;\n");
                write(&format!("pkg{i}/sub{j}/notes.txt"), "not source\n");
            }
            write(&format!("pkg{i}/__init__.py"), "");
        }
        write("pkg3/.gitignore", "generated/\n*.js\n");
        write("pkg3/generated/g.py", "g = 1\n");
        write("pkg3/keep.js", "var k = 1;\n");
        write(".ignore", "pkg5/sub1/\n");
        write("env/pyvenv.cfg", "home = /usr\n");
        write("env/lib/site.py", "s = 1\n");
        write("node_modules/dep/index.js", "module.exports = 1;\n");
        write("dist/bundle.js", "var b;\n");
        write("web/package.json", "{}\n");
        write("pyproject.toml", "[project]\nname = \"x\"\n");
        std::os::unix::fs::symlink(root.join("pkg7"), root.join("pkg7/sub2/loop")).unwrap();
        let configs = [
            DiscoverConfig::default(),
            DiscoverConfig { follow_symlinks: true, build_dirs: true, ..DiscoverConfig::default() },
            DiscoverConfig { respect_ignore_files: false, exclude: vec!["**/*.tsx".into()], ..DiscoverConfig::default() },
        ];
        for config in &configs {
            let walker = Walker::new(&root, config).unwrap();
            let (parallel, serial) = (walker.walk_on(&root, None, true), walker.walk_on(&root, None, false));
            let show = |l: &cache::Listing| format!("{:?}\n{:?}\n{:?}\n{:?}\n{:?}", l.dirs, l.venvs, l.files, l.ignore_files, l.errors);
            assert_eq!(show(&parallel), show(&serial), "{config:?}");
            assert!(serial.files.len() > 100 && serial.dirs.len() > 100, "{} files, {} directories", serial.files.len(), serial.dirs.len());
        }
    }
}
