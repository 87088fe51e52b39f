//! `ckg export --format scip`: the graph as a SCIP index (the protobuf format of
//! Sourcegraph's code-intelligence tools), so that a SCIP consumer can navigate a repository
//! with ckg's definitions and references and link them with indexes made by
//! `scip-typescript` and `scip-python`.
//!
//! One document per indexed file. Each symbol ckg defines gets a definition occurrence over
//! its name (with the enclosing range of its lines for functions, classes and other bodies)
//! and a `SymbolInformation` (kind, display name, the doc comment or docstring, a one-line
//! signature, relationships). Each resolved use in the file (edges `calls`, `instantiates`,
//! `references`, `writes`, `exports`, `inherits`, `implements`, and `imports` at the import
//! specifiers) gets one reference occurrence at its site; a site with several edges (a Python
//! `Point(1, 2)` both instantiates `Point` and calls `Point.__init__`) gives the one written
//! there. Packages, their members and builtins are external symbols.
//!
//! The key decision: symbol strings are written the way the compilers' indexers write them
//! (`scip-typescript npm <name> <version> src/`app.ts`/createApp().`, `scip-python python
//! <name> <version> `pkg.mod`/Class#method().`), with the package name and version read from
//! `package.json` (stored in the index) or `pyproject.toml` / `setup.cfg` at the root, so a
//! consumer that has both indexes sees one symbol. External symbols cannot match those tools
//! exactly (they name declaration files ckg never reads); they follow the same grammar.
//!
//! Positions come from the index (1-based lines, UTF-8 byte columns) and are written 0-based
//! with `UTF8CodeUnitOffsetFromLineStart`. The source files are read one at a time, and only
//! when their content still hashes to what was indexed, for what the index does not keep:
//! the length of a name at a use site, the end of a body's last line, import specifiers,
//! doc comments and docstrings. A file changed since the last `ckg index` is exported from
//! the index alone (names' ranges from their lengths, no documentation).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use protobuf::Message;
use rusqlite::Connection;
use scip::types::symbol_information::Kind;
use scip::types::{
    Document, Index, Metadata, Occurrence, PositionEncoding, Relationship, Signature, SymbolInformation, SymbolRole, TextEncoding, ToolInfo,
};

use crate::error::{Error, Result};

mod names;
mod source;

use names::{Namer, Packages, file_uri, language};
use source::{DefShape, Source, chain_at, def_shape, ident_at, is_ident, range, read_source};

/// What goes into the SCIP export.
#[derive(Clone, Debug, Default)]
pub struct ScipConfig {
    /// Also export references whose only evidence is heuristic (a name matched across the
    /// repository); by default only `exact` and `inferred` edges become occurrences.
    pub heuristic: bool,
}

/// Python's standard library, top-level modules (`sys.stdlib_module_names` of 3.11, without
/// the private ones): their symbols are written in the `python-stdlib` package, as
/// scip-python does.
const PYTHON_STDLIB: &str = include_str!("../python_stdlib.txt");

/// The version scip-python writes for `python-stdlib` and `builtins` when it runs without an
/// environment: ckg does not know which Python a repository targets.
const PYTHON_STDLIB_VERSION: &str = "3.11";

/// Python's builtins that are classes although their names are lowercase (`int#`, not
/// `int().`, in scip-python's symbols).
const PYTHON_BUILTIN_CLASSES: &[&str] = &[
    "bool",
    "bytearray",
    "bytes",
    "classmethod",
    "complex",
    "dict",
    "enumerate",
    "filter",
    "float",
    "frozenset",
    "int",
    "list",
    "map",
    "memoryview",
    "object",
    "property",
    "range",
    "reversed",
    "set",
    "slice",
    "staticmethod",
    "str",
    "super",
    "tuple",
    "type",
    "zip",
];

/// Node's core modules, written in the `@types/node` package as scip-typescript does.
const NODE_CORE: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// The edge kinds that become reference occurrences, in the order a site with several
/// edges prefers them (what is written at `Point(1, 2)` is the class, not `__init__`).
const REFERENCE_KINDS: [&str; 8] = ["instantiates", "calls", "inherits", "implements", "references", "writes", "exports", "imports"];

struct FileRow {
    id: i64,
    path: String,
    lang: String,
    module: String,
    hash: String,
}

struct SymRow {
    id: i64,
    qname: String,
    name: String,
    kind: String,
    file: Option<i64>,
    parent: Option<i64>,
    line: u32,
    col: u32,
    end_line: u32,
    decorated: bool,
}

struct EdgeRow {
    kind: usize,
    src: i64,
    dst: i64,
    file: i64,
    line: u32,
    col: u32,
}

struct ImportRow {
    kind: String,
    specifier: String,
    imported: Option<String>,
}

/// Everything read from the index, with lookups by id.
struct Graph {
    root: String,
    files: Vec<FileRow>,
    syms: Vec<SymRow>,
    by_id: HashMap<i64, usize>,
    edges: Vec<EdgeRow>,
    /// Import statements by their name's site (file, line, col).
    imports: HashMap<(i64, u32, u32), Vec<ImportRow>>,
    /// Every import specifier written in a file of each language family (`ts`, `py`).
    specifiers: HashMap<&'static str, HashSet<String>>,
    /// `package.json` files by their folder ("" for the root).
    package_jsons: BTreeMap<String, serde_json::Value>,
    /// TS/JS classes' own constructors, by class id.
    constructors: HashMap<i64, usize>,
}

fn family(lang: &str) -> &'static str {
    if lang == "python" { "py" } else { "ts" }
}

fn load(conn: &Connection, db: &Path, config: &ScipConfig) -> Result<Graph> {
    let sql = |e| Error::sqlite(db, e);
    let stored: String = conn.query_row("SELECT value FROM meta WHERE key = 'root'", [], |r| r.get(0)).map_err(sql)?;
    let root = crate::store::indexed_root(db, Some(stored)).unwrap_or_default();
    let mut s = conn.prepare("SELECT id, path, lang, module, hash FROM files ORDER BY path").map_err(sql)?;
    let files: Vec<FileRow> = s
        .query_map([], |r| Ok(FileRow { id: r.get(0)?, path: r.get(1)?, lang: r.get(2)?, module: r.get(3)?, hash: r.get(4)? }))
        .map_err(sql)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql)?;
    let mut s = conn
        .prepare("SELECT id, qname, name, kind, file_id, parent_id, line, col, end_line, decorators IS NOT NULL FROM symbols ORDER BY id")
        .map_err(sql)?;
    let syms: Vec<SymRow> = s
        .query_map([], |r| {
            Ok(SymRow {
                id: r.get(0)?,
                qname: r.get(1)?,
                name: r.get(2)?,
                kind: r.get(3)?,
                file: r.get(4)?,
                parent: r.get(5)?,
                line: r.get(6)?,
                col: r.get(7)?,
                end_line: r.get(8)?,
                decorated: r.get(9)?,
            })
        })
        .map_err(sql)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql)?;
    let by_id = syms.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
    let constructors = syms
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == "method" && s.name == "constructor")
        .filter_map(|(i, s)| Some((s.parent?, i)))
        .collect();
    let evidence = if config.heuristic { "('exact', 'inferred', 'heuristic')" } else { "('exact', 'inferred')" };
    // A computed callee (`dynamic = 2`, `obj[name]()`) has no name written at its site.
    let mut s = conn
        .prepare(&format!(
            "SELECT kind, src_id, dst_id, file_id, line, col FROM edges
             WHERE dst_id IS NOT NULL AND evidence IN {evidence} AND dynamic != 2 ORDER BY id"
        ))
        .map_err(sql)?;
    let mut edges = Vec::new();
    let mut rows = s.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let kind: String = r.get(0).map_err(sql)?;
        let Some(kind) = REFERENCE_KINDS.iter().position(|k| *k == kind) else { continue };
        edges.push(EdgeRow {
            kind,
            src: r.get(1).map_err(sql)?,
            dst: r.get(2).map_err(sql)?,
            file: r.get(3).map_err(sql)?,
            line: r.get(4).map_err(sql)?,
            col: r.get(5).map_err(sql)?,
        });
    }
    let mut s = conn
        .prepare("SELECT i.file_id, i.kind, i.specifier, i.imported, i.line, i.col, f.lang FROM imports i JOIN files f ON f.id = i.file_id")
        .map_err(sql)?;
    let mut imports: HashMap<(i64, u32, u32), Vec<ImportRow>> = HashMap::new();
    let mut specifiers: HashMap<&'static str, HashSet<String>> = HashMap::new();
    let mut rows = s.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let row = ImportRow { kind: r.get(1).map_err(sql)?, specifier: r.get(2).map_err(sql)?, imported: r.get(3).map_err(sql)? };
        let lang: String = r.get(6).map_err(sql)?;
        specifiers.entry(family(&lang)).or_default().insert(row.specifier.clone());
        let key = (r.get(0).map_err(sql)?, r.get(4).map_err(sql)?, r.get(5).map_err(sql)?);
        imports.entry(key).or_default().push(row);
    }
    let mut s = conn.prepare("SELECT path, content FROM configs WHERE path = 'package.json' OR path LIKE '%/package.json'").map_err(sql)?;
    let mut package_jsons = BTreeMap::new();
    let mut rows = s.query([]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let (path, content): (String, String) = (r.get(0).map_err(sql)?, r.get(1).map_err(sql)?);
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&content) {
            let dir = path.strip_suffix("package.json").unwrap_or("").trim_end_matches('/').to_string();
            package_jsons.insert(dir, v);
        }
    }
    Ok(Graph { root, files, syms, by_id, edges, imports, specifiers, package_jsons, constructors })
}

/// Writes the SCIP index of an index (one protobuf message).
pub fn export_scip(conn: &Connection, db: &Path, config: &ScipConfig, out: &mut dyn Write) -> Result<()> {
    let index = build(conn, db, config)?;
    let bytes = index.write_to_bytes().map_err(|e| Error::Invalid(format!("encoding the SCIP index: {e}")))?;
    out.write_all(&bytes).map_err(|e| Error::Io { path: "<output>".into(), source: e })
}

/// Builds the SCIP index of an index.
pub fn build(conn: &Connection, db: &Path, config: &ScipConfig) -> Result<Index> {
    let g = load(conn, db, config)?;
    let packages = Packages::read(&g);
    let mut defs_of_file: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, s) in g.syms.iter().enumerate() {
        if let Some(f) = s.file {
            defs_of_file.entry(f).or_default().push(i);
        }
    }
    let mut edges_by_file: HashMap<i64, Vec<&EdgeRow>> = HashMap::new();
    for e in &g.edges {
        edges_by_file.entry(e.file).or_default().push(e);
    }

    // Pass 1, one file at a time: what only the source says about the file's definitions,
    // and where its references are written.
    let mut shapes: HashMap<usize, DefShape> = HashMap::new();
    let mut placed: Vec<Vec<Placed>> = Vec::with_capacity(g.files.len());
    for f in &g.files {
        let text = read_source(&g.root, f);
        let src = Source::new(text.as_deref(), f.lang == "python");
        for &i in defs_of_file.get(&f.id).map(Vec::as_slice).unwrap_or(&[]) {
            shapes.insert(i, def_shape(&src, &g.syms[i]));
        }
        placed.push(place_references(&g, &src, f, edges_by_file.get(&f.id).map(Vec::as_slice).unwrap_or(&[])));
    }

    // Pass 2: symbol strings, relationships, documents.
    let mut usage: HashMap<usize, usize> = HashMap::new();
    let mut bases: HashMap<usize, Vec<usize>> = HashMap::new();
    for e in &g.edges {
        let (Some(&s), Some(&d)) = (g.by_id.get(&e.src), g.by_id.get(&e.dst)) else { continue };
        let k = usage.entry(d).or_insert(usize::MAX);
        *k = (*k).min(e.kind);
        if matches!(REFERENCE_KINDS[e.kind], "inherits" | "implements") && s != d {
            let list = bases.entry(s).or_default();
            if !list.contains(&d) {
                list.push(d);
            }
        }
    }
    let mut children: HashMap<(i64, &str), usize> = HashMap::new();
    for (i, s) in g.syms.iter().enumerate() {
        if let Some(p) = s.parent {
            children.entry((p, s.name.as_str())).or_insert(i);
        }
    }
    let mut modules: HashMap<i64, usize> = HashMap::new();
    for (i, s) in g.syms.iter().enumerate() {
        if let (Some(f), "module") = (s.file, s.kind.as_str()) {
            modules.entry(f).or_insert(i);
        }
    }
    let files_by_id: HashMap<i64, &FileRow> = g.files.iter().map(|f| (f.id, f)).collect();
    let mut names = Namer {
        g: &g,
        packages: &packages,
        shapes: &shapes,
        usage,
        files: files_by_id,
        modules,
        memo: HashMap::new(),
        externals: BTreeMap::new(),
    };
    let rel = Relations { bases, children };

    let mut documents = Vec::with_capacity(g.files.len());
    for (fi, f) in g.files.iter().enumerate() {
        let python = f.lang == "python";
        let fam = family(&f.lang);
        let mut doc = Document::new();
        doc.relative_path = f.path.clone();
        doc.language = language(&f.lang, &f.path).to_string();
        doc.position_encoding = PositionEncoding::UTF8CodeUnitOffsetFromLineStart.into();
        let mut locals: HashMap<usize, String> = HashMap::new();
        let mut infos: BTreeMap<String, SymbolInformation> = BTreeMap::new();
        for &i in defs_of_file.get(&f.id).map(Vec::as_slice).unwrap_or(&[]) {
            let s = &g.syms[i];
            let shape = &shapes[&i];
            let symbol = if names.is_local(i) {
                let n = format!("local {}", locals.len());
                locals.insert(i, n.clone());
                n
            } else {
                names.symbol(i, fam)
            };
            let mut occ = Occurrence::new();
            occ.range = shape.name_range.clone();
            occ.enclosing_range = shape.enclosing.clone().unwrap_or_default();
            occ.symbol = symbol.clone();
            occ.symbol_roles = SymbolRole::Definition as i32;
            doc.occurrences.push(occ);
            let info = infos.entry(symbol.clone()).or_default();
            info.symbol = symbol;
            info.display_name = s.name.clone();
            info.kind = symbol_kind(&g, i, shape).into();
            if let Some(d) = &shape.doc
                && !info.documentation.contains(d)
            {
                info.documentation.push(d.clone());
            }
            if let Some(text) = &shape.signature {
                let mut sig = Signature::new();
                sig.language = if python { "python" } else { "typescript" }.to_string();
                sig.text = text.clone();
                info.signature_documentation = Some(sig).into();
            }
            for r in rel.of(&mut names, i, fam) {
                if !info.relationships.iter().any(|x| x.symbol == r.symbol) {
                    info.relationships.push(r);
                }
            }
        }
        // A definition's name is not also a reference to what it defines; it may use another
        // symbol there (a method of a typed object literal, the member it implements).
        let defined_at: HashSet<(i32, i32, String)> = doc.occurrences.iter().map(|o| (o.range[0], o.range[1], o.symbol.clone())).collect();
        let def_starts: HashSet<(i32, i32)> = defined_at.iter().map(|(l, c, _)| (*l, *c)).collect();
        for p in &placed[fi] {
            let at_definition = def_starts.contains(&(p.range[0], p.range[1]));
            let symbol = match &p.target {
                Target::Sym(d) => match locals.get(d) {
                    Some(l) => l.clone(),
                    // A local of another file cannot be named from here.
                    None if names.is_local(*d) => continue,
                    None => names.symbol(*d, fam),
                },
                Target::External(qname) => names.external(qname, fam, None),
            };
            if at_definition && defined_at.contains(&(p.range[0], p.range[1], symbol.clone())) {
                continue;
            }
            let mut occ = Occurrence::new();
            occ.range = p.range.clone();
            occ.symbol = symbol;
            occ.symbol_roles = p.roles;
            doc.occurrences.push(occ);
        }
        doc.occurrences.sort_by(|a, b| (&a.range, -a.symbol_roles, &a.symbol).cmp(&(&b.range, -b.symbol_roles, &b.symbol)));
        doc.symbols = infos.into_values().collect();
        documents.push(doc);
    }

    let mut index = Index::new();
    let mut meta = Metadata::new();
    let mut tool = ToolInfo::new();
    tool.name = "ckg".to_string();
    tool.version = env!("CARGO_PKG_VERSION").to_string();
    meta.tool_info = Some(tool).into();
    meta.project_root = file_uri(&g.root);
    meta.text_document_encoding = TextEncoding::UTF8.into();
    index.metadata = Some(meta).into();
    index.documents = documents;
    index.external_symbols = std::mem::take(&mut names.externals).into_values().collect();
    Ok(index)
}

/// Where a reference goes: a symbol of the graph, or an external member that an import
/// names but the graph does not have as a node (`import { Request } from 'express'`).
enum Target {
    Sym(usize),
    External(String),
}

struct Placed {
    range: Vec<i32>,
    target: Target,
    roles: i32,
    /// Lower wins when several edges land on one range: the name written there first, then
    /// the edge kinds in `REFERENCE_KINDS` order, then a symbol before a module.
    rank: (bool, usize, u8),
}

/// The reference occurrences of one file, one per range.
fn place_references(g: &Graph, src: &Source, f: &FileRow, edges: &[&EdgeRow]) -> Vec<Placed> {
    let imports_kind = REFERENCE_KINDS.iter().position(|k| *k == "imports").unwrap_or(usize::MAX);
    let writes_kind = REFERENCE_KINDS.iter().position(|k| *k == "writes").unwrap_or(usize::MAX);
    let mut out: Vec<Placed> = Vec::new();
    for e in edges {
        let (Some(&s), Some(&d)) = (g.by_id.get(&e.src), g.by_id.get(&e.dst)) else { continue };
        // An edge whose source is in another file is a flow through this site (a callback
        // passed here and called there), not a name written here.
        if g.syms[s].file != Some(f.id) {
            continue;
        }
        let dst = &g.syms[d];
        let (l, c) = (e.line.saturating_sub(1) as usize, e.col.saturating_sub(1) as usize);
        let name = last_name(&dst.qname, &dst.name);
        let line = src.line(l);
        if e.kind == imports_kind {
            let rows = g.imports.get(&(f.id, e.line, e.col)).map(Vec::as_slice).unwrap_or(&[]);
            let module_row = rows.iter().find(|r| dst.kind == "module" || (dst.file.is_none() && r.specifier == dst.qname));
            if let Some(row) = module_row {
                // The module is written at the specifier (`'./lib'`, `from pkg.mod`).
                if let Some(r) = specifier_range(src, l, c, &row.specifier) {
                    out.push(Placed { range: r, target: Target::Sym(d), roles: SymbolRole::Import as i32, rank: (false, e.kind, 1) });
                }
                // A namespace import binds the module itself to its name, and so does a
                // default import of a package (ckg has no node for its default export).
                let binds_module = row.kind == "namespace" || (row.kind == "default" && dst.file.is_none());
                let site = match (binds_module, line) {
                    (true, Some(t)) => {
                        let chain = chain_at(t, c);
                        let end = if src.python { chain.last().map(|x| x.1) } else { chain.first().map(|x| x.1) };
                        end.map(|end| range(l, c, end))
                    }
                    _ => None,
                };
                if let Some(r) = site {
                    out.push(Placed { range: r, target: Target::Sym(d), roles: SymbolRole::Import as i32, rank: (false, e.kind, 1) });
                } else if let (Some(imported), None, "named") = (&row.imported, dst.file, row.kind.as_str()) {
                    // `import { Request } from 'express'`: the member of the package.
                    let len = line.map(|t| ident_at(t, c).len()).filter(|&n| n > 0).unwrap_or(imported.len());
                    out.push(Placed {
                        range: range(l, c, c + len),
                        target: Target::External(format!("{}.{imported}", row.specifier)),
                        roles: SymbolRole::Import as i32,
                        rank: (false, e.kind, 2),
                    });
                }
                continue;
            }
        }
        let (r, written) = use_range(line, l, c, name);
        // scip-typescript's `new Point()` refers to the constructor when the class has one.
        let d = match g.constructors.get(&dst.id) {
            Some(&ctor) if !src.python && REFERENCE_KINDS[e.kind] == "instantiates" => ctor,
            _ => d,
        };
        let roles = if e.kind == writes_kind {
            SymbolRole::WriteAccess as i32
        } else if e.kind == imports_kind {
            SymbolRole::Import as i32
        } else {
            0
        };
        out.push(Placed { range: r, target: Target::Sym(d), roles, rank: (!written, e.kind, 0) });
    }
    out.sort_by(|a, b| (&a.range[..2], a.rank).cmp(&(&b.range[..2], b.rank)));
    out.dedup_by(|b, a| a.range[..2] == b.range[..2]);
    out
}

/// The last name of a qname (`express().use` -> `use`), for matching what is written.
fn last_name<'a>(qname: &'a str, name: &'a str) -> &'a str {
    if !name.is_empty() && !name.contains(['.', '(']) {
        return name;
    }
    qname.rsplit(['.', '#']).map(|p| p.trim_end_matches("()")).find(|p| !p.is_empty()).unwrap_or(qname)
}

/// The range of a use of `name` at byte `c`: the identifier there, or the segment of the
/// member chain that starts there which is `name` (`express.Express` for the type
/// `Express`); with whether `name` is what is written.
fn use_range(line: Option<&str>, l: usize, c: usize, name: &str) -> (Vec<i32>, bool) {
    let Some(t) = line else { return (range(l, c, c + name.len()), true) };
    let chain = chain_at(t, c);
    if let Some(&(a, b)) = chain.iter().find(|&&(a, b)| &t[a..b] == name) {
        return (range(l, a, b), true);
    }
    // A site at the end of a chain whose prefix is the target (`config.params.dir` read as
    // `Config.params`).
    let mut end = c;
    while let Some(head) = t.get(..end).and_then(|h| h.strip_suffix('.')) {
        let start = head.trim_end_matches(is_ident).len();
        let (start, stop) = (start, head.len());
        if start == stop {
            break;
        }
        if &t[start..stop] == name {
            return (range(l, start, stop), true);
        }
        end = start;
    }
    match chain.first() {
        Some(&(a, b)) => (range(l, a, b), false),
        None => (range(l, c, c + name.len()), false),
    }
}

/// Where the specifier of the import whose name is at `(l, c)` is written: TS/JS the quoted
/// string on that line or one below (`from './lib'`, quotes included as scip-typescript
/// ranges them); Python the dotted name after `from` or `import` on that line or one above.
fn specifier_range(src: &Source, l: usize, c: usize, spec: &str) -> Option<Vec<i32>> {
    if spec.is_empty() {
        return None;
    }
    if !src.python {
        for k in l..(l + 40).min(src.lines.len()) {
            let t = src.lines[k];
            for q in ['\'', '"'] {
                let quoted = format!("{q}{spec}{q}");
                if let Some(p) = t.find(&quoted) {
                    return Some(range(k, p, p + quoted.len()));
                }
            }
        }
        return None;
    }
    let boundary = |ch: Option<char>| ch.is_none_or(|ch| !is_ident(ch) && ch != '.');
    for k in (l.saturating_sub(40)..=l).rev() {
        let t = src.lines.get(k)?;
        let head = t.trim_start();
        if !head.starts_with("from ") && !head.starts_with("import ") {
            if k == l {
                continue;
            }
            // A line of a parenthesized `from x import (...)` list.
            continue;
        }
        let mut best = None;
        for (p, _) in t.match_indices(spec) {
            if k == l && p > c {
                break;
            }
            let before = t[..p].chars().next_back();
            let after = t[p + spec.len()..].chars().next();
            if boundary(before) && boundary(after) {
                best = Some(p);
            }
        }
        if let Some(p) = best {
            return Some(range(k, p, p + spec.len()));
        }
        if k != l {
            return None;
        }
    }
    None
}

/// Classes' direct bases, and members by (parent id, name), for relationships.
struct Relations<'a> {
    bases: HashMap<usize, Vec<usize>>,
    children: HashMap<(i64, &'a str), usize>,
}

impl Relations<'_> {
    /// The bases of a class, nearest first, each once.
    fn ancestors(&self, class: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut queue = std::collections::VecDeque::from([class]);
        while let Some(c) = queue.pop_front() {
            for &b in self.bases.get(&c).map(Vec::as_slice).unwrap_or(&[]) {
                if b != class && !out.contains(&b) && out.len() < 200 {
                    out.push(b);
                    queue.push_back(b);
                }
            }
        }
        out
    }

    /// `is_implementation` to every base of a class (transitively, as both indexers do), and
    /// from a method to the methods of the same name in its class's bases (overrides;
    /// scip-typescript marks them as references too).
    fn of(&self, names: &mut Namer, i: usize, fam: &'static str) -> Vec<Relationship> {
        let g = names.g;
        let s = &g.syms[i];
        let mut out = Vec::new();
        let mut push = |names: &mut Namer, target: usize, reference: bool| {
            if names.is_local(target) {
                return;
            }
            let mut r = Relationship::new();
            r.symbol = names.symbol(target, fam);
            r.is_implementation = true;
            r.is_reference = reference;
            out.push(r);
        };
        match s.kind.as_str() {
            "class" | "interface" => {
                for a in self.ancestors(i) {
                    push(names, a, false);
                }
            }
            "method" if !(fam == "ts" && s.name == "constructor") => {
                let Some(&class) = s.parent.and_then(|p| g.by_id.get(&p)) else { return out };
                for a in self.ancestors(class) {
                    if let Some(&m) = self.children.get(&(g.syms[a].id, s.name.as_str()))
                        && g.syms[m].kind == "method"
                    {
                        push(names, m, fam == "ts");
                    }
                }
            }
            _ => {}
        }
        out
    }
}

fn symbol_kind(g: &Graph, i: usize, shape: &DefShape) -> Kind {
    let s = &g.syms[i];
    let parent_kind = s.parent.and_then(|p| g.by_id.get(&p)).map(|&p| g.syms[p].kind.as_str());
    match s.kind.as_str() {
        "module" => Kind::Module,
        "namespace" => Kind::Namespace,
        "class" => Kind::Class,
        "interface" => Kind::Interface,
        "type" => Kind::TypeAlias,
        "enum" => Kind::Enum,
        "function" | "lambda" => Kind::Function,
        "method" => match (shape.accessor, s.name.as_str()) {
            (Some("get"), _) => Kind::Getter,
            (Some(_), _) => Kind::Setter,
            (None, "constructor") if !g.files_python(s.file) => Kind::Constructor,
            _ => Kind::Method,
        },
        "property" => Kind::Property,
        "attribute" => Kind::Field,
        "constant" if parent_kind == Some("enum") => Kind::EnumMember,
        "constant" => Kind::Constant,
        "variable" => Kind::Variable,
        _ => Kind::UnspecifiedKind,
    }
}

impl Graph {
    fn files_python(&self, file: Option<i64>) -> bool {
        file.and_then(|f| self.files.iter().find(|x| x.id == f)).is_some_and(|f| f.lang == "python")
    }
}
