//! `ckg-gen`: a deterministic generator of synthetic Python and TypeScript repositories of a
//! requested size, together with the exact list of graph edges the generated code contains.
//!
//! The output is meant for ckg's scaling benchmarks (100k / 1M-line budgets) and as a large,
//! exactly known resolution test: every call, instantiation, inheritance, import and callback
//! reference in the generated code can be bound by scope, import, `self`/`this`, `super` and
//! constructor-type analysis, and each one is listed in the ground truth.
//!
//! Same [`Config`] => byte-identical repository and truth (own splitmix64 PRNG, no hash-order
//! iteration in output paths).
//!
//! Truth lines are `kind src -> dst`, sorted bytewise and de-duplicated, with kinds `calls`,
//! `instantiates`, `inherits`, `imports` and `references`, and qnames as in DESIGN.md "Naming"
//! and `tests/fixtures/README.md`.

mod rng;
mod synth;
mod words;

use std::collections::HashSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use rng::Rng;

/// Language of the generated repository.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    Python,
    TypeScript,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
        }
    }
}

impl FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "python" | "py" => Ok(Lang::Python),
            "typescript" | "ts" => Ok(Lang::TypeScript),
            other => Err(format!("unknown language {other:?} (expected python or typescript)")),
        }
    }
}

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub lang: Lang,
    /// Requested size in physical lines of source files (the result is within a few percent).
    pub lines: usize,
    pub seed: u64,
}

impl Config {
    pub fn new(lang: Lang, lines: usize) -> Self {
        Config { lang, lines, seed: 0 }
    }
}

/// What was generated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Files written (source files plus, for TypeScript, `package.json` and `tsconfig.json`).
    pub files: usize,
    /// Physical lines in the generated `.py` / `.ts` files.
    pub lines: usize,
    /// Distinct edges in the ground truth.
    pub edges: usize,
}

/// One generated file (path relative to the repository root, `/`-separated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: String,
    pub contents: String,
}

/// A repository generated in memory.
#[derive(Clone, Debug)]
pub struct Repo {
    pub files: Vec<GeneratedFile>,
    /// Sorted, de-duplicated `kind src -> dst` lines.
    pub truth: Vec<String>,
    pub summary: Summary,
}

/// Writes the repository into `out` (which must not exist or be an empty directory) and the
/// ground truth into [`default_truth_path`]`(out)` (`OUT.truth.txt`, next to the directory).
pub fn generate(cfg: &Config, out: &Path) -> io::Result<Summary> {
    generate_with_truth(cfg, out, &default_truth_path(out))
}

/// Like [`generate`], with the truth written to `truth_file`.
pub fn generate_with_truth(cfg: &Config, out: &Path, truth_file: &Path) -> io::Result<Summary> {
    let (summary, truth) = generate_repo(cfg, out)?;
    write_truth(&truth, truth_file)?;
    Ok(summary)
}

/// Writes the repository into `out` and returns the truth lines without writing them.
pub fn generate_repo(cfg: &Config, out: &Path) -> io::Result<(Summary, Vec<String>)> {
    prepare_out_dir(out)?;
    let mut sink = FsSink { root: out.to_path_buf(), dirs: HashSet::new() };
    let o = synth::run(cfg, &mut sink)?;
    let summary = Summary { files: o.files, lines: o.lines, edges: o.truth.len() };
    Ok((summary, o.truth))
}

/// Generates everything in memory.
pub fn generate_in_memory(cfg: &Config) -> Repo {
    let mut sink = MemSink { files: Vec::new() };
    let o = synth::run(cfg, &mut sink).expect("in-memory generation cannot fail");
    let summary = Summary { files: o.files, lines: o.lines, edges: o.truth.len() };
    Repo { files: sink.files, truth: o.truth, summary }
}

/// The ground truth for `cfg`, without writing any file.
pub fn ground_truth(cfg: &Config) -> Vec<String> {
    let mut sink = NullSink;
    synth::run(cfg, &mut sink).expect("generation without output cannot fail").truth
}

/// `OUT.truth.txt` next to the repository directory `out`.
pub fn default_truth_path(out: &Path) -> PathBuf {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "repo".to_string());
    let parent = out.parent().map(Path::to_path_buf).unwrap_or_default();
    parent.join(format!("{name}.truth.txt"))
}

/// Writes truth lines, one per line, with a final newline.
pub fn write_truth(truth: &[String], path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        fs::create_dir_all(dir)?;
    }
    let mut w = io::BufWriter::new(fs::File::create(path)?);
    for line in truth {
        w.write_all(line.as_bytes())?;
        w.write_all(b"\n")?;
    }
    w.flush()
}

fn prepare_out_dir(out: &Path) -> io::Result<()> {
    match fs::metadata(out) {
        Ok(m) if !m.is_dir() => {
            Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists and is not a directory", out.display())))
        }
        Ok(_) => {
            if fs::read_dir(out)?.next().is_some() {
                Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} is not empty", out.display())))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir_all(out),
        Err(e) => Err(e),
    }
}

struct FsSink {
    root: PathBuf,
    dirs: HashSet<PathBuf>,
}

impl synth::Sink for FsSink {
    fn file(&mut self, rel_path: &str, contents: &str) -> io::Result<()> {
        let path = self.root.join(rel_path);
        if let Some(dir) = path.parent()
            && !self.dirs.contains(dir)
        {
            fs::create_dir_all(dir)?;
            self.dirs.insert(dir.to_path_buf());
        }
        fs::write(&path, contents)
    }
}

struct MemSink {
    files: Vec<GeneratedFile>,
}

impl synth::Sink for MemSink {
    fn file(&mut self, rel_path: &str, contents: &str) -> io::Result<()> {
        self.files.push(GeneratedFile { path: rel_path.to_string(), contents: contents.to_string() });
        Ok(())
    }
}

struct NullSink;

impl synth::Sink for NullSink {
    fn file(&mut self, _: &str, _: &str) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_path_is_next_to_the_repo() {
        assert_eq!(default_truth_path(Path::new("/tmp/x/repo")), PathBuf::from("/tmp/x/repo.truth.txt"));
        assert_eq!(default_truth_path(Path::new("/tmp/x/repo/")), PathBuf::from("/tmp/x/repo.truth.txt"));
        assert_eq!(default_truth_path(Path::new("repo")), PathBuf::from("repo.truth.txt"));
    }

    #[test]
    fn lang_parses() {
        assert_eq!("python".parse::<Lang>().unwrap(), Lang::Python);
        assert_eq!("TS".parse::<Lang>().unwrap(), Lang::TypeScript);
        assert!("go".parse::<Lang>().is_err());
    }
}
