//! Real files changed node by node, through extraction (see `checks::mutate`).
#![no_main]

use std::sync::LazyLock;

use ckg_fuzz::checks::seeds::{self, Seed};

static SEEDS: LazyLock<Vec<Seed>> = LazyLock::new(|| seeds::load(&seeds::repo_root(env!("CARGO_MANIFEST_DIR"))));

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckg_fuzz::checks::mutate::fuzz(&SEEDS, data));
