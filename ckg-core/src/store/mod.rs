//! The SQLite store: schema, pragmas, the writer, and the loaders that feed resolution.
//!
//! **Invariant:** this is the only module with SQL that writes. Readers (ckg-query, export)
//! open their own read-only connections.
//!
//! One `ckg index` run is one write transaction: rows are inserted in batches through cached
//! prepared statements while facts stream in from the parser threads, and the generation is
//! bumped just before `COMMIT`. In WAL mode readers keep seeing the previous generation until
//! then, and a run killed at any moment leaves the previous generation intact.
//!
//! By concern: `schema.rs` has the DDL, pragmas and version; `open.rs` opens the writer
//! ([`Store`]) and builds fresh indexes; `write.rs` is the run's transaction ([`WriteTx`]);
//! `interface.rs` is what other files see of a file ([`Interface`]); `load.rs` has the rows
//! resolution reads ([`ResolveInput`]) and their loaders; `read.rs` is the read-only side
//! ([`open_reader`], the generation and totals).

mod interface;
mod load;
mod open;
mod read;
mod schema;
pub mod snapshot;
mod write;

pub use interface::Interface;
pub use load::{ExportRow, FileRefs, FileRow, ImportRow, RefSite, ResolveInput, SymbolMore, SymbolRow, load_names, load_refs};
pub use open::{FileIdentity, OpenReport, Store, file_identity};
pub use read::{Counts, indexed_root, open_reader, read_counts, read_generation};
pub use schema::{APPLICATION_ID, EDGE_ID_BITS, SCHEMA_VERSION, edge_ids};
pub use write::{Dst, EdgeRow, FileState, SkippedState, WriteTx, last_name};
