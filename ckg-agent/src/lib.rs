//! ckg-agent: constraint checks (CSE) and linear migration plans on top of ckg-query.
//!
//! Its place in the layout is reserved; nothing is implemented yet. The design (see
//! `DESIGN.md`): declarative rules (TOML) evaluated against the graph — forbidden imports,
//! forbidden calls, layering, signature conventions for functions that play a role, "no new
//! callers" of deprecated symbols — each violation with file:line and the edges that prove
//! it; and plans for migrations (Express -> Fastify, Flask -> FastAPI) that order the impact
//! set so that what is depended on comes first. It will depend only on `ckg-query`.
