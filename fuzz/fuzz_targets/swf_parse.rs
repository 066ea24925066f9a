//! Arbitrary bytes into the SWF line parser and file reader.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_tests::fuzz_bodies::swf_parse(data));
