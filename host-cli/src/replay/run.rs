//! The replay drivers: a prepared window through the core [`Simulator`] on
//! a thread with a large stack, on the smallest kernel that holds it (see
//! [`super::kernels`]), with metrics, optional per-job records, the jobs the
//! kernel refused, and optionally every call timed.

use super::checkpoint::{self, Checkpointing, Collected};
use super::kernels::{
    simulator_for, stack_for, TraceCluster, DEEP_QUEUE_CAPACITY, DEEP_RUNNING_CAPACITY,
    DEEP_STEP_CAPACITY, LARGE_QUEUE_CAPACITY, LARGE_RUNNING_CAPACITY, LARGE_STEP_CAPACITY,
    MEDIUM_QUEUE_CAPACITY, MEDIUM_RUNNING_CAPACITY, MEDIUM_STEP_CAPACITY, QUEUE_CAPACITY,
    RUNNING_CAPACITY, STEP_CAPACITY,
};
use super::latency::Latency;
use super::prepare::Prepared;
use super::reasons::{Followed, WantReasons};
use crate::error::{CliError, ReplayFailure};
use backfill_core::{
    Call, CategoryBounds, Cluster, Counters, Job, JobId, JobRecord, Kernel, KernelError, Metrics,
    Outcome, Policy, SimError, SimErrorKind, SimJob, Simulator, Sink, Slot, StartKind, Time,
    Waiting,
};
use std::time::{Duration, Instant};

/// What a replay produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Policy replayed.
    pub(crate) policy: Policy,
    /// Metrics overall and per category.
    pub metrics: Metrics,
    /// Replay totals.
    pub outcome: Outcome,
    /// Per-job records in completion order, when asked for.
    pub(crate) records: Option<Vec<JobRecord>>,
    /// Jobs the kernel refused for what they are (no machine can run
    /// them, no processors or a zero estimate), with the kernel's reason;
    /// the replay went on without them.
    pub rejected: Vec<(JobId, KernelError)>,
    /// Waiting jobs the kernel had room for (see the module docs).
    pub(crate) queue_capacity: usize,
    /// Wall time of the replay (kernel and loop, not parsing).
    pub(crate) wall: Duration,
    /// The replay ran while the trace was read ([`crate::replay::stream`]): `wall`
    /// then includes waiting for lines.
    pub(crate) while_reading: bool,
    /// How long each kernel call took, when they were timed ([`run_timed`]).
    pub(crate) latency: Option<Latency>,
    /// What the search-based policies did (DPSA searches, nodes, budget hits).
    pub counters: Counters,
    /// Every change of every job's pending reason and every start kind,
    /// and the queue at an instant, when the replay followed them.
    pub(crate) reasons: Option<Box<Followed>>,
}

impl RunResult {
    /// The per-job records in completion order, when the replay kept them.
    #[must_use]
    pub fn records(&self) -> Option<&[JobRecord]> {
        self.records.as_deref()
    }
}

struct HostSink<'a> {
    /// Metrics, refused jobs and records: what a checkpoint keeps.
    collected: Collected,
    /// The pending reasons, when followed.
    reasons: Option<Box<Followed>>,
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

impl<'a> HostSink<'a> {
    /// An empty sink for the replay of about `expected` jobs as `setup`
    /// says.
    fn new(setup: &Setup<'a>, expected: usize) -> Self {
        let options = setup.options;
        HostSink {
            collected: Collected {
                metrics: Metrics::new(setup.bounds),
                records: options.keep_records.then(|| Vec::with_capacity(expected)),
                rejected: Vec::new(),
            },
            latency: options
                .latency
                .then(|| (Instant::now(), Latency::default())),
            reasons: options
                .reasons
                .map(|want| Box::new(Followed::new(setup.jobs, want))),
            progress: setup.progress,
            done: 0,
            reported: 0,
        }
    }

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
        self.collected.metrics.add(record);
        if let Some(records) = &mut self.collected.records {
            records.push(*record);
        }
        self.count();
    }

    fn rejected(&mut self, job: &Job, error: KernelError) {
        self.collected.rejected.push((job.id, error));
        self.count();
    }

    fn started(&mut self, _job: &Job, _slot: Slot) {}

    fn wants_reasons(&self) -> bool {
        self.reasons.is_some()
    }

    fn waiting(&mut self, now: Time, waiting: &Waiting) {
        if let Some(r) = &mut self.reasons {
            r.waiting(now, waiting);
        }
    }

    fn start_kind(&mut self, now: Time, job: &Job, kind: StartKind) {
        if let Some(r) = &mut self.reasons {
            r.log.started(job.id, job.submit, now, kind);
        }
    }

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

/// Looks at the kernel as each job arrives, on the replay thread (see
/// [`run_observed`] and `Simulator::run_with`).
pub(crate) trait ArrivalObserver {
    /// Called just before `job` is submitted at `job.submit`, after the
    /// completions at that instant, with the kernel the replay runs on
    /// (of [`TraceKernel`](super::TraceKernel)'s capacities or larger: see the module docs).
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
pub(crate) fn run_timed(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    keep_records: bool,
    progress: Option<&indicatif::ProgressBar>,
    latency: bool,
) -> Result<RunResult, CliError> {
    let options = RunOptions::new(keep_records, latency);
    run_again(prepared, policy, bounds, options, progress)
}

/// [`run`] with every [`RunOptions`] given: also the replay again after one
/// that ran while the trace was read did not count
/// ([`crate::replay::stream`]); `first_kernel_filled` when it stopped because
/// [`TraceKernel`](super::TraceKernel) filled up, so the replay starts on the next size.
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
    run_with(prepared, policy, bounds, options, progress, None, |_| ()).map(|(r, ())| r)
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
    /// The window is known to fill [`TraceKernel`](super::TraceKernel): start on the next size.
    pub(crate) first_kernel_filled: bool,
    /// Follow every job's pending reason ([`RunResult::reasons`]).
    pub(crate) reasons: Option<WantReasons>,
}

impl RunOptions {
    /// Records when `keep_records`, call times when `latency`, nothing
    /// else.
    #[must_use]
    pub(crate) const fn new(keep_records: bool, latency: bool) -> Self {
        Self {
            keep_records,
            latency,
            first_kernel_filled: false,
            reasons: None,
        }
    }
}

/// [`run`], with an [`ArrivalObserver`] that `make` builds on the replay
/// thread (whose stack is at least 256 MB, so the observer may build a
/// plan of the kernel's shape there) and that is handed back with the
/// result. `make` is called again if the replay moves to the larger kernel.
///
/// # Errors
/// As [`run`].
pub(crate) fn run_observed<A, F>(
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
    let options = RunOptions::new(keep_records, false);
    run_with(prepared, policy, bounds, options, progress, None, make)
}

/// [`run_again`], writing checkpoints and resuming from one as
/// `checkpoints` says (`replay --checkpoint-every`, `--resume`: see
/// [`super::checkpoint`]). A resumed replay starts on the kernel size its
/// checkpoint was taken on; if that one fills up, the next size replays
/// the window from its start, as an uninterrupted replay would.
///
/// # Errors
/// As [`run`]; [`CliError::Usage`] for a checkpoint the kernel refuses,
/// [`CliError::Io`] for one that cannot be written.
pub(crate) fn run_checkpointed(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    options: RunOptions,
    progress: Option<&indicatif::ProgressBar>,
    checkpoints: &Checkpointing,
) -> Result<RunResult, CliError> {
    run_with(
        prepared,
        policy,
        bounds,
        options,
        progress,
        Some(checkpoints),
        |_| (),
    )
    .map(|(r, ())| r)
}

fn run_with<A, F>(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    options: RunOptions,
    progress: Option<&indicatif::ProgressBar>,
    checkpoints: Option<&Checkpointing>,
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
        checkpoints,
    };
    // A resumed replay starts on its checkpoint's kernel size.
    let first = checkpoints
        .and_then(|c| c.resume.as_ref())
        .and_then(|r| {
            checkpoint::SIZES
                .iter()
                .position(|&size| checkpoint::is_size(&r.capacities, size))
        })
        .unwrap_or(0);
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
    if !options.first_kernel_filled && first == 0 {
        match replay.on::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY, A, F>(&make)? {
            Ok(done) => return Ok(done),
            Err(failed) => retry(failed, QUEUE_CAPACITY.min(RUNNING_CAPACITY))?,
        }
    }
    if first <= 1 {
        match replay
            .on::<DEEP_QUEUE_CAPACITY, DEEP_RUNNING_CAPACITY, DEEP_STEP_CAPACITY, A, F>(&make)?
        {
            Ok(done) => return Ok(done),
            Err(failed) => retry(failed, DEEP_QUEUE_CAPACITY.min(DEEP_RUNNING_CAPACITY))?,
        }
    }
    if first <= 2 {
        match replay
            .on::<MEDIUM_QUEUE_CAPACITY, MEDIUM_RUNNING_CAPACITY, MEDIUM_STEP_CAPACITY, A, F>(
                &make,
            )? {
            Ok(done) => return Ok(done),
            Err(failed) => retry(failed, MEDIUM_QUEUE_CAPACITY.min(MEDIUM_RUNNING_CAPACITY))?,
        }
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
    checkpoints: Option<&'a Checkpointing>,
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
            checkpoints,
        } = *self;
        let stack = stack_for::<Q, R, B>();
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name(format!("replay-{policy}"))
                .stack_size(stack)
                .spawn_scoped(scope, move || {
                    let mut observer = make(cluster);
                    let setup = Setup {
                        jobs: prepared.jobs.len(),
                        cluster,
                        policy,
                        bounds,
                        options,
                        progress,
                    };
                    let (sim, done) = match checkpoints {
                        None => replay_jobs::<Q, R, B, _, _>(
                            &setup,
                            prepared.jobs.len(),
                            prepared.jobs.iter().copied(),
                            &mut observer,
                        ),
                        Some(c) => replay_checkpointed::<Q, R, B>(&setup, prepared, c)?,
                    };
                    Ok(match done {
                        Ok(result) => Ok((result, observer)),
                        Err((error, reported)) => Err(Failed {
                            detail: explain(&error, sim.kernel(), prepared),
                            error,
                            reported,
                        }),
                    })
                });
            match worker {
                Ok(handle) => handle
                    .join()
                    .map_err(|_| CliError::Usage("the replay thread panicked".into()))?,
                Err(e) => Err(CliError::Io("replay thread".into(), e)),
            }
        })
    }
}

/// What a replay runs on and keeps, whatever feeds it its jobs.
pub(crate) struct Setup<'a> {
    /// Jobs of the window (kernel ids below it).
    pub(crate) jobs: usize,
    pub(crate) cluster: &'a TraceCluster,
    pub(crate) policy: Policy,
    pub(crate) bounds: CategoryBounds,
    pub(crate) options: RunOptions,
    pub(crate) progress: Option<&'a indicatif::ProgressBar>,
}

/// A replay's simulator and its result, or its error with the jobs the
/// progress bar was told of.
pub(crate) type Replayed<const Q: usize, const R: usize, const B: usize> =
    (Box<Simulator<Q, R, B>>, Result<RunResult, (SimError, u64)>);

/// Replays `jobs` (about `expected` of them) as `setup` says, on this
/// thread, on a simulator of `Q` waiting jobs, `R` running jobs and `B`
/// profile steps (the one [`prebuild`](super::prebuild) built, when it is of that size).
/// Returns the simulator and the result, or the error with the jobs the
/// progress bar was told of.
pub(crate) fn replay_jobs<const Q: usize, const R: usize, const B: usize, I, A>(
    setup: &Setup<'_>,
    expected: usize,
    jobs: I,
    observer: &mut A,
) -> Replayed<Q, R, B>
where
    I: Iterator<Item = SimJob>,
    A: ArrivalObserver,
{
    let mut sim = simulator_for::<Q, R, B>(setup.cluster, setup.policy);
    let mut sink = HostSink::new(setup, expected);
    let started = Instant::now();
    let outcome = match setup.options.reasons.and_then(|r| r.queue_at) {
        // The simulator is new (or reset), so resuming starts at the start.
        Some(at) => sim
            .resume_with(
                jobs,
                &mut sink,
                |k, job| observer.arriving(k, job),
                |sim, sink| {
                    if let Some(r) = &mut sink.reasons {
                        r.passed(sim.kernel(), at);
                    }
                    false
                },
            )
            .map(|ended| ended.unwrap_or(sim.progress().outcome)),
        None => sim.run_with(jobs, &mut sink, |k, job| {
            observer.arriving(k, job);
        }),
    };
    let done = finish(setup, &sim, sink, outcome, started);
    (sim, done)
}

/// The result of a replay that ended with `outcome`, begun (or resumed) at
/// `started`.
fn finish<const Q: usize, const R: usize, const B: usize>(
    setup: &Setup<'_>,
    sim: &Simulator<Q, R, B>,
    mut sink: HostSink<'_>,
    outcome: Result<Outcome, SimError>,
    started: Instant,
) -> Result<RunResult, (SimError, u64)> {
    let wall = started.elapsed();
    let counters = *sim.kernel().counters();
    sink.report();
    match outcome {
        Ok(outcome) => Ok(RunResult {
            policy: setup.policy,
            metrics: sink.collected.metrics,
            outcome,
            records: sink.collected.records,
            rejected: sink.collected.rejected,
            queue_capacity: Q,
            wall,
            while_reading: false,
            latency: sink.latency.map(|(_, l)| l),
            counters,
            reasons: sink.reasons,
        }),
        Err(error) => Err((error, sink.reported)),
    }
}

/// [`replay_jobs`] of `prepared`, writing checkpoints as `checkpoints`
/// says and, when its checkpoint to resume from is of this kernel size,
/// continuing from it (see [`super::checkpoint`]).
///
/// # Errors
/// [`CliError::Usage`] when the kernel refuses the checkpoint,
/// [`CliError::Io`] when one cannot be written (the replay stops there).
fn replay_checkpointed<const Q: usize, const R: usize, const B: usize>(
    setup: &Setup<'_>,
    prepared: &Prepared,
    checkpoints: &Checkpointing,
) -> Result<Replayed<Q, R, B>, CliError> {
    let mut sim = simulator_for::<Q, R, B>(setup.cluster, setup.policy);
    let mut sink = HostSink::new(setup, prepared.jobs.len());
    let resume = checkpoints.resume.as_ref();
    if let Some(resumed) = resume.filter(|r| checkpoint::is_size(&r.capacities, (Q, R, B))) {
        sim.restore(&resumed.simulator)
            .map_err(|e| checkpoint::refusal(&resumed.path, &format!("the replay's state: {e}")))?;
        let kernel = sim.kernel();
        let restored = checkpoint::Restored {
            progress: sim.progress(),
            unfinished: (kernel.queued().iter().map(|q| q.job.id))
                .chain(kernel.running().iter().map(|r| r.job.id))
                .collect(),
        };
        checkpoint::agrees(resumed, &restored, &prepared.jobs)?;
        sink.collected = resumed.collected.clone();
        let outcome = &sim.progress().outcome;
        sink.done = outcome.finished.saturating_add(outcome.rejected);
        sink.report();
    }
    let mut last = checkpoint::events(&sim.progress().outcome);
    let mut failure = None;
    let started = Instant::now();
    let ended = sim.resume_with(
        prepared.jobs.iter().copied(),
        &mut sink,
        |_, _| {},
        |sim, sink| {
            let now = checkpoint::events(&sim.progress().outcome);
            if now.saturating_sub(last) < checkpoints.every {
                return false;
            }
            last = now;
            let mut bytes = vec![0; sim.checkpoint_len()];
            let written = sim
                .checkpoint(&mut bytes)
                .map_err(|e| CliError::Usage(format!("cannot checkpoint the replay: {e}")))
                .and_then(|len| {
                    bytes.truncate(len);
                    checkpoints.write(&bytes, &sink.collected)
                });
            written.map_err(|e| failure = Some(e)).is_err()
        },
    );
    if let Some(e) = failure {
        return Err(e);
    }
    let outcome = ended.map(|o| o.unwrap_or(sim.progress().outcome));
    let done = finish(setup, &sim, sink, outcome, started);
    Ok((sim, done))
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
    use crate::replay::{prepare_synthetic, Shaping, Window};
    use crate::workload::synth::SyntheticSpec;

    fn synthetic(jobs: u32) -> Prepared {
        let window = Window::WHOLE;
        let shaping = Shaping::AS_RECORDED;
        let spec = SyntheticSpec {
            jobs,
            ..SyntheticSpec::default()
        };
        prepare_synthetic(&spec, &window, shaping).unwrap()
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
