//! Paths and targets given by clients (HTTP, MCP), as the index names files: relative to the
//! root, `/`-separated, and never outside it.

use std::path::{Component, Path};

/// A path that leaves the indexed root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideRoot(pub String);

impl std::fmt::Display for OutsideRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} is not a path inside the indexed root", self.0)
    }
}

impl std::error::Error for OutsideRoot {}

/// A file path as the index names it. Absolute paths must lie under the root; `.` and `..`
/// are taken out (`src/utils/../app.ts` is `src/app.ts`), and a `..` above the root is
/// refused; an existing path must not leave the root through a symbolic link.
pub fn confine(root: &Path, value: &str) -> Result<String, OutsideRoot> {
    let outside = || OutsideRoot(value.to_string());
    let path = Path::new(value);
    let rel = if path.is_absolute() { path.strip_prefix(root).map_err(|_| outside())? } else { path };
    let mut parts: Vec<&str> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str().ok_or_else(outside)?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop().ok_or_else(outside)?;
            }
            Component::RootDir | Component::Prefix(_) => return Err(outside()),
        }
    }
    let rel = parts.join("/");
    if let Ok(real) = root.join(&rel).canonicalize()
        && !real.starts_with(root)
    {
        return Err(outside());
    }
    Ok(rel)
}

/// A target (qname, name, file or package) given by a client. Qnames never start with `/` or
/// `./` nor hold a `..` segment, so such a value is a path: confined, and named as the index
/// names it.
pub fn confine_target(root: &Path, value: &str) -> Result<String, OutsideRoot> {
    if value.starts_with('/') || value.starts_with("./") || value.split(['/', '\\']).any(|s| s == "..") {
        return confine(root, value);
    }
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/utils")).unwrap();
        std::fs::write(root.join("src/a.ts"), "").unwrap();
        assert_eq!(confine(&root, "src/a.ts").unwrap(), "src/a.ts");
        assert_eq!(confine(&root, "./src/a.ts").unwrap(), "src/a.ts");
        assert_eq!(confine(&root, "src/utils/../a.ts").unwrap(), "src/a.ts");
        assert_eq!(confine(&root, root.join("src/a.ts").to_str().unwrap()).unwrap(), "src/a.ts");
        for bad in ["../etc/passwd", "src/../../x", "/etc/passwd", ".."] {
            assert_eq!(confine(&root, bad), Err(OutsideRoot(bad.to_string())), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("escape")).unwrap();
            assert!(confine(&root, "escape/passwd").is_err());
        }
        assert_eq!(confine_target(&root, "src/a.ts#f").unwrap(), "src/a.ts#f");
        assert_eq!(confine_target(&root, "./src/a.ts").unwrap(), "src/a.ts");
        assert_eq!(confine_target(&root, "src/utils/../a.ts").unwrap(), "src/a.ts");
        assert_eq!(confine_target(&root, "pkg.mod.f").unwrap(), "pkg.mod.f");
        assert!(confine_target(&root, "../x").is_err());
        assert!(confine_target(&root, "/etc/passwd").is_err());
    }
}
