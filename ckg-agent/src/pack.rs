//! Rule packs: framework knowledge as data (`ckg-agent/packs/*.toml`).
//!
//! A pack says how a framework's roles are recognised in the graph (objects, registrations,
//! factories, extensions, API uses, look-alike candidates) and, for a migration pack, which
//! constraint rules apply and what the fix for each is. The packs shipped with ckg are
//! compiled in; `--pack FILE.toml` loads another. Unknown fields are errors, reported with the
//! file, line and column.

use std::path::Path;

use serde::Deserialize;

use crate::rules::RuleSpec;

/// The packs shipped with ckg: (name, TOML source).
pub const BUILTIN: &[(&str, &str)] = &[
    ("express", include_str!("../packs/express.toml")),
    ("flask", include_str!("../packs/flask.toml")),
    ("express-to-fastify", include_str!("../packs/express-to-fastify.toml")),
    ("flask-to-fastapi", include_str!("../packs/flask-to-fastapi.toml")),
];

/// A bad pack or rule file: where, and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct FormatError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl FormatError {
    /// An error at a byte offset of a source.
    pub fn at(file: &str, src: &str, offset: usize, message: impl Into<String>) -> FormatError {
        let before = &src[..offset.min(src.len())];
        let line = before.matches('\n').count() as u32 + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
        FormatError { file: file.to_string(), line, col, message: message.into() }
    }

    /// A TOML error, placed at its span.
    pub fn from_toml(file: &str, src: &str, e: &toml::de::Error) -> FormatError {
        let offset = e.span().map_or(0, |s| s.start);
        FormatError::at(file, src, offset, e.message().trim().to_string())
    }
}

/// A pack as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pack {
    pub pack: PackMeta,
    #[serde(default)]
    pub object: Vec<ObjectRule>,
    #[serde(default)]
    pub register: Vec<RegisterRule>,
    #[serde(default)]
    pub factory: Vec<FactoryRule>,
    #[serde(default)]
    pub extension: Vec<ExtensionRule>,
    #[serde(default)]
    pub param_use: Vec<ParamUseRule>,
    #[serde(default)]
    pub typed_use: Vec<TypedUseRule>,
    #[serde(default)]
    pub global_use: Vec<GlobalUseRule>,
    #[serde(default)]
    pub candidate: Vec<CandidateRule>,
    /// Constraint rules (a migration pack's, or a rule file's).
    #[serde(default)]
    pub rule: Vec<RuleSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackMeta {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub languages: Vec<String>,
    /// Packs whose roles this one's rules read (a migration pack requires the framework's).
    #[serde(default)]
    pub requires: Vec<String>,
    /// For a migration pack: from which framework to which.
    pub migration: Option<Migration>,
}

/// What a migration pack moves from and to.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Migration {
    /// The source framework's name (`express`).
    pub from: String,
    /// The target framework's name (`fastify`).
    pub to: String,
    /// The source framework's packages: what the plan's impact starts from and what no
    /// migrated file may still use.
    pub packages: Vec<String>,
    /// The packages of the target framework (`fastify`, `@fastify/*`).
    #[serde(default)]
    pub target_packages: Vec<String>,
}

/// A framework object: a value created by a call of one of `created_by` or typed with one of
/// `types` (external qnames).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectRule {
    pub id: String,
    pub role: String,
    pub created_by: Vec<String>,
    #[serde(default)]
    pub types: Vec<String>,
}

/// A registration: a call of one of `methods` on one of the objects `on`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterRule {
    pub id: String,
    pub on: Vec<String>,
    /// Method names, or member paths from the object (`cli.command`, `route().get`).
    pub methods: Vec<String>,
    /// The role of the function or class this call decorates (`@bp.route(…)`).
    pub decorated: Option<String>,
    /// The role of the functions passed to it (inline, or names of functions).
    pub functions: Option<String>,
    /// The role of the last function passed, when it differs (a route's handler).
    pub last_function: Option<String>,
    /// Roles by parameter count, over `functions` / `last_function` (Express's
    /// four-parameter error handlers).
    #[serde(default)]
    pub by_params: Vec<ByParams>,
    /// Objects passed to it are mounted on the receiver (routers, blueprints).
    #[serde(default)]
    pub mounts: bool,
    /// The role of a call of an external package passed to it (`cors()`).
    pub external_calls: Option<String>,
    /// The role of a repository function whose call result is passed to it (a factory).
    pub repo_calls: Option<String>,
    /// Roles for calls of particular externals passed to it (`express.static`).
    #[serde(default)]
    pub special_calls: Vec<SpecialCall>,
    /// Only the argument with this keyword (Python) …
    pub keyword: Option<String>,
    /// … or at this 0-based position.
    pub positional: Option<usize>,
    /// `X.as_view(…)` passed to it stands for the class `X`.
    #[serde(default)]
    pub view_wrappers: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ByParams {
    pub count: usize,
    pub role: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialCall {
    pub callee: String,
    pub role: String,
}

/// A function that creates an object and returns it (an app factory).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactoryRule {
    pub role: String,
    pub returns: String,
}

/// An object initialised with `method(<object>)`: `db.init_app(app)`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtensionRule {
    pub role: String,
    pub method: String,
    pub argument: String,
}

/// Member uses of a role function's parameter (`res.json` in a route handler).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamUseRule {
    pub role: String,
    pub for_roles: Vec<String>,
    pub param: usize,
    pub members: Vec<String>,
}

/// Uses of members of the framework's types anywhere (edges to `express.Response.*`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypedUseRule {
    pub role: String,
    /// The type's qname and a dot: `express.Response.`.
    pub prefix: String,
    /// The members that count.
    pub members: Vec<String>,
}

/// Uses of the framework's globals (`flask.request`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlobalUseRule {
    pub role: String,
    pub targets: Vec<String>,
}

/// Look-alikes reported apart: functions with a role's parameter names, or decorated with a
/// method named like a registration, that no rule recognised.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidateRule {
    pub role: String,
    /// Each parameter's accepted names, in order (the count must match).
    #[serde(default)]
    pub params: Vec<Vec<String>>,
    #[serde(default)]
    pub decorator_methods: Vec<String>,
    pub reason: String,
}

/// The packs of the frameworks a repository may use: what roles are found with when no pack
/// is named.
pub const FRAMEWORK_PACKS: &[&str] = &["express", "flask"];

/// Whether [`Pack::load_all`] reads pack files by path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackFiles {
    /// The command line: the user's own files.
    Allowed,
    /// The HTTP service and MCP: shipped packs only.
    Refused,
}

fn shipped_names() -> String {
    BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

impl Pack {
    /// Parses a pack; `file` names it in errors.
    pub fn parse(file: &str, src: &str) -> Result<Pack, FormatError> {
        let pack: Pack = toml::from_str(src).map_err(|e| FormatError::from_toml(file, src, &e))?;
        pack.validate(file, src)?;
        Ok(pack)
    }

    /// A shipped pack by name, or a pack file by path.
    pub fn load(name_or_path: &str) -> Result<Pack, crate::Error> {
        if let Some(pack) = Pack::shipped(name_or_path) {
            return pack;
        }
        let path = Path::new(name_or_path);
        if !name_or_path.ends_with(".toml") {
            return Err(crate::Error::Usage(format!("unknown pack {name_or_path:?} (one of {}, or a .toml file)", shipped_names())));
        }
        let src = std::fs::read_to_string(path).map_err(|e| crate::Error::Usage(format!("{name_or_path}: {e}")))?;
        Ok(Pack::parse(name_or_path, &src)?)
    }

    /// A shipped pack, by name.
    fn shipped(name: &str) -> Option<Result<Pack, crate::Error>> {
        BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, src)| Ok(Pack::parse(&format!("packs/{name}.toml"), src)?))
    }

    /// The packs named (`default` when none is), each after the shipped packs it requires,
    /// once each. Pack files by path only when `files` allows them: a client of the service
    /// names shipped packs, and reads no file of the machine through a pack's path.
    pub fn load_all(names: &[String], default: &[&str], files: PackFiles) -> Result<Vec<Pack>, crate::Error> {
        let names: Vec<String> = if names.is_empty() { default.iter().map(|s| s.to_string()).collect() } else { names.to_vec() };
        let mut packs: Vec<Pack> = Vec::new();
        for n in &names {
            let pack = match (Pack::shipped(n), files) {
                (Some(pack), _) => pack?,
                (None, PackFiles::Allowed) => Pack::load(n)?,
                (None, PackFiles::Refused) => {
                    return Err(crate::Error::Usage(format!("unknown pack {n:?} (one of {})", shipped_names())));
                }
            };
            for p in pack.with_requirements()? {
                if !packs.iter().any(|q| q.pack.name == p.pack.name) {
                    packs.push(p);
                }
            }
        }
        Ok(packs)
    }

    /// The shipped packs a pack requires, then the pack itself.
    pub fn with_requirements(self) -> Result<Vec<Pack>, crate::Error> {
        let mut out = Vec::new();
        for r in &self.pack.requires {
            out.push(Pack::load(r)?);
        }
        out.push(self);
        Ok(out)
    }

    /// Cross-references a parser cannot check: objects named by rules exist, ids are unique.
    fn validate(&self, file: &str, src: &str) -> Result<(), FormatError> {
        let place = |needle: &str| src.find(needle).unwrap_or(0);
        let objects: Vec<&str> = self.object.iter().map(|o| o.id.as_str()).collect();
        for r in &self.register {
            for o in &r.on {
                if !objects.contains(&o.as_str()) {
                    return Err(FormatError::at(
                        file,
                        src,
                        place(&format!("\"{o}\"")),
                        format!("register {:?}: unknown object {o:?}", r.id),
                    ));
                }
            }
            if r.methods.is_empty() {
                return Err(FormatError::at(file, src, place(&r.id), format!("register {:?}: no methods", r.id)));
            }
        }
        for f in &self.factory {
            if !objects.contains(&f.returns.as_str()) {
                return Err(FormatError::at(file, src, place(&f.returns), format!("factory: unknown object {:?}", f.returns)));
            }
        }
        for e in &self.extension {
            if !objects.contains(&e.argument.as_str()) {
                return Err(FormatError::at(file, src, place(&e.argument), format!("extension: unknown object {:?}", e.argument)));
            }
        }
        let mut ids = std::collections::HashSet::new();
        for r in &self.rule {
            if !ids.insert(r.id.as_str()) {
                return Err(FormatError::at(file, src, place(&format!("\"{}\"", r.id)), format!("rule id {:?} is used twice", r.id)));
            }
            r.validate().map_err(|m| FormatError::at(file, src, place(&format!("\"{}\"", r.id)), format!("rule {:?}: {m}", r.id)))?;
        }
        Ok(())
    }
}
