//! Migration plans: the impact set of the source framework cut into units (a file, or the
//! files of an import cycle), ordered so that what is depended on comes first, each with
//! migration notes an agent can check: where it is, what it becomes, who calls it, what it
//! provides and relies on, how to verify it, and what is not known.
//!
//! Everything comes from the graph and the pack: the impact of the framework's packages,
//! file dependencies (ordering, cycles), roles (what each unit is), the migration rules
//! (hints, constraints), member uses of request objects (contracts), and the graph's own
//! uncertainty (heuristic edges, dynamic sites, unresolved imports, syntax errors,
//! unregistered look-alikes) as open questions.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use ckg_query::{Edge, ImpactOptions, Index};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::pack::{Migration, Pack};
use crate::roles::{RoleOccurrence, RolesOptions, roles};
use crate::rules::RuleKind;
use crate::{Error, Result};

/// A plan: units in the order to migrate them.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    pub generation: i64,
    /// The migration pack.
    pub pack: String,
    pub from: String,
    pub to: String,
    /// Files in the plan (the impact set of the source framework).
    pub files: usize,
    pub units: Vec<Unit>,
}

/// One unit of work: a file, or the files of an import cycle.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Unit {
    /// Stable across plans of the same code: `unit:` and the unit's first file.
    pub unit_id: String,
    /// 1-based place in the plan.
    pub position: usize,
    /// `pending`, or `needs_decision` when it has open questions (not ready to edit).
    pub state: String,
    /// True when the unit's own files use the source framework (edges to its packages); a
    /// unit that reaches it only through other units is in the plan to be verified.
    pub uses_framework: bool,
    pub source: UnitSource,
    pub target: UnitTarget,
    /// The unit's definitions used from outside it.
    pub entry_points: Vec<String>,
    /// Where other files use it.
    pub callers: Vec<Caller>,
    pub contract: Contract,
    pub dependencies: Dependencies,
    pub verification: Vec<Check>,
    pub open_questions: Vec<Question>,
    /// The edges this unit's notes were made from, with their evidence.
    pub evidence: Vec<Edge>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct UnitSource {
    pub framework: String,
    pub paths: Vec<String>,
    /// Definitions of the unit that use the framework or play one of its roles.
    pub symbols: Vec<String>,
    pub roles: Vec<RoleRef>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
pub struct RoleRef {
    pub role: String,
    pub file: String,
    pub line: u32,
    pub name: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct UnitTarget {
    pub framework: String,
    /// The pack's fixes for what the unit contains, by rule.
    pub hints: Vec<Hint>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hint {
    pub rule: String,
    pub hint: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
pub struct Caller {
    pub file: String,
    pub line: u32,
    pub src: String,
    pub dst: String,
}

/// What the unit exposes and relies on.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Contract {
    /// Its definitions used by other units.
    pub exports: Vec<String>,
    /// Request/response properties its role functions set (`req.user`, `res.locals.user`,
    /// `g.user`), each with the units that read them.
    pub provides: Vec<Property>,
    /// Request/response properties of the application's own that its role functions read,
    /// each with the units that set them.
    pub reads: Vec<Property>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct Property {
    /// As written from the request or response (`req.user`, `res.locals.user`, `g.user`).
    pub name: String,
    pub file: String,
    pub line: u32,
    /// The units on the other side (readers of what is provided; providers of what is read).
    pub units: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Dependencies {
    /// Units of the plan this one depends on (they come before it).
    pub units: Vec<String>,
    /// External packages its files use.
    pub packages: Vec<String>,
}

/// One verification check of a unit.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct Check {
    pub name: String,
    /// `command`, `constraint` or `legacy_reference`.
    pub kind: String,
    /// The command line to run (in the repository root), or what the graph is asked.
    pub run: String,
    /// For commands: the time limit in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
    /// When it passes.
    pub pass: String,
}

/// Something the graph does not know about the unit.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct Question {
    /// Stable: kind, file, line and column.
    pub id: String,
    /// `heuristic_edge`, `dynamic_site`, `monkey_patch`, `unresolved_import`, `syntax_errors`,
    /// `unregistered`.
    pub kind: String,
    pub file: String,
    pub line: u32,
    pub detail: String,
}

/// How deep the framework's impact is followed.
pub const PLAN_DEPTH: u32 = 20;

/// File-dependency edge kinds (what orders units).
const DEPENDENCY_KINDS: &[&str] = &["imports", "calls", "instantiates", "references", "inherits", "implements", "writes"];

/// The migration a set of packs describes (the last pack with one).
pub fn migration_of(packs: &[Pack]) -> Result<(&Pack, &Migration)> {
    packs.iter().rev().find_map(|p| p.pack.migration.as_ref().map(|m| (p, m))).ok_or_else(|| {
        Error::Usage(format!(
            "{} is not a migration pack (express-to-fastify, flask-to-fastapi)",
            packs.last().map_or("?", |p| &p.pack.name)
        ))
    })
}

/// True for test files (`test/…`, `tests/…`, `*.test.ts`, `*.spec.js`, `test_*.py`, `*_test.py`,
/// `conftest.py`).
pub fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.split('/').any(|seg| matches!(seg, "test" | "tests" | "__tests__" | "spec"))
        || name.contains(".test.")
        || name.contains(".spec.")
        || (name.starts_with("test_") && name.ends_with(".py"))
        || name.ends_with("_test.py")
        || name == "conftest.py"
}

/// Computes the plan of a migration pack (with the framework pack it requires).
pub fn plan(index: &Index, packs: &[Pack]) -> Result<Plan> {
    let (mpack, migration) = migration_of(packs)?;
    // The impact set: files that use the framework's packages, directly or through others.
    let mut files: BTreeSet<String> = BTreeSet::new();
    let mut direct: BTreeMap<String, Vec<Edge>> = BTreeMap::new();
    let mut gaps: Vec<ckg_query::Gap> = Vec::new();
    for package in &migration.packages {
        let answer = match index.impact(package, &ImpactOptions { depth: PLAN_DEPTH, max_gaps: 10_000, ..ImpactOptions::default() }) {
            Ok(a) => a,
            Err(ckg_query::Error::NotFound(_)) => continue,
            Err(e) => return Err(e.into()),
        };
        for f in answer.files {
            let to_package: Vec<Edge> = f.edges.iter().filter(|e| uses_package(&e.dst, package)).cloned().collect();
            if !to_package.is_empty() {
                direct.entry(f.path.clone()).or_default().extend(to_package);
            }
            files.insert(f.path);
        }
        gaps.extend(answer.completeness.gaps);
    }
    let files: Vec<String> = files.into_iter().collect();
    let position: HashMap<&str, usize> = files.iter().enumerate().map(|(i, f)| (f.as_str(), i)).collect();

    // File dependencies inside the set, and the strongly connected groups (units).
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); files.len()];
    let mut packages: Vec<BTreeSet<String>> = vec![BTreeSet::new(); files.len()];
    for (i, f) in files.iter().enumerate() {
        for (dep, _) in index.file_dependencies(f, DEPENDENCY_KINDS)? {
            if let Some(&j) = position.get(dep.as_str()) {
                deps[i].push(j);
            }
        }
        if let Ok(d) = index.deps(f) {
            packages[i].extend(d.deps.into_iter().filter(|d| d.external).map(|d| d.target));
        }
    }
    let groups = strongly_connected(&deps);

    // What each file is: the framework's roles, and the migration's look-alikes.
    let framework: Vec<Pack> = packs.iter().filter(|p| !p.object.is_empty()).cloned().collect();
    // (Look-alikes are looked for where the framework is used directly.)
    let candidates_in = Some(direct.keys().cloned().collect());
    let found = roles(index, &framework, &RolesOptions { files: Some(files.clone()), candidates_in, ..RolesOptions::default() })?;
    let mut roles_by_file: HashMap<&str, Vec<&RoleOccurrence>> = HashMap::new();
    for r in &found.roles {
        roles_by_file.entry(r.file.as_str()).or_default().push(r);
    }

    // Order the groups: dependencies first; among the ready ones, code before tests, then by
    // role (middleware before routes before the application), then by path.
    let group_of: Vec<usize> = {
        let mut g = vec![0; files.len()];
        for (gi, members) in groups.iter().enumerate() {
            for &m in members {
                g[m] = gi;
            }
        }
        g
    };
    let rank = |gi: usize| -> (bool, u8, String) {
        let members = &groups[gi];
        let test = members.iter().all(|&m| is_test_file(&files[m]));
        let role_rank = members
            .iter()
            .flat_map(|&m| roles_by_file.get(files[m].as_str()).into_iter().flatten())
            .map(|r| role_rank(&r.role))
            .max()
            .unwrap_or(0);
        (test, role_rank, files[members[0]].clone())
    };
    let mut group_deps: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); groups.len()];
    for (i, ds) in deps.iter().enumerate() {
        for &j in ds {
            if group_of[i] != group_of[j] {
                group_deps[group_of[i]].insert(group_of[j]);
            }
        }
    }
    let order = ordered(&group_deps, rank);

    let unit_id = |gi: usize| format!("unit:{}", files[groups[gi][0]]);
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); files.len()];
    for (i, ds) in deps.iter().enumerate() {
        for &j in ds {
            dependents[j].push(i);
        }
    }
    let runner = TestRunner::of(index);
    let mut units = Vec::new();
    for (pos, &gi) in order.iter().enumerate() {
        let paths: Vec<String> = groups[gi].iter().map(|&m| files[m].clone()).collect();
        let unit_roles: Vec<&RoleOccurrence> =
            paths.iter().flat_map(|p| roles_by_file.get(p.as_str()).into_iter().flatten().copied()).collect();
        let mut evidence: Vec<Edge> = paths.iter().flat_map(|p| direct.get(p).into_iter().flatten().cloned()).collect();
        let mut symbols: BTreeSet<String> = evidence.iter().map(|e| e.src.clone()).collect();
        symbols.extend(unit_roles.iter().filter_map(|r| r.symbol.clone()));
        for r in &unit_roles {
            for e in &r.evidence {
                if !evidence.contains(e) {
                    evidence.push(e.clone());
                }
            }
        }
        let (entry_points, callers) = entry_points(index, &paths)?;
        let hints = hints(mpack, &unit_roles, &evidence);
        let unit_packages: BTreeSet<String> = groups[gi].iter().flat_map(|&m| packages[m].iter().cloned()).collect();
        let dep_units: Vec<String> = group_deps[gi].iter().map(|&g| unit_id(g)).collect();
        let questions = questions(index, &paths, &migration.packages, &evidence, &gaps, &found.candidates)?;
        let tests = tests_reaching(&files, &dependents, &groups[gi]);
        let verification = verification(&runner, mpack, migration, &paths, &tests);
        units.push(Unit {
            unit_id: unit_id(gi),
            position: pos + 1,
            state: if questions.is_empty() { "pending" } else { "needs_decision" }.into(),
            uses_framework: paths.iter().any(|p| direct.contains_key(p)),
            source: UnitSource {
                framework: migration.from.clone(),
                paths: paths.clone(),
                symbols: symbols.into_iter().filter(|s| !paths.contains(s)).collect(),
                roles: unit_roles
                    .iter()
                    .map(|r| RoleRef { role: r.role.clone(), file: r.file.clone(), line: r.line, name: r.name.clone() })
                    .collect(),
            },
            target: UnitTarget { framework: migration.to.clone(), hints },
            contract: Contract { exports: entry_points.clone(), ..Contract::default() },
            entry_points,
            callers,
            dependencies: Dependencies { units: dep_units, packages: unit_packages.into_iter().collect() },
            verification,
            open_questions: questions,
            evidence,
        });
    }
    contracts(index, &mut units, &framework)?;
    Ok(Plan {
        generation: index.generation,
        pack: mpack.pack.name.clone(),
        from: migration.from.clone(),
        to: migration.to.clone(),
        files: files.len(),
        units,
    })
}

/// True when a qname is the package or one of its members.
pub(crate) fn uses_package(qname: &str, package: &str) -> bool {
    qname == package || qname.strip_prefix(package).is_some_and(|rest| rest.starts_with(['.', '/', '(']))
}

/// Where a role puts its unit among units ready at the same time.
fn role_rank(role: &str) -> u8 {
    match role {
        "middleware" | "middleware_factory" | "error_handler" | "request_hook" | "context_processor" | "extension" => 1,
        "route_handler" | "route" | "router" | "blueprint" | "static" | "cli_command" => 2,
        "application" | "app_factory" | "shell_context" => 3,
        _ => 0,
    }
}

/// Tarjan's strongly connected components, iteratively; each group's members sorted.
fn strongly_connected(deps: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = deps.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut groups, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next edge to look at)
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = deps[v].get(*edge) {
                *edge += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                group.sort();
                groups.push(group);
            }
        }
    }
    groups
}

/// A linear order of groups: each after the groups it depends on; among those ready, the
/// smallest key first.
fn ordered<K: Ord>(deps: &[BTreeSet<usize>], key: impl Fn(usize) -> K) -> Vec<usize> {
    let n = deps.len();
    let mut waiting: Vec<usize> = deps.iter().map(|d| d.len()).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (g, ds) in deps.iter().enumerate() {
        for &d in ds {
            dependents[d].push(g);
        }
    }
    let mut ready: BTreeMap<(K, usize), ()> = (0..n).filter(|&g| waiting[g] == 0).map(|g| ((key(g), g), ())).collect();
    let mut out = Vec::new();
    while let Some(((_, g), ())) = ready.pop_first() {
        out.push(g);
        for &d in &dependents[g] {
            waiting[d] -= 1;
            if waiting[d] == 0 {
                ready.insert((key(d), d), ());
            }
        }
    }
    out
}

/// The unit's definitions used from outside it, and where.
fn entry_points(index: &Index, paths: &[String]) -> Result<(Vec<String>, Vec<Caller>)> {
    let mut entries = BTreeSet::new();
    let mut callers = BTreeSet::new();
    for p in paths {
        let Some(module) = index.module_of(p)? else { continue };
        let prefix = if module.contains('/') || p.ends_with(".ts") || p.ends_with(".js") || p.ends_with(".tsx") {
            format!("{p}#")
        } else {
            format!("{module}.")
        };
        for e in index.edges_to_prefix(&prefix, DEPENDENCY_KINDS, None)? {
            if paths.contains(&e.edge.file) || e.edge.kind == "imports" {
                continue;
            }
            entries.insert(e.edge.dst.clone());
            callers.insert(Caller { file: e.edge.file.clone(), line: e.edge.line, src: e.edge.src.clone(), dst: e.edge.dst.clone() });
        }
    }
    Ok((entries.into_iter().collect(), callers.into_iter().collect()))
}

/// The migration rules' fixes for what a unit contains.
fn hints(pack: &Pack, roles: &[&RoleOccurrence], evidence: &[Edge]) -> Vec<Hint> {
    let mut out = BTreeSet::new();
    for rule in &pack.rule {
        let applies = match rule.kind {
            RuleKind::ForbidRole | RuleKind::Signature | RuleKind::Registered => {
                rule.role.as_ref().is_some_and(|role| roles.iter().any(|r| &r.role == role))
            }
            RuleKind::ForbidImport => evidence.iter().any(|e| e.kind == "imports" && rule.packages.iter().any(|p| uses_package(&e.dst, p))),
            RuleKind::ForbidUse => evidence.iter().any(|e| rule.symbols.contains(&e.dst)),
            _ => false,
        };
        if let (true, Some(h)) = (applies, &rule.hint) {
            out.insert(Hint { rule: format!("{}/{}", pack.pack.name, rule.id), hint: h.clone() });
        }
        // Name-specific fixes for what the unit uses (`cors` -> `@fastify/cors`).
        for (name, h) in &rule.hints {
            let used =
                roles.iter().any(|r| rule.role.as_ref() == Some(&r.role) && (&r.name == name || r.name.ends_with(&format!(".{name}"))));
            if used {
                out.insert(Hint { rule: format!("{}/{} ({name})", pack.pack.name, rule.id), hint: h.clone() });
            }
        }
    }
    out.into_iter().collect()
}

/// What the graph does not know about a unit: guessed edges, dynamic sites, unresolved
/// imports, syntax errors, unregistered look-alikes.
fn questions(
    index: &Index,
    paths: &[String],
    packages: &[String],
    evidence: &[Edge],
    gaps: &[ckg_query::Gap],
    candidates: &[crate::roles::Candidate],
) -> Result<Vec<Question>> {
    let mut out = Vec::new();
    let mut push = |kind: &str, file: &str, line: u32, col: u32, detail: String| {
        let q = Question { id: format!("{kind}:{file}:{line}:{col}"), kind: kind.into(), file: file.into(), line, detail };
        if !out.contains(&q) {
            out.push(q);
        }
    };
    for e in evidence.iter().filter(|e| e.evidence == "heuristic" && paths.contains(&e.file)) {
        push("heuristic_edge", &e.file, e.line, e.col, format!("{} {} {} is a guess by name", e.src, e.kind, e.dst));
    }
    // Computed callees and rebound members can hide uses of the framework. (Unresolved calls
    // that merely share a name with something in the impact set are too many to ask about;
    // writes to the framework's own globals, `g.user = …`, are how it is used.)
    for g in gaps.iter().filter(|g| paths.contains(&g.file)) {
        let framework_global = g.kind == "monkey_patch" && packages.iter().any(|p| uses_package(g.detail.trim_end_matches(" rebound"), p));
        if matches!(g.kind.as_str(), "dynamic_site" | "monkey_patch") && !framework_global {
            push(&g.kind, &g.file, g.line, 0, g.detail.clone());
        }
    }
    for p in paths {
        for e in index.edges_in_file(p)?.into_values().flatten() {
            if e.edge.kind == "imports" && e.edge.evidence == "unresolved" {
                push("unresolved_import", p, e.edge.line, e.edge.col, format!("import of {} could not be resolved", e.edge.dst));
            }
        }
        if let Some(n) = index.parse_errors(p)?.filter(|&n| n > 0) {
            push("syntax_errors", p, 0, 0, format!("{n} syntax error(s): what did not parse is not in the graph"));
        }
    }
    for c in candidates.iter().filter(|c| paths.contains(&c.file)) {
        push("unregistered", &c.file, c.line, 0, format!("{} {}", c.name, c.reason));
    }
    out.sort_by(|a, b| (&a.file, a.line, &a.id).cmp(&(&b.file, b.line, &b.id)));
    Ok(out)
}

/// How a unit is verified: tests that reach it, the pack's constraints, no legacy reference.
fn verification(runner: &TestRunner, pack: &Pack, migration: &Migration, paths: &[String], tests: &[String]) -> Vec<Check> {
    let mut checks = Vec::new();
    if let Some(cmd) = runner.command(tests) {
        checks.push(Check { name: "tests".into(), kind: "command".into(), run: cmd, timeout_s: Some(600), pass: "exit status 0".into() });
    }
    checks.push(Check {
        name: "constraints".into(),
        kind: "constraint".into(),
        run: format!("ckg check --pack {} --files {}", pack.pack.name, paths.join(" ")),
        timeout_s: None,
        pass: "no violation in the unit's files".into(),
    });
    checks.push(Check {
        name: "legacy_references".into(),
        kind: "legacy_reference".into(),
        run: format!("edges from {} to {}", paths.join(", "), migration.packages.join(", ")),
        timeout_s: None,
        pass: format!("none: no import, call or reference of {} remains", migration.packages.join(" or ")),
    });
    checks
}

/// Test files that reach a unit's files through the plan's file dependencies (up to three
/// files away; a test of the unit uses the framework through it, so it is in the plan).
fn tests_reaching(files: &[String], dependents: &[Vec<usize>], members: &[usize]) -> Vec<String> {
    let mut seen: BTreeSet<usize> = members.iter().copied().collect();
    let mut frontier: Vec<usize> = members.to_vec();
    let mut tests: BTreeSet<&str> = members.iter().map(|&m| files[m].as_str()).filter(|p| is_test_file(p)).collect();
    for _ in 0..3 {
        let mut next = Vec::new();
        for &f in &frontier {
            for &d in &dependents[f] {
                if seen.insert(d) {
                    if is_test_file(&files[d]) {
                        tests.insert(&files[d]);
                    } else {
                        next.push(d);
                    }
                }
            }
        }
        frontier = next;
    }
    // Test helpers and fixtures are not tests to run.
    tests
        .into_iter()
        .filter(|t| !t.contains("/helpers/") && !t.ends_with("conftest.py") && !t.contains("fixtures"))
        .map(String::from)
        .collect()
}

/// The repository's test runner, read once: how to run some test files.
struct TestRunner {
    /// For JavaScript/TypeScript tests: the command before the files (`npx jest`).
    js: Option<String>,
    /// For Python tests.
    python: Option<String>,
}

impl TestRunner {
    fn of(index: &Index) -> TestRunner {
        let Some(root) = index.root() else { return TestRunner { js: None, python: None } };
        let root = Path::new(&root);
        let js = std::fs::read_to_string(root.join("package.json")).ok().and_then(|pkg| {
            let json: serde_json::Value = serde_json::from_str(&pkg).ok()?;
            let has = |dep: &str| ["dependencies", "devDependencies"].iter().any(|k| json[k].get(dep).is_some());
            if has("jest") {
                Some("npx jest".to_string())
            } else if has("vitest") {
                Some("npx vitest run".to_string())
            } else if has("mocha") {
                Some("npx mocha".to_string())
            } else {
                json["scripts"].get("test").map(|_| "npm test --".to_string())
            }
        });
        let pytest = ["pytest.ini", "tox.ini", "setup.cfg", "conftest.py", "tests/conftest.py"].iter().any(|f| root.join(f).exists())
            || std::fs::read_to_string(root.join("pyproject.toml")).is_ok_and(|s| s.contains("[tool.pytest"));
        TestRunner { js, python: pytest.then(|| "python -m pytest".to_string()) }
    }

    fn command(&self, tests: &[String]) -> Option<String> {
        let js: Vec<&str> = tests.iter().filter(|t| !t.ends_with(".py")).map(String::as_str).collect();
        let py: Vec<&str> = tests.iter().filter(|t| t.ends_with(".py")).map(String::as_str).collect();
        match (&self.js, &self.python) {
            (Some(cmd), _) if !js.is_empty() => Some(format!("{cmd} {}", js.join(" "))),
            (_, Some(cmd)) if !py.is_empty() => Some(format!("{cmd} {}", py.join(" "))),
            _ => None,
        }
    }
}

/// Fills each unit's contract: the request/response properties its role functions set and
/// the application's own properties they read, linked across units.
fn contracts(index: &Index, units: &mut [Unit], framework: &[Pack]) -> Result<()> {
    // The framework's own members are its API, not the application's properties.
    let api: BTreeSet<&str> =
        framework.iter().flat_map(|p| p.param_use.iter().flat_map(|r| r.members.iter().map(String::as_str))).collect();
    let globals: Vec<&str> =
        framework.iter().flat_map(|p| p.global_use.iter().flat_map(|r| r.targets.iter().map(String::as_str))).collect();
    let unit_of_file: HashMap<String, usize> =
        units.iter().enumerate().flat_map(|(i, u)| u.source.paths.iter().map(move |p| (p.clone(), i))).collect();
    // (unit, property, file, line, write)
    let mut uses: Vec<(usize, String, String, u32, bool)> = Vec::new();
    for (ui, unit) in units.iter().enumerate() {
        for path in &unit.source.paths {
            // A file without roles neither sets nor reads request properties for one.
            if !unit.source.roles.iter().any(|r| &r.file == path) {
                continue;
            }
            let Some((_, shapes)) = index.shapes_of(path)? else { continue };
            let role_lines: BTreeSet<u32> =
                unit.source.roles.iter().filter(|r| &r.file == path && r.role != "req_res_api").map(|r| r.line).collect();
            for f in shapes.functions.iter().filter(|f| role_lines.contains(&f.start.line) || f.params.iter().any(request_like)) {
                for u in &f.param_uses {
                    let param = &f.params[u.param];
                    if !request_like(param) && !role_lines.contains(&f.start.line) {
                        continue;
                    }
                    let name = match (&u.next, u.member.as_str()) {
                        // `res.locals.user`: the property is under `locals`.
                        (Some(next), "locals") => format!("{}.locals.{next}", param.name),
                        _ if api.contains(u.member.as_str()) => continue,
                        _ => format!("{}.{}", param.name, u.member),
                    };
                    uses.push((ui, name, path.clone(), u.pos.line, u.write));
                }
            }
        }
    }
    // Flask's `g`: written in hooks, read in views.
    for g in globals.iter().filter(|g| g.ends_with(".g")) {
        for e in index.edges_to_prefix(&format!("{g}."), &["references", "writes", "calls"], None)? {
            let Some(&ui) = unit_of_file.get(&e.edge.file) else { continue };
            let member = e.edge.dst[g.len() + 1..].split(['.', '(']).next().unwrap_or_default().to_string();
            if matches!(member.as_str(), "get" | "pop" | "setdefault") {
                continue;
            }
            let write = is_assignment_target(index, &e.edge);
            uses.push((ui, format!("g.{member}"), e.edge.file.clone(), e.edge.line, write));
        }
    }
    // Normalise the parameter's name (`request.user` and `req.user` are one property).
    let key = |name: &str| name.split_once('.').map_or(name.to_string(), |(_, rest)| rest.to_string());
    let writers: HashMap<String, BTreeSet<usize>> = uses.iter().filter(|u| u.4).fold(HashMap::new(), |mut m, u| {
        m.entry(key(&u.1)).or_default().insert(u.0);
        m
    });
    let readers: HashMap<String, BTreeSet<usize>> = uses.iter().filter(|u| !u.4).fold(HashMap::new(), |mut m, u| {
        m.entry(key(&u.1)).or_default().insert(u.0);
        m
    });
    let ids: Vec<String> = units.iter().map(|u| u.unit_id.clone()).collect();
    let mut seen: BTreeSet<(usize, String, bool)> = BTreeSet::new();
    for (ui, name, file, line, write) in uses {
        if !seen.insert((ui, key(&name), write)) {
            continue;
        }
        let (others, list) = if write {
            (readers.get(&key(&name)), &mut units[ui].contract.provides)
        } else {
            // Only properties someone in the plan sets are the application's own.
            match writers.get(&key(&name)) {
                Some(w) => (Some(w), &mut units[ui].contract.reads),
                None => continue,
            }
        };
        let units_other: Vec<String> = others.into_iter().flatten().filter(|&&o| o != ui).map(|&o| ids[o].clone()).collect();
        // A property the unit both sets and reads is its own business.
        if !write && units_other.is_empty() {
            continue;
        }
        list.push(Property { name, file, line, units: units_other });
    }
    Ok(())
}

/// A parameter that holds the request or response (by name or by its annotation).
fn request_like(p: &ckg_query::shapes::Param) -> bool {
    matches!(p.name.trim_start_matches('_'), "req" | "request" | "res" | "response" | "reply")
        || p.annotation.as_deref().is_some_and(|a| a.ends_with("Request") || a.ends_with("Response") || a.ends_with("Reply"))
}

/// True when the edge's site is the target of an assignment (`g.user = …`).
fn is_assignment_target(index: &Index, e: &Edge) -> bool {
    let Some(root) = index.root() else { return false };
    let Ok(text) = std::fs::read_to_string(Path::new(&root).join(&e.file)) else { return false };
    let Some(line) = text.lines().nth(e.line as usize - 1) else { return false };
    let after = line.get(e.col as usize - 1..).unwrap_or_default();
    let rest = after.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_').trim_start();
    rest.starts_with('=') && !rest.starts_with("==")
}

/// The JSON schema of the plan and of the ledger's answers (published as
/// `ckg-agent/schema/plan.schema.json`).
pub fn schema_json() -> String {
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ckg migration plan",
        "plan": schemars::schema_for!(Plan),
        "status": schemars::schema_for!(crate::ledger::StatusAnswer),
        "verify": schemars::schema_for!(crate::ledger::VerifyAnswer),
    });
    serde_json::to_string_pretty(&schema).expect("a schema serializes")
}

/// The plan in Markdown, for people.
pub fn markdown(plan: &Plan) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let ready = plan.units.iter().filter(|u| u.state == "pending").count();
    let _ = writeln!(
        out,
        "# Migration plan: {} → {} ({})\n\n{} files in {} units, in order (what is depended on first); {} ready, {} need a decision. Generation {}.\n",
        plan.from,
        plan.to,
        plan.pack,
        plan.files,
        plan.units.len(),
        ready,
        plan.units.len() - ready,
        plan.generation
    );
    for u in &plan.units {
        let _ = writeln!(out, "## {}. `{}` — {}\n", u.position, u.unit_id, u.state);
        let _ = writeln!(out, "- files: {}", u.source.paths.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "));
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &u.source.roles {
            *counts.entry(r.role.as_str()).or_default() += 1;
        }
        if !counts.is_empty() {
            let named: Vec<String> = u
                .source
                .roles
                .iter()
                .filter(|r| r.role != "req_res_api" && r.role != "request_global")
                .map(|r| format!("{} `{}` (line {})", r.role, r.name, r.line))
                .collect();
            let _ = writeln!(out, "- roles: {}", counts.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "));
            for n in named.iter().take(12) {
                let _ = writeln!(out, "  - {n}");
            }
            if named.len() > 12 {
                let _ = writeln!(out, "  - … {} more", named.len() - 12);
            }
        }
        if !u.dependencies.units.is_empty() {
            let _ = writeln!(out, "- after: {}", u.dependencies.units.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", "));
        }
        if !u.contract.exports.is_empty() {
            let shown: Vec<String> = u.contract.exports.iter().take(8).map(|e| format!("`{e}`")).collect();
            let more = if u.contract.exports.len() > 8 { format!(" … {} more", u.contract.exports.len() - 8) } else { String::new() };
            let _ = writeln!(out, "- exports: {}{more} ({} call sites outside)", shown.join(", "), u.callers.len());
        }
        for p in &u.contract.provides {
            let _ = writeln!(out, "- provides `{}` (line {}), read by {}", p.name, p.line, list_or_none(&p.units));
        }
        for p in &u.contract.reads {
            let _ = writeln!(out, "- reads `{}` (line {}), set by {}", p.name, p.line, list_or_none(&p.units));
        }
        for h in &u.target.hints {
            let _ = writeln!(out, "- to do ({}): {}", h.rule, h.hint);
        }
        for c in &u.verification {
            let _ = writeln!(out, "- verify ({}): `{}` — passes when {}", c.kind, c.run, c.pass);
        }
        for q in &u.open_questions {
            let _ = writeln!(out, "- **open question** `{}`: {}:{} {}", q.id, q.file, q.line, q.detail);
        }
        let _ = writeln!(out);
    }
    out
}

fn list_or_none(units: &[String]) -> String {
    if units.is_empty() { "no other unit".into() } else { units.iter().map(|u| format!("`{u}`")).collect::<Vec<_>>().join(", ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_strongly_connected_and_ordered_dependencies_first() {
        // 0 -> 1 -> 2 -> 1 (a cycle of 1 and 2), 3 -> 0
        let deps = vec![vec![1], vec![2], vec![1], vec![0]];
        let groups = strongly_connected(&deps);
        let mut sorted = groups.clone();
        sorted.sort();
        assert_eq!(sorted, vec![vec![0], vec![1, 2], vec![3]]);
        let group_of = |f: usize| groups.iter().position(|g| g.contains(&f)).unwrap();
        let mut gdeps = vec![BTreeSet::new(); groups.len()];
        for (i, ds) in deps.iter().enumerate() {
            for &j in ds {
                if group_of(i) != group_of(j) {
                    gdeps[group_of(i)].insert(group_of(j));
                }
            }
        }
        let order: Vec<Vec<usize>> = ordered(&gdeps, |g| g).into_iter().map(|g| groups[g].clone()).collect();
        assert_eq!(order, vec![vec![1, 2], vec![0], vec![3]]);
    }

    #[test]
    fn test_files_are_recognised() {
        for t in ["test/app.test.ts", "src/__tests__/a.ts", "tests/test_auth.py", "pkg/auth_test.py", "tests/conftest.py", "src/a.spec.js"]
        {
            assert!(is_test_file(t), "{t}");
        }
        for f in ["src/app.ts", "app/testing.py", "src/contest.ts"] {
            assert!(!is_test_file(f), "{f}");
        }
    }
}
