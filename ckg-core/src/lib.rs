//! ckg-core: discover, parse, extract, resolve and store a code knowledge graph.
pub mod extract;
pub mod facts;
pub mod lang;
