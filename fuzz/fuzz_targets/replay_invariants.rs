//! Small arbitrary clusters and workloads, replayed and checked under every policy.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_tests::fuzz_bodies::replay_invariants(data));
