//! Any request to any endpoint of the HTTP service (see `checks::http`).
#![no_main]

use std::sync::LazyLock;

use ckg_fuzz::checks::http::Harness;

static HARNESS: LazyLock<Harness> = LazyLock::new(Harness::new);

libfuzzer_sys::fuzz_target!(|data: &[u8]| HARNESS.fuzz(data));
