//! CSE constraint checks: declarative rules (TOML) evaluated against the graph.
//!
//! Each rule names what must not be (an import, a use of a symbol, a dependency between
//! layers, a signature of a role's functions, an unregistered look-alike, a role that a
//! migration must remove, a caller of a deprecated symbol that the baseline does not have),
//! and each violation carries the edges that prove it with their evidence, and the fix.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use ckg_query::{Edge, Index};
use globset::{Glob, GlobMatcher};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Result;
use crate::pack::{FormatError, Pack};
use crate::roles::{RoleOccurrence, RolesAnswer, RolesOptions, roles};

/// One rule as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    pub id: String,
    pub kind: RuleKind,
    #[serde(default)]
    pub severity: Severity,
    /// What a violation says (the rule's default when absent).
    pub message: Option<String>,
    /// How to fix it.
    pub hint: Option<String>,
    /// Hints by the name or target a violation is about (`cors` → `@fastify/cors`).
    #[serde(default)]
    pub hints: BTreeMap<String, String>,
    /// `forbid_import`: packages or modules (a package covers its modules and members).
    #[serde(default)]
    pub packages: Vec<String>,
    /// `forbid_use` / `no_new_callers`: qname globs (`express.static`, `express.Response.*`).
    #[serde(default)]
    pub symbols: Vec<String>,
    /// Paths (globs) where the rule does not apply.
    #[serde(default)]
    pub allow: Vec<String>,
    /// `layering`: files matching `from` must not depend on files matching `to`.
    #[serde(default)]
    pub from: Vec<String>,
    #[serde(default)]
    pub to: Vec<String>,
    /// `layering`: within this many hops (default 1: direct dependencies).
    pub max_hops: Option<u32>,
    /// `signature` / `registered` / `forbid_role`: the role the rule is about.
    pub role: Option<String>,
    /// `signature`: the exact parameter count, or bounds.
    pub params: Option<usize>,
    pub min_params: Option<usize>,
    pub max_params: Option<usize>,
    /// `signature`: the parameter names, in order.
    #[serde(default)]
    pub names: Vec<String>,
    /// `signature`: required annotations by parameter name.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// `no_new_callers`: a baseline file (relative to the index's root).
    pub baseline: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    ForbidImport,
    ForbidUse,
    Layering,
    Signature,
    Registered,
    ForbidRole,
    NoNewCallers,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    #[default]
    Error,
    Warning,
    Info,
}

impl RuleSpec {
    /// What the parser cannot check: each kind has what it needs, globs compile.
    pub(crate) fn validate(&self) -> std::result::Result<(), String> {
        let need = |ok: bool, what: &str| if ok { Ok(()) } else { Err(format!("a {} rule needs {what}", kind_name(self.kind))) };
        match self.kind {
            RuleKind::ForbidImport => need(!self.packages.is_empty(), "`packages`")?,
            RuleKind::ForbidUse | RuleKind::NoNewCallers => need(!self.symbols.is_empty(), "`symbols`")?,
            RuleKind::Layering => need(!self.from.is_empty() && !self.to.is_empty(), "`from` and `to`")?,
            RuleKind::Signature => {
                need(self.role.is_some(), "`role`")?;
                need(
                    self.params.is_some()
                        || self.min_params.is_some()
                        || self.max_params.is_some()
                        || !self.names.is_empty()
                        || !self.annotations.is_empty(),
                    "`params`, `min_params`, `max_params`, `names` or `annotations`",
                )?
            }
            RuleKind::Registered | RuleKind::ForbidRole => need(self.role.is_some(), "`role`")?,
        }
        for g in self.allow.iter().chain(&self.from).chain(&self.to).chain(&self.symbols) {
            Glob::new(g).map_err(|e| format!("bad glob {g:?}: {e}"))?;
        }
        Ok(())
    }
}

fn kind_name(kind: RuleKind) -> &'static str {
    match kind {
        RuleKind::ForbidImport => "forbid_import",
        RuleKind::ForbidUse => "forbid_use",
        RuleKind::Layering => "layering",
        RuleKind::Signature => "signature",
        RuleKind::Registered => "registered",
        RuleKind::ForbidRole => "forbid_role",
        RuleKind::NoNewCallers => "no_new_callers",
    }
}

/// One violation.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Violation {
    pub rule: String,
    pub kind: RuleKind,
    pub severity: Severity,
    pub file: String,
    pub line: u32,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The edges that prove it, with their evidence.
    pub evidence: Vec<Edge>,
    /// For a violation about a role: where the role is registered (a function defined in one
    /// file is an Express middleware because other files register it; those registrations
    /// are what must change).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub registered_at: Vec<ckg_query::Site>,
}

impl Violation {
    /// True when fixing it means changing one of `files`: a registration's, else its own.
    pub fn caused_in(&self, files: &[String]) -> bool {
        if self.registered_at.is_empty() { files.contains(&self.file) } else { self.registered_at.iter().any(|s| files.contains(&s.file)) }
    }
}

/// The answer of `check`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CheckAnswer {
    pub generation: i64,
    /// The rules evaluated (pack/rule id).
    pub rules: Vec<String>,
    /// The files the check was limited to (what `--files` affect), when limited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Vec<String>>,
    pub violations: Vec<Violation>,
}

/// What to check.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Only what these files affect (the files, the files they depend on and the files that
    /// depend on them); everything when `None`.
    pub files: Option<Vec<String>>,
    /// A baseline for `no_new_callers` rules (overrides the rules' own).
    pub baseline: Option<Baseline>,
}

/// The callers of deprecated symbols at one time, by rule: (caller, callee) pairs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct Baseline {
    pub rules: BTreeMap<String, BTreeSet<(String, String)>>,
}

/// A set of rules with the packs whose roles they read.
pub struct RuleSet {
    pub packs: Vec<Pack>,
}

fn globs(patterns: &[String]) -> Vec<GlobMatcher> {
    patterns.iter().filter_map(|p| Glob::new(p).ok()).map(|g| g.compile_matcher()).collect()
}

fn any_match(globs: &[GlobMatcher], s: &str) -> bool {
    globs.iter().any(|g| g.is_match(s))
}

/// The edge kinds that make a file depend on another.
const DEPENDENCY_KINDS: &[&str] = &["imports", "calls", "instantiates", "references", "inherits", "implements", "writes"];

impl RuleSet {
    /// Rules from a file (a pack with only `[[rule]]` tables and no `[pack]` is accepted).
    pub fn parse_rules_file(file: &str, src: &str) -> std::result::Result<Pack, FormatError> {
        if src.lines().any(|l| l.trim() == "[pack]") {
            return Pack::parse(file, src);
        }
        let named = format!("[pack]\nname = {:?}\n{src}", file);
        // Keep positions true to the user's file: errors are shifted back by the two lines added.
        Pack::parse(file, &named).map_err(|mut e| {
            e.line = e.line.saturating_sub(2).max(1);
            e
        })
    }

    /// Evaluates every rule of every pack.
    pub fn check(&self, index: &Index, opts: &CheckOptions) -> Result<CheckAnswer> {
        let scope: Option<HashSet<String>> = match &opts.files {
            Some(files) => Some(affected_files(index, files)?),
            None => None,
        };
        // Registrations of the roles in scope are in the scope or one dependency away.
        let reach: Option<Vec<String>> = match &scope {
            Some(s) => Some(affected_files(index, &s.iter().cloned().collect::<Vec<_>>())?.into_iter().collect()),
            None => None,
        };
        let needs_roles = self
            .packs
            .iter()
            .any(|p| p.rule.iter().any(|r| matches!(r.kind, RuleKind::Signature | RuleKind::Registered | RuleKind::ForbidRole)));
        let role_packs: Vec<Pack> = self.packs.iter().filter(|p| !p.object.is_empty()).cloned().collect();
        let found: Option<RolesAnswer> = if needs_roles && !role_packs.is_empty() {
            let candidates = self.packs.iter().any(|p| p.rule.iter().any(|r| r.kind == RuleKind::Registered));
            let ropts = RolesOptions {
                roles: Vec::new(),
                files: scope.as_ref().map(|s| s.iter().cloned().collect()),
                candidates,
                candidates_in: None,
                reach,
            };
            Some(roles(index, &role_packs, &ropts)?)
        } else {
            None
        };
        let in_scope = |file: &str| scope.as_ref().is_none_or(|s| s.contains(file));
        let mut violations = Vec::new();
        let mut ids = Vec::new();
        for pack in &self.packs {
            for rule in &pack.rule {
                ids.push(format!("{}/{}", pack.pack.name, rule.id));
                let allow = globs(&rule.allow);
                let mut v = evaluate(index, pack, rule, found.as_ref(), opts)?;
                // In the scope, or caused there (a registration in scope of a role defined
                // elsewhere).
                v.retain(|v| (in_scope(&v.file) || v.registered_at.iter().any(|s| in_scope(&s.file))) && !any_match(&allow, &v.file));
                violations.extend(v);
            }
        }
        violations.sort_by(|a, b| (&a.file, a.line, &a.rule, &a.message).cmp(&(&b.file, b.line, &b.rule, &b.message)));
        violations.dedup();
        let scope = scope.map(|s| {
            let mut v: Vec<String> = s.into_iter().collect();
            v.sort();
            v
        });
        Ok(CheckAnswer { generation: index.generation, rules: ids, scope, violations })
    }

    /// The callers of every `no_new_callers` rule's symbols now.
    pub fn baseline(&self, index: &Index) -> Result<Baseline> {
        let mut out = Baseline::default();
        for pack in &self.packs {
            for rule in pack.rule.iter().filter(|r| r.kind == RuleKind::NoNewCallers) {
                let pairs = symbol_uses(index, &rule.symbols, &["calls", "instantiates", "references"])?
                    .into_iter()
                    .map(|e| (e.src, e.dst))
                    .collect();
                out.rules.insert(format!("{}/{}", pack.pack.name, rule.id), pairs);
            }
        }
        Ok(out)
    }
}

/// The files an edit of `files` can change violations in: the files, those they depend on
/// and those that depend on them.
/// The files and those one dependency away either way. A file the index does not hold is an
/// error: checked, it would pass without anything being checked (a typo, or a file not
/// indexed yet).
fn affected_files(index: &Index, files: &[String]) -> Result<HashSet<String>> {
    let mut out: HashSet<String> = files.iter().cloned().collect();
    for f in files {
        for answer in [index.deps(f), index.rdeps(f)] {
            match answer {
                Ok(a) => out.extend(a.deps.into_iter().filter(|d| !d.external).map(|d| d.target)),
                Err(ckg_query::Error::NotFound(_)) => {
                    return Err(crate::Error::Usage(format!(
                        "{f:?} is not a file of the index: give a path relative to the indexed root, and run `ckg index` after creating a file"
                    )));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok(out)
}

/// Edges of the kinds to nodes matching any of the qname globs (a glob's literal prefix
/// narrows the lookup).
fn symbol_uses(index: &Index, patterns: &[String], kinds: &[&str]) -> Result<Vec<Edge>> {
    let mut out = Vec::new();
    for p in patterns {
        let prefix: String = p.chars().take_while(|c| !matches!(c, '*' | '?' | '[' | '{')).collect();
        let matcher = Glob::new(p).map_err(|e| crate::Error::Usage(e.to_string()))?.compile_matcher();
        for e in index.edges_to_prefix(&prefix, kinds, None)? {
            if matcher.is_match(&e.edge.dst) || (prefix == *p && e.edge.dst == *p) {
                out.push(e.edge);
            }
        }
    }
    Ok(out)
}

fn violation(pack: &Pack, rule: &RuleSpec, file: &str, line: u32, message: String, key: &str, evidence: Vec<Edge>) -> Violation {
    let hint = rule
        .hints
        .iter()
        .filter(|(k, _)| key == k.as_str() || key.starts_with(&format!("{k}.")) || key.ends_with(&format!(".{k}")))
        .max_by_key(|(k, _)| k.len())
        .map(|(_, h)| h.clone())
        .or_else(|| rule.hint.clone());
    Violation {
        rule: format!("{}/{}", pack.pack.name, rule.id),
        kind: rule.kind,
        severity: rule.severity,
        file: file.to_string(),
        line,
        message: rule.message.clone().map_or(message.clone(), |m| format!("{m}: {message}")),
        hint,
        evidence,
        registered_at: Vec::new(),
    }
}

fn evaluate(index: &Index, pack: &Pack, rule: &RuleSpec, found: Option<&RolesAnswer>, opts: &CheckOptions) -> Result<Vec<Violation>> {
    let mut out = Vec::new();
    let role_occurrences =
        |role: &str| -> Vec<&RoleOccurrence> { found.map(|f| f.roles.iter().filter(|r| r.role == role).collect()).unwrap_or_default() };
    match rule.kind {
        RuleKind::ForbidImport => {
            // One violation per import statement (its specifiers are edges of their own).
            let mut by_line: BTreeMap<(String, u32), Violation> = BTreeMap::new();
            for p in &rule.packages {
                for e in index.edges_to_prefix(p, &["imports"], None)? {
                    let dst = e.edge.dst.clone();
                    if !(dst == *p || dst.starts_with(&format!("{p}.")) || dst.starts_with(&format!("{p}/"))) {
                        continue;
                    }
                    match by_line.entry((e.edge.file.clone(), e.edge.line)) {
                        std::collections::btree_map::Entry::Occupied(mut o) => o.get_mut().evidence.push(e.edge),
                        std::collections::btree_map::Entry::Vacant(v) => {
                            let msg = format!("imports {p}");
                            v.insert(violation(pack, rule, &e.edge.file.clone(), e.edge.line, msg, p, vec![e.edge]));
                        }
                    }
                }
            }
            out.extend(by_line.into_values());
        }
        RuleKind::ForbidUse => {
            for e in symbol_uses(index, &rule.symbols, &["calls", "instantiates", "references", "writes", "inherits", "implements"])? {
                let msg = format!("{} {}", verb(&e.kind), e.dst);
                let key = e.dst.clone();
                out.push(violation(pack, rule, &e.file.clone(), e.line, msg, &key, vec![e]));
            }
        }
        RuleKind::Layering => out.extend(layering(index, pack, rule)?),
        RuleKind::Signature => {
            let role = rule.role.as_deref().unwrap_or_default();
            for occ in role_occurrences(role) {
                let params: Vec<&str> =
                    occ.detail.get("params").map(|p| p.split(',').filter(|s| !s.is_empty()).collect()).unwrap_or_default();
                let mut problems = Vec::new();
                if rule.params.is_some_and(|n| n != params.len()) {
                    problems.push(format!("has {} parameters, not {}", params.len(), rule.params.unwrap_or_default()));
                }
                if rule.min_params.is_some_and(|n| params.len() < n) {
                    problems.push(format!("has {} parameters, fewer than {}", params.len(), rule.min_params.unwrap_or_default()));
                }
                if rule.max_params.is_some_and(|n| params.len() > n) {
                    problems.push(format!("has {} parameters, more than {}", params.len(), rule.max_params.unwrap_or_default()));
                }
                if !rule.names.is_empty() && rule.names.iter().map(String::as_str).ne(params.iter().map(|p| p.trim_start_matches('_'))) {
                    problems.push(format!("has parameters ({}), not ({})", params.join(", "), rule.names.join(", ")));
                }
                if problems.is_empty() {
                    continue;
                }
                let msg = format!("{} {} {}", role.replace('_', " "), occ.name, problems.join("; "));
                let mut v = violation(pack, rule, &occ.file, occ.line, msg, &occ.name, occ.evidence.clone());
                v.registered_at = occ.registrations().cloned().collect();
                out.push(v);
            }
        }
        RuleKind::Registered => {
            let role = rule.role.as_deref().unwrap_or_default();
            for c in found.map(|f| f.candidates.iter().filter(|c| c.role == role).collect::<Vec<_>>()).unwrap_or_default() {
                let msg = format!("{} {}", c.name, c.reason);
                out.push(violation(pack, rule, &c.file, c.line, msg, &c.name, Vec::new()));
            }
        }
        RuleKind::ForbidRole => {
            let role = rule.role.as_deref().unwrap_or_default();
            for occ in role_occurrences(role) {
                let what = if occ.name == "-" { "an inline function".to_string() } else { occ.name.clone() };
                let msg = format!("{what} is {}", role_phrase(role));
                let key = occ.symbol.clone().unwrap_or_else(|| occ.name.clone());
                let mut v = violation(pack, rule, &occ.file, occ.line, msg, &occ.name, occ.evidence.clone());
                if v.hint == rule.hint {
                    v.hint = violation(pack, rule, &occ.file, occ.line, String::new(), &key, Vec::new()).hint;
                }
                v.registered_at = occ.registrations().cloned().collect();
                out.push(v);
            }
        }
        RuleKind::NoNewCallers => {
            let id = format!("{}/{}", pack.pack.name, rule.id);
            let baseline: BTreeSet<(String, String)> = match (&opts.baseline, &rule.baseline) {
                (Some(b), _) => b.rules.get(&id).cloned().unwrap_or_default(),
                (None, Some(path)) => {
                    let root = index.root().unwrap_or_default();
                    let text = std::fs::read_to_string(std::path::Path::new(&root).join(path))
                        .map_err(|e| crate::Error::Usage(format!("{path}: {e}")))?;
                    let b: Baseline = serde_json::from_str(&text).map_err(|e| crate::Error::Usage(format!("{path}: {e}")))?;
                    b.rules.get(&id).cloned().unwrap_or_default()
                }
                (None, None) => BTreeSet::new(),
            };
            for e in symbol_uses(index, &rule.symbols, &["calls", "instantiates", "references"])? {
                if baseline.contains(&(e.src.clone(), e.dst.clone())) {
                    continue;
                }
                let msg = format!("{} is a new caller of deprecated {}", e.src, e.dst);
                let key = e.dst.clone();
                out.push(violation(pack, rule, &e.file.clone(), e.line, msg, &key, vec![e]));
            }
        }
    }
    Ok(out)
}

fn verb(kind: &str) -> &'static str {
    match kind {
        "calls" => "calls",
        "instantiates" => "instantiates",
        "writes" => "writes",
        "inherits" => "inherits from",
        "implements" => "implements",
        _ => "uses",
    }
}

/// A role in a sentence: "an error handler", "static-file serving".
fn role_phrase(role: &str) -> String {
    match role {
        "static" => "static-file serving".into(),
        "req_res_api" => "a use of the request/response API".into(),
        "request_global" => "a use of a request global".into(),
        "third_party_middleware" => "a third-party middleware".into(),
        _ => {
            let words = role.replace('_', " ");
            let article = if words.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
            format!("{article} {words}")
        }
    }
}

/// Files matching `from` that depend on files matching `to`, directly or within `max_hops`.
fn layering(index: &Index, pack: &Pack, rule: &RuleSpec) -> Result<Vec<Violation>> {
    let (from, to) = (globs(&rule.from), globs(&rule.to));
    let hops = rule.max_hops.unwrap_or(1).max(1);
    let files = index.files_in(&ckg_query::Lang::ALL)?;
    let mut deps_of: HashMap<String, Vec<(String, Edge)>> = HashMap::new();
    let mut out = Vec::new();
    for start in files.iter().filter(|f| any_match(&from, f)) {
        // Breadth-first over file dependencies, remembering the first edge of each step.
        let mut seen: HashSet<String> = HashSet::from([start.clone()]);
        let mut queue: VecDeque<(String, u32, Vec<Edge>)> = VecDeque::from([(start.clone(), 0, Vec::new())]);
        while let Some((file, depth, chain)) = queue.pop_front() {
            if depth >= hops {
                continue;
            }
            if !deps_of.contains_key(&file) {
                deps_of.insert(file.clone(), index.file_dependencies(&file, DEPENDENCY_KINDS)?);
            }
            for (dep, edge) in deps_of[&file].clone() {
                if !seen.insert(dep.clone()) {
                    continue;
                }
                let mut chain = chain.clone();
                chain.push(edge);
                if any_match(&to, &dep) && !any_match(&from, &dep) {
                    let how = if chain.len() == 1 { "depends on".to_string() } else { format!("depends on (in {} hops)", chain.len()) };
                    let first = chain[0].clone();
                    let msg = format!("{start} {how} {dep}");
                    out.push(violation(pack, rule, start, first.line, msg, &dep, chain.clone()));
                }
                queue.push_back((dep, depth + 1, chain));
            }
        }
    }
    Ok(out)
}
