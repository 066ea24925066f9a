//! Farm descriptions and job lists (raw or built from the formats' keys) into the farm readers.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_tests::fuzz_bodies::farm_parse(data));
