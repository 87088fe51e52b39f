//! End-to-end tests of every `ckg query` subcommand on `tests/fixtures/query/repo`, with the
//! exact expected output (text and JSON) in `tests/fixtures/query/expected/`. Refresh on
//! purpose with `UPDATE_EXPECT=1 cargo test --test query`, then read the diff.

mod common;

use std::path::Path;

use common::{Repo, copy_dir};

fn fixture() -> Repo {
    let repo = Repo::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/query/repo");
    copy_dir(&src, repo.path());
    repo.index_json(&[]);
    repo
}

/// Runs a query and compares stdout with `expected/<name>`; returns the exit code.
fn check(repo: &Repo, name: &str, args: &[&str]) -> i32 {
    let mut full = vec!["query"];
    full.extend_from_slice(args);
    let out = repo.ckg(&full);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let expected_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/query/expected").join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&expected_path, &stdout).unwrap();
    } else {
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        assert_eq!(stdout, expected, "ckg query {args:?} differs from {}", expected_path.display());
    }
    out.status.code().unwrap()
}

#[test]
fn every_query_matches_its_expected_output() {
    let repo = fixture();
    let cases: &[(&str, &[&str], i32)] = &[
        ("symbols.txt", &["symbols", "*e*", "--kind", "function"], 0),
        ("symbols.json", &["symbols", "Router", "--json"], 0),
        ("def-use.txt", &["def", "src/app.ts:15:10"], 0),
        ("def-use.json", &["def", "src/app.ts:15:10", "--json"], 0),
        ("def-definition.txt", &["def", "src/app.ts:18:10"], 0),
        ("def-external.txt", &["def", "src/app.ts:10:32"], 0),
        ("def-nothing.txt", &["def", "src/app.ts:3:1"], 1),
        ("refs.txt", &["refs", "handler"], 0),
        ("refs.json", &["refs", "handler", "--json"], 0),
        ("callers.txt", &["callers", "helper", "--depth", "3"], 0),
        ("callers.json", &["callers", "py.models.User", "--json"], 0),
        ("callees.txt", &["callees", "src/app.ts#createApp"], 0),
        ("callees-py.txt", &["callees", "py.svc.Svc.run"], 0),
        ("deps.txt", &["deps", "src/app.ts"], 0),
        ("deps.json", &["deps", "src/app.ts", "--json"], 0),
        ("rdeps.txt", &["rdeps", "src/app.ts"], 0),
        ("path.txt", &["path", "src/main.ts", "express.static"], 0),
        ("path.json", &["path", "src/main.ts", "express.static", "--json"], 0),
        ("path-none.txt", &["path", "py.models.User", "express"], 1),
        ("cycles.txt", &["cycles"], 0),
        ("cycles.json", &["cycles", "--json"], 0),
        ("unused.txt", &["unused"], 0),
        ("unused-exported.txt", &["unused", "--include-exported", "--entry", "src/main.ts"], 0),
        ("sql.txt", &["sql", "SELECT kind, count(*) AS n FROM edges GROUP BY kind ORDER BY kind"], 0),
        ("sql.json", &["sql", "SELECT qname FROM symbols WHERE kind = 'class' ORDER BY qname", "--json"], 0),
        ("impact.txt", &["impact", "express", "--depth", "2"], 0),
        ("impact.json", &["impact", "src/util/log.ts#logger", "--json"], 0),
        ("impact.dot", &["impact", "helper", "--format", "dot"], 0),
        ("impact.mermaid", &["impact", "helper", "--format", "mermaid"], 0),
        ("impact-exact.txt", &["impact", "py.models.User.greet", "--min-evidence", "exact"], 1),
    ];
    let mut failures = Vec::new();
    for (name, args, code) in cases {
        let got = check(&repo, name, args);
        if got != *code {
            failures.push(format!("{name}: exit code {got}, expected {code}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bad_arguments_give_clear_messages_and_exit_2() {
    let repo = fixture();
    let cases: &[(&[&str], &str)] = &[
        (&["impact", "noSuchThing"], "no symbol, file or external package matches \"noSuchThing\""),
        (&["callers", "noSuchThing"], "no symbol"),
        (&["def", "src/app.ts:12"], "expected FILE:LINE:COL"),
        (&["def", "src/app.ts:x:3"], "line must be a positive number"),
        (&["def", "src/app.ts:0:3"], "1-based"),
        (&["def", "nope.ts:1:1"], "no symbol, file or external package matches \"nope.ts\""),
        (&["impact", "express", "--depth", "0"], "invalid value '0' for '--depth <DEPTH>': 0 is not in 1..=64"),
        (&["callers", "helper", "--depth", "65"], "invalid value '65' for '--depth <DEPTH>': 65 is not in 1..=64"),
        (&["path", "a", "b", "--max-depth", "0"], "invalid value '0' for '--max-depth <MAX_DEPTH>'"),
        (&["impact", "express", "--min-evidence", "sure"], "--min-evidence must be"),
        (&["symbols", "x", "--format", "dot"], "not available for `symbols`"),
        (&["sql", "DELETE FROM edges"], "only SELECT, WITH, VALUES and EXPLAIN statements are allowed"),
        (&["sql", "ATTACH DATABASE '/tmp/x.db' AS x"], "sql:"),
        (&["sql", "SELEC 1"], "sql:"),
        (&["deps", "missing.ts"], "no symbol, file or external package matches"),
    ];
    for (args, message) in cases {
        let mut full = vec!["query"];
        full.extend_from_slice(args);
        let out = repo.ckg(&full);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: expected {message:?} in {stderr}");
    }
}

#[test]
fn unused_leaves_out_interface_members() {
    let repo = Repo::new();
    repo.write("store.ts", "export interface Store {\n  get(k: string): string;\n}\nfunction orphan() { return 1; }\n");
    repo.index_json(&[]);
    let out = repo.ok(&["query", "unused"]);
    assert!(out.contains("store.ts#orphan"), "{out}");
    assert!(!out.contains("Store.get"), "{out}");
}

#[test]
fn an_ambiguous_name_lists_its_candidates() {
    let repo = fixture();
    repo.write("src/other.ts", "export function handler() { return 2; }\n");
    repo.index_json(&[]);
    let out = repo.ckg(&["query", "callers", "handler"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("\"handler\" is ambiguous"), "{stderr}");
    assert!(stderr.contains("src/app.ts#handler (function, src/app.ts:14)"), "{stderr}");
    assert!(stderr.contains("src/other.ts#handler (function, src/other.ts:1)"), "{stderr}");
}

#[test]
fn a_stale_index_is_reported_not_silently_used() {
    let repo = fixture();
    std::thread::sleep(std::time::Duration::from_millis(20));
    repo.write("src/app.ts", "export function createApp() { return 1; }\n");
    let out = repo.ckg(&["query", "refs", "helper"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is stale: 1 changed, 0 deleted, 0 added since"));
    let out = repo.ckg(&["query", "refs", "helper", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stale"]["changed"], serde_json::json!(["src/app.ts"]));
}

/// Source files added since the index are staleness too: in a directory the index walked and
/// in a new one, but not one the ignore files leave out.
#[test]
fn an_added_source_file_makes_the_index_stale() {
    let repo = fixture();
    repo.write(".gitignore", "generated/\n");
    repo.index_json(&[]);
    let status = |repo: &Repo| -> serde_json::Value {
        let out = repo.ckg(&["status", "--json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["stale"].clone()
    };
    assert_eq!(status(&repo)["stale"], false);
    std::thread::sleep(std::time::Duration::from_millis(20));
    repo.write("src/extra.ts", "export const extra = 1;\n");
    repo.write("src/fresh/deep.ts", "export const deep = 1;\n");
    repo.write("generated/skip.ts", "export const skip = 1;\n");
    repo.write("src/notes.txt", "not source\n");
    let stale = status(&repo);
    assert_eq!(stale["stale"], true, "{stale}");
    assert_eq!(stale["added"], serde_json::json!(["src/extra.ts", "src/fresh/deep.ts"]), "{stale}");
    let out = repo.ckg(&["query", "refs", "helper"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("0 changed, 0 deleted, 2 added since"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    repo.index_json(&[]);
    assert_eq!(status(&repo)["stale"], false);
}

#[test]
fn the_index_is_found_from_a_subdirectory() {
    let repo = fixture();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ckg"))
        .args(["query", "symbols", "Router"])
        .current_dir(repo.path().join("src/util"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("src/router.ts#Router"));
    // Files given as the shell sees them: relative to the current directory, or absolute.
    let expected = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/query/expected/deps.txt")).unwrap();
    let absolute = repo.path().join("src/app.ts").canonicalize().unwrap();
    for (dir, file) in [("src", "app.ts"), ("src/util", "../app.ts"), (".", "./src/app.ts"), ("src/util", absolute.to_str().unwrap())] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ckg"))
            .args(["query", "deps", file])
            .current_dir(repo.path().join(dir))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{file} from {dir}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let def = std::process::Command::new(env!("CARGO_BIN_EXE_ckg"))
        .args(["query", "def", "./main.ts:1:10"])
        .current_dir(repo.path().join("src"))
        .output()
        .unwrap();
    assert!(def.status.success(), "{}", String::from_utf8_lossy(&def.stderr));
}

/// An index copied with its repository is of the copy: its staleness and the files it reads
/// are the copy's, not those of the folder it was built in.
#[test]
fn an_index_copied_with_its_repository_is_of_the_copy() {
    let repo = fixture();
    let copy = tempfile::tempdir().unwrap();
    copy_dir(repo.path(), copy.path());
    std::fs::create_dir(copy.path().join(".ckg")).unwrap();
    std::fs::copy(repo.db(), copy.path().join(".ckg/index.db")).unwrap();
    std::fs::remove_file(copy.path().join("src/util/log.ts")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ckg")).args(["status", "--json"]).current_dir(copy.path()).output().unwrap();
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["root"], copy.path().canonicalize().unwrap().to_str().unwrap(), "{status:#}");
    assert_eq!(status["stale"]["deleted"], serde_json::json!(["src/util/log.ts"]), "{status:#}");
    // The original is as it was indexed.
    let out = repo.ok(&["status", "--json"]);
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(status["stale"]["stale"], false, "{status:#}");
}

/// The lines of the completeness gaps of one kind in an `impact --json` answer.
fn gap_lines(v: &serde_json::Value, kind: &str) -> Vec<u64> {
    v["completeness"]["gaps"].as_array().unwrap().iter().filter(|g| g["kind"] == kind).map(|g| g["line"].as_u64().unwrap()).collect()
}

#[test]
fn dynamic_features_are_completeness_gaps_with_locations() {
    let repo = Repo::new();
    repo.write(
        "dyn.py",
        "import importlib\n\n\ndef run(obj, name, plugin, code):\n    getattr(obj, name)()\n    handlers[name]()\n    eval(code)\n    importlib.import_module(plugin).activate()\n    (obj or plugin).run()\n    return helper()\n\n\ndef helper():\n    return 1\n\n\nhandlers = {}\n",
    );
    repo.index_json(&[]);
    let out = repo.ckg(&["query", "impact", "dyn.helper", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gaps = &v["completeness"];
    assert_eq!(v["completeness"]["complete"], false);
    let lines = gap_lines(&v, "dynamic_site");
    for line in [5, 6, 7, 8] {
        assert!(lines.contains(&line), "no dynamic gap on line {line}: {gaps:?}");
    }
    // An unnamed receiver can only reach something called `run`: not a computed site.
    assert!(!lines.contains(&9), "{gaps:?}");
}

#[test]
fn kwargs_dispatch_and_monkey_patching_are_completeness_gaps() {
    let repo = Repo::new();
    repo.write("tools.py", "def helper():\n    return 1\n");
    repo.write(
        "main.py",
        "import tools\n\n\ndef run(callback=None, **kwargs):\n    kwargs[\"on_done\"]()\n    kwargs.get(\"hook\")()\n    cb = kwargs.pop(\"cb\")\n    cb()\n    kwargs.items()\n    return callback()\n\n\ndef fake():\n    return 2\n\n\ndef go(options):\n    run(**options)\n    run(callback=tools.helper)\n\n\ntools.helper = fake\nsetattr(tools, \"helper\", fake)\nfake.attr = 1\n",
    );
    repo.index_json(&[]);
    let out = repo.ckg(&["query", "impact", "tools.helper", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gaps = &v["completeness"];
    let at = |kind: &str, line: u64| gap_lines(&v, kind).contains(&line);
    // Values taken out of **kwargs and called; a parameter filled through **options.
    for line in [5, 6, 8, 18] {
        assert!(at("dynamic_site", line), "no dynamic gap on line {line}: {gaps:?}");
    }
    assert!(!at("dynamic_site", 9), "kwargs.items() is the dict's own method: {gaps:?}");
    for line in [22, 23] {
        assert!(at("monkey_patch", line), "no monkey-patch gap on line {line}: {gaps:?}");
    }
    assert!(!at("monkey_patch", 24), "a plain attribute of a function is not a rebinding of helper: {gaps:?}");
    // The function passed by keyword is called by run (parameter flow).
    let callers = repo.ckg(&["query", "callers", "tools.helper", "--json"]);
    let text = String::from_utf8_lossy(&callers.stdout);
    assert!(text.contains("main.run"), "{text}");
}

#[test]
fn a_computed_value_passed_as_an_argument_is_not_a_dynamic_call_site() {
    let repo = Repo::new();
    repo.write(
        "a.ts",
        "export function helper() { return 1; }\nexport function run(handlers: any, rows: any[], name: string) {\n  handlers[name]();\n  console.log(rows[0].id);\n  return helper();\n}\n",
    );
    repo.index_json(&[]);
    let out = repo.ckg(&["query", "impact", "a.ts#helper", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(gap_lines(&v, "dynamic_site"), vec![3], "only the computed call is a gap: {:?}", v["completeness"]);
}

/// `from pkg import sub` and `from . import sub` import the submodule (and the package):
/// `deps` names it, its `rdeps` name the importer, and a package's `__init__.py` importing its
/// own submodules is no import cycle.
#[test]
fn importing_a_submodule_by_name_depends_on_the_submodule() {
    let repo = Repo::new();
    repo.write("pkg/__init__.py", "from . import tools\n");
    repo.write("pkg/tools.py", "def helper():\n    return 1\n");
    repo.write("pkg/sub/__init__.py", "");
    repo.write("pkg/sub/worker.py", "from .. import tools\n\n\ndef work():\n    return tools.helper()\n");
    repo.write("client.py", "from pkg import tools\nfrom pkg.sub import worker\n\nworker.work()\n");
    repo.index_json(&[]);
    let imports: Vec<String> = common::edges(&repo.export()).into_iter().filter(|e| e.starts_with("imports ")).collect();
    for edge in [
        "imports pkg -> pkg.tools [exact]",
        "imports client -> pkg.tools [exact]",
        // The package's `__init__.py` runs first: a dependency too.
        "imports client -> pkg [exact]",
        "imports client -> pkg.sub.worker [exact]",
        "imports pkg.sub.worker -> pkg.tools [exact]",
    ] {
        assert!(imports.iter().any(|e| e == edge), "missing {edge:?} in {imports:#?}");
    }
    assert!(!imports.iter().any(|e| e.starts_with("imports pkg -> pkg ")), "a package imports itself: {imports:#?}");
    // Exit 1: nothing found.
    let out = repo.ckg(&["query", "cycles", "--json"]);
    let cycles: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cycles["imports"].as_array().map(Vec::len), Some(0), "{cycles}");
    assert_eq!(out.status.code(), Some(1), "{cycles}");
    let rdeps = repo.ok(&["query", "rdeps", "pkg/sub/worker.py"]);
    assert!(rdeps.contains("client.py"), "{rdeps}");
}

/// The heuristic tier binds a member call only to a method of the site's own language family:
/// a Python value has no TypeScript method, and a Python method does not take a TypeScript
/// call's guess away.
#[test]
fn heuristic_guesses_stay_within_a_language_family() {
    let repo = Repo::new();
    repo.write("a.ts", "export class A { frob() { return 1 } }\n");
    repo.write("u.ts", "export function use(x: any) { return x.frob() }\n");
    repo.write("u2.py", "def use2(x):\n    return x.frob()\n");
    repo.index_json(&[]);
    let frob = |export: String| -> Vec<String> { common::edges(&export).into_iter().filter(|e| e.contains("frob")).collect() };
    let before = frob(repo.export());
    assert!(before.contains(&"calls u.ts#use -> a.ts#A.frob [heuristic]".to_string()), "{before:#?}");
    assert!(before.contains(&"calls u2.use2 -> x.frob [unresolved]".to_string()), "{before:#?}");
    repo.write("c.py", "class C:\n    def frob(self):\n        return 2\n");
    repo.index_json(&[]);
    let after = frob(repo.export());
    assert!(after.contains(&"calls u.ts#use -> a.ts#A.frob [heuristic]".to_string()), "{after:#?}");
    assert!(after.contains(&"calls u2.use2 -> c.C.frob [heuristic]".to_string()), "{after:#?}");
    assert_eq!(repo.export(), repo.fresh_export(&[]), "incremental equals fresh");
}

/// A file named as a target means its module and its definitions in both languages (a
/// TypeScript module's qname is its path); a bare name that is a top-level Python module and
/// also names definitions is ambiguous, not silently the module.
#[test]
fn a_file_target_means_its_definitions_and_a_module_name_can_be_ambiguous() {
    let repo = Repo::new();
    repo.write("src/util.ts", "export function helper() { return 1 }\n");
    repo.write("src/app.ts", "import { helper } from './util';\nexport function start() { helper() }\n");
    repo.write("pkg/__init__.py", "");
    repo.write("pkg/mod.py", "def foo():\n    pass\n");
    repo.write("main.py", "from pkg.mod import foo\n\n\ndef main():\n    foo()\n");
    repo.index_json(&[]);
    for target in ["src/util.ts", "pkg/mod.py", "pkg.mod"] {
        let out = repo.ok(&["query", "callers", target]);
        assert!(out.contains("1 edge(s)"), "callers of {target}: {out}");
    }
    let out = repo.ckg(&["query", "impact", "main"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("\"main\" is ambiguous") && stderr.contains("main (module, main.py:1)"), "{stderr}");
    assert!(stderr.contains("main.main (function, main.py:4)"), "{stderr}");
}

#[test]
fn a_type_query_is_a_reference_to_the_value_it_names() {
    let repo = Repo::new();
    repo.write("lib.ts", "export function makeStore() {\n  return { items: [] };\n}\nexport const KIND = 'memory';\n");
    repo.write(
        "main.ts",
        "import { makeStore, KIND } from './lib';\n\
         export type Shape = ReturnType<typeof makeStore>;\n\
         export interface Options {\n  kind: typeof KIND;\n  size: typeof KIND.length;\n}\n",
    );
    repo.index_json(&[]);
    // `typeof makeStore` in a type: what changes with `makeStore`, at the name.
    let out = repo.ok(&["query", "refs", "makeStore"]);
    assert!(out.contains("2:39  main.ts#Shape references -> lib.ts#makeStore"), "{out}");
    // A constant too, and the first name of a dotted query (`typeof KIND.length` is not a
    // plain name: not listed).
    let out = repo.ok(&["query", "refs", "KIND"]);
    assert!(out.contains("4:16  main.ts#Options references -> lib.ts#KIND"), "{out}");
    assert!(!out.contains("5:"), "{out}");
}

#[test]
fn a_jsx_closing_tag_is_a_reference_site_of_its_component() {
    let repo = Repo::new();
    repo.write(
        "page.tsx",
        "import { createContext } from 'react';\n\
         const Ctx = createContext(null);\n\
         export function List(props: { children: any }) { return <div>{props.children}</div>; }\n\
         export function Page() {\n  return (\n    <Ctx.Provider value={1}>\n      <List>\n        <List />\n      </List>\n    </Ctx.Provider>\n  );\n}\n",
    );
    repo.index_json(&[]);
    // The opening tag, the self-closing one and the closing tag, each where the name is.
    let out = repo.ok(&["query", "refs", "List"]);
    for site in [
        "7:8  page.tsx#Page references -> page.tsx#List",
        "8:10  page.tsx#Page references -> page.tsx#List",
        "9:9  page.tsx#Page references -> page.tsx#List",
    ] {
        assert!(out.contains(site), "{site} missing from\n{out}");
    }
    assert!(out.contains("3 edge(s)"), "{out}");
    // Asked at the closing tag, the definition is the component's.
    let out = repo.ok(&["query", "def", "page.tsx:9:10"]);
    assert!(out.starts_with("page.tsx#List (function) page.tsx:3"), "{out}");
    // A member tag too (`</Ctx.Provider>`, at its last name), and an intrinsic element's closing tag
    // names nothing.
    let out = repo.ok(&["query", "refs", "Ctx"]);
    assert!(out.contains("6:10  page.tsx#Page references -> page.tsx#Ctx"), "{out}");
    assert!(out.contains("10:11  page.tsx#Page references -> page.tsx#Ctx"), "{out}");
    let out = repo.ok(&["query", "sql", "SELECT count(*) FROM edges WHERE dst_name = 'div'"]);
    assert!(out.ends_with("0\n"), "{out}");
}
