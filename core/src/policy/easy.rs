//! EASY (aggressive) backfilling, and SJF-EASY.
//!
//! Rules (`docs/design.md`, "EASY" and "SJF-EASY"):
//!
//! * start from the head while jobs fit now;
//! * the first job that does not fit (the head) gets a reservation at its
//!   *shadow time*: the earliest time enough processors free up, with
//!   running jobs held until their estimated ends;
//! * any later job may start now if it fits and either ends by the shadow
//!   time (`<=`) or uses only processors the head leaves spare.
//!
//! Stated on the profile, which is how it is computed on a farm or with
//! licenses: the head's reservation is put into the plan for the duration of
//! the pass, and a later job starts now exactly when it fits that plan over
//! `[now, now + estimate)` (intervals are half-open). On one machine without
//! licenses the kernel keeps a tally instead of a plan and the pass uses the
//! classic counts (free processors, shadow time, spare processors: see
//! `Easy::pass_by_count`), which give the same answers; a property test
//! holds the two against each other. The head's reservation
//! is a guarantee: it starts no later than its first shadow time, unless a
//! job that sorts ahead of it arrives late (a backdated submit time) and
//! takes the head, which voids it.
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): the head is short
//! of processors, with its shadow time as expected start; a later job that
//! fits now but not beside the head's reservation would delay it; one that
//! does not fit now is short of processors. Starts: the head phase in
//! order, the rest backfilled.
//!
//! SJF-EASY orders the queue by estimate, shortest first (ties: submit, id).
//! Its head can be overtaken by a shorter arrival, so it guarantees nothing
//! and is not starvation-free.
//!
//! Sources: D. Lifka, *The ANL/IBM SP scheduling system*, JSSPP 1995;
//! A. W. Mu'alem and D. G. Feitelson, IEEE TPDS 12(6), 2001; SJF-EASY as in
//! S. Srinivasan, R. Kettimuthu, V. Subramani and P. Sadayappan, *Selective
//! reservation strategies for backfill job scheduling*, JSSPP 2002.

use super::Rules;
use crate::plan::{Plan, Slot};
use crate::state::{KernelError, Observer, Pass, QueuedJob, State};
use crate::types::{Cluster, Job, JobId, Time};
use heapless::Vec;

/// EASY's memory between calls.
#[derive(Clone, Debug)]
pub(crate) struct Easy {
    /// SJF-EASY: the queue is ordered by estimate.
    pub(crate) shortest_first: bool,
    /// The job that holds the head reservation (SJF-EASY can replace it).
    /// Kept whole so that it is found in the sorted queue by its key.
    reserved_head: Option<Job>,
    /// After a pass with a tally: the head it reserved for, the tally's
    /// release count then, and the latest time at which every job looked
    /// at since the last full scan still has an end that a `Time` can hold.
    /// While the first two are unchanged and the clock is not past the
    /// third, every job it looked at and left would be left again (see
    /// `Easy::pass_by_count`).
    scanned: Option<(JobId, u64, Time)>,
    /// The lowest queue position a job was queued at since the last pass:
    /// jobs before it were all looked at then.
    first_new: usize,
}

impl Easy {
    /// EASY (`shortest_first == false`) or SJF-EASY.
    pub(crate) const fn new(shortest_first: bool) -> Self {
        Self {
            shortest_first,
            reserved_head: None,
            scanned: None,
            first_new: 0,
        }
    }

    /// The job that holds the head reservation, as the last pass left it
    /// (what a checkpoint keeps of EASY: the rest is a cache).
    pub(crate) const fn reserved_head(&self) -> Option<Job> {
        self.reserved_head
    }

    /// A restored EASY: `reserved_head` holds the head reservation, and the
    /// next pass looks at every job (the cache of what the last pass looked
    /// at is not kept).
    pub(crate) fn restore(&mut self, reserved_head: Option<Job>) {
        self.reserved_head = reserved_head;
        self.scanned = None;
        self.first_new = 0;
    }

    /// Where the job holding the head reservation is in the queue, if it is
    /// still queued. The queue is sorted by the key [`State::position`]
    /// inserts by, which ends with the unique id, so the job is just before
    /// the position its key would be inserted at, or nowhere: a binary
    /// search, where a walk over the queue would look at every job each
    /// time the head starts.
    fn reserved_index<
        const Q: usize,
        const R: usize,
        const B: usize,
        const M: usize,
        const L: usize,
    >(
        &self,
        st: &State<Q, R, B, M, L>,
    ) -> Option<usize> {
        let old = self.reserved_head?;
        let index = st.position(&old, self.shortest_first).checked_sub(1)?;
        st.queue
            .get(index)
            .is_some_and(|q| q.job == old)
            .then_some(index)
    }

    /// Gives the queue head (which does not fit now) its reservation at its
    /// shadow time and puts it into the plan, where it stays until the caller
    /// releases it at the end of the pass; reports a new or moved reservation
    /// to `observer`. Returns the head and its slot, or `None` when the queue
    /// is empty. DPSA's first phase too.
    pub(super) fn reserve_head<
        const Q: usize,
        const R: usize,
        const B: usize,
        const M: usize,
        const L: usize,
    >(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Option<(Job, Slot)>, KernelError> {
        let now = st.now;
        let Some(head) = st.queue.first().copied() else {
            return Ok(None);
        };
        let shadow = st
            .plan
            .earliest(&st.cluster, &head.job, now)?
            .ok_or(KernelError::Unrunnable(head.job.id))?;
        self.note_head(st, observer, &head, shadow);
        st.plan.reserve(&head.job, &shadow)?;
        Ok(Some((head.job, shadow)))
    }

    /// Records that queue head `head` has its reservation at `shadow` (it
    /// took the head over from another job, or it moved, or it is new) and
    /// reports a new or moved one to `observer`.
    fn note_head<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
        head: &QueuedJob,
        shadow: Slot,
    ) {
        if self.reserved_head.map(|j| j.id) != Some(head.job.id) {
            // A shorter job overtook the old head (SJF-EASY): it loses its reservation.
            if let Some(index) = self.reserved_index(st) {
                if let Some(entry) = st.queue.get_mut(index) {
                    entry.set_reservation(None);
                }
            }
        }
        // Always the job itself: a host may reuse the id of a job that has
        // left, and the old one's queue key would no longer find it.
        self.reserved_head = Some(head.job);
        if head.reservation() != Some(shadow) {
            observer.reserved(&head.job, shadow);
        }
        let guaranteed = !self.shortest_first;
        if let Some(entry) = st.queue.first_mut() {
            entry.set_reservation(Some(shadow));
            if entry.guarantee().is_none() && guaranteed {
                entry.set_guarantee(Some(shadow.start));
            }
        }
    }

    /// EASY's pass with a tally (one machine, no licenses), the classic
    /// formulation of the same rules: the head's shadow time is the first
    /// estimated end by which enough processors are free, the spare ones
    /// are those it leaves then, and a later job of `p` processors and
    /// duration `d` starts now exactly when `p` are free and it either ends
    /// by the shadow time or `p` are spare. That is the plan's answer:
    /// before the shadow time the free count only grows, so a window ending
    /// by it fits when its first instant does; from the shadow time on, the
    /// least free is at the shadow time itself.
    ///
    /// A pass with the same head as the last one and no completion since
    /// looks only at the jobs queued since: the others were all looked at
    /// then and left, and would be left again. Nothing ended, so the free
    /// count is what the last pass left; the shadow time is the same (the
    /// jobs it started either end by it or use spare processors) and the
    /// spare count is what it left; a job left because it was too wide is
    /// still too wide, and one left because it ended past the shadow time
    /// on more than the spare processors ends later now. Once the clock
    /// passes the latest time at which all of them have a representable end,
    /// the pass looks at every job again, so that one whose end no longer
    /// fits in a `Time` is the [`KernelError::TimeOverflow`] it is to the plan.
    fn pass_by_count<
        const Q: usize,
        const R: usize,
        const B: usize,
        const M: usize,
        const L: usize,
    >(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        let now = st.now;
        let mut pass = Pass::default();
        let last = self.scanned.take();
        st.start_from_head(observer, &mut pass)?;
        let Some(head) = st.queue.first().copied() else {
            self.first_new = 0;
            return Ok(pass);
        };
        let tally = st.tally().ok_or(KernelError::Internal("no tally"))?;
        let machine = tally.machine();
        let unrunnable = KernelError::Unrunnable(head.job.id);
        let duration = machine.scale(head.job.estimate).ok_or(unrunnable)?;
        let (at, mut spare) = tally.shadow(head.job.procs).ok_or(unrunnable)?;
        at.checked_add(duration).ok_or(KernelError::TimeOverflow)?;
        let mut free = tally.free();
        let shadow = Slot {
            start: at,
            machine: 0,
            duration,
        };
        let releases = tally.releases();
        self.note_head(st, observer, &head, shadow);
        let (mut index, mut slack) = match last {
            Some((id, count, slack)) if id == head.job.id && count == releases && now <= slack => {
                (self.first_new.max(1), slack)
            }
            _ => (1, Time::MAX),
        };
        while free > 0 {
            // Read in place: a copy of each 48-byte entry, made before its
            // width is tested, was most of the scan's time.
            let Some(entry) = st.queue.get(index) else {
                break;
            };
            let procs = entry.job.procs;
            if procs > free {
                index = index.saturating_add(1);
                continue;
            }
            let Some(duration) = machine.scale(entry.job.estimate) else {
                index = index.saturating_add(1);
                continue;
            };
            let end = now.checked_add(duration).ok_or(KernelError::TimeOverflow)?;
            slack = slack.min(Time::MAX.saturating_sub(duration));
            let past_shadow = end > at;
            if past_shadow && procs > spare {
                index = index.saturating_add(1);
                continue;
            }
            let slot = Slot {
                start: now,
                machine: 0,
                duration,
            };
            let job = entry.job;
            st.reserve_and_start(index, &job, slot, observer)?;
            pass.started = pass.started.saturating_add(1);
            free = free.saturating_sub(procs);
            if past_shadow {
                spare = spare.saturating_sub(procs);
            }
        }
        self.scanned = Some((head.job.id, releases, slack));
        self.first_new = st.queue.len();
        Ok(pass)
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Rules<State<Q, R, B, M, L>> for Easy
{
    /// A job was queued at position `at`. One that sorts ahead of the
    /// reserved head (it arrives late with an earlier submit time) takes the
    /// head: the old head's reservation, and the promise that came with it,
    /// are void.
    fn queued(&mut self, st: &mut State<Q, R, B, M, L>, at: usize) {
        self.first_new = self.first_new.min(at);
        if let Some(index) = self.reserved_index(st).filter(|&i| i > at) {
            if let Some(entry) = st.queue.get_mut(index) {
                entry.set_reservation(None);
                entry.set_guarantee(None);
                self.reserved_head = None;
            }
        }
    }

    /// One EASY pass: start from the head while jobs fit; then the head gets
    /// a reservation at its shadow time, held in the plan while the rest of
    /// the queue is scanned: a later job starts now if it fits the plan over
    /// `[now, now + estimate)`.
    fn pass(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        if st.tally().is_some() {
            return self.pass_by_count(st, observer);
        }
        let now = st.now;
        let mut pass = Pass::default();
        st.start_from_head(observer, &mut pass)?;
        let Some((head, shadow)) = self.reserve_head(st, observer)? else {
            return Ok(pass);
        };
        let result = st.backfill_behind_head(observer, &mut pass, 1);
        // The head's reservation lives only during the pass.
        st.plan.release_from(&head, &shadow, now)?;
        result.map(|()| pass)
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    State<Q, R, B, M, L>
{
    /// Starts, in queue order from queue position `from` on (1: right behind
    /// the head), every job that fits the plan now (the head's reservation is in
    /// the plan). DPSA and flexible backfilling use it too.
    pub(crate) fn backfill_behind_head(
        &mut self,
        observer: &mut impl Observer,
        pass: &mut Pass,
        from: usize,
    ) -> Result<(), KernelError> {
        let now = self.now;
        // Processors free now on the best machine: a job wider than that
        // cannot start, which settles most of a deep queue without a probe.
        let mut most_free = self.plan.most_free_now(now);
        let mut stairs = Stairs::build(&self.cluster, &self.plan);
        let mut index = from;
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
                    self.reserve_and_start(index, &entry.job, slot, observer)?;
                    pass.started = pass.started.saturating_add(1);
                    most_free = self.plan.most_free_now(now);
                    stairs = Stairs::build(&self.cluster, &self.plan);
                }
                None => index = index.saturating_add(1),
            }
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fixtures::job;

    /// The stairs hold at most 64 steps; past them they say nothing and
    /// the plan answers. 100 processors; job `i` (1 processor) is reserved
    /// from `i + 1` for 1000 s, `i` < 70: free falls by one a second from
    /// 100 at 0 to 30 at 70. The stairs keep 100 down to 37 (at 63).
    #[test]
    fn stairs_past_their_capacity_leave_the_answer_to_the_plan() {
        let cluster = Cluster::<1, 0>::single(100).unwrap();
        let mut plan: Plan<256, 1, 0> = Plan::new(&cluster);
        for i in 0..70 {
            let slot = Slot {
                start: i + 1,
                machine: 0,
                duration: 1000,
            };
            plan.reserve(&job(i + 1).procs(1).estimate(1000).job(), &slot)
                .unwrap();
        }
        let stairs = Stairs::build(&cluster, &plan).unwrap();
        assert!(!stairs.complete);
        assert_eq!(stairs.steps.len(), 64);
        let fit = |procs, estimate| {
            let job = job(100).procs(procs).estimate(estimate).job();
            (
                stairs.fit_now(&cluster, &job, 0),
                plan.fit_now(&cluster, &job, 0).unwrap(),
            )
        };
        let now = |duration| Slot {
            start: 0,
            machine: 0,
            duration,
        };
        // 38 wide: free drops below 38 at 63.
        assert_eq!(fit(38, 63), (Some(Some(now(63))), Some(now(63))));
        assert_eq!(fit(38, 64), (Some(None), None));
        // 35 wide: below 35 only at 66, past the stairs: the plan decides.
        assert_eq!(fit(35, 66), (None, Some(now(66))));
        assert_eq!(fit(35, 67), (None, None));
    }
}
