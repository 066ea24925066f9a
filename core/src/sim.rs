//! Deterministic replay loop: drives a [`Kernel`] from a list of jobs with
//! known run times, the way a trace-driven simulator does.
//!
//! # Rules
//!
//! * Jobs arrive in input order, which must be sorted by submit time
//!   (otherwise [`SimErrorKind::Unsorted`]); the loop never reorders them.
//! * A job runs for its actual run time, scaled by its machine's speed, but
//!   is **killed at its estimate**: it ends at
//!   `start + min(runtime, estimate)` (on its machine).
//! * The next instant is the earliest of: the next arrival, the next end of a
//!   running job, and [`Kernel::next_wakeup`]. At that instant the loop
//!   applies every completion (in order of end time, then start order), then
//!   every arrival (input order), then one [`Kernel::schedule`] pass; this is
//!   the event order of the kernel docs. A job that ends at the instant it
//!   started (zero run time) is completed at the same instant, and another
//!   pass follows.
//! * A job that no machine can run is reported to [`Sink::rejected`] and the
//!   replay goes on; any other kernel error stops the replay with a
//!   [`SimError`] naming the time and job.
//!
//! Nothing here allocates: the pending-completion heap has the kernel's
//! running capacity `R`.

mod checkpoint;
pub use checkpoint::PROGRESS_LEN;

use crate::kernel::{Kernel, KernelError, Observer, RunningJob};
use crate::plan::Slot;
use crate::reason::{StartKind, Waiting};
use crate::types::{Duration, Job, JobId, Time};
use heapless::binary_heap::{BinaryHeap, Min};

#[cfg(test)]
pub(crate) mod fixtures;

/// A job to replay: what the scheduler sees, and how long it really runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimJob {
    /// The job (its `tag` is overwritten with `runtime`).
    pub job: Job,
    /// Actual run time on a reference-speed machine.
    pub runtime: Duration,
}

/// A finished job, as the replay saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobRecord {
    /// The job.
    pub job: Job,
    /// Its actual run time on a reference machine (it may have been killed earlier).
    pub runtime: Duration,
    /// Where it ran; `slot.start` is its start and `slot.duration` its
    /// estimate on that machine.
    pub slot: Slot,
    /// When it ended: `start + min(runtime, estimate)` on its machine.
    pub end: Time,
    /// Whether it was killed at its estimate.
    pub killed: bool,
    /// The start it was guaranteed by its first reservation, if it had one.
    pub guarantee: Option<Time>,
}

impl JobRecord {
    /// Start time.
    #[must_use]
    pub const fn start(&self) -> Time {
        self.slot.start
    }

    /// `start - submit`.
    #[must_use]
    pub const fn wait(&self) -> Duration {
        self.slot.start.saturating_sub(self.job.submit)
    }

    /// Effective run time, `end - start`.
    #[must_use]
    pub const fn run(&self) -> Duration {
        self.end.saturating_sub(self.slot.start)
    }

    /// `end - submit`.
    #[must_use]
    pub const fn turnaround(&self) -> Duration {
        self.end.saturating_sub(self.job.submit)
    }

    /// `(wait + max(run, 10)) / max(run, 10)`, run being the effective run time.
    #[must_use]
    pub fn bounded_slowdown(&self) -> f64 {
        let run = f64::from(self.run().max(crate::types::SLOWDOWN_BOUND));
        (f64::from(self.wait()) + run) / run
    }
}

/// Which kernel call [`Sink::after_call`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// [`Kernel::submit`].
    Submit,
    /// [`Kernel::complete`].
    Complete,
    /// [`Kernel::schedule`].
    Schedule,
}

/// Receives what happens in a replay. Only [`Sink::finished`] is required.
pub trait Sink {
    /// A job finished.
    fn finished(&mut self, record: &JobRecord);
    /// A job was refused at submission (no machine can run it).
    fn rejected(&mut self, job: &Job, error: KernelError) {
        let _ = (job, error);
    }
    /// A job started at `slot` (at `now`).
    fn started(&mut self, job: &Job, slot: Slot) {
        let _ = (job, slot);
    }
    /// A job got or moved a reservation at `now`.
    fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
        let _ = (now, job, slot);
    }
    /// Whether the replay computes pending reasons and start kinds for this
    /// sink ([`Observer::wants_reasons`]); `false` unless it says otherwise.
    fn wants_reasons(&self) -> bool {
        false
    }
    /// After the pass at `now`, for every job it left waiting
    /// ([`Observer::waiting`]; only when [`Sink::wants_reasons`]).
    fn waiting(&mut self, now: Time, waiting: &Waiting) {
        let _ = (now, waiting);
    }
    /// Right after [`Sink::started`]: how the job started at `now`
    /// ([`Observer::start_kind`]; only when [`Sink::wants_reasons`]).
    fn start_kind(&mut self, now: Time, job: &Job, kind: StartKind) {
        let _ = (now, job, kind);
    }
    /// Called just before each kernel call (to time it, say).
    fn before_call(&mut self) {}
    /// Called just after each kernel call.
    fn after_call(&mut self, call: Call) {
        let _ = call;
    }
}

/// Why a replay stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SimErrorKind {
    /// The kernel refused a call.
    Kernel(KernelError),
    /// A job's submit time is earlier than the one before it.
    Unsorted,
    /// A resumed replay's input does not begin with the jobs the replay
    /// took before it stopped (another trace, window or estimates).
    InputMismatch,
}

/// A replay stopped at `time` because of `kind`, concerning job `job`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimError {
    /// Simulated time.
    pub time: Time,
    /// The job concerned, if one.
    pub job: Option<JobId>,
    /// What went wrong.
    pub kind: SimErrorKind,
}

impl core::fmt::Display for SimError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "replay stopped at t={}", self.time)?;
        if let Some(id) = self.job {
            write!(f, " (job {id})")?;
        }
        match self.kind {
            SimErrorKind::Kernel(e) => write!(f, ": {e}"),
            SimErrorKind::Unsorted => f.write_str(": jobs are not sorted by submit time"),
            SimErrorKind::InputMismatch => {
                f.write_str(": the input does not begin with the jobs the replay took before")
            }
        }
    }
}

impl core::error::Error for SimError {}

/// Totals of a finished replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Jobs accepted by the kernel.
    pub submitted: u64,
    /// Jobs refused at submission.
    pub rejected: u64,
    /// Jobs that finished (equals `submitted` after a complete replay).
    pub finished: u64,
    /// Jobs killed at their estimate.
    pub killed: u64,
    /// Longest wait queue seen.
    pub max_queue: usize,
    /// Kernel calls made.
    pub calls: u64,
    /// Time of the last event.
    pub last_time: Time,
}

/// Where a replay stands between two instants: with the kernel and the
/// pending completions (which follow from the running jobs), what a
/// resumed replay needs ([`Simulator::resume_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Input jobs taken so far (submitted or refused).
    pub taken: u64,
    /// The submit time of the last job taken (0 before any).
    pub last_submit: Time,
    /// A fingerprint of the jobs taken so far ([`Progress::digest_of`]): a
    /// resumed replay checks that its input begins with those jobs.
    pub digest: u64,
    /// The totals so far.
    pub outcome: Outcome,
}

impl Progress {
    /// The fingerprint of no job: FNV-1a's offset basis.
    pub const EMPTY_DIGEST: u64 = 0xcbf2_9ce4_8422_2325;

    /// The fingerprint `digest` becomes when `job` is taken: FNV-1a (64
    /// bits) over the job's id, submit time, processors, estimate,
    /// deadline, licenses, priority (two's complement) and run time, each
    /// one 32-bit word.
    #[must_use]
    pub fn digest_of(digest: u64, job: &SimJob) -> u64 {
        const PRIME: u64 = 0x0000_0100_0000_01B3;
        let j = &job.job;
        let priority = u32::from_le_bytes(j.priority.to_le_bytes());
        [
            j.id,
            j.submit,
            j.procs,
            j.estimate,
            j.deadline,
            j.licenses.0,
            priority,
            job.runtime,
        ]
        .into_iter()
        .fold(digest, |h, word| (h ^ u64::from(word)).wrapping_mul(PRIME))
    }
}

/// Nothing taken yet.
impl Default for Progress {
    fn default() -> Self {
        Self {
            taken: 0,
            last_submit: 0,
            digest: Self::EMPTY_DIGEST,
            outcome: Outcome::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Pending {
    end: Time,
    order: u64,
    id: JobId,
}

/// A kernel plus the pending-completion heap the replay needs.
#[derive(Debug)]
pub struct Simulator<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize = 1,
    const L: usize = 0,
> {
    kernel: Kernel<Q, R, B, M, L>,
    pending: BinaryHeap<Pending, Min, R>,
    starts: u64,
    /// A copy of the cluster's machines, to scale run times while the kernel is borrowed.
    machines: heapless::Vec<crate::types::Machine, M>,
    /// Where the replay stands.
    progress: Progress,
}

struct Forward<'a, S, const R: usize> {
    sink: &'a mut S,
    pending: &'a mut BinaryHeap<Pending, Min, R>,
    starts: &'a mut u64,
    now: Time,
    machines: &'a [crate::types::Machine],
    overflow: Option<JobId>,
}

/// When a job started at `slot` ends: after its run time (its `tag`) on
/// the slot's machine, or at its slot's end, where it is killed.
fn actual_end(machines: &[crate::types::Machine], job: &Job, slot: &Slot) -> Time {
    let scaled = machines
        .get(usize::from(slot.machine))
        .and_then(|m| m.scale(job.tag))
        .unwrap_or(Duration::MAX);
    slot.start.saturating_add(scaled.min(slot.duration))
}

impl<S: Sink, const R: usize> Observer for Forward<'_, S, R> {
    fn started(&mut self, job: &Job, slot: Slot) {
        let end = actual_end(self.machines, job, &slot);
        *self.starts = self.starts.saturating_add(1);
        let pending = Pending {
            end,
            order: *self.starts,
            id: job.id,
        };
        if self.pending.push(pending).is_err() {
            self.overflow = Some(job.id);
        }
        self.sink.started(job, slot);
    }

    fn reserved(&mut self, job: &Job, slot: Slot) {
        self.sink.reserved(self.now, job, slot);
    }

    fn wants_reasons(&self) -> bool {
        self.sink.wants_reasons()
    }

    fn waiting(&mut self, waiting: &Waiting) {
        self.sink.waiting(self.now, waiting);
    }

    fn start_kind(&mut self, job: &Job, kind: StartKind) {
        self.sink.start_kind(self.now, job, kind);
    }
}

/// A copy of the cluster's machines.
fn machines_of<const M: usize, const L: usize>(
    cluster: &crate::types::Cluster<M, L>,
) -> heapless::Vec<crate::types::Machine, M> {
    let mut machines = heapless::Vec::new();
    for m in cluster.machines() {
        // Cannot fail: the cluster holds at most M machines.
        let _ = machines.push(*m);
    }
    machines
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Simulator<Q, R, B, M, L>
{
    /// A simulator around a fresh kernel.
    #[must_use]
    #[inline(always)]
    pub fn new(kernel: Kernel<Q, R, B, M, L>) -> Self {
        let machines = machines_of(kernel.cluster());
        Self {
            kernel,
            pending: BinaryHeap::new(),
            starts: 0,
            machines,
            progress: Progress::default(),
        }
    }

    /// Empties the simulator and its kernel and sets them up for `cluster`
    /// and `policy`, in place ([`Kernel::reset`]): it is then what
    /// `Simulator::new(Kernel::new(cluster, policy))` returns.
    pub fn reset(&mut self, cluster: crate::types::Cluster<M, L>, policy: crate::Policy) {
        self.kernel.reset(cluster, policy);
        self.pending.clear();
        self.starts = 0;
        self.machines = machines_of(self.kernel.cluster());
        self.progress = Progress::default();
    }

    /// Where the replay stands: after [`Simulator::run`], its totals; after
    /// a pause or a restore, what [`Simulator::resume_with`] continues from.
    #[must_use]
    pub const fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The kernel (its state after a replay, say).
    #[must_use]
    pub const fn kernel(&self) -> &Kernel<Q, R, B, M, L> {
        &self.kernel
    }

    /// Replays `jobs` to the end, reporting to `sink`.
    ///
    /// # Errors
    /// [`SimError`] when the input is unsorted or the kernel refuses a call
    /// for another reason than an unrunnable job.
    pub fn run<I, S>(&mut self, jobs: I, sink: &mut S) -> Result<Outcome, SimError>
    where
        I: IntoIterator<Item = SimJob>,
        S: Sink,
    {
        self.run_with(jobs, sink, |_, _| {})
    }

    /// [`Simulator::run`], calling `arriving(kernel, job)` just before each
    /// job is submitted (after the completions at its instant), so a caller
    /// can inspect the kernel's state at arrivals (fair-start times, say).
    ///
    /// # Errors
    /// As [`Simulator::run`].
    pub fn run_with<I, S, F>(
        &mut self,
        jobs: I,
        sink: &mut S,
        arriving: F,
    ) -> Result<Outcome, SimError>
    where
        I: IntoIterator<Item = SimJob>,
        S: Sink,
        F: FnMut(&Kernel<Q, R, B, M, L>, &Job),
    {
        self.progress = Progress::default();
        let ended = self.resume_with(jobs, sink, arriving, |_, _| false)?;
        Ok(ended.unwrap_or(self.progress.outcome))
    }

    /// Replays `jobs` on from where the simulator stands
    /// ([`Simulator::progress`]): after [`Simulator::restore`], or after
    /// `pause` stopped an earlier call. `jobs` is the whole input from its
    /// first job; the jobs taken before are passed over, and must be the
    /// same ones (their fingerprint is checked). After each instant, every
    /// completion, arrival and pass at it done, `pause(self, sink)` is
    /// asked: it may write the simulator's checkpoint
    /// ([`Simulator::checkpoint`]) and the sink's own state, and go on
    /// (`false`), or stop the replay there (`true`: `Ok(None)` is returned,
    /// the simulator ready for a checkpoint or another `resume_with`).
    /// `Ok(Some(outcome))` when the replay has ended; `outcome` counts all
    /// of it, before and after any pause. A replay paused and resumed
    /// (restored or not) reports to `sink` what one uninterrupted replay
    /// reports, event for event, from the pause on.
    ///
    /// # Errors
    /// As [`Simulator::run`], and [`SimErrorKind::InputMismatch`] when
    /// `jobs` does not begin with the jobs taken before (nothing is replayed
    /// then).
    pub fn resume_with<I, S, F, P>(
        &mut self,
        jobs: I,
        sink: &mut S,
        mut arriving: F,
        mut pause: P,
    ) -> Result<Option<Outcome>, SimError>
    where
        I: IntoIterator<Item = SimJob>,
        S: Sink,
        F: FnMut(&Kernel<Q, R, B, M, L>, &Job),
        P: FnMut(&Self, &mut S) -> bool,
    {
        let mut jobs = jobs.into_iter();
        let (mut passed, mut digest) = (0u64, Progress::EMPTY_DIGEST);
        while passed < self.progress.taken {
            let Some(job) = jobs.next() else {
                break;
            };
            digest = Progress::digest_of(digest, &job);
            passed = passed.saturating_add(1);
        }
        if (passed, digest) != (self.progress.taken, self.progress.digest) {
            return Err(SimError {
                time: self.kernel.now(),
                job: None,
                kind: SimErrorKind::InputMismatch,
            });
        }
        let mut jobs = jobs.peekable();
        loop {
            let next_submit = jobs.peek().map(|j| j.job.submit);
            let next_end = self.pending.peek().map(|p| p.end);
            let wakeup = self.kernel.next_wakeup();
            let Some(now) = [next_submit, next_end, wakeup].into_iter().flatten().min() else {
                break;
            };
            let err = |kind, job| SimError {
                time: now,
                job,
                kind,
            };
            if now < self.kernel.now() {
                let job = jobs.peek().map(|j| j.job.id);
                return Err(err(SimErrorKind::Unsorted, job));
            }
            let outcome = &mut self.progress.outcome;
            outcome.last_time = now;
            // 1. Completions at `now`.
            while let Some(done) = self.pending.peek().copied().filter(|p| p.end <= now) {
                let _ = self.pending.pop();
                sink.before_call();
                let result = self.kernel.complete(now, done.id);
                sink.after_call(Call::Complete);
                outcome.calls = outcome.calls.saturating_add(1);
                let running = result.map_err(|e| err(SimErrorKind::Kernel(e), Some(done.id)))?;
                let record = record(&self.machines, &running, now);
                outcome.finished = outcome.finished.saturating_add(1);
                if record.killed {
                    outcome.killed = outcome.killed.saturating_add(1);
                }
                sink.finished(&record);
            }
            // 2-3. Arrivals at `now` (compression happens inside the first call).
            let progress = &mut self.progress;
            while let Some(next) = jobs.next_if(|j| j.job.submit <= now) {
                if next.job.submit < progress.last_submit {
                    return Err(err(SimErrorKind::Unsorted, Some(next.job.id)));
                }
                progress.last_submit = next.job.submit;
                progress.taken = progress.taken.saturating_add(1);
                progress.digest = Progress::digest_of(progress.digest, &next);
                let mut job = next.job;
                job.tag = next.runtime;
                arriving(&self.kernel, &job);
                sink.before_call();
                // `Kernel::submit` only reserves (Conservative); it starts nothing.
                let result = self.kernel.submit(
                    now,
                    job,
                    &mut ReserveOnly {
                        sink: &mut *sink,
                        now,
                    },
                );
                sink.after_call(Call::Submit);
                let outcome = &mut progress.outcome;
                outcome.calls = outcome.calls.saturating_add(1);
                match result {
                    Ok(()) => outcome.submitted = outcome.submitted.saturating_add(1),
                    Err(e @ (KernelError::Unrunnable(_) | KernelError::InvalidJob(_))) => {
                        outcome.rejected = outcome.rejected.saturating_add(1);
                        sink.rejected(&job, e);
                    }
                    Err(e) => return Err(err(SimErrorKind::Kernel(e), Some(job.id))),
                }
            }
            let outcome = &mut progress.outcome;
            outcome.max_queue = outcome.max_queue.max(self.kernel.queued().len());
            // 4. One scheduling pass.
            let mut forward = Forward {
                sink: &mut *sink,
                pending: &mut self.pending,
                starts: &mut self.starts,
                now,
                machines: &self.machines,
                overflow: None,
            };
            forward.sink.before_call();
            let result = self.kernel.schedule(now, &mut forward);
            forward.sink.after_call(Call::Schedule);
            outcome.calls = outcome.calls.saturating_add(1);
            if let Some(id) = forward.overflow {
                return Err(err(
                    SimErrorKind::Kernel(KernelError::RunningFull(id)),
                    Some(id),
                ));
            }
            result.map_err(|e| err(SimErrorKind::Kernel(e), None))?;
            if pause(self, sink) {
                return Ok(None);
            }
        }
        Ok(Some(self.progress.outcome))
    }
}

/// What a replay reports of a job that ended at `end`, having run as
/// `running` on one of `machines`.
fn record(machines: &[crate::types::Machine], running: &RunningJob, end: Time) -> JobRecord {
    let scaled = machines
        .get(usize::from(running.slot.machine))
        .and_then(|m| m.scale(running.job.tag))
        .unwrap_or(Duration::MAX);
    JobRecord {
        job: running.job,
        runtime: running.job.tag,
        slot: running.slot,
        end,
        killed: scaled > running.slot.duration,
        guarantee: running.guarantee,
    }
}

struct ReserveOnly<'a, S> {
    sink: &'a mut S,
    now: Time,
}

impl<S: Sink> Observer for ReserveOnly<'_, S> {
    fn reserved(&mut self, job: &Job, slot: Slot) {
        self.sink.reserved(self.now, job, slot);
    }
}
