//! Test support for the backfill workspace: the invariant checker, workload
//! generators, a reference profile model and the bodies of the fuzz targets.
//!
//! * [`check`]: [`check::replay`] a workload through core's simulator into a
//!   [`check::RunLog`], and [`check::check`] it against DESIGN.md section 6,
//!   getting a [`check::Violation`] that names rule, job and time.
//! * [`scenario`]: small random clusters and workloads
//!   ([`scenario::ScenarioSpec`]) and [`scenario::Scenario::verify`], which
//!   replays one under every policy and checks everything.
//! * [`mod@reference`]: a brute-force per-second model of a profile.
//! * [`naive`]: a naive reference simulator of whole replays on one machine
//!   ([`naive::simulate`]), written from DESIGN.md rather than from the
//!   kernel, and [`naive::compare`], which finds the first job on which a
//!   kernel replay differs from it (start, end, kill, guarantee).
//! * [`fuzz_bodies`]: the fuzz targets' bodies, shared by `fuzz/` (nightly,
//!   libFuzzer) and `tests/it/fuzz_twins.rs` (stable).
//! * [`rng`]: a seeded SplitMix64.
//! * [`checkpoints`]: replays stopped, checkpointed, restored and resumed,
//!   compared with replays that never stopped.

pub mod check;
pub mod checkpoints;
pub mod fuzz_bodies;
pub mod naive;
pub mod reference;
pub mod rng;
pub mod scenario;
