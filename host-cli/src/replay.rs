//! Turning a trace into kernel jobs and replaying it.
//!
//! * [`prepare`](mod@prepare): [`prepare()`] applies the SWF rules (via
//!   [`crate::swf::select`]), the window, `--estimates`, `--load` and the
//!   machine size, and numbers the jobs `0..n` in replay order (the
//!   kernel's job id; the trace's job number is kept beside it);
//! * [`policy`]: the policy a replay runs, from the command line's choice,
//!   with Selective's [`thresholds`] and the search policies' options;
//! * [`kernels`]: the four kernel sizes a replay moves through, and the one
//!   built while the trace is read;
//! * [`run`](mod@run): [`run()`] drives the core `Simulator` over the
//!   prepared jobs on a thread with a large stack (the kernel is one
//!   fixed-size value) and collects metrics, optional per-job records and
//!   the jobs the kernel refused; [`run_timed`] also times every kernel
//!   call (a [`Latency`] histogram, [`latency`]: `replay --latency`;
//!   untimed, a replay reads no clock per call). [`run_observed`] does the
//!   same as [`run()`] and lets an [`ArrivalObserver`], built on the replay
//!   thread, look at the kernel as each job arrives (the fairness analysis
//!   computes fair-start times so);
//! * [`stream`]: a replay that runs while its trace is read, used when it
//!   saw exactly the jobs the replay would.

pub mod kernels;
pub mod latency;
pub mod policy;
pub mod prepare;
pub mod run;
pub mod stream;
pub mod thresholds;

pub use kernels::{
    prebuild, TraceCluster, TraceKernel, TracePlan, QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY,
};
pub use latency::{Latency, LATENCY_BUCKETS};
pub use prepare::{
    kernel_job, machine_size, machine_source_words, peak_usage, prepare, prepare_synthetic,
    scale_time, scale_time_checked, Estimates, MachineSource, Prepared, Shaping, Window,
};
pub use run::{run, run_observed, run_timed, ArrivalObserver, RunResult};
