//! Turning a trace into kernel jobs and replaying it.
//!
//! [`prepare`] applies the SWF rules (via [`crate::swf::select`]), the window,
//! `--estimates`, `--load` and the machine size, and numbers the jobs
//! `0..n` in replay order (the kernel's [`JobId`]; the trace's job number is
//! kept beside it). [`run`] drives the core [`Simulator`] over them on a
//! thread with a large stack (the kernel is one fixed-size value) and
//! collects metrics, optional per-job records and the jobs the kernel
//! refused; [`run_timed`] also times every kernel call (a [`Latency`]
//! histogram: `replay --latency`; untimed, a replay reads no clock per call).
//! [`run_observed`] does the same as [`run`] and
//! lets an [`ArrivalObserver`], built on the replay thread, look at the
//! kernel as each job arrives (the fairness analysis computes fair-start
//! times so).
//!
//! # Kernel size
//!
//! The kernel's tables are fixed at compile time, so a replay starts on
//! [`TraceKernel`] (8,192 waiting and 4,096 running jobs, about 1 MB: every
//! trace in the archive needs at most a few thousand of each, and a kernel
//! costs its size in zeroed and copied memory before the first call). A
//! window can never need more waiting or running jobs than it has jobs, so
//! up to 4,096 jobs it cannot fill. A larger window that does fill it (a
//! long queue under a heavy `--load`, or more than 4,096 small jobs at once
//! on a large machine) is replayed again, from the start, on
//! [`DeepTraceKernel`] (16,384 of each, 2.4 MB), then if need be on
//! [`MediumTraceKernel`] (262,144 of each, 37 MB), and if that fills too and
//! the window is larger still, on [`LargeTraceKernel`] (1,048,576 of each,
//! 150 MB). The kernel is deterministic and its capacity changes nothing
//! else, so the schedule is the one a kernel of unbounded size would give.
//! Only a window of more than 1,048,576 jobs with more than that many
//! waiting (or running) at once can still fill the largest: that stops the
//! replay with an error saying so, naming the time and the limit. Jobs the kernel refuses for what they are (wider than
//! any machine, no processors) are counted by reason in
//! [`RunResult::rejected`] and the replay goes on.
//!
//! Building a kernel costs about a millisecond: it is built on the stack
//! and copied into its box, and the first touch of each of its pages is a
//! page fault. `replay` therefore calls [`prebuild`] before it reads the
//! trace: a [`TraceKernel`] is built on another thread meanwhile, and the
//! first replay of that size takes it and [`Simulator::reset`]s it for the
//! trace's machine and the policy, in place.

use crate::swf::{self, LoadedTrace, SkipCounts, TraceJob};
use backfill_core::{
    Call, CategoryBounds, Cluster, Counters, Job, JobId, JobRecord, Kernel, KernelError, Metrics,
    Outcome, Plan, Policy, SimError, SimErrorKind, SimJob, Simulator, Sink, Slot, Time,
};
use std::any::Any;
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Waiting jobs the first replay kernel can hold.
pub const QUEUE_CAPACITY: usize = 1 << 13;
/// Running jobs the first replay kernel can hold.
pub const RUNNING_CAPACITY: usize = 1 << 12;
/// Profile steps: enough for Conservative with full tables (`2Q + R + 1`).
pub const STEP_CAPACITY: usize = 2 * QUEUE_CAPACITY + RUNNING_CAPACITY + 8;
/// The kernel type trace replays start on: one machine, no licenses.
pub type TraceKernel = Kernel<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY>;
/// A plan of [`TraceKernel`]'s shape (about 0.4 MB: build it on the replay
/// thread, or boxed there, never on a small stack).
pub type TracePlan = Plan<STEP_CAPACITY, 1, 0>;
/// The cluster type of every replay kernel.
pub type TraceCluster = Cluster<1, 0>;
/// Waiting jobs the second replay kernel can hold (see the module docs).
pub const DEEP_QUEUE_CAPACITY: usize = 1 << 14;
/// Running jobs the second replay kernel can hold.
pub const DEEP_RUNNING_CAPACITY: usize = 1 << 14;
/// Profile steps of the second kernel (`2Q + R + 8`, as [`STEP_CAPACITY`]).
pub const DEEP_STEP_CAPACITY: usize = 2 * DEEP_QUEUE_CAPACITY + DEEP_RUNNING_CAPACITY + 8;
/// The kernel a replay moves to when [`TraceKernel`] fills up.
pub type DeepTraceKernel = Kernel<DEEP_QUEUE_CAPACITY, DEEP_RUNNING_CAPACITY, DEEP_STEP_CAPACITY>;
/// Waiting jobs the middle replay kernel can hold (see the module docs).
pub const MEDIUM_QUEUE_CAPACITY: usize = 1 << 18;
/// Running jobs the middle replay kernel can hold.
pub const MEDIUM_RUNNING_CAPACITY: usize = 1 << 18;
/// Profile steps of the middle kernel (`2Q + R + 8`, as [`STEP_CAPACITY`]).
pub const MEDIUM_STEP_CAPACITY: usize = 2 * MEDIUM_QUEUE_CAPACITY + MEDIUM_RUNNING_CAPACITY + 8;
/// The kernel a replay moves to when [`DeepTraceKernel`] fills up.
pub type MediumTraceKernel =
    Kernel<MEDIUM_QUEUE_CAPACITY, MEDIUM_RUNNING_CAPACITY, MEDIUM_STEP_CAPACITY>;
/// Waiting jobs the largest replay kernel can hold (see the module docs).
pub const LARGE_QUEUE_CAPACITY: usize = 1 << 20;
/// Running jobs the larger replay kernel can hold.
pub const LARGE_RUNNING_CAPACITY: usize = 1 << 20;
/// Profile steps of the largest kernel (`2Q + R + 8`, as [`STEP_CAPACITY`]).
pub const LARGE_STEP_CAPACITY: usize = 2 * LARGE_QUEUE_CAPACITY + LARGE_RUNNING_CAPACITY + 8;
/// The kernel a replay moves to when [`MediumTraceKernel`] fills up.
pub type LargeTraceKernel =
    Kernel<LARGE_QUEUE_CAPACITY, LARGE_RUNNING_CAPACITY, LARGE_STEP_CAPACITY>;

/// A simulator being built on a thread of its own (boxed as `Any`, so that
/// any size fits; see [`simulator_from`]).
type Building = JoinHandle<Box<dyn Any + Send>>;

/// The kernel [`prebuild`] is building, for the next replay on a
/// [`TraceKernel`].
static PREBUILT: Mutex<Option<Building>> = Mutex::new(None);

/// Starts building a [`TraceKernel`] (with its simulator) on a thread of its
/// own, for the next replay of that size to take instead of building one
/// (see the module docs). Without a thread, that replay builds its own.
pub fn prebuild() {
    let spawned = build_in_background::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY>();
    if let (Ok(handle), Ok(mut slot)) = (spawned, PREBUILT.lock()) {
        *slot = Some(handle);
    }
}

/// Builds a simulator of this size (one processor, FCFS: [`simulator_from`]
/// sets it up) on a new thread.
fn build_in_background<const Q: usize, const R: usize, const B: usize>() -> std::io::Result<Building>
{
    std::thread::Builder::new()
        .name("kernel-build".into())
        .stack_size(stack_for::<Q, R, B>())
        .spawn(|| -> Box<dyn Any + Send> {
            match Cluster::single(1) {
                Ok(cluster) => boxed_simulator::<Q, R, B>(cluster, Policy::Fcfs),
                Err(_) => Box::new(()),
            }
        })
}

/// The kernel [`prebuild`] built, when it is of this size, set up for
/// `cluster` and `policy`; else a new one.
fn simulator_for<const Q: usize, const R: usize, const B: usize>(
    cluster: &TraceCluster,
    policy: Policy,
) -> Box<Simulator<Q, R, B>> {
    let building = PREBUILT.lock().ok().and_then(|mut slot| slot.take());
    simulator_from(building, cluster, policy)
}

/// The simulator `building` builds, when it is of this size, reset for
/// `cluster` and `policy`; else a new one.
fn simulator_from<const Q: usize, const R: usize, const B: usize>(
    building: Option<Building>,
    cluster: &TraceCluster,
    policy: Policy,
) -> Box<Simulator<Q, R, B>> {
    let built = building.and_then(|h| h.join().ok());
    match built.map(|b| b.downcast::<Simulator<Q, R, B>>()) {
        Some(Ok(mut sim)) => {
            sim.reset(cluster.clone(), policy);
            sim
        }
        _ => boxed_simulator(cluster.clone(), policy),
    }
}

/// A new simulator in a box. Out of line, so that only this frame holds the
/// kernel on its way into the box (a caller's frame that held it would
/// touch all of its pages on entry).
#[inline(never)]
fn boxed_simulator<const Q: usize, const R: usize, const B: usize>(
    cluster: TraceCluster,
    policy: Policy,
) -> Box<Simulator<Q, R, B>> {
    Box::new(Simulator::new(Kernel::new(cluster, policy)))
}

/// The stack of a thread that builds a kernel of this size: room for the
/// copies a debug build makes, and at least the 256 MB replays always had
/// (address space only: untouched pages cost nothing).
pub(crate) fn stack_for<const Q: usize, const R: usize, const B: usize>() -> usize {
    (8 * std::mem::size_of::<Simulator<Q, R, B>>() + (64 << 20)).max(256 << 20)
}

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
    /// Job lines (data lines other than partial-execution ones) in the
    /// whole file: what the window selects from.
    pub job_lines: u64,
    /// Comment (header) lines in the file.
    pub comment_lines: u64,
    /// The window asked for.
    pub window: Window,
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
    Replay(Box<ReplayFailure>),
    /// Bad option value.
    Usage(String),
    /// The input holds no job to run: an empty file or window, or every job
    /// of the window skipped. `why` says which.
    NothingToSchedule {
        /// Trace name.
        trace: String,
        /// Why there is nothing.
        why: String,
    },
}

impl CliError {
    /// The process exit status for this error: 2 for bad input or options
    /// (the run could not start), 1 for a replay or output failure.
    #[must_use]
    pub const fn exit_code(&self) -> u8 {
        match self {
            Self::Swf(_) | Self::Usage(_) | Self::NothingToSchedule { .. } => 2,
            Self::Io(..) | Self::Replay(_) => 1,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Swf(e) => write!(f, "{e}"),
            Self::Io(path, e) => write!(f, "{path}: {e}"),
            Self::Replay(failure) => write!(f, "{failure}"),
            Self::Usage(m) => f.write_str(m),
            Self::NothingToSchedule { trace, why } => {
                write!(f, "{trace}: nothing to schedule: {why}")
            }
        }
    }
}

impl std::error::Error for CliError {}

/// Why a replay stopped ([`CliError::Replay`]).
#[derive(Debug)]
pub struct ReplayFailure {
    /// Trace name.
    pub trace: String,
    /// The core error.
    pub error: SimError,
    /// The trace job number of the job concerned.
    pub number: Option<u64>,
    /// The line of that job in the trace.
    pub line: Option<u64>,
    /// What the error means here and what to do, when known.
    pub detail: Option<String>,
}

impl std::fmt::Display for ReplayFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.trace, self.error)?;
        match (self.number, self.line) {
            (Some(n), Some(l)) => write!(f, " (trace job {n}, line {l})")?,
            (Some(n), None) => write!(f, " (trace job {n})")?,
            _ => {}
        }
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}

impl From<swf::SwfError> for CliError {
    fn from(e: swf::SwfError) -> Self {
        Self::Swf(e)
    }
}

/// The machine size for a trace: `--procs`, else `MaxProcs`, else
/// `MaxNodes`; `None` when the header has neither (see [`peak_usage`]).
///
/// # Errors
/// [`CliError::Swf`] naming the header line when, without `--procs`, the
/// `MaxProcs` entry (or, with no `MaxProcs` at all, the `MaxNodes` entry)
/// is there but is not a machine size (`0`, `banana`): the fallback would
/// silently replay on another machine.
pub fn machine_size(
    trace: &LoadedTrace,
    window: &Window,
) -> Result<Option<(u32, MachineSource)>, CliError> {
    if let Some(p) = window.procs {
        return Ok(Some((p, MachineSource::Option)));
    }
    let header = &trace.header;
    let size = |v: Option<u64>| v.and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0);
    let invalid = |key: &str| {
        header.invalid_value(key).map(|bad| {
            CliError::Swf(swf::SwfError {
                file: trace.name.clone(),
                line: Some(bad.line),
                field: None,
                kind: swf::SwfErrorKind::HeaderValue {
                    key: bad.key.clone(),
                    value: bad.value.clone(),
                    expected: "a machine size (an integer from 1 to 4294967295); \
                               fix the header or give the size with --procs",
                },
            })
        })
    };
    if let Some(p) = size(header.max_procs) {
        return Ok(Some((p, MachineSource::MaxProcs)));
    }
    if let Some(e) = invalid("MaxProcs") {
        return Err(e);
    }
    if let Some(p) = size(header.max_nodes) {
        return Ok(Some((p, MachineSource::MaxNodes)));
    }
    if let Some(e) = invalid("MaxNodes") {
        return Err(e);
    }
    Ok(None)
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
/// [`CliError::Swf`] for values that do not fit or an invalid machine size
/// in the header ([`machine_size`]), and for an estimate that cannot fit
/// the replay clock (the requested time or run time of a job, with its line
/// and field, when it exceeds `u32::MAX` less the window's last submit
/// time); [`CliError::Usage`] for a load factor that is not positive or
/// that moves a submit time past `u32::MAX` seconds.
pub fn prepare(
    trace: &LoadedTrace,
    window: &Window,
    shaping: Shaping,
) -> Result<Prepared, CliError> {
    let (procs, source) = match machine_size(trace, window)? {
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
    finish(Prepared {
        name: trace.name.clone(),
        machine_procs: procs,
        machine_source: source,
        records_read: trace.records.len() as u64,
        job_lines: trace
            .records
            .iter()
            .filter(|(_, r)| !r.is_partial_execution())
            .count() as u64,
        comment_lines: trace.comment_lines,
        window: *window,
        jobs_in_window: workload.jobs_in_window,
        skipped: workload.skipped,
        out_of_order: workload.out_of_order,
        trace_jobs: workload.jobs,
        jobs: Vec::new(),
        shaping,
    })
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
    finish(Prepared {
        name: spec.describe(),
        machine_procs: spec.procs,
        machine_source: MachineSource::Synthetic,
        records_read: n,
        job_lines: n,
        comment_lines: 0,
        window: *window,
        jobs_in_window: jobs.len() as u64,
        skipped: SkipCounts::default(),
        out_of_order: 0,
        trace_jobs: jobs,
        jobs: Vec::new(),
        shaping,
    })
}

/// Trace job `t`, the `index`-th of the window in replay order, as the
/// kernel gets it under `shaping`, with the field its estimate comes from
/// (9 or 4); `None` past 2^32 jobs. The caller checks that the estimate
/// fits the replay clock.
pub fn kernel_job(index: usize, t: &TraceJob, shaping: Shaping) -> Option<(SimJob, usize)> {
    let id = JobId::try_from(index).ok()?;
    let (estimate, field) = match shaping.estimates {
        Estimates::User if t.requested_time.is_some_and(|r| r > 0) => (t.estimate, 9),
        Estimates::User => (t.estimate, 4),
        Estimates::Exact => (t.runtime.max(1), 4),
    };
    let submit = scale_time(t.submit, shaping.load);
    let job = SimJob {
        job: Job::new(id, submit, t.procs, estimate),
        runtime: t.runtime,
    };
    Some((job, field))
}

/// Fills in the kernel input (`jobs`) of a prepared window from its trace
/// jobs, estimates and load.
fn finish(mut prepared: Prepared) -> Result<Prepared, CliError> {
    let shaping = prepared.shaping;
    if !(shaping.load.is_finite() && shaping.load > 0.0) {
        return Err(CliError::Usage(format!(
            "--load must be a positive number, got {}",
            shaping.load
        )));
    }
    let trace_jobs = &prepared.trace_jobs;
    // Jobs are in submit order, so the last one is submitted last.
    let last_submit = match trace_jobs.last() {
        Some(last) => scale_time_checked(last.submit, shaping.load).ok_or_else(|| {
            let least = f64::from(last.submit) / f64::from(Time::MAX);
            CliError::Usage(format!(
                "--load {} moves trace job {} (line {}) from t={} s to t={:.3e} s, past the \
                 replay clock's end ({} s, about 136 years); this window needs a load \
                 factor of at least {least:.3e}",
                number_text(shaping.load),
                last.number,
                last.line,
                last.submit,
                f64::from(last.submit) / shaping.load,
                Time::MAX
            ))
        })?,
        None => 0,
    };
    let mut jobs = Vec::with_capacity(trace_jobs.len());
    for (index, t) in trace_jobs.iter().enumerate() {
        let (job, field) = kernel_job(index, t, shaping)
            .ok_or_else(|| CliError::Usage("more than 2^32 jobs in one replay".into()))?;
        if job.job.estimate > Time::MAX - last_submit {
            return Err(CliError::Swf(swf::SwfError {
                file: prepared.name.clone(),
                line: Some(t.line),
                field: Some(field),
                kind: swf::SwfErrorKind::PastClock {
                    value: u64::from(job.job.estimate),
                    last_submit,
                },
            }));
        }
        jobs.push(job);
    }
    // Load scaling keeps the order (division is monotone), so the replay
    // order stays sorted.
    prepared.jobs = jobs;
    Ok(prepared)
}

impl Prepared {
    /// Why the window holds no job line at all, if it does not: an empty
    /// or header-only file, only partial-execution lines, `--first 0`, or
    /// `--skip` past the last job line.
    #[must_use]
    pub fn why_no_job_lines(&self) -> Option<String> {
        if self.jobs_in_window > 0 {
            return None;
        }
        let synthetic = self.machine_source == MachineSource::Synthetic;
        Some(if self.records_read == 0 && synthetic {
            "the synthetic workload has no jobs (--synthetic-jobs 0)".to_owned()
        } else if self.records_read == 0 && self.comment_lines > 0 {
            format!(
                "the file has only a header ({} comment line{}) and no job lines",
                self.comment_lines,
                if self.comment_lines == 1 { "" } else { "s" }
            )
        } else if self.records_read == 0 {
            "the file is empty: no job lines (is it the right file?)".to_owned()
        } else if self.job_lines == 0 {
            format!(
                "all {} data lines are partial-execution lines (status 2, 3 or 4), which are not jobs",
                self.records_read
            )
        } else if self.window.first == Some(0) {
            "--first 0 selects no job lines".to_owned()
        } else {
            format!(
                "--skip {} passes over all {} job lines of the {}",
                self.window.skip,
                self.job_lines,
                if synthetic { "workload" } else { "file" }
            )
        })
    }

    /// Why nothing can be scheduled, if nothing can:
    /// [`why_no_job_lines`](Self::why_no_job_lines), or every job line of the window skipped
    /// (with the count per reason).
    #[must_use]
    pub fn why_nothing_to_schedule(&self) -> Option<String> {
        if let Some(why) = self.why_no_job_lines() {
            return Some(why);
        }
        if !self.trace_jobs.is_empty() {
            return None;
        }
        let reasons: Vec<String> = self
            .skipped
            .iter()
            .filter(|(r, n)| r.is_job() && *n > 0)
            .map(|(r, n)| format!("{n} {}", r.label()))
            .collect();
        Some(format!(
            "none of the window's {} job lines can run: {} (machine of {} processors, {})",
            self.jobs_in_window,
            reasons.join(", "),
            self.machine_procs,
            crate::replay::machine_source_words(self.machine_source)
        ))
    }

    /// Refuses a window with nothing to schedule (see
    /// [`why_nothing_to_schedule`](Self::why_nothing_to_schedule)).
    ///
    /// # Errors
    /// [`CliError::NothingToSchedule`] saying why.
    pub fn check_runnable(&self) -> Result<(), CliError> {
        self.why_nothing_to_schedule().map_or(Ok(()), |why| {
            Err(CliError::NothingToSchedule {
                trace: self.name.clone(),
                why,
            })
        })
    }

    /// Refuses a window without job lines (see
    /// [`why_no_job_lines`](Self::why_no_job_lines)): `info` describes a
    /// window whose jobs are all skipped, but not an empty one.
    ///
    /// # Errors
    /// [`CliError::NothingToSchedule`] saying why.
    pub fn check_job_lines(&self) -> Result<(), CliError> {
        self.why_no_job_lines().map_or(Ok(()), |why| {
            Err(CliError::NothingToSchedule {
                trace: self.name.clone(),
                why,
            })
        })
    }
}

/// Where the machine size came from, in words.
#[must_use]
pub const fn machine_source_words(source: MachineSource) -> &'static str {
    match source {
        MachineSource::Option => "--procs",
        MachineSource::MaxProcs => "header MaxProcs",
        MachineSource::MaxNodes => "header MaxNodes",
        MachineSource::PeakUsage => "no size in header: peak use in the log's own schedule",
        MachineSource::Synthetic => "synthetic",
    }
}

/// A number as a user would write it: `1.5`, `1e-300`.
#[must_use]
pub fn number_text(v: f64) -> String {
    if v == 0.0 || (1e-4..1e9).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// `submit / load`, rounded down; `None` past [`Time::MAX`].
#[must_use]
pub fn scale_time_checked(submit: Time, load: f64) -> Option<Time> {
    if (load - 1.0).abs() < f64::EPSILON {
        return Some(submit);
    }
    let scaled = (f64::from(submit) / load).floor();
    (scaled <= f64::from(Time::MAX)).then(|| scale_time(submit, load))
}

/// `submit / load`, rounded down, saturating at [`Time::MAX`] (the
/// replay refuses a load that would saturate: see
/// [`scale_time_checked`]).
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
    /// Jobs the kernel refused for what they are (no machine can run
    /// them, no processors or a zero estimate), with the kernel's reason;
    /// the replay went on without them.
    pub rejected: Vec<(JobId, KernelError)>,
    /// Waiting jobs the kernel had room for (see the module docs).
    pub queue_capacity: usize,
    /// Wall time of the replay (kernel and loop, not parsing).
    pub wall: Duration,
    /// The replay ran while the trace was read ([`crate::stream`]): `wall`
    /// then includes waiting for lines.
    pub while_reading: bool,
    /// How long each kernel call took, when they were timed ([`run_timed`]).
    pub latency: Option<Latency>,
    /// What the search-based policies did (DPSA searches, nodes, budget hits).
    pub counters: Counters,
}

struct HostSink<'a> {
    metrics: Metrics,
    records: Option<Vec<JobRecord>>,
    rejected: Vec<(JobId, KernelError)>,
    /// Set when every kernel call is timed.
    latency: Option<(Instant, Latency)>,
    progress: Option<&'a indicatif::ProgressBar>,
    /// Jobs finished or refused so far.
    done: u64,
    /// Jobs already counted on `progress` (shared by parallel replays, so
    /// it is advanced by differences).
    reported: u64,
}

/// Jobs between two progress updates.
const PROGRESS_STEP: u64 = 1024;

impl HostSink<'_> {
    fn report(&mut self) {
        if let Some(bar) = self.progress {
            bar.inc(self.done - self.reported);
        }
        self.reported = self.done;
    }

    fn count(&mut self) {
        self.done += 1;
        if self.done - self.reported >= PROGRESS_STEP {
            self.report();
        }
    }
}

impl Sink for HostSink<'_> {
    fn finished(&mut self, record: &JobRecord) {
        self.metrics.add(record);
        if let Some(records) = &mut self.records {
            records.push(*record);
        }
        self.count();
    }

    fn rejected(&mut self, job: &Job, error: KernelError) {
        self.rejected.push((job.id, error));
        self.count();
    }

    fn started(&mut self, _job: &Job, _slot: Slot) {}

    fn before_call(&mut self) {
        if let Some((started, _)) = &mut self.latency {
            *started = Instant::now();
        }
    }

    fn after_call(&mut self, call: Call) {
        if let Some((started, latency)) = &mut self.latency {
            latency.add(started.elapsed(), call);
        }
    }
}

/// Buckets of a [`Latency`] histogram: bucket 0 holds calls under 1 µs,
/// bucket `k` calls of `[2^(k-1), 2^k)` µs, the last everything longer.
pub const LATENCY_BUCKETS: usize = 28;

/// How long the kernel calls of one replay took: a histogram with
/// power-of-two bounds in microseconds, and the slowest call, in all and
/// per kind of call. What a firmware integrator sizes a timer by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Latency {
    /// Calls per bucket (see [`LATENCY_BUCKETS`]).
    pub buckets: [u64; LATENCY_BUCKETS],
    /// The slowest call: how long, and which.
    pub slowest: (Duration, Option<Call>),
    /// The same for each kind of call: submit, complete, schedule.
    pub by_call: [CallTimes; 3],
}

/// The histogram and the slowest of one kind of call (see [`Latency`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallTimes {
    /// Calls per bucket (see [`LATENCY_BUCKETS`]).
    pub buckets: [u64; LATENCY_BUCKETS],
    /// The slowest.
    pub slowest: Duration,
}

impl CallTimes {
    /// The kinds of call, in the order of [`Latency::by_call`].
    pub const CALLS: [Call; 3] = [Call::Submit, Call::Complete, Call::Schedule];

    /// An upper bound (µs) on the `q`-quantile, as [`Latency::quantile_below_us`].
    #[must_use]
    pub fn quantile_below_us(&self, q: f64) -> f64 {
        quantile_below_us(&self.buckets, self.slowest, q)
    }
}

impl Default for Latency {
    fn default() -> Self {
        Self {
            buckets: [0; LATENCY_BUCKETS],
            slowest: (Duration::ZERO, None),
            by_call: Default::default(),
        }
    }
}

impl Latency {
    /// Counts one call that took `took`.
    pub fn add(&mut self, took: Duration, call: Call) {
        let micros = took.as_micros();
        // 0 µs -> bucket 0; [2^(k-1), 2^k) µs -> bucket k.
        let bucket = ((u128::BITS - micros.leading_zeros()) as usize).min(LATENCY_BUCKETS - 1);
        if let Some(n) = self.buckets.get_mut(bucket) {
            *n += 1;
        }
        if took > self.slowest.0 || self.slowest.1.is_none() {
            self.slowest = (took, Some(call));
        }
        let kind = CallTimes::CALLS.iter().position(|&c| c == call);
        if let Some(times) = kind.and_then(|k| self.by_call.get_mut(k)) {
            if let Some(n) = times.buckets.get_mut(bucket) {
                *n += 1;
            }
            times.slowest = times.slowest.max(took);
        }
    }

    /// Calls counted.
    #[must_use]
    pub fn calls(&self) -> u64 {
        self.buckets.iter().sum()
    }

    /// The lower bound (µs, inclusive) of bucket `k`.
    #[must_use]
    pub fn bucket_from_us(k: usize) -> u64 {
        if k == 0 {
            0
        } else {
            1u64 << (k - 1)
        }
    }

    /// The upper bound (µs, exclusive) of bucket `k`; `None` for the last,
    /// which is open.
    #[must_use]
    pub fn bucket_below_us(k: usize) -> Option<u64> {
        (k + 1 < LATENCY_BUCKETS).then(|| 1u64 << k)
    }

    /// An upper bound (µs) on the `q`-quantile of the call times (`q` in
    /// `[0, 1]`): the bound of the bucket it falls in; the slowest call
    /// when that is the open last bucket.
    #[must_use]
    pub fn quantile_below_us(&self, q: f64) -> f64 {
        quantile_below_us(&self.buckets, self.slowest.0, q)
    }
}

/// [`Latency::quantile_below_us`] of a histogram whose slowest call took
/// `slowest`.
fn quantile_below_us(buckets: &[u64; LATENCY_BUCKETS], slowest: Duration, q: f64) -> f64 {
    let calls: u64 = buckets.iter().sum();
    let rank = ((q.clamp(0.0, 1.0) * calls as f64).ceil() as u64).max(1);
    let slowest = slowest.as_secs_f64() * 1e6;
    let mut seen = 0;
    for (k, n) in buckets.iter().enumerate() {
        seen += n;
        if seen >= rank {
            return Latency::bucket_below_us(k).map_or(slowest, |b| (b as f64).min(slowest));
        }
    }
    slowest
}

/// Looks at the kernel as each job arrives, on the replay thread (see
/// [`run_observed`] and `Simulator::run_with`).
pub trait ArrivalObserver {
    /// Called just before `job` is submitted at `job.submit`, after the
    /// completions at that instant, with the kernel the replay runs on
    /// (of [`TraceKernel`]'s capacities or larger: see the module docs).
    fn arriving<const Q: usize, const R: usize, const B: usize>(
        &mut self,
        kernel: &Kernel<Q, R, B>,
        job: &Job,
    );
}

impl ArrivalObserver for () {
    fn arriving<const Q: usize, const R: usize, const B: usize>(
        &mut self,
        _kernel: &Kernel<Q, R, B>,
        _job: &Job,
    ) {
    }
}

/// Replays `prepared` under `policy`.
///
/// # Errors
/// [`CliError::Replay`] when the kernel refuses a call for another reason
/// than the job itself (a time past the replay clock, say; see the module
/// docs for the kernel's size).
pub fn run(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    keep_records: bool,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<RunResult, CliError> {
    run_timed(prepared, policy, bounds, keep_records, progress, false)
}

/// [`run`], timing every kernel call when `latency` is set
/// ([`RunResult::latency`]; two clock reads per call).
///
/// # Errors
/// As [`run`].
pub fn run_timed(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    keep_records: bool,
    progress: Option<&indicatif::ProgressBar>,
    latency: bool,
) -> Result<RunResult, CliError> {
    let options = RunOptions {
        keep_records,
        latency,
        first_kernel_filled: false,
    };
    run_with(prepared, policy, bounds, options, progress, |_| ()).map(|(r, ())| r)
}

/// [`run_timed`] after a replay that ran while the trace was read did not
/// count ([`crate::stream`]); `first_kernel_filled` when it stopped because
/// [`TraceKernel`] filled up, so the replay starts on the next size.
///
/// # Errors
/// As [`run`].
pub(crate) fn run_again(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    options: RunOptions,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<RunResult, CliError> {
    run_with(prepared, policy, bounds, options, progress, |_| ()).map(|(r, ())| r)
}

/// Whether a replay stopped because the kernel's tables were full (a
/// larger kernel would go on).
pub(crate) fn fills_kernel(error: &SimError) -> bool {
    matches!(
        error.kind,
        SimErrorKind::Kernel(
            KernelError::QueueFull(_) | KernelError::RunningFull(_) | KernelError::ProfileFull
        )
    )
}

/// What a replay keeps beyond its metrics.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunOptions {
    /// Every job's record.
    pub(crate) keep_records: bool,
    /// Every kernel call's duration.
    pub(crate) latency: bool,
    /// The window is known to fill [`TraceKernel`]: start on the next size.
    pub(crate) first_kernel_filled: bool,
}

/// [`run`], with an [`ArrivalObserver`] that `make` builds on the replay
/// thread (whose stack is at least 256 MB, so the observer may build a
/// plan of the kernel's shape there) and that is handed back with the
/// result. `make` is called again if the replay moves to the larger kernel.
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
    F: Fn(&TraceCluster) -> A + Sync,
{
    let options = RunOptions {
        keep_records,
        latency: false,
        first_kernel_filled: false,
    };
    run_with(prepared, policy, bounds, options, progress, make)
}

fn run_with<A, F>(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    options: RunOptions,
    progress: Option<&indicatif::ProgressBar>,
    make: F,
) -> Result<(RunResult, A), CliError>
where
    A: ArrivalObserver + Send,
    F: Fn(&TraceCluster) -> A + Sync,
{
    let cluster = Cluster::single(prepared.machine_procs.max(1))
        .map_err(|e| CliError::Usage(format!("bad machine size: {e}")))?;
    let replay = Replay {
        prepared,
        policy,
        bounds,
        options,
        progress,
        cluster: &cluster,
    };
    // Each attempt either finishes, or fails for good, or fills a kernel
    // smaller than the window (then the next size starts again; the
    // progress bar forgets the attempt).
    let retry = |failed: Failed, capacity: usize| {
        if !fills_kernel(&failed.error) || prepared.jobs.len() <= capacity {
            return Err(failed.into_error(prepared));
        }
        if let Some(bar) = progress {
            bar.dec(failed.reported);
        }
        Ok(())
    };
    if !options.first_kernel_filled {
        match replay.on::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY, A, F>(&make)? {
            Ok(done) => return Ok(done),
            Err(failed) => retry(failed, QUEUE_CAPACITY.min(RUNNING_CAPACITY))?,
        }
    }
    match replay
        .on::<DEEP_QUEUE_CAPACITY, DEEP_RUNNING_CAPACITY, DEEP_STEP_CAPACITY, A, F>(&make)?
    {
        Ok(done) => return Ok(done),
        Err(failed) => retry(failed, DEEP_QUEUE_CAPACITY.min(DEEP_RUNNING_CAPACITY))?,
    }
    match replay
        .on::<MEDIUM_QUEUE_CAPACITY, MEDIUM_RUNNING_CAPACITY, MEDIUM_STEP_CAPACITY, A, F>(&make)?
    {
        Ok(done) => return Ok(done),
        Err(failed) => retry(failed, MEDIUM_QUEUE_CAPACITY.min(MEDIUM_RUNNING_CAPACITY))?,
    }
    replay
        .on::<LARGE_QUEUE_CAPACITY, LARGE_RUNNING_CAPACITY, LARGE_STEP_CAPACITY, A, F>(&make)?
        .map_err(|failed| failed.into_error(prepared))
}

/// One replay's parameters, for [`Replay::on`] a kernel of some size.
struct Replay<'a> {
    prepared: &'a Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    options: RunOptions,
    progress: Option<&'a indicatif::ProgressBar>,
    cluster: &'a TraceCluster,
}

/// A replay that stopped: the core error, what it means here, and the jobs
/// it had counted on the progress bar.
struct Failed {
    error: SimError,
    detail: Option<String>,
    reported: u64,
}

impl Failed {
    fn into_error(self, prepared: &Prepared) -> CliError {
        let job = self
            .error
            .job
            .and_then(|id| prepared.trace_jobs.get(id as usize));
        CliError::Replay(Box::new(ReplayFailure {
            trace: prepared.name.clone(),
            number: job.map(|t| t.number),
            line: job.map(|t| t.line),
            error: self.error,
            detail: self.detail,
        }))
    }
}

impl Replay<'_> {
    /// Replays on a kernel of `Q` waiting jobs, `R` running jobs and `B`
    /// profile steps, on a thread whose stack holds it. The outer error is
    /// the thread's; the inner one the replay's.
    fn on<const Q: usize, const R: usize, const B: usize, A, F>(
        &self,
        make: &F,
    ) -> Result<Result<(RunResult, A), Failed>, CliError>
    where
        A: ArrivalObserver + Send,
        F: Fn(&TraceCluster) -> A + Sync,
    {
        let Self {
            prepared,
            policy,
            bounds,
            options,
            progress,
            cluster,
        } = *self;
        let stack = stack_for::<Q, R, B>();
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name(format!("replay-{policy}"))
                .stack_size(stack)
                .spawn_scoped(scope, move || {
                    let mut observer = make(cluster);
                    let (sim, done) = replay_jobs::<Q, R, B, _, _>(
                        &Setup {
                            cluster,
                            policy,
                            bounds,
                            options,
                            progress,
                        },
                        prepared.jobs.len(),
                        prepared.jobs.iter().copied(),
                        &mut observer,
                    );
                    match done {
                        Ok(result) => Ok((result, observer)),
                        Err((error, reported)) => Err(Failed {
                            detail: explain(&error, sim.kernel(), prepared),
                            error,
                            reported,
                        }),
                    }
                });
            match worker {
                Ok(handle) => handle
                    .join()
                    .map_err(|_| CliError::Usage("the replay thread panicked".into())),
                Err(e) => Err(CliError::Io("replay thread".into(), e)),
            }
        })
    }
}

/// What a replay runs on and keeps, whatever feeds it its jobs.
pub(crate) struct Setup<'a> {
    pub(crate) cluster: &'a TraceCluster,
    pub(crate) policy: Policy,
    pub(crate) bounds: CategoryBounds,
    pub(crate) options: RunOptions,
    pub(crate) progress: Option<&'a indicatif::ProgressBar>,
}

/// Replays `jobs` (about `expected` of them) as `setup` says, on this
/// thread, on a simulator of `Q` waiting jobs, `R` running jobs and `B`
/// profile steps (the one [`prebuild`] built, when it is of that size).
/// Returns the simulator and the result, or the error with the jobs the
/// progress bar was told of.
pub(crate) fn replay_jobs<const Q: usize, const R: usize, const B: usize, I, A>(
    setup: &Setup<'_>,
    expected: usize,
    jobs: I,
    observer: &mut A,
) -> (Box<Simulator<Q, R, B>>, Result<RunResult, (SimError, u64)>)
where
    I: Iterator<Item = SimJob>,
    A: ArrivalObserver,
{
    let &Setup {
        cluster,
        policy,
        bounds,
        options,
        progress,
    } = setup;
    let mut sim = simulator_for::<Q, R, B>(cluster, policy);
    let mut sink = HostSink {
        metrics: Metrics::new(bounds),
        records: options.keep_records.then(|| Vec::with_capacity(expected)),
        rejected: Vec::new(),
        latency: options
            .latency
            .then(|| (Instant::now(), Latency::default())),
        progress,
        done: 0,
        reported: 0,
    };
    let started = Instant::now();
    let outcome = sim.run_with(jobs, &mut sink, |k, job| {
        observer.arriving(k, job);
    });
    let wall = started.elapsed();
    let counters = *sim.kernel().counters();
    sink.report();
    let done = match outcome {
        Ok(outcome) => Ok(RunResult {
            policy,
            metrics: sink.metrics,
            outcome,
            records: sink.records,
            rejected: sink.rejected,
            queue_capacity: Q,
            wall,
            while_reading: false,
            latency: sink.latency.map(|(_, l)| l),
            counters,
        }),
        Err(error) => Err((error, sink.reported)),
    };
    (sim, done)
}

/// What a replay error means for the user, from the kernel's state when it
/// stopped (errors leave the kernel unchanged).
fn explain<const Q: usize, const R: usize, const B: usize>(
    error: &SimError,
    kernel: &Kernel<Q, R, B>,
    prepared: &Prepared,
) -> Option<String> {
    match error.kind {
        SimErrorKind::Kernel(KernelError::TimeOverflow) => {
            let biggest = kernel
                .queued()
                .iter()
                .map(|q| q.job)
                .chain(kernel.running().iter().map(|r| r.job))
                .max_by_key(|j| j.estimate)?;
            let t = prepared.trace_jobs.get(biggest.id as usize)?;
            Some(format!(
                "the schedule reaches past the replay clock's end ({} s, about 136 years); \
                 the largest estimate in the system then was {} s, trace job {} (line {})",
                Time::MAX,
                biggest.estimate,
                t.number,
                t.line
            ))
        }
        SimErrorKind::Kernel(
            KernelError::QueueFull(_) | KernelError::RunningFull(_) | KernelError::ProfileFull,
        ) => Some(format!(
            "more than {Q} jobs were waiting (or more than {R} running) at once, the most the \
             replay kernel holds; replay a smaller window (--first N, --skip N)"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::SyntheticSpec;

    #[test]
    fn latency_buckets_are_powers_of_two_microseconds() {
        let mut l = Latency::default();
        let us = Duration::from_micros;
        for (took, call) in [
            (Duration::from_nanos(999), Call::Submit), // bucket 0: under 1 µs
            (us(1), Call::Submit),                     // bucket 1: [1, 2)
            (us(3), Call::Complete),                   // bucket 2: [2, 4)
            (us(4), Call::Schedule),                   // bucket 3: [4, 8)
            (us(5), Call::Schedule),                   // bucket 3
            (Duration::from_secs(1_000), Call::Complete), // the open last bucket
        ] {
            l.add(took, call);
        }
        assert_eq!(&l.buckets[..4], &[1, 1, 1, 2]);
        assert_eq!(l.buckets[LATENCY_BUCKETS - 1], 1);
        assert_eq!(l.calls(), 6);
        // Per kind: submit, complete, schedule.
        let [submit, complete, schedule] = &l.by_call;
        assert_eq!((&submit.buckets[..2], submit.slowest), (&[1, 1][..], us(1)));
        assert_eq!(complete.buckets[2], 1);
        assert_eq!(complete.buckets[LATENCY_BUCKETS - 1], 1);
        assert_eq!(complete.slowest, Duration::from_secs(1_000));
        assert_eq!((schedule.buckets[3], schedule.slowest), (2, us(5)));
        // Both schedule calls fall in [4, 8) µs: bounded by the slowest.
        assert_eq!(schedule.quantile_below_us(0.99), 5.0);
        assert_eq!(submit.quantile_below_us(0.5), 1.0);
        assert_eq!(
            l.slowest,
            (Duration::from_secs(1_000), Some(Call::Complete))
        );
        assert_eq!(Latency::bucket_below_us(0), Some(1));
        assert_eq!(
            (Latency::bucket_from_us(0), Latency::bucket_from_us(3)),
            (0, 4)
        );
        assert_eq!(Latency::bucket_below_us(3), Some(8));
        assert_eq!(Latency::bucket_below_us(LATENCY_BUCKETS - 1), None);
        // The median (3rd of 6) is in [2, 4); the largest only below the slowest.
        assert_eq!(l.quantile_below_us(0.5), 4.0);
        assert_eq!(l.quantile_below_us(1.0), 1e9);
        let mut fast = Latency::default();
        fast.add(us(3), Call::Schedule);
        // Capped at the slowest call: no call took 4 µs.
        assert_eq!(fast.quantile_below_us(0.5), 3.0);
    }

    /// A simulator built in the background is taken when it has the size
    /// asked for, and reset for the cluster and policy: it prints as a new
    /// one, though it was built for another machine and had run jobs. One
    /// of another size is left, and a new one built.
    #[test]
    fn a_simulator_built_in_the_background_is_reset_and_used() {
        let cluster = Cluster::single(8).unwrap();
        let fresh = format!(
            "{:?}",
            boxed_simulator::<8, 8, 32>(cluster.clone(), Policy::Easy)
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let building = std::thread::spawn(move || -> Box<dyn Any + Send> {
            let mut sim =
                boxed_simulator::<8, 8, 32>(Cluster::single(3).unwrap(), Policy::Conservative);
            let jobs = (0..6).map(|id| SimJob {
                job: Job::new(id, id, 2, 50),
                runtime: 30,
            });
            let mut metrics = Metrics::new(CategoryBounds::default());
            sim.run(jobs, &mut metrics).unwrap();
            assert_eq!(metrics.overall.count, 6);
            tx.send(std::ptr::from_ref(&*sim) as usize).unwrap();
            sim
        });
        let sim = simulator_from::<8, 8, 32>(Some(building), &cluster, Policy::Easy);
        assert_eq!(std::ptr::from_ref(&*sim) as usize, rx.recv().unwrap());
        assert_eq!(format!("{sim:?}"), fresh);
        let other = build_in_background::<16, 16, 64>().unwrap();
        let sim = simulator_from::<8, 8, 32>(Some(other), &cluster, Policy::Easy);
        assert_eq!(format!("{sim:?}"), fresh);
        let sim = simulator_from::<8, 8, 32>(None, &cluster, Policy::Easy);
        assert_eq!(format!("{sim:?}"), fresh);
    }

    fn synthetic(jobs: u32) -> Prepared {
        let window = Window {
            skip: 0,
            first: None,
            procs: None,
        };
        let shaping = Shaping {
            estimates: Estimates::User,
            load: 1.0,
        };
        let spec = SyntheticSpec {
            jobs,
            ..SyntheticSpec::default()
        };
        prepare_synthetic(&spec, &window, shaping).unwrap()
    }

    #[test]
    fn numbers_read_as_written() {
        assert_eq!(number_text(1.5), "1.5");
        assert_eq!(number_text(1.0), "1");
        assert_eq!(number_text(1e-300), "1e-300");
        assert_eq!(number_text(0.0), "0");
        assert_eq!(number_text(2.5e12), "2.5e12");
    }

    #[test]
    fn scaled_times_past_the_clock_are_none() {
        assert_eq!(scale_time_checked(100, 1.0), Some(100));
        assert_eq!(scale_time_checked(100, 2.0), Some(50));
        assert_eq!(scale_time_checked(u32::MAX, 0.5), None);
        assert_eq!(scale_time_checked(1, 1e-300), None);
        assert_eq!(
            scale_time(1, 1e-300),
            u32::MAX,
            "the unchecked one saturates"
        );
    }

    #[test]
    fn a_full_kernel_is_explained_with_its_capacity() {
        let prepared = synthetic(10);
        let kernel: Kernel<4, 2, 16> = Kernel::new(Cluster::single(8).unwrap(), Policy::Easy);
        let error = SimError {
            time: 7,
            job: Some(3),
            kind: SimErrorKind::Kernel(KernelError::QueueFull(3)),
        };
        let detail = explain(&error, &kernel, &prepared).unwrap();
        assert!(
            detail.starts_with("more than 4 jobs were waiting (or more than 2 running) at once"),
            "{detail}"
        );
        let failed = Failed {
            error,
            detail: Some(detail),
            reported: 0,
        };
        let text = failed.into_error(&prepared).to_string();
        assert!(
            text.starts_with(
                "built-in Lublin-Feitelson batch model (seed 1, 10 jobs): replay stopped at t=7 (job 3): wait queue full"
            ),
            "{text}"
        );
        assert!(text.contains("(trace job "), "{text}");
        assert!(
            text.ends_with("replay a smaller window (--first N, --skip N)"),
            "{text}"
        );
        let other = SimError {
            time: 7,
            job: None,
            kind: SimErrorKind::Unsorted,
        };
        assert_eq!(explain(&other, &kernel, &prepared), None);
    }

    #[test]
    fn refused_jobs_are_kept_with_their_reason() {
        // A job wider than the machine reaches the kernel only when the
        // window was prepared for a larger machine; the kernel refuses it
        // and the replay goes on.
        let mut prepared = synthetic(50);
        prepared.machine_procs = 8;
        let result = run(
            &prepared,
            Policy::Easy,
            CategoryBounds::DEFAULT,
            false,
            None,
        )
        .unwrap();
        let wide = prepared.jobs.iter().filter(|j| j.job.procs > 8).count();
        assert!(wide > 0);
        assert_eq!(result.rejected.len(), wide);
        assert!(result
            .rejected
            .iter()
            .all(|(_, e)| matches!(e, KernelError::Unrunnable(_))));
        assert_eq!(result.outcome.finished as usize + wide, prepared.jobs.len());
        assert_eq!(result.queue_capacity, QUEUE_CAPACITY);
    }
}
