//! The names snapshot: what [`super::load_names`] reads from the database — the
//! rows resolution binds names with (files, symbols, imports, exports) — as one file next to
//! it (`index.names`), kept up to date by each run that resolved. The next process (an edit's
//! `ckg index`) reads that file in one go instead of stepping and decoding every row (django:
//! 64k symbols, ~110 ms from SQLite).
//!
//! A snapshot is a base and a log: the rows as of one commit, then one record per later run
//! with the rows of the files it wrote (an edit appends a few kilobytes instead of writing
//! 4 MiB again). Each state belongs to one commit of the index: the generation and the scan
//! start time that run wrote to `meta`, and the build of ckg that wrote it; a record names the
//! commit it starts from and the one it brings. A reader follows the records from the base's
//! commit; when the chain does not end at the commit it reads (another writer since, a crash
//! between a commit and its record, a rebuild, another version of ckg) the snapshot is
//! ignored and the rows are read from the database, so it never changes an answer, only how
//! fast the rows arrive. The base is written whole to a temporary file and renamed
//! ([`crate::cache_file::replace`]); a record is appended, with a checksum, so a torn one ends
//! the log. A run writes a new base instead when the log has grown to a quarter of the base or
//! to [`MAX_RECORDS`] records.
//!
//! Layout (all integers LEB128 varints, strings as length and bytes, optional strings as
//! length + 1 or 0): the magic line, the version byte; the schema version, the base's commit
//! (generation, scan start, build) and the length of its rows; the rows: the files, symbols,
//! imports and exports, each a count and records in the loader's field order. A symbol's qname
//! is written as the length of the prefix it shares with the previous symbol's qname and the
//! rest (a file's qnames share its module); its parameter uses as varints and strings
//! ([`put_param_uses`]). Then the log: per record its length, then the commit it starts from,
//! the commit it brings, the ids of the files whose rows it replaces (written or deleted), the
//! rows of the files written, and 8 bytes of xxh3 of all that.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};

use super::load::{ExportRow, FileRow, ImportRow, ResolveInput, SymbolMore, SymbolRow};
use super::schema::SCHEMA_VERSION;
use crate::facts::{Forward, ImportKind, ParamUse, SymbolKind, ValueSource};
use crate::lang::Lang;
use crate::refblob::{Reader, put, put_str};

const MAGIC: &[u8] = b"ckg-names\n";
const VERSION: u8 = 2;

/// A log of this many records is folded into a new base.
pub const MAX_RECORDS: usize = 64;

/// The commit of the index a snapshot belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub generation: i64,
    pub scan_started_ns: i64,
    pub build: Option<String>,
}

impl Stamp {
    fn put(&self, out: &mut Vec<u8>) {
        put(out, self.generation as u64);
        put(out, self.scan_started_ns as u64);
        put_opt(out, self.build.as_deref());
    }

    fn get(r: &mut Reader) -> Option<Stamp> {
        Some(Stamp { generation: r.varint()? as i64, scan_started_ns: r.varint()? as i64, build: r.opt()?.map(String::from) })
    }

    /// The commit a connection reads (call it in the transaction that reads the rows).
    pub fn read(conn: &Connection) -> rusqlite::Result<Stamp> {
        let meta = |key: &str| -> rusqlite::Result<Option<String>> {
            conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()
        };
        Ok(Stamp {
            generation: super::read_generation(conn)?,
            scan_started_ns: meta("scan_started_ns")?.and_then(|v| v.parse().ok()).unwrap_or(0),
            build: meta("build_id")?,
        })
    }
}

/// Where the snapshot of the index at `db` is kept.
pub fn path_of(db: &Path) -> PathBuf {
    db.with_extension("names")
}

/// What [`load_names`] reads from `conn` (the index at `db`): from the snapshot of the commit
/// it reads when there is one (and where that snapshot ends), else from the rows. Call it in
/// the read transaction that pins that commit; the stamp says which commit it is.
pub fn load_names(conn: &Connection, db: &Path) -> rusqlite::Result<(Stamp, ResolveInput, Option<Tail>)> {
    let stamp = Stamp::read(conn)?;
    Ok(match read(&path_of(db), &stamp) {
        Some(Loaded { input, tail }) => (stamp, input, Some(tail)),
        None => (stamp, super::load_names(conn)?, None),
    })
}

/// Where a snapshot that was read ends: a run that starts from its state appends there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// The commit the snapshot's last record (or its base) brings.
    pub stamp: Stamp,
    /// The file's length up to that record.
    pub end: u64,
    /// The length of the base's rows, and how many bytes and records the log has.
    pub base_len: u64,
    pub log_len: u64,
    pub records: usize,
}

/// A snapshot that was read: its rows, and where it ends.
pub struct Loaded {
    pub input: ResolveInput,
    pub tail: Tail,
}

/// Writes a snapshot's base: the rows [`encode`] made, as of the commit `stamp`; returns
/// where it ends.
pub fn write(path: &Path, stamp: &Stamp, rows: &[u8]) -> std::io::Result<Tail> {
    let mut header = Vec::with_capacity(64);
    header.extend_from_slice(MAGIC);
    header.push(VERSION);
    put(&mut header, SCHEMA_VERSION as u64);
    stamp.put(&mut header);
    put(&mut header, rows.len() as u64);
    crate::cache_file::replace(path, &[&header, rows])?;
    Ok(Tail { stamp: stamp.clone(), end: (header.len() + rows.len()) as u64, base_len: rows.len() as u64, log_len: 0, records: 0 })
}

/// Whether the log of the snapshot that ends at `tail` takes a record of `rows` more bytes of
/// rows, or should be folded into a new base.
pub fn has_room(tail: &Tail, rows: usize) -> bool {
    tail.records < MAX_RECORDS && tail.log_len + rows as u64 + 64 <= tail.base_len / 4
}

/// Appends to the snapshot that ends at `tail` the record of the run that committed `to`:
/// `replaced` are the files it wrote or deleted, `rows` what [`encode`] made of the rows of
/// those it wrote. Returns the new tail, or `None` when the file is no longer what `tail`
/// says (nothing written) or the write failed (a torn record then ends the log). Whether the
/// log has room for the record is the caller's question ([`has_room`]).
pub fn append(path: &Path, tail: &Tail, to: &Stamp, replaced: &[i64], rows: &[u8]) -> Option<Tail> {
    use std::io::Write;
    let mut payload = Vec::with_capacity(rows.len() + 64 + 4 * replaced.len());
    tail.stamp.put(&mut payload);
    to.put(&mut payload);
    put(&mut payload, replaced.len() as u64);
    for &f in replaced {
        put(&mut payload, f as u64);
    }
    payload.extend_from_slice(rows);
    let mut record = Vec::with_capacity(payload.len() + 18);
    put(&mut record, payload.len() as u64);
    record.extend_from_slice(&payload);
    record.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
    let log_len = tail.log_len + record.len() as u64;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).ok()?;
    if file.metadata().ok()?.len() != tail.end {
        return None;
    }
    file.write_all(&record).ok()?;
    Some(Tail { stamp: to.clone(), end: tail.end + record.len() as u64, base_len: tail.base_len, log_len, records: tail.records + 1 })
}

/// The snapshot at `path` if it (its base and the chain of records from it) brings the
/// commit `stamp`, and decodes.
pub fn read(path: &Path, stamp: &Stamp) -> Option<Loaded> {
    decode(&std::fs::read(path).ok()?, stamp)
}

fn put_opt(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => put(out, 0),
        Some(s) => {
            put(out, s.len() as u64 + 1);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

fn put_list(out: &mut Vec<u8>, items: &[String]) {
    put(out, items.len() as u64);
    for s in items {
        put_str(out, s);
    }
}

/// A symbol's parameter uses: a count, then each use's index + 1 (0: by keyword only), name,
/// caller (absent when it is the symbol itself), rest, `each`, and the call it is passed on to
/// (0, or 1 then its callee and key). Not JSON as in the database: decoding that was most of
/// reading a snapshot where functions pass their parameters on a lot.
fn put_param_uses(out: &mut Vec<u8>, qname: &str, uses: &[ParamUse]) {
    put(out, uses.len() as u64);
    for u in uses {
        put(out, u.index.map_or(0, |i| u64::from(i) + 1));
        put_str(out, &u.name);
        put_opt(out, (u.caller != qname).then_some(u.caller.as_str()));
        put_str(out, &u.rest);
        out.push(u8::from(u.each));
        match &u.via {
            None => out.push(0),
            Some(f) => {
                out.push(1);
                put_str(out, &f.callee);
                put_str(out, &f.key);
            }
        }
    }
}

/// The rows of `input` that a snapshot holds (its references and configuration files are not
/// part of it), encoded; known before the commit they will belong to.
pub fn encode(input: &ResolveInput) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 * input.symbols.len() + 48 * input.imports.len() + 1024);
    put(&mut out, input.files.len() as u64);
    for f in &input.files {
        put(&mut out, f.id as u64);
        put_str(&mut out, &f.path);
        put_str(&mut out, f.lang.as_str());
        put_str(&mut out, &f.module);
    }
    // In the loader's order (rows kept in memory are in the order of their runs): symbols
    // of a file (not external nodes) by id, imports and exports by file.
    let mut symbols: Vec<&SymbolRow> = input.symbols.iter().filter(|s| s.file.is_some()).collect();
    symbols.sort_unstable_by_key(|s| s.id);
    let mut imports: Vec<&ImportRow> = input.imports.iter().collect();
    imports.sort_by_key(|i| i.file);
    let mut exports: Vec<&ExportRow> = input.exports.iter().collect();
    exports.sort_by_key(|e| e.file);
    put(&mut out, symbols.len() as u64);
    let mut previous = "";
    for s in symbols {
        let mut shared = s.qname.bytes().zip(previous.bytes()).take_while(|(a, b)| a == b).count();
        while !s.qname.is_char_boundary(shared) {
            shared -= 1;
        }
        put(&mut out, s.id as u64);
        put(&mut out, shared as u64);
        put_str(&mut out, &s.qname[shared..]);
        previous = &s.qname;
        out.push(SymbolKind::ALL.iter().position(|k| *k == s.kind).unwrap_or(0) as u8);
        put(&mut out, s.file.unwrap_or(0) as u64);
        put(&mut out, s.parent.map_or(0, |p| p as u64 + 1));
        out.push(u8::from(s.exported));
        put_list(&mut out, s.bases());
        put_opt(&mut out, s.ty().map(ValueSource::encode).as_deref());
        put_list(&mut out, s.decorators());
        put_param_uses(&mut out, &s.qname, s.param_uses());
        put_list(&mut out, s.param_types());
        put(&mut out, u64::from(s.line));
    }
    put(&mut out, imports.len() as u64);
    for i in imports {
        put(&mut out, i.file as u64);
        out.push(ImportKind::ALL.iter().position(|k| *k == i.kind).unwrap_or(0) as u8);
        put_str(&mut out, &i.specifier);
        put_opt(&mut out, i.imported.as_deref());
        put_opt(&mut out, i.local.as_deref());
        put(&mut out, i.scope as u64);
        out.push(u8::from(i.type_only) | u8::from(i.alternative) << 1);
        put(&mut out, u64::from(i.line));
        put(&mut out, u64::from(i.col));
    }
    put(&mut out, exports.len() as u64);
    for e in exports {
        put(&mut out, e.file as u64);
        put_str(&mut out, &e.name);
        put_opt(&mut out, e.target.as_deref());
        put_opt(&mut out, e.specifier.as_deref());
        put(&mut out, u64::from(e.line));
        put(&mut out, u64::from(e.col));
    }
    out
}

impl<'a> Reader<'a> {
    /// What [`put_opt`] wrote.
    fn opt(&mut self) -> Option<Option<&'a str>> {
        match self.varint()? {
            0 => Some(None),
            len => self.text(len as usize - 1).map(Some),
        }
    }

    /// What [`put_list`] wrote.
    fn list(&mut self) -> Option<Vec<String>> {
        self.records(|r, _| r.str().map(String::from))
    }

    /// What [`put_param_uses`] wrote for the symbol `qname`.
    fn param_uses(&mut self, qname: &str) -> Option<Vec<ParamUse>> {
        self.records(|r, _| {
            let index = match r.varint()? {
                0 => None,
                i => Some(u32::try_from(i - 1).ok()?),
            };
            let name = r.str()?.to_string();
            let caller = r.opt()?.unwrap_or(qname).to_string();
            let rest = r.str()?.to_string();
            let each = r.byte()? != 0;
            let via = match r.byte()? {
                0 => None,
                _ => Some(Forward { callee: r.str()?.to_string(), key: r.str()?.to_string() }),
            };
            Some(ParamUse { index, name, caller, rest, each, via })
        })
    }

    fn number(&mut self) -> Option<u32> {
        u32::try_from(self.varint()?).ok()
    }
}

fn decode(data: &[u8], stamp: &Stamp) -> Option<Loaded> {
    let mut r = Reader { data: data.strip_prefix(MAGIC)?, pos: 0 };
    if r.byte()? != VERSION || r.varint()? != SCHEMA_VERSION as u64 {
        return None;
    }
    let base = Stamp::get(&mut r)?;
    let base_len = r.varint()? as usize;
    let base_rows = r.data.get(r.pos..r.pos.checked_add(base_len)?)?;
    r.pos += base_len;
    // The records that chain from the base up to the commit read (a later one may have been
    // appended since), checked before any row is decoded: a snapshot of another commit costs
    // no more than reading the file.
    let mut at = base;
    let mut chain: Vec<&[u8]> = Vec::new();
    let (mut end, mut log_len) = (r.pos, 0u64);
    while at != *stamp && r.pos < r.data.len() {
        let start = r.pos;
        let Some(payload) = record(&mut r) else { break };
        let mut p = Reader { data: payload, pos: 0 };
        let (from, to) = (Stamp::get(&mut p)?, Stamp::get(&mut p)?);
        if from == at {
            at = to;
            chain.push(&payload[p.pos..]);
            end = r.pos;
        }
        log_len += (r.pos - start) as u64;
    }
    if at != *stamp {
        return None;
    }
    let mut input = rows(&mut Reader { data: base_rows, pos: 0 })?;
    if !chain.is_empty() {
        apply(&mut input, &chain)?;
    }
    let tail = Tail { stamp: at, end: (MAGIC.len() + end) as u64, base_len: base_len as u64, log_len, records: chain.len() };
    Some(Loaded { input, tail })
}

/// Replaces the rows of the files the records wrote or deleted by those of each file's last
/// record, in one pass over the base, and puts the rows back in the loader's order.
fn apply(input: &mut ResolveInput, chain: &[&[u8]]) -> Option<()> {
    let mut records = Vec::with_capacity(chain.len());
    let mut last: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    for (i, body) in chain.iter().enumerate() {
        let mut p = Reader { data: body, pos: 0 };
        for f in p.records(|p, _| p.varint().map(|f| f as i64))? {
            last.insert(f, i);
        }
        records.push(rows(&mut p)?);
    }
    input.remove_files(last.keys().copied());
    for (i, written) in records.into_iter().enumerate() {
        let own = |f: i64| last.get(&f) == Some(&i);
        input.files.extend(written.files.into_iter().filter(|r| own(r.id)));
        input.symbols.extend(written.symbols.into_iter().filter(|r| r.file.is_some_and(own)));
        input.imports.extend(written.imports.into_iter().filter(|r| own(r.file)));
        input.exports.extend(written.exports.into_iter().filter(|r| own(r.file)));
    }
    // The base is in order and the records' rows follow it: two runs to merge.
    input.sort_as_loaded();
    Some(())
}

/// One record of the log: its payload, if it is whole and its checksum matches.
fn record<'a>(r: &mut Reader<'a>) -> Option<&'a [u8]> {
    let len = r.varint()? as usize;
    let payload = r.data.get(r.pos..r.pos.checked_add(len)?)?;
    let sum = r.data.get(r.pos + len..r.pos + len + 8)?;
    if xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes() != sum {
        return None;
    }
    r.pos += len + 8;
    Some(payload)
}

/// The rows [`encode`] wrote, which must fill `r`.
fn rows(r: &mut Reader) -> Option<ResolveInput> {
    let files = r.records(|r, _| {
        Some(FileRow { id: r.varint()? as i64, path: r.str()?.to_string(), lang: Lang::parse(r.str()?)?, module: r.str()?.to_string() })
    })?;
    let symbols = r.records(|r, before: &[SymbolRow]| {
        let id = r.varint()? as i64;
        let shared = r.varint()? as usize;
        let rest = r.str()?;
        let previous = before.last().map_or("", |s| s.qname.as_str());
        let mut qname = String::with_capacity(shared + rest.len());
        qname.push_str(previous.get(..shared)?);
        qname.push_str(rest);
        let kind = *SymbolKind::ALL.get(r.byte()? as usize)?;
        let file = r.varint()? as i64;
        let parent = r.varint()?.checked_sub(1).map(|p| p as i64);
        let exported = r.byte()? != 0;
        let bases = r.list()?;
        let ty = r.opt()?.and_then(ValueSource::decode);
        let decorators = r.list()?;
        let param_uses = r.param_uses(&qname)?;
        let param_types = r.list()?;
        let line = r.number()?;
        Some(SymbolRow {
            id,
            qname,
            name: String::new(),
            kind,
            file: Some(file),
            parent,
            exported,
            more: SymbolMore::boxed(SymbolMore { bases, ty, decorators, param_uses, param_types }),
            line,
        })
    })?;
    let imports = r.records(|r, _| {
        let file = r.varint()? as i64;
        let kind = *ImportKind::ALL.get(r.byte()? as usize)?;
        let specifier = r.str()?.to_string();
        let imported = r.opt()?.map(String::from);
        let local = r.opt()?.map(String::from);
        let scope = r.varint()? as i64;
        let flags = r.byte()?;
        let (line, col) = (r.number()?, r.number()?);
        Some(ImportRow { file, kind, specifier, imported, local, scope, type_only: flags & 1 != 0, alternative: flags & 2 != 0, line, col })
    })?;
    let exports = r.records(|r, _| {
        Some(ExportRow {
            file: r.varint()? as i64,
            name: r.str()?.to_string(),
            target: r.opt()?.map(String::from),
            specifier: r.opt()?.map(String::from),
            line: r.number()?,
            col: r.number()?,
        })
    })?;
    let input = ResolveInput { files, symbols, imports, exports, ..ResolveInput::default() };
    (r.pos == r.data.len()).then_some(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> Stamp {
        Stamp { generation: 7, scan_started_ns: 1_764_000_000_000_000_000, build: Some("b1".into()) }
    }

    fn symbol(id: i64, qname: &str, file: i64) -> SymbolRow {
        SymbolRow::function(id, qname, file)
    }

    fn input() -> ResolveInput {
        let mut full = symbol(3, "pkg.mod.C.method", 1);
        full.kind = SymbolKind::Method;
        full.parent = Some(2);
        full.exported = true;
        full.more = SymbolMore::boxed(SymbolMore {
            bases: vec!["Base".into(), String::new()],
            ty: Some(ValueSource::Call("pkg.make".into())),
            decorators: vec!["staticmethod".into()],
            param_uses: vec![
                ParamUse {
                    index: Some(1),
                    name: "cb".into(),
                    caller: "pkg.mod.C.method".into(),
                    rest: "run".into(),
                    each: true,
                    via: None,
                },
                ParamUse {
                    index: None,
                    name: "key".into(),
                    caller: "pkg.mod.C.method.<locals>.inner".into(),
                    rest: String::new(),
                    each: false,
                    via: Some(Forward { callee: "self.f".into(), key: "1".into() }),
                },
            ],
            param_types: vec!["int".into(), String::new()],
        });
        full.line = 40_000;
        ResolveInput {
            files: vec![
                FileRow { id: 1, path: "pkg/mod.py".into(), lang: Lang::Python, module: "pkg.mod".into() },
                FileRow { id: 2, path: "src/é.ts".into(), lang: Lang::TypeScript, module: "src/é".into() },
            ],
            // Out of id order, as rows kept in memory can be; qnames sharing a prefix up to
            // the middle of a two-byte character.
            symbols: vec![symbol(5, "src/é#b", 2), symbol(2, "pkg.mod.C", 1), full, symbol(4, "src/è", 2), {
                let mut external = symbol(9, "<builtin>.len", 0);
                external.file = None;
                external
            }],
            imports: vec![
                ImportRow {
                    file: 2,
                    kind: ImportKind::Named,
                    specifier: "./x".into(),
                    imported: Some("a".into()),
                    local: None,
                    scope: 4,
                    type_only: true,
                    alternative: false,
                    line: 1,
                    col: 2,
                },
                ImportRow {
                    file: 1,
                    kind: ImportKind::Star,
                    specifier: "os".into(),
                    imported: None,
                    local: Some("o".into()),
                    scope: 2,
                    type_only: false,
                    alternative: true,
                    line: 3,
                    col: 4,
                },
            ],
            exports: vec![ExportRow { file: 2, name: "b".into(), target: Some("c".into()), specifier: None, line: 5, col: 6 }],
            refs: Vec::new(),
            configs: Vec::new(),
        }
    }

    /// What the loader would give for the same rows: its order, no external nodes.
    fn in_loader_order(mut i: ResolveInput) -> String {
        i.symbols.retain(|s| s.file.is_some());
        i.symbols.sort_by_key(|s| s.id);
        i.imports.sort_by_key(|r| r.file);
        i.exports.sort_by_key(|e| e.file);
        format!("{:?} {:?} {:?} {:?}", i.files, i.symbols, i.imports, i.exports)
    }

    #[test]
    fn reads_back_every_field_in_the_loaders_order() {
        let bytes = written(&input());
        let back = decode(&bytes, &stamp()).expect("decodes");
        assert_eq!(back.tail.records, 0);
        assert_eq!(in_loader_order(back.input), in_loader_order(input()));
    }

    fn replace_files(rows: &ResolveInput, gone: &[i64], written: &ResolveInput) -> ResolveInput {
        let mut out = ResolveInput {
            files: rows.files.clone(),
            symbols: rows.symbols.clone(),
            imports: rows.imports.clone(),
            exports: rows.exports.clone(),
            ..ResolveInput::default()
        };
        out.remove_files(gone.iter().copied());
        out.files.extend(written.files.iter().cloned());
        out.symbols.extend(written.symbols.iter().cloned());
        out.imports.extend(written.imports.iter().cloned());
        out.exports.extend(written.exports.iter().cloned());
        out.files.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    fn at(generation: i64) -> Stamp {
        Stamp { generation, scan_started_ns: generation * 10, ..stamp() }
    }

    #[test]
    fn the_log_brings_the_base_to_each_later_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.names");
        let base = input();
        let t7 = write(&path, &stamp(), &encode(&base)).unwrap();
        // Commit 8 rewrites file 2 (one new symbol, its import and export gone) and adds
        // file 3; commit 9 deletes file 1.
        let written = ResolveInput {
            files: vec![
                FileRow { id: 2, path: "src/é.ts".into(), lang: Lang::TypeScript, module: "src/é".into() },
                FileRow { id: 3, path: "a.py".into(), lang: Lang::Python, module: "a".into() },
            ],
            symbols: vec![symbol(11, "a.f", 3), symbol(6, "src/é#z", 2)],
            ..ResolveInput::default()
        };
        let after8 = replace_files(&base, &[2, 3], &written);
        let t8 = append(&path, &t7, &at(8), &[2, 3], &encode(&written)).expect("appended");
        let after9 = replace_files(&after8, &[1], &ResolveInput::default());
        let t9 = append(&path, &t8, &at(9), &[1], &encode(&ResolveInput::default())).expect("appended");
        for (stamp, rows, records) in [(at(8), &after8, 1), (at(9), &after9, 2)] {
            let loaded = read(&path, &stamp).expect("the chain reaches the commit");
            assert_eq!(loaded.tail.records, records);
            assert_eq!(in_loader_order(loaded.input), in_loader_order(replace_files(rows, &[], &ResolveInput::default())));
        }
        assert_eq!(read(&path, &at(9)).unwrap().tail, t9);
        // The base's own commit is read without the records after it.
        assert_eq!(in_loader_order(read(&path, &stamp()).unwrap().input), in_loader_order(input()));
        // A writer whose tail is not the file's end does not append.
        assert!(append(&path, &t8, &at(10), &[], &encode(&ResolveInput::default())).is_none());
        // A record from another commit is passed over; the chain goes on after it.
        let elsewhere =
            append(&path, &Tail { stamp: at(3), ..t9.clone() }, &at(4), &[1, 2, 3], &encode(&ResolveInput::default())).expect("appended");
        let t10 =
            append(&path, &Tail { end: elsewhere.end, ..t9.clone() }, &at(10), &[], &encode(&ResolveInput::default())).expect("appended");
        assert_eq!(
            in_loader_order(read(&path, &at(10)).unwrap().input),
            in_loader_order(replace_files(&after9, &[], &ResolveInput::default()))
        );
        // A torn record ends the log: what follows it is not read.
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, t10.end);
        let torn = bytes.len();
        bytes.extend_from_slice(&[40, 1, 2, 3]);
        std::fs::write(&path, &bytes).unwrap();
        assert!(read(&path, &at(10)).is_some(), "a torn tail after the commit's record is harmless");
        let t11 = Tail { end: bytes.len() as u64, ..t10.clone() };
        append(&path, &t11, &at(11), &[], &encode(&ResolveInput::default())).expect("appended");
        assert!(read(&path, &at(11)).is_none(), "a record after a torn one is not read");
        // A record whose checksum does not match is torn too.
        bytes.truncate(torn);
        std::fs::write(&path, &bytes).unwrap();
        append(&path, &t10, &at(11), &[], &encode(&ResolveInput::default())).expect("appended");
        assert!(read(&path, &at(11)).is_some());
        let mut flipped = std::fs::read(&path).unwrap();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert!(read(&path, &at(11)).is_none());
    }

    #[test]
    fn a_full_log_is_folded_into_a_new_base() {
        let tail = Tail { stamp: stamp(), end: 1000, base_len: 4000, log_len: 0, records: 0 };
        assert!(has_room(&tail, 900));
        assert!(!has_room(&tail, 1000), "a log over a quarter of the base");
        assert!(!has_room(&Tail { records: MAX_RECORDS, ..tail }, 0));
    }

    fn written(input: &ResolveInput) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.names");
        write(&path, &stamp(), &encode(input)).unwrap();
        std::fs::read(&path).unwrap()
    }

    #[test]
    fn a_snapshot_of_another_commit_or_damaged_is_not_read() {
        let bytes = written(&input());
        for other in [Stamp { generation: 8, ..stamp() }, Stamp { scan_started_ns: 1, ..stamp() }, Stamp { build: None, ..stamp() }] {
            assert!(decode(&bytes, &other).is_none(), "{other:?}");
        }
        for cut in [0, 5, MAGIC.len() + 3, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], &stamp()).is_none(), "cut at {cut}");
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(read(&dir.path().join("missing.names"), &stamp()).is_none());
        let path = dir.path().join("index.names");
        std::fs::write(&path, &bytes).unwrap();
        assert!(read(&path, &stamp()).is_some());
    }
}
