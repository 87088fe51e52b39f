//! `ckg plan`: plans of the proving corpora (coverage, order, contracts, the published JSON
//! schema), a scripted partial migration re-checked by `plan status`, verification runs
//! (pass, fail, timeout), decisions, resuming after a kill, and bad input.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use common::{Repo, copy_dir};

fn corpus(name: &str) -> Repo {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora").join(name), repo.path());
    repo.index_json(&[]);
    repo
}

fn json(repo: &Repo, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&repo.ok(args)).unwrap()
}

fn unit<'a>(plan: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    plan["units"].as_array().unwrap().iter().find(|u| u["unit_id"] == id).unwrap_or_else(|| panic!("no unit {id}"))
}

fn states(status: &serde_json::Value) -> Vec<(String, String)> {
    status["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["unit_id"].as_str().unwrap().into(), u["state"].as_str().unwrap().into()))
        .collect()
}

/// `plan status`, checked against an evaluation from scratch (what an edit cannot change is
/// kept between evaluations; the answer must be the same).
fn status(repo: &Repo) -> serde_json::Value {
    let kept = json(repo, &["plan", "status", "--json"]);
    let scratch = json(repo, &["plan", "status", "--recheck", "--json"]);
    assert_eq!(kept["units"], scratch["units"], "an evaluation kept from before differs from one from scratch");
    kept
}

/// Copies the files of an overlay over a repository.
fn overlay(repo: &Repo, name: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/migration").join(name);
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(&root).unwrap().to_str().unwrap().to_string();
                repo.write(&rel, std::fs::read(&p).unwrap());
                files.push(rel);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn the_express_plan_covers_the_framework_in_dependency_order_with_contracts() {
    let repo = corpus("express-app");
    let plan = json(&repo, &["plan", "--pack", "express-to-fastify", "--json"]);
    // Every file that depends on express, directly or through imports, is in one unit.
    let expected: BTreeSet<String> =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/express-app/expected/express-transitive.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect();
    let units = plan["units"].as_array().unwrap();
    let covered: BTreeSet<String> =
        units.iter().flat_map(|u| u["source"]["paths"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string())).collect();
    assert_eq!(covered, expected);
    assert!(covered.contains("src/config/server.ts") && covered.contains("test/helpers/mock.ts"));
    // Dependencies first: each unit comes after every unit it depends on.
    let position = |id: &str| unit(&plan, id)["position"].as_u64().unwrap();
    for u in units {
        for d in u["dependencies"]["units"].as_array().unwrap() {
            assert!(position(d.as_str().unwrap()) < u["position"].as_u64().unwrap(), "{} before {}", u["unit_id"], d);
        }
    }
    // Middleware before the routes that use them, the application after its routers, tests last.
    let auth = position("unit:src/middleware/auth.ts");
    for r in ["books", "cart", "orders", "customers"] {
        assert!(auth < position(&format!("unit:src/routes/{r}.ts")), "auth before {r}");
    }
    assert!(position("unit:src/routes/books.ts") < position("unit:src/app.ts"));
    assert!(position("unit:src/app.ts") < position("unit:test/app.test.ts"));
    // The notes name what the auth middleware provides to routes, and who reads it.
    let notes = unit(&plan, "unit:src/middleware/auth.ts");
    let provides: Vec<&str> = notes["contract"]["provides"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(provides.contains(&"req.user") && provides.contains(&"res.locals.user"), "{provides:?}");
    let user = notes["contract"]["provides"].as_array().unwrap().iter().find(|p| p["name"] == "res.locals.user").unwrap();
    assert!(user["units"].as_array().unwrap().iter().any(|u| u == "unit:src/middleware/logger.ts"), "{user}");
    let roles: BTreeSet<&str> = notes["source"]["roles"].as_array().unwrap().iter().map(|r| r["role"].as_str().unwrap()).collect();
    assert!(roles.contains("middleware") && roles.contains("middleware_factory"));
    assert!(notes["target"]["hints"].as_array().unwrap().iter().any(|h| h["hint"].as_str().unwrap().contains("addHook")));
    let kinds: Vec<&str> = notes["verification"].as_array().unwrap().iter().map(|c| c["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["command", "constraint", "legacy_reference"]);
    let tests = notes["verification"][0]["run"].as_str().unwrap();
    assert!(tests.starts_with("npx jest ") && tests.contains("test/middleware/auth.test.ts"), "{tests}");
    assert!(notes["callers"].as_array().unwrap().iter().any(|c| c["file"] == "src/routes/cart.ts"));
    // Open questions make a unit `needs_decision`; the dynamic `log[level]` is one.
    let logger = unit(&plan, "unit:src/middleware/logger.ts");
    assert_eq!(logger["state"], "needs_decision");
    assert!(logger["open_questions"].as_array().unwrap().iter().any(|q| q["kind"] == "dynamic_site"));
    // Markdown for people.
    let md = repo.ok(&["plan", "--pack", "express-to-fastify", "--format", "md"]);
    assert!(md.starts_with("# Migration plan: express → fastify"), "{md}");
    assert!(md.contains("provides `req.user`"));
}

#[test]
fn the_plan_json_follows_its_published_schema() {
    let repo = corpus("express-app");
    let published: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ckg-agent/schema/plan.schema.json")).unwrap(),
    )
    .unwrap();
    // The published file is the one the code generates.
    let generated: serde_json::Value = serde_json::from_str(&repo.ok(&["plan", "schema"])).unwrap();
    assert_eq!(
        generated, published,
        "ckg-agent/schema/plan.schema.json is out of date: run `ckg plan schema > ckg-agent/schema/plan.schema.json`"
    );
    for (what, args) in [("plan", vec!["plan", "--pack", "express-to-fastify", "--json"]), ("status", vec!["plan", "status", "--json"])] {
        let value = json(&repo, &args);
        let schema = &published[what];
        let errors = common::schema::validate(schema, &value, &schema["$defs"], "$");
        assert!(errors.is_empty(), "{what}: {errors:#?}");
    }
}

#[test]
fn a_partial_migration_is_seen_unit_by_unit() {
    let repo = corpus("express-app");
    repo.ok(&["plan", "--pack", "express-to-fastify", "--json"]);
    let before = status(&repo);
    assert!(states(&before).iter().all(|(_, s)| s == "pending" || s == "needs_decision"), "{before:#}");
    let original_auth = std::fs::read(repo.path().join("src/middleware/auth.ts")).unwrap();
    let ported = overlay(&repo, "express-app-fastify");
    assert_eq!(ported, ["src/middleware/auth.ts", "src/middleware/errorHandler.ts", "src/routes/books.ts", "test/routes/books.test.ts"]);
    repo.index_json(&[]);
    let after = status(&repo);
    for (id, state) in states(&after) {
        let path = id.trim_start_matches("unit:");
        if ported.iter().any(|p| p == path) {
            assert_eq!(state, "done", "{id}: {after:#}");
        } else {
            assert!(state == "pending" || state == "needs_decision", "{id} is {state}");
        }
    }
    // Reverting one file puts its unit back.
    repo.write("src/middleware/auth.ts", original_auth);
    repo.index_json(&[]);
    let reverted = status(&repo);
    let auth = states(&reverted).into_iter().find(|(id, _)| id == "unit:src/middleware/auth.ts").unwrap().1;
    assert_eq!(auth, "pending");
    // The ported books test reaches Express again (its router uses the reverted middleware);
    // the router itself and the error handler stay done.
    let done: Vec<String> = states(&reverted).into_iter().filter(|(_, s)| s == "done").map(|(id, _)| id).collect();
    assert_eq!(done, ["unit:src/middleware/errorHandler.ts", "unit:src/routes/books.ts"]);
}

#[test]
fn a_flask_blueprint_ported_to_fastapi_is_done() {
    let repo = corpus("flask-app");
    repo.ok(&["plan", "--pack", "flask-to-fastapi", "--json"]);
    let ported = overlay(&repo, "flask-app-fastapi");
    repo.index_json(&[]);
    let after = json(&repo, &["plan", "status", "--json"]);
    let done: Vec<String> = states(&after).into_iter().filter(|(_, s)| s == "done").map(|(id, _)| id).collect();
    assert!(done.contains(&"unit:app/health/views.py".to_string()), "{done:?}");
    for id in &done {
        assert!(ported.iter().any(|p| id.ends_with(p.as_str())), "{id} is done but was not ported");
    }
    assert!(states(&after).iter().all(|(_, s)| s != "in_progress" && s != "failed"), "{after:#}");
}

/// A small Express app whose tests are a script: `npm test -- FILES` runs `sh run.sh FILES`.
/// `server.ts` uses Express only through `app.ts`.
fn scripted(test_script: &str) -> Repo {
    let repo = Repo::new();
    repo.write("package.json", r#"{"name": "t", "scripts": {"test": "sh run.sh"}, "dependencies": {"express": "4"}}"#);
    repo.write("run.sh", test_script);
    repo.write(
        "src/app.ts",
        "import express from 'express';\nexport const app = express();\nexport function greeting(): string {\n  return 'hi';\n}\napp.get('/', (req, res) => res.json({ ok: greeting() }));\n",
    );
    repo.write(
        "src/server.ts",
        "import { greeting } from './app';\nexport function start(port: number) {\n  return `${greeting()} on ${port}`;\n}\n",
    );
    repo.write("test/server.test.ts", "import { start } from '../src/server';\ntest('start', () => expect(start).toBeDefined());\n");
    repo.index_json(&[]);
    repo.ok(&["plan", "--pack", "express-to-fastify", "--json"]);
    repo
}

#[test]
fn verification_runs_pass_fail_and_time_out() {
    // npm itself may take seconds to start on a busy machine: only the sleeping script is
    // given a limit it must reach.
    for (script, timeout_s, result, failure) in [
        ("exit 0", "120", "pass", None),
        ("echo 'FAIL test/server.test.ts'; exit 1", "120", "fail", Some("test")),
        ("sleep 30", "2", "timeout", Some("timeout")),
    ] {
        let repo = scripted(script);
        let out = repo.ckg(&["plan", "verify", "unit:src/server.ts", "--timeout-s", timeout_s, "--json"]);
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        let tests = v["runs"].as_array().unwrap().iter().find(|r| r["kind"] == "command").expect("a test command");
        assert_eq!(tests["result"], result, "{v:#}");
        assert_eq!(tests["failure"].as_str(), failure);
        let log = std::fs::read_to_string(tests["output"].as_str().unwrap()).unwrap();
        if result == "fail" {
            assert!(log.contains("FAIL test/server.test.ts"), "{log}");
        }
        // server.ts itself never used express: with passing tests it is done.
        assert_eq!(v["state"], if result == "pass" { "done" } else { "failed" }, "{v:#}");
        let status = json(&repo, &["plan", "status", "--json"]);
        let state = states(&status).into_iter().find(|(id, _)| id == "unit:src/server.ts").unwrap().1;
        assert_eq!(state, if result == "pass" { "done" } else { "failed" });
    }
}

#[test]
fn decisions_resume_after_a_kill_and_bad_input_is_refused() {
    let repo = corpus("express-app");
    repo.ok(&["plan", "--pack", "express-to-fastify", "--json"]);
    let q = "dynamic_site:src/middleware/logger.ts:34:0";
    repo.ok(&["plan", "decide", "unit:src/middleware/logger.ts", q, "--answer", "log[level] only calls console methods"]);
    let status = json(&repo, &["plan", "status", "--json"]);
    let logger = status["units"].as_array().unwrap().iter().find(|u| u["unit_id"] == "unit:src/middleware/logger.ts").unwrap();
    assert_eq!(logger["state"], "pending", "a decided question no longer blocks: {logger}");

    // A verification killed mid-run loses nothing recorded before it.
    repo.write("package.json", r#"{"name": "t", "scripts": {"test": "sleep 30"}, "devDependencies": {"jest": "29"}}"#);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ckg"))
        .args(["plan", "verify", "unit:src/middleware/auth.ts"])
        .current_dir(repo.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    let status = json(&repo, &["plan", "status", "--json"]);
    let logger = status["units"].as_array().unwrap().iter().find(|u| u["unit_id"] == "unit:src/middleware/logger.ts").unwrap();
    assert_eq!(logger["undecided"].as_array().unwrap().len(), 0);
    assert!(status["units"].as_array().unwrap().len() > 30);

    // Bad input: an unknown pack, a pack that is not a migration, an unknown unit or question.
    for (args, message) in [
        (vec!["plan", "--pack", "nope"], "unknown pack \"nope\""),
        (vec!["plan", "--pack", "express"], "express is not a migration pack"),
        (vec!["plan", "verify", "unit:src/nope.ts"], "no unit \"unit:src/nope.ts\" in the plan"),
        (vec!["plan", "decide", "unit:src/app.ts", "x", "--answer", "y"], "has no open question \"x\""),
    ] {
        let out = repo.ckg(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(message), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // A ledger made for another index is refused.
    let other = corpus("express-app");
    std::fs::copy(repo.path().join(".ckg/plan.db"), other.path().join(".ckg/plan.db")).unwrap();
    let out = other.ckg(&["plan", "status"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("was made for another index"), "{}", String::from_utf8_lossy(&out.stderr));
    // No plan yet.
    let fresh = corpus("express-app");
    let out = fresh.ckg(&["plan", "status"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no plan yet"));
}
