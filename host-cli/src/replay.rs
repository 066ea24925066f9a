//! Turning a trace into kernel jobs and replaying it.
//!
//! [`prepare`] applies the SWF rules (via [`crate::swf::select`]), the window,
//! `--estimates`, `--load` and the machine size, and numbers the jobs
//! `0..n` in replay order (the kernel's [`JobId`]; the trace's job number is
//! kept beside it). [`run`] drives the core [`Simulator`] over them on a
//! thread with a large stack (the kernel is one fixed-size value of
//! [`TraceKernel`]'s capacities) and collects metrics, optional per-job
//! records, and the slowest single kernel call. [`run_observed`] does the
//! same and lets an [`ArrivalObserver`], built on the replay thread, look at
//! the kernel as each job arrives (the fairness analysis computes fair-start
//! times so).

use crate::swf::{self, LoadedTrace, SkipCounts, TraceJob};
use backfill_core::{
    Call, CategoryBounds, Cluster, Counters, Job, JobId, JobRecord, Kernel, KernelError, Metrics,
    Outcome, Plan, Policy, SimError, SimJob, Simulator, Sink, Slot, Time,
};
use std::time::{Duration, Instant};

/// Waiting jobs the replay kernel can hold.
pub const QUEUE_CAPACITY: usize = 1 << 16;
/// Running jobs the replay kernel can hold.
pub const RUNNING_CAPACITY: usize = 1 << 16;
/// Profile steps: enough for Conservative with full tables (`2Q + R + 1`).
pub const STEP_CAPACITY: usize = 2 * QUEUE_CAPACITY + RUNNING_CAPACITY + 8;
/// The kernel type used for trace replays: one machine, no licenses.
pub type TraceKernel = Kernel<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY>;
/// A plan of [`TraceKernel`]'s shape (about 1.6 MB: build it on the replay
/// thread, or boxed there, never on a small stack).
pub type TracePlan = Plan<STEP_CAPACITY, 1, 0>;
/// The cluster type of [`TraceKernel`].
pub type TraceCluster = Cluster<1, 0>;

/// Which run-time estimates the scheduler sees.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Estimates {
    /// The users' requested times (field 9), else the run time.
    User,
    /// The actual run times (perfect estimates).
    Exact,
}

impl Estimates {
    /// `user` or `exact`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Exact => "exact",
        }
    }
}

/// Where the machine size came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MachineSource {
    /// `--procs`.
    Option,
    /// The header's `MaxProcs`.
    MaxProcs,
    /// The header's `MaxNodes` (no `MaxProcs`).
    MaxNodes,
    /// No header size: the most processors the log's own recorded schedule
    /// (submit + wait, run time) had in use at once, or the widest job if
    /// larger: the smallest machine the site's real schedule fitted on.
    PeakUsage,
    /// The synthetic workload's machine.
    Synthetic,
}

/// Options shared by `replay`, `info` and the analyses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Job lines to skip first.
    pub skip: u64,
    /// Job lines to take after the skip (all when `None`).
    pub first: Option<u64>,
    /// Machine size override.
    pub procs: Option<u32>,
}

/// How to turn the window's jobs into kernel input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shaping {
    /// Estimates the scheduler sees.
    pub estimates: Estimates,
    /// Load factor: submit times are divided by it (> 1 is heavier).
    pub load: f64,
}

/// A trace ready to replay.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Trace name (path) or `synthetic`.
    pub name: String,
    /// Processors of the one machine.
    pub machine_procs: u32,
    /// Where that number came from.
    pub machine_source: MachineSource,
    /// Data lines in the whole file.
    pub records_read: u64,
    /// Job lines in the window (partial-execution lines excluded).
    pub jobs_in_window: u64,
    /// Window jobs not run, by reason.
    pub skipped: SkipCounts,
    /// Jobs that were out of submit order in the file (now sorted).
    pub out_of_order: u64,
    /// The jobs as read, in replay order; index = kernel job id.
    pub trace_jobs: Vec<TraceJob>,
    /// The kernel input, same order.
    pub jobs: Vec<SimJob>,
    /// Estimates used.
    pub shaping: Shaping,
}

/// Everything that can go wrong on the host side.
#[derive(Debug)]
pub enum CliError {
    /// Reading or parsing a trace.
    Swf(swf::SwfError),
    /// Writing an output file.
    Io(String, std::io::Error),
    /// The replay stopped (with the trace's job number when known).
    Replay {
        /// Trace name.
        trace: String,
        /// The core error.
        error: SimError,
        /// The trace job number of the job concerned.
        number: Option<u64>,
    },
    /// Bad option value.
    Usage(String),
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Swf(e) => write!(f, "{e}"),
            Self::Io(path, e) => write!(f, "{path}: {e}"),
            Self::Replay {
                trace,
                error,
                number,
            } => {
                write!(f, "{trace}: {error}")?;
                if let Some(n) = number {
                    write!(f, " (trace job number {n})")?;
                }
                Ok(())
            }
            Self::Usage(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for CliError {}

impl From<swf::SwfError> for CliError {
    fn from(e: swf::SwfError) -> Self {
        Self::Swf(e)
    }
}

/// The machine size for a trace: `--procs`, else `MaxProcs`, else
/// `MaxNodes`; `None` when the header has neither (see [`peak_usage`]).
#[must_use]
pub fn machine_size(trace: &LoadedTrace, window: &Window) -> Option<(u32, MachineSource)> {
    if let Some(p) = window.procs {
        return Some((p, MachineSource::Option));
    }
    let header = &trace.header;
    let fits = |v: Option<u64>| v.and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0);
    if let Some(p) = fits(header.max_procs) {
        return Some((p, MachineSource::MaxProcs));
    }
    if let Some(p) = fits(header.max_nodes) {
        return Some((p, MachineSource::MaxNodes));
    }
    None
}

/// The most processors in use at once in the log's recorded schedule: each
/// job line with a known submit, wait and run time holds its allocated
/// processors (field 5, else field 8) over `[submit + wait, submit + wait +
/// run)`. Lines without those fields do not count.
#[must_use]
pub fn peak_usage(trace: &LoadedTrace) -> u32 {
    let mut events: Vec<(i64, i64)> = Vec::new();
    for (_, r) in &trace.records {
        let procs = if r.allocated_procs > 0 {
            r.allocated_procs
        } else {
            r.requested_procs
        };
        if r.is_partial_execution() || r.submit < 0 || r.wait < 0 || r.run <= 0 || procs <= 0 {
            continue;
        }
        let start = r.submit.saturating_add(r.wait);
        events.push((start, procs));
        events.push((start.saturating_add(r.run), -procs));
    }
    // Ends sort before starts at the same instant (half-open intervals).
    events.sort_unstable();
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, delta) in events {
        now = now.saturating_add(delta);
        peak = peak.max(now);
    }
    u32::try_from(peak).unwrap_or(u32::MAX)
}

/// Applies the window, SWF rules, estimates and load to a loaded trace.
///
/// # Errors
/// [`CliError::Swf`] for values that do not fit, [`CliError::Usage`] for a
/// bad load factor.
pub fn prepare(
    trace: &LoadedTrace,
    window: &Window,
    shaping: Shaping,
) -> Result<Prepared, CliError> {
    let (procs, source) = match machine_size(trace, window) {
        Some(found) => found,
        None => {
            // No size anywhere: the smallest machine on which the log's
            // own schedule fitted.
            let all = swf::select(trace, window.skip, window.first, u32::MAX)?;
            let widest = all.jobs.iter().map(|j| j.procs).max().unwrap_or(1);
            (
                peak_usage(trace).max(widest).max(1),
                MachineSource::PeakUsage,
            )
        }
    };
    let workload = swf::select(trace, window.skip, window.first, procs)?;
    finish(
        trace.name.clone(),
        procs,
        source,
        trace.records.len() as u64,
        workload.jobs_in_window,
        workload.skipped,
        workload.out_of_order,
        workload.jobs,
        shaping,
    )
}

/// Prepares the built-in synthetic workload.
///
/// # Errors
/// [`CliError::Usage`] for a bad load factor.
pub fn prepare_synthetic(
    spec: &crate::synth::SyntheticSpec,
    window: &Window,
    shaping: Shaping,
) -> Result<Prepared, CliError> {
    let generated = crate::synth::generate(spec);
    let n = generated.len() as u64;
    // The window selects generated jobs as it selects a trace's job lines.
    let skip = usize::try_from(window.skip).unwrap_or(usize::MAX);
    let take = window
        .first
        .map_or(usize::MAX, |f| usize::try_from(f).unwrap_or(usize::MAX));
    let jobs: Vec<TraceJob> = generated.into_iter().skip(skip).take(take).collect();
    finish(
        format!("synthetic (seed {}, {} jobs)", spec.seed, spec.jobs),
        spec.procs,
        MachineSource::Synthetic,
        n,
        jobs.len() as u64,
        SkipCounts::default(),
        0,
        jobs,
        shaping,
    )
}

#[allow(clippy::too_many_arguments)]
fn finish(
    name: String,
    machine_procs: u32,
    machine_source: MachineSource,
    records_read: u64,
    jobs_in_window: u64,
    skipped: SkipCounts,
    out_of_order: u64,
    trace_jobs: Vec<TraceJob>,
    shaping: Shaping,
) -> Result<Prepared, CliError> {
    if !(shaping.load.is_finite() && shaping.load > 0.0) {
        return Err(CliError::Usage(format!(
            "--load must be a positive number, got {}",
            shaping.load
        )));
    }
    let mut jobs = Vec::with_capacity(trace_jobs.len());
    for (index, t) in trace_jobs.iter().enumerate() {
        let id = JobId::try_from(index)
            .map_err(|_| CliError::Usage("more than 2^32 jobs in one replay".into()))?;
        let estimate = match shaping.estimates {
            Estimates::User => t.estimate,
            Estimates::Exact => t.runtime.max(1),
        };
        let submit = scale_time(t.submit, shaping.load);
        jobs.push(SimJob {
            job: Job::new(id, submit, t.procs, estimate),
            runtime: t.runtime,
        });
    }
    // Load scaling keeps the order (division is monotone), so the replay
    // order stays sorted.
    Ok(Prepared {
        name,
        machine_procs,
        machine_source,
        records_read,
        jobs_in_window,
        skipped,
        out_of_order,
        trace_jobs,
        jobs,
        shaping,
    })
}

/// `submit / load`, rounded down.
#[must_use]
pub fn scale_time(submit: Time, load: f64) -> Time {
    if (load - 1.0).abs() < f64::EPSILON {
        return submit;
    }
    let scaled = (f64::from(submit) / load).floor();
    if scaled <= 0.0 {
        0
    } else if scaled >= f64::from(Time::MAX) {
        Time::MAX
    } else {
        // In range, non-negative, already floored.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let t = scaled as Time;
        t
    }
}

/// What a replay produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Policy replayed.
    pub policy: Policy,
    /// Metrics overall and per category.
    pub metrics: Metrics,
    /// Replay totals.
    pub outcome: Outcome,
    /// Per-job records in completion order, when asked for.
    pub records: Option<Vec<JobRecord>>,
    /// Jobs the kernel refused (no machine can run them).
    pub rejected: Vec<(JobId, KernelError)>,
    /// Wall time of the replay (kernel and loop, not parsing).
    pub wall: Duration,
    /// The slowest single kernel call, and which.
    pub slowest_call: (Duration, Option<Call>),
    /// What the search-based policies did (DPSA searches, nodes, budget hits).
    pub counters: Counters,
}

struct HostSink<'a> {
    metrics: Metrics,
    records: Option<Vec<JobRecord>>,
    rejected: Vec<(JobId, KernelError)>,
    call_started: Instant,
    slowest: (Duration, Option<Call>),
    progress: Option<&'a indicatif::ProgressBar>,
    finished: u64,
}

impl Sink for HostSink<'_> {
    fn finished(&mut self, record: &JobRecord) {
        self.metrics.add(record);
        if let Some(records) = &mut self.records {
            records.push(*record);
        }
        self.finished += 1;
        if self.finished % 4096 == 0 {
            if let Some(bar) = self.progress {
                bar.set_position(self.finished);
            }
        }
    }

    fn rejected(&mut self, job: &Job, error: KernelError) {
        self.rejected.push((job.id, error));
    }

    fn started(&mut self, _job: &Job, _slot: Slot) {}

    fn before_call(&mut self) {
        self.call_started = Instant::now();
    }

    fn after_call(&mut self, call: Call) {
        let took = self.call_started.elapsed();
        if took > self.slowest.0 {
            self.slowest = (took, Some(call));
        }
    }
}

/// Looks at the kernel as each job arrives, on the replay thread (see
/// [`run_observed`] and `Simulator::run_with`).
pub trait ArrivalObserver {
    /// Called just before `job` is submitted at `job.submit`, after the
    /// completions at that instant.
    fn arriving(&mut self, kernel: &TraceKernel, job: &Job);
}

impl ArrivalObserver for () {
    fn arriving(&mut self, _kernel: &TraceKernel, _job: &Job) {}
}

/// Replays `prepared` under `policy`.
///
/// # Errors
/// [`CliError::Replay`] when the kernel refuses a call (a table is full, say).
pub fn run(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    keep_records: bool,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<RunResult, CliError> {
    run_observed(prepared, policy, bounds, keep_records, progress, |_| ()).map(|(r, ())| r)
}

/// [`run`], with an [`ArrivalObserver`] that `make` builds on the replay
/// thread (whose stack is 256 MB, so the observer may hold a [`TracePlan`])
/// and that is handed back with the result.
///
/// # Errors
/// As [`run`].
pub fn run_observed<A, F>(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    keep_records: bool,
    progress: Option<&indicatif::ProgressBar>,
    make: F,
) -> Result<(RunResult, A), CliError>
where
    A: ArrivalObserver + Send,
    F: FnOnce(&TraceCluster) -> A + Send,
{
    let cluster = Cluster::single(prepared.machine_procs.max(1))
        .map_err(|e| CliError::Usage(format!("bad machine size: {e}")))?;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name(format!("replay-{policy}"))
            .stack_size(256 << 20)
            .spawn_scoped(scope, move || {
                let mut observer = make(&cluster);
                // The kernel is ~10 MB: built and kept on this thread's stack.
                let kernel = TraceKernel::new(cluster, policy);
                let mut sim = Box::new(Simulator::new(kernel));
                let mut sink = HostSink {
                    metrics: Metrics::new(bounds),
                    records: keep_records.then(|| Vec::with_capacity(prepared.jobs.len())),
                    rejected: Vec::new(),
                    call_started: Instant::now(),
                    slowest: (Duration::ZERO, None),
                    progress,
                    finished: 0,
                };
                let started = Instant::now();
                let outcome = sim.run_with(prepared.jobs.iter().copied(), &mut sink, |k, job| {
                    observer.arriving(k, job);
                });
                let wall = started.elapsed();
                let counters = *sim.kernel().counters();
                outcome.map(|outcome| {
                    let result = RunResult {
                        policy,
                        metrics: sink.metrics,
                        outcome,
                        records: sink.records,
                        rejected: sink.rejected,
                        wall,
                        slowest_call: sink.slowest,
                        counters,
                    };
                    (result, observer)
                })
            });
        let result = match worker {
            Ok(handle) => handle
                .join()
                .map_err(|_| CliError::Usage("the replay thread panicked".into()))?,
            Err(e) => return Err(CliError::Io("replay thread".into(), e)),
        };
        result.map_err(|error| CliError::Replay {
            trace: prepared.name.clone(),
            number: error
                .job
                .and_then(|id| prepared.trace_jobs.get(id as usize))
                .map(|t| t.number),
            error,
        })
    })
}
