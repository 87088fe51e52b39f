//! The read-only SQL guard on any statement (see `checks::sql`).
#![no_main]

use ckg_fuzz::checks::{project, sql::Guarded};

thread_local! {
    static GUARDED: Guarded = {
        let sample = project::sample_index();
        Guarded::copy_of(&ckg_core::index::default_db_path(sample.path()))
    };
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| GUARDED.with(|g| g.fuzz(data)));
