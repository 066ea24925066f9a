//! Plan files (raw or built from the format's keys) into the plan parser and its cell expansion.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_tests::fuzz_bodies::plan_parse(data));
