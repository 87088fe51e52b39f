//! Python import roots read from the project, besides `--python-root` and a top-level `src/`:
//! what `pyproject.toml` (setuptools `package-dir` and `packages.find.where`, pyright
//! `extraPaths`, mypy `mypy_path`), `setup.cfg` (`[options] package_dir`,
//! `[options.packages.find] where`) and `pyrightconfig.json` (`extraPaths`) name, relative to
//! the folder they are in; and every `src/` layout of a monorepo (`services/api/src/app/
//! __init__.py` makes `services/api/src` a root). Module names follow from the roots, so a
//! configuration edit renames the modules it moves and their files are extracted again.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::SourceFile;

/// The roots, as paths relative to the repository (`services/api/src`), sorted.
pub(super) fn python_roots(configs: &[(String, PathBuf)], files: &[SourceFile]) -> Vec<String> {
    let mut roots: BTreeSet<String> = BTreeSet::new();
    for (rel, abs) in configs {
        let (dir, name) = match rel.rsplit_once('/') {
            Some((d, n)) => (d, n),
            None => ("", rel.as_str()),
        };
        let Ok(content) = std::fs::read_to_string(abs) else { continue };
        if content.len() > 1 << 20 {
            continue;
        }
        let named = match name {
            "pyproject.toml" => from_pyproject(&content),
            "setup.cfg" => from_setup_cfg(&content),
            "pyrightconfig.json" => from_pyright_json(&content),
            _ => continue,
        };
        roots.extend(named.iter().filter_map(|p| join(dir, p)));
    }
    // `<dir>/src/<pkg>/__init__.py` below the top level: `<dir>/src` is a root.
    for f in files {
        if let Some(prefix) = f.path.strip_suffix("/__init__.py") {
            let parts: Vec<&str> = prefix.split('/').collect();
            if parts.len() >= 3 && parts[parts.len() - 2] == "src" {
                roots.insert(parts[..parts.len() - 1].join("/"));
            }
        }
    }
    roots.into_iter().collect()
}

/// `dir/p` normalised (`.` and `./x` allowed); `None` outside the repository or for the
/// repository itself (its root is the default).
fn join(dir: &str, p: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in p.trim().split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

fn from_pyproject(content: &str) -> Vec<String> {
    let Ok(doc) = content.parse::<toml::Table>() else { return Vec::new() };
    let tool = |name: &str| doc.get("tool").and_then(|t| t.get(name));
    let mut out = Vec::new();
    if let Some(st) = tool("setuptools") {
        if let Some(dir) = st.get("package-dir").and_then(|d| d.get("")).and_then(|v| v.as_str()) {
            out.push(dir.to_string());
        }
        if let Some(w) = st.get("packages").and_then(|p| p.get("find")).and_then(|f| f.get("where")).and_then(|w| w.as_array()) {
            out.extend(w.iter().filter_map(|v| v.as_str()).map(String::from));
        }
    }
    if let Some(paths) = tool("pyright").and_then(|p| p.get("extraPaths")).and_then(|e| e.as_array()) {
        out.extend(paths.iter().filter_map(|v| v.as_str()).map(String::from));
    }
    if let Some(path) = tool("mypy").and_then(|m| m.get("mypy_path")) {
        match path {
            toml::Value::String(s) => out.extend(s.split([':', ',']).map(|p| p.trim().to_string()).filter(|p| !p.is_empty())),
            toml::Value::Array(a) => out.extend(a.iter().filter_map(|v| v.as_str()).map(String::from)),
            _ => {}
        }
    }
    out
}

/// `[options] package_dir = \n    =src` and `[options.packages.find] where = src`.
fn from_setup_cfg(content: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut key = String::new();
    for line in content.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            section = trimmed[1..trimmed.len() - 1].trim().to_string();
            continue;
        }
        let continued = line.starts_with([' ', '\t']);
        let value = if continued {
            trimmed
        } else {
            let Some((k, v)) = trimmed.split_once('=') else { continue };
            key = k.trim().to_string();
            v.trim()
        };
        match (section.as_str(), key.as_str()) {
            // `=src` (the root package's folder) or `pkg = dir` (left alone).
            ("options", "package_dir") => {
                if let Some(dir) = value.strip_prefix('=') {
                    out.push(dir.trim().to_string());
                }
            }
            ("options.packages.find", "where") if !value.is_empty() => out.push(value.to_string()),
            _ => {}
        }
    }
    out
}

fn from_pyright_json(content: &str) -> Vec<String> {
    // Pyright reads JSONC.
    let Some(v) = crate::jsonc::parse(content) else { return Vec::new() };
    v.get("extraPaths")
        .and_then(|e| e.as_array())
        .map(|a| a.iter().filter_map(|p| p.as_str()).map(String::from).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_from_each_configuration_format() {
        let py = "[tool.setuptools]\npackage-dir = {\"\" = \"lib\"}\n[tool.setuptools.packages.find]\nwhere = [\"src\", \"plugins\"]\n\
                  [tool.pyright]\nextraPaths = [\"vendor\"]\n[tool.mypy]\nmypy_path = \"stubs:typings\"\n";
        assert_eq!(from_pyproject(py), ["lib", "src", "plugins", "vendor", "stubs", "typings"]);
        assert!(from_pyproject("not = [toml").is_empty());
        let cfg = "[metadata]\nname = x\n\n[options]\npackage_dir =\n    =lib\npackages = find:\n\n[options.packages.find]\nwhere = src\n";
        assert_eq!(from_setup_cfg(cfg), ["lib", "src"]);
        assert_eq!(from_pyright_json("{\"extraPaths\": [\"a/b\"]}"), ["a/b"]);
        assert_eq!(join("services/api", "./src"), Some("services/api/src".into()));
        assert_eq!(join("", "."), None);
        assert_eq!(join("", "../x"), None);
    }
}
