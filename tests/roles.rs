//! Framework roles on the two proving corpora, against hand-written expected sets
//! (`corpora/{express-app,flask-app}/expected/roles.tsv`, written from reading the code and
//! checked against the frameworks at runtime and the TypeScript checker): every occurrence
//! reported must be expected, no look-alike (`lookalikes.tsv`) may be reported as a role, and
//! every expected occurrence must be found except the few listed here with the reason.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{Repo, copy_dir};

type Row = (String, String, u32, String);

fn tsv(corpus: &str, name: &str) -> Vec<Vec<String>> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora").join(corpus).join("expected").join(name);
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

fn roles_of(corpus: &str, pack: &str) -> (Repo, serde_json::Value) {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora").join(corpus), repo.path());
    repo.index_json(&[]);
    let out = repo.ok(&["query", "roles", "--pack", pack, "--json"]);
    (repo, serde_json::from_str(&out).unwrap())
}

/// Compares a corpus's roles with its expected sets; prints the per-role table.
fn check(corpus: &str, pack: &str, known_misses: &[(&str, &str, u32, &str)]) -> serde_json::Value {
    let (_repo, answer) = roles_of(corpus, pack);
    let got: BTreeSet<Row> = answer["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["role"].as_str().unwrap().into(),
                r["file"].as_str().unwrap().into(),
                r["line"].as_u64().unwrap() as u32,
                r["name"].as_str().unwrap().into(),
            )
        })
        .collect();
    let expected: BTreeSet<Row> =
        tsv(corpus, "roles.tsv").into_iter().map(|r| (r[0].clone(), r[1].clone(), r[2].parse().unwrap(), r[3].clone())).collect();
    let lookalikes: BTreeSet<(String, u32, String)> =
        tsv(corpus, "lookalikes.tsv").into_iter().map(|r| (r[0].clone(), r[1].parse().unwrap(), r[2].clone())).collect();

    let mut table: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for r in &expected {
        table.entry(&r.0).or_default().0 += 1;
    }
    for r in &got {
        let e = table.entry(&r.0).or_default();
        e.2 += 1;
        if expected.contains(r) {
            e.1 += 1;
        }
    }
    println!("{corpus} roles: role, expected, found, reported");
    for (role, (e, f, r)) in &table {
        println!("  {role:<24} {e:>4} {f:>4} {r:>4}");
    }
    let (e, f, r) = table.values().fold((0, 0, 0), |a, v| (a.0 + v.0, a.1 + v.1, a.2 + v.2));
    println!("  {:<24} {e:>4} {f:>4} {r:>4}  (recall {:.3}, precision {:.3})", "TOTAL", f as f64 / e as f64, f as f64 / r.max(1) as f64);

    let as_lookalike: Vec<&Row> = got.iter().filter(|r| lookalikes.contains(&(r.1.clone(), r.2, r.3.clone()))).collect();
    assert!(as_lookalike.is_empty(), "look-alikes reported as roles: {as_lookalike:#?}");
    let extra: Vec<&Row> = got.difference(&expected).collect();
    assert!(extra.is_empty(), "reported but not expected: {extra:#?}");
    let missing: BTreeSet<Row> = expected.difference(&got).cloned().collect();
    let known: BTreeSet<Row> = known_misses.iter().map(|(r, f, l, n)| (r.to_string(), f.to_string(), *l, n.to_string())).collect();
    assert_eq!(missing, known, "expected occurrences not found (left) differ from the known misses (right)");
    answer
}

#[test]
fn express_app_roles_are_the_expected_ones() {
    // Each needs TypeScript's type inference, which ckg does not do: a callback's parameter
    // typed by the interface of the option it is passed in (`skip: (req) => …` in
    // `RateLimitOptions`), and values typed by a mock's inferred return type.
    let known = [
        ("req_res_api", "src/middleware/rateLimiter.ts", 97, "req.path"),
        ("req_res_api", "src/routes/auth.ts", 16, "req.body"),
        ("req_res_api", "src/routes/auth.ts", 16, "req.ip"),
        ("req_res_api", "test/middleware/auth.test.ts", 44, "res.locals"),
        ("req_res_api", "test/middleware/errorHandler.test.ts", 15, "res.statusCode"),
        ("req_res_api", "test/middleware/errorHandler.test.ts", 21, "res.statusCode"),
        ("req_res_api", "test/middleware/errorHandler.test.ts", 27, "run(parseError).statusCode"),
        ("req_res_api", "test/middleware/errorHandler.test.ts", 32, "res.statusCode"),
        ("req_res_api", "test/middleware/errorHandler.test.ts", 43, "res.status"),
        ("req_res_api", "test/middleware/errorHandler.test.ts", 48, "res.locals"),
    ];
    let answer = check("express-app", "express", &known);
    // Each occurrence names its registration and the edges that prove it.
    let roles = answer["roles"].as_array().unwrap();
    let handler = roles.iter().find(|r| r["role"] == "error_handler").unwrap();
    assert_eq!(handler["registered_at"]["file"], "src/app.ts");
    assert_eq!(handler["registered_at"]["line"], 85);
    assert!(handler["evidence"].as_array().unwrap().iter().any(|e| e["dst"] == "src/middleware/errorHandler.ts#errorHandler"));
    // Routers say where they are mounted.
    let reviews = roles.iter().find(|r| r["role"] == "router" && r["file"] == "src/routes/reviews.ts").unwrap();
    assert_eq!(reviews["detail"]["mounted_at"], "src/app.ts:72 /api/books/:bookId/reviews; src/app.ts:74 /api/reviews");
    // Unregistered functions of the handler shape are candidates, apart from the roles.
    let candidates: Vec<&str> = answer["candidates"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert!(candidates.contains(&"requireJson"), "{candidates:?}");
}

#[test]
fn flask_app_roles_are_the_expected_ones() {
    let answer = check("flask-app", "flask", &[]);
    let roles = answer["roles"].as_array().unwrap();
    let route = roles.iter().find(|r| r["role"] == "route" && r["name"] == "book_by_isbn").unwrap();
    assert!(route["detail"]["path"].as_str().unwrap().contains("isbn"), "{route}");
    // Decorators of another library named like Flask's are candidates, not roles.
    assert!(answer["candidates"].as_array().unwrap().iter().any(|c| c["role"] == "route"), "{}", answer["candidates"]);
}
