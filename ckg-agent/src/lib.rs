//! ckg-agent: framework roles and constraint checks (CSE) on top of ckg-query.
//!
//! Everything here is deterministic and driven by the graph; no model is called. Framework
//! knowledge is data: rule packs in `packs/*.toml` ([`pack`]) say how a framework's roles
//! are recognised (objects, registrations, factories, extensions, API uses) and which rules a
//! migration must satisfy. [`roles`] finds the role occurrences, each with the registration
//! that makes it one and the edges that prove it; [`rules`] evaluates constraint rules
//! (forbidden imports and uses, layering, signatures of role functions, unregistered
//! look-alikes, roles a migration removes, new callers of deprecated symbols); [`plan`]
//! cuts a migration into units in dependency order with notes an agent can check, and the
//! [`ledger`] stores the plan's progress, re-checked against the graph.
//!
//! It depends only on `ckg-query`, whose answers (edges with their evidence) it builds on.

pub mod http;
pub mod ledger;
pub mod pack;
pub mod plan;
pub mod roles;
pub mod rules;

pub use ledger::{Ledger, StatusAnswer, UnitStatus, VerifyAnswer};
pub use pack::{FRAMEWORK_PACKS, FormatError, Pack, PackFiles};
pub use plan::{Plan, Unit, plan};
pub use roles::{Candidate, RoleOccurrence, RolesAnswer, RolesOptions, roles};
pub use rules::{Baseline, CheckAnswer, CheckOptions, RuleKind, RuleSet, RuleSpec, Severity, Violation};

/// What can go wrong in the agent layer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad pack or rule file.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A bad argument (unknown pack, unreadable file).
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Query(#[from] ckg_query::Error),
}

pub type Result<T> = std::result::Result<T, Error>;
