//! ckg-core: discover, parse, extract, resolve and store a code knowledge graph.
//!
//! The pipeline, in module order: [`discover`] finds the files (respecting ignore rules);
//! [`extract`] turns one file into [`facts::FileFacts`] with tree-sitter queries from
//! `grammars/`, in parallel, reading no other file; [`store`] writes them to SQLite in one
//! transaction per run; [`resolve`] binds references across files from the stored facts;
//! [`index`] drives it all and [`export`] writes the canonical JSONL.
//!
//! The key decision: per-file facts are stored separately from cross-file bindings (edges).
//! A changed file replaces only its own facts; resolution recomputes edges from facts, so the
//! graph never depends on the order files were parsed or updated in.
//!
//! ```no_run
//! let summary = ckg_core::index::index(&ckg_core::index::IndexConfig::new("."), &|_| {})?;
//! println!("{} symbols, generation {}", summary.symbols, summary.generation);
//! # Ok::<(), ckg_core::Error>(())
//! ```

mod cache_file;
pub mod discover;
mod dotted;
pub mod error;
pub mod export;
pub mod extract;
pub mod facts;
pub(crate) mod field;
pub mod index;
mod jsonc;
pub mod lang;
pub mod refblob;
pub mod resolve;
pub mod shapes;
pub mod store;
pub mod watch;

pub use error::{Error, Result};
