//! CONS+RS, Alea flavour: the random search of the Alea simulator's CONS+RS.
//!
//! Rules (`docs/design.md`, "CONS+RS", the Alea flavour):
//!
//! * Every job is reserved on arrival at its earliest fit, as under
//!   Conservative, and starts at its reservation. There is no compression
//!   pass; the plan changes only through the searches.
//! * The plan is read as a **list**: the waiting jobs in order of their
//!   reservation start (ties: queue order). *Scheduling a list* gives each
//!   job in turn the processors that come free earliest after the jobs
//!   before it (a list schedule on the processors: each processor is free
//!   from the later of now and the estimated end of the last job given it);
//!   the job starts when its last processor comes free. No job fills an
//!   idle stretch before an earlier-listed job.
//! * A **search** runs after every instant with an early completion (on
//!   demand) and every [`PERIOD`] seconds from the first arrival
//!   (periodically, a kernel wake-up of its own), when at least two jobs
//!   wait. It first schedules the current list (jobs move earlier where
//!   processors came free early), then runs its iteration budget
//!   ([`Iterations`](super::Iterations), 4 per waiting job by default): pick a waiting job
//!   uniformly and a position in the list without it uniformly (seeded
//!   PRNG, advanced only here), put it there, schedule the new list, and
//!   keep the move iff the weighted objective improves (below); a kept list
//!   is re-sorted by the new starts. The plan then takes the list's
//!   schedule. There is no guarantee: a move may delay any job.
//! * **Objective** over the waiting jobs, with `d` a job's reserved
//!   duration and `s` its planned start: `R` the mean of `s + d - submit`,
//!   `W` the mean of `s - submit`, `S` the larger of 1 and the mean of
//!   `max(1, s + d - submit) / max(1, d + 1)`. A move from `(R, W, S)` to
//!   `(R', W', S')` is kept iff the sum `(R - R') / R + (W - W') / W +
//!   (S - S') / S` is positive (`R` and `W` below 1e-13 count as 1e-13).
//!   Alea adds ten times the change of a fairness term over users; jobs
//!   here carry no user, so it is left out.
//!
//! It needs one machine without license pools (Alea's setting): on any
//! other cluster a search fails with [`KernelError::Unsupported`].
//!
//! Source: the Alea simulator (`aleasimulator/alea`):
//! `src/xklusac/algorithms/schedule_based/optimization/RandomSearch.java`
//! (the move and the acceptance), `src/xklusac/environment/Scheduler.java`
//! (when searches run, the budget),
//! `src/xklusac/environment/ResourceInfo.java` (scheduling the list) and
//! `src/xklusac/objective_functions/CommonObjectives.java` (the objective).
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): as Conservative
//! (every job reserved; its reservation, which is no promise here, is its
//! expected start).

use super::cons_rs::SearchMemory;
use super::conservative::{Compression, Conservative, Earliest, Reserves};
use super::RandomSearch;
use crate::plan::Slot;
use crate::state::{KernelError, Observer, State};
use crate::types::Time;
use heapless::binary_heap::{Min, PeekMut};
use heapless::{BinaryHeap, Vec};

/// Seconds between two periodic searches (Alea's 300).
pub const PERIOD: Time = 300;

/// The Alea flavour's memory between calls.
#[derive(Clone, Debug)]
pub(crate) struct ConsRsAlea {
    /// The random search's memory, over Conservative without its
    /// compression pass.
    pub(crate) memory: SearchMemory,
    /// When the next periodic search is due (`None` before the first
    /// arrival).
    next_periodic: Option<Time>,
}

impl ConsRsAlea {
    /// The Alea flavour with `params`.
    pub(crate) fn new(params: RandomSearch) -> Self {
        let cons = Conservative {
            static_plan: true,
            ..Conservative::default()
        };
        Self {
            memory: SearchMemory::new(params, cons),
            next_periodic: None,
        }
    }

    /// What a checkpoint keeps: the generator's state, whether an early
    /// completion calls for a search, and when the next periodic search is
    /// due. The inner Conservative keeps nothing of its own: it never
    /// compresses, and its bookkeeping of the earliest reservation is work
    /// saved between calls.
    pub(crate) const fn search_state(&self) -> (u64, bool, Option<Time>) {
        let (rng, early) = self.memory.search_state();
        (rng, early, self.next_periodic)
    }

    /// A restored engine: the generator continues from `rng`, a search is
    /// due at the next settle when `early`, and the periodic searches
    /// continue from `next_periodic`.
    pub(crate) fn restore(&mut self, rng: u64, early: bool, next_periodic: Option<Time>) {
        self.memory.restore(rng, early);
        self.next_periodic = next_periodic;
    }

    /// One search: schedule the current list, run the iterations, and give
    /// the plan the list's schedule.
    // Never inlined: its queue-sized lists stay in its own frame, so the
    // other policies' passes keep their small stacks.
    #[inline(never)]
    fn search<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        let n = st.queue.len();
        if n < 2 {
            return Ok(());
        }
        let cpus = match (st.cluster.machines(), st.cluster.pools()) {
            ([machine], []) => machine.cpus,
            _ => {
                return Err(KernelError::Unsupported(
                    "the Alea flavour of CONS+RS needs one machine without license pools",
                ))
            }
        };
        st.counters.rs_searches = st.counters.rs_searches.saturating_add(1);
        // The list: queue indices in order of reservation start.
        let mut order: Vec<usize, Q> = Vec::new();
        let mut key: Vec<Time, Q> = Vec::new();
        for q in &st.queue {
            let start = q.reservation().map_or(Time::MAX, |s| s.start);
            key.push(start)
                .map_err(|_| KernelError::Internal("search: queue larger than capacity"))?;
        }
        for index in 0..n {
            order
                .push(index)
                .map_err(|_| KernelError::Internal("search: queue larger than capacity"))?;
        }
        sort_by_start(&mut order, &key);
        let machine = Machine::of(st, cpus)?;
        // `key` now holds each job's start in the current list's schedule.
        schedule(st, &machine, &order, &mut key)?;
        sort_by_start(&mut order, &key);
        let mut score = Objective::of(st, &key);
        let budget = self.memory.iterations.budget(n);
        let mut candidate: Vec<usize, Q> = Vec::new();
        let mut starts: Vec<Time, Q> = Vec::new();
        for _ in 0..budget {
            if !observer.keep_searching() {
                break;
            }
            st.counters.rs_iterations = st.counters.rs_iterations.saturating_add(1);
            let pick = usize::try_from(self.memory.rng.below(n as u64)).unwrap_or(0);
            let to = usize::try_from(self.memory.rng.below(n as u64)).unwrap_or(0);
            candidate.clone_from(&order);
            if pick >= candidate.len() || to >= candidate.len() {
                return Err(KernelError::Internal("search: position out of range"));
            }
            let moved = candidate.remove(pick);
            candidate
                .insert(to, moved)
                .map_err(|_| KernelError::Internal("search: list full"))?;
            starts.clone_from(&key);
            schedule(st, &machine, &candidate, &mut starts)?;
            let new = Objective::of(st, &starts);
            if score.improved_by(&new) {
                st.counters.rs_accepted = st.counters.rs_accepted.saturating_add(1);
                core::mem::swap(&mut order, &mut candidate);
                core::mem::swap(&mut key, &mut starts);
                sort_by_start(&mut order, &key);
                score = new;
            } else {
                st.counters.rs_rejected_objective =
                    st.counters.rs_rejected_objective.saturating_add(1);
            }
        }
        self.memory.cons.compression.earliest = Earliest::Unknown;
        apply(st, &key, observer)
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Reserves<State<Q, R, B, M, L>> for ConsRsAlea
{
    fn compression(&self) -> &Compression {
        &self.memory.cons.compression
    }

    fn compression_mut(&mut self) -> &mut Compression {
        &mut self.memory.cons.compression
    }

    /// The searches due at this instant: one on demand, one periodic.
    fn settle(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        let now = st.now;
        if self.memory.take_early() {
            self.search(st, observer)?;
        }
        if let Some(due) = self.next_periodic.filter(|&t| t <= now) {
            // The next one on the grid of PERIOD from the first arrival.
            let periods = now.saturating_sub(due).div_euclid(PERIOD).saturating_add(1);
            self.next_periodic = Some(due.saturating_add(periods.saturating_mul(PERIOD)));
            self.search(st, observer)?;
        }
        Ok(())
    }

    /// The first arrival starts the grid of periodic searches.
    fn arrives(&mut self, now: Time) {
        if self.next_periodic.is_none() {
            self.next_periodic = Some(now.saturating_add(PERIOD));
        }
    }

    /// The next periodic search, while at least two jobs wait.
    fn next_search(&self, st: &State<Q, R, B, M, L>) -> Option<Time> {
        self.next_periodic
            .filter(|&t| t > st.now && st.queue.len() >= 2)
    }
}

/// Stable insertion sort of `order` (queue indices) by `start[index]`: the
/// list is nearly sorted already, so this is close to linear.
fn sort_by_start(order: &mut [usize], start: &[Time]) {
    let at = |i: usize| start.get(i).copied().unwrap_or(Time::MAX);
    for i in 1..order.len() {
        let mut j = i;
        while let Some(before) = j.checked_sub(1) {
            let (Some(&a), Some(&b)) = (order.get(before), order.get(j)) else {
                break;
            };
            if at(a) <= at(b) {
                break;
            }
            order.swap(before, j);
            j = before;
        }
    }
}

/// What the running jobs leave of the machine for a list schedule: the
/// processors free now and, sorted, when the others come free.
struct Machine<const R: usize> {
    free_now: u32,
    running: Vec<(Time, u32), R>,
}

impl<const R: usize> Machine<R> {
    /// The machine of `cpus` processors at `st.now`.
    fn of<const Q: usize, const B: usize, const M: usize, const L: usize>(
        st: &State<Q, R, B, M, L>,
        cpus: u32,
    ) -> Result<Self, KernelError> {
        let now = st.now;
        let mut running: Vec<(Time, u32), R> = Vec::new();
        let mut busy: u32 = 0;
        for r in &st.running {
            busy = busy.saturating_add(r.job.procs);
            running
                .push((r.slot.end().max(now), r.job.procs))
                .map_err(|_| KernelError::Internal("search: running set larger than capacity"))?;
        }
        running.sort_unstable();
        Ok(Self {
            free_now: cpus.saturating_sub(busy),
            running,
        })
    }
}

/// Schedules the list `order` on `machine` from now: each job in turn
/// takes the processors that come free earliest and starts when the last of
/// them does. Writes each job's start into `starts[queue index]`.
// Never inlined: its queue-sized lists stay in its own frame, so the
// other policies' passes keep their small stacks.
#[inline(never)]
fn schedule<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &State<Q, R, B, M, L>,
    machine: &Machine<R>,
    order: &[usize],
    starts: &mut [Time],
) -> Result<(), KernelError> {
    let now = st.now;
    let mut free_now = machine.free_now;
    let mut running = machine.running.clone();
    let mut r_head = 0usize;
    // When the processors of the jobs placed so far come free.
    let mut placed: BinaryHeap<(Time, u32), Min, Q> = BinaryHeap::new();
    for &index in order {
        let Some(q) = st.queue.get(index) else {
            return Err(KernelError::Internal("search: no such queue entry"));
        };
        let duration = q.reservation().map_or(q.job.estimate, |s| s.duration);
        let mut need = q.job.procs;
        let mut start = now;
        let took = free_now.min(need);
        free_now = free_now.saturating_sub(took);
        need = need.saturating_sub(took);
        while need > 0 {
            let from_running = match (running.get(r_head), placed.peek()) {
                (Some(r), Some(p)) => r.0 <= p.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return Err(KernelError::Unrunnable(q.job.id)),
            };
            if from_running {
                let Some(entry) = running.get_mut(r_head) else {
                    return Err(KernelError::Unrunnable(q.job.id));
                };
                let took = entry.1.min(need);
                entry.1 = entry.1.saturating_sub(took);
                need = need.saturating_sub(took);
                start = start.max(entry.0);
                if entry.1 == 0 {
                    r_head = r_head.saturating_add(1);
                }
            } else {
                let Some(mut entry) = placed.peek_mut() else {
                    return Err(KernelError::Unrunnable(q.job.id));
                };
                let took = entry.1.min(need);
                need = need.saturating_sub(took);
                start = start.max(entry.0);
                // Lowering the count of the least entry keeps it least.
                entry.1 = entry.1.saturating_sub(took);
                if entry.1 == 0 {
                    PeekMut::pop(entry);
                }
            }
        }
        let end = start
            .checked_add(duration)
            .ok_or(KernelError::TimeOverflow)?;
        placed
            .push((end, q.job.procs))
            .map_err(|_| KernelError::Internal("search: list larger than capacity"))?;
        if let Some(s) = starts.get_mut(index) {
            *s = start;
        }
    }
    Ok(())
}

/// Gives every queued job the start `starts[index]` on the one machine: the
/// jobs that move give back their old reservations first, then take the new
/// ones (the list schedule fits the running jobs and itself).
// Never inlined: its queue-sized lists stay in its own frame, so the
// other policies' passes keep their small stacks.
#[inline(never)]
fn apply<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &mut State<Q, R, B, M, L>,
    starts: &[Time],
    observer: &mut impl Observer,
) -> Result<(), KernelError> {
    let now = st.now;
    for (index, q) in st.queue.iter().enumerate() {
        if let (Some(old), Some(&start)) = (q.reservation(), starts.get(index)) {
            if old.start != start {
                st.plan.release_from(&q.job, &old, now)?;
            }
        }
    }
    for index in 0..st.queue.len() {
        let Some(q) = st.queue.get(index).copied() else {
            continue;
        };
        let (Some(old), Some(&start)) = (q.reservation(), starts.get(index)) else {
            continue;
        };
        if old.start == start {
            continue;
        }
        let slot = Slot { start, ..old };
        st.plan.reserve(&q.job, &slot)?;
        if let Some(e) = st.queue.get_mut(index) {
            e.set_reservation(Some(slot));
        }
        observer.reserved(&q.job, slot);
    }
    Ok(())
}

/// Alea's objective terms over the waiting jobs: mean predicted response,
/// mean predicted wait, and the mean predicted slowdown (at least 1).
#[derive(Clone, Copy, Debug)]
struct Objective {
    response: f64,
    wait: f64,
    slowdown: f64,
}

impl Objective {
    /// The terms for the queued jobs starting at `starts[index]`.
    fn of<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
        st: &State<Q, R, B, M, L>,
        starts: &[Time],
    ) -> Self {
        let (mut response, mut wait, mut slowdown) = (0.0, 0.0, 0.0);
        let mut n = 0.0;
        for (q, &start) in st.queue.iter().zip(starts) {
            let duration = q.reservation().map_or(q.job.estimate, |s| s.duration);
            let submit = f64::from(q.job.submit);
            let start = f64::from(start);
            let d = f64::from(duration);
            response += (start + d - submit).max(0.0);
            wait += (start - submit).max(0.0);
            slowdown += (start + d - submit).max(1.0) / (d + 1.0).max(1.0);
            n += 1.0;
        }
        let n = f64::max(n, 1.0);
        Self {
            response: response / n,
            wait: wait / n,
            slowdown: (slowdown / n).max(1.0),
        }
    }

    /// Whether `new` is better: the relative gains of the three terms sum
    /// to more than zero.
    fn improved_by(&self, new: &Self) -> bool {
        let gain = |old: f64, new: f64, floor: f64| (old - new) / old.max(floor);
        let decision = gain(self.response, new.response, 1e-13)
            + gain(self.wait, new.wait, 1e-13)
            + gain(self.slowdown, new.slowdown, 1.0);
        decision > 0.0
    }
}
