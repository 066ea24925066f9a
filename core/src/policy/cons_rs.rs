//! CONS+RS: Conservative backfilling with random-search gap filling.
//!
//! Rules (`docs/design.md`, "CONS+RS"):
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
//! gap filling* (extended abstract); where it is silent, the readings below
//! and `docs/design.md`, "Choices where the papers are vague".
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
//!
//! # Work saved, exactly
//!
//! A search draws the same jobs from the same seed, runs the same number of
//! iterations and counts each in the same counter as the rules above; what
//! follows only skips work whose result is already known, so no decision
//! and no counter changes (`the_shortcuts_change_no_decision` replays random
//! workloads both ways; the kernel's pruning tests compare farms).
//!
//! * **A failed iteration fails again until a move is kept.** An
//!   iteration's outcome depends only on the plan, the queue (order and
//!   reservations), the clock, the objective's two sums and the job drawn.
//!   A failed iteration leaves all of them as they were: it puts back what
//!   it took out, and a profile is canonical (the same reservations give
//!   the same steps). Within a search the queue and the clock do not change
//!   and only a kept move changes the plan and the sums. So [`Memo`]
//!   records each failure by queue position, and a job drawn again before
//!   the next kept move is counted as failing the same way without being
//!   tried. The memo is emptied when a search starts and after every kept
//!   move.
//! * **Who may be drawn** (a reservation after now) changes only with a
//!   kept move as well: [`Draws`] counts them then, and turns a draw into
//!   its queue position by stepping over the few positions that may not be
//!   drawn (instead of counting the queue at every iteration).
//! * **Failures found without changing the plan** (one machine, no
//!   licenses: every archive trace). Most moves fail, by a displaced job
//!   passing its guarantee. [`prejudge`] follows the plan path on a
//!   read-only view of the profile ([`Overlay`]: the steps plus the
//!   reservations the move takes out and puts in): which touched jobs are
//!   displaced ([`displaced`]), where each is re-placed, the objective. The
//!   view is, at every instant, the profile the plan path would have built
//!   at that point, so each question gets the same answer; when it proves
//!   a failure the iteration counts it and ends, having changed nothing.
//!   Kept moves, and the few cases it does not decide, run the plan path.
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): as Conservative
//! (every job reserved; its reservation is its expected start, bounded by
//! its guarantee). A job whose reservation the search moved into a gap,
//! and nothing moved since, starts moved up by the random search.

use super::conservative::{Compression, Conservative, Reserves};
use crate::plan::Slot;
use crate::rng::SplitMix64;
use crate::state::{KernelError, Observer, QueuedJob, RunningJob, State};
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

impl Iterations {
    /// The iterations of one search that starts with `queued` jobs waiting
    /// (either flavour of CONS+RS).
    pub(crate) fn budget(self, queued: usize) -> u64 {
        match self {
            Self::PerQueuedJob(k) => u64::try_from(queued)
                .unwrap_or(u64::MAX)
                .saturating_mul(u64::from(k)),
            Self::Fixed(n) => u64::from(n),
        }
    }
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

/// CONS+RS's memory between calls: the random search's, nothing of its
/// own.
#[derive(Clone, Debug)]
pub(crate) struct ConsRs {
    pub(crate) memory: SearchMemory,
}

/// What either flavour of CONS+RS keeps between calls for its random
/// searches: Conservative's bookkeeping under them, the generator, the
/// budget, and whether an early completion calls for a search.
#[derive(Clone, Debug)]
pub(crate) struct SearchMemory {
    /// Reservations and starts (the Alea flavour never compresses).
    pub(crate) cons: Conservative,
    pub(crate) rng: SplitMix64,
    pub(crate) iterations: Iterations,
    /// An early completion happened since the last search.
    early: bool,
}

impl SearchMemory {
    /// The memory of a search with `params` over `cons`, before any
    /// completion.
    pub(crate) fn new(params: RandomSearch, cons: Conservative) -> Self {
        Self {
            cons,
            rng: SplitMix64::new(params.seed),
            iterations: params.iterations,
            early: false,
        }
    }

    /// `done` completed at `now`: a search is due if it ended before its
    /// estimate.
    pub(crate) fn completed(&mut self, done: &RunningJob, now: Time) {
        if done.slot.end() > now {
            self.early = true;
        }
    }

    /// Whether an early completion calls for a search; the flag is
    /// cleared, as the caller runs that search now.
    pub(crate) fn take_early(&mut self) -> bool {
        core::mem::take(&mut self.early)
    }
}

/// A search's buffers and caches, set up when it starts, on its stack
/// (about 33 KiB, whatever the queue's capacity): nothing in them lasts
/// from one search to the next, so they are not part of the kernel (which
/// stays the size its capacities give, and a checkpoint leaves nothing
/// out).
struct Buffers {
    /// An iteration's scratch, set up once per search rather than per
    /// iteration.
    scratch: Scratch,
    /// What the gap searches walked of the plan.
    rises: Rises,
    /// The iterations that failed since the plan last changed (see the
    /// module docs, "Work saved").
    memo: Memo,
    /// The jobs near the last few window starts.
    windows: Windows,
}

impl Buffers {
    fn new() -> Self {
        Self {
            scratch: Scratch::default(),
            rises: Rises::new(),
            memo: Memo::new(),
            windows: Windows::new(),
        }
    }

    /// A kept move changed the plan: nothing cached holds.
    fn forget(&mut self) {
        self.rises.forget();
        self.memo.forget();
        self.windows.forget();
    }
}

/// Most rises [`Rises`] records.
const RISES: usize = 64;

/// What the gap searches of one plan found walking one machine's steps from
/// now: the steps where the most processors free so far rises (their index
/// and free processors), up to the step `next` (the first not looked at).
/// The first step with `p` free is the first rise to `p` or more, if the
/// walk has come that far; else it lies past `next` (every step before it
/// has fewer free than the highest rise). So every search continues the
/// walk where the last one stopped, and a plan's steps are walked at most
/// once. Set empty when a search starts and after each kept move (the
/// plan changes then, and only then).
#[derive(Clone)]
struct Rises {
    rises: Vec<(usize, u32), RISES>,
    /// The first step not looked at (`None`: nothing looked at yet).
    next: Option<usize>,
    /// More rises were seen than recorded: past the highest one recorded,
    /// searches walk on their own from `next`.
    full: bool,
}

impl core::fmt::Debug for Rises {
    /// A search's scratch: only how much is in use.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Rises")
            .field("len", &self.rises.len())
            .finish()
    }
}

impl Rises {
    const fn new() -> Self {
        Self {
            rises: Vec::new(),
            next: None,
            full: false,
        }
    }

    /// The plan changed: nothing is known.
    fn forget(&mut self) {
        self.rises.clear();
        self.next = None;
        self.full = false;
    }

    /// The first instant at or after `now` and before `limit` at which
    /// `need` units are free in `steps` (the step in force at `now` counts
    /// from `now`): the first step from there with `need` free, if it
    /// begins (or `now` is) before `limit`.
    fn first_with(
        &mut self,
        steps: &[crate::profile::Step],
        now: Time,
        need: u32,
        limit: Time,
    ) -> Option<Time> {
        let at = |i: usize| steps.get(i).map(|s| s.at.max(now));
        let next = *self
            .next
            .get_or_insert_with(|| steps.partition_point(|s| s.at <= now).saturating_sub(1));
        let top = self.rises.last().map(|r| r.1);
        if top.is_some_and(|top| top >= need) {
            let k = self.rises.partition_point(|r| r.1 < need);
            return self
                .rises
                .get(k)
                .and_then(|r| at(r.0))
                .filter(|&t| t < limit);
        }
        // Walk on from `next`: recording rises while there is room.
        let mut top = top;
        let mut i = next;
        while let Some(step) = steps.get(i) {
            if step.at.max(now) >= limit {
                break;
            }
            if top.is_none_or(|top| step.free > top) {
                top = Some(step.free);
                if !self.full && self.rises.push((i, step.free)).is_err() {
                    self.full = true;
                }
            }
            if step.free >= need {
                if !self.full {
                    self.next = Some(i.saturating_add(1));
                }
                return Some(step.at.max(now));
            }
            i = i.saturating_add(1);
        }
        if !self.full {
            self.next = Some(i);
        }
        None
    }
}

/// Jobs [`Near`] keeps for one window start: enough to tell a crowded
/// window (more than [`MAX_TOUCHED`] besides the job that moves).
const NEAR: usize = MAX_TOUCHED + 2;
/// Window starts [`Windows`] keeps (32 x 544 bytes). With 8, CTC-SP2's
/// searches refilled lists often enough that filling them took a seventh
/// of its CONS+RS replay (`perf record`); with 32, a fifth less CPU time in
/// all.
const WINDOW_STARTS: usize = 32;

/// For one window start `from`: the [`NEAR`] queued jobs with the earliest
/// reservation starts among those whose reservation ends after `from`, as
/// `(start, queue position)` by start; `more` when others were left out.
#[derive(Clone, Debug)]
struct Near {
    from: Time,
    jobs: Vec<(Time, u16), NEAR>,
    more: bool,
}

impl Near {
    const EMPTY: Self = Self {
        from: 0,
        jobs: Vec::new(),
        more: false,
    };

    /// The list for `from`, from `queue`.
    fn fill(&mut self, queue: &[QueuedJob], from: Time) {
        self.from = from;
        self.jobs.clear();
        self.more = false;
        for (i, q) in queue.iter().enumerate() {
            let Some(r) = q.reservation().filter(|r| r.end() > from) else {
                continue;
            };
            if self.jobs.is_full() {
                self.more = true;
                match self.jobs.last() {
                    Some(last) if r.start < last.0 => {
                        self.jobs.pop();
                    }
                    _ => continue,
                }
            }
            // In at the end, then back past the later starts. Cannot
            // fail: the list is used for queues of at most `u16::MAX` jobs
            // only, and it has room now.
            let _ = self
                .jobs
                .push((r.start, u16::try_from(i).unwrap_or(u16::MAX)));
            sift_last(&mut self.jobs, |j| j.0);
        }
    }
}

/// The jobs an iteration touches, on one machine without licenses, for the
/// last few window starts of this plan (a gap begins where the most
/// processors free so far rises, so a plan's windows share a few starts).
/// A job overlaps the window `[from, to)` when its reservation ends after
/// `from` and starts before `to`: among the jobs ending after `from`, those
/// that start before `to` are a prefix of the list by start. If the prefix,
/// less the job that moves, has more than [`MAX_TOUCHED`] jobs, the window
/// is crowded; else the prefix is all of them (the list holds [`NEAR`]).
/// Whether a window is crowded does not depend on the order the jobs are
/// looked at in (more than `MAX_TOUCHED` of them, or one whose reservation
/// was missed), and the touched jobs are then put in queue order. Emptied
/// when a search starts and after each kept move.
struct Windows {
    near: [Near; WINDOW_STARTS],
    /// Entries in use.
    len: usize,
    /// The entry to replace next.
    next: usize,
}

impl Windows {
    const fn new() -> Self {
        Self {
            near: [Near::EMPTY; WINDOW_STARTS],
            len: 0,
            next: 0,
        }
    }

    /// The plan changed: nothing is known.
    fn forget(&mut self) {
        self.len = 0;
        self.next = 0;
    }

    /// The jobs ending after `from`, first by start, from `queue` (kept
    /// for `from`).
    fn near(&mut self, queue: &[QueuedJob], from: Time) -> &Near {
        let used = self.len.min(WINDOW_STARTS);
        let known = self.near.iter().take(used).position(|n| n.from == from);
        let at = match known {
            Some(at) => at,
            None => {
                let at = self.next % WINDOW_STARTS;
                self.next = at.saturating_add(1);
                self.len = self.len.max(self.next);
                if let Some(near) = self.near.get_mut(at) {
                    near.fill(queue, from);
                }
                at
            }
        };
        // Cannot fail: `at < WINDOW_STARTS`.
        self.near.get(at).unwrap_or(&EMPTY_NEAR)
    }
}

/// What [`Windows::near`] falls back on (never used).
static EMPTY_NEAR: Near = Near {
    from: 0,
    jobs: Vec::new(),
    more: true,
};

/// Moves the last of `v` back past those with a greater `key`, which move
/// up one place each: `v`, sorted by `key` but for its last, ends sorted
/// (the last after those with an equal key).
fn sift_last<T: Copy, K: PartialOrd>(v: &mut [T], key: impl Fn(&T) -> K) {
    let Some(&x) = v.last() else {
        return;
    };
    let kx = key(&x);
    let mut k = v.len().saturating_sub(1);
    while let Some(&previous) = k.checked_sub(1).and_then(|p| v.get(p)) {
        if key(&previous) <= kx {
            break;
        }
        if let Some(slot) = v.get_mut(k) {
            *slot = previous;
        }
        k = k.wrapping_sub(1);
    }
    if let Some(slot) = v.get_mut(k) {
        *slot = x;
    }
}

/// [`ConsRs::iteration`]'s buffers: empty between calls.
#[derive(Clone, Default)]
struct Scratch {
    moves: Moves,
    /// The queue positions of the jobs an iteration touches.
    hits: Vec<usize, MAX_TOUCHED>,
    /// [`displaced`]'s buffers.
    pieces: Pieces,
    /// [`Overlay`]'s changes.
    events: Vec<(Time, i64), OVERLAY_EVENTS>,
}

impl core::fmt::Debug for Scratch {
    /// Nothing in it lasts from one call to the next.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Scratch")
    }
}

#[cfg(test)]
std::thread_local! {
    /// Tests: search as the rules say, without the shortcuts of the module
    /// docs' "Work saved" (they must not change a decision).
    static PLAIN: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
    /// Tests: the failures [`prejudge`] found and those the memo answered.
    static SHORTCUTS: core::cell::Cell<(u64, u64)> = const { core::cell::Cell::new((0, 0)) };
}

impl ConsRs {
    /// CONS+RS with `params`.
    pub(crate) fn new(params: RandomSearch) -> Self {
        Self {
            memory: SearchMemory::new(params, Conservative::default()),
        }
    }

    /// Tests: whether to search without the shortcuts (compression's
    /// exhaustive switch, or [`PLAIN`] on this thread).
    #[cfg(test)]
    fn plain(&self) -> bool {
        self.memory.cons.compression.exhaustive || PLAIN.with(core::cell::Cell::get)
    }

    /// Whether to search without the shortcuts: never, outside tests.
    #[cfg(not(test))]
    #[allow(clippy::unused_self)]
    const fn plain(&self) -> bool {
        false
    }

    /// `done` completed at `now`: a compression pass is due, and a search
    /// if it ended before its estimate.
    pub(crate) fn completed<const B: usize, const M: usize, const L: usize>(
        &mut self,
        plan: &crate::plan::Plan<B, M, L>,
        done: &RunningJob,
        now: Time,
    ) {
        self.memory.completed(done, now);
        self.memory.cons.completed(plan, &done.slot, now);
    }

    /// The random search. Never inlined: its [`Buffers`] (about 33 KiB)
    /// stay in its own frame, so other policies' passes keep their small
    /// stacks.
    #[inline(never)]
    fn search<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        let budget = self.memory.iterations.budget(st.queue.len());
        if budget == 0 || st.queue.is_empty() {
            return Ok(());
        }
        st.counters.rs_searches = st.counters.rs_searches.saturating_add(1);
        let plain = self.plain();
        let mut sums = Objective::of(&st.queue);
        // Who may be drawn changes only when a move is kept.
        let mut draws = Draws::of(&st.queue, st.now);
        // Set up empty for this search.
        let mut buffers = Buffers::new();
        for _ in 0..budget {
            if !observer.keep_searching() {
                break;
            }
            if plain {
                draws = Draws::of(&st.queue, st.now);
            }
            if draws.eligible == 0 {
                break;
            }
            st.counters.rs_iterations = st.counters.rs_iterations.saturating_add(1);
            let pick = self
                .memory
                .rng
                .below(u64::try_from(draws.eligible).unwrap_or(u64::MAX));
            let pick = usize::try_from(pick).unwrap_or(0);
            let Some(index) = draws.nth(&st.queue, st.now, pick) else {
                break;
            };
            // The same job on the same plan fails the same way again.
            if let Some(failure) = buffers.memo.get(index).filter(|_| !plain) {
                #[cfg(test)]
                SHORTCUTS.with(|c| c.set((c.get().0, c.get().1 + 1)));
                failure.count(&mut st.counters);
                continue;
            }
            match self.iteration(st, index, &mut sums, plain, &mut buffers, observer)? {
                Some(failure) => buffers.memo.set(index, failure),
                None => {
                    buffers.forget();
                    draws = Draws::of(&st.queue, st.now);
                }
            }
        }
        Ok(())
    }

    /// One iteration on queue entry `index`: `None` when the move was
    /// kept, else why it failed (counted here).
    fn iteration<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        index: usize,
        sums: &mut Objective,
        plain: bool,
        buffers: &mut Buffers,
        observer: &mut impl Observer,
    ) -> Result<Option<Failure>, KernelError> {
        let now = st.now;
        let Buffers {
            scratch,
            rises,
            windows,
            ..
        } = buffers;
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
        // On one machine, a job without licenses: the first step with room
        // for it, from what this plan's earlier gap searches walked.
        let rises =
            (st.cluster.machines().len() == 1 && job.licenses.0 == 0 && !plain).then_some(rises);
        let gap = match find_gap(st, &job, old.start, rises) {
            Ok(Some(gap)) => gap,
            other => {
                Failure::NoGap.count(&mut st.counters);
                return other.map(|_| Some(Failure::NoGap));
            }
        };
        // The other queued jobs that may collide with J in its new window.
        let moves = &mut scratch.moves;
        moves.job_placed = false;
        moves.touched.clear();
        moves.procs.clear();
        // Their positions first: a crowded window is found out before
        // anything is copied.
        let hits = &mut scratch.hits;
        hits.clear();
        let mut crowded = false;
        let (first, last) = (gap.start, gap.end());
        let alone = st.cluster.machines().len() == 1 && st.cluster.pools().is_empty();
        let short = st.queue.len() <= usize::from(u16::MAX);
        if alone && short && !plain {
            // From the jobs ending after the window's start, by start (see
            // `Windows`): crowded when more than `MAX_TOUCHED` overlap or
            // one of them missed its reservation, whatever the order; else
            // they are all of them, put back in queue order.
            let near = windows.near(&st.queue, first);
            let (mut prefix, mut count) = (0usize, 0usize);
            for &(start, i) in &near.jobs {
                let i = usize::from(i);
                if start >= last {
                    break;
                }
                prefix = prefix.saturating_add(1);
                if i == index {
                    continue;
                }
                if start < now || count == MAX_TOUCHED {
                    crowded = true;
                    break;
                }
                count = count.saturating_add(1);
            }
            if !crowded && near.more && prefix == near.jobs.len() {
                // Cannot happen: then more than `MAX_TOUCHED` overlap.
                return Err(KernelError::Internal(
                    "random search: window list too short",
                ));
            }
            if !crowded {
                for &(_, i) in near.jobs.iter().take(prefix) {
                    let i = usize::from(i);
                    if i != index {
                        // Cannot fail: `count` of them, at most `MAX_TOUCHED`.
                        let _ = hits.push(i);
                    }
                }
                // In queue order.
                hits.sort_unstable();
            }
        } else {
            for (i, q) in st.queue.iter().enumerate() {
                let Some(slot) = q.reservation() else {
                    continue;
                };
                let shares = slot.machine == gap.machine || q.job.licenses.0 & job.licenses.0 != 0;
                let overlaps = slot.start < last && first < slot.end();
                if i == index || !shares || !overlaps {
                    continue;
                }
                if slot.start < now || hits.push(i).is_err() {
                    crowded = true; // a missed reservation, or too many to handle
                    break;
                }
            }
        }
        if crowded {
            Failure::Crowded.count(&mut st.counters);
            return Ok(Some(Failure::Crowded));
        }
        for &i in hits.iter() {
            if let Some((slot, procs)) = st
                .queue
                .get(i)
                .and_then(|q| q.reservation().map(|r| (r, q.job.procs)))
            {
                // Cannot fail: at most as many as `hits`.
                let _ = moves.touched.push((i, slot, Place::In));
                let _ = moves.procs.push(procs);
            }
        }
        // One machine without licenses: most moves fail, and that can be
        // found out without changing the plan (see `prejudge`).
        if alone && !plain {
            if let Some(failure) = prejudge(st, &job, &old, &gap, scratch, sums)? {
                #[cfg(test)]
                SHORTCUTS.with(|c| c.set((c.get().0 + 1, c.get().1)));
                failure.count(&mut st.counters);
                return Ok(Some(failure));
            }
        }
        let moves = &mut scratch.moves;
        st.plan.release_from(&job, &old, now)?;
        // Outside J's new window every touched job still fits where it is
        // (there the plan only lost J's old reservation), so only the part
        // of each inside the window is taken out.
        for (i, slot, place) in &mut moves.touched {
            let other = queued_job(st, *i)?;
            st.plan.release_from(&other, &inside(slot, &gap), now)?;
            *place = Place::Partly;
        }
        let outcome = Self::place(st, &job, gap, moves);
        let failure = match outcome {
            Ok(true) => {
                let (wait_gain, slowdown_gain) = gains(st, &job, &old, &gap, moves)?;
                if sums.improved_by(wait_gain, slowdown_gain) {
                    sums.apply(wait_gain, slowdown_gain);
                    None
                } else {
                    Some(Failure::Objective)
                }
            }
            Ok(false) => Some(Failure::Guarantee),
            Err(e) => {
                undo(st, &job, &old, gap, moves)?;
                return Err(e);
            }
        };
        if let Some(failure) = failure {
            failure.count(&mut st.counters);
            undo(st, &job, &old, gap, moves)?;
            return Ok(Some(failure));
        }
        st.counters.rs_accepted = st.counters.rs_accepted.saturating_add(1);
        let moves = &scratch.moves;
        commit(
            &mut self.memory.cons.compression,
            st,
            index,
            &job,
            &old,
            gap,
            moves,
            observer,
        )?;
        Ok(None)
    }

    /// Puts `job` at `gap` and the touched jobs back (at their old slot
    /// where it fits, else, in queue order, at their earliest start),
    /// recording where each is in `moves`. `Ok(false)`: a displaced job
    /// would start after its guarantee (nothing is undone here).
    fn place<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
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
                st.release_outside(&other, slot, &gap)?;
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
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Reserves<State<Q, R, B, M, L>> for ConsRs
{
    fn compression(&self) -> &Compression {
        &self.memory.cons.compression
    }

    fn compression_mut(&mut self) -> &mut Compression {
        &mut self.memory.cons.compression
    }

    /// Compression, then the random search if an early completion is new.
    fn settle(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        st.compress(&mut self.memory.cons.compression, observer)?;
        if self.memory.take_early() {
            self.search(st, observer)?;
        }
        Ok(())
    }
}

/// Makes an accepted move the plan: new reservations in the queue,
/// reported to `observer`, and the vacated intervals handed to the
/// compression bookkeeping.
#[allow(clippy::too_many_arguments)]
fn commit<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    compression: &mut Compression,
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
        e.set_searched();
    }
    observer.reserved(job, gap);
    compression.vacated(&st.plan, old, now);
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
            compression.vacated(&st.plan, &was, now);
        }
    }
    Ok(())
}

/// Why an iteration failed: which counter it adds to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    /// No gap before the job's reservation.
    NoGap,
    /// Too many jobs (or a missed reservation) in the gap's window.
    Crowded,
    /// A displaced job would pass its guarantee.
    Guarantee,
    /// The objective would not improve.
    Objective,
}

impl Failure {
    /// All four, in the order of their codes in [`Memo`].
    const ALL: [Self; 4] = [Self::NoGap, Self::Crowded, Self::Guarantee, Self::Objective];

    /// Adds one to the counter of this failure.
    fn count(self, counters: &mut crate::Counters) {
        let counter = match self {
            Self::NoGap => &mut counters.rs_no_gap,
            Self::Crowded => &mut counters.rs_too_crowded,
            Self::Guarantee => &mut counters.rs_rejected_guarantee,
            Self::Objective => &mut counters.rs_rejected_objective,
        };
        *counter = counter.saturating_add(1);
    }

    /// Its two-bit code in [`Memo`].
    const fn code(self) -> usize {
        match self {
            Self::NoGap => 0,
            Self::Crowded => 1,
            Self::Guarantee => 2,
            Self::Objective => 3,
        }
    }
}

/// Queue positions [`Memo`] covers: a search draws from a longer queue
/// too, but an iteration on a later position is always run.
const MEMO_JOBS: usize = 8192;
/// 64-bit words per bit set of [`Memo`].
const MEMO_WORDS: usize = MEMO_JOBS / 64;

/// The iterations that failed since the plan last changed, by queue
/// position, with why: three bits per position of the first
/// [`MEMO_JOBS`] (3 KiB in all). Only a search uses it, and it starts each
/// search empty.
struct Memo {
    /// Bit `i`: the job at queue position `i` failed.
    failed: [u64; MEMO_WORDS],
    /// How it failed: bit `i` of the two sets are the low and high bit of
    /// [`Failure::code`] (read only where `failed` is set).
    how: [[u64; MEMO_WORDS]; 2],
    /// Words of `failed` before this one are the only ones that may be set.
    dirty: usize,
}

impl core::fmt::Debug for Memo {
    /// A search's scratch, empty between calls: only how much is in use.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Memo").field("dirty", &self.dirty).finish()
    }
}

impl Memo {
    const fn new() -> Self {
        Self {
            failed: [0; MEMO_WORDS],
            how: [[0; MEMO_WORDS]; 2],
            dirty: 0,
        }
    }

    /// The plan changed: every recorded failure may now go otherwise.
    fn forget(&mut self) {
        for word in self.failed.iter_mut().take(self.dirty) {
            *word = 0;
        }
        self.dirty = 0;
    }

    /// How the job at queue position `i` failed since the plan last
    /// changed, if it did (and `i` is covered).
    fn get(&self, i: usize) -> Option<Failure> {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        if self.failed.get(word).copied().unwrap_or(0) & bit == 0 {
            return None;
        }
        let [low, high] = &self.how;
        let low = low.get(word).copied().unwrap_or(0) & bit != 0;
        let high = high.get(word).copied().unwrap_or(0) & bit != 0;
        Failure::ALL
            .get(usize::from(low) | usize::from(high) << 1)
            .copied()
    }

    /// Records that the job at queue position `i` failed so (nothing when
    /// `i` is not covered).
    fn set(&mut self, i: usize, failure: Failure) {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let Some(failed) = self.failed.get_mut(word) else {
            return;
        };
        *failed |= bit;
        let code = failure.code();
        for (k, set) in self.how.iter_mut().enumerate() {
            if let Some(w) = set.get_mut(word) {
                *w = if code >> k & 1 == 1 {
                    *w | bit
                } else {
                    *w & !bit
                };
            }
        }
        self.dirty = self.dirty.max(word.saturating_add(1));
    }
}

/// Most queue positions [`Draws`] lists as not drawable.
const DUE: usize = 32;

/// Which queued jobs a search may draw: those whose reservation starts
/// after now. It changes only when a move is kept, so it is found once per
/// search and after each kept move.
#[derive(Clone, Debug)]
struct Draws {
    /// How many may be drawn.
    eligible: usize,
    /// The queue positions that may not, in order (all of them when
    /// `complete`).
    due: Vec<usize, DUE>,
    complete: bool,
}

impl Draws {
    fn of(queue: &[QueuedJob], now: Time) -> Self {
        let mut draws = Self {
            eligible: 0,
            due: Vec::new(),
            complete: true,
        };
        for (i, q) in queue.iter().enumerate() {
            if movable(q, now) {
                draws.eligible = draws.eligible.saturating_add(1);
            } else if draws.due.push(i).is_err() {
                draws.complete = false;
            }
        }
        draws
    }

    /// The queue position of the `pick`-th drawable job (from 0): `pick`
    /// plus the positions not drawable at or before it.
    fn nth(&self, queue: &[QueuedJob], now: Time, pick: usize) -> Option<usize> {
        if !self.complete {
            return queue
                .iter()
                .enumerate()
                .filter(|(_, q)| movable(q, now))
                .nth(pick)
                .map(|(i, _)| i);
        }
        let mut index = pick;
        for &d in &self.due {
            if d <= index {
                index = index.saturating_add(1);
            } else {
                break;
            }
        }
        (index < queue.len()).then_some(index)
    }
}

/// Whether a search may draw `q`: its reservation starts after now.
fn movable(q: &QueuedJob, now: Time) -> bool {
    q.reservation().is_some_and(|r| r.start > now)
}

/// The verdict on moving `job` from `old` into `gap`, on one machine
/// without licenses, found without changing the plan: `Some` failure when
/// [`ConsRs::place`] and the objective test would reject the move so;
/// `None` when the move would be kept, or in a case this does not decide
/// (the plan path then runs and decides).
///
/// It follows the plan path step by step on a read-only view of the plan
/// ([`Overlay`]): the touched jobs the move displaces ([`displaced`]), then
/// each displaced one, in queue order, at its earliest start before its
/// guarantee, then the objective. The view is the profile as the plan path
/// would have changed it (the same reservations in and out), so every
/// search asks the same question of the same free units over time and gets
/// the same answer; a search that could run past the end of time, a job
/// without a guarantee, or `job` not fitting in its gap (an error on the
/// plan path) are left to the plan path.
fn prejudge<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &State<Q, R, B, M, L>,
    job: &Job,
    old: &Slot,
    gap: &Slot,
    scratch: &mut Scratch,
    sums: &Objective,
) -> Result<Option<Failure>, KernelError> {
    let Scratch {
        moves,
        pieces,
        events,
        ..
    } = scratch;
    let (Some(profile), Some(machine)) = (st.plan.machine(0), st.cluster.machines().first()) else {
        return Ok(None);
    };
    let touched = &moves.touched;
    let Some(out) = displaced(
        profile.steps(),
        job,
        old,
        gap,
        touched,
        &moves.procs,
        pieces,
    ) else {
        return Ok(None);
    };
    let now = st.now.max(profile.origin());
    events.clear();
    let mut view = Overlay {
        steps: profile.steps(),
        events,
    };
    let procs = |p: u32| i64::from(p);
    let mut fits =
        view.add(old, procs(job.procs)) && view.add(gap, procs(job.procs).saturating_neg());
    for ((&(_, slot, _), &p), &is_out) in touched.iter().zip(&moves.procs).zip(&out) {
        if is_out {
            fits = fits && view.add(&slot, procs(p));
        }
    }
    if !fits {
        return Ok(None);
    }
    // The gains, summed in the plan path's order (`gains`).
    let mut w = wait(job, old).saturating_sub(wait(job, gap));
    let mut s = slowdown(job, old).saturating_sub(slowdown(job, gap));
    for (&(i, was, _), &is_out) in touched.iter().zip(&out) {
        if !is_out {
            continue;
        }
        let Some(q) = st.queue.get(i) else {
            return Err(KernelError::Internal("random search: no such queue entry"));
        };
        let Some(guarantee) = q.guarantee() else {
            return Ok(None);
        };
        let limit = guarantee.saturating_add(1);
        let duration = machine.scale(q.job.estimate);
        let found = match duration {
            Some(d) if st.cluster.eligible(&q.job, 0) => {
                if d == 0 || limit.checked_add(d).is_none() {
                    return Ok(None);
                }
                view.earliest_fit(now, d, q.job.procs, limit)
                    .map(|start| Slot {
                        start,
                        machine: 0,
                        duration: d,
                    })
            }
            _ => None,
        };
        let Some(new) = found else {
            return Ok(Some(Failure::Guarantee));
        };
        if !view.add(&new, procs(q.job.procs).saturating_neg()) {
            return Ok(None);
        }
        w = w.saturating_add(wait(&q.job, &was).saturating_sub(wait(&q.job, &new)));
        s = s.saturating_add(slowdown(&q.job, &was).saturating_sub(slowdown(&q.job, &new)));
    }
    Ok((!sums.improved_by(w, s)).then_some(Failure::Objective))
}

/// Most cuts [`displaced`] makes in a window: two per touched part and two
/// for the moving job's old slot.
const CUTS: usize = 2 * MAX_TOUCHED + 2;

/// [`displaced`]'s buffers, kept so that they are not set up at every call.
#[derive(Clone)]
struct Pieces {
    /// The parts' ends inside the window as sort keys: the time, then the
    /// part (twice its index, plus one for its end).
    keys: [u64; CUTS],
    /// The times inside the window where the pieces meet.
    cuts: [Time; CUTS],
    /// On each piece, the fewest units free as the plan path leaves them.
    room: [i64; CUTS + 1],
    /// The parts' units, added on the piece where each begins and taken
    /// off on the one where it ends.
    diff: [i64; CUTS + 2],
    /// For each part (the touched ones in queue order, then the old slot),
    /// the first piece it covers and the one after its last.
    from: [u8; MAX_TOUCHED + 1],
    to: [u8; MAX_TOUCHED + 1],
}

impl Default for Pieces {
    fn default() -> Self {
        Self {
            keys: [0; CUTS],
            cuts: [0; CUTS],
            room: [0; CUTS + 1],
            diff: [0; CUTS + 2],
            from: [0; MAX_TOUCHED + 1],
            to: [0; MAX_TOUCHED + 1],
        }
    }
}

/// Which of the touched jobs (`touched`, in queue order, with `procs`
/// processors each) the move of `job` from `old` into `gap` displaces, on
/// one machine whose profile has `steps` (with `job` and the touched jobs
/// still in it), found without changing the plan: entry `k` says whether
/// `touched[k]` is displaced. `None` when `job` would not fit in `gap` even
/// with every touched job out (the plan path then fails with an error).
///
/// Exactly what [`ConsRs::place`] finds when, with `job`'s old reservation
/// given back, it takes every touched job's part inside the window out,
/// puts `job` in and then each touched job's part back in queue order where
/// it fits: the window is cut at the ends of every touched part and of
/// `job`'s old slot, and `room` is, on each piece, the fewest units free
/// there in that plan: the fewest free in `steps`, less `job`'s in the gap,
/// plus `job`'s old ones and the touched parts' over the piece (those are
/// constant on a piece, so the fewest free moves with them). A part fits
/// where `room` is at least its processors on all its pieces, and putting
/// it back takes them from each: the same answers the profile's steps give.
/// All sums stay far inside an `i64` (at most 65 parts of at most
/// `u32::MAX` units), so wrapping arithmetic is exact.
fn displaced(
    steps: &[crate::profile::Step],
    job: &Job,
    old: &Slot,
    gap: &Slot,
    touched: &[(usize, Slot, Place)],
    procs: &[u32],
    pieces: &mut Pieces,
) -> Option<Vec<bool, MAX_TOUCHED>> {
    let (first, last) = (gap.start, gap.end());
    let n = touched.len().min(procs.len()).min(MAX_TOUCHED);
    // The old slot, when it reaches into the window, is part `n`.
    let own = old.start < last;
    let ends = touched
        .iter()
        .take(n)
        .map(|t| (t.1.start, t.1.end()))
        .chain(own.then(|| (old.start, old.end())));
    // Each part's ends inside the window, as sort keys (the tag is below
    // 2 * 65 + 2 < 256); an end at or outside the window's is its first or
    // last piece.
    let mut keys = 0usize;
    for (i, (start, end)) in ends.enumerate() {
        let tag = u64::try_from(i).ok()?.wrapping_mul(2);
        *pieces.from.get_mut(i)? = 0;
        *pieces.to.get_mut(i)? = u8::MAX;
        for (t, tag) in [(start, tag), (end, tag.wrapping_add(1))] {
            if first < t && t < last {
                *pieces.keys.get_mut(keys)? = u64::from(t) << 8 | tag;
                keys = keys.wrapping_add(1);
            }
        }
    }
    pieces.keys.get_mut(..keys)?.sort_unstable();
    // The distinct times are the cuts; an end at the `c`-th cut begins
    // piece `c`.
    let mut cuts = 0usize;
    for &key in pieces.keys.get(..keys)? {
        let t = Time::try_from(key >> 8).ok()?;
        if cuts == 0 || pieces.cuts.get(cuts.wrapping_sub(1)) != Some(&t) {
            *pieces.cuts.get_mut(cuts)? = t;
            cuts = cuts.wrapping_add(1);
        }
        let tag = usize::from(u8::try_from(key & 0xff).ok()?);
        let side = if tag % 2 == 0 {
            &mut pieces.from
        } else {
            &mut pieces.to
        };
        *side.get_mut(tag / 2)? = u8::try_from(cuts).ok()?;
    }
    let count = cuts.wrapping_add(1);
    let end_piece = u8::try_from(count).ok()?;
    // On each piece: the fewest free in `steps`, less `job`'s processors.
    let mut s = steps.partition_point(|x| x.at <= first).saturating_sub(1);
    let piece_ends = pieces.cuts.get(..cuts)?.iter().copied().chain([last]);
    for (r, end) in pieces.room.iter_mut().zip(piece_ends) {
        let mut least = steps.get(s).map_or(0, |x| x.free);
        while let Some(x) = steps.get(s.wrapping_add(1)).filter(|x| x.at < end) {
            least = least.min(x.free);
            s = s.wrapping_add(1);
        }
        *r = i64::from(least).wrapping_sub(i64::from(job.procs));
        // The step in force at `end` begins the next piece.
        if steps.get(s.wrapping_add(1)).is_some_and(|x| x.at == end) {
            s = s.wrapping_add(1);
        }
    }
    // Every part's units over its pieces.
    let diff = pieces.diff.get_mut(..=count)?;
    diff.fill(0);
    let units = procs.iter().take(n).chain(own.then_some(&job.procs));
    for (i, &p) in units.enumerate() {
        let to = pieces.to.get_mut(i)?;
        if *to == u8::MAX {
            *to = end_piece;
        }
        let (from, to) = (usize::from(*pieces.from.get(i)?), usize::from(*to));
        let p = i64::from(p);
        *diff.get_mut(from)? = diff.get(from)?.wrapping_add(p);
        *diff.get_mut(to)? = diff.get(to)?.wrapping_sub(p);
    }
    let room = pieces.room.get_mut(..count)?;
    let mut over = 0i64;
    for (r, &d) in room.iter_mut().zip(diff.iter()) {
        over = over.wrapping_add(d);
        *r = r.wrapping_add(over);
    }
    // The touched parts back, in queue order, where they fit.
    let mut out = Vec::new();
    for (i, &p) in procs.iter().take(n).enumerate() {
        let need = i64::from(p);
        let (from, to) = (
            usize::from(*pieces.from.get(i)?),
            usize::from(*pieces.to.get(i)?),
        );
        let span = room.get_mut(from..to)?;
        let fits = span.iter().all(|&r| r >= need);
        if fits {
            for r in span {
                *r = r.wrapping_sub(need);
            }
        }
        out.push(!fits).ok()?;
    }
    // `job` itself must fit: then no piece is short.
    room.iter().all(|&r| r >= 0).then_some(out)
}

/// Room for [`Overlay`]'s changes: `job`'s two slots and every touched
/// job's old and new one.
const OVERLAY_EVENTS: usize = 4 * MAX_TOUCHED + 4;

/// One machine's profile as an iteration would change it, read without
/// changing it: the profile's steps plus signed changes of the free units
/// over intervals.
struct Overlay<'a> {
    steps: &'a [crate::profile::Step],
    /// `(t, change)`: from `t` on, `change` more units free; in time order.
    events: &'a mut Vec<(Time, i64), OVERLAY_EVENTS>,
}

impl Overlay<'_> {
    /// `change` more units free over `slot` (`false`: no room to record it).
    fn add(&mut self, slot: &Slot, change: i64) -> bool {
        if slot.duration == 0 {
            return true;
        }
        for (t, c) in [(slot.start, change), (slot.end(), change.saturating_neg())] {
            // In at the end, then back past the later ones: a few dozen
            // entries, shifted in place.
            if self.events.push((t, c)).is_err() {
                return false;
            }
            sift_last(self.events, |e| e.0);
        }
        true
    }

    /// The earliest `t` in `[from, limit)` such that `need` units stay free
    /// over `[t, t + duration)`: what
    /// [`Profile::earliest_fit_before`](crate::profile::Profile::earliest_fit_before)
    /// answers, held from the end of time, on the changed profile. The
    /// caller makes sure that `duration > 0` and that `limit + duration`
    /// fits in a [`Time`] (then no candidate's end overflows, which that
    /// search would report).
    fn earliest_fit(&self, from: Time, duration: Time, need: u32, limit: Time) -> Option<Time> {
        if from >= limit {
            return None;
        }
        let (steps, events) = (self.steps, self.events.as_slice());
        let need = i64::from(need);
        // The piece of constant free units that begins at `t`: the step in
        // force there (`step`) plus the changes up to there (`change`, the
        // first not applied at `event`).
        let mut step = if steps.get(1).is_none_or(|s| s.at > from) {
            0
        } else {
            steps.partition_point(|s| s.at <= from).saturating_sub(1)
        };
        let mut event = events.partition_point(|e| e.0 <= from);
        let mut change = events
            .iter()
            .take(event)
            .fold(0i64, |sum, e| sum.wrapping_add(e.1));
        let mut t = from;
        // The candidate start: every piece from it to `t` has room.
        let mut start = Some(from);
        loop {
            let free = steps
                .get(step)
                .map_or(0, |s| i64::from(s.free))
                .wrapping_add(change);
            if free < need {
                start = None;
            } else if start.is_none() {
                // The first later piece with room.
                if t >= limit {
                    return None;
                }
                start = Some(t);
            }
            let next_step = steps.get(step.wrapping_add(1)).map(|s| s.at);
            let next_event = events.get(event).map(|e| e.0);
            let next = match (next_step, next_event) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match (start, next) {
                // Every piece from `start` to `start + duration` has room
                // (the caller made sure the sum fits).
                (Some(s), Some(n)) if n >= s.wrapping_add(duration) => return Some(s),
                (Some(s), None) => return Some(s),
                (None, None) => return None,
                (None, Some(n)) if n >= limit => return None,
                (_, Some(n)) => {
                    t = n;
                    if next_step == Some(n) {
                        step = step.wrapping_add(1);
                    }
                    while let Some(&(_, c)) = events.get(event).filter(|e| e.0 == n) {
                        change = change.wrapping_add(c);
                        event = event.wrapping_add(1);
                    }
                }
            }
        }
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

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    State<Q, R, B, M, L>
{
    /// Gives back `job`'s resources over the parts of `slot` before and after
    /// `window` (the part inside is already out).
    fn release_outside(
        &mut self,
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
                self.plan.release_from(job, &piece, piece.start)?;
            }
        }
        Ok(())
    }
}

/// What one iteration changed in the plan, so it can be undone.
#[derive(Clone, Debug, Default)]
struct Moves {
    /// `J` holds its gap slot in the plan.
    job_placed: bool,
    /// Queue index, old slot and whereabouts of each job taken out.
    touched: Vec<(usize, Slot, Place), MAX_TOUCHED>,
    /// The processors of each of `touched`.
    procs: Vec<u32, MAX_TOUCHED>,
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
    rises: Option<&mut Rises>,
) -> Result<Option<Slot>, KernelError> {
    let now = st.now;
    if let (Some(rises), Some(cpus), Some(machine)) =
        (rises, st.plan.machine(0), st.cluster.machines().first())
    {
        // One machine, no licenses: as the walk below.
        if !st.cluster.eligible(job, 0) {
            return Ok(None);
        }
        let Some(duration) = machine.scale(job.estimate) else {
            return Ok(None);
        };
        let found = rises.first_with(cpus.steps(), now, job.procs, before);
        return Ok(found
            .filter(|t| t.checked_add(duration).is_some())
            .map(|start| Slot {
                start,
                machine: 0,
                duration,
            }));
    }
    let mut best: Option<Slot> = None;
    for &machine in st.cluster.order() {
        let m = usize::from(machine);
        if !st.cluster.eligible(job, m) {
            continue;
        }
        let Some(duration) = st.cluster.duration_on(job, m) else {
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
    use crate::rng::SplitMix64;
    use crate::sim::fixtures::job;

    /// A replay's outcome: every record, every reservation event, the
    /// counters.
    #[derive(Debug, Default, PartialEq)]
    struct Replay {
        records: std::vec::Vec<crate::sim::JobRecord>,
        reservations: std::vec::Vec<(Time, u32, Slot)>,
        counters: crate::Counters,
    }

    impl crate::sim::Sink for Replay {
        fn finished(&mut self, record: &crate::sim::JobRecord) {
            self.records.push(*record);
        }
        fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
            self.reservations.push((now, job.id, slot));
        }
    }

    /// Replays `jobs` on one machine of `cpus` under CONS+RS with `seed`,
    /// with the shortcuts or without them (`plain`).
    fn replay(cpus: u32, seed: u64, jobs: &[crate::sim::SimJob], plain: bool) -> Replay {
        let policy = crate::Policy::ConsRs(RandomSearch {
            seed,
            iterations: Iterations::PerQueuedJob(4),
        });
        let kernel: crate::Kernel<256, 128, 768> =
            crate::Kernel::new(crate::Cluster::single(cpus).unwrap(), policy);
        let mut sim = crate::sim::Simulator::new(kernel);
        let mut out = Replay::default();
        PLAIN.with(|p| p.set(plain));
        let run = sim.run(jobs.iter().copied(), &mut out);
        PLAIN.with(|p| p.set(false));
        run.unwrap();
        sim.kernel().validate().unwrap();
        out.counters = *sim.kernel().counters();
        out
    }

    /// Random workloads on one machine with long queues of jobs of every
    /// width and length, most ending early (so searches are many): the
    /// shortcuts (the memo of failures, the draws, `prejudge`) leave every
    /// record, reservation event and counter as the plain search does, and
    /// they answer most iterations.
    #[test]
    fn the_shortcuts_change_no_decision() {
        let mut rng = SplitMix64::new(21);
        let (mut iterations, mut accepted) = (0, 0);
        SHORTCUTS.with(|c| c.set((0, 0)));
        for case in 0..30 {
            let cpus = 4 + rng.below(60) as u32;
            let mut submit = 0;
            let jobs: std::vec::Vec<crate::sim::SimJob> = (0..120)
                .map(|id| {
                    submit += [0, 0, 1, 2, 5, 30][rng.below(6) as usize];
                    let estimate = 1 + rng.below(200) as u32;
                    let runtime = match rng.below(5) {
                        0 => estimate,
                        _ => rng.below(u64::from(estimate) + 1) as u32,
                    };
                    crate::sim::SimJob {
                        job: Job::new(id, submit, 1 + rng.below(u64::from(cpus)) as u32, estimate),
                        runtime,
                    }
                })
                .collect();
            let seed = rng.below(1000);
            let fast = replay(cpus, seed, &jobs, false);
            let plain = replay(cpus, seed, &jobs, true);
            assert_eq!(fast, plain, "case {case}");
            iterations += fast.counters.rs_iterations;
            accepted += fast.counters.rs_accepted;
        }
        let (judged, remembered) = SHORTCUTS.with(core::cell::Cell::get);
        assert!(
            accepted > 500 && judged > iterations / 10 && remembered > iterations / 4,
            "{iterations} iterations, {accepted} kept, {judged} judged, {remembered} remembered"
        );
    }

    /// The memo gives back each failure recorded since it was last
    /// emptied, nothing for the others, nothing past the positions it
    /// covers, and empties every word it wrote to.
    #[test]
    fn the_memo_remembers_failures_until_forgotten() {
        let mut memo = Memo::new();
        for (i, f) in [
            (0, Failure::NoGap),
            (63, Failure::Crowded),
            (64, Failure::Guarantee),
        ]
        .into_iter()
        .chain([(MEMO_JOBS - 1, Failure::Objective)])
        {
            assert_eq!(memo.get(i), None);
            memo.set(i, f);
            assert_eq!(memo.get(i), Some(f), "{i}");
        }
        // A later failure of the same position replaces the earlier.
        memo.set(64, Failure::NoGap);
        assert_eq!(memo.get(64), Some(Failure::NoGap));
        assert_eq!((memo.get(1), memo.get(65)), (None, None));
        memo.set(MEMO_JOBS, Failure::Guarantee);
        assert_eq!(memo.get(MEMO_JOBS), None, "not covered");
        assert_eq!(memo.dirty, MEMO_WORDS);
        memo.forget();
        assert_eq!(memo.dirty, 0);
        assert!(memo.failed.iter().all(|&w| w == 0));
        for i in [0, 63, 64, MEMO_JOBS - 1] {
            assert_eq!(memo.get(i), None, "{i}");
        }
    }

    /// A draw maps to the queue position a scan of the queue gives, with
    /// few or many positions that may not be drawn.
    #[test]
    fn draws_map_to_the_position_a_scan_gives() {
        let mut rng = SplitMix64::new(3);
        for case in 0..200 {
            let now = 50;
            let len = rng.below(100) as u32;
            let due = [1, 2, 10, 60][case % 4];
            let queue: std::vec::Vec<QueuedJob> = (0..len)
                .map(|id| {
                    let start = if rng.below(100) < due { now } else { now + 1 };
                    queued(id, 0, 10, start)
                })
                .collect();
            let draws = Draws::of(&queue, now);
            let eligible: std::vec::Vec<usize> = (0..queue.len())
                .filter(|&i| movable(&queue[i], now))
                .collect();
            assert_eq!(draws.eligible, eligible.len(), "case {case}");
            assert_eq!(draws.complete, queue.len() - eligible.len() <= DUE);
            for (pick, &i) in eligible.iter().enumerate() {
                assert_eq!(draws.nth(&queue, now, pick), Some(i), "case {case}");
            }
            assert_eq!(draws.nth(&queue, now, eligible.len()), None);
        }
    }

    /// A random profile of `cap` units with an origin at 5.
    fn random_profile(rng: &mut SplitMix64, cap: u32) -> crate::profile::Profile<256> {
        let mut p = crate::profile::Profile::<256>::new(cap);
        for _ in 0..rng.below(40) {
            let (s, d) = (rng.below(300) as Time, 1 + rng.below(80) as Time);
            let _ = p.reserve(s, d, 1 + rng.below(u64::from(cap)) as u32);
        }
        p.advance(5);
        p
    }

    /// The first step with room found from the recorded rises is the one a
    /// walk from now finds, whatever the order, widths and limits of the
    /// searches, and when the rises outnumber the record.
    #[test]
    fn rises_find_the_step_a_walk_finds() {
        let mut rng = SplitMix64::new(8);
        for case in 0..300 {
            let cap = 1 + rng.below(if case % 3 == 0 { 200 } else { 12 }) as u32;
            let p = random_profile(&mut rng, cap);
            let now = 5 + rng.below(30) as Time;
            let walk = |need: u32, limit: Time| {
                let steps = p.steps();
                let first = steps.partition_point(|s| s.at <= now).saturating_sub(1);
                steps[first..]
                    .iter()
                    .map(|s| (s.at.max(now), s.free))
                    .take_while(|&(t, _)| t < limit)
                    .find(|&(_, free)| free >= need)
                    .map(|(t, _)| t)
            };
            let mut rises = Rises::new();
            for _ in 0..20 {
                let need = 1 + rng.below(u64::from(cap) + 1) as u32;
                let limit = now + rng.below(400) as Time;
                let found = rises.first_with(p.steps(), now, need, limit);
                assert_eq!(
                    found,
                    walk(need, limit),
                    "case {case}, need {need}, limit {limit}"
                );
            }
            rises.forget();
            assert!(rises.rises.is_empty() && rises.next.is_none() && !rises.full);
        }
    }

    /// The overlay's earliest fit is the profile's, on a profile changed
    /// for real by the same reservations given back and taken.
    #[test]
    fn the_overlay_answers_as_the_changed_profile() {
        let mut rng = SplitMix64::new(9);
        let mut found = 0;
        for case in 0..400 {
            let cap = 1 + rng.below(10) as u32;
            let mut p = random_profile(&mut rng, cap);
            let mut events = Vec::new();
            let mut view_changes = std::vec::Vec::new();
            // Some of what is held, given back; some of what is free, taken.
            for _ in 0..rng.below(6) {
                let slot = Slot {
                    start: 5 + rng.below(200) as Time,
                    machine: 0,
                    duration: 1 + rng.below(60) as Time,
                };
                let units = 1 + rng.below(u64::from(cap)) as u32;
                let give = rng.below(2) == 0;
                let ok = if give {
                    p.release(slot.start, slot.duration, units).is_ok()
                } else {
                    p.reserve(slot.start, slot.duration, units).is_ok()
                };
                if ok {
                    let change = i64::from(units);
                    view_changes.push((slot, if give { change } else { -change }));
                }
            }
            // The overlay reads the profile as it was before the changes.
            let mut before = p.clone();
            for (slot, change) in view_changes.iter().rev() {
                let units = change.unsigned_abs() as u32;
                if *change > 0 {
                    before.reserve(slot.start, slot.duration, units).unwrap();
                } else {
                    before.release(slot.start, slot.duration, units).unwrap();
                }
            }
            let mut view = Overlay {
                steps: before.steps(),
                events: &mut events,
            };
            for (slot, change) in &view_changes {
                assert!(view.add(slot, *change));
            }
            for _ in 0..10 {
                let from = 5 + rng.below(100) as Time;
                let duration = 1 + rng.below(80) as Time;
                let need = 1 + rng.below(u64::from(cap)) as u32;
                let limit = from + rng.below(300) as Time;
                let expected = p.earliest_fit_before(from, duration, need, Time::MAX, limit);
                let got = view.earliest_fit(from, duration, need, limit);
                assert_eq!(Ok(got), expected, "case {case}");
                found += usize::from(got.is_some());
            }
        }
        assert!(found > 500, "only {found} fits");
    }

    /// Pushing and sifting each keeps the list sorted, ties in the order
    /// they came.
    #[test]
    fn sift_last_sorts_and_keeps_ties_in_arrival_order() {
        let mut rng = SplitMix64::new(4);
        for n in 0..40 {
            // (key, arrival): pushed one by one, each sifted back.
            let mut v: std::vec::Vec<(u64, usize)> = std::vec::Vec::new();
            for i in 0..n {
                v.push((rng.below(8), i));
                sift_last(&mut v, |x| x.0);
            }
            let mut expected = v.clone();
            expected.sort();
            assert_eq!(v, expected);
        }
        sift_last(&mut [0u8; 0], |&x| x);
    }

    /// A queue of up to `most` jobs on one machine, each at most `widest`
    /// wide: reservations in the plan as in the queue.
    fn random_state(rng: &mut SplitMix64, most: u64, widest: u32) -> State<128, 8, 512, 1, 0> {
        let cpus = 2 + rng.below(30) as u32;
        let mut st: State<128, 8, 512, 1, 0> =
            State::new(crate::Cluster::single(cpus).unwrap(), false);
        st.advance(10).unwrap();
        let widest = u64::from(cpus.min(widest));
        for id in 0..rng.below(most) as u32 {
            let job = Job::new(
                id,
                0,
                1 + rng.below(widest) as u32,
                1 + rng.below(100) as u32,
            );
            let from = 10 + rng.below(150) as Time;
            let Some(slot) = st.plan.earliest(&st.cluster, &job, from).unwrap() else {
                continue;
            };
            st.plan.reserve(&job, &slot).unwrap();
            let mut q = QueuedJob::new(job);
            q.set_reservation(Some(slot));
            q.set_guarantee(Some(slot.start + rng.below(40) as Time));
            let at = st.queue.len();
            st.queue.insert(at, q).unwrap();
        }
        st
    }

    /// The jobs a window touches, from the per-start lists, are those a
    /// scan of the queue finds, in queue order, and a crowded window is
    /// crowded both ways.
    #[test]
    fn window_lists_touch_what_a_scan_touches() {
        let mut rng = SplitMix64::new(10);
        let (mut crowded, mut listed) = (0, 0);
        for case in 0..300 {
            let st = random_state(&mut rng, 125, 2);
            let mut windows = Windows::new();
            for _ in 0..10 {
                let (first, len) = (10 + rng.below(100) as Time, 1 + rng.below(150) as Time);
                let last = first + len;
                let index = rng.below(st.queue.len().max(1) as u64) as usize;
                let scan: std::vec::Vec<usize> = (0..st.queue.len())
                    .filter(|&i| {
                        let r = st.queue[i].reservation().unwrap();
                        i != index && r.start < last && first < r.end()
                    })
                    .collect();
                let near = windows.near(&st.queue, first);
                let prefix: std::vec::Vec<usize> = near
                    .jobs
                    .iter()
                    .take_while(|j| j.0 < last)
                    .map(|j| usize::from(j.1))
                    .filter(|&i| i != index)
                    .collect();
                if scan.len() > MAX_TOUCHED {
                    assert!(prefix.len() > MAX_TOUCHED, "case {case}");
                    crowded += 1;
                } else {
                    let mut prefix = prefix;
                    prefix.sort_unstable();
                    assert_eq!(prefix, scan, "case {case}");
                    listed += 1;
                }
            }
        }
        assert!(
            crowded > 50 && listed > 500,
            "{crowded} crowded, {listed} listed"
        );
    }

    /// `displaced` finds the jobs the plan path displaces: on random
    /// queues, the move of a random job into its gap is made on the plan
    /// (its old slot given back, every touched part taken out, the job put
    /// in, the parts put back in queue order where they fit) and compared.
    #[test]
    fn displaced_finds_what_the_plan_path_displaces() {
        let mut rng = SplitMix64::new(12);
        let (mut moves_seen, mut out_seen) = (0, 0);
        for case in 0..400 {
            let st = random_state(&mut rng, 90, u32::MAX);
            let Some(index) = (0..st.queue.len()).find(|_| rng.below(4) == 0) else {
                continue;
            };
            let q = st.queue[index];
            let old = q.reservation().unwrap();
            let Some(gap) = find_gap(&st, &q.job, old.start, None).unwrap() else {
                continue;
            };
            let touched: std::vec::Vec<(usize, Slot, Place)> = (0..st.queue.len())
                .filter_map(|i| {
                    let r = st.queue[i].reservation()?;
                    (i != index && r.start < gap.end() && gap.start < r.end()).then_some((
                        i,
                        r,
                        Place::In,
                    ))
                })
                .collect();
            if touched.len() > MAX_TOUCHED {
                continue;
            }
            let procs: std::vec::Vec<u32> =
                touched.iter().map(|t| st.queue[t.0].job.procs).collect();
            let mut pieces = Pieces::default();
            let steps = st.plan.machine(0).unwrap().steps();
            let got = displaced(steps, &q.job, &old, &gap, &touched, &procs, &mut pieces).unwrap();
            let mut plan = st.plan.clone();
            plan.release_from(&q.job, &old, st.now).unwrap();
            for t in &touched {
                plan.release_from(&st.queue[t.0].job, &inside(&t.1, &gap), st.now)
                    .unwrap();
            }
            plan.reserve(&q.job, &gap).unwrap();
            let expected: std::vec::Vec<bool> = touched
                .iter()
                .map(|t| {
                    plan.reserve(&st.queue[t.0].job, &inside(&t.1, &gap))
                        .is_err()
                })
                .collect();
            assert_eq!(got.as_slice(), expected.as_slice(), "case {case}");
            moves_seen += 1;
            out_seen += expected.iter().filter(|&&o| o).count();
        }
        assert!(
            moves_seen > 100 && out_seen > 100,
            "{moves_seen} moves, {out_seen} displaced"
        );
    }

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
        use crate::types::{LicenseSet, Machine};
        let machine = |cpus, speed| Machine { cpus, speed };
        let cluster: crate::Cluster<3, 1> = crate::Cluster::with_one_license(
            &[machine(2, 2000), machine(2, 1000), machine(1, 1000)],
            1,
        );
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
        assert_eq!(find_gap(&st, &j, 200, None), Ok(Some(at_50)));
        assert_eq!(find_gap(&st, &j, 51, None), Ok(Some(at_50)));
        // A gap must start strictly before the job's reservation.
        assert_eq!(find_gap(&st, &j, 50, None), Ok(None));
        assert_eq!(find_gap(&st, &j, 40, None), Ok(None));
        // Without a license: 30, on m0.
        let k = job(5).procs(2).estimate(100).job();
        let at_30 = Slot {
            start: 30,
            machine: 0,
            duration: 50,
        };
        assert_eq!(find_gap(&st, &k, 200, None), Ok(Some(at_30)));
        assert_eq!(find_gap(&st, &k, 30, None), Ok(None));
        // Later, from 40: the walk starts at now.
        st.advance(40).unwrap();
        assert_eq!(
            find_gap(&st, &k, 200, None).unwrap().map(|g| g.start),
            Some(40)
        );
        assert_eq!(find_gap(&st, &j, 200, None), Ok(Some(at_50)));
    }
}
