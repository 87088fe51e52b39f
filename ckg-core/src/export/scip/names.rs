//! SCIP symbol strings as the compilers' indexers write them: packages and versions read
//! from `package.json`, `pyproject.toml` or `setup.cfg`, a descriptor per module, class and
//! member, and the external symbols of packages and builtins.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use scip::types::descriptor::Suffix;
use scip::types::symbol_information::Kind;
use scip::types::{Descriptor, Package, Symbol, SymbolInformation};

use super::source::DefShape;
use super::{FileRow, Graph, NODE_CORE, PYTHON_BUILTIN_CLASSES, PYTHON_STDLIB, PYTHON_STDLIB_VERSION, REFERENCE_KINDS};

pub(super) fn language(lang: &str, path: &str) -> &'static str {
    match lang {
        "python" => "Python",
        "tsx" => "TypeScriptReact",
        "javascript" if path.ends_with(".jsx") => "JavaScriptReact",
        "javascript" => "JavaScript",
        _ => "TypeScript",
    }
}

pub(super) fn file_uri(root: &str) -> String {
    let mut out = String::from("file://");
    for b in root.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Package names and versions: the nearest `package.json` of a TS/JS file; the Python
/// project's from `pyproject.toml` (`[project]`, then `[tool.poetry]`) or `setup.cfg`
/// (`[metadata]`) at the root.
pub(super) struct Packages {
    pub(super) npm: BTreeMap<String, (String, String)>,
    /// Versions of dependencies, from every `package.json` (the root's first).
    pub(super) deps: HashMap<String, String>,
    pub(super) python: (String, String),
}

impl Packages {
    pub(super) fn read(g: &Graph) -> Packages {
        let mut npm = BTreeMap::new();
        let mut deps = HashMap::new();
        for (dir, v) in &g.package_jsons {
            let field = |k: &str| v.get(k).and_then(|x| x.as_str()).map(package_part).unwrap_or_default();
            npm.insert(dir.clone(), (field("name"), field("version")));
            for table in ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] {
                if let Some(obj) = v.get(table).and_then(|x| x.as_object()) {
                    for (name, range) in obj {
                        if let Some(version) = range.as_str().and_then(version_of_range) {
                            deps.entry(name.clone()).or_insert(version);
                        }
                    }
                }
            }
        }
        Packages { npm, deps, python: python_project(Path::new(&g.root)) }
    }

    pub(super) fn npm_of(&self, path: &str) -> (String, String) {
        self.npm
            .iter()
            .rev()
            .find(|(dir, _)| dir.is_empty() || path.starts_with(&format!("{dir}/")))
            .map(|(_, p)| p.clone())
            .unwrap_or_default()
    }
}

/// A name or version as a symbol's package field: spaces doubled (the grammar's escape).
pub(super) fn package_part(s: &str) -> String {
    s.replace(' ', "  ")
}

/// `^4.19.2` -> `4.19.2`; ranges that name no version (`*`, `workspace:*`) -> none.
pub(super) fn version_of_range(range: &str) -> Option<String> {
    let v = range.trim().trim_start_matches(['^', '~', '>', '<', '=', 'v', ' ']);
    let v = v.split_whitespace().next()?;
    v.starts_with(|c: char| c.is_ascii_digit()).then(|| v.to_string())
}

pub(super) fn python_project(root: &Path) -> (String, String) {
    let (mut name, mut version) = (None, None);
    if let Ok(text) = std::fs::read_to_string(root.join("pyproject.toml"))
        && let Ok(t) = toml::from_str::<toml::Table>(&text)
    {
        let get = |table: Option<&toml::Value>, k: &str| table.and_then(|t| t.get(k)).and_then(|v| v.as_str()).map(str::to_string);
        let project = t.get("project");
        let poetry = t.get("tool").and_then(|t| t.get("poetry"));
        name = get(project, "name").or_else(|| get(poetry, "name"));
        version = get(project, "version").or_else(|| get(poetry, "version"));
    }
    if (name.is_none() || version.is_none())
        && let Ok(text) = std::fs::read_to_string(root.join("setup.cfg"))
    {
        let mut in_metadata = false;
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with('[') {
                in_metadata = t == "[metadata]";
            } else if in_metadata && let Some((k, v)) = t.split_once('=') {
                let (k, v) = (k.trim(), v.trim().to_string());
                if k == "name" && name.is_none() {
                    name = Some(v);
                } else if k == "version" && version.is_none() && !v.starts_with("attr:") && !v.starts_with("file:") {
                    version = Some(v);
                }
            }
        }
    }
    (package_part(&name.unwrap_or_default()), package_part(&version.unwrap_or_default()))
}

/// Symbol strings, computed once each (by symbol and language family: an external node such
/// as `<builtin>.print` is shared by both languages' files).
pub(super) struct Namer<'a> {
    pub(super) g: &'a Graph,
    pub(super) packages: &'a Packages,
    pub(super) shapes: &'a HashMap<usize, DefShape>,
    /// The first (in `REFERENCE_KINDS` order) kind of edge that reaches each node.
    pub(super) usage: HashMap<usize, usize>,
    pub(super) files: HashMap<i64, &'a FileRow>,
    pub(super) modules: HashMap<i64, usize>,
    pub(super) memo: HashMap<(usize, &'static str), String>,
    pub(super) externals: BTreeMap<String, SymbolInformation>,
}

pub(super) fn desc(name: &str, suffix: Suffix) -> Descriptor {
    let mut d = Descriptor::new();
    d.name = name.to_string();
    d.suffix = suffix.into();
    d
}

pub(super) fn symbol_string(scheme: &str, manager: &str, name: &str, version: &str, descriptors: Vec<Descriptor>) -> String {
    let mut package = Package::new();
    package.manager = manager.to_string();
    package.name = name.to_string();
    package.version = version.to_string();
    let mut sym = Symbol::new();
    sym.scheme = scheme.to_string();
    sym.package = Some(package).into();
    sym.descriptors = descriptors;
    scip::symbol::format_symbol(sym)
}

impl Namer<'_> {
    /// TS/JS definitions inside a function or method are local symbols (scip-typescript's
    /// convention; scip-python names nested functions globally, `outer().inner().`).
    pub(super) fn is_local(&self, i: usize) -> bool {
        let g = self.g;
        let s = &g.syms[i];
        let Some(f) = s.file.and_then(|f| self.files.get(&f)) else { return false };
        if f.lang == "python" {
            return false;
        }
        let mut p = s.parent;
        let mut steps = 0;
        while let Some(&pi) = p.and_then(|p| g.by_id.get(&p)) {
            if matches!(g.syms[pi].kind.as_str(), "function" | "method" | "lambda") {
                return true;
            }
            p = g.syms[pi].parent;
            steps += 1;
            if steps > 1000 {
                break;
            }
        }
        false
    }

    /// The global symbol string of a node, as seen from a file of family `fam`.
    pub(super) fn symbol(&mut self, i: usize, fam: &'static str) -> String {
        let s = &self.g.syms[i];
        let Some(file) = s.file.and_then(|f| self.files.get(&f).copied()) else {
            let usage = self.usage.get(&i).copied();
            return self.external(&s.qname.clone(), fam, usage);
        };
        if let Some(sym) = self.memo.get(&(i, fam)) {
            return sym.clone();
        }
        let python = file.lang == "python";
        let mut chain = vec![i];
        let mut p = s.parent;
        while let Some(&pi) = p.and_then(|p| self.g.by_id.get(&p)) {
            if chain.contains(&pi) || chain.len() > 1000 {
                break;
            }
            chain.push(pi);
            p = self.g.syms[pi].parent;
        }
        if self.g.syms[*chain.last().unwrap_or(&i)].kind != "module"
            && let Some(&m) = self.modules.get(&file.id)
        {
            chain.push(m);
        }
        let mut descriptors = Vec::new();
        if !chain.iter().any(|&c| self.g.syms[c].kind == "module") {
            descriptors.extend(module_descriptors(file, python, false));
        }
        for &c in chain.iter().rev() {
            let cs = &self.g.syms[c];
            if cs.kind == "module" {
                descriptors.extend(module_descriptors(file, python, c == i));
                continue;
            }
            let shape = self.shapes.get(&c);
            descriptors.push(match (python, cs.kind.as_str()) {
                (true, "class") => desc(&cs.name, Suffix::Type),
                (true, "function" | "method") => desc(&cs.name, Suffix::Method),
                (true, _) => desc(&cs.name, Suffix::Term),
                (false, "namespace") => desc(&cs.name, Suffix::Namespace),
                (false, "class" | "interface" | "enum" | "type") => desc(&cs.name, Suffix::Type),
                (false, "function") if shape.is_some_and(|s| s.function_keyword) => desc(&cs.name, Suffix::Method),
                (false, "method") => match (shape.and_then(|s| s.accessor), cs.name.as_str()) {
                    (Some(acc), name) => desc(&format!("<{acc}>{name}"), Suffix::Method),
                    (None, "constructor") => desc("<constructor>", Suffix::Method),
                    (None, name) => desc(name, Suffix::Method),
                },
                (false, _) => desc(&cs.name, Suffix::Term),
            });
        }
        let sym = if python {
            let (name, version) = &self.packages.python;
            symbol_string("scip-python", "python", name, version, descriptors)
        } else {
            let (name, version) = self.packages.npm_of(&file.path);
            symbol_string("scip-typescript", "npm", &name, &version, descriptors)
        };
        self.memo.insert((i, fam), sym.clone());
        sym
    }

    /// The symbol string of an external node (`express.static`, `os.path.join`,
    /// `<builtin>.print`), recorded in the index's external symbols.
    pub(super) fn external(&mut self, qname: &str, fam: &'static str, usage: Option<usize>) -> String {
        let python = fam == "py";
        let (package, version, mut descriptors, rest): (String, String, Vec<Descriptor>, &str) =
            if let Some(rest) = qname.strip_prefix("<builtin>") {
                if python {
                    ("python-stdlib".into(), PYTHON_STDLIB_VERSION.into(), vec![desc("builtins", Suffix::Namespace)], rest)
                } else {
                    ("typescript".into(), String::new(), vec![desc("lib", Suffix::Namespace)], rest)
                }
            } else {
                let spec = self
                    .g
                    .specifiers
                    .get(fam)
                    .and_then(|specs| {
                        specs
                            .iter()
                            .filter(|s| {
                                qname.strip_prefix(s.as_str()).is_some_and(|r| r.is_empty() || r.starts_with('.') || r.starts_with('('))
                            })
                            .max_by_key(|s| s.len())
                    })
                    .map(String::as_str)
                    .unwrap_or_else(|| qname.split(['.', '(']).next().unwrap_or(qname));
                let rest = &qname[spec.len()..];
                if python {
                    let top = spec.split('.').next().unwrap_or(spec);
                    let stdlib = PYTHON_STDLIB.lines().any(|m| m == top);
                    let (p, v) = if stdlib { ("python-stdlib", PYTHON_STDLIB_VERSION) } else { (top, "") };
                    let mut d = vec![desc(spec, Suffix::Namespace)];
                    if rest.is_empty() {
                        d.push(desc("__init__", Suffix::Meta));
                    }
                    (p.to_string(), v.to_string(), d, rest)
                } else {
                    let bare = spec.strip_prefix("node:");
                    let package = if bare.is_some() || NODE_CORE.contains(&spec.split('/').next().unwrap_or(spec)) {
                        "@types/node".to_string()
                    } else if spec.starts_with('@') {
                        spec.splitn(3, '/').take(2).collect::<Vec<_>>().join("/")
                    } else {
                        spec.split('/').next().unwrap_or(spec).to_string()
                    };
                    let version = self.packages.deps.get(&package).cloned().unwrap_or_default();
                    (package, version, vec![desc(spec, Suffix::Namespace)], rest)
                }
            };
        let segments: Vec<&str> = rest.strip_prefix('.').unwrap_or(rest).split('.').filter(|s| !s.is_empty()).collect();
        for (n, seg) in segments.iter().enumerate() {
            let called = seg.ends_with("()");
            let name = seg.trim_end_matches("()");
            let last = n + 1 == segments.len();
            // Classes are named like classes (or are Python's lowercase builtin ones).
            let class = name.starts_with(|c: char| c.is_uppercase())
                || (python && n == 0 && qname.starts_with("<builtin>") && PYTHON_BUILTIN_CLASSES.contains(&name));
            let suffix = if called {
                Suffix::Method
            } else if !last {
                if class { Suffix::Type } else { Suffix::Term }
            } else {
                match usage.map(|k| REFERENCE_KINDS[k]) {
                    Some("instantiates" | "inherits" | "implements") => Suffix::Type,
                    Some("calls") if class => Suffix::Type,
                    Some("calls") => Suffix::Method,
                    _ if class => Suffix::Type,
                    _ => Suffix::Term,
                }
            };
            // A call of the module itself (`express()`) calls its default export.
            descriptors.push(desc(if name.is_empty() { "default" } else { name }, suffix));
        }
        let scheme = if python { ("scip-python", "python") } else { ("scip-typescript", "npm") };
        let sym = symbol_string(scheme.0, scheme.1, &package, &version, descriptors);
        self.externals.entry(sym.clone()).or_insert_with(|| {
            let mut info = SymbolInformation::new();
            info.symbol = sym.clone();
            info.display_name = segments.last().map(|s| s.trim_end_matches("()")).filter(|s| !s.is_empty()).unwrap_or(qname).to_string();
            info.kind = if segments.is_empty() { Kind::Module } else { Kind::UnspecifiedKind }.into();
            info
        });
        sym
    }
}

/// A module's descriptors: scip-typescript names it by its path (`src/`, `` `app.ts` ``/),
/// scip-python by its dotted name, and the module itself `` `pkg.mod`/__init__: ``.
pub(super) fn module_descriptors(file: &FileRow, python: bool, itself: bool) -> Vec<Descriptor> {
    if python {
        let mut d = vec![desc(&file.module, Suffix::Namespace)];
        if itself {
            d.push(desc("__init__", Suffix::Meta));
        }
        d
    } else {
        file.path.split('/').map(|seg| desc(seg, Suffix::Namespace)).collect()
    }
}
