//! End-to-end tests of `ckg index` and `ckg export`: results, determinism, and bad input.

mod common;

use common::{Repo, edges, synth_repo};

#[test]
fn indexes_typescript_and_python_and_exports_edges_with_evidence() {
    let repo = Repo::new();
    repo.write(
        "config/server.ts",
        "import express from 'express';\nimport { auth } from '../middleware/auth';\n\nexport function configure(app: express.Application) {\n  app.use(auth);\n  app.use('/public', express.static('public'));\n}\n",
    );
    repo.write("middleware/auth.ts", "export function auth(req: any, res: any, next: () => void) { next(); }\n");
    repo.write(
        "app/service.py",
        "import os.path as osp\nfrom .util import helper\n\nclass Service:\n    def run(self):\n        self.step()\n        return helper(osp.join('a', 'b'))\n\n    def step(self):\n        return len([])\n",
    );
    repo.write("app/util.py", "def helper(x):\n    return x\n");
    repo.write("app/__init__.py", "");
    let summary = repo.index_json(&[]);
    assert_eq!(summary["files_by_lang"]["typescript"], 2);
    assert_eq!(summary["files_by_lang"]["python"], 3);
    assert_eq!(summary["generation"], 1);
    let export = repo.export();
    let e = edges(&export);
    for expected in [
        "calls config/server.ts#configure -> express.static [exact]",
        "references config/server.ts#configure -> middleware/auth.ts#auth [exact]",
        "imports config/server.ts -> express [exact]",
        "imports config/server.ts -> middleware/auth.ts [exact]",
        "calls app.service.Service.run -> app.service.Service.step [inferred]",
        "calls app.service.Service.run -> app.util.helper [exact]",
        "calls app.service.Service.run -> os.path.join [exact]",
        "calls app.service.Service.step -> <builtin>.len [exact]",
    ] {
        assert!(e.iter().any(|l| l == expected), "missing edge {expected:?} in:\n{}", e.join("\n"));
    }
    assert!(export.contains(r#"{"type":"symbol","qname":"config/server.ts#configure","name":"configure","kind":"function","file":"config/server.ts","line":4,"col":17,"end_line":7}"#));
    assert!(export.contains(r#"{"type":"external","qname":"express.static"}"#));
}

#[test]
fn export_is_byte_identical_whatever_the_thread_count() {
    let repo = Repo::new();
    synth_repo(&repo, 60, 1);
    repo.index_json(&["--jobs", "1"]);
    let one = repo.export();
    repo.index_json(&["--jobs", "4", "--rebuild"]);
    let four = repo.export();
    assert!(one.lines().count() > 1000);
    assert_eq!(one, four);
}

#[test]
fn unchanged_tree_keeps_the_generation_and_changes_bump_it() {
    let repo = Repo::new();
    synth_repo(&repo, 5, 1);
    assert_eq!(repo.index_json(&[])["generation"], 1);
    let again = repo.index_json(&[]);
    assert_eq!(again["generation"], 1);
    assert_eq!(again["changed"], false);
    assert_eq!(again["parsed"], 0);
    repo.write("src/m0/mod.ts", "export function helper0(x: number) { return x; }\n");
    let changed = repo.index_json(&[]);
    assert_eq!(changed["generation"], 2);
    assert_eq!(changed["parsed"], 1);
    repo.remove("pkg/m1.py");
    let removed = repo.index_json(&[]);
    assert_eq!(removed["removed"], 1);
    assert!(!repo.export().contains("pkg/m1.py"));
}

#[test]
fn syntax_errors_keep_what_parses_and_are_counted() {
    let repo = Repo::new();
    repo.write("broken.py", "def good():\n    return 1\n\ndef bad(:\n    pass\n\ndef also_good():\n    good()\n");
    repo.write("broken.ts", "export function ok() { return 1; }\nfunction (((( {\nexport function fine() { ok(); }\n");
    let s = repo.index_json(&[]);
    assert!(s["parse_errors"].as_u64().unwrap() >= 2);
    assert_eq!(s["files_with_parse_errors"], 2);
    let export = repo.export();
    assert!(export.contains(r#""qname":"broken.good""#));
    assert!(export.contains(r#""qname":"broken.also_good""#));
    assert!(export.contains(r#""qname":"broken.ts#ok""#));
    assert!(export.contains(r#""kind":"syntax_error""#));
    assert!(edges(&export).contains(&"calls broken.also_good -> broken.good [exact]".to_string()));
}

#[test]
fn invalid_utf8_is_indexed_lossily_with_a_diagnostic() {
    let repo = Repo::new();
    repo.write("latin1.py", b"# caf\xe9\ndef f():\n    return g()\n\ndef g():\n    return 1\n".as_slice());
    repo.index_json(&[]);
    let export = repo.export();
    assert!(export.contains(r#""kind":"invalid_utf8""#), "{export}");
    assert!(edges(&export).contains(&"calls latin1.f -> latin1.g [exact]".to_string()));
}

#[test]
fn binary_large_and_minified_files_are_skipped_with_reasons() {
    let repo = Repo::new();
    repo.write("ok.ts", "export const a = () => 1;\n");
    repo.write("blob.js", b"\x00\x01\x02binary\x00".as_slice());
    repo.write("big.py", format!("x = 1\n{}", "# padding\n".repeat(20_000)));
    let long_line = format!("var a={};", "function(){return 1},".repeat(2000));
    repo.write("bundle.min.js", long_line);
    let s = repo.index_json(&["--max-file-size", "100000"]);
    let reasons: std::collections::BTreeMap<String, String> = s["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["reason"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(reasons.get("blob.js").map(String::as_str), Some("binary"));
    assert_eq!(reasons.get("big.py").map(String::as_str), Some("too_large"));
    assert_eq!(reasons.get("bundle.min.js").map(String::as_str), Some("minified"));
    assert_eq!(s["files_by_lang"]["typescript"], 1);
    let export = repo.export();
    assert!(export.contains(r#"{"type":"diagnostic","path":"blob.js","kind":"binary""#));
}

#[test]
fn a_file_that_becomes_unindexable_is_removed_but_others_are_kept() {
    let repo = Repo::new();
    repo.write("a.py", "def a():\n    return b()\n");
    repo.write("b.py", "def b():\n    return 1\n");
    repo.index_json(&[]);
    repo.write("b.py", b"\x00\x00\x00".as_slice());
    let s = repo.index_json(&[]);
    assert_eq!(s["removed"], 1);
    let export = repo.export();
    assert!(export.contains(r#""qname":"a.a""#));
    assert!(edges(&export).contains(&"calls a.a -> b [unresolved]".to_string()), "{export}");
}

#[test]
fn rebuild_walks_the_tree_whole() {
    let repo = Repo::new();
    repo.write("pkg/a.py", "def a(): pass\n");
    let pkg = repo.path().join("pkg");
    let set_time = |t: std::time::SystemTime| {
        std::fs::File::open(&pkg).unwrap().set_times(std::fs::FileTimes::new().set_modified(t)).unwrap();
    };
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(100_000);
    set_time(past);
    assert_eq!(repo.index_json(&[])["files_by_lang"]["python"], 1);
    // A file added behind the walk's back: the directory's time set back to what it recorded.
    repo.write("pkg/b.py", "def b(): pass\n");
    set_time(past);
    assert_eq!(repo.index_json(&[])["files_by_lang"]["python"], 1, "the listing of the last walk is trusted");
    assert_eq!(repo.index_json(&["--rebuild"])["files_by_lang"]["python"], 2, "--rebuild walks again");
}

#[test]
fn symlink_loops_are_reported_not_followed_forever() {
    let repo = Repo::new();
    repo.write("src/a.ts", "export function a() {}\n");
    std::os::unix::fs::symlink(repo.path().join("src"), repo.path().join("src/loop")).unwrap();
    let s = repo.index_json(&["--follow"]);
    assert_eq!(s["files_by_lang"]["typescript"], 1);
    let skipped = s["skipped"].as_array().unwrap();
    assert!(skipped.iter().any(|f| f["reason"] == "walk_error" && f["message"].as_str().unwrap().contains("loop")), "{skipped:?}");
    // Without --follow the link is simply not traversed.
    let s = repo.index_json(&["--rebuild"]);
    assert_eq!(s["files_by_lang"]["typescript"], 1);
}

/// A link to a source file is not followed without `--follow`, and says so: a `symlink`
/// diagnostic, not a file dropped in silence; with `--follow` it is indexed.
#[test]
fn a_symlinked_source_file_is_reported_as_skipped() {
    let repo = Repo::new();
    repo.write("src/a.ts", "export function a() {}\n");
    std::os::unix::fs::symlink(repo.path().join("src/a.ts"), repo.path().join("b.ts")).unwrap();
    let s = repo.index_json(&[]);
    assert_eq!(s["files_by_lang"]["typescript"], 1);
    let skipped = s["skipped"].as_array().unwrap();
    assert!(skipped.iter().any(|f| f["path"] == "b.ts" && f["reason"] == "symlink"), "{skipped:?}");
    let out = repo.ckg(&["export"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(r#""type":"diagnostic","path":"b.ts","kind":"symlink""#));
    let s = repo.index_json(&["--rebuild", "--follow"]);
    assert_eq!(s["files_by_lang"]["typescript"], 2, "{s}");
}

fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A copy of the binary in the repository that [`common::unprivileged`] can run (as root,
/// permissions do not apply: it runs as `nobody` then), with the repository's folder given
/// `repo_mode`.
fn runnable_as_nobody(repo: &Repo, repo_mode: u32) -> std::path::PathBuf {
    let bin = repo.path().join("ckg-bin");
    std::fs::copy(env!("CARGO_BIN_EXE_ckg"), &bin).unwrap();
    set_mode(repo.path(), repo_mode);
    set_mode(&bin, 0o755);
    bin
}

#[test]
fn unreadable_directories_are_reported_and_the_run_goes_on() {
    // As root, permissions do not apply: run the binary as `nobody` in that case.
    let repo = Repo::new();
    repo.write("ok.py", "def f():\n    pass\n");
    repo.write("secret/hidden.py", "def g():\n    pass\n");
    let bin = runnable_as_nobody(&repo, 0o777);
    set_mode(&repo.path().join("secret"), 0o000);
    let out = common::unprivileged(&bin).args(["index", ".", "--json"]).current_dir(repo.path()).output().unwrap();
    set_mode(&repo.path().join("secret"), 0o755);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["files_by_lang"]["python"], 1);
    let skipped = s["skipped"].as_array().unwrap();
    assert!(skipped.iter().any(|f| f["path"] == "secret" && f["reason"] == "walk_error"), "{skipped:?}");
}

/// An index in a directory the reader cannot write (a read-only mount, another user's index)
/// is read: SQLite cannot make the shared-memory file beside it, so it is read as a file
/// nothing changes.
#[test]
fn an_index_in_a_read_only_directory_is_read() {
    let repo = Repo::new();
    repo.write("a.ts", "export function a() {}\n");
    repo.index_json(&[]);
    let bin = runnable_as_nobody(&repo, 0o755);
    set_mode(&repo.path().join(".ckg"), 0o555);
    for f in ["index.db", "index.names", "index.walk"] {
        set_mode(&repo.path().join(".ckg").join(f), 0o444);
    }
    let query = common::unprivileged(&bin).args(["query", "symbols", "a"]).current_dir(repo.path()).output().unwrap();
    let status = common::unprivileged(&bin).args(["status", "--json"]).current_dir(repo.path()).output().unwrap();
    set_mode(&repo.path().join(".ckg"), 0o755);
    assert!(query.status.success(), "stderr: {}", String::from_utf8_lossy(&query.stderr));
    assert!(String::from_utf8_lossy(&query.stdout).contains("a.ts#a"));
    assert!(status.status.success(), "stderr: {}", String::from_utf8_lossy(&status.stderr));
}

#[test]
fn deeply_nested_code_does_not_overflow_the_stack() {
    let repo = Repo::new();
    let depth = 20_000;
    // One bracket per line, so the files do not look minified.
    repo.write(
        "deep.ts",
        format!("export const x = {}1{};\nexport function after() {{ return x; }}\n", "[\n".repeat(depth), "]\n".repeat(depth)),
    );
    repo.write("deep.py", format!("x = {}1{}\ndef after():\n    return len(x)\n", "(\n".repeat(depth), ")\n".repeat(depth)));
    repo.write(
        "calls.ts",
        format!("export function f() {{ return {}g(){}; }}\nfunction g() {{ return 1; }}\n", "h(\n".repeat(20_000), ")\n".repeat(20_000)),
    );
    let s = repo.index_json(&[]);
    assert_eq!(s["files_by_lang"]["typescript"], 2);
    assert_eq!(s["files_by_lang"]["python"], 1);
    let export = repo.export();
    assert!(export.contains(r#""qname":"deep.after""#));
    assert!(export.contains(r#""qname":"deep.ts#after""#));
    assert!(edges(&export).contains(&"calls calls.ts#f -> calls.ts#g [exact]".to_string()));
}

#[test]
fn an_index_of_another_schema_version_is_rebuilt_with_a_message() {
    let repo = Repo::new();
    synth_repo(&repo, 3, 1);
    repo.index_json(&[]);
    let fresh = repo.export();
    {
        let conn = rusqlite::Connection::open(repo.db()).unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
    }
    let out = repo.ckg(&["index", "."]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("schema version 999") && stderr.contains("rebuilt"), "{stderr}");
    assert_eq!(repo.export(), fresh);
}

#[test]
fn a_corrupt_index_gives_a_clear_error_and_no_panic() {
    let repo = Repo::new();
    synth_repo(&repo, 2, 1);
    std::fs::create_dir_all(repo.path().join(".ckg")).unwrap();
    std::fs::write(repo.db(), b"this is not an sqlite database, just some garbage bytes that go on for a while....".repeat(100)).unwrap();
    for args in [&["index", "."][..], &["export"][..], &["query", "impact", "x"][..]] {
        let out = repo.ckg(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("corrupt") && !stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // --rebuild starts over.
    let s = repo.index_json(&["--rebuild"]);
    assert_eq!(s["files_by_lang"]["python"], 3);
}

#[test]
fn a_foreign_database_is_never_overwritten() {
    let repo = Repo::new();
    repo.write("a.py", "x = 1\n");
    let other = repo.path().join("app.db");
    {
        let conn = rusqlite::Connection::open(&other).unwrap();
        conn.execute_batch("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers(name) VALUES ('ada');")
            .unwrap();
    }
    let out = repo.ckg(&["index", ".", "--db", "app.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did not create"));
    let conn = rusqlite::Connection::open(&other).unwrap();
    let n: i64 = conn.query_row("SELECT count(*) FROM customers", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);
}

#[test]
fn gitignore_default_skips_and_globs_are_respected() {
    let repo = Repo::new();
    repo.write(".gitignore", "generated/\n");
    repo.write("src/a.ts", "export const a = () => 1;\n");
    repo.write("generated/b.ts", "export const b = () => 1;\n");
    repo.write("node_modules/x/index.js", "module.exports = 1;\n");
    repo.write("dist/out.js", "var x = 1;\n");
    repo.write(".venv/lib/site.py", "x = 1\n");
    repo.write("tests/t.py", "def test(): pass\n");
    let s = repo.index_json(&[]);
    assert_eq!(s["files_by_lang"]["typescript"], 1);
    assert_eq!(s["files_by_lang"]["python"], 1);
    let s = repo.index_json(&["--exclude", "tests/**", "--rebuild"]);
    assert!(s["files_by_lang"].get("python").is_none());
    let s = repo.index_json(&["--exclude", "./tests/**", "--rebuild"]);
    assert!(s["files_by_lang"].get("python").is_none(), "a glob written from the root: {s}");
    let s = repo.index_json(&["--include", "tests/**", "--rebuild"]);
    assert_eq!(s["files_by_lang"]["python"], 1);
    assert!(s["files_by_lang"].get("typescript").is_none());
}

#[test]
fn missing_index_and_bad_arguments_give_clear_errors() {
    let repo = Repo::new();
    let out = repo.ckg(&["export"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `ckg index` first"));
    let out = repo.ckg(&["index", "does-not-exist"]);
    assert_eq!(out.status.code(), Some(2));
    let out = repo.ckg(&["index", ".", "--exclude", "a[b"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid pattern"));
}

#[test]
fn cyclic_variable_flows_terminate() {
    // Regression: `a` flows from `b` and `b` from `a` recursed until the stack overflowed.
    let repo = Repo::new();
    repo.write("cycle.ts", "export const a = b.next();\nexport const b = a.prev();\nexport const c = c;\na.run();\n");
    repo.write("cycle.py", "a = b.next()\nb = a.prev()\nc = c\na.run()\n");
    let s = repo.index_json(&[]);
    assert_eq!(s["files_by_lang"]["typescript"], 1);
    assert!(edges(&repo.export()).contains(&"calls cycle.ts -> a.run [unresolved]".to_string()));
}

#[test]
fn types_and_bases_that_refer_to_themselves_terminate() {
    // Regressions (found on salt): an attribute typed by a path through itself
    // (`self.__doc__ = Config.__doc__.format()`), a class whose base is one of its own members,
    // a class that is its own base. Each recursed until the stack overflowed.
    let repo = Repo::new();
    repo.write(
        "m.py",
        "class A(A.B):\n    pass\n\n\nclass Config:\n    def __init__(self):\n        self.__doc__ = Config.__doc__.format(1)\n\n    def text(self):\n        return self.__doc__.format(2)\n\n\nclass Loop(Loop):\n    def run(self):\n        return self.go()\n\n\nA().x()\nLoop().run()\nConfig().text()\n",
    );
    let s = repo.index_json(&[]);
    assert_eq!(s["files_by_lang"]["python"], 1);
    assert!(edges(&repo.export()).contains(&"calls m -> m.Loop.run [inferred]".to_string()), "{:#?}", edges(&repo.export()));
}

#[test]
fn python_import_roots_are_configurable() {
    let repo = Repo::new();
    repo.write("lib/tools/strings.py", "def slug(s):\n    return s\n");
    repo.write("lib/tools/__init__.py", "");
    repo.write("app.py", "from tools.strings import slug\n\n\ndef run():\n    return slug('x')\n");
    // Without the root, `tools` is not a repository package: an external node.
    repo.index_json(&[]);
    let export = repo.export();
    assert!(export.contains(r#"{"type":"external","qname":"tools.strings.slug"}"#), "{export}");
    assert!(export.contains(r#""qname":"lib.tools.strings.slug""#));
    // With it, the same import binds to the definition in lib/.
    repo.index_json(&["--python-root", "lib"]);
    let export = repo.export();
    assert!(!export.contains(r#""type":"external","qname":"tools.strings"#), "{export}");
    assert!(export.contains(r#""qname":"tools.strings.slug","name":"slug","kind":"function","file":"lib/tools/strings.py""#), "{export}");
    assert!(edges(&export).contains(&"calls app.run -> tools.strings.slug [exact]".to_string()));
}

#[test]
fn build_output_folders_are_skipped_unless_asked_for() {
    let repo = Repo::new();
    repo.write("src/app.ts", "import { b } from '../dist/bundle';\nexport function app() { return b(); }\n");
    repo.write("dist/bundle.js", "export function b() { return 1; }\n");
    repo.write("build/__init__.py", "def tool():\n    return 1\n");
    let s = repo.index_json(&[]);
    assert_eq!(s["parsed"], 1, "{s}");
    let s = repo.index_json(&["--build-dirs"]);
    assert_eq!(s["parsed"], 2, "the walk is listed again when the option changes: {s}");
    let e = repo.export();
    assert!(e.contains("\"path\":\"dist/bundle.js\"") && e.contains("\"path\":\"build/__init__.py\""), "{e}");
    assert!(common::edges(&e).contains(&"calls src/app.ts#app -> dist/bundle.js#b [exact]".to_string()), "{e}");
}

/// A folder of Python files without `__init__.py` (a namespace package) that appears under a
/// name files import as an external package changes what `import NAME` binds: those files
/// are resolved again, and the index equals a fresh one; the same when it goes away.
#[test]
fn a_namespace_package_that_appears_or_goes_rebinds_its_importers() {
    let repo = Repo::new();
    repo.write("app.py", "import tools\n\ndef run():\n    return tools.helpers\n");
    repo.write("other.py", "def unrelated():\n    return 1\n");
    repo.ok(&["index", ".", "-q"]);
    assert!(repo.export().contains("tools"), "the import is recorded");
    repo.write("tools/helpers.py", "def h():\n    return 2\n");
    repo.ok(&["index", ".", "-q"]);
    assert_eq!(repo.export(), repo.fresh_export(&[]), "after the package appeared");
    repo.remove("tools/helpers.py");
    std::fs::remove_dir(repo.path().join("tools")).unwrap();
    repo.ok(&["index", ".", "-q"]);
    assert_eq!(repo.export(), repo.fresh_export(&[]), "after the package went away");
}

/// Sets a file's modification time.
fn set_mtime(path: &std::path::Path, when: std::time::SystemTime) {
    std::fs::File::options().write(true).open(path).unwrap().set_modified(when).unwrap();
}

/// A time `secs` seconds ago (older than the window in which a stored time is not trusted).
fn ago(secs: u64) -> std::time::SystemTime {
    std::time::SystemTime::now() - std::time::Duration::from_secs(secs)
}

#[test]
fn a_file_touched_without_a_change_is_read_once_and_then_trusted() {
    let repo = Repo::new();
    synth_repo(&repo, 4, 1);
    // Written long enough before the scan that their times are trusted.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let files = repo.index_json(&[])["files_by_lang"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum::<u64>();
    set_mtime(&repo.path().join("pkg/m1.py"), ago(60));
    let touched = repo.index_json(&[]);
    assert_eq!((touched["changed"].as_bool(), touched["parsed"].as_u64()), (Some(false), Some(0)));
    assert_eq!(touched["unchanged"], files - 1, "the touched file is read again");
    // Its new time is recorded in the same generation: the next run trusts it.
    let next = repo.index_json(&[]);
    assert_eq!(next["unchanged"], files, "{next}");
    assert_eq!(next["generation"], touched["generation"]);
}

#[test]
fn a_file_skipped_for_its_content_is_not_read_again_until_it_changes() {
    let repo = Repo::new();
    repo.write("ok.ts", "export const a = () => 1;\n");
    let minified = format!("var a={};", "function(){return 1},".repeat(2000));
    let bundle = repo.write("bundle.js", &minified);
    let past = ago(60);
    set_mtime(&bundle, past);
    let first = repo.index_json(&[]);
    assert_eq!(first["skipped"][0]["reason"], "minified");
    // Readable code of the same size with the same time: not read, so still skipped.
    let mut readable = String::from("export function f() { return 1; }\n");
    while readable.len() + 8 <= minified.len() {
        readable.push_str("// pad.\n");
    }
    readable.push_str(&" ".repeat(minified.len() - readable.len()));
    repo.write("bundle.js", &readable);
    set_mtime(&bundle, past);
    let again = repo.index_json(&[]);
    assert_eq!(again["skipped"][0]["reason"], "minified", "{again}");
    assert_eq!(again["changed"], false);
    // A new time: read, and now indexed.
    set_mtime(&bundle, ago(30));
    let changed = repo.index_json(&[]);
    assert_eq!(changed["skipped"].as_array().map(Vec::len), Some(0), "{changed}");
    assert_eq!(changed["files_by_lang"]["javascript"], 1);
    assert!(repo.export().contains(r#""qname":"bundle.js#f""#));
}

#[test]
fn totals_read_back_after_a_run_without_them_are_those_of_a_fresh_index() {
    let repo = Repo::new();
    synth_repo(&repo, 5, 1);
    let totals = |s: &serde_json::Value| {
        ["files_by_lang", "lines", "bytes", "symbols", "externals", "edges_by_kind", "edges_by_evidence", "parse_errors"]
            .map(|k| s[k].to_string())
            .join(" ")
    };
    let first = repo.index_json(&[]);
    assert_eq!(totals(&repo.index_json(&[])), totals(&first), "unchanged: the recorded totals");
    // A run that prints no summary changes the index without computing totals...
    repo.remove("pkg/m1.py");
    repo.write("src/extra.ts", "export function extra() { return [1, 2].map(String); }\n");
    repo.ok(&["index", ".", "--quiet"]);
    // ... so the next run, with nothing changed, must not answer the totals of before.
    let after = repo.index_json(&[]);
    assert_eq!(after["changed"], false);
    let fresh = repo.index_json(&["--rebuild"]);
    assert_eq!(totals(&after), totals(&fresh));
    assert_ne!(totals(&after), totals(&first));
}

/// The benchmark baseline `parse-only` reads every file, and with `--extract` extracts each:
/// as many symbols as an index of the same files stores, and nothing stored (no index appears).
#[test]
fn parse_only_parses_and_with_extract_extracts_every_file_storing_nothing() {
    let repo = Repo::new();
    repo.write("a.py", "def f():\n    return g(1)\n");
    repo.write("b.ts", "export const x = (y: number) => y + 1;\n");
    repo.write("c.py", "class C(B:\n");
    let bytes: usize = ["a.py", "b.ts", "c.py"].iter().map(|f| std::fs::metadata(repo.path().join(f)).unwrap().len() as usize).sum();
    let parsed = repo.ok(&["parse-only", "."]);
    assert!(parsed.starts_with(&format!("parsed 3 files, {bytes} bytes in ")), "{parsed}");
    let extracted = repo.ok(&["parse-only", ".", "--extract", "--jobs", "1"]);
    assert!(!repo.db().exists());
    repo.ok(&["index", ".", "--quiet"]);
    let symbols = repo.export().lines().filter(|l| l.starts_with(r#"{"type":"symbol""#)).count();
    assert!(symbols >= 6, "{symbols}");
    assert!(extracted.starts_with(&format!("parsed and extracted 3 files, {bytes} bytes, {symbols} symbols in ")), "{extracted}");
}

#[test]
fn calls_on_elements_whose_class_lacks_the_member_keep_their_site() {
    // Regression: a call through a loop variable or a callback's element, whose class has no
    // such member (or whose member's type is unknown), left its site with no edge at all.
    let repo = Repo::new();
    repo.write(
        "r.ts",
        "class M {\n  private _id: any;\n  get id() { return this._id; }\n  run() { return 1; }\n}\nexport class R {\n  store: M[] = [];\n  a() { return this.store.find((item) => item.nothing()); }\n  b() { for (const item of this.store) { item.id.equals(3); item.run(); } }\n}\n",
    );
    repo.write(
        "p.py",
        "class A:\n    def go(self):\n        return 1\n\n\ndef run():\n    for x in [A(), A()]:\n        x.go()\n        x.missing()\n",
    );
    repo.ok(&["index", ".", "--quiet"]);
    let e = edges(&repo.export());
    for expected in [
        "calls r.ts#R.a -> item.nothing [unresolved]",
        "calls r.ts#R.b -> item.id.equals [unresolved]",
        "calls r.ts#R.b -> r.ts#M.run [inferred]",
        "calls p.run -> p.A.go [inferred]",
        "calls p.run -> x.missing [unresolved]",
    ] {
        assert!(e.contains(&expected.to_string()), "{expected}: {e:#?}");
    }
}
