//! Integration tests: one binary (see nexosim's tests/integration/main.rs).
//!
//! * `checker`: the invariant checker fails on deliberately broken logs,
//!   passes on hand-checked ones, and is fast on 300,000-job logs.
//! * `properties`: proptest workloads under every policy.
//! * `fuzz_twins`: the fuzz targets' bodies on stable, over the committed
//!   corpus and seeded random bytes.
//! * `real_traces`: replays of the archive traces in `$BACKFILL_TRACES_DIR`.
//! * `dpsa`: DPSA against EASY and against an independent optimum.
//! * `reference`: the kernel against the naive reference simulator on
//!   random small workloads, every policy.
//! * `reasons`: pending reasons, start kinds and expected starts against
//!   the naive reference, the live query and the promises of
//!   `docs/design.md`, "Expected starts".
//! * `farm`: flexible backfilling (BF_FCFS, BF_UNMOD, BF_MOD) against its
//!   equivalences and the checker on random and generated farms.
//! * `layers`: neither crate's modules use a module above them.
//! * `checkpoint`: replays stopped at any instant, checkpointed, restored
//!   and resumed continue as those that never stopped.

mod checker;
mod checkpoint;
mod dpsa;
mod farm;
mod fuzz_twins;
mod layers;
mod properties;
mod real_traces;
mod reasons;
mod reference;
