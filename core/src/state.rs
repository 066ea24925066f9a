//! The kernel's state and the moves every policy shares.
//!
//! This layer sits between the [`plan`](crate::plan) and the policies: it
//! holds what the kernel knows at an instant (the time, the wait queue, the
//! running set, the plan of free resources) and the primitives every
//! policy's pass is written in (advance the clock, find a job's queue
//! position, start a queued job). It also defines the values the kernel's
//! API exchanges ([`KernelError`], [`Observer`], [`QueuedJob`],
//! [`RunningJob`], [`Pass`], [`Counters`]), re-exported by [`crate::kernel`].

use crate::deck::Deck;
use crate::plan::{Plan, Slot};
use crate::profile::ProfileError;
use crate::reason::{StartKind, Waiting};
use crate::tally::{Tally, TallyError};
use crate::types::{Cluster, Job, JobId, Machine, Time};
use heapless::Vec;

/// What went wrong in a kernel call. The kernel is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KernelError {
    /// `now` is earlier than the previous call's.
    TimeWentBackwards {
        /// The refused time.
        now: Time,
        /// The kernel's current time.
        current: Time,
    },
    /// A job with this id is already queued or running.
    DuplicateJob(JobId),
    /// No running job has this id.
    UnknownJob(JobId),
    /// The wait queue is full (capacity `Q`, or the lower limit set by
    /// [`Kernel::set_queue_limit`](crate::Kernel::set_queue_limit)).
    QueueFull(JobId),
    /// The running set is full (capacity `R`).
    RunningFull(JobId),
    /// A profile ran out of steps (capacity `B`).
    ProfileFull,
    /// No machine can ever run this job (too wide, or its licenses cannot be
    /// activated anywhere).
    Unrunnable(JobId),
    /// The job asks for no processors or has a zero estimate.
    InvalidJob(JobId),
    /// The job's submit time is after `now`.
    SubmitInFuture(JobId),
    /// A time computation overflowed [`Time`].
    TimeOverflow,
    /// A running job is past its estimate and was not completed.
    Overdue(JobId),
    /// The kernel's own bookkeeping is inconsistent (a bug): what broke.
    Internal(&'static str),
    /// The policy cannot run on this cluster: why.
    Unsupported(&'static str),
}

impl core::fmt::Display for KernelError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::TimeWentBackwards { now, current } => {
                write!(f, "time went backwards: {now} < {current}")
            }
            Self::DuplicateJob(id) => write!(f, "job {id} is already in the kernel"),
            Self::UnknownJob(id) => write!(f, "job {id} is not running"),
            Self::QueueFull(id) => write!(f, "wait queue full, job {id} refused"),
            Self::RunningFull(id) => write!(f, "running set full, job {id} cannot start"),
            Self::ProfileFull => f.write_str("availability profile full"),
            Self::Unrunnable(id) => write!(f, "no machine can ever run job {id}"),
            Self::InvalidJob(id) => write!(f, "job {id} has no processors or a zero estimate"),
            Self::SubmitInFuture(id) => write!(f, "job {id} is submitted after now"),
            Self::TimeOverflow => f.write_str("time overflow"),
            Self::Overdue(id) => write!(f, "job {id} is past its estimate and still running"),
            Self::Internal(what) => write!(f, "internal inconsistency: {what}"),
            Self::Unsupported(why) => write!(f, "unsupported: {why}"),
        }
    }
}

impl core::error::Error for KernelError {}

impl From<TallyError> for KernelError {
    fn from(e: TallyError) -> Self {
        match e {
            TallyError::Mismatch => Self::Internal("tally: processors do not add up"),
            TallyError::Full => Self::Internal("tally: more ends than running jobs"),
        }
    }
}

impl From<ProfileError> for KernelError {
    fn from(e: ProfileError) -> Self {
        match e {
            ProfileError::Full => Self::ProfileFull,
            ProfileError::TimeOverflow => Self::TimeOverflow,
            ProfileError::Insufficient => Self::Internal("profile: insufficient"),
            ProfileError::OverRelease => Self::Internal("profile: over-release"),
            ProfileError::BeforeOrigin => Self::Internal("profile: before origin"),
            ProfileError::Invariant(_) => Self::Internal("profile invariant"),
        }
    }
}

/// Receives the kernel's decisions. Every method defaults to doing nothing;
/// `()` ignores everything, and any `FnMut(&Job, Slot)` receives the starts.
///
/// Pending reasons and start kinds ([`Observer::waiting`],
/// [`Observer::start_kind`]) are computed and reported only to an observer
/// whose [`Observer::wants_reasons`] says so: the default says no, and
/// inlined (the kernel is generic over its observer) the test folds away,
/// so the others pay nothing (`docs/design.md`, "Pending reasons").
pub trait Observer {
    /// Whether the kernel computes pending reasons and start kinds for this
    /// observer: `false` unless the observer says otherwise. Asked once per
    /// pass and once per start; the answer should not change.
    fn wants_reasons(&self) -> bool {
        false
    }
    /// After each [`Kernel::schedule`](crate::Kernel::schedule) pass, once
    /// for every job it leaves waiting, in queue order: why it waits and
    /// when it is expected to start (only when
    /// [`Observer::wants_reasons`]). The same as
    /// [`Kernel::waiting`](crate::Kernel::waiting) right after the pass.
    fn waiting(&mut self, waiting: &Waiting) {
        let _ = waiting;
    }
    /// Right after [`Observer::started`] of `job`: how it started (only
    /// when [`Observer::wants_reasons`]).
    fn start_kind(&mut self, job: &Job, kind: StartKind) {
        let _ = (job, kind);
    }
    /// `job` starts now at `slot`.
    fn started(&mut self, job: &Job, slot: Slot) {
        let _ = (job, slot);
    }
    /// `job` got a reservation at `slot`, or its reservation moved there.
    fn reserved(&mut self, job: &Job, slot: Slot) {
        let _ = (job, slot);
    }
    /// Asked before each step of a bounded search (CONS+RS's iterations):
    /// `false` stops the search there, keeping what it found so far. A
    /// firmware host checks its timer here (the paper's 50 ms budget); the
    /// default never stops, so the policy's iteration count decides and a
    /// replay is reproducible.
    fn keep_searching(&mut self) -> bool {
        true
    }
}

impl Observer for () {}

impl<F: FnMut(&Job, Slot)> Observer for F {
    fn started(&mut self, job: &Job, slot: Slot) {
        self(job, slot);
    }
}

/// What fills the queue's unused slots (never read).
const VACANT: QueuedJob = QueuedJob::new(Job::new(0, 0, 1, 1));

/// A job in the wait queue, with its reservation and guarantee if it has
/// them ([`reservation`](Self::reservation), [`guarantee`](Self::guarantee)).
///
/// An entry takes 48 bytes: both are kept without an `Option` tag (a
/// reservation always ends within [`Time`], so none begins at `Time::MAX`,
/// and neither does the guarantee, the start of the first one), which is
/// what keeps a queued-job slot of a Conservative kernel, with the two
/// profile steps its reservation may add, at 64 bytes. The reservation's
/// fields are kept apart (a [`Slot`] pads its one-byte machine to four), so
/// that a byte is left for noting that CONS+RS's random search set it (the
/// start kind, [`StartKind::RandomSearch`]), at no cost in size.
#[derive(Clone, Copy)]
pub struct QueuedJob {
    /// The job.
    pub job: Job,
    /// The reservation's start; `Time::MAX` when there is none.
    start: Time,
    /// The reservation's duration.
    duration: crate::types::Duration,
    /// The reservation's machine.
    machine: crate::types::MachineId,
    /// Whether CONS+RS's random search set the reservation (and nothing
    /// moved it since). A label for the start kind only: not compared, not
    /// kept by a checkpoint.
    searched: bool,
    /// The guarantee; `Time::MAX` when there is none.
    guarantee: Time,
}

/// Two entries are equal when their jobs, reservations and guarantees are:
/// whether the random search set the reservation is a label only.
impl PartialEq for QueuedJob {
    fn eq(&self, other: &Self) -> bool {
        self.job == other.job
            && self.reservation() == other.reservation()
            && self.guarantee == other.guarantee
    }
}

impl Eq for QueuedJob {}

impl QueuedJob {
    /// `job`, waiting, with no reservation and no guarantee.
    #[must_use]
    pub const fn new(job: Job) -> Self {
        Self {
            job,
            start: Slot::NOTHING.start,
            duration: Slot::NOTHING.duration,
            machine: Slot::NOTHING.machine,
            searched: false,
            guarantee: Time::MAX,
        }
    }

    /// Its current reservation, if the policy gave it one.
    #[must_use]
    pub const fn reservation(&self) -> Option<Slot> {
        if self.start == Time::MAX {
            None
        } else {
            Some(Slot {
                start: self.start,
                machine: self.machine,
                duration: self.duration,
            })
        }
    }

    /// The start time of the first reservation it ever got: the policy's
    /// guarantee (it must start by then). EASY voids it when a job that
    /// sorts ahead (a late arrival with an earlier submit time) takes the
    /// head; the job gets a new one when it is the head again.
    #[must_use]
    pub const fn guarantee(&self) -> Option<Time> {
        crate::types::unless_max(self.guarantee)
    }

    /// Sets (`None`: drops) the reservation. A slot beginning at
    /// `Time::MAX` cannot end within [`Time`] and reads back as none. A
    /// reservation that changes is no longer the random search's.
    pub fn set_reservation(&mut self, reservation: Option<Slot>) {
        let slot = reservation.unwrap_or(Slot::NOTHING);
        if self.reservation() != reservation {
            self.searched = false;
        }
        self.start = slot.start;
        self.duration = slot.duration;
        self.machine = slot.machine;
    }

    /// CONS+RS's random search set the reservation.
    pub(crate) fn set_searched(&mut self) {
        self.searched = true;
    }

    /// Sets (`None`: voids) the guarantee. `Some(Time::MAX)` reads back as
    /// none: no reservation begins then.
    pub fn set_guarantee(&mut self, guarantee: Option<Time>) {
        self.guarantee = guarantee.unwrap_or(Time::MAX);
    }
}

impl core::fmt::Debug for QueuedJob {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QueuedJob")
            .field("job", &self.job)
            .field("reservation", &self.reservation())
            .field("guarantee", &self.guarantee())
            .finish()
    }
}

/// A job that is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunningJob {
    /// The job.
    pub job: Job,
    /// Where and when it started; `slot.end()` is when its estimate expires.
    pub slot: Slot,
    /// The first reservation it had while waiting, if any.
    pub guarantee: Option<Time>,
}

/// What a [`Kernel::schedule`](crate::Kernel::schedule) pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    /// Jobs started.
    pub started: u32,
}

/// What the search-based policies did, summed over the kernel's life: the
/// figures their papers' evaluations and a firmware integrator's worst-case
/// analysis need. Counters saturate; every policy leaves the others' at 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Counters {
    /// DPSA: scheduling passes that ran the subset search.
    pub dpsa_searches: u64,
    /// DPSA: search nodes visited.
    pub dpsa_nodes: u64,
    /// DPSA: searches stopped by the node budget (their answer is the best
    /// found so far, not necessarily the optimum).
    pub dpsa_budget_hits: u64,
    /// DPSA: passes where more jobs fitted than one search considers
    /// ([`DPSA_CANDIDATES`](crate::policy::DPSA_CANDIDATES)); the rest were
    /// offered greedily, in queue order, after the search.
    pub dpsa_overflows: u64,
    /// CONS+RS: searches run (one per instant with an early completion and
    /// a non-empty queue).
    pub rs_searches: u64,
    /// CONS+RS: random-search iterations run.
    pub rs_iterations: u64,
    /// CONS+RS: moves kept (the plan's objective improved strictly and no
    /// job passed its guarantee).
    pub rs_accepted: u64,
    /// CONS+RS: moves undone because a job would have started after its
    /// guarantee.
    pub rs_rejected_guarantee: u64,
    /// CONS+RS: moves undone because the objective did not improve.
    pub rs_rejected_objective: u64,
    /// CONS+RS: iterations that found no gap before the chosen job's
    /// reservation (nothing to try).
    pub rs_no_gap: u64,
    /// CONS+RS: iterations skipped because more than
    /// [`MAX_TOUCHED`](crate::policy::MAX_TOUCHED) queued jobs overlapped
    /// the gap's window (or one of them had a missed reservation).
    pub rs_too_crowded: u64,
    /// Flexible backfilling (BF_MOD): times the reservation passed to
    /// another job because that job overtook the holder in priority.
    pub reservation_handovers: u64,
}

/// Everything the kernel knows at an instant; the policies read and change
/// it through the kernel (see [`crate::policy`]).
#[derive(Clone, Debug)]
pub(crate) struct State<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize,
    const L: usize,
> {
    pub(crate) cluster: Cluster<M, L>,
    pub(crate) now: Time,
    pub(crate) queue: Deck<QueuedJob, Q>,
    /// Only [`State::start`] adds to it and [`State::finish`] takes from
    /// it, which keep `first_end`.
    pub(crate) running: Vec<RunningJob, R>,
    /// The earliest estimated end of a running job (`None`: none runs), so
    /// that the next expiry is known without a walk over the running set.
    pub(crate) first_end: Option<Time>,
    /// What is free over time on every machine and license pool; empty
    /// (never updated) when `tally` is kept instead.
    pub(crate) plan: Plan<B, M, L>,
    /// FCFS, EASY and SJF-EASY on one machine without licenses: free
    /// processors and the running jobs' estimated ends, kept instead of the
    /// plan (see [`crate::tally`]) when `counting`; read it through
    /// [`State::tally`]. Always there, so that [`State::renew`] sets it up
    /// in place (a tally of a deep kernel is tens of kilobytes).
    counts: Tally<R>,
    /// Whether `counts` is kept instead of the plan.
    counting: bool,
    /// A host call came late and a missed reservation was re-planned from
    /// then: guarantees given before may no longer hold (see
    /// [`Kernel::validate`](crate::Kernel::validate)).
    pub(crate) replanned_late: bool,
    /// The largest job id ever queued (a larger one cannot be a duplicate).
    pub(crate) max_id: Option<JobId>,
    /// What the search-based policies did.
    pub(crate) counters: Counters,
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    State<Q, R, B, M, L>
{
    /// An empty state at time 0, keeping a tally instead of the plan when
    /// `tally` is set and the cluster is one machine without licenses.
    #[inline(always)]
    pub(crate) fn new(cluster: Cluster<M, L>, tally: bool) -> Self {
        let plan = Plan::new(&cluster);
        let counted = Self::counted(&cluster, tally);
        Self {
            cluster,
            now: 0,
            queue: Deck::new(VACANT),
            running: Vec::new(),
            first_end: None,
            plan,
            counts: Tally::new(counted.unwrap_or(Machine::new(0))),
            counting: counted.is_some(),
            replanned_late: false,
            max_id: None,
            counters: Counters::default(),
        }
    }

    /// The machine a tally counts: the cluster's only one, when it has no
    /// licenses and `tally` is asked for.
    fn counted(cluster: &Cluster<M, L>, tally: bool) -> Option<Machine> {
        match cluster.machines() {
            [machine] if tally && cluster.pools().is_empty() => Some(*machine),
            _ => None,
        }
    }

    /// As [`State::new`], in place: the queue, the running set, the plan
    /// and the tally are emptied where they are, not built again.
    pub(crate) fn renew(&mut self, cluster: Cluster<M, L>, tally: bool) {
        self.plan.renew(&cluster);
        let counted = Self::counted(&cluster, tally);
        self.counts.renew(counted.unwrap_or(Machine::new(0)));
        self.counting = counted.is_some();
        self.cluster = cluster;
        self.now = 0;
        self.queue.clear();
        self.running.clear();
        self.first_end = None;
        self.replanned_late = false;
        self.max_id = None;
        self.counters = Counters::default();
    }

    /// Sets up what the kernel keeps about its running set beside the set
    /// itself, from the set: the earliest end and, when `tally` is asked
    /// for and the cluster is one machine without licenses, the tally
    /// (kept instead of the plan). A restored checkpoint holds neither: both
    /// follow from the running jobs, as the invariants say.
    ///
    /// # Errors
    /// [`KernelError::Internal`] when the running jobs hold more processors
    /// than the machine has, or end at more instants than the tally holds
    /// (a restore checks both first); the tally is then partly filled.
    pub(crate) fn count_running(&mut self, tally: bool) -> Result<(), KernelError> {
        let counted = Self::counted(&self.cluster, tally);
        self.counts.renew(counted.unwrap_or(Machine::new(0)));
        self.counting = counted.is_some();
        if self.counting {
            for r in &self.running {
                self.counts.hold(r.slot.end(), r.job.procs)?;
            }
        }
        self.first_end = self.running.iter().map(|r| r.slot.end()).min();
        Ok(())
    }

    /// The tally, when it is kept instead of the plan.
    pub(crate) const fn tally(&self) -> Option<&Tally<R>> {
        if self.counting {
            Some(&self.counts)
        } else {
            None
        }
    }

    /// [`State::tally`], to change.
    pub(crate) fn tally_mut(&mut self) -> Option<&mut Tally<R>> {
        if self.counting {
            Some(&mut self.counts)
        } else {
            None
        }
    }

    /// Moves the clock to `now` (never backwards) and forgets the plan's past.
    pub(crate) fn advance(&mut self, now: Time) -> Result<(), KernelError> {
        if now < self.now {
            return Err(KernelError::TimeWentBackwards {
                now,
                current: self.now,
            });
        }
        if now > self.now {
            self.now = now;
            if !self.counting {
                self.plan.advance(now);
            }
        }
        Ok(())
    }

    /// The queue position for `job` (after its equals): by `(submit, id)`,
    /// or by `(estimate, submit, id)` when `shortest_first`.
    pub(crate) fn position(&self, job: &Job, shortest_first: bool) -> usize {
        if shortest_first {
            let key = (job.estimate, job.submit, job.id);
            self.queue
                .partition_point(|q| (q.job.estimate, q.job.submit, q.job.id) <= key)
        } else {
            // Arrivals in submit order join the tail: check it first.
            let key = (job.submit, job.id);
            let after = |q: &QueuedJob| (q.job.submit, q.job.id) <= key;
            if self.queue.last().is_none_or(after) {
                return self.queue.len();
            }
            self.queue.partition_point(after)
        }
    }

    /// Whether a job with this id is queued or running.
    pub(crate) fn contains(&self, id: JobId) -> bool {
        // Hosts usually number jobs upwards: a new largest id is no duplicate.
        if self.max_id.is_none_or(|max| id > max) {
            return false;
        }
        self.queue.iter().any(|q| q.job.id == id) || self.running.iter().any(|r| r.job.id == id)
    }

    /// Whether the earliest end kept is that of the running set
    /// ([`Kernel::validate`](crate::Kernel::validate)).
    pub(crate) fn first_end_agrees(&self) -> bool {
        self.first_end == self.running.iter().map(|r| r.slot.end()).min()
    }

    /// Moves queue entry `index` to the running set at `slot` (whose
    /// resources the plan already holds): at its reservation
    /// (`at_reservation`), or because it fits now.
    pub(crate) fn start(
        &mut self,
        index: usize,
        slot: Slot,
        at_reservation: bool,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        if self.running.is_full() {
            let id = self.queue.get(index).map_or(0, |q| q.job.id);
            return Err(KernelError::RunningFull(id));
        }
        if index >= self.queue.len() {
            return Err(KernelError::Internal("start: no such queue entry"));
        }
        let entry = self
            .queue
            .remove(index)
            .ok_or(KernelError::Internal("start: no such queue entry"))?;
        let running = RunningJob {
            job: entry.job,
            slot,
            guarantee: entry.guarantee(),
        };
        if self.running.push(running).is_err() {
            return Err(KernelError::Internal("running set full after check"));
        }
        let end = slot.end();
        self.first_end = Some(self.first_end.map_or(end, |t| t.min(end)));
        observer.started(&entry.job, slot);
        if observer.wants_reasons() {
            report_start_kind(observer, &entry, slot, index, at_reservation);
        }
        Ok(())
    }

    /// Takes running job `id` out of the running set. The earliest end is
    /// found again only when this job had it: O(1) amortised over a replay.
    pub(crate) fn finish(&mut self, id: JobId) -> Result<RunningJob, KernelError> {
        // Searched from the newest start back: short jobs end soon after
        // they start, and ids are unique, so either end finds the same job.
        let index = self
            .running
            .iter()
            .rposition(|r| r.job.id == id)
            .ok_or(KernelError::UnknownJob(id))?;
        let done = self.running.remove(index);
        // With a tally, `release` takes the earliest end from it instead.
        if !self.counting && self.first_end.is_none_or(|t| done.slot.end() <= t) {
            self.first_end = self.running.iter().map(|r| r.slot.end()).min();
        }
        Ok(done)
    }

    /// The earliest estimated end of a running job after `now`.
    pub(crate) fn next_expiry(&self) -> Option<Time> {
        let now = self.now;
        match self.first_end {
            Some(t) if t > now => Some(t),
            None => None,
            // Some job is at or past its estimate: look at them all.
            Some(_) => self
                .running
                .iter()
                .map(|r| r.slot.end())
                .filter(|&t| t > now)
                .min(),
        }
    }

    /// A running job past its estimate at `now` (not one of zero duration).
    pub(crate) fn overdue(&self, now: Time) -> Option<&RunningJob> {
        if self.first_end.is_none_or(|t| t > now) {
            return None;
        }
        self.running
            .iter()
            .find(|r| r.slot.end() <= now && r.slot.duration > 0)
    }

    /// Reserves `slot` for queue entry `index` and starts it now; if the
    /// start fails, the plan (or tally) gets the slot back.
    pub(crate) fn reserve_and_start(
        &mut self,
        index: usize,
        job: &Job,
        slot: Slot,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        if self.running.is_full() {
            return Err(KernelError::RunningFull(job.id));
        }
        match self.tally_mut() {
            Some(tally) => tally.hold(slot.end(), job.procs)?,
            None => self.plan.reserve(job, &slot)?,
        }
        if let Err(e) = self.start(index, slot, false, observer) {
            let now = self.now;
            match self.tally_mut() {
                Some(tally) => tally.release(slot.end(), job.procs)?,
                None => self.plan.release_from(job, &slot, now)?,
            }
            return Err(e);
        }
        Ok(())
    }

    /// Gives back, from `now` on, what running job `done` (already taken
    /// out of the running set by [`State::finish`]) held. A tally holds the
    /// running jobs' ends in order, so the earliest is its first.
    pub(crate) fn release(&mut self, done: &RunningJob, now: Time) -> Result<(), KernelError> {
        if let Some(tally) = self.tally_mut() {
            tally.release(done.slot.end(), done.job.procs)?;
            self.first_end = tally.first_end();
        } else if done.slot.end() > now {
            self.plan.release_from(&done.job, &done.slot, now)?;
        }
        Ok(())
    }
}

/// Tells `observer` how queue entry `entry`, at position `index`, started
/// at `slot`: at its reservation (`at_reservation`) or because it fit now
/// (`docs/design.md`, "Pending reasons", start kinds).
#[inline(never)]
fn report_start_kind(
    observer: &mut impl Observer,
    entry: &QueuedJob,
    slot: Slot,
    index: usize,
    at_reservation: bool,
) {
    let kind = match (at_reservation, entry.guarantee()) {
        (true, Some(first)) if slot.start < first && entry.searched => StartKind::RandomSearch,
        (true, Some(first)) if slot.start < first => StartKind::Compressed,
        (true, _) => StartKind::AtReservation,
        (false, _) if index == 0 => StartKind::InOrder,
        (false, _) => StartKind::Backfilled,
    };
    observer.start_kind(&entry.job, kind);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fixtures::job;

    /// The reservation and guarantee read back as set, `None` included, and
    /// `Debug` shows them as options (not the values that stand for none).
    #[test]
    fn a_queued_job_reads_back_its_reservation_and_guarantee() {
        let mut q = QueuedJob::new(job(7).procs(2).estimate(30).job());
        assert_eq!((q.reservation(), q.guarantee()), (None, None));
        let text = std::format!("{q:?}");
        assert!(
            text.contains("reservation: None, guarantee: None"),
            "{text}"
        );
        let slot = Slot {
            start: 40,
            machine: 1,
            duration: 30,
        };
        q.set_reservation(Some(slot));
        q.set_guarantee(Some(40));
        assert_eq!((q.reservation(), q.guarantee()), (Some(slot), Some(40)));
        let text = std::format!("{q:?}");
        assert!(
            text.contains("reservation: Some(Slot { start: 40, machine: 1, duration: 30 }), guarantee: Some(40)"),
            "{text}"
        );
        q.set_reservation(None);
        q.set_guarantee(None);
        assert_eq!(q, QueuedJob::new(job(7).procs(2).estimate(30).job()));
        assert_eq!(core::mem::size_of::<QueuedJob>(), 48);
    }
}
