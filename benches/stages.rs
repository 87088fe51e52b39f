//! Criterion benches per pipeline stage on a generated 100k-line repository (TypeScript and
//! Python): walk (discovery), parse + extract, store (writing the facts of every file in one
//! transaction) and resolve (binding all references), each reported as files/s.
//!
//! `cargo bench --bench stages`

use std::path::PathBuf;
use std::time::Duration;

use ckg_core::discover::{DiscoverConfig, discover};
use ckg_core::extract::Extractor;
use ckg_core::facts::FileRecord;
use ckg_core::store::{ResolveInput, Store};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

fn corpus(lang: ckg_gen::Lang) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target").join(format!("bench-stages-{lang:?}"));
    if !dir.exists() {
        ckg_gen::generate(&ckg_gen::Config { lang, lines: 100_000, seed: 5 }, &dir).unwrap();
    }
    dir
}

fn records(root: &std::path::Path) -> Vec<FileRecord> {
    let d = discover(root, &DiscoverConfig::default()).unwrap();
    let mut ex = Extractor::new();
    d.files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(&f.abs).unwrap();
            FileRecord {
                path: f.path.clone(),
                lang: f.lang,
                hash: xxhash_rust::xxh3::xxh3_64(&bytes),
                size: bytes.len() as u64,
                mtime_ns: f.mtime_ns,
                module: f.module.clone(),
                facts: ex.extract(f.lang, &f.module, &bytes),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    for lang in [ckg_gen::Lang::TypeScript, ckg_gen::Lang::Python] {
        let root = corpus(lang);
        let recs = records(&root);
        let files = recs.len() as u64;
        let mut g = c.benchmark_group(format!("stages_{lang:?}").to_lowercase());
        g.throughput(Throughput::Elements(files));
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(5));
        g.bench_function("walk", |b| b.iter(|| discover(&root, &DiscoverConfig::default()).unwrap()));
        let d = discover(&root, &DiscoverConfig::default()).unwrap();
        let sources: Vec<_> = d.files.iter().map(|f| (f.lang, f.module.clone(), std::fs::read(&f.abs).unwrap())).collect();
        g.bench_function("parse_extract", |b| {
            let mut ex = Extractor::new();
            b.iter(|| {
                for (lang, module, bytes) in &sources {
                    std::hint::black_box(ex.extract(*lang, module, bytes));
                }
            })
        });
        g.bench_function("store", |b| {
            b.iter_batched(
                || tempfile::tempdir().unwrap(),
                |dir| {
                    let (mut store, _) = Store::open(&dir.path().join("index.db"), false).unwrap();
                    let tx = store.begin().unwrap();
                    for r in &recs {
                        tx.put_file(r).unwrap();
                    }
                    tx.commit("{}", dir.path()).unwrap();
                    store.finish().unwrap();
                },
                BatchSize::PerIteration,
            )
        });
        // Resolution input as a fresh build assembles it.
        let dir = tempfile::tempdir().unwrap();
        let (mut store, _) = Store::open(&dir.path().join("index.db"), false).unwrap();
        let mut input = ResolveInput::default();
        {
            let tx = store.begin().unwrap();
            for r in &recs {
                let (id, ids) = tx.put_file(r).unwrap();
                input.add_file(id, r.clone(), &ids);
            }
        }
        input.files.sort_by(|a, b| a.path.cmp(&b.path));
        g.bench_function("resolve", |b| b.iter(|| ckg_core::resolve::resolve(&input, None)));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
