//! Framework roles, recognised from the graph by a pack's rules.
//!
//! The graph says which call sites call a framework object's methods (`express().use`,
//! `flask.Blueprint().route`: value flow through variables, imports, settings objects and
//! return values is the resolver's work). The file's shapes ([`ckg_query::shapes`]) say
//! what each such call passes: a path, a name, an inline function, the result of another
//! call, another object. Names are followed through the graph's edges at their sites (or,
//! for locals and parameters, the file's own scopes through `def`), so a role is given only
//! to what a framework object really receives. Calls on a parameter the graph could not type
//! are followed to the callers that pass a framework object.
//!
//! Functions that look like a role but that nothing registers are reported apart as
//! candidates.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use ckg_query::shapes::{CallShape, FunctionKind, FunctionShape, Pos, Shapes, Value};
use ckg_query::{Edge, Index, Lang, Site, SiteEdge};
use schemars::JsonSchema;
use serde::Serialize;

use crate::Result;
use crate::pack::{ByParams, Pack, RegisterRule};

/// One occurrence of a role.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct RoleOccurrence {
    pub pack: String,
    pub role: String,
    pub file: String,
    pub line: u32,
    /// The function, object or member (`res.json`, `request`); `-` for an anonymous function.
    pub name: String,
    /// The graph's node for it, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Where it is registered (the registration call's site).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registered_at: Option<Site>,
    /// The other places it is registered (a middleware used by several routers).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub also_registered_at: Vec<Site>,
    /// The pack rule that recognised it (`express/use`).
    pub rule: String,
    /// What the registration says: `path`, `methods`, `mounted_at`, `params`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub detail: BTreeMap<String, String>,
    /// The edges that prove it, with their evidence.
    pub evidence: Vec<Edge>,
    /// The weakest evidence tier among them.
    pub tier: String,
}

impl RoleOccurrence {
    /// Every place it is registered.
    pub fn registrations(&self) -> impl Iterator<Item = &Site> {
        self.registered_at.iter().chain(&self.also_registered_at)
    }
}

/// A look-alike: something shaped or named like a role that no rule recognised.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Candidate {
    pub pack: String,
    /// The role it looks like.
    pub role: String,
    pub file: String,
    pub line: u32,
    pub name: String,
    pub reason: String,
}

/// The answer of `roles`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RolesAnswer {
    pub generation: i64,
    pub packs: Vec<String>,
    pub roles: Vec<RoleOccurrence>,
    pub candidates: Vec<Candidate>,
    /// Files read to learn call and function shapes.
    pub files_read: usize,
}

/// What to look at.
#[derive(Clone, Debug)]
pub struct RolesOptions {
    /// Only these roles (all when empty).
    pub roles: Vec<String>,
    /// Only occurrences in these files or registered from them, and candidates among them
    /// (all when `None`).
    pub files: Option<Vec<String>>,
    /// Look for candidates (every function of the files is read) …
    pub candidates: bool,
    /// … among these files only (all of `files` when `None`).
    pub candidates_in: Option<Vec<String>>,
    /// With `files`: the files whose registrations are read (a role in `files` can be
    /// registered from a file that depends on it, or that it passes a function to); `files`
    /// when `None`.
    pub reach: Option<Vec<String>>,
}

impl Default for RolesOptions {
    fn default() -> Self {
        RolesOptions { roles: Vec::new(), files: None, candidates: true, candidates_in: None, reach: None }
    }
}

const CALL_EDGES: &[&str] = &["calls", "instantiates"];
const USE_EDGES: &[&str] = &["calls", "references", "writes", "instantiates"];
const TIERS: &[&str] = &["exact", "inferred", "heuristic", "unresolved"];

/// A file read for its shapes, with its edges by site.
struct FileCtx {
    lang: Lang,
    shapes: Shapes,
    edges: HashMap<Pos, Vec<SiteEdge>>,
    lines: Vec<String>,
}

/// Where an object is created: the call and the name it is bound to.
#[derive(Clone, Debug)]
struct ObjectSite {
    pack: String,
    object: String,
    file: String,
    call: usize,
    bound: Option<(String, Pos)>,
    edge: SiteEdge,
}

/// What a name or argument turned out to be.
#[derive(Clone, Debug)]
enum Target {
    /// A function or class of a file (index into that file's shapes).
    Function {
        file: String,
        index: usize,
        via: Vec<Edge>,
    },
    /// A framework object.
    Object {
        id: String,
        site: usize,
        via: Vec<Edge>,
    },
    /// What the callers of a function pass for one of its parameters.
    Several(Vec<Target>),
    /// What a call returns (a name bound to `createRateLimiter(…)` or `cors()`).
    Produced {
        file: String,
        call: usize,
    },
    Unknown,
}

/// Finds the role occurrences the packs describe.
pub fn roles(index: &Index, packs: &[Pack], opts: &RolesOptions) -> Result<RolesAnswer> {
    let sites: Option<Vec<String>> = opts.reach.as_ref().or(opts.files.as_ref()).cloned();
    let mut finder = Finder {
        index,
        scope: sites.as_ref().map(|f| f.iter().cloned().collect()),
        sites,
        files: HashMap::new(),
        pending: HashMap::new(),
        objects: Vec::new(),
        out: Vec::new(),
        functions_seen: HashSet::new(),
    };
    let mut candidates = Vec::new();
    for pack in packs {
        finder.pack(pack)?;
    }
    if opts.candidates {
        for pack in packs {
            candidates.extend(finder.candidates(pack, opts)?);
        }
    }
    let mut roles = std::mem::take(&mut finder.out);
    roles.retain(|r| opts.roles.is_empty() || opts.roles.contains(&r.role));
    if let Some(files) = &opts.files {
        // In the files, or registered from them (what must change is there).
        roles.retain(|r| files.contains(&r.file) || r.registrations().any(|s| files.contains(&s.file)));
    }
    roles.sort_by(|a, b| (&a.file, a.line, &a.role, &a.name).cmp(&(&b.file, b.line, &b.role, &b.name)));
    // One occurrence per role and place, with every registration that makes it one.
    roles.dedup_by(|later, kept| {
        let same = later.file == kept.file
            && later.line == kept.line
            && later.role == kept.role
            && later.name == kept.name
            && later.pack == kept.pack;
        if same {
            for site in later.registrations().cloned().collect::<Vec<_>>() {
                if !kept.registrations().any(|s| *s == site) {
                    kept.also_registered_at.push(site);
                }
            }
            for e in later.evidence.drain(..) {
                if !kept.evidence.contains(&e) {
                    kept.evidence.push(e);
                }
            }
            kept.tier = weakest(&kept.evidence);
        }
        same
    });
    candidates.sort_by(|a, b| (&a.file, a.line, &a.role).cmp(&(&b.file, b.line, &b.role)));
    candidates.dedup_by(|a, b| a.file == b.file && a.line == b.line && a.pack == b.pack);
    Ok(RolesAnswer {
        generation: index.generation,
        packs: packs.iter().map(|p| p.pack.name.clone()).collect(),
        roles,
        candidates,
        files_read: finder.files.len(),
    })
}

struct Finder<'i> {
    index: &'i Index,
    /// Only registrations and uses in these files (what an edit affects); all when `None`.
    scope: Option<HashSet<String>>,
    /// The same, as a list for queries.
    sites: Option<Vec<String>>,
    files: HashMap<String, Option<Rc<FileCtx>>>,
    /// Object creations by file, read from a file's shapes when the file is first needed:
    /// (pack, object id, role, the creating call's edge).
    pending: HashMap<String, Vec<(String, String, String, SiteEdge)>>,
    objects: Vec<ObjectSite>,
    out: Vec<RoleOccurrence>,
    /// (file, function index) of every function given a role (candidates leave them out).
    functions_seen: HashSet<(String, usize)>,
}

fn weakest(edges: &[Edge]) -> String {
    edges.iter().map(|e| TIERS.iter().position(|t| *t == e.evidence).unwrap_or(3)).max().map_or("exact", |i| TIERS[i]).to_string()
}

impl<'i> Finder<'i> {
    fn file(&mut self, path: &str) -> Result<Option<Rc<FileCtx>>> {
        if let Some(f) = self.files.get(path) {
            return Ok(f.clone());
        }
        let ctx = match self.index.shapes_of(path)? {
            Some((file, shapes)) => {
                let edges = self.index.edges_in_file(path)?;
                let lines = String::from_utf8_lossy(&file.source).lines().map(str::to_string).collect();
                Some(Rc::new(FileCtx { lang: file.lang, shapes, edges, lines }))
            }
            None => None,
        };
        self.files.insert(path.to_string(), ctx.clone());
        Ok(ctx)
    }

    fn in_scope(&self, file: &str) -> bool {
        self.scope.as_ref().is_none_or(|s| s.contains(file))
    }

    fn pack(&mut self, pack: &Pack) -> Result<()> {
        // Objects: where each is created (read from a file's shapes when it is needed).
        for rule in &pack.object {
            for creator in &rule.created_by {
                for e in self.index.edges_to_prefix(creator, CALL_EDGES, None)? {
                    if e.edge.dst == *creator {
                        let entry = (pack.pack.name.clone(), rule.id.clone(), rule.role.clone(), e.clone());
                        self.pending.entry(e.edge.file.clone()).or_default().push(entry);
                    }
                }
            }
        }
        let files: Vec<String> = self.pending.keys().filter(|f| self.in_scope(f)).cloned().collect();
        for f in files {
            self.ensure_objects(&f)?;
        }
        for rule in &pack.register {
            self.registrations(pack, rule)?;
        }
        self.factories(pack)?;
        self.extensions(pack)?;
        self.param_uses(pack);
        self.typed_uses(pack)?;
        self.global_uses(pack)?;
        Ok(())
    }

    /// Reads the object creations of a file (once), with their role occurrences.
    fn ensure_objects(&mut self, file: &str) -> Result<()> {
        let Some(creations) = self.pending.remove(file) else { return Ok(()) };
        let Some(f) = self.file(file)? else { return Ok(()) };
        for (pack, object, role, e) in creations {
            let Some(call) = f.shapes.call_named_at(Pos { line: e.edge.line, col: e.edge.col }) else { continue };
            let bound = f.shapes.calls[call].bound_to.clone();
            let line = bound.as_ref().map_or(f.shapes.calls[call].start.line, |b| b.1.line);
            let label = bound.as_ref().map_or("-".to_string(), |b| b.0.rsplit('.').next().unwrap_or(&b.0).to_string());
            self.out.push(RoleOccurrence {
                pack: pack.clone(),
                role,
                file: file.to_string(),
                line,
                name: label,
                symbol: None,
                registered_at: None,
                also_registered_at: Vec::new(),
                rule: format!("{pack}/object/{object}"),
                detail: BTreeMap::new(),
                evidence: vec![e.edge.clone()],
                tier: e.edge.evidence.clone(),
            });
            self.objects.push(ObjectSite { pack, object, file: file.to_string(), call, bound, edge: e });
        }
        Ok(())
    }

    /// The receiver prefixes of an object: `express().`, `express.Application.`.
    fn prefixes(pack: &Pack, object: &str) -> Vec<String> {
        let Some(o) = pack.object.iter().find(|o| o.id == object) else { return Vec::new() };
        o.created_by.iter().map(|c| format!("{c}().")).chain(o.types.iter().map(|t| format!("{t}."))).collect()
    }

    fn registrations(&mut self, pack: &Pack, rule: &RegisterRule) -> Result<()> {
        let mut sites: Vec<(SiteEdge, String)> = Vec::new();
        for object in &rule.on {
            for prefix in Self::prefixes(pack, object) {
                let wanted: HashSet<String> = rule.methods.iter().map(|m| format!("{prefix}{m}")).collect();
                for e in self.index.edges_to_prefix(&prefix, CALL_EDGES, self.sites.as_deref())? {
                    if wanted.contains(&e.edge.dst) && self.in_scope(&e.edge.file) {
                        sites.push((e, object.clone()));
                    }
                }
            }
        }
        // Calls the graph left unresolved on a parameter: follow the callers' arguments.
        let mut lasts: Vec<&str> = rule.methods.iter().map(|m| m.rsplit('.').next().unwrap_or(m)).collect();
        lasts.sort();
        lasts.dedup();
        for last in lasts {
            let mut guesses = self.index.unresolved_named(last, CALL_EDGES, self.sites.as_deref())?;
            // The heuristic tier binds a call on an unknown receiver to the only repository
            // method of that name; whether the receiver is a framework object is decided here.
            guesses.extend(self.index.edges_to_named(last, CALL_EDGES, Some("heuristic"), self.sites.as_deref())?);
            for mut e in guesses {
                if !self.in_scope(&e.edge.file) {
                    continue;
                }
                let Some(f) = self.file(&e.edge.file)? else { continue };
                let pos = Pos { line: e.edge.line, col: e.edge.col };
                // The callee as written, and the function the site is in: a call's, or a bare
                // decorator's (`@app.before_request`).
                let (written, scope) = match f.shapes.call_named_at(pos) {
                    Some(c) => (f.shapes.calls[c].callee.clone(), f.shapes.calls[c].in_function),
                    None => match f.shapes.functions.iter().find_map(|s| s.decorators.iter().find(|d| d.pos == pos).map(|d| (d, s.parent)))
                    {
                        Some((d, parent)) => (d.path.clone(), parent),
                        None => continue,
                    },
                };
                let Some(receiver) = rule.methods.iter().find_map(|m| written.strip_suffix(&format!(".{m}"))) else { continue };
                let Target::Object { id, mut via, .. } = self.receiver_object(&e.edge.file, &f, scope, receiver, 0)? else { continue };
                if rule.on.contains(&id) {
                    e.edge.dst = written;
                    e.edge.evidence = "inferred".into();
                    via.push(e.edge.clone());
                    e.edge.evidence = weakest(&via);
                    sites.push((e, id));
                }
            }
        }
        sites.sort_by(|a, b| (&a.0.edge.file, a.0.edge.line, a.0.edge.col).cmp(&(&b.0.edge.file, b.0.edge.line, b.0.edge.col)));
        sites.dedup_by(|a, b| a.0.edge.file == b.0.edge.file && a.0.edge.line == b.0.edge.line && a.0.edge.col == b.0.edge.col);
        for (site, object) in sites {
            self.registration(pack, rule, &site, &object)?;
        }
        Ok(())
    }

    /// What object the receiver `path` of a call is: a parameter filled by callers, or a name
    /// bound to an object's creation.
    fn receiver_object(&mut self, file: &str, f: &Rc<FileCtx>, scope: Option<usize>, path: &str, depth: u32) -> Result<Target> {
        if depth > 3 || path.contains('.') || path.contains('(') {
            return Ok(Target::Unknown);
        }
        let mut func = scope;
        while let Some(fi) = func {
            let shape = &f.shapes.functions[fi];
            if let Some(param) = shape.params.iter().position(|p| p.name == path) {
                return self.parameter_object(file, fi, param, depth);
            }
            func = shape.parent;
        }
        Ok(Target::Unknown)
    }

    /// The object the callers of a function pass as its `param`-th parameter (the first one
    /// found that is an object).
    fn parameter_object(&mut self, file: &str, function: usize, param: usize, depth: u32) -> Result<Target> {
        let values = self.parameter_values(file, function, param, depth)?;
        Ok(values.into_iter().find(|t| matches!(t, Target::Object { .. })).unwrap_or(Target::Unknown))
    }

    /// What the callers of a function pass as its `param`-th parameter, each with the call
    /// that passes it first in its proof.
    fn parameter_values(&mut self, file: &str, function: usize, param: usize, depth: u32) -> Result<Vec<Target>> {
        let Some(f) = self.file(file)? else { return Ok(Vec::new()) };
        let Some(name_pos) = f.shapes.functions[function].name_pos else { return Ok(Vec::new()) };
        let Some(qname) = self.symbol_at(file, name_pos)? else { return Ok(Vec::new()) };
        // Python methods take `self` first; callers pass one argument fewer.
        let shift = usize::from(f.lang == Lang::Python && f.shapes.functions[function].kind == FunctionKind::Method);
        let Some(index) = param.checked_sub(shift) else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for e in self.index.edges_to_prefix(&qname, CALL_EDGES, None)? {
            if e.edge.dst != qname {
                continue;
            }
            let Some(cf) = self.file(&e.edge.file)? else { continue };
            let Some(call) = cf.shapes.call_named_at(Pos { line: e.edge.line, col: e.edge.col }) else { continue };
            let Some(arg) = cf.shapes.calls[call].args.iter().filter(|a| a.keyword.is_none()).nth(index) else { continue };
            let value = arg.value.clone();
            let mut target = self.value_target(&e.edge.file.clone(), &cf, &value, depth + 1)?;
            match &mut target {
                Target::Object { via, .. } | Target::Function { via, .. } => via.insert(0, e.edge.clone()),
                _ => continue,
            }
            out.push(target);
        }
        Ok(out)
    }

    /// The graph's qname for the definition whose name is at `pos`.
    fn symbol_at(&self, file: &str, pos: Pos) -> Result<Option<String>> {
        let answer = self.index.def_at(file, pos.line, pos.col)?;
        Ok(answer.definition.filter(|d| d.node.kind != "local" && d.node.kind != "parameter").map(|d| d.node.qname))
    }

    /// What a value passed somewhere is: an inline function, a name of a function or object,
    /// or the result of creating an object.
    fn value_target(&mut self, file: &str, f: &Rc<FileCtx>, value: &Value, depth: u32) -> Result<Target> {
        match value {
            Value::Function { index } => Ok(Target::Function { file: file.to_string(), index: *index, via: Vec::new() }),
            Value::Path { path, pos } => self.path_target(file, f, path, *pos, depth),
            Value::Call { index } => {
                let site = f.shapes.calls[*index].name_pos;
                Ok(match self.object_created_at(file, site)? {
                    Some(o) => Target::Object { id: self.objects[o].object.clone(), site: o, via: vec![self.objects[o].edge.edge.clone()] },
                    None => Target::Unknown,
                })
            }
            _ => Ok(Target::Unknown),
        }
    }

    fn object_created_at(&mut self, file: &str, name_pos: Pos) -> Result<Option<usize>> {
        self.ensure_objects(file)?;
        Ok(self.objects.iter().position(|o| o.file == file && o.edge.edge.line == name_pos.line && o.edge.edge.col == name_pos.col))
    }

    fn object_bound_at(&mut self, file: &str, pos: Pos) -> Result<Option<usize>> {
        self.ensure_objects(file)?;
        Ok(self.objects.iter().position(|o| o.file == file && o.bound.as_ref().is_some_and(|b| b.1 == pos)))
    }

    /// A name at `pos`: through the edge the graph has there, else through `def` (locals).
    fn path_target(&mut self, file: &str, f: &Rc<FileCtx>, path: &str, pos: Pos, depth: u32) -> Result<Target> {
        let edge = f.edges.get(&pos).and_then(|es| es.iter().find(|e| e.dst_file.is_some() && e.edge.kind != "imports")).cloned();
        if let Some(e) = edge {
            let (dfile, dpos) = (e.dst_file.clone().expect("filtered"), Pos { line: e.dst_line.unwrap_or(0), col: e.dst_col.unwrap_or(0) });
            return self.definition_target(&dfile, dpos, vec![e.edge.clone()]);
        }
        if path.contains('.') {
            return Ok(Target::Unknown);
        }
        // A local or parameter of this file.
        let def = self.index.def_at(file, pos.line, pos.col)?;
        let Some(d) = def.definition else { return Ok(Target::Unknown) };
        let Some(dfile) = d.node.file.clone() else { return Ok(Target::Unknown) };
        let dpos = Pos { line: d.node.line, col: d.node.col };
        if matches!(d.node.kind.as_str(), "parameter" | "local") && depth < 3 {
            // A parameter (a local bound in a parameter list): what the callers pass.
            let Some(df) = self.file(&dfile)? else { return Ok(Target::Unknown) };
            let owner = df.shapes.functions.iter().enumerate().find(|(_, s)| s.params.iter().any(|p| p.pos == dpos));
            if let Some((fi, shape)) = owner
                && let Some(param) = shape.params.iter().position(|p| p.pos == dpos)
            {
                let mut values = self.parameter_values(&dfile, fi, param, depth + 1)?;
                return Ok(match values.len() {
                    0 => Target::Unknown,
                    1 => values.remove(0),
                    _ => Target::Several(values),
                });
            }
        }
        self.definition_target(&dfile, dpos, d.via.into_iter().collect())
    }

    /// The definition at a name position: a function or class, an object's binding, or a
    /// name bound to a function or to another name.
    fn definition_target(&mut self, file: &str, pos: Pos, via: Vec<Edge>) -> Result<Target> {
        if let Some(o) = self.object_bound_at(file, pos)? {
            let mut via = via;
            via.push(self.objects[o].edge.edge.clone());
            return Ok(Target::Object { id: self.objects[o].object.clone(), site: o, via });
        }
        let Some(f) = self.file(file)? else { return Ok(Target::Unknown) };
        if let Some(index) = f.shapes.functions.iter().position(|s| s.name_pos == Some(pos)) {
            return Ok(Target::Function { file: file.to_string(), index, via });
        }
        if let Some(call) = f.shapes.calls.iter().position(|c| c.bound_to.as_ref().is_some_and(|b| b.1 == pos)) {
            return Ok(Target::Produced { file: file.to_string(), call });
        }
        Ok(Target::Unknown)
    }

    fn registration(&mut self, pack: &Pack, rule: &RegisterRule, site: &SiteEdge, object: &str) -> Result<()> {
        let file = site.edge.file.clone();
        let Some(f) = self.file(&file)? else { return Ok(()) };
        let pos = Pos { line: site.edge.line, col: site.edge.col };
        let rule_id = format!("{}/{}", pack.pack.name, rule.id);
        let registered_at = Some(Site { file: file.clone(), line: site.edge.line, col: site.edge.col });
        let mut detail = BTreeMap::new();
        detail.insert("on".to_string(), object.to_string());
        let method = site.edge.dst.rsplit('.').next().unwrap_or_default().to_string();
        let call = f.shapes.call_named_at(pos);
        if let Some(c) = call {
            let shape = &f.shapes.calls[c];
            if let Some(Value::Str { text }) = shape.args.iter().find(|a| a.keyword.is_none()).map(|a| &a.value) {
                detail.insert("path".into(), text.clone());
            }
            if let Some(methods) = shape.args.iter().find(|a| a.keyword.as_deref() == Some("methods"))
                && let Value::List { items } = &methods.value
            {
                let m: Vec<&str> =
                    items.iter().filter_map(|v| if let Value::Str { text } = v { Some(text.as_str()) } else { None }).collect();
                detail.insert("methods".into(), m.join(","));
            }
        }
        if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) && !detail.contains_key("methods") {
            detail.insert("methods".into(), method.to_uppercase());
        }
        // The decorated definition.
        if let Some(role) = &rule.decorated {
            let decorated = f.shapes.functions.iter().position(|s| s.decorators.iter().any(|d| d.pos == pos));
            if let Some(fi) = decorated {
                self.function_role(
                    pack,
                    role,
                    &file,
                    fi,
                    &rule_id,
                    registered_at.clone(),
                    detail.clone(),
                    vec![site.edge.clone()],
                    &rule.by_params,
                )?;
            }
        }
        let Some(c) = call else { return Ok(()) };
        let args: Vec<(usize, Value)> = f.shapes.calls[c]
            .args
            .iter()
            .enumerate()
            .filter(|(i, a)| match (&rule.keyword, rule.positional) {
                (Some(k), Some(p)) => a.keyword.as_deref() == Some(k.as_str()) || (a.keyword.is_none() && *i == p),
                (Some(k), None) => a.keyword.as_deref() == Some(k.as_str()),
                (None, Some(p)) => a.keyword.is_none() && *i == p,
                (None, None) => a.keyword.is_none(),
            })
            .map(|(i, a)| (i, a.value.clone()))
            .collect();
        // Resolve each argument, then give roles: the last function its own role.
        let mut functions: Vec<(String, usize, Vec<Edge>)> = Vec::new();
        for (_, value) in &args {
            let value = self.unwrap_view(&f, value, &rule.view_wrappers);
            match &value {
                Value::Call { index } if self.object_created_at(&file, f.shapes.calls[*index].name_pos)?.is_none() => {
                    // A wrapper's inline function takes the argument's place.
                    if let Some(wrapped) = self.call_argument(pack, rule, &file, &f, *index, &rule_id, &registered_at, &detail)? {
                        functions.push(wrapped);
                    }
                    continue;
                }
                _ => {}
            }
            let targets = match self.value_target(&file, &f, &value, 0)? {
                Target::Several(ts) => ts,
                t => vec![t],
            };
            for target in targets {
                match target {
                    Target::Function { file: ff, index, via } => functions.push((ff, index, via)),
                    Target::Produced { file: pfile, call, .. } => {
                        let Some(pf) = self.file(&pfile)? else { continue };
                        // `view = Resource.as_view("x")`: the class.
                        let unwrapped = self.unwrap_view(&pf, &Value::Call { index: call }, &rule.view_wrappers);
                        if matches!(unwrapped, Value::Path { .. }) {
                            if let Target::Function { file: ff, index, via } = self.value_target(&pfile, &pf, &unwrapped, 0)? {
                                functions.push((ff, index, via));
                            }
                            continue;
                        }
                        if let Some(wrapped) = self.call_argument(pack, rule, &pfile, &pf, call, &rule_id, &registered_at, &detail)? {
                            functions.push(wrapped);
                        }
                    }
                    Target::Object { site: o, mut via, .. } if rule.mounts => {
                        via.insert(0, site.edge.clone());
                        self.mount(pack, o, &site.edge, &detail, via);
                    }
                    _ => {}
                }
            }
        }
        let count = functions.len();
        for (i, (ff, index, via)) in functions.into_iter().enumerate() {
            let role = if i + 1 == count { rule.last_function.as_ref().or(rule.functions.as_ref()) } else { rule.functions.as_ref() };
            let Some(role) = role else { continue };
            let mut evidence = vec![site.edge.clone()];
            evidence.extend(via);
            self.function_role(pack, role, &ff, index, &rule_id, registered_at.clone(), detail.clone(), evidence, &rule.by_params)?;
        }
        Ok(())
    }

    /// Records on an object's occurrence that it is mounted by the registration `at`.
    fn mount(&mut self, pack: &Pack, object: usize, at: &Edge, detail: &BTreeMap<String, String>, via: Vec<Edge>) {
        let mounted = &self.objects[object];
        let (mfile, mline) = (mounted.file.clone(), mounted.bound.as_ref().map_or(mounted.edge.edge.line, |b| b.1.line));
        let Some(occ) = self.out.iter_mut().find(|r| r.file == mfile && r.line == mline && r.pack == pack.pack.name) else { return };
        let place = format!("{}:{}{}", at.file, at.line, detail.get("path").map(|p| format!(" {p}")).unwrap_or_default());
        let entry = occ.detail.entry("mounted_at".into()).or_default();
        if !entry.is_empty() {
            entry.push_str("; ");
        }
        entry.push_str(&place);
        for e in via {
            if !occ.evidence.contains(&e) {
                occ.evidence.push(e);
            }
        }
        occ.tier = weakest(&occ.evidence);
    }

    /// The object a function creates and returns, if it does.
    fn returned_object(&mut self, file: &str, function: usize) -> Result<Option<usize>> {
        self.ensure_objects(file)?;
        let Some(f) = self.file(file)? else { return Ok(None) };
        let returns = &f.shapes.functions[function].returns;
        Ok(self.objects.iter().position(|o| {
            o.file == file
                && f.shapes.calls[o.call].in_function == Some(function)
                && returns.iter().any(|v| match v {
                    Value::Path { path, .. } => o.bound.as_ref().is_some_and(|b| &b.0 == path),
                    Value::Call { index } => *index == o.call,
                    _ => false,
                })
        }))
    }

    /// `X.as_view(…)` stands for `X`.
    fn unwrap_view(&self, f: &FileCtx, value: &Value, wrappers: &[String]) -> Value {
        if let Value::Call { index } = value {
            let call: &CallShape = &f.shapes.calls[*index];
            if let Some((recv, method)) = call.callee.rsplit_once('.')
                && wrappers.iter().any(|w| w == method)
            {
                let pos = Pos {
                    line: call.name_pos.line,
                    col: call.name_pos.col.saturating_sub(recv.rsplit('.').next().unwrap_or(recv).len() as u32 + 1),
                };
                return Value::Path { path: recv.to_string(), pos };
            }
        }
        value.clone()
    }

    /// A call passed to a registration: a third-party middleware, a special external (static
    /// files), a repository factory, or a wrapper around an inline function (whose inline
    /// function is returned: it is what the registration receives).
    #[allow(clippy::too_many_arguments)]
    fn call_argument(
        &mut self,
        pack: &Pack,
        rule: &RegisterRule,
        file: &str,
        f: &Rc<FileCtx>,
        call: usize,
        rule_id: &str,
        registered_at: &Option<Site>,
        detail: &BTreeMap<String, String>,
    ) -> Result<Option<(String, usize, Vec<Edge>)>> {
        let shape = &f.shapes.calls[call];
        let Some(edge) =
            f.edges.get(&shape.name_pos).and_then(|es| es.iter().find(|e| CALL_EDGES.contains(&e.edge.kind.as_str()))).cloned()
        else {
            return Ok(None);
        };
        let evidence = |site: &SiteEdge| vec![site.edge.clone()];
        // Roles of the call itself: a particular external (static files), any external.
        let mut roles: Vec<&String> = rule.special_calls.iter().filter(|s| s.callee == edge.edge.dst).map(|s| &s.role).collect();
        if edge.dst_file.is_none() && edge.edge.evidence != "unresolved" {
            roles.extend(&rule.external_calls);
        }
        for role in roles {
            self.push(pack, role, file, shape.start.line, shape.callee.clone(), None, rule_id, registered_at, detail, evidence(&edge));
        }
        if let (Some(dfile), Some("function" | "method" | "variable" | "constant")) = (&edge.dst_file, edge.dst_kind.as_deref()) {
            let dpos = Pos { line: edge.dst_line.unwrap_or(0), col: edge.dst_col.unwrap_or(0) };
            let dfile = dfile.clone();
            let inline: Vec<usize> =
                shape.args.iter().filter_map(|a| if let Value::Function { index } = a.value { Some(index) } else { None }).collect();
            let Target::Function { file: ff, index, via } = self.definition_target(&dfile, dpos, vec![edge.edge.clone()])? else {
                return Ok(None);
            };
            // A factory of an object (a function that creates a router and returns it).
            if let Some(o) = self.returned_object(&ff, index)? {
                if rule.mounts {
                    self.mount(pack, o, &site_of(registered_at), detail, via);
                }
                return Ok(None);
            }
            // A wrapper (`asyncHandler(async (req, res) => …)`) is transparent: the inline
            // function is what is registered, and the wrapper plays no role of its own.
            if let Some(&fi) = inline.last() {
                return Ok(Some((file.to_string(), fi, evidence(&edge))));
            }
            if let Some(role) = &rule.repo_calls {
                self.function_role(pack, role, &ff, index, rule_id, registered_at.clone(), detail.clone(), via.clone(), &[])?;
            }
            // A factory: what it returns is what the registration receives.
            let Some(ffile) = self.file(&ff)? else { return Ok(None) };
            let product = ffile.shapes.functions[index].returns.iter().find_map(|v| match v {
                Value::Function { index } => Some(*index),
                _ => None,
            });
            if let Some(p) = product {
                return Ok(Some((ff, p, via)));
            }
        }
        Ok(None)
    }

    #[allow(clippy::too_many_arguments)]
    fn function_role(
        &mut self,
        pack: &Pack,
        role: &str,
        file: &str,
        index: usize,
        rule_id: &str,
        registered_at: Option<Site>,
        mut detail: BTreeMap<String, String>,
        evidence: Vec<Edge>,
        by_params: &[ByParams],
    ) -> Result<()> {
        let Some(f) = self.file(file)? else { return Ok(()) };
        let shape: &FunctionShape = &f.shapes.functions[index];
        let role = by_params.iter().find(|b| b.count == shape.params.len()).map_or(role, |b| b.role.as_str()).to_string();
        detail.insert("params".into(), shape.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(","));
        let name = shape.name.clone().unwrap_or_else(|| "-".into());
        let symbol = match shape.name_pos {
            Some(p) => self.symbol_at(file, p)?,
            None => None,
        };
        let line = shape.start.line;
        self.functions_seen.insert((file.to_string(), index));
        self.push(pack, &role, file, line, name, symbol, rule_id, &registered_at, &detail, evidence);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        pack: &Pack,
        role: &str,
        file: &str,
        line: u32,
        name: String,
        symbol: Option<String>,
        rule_id: &str,
        registered_at: &Option<Site>,
        detail: &BTreeMap<String, String>,
        evidence: Vec<Edge>,
    ) {
        let tier = weakest(&evidence);
        self.out.push(RoleOccurrence {
            pack: pack.pack.name.clone(),
            role: role.to_string(),
            file: file.to_string(),
            line,
            name,
            symbol,
            registered_at: registered_at.clone(),
            also_registered_at: Vec::new(),
            rule: rule_id.to_string(),
            detail: detail.clone(),
            evidence,
            tier,
        });
    }

    /// Functions that create an object and return it.
    fn factories(&mut self, pack: &Pack) -> Result<()> {
        for rule in &pack.factory {
            let sites: Vec<ObjectSite> = self
                .objects
                .iter()
                .filter(|o| o.pack == pack.pack.name && o.object == rule.returns && self.in_scope(&o.file))
                .cloned()
                .collect();
            for o in sites {
                let Some(f) = self.file(&o.file)? else { continue };
                let call = &f.shapes.calls[o.call];
                let Some(fi) = call.in_function else { continue };
                let returned = f.shapes.functions[fi].returns.iter().any(|v| match v {
                    Value::Path { path, .. } => o.bound.as_ref().is_some_and(|b| &b.0 == path),
                    Value::Call { index } => *index == o.call,
                    _ => false,
                });
                if returned {
                    let detail = BTreeMap::new();
                    let rule_id = format!("{}/factory", pack.pack.name);
                    self.function_role(pack, &rule.role, &o.file, fi, &rule_id, None, detail, vec![o.edge.edge.clone()], &[])?;
                }
            }
        }
        Ok(())
    }

    /// Objects initialised with an application: `db.init_app(app)`.
    fn extensions(&mut self, pack: &Pack) -> Result<()> {
        for rule in &pack.extension {
            let mut sites = self.index.edges_to_named(&rule.method, CALL_EDGES, None, self.sites.as_deref())?;
            sites.extend(self.index.unresolved_named(&rule.method, CALL_EDGES, self.sites.as_deref())?);
            for e in sites {
                if !self.in_scope(&e.edge.file) {
                    continue;
                }
                let Some(f) = self.file(&e.edge.file)? else { continue };
                let Some(call) = f.shapes.call_named_at(Pos { line: e.edge.line, col: e.edge.col }) else { continue };
                let shape = f.shapes.calls[call].clone();
                let mut proof = None;
                for a in &shape.args {
                    if let Target::Object { id, site, via } = self.value_target(&e.edge.file, &f, &a.value, 0)?
                        && id == rule.argument
                        && self.objects[site].pack == pack.pack.name
                    {
                        proof = Some(via);
                    }
                }
                let Some(via) = proof else { continue };
                // The extension object: the receiver's definition.
                let Some((recv, _)) = shape.callee.rsplit_once('.') else { continue };
                let recv_pos =
                    Pos { line: e.edge.line, col: e.edge.col.saturating_sub(recv.rsplit('.').next().unwrap_or(recv).len() as u32 + 1) };
                let def = self.index.def_at(&e.edge.file, recv_pos.line, recv_pos.col)?;
                let Some(d) = def.definition else { continue };
                let Some(dfile) = d.node.file.clone() else { continue };
                let mut evidence = vec![e.edge.clone()];
                evidence.extend(via);
                evidence.extend(d.via.clone());
                let symbol = (d.node.kind != "local" && d.node.kind != "parameter").then(|| d.node.qname.clone());
                let name = d.node.qname.rsplit(['.', '#']).next().unwrap_or(&d.node.qname).to_string();
                let registered_at = Some(Site { file: e.edge.file.clone(), line: e.edge.line, col: e.edge.col });
                self.push(
                    pack,
                    &rule.role,
                    &dfile,
                    d.node.line,
                    name,
                    symbol,
                    &format!("{}/extension", pack.pack.name),
                    &registered_at,
                    &BTreeMap::new(),
                    evidence,
                );
            }
        }
        Ok(())
    }

    /// Member uses of role functions' parameters.
    fn param_uses(&mut self, pack: &Pack) {
        let mut found = Vec::new();
        for occ in self.out.iter().filter(|o| o.pack == pack.pack.name) {
            for rule in pack.param_use.iter().filter(|r| r.for_roles.contains(&occ.role)) {
                let Some(Some(f)) = self.files.get(&occ.file) else { continue };
                let Some(shape) = f
                    .shapes
                    .functions
                    .iter()
                    .find(|s| s.start.line == occ.line && s.name.clone().unwrap_or_else(|| "-".into()) == occ.name)
                else {
                    continue;
                };
                let Some(param) = shape.params.get(rule.param) else { continue };
                for u in shape.param_uses.iter().filter(|u| u.param == rule.param && rule.members.contains(&u.member)) {
                    let mut detail = BTreeMap::new();
                    detail.insert("in".into(), format!("{}:{}", occ.file, occ.line));
                    found.push(RoleOccurrence {
                        pack: pack.pack.name.clone(),
                        role: rule.role.clone(),
                        file: occ.file.clone(),
                        line: u.pos.line,
                        name: format!("{}.{}", param.name, u.member),
                        symbol: None,
                        registered_at: occ.registered_at.clone(),
                        also_registered_at: occ.also_registered_at.clone(),
                        rule: format!("{}/param_use", pack.pack.name),
                        detail,
                        evidence: occ.evidence.clone(),
                        tier: occ.tier.clone(),
                    });
                }
            }
        }
        self.out.extend(found);
    }

    /// Uses of members of the framework's types.
    fn typed_uses(&mut self, pack: &Pack) -> Result<()> {
        for rule in &pack.typed_use {
            for e in self.index.edges_to_prefix(&rule.prefix, USE_EDGES, self.sites.as_deref())? {
                if !self.in_scope(&e.edge.file) {
                    continue;
                }
                let member = e.edge.dst[rule.prefix.len()..].split(['.', '(']).next().unwrap_or_default();
                if !rule.members.iter().any(|m| m == member) {
                    continue;
                }
                let Some(f) = self.file(&e.edge.file)? else { continue };
                let Some(name) = written_name(&f.lines, e.edge.line, e.edge.col) else { continue };
                // The site must name the member on the typed value (`req.headers.authorization`,
                // `res.status(404).json`), not use a value taken from it earlier (`header.trim()`
                // after `const header = req.headers.authorization`).
                if !chain_names_member(&f.lines, e.edge.line, e.edge.col, &name, member) {
                    continue;
                }
                let rule_id = format!("{}/typed_use", pack.pack.name);
                self.push(pack, &rule.role, &e.edge.file.clone(), e.edge.line, name, None, &rule_id, &None, &BTreeMap::new(), vec![e.edge]);
            }
        }
        Ok(())
    }

    /// Uses of the framework's globals.
    fn global_uses(&mut self, pack: &Pack) -> Result<()> {
        for rule in &pack.global_use {
            for target in &rule.targets {
                let name = target.rsplit('.').next().unwrap_or(target).to_string();
                for e in self.index.edges_to_prefix(target, USE_EDGES, self.sites.as_deref())? {
                    // (Members of call results, `g.pop(k).clear`, come from values flowing on:
                    // their use is where the call is.)
                    if !(e.edge.dst == *target || e.edge.dst.starts_with(&format!("{target}.")))
                        || e.edge.dst.contains('(')
                        || !self.in_scope(&e.edge.file)
                    {
                        continue;
                    }
                    let rule_id = format!("{}/global_use", pack.pack.name);
                    self.push(
                        pack,
                        &rule.role,
                        &e.edge.file.clone(),
                        e.edge.line,
                        name.clone(),
                        Some(target.clone()),
                        &rule_id,
                        &None,
                        &BTreeMap::new(),
                        vec![e.edge],
                    );
                }
            }
        }
        Ok(())
    }

    /// Look-alikes among the pack's languages' files (or the files asked about).
    fn candidates(&mut self, pack: &Pack, opts: &RolesOptions) -> Result<Vec<Candidate>> {
        if pack.candidate.is_empty() {
            return Ok(Vec::new());
        }
        let langs: Vec<Lang> = pack.pack.languages.iter().filter_map(|l| Lang::parse(l)).collect();
        let files = match (&opts.candidates_in, &opts.files) {
            (Some(f), _) | (None, Some(f)) => f.clone(),
            (None, None) => self.index.files_in(&langs)?,
        };
        let registered: BTreeSet<(String, u32)> = self.out.iter().map(|o| (o.file.clone(), o.line)).collect();
        let mut out = Vec::new();
        for path in files {
            let Some(f) = self.file(&path)? else { continue };
            for (i, shape) in f.shapes.functions.iter().enumerate() {
                if self.functions_seen.contains(&(path.clone(), i)) || registered.contains(&(path.clone(), shape.start.line)) {
                    continue;
                }
                for rule in &pack.candidate {
                    let by_params = !rule.params.is_empty()
                        && rule.params.len() == shape.params.len()
                        && rule
                            .params
                            .iter()
                            .zip(&shape.params)
                            .all(|(names, p)| names.iter().any(|n| n == p.name.trim_start_matches('_')));
                    let by_decorator = shape.decorators.iter().any(|d| {
                        d.path.contains('.') && rule.decorator_methods.iter().any(|m| d.path.rsplit('.').next() == Some(m.as_str()))
                    });
                    if by_params || by_decorator {
                        out.push(Candidate {
                            pack: pack.pack.name.clone(),
                            role: rule.role.clone(),
                            file: path.clone(),
                            line: shape.start.line,
                            name: shape.name.clone().unwrap_or_else(|| "-".into()),
                            reason: rule.reason.clone(),
                        });
                        break;
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The edge a registration site stands for.
fn site_of(registered_at: &Option<Site>) -> Edge {
    let s = registered_at.clone().unwrap_or(Site { file: String::new(), line: 0, col: 0 });
    Edge { file: s.file, line: s.line, col: s.col, ..Edge::default() }
}

/// How a member use is named, from the line as written: the value the chain starts from and
/// the member used on it (`req.query` for the `q` of `req.query.q`); after a call in the
/// chain, the last member (`res.json` for the `json` of `res.status(404).json`); a chain that
/// starts with a call of a function is written out (`run(err).statusCode`).
/// Whether the chain written at a site (from the written name's root to the name at `col`,
/// calls included) goes through `.member`.
fn chain_names_member(lines: &[String], line: u32, col: u32, name: &str, member: &str) -> bool {
    let Some(text) = lines.get(line as usize - 1) else { return false };
    let b = text.as_bytes();
    let at = (col as usize - 1).min(b.len());
    let end = (at..b.len()).find(|&i| !(b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')).unwrap_or(b.len());
    let root = name.split('.').next().unwrap_or(name);
    let Some(start) = text[..at].rfind(root) else { return false };
    let chain = &text[start..end];
    let needle = format!(".{member}");
    chain
        .match_indices(&needle)
        .any(|(i, _)| chain.as_bytes().get(i + needle.len()).is_none_or(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$')))
}

fn written_name(lines: &[String], line: u32, col: u32) -> Option<String> {
    let text = lines.get(line as usize - 1)?;
    let b = text.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let start = col as usize - 1;
    let end = (start..b.len()).find(|&i| !is_ident(b[i])).unwrap_or(b.len());
    // The chain's segments, last first: (start, end, called).
    let mut segments = vec![(start, end, false)];
    let mut j = start;
    while let Some(dot) = j.checked_sub(1).filter(|&d| b[d] == b'.') {
        let k = if dot > 0 && b[dot - 1] == b'?' { dot - 1 } else { dot };
        let Some(mut before) = k.checked_sub(1) else { break };
        let called = b[before] == b')';
        if called {
            let mut depth = 0i32;
            loop {
                match b[before] {
                    b')' => depth += 1,
                    b'(' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                before = before.checked_sub(1)?;
            }
            before = before.checked_sub(1)?;
        }
        if !is_ident(b[before]) {
            break;
        }
        let s = (0..=before).rev().take_while(|&i| is_ident(b[i])).last()?;
        segments.push((s, before + 1, called));
        j = s;
    }
    if segments.len() < 2 {
        return None;
    }
    segments.reverse();
    let (root_start, root_end, root_called) = segments[0];
    if root_called {
        return text.get(root_start..end).map(str::to_string);
    }
    let after_call = segments[1..segments.len() - 1].iter().any(|s| s.2);
    let (ms, me, _) = if after_call { segments[segments.len() - 1] } else { segments[1] };
    Some(format!("{}.{}", text.get(root_start..root_end)?, text.get(ms..me)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_naming_a_member() {
        let names = |line: &str, col: u32, name: &str, member: &str| chain_names_member(&[line.to_string()], 1, col, name, member);
        assert!(names("  const h = req.headers.authorization;", 17, "req.headers", "headers"));
        assert!(names("  res.status(404).json(x)", 19, "res.json", "status"));
        assert!(!names("  BEARER.exec(header.trim());", 22, "header.trim", "headers"));
        assert!(!names("  req.headersSent", 7, "req.headersSent", "headers"));
    }

    #[test]
    fn written_names() {
        let name = |line: &str, col: usize| written_name(&[line.to_string()], 1, col as u32);
        assert_eq!(name("  res.json(x)", 7), Some("res.json".into()));
        assert_eq!(name("  f(req.query.q)", 15), Some("req.query".into()));
        assert_eq!(name("  res.status(404).json(x)", 19), Some("res.json".into()));
        assert_eq!(name("  res.status(404).json(x)", 7), Some("res.status".into()));
        assert_eq!(name("  expect(run(parseError).statusCode)", 26), Some("run(parseError).statusCode".into()));
        assert_eq!(name("  req?.headers", 8), Some("req.headers".into()));
        assert_eq!(name("  json(x)", 3), None);
    }
}
