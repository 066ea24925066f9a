//! DPSA: EASY's head reservation, then a bounded exhaustive search for the
//! set of waiting jobs that uses the most free processors now.
//!
//! Rules (`docs/design.md`, "DPSA"; the paper's Fig. 2):
//!
//! 1. start from the head while jobs fit now (EASY's first phase);
//! 2. the first job that does not fit (the head) gets EASY's reservation at
//!    its shadow time; it is a guarantee, exactly as under EASY (the head
//!    starts no later than its first shadow time);
//! 3. the *candidates* are the other waiting jobs that fit now, each on its
//!    own, with the head's reservation in the plan (EASY's profile test);
//! 4. a depth-first search over the candidates, in the variant's order, finds
//!    the subset that starts the most processors now. A subset replaces the
//!    best one only if it starts strictly more, so among equal ones the first
//!    in search order wins: that order is the variant's tie-break
//!    ([`DpsaOrder`]: DPSA-p queue (priority) order, DPSA-n ascending by
//!    processors, DPSA-w descending, both stable);
//! 5. the winning subset starts now.
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): as EASY (head
//! short of resources with its shadow time; would delay the head; short of
//! resources); after a search that ran out of its node budget, a job that
//! still fits beside the head's reservation was not reached (node budget).
//! Starts: the head phase in order, the chosen set backfilled.
//!
//! # The search
//!
//! The best subset is seeded with the *greedy* one: each candidate in the
//! variant's order joins if it still fits with those before it. The search's
//! own first descent would find exactly that set, so the seed changes no
//! answer; it makes a zero budget mean "greedy" (DPSA-p with no budget is
//! EASY) and makes every DPSA-p decision start at least EASY's processors.
//! When the greedy set is provably optimal (it starts every processor the
//! bound below allows) there is nothing to search.
//!
//! The search visits subsets in the paper's order (each node adds one more
//! candidate after the last one added) with two exact prunings: it stops
//! when the best set reaches the upper bound of the whole problem (all free
//! processors, or all the candidates can give), and it abandons a branch
//! when what is used plus the most the remaining candidates could add cannot
//! beat the best strictly. Neither changes the answer.
//!
//! **Budget.** One *node* is one test of whether a candidate can join the
//! current set. A search may test at most `nodes` (the policy's parameter,
//! [`DEFAULT_DPSA_NODES`] by default); when it runs out it keeps the best set
//! found so far and counts a budget hit ([`crate::Counters`]). Work per pass
//! is therefore `O(nodes + queue length)`, and replays stay reproducible (a
//! wall-clock limit, as in the paper, would not be).
//!
//! **Candidates.** At most [`DPSA_CANDIDATES`] candidates, the first ones in
//! queue order, enter the search. When more jobs fit, the rest are offered
//! afterwards greedily, in queue order, with the chosen set already started
//! (EASY's backfill over the rest of the queue); such a pass is counted in
//! [`Counters::dpsa_overflows`](crate::Counters::dpsa_overflows). The
//! search never picks more jobs than the running set has room for.
//!
//! # Which subsets fit
//!
//! Several candidates that each fit alone need not fit together. On a
//! cluster of one machine without license pools the search decides this by
//! counting, in `O(1)` per node. With `S` the head's shadow time, `F` the
//! fewest processors free in `[now, S)` and `E` the fewest free from `S` on
//! (both with the head reserved), a candidate is *short* when it ends by the
//! shadow time (`now + estimate <= S`) and *long* otherwise, and a set fits
//! exactly when
//!
//! * its processors add up to at most `F`, and
//! * its long jobs' processors add up to at most `E`.
//!
//! This is the profile test "every job of the set fits over
//! `[now, now + estimate)` with the others and the head in the plan": the plan
//! holds only running jobs (which only end) and the head's reservation, so
//! the free processors never decrease on `[now, S)` nor on `[S, ∞)`, while the
//! set's use never increases; the binding instants are `now` (every job of
//! the set runs) and `S` (only the long ones still run). It is also the
//! paper's line 23 (each job takes the free processors with the least
//! availability that are enough for it, so short jobs use the processors the
//! head will take at `S` first). Every chosen job is then placed with the
//! plan's own test, and a disagreement would be returned as
//! [`KernelError::Internal`], never a wrong start; the tests compare the two
//! on random states.
//!
//! On several machines or with license pools the count does not apply (a job
//! needs one machine, and licenses are shared). There the search places each
//! candidate it adds with the plan's own test at the first machine (fastest
//! first) where it fits with the jobs already in the set, and takes it out
//! again when it backtracks: every set it considers fits, so every decision
//! is sound and the head's guarantee holds. What it maximises is then the
//! processors started over the subsets that this placement rule can place,
//! which may miss a subset that fits only with another choice of machines.
//! With one machine and no licenses both ways give the same sets.
//!
//! Source: I. Grudenić and N. Bogunović, *Computer cluster scheduling
//! algorithm based on time bounded dynamic programming*, MIPRO 2011
//! Readings of its ambiguities as in `docs/design.md`, "Choices where the
//! papers are vague": estimates for run times,
//! processors started for utilisation, stable size orders, greedy seed.

use super::easy::Easy;
use super::Rules;
use crate::deck::Deck;
use crate::plan::{Plan, Slot};
use crate::state::{Counters, KernelError, Observer, Pass, QueuedJob, State};
use crate::types::{Cluster, Job, Time};
use heapless::Vec;

/// How many candidates one search considers at most (the first ones in
/// queue order); any further jobs that fit are offered greedily after it.
pub const DPSA_CANDIDATES: usize = 128;

/// The default node budget of one search (see the module docs): 100,000.
///
/// Measured on LLNL-Thunder (whole trace, user estimates, replayed with a
/// budget of 10^8, `cargo xtask dpsa-nodes`): the nodes one search
/// needs have a median of 54 / 20 / 191 (DPSA-p / -n / -w), a 90th
/// percentile of 945 / 655 / 10,659 and a 99th of 5.5 million / 69,000 / 33
/// million, and 0.2-1% of the searches do not finish even with 10^8 nodes
/// (subset-sum cases the prunings cannot cut). 100,000 nodes settle 97% /
/// 99% / 92% of them; every further factor of 10 costs ten times the worst
/// pass and settles only a few more. A node costs about 30 ns here, so a
/// search takes at most a few milliseconds. Whole-trace replays of Thunder
/// take 0.2-0.8 s in release (1.8-3.8 s with 10^7 nodes, 5-15 s with 10^8),
/// and of CEA-Curie, the heaviest trace, 8-17 s (28-67 s with 10^6).
pub const DEFAULT_DPSA_NODES: u32 = 100_000;

// Candidate positions are stored as u16.
const _: () = assert!(DPSA_CANDIDATES <= u16::MAX as usize);

/// The order DPSA searches the candidates in, which decides ties between
/// subsets that start the same number of processors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DpsaOrder {
    /// DPSA-p: queue (priority) order; among equal subsets the one with the
    /// highest-priority job wins, then the second, and so on.
    Priority,
    /// DPSA-n: ascending by processors (ties in queue order): favours sets
    /// of narrow jobs.
    Narrow,
    /// DPSA-w: descending by processors (ties in queue order): favours sets
    /// of wide jobs.
    Wide,
}

impl DpsaOrder {
    /// The suffix of the policy name: `p`, `n` or `w`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Self::Priority => 'p',
            Self::Narrow => 'n',
            Self::Wide => 'w',
        }
    }
}

/// A waiting job that fits now on its own.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// Its position in the queue when the search began.
    index: usize,
    /// Its processors.
    procs: u32,
    /// It runs past the head's shadow time (one machine, no licenses only).
    long: bool,
}

/// DPSA's memory between calls.
#[derive(Clone, Debug)]
pub(crate) struct Dpsa {
    /// The head reservation, kept exactly as EASY keeps it.
    head: Easy,
    order: DpsaOrder,
    nodes: u32,
    /// When the last pass's search ran out of nodes: how many jobs ran
    /// after it. Until the state changes (a job arrives, which clears it,
    /// or ends, which lowers the running count), the pending reasons of
    /// the jobs it left that fit now say so (`super::explain`). Not kept by
    /// a checkpoint (a restored DPSA has it clear).
    budget_hit: Option<usize>,
}

impl Dpsa {
    /// DPSA searching in `order` with `nodes` search nodes per pass.
    pub(crate) const fn new(order: DpsaOrder, nodes: u32) -> Self {
        Self {
            head: Easy::new(false),
            order,
            nodes,
            budget_hit: None,
        }
    }

    /// The node budget, when the last pass's search ran out of it and no
    /// job arrived or ended since (`running`: how many jobs run now).
    pub(crate) fn budget_ran_out(&self, running: usize) -> Option<u32> {
        (self.budget_hit == Some(running)).then_some(self.nodes)
    }

    /// The job that holds the head reservation ([`Easy::reserved_head`]).
    pub(crate) const fn reserved_head(&self) -> Option<Job> {
        self.head.reserved_head()
    }

    /// A restored DPSA ([`Easy::restore`]).
    pub(crate) fn restore(&mut self, reserved_head: Option<Job>) {
        self.head.restore(reserved_head);
    }

    /// Puts the candidates (collected in queue order) into the variant's
    /// order; ties keep queue order.
    fn sort(&self, candidates: &mut [Candidate]) {
        match self.order {
            DpsaOrder::Priority => {}
            DpsaOrder::Narrow => candidates.sort_unstable_by_key(|c| (c.procs, c.index)),
            DpsaOrder::Wide => {
                candidates.sort_unstable_by_key(|c| (core::cmp::Reverse(c.procs), c.index));
            }
        }
    }

    /// Rules 3-5, with the head reserved at `shadow` in the plan.
    fn fill<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
        pass: &mut Pass,
        shadow: Time,
    ) -> Result<(), KernelError> {
        let now = st.now;
        let room = R.saturating_sub(st.running.len());
        if room == 0 || st.plan.most_free_now(now) == 0 {
            return Ok(());
        }
        let single = st.cluster.machines().len() == 1 && st.cluster.pools().is_empty();
        let mut candidates: Vec<Candidate, DPSA_CANDIDATES> = Vec::new();
        let (found, overflow) = if single {
            let mut counts = Counts::new(&st.cluster, &st.plan, now, shadow)?;
            let overflow = collect(&st.queue, &mut candidates, |job| counts.alone(job))?;
            self.sort(&mut candidates);
            (
                search(&mut counts, &candidates, room, self.nodes)?,
                overflow,
            )
        } else {
            let (plan, cluster) = (&st.plan, &st.cluster);
            let overflow = collect(&st.queue, &mut candidates, |job| {
                Ok(plan.fit_now(cluster, job, now)?.is_some().then_some(false))
            })?;
            self.sort(&mut candidates);
            let mut placer = Placer {
                plan: &mut st.plan,
                cluster: &st.cluster,
                queue: &st.queue,
                now,
                slots: Vec::new(),
                free: 0,
            };
            placer.free = placer.total_free();
            let found = search(&mut placer, &candidates, room, self.nodes);
            if found.is_err() {
                // A search stopped midway (a time overflow) leaves its
                // current set reserved: the plan must be as it was found.
                placer.release_all();
            }
            (found?, overflow)
        };
        count(&mut st.counters, &found, overflow.is_some());

        // Start the chosen set, in search order; earlier starts shift the
        // queue positions behind them.
        let mut started: Vec<usize, DPSA_CANDIDATES> = Vec::new();
        for &pick in &found.best {
            let c = candidates
                .get(usize::from(pick))
                .ok_or(KernelError::Internal("dpsa: no such candidate"))?;
            let shift = started.iter().filter(|&&i| i < c.index).count();
            let index = c.index.saturating_sub(shift);
            let job = st
                .queue
                .get(index)
                .map(|q| q.job)
                .ok_or(KernelError::Internal("dpsa: candidate left the queue"))?;
            let slot = st
                .plan
                .fit_now(&st.cluster, &job, now)?
                .ok_or(KernelError::Internal(
                    "dpsa: chosen set does not fit the plan",
                ))?;
            st.reserve_and_start(index, &job, slot, observer)?;
            pass.started = pass.started.saturating_add(1);
            started
                .push(c.index)
                .map_err(|_| KernelError::Internal("dpsa: too many picks"))?;
        }
        if let Some(first_left) = overflow {
            // Every started candidate was ahead of `first_left` in the queue.
            let from = first_left.saturating_sub(started.len());
            st.backfill_behind_head(observer, pass, from)?;
        }
        self.budget_hit = found.hit.then_some(st.running.len());
        Ok(())
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Rules<State<Q, R, B, M, L>> for Dpsa
{
    /// A job was queued at position `at` (as under EASY, whose memory DPSA
    /// keeps for its head phase).
    fn queued(&mut self, st: &mut State<Q, R, B, M, L>, at: usize) {
        self.budget_hit = None;
        self.head.queued(st, at);
    }

    /// One DPSA pass (module docs, rules 1-5).
    fn pass(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        let now = st.now;
        let mut pass = Pass::default();
        self.budget_hit = None;
        st.start_from_head(observer, &mut pass)?;
        let Some((head, shadow)) = self.head.reserve_head(st, observer)? else {
            return Ok(pass);
        };
        let result = self.fill(st, observer, &mut pass, shadow.start);
        // The head's reservation lives only during the pass.
        st.plan.release_from(&head, &shadow, now)?;
        result.map(|()| pass)
    }
}

/// Fills `candidates` with the queued jobs behind the head that `fits`
/// alone, in queue order; returns the queue position of the first one that
/// did not find room (all later jobs are left to the greedy step), if any.
fn collect<const Q: usize>(
    queue: &Deck<QueuedJob, Q>,
    candidates: &mut Vec<Candidate, DPSA_CANDIDATES>,
    mut fits: impl FnMut(&Job) -> Result<Option<bool>, KernelError>,
) -> Result<Option<usize>, KernelError> {
    for (index, q) in queue.iter().enumerate().skip(1) {
        let Some(long) = fits(&q.job)? else {
            continue;
        };
        let c = Candidate {
            index,
            procs: q.job.procs,
            long,
        };
        if candidates.push(c).is_err() {
            return Ok(Some(index));
        }
    }
    Ok(None)
}

/// What one search found.
#[derive(Debug, Default)]
struct Found {
    /// The chosen candidates (positions in the candidate list), ascending.
    best: Vec<u16, DPSA_CANDIDATES>,
    /// Whether the greedy set could not be shown optimal, so a search ran.
    searched: bool,
    /// Nodes visited.
    nodes: u32,
    /// Whether the budget ran out with work left.
    hit: bool,
}

fn count(counters: &mut Counters, found: &Found, overflow: bool) {
    if found.searched {
        counters.dpsa_searches = counters.dpsa_searches.saturating_add(1);
        counters.dpsa_nodes = counters.dpsa_nodes.saturating_add(u64::from(found.nodes));
    }
    if found.hit {
        counters.dpsa_budget_hits = counters.dpsa_budget_hits.saturating_add(1);
    }
    if overflow {
        counters.dpsa_overflows = counters.dpsa_overflows.saturating_add(1);
    }
}

/// Decides whether candidates fit together, one at a time: `add` puts a
/// candidate into the current set if it fits with the set (returns whether
/// it did), `undo` takes the last one added out again.
trait Packer {
    fn add(&mut self, c: &Candidate) -> Result<bool, KernelError>;
    fn undo(&mut self, c: &Candidate) -> Result<(), KernelError>;
    /// The most processors that candidates totalling `short` (and `long`)
    /// processors could still add to the current set.
    fn upper(&self, short: u64, long: u64) -> u64;
}

/// The count test of one machine without licenses (module docs).
struct Counts {
    shadow: Time,
    now: Time,
    /// Machine 0's speed scaling, to turn estimates into durations.
    machine: crate::types::Machine,
    /// Processors left for the set over `[now, S)`.
    before: u32,
    /// Processors left for the set's long jobs from `S` on.
    after: u32,
}

impl Counts {
    fn new<const B: usize, const M: usize, const L: usize>(
        cluster: &Cluster<M, L>,
        plan: &Plan<B, M, L>,
        now: Time,
        shadow: Time,
    ) -> Result<Self, KernelError> {
        let (Some(machine), Some(profile)) = (cluster.machines().first(), plan.machine(0)) else {
            return Err(KernelError::Internal("dpsa: no machine"));
        };
        let before = profile.min_free(now, shadow.saturating_sub(now))?;
        let steps = profile.steps();
        let from = steps.partition_point(|s| s.at <= shadow).saturating_sub(1);
        let after = steps
            .get(from..)
            .unwrap_or_default()
            .iter()
            .map(|s| s.free)
            .min()
            .unwrap_or(0);
        Ok(Self {
            shadow,
            now,
            machine: *machine,
            before,
            after,
        })
    }

    /// Whether `job` fits now on its own: `Some(long)` if it does.
    fn alone(&self, job: &Job) -> Result<Option<bool>, KernelError> {
        if job.procs > self.before {
            return Ok(None);
        }
        let duration = self
            .machine
            .scale(job.estimate)
            .ok_or(KernelError::TimeOverflow)?;
        let end = self
            .now
            .checked_add(duration)
            .ok_or(KernelError::TimeOverflow)?;
        let long = end > self.shadow;
        Ok((!long || job.procs <= self.after).then_some(long))
    }
}

impl Packer for Counts {
    fn add(&mut self, c: &Candidate) -> Result<bool, KernelError> {
        if c.procs > self.before || (c.long && c.procs > self.after) {
            return Ok(false);
        }
        self.before = self.before.saturating_sub(c.procs);
        if c.long {
            self.after = self.after.saturating_sub(c.procs);
        }
        Ok(true)
    }

    fn undo(&mut self, c: &Candidate) -> Result<(), KernelError> {
        self.before = self.before.saturating_add(c.procs);
        if c.long {
            self.after = self.after.saturating_add(c.procs);
        }
        Ok(())
    }

    fn upper(&self, short: u64, long: u64) -> u64 {
        let long = long.min(u64::from(self.after));
        short.saturating_add(long).min(u64::from(self.before))
    }
}

/// The plan's own test, for several machines or license pools: each job
/// added is reserved at its first fitting slot now and released on undo.
struct Placer<'a, const Q: usize, const B: usize, const M: usize, const L: usize> {
    plan: &'a mut Plan<B, M, L>,
    cluster: &'a Cluster<M, L>,
    queue: &'a Deck<QueuedJob, Q>,
    now: Time,
    /// Each job of the current set and where it is reserved, in the order
    /// added.
    slots: Vec<(Job, Slot), DPSA_CANDIDATES>,
    /// Processors still free now over all machines.
    free: u64,
}

impl<const Q: usize, const B: usize, const M: usize, const L: usize> Placer<'_, Q, B, M, L> {
    fn total_free(&self) -> u64 {
        (0..self.cluster.machines().len())
            .filter_map(|m| self.plan.machine(m))
            .map(|p| u64::from(p.free_at(self.now)))
            .sum()
    }

    /// Gives back every reservation of the current set: what a search that
    /// stopped on an error leaves, so that the plan is as it was found.
    fn release_all(&mut self) {
        while let Some((job, slot)) = self.slots.pop() {
            // Giving back what was taken cannot fail.
            let _ = self.plan.release_from(&job, &slot, self.now);
        }
    }

    fn job(&self, c: &Candidate) -> Result<Job, KernelError> {
        self.queue
            .get(c.index)
            .map(|q| q.job)
            .ok_or(KernelError::Internal("dpsa: candidate left the queue"))
    }
}

impl<const Q: usize, const B: usize, const M: usize, const L: usize> Packer
    for Placer<'_, Q, B, M, L>
{
    fn add(&mut self, c: &Candidate) -> Result<bool, KernelError> {
        let job = self.job(c)?;
        let Some(slot) = self.plan.fit_now(self.cluster, &job, self.now)? else {
            return Ok(false);
        };
        if self.slots.is_full() {
            return Ok(false);
        }
        self.plan.reserve(&job, &slot)?;
        if self.slots.push((job, slot)).is_err() {
            self.plan.release_from(&job, &slot, self.now)?;
            return Ok(false);
        }
        self.free = self.free.saturating_sub(u64::from(c.procs));
        Ok(true)
    }

    fn undo(&mut self, c: &Candidate) -> Result<(), KernelError> {
        let (job, slot) = self
            .slots
            .pop()
            .ok_or(KernelError::Internal("dpsa: undo without add"))?;
        if job.id != self.job(c)?.id {
            return Err(KernelError::Internal("dpsa: undo of another job"));
        }
        self.plan.release_from(&job, &slot, self.now)?;
        self.free = self.free.saturating_add(u64::from(c.procs));
        Ok(())
    }

    fn upper(&self, short: u64, long: u64) -> u64 {
        short.saturating_add(long).min(self.free)
    }
}

/// The search (module docs): the greedy seed, then a depth-first search
/// over subsets in candidate order with the exact prunings, at most `budget`
/// nodes, never more than `room` jobs. The packer is left as it was found.
fn search<P: Packer>(
    packer: &mut P,
    candidates: &[Candidate],
    room: usize,
    budget: u32,
) -> Result<Found, KernelError> {
    let mut found = Found::default();
    let room = room.min(DPSA_CANDIDATES);
    // What candidates `i..` add up to, short and long apart.
    let mut rest = [(0u64, 0u64); DPSA_CANDIDATES + 1];
    for (i, c) in candidates.iter().enumerate().rev() {
        let next = rest.get(i.saturating_add(1)).copied().unwrap_or((0, 0));
        let sum = if c.long {
            (next.0, next.1.saturating_add(u64::from(c.procs)))
        } else {
            (next.0.saturating_add(u64::from(c.procs)), next.1)
        };
        if let Some(slot) = rest.get_mut(i) {
            *slot = sum;
        }
    }
    let rest_from = |i: usize| rest.get(i).copied().unwrap_or((0, 0));
    // The greedy seed.
    let mut best_used = 0u64;
    for (i, c) in candidates.iter().enumerate() {
        if found.best.len() >= room {
            break;
        }
        if packer.add(c)? {
            best_used = best_used.saturating_add(u64::from(c.procs));
            push(&mut found.best, i)?;
        }
    }
    for &i in found.best.iter().rev() {
        let c = candidates
            .get(usize::from(i))
            .ok_or(KernelError::Internal("dpsa: no such candidate"))?;
        packer.undo(c)?;
    }
    let (short, long) = rest_from(0);
    let ceiling = packer.upper(short, long);
    if best_used >= ceiling {
        return Ok(found); // the greedy set is optimal
    }
    found.searched = true;
    let mut picks: Vec<u16, DPSA_CANDIDATES> = Vec::new();
    let mut used = 0u64;
    let mut next = 0usize;
    let result = 'search: loop {
        // Extend the current set with the first candidate from `next` on
        // that fits, unless no extension can beat the best.
        let mut extended = false;
        while next < candidates.len() && picks.len() < room {
            let (short, long) = rest_from(next);
            if used.saturating_add(packer.upper(short, long)) <= best_used {
                break;
            }
            if found.nodes >= budget {
                found.hit = true;
                break 'search Ok(());
            }
            found.nodes = found.nodes.saturating_add(1);
            let Some(c) = candidates.get(next) else {
                break;
            };
            match packer.add(c) {
                Ok(true) => {}
                Ok(false) => {
                    next = next.saturating_add(1);
                    continue;
                }
                Err(e) => break 'search Err(e),
            }
            if let Err(e) = push(&mut picks, next) {
                break 'search Err(e);
            }
            used = used.saturating_add(u64::from(c.procs));
            next = next.saturating_add(1);
            extended = true;
            break;
        }
        if extended {
            if used > best_used {
                best_used = used;
                found.best.clone_from(&picks);
                if best_used >= ceiling {
                    break 'search Ok(());
                }
            }
            continue;
        }
        // Backtrack: take the last candidate out and try the ones after it.
        let Some(last) = picks.pop() else {
            break 'search Ok(());
        };
        let last = usize::from(last);
        let Some(c) = candidates.get(last) else {
            break 'search Err(KernelError::Internal("dpsa: no such candidate"));
        };
        if let Err(e) = packer.undo(c) {
            break 'search Err(e);
        }
        used = used.saturating_sub(u64::from(c.procs));
        next = last.saturating_add(1);
    };
    // Leave the packer as it was found, whatever happened.
    while let Some(last) = picks.pop() {
        if let Some(c) = candidates.get(usize::from(last)) {
            packer.undo(c)?;
        }
    }
    result.map(|()| found)
}

fn push(set: &mut Vec<u16, DPSA_CANDIDATES>, i: usize) -> Result<(), KernelError> {
    let i = u16::try_from(i).map_err(|_| KernelError::Internal("dpsa: candidate index"))?;
    set.push(i)
        .map_err(|_| KernelError::Internal("dpsa: too many picks"))
}

#[cfg(test)]
mod tests;
