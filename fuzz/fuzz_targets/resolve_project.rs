//! Small generated projects indexed end to end (see `checks::project`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckg_fuzz::checks::project::fuzz(data));
