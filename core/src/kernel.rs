//! The kernel: the event API a firmware controller or the replay loop calls.
//!
//! # Calls
//!
//! * [`Kernel::submit`] a job at `now`,
//! * [`Kernel::complete`] a running job at `now` (early, or at its estimate,
//!   where the host kills it),
//! * [`Kernel::schedule`] at `now`: starts what may start, reporting each
//!   start (and each new or moved reservation) to an [`Observer`],
//! * [`Kernel::next_wakeup`]: the next instant the host must call
//!   [`Kernel::schedule`] even if no job arrives or ends: the earliest
//!   reservation start or estimate expiry after `now`.
//!
//! # Event order at one instant `t`
//!
//! 1. every completion at `t` ([`Kernel::complete`]);
//! 2. Conservative and Selective: one compression pass after every instant
//!    with a completion, early or on time (run lazily by the first
//!    [`Kernel::submit`] or [`Kernel::schedule`] after it);
//! 3. every submission at `t`, in the host's order (Conservative: each gets
//!    its reservation as it arrives);
//! 4. one [`Kernel::schedule`] pass.
//!
//! Calls with a `now` earlier than the previous call's are refused. A running
//! job must be completed by its estimate: [`Kernel::schedule`] refuses to run
//! while a job is past its estimate ([`KernelError::Overdue`]).
//!
//! # Errors, never panics
//!
//! Every misuse (unknown job, duplicate id, time going backwards, a full
//! table, an overflowing time) is returned as a [`KernelError`] and leaves
//! the kernel as it was.
//!
//! # Example
//!
//! ```
//! use backfill_core::{Cluster, Job, Kernel, Policy, Slot};
//! let cluster = Cluster::single(4)?;
//! let mut k: Kernel<16, 16, 64> = Kernel::new(cluster, Policy::Easy);
//! k.submit(0, Job::new(1, 0, 4, 100), &mut ())?;
//! k.submit(0, Job::new(2, 0, 4, 100), &mut ())?;
//! let mut started = heapless::Vec::<(u32, Slot), 4>::new();
//! k.schedule(0, &mut |job: &backfill_core::Job, slot: Slot| { let _ = started.push((job.id, slot)); })?;
//! assert_eq!(started.len(), 1);              // job 1 runs, job 2 waits
//! assert_eq!(k.next_wakeup(), Some(100));    // job 1's estimate expires
//! k.complete(60, 1)?;                        // ... but it ends early
//! k.schedule(60, &mut ())?;
//! assert_eq!(k.running().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::deck::Deck;
use crate::plan::{Plan, Slot};
use crate::policy::{Policy, SlowdownAverage, Threshold};
use crate::profile::ProfileError;
use crate::types::{Cluster, Job, JobId, Time};
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
    /// The wait queue is full (capacity `Q`).
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
        }
    }
}

impl core::error::Error for KernelError {}

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

/// Receives the kernel's decisions. Both methods default to doing nothing;
/// `()` ignores everything, and any `FnMut(&Job, Slot)` receives the starts.
pub trait Observer {
    /// `job` starts now at `slot`.
    fn started(&mut self, job: &Job, slot: Slot) {
        let _ = (job, slot);
    }
    /// `job` got a reservation at `slot`, or its reservation moved there.
    fn reserved(&mut self, job: &Job, slot: Slot) {
        let _ = (job, slot);
    }
}

impl Observer for () {}

impl<F: FnMut(&Job, Slot)> Observer for F {
    fn started(&mut self, job: &Job, slot: Slot) {
        self(job, slot);
    }
}

/// What fills the queue's unused slots (never read).
const VACANT: QueuedJob = QueuedJob {
    job: Job::new(0, 0, 1, 1),
    reservation: None,
    guarantee: None,
};

/// A job in the wait queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedJob {
    /// The job.
    pub job: Job,
    /// Its current reservation, if the policy gave it one.
    pub reservation: Option<Slot>,
    /// The start time of the first reservation it ever got: the policy's
    /// guarantee (it must start by then). EASY voids it when a job that
    /// sorts ahead (a late arrival with an earlier submit time) takes the
    /// head; the job gets a new one when it is the head again.
    pub guarantee: Option<Time>,
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

/// What a [`Kernel::schedule`] pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    /// Jobs started.
    pub started: u32,
}

/// The scheduling kernel for a cluster of `M` machines and `L` license pools,
/// with room for `Q` waiting jobs, `R` running jobs and `B` profile steps per
/// resource.
///
/// `B` must cover every distinct start and end time in the plan: for
/// Conservative, `2 * Q + R + 1` is always enough; for the others `R + 3`.
#[derive(Clone, Debug)]
pub struct Kernel<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize = 1,
    const L: usize = 0,
> {
    cluster: Cluster<M, L>,
    policy: Policy,
    now: Time,
    queue: Deck<QueuedJob, Q>,
    running: Vec<RunningJob, R>,
    plan: Plan<B, M, L>,
    /// A completion happened: the next pass must compress.
    compress_pending: bool,
    /// Intervals freed since the last compression pass ended.
    freed_since_pass: Freed,
    /// Intervals freed during the last compression pass.
    freed_in_last_pass: Freed,
    /// EASY: the job that holds the head reservation (SJF-EASY can replace it).
    reserved_head: Option<JobId>,
    /// Selective with adaptive thresholds: completed jobs' bounded slowdowns.
    average: SlowdownAverage,
    /// A host call came late and a missed reservation was re-planned from
    /// then: guarantees given before may no longer hold (see `validate`).
    replanned_late: bool,
    /// The largest job id ever queued (a larger one cannot be a duplicate).
    max_id: Option<JobId>,
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Kernel<Q, R, B, M, L>
{
    /// An empty kernel at time 0.
    #[must_use]
    pub fn new(cluster: Cluster<M, L>, policy: Policy) -> Self {
        const { assert!(Q > 0 && R > 0, "the queue and running set need room") };
        let plan = Plan::new(&cluster);
        Self {
            cluster,
            policy,
            now: 0,
            queue: Deck::new(VACANT),
            running: Vec::new(),
            plan,
            compress_pending: false,
            freed_since_pass: Freed::new(),
            freed_in_last_pass: Freed::new(),
            reserved_head: None,
            average: SlowdownAverage::default(),
            replanned_late: false,
            max_id: None,
        }
    }

    /// The policy.
    #[must_use]
    pub const fn policy(&self) -> Policy {
        self.policy
    }

    /// The cluster.
    #[must_use]
    pub const fn cluster(&self) -> &Cluster<M, L> {
        &self.cluster
    }

    /// The time of the latest call.
    #[must_use]
    pub const fn now(&self) -> Time {
        self.now
    }

    /// Waiting jobs, in priority order.
    #[must_use]
    pub fn queued(&self) -> &[QueuedJob] {
        &self.queue
    }

    /// Running jobs, in start order.
    #[must_use]
    pub fn running(&self) -> &[RunningJob] {
        &self.running
    }

    /// The plan: what is free on every machine and license pool over time.
    #[must_use]
    pub const fn plan(&self) -> &Plan<B, M, L> {
        &self.plan
    }

    fn advance(&mut self, now: Time) -> Result<(), KernelError> {
        if now < self.now {
            return Err(KernelError::TimeWentBackwards {
                now,
                current: self.now,
            });
        }
        if now > self.now {
            self.now = now;
            self.plan.advance(now);
        }
        Ok(())
    }

    /// The queue position for `job` under the policy's order (after equals).
    fn position(&self, job: &Job) -> usize {
        if self.policy.shortest_first() {
            let key = (job.estimate, job.submit, job.id);
            self.queue
                .partition_point(|q| (q.job.estimate, q.job.submit, q.job.id) <= key)
        } else {
            let key = (job.submit, job.id);
            self.queue
                .partition_point(|q| (q.job.submit, q.job.id) <= key)
        }
    }

    fn contains(&self, id: JobId) -> bool {
        // Hosts usually number jobs upwards: a new largest id is no duplicate.
        if self.max_id.is_none_or(|max| id > max) {
            return false;
        }
        self.queue.iter().any(|q| q.job.id == id) || self.running.iter().any(|r| r.job.id == id)
    }

    /// Adds `job` to the wait queue at `now`. Under Conservative it gets its
    /// reservation at once (reported to `observer`).
    ///
    /// # Errors
    /// [`KernelError::TimeWentBackwards`], [`KernelError::InvalidJob`],
    /// [`KernelError::SubmitInFuture`], [`KernelError::DuplicateJob`],
    /// [`KernelError::Unrunnable`], [`KernelError::QueueFull`],
    /// [`KernelError::ProfileFull`] or [`KernelError::TimeOverflow`]; nothing
    /// is changed then (but time has advanced to `now`).
    pub fn submit<O: Observer>(
        &mut self,
        now: Time,
        job: Job,
        observer: &mut O,
    ) -> Result<(), KernelError> {
        self.advance(now)?;
        if job.procs == 0 || job.estimate == 0 {
            return Err(KernelError::InvalidJob(job.id));
        }
        if job.submit > now {
            return Err(KernelError::SubmitInFuture(job.id));
        }
        if !self.cluster.runnable(&job) {
            return Err(KernelError::Unrunnable(job.id));
        }
        if self.contains(job.id) {
            return Err(KernelError::DuplicateJob(job.id));
        }
        if self.queue.is_full() {
            return Err(KernelError::QueueFull(job.id));
        }
        self.compress_if_pending(observer)?;
        let mut entry = QueuedJob {
            job,
            reservation: None,
            guarantee: None,
        };
        if self.policy.reserves_all() {
            let slot = self
                .plan
                .earliest(&self.cluster, &job, now)?
                .ok_or(KernelError::Unrunnable(job.id))?;
            self.plan.reserve(&job, &slot)?;
            entry.reservation = Some(slot);
            entry.guarantee = Some(slot.start);
            observer.reserved(&job, slot);
        }
        let at = self.position(&job);
        if let Err(entry) = self.queue.insert(at, entry) {
            // Checked above; undo the reservation all the same.
            if let Some(slot) = entry.reservation {
                self.plan.release_from(&job, &slot, now)?;
            }
            return Err(KernelError::QueueFull(job.id));
        }
        self.max_id = Some(self.max_id.map_or(job.id, |max| max.max(job.id)));
        // A job that sorts ahead of EASY's reserved head (it arrives late
        // with an earlier submit time) takes the head: the old head's
        // reservation, and the promise that came with it, are void.
        if let Some(old) = self.reserved_head {
            if let Some(entry) = self
                .queue
                .get_mut(at.saturating_add(1)..)
                .and_then(|rest| rest.iter_mut().find(|q| q.job.id == old))
            {
                entry.reservation = None;
                entry.guarantee = None;
                self.reserved_head = None;
            }
        }
        Ok(())
    }

    /// Removes running job `id` at `now` (it ended, or was killed at its
    /// estimate) and frees what it held from `now` on.
    ///
    /// # Errors
    /// [`KernelError::TimeWentBackwards`] or [`KernelError::UnknownJob`].
    pub fn complete(&mut self, now: Time, id: JobId) -> Result<RunningJob, KernelError> {
        if now < self.now {
            return Err(KernelError::TimeWentBackwards {
                now,
                current: self.now,
            });
        }
        let index = self
            .running
            .iter()
            .position(|r| r.job.id == id)
            .ok_or(KernelError::UnknownJob(id))?;
        self.advance(now)?;
        let done = self.running.remove(index);
        if let Policy::Selective(Threshold::Adaptive {
            well_estimated_only,
            ..
        }) = self.policy
        {
            let run = now.saturating_sub(done.slot.start);
            // Well estimated: ran at least half its estimate (a job killed
            // at its estimate ran all of it).
            if !well_estimated_only || run.saturating_mul(2) >= done.slot.duration {
                self.average
                    .add(done.slot.start.saturating_sub(done.job.submit), run);
            }
        }
        if done.slot.end() > now {
            self.plan.release_from(&done.job, &done.slot, now)?;
            if self.policy.keeps_reservations() {
                let most = self.plan.most_free_between(now, done.slot.end());
                self.freed_since_pass.add(now, done.slot.end(), most);
            }
        }
        // One compression pass after every instant with a completion, an
        // on-time one too (DESIGN.md section 3, step 2): a pass is not a
        // fixpoint, and what jobs moved by the previous pass freed may now
        // let a job ahead of them move.
        if self.policy.keeps_reservations() {
            self.compress_pending = true;
        }
        Ok(done)
    }

    /// The next instant after `now` at which [`Kernel::schedule`] must be
    /// called even if nothing arrives or ends: the earliest reservation start
    /// or estimate expiry. `None` when nothing is pending.
    #[must_use]
    pub fn next_wakeup(&self) -> Option<Time> {
        let expiries = self.running.iter().map(|r| r.slot.end());
        // EASY's only reservation, the head's shadow time, is a running
        // job's estimated end (or now), so only policies that keep
        // reservations need the queue scanned.
        let queue: &[QueuedJob] = if self.policy.keeps_reservations() {
            &self.queue
        } else {
            &[]
        };
        let reservations = queue.iter().map(|q| match q.reservation {
            Some(slot) => slot.start,
            // Selective's entry queue: the promotion instant.
            None => self.promotion_time(&q.job),
        });
        expiries.chain(reservations).filter(|&t| t > self.now).min()
    }

    /// Selective: when an entry-queue job is promoted under the current
    /// threshold (`Time::MAX` for other policies).
    #[must_use]
    pub fn promotion_time(&self, job: &Job) -> Time {
        self.policy
            .threshold_for(job, &self.average)
            .map_or(Time::MAX, |t| Policy::promotion_time(job, t))
    }

    /// Selective with an adaptive threshold: the running average of
    /// completed jobs' bounded slowdowns it uses.
    #[must_use]
    pub const fn slowdown_average(&self) -> &SlowdownAverage {
        &self.average
    }

    /// Starts every job the policy lets start at `now`, reporting each to
    /// `observer`.
    ///
    /// # Errors
    /// [`KernelError::TimeWentBackwards`], [`KernelError::Overdue`] when a
    /// running job is past its estimate, [`KernelError::RunningFull`],
    /// [`KernelError::ProfileFull`] or [`KernelError::TimeOverflow`].
    pub fn schedule<O: Observer>(
        &mut self,
        now: Time,
        observer: &mut O,
    ) -> Result<Pass, KernelError> {
        self.advance(now)?;
        if let Some(late) = self
            .running
            .iter()
            .find(|r| r.slot.end() <= now && r.slot.duration > 0)
        {
            return Err(KernelError::Overdue(late.job.id));
        }
        self.compress_if_pending(observer)?;
        match self.policy {
            Policy::Fcfs => self.pass_in_order(observer, false),
            Policy::Easy | Policy::SjfEasy => self.pass_in_order(observer, true),
            Policy::Conservative => self.pass_reserved(observer),
            Policy::Selective(_) => self.pass_selective(observer),
        }
    }

    /// Moves queue entry `index` to the running set at `slot` (whose
    /// resources the plan already holds).
    fn start(
        &mut self,
        index: usize,
        slot: Slot,
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
            guarantee: entry.guarantee,
        };
        if self.running.push(running).is_err() {
            return Err(KernelError::Internal("running set full after check"));
        }
        observer.started(&entry.job, slot);
        Ok(())
    }

    /// FCFS (no backfilling) and EASY / SJF-EASY.
    ///
    /// Start from the head while jobs fit now. Then, with backfilling, the
    /// head gets a reservation at its shadow time, held in the plan while the
    /// rest of the queue is scanned: a later job starts now if it fits the
    /// plan over `[now, now + estimate)`, which is exactly "ends by the shadow
    /// time or uses only processors the head leaves spare".
    fn pass_in_order(
        &mut self,
        observer: &mut impl Observer,
        backfill: bool,
    ) -> Result<Pass, KernelError> {
        let now = self.now;
        let mut pass = Pass::default();
        while let Some(head) = self.queue.first().copied() {
            match self.plan.fit_now(&self.cluster, &head.job, now)? {
                Some(slot) => {
                    self.plan.reserve(&head.job, &slot)?;
                    if let Err(e) = self.start(0, slot, observer) {
                        self.plan.release_from(&head.job, &slot, now)?;
                        return Err(e);
                    }
                    pass.started = pass.started.saturating_add(1);
                }
                None => break,
            }
        }
        if !backfill {
            return Ok(pass);
        }
        let Some(head) = self.queue.first().copied() else {
            return Ok(pass);
        };
        let shadow = self
            .plan
            .earliest(&self.cluster, &head.job, now)?
            .ok_or(KernelError::Unrunnable(head.job.id))?;
        if self.reserved_head != Some(head.job.id) {
            // A shorter job overtook the old head (SJF-EASY): it loses its reservation.
            if let Some(old) = self.reserved_head {
                if let Some(entry) = self.queue.iter_mut().find(|q| q.job.id == old) {
                    entry.reservation = None;
                }
            }
            self.reserved_head = Some(head.job.id);
        }
        if head.reservation != Some(shadow) {
            observer.reserved(&head.job, shadow);
        }
        let guaranteed = !self.policy.shortest_first();
        if let Some(entry) = self.queue.first_mut() {
            entry.reservation = Some(shadow);
            if entry.guarantee.is_none() && guaranteed {
                entry.guarantee = Some(shadow.start);
            }
        }
        self.plan.reserve(&head.job, &shadow)?;
        let result = self.backfill_behind_head(observer, &mut pass);
        // The head's reservation lives only during the pass.
        self.plan.release_from(&head.job, &shadow, now)?;
        result.map(|()| pass)
    }

    fn backfill_behind_head(
        &mut self,
        observer: &mut impl Observer,
        pass: &mut Pass,
    ) -> Result<(), KernelError> {
        let now = self.now;
        // Processors free now on the best machine: a job wider than that
        // cannot start, which settles most of a deep queue without a probe.
        let mut most_free = self.plan.most_free_now(now);
        let mut stairs = Stairs::build(&self.cluster, &self.plan);
        let mut index = 1;
        while most_free > 0 {
            let Some(procs) = self.queue.get(index).map(|q| q.job.procs) else {
                break;
            };
            if procs > most_free {
                index = index.saturating_add(1);
                continue;
            }
            let Some(entry) = self.queue.get(index).copied() else {
                break;
            };
            let found = match stairs
                .as_ref()
                .and_then(|s| s.fit_now(&self.cluster, &entry.job, now))
            {
                Some(answer) => answer,
                None => self.plan.fit_now(&self.cluster, &entry.job, now)?,
            };
            match found {
                Some(slot) => {
                    self.plan.reserve(&entry.job, &slot)?;
                    if let Err(e) = self.start(index, slot, observer) {
                        self.plan.release_from(&entry.job, &slot, now)?;
                        return Err(e);
                    }
                    pass.started = pass.started.saturating_add(1);
                    most_free = self.plan.most_free_now(now);
                    stairs = Stairs::build(&self.cluster, &self.plan);
                }
                None => index = index.saturating_add(1),
            }
        }
        Ok(())
    }

    /// Selective: promote every entry-queue job whose expansion factor has
    /// reached its threshold (in queue order, each reserved at its earliest
    /// feasible start), start the guaranteed jobs whose reservation has come,
    /// then start entry-queue jobs, in FCFS order, that fit now without
    /// delaying any reservation.
    fn pass_selective(&mut self, observer: &mut impl Observer) -> Result<Pass, KernelError> {
        let now = self.now;
        for index in 0..self.queue.len() {
            let Some(entry) = self.queue.get(index).copied() else {
                continue;
            };
            if entry.reservation.is_some() || self.promotion_time(&entry.job) > now {
                continue;
            }
            let slot = self
                .plan
                .earliest(&self.cluster, &entry.job, now)?
                .ok_or(KernelError::Unrunnable(entry.job.id))?;
            self.plan.reserve(&entry.job, &slot)?;
            if let Some(e) = self.queue.get_mut(index) {
                e.reservation = Some(slot);
                e.guarantee = Some(slot.start);
            }
            observer.reserved(&entry.job, slot);
        }
        let mut pass = self.pass_reserved(observer)?;
        let mut most_free = self.plan.most_free_now(now);
        let mut index = 0;
        while most_free > 0 {
            let Some(entry) = self.queue.get(index) else {
                break;
            };
            if entry.reservation.is_some() || entry.job.procs > most_free {
                index = index.saturating_add(1);
                continue;
            }
            let job = entry.job;
            match self.plan.fit_now(&self.cluster, &job, now)? {
                Some(slot) => {
                    self.plan.reserve(&job, &slot)?;
                    if let Err(e) = self.start(index, slot, observer) {
                        self.plan.release_from(&job, &slot, now)?;
                        return Err(e);
                    }
                    pass.started = pass.started.saturating_add(1);
                    most_free = self.plan.most_free_now(now);
                }
                None => index = index.saturating_add(1),
            }
        }
        Ok(pass)
    }

    /// Conservative: start every job whose reservation has come. A job whose
    /// reservation was missed (the host called late) is re-planned from now.
    fn pass_reserved(&mut self, observer: &mut impl Observer) -> Result<Pass, KernelError> {
        let now = self.now;
        let mut pass = Pass::default();
        let mut index = 0;
        while let Some(entry) = self.queue.get(index).copied() {
            let Some(mut slot) = entry.reservation else {
                index = index.saturating_add(1);
                continue;
            };
            if slot.start < now {
                let old = slot;
                slot = self.replan(index, &entry, None, observer)?;
                let most = self.plan.most_free_between(old.start, old.end());
                self.freed_since_pass.add(old.start, old.end(), most);
            }
            if slot.start == now {
                self.start(index, slot, observer)?;
                pass.started = pass.started.saturating_add(1);
            } else {
                index = index.saturating_add(1);
            }
        }
        Ok(pass)
    }

    /// Takes queue entry `index` out of the plan and puts it back at its
    /// earliest start from now, never later than its current reservation.
    /// `freed` bounds the search: the job can only have become movable by a
    /// window that overlaps an interval freed since it was last placed (see
    /// [`Kernel::compress_if_pending`]); `None` searches everything.
    fn replan(
        &mut self,
        index: usize,
        entry: &QueuedJob,
        freed: Option<&Freed>,
        observer: &mut impl Observer,
    ) -> Result<Slot, KernelError> {
        let now = self.now;
        let Some(old) = entry.reservation else {
            return Err(KernelError::Internal("replan without reservation"));
        };
        let slot = if old.start >= now {
            // Look for an earlier place without touching the plan; most jobs
            // cannot move, and then nothing is changed.
            match self.earliest_into(&entry.job, &old, freed)? {
                Some(earlier) => self.move_reservation(&entry.job, &old, Some(earlier))?,
                None => return Ok(old),
            }
        } else {
            // A missed reservation (the host called late): re-plan from now.
            self.replanned_late = true;
            self.move_reservation(&entry.job, &old, None)?
        };
        if let Some(e) = self.queue.get_mut(index) {
            e.reservation = Some(slot);
        }
        if slot != old {
            observer.reserved(&entry.job, slot);
        }
        Ok(slot)
    }

    /// Gives back what `job` holds of `old` from now on and reserves `to`
    /// instead (`None`: its earliest slot from now). On an error (a full
    /// profile, a time overflow) the old reservation is taken back, so the
    /// plan still matches the queue.
    fn move_reservation(
        &mut self,
        job: &Job,
        old: &Slot,
        to: Option<Slot>,
    ) -> Result<Slot, KernelError> {
        let now = self.now;
        self.plan.release_from(job, old, now)?;
        let target = match to {
            Some(slot) => Ok(slot),
            None => match self.plan.earliest(&self.cluster, job, now) {
                Ok(found) => found.ok_or(KernelError::Unrunnable(job.id)),
                Err(e) => Err(e.into()),
            },
        };
        let placed = target.and_then(|slot| match self.plan.reserve(job, &slot) {
            Ok(()) => Ok(slot),
            Err(e) => Err(e.into()),
        });
        if placed.is_err() {
            // Taking back exactly what was just given back cannot fail.
            let from = old.start.max(now);
            let kept = Slot {
                start: from,
                duration: old.end().saturating_sub(from),
                ..*old
            };
            let _ = self.plan.reserve(job, &kept);
        }
        placed
    }

    /// The earliest slot before `own.start` for a job that holds `own`,
    /// among windows overlapping one of the `freed` intervals (all windows
    /// when `freed` is `None`).
    fn earliest_into(
        &self,
        job: &Job,
        own: &Slot,
        freed: Option<&Freed>,
    ) -> Result<Option<Slot>, KernelError> {
        let now = self.now;
        let Some(freed) = freed else {
            return Ok(self
                .plan
                .earliest_before(&self.cluster, job, own, now, own.start)?);
        };
        // A window [s, s + d) overlaps [a, b) when a - d < s < b; `d` is the
        // job's longest duration on any machine.
        let reach = self
            .cluster
            .machines()
            .iter()
            .filter_map(|m| m.scale(job.estimate))
            .max()
            .unwrap_or(Time::MAX);
        // On one machine without licenses, a window must end before the
        // stretch with too few processors that precedes the job's own
        // reservation: a start after `blocked - duration` cannot fit.
        let mut ceiling = own.start;
        if self.cluster.machines().len() == 1 && self.cluster.pools().is_empty() {
            if let Some(profile) = self.plan.machine(usize::from(own.machine)) {
                let blocked = profile.blocked_since(own.start, job.procs, 16);
                if blocked < own.start {
                    match blocked.checked_sub(own.duration) {
                        Some(last) if last >= now => ceiling = last.saturating_add(1),
                        _ => return Ok(None),
                    }
                }
            }
        }
        let mut best: Option<Slot> = None;
        for &(a, b, most) in freed.intervals() {
            if most < job.procs {
                continue; // no point of [a, b) ever had room for it since
            }
            let limit = ceiling.min(b).min(best.map_or(Time::MAX, |s| s.start));
            let from = now.max(a.saturating_sub(reach));
            if from >= limit {
                continue;
            }
            if let Some(slot) = self
                .plan
                .earliest_before(&self.cluster, job, own, from, limit)?
            {
                best = Some(slot);
            }
        }
        Ok(best)
    }

    /// One compression pass: every reserved job, in queue order, moves to
    /// its earliest feasible start if that is earlier.
    ///
    /// Pruning, exact: when a job was last placed (at its submission, or in
    /// the previous pass) no earlier start fitted. Time passing frees
    /// nothing, so an earlier window can only fit now if it overlaps capacity
    /// freed since then: an early completion (`[now, estimated end)`) or a
    /// job that moved (its old slot). Every queued job was placed after the
    /// previous pass began, so the search looks only at windows overlapping
    /// an interval freed since then (a few intervals, or their hull).
    fn compress_if_pending(&mut self, observer: &mut impl Observer) -> Result<(), KernelError> {
        if !self.compress_pending {
            return Ok(());
        }
        self.compress_pending = false;
        let mut freed = self.freed_in_last_pass.clone();
        freed.extend(&self.freed_since_pass);
        self.freed_since_pass = Freed::new();
        let mut freed_in_pass = Freed::new();
        for index in 0..self.queue.len() {
            // Cheap tests first: a job already starting now cannot move, and
            // one wider than every freed interval's room cannot either.
            let movable = self.queue.get(index).is_some_and(|q| {
                q.reservation.is_some_and(|r| r.start > self.now)
                    && freed.intervals().iter().any(|i| i.2 >= q.job.procs)
            });
            if !movable {
                continue;
            }
            let Some(entry) = self.queue.get(index).copied() else {
                continue;
            };
            let Some(old) = entry.reservation else {
                continue;
            };
            match self.replan(index, &entry, Some(&freed), observer) {
                Ok(slot) if slot != old => {
                    let from = old.start.max(self.now);
                    let most = self.plan.most_free_between(from, old.end());
                    freed_in_pass.add(from, old.end(), most);
                    freed.add(from, old.end(), most);
                }
                Ok(_) => {}
                Err(e) => {
                    // Jobs after this one were not examined: search fully next time.
                    self.freed_since_pass.add(self.now, Time::MAX, u32::MAX);
                    return Err(e);
                }
            }
        }
        self.freed_in_last_pass = freed_in_pass;
        Ok(())
    }

    /// The start `job` would get if, now, the system switched to strict
    /// FCFS without backfilling: running jobs hold their processors until
    /// their estimated ends, then every queued job in queue order and `job`
    /// last start at their earliest fit, none before the job ahead of it.
    /// This is the selective-reservation paper's *fair start* when called on
    /// an FCFS-Conservative kernel as `job` arrives at `now` (before it is
    /// submitted; `now` may be ahead of the kernel's last call, as in
    /// [`crate::Simulator::run_with`]'s hook). `scratch` is overwritten
    /// (it is a parameter so nothing is allocated).
    ///
    /// # Errors
    /// [`KernelError::Unrunnable`], [`KernelError::ProfileFull`] or
    /// [`KernelError::TimeOverflow`].
    pub fn strict_fcfs_start(
        &self,
        now: Time,
        job: &Job,
        scratch: &mut Plan<B, M, L>,
    ) -> Result<Slot, KernelError> {
        let now = now.max(self.now);
        scratch.reset(now);
        for r in &self.running {
            let end = r.slot.end();
            if end > now {
                let rest = Slot {
                    start: now,
                    duration: end.saturating_sub(now),
                    ..r.slot
                };
                scratch.reserve(&r.job, &rest)?;
            }
        }
        let mut floor = now;
        for queued in &self.queue {
            let slot = scratch
                .earliest(&self.cluster, &queued.job, floor)?
                .ok_or(KernelError::Unrunnable(queued.job.id))?;
            scratch.reserve(&queued.job, &slot)?;
            floor = slot.start;
        }
        scratch
            .earliest(&self.cluster, job, floor)?
            .ok_or(KernelError::Unrunnable(job.id))
    }

    /// Checks the kernel's invariants: every profile is valid; the plan
    /// equals capacity minus what running jobs (and reservations, for
    /// Conservative) hold at every step; reservations never lie after the
    /// guarantee; no running job overlaps `now` wrongly. Costs
    /// `O(steps * jobs)`: for tests and fuzzing.
    ///
    /// A host that calls late (past a reservation's start without a
    /// [`Kernel::schedule`] at it) is supported: until the next pass
    /// re-plans it, the missed reservation lies in the past, and once it has
    /// been re-planned from the late instant it may lie after its guarantee
    /// (squeezed in among reservations made meanwhile). Neither is an
    /// inconsistency, so after the first such re-plan the guarantee check is
    /// off; with a punctual host neither happens.
    ///
    /// # Errors
    /// [`KernelError::Internal`] naming the first broken invariant.
    pub fn validate(&self) -> Result<(), KernelError> {
        self.plan
            .validate()
            .map_err(|_| KernelError::Internal("profile invariant"))?;
        for q in &self.queue {
            if let (Some(slot), Some(g)) = (q.reservation, q.guarantee) {
                // Only a late host breaks a guarantee (see the docs above).
                if slot.start > g && !self.replanned_late {
                    return Err(KernelError::Internal("reservation later than guarantee"));
                }
            }
            if self.policy.reserves_all() && q.reservation.is_none() {
                return Err(KernelError::Internal(
                    "conservative job without reservation",
                ));
            }
        }
        for (m, machine) in self.cluster.machines().iter().enumerate() {
            let Some(profile) = self.plan.machine(m) else {
                return Err(KernelError::Internal("missing machine profile"));
            };
            for step in profile.steps() {
                let held = self.held_at(step.at, |job, slot| {
                    (usize::from(slot.machine) == m).then_some(job.procs)
                });
                if u64::from(step.free).saturating_add(held) != u64::from(machine.cpus) {
                    return Err(KernelError::Internal("machine profile disagrees with jobs"));
                }
            }
        }
        for (l, pool) in self.cluster.pools().iter().enumerate() {
            let Some(profile) = self.plan.license(l) else {
                return Err(KernelError::Internal("missing license profile"));
            };
            for step in profile.steps() {
                let held = self.held_at(step.at, |job, _| job.licenses.contains(l).then_some(1));
                if u64::from(step.free).saturating_add(held) != u64::from(pool.count) {
                    return Err(KernelError::Internal("license profile disagrees with jobs"));
                }
            }
        }
        Ok(())
    }

    /// Units held at `t` by running jobs and standing reservations, as
    /// counted by `units`.
    fn held_at(&self, t: Time, units: impl Fn(&Job, &Slot) -> Option<u32>) -> u64 {
        let covers = |s: &Slot| s.start <= t && t < s.end();
        let running = self
            .running
            .iter()
            .filter(|r| covers(&r.slot))
            .filter_map(|r| units(&r.job, &r.slot));
        let reserved = self
            .queue
            .iter()
            .filter(|_| self.policy.keeps_reservations())
            .filter_map(|q| q.reservation.map(|s| (q.job, s)))
            .filter(|(_, s)| covers(s))
            .filter_map(|(j, s)| units(&j, &s));
        running.chain(reserved).map(u64::from).sum()
    }
}

/// The running minimum of free processors from now on, for a cluster of
/// one machine without licenses: `(t, m)` says that from `t` on the fewest
/// processors free since now is `m` (non-increasing). A job of width `p`
/// fits now for `d` seconds exactly when the first `t` with `m < p` is at or
/// after `now + d`, so a backfill probe is a binary search instead of a walk
/// over the window. Built once per pass and after each start.
#[derive(Debug)]
struct Stairs {
    steps: Vec<(Time, u32), 64>,
    /// Whether every step of the profile is covered (else only a prefix).
    complete: bool,
}

impl Stairs {
    fn build<const B: usize, const M: usize, const L: usize>(
        cluster: &Cluster<M, L>,
        plan: &Plan<B, M, L>,
    ) -> Option<Self> {
        if cluster.machines().len() != 1 || !cluster.pools().is_empty() {
            return None;
        }
        let profile = plan.machine(0)?;
        let mut stairs = Self {
            steps: Vec::new(),
            complete: true,
        };
        let mut least = u32::MAX;
        for step in profile.steps() {
            if step.free < least {
                least = step.free;
                if stairs.steps.push((step.at, least)).is_err() {
                    stairs.complete = false;
                    break;
                }
            }
        }
        Some(stairs)
    }

    /// `Some(answer)` when the stairs decide; `None` to fall back to a probe.
    fn fit_now<const M: usize, const L: usize>(
        &self,
        cluster: &Cluster<M, L>,
        job: &Job,
        now: Time,
    ) -> Option<Option<Slot>> {
        let duration = cluster.machines().first()?.scale(job.estimate)?;
        let end = now.checked_add(duration)?;
        // First stair whose minimum is below the job's width.
        let first_short = self.steps.partition_point(|&(_, least)| least >= job.procs);
        let fits = match self.steps.get(first_short) {
            Some(&(at, _)) => at >= end,
            None if self.complete => true,
            None => return None,
        };
        Some(fits.then_some(Slot {
            start: now,
            machine: 0,
            duration,
        }))
    }
}

/// A short list of time intervals `[a, b)` where capacity was freed, each
/// with the most processors free anywhere in it when it was added (on any
/// machine). When full, it collapses to one interval covering them all, with
/// the largest of those maxima: a superset is always safe for compression's
/// pruning, only slower.
///
/// Why the maximum may be kept although the plan changes: a window that fits
/// now and overlaps `[a, b)` has `need` processors free at its points in
/// `[a, b)`. Where no capacity was freed after the interval was added, free
/// processors only went down since, so the recorded maximum is at least
/// `need`; where capacity was freed later, the window also overlaps that
/// later interval and is found through it.
#[derive(Clone, Debug, Default)]
struct Freed {
    intervals: Vec<(Time, Time, u32), 8>,
}

impl Freed {
    fn new() -> Self {
        Self::default()
    }

    fn intervals(&self) -> &[(Time, Time, u32)] {
        &self.intervals
    }

    fn add(&mut self, a: Time, b: Time, most: u32) {
        if a >= b {
            return;
        }
        if let Some(hit) = self
            .intervals
            .iter_mut()
            .find(|(x, y, _)| a <= *y && *x <= b)
        {
            *hit = (hit.0.min(a), hit.1.max(b), hit.2.max(most));
            return;
        }
        if self.intervals.push((a, b, most)).is_err() {
            let lo = self.intervals.iter().map(|i| i.0).fold(a, Time::min);
            let hi = self.intervals.iter().map(|i| i.1).fold(b, Time::max);
            let top = self.intervals.iter().map(|i| i.2).fold(most, u32::max);
            self.intervals.clear();
            let _ = self.intervals.push((lo, hi, top));
        }
    }

    fn extend(&mut self, other: &Self) {
        for &(a, b, most) in other.intervals() {
            self.add(a, b, most);
        }
    }
}

#[cfg(test)]
mod tests;
