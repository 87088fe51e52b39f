//! The parser threads: files taken one by one by whichever thread is free, each with its own
//! extractor; and `parse_only`, the parse a full index is compared with.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::discover::{self, DiscoverConfig, SourceFile};
use crate::error::{Error, Result};
use crate::extract::{ExpandedTables, Extractor};
use crate::facts::DiagnosticKind;

/// How many parser threads `jobs` asks for (0: one per core).
pub(super) fn parse_jobs(jobs: usize) -> usize {
    if jobs == 0 { std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) } else { jobs }
}

/// The parser threads: `jobs` of them, and no more than there are `files`.
pub(super) fn parse_pool(jobs: usize, files: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.min(files).max(1))
        .thread_name(|i| format!("ckg-parse-{i}"))
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start {jobs} worker threads: {e}")))
}

/// Runs `each` on every file on the pool's threads, each thread with its own extractor and
/// taking the next file (in their listed order) when it is done with one. A rayon `par_iter`
/// hands each thread long runs of files, so a run of large files at the end of the listing
/// (django's tests) kept one thread busy ~0.4 s after the other had finished; taken one by
/// one, the two threads share such a run. (Largest first would leave only small files for
/// the end, but it also stores the largest files first, with the lowest ids, so the first
/// batches of resolution hold the most edges: salt's peak RSS 430 -> 448-470 MiB.)
pub(super) fn file_by_file<'f>(
    pool: &rayon::ThreadPool,
    files: &[&'f SourceFile],
    new_extractor: impl Fn() -> Extractor + Sync,
    each: impl Fn(&mut Extractor, &'f SourceFile) + Sync,
) {
    let queue = FileQueue::new(files);
    pool.broadcast(|_| {
        let mut ex = new_extractor();
        while let Some(f) = queue.take() {
            each(&mut ex, f);
        }
    });
}

/// Files taken one by one, in their listed order, by whichever thread is free (see
/// [`file_by_file`]).
pub(super) struct FileQueue<'q, 'f> {
    pub(super) files: &'q [&'f SourceFile],
    pub(super) next: AtomicUsize,
}

impl<'q, 'f> FileQueue<'q, 'f> {
    pub(super) fn new(files: &'q [&'f SourceFile]) -> FileQueue<'q, 'f> {
        FileQueue { files, next: AtomicUsize::new(0) }
    }

    /// The next file; none once they are all taken or the queue was stopped.
    pub(super) fn take(&self) -> Option<&'f SourceFile> {
        self.files.get(self.next.fetch_add(1, Ordering::Relaxed)).copied()
    }

    /// No file is taken any more (the threads stop after the one they are on).
    pub(super) fn stop(&self) {
        // Far past the end, and far from wrapping around however many takes follow.
        self.next.store(usize::MAX / 2, Ordering::Relaxed);
    }
}

/// How [`parse_only`] parses: tree-sitter as it comes (the default), or with any of the
/// tunings a full index parses with (all of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseTuning {
    /// The grammars' expanded tables ([`Extractor::with_expanded_tables`]).
    pub expanded_tables: bool,
    /// ckg's lexer step for ASCII ([`Extractor::with_ascii_step`]).
    pub ascii_step: bool,
    /// Reductions in place ([`Extractor::with_reduce_in_place`]).
    pub reduce_in_place: bool,
}

/// Parses every file under a root without extracting or storing anything: the baseline
/// that full indexing is compared with, tree-sitter's parse with the grammars as they come;
/// with `tuning`, as a full index parses. With `extract`, also extracts each file's facts and
/// drops them: the share of extraction in a full index.
/// Returns (files, bytes parsed, symbols extracted).
pub fn parse_only(
    root: &std::path::Path,
    config: &DiscoverConfig,
    jobs: usize,
    extract: bool,
    tuning: ParseTuning,
) -> Result<(usize, u64, u64)> {
    let discovery = discover::discover(root, config)?;
    let pool = parse_pool(parse_jobs(jobs), discovery.files.len())?;
    let files: Vec<&SourceFile> = discovery.files.iter().collect();
    let (bytes, symbols) = (AtomicU64::new(0), AtomicU64::new(0));
    let expanded = if tuning.expanded_tables { ExpandedTables::ALL } else { ExpandedTables::default() };
    file_by_file(
        &pool,
        &files,
        || Extractor::with_expanded_tables(expanded).with_ascii_step(tuning.ascii_step).with_reduce_in_place(tuning.reduce_in_place),
        |ex, f| {
            let Ok(src) = std::fs::read(&f.abs) else { return };
            let _ = xxhash_rust::xxh3::xxh3_64(&src);
            let parsed = if extract {
                let facts = ex.extract(f.lang, &f.module, &src);
                symbols.fetch_add(facts.symbols.len() as u64, Ordering::Relaxed);
                !facts.diagnostics.iter().any(|d| d.kind == DiagnosticKind::Timeout)
            } else {
                ex.parse(f.lang, &src).is_some()
            };
            if parsed {
                bytes.fetch_add(src.len() as u64, Ordering::Relaxed);
            }
        },
    );
    Ok((discovery.files.len(), bytes.into_inner(), symbols.into_inner()))
}
