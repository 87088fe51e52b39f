//! A progress bar on stderr for long runs: shown only on a terminal, only after about a
//! second, and never with `--quiet`.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ckg_core::index::Progress;

pub struct Bar {
    enabled: bool,
    start: Instant,
    state: Mutex<(Instant, bool)>,
}

impl Bar {
    pub fn new(quiet: bool) -> Bar {
        let enabled = !quiet && std::io::stderr().is_terminal();
        let now = Instant::now();
        Bar { enabled, start: now, state: Mutex::new((now, false)) }
    }

    pub fn update(&self, p: Progress) {
        if !self.enabled || self.start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let Ok(mut state) = self.state.lock() else { return };
        let line = match p {
            Progress::Discovered { files, to_parse } => format!("discovered {files} files, {to_parse} to parse"),
            Progress::Parsed { done, total } => {
                if state.0.elapsed() < Duration::from_millis(100) && done != total {
                    return;
                }
                let width = 30;
                let filled = (done * width).checked_div(total).unwrap_or(width);
                format!("[{}{}] {done}/{total} files parsed", "#".repeat(filled), " ".repeat(width - filled))
            }
            Progress::Resolving => "resolving references across files...".to_string(),
        };
        state.0 = Instant::now();
        state.1 = true;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
    }

    pub fn finish(&self) {
        if let Ok(state) = self.state.lock()
            && state.1
        {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}
