//! The properties the fuzz targets check, one module per target, shared with the stable
//! regression test (`tests/fuzz_regressions.rs` includes this folder by path), so a minimized
//! input replays through exactly the checks that found it.
//!
//! Every check takes the raw fuzz input (`&[u8]`) and panics when a property fails: no panic
//! in ckg itself, errors reported as errors, and where it is cheap, determinism (the same input
//! twice gives the same facts). Hangs are caught by libFuzzer's `-timeout` and by the time
//! limits of the test.
//!
//! This code only depends on crates that the root package also has (as dependencies or
//! dev-dependencies): tree-sitter types are never named, only inferred from `Extractor::parse`.

pub mod extract;
pub mod http;
pub mod mutate;
pub mod project;
pub mod refblob;
pub mod seeds;
pub mod sql;
