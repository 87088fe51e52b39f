//! Test helpers: a temporary repository to write, edit and index with ckg-core.

use ckg_core::index::{IndexConfig, Session, Summary};

pub(crate) struct TestRepo {
    dir: tempfile::TempDir,
    pub(crate) config: IndexConfig,
}

impl TestRepo {
    pub(crate) fn new() -> TestRepo {
        let dir = tempfile::tempdir().unwrap();
        let config = IndexConfig::new(dir.path());
        TestRepo { dir, config }
    }

    /// Writes `text` at `path` (relative to the root), making its directories.
    pub(crate) fn write(&self, path: &str, text: &str) {
        let path = self.dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub(crate) fn remove(&self, path: &str) {
        std::fs::remove_file(self.dir.path().join(path)).unwrap();
    }

    /// Indexes the repository (an update when `session` or the database holds an index).
    pub(crate) fn index(&self, session: &mut Session) -> Summary {
        ckg_core::index::index_with(&self.config, &|_| {}, session).unwrap()
    }

    /// Makes `edit` a few milliseconds after the last run (so that changed files have other
    /// times than it saw), then indexes.
    pub(crate) fn edit_and_index(&self, session: &mut Session, edit: &dyn Fn(&TestRepo)) -> Summary {
        std::thread::sleep(std::time::Duration::from_millis(5));
        edit(self);
        self.index(session)
    }

    pub(crate) fn open(&self) -> crate::Index {
        crate::Index::open(&self.config.db_path()).unwrap()
    }
}
