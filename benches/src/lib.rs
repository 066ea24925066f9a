//! Shared workload builders for the criterion benches of the backfill kernel.
//!
//! Two benches use these helpers (`cargo bench -p backfill-benches`):
//!
//! * `kernel_calls`: the cost of **one** kernel call on a busy machine with
//!   a queue of a given depth. [`busy_kernel`] builds the state once;
//!   every iteration works on a fresh clone of it, so all iterations see the
//!   same state. Measured: [`Kernel::schedule`] right after an early
//!   completion ([`complete_early`]), for every policy, and a Conservative
//!   [`Kernel::submit`] of [`probe_job`].
//! * `replay`: whole-trace replays through the host's replay driver
//!   ([`replay()`], i.e. `backfill_cli::replay::run`, what `host-cli replay`
//!   does) and the parse alone ([`load_prepared`]), for the largest trace in
//!   the traces folder and for CTC-SP2, the trace the speed goals are stated
//!   for. The traces folder is [`traces_dir`]; benches skip a missing trace
//!   with a note.
//!
//! [`size_report`] lists the memory the kernel takes for a given capacity
//! (printed by this crate's tests and by the `kernel_calls` bench).
//!
//! # The busy machine
//!
//! One machine of [`BUSY_PROCS`] processors, fully taken at time 0 by
//! [`RUNNING_JOBS`] jobs of [`RUNNING_WIDTH`] processors each, with
//! staggered estimates. At [`QUEUED_AT`], `depth` jobs arrive (widths 1 to
//! 256, estimates from a minute to 12 hours, drawn from a fixed seed; the
//! first is 512 wide, so FCFS and EASY are blocked by their head) and one
//! pass runs (it starts nothing: no processor is free). At [`COMPLETION_AT`]
//! the first running job ends early and frees [`RUNNING_WIDTH`] processors:
//! the next pass backfills (EASY), re-plans (Conservative compression) or
//! gives up at the head (FCFS).

use backfill_cli::error::CliError;
use backfill_cli::replay::{self, Estimates, Prepared, RunResult, Shaping, Window};
use backfill_cli::swf;
use backfill_core::rng::SplitMix64;
use backfill_core::{
    CategoryBounds, Cluster, Job, JobId, Kernel, KernelError, Policy, QueuedJob, RunningJob, Step,
    Time,
};
use backfill_tests::traces;
use std::path::{Path, PathBuf};

pub use backfill_tests::traces::TRACES_DIR_ENV;

/// The CTC-SP2 trace (77,222 jobs): the speed goals are stated for it.
pub const CTC_TRACE: &str = "CTC-SP2-1996-3.1-cln.swf.gz";
/// The largest trace of the folder by job count (CEA-Curie, 312,826 jobs).
pub const LARGEST_TRACE: &str = "CEA-Curie-2011-2.1-cln.swf.gz";

/// The traces folder: `$BACKFILL_TRACES_DIR` if set (a relative folder
/// taken from where the command ran, as the tests take it:
/// [`backfill_tests::traces`]), else `../shared/traces` relative to the
/// workspace root.
#[must_use]
pub fn traces_dir() -> PathBuf {
    traces::traces_dir().unwrap_or_else(|| traces::workspace_root().join("../shared/traces"))
}

/// The path of trace `file` in [`traces_dir`], or `None` (after printing a
/// note to stderr) when it is not there.
#[must_use]
pub fn trace_path(file: &str) -> Option<PathBuf> {
    let path = traces_dir().join(file);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "note: {} not found; set {TRACES_DIR_ENV} to the traces folder. Skipping its benches.",
            path.display()
        );
        None
    }
}

/// The whole trace, as `host-cli replay TRACE` takes it by default: no
/// window, machine size from the header, the users' estimates, load 1.
#[must_use]
pub const fn whole_trace() -> (Window, Shaping) {
    (
        Window {
            skip: 0,
            first: None,
            procs: None,
        },
        Shaping {
            estimates: Estimates::User,
            load: 1.0,
        },
    )
}

/// Reads and prepares a trace ([`swf::load`] then [`replay::prepare`] with
/// [`whole_trace`]): everything a replay needs before the kernel runs.
///
/// # Errors
/// [`CliError`] when the trace cannot be read or prepared.
pub fn load_prepared(path: &Path) -> Result<Prepared, CliError> {
    let trace = swf::load(path)?;
    let (window, shaping) = whole_trace();
    replay::prepare(&trace, &window, shaping)
}

/// Replays a prepared trace under `policy` the way `host-cli replay` does
/// (default category bounds, no per-job records, no progress bar).
///
/// # Errors
/// [`CliError::Replay`] when the kernel refuses a call.
pub fn replay(prepared: &Prepared, policy: Policy) -> Result<RunResult, CliError> {
    replay::run(prepared, policy, CategoryBounds::DEFAULT, false, None)
}

/// Reads a trace and replays it under `policy` while reading, as `host-cli
/// replay TRACE` does ([`backfill_cli::replay::stream::read_and_replay`] with
/// [`whole_trace`]; no per-job records, no progress bar).
///
/// # Errors
/// [`CliError`] when the trace cannot be read or the kernel refuses a call.
pub fn replay_while_reading(path: &Path, policy: Policy) -> Result<RunResult, CliError> {
    let (window, shaping) = whole_trace();
    backfill_cli::replay::stream::read_and_replay(
        path,
        window,
        shaping,
        policy,
        CategoryBounds::DEFAULT,
    )
    .map(|(_, result)| result)
}

/// Processors of the busy machine.
pub const BUSY_PROCS: u32 = 1024;
/// Jobs running on the busy machine.
pub const RUNNING_JOBS: u32 = 64;
/// Processors of each running job (`RUNNING_JOBS * RUNNING_WIDTH == BUSY_PROCS`).
pub const RUNNING_WIDTH: u32 = 16;
/// When the queued jobs arrive.
pub const QUEUED_AT: Time = 10;
/// When the first running job ends early (before its estimate).
pub const COMPLETION_AT: Time = 100;
/// Running capacity the benches use: the running jobs plus room for what a
/// pass may start.
pub const BENCH_RUNNING: usize = 128;
/// Id of the first queued job (running jobs have ids `0..RUNNING_JOBS`).
pub const FIRST_QUEUED_ID: JobId = 1_000;
/// Id of [`probe_job`].
pub const PROBE_ID: JobId = 999_999;

/// Profile steps Conservative needs for `q` queued and `r` running jobs,
/// as the kernel docs state (`2Q + R + 1`).
#[must_use]
pub const fn conservative_steps(q: usize, r: usize) -> usize {
    2 * q + r + 1
}

/// The `depth` jobs that wait on the busy machine, submitted at
/// [`QUEUED_AT`], with ids from [`FIRST_QUEUED_ID`]. The first one is 512
/// processors wide; the others are 1 to 256 wide (powers of two) with
/// estimates from 60 s to 12 h.
#[must_use]
pub fn queued_jobs(depth: usize) -> Vec<Job> {
    let mut rng = SplitMix64::new(0xBAC4_F111 ^ depth as u64);
    // Draws by remainder (not `SplitMix64::below`): the queue the benches
    // have always measured. The remainder is below `n`, so it fits.
    #[allow(clippy::cast_possible_truncation)]
    let mut below = |n: u32| (rng.next_u64() % u64::from(n)) as u32;
    (FIRST_QUEUED_ID..)
        .take(depth)
        .enumerate()
        .map(|(index, id)| {
            let procs = if index == 0 { 512 } else { 1 << below(9) };
            let estimate = 60 + below(12 * 3600 - 60);
            Job::new(id, QUEUED_AT, procs, estimate)
        })
        .collect()
}

/// The job the submit bench adds to the busy queue: 32 processors, one
/// hour, at [`COMPLETION_AT`].
#[must_use]
pub const fn probe_job() -> Job {
    Job::new(PROBE_ID, COMPLETION_AT, 32, 3600)
}

/// The busy machine (module docs) with `depth` queued jobs, under `policy`,
/// on the heap. `Q` must exceed `depth` (the submit bench adds one job),
/// `R` must be at least [`RUNNING_JOBS`] plus what a pass may start, and `B`
/// at least [`conservative_steps`]`(Q, R)` for Conservative.
///
/// # Errors
/// [`KernelError`] when a capacity is too small, or
/// [`KernelError::Internal`] when the state is not the documented one.
pub fn busy_kernel<const Q: usize, const R: usize, const B: usize>(
    policy: Policy,
    depth: usize,
) -> Result<Box<Kernel<Q, R, B>>, KernelError> {
    let cluster =
        Cluster::single(BUSY_PROCS).map_err(|_| KernelError::Internal("bench cluster refused"))?;
    let mut kernel = Box::new(Kernel::new(cluster, policy));
    for (id, slot) in (0..RUNNING_JOBS).zip(1..) {
        // Staggered estimates: 1 h, 1 h 10 min, ...
        let estimate = 3600 + 600 * slot;
        // One at a time, so the queue never holds more than one of them.
        kernel.submit(0, Job::new(id, 0, RUNNING_WIDTH, estimate), &mut ())?;
        kernel.schedule(0, &mut ())?;
    }
    if kernel.running().len() != RUNNING_JOBS as usize {
        return Err(KernelError::Internal("bench: the machine is not full"));
    }
    for job in queued_jobs(depth) {
        kernel.submit(QUEUED_AT, job, &mut ())?;
    }
    let pass = kernel.schedule(QUEUED_AT, &mut ())?;
    if pass.started != 0 || kernel.queued().len() != depth {
        return Err(KernelError::Internal("bench: a queued job started"));
    }
    Ok(kernel)
}

/// Ends running job 0 at [`COMPLETION_AT`], before its estimate: the event
/// the measured `schedule` call follows.
///
/// # Errors
/// [`KernelError`] from [`Kernel::complete`].
pub fn complete_early<const Q: usize, const R: usize, const B: usize>(
    kernel: &mut Kernel<Q, R, B>,
) -> Result<RunningJob, KernelError> {
    kernel.complete(COMPLETION_AT, 0)
}

/// How many clones of a `bytes`-sized kernel one criterion batch may hold:
/// at most 64 MiB of inputs, between 1 and 1000 of them.
#[must_use]
pub const fn batch_len(bytes: usize) -> u64 {
    let fit = (64 << 20) / if bytes == 0 { 1 } else { bytes };
    if fit == 0 {
        1
    } else if fit > 1000 {
        1000
    } else {
        fit as u64
    }
}

/// Named sizes in bytes: the kernel for `Q = 4096` (with `R = Q`, as the
/// replay kernel has, and `B` as the kernel docs ask: `2Q + R + 1` for
/// Conservative, `R + 3` for the others), the bench kernels, the cost of
/// one more queued-job slot, and the element types.
#[must_use]
pub fn size_report() -> Vec<(String, usize)> {
    use core::mem::size_of;
    const Q: usize = 4096;
    const R: usize = Q;
    const CONS: usize = conservative_steps(Q, R);
    const OTHER: usize = R + 3;
    let queued = size_of::<QueuedJob>();
    let step = size_of::<Step>();
    // Per slot: the growth from Q to 2Q over Q, so alignment padding
    // (a few bytes, once) does not count.
    let double_cons = size_of::<Kernel<{ 2 * Q }, R, { conservative_steps(2 * Q, R) }>>();
    let double_other = size_of::<Kernel<{ 2 * Q }, R, OTHER>>();
    vec![
        (
            format!("Kernel<{Q}, {R}, {CONS}> (Conservative: B = 2Q + R + 1)"),
            size_of::<Kernel<Q, R, CONS>>(),
        ),
        (
            format!("Kernel<{Q}, {R}, {OTHER}> (FCFS/EASY: B = R + 3)"),
            size_of::<Kernel<Q, R, OTHER>>(),
        ),
        (
            "bytes per queued-job slot, Conservative (Q -> 2Q, B -> B + 2Q)".into(),
            (double_cons - size_of::<Kernel<Q, R, CONS>>()) / Q,
        ),
        (
            "  = size_of QueuedJob + 2 * size_of Step".into(),
            queued + 2 * step,
        ),
        (
            "bytes per queued-job slot, FCFS/EASY (Q -> 2Q)".into(),
            (double_other - size_of::<Kernel<Q, R, OTHER>>()) / Q,
        ),
        (
            format!(
                "Kernel<{}, {}, {}> (host-cli TraceKernel)",
                replay::QUEUE_CAPACITY,
                replay::RUNNING_CAPACITY,
                replay::STEP_CAPACITY
            ),
            size_of::<replay::TraceKernel>(),
        ),
        ("QueuedJob".into(), queued),
        ("RunningJob".into(), size_of::<RunningJob>()),
        ("Step".into(), step),
        ("Job".into(), size_of::<Job>()),
        ("Slot".into(), size_of::<backfill_core::Slot>()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints the sizes (`cargo test -p backfill-benches -- --nocapture`)
    /// and bounds them by what was measured on x86_64, with some room.
    #[test]
    fn sizes() {
        let report = size_report();
        for (what, bytes) in &report {
            println!("{bytes:>12}  {what}");
        }
        let get = |prefix: &str| {
            report
                .iter()
                .find(|(w, _)| w.starts_with(prefix))
                .map(|(_, b)| *b)
                .unwrap()
        };
        let per_slot = get("bytes per queued-job slot, Conservative");
        assert_eq!(per_slot, get("  = size_of QueuedJob"));
        assert_eq!(
            get("bytes per queued-job slot, FCFS/EASY"),
            get("QueuedJob")
        );
        // Measured on x86_64 (rustc 1.95): 64 bytes per Conservative slot
        // (the goal), 541,264 bytes for Kernel<4096, 4096, 12289>, 32 per
        // Job. Layout is the compiler's, so the totals get some room; the
        // slot does not: it is the goal.
        assert!(per_slot <= 64, "a queued job costs {per_slot} bytes");
        assert!(get("Kernel<4096, 4096, 12289>") <= 600 << 10);
        assert!(get("Job") <= 32);
    }

    #[test]
    fn traces_dir_defaults_next_to_the_workspace() {
        if std::env::var_os(TRACES_DIR_ENV).is_none() {
            let root = traces::workspace_root();
            assert!(root.join("Cargo.toml").is_file());
            assert_eq!(traces_dir(), root.join("../shared/traces"));
        }
    }

    fn check_busy_state<const Q: usize, const B: usize>(depth: usize) {
        for policy in Policy::ALL {
            let mut kernel = busy_kernel::<Q, BENCH_RUNNING, B>(policy, depth).unwrap();
            kernel.validate().unwrap();
            assert_eq!(kernel.queued().len(), depth, "{policy}");
            assert_eq!(kernel.running().len(), RUNNING_JOBS as usize);
            let base = kernel.clone();
            complete_early(&mut kernel).unwrap();
            let pass = kernel.schedule(COMPLETION_AT, &mut ()).unwrap();
            kernel.validate().unwrap();
            if policy == Policy::Fcfs {
                assert_eq!(pass.started, 0, "FCFS is blocked by its wide head");
            }
            if policy == Policy::Easy && depth >= 256 {
                assert!(pass.started > 0, "EASY backfills into the freed processors");
            }
            let mut probe = base;
            probe.submit(COMPLETION_AT, probe_job(), &mut ()).unwrap();
            probe.validate().unwrap();
        }
    }

    #[test]
    fn busy_states_are_as_documented() {
        check_busy_state::<32, { conservative_steps(32, BENCH_RUNNING) }>(16);
        check_busy_state::<512, { conservative_steps(512, BENCH_RUNNING) }>(256);
    }

    #[test]
    fn batch_len_is_bounded() {
        assert_eq!(batch_len(0), 1000);
        assert_eq!(batch_len(1 << 30), 1);
        assert_eq!(batch_len(1 << 20), 64);
    }
}
