//! The reference blob decoder on any bytes (see `checks::refblob`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ckg_fuzz::checks::refblob::fuzz(data));
