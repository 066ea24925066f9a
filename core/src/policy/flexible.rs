//! Flexible backfilling on heterogeneous farms: BF_FCFS, BF_UNMOD, BF_MOD.
//!
//! Rules (`docs/design.md`, "Flexible backfilling", with its
//! heuristics), all three on the same pass:
//!
//! 1. **Order.** At every scheduling pass (every event: a submission, a
//!    completion) the wait queue is put in the policy's order. BF_FCFS:
//!    `(submit, id)`. BF_UNMOD and BF_MOD: by the priority `P(J)` of the
//!    [`Heuristics`], recomputed for every queued job at `now`, highest
//!    first; ties by `(submit, id)`. Priorities are integers (fixed point),
//!    so the order is the same on every platform.
//! 2. **The head.** BF_FCFS and BF_UNMOD: the job that holds the
//!    reservation (the *head*) keeps the front of the queue, whatever its
//!    priority, until it starts. BF_MOD: the front is always the
//!    highest-priority job; when another job overtakes the holder, the
//!    reservation passes to it ([`Counters::reservation_handovers`] counts
//!    how often).
//! 3. **Start from the front** while jobs fit now (machines tried most
//!    powerful first, ties by index: [`Plan::fit_now`]).
//! 4. The first job that does not fit is the head: it gets a reservation at
//!    its earliest slot on any eligible machine, licenses included
//!    ([`Plan::earliest`]; equal starts go to the most powerful machine).
//! 5. **Backfill** the rest in the policy's order: a job starts now when it
//!    fits the plan with the head's reservation in it, exactly as EASY.
//!
//! BF_FCFS is EASY on the farm: on a one-machine cluster it makes EASY's
//! decisions, and so does BF_UNMOD (and BF_MOD) when every weight but
//! aging's is zero and no job has a deadline or a license, since aging alone
//! orders by submit time. Under BF_FCFS and BF_UNMOD the head's first
//! reservation is a guarantee (it never moves later: backfilled jobs fit
//! around it and running jobs end by their estimates); under BF_MOD it is
//! not, and BF_MOD is not starvation-free for weak aging (a job can be
//! overtaken again and again; the paper's remedy is a larger aging weight).
//!
//! # The heuristics (priority `P(J)`, a weighted sum)
//!
//! * **Minimal requirements**: a filter, not a score: a job is only placed on
//!   machines with enough processors where all its licenses can be
//!   activated ([`Cluster::eligible`](crate::Cluster::eligible)).
//! * **Aging**: `age_factor * (now - submit)`.
//! * **Deadline**: with `ex` the job's estimate on the fastest machine it is
//!   eligible for, `te = now + ex`, `over = k * ex` (`k > 1`),
//!   `ts = deadline - over`: `min` while `te < ts`, rising linearly to `max`
//!   at `te = deadline` (`min + (max - min) * (te - ts) / over`), and 0 once
//!   `te > deadline` (it can no longer be met). Jobs without a deadline: 0.
//! * **Licenses**: `rho(l) = requests(l) / copies(l)`, requests counted over
//!   the queued jobs; a license is *critical* when `rho(l) > 1`. The score
//!   is `sum of rho(l)` over the job's non-critical licenses plus
//!   `d * sum of rho(l)` over its critical ones, with `d` the number of
//!   distinct non-critical licenses the queue asks for (at least 1), so one
//!   critical license outweighs all non-critical ones.
//! * **Wait minimisation**: `boost * min_ex / ex`, `min_ex` the smallest
//!   `ex` in the queue: shorter jobs first.
//!
//! Units: scores are milli-points (1000 = one point of the paper), weights
//! are thousandths (1000 = weight 1), `P(J) = sum of weight * score`
//! (micro-points, `i64`, saturating). [`Heuristics::DEFAULT`] documents the
//! defaults and why.
//!
//! Source: R. Baraglia, G. Capannini, M. Pasquali, D. Puppin, L. Ricci and
//! A. D. Techiouba, *Backfilling strategies for scheduling streams of jobs
//! on computational farms*, CoreGRID Workshop "Making Grids Work", 2007.
//!
//! [`Counters::reservation_handovers`]: crate::Counters::reservation_handovers
//! [`Plan::fit_now`]: crate::Plan::fit_now
//! [`Plan::earliest`]: crate::Plan::earliest
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): as EASY, on a farm
//! short of a machine (none of those it may use has enough processors free
//! now) or of a license (its first pool with no copy free now) rather than
//! of processors; the head's expected start is its shadow time.

use super::Rules;
use crate::state::{KernelError, Observer, Pass, QueuedJob, State};
use crate::types::{Cluster, Duration, Job, JobId, LicenseSet, Time};
use heapless::Vec;

/// The weights and constants of flexible backfilling's five heuristics.
///
/// Weights are thousandths (1000 = 1.0); scores are milli-points. A job's
/// priority is `aging_weight * aging + deadline_weight * deadline +
/// license_weight * licenses + wait_weight * wait` (see the module docs for
/// each score). All integers, so priorities compare exactly everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Heuristics {
    /// Weight of the aging score, thousandths.
    pub aging_weight: u32,
    /// Aging: milli-points per second of wait (the paper's `age_factor`).
    pub age_factor: u32,
    /// Weight of the deadline score, thousandths.
    pub deadline_weight: u32,
    /// Deadline: the score of a job far from its deadline, milli-points.
    pub deadline_min: u32,
    /// Deadline: the score of a job whose estimated end is its deadline,
    /// milli-points.
    pub deadline_max: u32,
    /// Deadline: `k`, thousandths: the score starts rising when the
    /// estimated end is within `k * ex` of the deadline (the paper asks
    /// `k > 1`).
    pub deadline_k: u32,
    /// Weight of the licenses score, thousandths.
    pub license_weight: u32,
    /// Weight of the wait-minimisation score, thousandths.
    pub wait_weight: u32,
    /// Wait minimisation: the score of the shortest queued job,
    /// milli-points (the paper's `priority_boost_value`).
    pub wait_boost: u32,
}

impl Heuristics {
    /// The defaults: every weight 1; aging 1 point per 1000 s of wait;
    /// deadline scores from 1 (far) to 10 (at the deadline) with `k = 2`;
    /// wait minimisation boost 1.
    ///
    /// Why: the paper gives none of these values. With every weight 1 no
    /// heuristic is favoured a priori. Scores are kept of order one point
    /// over the paper's time scales (estimates 500-3000 s): aging reaches
    /// one point after 1000 s, about half a mean estimate, and overtakes the
    /// largest deadline score (10) after 10,000 s, so under BF_MOD a job
    /// that has waited that long outranks every fresh deadline job; the
    /// wait score lies in `(0, 1]`; the deadline score's range 1-10 makes a
    /// job at risk clearly more urgent than one with a far deadline (1),
    /// and `k = 2` starts the rise two estimates before the deadline. The
    /// license score is the paper's formula unscaled (about 1 per license
    /// at full contention).
    pub const DEFAULT: Self = Self {
        aging_weight: 1000,
        age_factor: 1,
        deadline_weight: 1000,
        deadline_min: 1000,
        deadline_max: 10_000,
        deadline_k: 2000,
        license_weight: 1000,
        wait_weight: 1000,
        wait_boost: 1000,
    };

    /// Aging only: every other weight zero (then BF_UNMOD and BF_MOD order
    /// the queue by submit time, as BF_FCFS).
    pub const AGING_ONLY: Self = Self {
        deadline_weight: 0,
        license_weight: 0,
        wait_weight: 0,
        ..Self::DEFAULT
    };

    /// Aging score: `age_factor * (now - submit)`, milli-points (0 for a
    /// job submitted after `now`).
    #[must_use]
    pub fn aging(&self, now: Time, submit: Time) -> i64 {
        i64::from(self.age_factor).saturating_mul(i64::from(now.saturating_sub(submit)))
    }

    /// Deadline score at `now` of a job whose estimate on the fastest
    /// machine it can use is `execution` s, milli-points: `deadline_min`
    /// while the estimated end `te = now + execution` is before
    /// `ts = deadline - k * execution`; then linear up to `deadline_max` at
    /// `te == deadline`; 0 once `te > deadline` (the deadline cannot be
    /// met) and for a job without a deadline.
    #[must_use]
    pub fn deadline(&self, now: Time, execution: Duration, deadline: Option<Time>) -> i64 {
        let Some(deadline) = deadline else {
            return 0;
        };
        let end = i64::from(now).saturating_add(i64::from(execution));
        let deadline = i64::from(deadline);
        if end > deadline {
            return 0;
        }
        // over = ceil(k * ex), at least 1 second.
        let over = (i64::from(self.deadline_k).saturating_mul(i64::from(execution)))
            .saturating_add(999)
            .checked_div(1000)
            .unwrap_or(0)
            .max(1);
        let threshold = deadline.saturating_sub(over);
        let min = i64::from(self.deadline_min);
        if end < threshold {
            return min;
        }
        let span = i64::from(self.deadline_max).saturating_sub(min);
        // 0 <= end - threshold <= over, so this lies between min and max.
        let rise = span
            .saturating_mul(end.saturating_sub(threshold))
            .checked_div(over)
            .unwrap_or(0);
        min.saturating_add(rise)
    }

    /// Wait-minimisation score of a job with estimate `execution` when the
    /// shortest queued estimate is `shortest` (both on their fastest
    /// eligible machines): `wait_boost * shortest / execution`, milli-points.
    #[must_use]
    pub fn wait(&self, shortest: Duration, execution: Duration) -> i64 {
        let product = i64::from(self.wait_boost).saturating_mul(i64::from(shortest));
        product
            .checked_div(i64::from(execution.max(1)))
            .unwrap_or(0)
    }

    /// The priority from the four scores (milli-points): their weighted
    /// sum, in micro-points, saturating.
    #[must_use]
    pub fn priority(&self, scores: &Scores) -> i64 {
        let term = |weight: u32, score: i64| i64::from(weight).saturating_mul(score);
        term(self.aging_weight, scores.aging)
            .saturating_add(term(self.deadline_weight, scores.deadline))
            .saturating_add(term(self.license_weight, scores.licenses))
            .saturating_add(term(self.wait_weight, scores.wait))
    }
}

impl Default for Heuristics {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One job's four heuristic scores, milli-points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Scores {
    /// [`Heuristics::aging`].
    pub aging: i64,
    /// [`Heuristics::deadline`].
    pub deadline: i64,
    /// [`LicenseDemand::score`].
    pub licenses: i64,
    /// [`Heuristics::wait`].
    pub wait: i64,
}

/// Most license pools (the width of [`LicenseSet`]).
const POOLS: usize = 32;

/// The license heuristic's view of the queue: per pool, how many queued
/// jobs ask for it against how many copies exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LicenseDemand {
    /// Per pool, what one needed copy adds to a job's score (milli-points):
    /// `rho`, times `d` when the pool is critical.
    contribution: [i64; POOLS],
    /// Pools asked for by more queued jobs than they have copies.
    critical: u32,
    /// `d`: distinct non-critical pools the queue asks for, at least 1.
    multiplier: i64,
}

impl LicenseDemand {
    /// The demand when pool `l` has `copies[l]` copies and `requests[l]`
    /// queued jobs need it (pools past 32 are ignored). A pool without
    /// copies scores 0 (no job needing it is ever queued).
    #[must_use]
    pub fn new(copies: &[u32], requests: &[u32]) -> Self {
        let mut demand = Self {
            contribution: [0; POOLS],
            critical: 0,
            multiplier: 1,
        };
        let mut non_critical: i64 = 0;
        for (pool, (&count, &asked)) in copies.iter().zip(requests).enumerate().take(POOLS) {
            if count == 0 {
                continue;
            }
            if asked > count {
                demand.critical |= 1_u32
                    .checked_shl(u32::try_from(pool).unwrap_or(31))
                    .unwrap_or(0);
            } else if asked > 0 {
                non_critical = non_critical.saturating_add(1);
            }
        }
        demand.multiplier = non_critical.max(1);
        for (pool, (&count, &asked)) in copies.iter().zip(requests).enumerate().take(POOLS) {
            if count == 0 {
                continue;
            }
            // rho in milli-points, rounded down.
            let rho = i64::from(asked)
                .saturating_mul(1000)
                .checked_div(i64::from(count))
                .unwrap_or(0);
            let critical = asked > count;
            if let Some(slot) = demand.contribution.get_mut(pool) {
                *slot = if critical {
                    rho.saturating_mul(demand.multiplier)
                } else {
                    rho
                };
            }
        }
        demand
    }

    /// The licenses score of a job needing `licenses`, milli-points.
    #[must_use]
    pub fn score(&self, licenses: LicenseSet) -> i64 {
        let mut bits = licenses.0;
        let mut total: i64 = 0;
        while bits != 0 {
            let pool = bits.trailing_zeros();
            bits &= bits.wrapping_sub(1);
            let add = usize::try_from(pool)
                .ok()
                .and_then(|p| self.contribution.get(p))
                .copied()
                .unwrap_or(0);
            total = total.saturating_add(add);
        }
        total
    }

    /// Whether pool `pool` is critical (more queued requests than copies).
    #[must_use]
    pub const fn is_critical(&self, pool: usize) -> bool {
        pool < POOLS && (self.critical >> pool) & 1 == 1
    }

    /// `d`: the distinct non-critical pools the queue asks for, at least 1.
    #[must_use]
    pub const fn multiplier(&self) -> i64 {
        self.multiplier
    }
}

/// Which job holds the reservation, and the order of the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// BF_FCFS: `(submit, id)` order; the head keeps the front until it starts.
    Fcfs,
    /// BF_UNMOD: priority order; the head keeps the front until it starts.
    Unmod,
    /// BF_MOD: priority order; the highest-priority job holds the reservation.
    Mod,
}

/// Flexible backfilling's memory between calls.
#[derive(Clone, Debug)]
pub(crate) struct Flexible {
    mode: Mode,
    heuristics: Heuristics,
    /// The job that held the reservation after the last pass, if it has not
    /// started since.
    holder: Option<JobId>,
}

impl Flexible {
    /// A fresh engine.
    pub(crate) const fn new(mode: Mode, heuristics: Heuristics) -> Self {
        Self {
            mode,
            heuristics,
            holder: None,
        }
    }

    /// The job that held the reservation after the last pass.
    pub(crate) const fn holder(&self) -> Option<JobId> {
        self.holder
    }

    /// A restored engine whose reservation `holder` holds.
    pub(crate) fn restore(&mut self, holder: Option<JobId>) {
        self.holder = holder;
    }

    /// Puts the queue in the policy's order (rules 1 and 2).
    ///
    /// Never inlined: its sort keys take `8 * Q` bytes of stack, which a
    /// caller that inlined it would reserve (and probe, page by page) on
    /// every call, whichever policy runs.
    #[inline(never)]
    fn order<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &self,
        st: &mut State<Q, R, B, M, L>,
    ) -> Result<(), KernelError> {
        // (-priority, queue index); the rest of the key, (submit, id), is
        // read from the queue on ties. Sorting this and then permuting the
        // queue computes each priority once per pass.
        let mut keys: Vec<(i64, u32), Q> = Vec::new();
        let context = match self.mode {
            Mode::Fcfs => None,
            Mode::Unmod | Mode::Mod => Some(Context::new(st)),
        };
        for (index, entry) in st.queue.iter().enumerate() {
            let priority = context
                .as_ref()
                .map_or(0, |c| c.priority(&self.heuristics, &st.cluster, &entry.job));
            let index = u32::try_from(index).map_err(|_| KernelError::Internal("queue index"))?;
            keys.push((priority.saturating_neg(), index))
                .map_err(|_| KernelError::Internal("priority keys"))?;
        }
        let queue: &[QueuedJob] = &st.queue;
        let tie = |i: u32| {
            usize::try_from(i)
                .ok()
                .and_then(|i| queue.get(i))
                .map_or((Time::MAX, JobId::MAX), |q| (q.job.submit, q.job.id))
        };
        keys.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| tie(a.1).cmp(&tie(b.1))));
        permute(&mut st.queue, &mut keys);
        if self.mode != Mode::Mod {
            if let Some(holder) = self.holder {
                if let Some(at) = st.queue.iter().position(|q| q.job.id == holder) {
                    if let Some(prefix) = st.queue.get_mut(..=at) {
                        prefix.rotate_right(1);
                    }
                }
            }
        }
        Ok(())
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Rules<State<Q, R, B, M, L>> for Flexible
{
    /// One pass (module docs, rules 1-5).
    fn pass(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        let now = st.now;
        let mut pass = Pass::default();
        self.order(st)?;
        st.start_from_head(observer, &mut pass)?;
        let Some(head) = st.queue.first().copied() else {
            self.holder = None;
            return Ok(pass);
        };
        if self.holder != Some(head.job.id) {
            if let Some(old) = self.holder {
                if let Some(entry) = st.queue.iter_mut().find(|q| q.job.id == old) {
                    // Still waiting, so overtaken (only BF_MOD lets that
                    // happen): its reservation passes to the new head.
                    entry.set_reservation(None);
                    st.counters.reservation_handovers =
                        st.counters.reservation_handovers.saturating_add(1);
                }
            }
            self.holder = Some(head.job.id);
        }
        let shadow = st
            .plan
            .earliest(&st.cluster, &head.job, now)?
            .ok_or(KernelError::Unrunnable(head.job.id))?;
        if head.reservation() != Some(shadow) {
            observer.reserved(&head.job, shadow);
        }
        let guaranteed = self.mode != Mode::Mod;
        if let Some(entry) = st.queue.first_mut() {
            entry.set_reservation(Some(shadow));
            if entry.guarantee().is_none() && guaranteed {
                entry.set_guarantee(Some(shadow.start));
            }
        }
        st.plan.reserve(&head.job, &shadow)?;
        let result = if st.cluster.pools().is_empty() && st.cluster.machines().len() == 1 {
            st.backfill_behind_head(observer, &mut pass, 1)
        } else {
            st.backfill_on_farm(observer, &mut pass)
        };
        // The head's reservation lives only during the pass, as EASY's.
        st.plan.release_from(&head.job, &shadow, now)?;
        result.map(|()| pass)
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    State<Q, R, B, M, L>
{
    /// EASY's backfill loop ([`State::backfill_behind_head`]) with two exact
    /// quick rejections that make deep queues on farms cheap: a job wider than
    /// the most CPUs free now on any machine, or needing a license pool with no
    /// copy free now, cannot fit now, so the plan is not searched for it. The
    /// decisions are the same as without them.
    fn backfill_on_farm(
        &mut self,
        observer: &mut impl Observer,
        pass: &mut Pass,
    ) -> Result<(), KernelError> {
        let now = self.now;
        let pools_free_now = |st: &Self| {
            (0..st.cluster.pools().len().min(POOLS))
                .filter(|&l| st.plan.license(l).is_some_and(|p| p.free_at(now) > 0))
                .fold(0_u32, |bits, l| {
                    bits | 1_u32
                        .checked_shl(u32::try_from(l).unwrap_or(31))
                        .unwrap_or(0)
                })
        };
        let mut most_free = self.plan.most_free_now(now);
        let mut pools = pools_free_now(self);
        let mut index = 1;
        while most_free > 0 {
            let Some(entry) = self.queue.get(index).copied() else {
                break;
            };
            if entry.job.procs > most_free || entry.job.licenses.0 & !pools != 0 {
                index = index.saturating_add(1);
                continue;
            }
            match self.plan.fit_now(&self.cluster, &entry.job, now)? {
                Some(slot) => {
                    self.reserve_and_start(index, &entry.job, slot, observer)?;
                    pass.started = pass.started.saturating_add(1);
                    most_free = self.plan.most_free_now(now);
                    pools = pools_free_now(self);
                }
                None => index = index.saturating_add(1),
            }
        }
        Ok(())
    }
}

/// Puts `items[keys[j].1]` at position `j` for every `j`, in place
/// (following each cycle of the permutation once); `keys` is consumed
/// (every index is set to its own position).
fn permute<T: Copy>(items: &mut [T], keys: &mut [(i64, u32)]) {
    let position = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    for start in 0..keys.len() {
        let Some(&(_, source)) = keys.get(start) else {
            break;
        };
        if source == position(start) {
            continue;
        }
        let Some(first) = items.get(start).copied() else {
            break;
        };
        let mut at = start;
        loop {
            let Some(key) = keys.get_mut(at) else {
                return;
            };
            let from = usize::try_from(key.1).unwrap_or(usize::MAX);
            key.1 = position(at);
            let value = if from == start {
                Some(first)
            } else {
                items.get(from).copied()
            };
            let (Some(value), Some(slot)) = (value, items.get_mut(at)) else {
                return;
            };
            *slot = value;
            if from == start {
                break;
            }
            at = from;
        }
    }
}

/// What every job's priority at this pass depends on besides the job.
struct Context {
    now: Time,
    /// The smallest estimate in the queue on its fastest eligible machine.
    shortest: Duration,
    licenses: LicenseDemand,
    /// Every machine's speed, when they are all equal (then a job's
    /// estimate on its fastest eligible machine needs no search).
    uniform_speed: Option<crate::types::Machine>,
}

impl Context {
    fn new<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        st: &State<Q, R, B, M, L>,
    ) -> Self {
        let machines = st.cluster.machines();
        let uniform_speed = machines
            .first()
            .copied()
            .filter(|first| machines.iter().all(|m| m.speed == first.speed));
        let mut context = Self {
            now: st.now,
            shortest: Duration::MAX,
            licenses: LicenseDemand::new(&[], &[]),
            uniform_speed,
        };
        let mut requests = [0_u32; POOLS];
        for entry in st.queue.iter() {
            let execution = context.execution(&st.cluster, &entry.job);
            context.shortest = context.shortest.min(execution);
            let mut bits = entry.job.licenses.0;
            while bits != 0 {
                let pool = usize::try_from(bits.trailing_zeros()).unwrap_or(POOLS);
                bits &= bits.wrapping_sub(1);
                if let Some(count) = requests.get_mut(pool) {
                    *count = count.saturating_add(1);
                }
            }
        }
        let mut copies = [0_u32; POOLS];
        for (slot, pool) in copies.iter_mut().zip(st.cluster.pools()) {
            *slot = pool.count;
        }
        context.licenses = LicenseDemand::new(&copies, &requests);
        context
    }

    /// The job's estimate on the fastest machine it is eligible for (its
    /// reference estimate when none is, which the kernel never queues).
    fn execution<const M: usize, const L: usize>(
        &self,
        cluster: &Cluster<M, L>,
        job: &Job,
    ) -> Duration {
        let machine = match self.uniform_speed {
            Some(m) => Some(m),
            None => cluster
                .order()
                .iter()
                .map(|&m| usize::from(m))
                .find(|&m| cluster.eligible(job, m))
                .and_then(|m| cluster.machines().get(m).copied()),
        };
        machine
            .and_then(|m| m.scale(job.estimate))
            .unwrap_or(job.estimate)
            .max(1)
    }

    fn priority<const M: usize, const L: usize>(
        &self,
        heuristics: &Heuristics,
        cluster: &Cluster<M, L>,
        job: &Job,
    ) -> i64 {
        let execution = self.execution(cluster, job);
        let scores = Scores {
            aging: heuristics.aging(self.now, job.submit),
            deadline: heuristics.deadline(self.now, execution, job.deadline()),
            licenses: self.licenses.score(job.licenses),
            wait: heuristics.wait(self.shortest, execution),
        };
        heuristics.priority(&scores)
    }
}

#[cfg(test)]
mod tests;
