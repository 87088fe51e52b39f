//! The `ckg` command line: arguments -> library calls -> exit code.
//!
//! Exit codes: 0 success (or a closed pipe), 1 a query found nothing, 2 an error.

mod agent;
mod alloc;
mod cli;
mod mcp;
mod progress;
mod query;
mod serve;

use std::process::ExitCode;

fn main() -> ExitCode {
    alloc::share_with_tree_sitter();
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("ckg: error: {}", message(&err));
            ExitCode::from(2)
        }
    }
}

/// An error and its causes, each said once: a cause whose text a message already includes
/// (`database error on …: {source}`) is not repeated.
fn message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || e.downcast_ref::<ckg_core::Error>()
                .is_some_and(|c| matches!(c, ckg_core::Error::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe))
    })
}
