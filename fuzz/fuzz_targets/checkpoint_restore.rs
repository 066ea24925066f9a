//! Arbitrary bytes, and damaged real checkpoints, into `Kernel::restore`
//! and `Simulator::restore`: never a panic; what is accepted validates and
//! is written back the same; what is refused is left unchanged.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_tests::fuzz_bodies::checkpoint_restore(data));
