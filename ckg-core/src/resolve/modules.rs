//! Module resolution: from an import specifier to a file in the repository, a Python
//! namespace package, an external package, or nothing (a missing relative import).

use std::collections::HashSet;
use std::sync::{Arc, RwLock};

use super::{Map, Set};

use crate::lang::Lang;
use crate::store::FileRow;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleTarget {
    File(i64),
    Package(String),
    External(String),
    /// A relative import (or a submodule of a repository package) that does not exist.
    Missing,
}

pub(super) struct ModuleIndex<'a> {
    python: Map<&'a str, i64>,
    /// Dotted prefixes of Python modules: packages, with or without `__init__.py`.
    packages: Set<String>,
    scripts: Map<&'a str, i64>,
    files: Map<i64, &'a FileRow>,
    config: super::config::ProjectConfig,
    /// Specifiers already resolved, by the file they are written in, with the keys their
    /// resolution looked up (every use of an import resolves its module again).
    resolved: RwLock<Map<i64, Resolved>>,
}

/// One file's resolved specifiers.
type Resolved = Map<String, Arc<super::Kept<ModuleTarget>>>;

/// Extensions probed for an extension-less relative specifier, in order.
const SCRIPT_EXTS: &[&str] = &[".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

impl<'a> ModuleIndex<'a> {
    pub(super) fn new(files: &'a [FileRow], configs: &[(String, String)]) -> ModuleIndex<'a> {
        let mut python = Map::default();
        let mut packages = Set::default();
        let mut scripts = Map::default();
        for f in files {
            if f.lang == Lang::Python {
                python.insert(f.module.as_str(), f.id);
                let mut prefix = f.module.as_str();
                while let Some((p, _)) = prefix.rsplit_once('.') {
                    packages.insert(p.to_string());
                    prefix = p;
                }
                packages.insert(f.module.clone());
            } else {
                scripts.insert(f.path.as_str(), f.id);
            }
        }
        ModuleIndex {
            python,
            packages,
            scripts,
            files: files.iter().map(|f| (f.id, f)).collect(),
            config: super::config::ProjectConfig::new(configs),
            resolved: RwLock::default(),
        }
    }

    /// The module `spec` names in file `from`. The answer depends on nothing else: it is kept,
    /// and the keys its resolution recorded are recorded again when it is reused.
    pub(super) fn resolve(&self, from: i64, lang: Lang, spec: &str) -> ModuleTarget {
        let known = self.resolved.read().ok().and_then(|m| m.get(&from).and_then(|specs| specs.get(spec)).cloned());
        if let Some(known) = known {
            return known.reuse().clone();
        }
        let mark = super::recorded_mark();
        let target = if lang.is_script() { self.resolve_script(from, spec) } else { self.resolve_python(from, spec) };
        let kept = super::Kept::since(mark, target.clone());
        if let Ok(mut m) = self.resolved.write() {
            m.entry(from).or_default().insert(spec.to_string(), kept);
        }
        target
    }

    pub(super) fn resolve_python_absolute(&self, name: &str) -> ModuleTarget {
        super::record("py:", name);
        if let Some(&f) = self.python.get(name) {
            return ModuleTarget::File(f);
        }
        if self.packages.contains(name) {
            return ModuleTarget::Package(name.to_string());
        }
        let top = name.split('.').next().unwrap_or(name);
        super::record("py:", top);
        if self.packages.contains(top) || self.python.contains_key(top) {
            ModuleTarget::Missing
        } else {
            ModuleTarget::External(name.to_string())
        }
    }

    fn resolve_python(&self, from: i64, spec: &str) -> ModuleTarget {
        let level = spec.chars().take_while(|&c| c == '.').count();
        if level == 0 {
            return self.resolve_python_absolute(spec);
        }
        let rest = &spec[level..];
        let Some(file) = self.files.get(&from) else { return ModuleTarget::Missing };
        let is_init = file.path.ends_with("__init__.py") || file.path.ends_with("__init__.pyi");
        let mut base: Vec<&str> = file.module.split('.').collect();
        if !is_init {
            base.pop();
        }
        for _ in 1..level {
            if base.pop().is_none() {
                return ModuleTarget::Missing;
            }
        }
        let mut name = base.join(".");
        if !rest.is_empty() {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(rest);
        }
        match self.resolve_python_absolute(&name) {
            ModuleTarget::External(_) => ModuleTarget::Missing,
            t => t,
        }
    }

    fn resolve_script(&self, from: i64, spec: &str) -> ModuleTarget {
        let Some(file) = self.files.get(&from) else { return ModuleTarget::Missing };
        if !(spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == "..") {
            if let Some(builtin) = spec.strip_prefix("node:") {
                return ModuleTarget::External(builtin.to_string());
            }
            // tsconfig `paths` / `baseUrl` and workspace packages map bare specifiers to files;
            // which candidate exists is a lookup like a relative path's.
            super::record("config", "");
            for candidate in self.config.candidates(&file.path, spec) {
                super::record("path:", &candidate);
                if let Some(f) = self.probe(&candidate) {
                    return ModuleTarget::File(f);
                }
            }
            // `@/util/gone` under `"@/*": ["src/*"]`, with no such file: a missing module of
            // the project, not a package.
            if self.config.aliased(&file.path, spec) {
                return ModuleTarget::Missing;
            }
            return ModuleTarget::External(spec.to_string());
        }
        let dir = file.path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        let Some(joined) = super::config::join(dir, spec) else { return ModuleTarget::Missing };
        super::record("path:", &joined);
        self.probe(&joined).map(ModuleTarget::File).unwrap_or(ModuleTarget::Missing)
    }

    /// Finds the file a relative path denotes: as written, with a source extension swapped in
    /// for a `.js` specifier, with an extension appended, or as a folder's index file.
    fn probe(&self, path: &str) -> Option<i64> {
        if let Some(&f) = self.scripts.get(path) {
            return Some(f);
        }
        // Candidates are spelled in one buffer (a probe runs for every import a file uses).
        let mut candidate = String::with_capacity(path.len() + 12);
        let mut find = |parts: &[&str]| {
            candidate.clear();
            parts.iter().for_each(|p| candidate.push_str(p));
            self.scripts.get(candidate.as_str()).copied()
        };
        for (js, ts) in [(".js", [".ts", ".tsx"]), (".jsx", [".tsx", ".tsx"]), (".mjs", [".mts", ".mts"]), (".cjs", [".cts", ".cts"])] {
            if let Some(stem) = path.strip_suffix(js) {
                for ext in ts {
                    if let Some(f) = find(&[stem, ext]) {
                        return Some(f);
                    }
                }
            }
        }
        for ext in SCRIPT_EXTS {
            if let Some(f) = find(&[path, ext]) {
                return Some(f);
            }
        }
        for ext in SCRIPT_EXTS {
            let found = if path.is_empty() { find(&["index", ext]) } else { find(&[path, "/index", ext]) };
            if let Some(f) = found {
                return Some(f);
            }
        }
        None
    }
}

/// The lookup keys under which a file can be found by module resolution: a TS/JS path as
/// written, without its extension, with the `.js` spelling of a `.ts` source, and its folder
/// when it is an index file; a Python module name.
pub fn module_keys(path: &str, module: &str, lang: Lang) -> Vec<String> {
    if lang == Lang::Python {
        return vec![format!("py:{module}")];
    }
    let mut keys = vec![format!("path:{path}")];
    let mut exts: Vec<&str> = SCRIPT_EXTS.to_vec();
    exts.sort_by_key(|e| std::cmp::Reverse(e.len()));
    if let Some(stem) = exts.iter().find_map(|e| path.strip_suffix(e)) {
        keys.push(format!("path:{stem}"));
        for js in [".js", ".jsx", ".mjs", ".cjs"] {
            keys.push(format!("path:{stem}{js}"));
        }
        if stem == "index" {
            keys.push("path:".to_string());
        } else if let Some(dir) = stem.strip_suffix("/index") {
            keys.push(format!("path:{dir}"));
        }
    }
    keys
}

/// The dotted package prefixes of a set of Python module names.
pub fn python_packages<'a>(modules: impl Iterator<Item = &'a str>) -> HashSet<String> {
    let mut out = HashSet::new();
    for m in modules {
        let mut prefix = m;
        while let Some((p, _)) = prefix.rsplit_once('.') {
            out.insert(p.to_string());
            prefix = p;
        }
    }
    out
}
