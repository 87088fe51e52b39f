//! The proving scenario: `corpora/express-app`. The files linked to `express` (directly or
//! through the import chain) and the users of `authMiddleware` must be exactly the sets
//! written down in `corpora/express-app/expected/`.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{Repo, copy_dir};

fn expected(name: &str) -> BTreeSet<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/express-app/expected").join(name);
    std::fs::read_to_string(p).unwrap().lines().filter(|l| !l.is_empty()).map(String::from).collect()
}

fn impacted_files(repo: &Repo, target: &str, depth: &str) -> BTreeSet<String> {
    let out = repo.ok(&["query", "impact", target, "--depth", depth, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect()
}

fn indexed_copy() -> Repo {
    let repo = Repo::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/express-app");
    copy_dir(&src, repo.path());
    repo.index_json(&[]);
    repo
}

#[test]
fn files_linked_to_express_are_exactly_the_expected_set() {
    let repo = indexed_copy();
    // The files with an `imports` edge to the package itself.
    let out = repo.ok(&["query", "impact", "express", "--depth", "1", "--kind", "imports", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let direct: BTreeSet<String> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["edges"].as_array().unwrap().iter().any(|e| e["dst"] == "express"))
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(direct, expected("express-direct.txt"));
    let all = impacted_files(&repo, "express", "20");
    assert_eq!(all, expected("express-transitive.txt"));
    assert!(all.contains("src/config/server.ts") && all.contains("test/helpers/mock.ts"));
}

#[test]
fn every_user_of_auth_middleware_is_found() {
    let repo = indexed_copy();
    let users = impacted_files(&repo, "authMiddleware", "1");
    assert_eq!(users, expected("auth-middleware-users.txt"));
}

#[test]
fn express_static_in_config_server_is_an_exact_call_edge() {
    let repo = indexed_copy();
    let out = repo.ok(&["query", "impact", "express.static", "--depth", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files = v["files"].as_array().unwrap();
    let server = files.iter().find(|f| f["path"] == "src/config/server.ts").expect("config/server.ts uses express.static");
    assert!(
        server["edges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "calls" && e["dst"] == "express.static" && e["evidence"] == "exact")
    );
}
