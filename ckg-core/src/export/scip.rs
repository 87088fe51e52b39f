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
use scip::types::descriptor::Suffix;
use scip::types::symbol_information::Kind;
use scip::types::{
    Descriptor, Document, Index, Metadata, Occurrence, Package, PositionEncoding, Relationship, Signature, Symbol, SymbolInformation,
    SymbolRole, TextEncoding, ToolInfo,
};

use crate::error::{Error, Result};

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
const PYTHON_STDLIB: &str = include_str!("python_stdlib.txt");

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
    let root: String = conn.query_row("SELECT value FROM meta WHERE key = 'root'", [], |r| r.get(0)).map_err(sql)?;
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
        let def_starts: HashSet<(i32, i32)> = doc.occurrences.iter().map(|o| (o.range[0], o.range[1])).collect();
        for p in &placed[fi] {
            if def_starts.contains(&(p.range[0], p.range[1])) {
                continue;
            }
            let symbol = match &p.target {
                Target::Sym(d) => match locals.get(d) {
                    Some(l) => l.clone(),
                    // A local of another file cannot be named from here.
                    None if names.is_local(*d) => continue,
                    None => names.symbol(*d, fam),
                },
                Target::External(qname) => names.external(qname, fam, None),
            };
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

/// The source of a file when it still is what was indexed (its xxh3 matches), split in
/// lines; empty otherwise, and everything read from it falls back to the index alone.
fn read_source(root: &str, f: &FileRow) -> Option<String> {
    let bytes = std::fs::read(Path::new(root).join(&f.path)).ok()?;
    if format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)) != f.hash {
        return None;
    }
    String::from_utf8(bytes).ok()
}

struct Source<'t> {
    lines: Vec<&'t str>,
    python: bool,
}

impl<'t> Source<'t> {
    fn new(text: Option<&'t str>, python: bool) -> Source<'t> {
        let lines = text.map(|t| t.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()).unwrap_or_default();
        Source { lines, python }
    }

    fn line(&self, l: usize) -> Option<&'t str> {
        self.lines.get(l).copied()
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The identifier that starts at byte `c` of `t` (empty when none does).
fn ident_at(t: &str, c: usize) -> &str {
    let Some(rest) = t.get(c..) else { return "" };
    let end = rest.find(|ch: char| !is_ident(ch)).unwrap_or(rest.len());
    &rest[..end]
}

/// The identifiers of the member chain that starts at byte `c` (`a.b?.c`), as byte ranges.
fn chain_at(t: &str, mut c: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    loop {
        let id = ident_at(t, c);
        if id.is_empty() {
            break;
        }
        out.push((c, c + id.len()));
        c += id.len();
        let rest = &t[c..];
        if let Some(r) = rest.strip_prefix("?.").or_else(|| rest.strip_prefix('.')) {
            c += rest.len() - r.len();
        } else {
            break;
        }
    }
    out
}

fn range(l: usize, start: usize, end: usize) -> Vec<i32> {
    vec![l as i32, start as i32, end as i32]
}

/// What the source says about one definition.
#[derive(Default)]
struct DefShape {
    name_range: Vec<i32>,
    enclosing: Option<Vec<i32>>,
    doc: Option<String>,
    signature: Option<String>,
    /// TS/JS: declared with the `function` keyword (a method descriptor in scip-typescript),
    /// not as a variable holding a function (a term).
    function_keyword: bool,
    /// TS/JS: `get` or `set` accessor.
    accessor: Option<&'static str>,
}

/// Kinds whose definitions span a body (they get an enclosing range and a signature).
fn has_body(kind: &str) -> bool {
    matches!(kind, "function" | "method" | "class" | "interface" | "enum" | "type" | "namespace" | "lambda")
}

fn def_shape(src: &Source, s: &SymRow) -> DefShape {
    let mut shape = DefShape::default();
    if s.kind == "module" {
        shape.name_range = range(0, 0, 0);
        if let Some(last) = src.lines.last() {
            let end = src.lines.len() - 1;
            shape.enclosing = Some(if end == 0 { range(0, 0, last.len()) } else { vec![0, 0, end as i32, last.len() as i32] });
        }
        if src.python {
            shape.doc = module_docstring(src);
        }
        return shape;
    }
    let (l, c) = (s.line.saturating_sub(1) as usize, s.col.saturating_sub(1) as usize);
    let Some(t) = src.line(l) else {
        shape.name_range = range(l, c, c + s.name.len());
        // Without the source, a TS/JS function is taken as declared with `function` (the
        // common case), so that its symbol does not depend on whether the file changed.
        shape.function_keyword = !src.python && s.kind == "function";
        return shape;
    };
    let len = if t.get(c..).is_some_and(|r| r.starts_with(&s.name)) {
        s.name.len()
    } else {
        match ident_at(t, c).len() {
            0 => s.name.len(),
            n => n,
        }
    };
    shape.name_range = range(l, c, c + len);
    if !src.python {
        let before = t.get(..c).unwrap_or("").trim_end();
        shape.function_keyword = before.ends_with("function") || before.ends_with("function*");
        for acc in ["get", "set"] {
            if let Some(b) = before.strip_suffix(acc)
                && (b.is_empty() || b.ends_with(|ch: char| !is_ident(ch)))
            {
                shape.accessor = Some(acc);
            }
        }
    }
    // Where the declaration starts: its line, or the first of the decorators above it.
    let mut start = l;
    if s.decorated {
        while start > 0 && src.line(start - 1).is_some_and(|p| p.trim_start().starts_with('@')) {
            start -= 1;
        }
    }
    let indent = |t: &str| t.len() - t.trim_start().len();
    if has_body(&s.kind) {
        let end = (s.end_line.saturating_sub(1) as usize).max(l);
        if let (Some(first), Some(last)) = (src.line(start), src.line(end)) {
            let (sc, ec) = (indent(first), last.trim_end().len());
            shape.enclosing = Some(if start == end { range(start, sc, ec) } else { vec![start as i32, sc as i32, end as i32, ec as i32] });
        }
    }
    shape.doc = if src.python {
        if matches!(s.kind.as_str(), "class" | "function" | "method") {
            header_end(src, l).and_then(|h| body_docstring(src, h))
        } else {
            None
        }
    } else {
        jsdoc(src, start)
    };
    shape.signature = signature(src, s, l);
    shape
}

/// A one-line (Python: the header's lines) signature as written.
fn signature(src: &Source, s: &SymRow, l: usize) -> Option<String> {
    let first = src.line(l)?;
    let text = if src.python && matches!(s.kind.as_str(), "class" | "function" | "method") {
        let end = header_end(src, l).map(|(h, _)| h).unwrap_or(l);
        let strip = first.len() - first.trim_start().len();
        (l..=end).filter_map(|k| src.line(k)).map(|t| t.get(strip..).unwrap_or(t.trim_start()).trim_end()).collect::<Vec<_>>().join("\n")
    } else {
        let t = first.trim();
        let t = t.strip_suffix('{').unwrap_or(t).trim_end();
        t.strip_suffix(';').unwrap_or(t).to_string()
    };
    let text = match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    };
    (!text.is_empty()).then_some(text)
}

/// Python: the line and byte where the `def`/`class` header starting at line `l` ends (its
/// closing `:`), brackets balanced, strings and comments skipped.
fn header_end(src: &Source, l: usize) -> Option<(usize, usize)> {
    let mut depth = 0i32;
    for k in l..(l + 100).min(src.lines.len()) {
        let t = src.line(k)?;
        let mut quote: Option<char> = None;
        let mut escaped = false;
        for (i, ch) in t.char_indices() {
            if let Some(q) = quote {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == q {
                    quote = None;
                }
                continue;
            }
            match ch {
                '\'' | '"' => quote = Some(ch),
                '#' => break,
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ':' if depth <= 0 => {
                    // Annotations (`x: int`) only occur inside the brackets; the first `:` at
                    // depth 0 ends the header (`->` return types come before it).
                    return Some((k, i + 1));
                }
                _ => {}
            }
        }
    }
    None
}

/// Python: the docstring of the body after the header ending at `(line, byte)`.
fn body_docstring(src: &Source, (h, after): (usize, usize)) -> Option<String> {
    let rest = src.line(h)?.get(after..)?.trim_start();
    if !rest.is_empty() && !rest.starts_with('#') {
        let col = src.line(h)?.len() - rest.len();
        return string_literal(src, h, col);
    }
    let k = (h + 1..src.lines.len()).find(|&k| {
        let t = src.lines[k].trim();
        !t.is_empty() && !t.starts_with('#')
    })?;
    let t = src.lines[k];
    string_literal(src, k, t.len() - t.trim_start().len())
}

fn module_docstring(src: &Source) -> Option<String> {
    let k = (0..src.lines.len()).find(|&k| {
        let t = src.lines[k].trim();
        !t.is_empty() && !t.starts_with('#')
    })?;
    let t = src.lines[k];
    string_literal(src, k, t.len() - t.trim_start().len())
}

/// Python: the string literal at `(line, byte)`, if one starts there, cleaned as
/// `inspect.cleandoc` does.
fn string_literal(src: &Source, l: usize, c: usize) -> Option<String> {
    let t = src.line(l)?.get(c..)?;
    let prefix = t.find(['"', '\'']).filter(|&p| p <= 2 && t[..p].chars().all(|ch| "rRuUbBfF".contains(ch)))?;
    let body = &t[prefix..];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") { &body[..3] } else { &body[..1] };
    let open = &body[quote.len()..];
    let content = if let Some(end) = open.find(quote) {
        open[..end].to_string()
    } else if quote.len() == 3 {
        let mut parts = vec![open.to_string()];
        let mut found = false;
        for k in l + 1..(l + 500).min(src.lines.len()) {
            let line = src.lines[k];
            if let Some(end) = line.find(quote) {
                parts.push(line[..end].to_string());
                found = true;
                break;
            }
            parts.push(line.to_string());
        }
        if !found {
            return None;
        }
        parts.join("\n")
    } else {
        return None;
    };
    let doc = cleandoc(&content);
    (!doc.is_empty()).then_some(doc)
}

fn cleandoc(s: &str) -> String {
    let lines: Vec<&str> = s.split('\n').collect();
    let indent = lines.iter().skip(1).filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    out.push(lines[0].trim().to_string());
    for l in &lines[1..] {
        out.push(l.get(indent..).unwrap_or(l.trim_start()).trim_end().to_string());
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// TS/JS: the `/** ... */` comment that ends on the line above `start`, without its tags
/// (`@param`, `@returns`: scip-typescript leaves them out too).
fn jsdoc(src: &Source, start: usize) -> Option<String> {
    let k = start.checked_sub(1)?;
    if !src.line(k)?.trim_end().ends_with("*/") {
        return None;
    }
    let j = (k.saturating_sub(300)..=k).rev().find(|&j| src.lines[j].contains("/*"))?;
    let open = src.lines[j].find("/**")?;
    if src.lines[j][open..].starts_with("/**/") {
        return None;
    }
    let mut text = String::new();
    for (n, line) in src.lines[j..=k].iter().enumerate() {
        let mut t = *line;
        if n == 0 {
            t = &t[open + 3..];
        }
        if n == k - j {
            t = t.rfind("*/").map(|e| &t[..e]).unwrap_or(t);
        }
        let t = t.trim();
        let t = t.strip_prefix('*').map(|t| t.strip_prefix(' ').unwrap_or(t)).unwrap_or(t);
        if t.starts_with('@') {
            break;
        }
        text.push_str(t.trim_end());
        text.push('\n');
    }
    let doc = text.trim().to_string();
    (!doc.is_empty()).then_some(doc)
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

fn language(lang: &str, path: &str) -> &'static str {
    match lang {
        "python" => "Python",
        "tsx" => "TypeScriptReact",
        "javascript" if path.ends_with(".jsx") => "JavaScriptReact",
        "javascript" => "JavaScript",
        _ => "TypeScript",
    }
}

fn file_uri(root: &str) -> String {
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
struct Packages {
    npm: BTreeMap<String, (String, String)>,
    /// Versions of dependencies, from every `package.json` (the root's first).
    deps: HashMap<String, String>,
    python: (String, String),
}

impl Packages {
    fn read(g: &Graph) -> Packages {
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

    fn npm_of(&self, path: &str) -> (String, String) {
        self.npm
            .iter()
            .rev()
            .find(|(dir, _)| dir.is_empty() || path.starts_with(&format!("{dir}/")))
            .map(|(_, p)| p.clone())
            .unwrap_or_default()
    }
}

/// A name or version as a symbol's package field: spaces doubled (the grammar's escape).
fn package_part(s: &str) -> String {
    s.replace(' ', "  ")
}

/// `^4.19.2` -> `4.19.2`; ranges that name no version (`*`, `workspace:*`) -> none.
fn version_of_range(range: &str) -> Option<String> {
    let v = range.trim().trim_start_matches(['^', '~', '>', '<', '=', 'v', ' ']);
    let v = v.split_whitespace().next()?;
    v.starts_with(|c: char| c.is_ascii_digit()).then(|| v.to_string())
}

fn python_project(root: &Path) -> (String, String) {
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
struct Namer<'a> {
    g: &'a Graph,
    packages: &'a Packages,
    shapes: &'a HashMap<usize, DefShape>,
    /// The first (in `REFERENCE_KINDS` order) kind of edge that reaches each node.
    usage: HashMap<usize, usize>,
    files: HashMap<i64, &'a FileRow>,
    modules: HashMap<i64, usize>,
    memo: HashMap<(usize, &'static str), String>,
    externals: BTreeMap<String, SymbolInformation>,
}

fn desc(name: &str, suffix: Suffix) -> Descriptor {
    let mut d = Descriptor::new();
    d.name = name.to_string();
    d.suffix = suffix.into();
    d
}

fn symbol_string(scheme: &str, manager: &str, name: &str, version: &str, descriptors: Vec<Descriptor>) -> String {
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
    fn is_local(&self, i: usize) -> bool {
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
    fn symbol(&mut self, i: usize, fam: &'static str) -> String {
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
    fn external(&mut self, qname: &str, fam: &'static str, usage: Option<usize>) -> String {
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
fn module_descriptors(file: &FileRow, python: bool, itself: bool) -> Vec<Descriptor> {
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
