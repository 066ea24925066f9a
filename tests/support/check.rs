//! The invariant checker: one function that judges a whole replay.
//!
//! [`replay`] runs core's [`Simulator`] over an input and collects a
//! [`RunLog`] (every finished job, rejection, start and reservation event, in
//! order). [`check`] then verifies `docs/design.md`, "Invariants", on that log, and
//! [`check_deterministic`] replays twice and compares. A failure is a
//! [`Violation`] naming the rule, the job and the time, never a bare `bool`.
//!
//! # Rules checked, in this order (the first violation found is returned)
//!
//! 6. **Accounting**: every input job is finished or rejected exactly once;
//!    nothing unknown appears; a finished job is the job that was submitted
//!    (its tag holding its run time); a rejection is only for
//!    [`KernelError::Unrunnable`] (no machine can run it) or
//!    [`KernelError::InvalidJob`] (no processors or zero estimate), and only
//!    when that is true; start events and records agree; the log is in time
//!    order.
//! 4. **Timing**: no start before submit; the slot's duration is the
//!    estimate scaled by the machine's speed; no job runs past
//!    `start + duration`; `end == start + min(runtime scaled, duration)`;
//!    a job is recorded as killed exactly when its scaled run time is longer
//!    than its slot (its effective run is shorter than its actual one).
//! 1. **Capacity** (sort + sweep over start/end events, half-open
//!    intervals): per machine, processors in use `<= cpus`; per license
//!    pool, copies in use `<= count`; a job only on a machine where it is
//!    [`Cluster::eligible`].
//! 2. **Reservations**: no reservation is made for a start in the past or
//!    after the job started. Under a [`Policy::reserves_all`] policy
//!    (Conservative) every job gets a reservation on arrival; under a
//!    [`Policy::keeps_reservations`] policy (Conservative, Selective's
//!    guaranteed queue) a job with a reservation starts exactly at its latest
//!    one. Promised reservations never move later and the job starts no later
//!    than the first one, which is its [`JobRecord::guarantee`]. Promised
//!    are: every reservation under a `keeps_reservations` policy; the blocked
//!    head's under a [`Policy::head_guaranteed`] policy (EASY, DPSA, BF_FCFS,
//!    BF_UNMOD; not SJF-EASY nor BF_MOD); under any policy, those
//!    of a job whose record carries a guarantee (the kernel sets one only
//!    where the policy promises the start).
//!
//!    **The queue head**, found by the checker from the log alone (not from
//!    the kernel's reservation reports), under FCFS, EASY and SJF-EASY on a
//!    cluster without license pools: at every instant of the log (a submit,
//!    start or end), the head is the first job in queue order (`(submit,
//!    id)`, SJF-EASY `(estimate, submit, id)`) that has arrived and not
//!    started. When a job becomes the head, its shadow time is the earliest
//!    time enough processors are free on an eligible machine by the running
//!    jobs' estimated ends (`start + duration`); it must start no later
//!    ([`Violation::HeadStartedLate`]), unless a job that sorts ahead of it
//!    arrives meanwhile (SJF-EASY: a shorter job), which starts its time as
//!    head afresh. (The shadow time never grows while a job is the head:
//!    jobs started around it fit the plan with its reservation in it.)
//! 3. **Starvation and order**: for [`Policy::starvation_free`] policies a
//!    job that never started is [`Violation::Starved`] (for the others it is
//!    [`Violation::Lost`]); under Selective a job is promoted (gets its first
//!    reservation) exactly at the first instant its expansion factor
//!    `(wait + estimate) / estimate` reaches its threshold, if it has not
//!    started before ([`Violation::LatePromotion`]), and never earlier
//!    ([`Violation::PromotedEarly`]). The checker computes promotion
//!    instants itself, in thousandths as the kernel does: `submit +
//!    ceil((T - 1000) * estimate / 1000)`, at once when `T <= 1000`; a
//!    per-category threshold is picked by the job's estimate and processors;
//!    an adaptive one is `initial` until a job has ended, then `floor(mean *
//!    scale / 1000)`, `mean` being the floored average of the ended jobs'
//!    bounded slowdowns in thousandths (each `(wait + max(run, 10)) * 1000 /
//!    max(run, 10)` rounded down, `run = end - start`; with
//!    `well_estimated_only`, only jobs with `2 * run >= estimate`), as it
//!    stands after every job ending at an instant (adaptive thresholds are
//!    checked on clusters of reference-speed machines only; at an instant
//!    where a zero-length job ends the kernel passes more than once with
//!    different averages, so a promotion at such an instant is accepted).
//!    [`Policy::Fcfs`] starts jobs in queue order `(submit, id)`, with
//!    non-decreasing start times.
//! 5. **Determinism**: [`check_deterministic`].
//!
//! The checker is `O(n log n)`: one hash map from job id to input index, one
//! sort of start/end events, linear passes, and an ordered set plus a Fenwick
//! tree per machine for the queue head (adaptive promotions also walk the
//! end instants during each job's wait). It handles a 300,000-job log in
//! well under a second in release builds (`checks_300_000_jobs` prints the times).

use backfill_core::policy::Threshold;
use backfill_core::{
    Cluster, Job, JobId, JobRecord, Kernel, KernelError, Outcome, Policy, SimError, SimJob,
    Simulator, Sink, Slot, Time, REFERENCE_SPEED,
};
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// Everything a [`Sink`] sees during one replay, in the order it was seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunLog {
    /// Finished jobs, in completion order.
    pub finished: Vec<JobRecord>,
    /// Jobs refused at submission, with the kernel's reason.
    pub rejected: Vec<(Job, KernelError)>,
    /// Start events `(job id, slot)`; the start time is `slot.start`.
    pub started: Vec<(JobId, Slot)>,
    /// Reservation events `(now, job id, slot)`: a new reservation, or a
    /// reservation that moved.
    pub reservations: Vec<(Time, JobId, Slot)>,
}

impl Sink for RunLog {
    fn finished(&mut self, record: &JobRecord) {
        self.finished.push(*record);
    }
    fn rejected(&mut self, job: &Job, error: KernelError) {
        self.rejected.push((*job, error));
    }
    fn started(&mut self, job: &Job, slot: Slot) {
        self.started.push((job.id, slot));
    }
    fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
        self.reservations.push((now, job.id, slot));
    }
}

/// A replay's full result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The simulator's totals, or why it stopped.
    pub outcome: Result<Outcome, SimError>,
    /// What the sink saw (up to the stop, on an error).
    pub log: RunLog,
    /// [`Kernel::validate`] on the kernel after the replay.
    pub validate: Result<(), KernelError>,
    /// Jobs left in the kernel's queue after the replay.
    pub left_queued: usize,
    /// Jobs left running after the replay.
    pub left_running: usize,
}

/// Runs `f` where `need` bytes of stack are available: inline when that is
/// surely within a test thread's 2 MiB, else on a thread with `need` plus
/// 1 MiB of stack. Large kernels live on the stack.
pub(crate) fn with_stack<T: Send>(need: usize, f: impl FnOnce() -> T + Send) -> T {
    const INLINE: usize = 1 << 20;
    if need <= INLINE {
        return f();
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(need + (1 << 20))
            .spawn_scoped(scope, f)
            .expect("spawn replay thread")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Replays `input` under `policy` on `cluster` with a fresh
/// `Kernel<Q, R, B, M, L>`, collecting everything. Never panics on a
/// kernel error: the error is in [`Replay::outcome`].
///
/// Kernels with large capacities are built on a thread with a stack big
/// enough for them.
pub fn run_replay<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize,
    const L: usize,
>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    input: &[SimJob],
) -> Replay {
    run_replay_keeping::<Q, R, B, M, L>(cluster, policy, input, false)
}

/// [`run_replay`] on a kernel built by [`Kernel::new_with_plan`] when
/// `keep_plan` is set (else by [`Kernel::new`]).
pub fn run_replay_keeping<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize,
    const L: usize,
>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    input: &[SimJob],
    keep_plan: bool,
) -> Replay {
    // Debug builds keep several copies of the kernel in flight (`Kernel::new`,
    // `Simulator::new`, moves between them).
    let need = 16 * std::mem::size_of::<Simulator<Q, R, B, M, L>>();
    with_stack(need, || {
        let kernel: Kernel<Q, R, B, M, L> = if keep_plan {
            Kernel::new_with_plan(cluster.clone(), policy)
        } else {
            Kernel::new(cluster.clone(), policy)
        };
        let mut sim = Simulator::new(kernel);
        let mut log = RunLog::default();
        let outcome = sim.run(input.iter().copied(), &mut log);
        let kernel = sim.kernel();
        Replay {
            outcome,
            log,
            validate: kernel.validate(),
            left_queued: kernel.queued().len(),
            left_running: kernel.running().len(),
        }
    })
}

/// Replays `input` under `policy` and returns the totals and the log.
///
/// # Panics
/// When the replay stops with a [`SimError`] (capacities too small for the
/// input, say) or [`Kernel::validate`] fails afterwards: both are test
/// failures.
pub fn replay<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    input: &[SimJob],
) -> (Outcome, RunLog) {
    let r = run_replay::<Q, R, B, M, L>(cluster, policy, input);
    let outcome = match r.outcome {
        Ok(o) => o,
        Err(e) => panic!("{policy}: replay of {} jobs failed: {e}", input.len()),
    };
    if let Err(e) = r.validate {
        panic!("{policy}: Kernel::validate after the replay: {e}");
    }
    (outcome, r.log)
}

/// Which invariant broke, for which job, and when.
///
/// Every variant names a job (or the jobs involved) and a time `at`;
/// [`Violation::rule`] gives the number of the rule in `docs/design.md`, "Invariants".
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    // ----- rule 1: capacity -----
    /// More processors in use on a machine than it has.
    MachineOverfull {
        /// Machine index.
        machine: usize,
        /// When.
        at: Time,
        /// Processors in use.
        used: u64,
        /// Processors the machine has.
        cpus: u32,
        /// Jobs running there at `at`, ascending.
        jobs: Vec<JobId>,
    },
    /// More copies of a license in use than its pool has.
    LicenseOverused {
        /// Pool index.
        pool: usize,
        /// When.
        at: Time,
        /// Copies in use.
        used: u64,
        /// Copies in the pool.
        count: u32,
        /// Jobs holding a copy at `at`, ascending.
        jobs: Vec<JobId>,
    },
    /// A job ran on a machine where it is not eligible (too few processors,
    /// or a license that cannot be activated there), or on no machine at all.
    Ineligible {
        /// The job.
        job: JobId,
        /// Its machine index.
        machine: usize,
        /// Its start.
        at: Time,
    },
    // ----- rule 2: reservations -----
    /// A reservation moved later.
    ReservationMovedLater {
        /// The job.
        job: JobId,
        /// When it moved.
        at: Time,
        /// The start before.
        from: Time,
        /// The start after.
        to: Time,
    },
    /// A job started after its guarantee (its first reservation).
    GuaranteeMissed {
        /// The job.
        job: JobId,
        /// Its start.
        at: Time,
        /// The start it was guaranteed.
        guarantee: Time,
    },
    /// [`JobRecord::guarantee`] is not the start of the job's first reservation.
    GuaranteeMismatch {
        /// The job.
        job: JobId,
        /// Its start.
        at: Time,
        /// What the record says.
        recorded: Option<Time>,
        /// The first reservation's start in the log.
        first_reservation: Option<Time>,
    },
    /// A job under a reserve-all policy (Conservative) got no reservation at
    /// its arrival (its first reservation event is not at its submit time).
    MissingReservation {
        /// The job.
        job: JobId,
        /// Its submit time.
        at: Time,
    },
    /// A job under a reserve-all policy did not start at its latest reservation.
    NotAtReservation {
        /// The job.
        job: JobId,
        /// Its start.
        at: Time,
        /// Its latest reservation's start.
        reserved: Time,
        /// Its latest reservation's machine.
        reserved_machine: usize,
    },
    /// A reservation made at `at` for a start before `at`.
    ReservationInPast {
        /// The job.
        job: JobId,
        /// When the reservation was made.
        at: Time,
        /// The reserved start.
        start: Time,
    },
    /// A reservation made after the job had started.
    ReservationAfterStart {
        /// The job.
        job: JobId,
        /// When the reservation was made.
        at: Time,
        /// When the job started.
        started: Time,
    },
    /// FCFS, EASY or SJF-EASY: the queue head (as the checker finds it)
    /// started after the shadow time it had when it became the head.
    HeadStartedLate {
        /// The job.
        job: JobId,
        /// Its start.
        at: Time,
        /// When it became the head.
        head_since: Time,
        /// Its shadow time then: the earliest time enough processors were
        /// free by the running jobs' estimated ends.
        shadow: Time,
    },
    // ----- rule 3: starvation and policy order -----
    /// Under a starvation-free policy, a job never started.
    Starved {
        /// The job.
        job: JobId,
        /// Its submit time.
        at: Time,
    },
    /// Selective with a fixed or per-category threshold: a job still
    /// waiting when its expansion factor reached its threshold was not
    /// promoted (given a reservation) at that instant.
    LatePromotion {
        /// The job.
        job: JobId,
        /// The instant its expansion factor reached the threshold.
        at: Time,
        /// When it got its first reservation, if ever.
        promoted: Option<Time>,
        /// When it started.
        started: Time,
    },
    /// Selective: a job was promoted (got its first reservation) before its
    /// expansion factor reached its threshold.
    PromotedEarly {
        /// The job.
        job: JobId,
        /// When it was promoted.
        at: Time,
        /// When its expansion factor reached the threshold (`None`: not
        /// before it started).
        due: Option<Time>,
    },
    /// FCFS started a job before one ahead of it in the queue.
    OutOfOrder {
        /// The job that started too early.
        job: JobId,
        /// Its start.
        at: Time,
        /// The job ahead of it in queue order.
        ahead: JobId,
        /// When that job started.
        ahead_start: Time,
    },
    // ----- rule 4: timing -----
    /// A job started before it was submitted.
    StartBeforeSubmit {
        /// The job.
        job: JobId,
        /// Its start.
        at: Time,
        /// Its submit time.
        submit: Time,
    },
    /// The slot's duration is not the estimate scaled by the machine's speed.
    WrongDuration {
        /// The job.
        job: JobId,
        /// Its start.
        at: Time,
        /// The slot's duration.
        duration: u32,
        /// The scaled estimate.
        expected: u32,
    },
    /// A job ran past `start + estimate` (scaled).
    PastEstimate {
        /// The job.
        job: JobId,
        /// Its end.
        at: Time,
        /// `start + duration`.
        limit: u64,
    },
    /// A job's end is not `start + min(runtime scaled, duration)`.
    WrongEnd {
        /// The job.
        job: JobId,
        /// Its recorded end.
        at: Time,
        /// The end it should have.
        expected: u64,
    },
    /// A job's killed flag is wrong: it is killed exactly when its run time
    /// (scaled) is longer than its slot.
    WrongKill {
        /// The job.
        job: JobId,
        /// Its end.
        at: Time,
        /// Its run time on its machine.
        run: u32,
        /// Its slot's duration (the scaled estimate).
        duration: u32,
        /// What the record says.
        recorded: bool,
    },
    // ----- rule 5: determinism -----
    /// Two replays of the same input differ.
    Nondeterministic {
        /// The job at the first difference, if one.
        job: Option<JobId>,
        /// The time of the first difference.
        at: Time,
        /// What differs.
        detail: String,
    },
    // ----- rule 6: accounting -----
    /// An input job was neither finished nor rejected.
    Lost {
        /// The job.
        job: JobId,
        /// Its submit time.
        at: Time,
    },
    /// A job was finished, rejected or started more than once.
    Duplicated {
        /// The job.
        job: JobId,
        /// The time of the second occurrence.
        at: Time,
    },
    /// The log names a job that is not in the input.
    UnknownJob {
        /// The job.
        job: JobId,
        /// The time it appears.
        at: Time,
    },
    /// Two input jobs share an id (the input is unusable).
    DuplicateInput {
        /// The id.
        job: JobId,
        /// The second job's submit time.
        at: Time,
    },
    /// A job was rejected for a reason that does not hold, or for a reason
    /// other than `Unrunnable` / `InvalidJob`.
    WrongRejection {
        /// The job.
        job: JobId,
        /// Its submit time.
        at: Time,
        /// The kernel's reason.
        error: KernelError,
    },
    /// A finished job is not the job that was submitted.
    Altered {
        /// The job.
        job: JobId,
        /// Its start.
        at: Time,
    },
    /// A start event and the job's record disagree, or one is missing.
    StartMismatch {
        /// The job.
        job: JobId,
        /// The start in the record (or in the event, without a record).
        at: Time,
    },
    /// The log's events are not in time order.
    LogOrder {
        /// The job of the out-of-order event.
        job: JobId,
        /// Its time.
        at: Time,
        /// The time of the event before it.
        previous: Time,
    },
}

impl Violation {
    /// The number of the broken rule in `docs/design.md`, "Invariants" (FCFS order
    /// counts as rule 3, the policy's start bound).
    #[must_use]
    pub const fn rule(&self) -> u8 {
        match self {
            Self::MachineOverfull { .. }
            | Self::LicenseOverused { .. }
            | Self::Ineligible { .. } => 1,
            Self::ReservationMovedLater { .. }
            | Self::GuaranteeMissed { .. }
            | Self::GuaranteeMismatch { .. }
            | Self::MissingReservation { .. }
            | Self::NotAtReservation { .. }
            | Self::ReservationInPast { .. }
            | Self::ReservationAfterStart { .. }
            | Self::HeadStartedLate { .. } => 2,
            Self::Starved { .. }
            | Self::LatePromotion { .. }
            | Self::PromotedEarly { .. }
            | Self::OutOfOrder { .. } => 3,
            Self::StartBeforeSubmit { .. }
            | Self::WrongDuration { .. }
            | Self::PastEstimate { .. }
            | Self::WrongEnd { .. }
            | Self::WrongKill { .. } => 4,
            Self::Nondeterministic { .. } => 5,
            Self::Lost { .. }
            | Self::Duplicated { .. }
            | Self::UnknownJob { .. }
            | Self::DuplicateInput { .. }
            | Self::WrongRejection { .. }
            | Self::Altered { .. }
            | Self::StartMismatch { .. }
            | Self::LogOrder { .. } => 6,
        }
    }

    /// The time of the violation.
    #[must_use]
    pub const fn at(&self) -> Time {
        match self {
            Self::MachineOverfull { at, .. }
            | Self::LicenseOverused { at, .. }
            | Self::Ineligible { at, .. }
            | Self::ReservationMovedLater { at, .. }
            | Self::GuaranteeMissed { at, .. }
            | Self::GuaranteeMismatch { at, .. }
            | Self::MissingReservation { at, .. }
            | Self::NotAtReservation { at, .. }
            | Self::ReservationInPast { at, .. }
            | Self::ReservationAfterStart { at, .. }
            | Self::HeadStartedLate { at, .. }
            | Self::Starved { at, .. }
            | Self::LatePromotion { at, .. }
            | Self::PromotedEarly { at, .. }
            | Self::OutOfOrder { at, .. }
            | Self::StartBeforeSubmit { at, .. }
            | Self::WrongDuration { at, .. }
            | Self::PastEstimate { at, .. }
            | Self::WrongEnd { at, .. }
            | Self::WrongKill { at, .. }
            | Self::Nondeterministic { at, .. }
            | Self::Lost { at, .. }
            | Self::Duplicated { at, .. }
            | Self::UnknownJob { at, .. }
            | Self::DuplicateInput { at, .. }
            | Self::WrongRejection { at, .. }
            | Self::Altered { at, .. }
            | Self::StartMismatch { at, .. }
            | Self::LogOrder { at, .. } => *at,
        }
    }
}

/// `3, 7, 9`.
struct Ids<'a>(&'a [JobId]);

impl fmt::Display for Ids<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        for id in self.0 {
            write!(f, "{sep}{id}")?;
            sep = ", ";
        }
        Ok(())
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MachineOverfull { machine, at, used, cpus, jobs } => write!(
                f,
                "capacity exceeded on machine {machine} at t={at}: {used} > {cpus} processors (jobs {})",
                Ids(jobs)
            ),
            Self::LicenseOverused { pool, at, used, count, jobs } => write!(
                f,
                "license pool {pool} over-used at t={at}: {used} > {count} copies (jobs {})",
                Ids(jobs)
            ),
            Self::Ineligible { job, machine, at } => write!(
                f,
                "job {job} started at t={at} on machine {machine}, where it is not eligible"
            ),
            Self::ReservationMovedLater { job, at, from, to } => write!(
                f,
                "reservation of job {job} moved later at t={at}: from t={from} to t={to}"
            ),
            Self::GuaranteeMissed { job, at, guarantee } => write!(
                f,
                "job {job} started at t={at}, after its guaranteed start t={guarantee}"
            ),
            Self::GuaranteeMismatch { job, at, recorded, first_reservation } => write!(
                f,
                "job {job} (started t={at}) records guarantee {recorded:?}, but its first reservation starts at {first_reservation:?}"
            ),
            Self::MissingReservation { job, at } => {
                write!(f, "job {job} (submitted t={at}) got no reservation on arrival")
            }
            Self::NotAtReservation { job, at, reserved, reserved_machine } => write!(
                f,
                "job {job} started at t={at}, not at its reservation t={reserved} on machine {reserved_machine}"
            ),
            Self::ReservationInPast { job, at, start } => write!(
                f,
                "job {job} got a reservation at t={at} for the past start t={start}"
            ),
            Self::ReservationAfterStart { job, at, started } => write!(
                f,
                "job {job} got a reservation at t={at}, after it started at t={started}"
            ),
            Self::HeadStartedLate { job, at, head_since, shadow } => write!(
                f,
                "job {job} became the queue head at t={head_since} with shadow time t={shadow}, but started at t={at}"
            ),
            Self::PromotedEarly { job, at, due } => {
                write!(
                    f,
                    "job {job} was promoted at t={at}, before its expansion factor reached its threshold"
                )?;
                match due {
                    Some(t) => write!(f, " (at t={t})"),
                    None => f.write_str(" (not before it started)"),
                }
            }
            Self::Starved { job, at } => write!(
                f,
                "job {job} (submitted t={at}) never started under a starvation-free policy"
            ),
            Self::LatePromotion {
                job,
                at,
                promoted,
                started,
            } => {
                write!(
                    f,
                    "job {job} reached its expansion-factor threshold at t={at} and started at t={started}, but was "
                )?;
                match promoted {
                    Some(t) => write!(f, "promoted at t={t}"),
                    None => f.write_str("never promoted"),
                }
            }
            Self::OutOfOrder { job, at, ahead, ahead_start } => write!(
                f,
                "FCFS started job {job} at t={at}, before job {ahead} ahead of it in the queue (started t={ahead_start})"
            ),
            Self::StartBeforeSubmit { job, at, submit } => write!(
                f,
                "job {job} started at t={at}, before its submission at t={submit}"
            ),
            Self::WrongDuration { job, at, duration, expected } => write!(
                f,
                "job {job} (started t={at}) holds its slot for {duration} s, but its scaled estimate is {expected} s"
            ),
            Self::PastEstimate { job, at, limit } => write!(
                f,
                "job {job} ran past its estimate: ended at t={at} > t={limit} (start + estimate)"
            ),
            Self::WrongEnd { job, at, expected } => write!(
                f,
                "job {job} ended at t={at}, but start + min(runtime, estimate) is t={expected}"
            ),
            Self::WrongKill { job, at, run, duration, recorded } => {
                let (said, but) = if *recorded {
                    ("killed", "within")
                } else {
                    ("not killed", "longer than")
                };
                write!(
                    f,
                    "job {job} (ended t={at}) is recorded as {said}, but its run time {run} s is {but} its estimate {duration} s"
                )
            }
            Self::Nondeterministic { job, at, detail } => {
                write!(f, "two replays differ at t={at}")?;
                if let Some(job) = job {
                    write!(f, " (job {job})")?;
                }
                write!(f, ": {detail}")
            }
            Self::Lost { job, at } => write!(
                f,
                "job {job} (submitted t={at}) was neither finished nor rejected"
            ),
            Self::Duplicated { job, at } => write!(f, "job {job} appears twice in the log (t={at})"),
            Self::UnknownJob { job, at } => write!(f, "job {job} at t={at} is not in the input"),
            Self::DuplicateInput { job, at } => {
                write!(f, "two input jobs have id {job} (the second submitted t={at})")
            }
            Self::WrongRejection { job, at, error } => write!(
                f,
                "job {job} (submitted t={at}) was wrongly rejected: {error}"
            ),
            Self::Altered { job, at } => write!(
                f,
                "job {job} (started t={at}) finished as a different job than was submitted"
            ),
            Self::StartMismatch { job, at } => write!(
                f,
                "job {job}'s start event and its record disagree (start t={at})"
            ),
            Self::LogOrder { job, at, previous } => write!(
                f,
                "event of job {job} at t={at} is logged after an event at t={previous}"
            ),
        }
    }
}

impl std::error::Error for Violation {}

/// Per input job, what the log says about it.
#[derive(Clone, Copy, Default)]
struct Seen {
    finished: Option<usize>,
    rejected: bool,
    start: Option<Slot>,
    first_reservation: Option<Slot>,
    last_reservation: Option<Slot>,
    /// The first time the reservation moved later: `(now, from, to)`.
    moved_later: Option<(Time, Time, Time)>,
    first_reserved_at: Option<Time>,
    last_reserved_at: Option<Time>,
}

/// Checks `docs/design.md`, "Invariants", rules 1, 2, 3, 4 and 6 on one replay's log;
/// see the module docs for the exact list and order.
///
/// # Errors
/// The first [`Violation`] found.
pub fn check<const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    input: &[SimJob],
    run: &RunLog,
) -> Result<(), Violation> {
    // ----- rule 6: accounting -----
    let mut index: HashMap<JobId, usize> = HashMap::with_capacity(input.len());
    for (i, sim) in input.iter().enumerate() {
        if index.insert(sim.job.id, i).is_some() {
            return Err(Violation::DuplicateInput {
                job: sim.job.id,
                at: sim.job.submit,
            });
        }
    }
    let lookup = |id: JobId, at: Time| {
        index
            .get(&id)
            .copied()
            .ok_or(Violation::UnknownJob { job: id, at })
    };
    let mut seen = vec![Seen::default(); input.len()];

    for (n, record) in run.finished.iter().enumerate() {
        let id = record.job.id;
        let i = lookup(id, record.end)?;
        if seen[i].finished.is_some() || seen[i].rejected {
            return Err(Violation::Duplicated {
                job: id,
                at: record.end,
            });
        }
        seen[i].finished = Some(n);
        let mut submitted = input[i].job;
        submitted.tag = input[i].runtime;
        if record.job != submitted || record.runtime != input[i].runtime {
            return Err(Violation::Altered {
                job: id,
                at: record.start(),
            });
        }
    }
    for (job, error) in &run.rejected {
        let i = lookup(job.id, job.submit)?;
        if seen[i].finished.is_some() || seen[i].rejected {
            return Err(Violation::Duplicated {
                job: job.id,
                at: job.submit,
            });
        }
        seen[i].rejected = true;
        let original = &input[i].job;
        let invalid = original.procs == 0 || original.estimate == 0;
        let legit = match error {
            KernelError::InvalidJob(id) => *id == job.id && invalid,
            KernelError::Unrunnable(id) => *id == job.id && !invalid && !cluster.runnable(original),
            _ => false,
        };
        if !legit {
            return Err(Violation::WrongRejection {
                job: job.id,
                at: job.submit,
                error: *error,
            });
        }
    }
    let mut previous: Time = 0;
    for &(id, slot) in &run.started {
        let i = lookup(id, slot.start)?;
        if slot.start < previous {
            return Err(Violation::LogOrder {
                job: id,
                at: slot.start,
                previous,
            });
        }
        previous = slot.start;
        if seen[i].start.is_some() {
            return Err(Violation::Duplicated {
                job: id,
                at: slot.start,
            });
        }
        seen[i].start = Some(slot);
    }
    for (i, s) in seen.iter().enumerate() {
        let job = &input[i].job;
        match (s.finished, s.start) {
            (Some(n), Some(slot)) if run.finished[n].slot == slot => {}
            (Some(n), _) => {
                return Err(Violation::StartMismatch {
                    job: job.id,
                    at: run.finished[n].start(),
                })
            }
            (None, Some(slot)) if s.rejected => {
                return Err(Violation::StartMismatch {
                    job: job.id,
                    at: slot.start,
                })
            }
            (None, Some(_)) => {
                return Err(Violation::Lost {
                    job: job.id,
                    at: job.submit,
                })
            }
            (None, None) if s.rejected => {}
            // Never started and never rejected: rule 3 for starvation-free
            // policies, plain loss for the others.
            (None, None) if policy.starvation_free() => {
                return Err(Violation::Starved {
                    job: job.id,
                    at: job.submit,
                })
            }
            (None, None) => {
                return Err(Violation::Lost {
                    job: job.id,
                    at: job.submit,
                })
            }
        }
    }

    // ----- rule 4: timing -----
    let machines = cluster.machines();
    for r in &run.finished {
        let (id, start) = (r.job.id, r.start());
        if start < r.job.submit {
            return Err(Violation::StartBeforeSubmit {
                job: id,
                at: start,
                submit: r.job.submit,
            });
        }
        let machine = usize::from(r.slot.machine);
        let Some(m) = machines.get(machine) else {
            return Err(Violation::Ineligible {
                job: id,
                machine,
                at: start,
            });
        };
        let expected = m.scale(r.job.estimate).unwrap_or(u32::MAX);
        if r.slot.duration != expected {
            return Err(Violation::WrongDuration {
                job: id,
                at: start,
                duration: r.slot.duration,
                expected,
            });
        }
        let limit = u64::from(start) + u64::from(r.slot.duration);
        if u64::from(r.end) > limit {
            return Err(Violation::PastEstimate {
                job: id,
                at: r.end,
                limit,
            });
        }
        let run_scaled = m.scale(r.runtime).unwrap_or(u32::MAX);
        let expected_end = u64::from(start) + u64::from(run_scaled.min(r.slot.duration));
        if u64::from(r.end) != expected_end {
            return Err(Violation::WrongEnd {
                job: id,
                at: r.end,
                expected: expected_end,
            });
        }
        if r.killed != (run_scaled > r.slot.duration) {
            return Err(Violation::WrongKill {
                job: id,
                at: r.end,
                run: run_scaled,
                duration: r.slot.duration,
                recorded: r.killed,
            });
        }
    }

    // ----- rule 1: capacity -----
    check_capacity(cluster, &run.finished)?;

    // ----- rule 2: reservations -----
    check_reservations(policy, input, run, &lookup, &mut seen)?;
    check_queue_head(cluster, policy, &run.finished)?;

    // ----- rule 3: starvation bound and policy order -----
    check_promotions(cluster, policy, input, run, &seen)?;
    if policy == Policy::Fcfs {
        check_fcfs_order(&run.finished)?;
    }
    Ok(())
}

/// Rule 1 by sort and sweep over `[start, end)` of every finished job.
fn check_capacity<const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    finished: &[JobRecord],
) -> Result<(), Violation> {
    for r in finished {
        let machine = usize::from(r.slot.machine);
        if !cluster.eligible(&r.job, machine) {
            return Err(Violation::Ineligible {
                job: r.job.id,
                machine,
                at: r.start(),
            });
        }
    }
    // (time, 0 = end / 1 = start, record index): ends sort before starts at
    // the same instant, as intervals are half-open.
    let mut events: Vec<(Time, u8, u32)> = Vec::with_capacity(2 * finished.len());
    for (n, r) in finished.iter().enumerate() {
        if r.end > r.start() {
            let n = u32::try_from(n).expect("fewer than 2^32 records");
            events.push((r.start(), 1, n));
            events.push((r.end, 0, n));
        }
    }
    events.sort_unstable();
    let machines = cluster.machines();
    let pools = cluster.pools();
    let mut cpus_used = vec![0_u64; machines.len()];
    let mut copies_used = vec![0_u64; pools.len()];
    let running_at = |t: Time, held: &dyn Fn(&JobRecord) -> bool| -> Vec<JobId> {
        let mut jobs: Vec<JobId> = finished
            .iter()
            .filter(|r| r.start() <= t && t < r.end && held(r))
            .map(|r| r.job.id)
            .collect();
        jobs.sort_unstable();
        jobs
    };
    for (t, kind, n) in events {
        let r = &finished[n as usize];
        let machine = usize::from(r.slot.machine);
        let procs = u64::from(r.job.procs);
        if kind == 0 {
            cpus_used[machine] -= procs;
            for (l, used) in copies_used.iter_mut().enumerate() {
                if r.job.licenses.contains(l) {
                    *used -= 1;
                }
            }
            continue;
        }
        cpus_used[machine] += procs;
        let cpus = machines[machine].cpus;
        if cpus_used[machine] > u64::from(cpus) {
            return Err(Violation::MachineOverfull {
                machine,
                at: t,
                used: cpus_used[machine],
                cpus,
                jobs: running_at(t, &|x| usize::from(x.slot.machine) == machine),
            });
        }
        for (l, used) in copies_used.iter_mut().enumerate() {
            if r.job.licenses.contains(l) {
                *used += 1;
                if *used > u64::from(pools[l].count) {
                    return Err(Violation::LicenseOverused {
                        pool: l,
                        at: t,
                        used: *used,
                        count: pools[l].count,
                        jobs: running_at(t, &|x| x.job.licenses.contains(l)),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Rule 2.
///
/// Which reservations are promises: every one under a reserve-all policy
/// (Conservative); the blocked head's under EASY, BF_FCFS and BF_UNMOD; and, under any policy,
/// those of a job whose record carries a guarantee (the kernel sets one
/// only when the policy promises the start, e.g. Selective's guaranteed
/// queue), which must be its first reservation's start.
fn check_reservations(
    policy: Policy,
    input: &[SimJob],
    run: &RunLog,
    lookup: &dyn Fn(JobId, Time) -> Result<usize, Violation>,
    seen: &mut [Seen],
) -> Result<(), Violation> {
    let mut previous: Time = 0;
    for &(now, id, slot) in &run.reservations {
        let i = lookup(id, now)?;
        if now < previous {
            return Err(Violation::LogOrder {
                job: id,
                at: now,
                previous,
            });
        }
        previous = now;
        if slot.start < now {
            return Err(Violation::ReservationInPast {
                job: id,
                at: now,
                start: slot.start,
            });
        }
        let s = &mut seen[i];
        // CONS+RS may move a reservation later, but never past the job's
        // guarantee (its reservation at arrival): compare with that one.
        let reference = if policy.reservations_may_move_later() {
            s.first_reservation
        } else {
            s.last_reservation
        };
        if let Some(last) = reference {
            if slot.start > last.start && s.moved_later.is_none() {
                s.moved_later = Some((now, last.start, slot.start));
            }
        }
        s.first_reservation.get_or_insert(slot);
        s.first_reserved_at.get_or_insert(now);
        s.last_reservation = Some(slot);
        s.last_reserved_at = Some(now);
    }
    // EASY's, DPSA's, BF_FCFS's and BF_UNMOD's head; not SJF-EASY's (it
    // can be overtaken) nor BF_MOD's, whose reservation moves between jobs
    // by design.
    let easy = policy.head_guaranteed();
    for (i, s) in seen.iter().enumerate() {
        let job = &input[i].job;
        let Some(n) = s.finished else {
            continue;
        };
        let r = &run.finished[n];
        let start = r.start();
        if let Some(now) = s.last_reserved_at {
            if now > start {
                return Err(Violation::ReservationAfterStart {
                    job: job.id,
                    at: now,
                    started: start,
                });
            }
        }
        let first = s.first_reservation.map(|slot| slot.start);
        if policy.reserves_all() && s.first_reserved_at != Some(job.submit) {
            return Err(Violation::MissingReservation {
                job: job.id,
                at: job.submit,
            });
        }
        // A job promised its start (by the policy, or by a guarantee on
        // its record) records its first reservation as its guarantee, and
        // keeps it: never moved later, never started after it.
        let promised = policy.reservation_is_guarantee() || easy || r.guarantee.is_some();
        if promised && r.guarantee != first {
            return Err(Violation::GuaranteeMismatch {
                job: job.id,
                at: start,
                recorded: r.guarantee,
                first_reservation: first,
            });
        }
        if promised {
            if let Some((at, from, to)) = s.moved_later {
                return Err(Violation::ReservationMovedLater {
                    job: job.id,
                    at,
                    from,
                    to,
                });
            }
            if let Some(first) = first {
                if start > first {
                    return Err(Violation::GuaranteeMissed {
                        job: job.id,
                        at: start,
                        guarantee: first,
                    });
                }
            }
        }
        if let (true, Some(last)) = (policy.keeps_reservations(), s.last_reservation) {
            if (last.start, last.machine) != (start, r.slot.machine) {
                return Err(Violation::NotAtReservation {
                    job: job.id,
                    at: start,
                    reserved: last.start,
                    reserved_machine: usize::from(last.machine),
                });
            }
        }
    }
    Ok(())
}

/// A Fenwick tree of processor counts over sorted time points: how many
/// processors the running jobs free by each estimated end.
struct Fenwick(Vec<u64>);

impl Fenwick {
    fn add(&mut self, index: usize, amount: u64, give: bool) {
        let mut i = index + 1;
        while i < self.0.len() {
            if give {
                self.0[i] += amount;
            } else {
                self.0[i] -= amount;
            }
            i += i & i.wrapping_neg();
        }
    }

    /// The smallest index whose prefix sum (inclusive) reaches `need`,
    /// if the whole sum does.
    fn first_reaching(&self, need: u64) -> Option<usize> {
        let n = self.0.len() - 1;
        let mut position = 0;
        let mut rest = need;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = position + step;
            if next <= n && self.0[next] < rest {
                position = next;
                rest -= self.0[next];
            }
            step /= 2;
        }
        (position < n).then_some(position)
    }
}

/// Queue order: `(0, submit, id)`, or `(estimate, submit, id)` for SJF-EASY.
type QueueKey = (u32, Time, JobId);

/// Rule 2 for the queue head under FCFS, EASY and SJF-EASY, found from the
/// log alone (see the module docs). Skipped on clusters with license pools,
/// where a shadow time also depends on licenses.
fn check_queue_head<const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    finished: &[JobRecord],
) -> Result<(), Violation> {
    if !matches!(policy, Policy::Fcfs | Policy::Easy | Policy::SjfEasy)
        || !cluster.pools().is_empty()
    {
        return Ok(());
    }
    let key = |r: &JobRecord| {
        let first = if policy == Policy::SjfEasy {
            r.job.estimate
        } else {
            0
        };
        (first, r.job.submit, r.job.id)
    };
    let estimated_end = |r: &JobRecord| u64::from(r.start()) + u64::from(r.slot.duration);
    // Estimated ends, the Fenwick trees' coordinates.
    let mut ends: Vec<u64> = finished.iter().map(estimated_end).collect();
    ends.sort_unstable();
    ends.dedup();
    let machines = cluster.machines();
    let mut free: Vec<Fenwick> = machines
        .iter()
        .map(|_| Fenwick(vec![0; ends.len() + 1]))
        .collect();
    let mut in_use = vec![0_u64; machines.len()];
    let index_of = |r: &JobRecord| {
        ends.binary_search(&estimated_end(r))
            .expect("every estimated end is a point")
    };
    // Events by instant: arrivals, starts and ends (record indices).
    let mut by_submit: Vec<usize> = (0..finished.len()).collect();
    by_submit.sort_by_key(|&n| (finished[n].job.submit, n));
    let mut by_start = by_submit.clone();
    by_start.sort_by_key(|&n| (finished[n].start(), n));
    let mut by_end = by_submit.clone();
    by_end.sort_by_key(|&n| (finished[n].end, n));
    let (mut a, mut b, mut e) = (0, 0, 0);
    let mut waiting: BTreeSet<(QueueKey, usize)> = BTreeSet::new();
    // The current head: (its key, record index, since, shadow time).
    let mut head: Option<(QueueKey, usize, Time, u64)> = None;
    loop {
        let next = [
            by_submit.get(a).map(|&n| finished[n].job.submit),
            by_start.get(b).map(|&n| finished[n].start()),
            by_end.get(e).map(|&n| finished[n].end),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(t) = next else {
            break;
        };
        // Ends at t (a zero-length run ends at its start; it is handled
        // with the starts, never counted as running).
        while let Some(&n) = by_end.get(e).filter(|&&n| finished[n].end <= t) {
            e += 1;
            let r = &finished[n];
            if r.end > r.start() {
                let m = usize::from(r.slot.machine);
                free[m].add(index_of(r), u64::from(r.job.procs), false);
                in_use[m] -= u64::from(r.job.procs);
            }
        }
        // Arrivals at t; one that sorts ahead of the head voids its shadow.
        let mut voided = false;
        while let Some(&n) = by_submit.get(a).filter(|&&n| finished[n].job.submit <= t) {
            a += 1;
            let k = key(&finished[n]);
            voided |= head.is_some_and(|(hk, ..)| k < hk);
            waiting.insert((k, n));
        }
        // Starts at t; the head must start by its shadow time.
        while let Some(&n) = by_start.get(b).filter(|&&n| finished[n].start() <= t) {
            b += 1;
            let r = &finished[n];
            if let Some((_, h, since, shadow)) = head {
                if h == n && u64::from(t) > shadow {
                    return Err(Violation::HeadStartedLate {
                        job: r.job.id,
                        at: t,
                        head_since: since,
                        shadow: Time::try_from(shadow).unwrap_or(Time::MAX),
                    });
                }
            }
            waiting.remove(&(key(r), n));
            if r.end > r.start() {
                let m = usize::from(r.slot.machine);
                free[m].add(index_of(r), u64::from(r.job.procs), true);
                in_use[m] += u64::from(r.job.procs);
            }
        }
        // The head after t, and its shadow time when it newly became the head.
        head = match waiting.first() {
            None => None,
            Some(&(k, n)) if !voided && head.is_some_and(|(_, h, ..)| h == n) => {
                head.map(|(_, _, since, shadow)| (k, n, since, shadow))
            }
            Some(&(k, n)) => {
                let r = &finished[n];
                let procs = u64::from(r.job.procs);
                let shadow = (0..machines.len())
                    .filter(|&m| cluster.eligible(&r.job, m))
                    .filter_map(|m| {
                        let spare = u64::from(machines[m].cpus).saturating_sub(in_use[m]);
                        if spare >= procs {
                            return Some(u64::from(t));
                        }
                        free[m].first_reaching(procs - spare).map(|i| ends[i])
                    })
                    .min()
                    .unwrap_or(u64::MAX);
                Some((k, n, t, shadow))
            }
        };
    }
    Ok(())
}

/// `submit + ceil((threshold - 1000) * estimate / 1000)`: when a job's
/// expansion factor reaches `threshold` (thousandths).
fn reaches(job: &Job, threshold: u64) -> u64 {
    let excess = threshold.saturating_sub(1000);
    u64::from(job.submit) + (excess * u64::from(job.estimate)).div_ceil(1000)
}

/// Adaptive thresholds over time: after the jobs ending at `instants[k]`,
/// the threshold is `thresholds[k]`; `zero_length[k]` says a zero-length
/// job ended then (the kernel passed more than once at that instant).
struct Adaptive {
    initial: u64,
    instants: Vec<Time>,
    thresholds: Vec<u64>,
    zero_length: Vec<bool>,
}

impl Adaptive {
    fn new(finished: &[JobRecord], scale: u32, well_estimated_only: bool, initial: u32) -> Self {
        let mut by_end: Vec<&JobRecord> = finished.iter().collect();
        by_end.sort_by_key(|r| r.end);
        let mut timeline = Self {
            initial: u64::from(initial),
            instants: Vec::new(),
            thresholds: Vec::new(),
            zero_length: Vec::new(),
        };
        let (mut count, mut sum) = (0_u64, 0_u64);
        for r in by_end {
            let run = u64::from(r.end - r.start());
            if !well_estimated_only || 2 * run >= u64::from(r.job.estimate) {
                let bounded = run.max(10);
                count += 1;
                sum += (u64::from(r.start() - r.job.submit) + bounded) * 1000 / bounded;
            }
            let threshold = sum
                .checked_div(count)
                .map_or(timeline.initial, |mean| mean * u64::from(scale) / 1000);
            if timeline.instants.last() != Some(&r.end) {
                timeline.instants.push(r.end);
                timeline.thresholds.push(threshold);
                timeline.zero_length.push(false);
            }
            *timeline.thresholds.last_mut().expect("pushed") = threshold;
            *timeline.zero_length.last_mut().expect("pushed") |= r.end == r.start();
        }
        timeline
    }

    /// The first instant in `[submit, started]` at which `job` is due, or
    /// `Err(at)` when it was promoted at `at`, an instant where a
    /// zero-length job ended and any promotion is accepted.
    fn due(&self, job: &Job, started: Time, promoted: Option<Time>) -> Result<Option<Time>, Time> {
        let mut k = self.instants.partition_point(|&c| c <= job.submit);
        let mut from = u64::from(job.submit);
        let mut threshold = k
            .checked_sub(1)
            .map_or(self.initial, |p| self.thresholds[p]);
        let lenient = |k: usize| {
            self.zero_length[k] && promoted == Some(self.instants[k]) && self.instants[k] <= started
        };
        if k > 0 && self.instants[k - 1] == job.submit && lenient(k - 1) {
            return Err(job.submit);
        }
        loop {
            let candidate = from.max(reaches(job, threshold));
            let until = self.instants.get(k).map_or(u64::MAX, |&c| u64::from(c));
            if candidate < until {
                return Ok((candidate <= u64::from(started))
                    .then(|| Time::try_from(candidate).expect("at most the start")));
            }
            if until > u64::from(started) {
                return Ok(None);
            }
            if lenient(k) {
                return Err(self.instants[k]);
            }
            from = until;
            threshold = self.thresholds[k];
            k += 1;
        }
    }
}

/// Rule 3 for Selective: promotion (the first reservation) exactly when the
/// expansion factor reaches the threshold, unless the job started first.
/// Thresholds and promotion instants are computed here, not taken from the
/// kernel (see the module docs).
fn check_promotions<const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    input: &[SimJob],
    run: &RunLog,
    seen: &[Seen],
) -> Result<(), Violation> {
    let Policy::Selective(threshold) = policy else {
        return Ok(());
    };
    let adaptive = match threshold {
        Threshold::Adaptive {
            scale,
            well_estimated_only,
            initial,
        } => {
            if cluster
                .machines()
                .iter()
                .any(|m| m.speed != REFERENCE_SPEED)
            {
                return Ok(());
            }
            Some(Adaptive::new(
                &run.finished,
                scale,
                well_estimated_only,
                initial,
            ))
        }
        _ => None,
    };
    for (i, s) in seen.iter().enumerate() {
        let job = &input[i].job;
        let Some(n) = s.finished else {
            continue;
        };
        let started = run.finished[n].start();
        let promoted = s.first_reserved_at;
        let due = match (threshold, &adaptive) {
            (Threshold::Fixed(t), _) => Some(reaches(job, u64::from(t))),
            (Threshold::PerCategory { thresholds, bounds }, _) => {
                let short = job.estimate <= bounds.short_max;
                let narrow = job.procs <= bounds.narrow_max;
                let index = usize::from(!short) * 2 + usize::from(!narrow);
                Some(reaches(job, u64::from(thresholds[index])))
            }
            (_, Some(timeline)) => match timeline.due(job, started, promoted) {
                Ok(due) => due.map(u64::from),
                Err(_) => continue,
            },
            (_, None) => continue,
        };
        let due_time = due.map(|d| Time::try_from(d).unwrap_or(Time::MAX));
        if let Some(at) = promoted {
            if due.is_none_or(|d| u64::from(at) < d) {
                return Err(Violation::PromotedEarly {
                    job: job.id,
                    at,
                    due: due_time,
                });
            }
        }
        if let Some(d) = due_time {
            if started > d && promoted != Some(d) {
                return Err(Violation::LatePromotion {
                    job: job.id,
                    at: d,
                    promoted,
                    started,
                });
            }
        }
    }
    Ok(())
}

/// FCFS: in queue order `(submit, id)`, start times never decrease.
fn check_fcfs_order(finished: &[JobRecord]) -> Result<(), Violation> {
    let mut order: Vec<&JobRecord> = finished.iter().collect();
    order.sort_unstable_by_key(|r| (r.job.submit, r.job.id));
    for pair in order.windows(2) {
        let (ahead, r) = (pair[0], pair[1]);
        if r.start() < ahead.start() {
            return Err(Violation::OutOfOrder {
                job: r.job.id,
                at: r.start(),
                ahead: ahead.job.id,
                ahead_start: ahead.start(),
            });
        }
    }
    Ok(())
}

/// Rule 5: replays `input` twice with fresh kernels and compares the
/// outcomes and the full logs.
///
/// # Errors
/// [`Violation::Nondeterministic`] at the first difference.
pub fn check_deterministic<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize,
    const L: usize,
>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    input: &[SimJob],
) -> Result<(), Violation> {
    let a = run_replay::<Q, R, B, M, L>(cluster, policy, input);
    let b = run_replay::<Q, R, B, M, L>(cluster, policy, input);
    compare_replays(&a, &b)
}

/// The first difference between two replays of the same input, as a
/// [`Violation::Nondeterministic`].
///
/// # Errors
/// When `a` and `b` differ in any way.
pub fn compare_replays(a: &Replay, b: &Replay) -> Result<(), Violation> {
    fn first_diff<T: PartialEq + fmt::Debug>(
        what: &str,
        a: &[T],
        b: &[T],
        key: impl Fn(&T) -> (Option<JobId>, Time),
    ) -> Result<(), Violation> {
        if let Some(n) = (0..a.len().min(b.len())).find(|&n| a[n] != b[n]) {
            let (job, at) = key(&a[n]);
            return Err(Violation::Nondeterministic {
                job,
                at,
                detail: format!("{what} #{n}: {:?} vs {:?}", a[n], b[n]),
            });
        }
        if a.len() != b.len() {
            let longer = if a.len() > b.len() { a } else { b };
            let (job, at) = key(&longer[a.len().min(b.len())]);
            return Err(Violation::Nondeterministic {
                job,
                at,
                detail: format!("{what}: {} vs {} entries", a.len(), b.len()),
            });
        }
        Ok(())
    }
    first_diff("start", &a.log.started, &b.log.started, |&(id, s)| {
        (Some(id), s.start)
    })?;
    first_diff(
        "reservation",
        &a.log.reservations,
        &b.log.reservations,
        |&(now, id, _)| (Some(id), now),
    )?;
    first_diff("finished", &a.log.finished, &b.log.finished, |r| {
        (Some(r.job.id), r.end)
    })?;
    first_diff("rejected", &a.log.rejected, &b.log.rejected, |(j, _)| {
        (Some(j.id), j.submit)
    })?;
    if a != b {
        let at = match (&a.outcome, &b.outcome) {
            (Ok(o), _) | (_, Ok(o)) => o.last_time,
            (Err(e), _) => e.time,
        };
        return Err(Violation::Nondeterministic {
            job: None,
            at,
            detail: format!(
                "outcome {:?} / validate {:?} / left {}+{} vs outcome {:?} / validate {:?} / left {}+{}",
                a.outcome,
                a.validate,
                a.left_queued,
                a.left_running,
                b.outcome,
                b.validate,
                b.left_queued,
                b.left_running
            ),
        });
    }
    Ok(())
}
