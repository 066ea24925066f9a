//! CONS+RS: Conservative backfilling with random-search gap filling.
//!
//! Rules (`docs/design.md`, "Policies", "CONS+RS"):
//!
//! * Conservative, with its compression pass after every completion instant;
//! * then, at every instant with an *early* completion (a gap appears in the
//!   plan), a bounded random search over the plan. One iteration:
//!   1. pick a queued job `J` uniformly (seeded PRNG, advanced only by the
//!      search) among those whose reservation starts after now;
//!   2. take the earliest instant of the plan without `J`, at or after now
//!      and before `J`'s reservation, at which at least `J`'s processors (and
//!      one copy of each license it needs) are free: a *gap*;
//!   3. place `J` there; every other queued job whose reservation now
//!      overflows capacity is *displaced* and re-placed, in queue order, at
//!      its earliest feasible start (possibly later than before);
//!   4. keep the move only if (a) no job would start later than its
//!      *guarantee* (the reservation it got at arrival: Conservative's
//!      promise survives) and (b) the plan's objective improves strictly;
//!      otherwise undo it.
//! * stop after `N` iterations (default 4 x queue length) or when the
//!   host's budget says so ([`Observer::keep_searching`]: a firmware host
//!   checks its 50 ms timer there; the replayer uses iterations only, so
//!   results are reproducible).
//!
//! Source: D. Klusáček et al., *Conservative backfilling with random-search
//! gap filling* (extended abstract), read as `docs/design.md` states under
//! "CONS+RS" and "Choices where the papers are vague".
//!
//! # Readings, where the paper is silent
//!
//! * **Which jobs are displaced.** Placing `J` at the gap `[g, g + d)` can
//!   only overflow capacity inside that window, on `J`'s machine or in a
//!   license pool `J` uses. Every other queued job whose reservation
//!   overlaps the window there is taken out; `J` is put in (it fits: what is
//!   left there is running jobs only, whose use only falls over time, and
//!   at `g` there was room for `J` even with those jobs in); then the jobs
//!   taken out are put back in queue order at their old reservation where
//!   it still fits. Those for which it does not are the displaced ones.
//! * **Objective.** Over the queued jobs' predicted starts (their
//!   reservations): `W` the sum of predicted waits (`start - submit`), `S`
//!   the sum of predicted bounded slowdowns (`(wait + max(d, 10)) /
//!   max(d, 10)`, `d` the reserved duration, in millionths rounded down).
//!   A move is kept when `(W - W') / W + (S - S') / S > 0`, computed exactly
//!   in integers as `(W - W') * S + (S - S') * W > 0` (both sums are over the
//!   same jobs, so means and sums give the same relative changes). With
//!   `W = 0` no move can improve the wait and none is kept.
//! * **Bounded work per iteration.** At most [`MAX_TOUCHED`] queued jobs may
//!   overlap the gap's window; an iteration that would touch more is
//!   skipped (counted in [`Counters::rs_too_crowded`](crate::Counters::rs_too_crowded)).
//! * Intervals vacated by an accepted move are handed to the compression
//!   bookkeeping, so the next pass (at the next completion instant) can use
//!   them and its pruning stays exact.

use super::conservative::{pass_reserved, reserve_on_arrival, Conservative};
use crate::plan::Slot;
use crate::rng::SplitMix64;
use crate::state::{KernelError, Observer, Pass, QueuedJob, RunningJob, State};
use crate::types::{Job, Time, SLOWDOWN_BOUND};

mod saved;
use heapless::Vec;

/// The most queued jobs one iteration may take out and put back.
pub const MAX_TOUCHED: usize = 64;

/// How many iterations one search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Iterations {
    /// This many per queued job at the start of the search (the paper's
    /// simulator: 4).
    PerQueuedJob(u32),
    /// This many, whatever the queue.
    Fixed(u32),
}

/// CONS+RS's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RandomSearch {
    /// The PRNG's seed.
    pub seed: u64,
    /// The iteration budget of one search.
    pub iterations: Iterations,
}

impl RandomSearch {
    /// Seed 0, 4 iterations per queued job.
    pub const DEFAULT: Self = Self {
        seed: 0,
        iterations: Iterations::PerQueuedJob(4),
    };
}

impl Default for RandomSearch {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// CONS+RS's memory between calls.
#[derive(Clone, Debug)]
pub(crate) struct ConsRs {
    pub(crate) cons: Conservative,
    rng: SplitMix64,
    iterations: Iterations,
    /// An early completion happened since the last search.
    early: bool,
}

impl ConsRs {
    /// Tests: the compression bookkeeping.
    #[cfg(test)]
    pub(crate) fn compression_mut(&mut self) -> &mut super::conservative::Compression {
        &mut self.cons.compression
    }

    /// CONS+RS with `params`.
    pub(crate) fn new(params: RandomSearch) -> Self {
        Self {
            cons: Conservative::default(),
            rng: SplitMix64::new(params.seed),
            iterations: params.iterations,
            early: false,
        }
    }

    /// `done` completed at `now`: a compression pass is due, and a search
    /// if it ended before its estimate.
    pub(crate) fn completed<const B: usize, const M: usize, const L: usize>(
        &mut self,
        plan: &crate::plan::Plan<B, M, L>,
        done: &RunningJob,
        now: Time,
    ) {
        if done.slot.end() > now {
            self.early = true;
        }
        self.cons.completed(plan, &done.slot, now);
    }

    /// Compression, then the random search if an early completion is new.
    fn settle<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        self.cons.compression.settle(st, observer)?;
        if self.early {
            self.early = false;
            self.search(st, observer)?;
        }
        Ok(())
    }

    /// Settles the plan and reserves the arriving `job` at its earliest fit.
    pub(crate) fn arrival<
        const Q: usize,
        const R: usize,
        const B: usize,
        const M: usize,
        const L: usize,
    >(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        job: &Job,
        observer: &mut impl Observer,
    ) -> Result<Option<Slot>, KernelError> {
        self.settle(st, observer)?;
        reserve_on_arrival(st, job, observer).map(Some)
    }

    /// One scheduling pass: settle, then start every job whose reservation
    /// has come.
    pub(crate) fn pass<
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
        self.settle(st, observer)?;
        pass_reserved(&mut self.cons.compression, st, observer)
    }

    /// The random search.
    fn search<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        let queued = u64::try_from(st.queue.len()).unwrap_or(u64::MAX);
        let budget = match self.iterations {
            Iterations::PerQueuedJob(k) => queued.saturating_mul(u64::from(k)),
            Iterations::Fixed(n) => u64::from(n),
        };
        if budget == 0 || queued == 0 {
            return Ok(());
        }
        st.counters.rs_searches = st.counters.rs_searches.saturating_add(1);
        let mut sums = Objective::of(&st.queue);
        for _ in 0..budget {
            if !observer.keep_searching() {
                break;
            }
            let now = st.now;
            let movable = |q: &QueuedJob| q.reservation().is_some_and(|r| r.start > now);
            let eligible = st.queue.iter().filter(|q| movable(q)).count();
            if eligible == 0 {
                break;
            }
            st.counters.rs_iterations = st.counters.rs_iterations.saturating_add(1);
            let pick = self.rng.below(u64::try_from(eligible).unwrap_or(u64::MAX));
            let pick = usize::try_from(pick).unwrap_or(0);
            let Some(index) = st
                .queue
                .iter()
                .enumerate()
                .filter(|(_, q)| movable(q))
                .nth(pick)
                .map(|(i, _)| i)
            else {
                break;
            };
            self.iteration(st, index, &mut sums, observer)?;
        }
        Ok(())
    }

    /// One iteration on queue entry `index`.
    fn iteration<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        index: usize,
        sums: &mut Objective,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        let now = st.now;
        let Some(entry) = st.queue.get(index).copied() else {
            return Err(KernelError::Internal("random search: no such queue entry"));
        };
        let Some(old) = entry.reservation() else {
            return Err(KernelError::Internal(
                "random search: job without reservation",
            ));
        };
        let job = entry.job;
        // J's own reservation begins at `old.start`, so it does not change
        // the free units at any instant the gap search looks at: the search
        // runs with J still in the plan, and a miss costs no plan update.
        let gap = match find_gap(st, &job, old.start) {
            Ok(Some(gap)) => gap,
            other => {
                st.counters.rs_no_gap = st.counters.rs_no_gap.saturating_add(1);
                return other.map(|_| ());
            }
        };
        // The other queued jobs that may collide with J in its new window.
        let mut moves = Moves::default();
        let mut crowded = false;
        for (i, q) in st.queue.iter().enumerate() {
            let Some(slot) = q.reservation() else {
                continue;
            };
            let shares = slot.machine == gap.machine || q.job.licenses.0 & job.licenses.0 != 0;
            let overlaps = slot.start < gap.end() && gap.start < slot.end();
            if i == index || !shares || !overlaps {
                continue;
            }
            if slot.start < now || moves.touched.push((i, slot, Place::In)).is_err() {
                crowded = true; // a missed reservation, or too many to handle
                break;
            }
        }
        if crowded {
            st.counters.rs_too_crowded = st.counters.rs_too_crowded.saturating_add(1);
            return Ok(());
        }
        st.plan.release_from(&job, &old, now)?;
        // Outside J's new window every touched job still fits where it is
        // (there the plan only lost J's old reservation), so only the part
        // of each inside the window is taken out.
        for (i, slot, place) in &mut moves.touched {
            let other = queued_job(st, *i)?;
            st.plan.release_from(&other, &inside(slot, &gap), now)?;
            *place = Place::Partly;
        }
        let outcome = self.place(st, &job, gap, &mut moves);
        let accepted = match outcome {
            Ok(true) => {
                let (wait_gain, slowdown_gain) = gains(st, &job, &old, &gap, &moves)?;
                let improves = sums.improved_by(wait_gain, slowdown_gain);
                if !improves {
                    st.counters.rs_rejected_objective =
                        st.counters.rs_rejected_objective.saturating_add(1);
                }
                if improves {
                    sums.apply(wait_gain, slowdown_gain);
                }
                improves
            }
            Ok(false) => {
                st.counters.rs_rejected_guarantee =
                    st.counters.rs_rejected_guarantee.saturating_add(1);
                false
            }
            Err(e) => {
                undo(st, &job, &old, gap, &moves)?;
                return Err(e);
            }
        };
        if !accepted {
            return undo(st, &job, &old, gap, &moves);
        }
        st.counters.rs_accepted = st.counters.rs_accepted.saturating_add(1);
        self.commit(st, index, &job, &old, gap, &moves, observer)
    }

    /// Puts `job` at `gap` and the touched jobs back (at their old slot
    /// where it fits, else, in queue order, at their earliest start),
    /// recording where each is in `moves`. `Ok(false)`: a displaced job
    /// would start after its guarantee (nothing is undone here).
    fn place<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &self,
        st: &mut State<Q, R, B, M, L>,
        job: &Job,
        gap: Slot,
        moves: &mut Moves,
    ) -> Result<bool, KernelError> {
        st.plan.reserve(job, &gap)?;
        moves.job_placed = true;
        for (i, slot, place) in &mut moves.touched {
            let other = queued_job(st, *i)?;
            if st.plan.reserve(&other, &inside(slot, &gap)).is_ok() {
                *place = Place::In;
            }
        }
        // The displaced ones leave the plan altogether before any is
        // re-placed.
        for (i, slot, place) in &mut moves.touched {
            if *place == Place::Partly {
                let other = queued_job(st, *i)?;
                release_outside(st, &other, slot, &gap)?;
                *place = Place::Out;
            }
        }
        for (i, _, place) in &mut moves.touched {
            if *place != Place::Out {
                continue;
            }
            let Some(q) = st.queue.get(*i).copied() else {
                return Err(KernelError::Internal("random search: no such queue entry"));
            };
            let slot = match q.guarantee() {
                // Only a start at or before the guarantee can be kept: look
                // no further, and stop at the first job that cannot have one
                // (the move is rejected; `undo` puts back the jobs still out).
                Some(g) => {
                    let limit = g.saturating_add(1);
                    match st.plan.earliest_before(
                        &st.cluster,
                        &q.job,
                        &Slot::NOTHING,
                        st.now,
                        limit,
                    )? {
                        Some(slot) => slot,
                        None => return Ok(false),
                    }
                }
                None => st
                    .plan
                    .earliest(&st.cluster, &q.job, st.now)?
                    .ok_or(KernelError::Unrunnable(q.job.id))?,
            };
            st.plan.reserve(&q.job, &slot)?;
            *place = Place::Moved(slot);
        }
        Ok(true)
    }

    /// Makes an accepted move the plan: new reservations in the queue,
    /// reported to `observer`, and the vacated intervals handed to the
    /// compression bookkeeping.
    #[allow(clippy::too_many_arguments)]
    fn commit<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        index: usize,
        job: &Job,
        old: &Slot,
        gap: Slot,
        moves: &Moves,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        let now = st.now;
        if let Some(e) = st.queue.get_mut(index) {
            e.set_reservation(Some(gap));
        }
        observer.reserved(job, gap);
        self.cons.compression.vacated(&st.plan, old, now);
        for &(i, was, place) in &moves.touched {
            let Place::Moved(new) = place else {
                continue;
            };
            let Some(e) = st.queue.get_mut(i) else {
                return Err(KernelError::Internal("random search: no such queue entry"));
            };
            e.set_reservation(Some(new));
            let moved_job = e.job;
            if new != was {
                observer.reserved(&moved_job, new);
                self.cons.compression.vacated(&st.plan, &was, now);
            }
        }
        Ok(())
    }
}

/// Where a touched job is in the plan during an iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// At its old slot, all of it.
    In,
    /// At its old slot except the part inside the gap's window.
    Partly,
    /// Taken out.
    Out,
    /// Displaced and re-placed here.
    Moved(Slot),
}

/// The part of `slot` inside `window`'s time span (empty when they do not
/// overlap), on `slot`'s machine.
fn inside(slot: &Slot, window: &Slot) -> Slot {
    let start = slot.start.max(window.start);
    let end = slot.end().min(window.end());
    Slot {
        start,
        machine: slot.machine,
        duration: end.saturating_sub(start),
    }
}

/// Gives back `job`'s resources over the parts of `slot` before and after
/// `window` (the part inside is already out).
fn release_outside<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize,
    const L: usize,
>(
    st: &mut State<Q, R, B, M, L>,
    job: &Job,
    slot: &Slot,
    window: &Slot,
) -> Result<(), KernelError> {
    let part = inside(slot, window);
    let before = Slot {
        start: slot.start,
        machine: slot.machine,
        duration: part.start.saturating_sub(slot.start),
    };
    let after = Slot {
        start: part.end(),
        machine: slot.machine,
        duration: slot.end().saturating_sub(part.end()),
    };
    for piece in [before, after] {
        if piece.duration > 0 {
            st.plan.release_from(job, &piece, piece.start)?;
        }
    }
    Ok(())
}

/// What one iteration changed in the plan, so it can be undone.
#[derive(Debug, Default)]
struct Moves {
    /// `J` holds its gap slot in the plan.
    job_placed: bool,
    /// Queue index, old slot and whereabouts of each job taken out.
    touched: Vec<(usize, Slot, Place), MAX_TOUCHED>,
}

/// The job at queue index `i`.
fn queued_job<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &State<Q, R, B, M, L>,
    i: usize,
) -> Result<Job, KernelError> {
    st.queue
        .get(i)
        .map(|q| q.job)
        .ok_or(KernelError::Internal("random search: no such queue entry"))
}

/// Restores the plan as it was before the iteration: `job` back at `old`,
/// every touched job back at its old slot.
fn undo<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &mut State<Q, R, B, M, L>,
    job: &Job,
    old: &Slot,
    gap: Slot,
    moves: &Moves,
) -> Result<(), KernelError> {
    let now = st.now;
    if moves.job_placed {
        st.plan.release_from(job, &gap, now)?;
    }
    for &(i, _, place) in &moves.touched {
        if let Place::Moved(new) = place {
            let other = queued_job(st, i)?;
            st.plan.release_from(&other, &new, now)?;
        }
    }
    for &(i, was, place) in &moves.touched {
        let back = match place {
            Place::In => continue,
            Place::Partly => inside(&was, &gap),
            Place::Out | Place::Moved(_) => was,
        };
        let other = queued_job(st, i)?;
        st.plan.reserve(&other, &back)?;
    }
    st.plan.reserve(job, old)?;
    Ok(())
}

/// The earliest gap for `job`: the earliest instant at or after now and before `before` at which, on some eligible
/// machine, `job.procs` processors and a copy of each license it needs are
/// free. Ties go to the fastest machine ([`Cluster::order`](crate::Cluster::order)).
/// Whether `job`'s own reservation, from `before` on, is in the plan makes
/// no difference: no instant before `before` is looked at.
fn find_gap<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &State<Q, R, B, M, L>,
    job: &Job,
    before: Time,
) -> Result<Option<Slot>, KernelError> {
    let now = st.now;
    let mut best: Option<Slot> = None;
    for &machine in st.cluster.order() {
        let m = usize::from(machine);
        if !st.cluster.eligible(job, m) {
            continue;
        }
        let Some(duration) = st
            .cluster
            .machines()
            .get(m)
            .and_then(|x| x.scale(job.estimate))
        else {
            continue;
        };
        let Some(cpus) = st.plan.machine(m) else {
            continue;
        };
        let limit = best.map_or(before, |b| b.start.min(before));
        if job.licenses.0 == 0 {
            // Processors only: one walk along the machine's steps.
            let steps = cpus.steps();
            let first = steps.partition_point(|s| s.at <= now).saturating_sub(1);
            let found = steps
                .get(first..)
                .unwrap_or(&[])
                .iter()
                .map(|s| (s.at.max(now), s.free))
                .take_while(|&(t, _)| t < limit)
                .find(|&(_, free)| free >= job.procs);
            if let Some((t, _)) = found {
                if t.checked_add(duration).is_some() {
                    best = Some(Slot {
                        start: t,
                        machine,
                        duration,
                    });
                }
            }
            continue;
        }
        let mut t = now;
        while t < limit {
            let licenses_free = (0..st.cluster.pools().len())
                .filter(|&l| job.licenses.contains(l))
                .all(|l| st.plan.license(l).is_some_and(|p| p.free_at(t) >= 1));
            if cpus.free_at(t) >= job.procs && licenses_free {
                if t.checked_add(duration).is_some() {
                    best = Some(Slot {
                        start: t,
                        machine,
                        duration,
                    });
                }
                break;
            }
            // The next instant at which the machine or a license changes.
            let mut next = next_step(cpus.steps(), t);
            for l in 0..st.cluster.pools().len() {
                if job.licenses.contains(l) {
                    if let Some(p) = st.plan.license(l) {
                        next = next.min(next_step(p.steps(), t));
                    }
                }
            }
            t = next;
        }
    }
    Ok(best)
}

/// The first step time after `t` (`Time::MAX` when none).
fn next_step(steps: &[crate::profile::Step], t: Time) -> Time {
    let i = steps.partition_point(|s| s.at <= t);
    steps.get(i).map_or(Time::MAX, |s| s.at)
}

/// A job's predicted bounded slowdown in millionths if it starts at
/// `slot.start`.
fn slowdown(job: &Job, slot: &Slot) -> i128 {
    let run = i128::from(slot.duration.max(SLOWDOWN_BOUND));
    let wait = i128::from(slot.start.saturating_sub(job.submit));
    wait.saturating_add(run)
        .saturating_mul(1_000_000)
        .checked_div(run)
        .unwrap_or(1_000_000)
}

/// A job's predicted wait if it starts at `slot.start`.
fn wait(job: &Job, slot: &Slot) -> i128 {
    i128::from(slot.start.saturating_sub(job.submit))
}

/// The decrease of the summed predicted wait and slowdown (positive is
/// better) that the move of `job` from `old` to `gap` and the displaced
/// jobs' moves bring.
fn gains<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &State<Q, R, B, M, L>,
    job: &Job,
    old: &Slot,
    gap: &Slot,
    moves: &Moves,
) -> Result<(i128, i128), KernelError> {
    let mut w = wait(job, old).saturating_sub(wait(job, gap));
    let mut s = slowdown(job, old).saturating_sub(slowdown(job, gap));
    for &(i, was, place) in &moves.touched {
        let Place::Moved(new) = place else {
            continue;
        };
        let other = queued_job(st, i)?;
        w = w.saturating_add(wait(&other, &was).saturating_sub(wait(&other, &new)));
        s = s.saturating_add(slowdown(&other, &was).saturating_sub(slowdown(&other, &new)));
    }
    Ok((w, s))
}

/// The plan's objective: summed predicted wait and bounded slowdown
/// (millionths) of the queued jobs.
#[derive(Clone, Copy, Debug)]
struct Objective {
    wait: i128,
    slowdown: i128,
}

impl Objective {
    fn of(queue: &[QueuedJob]) -> Self {
        let mut sums = Self {
            wait: 0,
            slowdown: 0,
        };
        for q in queue {
            if let Some(slot) = q.reservation() {
                sums.wait = sums.wait.saturating_add(wait(&q.job, &slot));
                sums.slowdown = sums.slowdown.saturating_add(slowdown(&q.job, &slot));
            }
        }
        sums
    }

    /// Whether `(W - W') / W + (S - S') / S > 0`, i.e.
    /// `gain_w * S + gain_s * W > 0` (`W = 0`: never).
    fn improved_by(&self, wait_gain: i128, slowdown_gain: i128) -> bool {
        if self.wait <= 0 || self.slowdown <= 0 {
            return false;
        }
        wait_gain
            .saturating_mul(self.slowdown)
            .saturating_add(slowdown_gain.saturating_mul(self.wait))
            > 0
    }

    fn apply(&mut self, wait_gain: i128, slowdown_gain: i128) {
        self.wait = self.wait.saturating_sub(wait_gain);
        self.slowdown = self.slowdown.saturating_sub(slowdown_gain);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fixtures::job;

    fn queued(id: u32, submit: Time, estimate: u32, start: Time) -> QueuedJob {
        let job = job(id).submit(submit).procs(1).estimate(estimate).job();
        let mut q = QueuedJob::new(job);
        q.set_reservation(Some(Slot {
            start,
            machine: 0,
            duration: estimate,
        }));
        q.set_guarantee(Some(start));
        q
    }

    /// The sums after [`Objective::apply`] are the sums of the moved plan:
    /// the search's running objective never drifts from the queue.
    #[test]
    fn the_objective_follows_the_moves_it_applies() {
        let before = [
            queued(1, 0, 20, 30),
            queued(2, 5, 100, 40),
            queued(3, 7, 4, 50),
        ];
        let mut after = before;
        let mut sums = Objective::of(&before);
        assert_eq!(sums.wait, 30 + 35 + 43);
        // (30 + 20) / 20 + (35 + 100) / 100 + (43 + 10) / 10, in millionths.
        assert_eq!(sums.slowdown, 2_500_000 + 1_350_000 + 5_300_000);
        // Job 1 moves to 10, job 3 is displaced to 64.
        for (q, start) in [(0, 10), (2, 64)] {
            after[q].set_reservation(Some(Slot {
                start,
                ..after[q].reservation().unwrap()
            }));
        }
        let (mut w, mut s) = (0, 0);
        for (b, a) in before.iter().zip(&after) {
            let (old, new) = (b.reservation().unwrap(), a.reservation().unwrap());
            w += wait(&b.job, &old) - wait(&a.job, &new);
            s += slowdown(&b.job, &old) - slowdown(&a.job, &new);
        }
        assert_eq!((w, s), (20 - 14, 1_000_000 - 1_400_000));
        sums.apply(w, s);
        let expected = Objective::of(&after);
        assert_eq!(
            (sums.wait, sums.slowdown),
            (expected.wait, expected.slowdown)
        );
    }

    /// `(W - W') / W + (S - S') / S > 0`, on the two hand-checked moves of
    /// `kernel::tests` (`cons_rs_undoes_a_move_whose_slowdown_cost_...` and
    /// `cons_rs_keeps_a_move_whose_wait_gain_...`), and the edge cases.
    #[test]
    fn a_move_improves_when_the_relative_changes_sum_above_zero() {
        let sums = |wait, slowdown| Objective { wait, slowdown };
        // 7 / 168 = 4.2% of wait saved, 0.7 / 13.43 = 5.2% of slowdown lost.
        assert!(!sums(168, 13_433_333).improved_by(7, -700_000));
        // 7 / 35 = 20% saved, 0.65 / 4.15 = 15.7% lost.
        assert!(sums(35, 4_150_000).improved_by(7, -650_000));
        // Exactly balanced, or no change: not strictly better.
        assert!(!sums(100, 2_000_000).improved_by(10, -200_000));
        assert!(!sums(100, 2_000_000).improved_by(0, 0));
        assert!(sums(100, 2_000_000).improved_by(0, 1));
        assert!(sums(100, 2_000_000).improved_by(1, 0));
        // Nobody waits: nothing can improve.
        assert!(!sums(0, 3_000_000).improved_by(5, 500_000));
    }

    /// The gap search walks the processor and license steps to the first
    /// instant where both are free, stops before `before`, and on a tie
    /// between machines keeps the faster one. m0 (2 cpus, speed 2) and m1
    /// (2 cpus, speed 1) are busy until 30; the one license copy is held
    /// until 50 by a job on m2 (1 cpu).
    #[test]
    fn the_gap_is_the_first_instant_with_processors_and_licenses_free() {
        use crate::types::{LicensePool, LicenseSet, Machine, MachineSet};
        let machine = |cpus, speed| Machine { cpus, speed };
        let cluster: crate::Cluster<3, 1> = crate::Cluster::new(
            &[machine(2, 2000), machine(2, 1000), machine(1, 1000)],
            &[LicensePool {
                count: 1,
                machines: MachineSet::ALL,
            }],
        )
        .unwrap();
        let mut st: State<8, 8, 64, 3, 1> = State::new(cluster, false);
        let licensed = |id, procs, estimate| {
            job(id)
                .procs(procs)
                .estimate(estimate)
                .licenses(LicenseSet(1))
                .job()
        };
        let hold = |st: &mut State<8, 8, 64, 3, 1>, job: Job, machine, duration| {
            let slot = Slot {
                start: 0,
                machine,
                duration,
            };
            st.plan.reserve(&job, &slot).unwrap();
        };
        hold(&mut st, job(1).procs(2).estimate(30).job(), 0, 30);
        hold(&mut st, job(2).procs(2).estimate(30).job(), 1, 30);
        hold(&mut st, licensed(3, 1, 50), 2, 50);
        let j = licensed(4, 2, 100);
        // 0: no processors; 30: processors but no license; 50: both, on
        // m0 and m1 alike: m0, the faster, where 100 s take 50.
        let at_50 = Slot {
            start: 50,
            machine: 0,
            duration: 50,
        };
        assert_eq!(find_gap(&st, &j, 200), Ok(Some(at_50)));
        assert_eq!(find_gap(&st, &j, 51), Ok(Some(at_50)));
        // A gap must start strictly before the job's reservation.
        assert_eq!(find_gap(&st, &j, 50), Ok(None));
        assert_eq!(find_gap(&st, &j, 40), Ok(None));
        // Without a license: 30, on m0.
        let k = job(5).procs(2).estimate(100).job();
        let at_30 = Slot {
            start: 30,
            machine: 0,
            duration: 50,
        };
        assert_eq!(find_gap(&st, &k, 200), Ok(Some(at_30)));
        assert_eq!(find_gap(&st, &k, 30), Ok(None));
        // Later, from 40: the walk starts at now.
        st.advance(40).unwrap();
        assert_eq!(find_gap(&st, &k, 200).unwrap().map(|g| g.start), Some(40));
        assert_eq!(find_gap(&st, &j, 200), Ok(Some(at_50)));
    }
}
