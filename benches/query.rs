//! Query latency on a generated 1M-line repository (TypeScript, `ckg-gen`, seed 7).
//!
//! Prints p50/p95 over many targets for callers, refs, impact (depth 5), path and cycles,
//! next to an in-memory petgraph alternative for the reverse walk (including its load cost),
//! then runs criterion on representative queries for medians.
//!
//! `cargo bench --bench query` (set CKG_BENCH_LINES to change the size).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ckg_query::{ImpactOptions, Index};
use criterion::{Criterion, criterion_group, criterion_main};

fn corpus() -> PathBuf {
    let lines: usize = std::env::var("CKG_BENCH_LINES").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target").join(format!("bench-corpus-ts-{lines}"));
    let db = dir.join(".ckg/index.db");
    if !db.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        let t = Instant::now();
        ckg_gen::generate(&ckg_gen::Config { lang: ckg_gen::Lang::TypeScript, lines, seed: 7 }, &dir).unwrap();
        eprintln!("generated {lines} lines in {:.1?}", t.elapsed());
        let t = Instant::now();
        let s = ckg_core::index::index(&ckg_core::index::IndexConfig::new(&dir), &|_| {}).unwrap();
        eprintln!("indexed {} lines, {} symbols in {:.1?}", s.lines, s.symbols, t.elapsed());
    }
    db
}

fn percentiles(mut d: Vec<Duration>) -> (f64, f64, f64) {
    d.sort();
    let at = |q: f64| d[((d.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1e3;
    (at(0.5), at(0.95), at(1.0))
}

fn report(name: &str, d: Vec<Duration>) {
    let n = d.len();
    let (p50, p95, max) = percentiles(d);
    println!("{name:<34} n={n:<4} p50 {p50:>8.3} ms  p95 {p95:>8.3} ms  max {max:>8.3} ms");
}

fn targets(index: &Index, n: usize) -> Vec<String> {
    let a = index
        .sql("SELECT qname FROM symbols WHERE kind IN ('function', 'method', 'class') ORDER BY qname", 1_000_000, Duration::from_secs(60))
        .unwrap();
    let all: Vec<String> = a.rows.into_iter().map(|r| r[0].as_str().unwrap().to_string()).collect();
    let step = (all.len() / n).max(1);
    all.into_iter().step_by(step).take(n).collect()
}

fn bench(c: &mut Criterion) {
    let db = corpus();
    let index = Index::open(&db).unwrap();
    let sample = targets(&index, 300);
    println!("\nquery latency, {} targets, generated 1M-line TypeScript repository", sample.len());
    let time = |f: &mut dyn FnMut(&str)| -> Vec<Duration> {
        sample
            .iter()
            .map(|t| {
                let s = Instant::now();
                f(t);
                s.elapsed()
            })
            .collect()
    };
    report("callers (depth 1)", time(&mut |t| drop(index.callers(t, 1).unwrap())));
    report("refs", time(&mut |t| drop(index.refs(t).unwrap())));
    report("callers (depth 3)", time(&mut |t| drop(index.callers(t, 3).unwrap())));
    let opts = ImpactOptions { depth: 5, ..ImpactOptions::default() };
    report("impact (depth 5)", time(&mut |t| drop(index.impact(t, &opts).unwrap())));
    let pairs: Vec<(String, String)> = sample.iter().zip(sample.iter().rev()).map(|(a, b)| (a.clone(), b.clone())).take(100).collect();
    let mut d = Vec::new();
    for (a, b) in &pairs {
        let s = Instant::now();
        drop(index.path(a, b, 16).unwrap());
        d.push(s.elapsed());
    }
    report("path (max 16)", d);
    let mut d = Vec::new();
    for _ in 0..5 {
        let s = Instant::now();
        drop(index.cycles().unwrap());
        d.push(s.elapsed());
    }
    report("cycles (imports + calls)", d);

    // The alternative: the whole reverse graph in memory (petgraph-style adjacency).
    let s = Instant::now();
    let edges = index.sql("SELECT dst_id, src_id FROM edges WHERE dst_id IS NOT NULL", 100_000_000, Duration::from_secs(600)).unwrap();
    let mut rev: HashMap<i64, Vec<i64>> = HashMap::new();
    for r in &edges.rows {
        rev.entry(r[0].as_i64().unwrap()).or_default().push(r[1].as_i64().unwrap());
    }
    let load = s.elapsed();
    println!("in-memory reverse graph: {} edges loaded in {:.1} ms", edges.rows.len(), load.as_secs_f64() * 1e3);
    let ids = index.sql("SELECT id, qname FROM symbols", 100_000_000, Duration::from_secs(600)).unwrap();
    let by_q: HashMap<String, i64> = ids.rows.iter().map(|r| (r[1].as_str().unwrap().to_string(), r[0].as_i64().unwrap())).collect();
    report(
        "in-memory reverse walk (depth 5)",
        time(&mut |t| {
            let start = by_q[t];
            let mut seen = HashSet::from([start]);
            let mut q = VecDeque::from([(start, 0)]);
            while let Some((n, d)) = q.pop_front() {
                if d == 5 {
                    continue;
                }
                for &m in rev.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
                    if seen.insert(m) {
                        q.push_back((m, d + 1));
                    }
                }
            }
        }),
    );

    let t = sample[sample.len() / 2].clone();
    c.bench_function("callers", |b| b.iter(|| index.callers(&t, 1).unwrap()));
    c.bench_function("refs", |b| b.iter(|| index.refs(&t).unwrap()));
    c.bench_function("impact_depth5", |b| b.iter(|| index.impact(&t, &opts).unwrap()));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
