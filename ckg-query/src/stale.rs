//! Staleness: which indexed files changed on disk since the index was written, by a cheap
//! size + mtime check (no hashing), and which source files were added, from the directories
//! whose time changed since the last index run's walk (no whole walk), so answers can say
//! when they may be out of date.

use schemars::JsonSchema;
use serde::Serialize;

use crate::{Index, Result};

#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct Staleness {
    /// True when some indexed file changed or disappeared, or a source file was added.
    pub stale: bool,
    pub changed: Vec<String>,
    pub deleted: Vec<String>,
    /// Source files added since the last index run, in the directories whose entries changed;
    /// `None` when not known cheaply (the index was built with other discovery settings than
    /// the defaults, no walk cache is next to the database, or an ignore file changed).
    pub added: Option<Vec<String>>,
}

impl Staleness {
    /// What changed, in words: `2 changed, 1 deleted, 3 added` (`added unknown` when that is
    /// not known).
    pub fn summary(&self) -> String {
        let added = self.added.as_ref().map_or_else(|| "added unknown".to_string(), |a| format!("{} added", a.len()));
        format!("{} changed, {} deleted, {added}", self.changed.len(), self.deleted.len())
    }
}

impl Index {
    /// Compares the stored size and mtime of every indexed file with the disk, and lists the
    /// source files added in the directories whose time changed since the last index run.
    pub fn staleness(&self) -> Result<Staleness> {
        let Some(root) = self.root() else { return Ok(Staleness::default()) };
        let root = std::path::PathBuf::from(root);
        let mut s = self.conn.prepare_cached("SELECT path, size, mtime_ns FROM files ORDER BY path").map_err(|e| self.db_err(e))?;
        let rows =
            s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))).map_err(|e| self.db_err(e))?;
        let mut out = Staleness::default();
        for r in rows {
            let (path, size, mtime) = r.map_err(|e| self.db_err(e))?;
            match std::fs::metadata(root.join(&path)) {
                Ok(m) => {
                    if m.len() as i64 != size || ckg_core::discover::mtime_ns(&m) != mtime {
                        out.changed.push(path);
                    }
                }
                Err(_) => out.deleted.push(path),
            }
        }
        out.added = ckg_core::discover::added_source_files(&root, &self.path.with_extension("walk"));
        out.stale = !out.changed.is_empty() || !out.deleted.is_empty() || out.added.as_ref().is_some_and(|a| !a.is_empty());
        Ok(out)
    }
}
