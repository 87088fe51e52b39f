//! One file of any bytes, in any language, through extraction (see `checks::extract`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckg_fuzz::checks::extract::fuzz(data));
