//! The agent layer's endpoints, mounted on `ckg serve` next to the queries (and described in
//! its `/openapi.json`): roles, constraint checks, migration plans and their ledger. Each
//! answer is the same serde type the CLI's `--json` prints.

// `Problem`, the error answer, is built once per failed request: its size on the `Err` path
// costs nothing worth a box.
#![allow(clippy::result_large_err)]

use ckg_query::Index;
use ckg_query::http::params::{Kind, Param, Params, confine};
use ckg_query::http::problem::Problem;
use ckg_query::http::{Endpoint, Route, ServiceConfig, encode, schema};

use crate::ledger::{Ledger, StatusAnswer};
use crate::pack::{Pack, PackFiles};
use crate::plan::Plan;
use crate::roles::{RolesAnswer, RolesOptions, roles};
use crate::rules::{CheckAnswer, CheckOptions, RuleSet};

const PACK_DOC: &str = "A shipped pack: express, flask (roles); express-to-fastify, flask-to-fastapi (migrations).";
const PACKS: Kind = Kind::Enum(&["express", "flask", "express-to-fastify", "flask-to-fastapi"]);

const ROLES_PARAMS: &[Param] = &[
    Param::repeated("pack", PACKS, "Framework packs (repeatable; default express and flask)."),
    Param::repeated("role", Kind::Str, "Only these roles (repeatable)."),
];
const CHECK_PARAMS: &[Param] = &[
    Param::repeated("pack", PACKS, "Packs whose rules are checked (repeatable; at least one with rules)."),
    Param::repeated("file", Kind::Str, "Check only what these files affect (repeatable; relative to the indexed root)."),
];
const PLAN_PARAMS: &[Param] = &[Param::opt("pack", PACKS, None, PACK_DOC)];

/// The agent layer's endpoints.
pub static ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/roles",
        method: ckg_query::http::Method::GET,
        summary: "Framework roles",
        description: "Each application, router, middleware, route handler, error handler, static-file setup (Express), app factory, blueprint, route, hook, CLI command, extension (Flask) and API use, with its registration and the edges that prove it; then look-alikes nothing registers (candidates).",
        params: ROLES_PARAMS,
        body: None,
        answer: schema::<RolesAnswer>,
        media: "application/json",
        route: Route::Query(q_roles),
    },
    Endpoint {
        path: "/v1/check",
        method: ckg_query::http::Method::GET,
        summary: "Constraint checks",
        description: "The packs' rules against the graph: each violation with rule, severity, place, message, the fix and the edges that prove it. With `file`, only what those files affect (the agent's loop after an edit).",
        params: CHECK_PARAMS,
        body: None,
        answer: schema::<CheckAnswer>,
        media: "application/json",
        route: Route::Query(q_check),
    },
    Endpoint {
        path: "/v1/plan",
        method: ckg_query::http::Method::POST,
        summary: "Make a migration plan",
        description: "The source framework's impact cut into units in dependency order, each with migration notes, a verification contract and open questions; stored in the ledger next to the index (runs and decisions of units still in the plan are kept).",
        params: PLAN_PARAMS,
        body: None,
        answer: schema::<Plan>,
        media: "application/json",
        route: Route::Query(q_plan),
    },
    Endpoint {
        path: "/v1/plan/status",
        method: ckg_query::http::Method::GET,
        summary: "The plan's progress",
        description: "Every unit of the stored plan re-evaluated on the current generation: done only when no legacy reference remains, the constraints pass in its files and its last command checks passed.",
        params: &[],
        body: None,
        answer: schema::<StatusAnswer>,
        media: "application/json",
        route: Route::Query(q_status),
    },
];

fn usage(e: crate::Error) -> Problem {
    match e {
        crate::Error::Query(q) => q.into(),
        other => Problem::new("invalid_parameter", other.to_string()),
    }
}

fn load(names: &[String], default: &[&str]) -> Result<Vec<Pack>, Problem> {
    Pack::load_all(names, default, PackFiles::Refused).map_err(usage)
}

fn q_roles(ix: &Index, p: &Params, _: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    let packs = load(&p.all("pack"), crate::FRAMEWORK_PACKS)?;
    encode(&roles(ix, &packs, &RolesOptions { roles: p.all("role"), ..RolesOptions::default() }).map_err(usage)?)
}

fn q_check(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    let packs = load(&p.all("pack"), &[])?;
    if packs.iter().all(|p| p.rule.is_empty()) {
        return Err(Problem::new("invalid_parameter", "no rules: give pack=express-to-fastify or pack=flask-to-fastapi"));
    }
    let files: Vec<String> = p.all("file").iter().map(|f| confine(&c.root, f)).collect::<Result<_, _>>()?;
    let opts = CheckOptions { files: (!files.is_empty()).then_some(files), baseline: None };
    encode(&RuleSet { packs }.check(ix, &opts).map_err(usage)?)
}

fn q_plan(ix: &Index, p: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    let name = p.str("pack");
    if name.is_empty() {
        return Err(Problem::new("invalid_parameter", "give pack=express-to-fastify or pack=flask-to-fastapi"));
    }
    let packs = load(&[name.to_string()], &[])?;
    let plan = crate::plan::plan(ix, &packs).map_err(usage)?;
    Ledger::store(ix, &c.db, &plan).map_err(usage)?;
    encode(&plan)
}

fn q_status(ix: &Index, _: &Params, c: &ServiceConfig) -> Result<Vec<u8>, Problem> {
    let ledger = Ledger::open(ix, &c.db).map_err(|e| Problem::new("not_found", e.to_string()))?;
    let packs = load(&[ledger.pack()], &[])?;
    encode(&ledger.status(ix, &packs).map_err(usage)?)
}
