//! `ckg export --format scip`, read back with the `scip` crate: documents, definition and
//! reference occurrences, symbol strings in scip-typescript's and scip-python's conventions,
//! symbol information (kind, documentation, relationships), external symbols, and the
//! guarantees of an export (every definition and every resolved use has its occurrence, the
//! output is deterministic, a file edited since the index is exported from the index alone).

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use common::{Repo, copy_dir};
use protobuf::Message;
use scip::types::symbol_information::Kind;
use scip::types::{Document, Index, Occurrence, PositionEncoding, SymbolInformation, SymbolRole, TextEncoding};

fn fixture(lang: &str) -> Repo {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scip").join(lang), repo.path());
    repo.index_json(&[]);
    repo
}

fn export(repo: &Repo) -> Index {
    export_with(repo, &[])
}

/// `ckg export --format scip` with extra arguments, read back.
fn export_with(repo: &Repo, extra: &[&str]) -> Index {
    let mut args = vec!["export", "--format", "scip", "-o", "index.scip"];
    args.extend_from_slice(extra);
    repo.ok(&args);
    let bytes = std::fs::read(repo.path().join("index.scip")).unwrap();
    Index::parse_from_bytes(&bytes).expect("a valid SCIP protobuf")
}

fn doc<'a>(index: &'a Index, path: &str) -> &'a Document {
    index.documents.iter().find(|d| d.relative_path == path).unwrap_or_else(|| panic!("no document {path}"))
}

fn is_def(o: &Occurrence) -> bool {
    o.symbol_roles & SymbolRole::Definition as i32 != 0
}

/// The occurrence whose range starts at (0-based line, column).
fn at(d: &Document, line: i32, col: i32) -> &Occurrence {
    d.occurrences
        .iter()
        .find(|o| o.range[0] == line && o.range[1] == col)
        .unwrap_or_else(|| panic!("no occurrence at {}:{line}:{col}; have {:#?}", d.relative_path, occurrence_list(d)))
}

fn occurrence_list(d: &Document) -> Vec<String> {
    d.occurrences.iter().map(|o| format!("{:?} {} {}", o.range, o.symbol_roles, o.symbol)).collect()
}

fn info<'a>(d: &'a Document, symbol: &str) -> &'a SymbolInformation {
    d.symbols.iter().find(|s| s.symbol == symbol).unwrap_or_else(|| panic!("no symbol information for {symbol}"))
}

/// The text an occurrence's (single-line) range covers.
fn text_at(repo: &Repo, d: &Document, o: &Occurrence) -> String {
    let src = std::fs::read_to_string(repo.path().join(&d.relative_path)).unwrap();
    let line = src.lines().nth(o.range[0] as usize).unwrap();
    line[o.range[1] as usize..o.range[2] as usize].to_string()
}

const TS: &str = "scip-typescript npm scip-fixture 1.2.3 ";

#[test]
fn typescript_documents_symbols_and_occurrences() {
    let repo = fixture("typescript");
    let index = export(&repo);
    let meta = index.metadata.as_ref().unwrap();
    assert_eq!(meta.tool_info.name, "ckg");
    assert_eq!(meta.text_document_encoding.enum_value(), Ok(TextEncoding::UTF8));
    assert!(meta.project_root.starts_with("file:///"), "{}", meta.project_root);
    let paths: BTreeSet<&str> = index.documents.iter().map(|d| d.relative_path.as_str()).collect();
    assert_eq!(paths, BTreeSet::from(["src/app.ts", "src/lib/greeter.ts", "src/lib/util.ts"]));
    for d in &index.documents {
        assert_eq!(d.position_encoding.enum_value(), Ok(PositionEncoding::UTF8CodeUnitOffsetFromLineStart));
        assert_eq!(d.language, "TypeScript");
    }

    let app = doc(&index, "src/app.ts");
    // Definitions: the name's range, the body's enclosing range, the symbol in
    // scip-typescript's form (`function` declarations are methods, constants terms).
    let create = at(app, 12, 16);
    assert!(is_def(create));
    assert_eq!(create.symbol, format!("{TS}src/`app.ts`/createApp()."));
    assert_eq!(text_at(&repo, app, create), "createApp");
    assert_eq!(create.enclosing_range, vec![12, 0, 20, 1]);
    let port = at(app, 5, 13);
    assert_eq!(port.symbol, format!("{TS}src/`app.ts`/PORT."));
    let ci = info(app, &create.symbol);
    assert_eq!(ci.kind.enum_value(), Ok(Kind::Function));
    assert_eq!(ci.display_name, "createApp");
    assert_eq!(ci.documentation, vec!["Builds the application.".to_string()], "JSDoc without its tags");
    assert_eq!(ci.signature_documentation.text, "export function createApp(): express.Express");
    assert_eq!(info(app, &port.symbol).documentation, vec!["The port the app listens on.".to_string()]);
    assert_eq!(info(app, &port.symbol).kind.enum_value(), Ok(Kind::Constant));

    // Import specifiers: the imported definitions, and the module at its quoted specifier.
    let greeter_import = at(app, 1, 9);
    assert_eq!(greeter_import.symbol, format!("{TS}src/lib/`greeter.ts`/Greeter#"));
    assert_eq!(greeter_import.symbol_roles, SymbolRole::Import as i32);
    let module = at(app, 1, 31);
    assert_eq!(text_at(&repo, app, module), "'./lib/greeter'");
    assert_eq!(module.symbol, format!("{TS}src/lib/`greeter.ts`/"));
    assert_eq!(at(app, 2, 12).symbol, format!("{TS}src/lib/`util.ts`/"), "import * as util binds the module");

    // Uses across files: a call, an instantiation, a method through a typed local, a
    // namespace member.
    assert_eq!(at(app, 17, 25).symbol, format!("{TS}src/lib/`greeter.ts`/greet()."));
    assert_eq!(at(app, 15, 16).symbol, format!("{TS}src/lib/`greeter.ts`/Greeter#"), "Greeter has no constructor of its own");
    assert_eq!(at(app, 17, 15).symbol, format!("{TS}src/lib/`greeter.ts`/Greeter#hello()."));
    let shout = at(app, 17, 43);
    assert_eq!(shout.symbol, format!("{TS}src/lib/`util.ts`/shout()."));
    assert_eq!(text_at(&repo, app, shout), "shout");
    assert_eq!(shout.symbol_roles, 0);

    // Packages: external symbols with the dependency's version from package.json.
    let statik = at(app, 14, 18);
    assert_eq!(statik.symbol, "scip-typescript npm express 4.19.2 express/static().");
    assert_eq!(text_at(&repo, app, statik), "static");
    let externals: BTreeSet<&str> = index.external_symbols.iter().map(|s| s.symbol.as_str()).collect();
    assert!(externals.contains("scip-typescript npm express 4.19.2 express/static()."), "{externals:#?}");
    assert!(externals.contains("scip-typescript npm express 4.19.2 express/Request#"), "{externals:#?}");
    assert!(externals.contains("scip-typescript npm express 4.19.2 express/"), "{externals:#?}");

    let g = doc(&index, "src/lib/greeter.ts");
    // Classes, interfaces, enums and their members; constructors as scip-typescript names them.
    assert_eq!(at(g, 6, 2).symbol, format!("{TS}src/lib/`greeter.ts`/Base#`<constructor>`()."));
    assert_eq!(info(g, &at(g, 6, 2).symbol).kind.enum_value(), Ok(Kind::Constructor));
    assert_eq!(at(g, 25, 2).symbol, format!("{TS}src/lib/`greeter.ts`/Mood#Happy."));
    assert_eq!(info(g, &at(g, 25, 2).symbol).kind.enum_value(), Ok(Kind::EnumMember));
    assert_eq!(info(g, &format!("{TS}src/lib/`greeter.ts`/Named#")).kind.enum_value(), Ok(Kind::Interface));
    assert_eq!(info(g, &format!("{TS}src/lib/`greeter.ts`/Pair#")).kind.enum_value(), Ok(Kind::TypeAlias));
    assert_eq!(info(g, &format!("{TS}src/lib/`greeter.ts`/Greeter#hello().")).documentation, vec!["Louder.".to_string()]);
    // Relationships: a class implements its bases transitively; a method overrides.
    let greeter = info(g, &format!("{TS}src/lib/`greeter.ts`/Greeter#"));
    let rels: BTreeSet<(&str, bool)> = greeter.relationships.iter().map(|r| (r.symbol.as_str(), r.is_implementation)).collect();
    let base = format!("{TS}src/lib/`greeter.ts`/Base#");
    let named = format!("{TS}src/lib/`greeter.ts`/Named#");
    assert_eq!(rels, BTreeSet::from([(base.as_str(), true), (named.as_str(), true)]));
    let hello = info(g, &format!("{TS}src/lib/`greeter.ts`/Greeter#hello()."));
    assert_eq!(hello.relationships.len(), 1);
    assert_eq!(hello.relationships[0].symbol, format!("{TS}src/lib/`greeter.ts`/Base#hello()."));
    assert!(hello.relationships[0].is_implementation);
    // `super.hello()` and `this.name`.
    assert_eq!(at(g, 16, 17).symbol, format!("{TS}src/lib/`greeter.ts`/Base#hello()."));
    assert_eq!(at(g, 9, 27).symbol, format!("{TS}src/lib/`greeter.ts`/Base#name."));
}

const PY: &str = "scip-python python scipfix 0.3.0 ";

#[test]
fn python_documents_symbols_and_occurrences() {
    let repo = fixture("python");
    let index = export(&repo);
    let paths: BTreeSet<&str> = index.documents.iter().map(|d| d.relative_path.as_str()).collect();
    assert_eq!(paths, BTreeSet::from(["pkg/__init__.py", "pkg/main.py", "pkg/shapes.py"]));
    let shapes = doc(&index, "pkg/shapes.py");
    assert_eq!(shapes.language, "Python");

    // The module, with its docstring; classes, methods and attributes in scip-python's form.
    let module = info(shapes, &format!("{PY}`pkg.shapes`/__init__:"));
    assert_eq!(module.kind.enum_value(), Ok(Kind::Module));
    assert_eq!(module.documentation, vec!["Shapes and their areas.".to_string()]);
    let shape = at(shapes, 5, 6);
    assert_eq!(shape.symbol, format!("{PY}`pkg.shapes`/Shape#"));
    assert_eq!(shape.enclosing_range, vec![5, 0, 16, 53]);
    let si = info(shapes, &shape.symbol);
    assert_eq!(si.kind.enum_value(), Ok(Kind::Class));
    assert_eq!(si.documentation, vec!["A shape.\n\nSubclasses say how large they are.".to_string()], "cleaned as inspect.cleandoc");
    assert_eq!(info(shapes, &format!("{PY}`pkg.shapes`/Shape#area().")).documentation, vec!["The area.".to_string()]);
    assert_eq!(at(shapes, 21, 13).symbol, format!("{PY}`pkg.shapes`/Square#side."));
    // `self.side = side` is an attribute of the instances: a property in ckg's kinds.
    assert_eq!(info(shapes, &format!("{PY}`pkg.shapes`/Square#side.")).kind.enum_value(), Ok(Kind::Property));
    assert_eq!(at(shapes, 27, 0).symbol, format!("{PY}`pkg.shapes`/UNIT."));
    assert_eq!(info(shapes, &format!("{PY}`pkg.shapes`/total().")).signature_documentation.text, "def total(shapes: List[Shape]) -> int:");
    // Relationships: the subclass and its override.
    let square = info(shapes, &format!("{PY}`pkg.shapes`/Square#"));
    assert_eq!(
        square.relationships.iter().map(|r| (r.symbol.clone(), r.is_implementation)).collect::<Vec<_>>(),
        vec![(format!("{PY}`pkg.shapes`/Shape#"), true)]
    );
    let area = info(shapes, &format!("{PY}`pkg.shapes`/Square#area()."));
    assert_eq!(area.relationships[0].symbol, format!("{PY}`pkg.shapes`/Shape#area()."));
    // References: the base class, `self.side` writes and reads, the standard library.
    assert_eq!(at(shapes, 19, 13).symbol, format!("{PY}`pkg.shapes`/Shape#"));
    assert_eq!(at(shapes, 24, 20).symbol, format!("{PY}`pkg.shapes`/Square#side."));
    assert_eq!(at(shapes, 35, 19).symbol, "scip-python python python-stdlib 3.11 `os.path`/join().");
    assert_eq!(at(shapes, 31, 11).symbol, "scip-python python python-stdlib 3.11 builtins/sum().");
    assert_eq!(at(shapes, 30, 18).symbol, "scip-python python python-stdlib 3.11 typing/List#");

    let main = doc(&index, "pkg/main.py");
    let imported = at(main, 0, 23);
    assert_eq!(imported.symbol, format!("{PY}`pkg.shapes`/Square#"));
    assert_eq!(imported.symbol_roles, SymbolRole::Import as i32);
    assert_eq!(at(main, 0, 5).symbol, format!("{PY}`pkg.shapes`/__init__:"), "the module at `from pkg.shapes`");
    assert_eq!(at(main, 6, 9).symbol, format!("{PY}`pkg.shapes`/Square#"));
    assert_eq!(at(main, 7, 28).symbol, format!("{PY}`pkg.shapes`/UNIT."));
    assert_eq!(at(main, 8, 22).symbol, format!("{PY}`pkg.shapes`/path_of()."));
    assert_eq!(at(main, 0, 0).symbol, format!("{PY}`pkg.main`/__init__:"));
}

/// Every symbol the index defines in a file has one definition occurrence at its position, and
/// every resolved use written in a file (exact or inferred evidence) has an occurrence on its
/// line, on the synthetic repository of the incremental tests.
#[test]
fn every_definition_and_resolved_use_has_an_occurrence() {
    let repo = Repo::new();
    common::synth_repo(&repo, 12, 0);
    repo.index_json(&[]);
    let index = export(&repo);
    let export = repo.export();
    let docs: HashMap<&str, &Document> = index.documents.iter().map(|d| (d.relative_path.as_str(), d)).collect();
    let (mut defs, mut uses) = (0, 0);
    for line in export.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let (Some(file), Some(l), Some(c)) = (v["file"].as_str(), v["line"].as_i64(), v["col"].as_i64()) else { continue };
        let d = docs.get(file).unwrap_or_else(|| panic!("no document for {file}"));
        let (l, c) = (l as i32 - 1, c as i32 - 1);
        match v["type"].as_str() {
            Some("symbol") if v["kind"] != "module" => {
                defs += 1;
                assert!(d.occurrences.iter().any(|o| is_def(o) && o.range[0] == l && o.range[1] == c), "no definition occurrence for {v}");
            }
            Some("edge") if matches!(v["evidence"].as_str(), Some("exact" | "inferred")) && v["kind"] != "imports" => {
                uses += 1;
                assert!(d.occurrences.iter().any(|o| !is_def(o) && o.range[0] == l), "no reference occurrence for {v}");
            }
            _ => {}
        }
    }
    assert!(defs > 50 && uses > 50, "{defs} definitions, {uses} uses");
    // Every symbol an occurrence names is either described in the document, in the external
    // symbols, or a local of the document.
    let externals: BTreeSet<&str> = index.external_symbols.iter().map(|s| s.symbol.as_str()).collect();
    let described: BTreeSet<&str> = index.documents.iter().flat_map(|d| d.symbols.iter().map(|s| s.symbol.as_str())).collect();
    for d in &index.documents {
        for o in &d.occurrences {
            assert!(
                o.symbol.starts_with("local ") || described.contains(o.symbol.as_str()) || externals.contains(o.symbol.as_str()),
                "{} names {} which nothing describes",
                d.relative_path,
                o.symbol
            );
            assert!(scip::symbol::parse_symbol(&o.symbol).is_ok() || o.symbol.starts_with("local "), "unparsable {}", o.symbol);
        }
    }
}

#[test]
fn export_is_deterministic_and_writes_to_stdout_with_dash() {
    let repo = fixture("typescript");
    repo.ok(&["export", "--format", "scip", "-o", "a.scip"]);
    let out = repo.ckg(&["export", "--format", "scip", "-o", "-"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read(repo.path().join("a.scip")).unwrap(), out.stdout);
    repo.ok(&["export", "--format", "scip", "-o", "b.scip"]);
    assert_eq!(std::fs::read(repo.path().join("a.scip")).unwrap(), std::fs::read(repo.path().join("b.scip")).unwrap());
}

/// A file edited after `ckg index` is exported from what the index holds: its definitions and
/// references keep their positions, and nothing read from the new text is mixed in.
#[test]
fn a_file_edited_since_the_index_is_exported_from_the_index() {
    let repo = fixture("typescript");
    let before = export(&repo);
    let path = repo.path().join("src/lib/util.ts");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("/** Changed. */\n{text}")).unwrap();
    let after = export(&repo);
    let (b, a) = (doc(&before, "src/lib/util.ts"), doc(&after, "src/lib/util.ts"));
    let shout = format!("{TS}src/lib/`util.ts`/shout().");
    let def = |d: &Document| d.occurrences.iter().find(|o| is_def(o) && o.symbol == shout).map(|o| o.range.clone());
    assert_eq!(def(a), def(b), "positions come from the index");
    assert!(info(a, &shout).documentation.is_empty(), "no documentation read from a changed file");
    assert_eq!(doc(&before, "src/app.ts"), doc(&after, "src/app.ts"), "other files are unaffected");
}

#[test]
fn heuristic_references_only_on_request() {
    let repo = Repo::new();
    repo.write("a.py", "class Tool:\n    def sharpen_blade(self):\n        return 1\n");
    // A receiver of unknown type: bound to the only method of that name, as a guess.
    repo.write("b.py", "def use(x):\n    return x.sharpen_blade()\n");
    repo.index_json(&[]);
    let count = |args: &[&str]| {
        let index = export_with(&repo, args);
        doc(&index, "b.py").occurrences.iter().filter(|o| o.symbol.ends_with(" a/Tool#sharpen_blade().")).count()
    };
    assert_eq!(count(&[]), 0, "heuristic edges stay out by default");
    assert_eq!(count(&["--heuristic"]), 1);
}

/// Columns are UTF-8 bytes from the line's start, as each document declares.
#[test]
fn columns_count_utf8_bytes() {
    let repo = Repo::new();
    repo.write("a.ts", "export function grüß(): number {\n  return 1;\n}\n");
    repo.write("b.ts", "import { grüß } from './a';\nconst s = 'αβγ'; export const n = grüß();\n");
    repo.index_json(&[]);
    let index = export(&repo);
    let b = doc(&index, "b.ts");
    assert_eq!(b.position_encoding.enum_value(), Ok(PositionEncoding::UTF8CodeUnitOffsetFromLineStart));
    // `const s = 'αβγ'; export const n = ` is 37 bytes (34 characters).
    let call = at(b, 1, 37);
    assert_eq!(call.symbol, "scip-typescript npm . . `a.ts`/`grüß`().");
    assert_eq!(call.range, vec![1, 37, 37 + "grüß".len() as i32]);
    assert_eq!(text_at(&repo, b, call), "grüß");
    let a = doc(&index, "a.ts");
    assert_eq!(at(a, 0, 16).range, vec![0, 16, 22]);
}

#[test]
fn a_typed_literals_method_is_a_definition_and_a_reference_to_the_member_it_implements() {
    let repo = Repo::new();
    repo.write("package.json", r#"{ "name": "lit", "version": "1.0.0" }"#);
    repo.write("auth.ts", "export interface Auth {\n  login(): void;\n}\n");
    repo.write("impl.ts", "import { Auth } from './auth';\nexport const auth: Auth = {\n  login() {},\n};\n");
    repo.index_json(&[]);
    let index = export(&repo);
    let d = doc(&index, "impl.ts");
    let here: Vec<&Occurrence> = d.occurrences.iter().filter(|o| o.range[0] == 2 && o.range[1] == 2).collect();
    assert!(here.iter().any(|o| is_def(o) && o.symbol.ends_with("`impl.ts`/auth.login().")), "{:#?}", occurrence_list(d));
    assert!(here.iter().any(|o| !is_def(o) && o.symbol.ends_with("`auth.ts`/Auth#login().")), "{:#?}", occurrence_list(d));
    // A definition's name is not also listed as a reference to itself.
    assert_eq!(here.len(), 2, "{:#?}", occurrence_list(d));
}
