//! Arbitrary call sequences on the C ABI, misuse included (NULL pointers,
//! small or misaligned buffers, uninitialised or released handles, garbage
//! handles, out-of-range options, re-entrant callbacks), on every tier:
//! every call returns a status, each misuse the one naming it, and every
//! live kernel validates after every call.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| backfill_ffi::fuzzing::c_abi(data));
