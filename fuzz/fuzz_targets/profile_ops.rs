//! Profile operations against a per-second reference model.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_tests::fuzz_bodies::profile_ops(data));
