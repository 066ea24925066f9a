//! A `no_std`, allocation-free, deterministic batch-job backfilling kernel.
//!
//! # Layers
//!
//! From the bottom up; each layer only uses the ones below it.
//!
//! * [`types`]: value types. Time is whole seconds in a `u32`
//!   ([`Time`], [`Duration`]); a [`Job`] is what the scheduler sees (submit,
//!   processors, estimate, deadline, licenses, priority); a [`Cluster`] is a
//!   list of [`Machine`]s (processors, speed) and floating [`LicensePool`]s.
//!   An SWF system is one machine. Job [`Category`]s (short/long,
//!   narrow/wide), which Selective-D and the metrics share.
//! * [`profile`]: the availability [`Profile`] of one resource over time
//!   (sorted steps, fixed capacity, documented invariants, `validate()`).
//! * [`plan`]: one profile per machine and license pool; joint earliest fit
//!   over machines and licenses, yielding a [`Slot`].
//! * [`reason`]: why a queued job waits ([`Reason`]), how a job started
//!   ([`StartKind`]) and when a waiting job is expected to start
//!   ([`ExpectedStart`]), which the policies report to an observer that
//!   asks and [`Kernel::waiting`] gives for the queue as it stands.
//! * the tally (private): for FCFS, EASY and SJF-EASY on one machine
//!   without licenses, free processors now and the running jobs' estimated
//!   ends, which is all those policies ask, kept instead of a plan.
//! * the kernel's state (private): clock, wait queue, running set and plan
//!   (or tally),
//!   with the moves every policy shares (start a job); it defines the API's
//!   values ([`KernelError`], [`Observer`], [`QueuedJob`], [`RunningJob`],
//!   [`Pass`], [`Counters`]).
//! * [`policy`]: the policies ([`Policy`]), one file per family
//!   (`policy/fcfs.rs`, `easy.rs`, `conservative.rs`, `selective.rs`,
//!   `cons_rs.rs`, `dpsa.rs`, `flexible.rs`),
//!   each working on that state.
//! * [`checkpoint`]: the checkpoint format (header, CRC-32, the fields of
//!   the state, [`RestoreError`]) that the kernel and the replay loop write
//!   their state in and restore it from.
//! * [`kernel`]: the [`Kernel`], which holds the state and dispatches to the
//!   policy by value; a firmware controller or the replay loop drives it
//!   with `submit` / `complete` / `schedule` / `next_wakeup`, and
//!   `checkpoint` / `restore` it.
//! * [`sim`]: the deterministic replay loop ([`Simulator`]), killing jobs at
//!   their estimate, reporting finished jobs to a [`Sink`].
//! * [`metrics`]: streaming accumulators over what the replay loop reports
//!   (wait, bounded slowdown, turnaround, utilisation, per job category).
//!
//! # Promises
//!
//! * No heap: every table has a const-generic capacity (`Q` queued jobs, `R`
//!   running jobs, `B` profile steps, `M` machines, `L` license pools);
//!   a full table is a returned error, never a panic or a silent drop.
//! * No panics on any input: no `unwrap`, no unchecked indexing, checked or
//!   saturating arithmetic (lints below enforce this outside tests).
//! * Deterministic: the same calls give the same decisions, bit for bit.
//!   Decisions use integers only.
//! * The caller supplies the time; the kernel never reads a clock.
//!
//! # Non-goals
//!
//! Preemption, job migration, malleable jobs, wall-clock budgets (budgets are
//! iteration counts, so replays stay reproducible).
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::cast_possible_truncation,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

#[cfg(test)]
extern crate std;

pub mod checkpoint;
mod deck;
pub mod kernel;
pub mod metrics;
pub mod plan;
pub mod policy;
pub mod profile;
pub mod reason;
pub mod rng;
pub mod sim;
mod state;
mod tally;
pub mod types;

pub use checkpoint::{CheckpointError, RestoreError};
pub use kernel::{Counters, Kernel, KernelError, Observer, Pass, QueuedJob, RunningJob};
pub use metrics::{Accumulator, Metrics};
pub use plan::{Plan, Slot};
pub use policy::Policy;
pub use profile::{Profile, ProfileError, Step};
pub use reason::{ExpectedStart, Reason, StartKind, Waiting};
pub use sim::{
    Call, JobRecord, Outcome, Progress, SimError, SimErrorKind, SimJob, Simulator, Sink,
};
pub use types::{
    Category, CategoryBounds, Cluster, ClusterError, Duration, Job, JobId, LicensePool, LicenseSet,
    Machine, MachineId, MachineSet, Procs, Time, REFERENCE_SPEED,
};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
