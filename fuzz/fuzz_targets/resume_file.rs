//! host-cli's replay checkpoint files (real ones damaged, or raw bytes) into the checks of `replay --resume`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_tests::fuzz_bodies::resume_file(data));
