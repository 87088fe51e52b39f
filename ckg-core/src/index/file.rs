//! One file of a run: read, checked (vanished, unreadable, binary, minified, or the same
//! content as stored) and extracted, each problem a diagnostic.

use super::FileState;
use crate::discover::SourceFile;
use crate::extract::Extractor;
use crate::facts::{Diagnostic, DiagnosticKind, FileRecord};

pub(super) enum Outcome {
    Indexed(Box<FileRecord>),
    /// Same content as stored; only the metadata changed.
    Touched {
        id: i64,
        size: u64,
        mtime_ns: i64,
    },
    Skipped {
        path: String,
        diagnostic: Diagnostic,
        /// The size and time of a file skipped for what it holds.
        stat: Option<(u64, i64)>,
    },
}

/// Whether a file skipped for this reason stays skipped while its size and time do: what it
/// holds, not a failure to read it.
pub(super) fn skipped_for_content(kind: DiagnosticKind) -> bool {
    matches!(kind, DiagnosticKind::Binary | DiagnosticKind::Minified)
}

/// Reads, checks and extracts one file, calling `changed` once its content is known to have
/// changed, before it is extracted. Never fails: problems become diagnostics.
pub(super) fn process(
    ex: &mut Extractor,
    file: &SourceFile,
    old: Option<&FileState>,
    minified_line_len: usize,
    changed: &mut dyn FnMut(),
) -> Outcome {
    match read_checked(file, old, minified_line_len) {
        Ok((bytes, hash)) => {
            changed();
            extracted(ex, file, &bytes, hash)
        }
        Err(outcome) => outcome,
    }
}

/// Reads one file and checks that it is to be extracted: its bytes and hash, or what became
/// of it instead (skipped, or the same content as stored).
pub(super) fn read_checked(
    file: &SourceFile,
    old: Option<&FileState>,
    minified_line_len: usize,
) -> std::result::Result<(Vec<u8>, u64), Outcome> {
    let skip = |kind, message: String| Outcome::Skipped {
        path: file.path.clone(),
        diagnostic: Diagnostic { kind, message, line: None },
        stat: skipped_for_content(kind).then_some((file.size, file.mtime_ns)),
    };
    let bytes = match std::fs::read(&file.abs) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(skip(DiagnosticKind::Vanished, "file disappeared between discovery and reading".into()));
        }
        Err(e) => return Err(skip(DiagnosticKind::Unreadable, e.to_string())),
    };
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(skip(DiagnosticKind::Binary, "file contains NUL bytes (binary)".into()));
    }
    if let Some(msg) = minified(&bytes, minified_line_len) {
        return Err(skip(DiagnosticKind::Minified, msg));
    }
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    if let Some(old) = old
        && old.hash == hash
    {
        return Err(Outcome::Touched { id: old.id, size: bytes.len() as u64, mtime_ns: file.mtime_ns });
    }
    Ok((bytes, hash))
}

/// Extracts the facts of a file read by [`read_checked`].
pub(super) fn extracted(ex: &mut Extractor, file: &SourceFile, bytes: &[u8], hash: u64) -> Outcome {
    let facts = ex.extract(file.lang, &file.module, bytes);
    Outcome::Indexed(Box::new(FileRecord {
        path: file.path.clone(),
        lang: file.lang,
        hash,
        size: bytes.len() as u64,
        mtime_ns: file.mtime_ns,
        module: file.module.clone(),
        facts,
    }))
}

/// A generated or minified bundle: a very long line and a high average line length.
pub(super) fn minified(bytes: &[u8], max_line: usize) -> Option<String> {
    if bytes.len() < max_line {
        return None;
    }
    // The average first: one vectorized count, and code averages far less.
    let lines = crate::extract::count_byte(b'\n', bytes) + 1;
    let average = bytes.len() / lines;
    if average <= 200 {
        return None;
    }
    let longest = bytes.split(|&b| b == b'\n').map(<[u8]>::len).max().unwrap_or(0);
    (longest > max_line).then(|| format!("looks minified (longest line {longest} bytes, average {average}); skipped"))
}
