//! Project configuration for TS/JS module resolution: `tsconfig.json` / `jsconfig.json`
//! (`baseUrl`, `paths`, `extends`) and the `package.json` of workspace packages (`name`,
//! `exports`, `types`, `main`, `module`). The files are stored as they are (table `configs`)
//! and parsed here, at resolution time, so a config edit re-resolves exactly the files that
//! resolved a bare specifier.

use std::collections::HashMap;

/// A tsconfig after `extends` was followed: paths are relative to the repository root.
#[derive(Clone, Debug, Default)]
pub(super) struct TsConfig {
    /// `baseUrl`, as a root-relative folder.
    base_url: Option<String>,
    /// `paths`: (pattern, targets), targets root-relative.
    paths: Vec<(String, Vec<String>)>,
}

/// A workspace package: its folder and its entry points.
#[derive(Clone, Debug)]
pub(super) struct Package {
    pub(super) dir: String,
    /// `exports` subpaths (`.`, `./utils`) to root-relative targets, best condition first.
    exports: Vec<(String, Vec<String>)>,
    /// `types`, `typings`, `module`, `main`, root-relative.
    entries: Vec<String>,
}

#[derive(Debug, Default)]
pub(super) struct ProjectConfig {
    /// tsconfig/jsconfig by the folder it governs.
    tsconfigs: HashMap<String, TsConfig>,
    packages: HashMap<String, Package>,
}

fn parse_json(src: &str) -> Option<serde_json::Value> {
    crate::jsonc::parse(src)
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// Joins a relative path onto a root-relative folder; `None` if it leaves the root.
pub(super) fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

impl ProjectConfig {
    pub(super) fn new(files: &[(String, String)]) -> ProjectConfig {
        let contents: HashMap<&str, &str> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
        let mut out = ProjectConfig::default();
        for (path, content) in files {
            let name = path.rsplit('/').next().unwrap_or(path);
            if name == "tsconfig.json" || name == "jsconfig.json" {
                let dir = dir_of(path).to_string();
                // tsconfig.json wins over jsconfig.json in the same folder.
                if name == "jsconfig.json" && out.tsconfigs.contains_key(&dir) {
                    continue;
                }
                if let Some(cfg) = load_tsconfig(path, &contents, 0) {
                    out.tsconfigs.insert(dir, cfg);
                }
            } else if name == "package.json" {
                let Some(v) = parse_json(content) else { continue };
                let Some(pkg) = v.get("name").and_then(|n| n.as_str()) else { continue };
                let dir = dir_of(path).to_string();
                let mut exports = Vec::new();
                match v.get("exports") {
                    Some(serde_json::Value::String(s)) => exports.push((".".to_string(), join(&dir, s).into_iter().collect())),
                    Some(serde_json::Value::Object(map)) => {
                        let subpaths = map.keys().all(|k| k.starts_with('.'));
                        if subpaths {
                            for (k, t) in map {
                                exports.push((k.clone(), condition_targets(&dir, t)));
                            }
                        } else {
                            exports.push((".".to_string(), condition_targets(&dir, &v["exports"])));
                        }
                    }
                    _ => {}
                }
                let entries = ["types", "typings", "module", "main"]
                    .iter()
                    .filter_map(|k| v.get(*k).and_then(|e| e.as_str()))
                    .filter_map(|e| join(&dir, e))
                    .collect();
                if pkg == "." || dir.is_empty() && v.get("workspaces").is_some() && v.get("main").is_none() {
                    // A workspace root with a name but no entry is not importable.
                }
                out.packages.insert(pkg.to_string(), Package { dir, exports, entries });
            }
        }
        out
    }

    /// The tsconfig governing a file: the nearest one in its folder or above.
    fn tsconfig_for(&self, file: &str) -> Option<&TsConfig> {
        let mut dir = dir_of(file);
        loop {
            if let Some(c) = self.tsconfigs.get(dir) {
                return Some(c);
            }
            if dir.is_empty() {
                return None;
            }
            dir = dir_of(dir);
        }
    }

    /// Whether a tsconfig `paths` pattern of the file's project names the specifier as one of
    /// the project's own modules: a pattern other than a bare `*`, with a target outside
    /// `node_modules`, and a specifier no package could be named (`@/util`, `~/lib`, `#db`).
    /// Such a specifier whose file is missing is no package.
    pub(super) fn aliased(&self, from: &str, spec: &str) -> bool {
        // A name a package could have (`@acme/icons` under `"@acme/*": ["packages/*"]`) may be
        // installed: TypeScript looks in `node_modules` when no `paths` target exists.
        let package_like = spec.bytes().next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            || (spec.starts_with('@') && !spec.starts_with("@/"));
        if package_like {
            return false;
        }
        let Some(cfg) = self.tsconfig_for(from) else { return false };
        cfg.paths.iter().any(|(pattern, targets)| {
            pattern != "*" && star_match(pattern, spec).is_some() && targets.iter().any(|t| !t.contains("node_modules"))
        })
    }

    /// Candidate root-relative paths (to probe with extensions) for a bare specifier, in
    /// order: tsconfig `paths`, `baseUrl`, workspace packages.
    pub(super) fn candidates(&self, from: &str, spec: &str) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(cfg) = self.tsconfig_for(from) {
            for (pattern, targets) in &cfg.paths {
                if let Some(star) = star_match(pattern, spec) {
                    for t in targets {
                        out.push(t.replace('*', star));
                    }
                }
            }
            if let Some(base) = &cfg.base_url
                && let Some(p) = join(base, spec)
            {
                out.push(p);
            }
        }
        // Workspace packages: `@scope/name` or `name`, with an optional subpath.
        let mut parts = spec.splitn(if spec.starts_with('@') { 3 } else { 2 }, '/');
        let name = if spec.starts_with('@') {
            match (parts.next(), parts.next()) {
                (Some(a), Some(b)) => format!("{a}/{b}"),
                _ => return out,
            }
        } else {
            parts.next().unwrap_or(spec).to_string()
        };
        let sub = parts.next();
        if let Some(pkg) = self.packages.get(&name) {
            let key = sub.map(|s| format!("./{s}")).unwrap_or_else(|| ".".to_string());
            for (k, targets) in &pkg.exports {
                if let Some(star) = star_match(k, &key) {
                    out.extend(targets.iter().map(|t| t.replace('*', star)));
                }
            }
            match sub {
                None => {
                    out.extend(pkg.entries.iter().cloned());
                    out.push(pkg.dir.clone());
                }
                Some(s) => {
                    if let Some(p) = join(&pkg.dir, s) {
                        out.push(p);
                    }
                }
            }
            // Built output that is not in the repository: try the sources it came from.
            let more: Vec<String> = out
                .iter()
                .filter_map(|p| {
                    for (from_dir, to_dir) in [("dist/", "src/"), ("lib/", "src/"), ("build/", "src/")] {
                        if let Some(i) = p.find(from_dir) {
                            return Some(format!("{}{to_dir}{}", &p[..i], &p[i + from_dir.len()..]));
                        }
                    }
                    None
                })
                .collect();
            out.extend(more);
        }
        out
    }
}

/// What the `*` of a `paths` or `exports` pattern matches in `spec` (`""` for a pattern without
/// one that is `spec` itself), if the pattern matches.
fn star_match<'s>(pattern: &str, spec: &'s str) -> Option<&'s str> {
    match pattern.split_once('*') {
        Some((pre, post)) if spec.starts_with(pre) && spec.ends_with(post) && spec.len() >= pre.len() + post.len() => {
            Some(&spec[pre.len()..spec.len() - post.len()])
        }
        None if pattern == spec => Some(""),
        _ => None,
    }
}

fn condition_targets(dir: &str, t: &serde_json::Value) -> Vec<String> {
    match t {
        serde_json::Value::String(s) => join(dir, s).into_iter().collect(),
        serde_json::Value::Object(map) => {
            let mut out = Vec::new();
            for key in ["types", "import", "module", "require", "node", "default"] {
                if let Some(v) = map.get(key) {
                    out.extend(condition_targets(dir, v));
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

fn load_tsconfig(path: &str, contents: &HashMap<&str, &str>, depth: usize) -> Option<TsConfig> {
    if depth > 8 {
        return None;
    }
    let v = parse_json(contents.get(path)?)?;
    let dir = dir_of(path);
    let mut cfg = match v.get("extends").and_then(|e| e.as_str()) {
        Some(e) if e.starts_with('.') => {
            let mut target = join(dir, e)?;
            if !target.ends_with(".json") {
                target.push_str(".json");
            }
            load_tsconfig(&target, contents, depth + 1).unwrap_or_default()
        }
        _ => TsConfig::default(),
    };
    let opts = v.get("compilerOptions");
    let own_base = opts.and_then(|o| o.get("baseUrl")).and_then(|b| b.as_str()).and_then(|b| join(dir, b));
    if own_base.is_some() {
        cfg.base_url = own_base;
    }
    if let Some(paths) = opts.and_then(|o| o.get("paths")).and_then(|p| p.as_object()) {
        // Targets are relative to baseUrl, or to this config's folder without one.
        let base = cfg.base_url.clone().unwrap_or_else(|| dir.to_string());
        cfg.paths = paths
            .iter()
            .map(|(k, targets)| {
                let ts = targets
                    .as_array()
                    .map(|a| a.iter().filter_map(|t| t.as_str()).filter_map(|t| join(&base, t)).collect())
                    .unwrap_or_default();
                (k.clone(), ts)
            })
            .collect();
        // Longest prefix first, as TypeScript matches.
        cfg.paths.sort_by_key(|(k, _)| std::cmp::Reverse(k.split('*').next().map(str::len).unwrap_or(0)));
    }
    Some(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_relative_paths() {
        assert_eq!(join("src/a", "./b").as_deref(), Some("src/a/b"));
        assert_eq!(join("src/a", "../b/c").as_deref(), Some("src/b/c"));
        assert_eq!(join("", "../x"), None);
    }

    #[test]
    fn jsonc_is_read() {
        let v = parse_json("{\n // c\n \"a\": [1, 2,], /* x */ \"b\": \"//not a comment\",\n}").unwrap();
        assert_eq!(v["a"], serde_json::json!([1, 2]));
        assert_eq!(v["b"], "//not a comment");
    }

    #[test]
    fn paths_extends_and_packages() {
        let files = vec![
            ("tsconfig.json".to_string(), r#"{"extends": "./config/base.json"}"#.to_string()),
            ("config/base.json".to_string(), r#"{"compilerOptions": {"baseUrl": "..", "paths": {"~/*": ["src/*"]}}}"#.to_string()),
            ("packages/a/package.json".to_string(), r#"{"name": "@acme/a", "main": "dist/index.js"}"#.to_string()),
        ];
        let c = ProjectConfig::new(&files);
        assert!(c.candidates("src/x.ts", "~/db/connect").contains(&"src/db/connect".to_string()));
        let a = c.candidates("src/x.ts", "@acme/a");
        assert!(a.contains(&"packages/a/src/index.js".to_string()), "{a:?}");
    }

    #[test]
    fn aliases_are_the_projects_own_patterns() {
        let paths = r#"{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"], "*": ["types/*"], "vendor": ["node_modules/vendor/index"]}}}"#;
        let c = ProjectConfig::new(&[("tsconfig.json".to_string(), paths.to_string())]);
        assert!(c.aliased("src/x.ts", "@/util/gone"));
        // Only the bare `*` matches a package; a pattern into node_modules names a package.
        assert!(!c.aliased("src/x.ts", "react"));
        assert!(!c.aliased("src/x.ts", "vendor"));
        // A scoped name may be an installed package.
        let scoped = r#"{"compilerOptions": {"baseUrl": ".", "paths": {"@acme/*": ["packages/*"], "~/*": ["src/*"]}}}"#;
        let c = ProjectConfig::new(&[("tsconfig.json".to_string(), scoped.to_string())]);
        assert!(!c.aliased("src/x.ts", "@acme/icons"));
        assert!(c.aliased("src/x.ts", "~/gone"));
    }
}
