//! Test support for the backfill workspace: the invariant checker, workload
//! generators, a reference profile model and the bodies of the fuzz targets.
//!
//! * [`fixtures`]: test jobs from named fields
//!   (`job(2).submit(1).procs(8).estimate(50)`), the same file core's unit
//!   tests use.
//! * [`check`]: [`check::replay`] a workload through core's simulator into a
//!   [`check::RunLog`], and [`check::check`] it against `docs/design.md`, "Invariants",
//!   getting a [`check::Violation`] that names rule, job and time.
//! * [`figures`]: every figure a report prints, recomputed from the
//!   per-job records ([`figures::check_metrics`], [`figures::check_report`]).
//! * [`scenario`]: small random clusters and workloads
//!   ([`scenario::ScenarioSpec`]) and [`scenario::Scenario::verify`], which
//!   replays one under every policy and checks everything.
//! * [`mod@reference`]: a brute-force per-second model of a profile.
//! * [`naive`]: a naive reference simulator of whole replays on one machine
//!   ([`naive::simulate`]), written from `docs/design.md` rather than from the
//!   kernel, and [`naive::compare`], which finds the first job on which a
//!   kernel replay differs from it (start, end, kill, guarantee);
//!   [`naive::simulate_explained`] adds every pass's start kinds, pending
//!   reasons and expected starts, written from the same rules.
//! * [`fuzz_bodies`]: the fuzz targets' bodies, shared by `fuzz/` (nightly,
//!   libFuzzer) and `tests/it/fuzz_twins.rs` (stable).
//! * [`rng`]: core's seeded SplitMix64, with the draws the generators use.
//! * [`traces`]: the archive traces' folder, from `BACKFILL_TRACES_DIR`.
//! * [`checkpoints`]: replays stopped, checkpointed, restored and resumed,
//!   compared with replays that never stopped.

pub mod check;
pub mod checkpoints;
pub mod figures;
#[path = "../../core/src/sim/fixtures.rs"]
pub mod fixtures;
pub mod fuzz_bodies;
pub mod naive;
pub mod reference;
pub mod rng;
pub mod scenario;
pub mod traces;

/// How many cases a property test runs: `PROPTEST_CASES` when set (for
/// long bug hunts in release builds), else `default`.
#[must_use]
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

// The names `fixtures` takes from the crate root, as it does in core.
use backfill_core::{
    Duration, Job, JobId, JobRecord, LicenseSet, Machine, MachineId, Procs, SimJob, Sink, Slot,
    Time,
};
