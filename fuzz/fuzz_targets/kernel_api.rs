//! Arbitrary kernel API call sequences, valid or not, under every policy.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_tests::fuzz_bodies::kernel_api(data));
