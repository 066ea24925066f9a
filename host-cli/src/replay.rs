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
//!   the jobs the kernel refused; [`run::run_timed`] also times every kernel
//!   call (a [`Latency`] histogram, [`latency`]: `replay --latency`;
//!   untimed, a replay reads no clock per call). [`run_observed`] does the
//!   same as [`run()`] and lets an [`ArrivalObserver`], built on the replay
//!   thread, look at the kernel as each job arrives (the fairness analysis
//!   computes fair-start times so);
//! * [`steady`]: warm-up and cool-down jobs left out of the metrics;
//! * [`stream`]: a replay that runs while its trace is read, used when it
//!   saw exactly the jobs the replay would;
//! * [`checkpoint`]: `replay --checkpoint-every` and `--resume`: a
//!   replay's checkpoint files, written atomically, and the checks before a
//!   replay continues from one ([`run::run_checkpointed`] drives it).

pub mod checkpoint;
pub(crate) mod kernels;
pub(crate) mod latency;
pub(crate) mod policy;
pub(crate) mod prepare;
pub(crate) mod reasons;
pub(crate) mod run;
pub(crate) mod steady;
pub mod stream;
pub(crate) mod thresholds;

pub(crate) use kernels::prebuild;
pub(crate) use kernels::TraceCluster;
pub use kernels::TraceKernel;
pub use kernels::QUEUE_CAPACITY;
pub use kernels::RUNNING_CAPACITY;
pub use kernels::STEP_CAPACITY;
pub(crate) use latency::{CallTimes, Latency};
pub(crate) use prepare::kernel_job;
pub(crate) use prepare::machine_size;
pub(crate) use prepare::machine_source_words;
pub use prepare::prepare;
pub(crate) use prepare::prepare_synthetic;
pub use prepare::Estimates;
pub(crate) use prepare::MachineSource;
pub use prepare::Prepared;
pub use prepare::Shaping;
pub use prepare::Window;
pub use run::run;
pub(crate) use run::run_observed;
pub(crate) use run::ArrivalObserver;
pub use run::RunResult;
