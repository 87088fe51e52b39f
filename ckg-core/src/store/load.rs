//! The rows resolution reads ([`ResolveInput`]) and their loaders: everything stored, only
//! what binds names (for `def`), or the references of some files; and the in-memory rows a
//! fresh build or a cached session resolves from without reading them back.

use rusqlite::{Connection, OptionalExtension};

use super::write::WriteTx;
use crate::error::Result;
use crate::facts::{FileRecord, ImportKind, ParamUse, RefFact, SymbolKind, ValueSource, decode_param_uses};
use crate::lang::Lang;
use crate::refblob;

/// A file row as resolution needs it.
#[derive(Clone, Debug)]
pub struct FileRow {
    pub id: i64,
    pub path: String,
    pub lang: Lang,
    pub module: String,
}

#[derive(Clone, Debug)]
pub struct SymbolRow {
    pub id: i64,
    pub qname: String,
    pub name: String,
    pub kind: SymbolKind,
    pub file: Option<i64>,
    pub parent: Option<i64>,
    pub exported: bool,
    /// What few symbols have (bases, a type, decorators, parameters), boxed: `None` when they
    /// have none of it, so that the rows resolution scans and builds its maps over stay small
    /// (django's 64k rows: 224 bytes each unboxed, 104 so).
    pub more: Option<Box<SymbolMore>>,
    /// Where it is defined (a definition written after a star import shadows what it brings).
    pub line: u32,
}

/// A symbol's bases as written, declared or obvious type, decorators as written, calls through
/// its parameters, and its parameters' declared types.
#[derive(Clone, Debug, Default)]
pub struct SymbolMore {
    pub bases: Vec<String>,
    pub ty: Option<ValueSource>,
    pub decorators: Vec<String>,
    pub param_uses: Vec<ParamUse>,
    pub param_types: Vec<String>,
}

impl SymbolMore {
    /// `None` when there is nothing.
    pub fn boxed(more: SymbolMore) -> Option<Box<SymbolMore>> {
        let empty = more.bases.is_empty()
            && more.ty.is_none()
            && more.decorators.is_empty()
            && more.param_uses.is_empty()
            && more.param_types.is_empty();
        (!empty).then(|| Box::new(more))
    }
}

impl SymbolRow {
    pub fn bases(&self) -> &[String] {
        self.more.as_ref().map_or(&[], |m| &m.bases)
    }

    pub fn ty(&self) -> Option<&ValueSource> {
        self.more.as_ref().and_then(|m| m.ty.as_ref())
    }

    pub fn decorators(&self) -> &[String] {
        self.more.as_ref().map_or(&[], |m| &m.decorators)
    }

    pub fn param_uses(&self) -> &[ParamUse] {
        self.more.as_ref().map_or(&[], |m| &m.param_uses)
    }

    pub fn param_types(&self) -> &[String] {
        self.more.as_ref().map_or(&[], |m| &m.param_types)
    }
}

#[cfg(test)]
impl SymbolRow {
    /// A function defined in `file` on line 1, with nothing else known of it.
    pub(crate) fn function(id: i64, qname: &str, file: i64) -> SymbolRow {
        SymbolRow {
            id,
            qname: qname.into(),
            name: String::new(),
            kind: crate::facts::SymbolKind::Function,
            file: Some(file),
            parent: None,
            exported: false,
            more: None,
            line: 1,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ImportRow {
    pub file: i64,
    pub kind: ImportKind,
    pub specifier: String,
    pub imported: Option<String>,
    pub local: Option<String>,
    pub scope: i64,
    pub type_only: bool,
    pub alternative: bool,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug)]
pub struct ExportRow {
    pub file: i64,
    pub name: String,
    pub target: Option<String>,
    pub specifier: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// One file's reference facts, kept as extraction made them from the file's extraction to
/// its resolution: each fact's `src` indexes `ids`, the store's ids of the symbols the sites
/// are in. (A fresh build copied each fact into a row of its own, with its file and its
/// symbol's id: django's 348k references, 136 bytes each, and the pages they filled were
/// ~1 % of its full index.)
#[derive(Clone, Debug, Default)]
pub struct FileRefs {
    pub file: i64,
    pub ids: Vec<i64>,
    pub refs: Vec<RefFact>,
}

impl FileRefs {
    /// The file's sites, in the order of its facts, each with the id of its symbol.
    pub fn sites(&self) -> impl ExactSizeIterator<Item = RefSite<'_>> {
        self.refs.iter().map(|fact| RefSite { file: self.file, src: self.ids[fact.src as usize], fact })
    }
}

/// A reference site as resolution reads it: a fact with its file and the id of the symbol it
/// is in (`src`, which stands for the fact's own `src`, an index in its file). The fact's
/// other fields are read through it.
#[derive(Clone, Copy, Debug)]
pub struct RefSite<'a> {
    pub file: i64,
    pub src: i64,
    pub fact: &'a RefFact,
}

impl std::ops::Deref for RefSite<'_> {
    type Target = RefFact;

    fn deref(&self) -> &RefFact {
        self.fact
    }
}

/// Everything resolution reads, loaded in one pass.
#[derive(Debug, Default)]
pub struct ResolveInput {
    pub files: Vec<FileRow>,
    pub symbols: Vec<SymbolRow>,
    pub imports: Vec<ImportRow>,
    pub exports: Vec<ExportRow>,
    /// By file; only files with references.
    pub refs: Vec<FileRefs>,
    /// Project configuration files: (path, content).
    pub configs: Vec<(String, String)>,
}

/// File ids asked about once per row (tens of thousands of rows, a few ids): a binary search
/// in them is cheaper than hashing each row's id.
struct FileIds(Vec<i64>);

impl FileIds {
    fn new(files: impl IntoIterator<Item = i64>) -> FileIds {
        let mut ids: Vec<i64> = files.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        FileIds(ids)
    }

    fn contains(&self, file: i64) -> bool {
        self.0.binary_search(&file).is_ok()
    }
}

impl ResolveInput {
    /// Drops every row of these files (they changed or are gone).
    pub fn remove_files(&mut self, files: impl IntoIterator<Item = i64>) {
        let gone = FileIds::new(files);
        if gone.0.is_empty() {
            return;
        }
        self.files.retain(|f| !gone.contains(f.id));
        self.symbols.retain(|s| s.file.is_none_or(|f| !gone.contains(f)));
        self.imports.retain(|i| !gone.contains(i.file));
        self.exports.retain(|e| !gone.contains(e.file));
        self.refs.retain(|r| !gone.contains(r.file));
    }

    /// Appends the rows of another input (files not in this one).
    pub fn extend(&mut self, other: ResolveInput) {
        self.files.extend(other.files);
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.symbols.extend(other.symbols);
        self.imports.extend(other.imports);
        self.exports.extend(other.exports);
        self.refs.extend(other.refs);
    }

    /// Keeps, of the definitions of a qname two files define, only the owner's: `owners` gives
    /// the owning file by the id of the qname's symbol ([`WriteTx::qname_owners`]). Rows kept
    /// in memory by a fresh build then hold what the database holds.
    ///
    /// [`WriteTx::qname_owners`]: crate::store::WriteTx::qname_owners
    pub fn keep_owned_definitions(&mut self, owners: &crate::resolve::Map<i64, i64>) {
        if !owners.is_empty() {
            self.symbols.retain(|s| owners.get(&s.id).is_none_or(|&owner| s.file == Some(owner)));
        }
    }

    /// One order whatever the history of the rows (the loader's, which a snapshot writes and
    /// reads back): files by path, symbols by id, imports and exports by file, each file's in
    /// the order extraction gave them. Stable sorts: rows mostly in order cost a merge.
    pub fn sort_as_loaded(&mut self) {
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.symbols.sort_by_key(|s| s.id);
        self.imports.sort_by_key(|i| i.file);
        self.exports.sort_by_key(|e| e.file);
    }

    /// The rows of these files (no references or configuration).
    pub fn of_files(&self, files: impl IntoIterator<Item = i64>) -> ResolveInput {
        let files = FileIds::new(files);
        ResolveInput {
            files: self.files.iter().filter(|f| files.contains(f.id)).cloned().collect(),
            symbols: self.symbols.iter().filter(|s| s.file.is_some_and(|f| files.contains(f))).cloned().collect(),
            imports: self.imports.iter().filter(|i| files.contains(i.file)).cloned().collect(),
            exports: self.exports.iter().filter(|e| files.contains(e.file)).cloned().collect(),
            ..ResolveInput::default()
        }
    }

    /// Room for the facts of `files` files of `bytes` bytes of source, for a fresh build that
    /// adds them one by one ([`ResolveInput::add_file`]): as the lists grew, each doubling
    /// moved them into memory faulted in anew (~1.5 % of django's full index, when its 348k
    /// references were rows of this list). The corpora have a definition in 298–626 bytes of
    /// source, an import in 593–2483; room is made for more, and room not
    /// used is address space that no page backs. Room refused (a very large tree on a system
    /// that counts address space) is only room: the lists then grow as they did.
    pub fn reserve_for_source(&mut self, files: usize, bytes: u64) {
        let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        let _ = self.files.try_reserve(files);
        let _ = self.refs.try_reserve(files);
        let _ = self.symbols.try_reserve(bytes / 256);
        let _ = self.imports.try_reserve(bytes / 512);
    }

    /// Adds a file just written (with the ids `put_file` gave its symbols), so a fresh build
    /// resolves from memory instead of reading its own rows back.
    pub fn add_file(&mut self, file_id: i64, rec: FileRecord, ids: &[i64]) {
        let facts = rec.facts;
        self.files.push(FileRow { id: file_id, path: rec.path, lang: rec.lang, module: rec.module });
        for (sym, &id) in facts.symbols.into_iter().zip(ids) {
            self.symbols.push(SymbolRow {
                id,
                qname: sym.qname,
                name: sym.name,
                kind: sym.kind,
                file: Some(file_id),
                parent: sym.parent.map(|p| ids[p as usize]),
                exported: sym.exported,
                more: SymbolMore::boxed(SymbolMore {
                    bases: sym.bases,
                    ty: sym.ty,
                    decorators: sym.decorators,
                    param_uses: sym.param_uses,
                    param_types: sym.param_types,
                }),
                line: sym.line,
            });
        }
        for i in facts.imports {
            self.imports.push(ImportRow {
                file: file_id,
                kind: i.kind,
                specifier: i.specifier,
                imported: i.imported,
                local: i.local,
                scope: ids[i.scope as usize],
                type_only: i.type_only,
                alternative: i.alternative,
                line: i.line,
                col: i.col,
            });
        }
        for e in facts.exports {
            self.exports.push(ExportRow {
                file: file_id,
                name: e.name,
                target: e.target,
                specifier: e.specifier,
                line: e.line,
                col: e.col,
            });
        }
        if !facts.refs.is_empty() {
            self.refs.push(FileRefs { file: file_id, ids: ids.to_vec(), refs: facts.refs });
        }
    }
}

/// The reference facts of the given files (all when `None`), decoded from their blobs.
pub fn load_refs(conn: &Connection, files: Option<&std::collections::HashSet<i64>>) -> rusqlite::Result<Vec<FileRefs>> {
    let corrupt = |file: i64| {
        rusqlite::Error::FromSqlConversionFailure(
            1,
            rusqlite::types::Type::Blob,
            format!("the references of file {file} do not decode").into(),
        )
    };
    let mut out = Vec::new();
    let mut push = |file: i64, data: Vec<u8>| -> rusqlite::Result<()> {
        out.push(refblob::decode(file, &data).ok_or_else(|| corrupt(file))?);
        Ok(())
    };
    match files {
        None => {
            let mut s = conn.prepare("SELECT file_id, data FROM refs ORDER BY file_id")?;
            let mut rows = s.query([])?;
            while let Some(r) = rows.next()? {
                push(r.get(0)?, r.get(1)?)?;
            }
        }
        Some(files) => {
            let mut s = conn.prepare("SELECT data FROM refs WHERE file_id = ?1")?;
            let mut files: Vec<i64> = files.iter().copied().collect();
            files.sort();
            for f in files {
                if let Some(data) = s.query_row([f], |r| r.get(0)).optional()? {
                    push(f, data)?;
                }
            }
        }
    }
    Ok(out)
}

/// What resolution needs to bind names (no reference facts): for answering one position
/// (`def`) without indexing.
pub fn load_names(conn: &Connection) -> rusqlite::Result<ResolveInput> {
    load_resolve_input(conn, Some(&std::collections::HashSet::new()))
}

fn load_resolve_input(conn: &Connection, refs_of: Option<&std::collections::HashSet<i64>>) -> rusqlite::Result<ResolveInput> {
    let mut input = ResolveInput::default();
    let mut s = conn.prepare("SELECT id, path, lang, module FROM files ORDER BY path")?;
    input.files = s
        .query_map([], |r| {
            Ok(FileRow {
                id: r.get(0)?,
                path: r.get(1)?,
                lang: Lang::parse(&r.get::<_, String>(2)?).unwrap_or(Lang::TypeScript),
                module: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    // A plain table scan (no index, so in id order): external nodes are skipped here, names
    // are not needed.
    let mut s = conn
        .prepare("SELECT id, qname, kind, file_id, parent_id, exported, bases, ty, decorators, params, param_types, line FROM symbols")?;
    let mut rows = s.query([])?;
    while let Some(r) = rows.next()? {
        let Some(file) = r.get::<_, Option<i64>>(3)? else { continue };
        let kind = match r.get_ref(2)? {
            rusqlite::types::ValueRef::Text(t) => std::str::from_utf8(t).ok().and_then(SymbolKind::parse).unwrap_or(SymbolKind::Variable),
            _ => SymbolKind::Variable,
        };
        let qname: String = r.get(1)?;
        let param_uses = decode_param_uses(&qname, r.get::<_, Option<String>>(9)?.as_deref());
        input.symbols.push(SymbolRow {
            id: r.get(0)?,
            qname,
            name: String::new(),
            kind,
            file: Some(file),
            parent: r.get(4)?,
            exported: r.get(5)?,
            more: SymbolMore::boxed(SymbolMore {
                bases: r.get::<_, Option<String>>(6)?.map(|b| b.lines().map(String::from).collect()).unwrap_or_default(),
                ty: r.get::<_, Option<String>>(7)?.as_deref().and_then(ValueSource::decode),
                decorators: r.get::<_, Option<String>>(8)?.map(|b| b.lines().map(String::from).collect()).unwrap_or_default(),
                param_uses,
                param_types: r.get::<_, Option<String>>(10)?.map(|b| b.split('\n').map(String::from).collect()).unwrap_or_default(),
            }),
            line: r.get(11)?,
        });
    }
    let mut s =
        conn.prepare("SELECT file_id, kind, specifier, imported, local, scope_id, type_only, alternative, line, col FROM imports")?;
    input.imports = s
        .query_map([], |r| {
            Ok(ImportRow {
                file: r.get(0)?,
                kind: ImportKind::parse(&r.get::<_, String>(1)?).unwrap_or(ImportKind::SideEffect),
                specifier: r.get(2)?,
                imported: r.get(3)?,
                local: r.get(4)?,
                scope: r.get(5)?,
                type_only: r.get(6)?,
                alternative: r.get(7)?,
                line: r.get(8)?,
                col: r.get(9)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut s = conn.prepare("SELECT file_id, name, target, specifier, line, col FROM exports")?;
    input.exports = s
        .query_map([], |r| {
            Ok(ExportRow { file: r.get(0)?, name: r.get(1)?, target: r.get(2)?, specifier: r.get(3)?, line: r.get(4)?, col: r.get(5)? })
        })?
        .collect::<rusqlite::Result<_>>()?;
    input.sort_as_loaded();
    let mut s = conn.prepare("SELECT path, content FROM configs ORDER BY path")?;
    input.configs = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    input.refs = load_refs(conn, refs_of)?;
    Ok(input)
}

impl WriteTx<'_> {
    /// The reference facts of the given files (all when `None`).
    pub fn load_refs(&self, files: Option<&std::collections::HashSet<i64>>) -> Result<Vec<FileRefs>> {
        load_refs(&self.tx, files).map_err(|e| self.err(e))
    }

    /// Loads the stored facts that resolution reads.
    pub fn load_resolve_input(&self, refs_of: Option<&std::collections::HashSet<i64>>) -> Result<ResolveInput> {
        load_resolve_input(&self.tx, refs_of).map_err(|e| self.err(e))
    }
}
