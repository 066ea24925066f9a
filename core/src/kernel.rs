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

mod checkpoint;

use crate::plan::{Plan, Slot};
use crate::policy::{Engine, Policy, Rules, SlowdownAverage, View};
use crate::reason::Waiting;
use crate::state::State;
pub use crate::state::{Counters, KernelError, Observer, Pass, QueuedJob, RunningJob};
use crate::types::{Cluster, Job, JobId, Time};

/// The scheduling kernel for a cluster of `M` machines and `L` license pools,
/// with room for `Q` waiting jobs, `R` running jobs and `B` profile steps per
/// resource.
///
/// `B` must cover every distinct start and end time in the plan: for
/// Conservative, `2 * Q + R + 1` is always enough; for the others `R + 3`.
///
/// The kernel holds the state and the API; the policy's own rules live in
/// [`crate::policy`], one file per policy family, dispatched by value.
#[derive(Clone, Debug)]
pub struct Kernel<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize = 1,
    const L: usize = 0,
> {
    policy: Policy,
    engine: Engine,
    st: State<Q, R, B, M, L>,
    /// Most waiting jobs [`Kernel::submit`] accepts, at most `Q`
    /// ([`Kernel::set_queue_limit`]).
    queue_limit: usize,
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Kernel<Q, R, B, M, L>
{
    /// An empty kernel at time 0.
    ///
    /// FCFS, EASY and SJF-EASY on a cluster of one machine without licenses
    /// decide from the free processors and the running jobs' estimated ends
    /// alone, and keep no plan (see [`Kernel::keeps_plan`]); every other
    /// policy and cluster keeps one. The schedules are the same either way
    /// ([`Kernel::new_with_plan`]).
    #[must_use]
    #[inline(always)]
    pub fn new(cluster: Cluster<M, L>, policy: Policy) -> Self {
        Self::build(cluster, policy, policy.needs_only_free_and_ends())
    }

    /// An empty kernel at time 0 that keeps the plan whatever the policy, so
    /// that [`Kernel::plan`] is always current; its decisions are those of
    /// [`Kernel::new`], at the cost of updating the plan at every start and
    /// end.
    #[must_use]
    pub fn new_with_plan(cluster: Cluster<M, L>, policy: Policy) -> Self {
        Self::build(cluster, policy, false)
    }

    /// The constructors down to the profile and the queue are inlined so
    /// that a kernel is built in one place: out of line, each layer returned
    /// a copy, and a replay paid for three copies of host-cli's 2.2 MB
    /// kernel in page faults and `memmove` (`host-cli replay` of lublin_256
    /// under EASY: 11.6 -> 10.4 ms). One copy remains on the way into a
    /// `Box` (`Box::new` takes the kernel built on the stack); safe Rust has
    /// no way to build it in the box, which is what [`Kernel::reset`] is for.
    #[inline(always)]
    fn build(cluster: Cluster<M, L>, policy: Policy, tally: bool) -> Self {
        const { assert!(Q > 0 && R > 0, "the queue and running set need room") };
        Self {
            policy,
            engine: Engine::new(policy),
            st: State::new(cluster, tally),
            queue_limit: Q,
        }
    }

    /// Empties the kernel and sets it up for `cluster` and `policy`, in
    /// place: it is then what [`Kernel::new`] returns, without a second
    /// kernel being built on the stack and copied over it. A firmware that
    /// restarts its scheduler reuses the kernel's memory; a host can build
    /// the kernel before it knows the cluster (host-cli builds its 2.2 MB
    /// kernel while it reads the trace). Nothing larger than the cluster and
    /// the policy's own state (under a kilobyte) is built outside the
    /// kernel: every table, the plan's profiles and the tally included, is
    /// emptied or set up where it lies, which is what lets the C interface
    /// set a kernel up in the caller's memory on a small stack.
    pub fn reset(&mut self, cluster: Cluster<M, L>, policy: Policy) {
        self.policy = policy;
        self.engine = Engine::new(policy);
        self.st.renew(cluster, policy.needs_only_free_and_ends());
        self.queue_limit = Q;
    }

    /// Lowers (or raises again, up to `Q`) the number of waiting jobs
    /// [`Kernel::submit`] accepts before it refuses with
    /// [`KernelError::QueueFull`]: a host bounds the cost of a pass, which
    /// grows with the queue, or runs as a kernel with a smaller `Q` would
    /// (the C example mirrors the Rust one's 4-job queue so). Jobs already
    /// waiting stay; a limit below the queue's length only refuses new ones.
    /// Returns the limit in force: `limit`, or `Q` when `limit` is larger.
    /// [`Kernel::new`] and [`Kernel::reset`] set it to `Q`.
    pub fn set_queue_limit(&mut self, limit: usize) -> usize {
        self.queue_limit = limit.min(Q);
        self.queue_limit
    }

    /// The most waiting jobs [`Kernel::submit`] accepts
    /// ([`Kernel::set_queue_limit`]; `Q` unless lowered).
    #[must_use]
    pub const fn queue_limit(&self) -> usize {
        self.queue_limit
    }

    /// Whether the kernel keeps its [`Plan`] up to date: always, except
    /// for FCFS, EASY and SJF-EASY on one machine without licenses built by
    /// [`Kernel::new`], which count free processors and keep the running
    /// jobs' estimated ends instead.
    #[must_use]
    pub const fn keeps_plan(&self) -> bool {
        self.st.tally().is_none()
    }

    /// The policy.
    #[must_use]
    pub const fn policy(&self) -> Policy {
        self.policy
    }

    /// The cluster.
    #[must_use]
    pub const fn cluster(&self) -> &Cluster<M, L> {
        &self.st.cluster
    }

    /// The time of the latest call.
    #[must_use]
    pub const fn now(&self) -> Time {
        self.st.now
    }

    /// Waiting jobs, in priority order.
    #[must_use]
    pub fn queued(&self) -> &[QueuedJob] {
        &self.st.queue
    }

    /// The queue as it stands: every waiting job, in queue order, with its
    /// position, why it waits and when it is expected to start, by the
    /// policy's rules on the current state (`docs/design.md`, "Pending
    /// reasons" and "Expected starts"). Right after a
    /// [`Kernel::schedule`] pass these are the reasons the pass reported to
    /// an observer that wants them. Allocates nothing; each item costs a
    /// fit test or two on the plan.
    pub fn waiting(&self) -> impl Iterator<Item = Waiting> + '_ {
        View::new(&self.engine, &self.st).waiting()
    }

    /// Running jobs, in start order.
    #[must_use]
    pub fn running(&self) -> &[RunningJob] {
        &self.st.running
    }

    /// What the search-based policies did so far (all zero for the others).
    #[must_use]
    pub const fn counters(&self) -> &Counters {
        &self.st.counters
    }

    /// The plan: what is free on every machine and license pool over time
    /// (running jobs held until their estimated ends, and the reservations
    /// the policy keeps). Empty when the kernel keeps no plan
    /// ([`Kernel::keeps_plan`]; [`Kernel::new_with_plan`] always keeps one).
    #[must_use]
    pub const fn plan(&self) -> &Plan<B, M, L> {
        &self.st.plan
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
        let st = &mut self.st;
        st.advance(now)?;
        if job.procs == 0 || job.estimate == 0 {
            return Err(KernelError::InvalidJob(job.id));
        }
        if job.submit > now {
            return Err(KernelError::SubmitInFuture(job.id));
        }
        if !st.cluster.runnable(&job) {
            return Err(KernelError::Unrunnable(job.id));
        }
        if st.contains(job.id) {
            return Err(KernelError::DuplicateJob(job.id));
        }
        if st.queue.is_full() || st.queue.len() >= self.queue_limit {
            return Err(KernelError::QueueFull(job.id));
        }
        let reservation = self.engine.arrival(st, &job, observer)?;
        let mut entry = QueuedJob::new(job);
        entry.set_reservation(reservation);
        entry.set_guarantee(
            reservation
                .filter(|_| self.policy.reservation_is_guarantee())
                .map(|slot| slot.start),
        );
        let at = st.position(&job, self.engine.shortest_first());
        if let Err(entry) = st.queue.insert(at, entry) {
            // Checked above; undo the reservation all the same.
            if let Some(slot) = entry.reservation() {
                st.plan.release_from(&job, &slot, now)?;
            }
            return Err(KernelError::QueueFull(job.id));
        }
        st.max_id = Some(st.max_id.map_or(job.id, |max| max.max(job.id)));
        self.engine.queued(st, at);
        Ok(())
    }

    /// Removes running job `id` at `now` (it ended, or was killed at its
    /// estimate) and frees what it held from `now` on.
    ///
    /// # Errors
    /// [`KernelError::TimeWentBackwards`] or [`KernelError::UnknownJob`].
    pub fn complete(&mut self, now: Time, id: JobId) -> Result<RunningJob, KernelError> {
        let st = &mut self.st;
        if now < st.now {
            return Err(KernelError::TimeWentBackwards {
                now,
                current: st.now,
            });
        }
        // Time is checked above, so neither step can fail after the other
        // changed something.
        let done = st.finish(id)?;
        st.advance(now)?;
        st.release(&done, now)?;
        self.engine.completed(&st.plan, &done, now);
        Ok(done)
    }

    /// The next instant after `now` at which [`Kernel::schedule`] must be
    /// called even if nothing arrives or ends: the earliest reservation start
    /// or estimate expiry. `None` when nothing is pending.
    #[must_use]
    pub fn next_wakeup(&self) -> Option<Time> {
        let expiry = self.st.next_expiry();
        match (expiry, self.engine.next_wakeup(&self.st)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Selective: when an entry-queue job is promoted under the current
    /// threshold (`Time::MAX` for other policies).
    #[must_use]
    pub fn promotion_time(&self, job: &Job) -> Time {
        self.engine.promotion_time(job)
    }

    /// Selective with an adaptive threshold: the running average of
    /// completed jobs' bounded slowdowns it uses.
    #[must_use]
    pub fn slowdown_average(&self) -> &SlowdownAverage {
        self.engine.slowdown_average()
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
        self.st.advance(now)?;
        if let Some(late) = self.st.overdue(now) {
            return Err(KernelError::Overdue(late.job.id));
        }
        self.engine.pass(&mut self.st, observer)
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
        let now = now.max(self.st.now);
        scratch.reset(now);
        for r in &self.st.running {
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
        for queued in &self.st.queue {
            let slot = scratch
                .earliest(&self.st.cluster, &queued.job, floor)?
                .ok_or(KernelError::Unrunnable(queued.job.id))?;
            scratch.reserve(&queued.job, &slot)?;
            floor = slot.start;
        }
        scratch
            .earliest(&self.st.cluster, job, floor)?
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
        if let Some(tally) = self.st.tally() {
            let held = self.st.running.iter().map(|r| (r.slot.end(), r.job.procs));
            if !tally.agrees_with(held) {
                return Err(KernelError::Internal("tally disagrees with running jobs"));
            }
            self.validate_queue()?;
            return self.validate_first_end();
        }
        self.st
            .plan
            .validate()
            .map_err(|_| KernelError::Internal("profile invariant"))?;
        self.validate_queue()?;
        for (m, machine) in self.st.cluster.machines().iter().enumerate() {
            let Some(profile) = self.st.plan.machine(m) else {
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
        for (l, pool) in self.st.cluster.pools().iter().enumerate() {
            let Some(profile) = self.st.plan.license(l) else {
                return Err(KernelError::Internal("missing license profile"));
            };
            for step in profile.steps() {
                let held = self.held_at(step.at, |job, _| job.licenses.contains(l).then_some(1));
                if u64::from(step.free).saturating_add(held) != u64::from(pool.count) {
                    return Err(KernelError::Internal("license profile disagrees with jobs"));
                }
            }
        }
        self.validate_first_end()
    }

    /// The earliest end kept for `next_wakeup` is that of the running set.
    fn validate_first_end(&self) -> Result<(), KernelError> {
        if !self.st.first_end_agrees() {
            return Err(KernelError::Internal(
                "earliest running end disagrees with running jobs",
            ));
        }
        Ok(())
    }

    /// Reservations never lie after their guarantees; under Conservative
    /// every queued job has one.
    fn validate_queue(&self) -> Result<(), KernelError> {
        // The other policies reserve for one job at a time (the head, or
        // flexible backfilling's holder): a job that lost that place has
        // lost its reservation.
        let reserved = self.st.queue.iter().filter(|q| q.reservation().is_some());
        if !self.policy.keeps_reservations() && reserved.count() > 1 {
            return Err(KernelError::Internal(
                "more than one job holds the reservation",
            ));
        }
        for q in &self.st.queue {
            if let (Some(slot), Some(g)) = (q.reservation(), q.guarantee()) {
                // Only a late host breaks a guarantee (see `validate`).
                if slot.start > g && !self.st.replanned_late {
                    return Err(KernelError::Internal("reservation later than guarantee"));
                }
            }
            if self.policy.reserves_all() && q.reservation().is_none() {
                return Err(KernelError::Internal(
                    "conservative job without reservation",
                ));
            }
        }
        // Kept so that a pass with nothing due need not scan the queue.
        if !self.engine.earliest_agrees(&self.st.queue) {
            return Err(KernelError::Internal(
                "earliest reservation start disagrees with the queue",
            ));
        }
        Ok(())
    }

    /// Units held at `t` by running jobs and standing reservations, as
    /// counted by `units`.
    fn held_at(&self, t: Time, units: impl Fn(&Job, &Slot) -> Option<u32>) -> u64 {
        let covers = |s: &Slot| s.start <= t && t < s.end();
        let running = self
            .st
            .running
            .iter()
            .filter(|r| covers(&r.slot))
            .filter_map(|r| units(&r.job, &r.slot));
        let reserved = self
            .st
            .queue
            .iter()
            .filter(|_| self.policy.keeps_reservations())
            .filter_map(|q| q.reservation().map(|s| (q.job, s)))
            .filter(|(_, s)| covers(s))
            .filter_map(|(j, s)| units(&j, &s));
        running.chain(reserved).map(u64::from).sum()
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod queue_limit {
    use super::*;
    use crate::types::Cluster;

    /// A lowered limit refuses the next job as a full queue of that size
    /// would, after the checks that come first (a duplicate is a duplicate);
    /// jobs leaving make room again; the limit never exceeds `Q`, and
    /// `reset` restores `Q`.
    #[test]
    fn a_lowered_limit_refuses_like_a_full_queue() {
        let cluster = Cluster::single(4).unwrap();
        let mut k: Kernel<8, 8, 32> = Kernel::new(cluster.clone(), Policy::Conservative);
        assert_eq!(k.queue_limit(), 8);
        assert_eq!(k.set_queue_limit(2), 2);
        k.submit(0, Job::new(1, 0, 4, 100), &mut ()).unwrap();
        k.submit(0, Job::new(2, 0, 4, 100), &mut ()).unwrap();
        assert_eq!(
            k.submit(0, Job::new(3, 0, 4, 100), &mut ()),
            Err(KernelError::QueueFull(3))
        );
        assert_eq!(
            k.submit(0, Job::new(2, 0, 4, 100), &mut ()),
            Err(KernelError::DuplicateJob(2))
        );
        assert_eq!(k.queued().len(), 2);
        k.validate().unwrap();
        // Job 1 starts: room for one more.
        k.schedule(0, &mut ()).unwrap();
        k.submit(0, Job::new(3, 0, 4, 100), &mut ()).unwrap();
        // Below the queue's length: nothing leaves, nothing new enters.
        assert_eq!(k.set_queue_limit(0), 0);
        assert_eq!(k.queued().len(), 2);
        assert_eq!(
            k.submit(0, Job::new(4, 0, 1, 10), &mut ()),
            Err(KernelError::QueueFull(4))
        );
        assert_eq!(k.set_queue_limit(1000), 8);
        k.submit(0, Job::new(4, 0, 1, 10), &mut ()).unwrap();
        k.set_queue_limit(1);
        k.reset(cluster, Policy::Easy);
        assert_eq!(k.queue_limit(), 8);
        k.validate().unwrap();
    }
}
