//! A deliberately naive reference simulator for one machine.
//!
//! It replays a workload under FCFS, EASY, SJF-EASY, Conservative (with and
//! without compression), every Selective variant (fixed threshold,
//! Selective-D, adaptive and scaled-adaptive), CONS+RS and flexible
//! backfilling's single-machine cases, and says when each job starts and
//! ends, whether it was killed and what start it was guaranteed, so a test
//! can compare the kernel with it job by job ([`compare`]). The invariant checker accepts any *legal*
//! schedule; this catches a legal but wrong one.
//!
//! # Written from the spec, not from the kernel
//!
//! The rules come from `docs/design.md` ("Resource model", "Event order",
//! "Policies") and the selective-reservation paper (Srinivasan, Kettimuthu,
//! Subramani & Sadayappan, JSSPP 2002), and, where those are silent, from the
//! module and item docs of `backfill_core` (not its code). Nothing is shared
//! with core but the input types. Where the kernel keeps sorted profiles,
//! pruned searches and incremental state, this module keeps plain `Vec`s and
//! recomputes from scratch: every time it needs the processors in use over
//! time it rebuilds that step function from the running jobs (held until
//! their *estimated* ends) and the reservations, sorts it, and scans it.
//!
//! # The rules it follows
//!
//! * One machine of `P` processors; a job holds `procs` processors over
//!   `[start, start + estimate)` in every plan and really runs until
//!   `start + min(runtime, estimate)`: **killed at its estimate** when its run
//!   time is longer (`killed` is `runtime > estimate`). Intervals are
//!   half-open: a job ending at `t` frees its processors at `t`.
//! * A job with no processors, a zero estimate, or more processors than the
//!   machine is refused (it gets no record), as core's replay loop reports
//!   such jobs rejected.
//! * Jobs arrive at their submit time, in input order (the input must be
//!   sorted by submit time, as for core's `Simulator`).
//! * The instants: every arrival, every end, and, for the policies that keep
//!   reservations, every reservation start and every Selective promotion
//!   instant (the kernel's `next_wakeup`). At an instant `t`:
//!   1. every running job that ends at `t` completes (the adaptive average
//!      counts it);
//!   2. Conservative and Selective: if a job completed, one compression pass:
//!      each reserved job, in queue order, is taken out of the plan and put
//!      back at its earliest feasible start from `t`, if that is earlier;
//!   3. every job submitted at `t` arrives, in input order; under
//!      Conservative each is reserved at once at its earliest feasible start;
//!   4. one scheduling pass.
//!
//!   A job that starts at `t` with a zero run time ends at `t`: steps 1, 2
//!   and 4 run again at `t` (core's `Simulator` docs: "completed at the same
//!   instant, and another pass follows").
//! * Queue order is `(submit, id)`; SJF-EASY orders by `(estimate, submit,
//!   id)`.
//! * **FCFS**: start jobs in queue order while the first one fits now.
//! * **EASY / SJF-EASY**: as FCFS; the first job that does not fit (the
//!   head) is reserved at its shadow time, the earliest time enough
//!   processors are free by the running jobs' estimated ends; that
//!   reservation goes into the plan, and every later job, in queue order,
//!   starts now if it fits the plan over `[t, t + estimate)` (then it is
//!   added to the plan). EASY's guarantee is the head's first shadow time.
//! * **Conservative**: a job starts exactly at its reservation; its
//!   guarantee is the reservation it got on arrival.
//! * **Selective**: an entry queue without reservations and a guaranteed
//!   queue run like Conservative. A pass first promotes, in queue order,
//!   every entry job whose promotion instant has come, reserving each at its
//!   earliest feasible start (that start is its guarantee); then starts the
//!   guaranteed jobs whose reservation is `t`; then starts, in queue order,
//!   every entry job that fits now in the plan of running jobs and
//!   reservations. A job with threshold `T` (thousandths) is promoted at
//!   `submit + ceil((T - 1000) * estimate / 1000)`, at once when
//!   `T <= 1000`. Thresholds: fixed; per category (SN, SW, LN, LW, the job
//!   classified by its *estimate* against `short_max` and its processors
//!   against `narrow_max`); adaptive: `initial` until a job completed, then
//!   `floor(mean * scale / 1000)` where `mean` is the floor of the average
//!   of the completed jobs' bounded slowdowns, each in thousandths rounded
//!   down, `(wait + max(run, 10)) * 1000 / max(run, 10)` with `run` the
//!   effective run time; with `well_estimated_only`, only jobs whose
//!   effective run time is at least half their estimate count.
//!
//! * **BF_FCFS** (flexible backfilling's EASY on a farm): on one machine,
//!   EASY exactly.
//! * **BF_UNMOD / BF_MOD**: EASY's pass over a queue ordered, at every
//!   pass, by the priority of the flexible-backfilling heuristics, highest
//!   first, ties `(submit, id)`. The reference's workloads have no
//!   deadlines and no licenses, so two terms remain (`docs/design.md`,
//!   "Flexible backfilling"; `Heuristics`' field docs for the units): aging,
//!   `age_factor * (now - submit)`, and wait minimisation,
//!   `floor(wait_boost * shortest / estimate)` with `shortest` the smallest
//!   estimate of the jobs waiting at the start of the pass; the priority is
//!   `aging_weight * aging + wait_weight * wait`. BF_UNMOD: the job that was
//!   the head (the first that did not fit) at the previous pass and still
//!   waits goes first whatever its priority, and its first shadow time is
//!   its guarantee. BF_MOD: no such exception and no guarantee.
//! * **Conservative without compression**: Conservative with step 2 left
//!   out; a reservation never moves.
//! * **CONS+RS**: Conservative, and after step 2 of an instant at which a
//!   job ended before its estimate, the random search (`docs/design.md`, "CONS+RS"; the
//!   readings where the paper is silent are those of `backfill_core`'s
//!   `policy::cons_rs` module docs). Its budget is `k` iterations per job
//!   queued at the start of the search (or a fixed number); an iteration
//!   picks `below(n)` (core's `rng::SplitMix64` from the policy's seed:
//!   the generator is part of the rules, not under test here) of the `n`
//!   queued jobs whose reservation starts after now, in queue
//!   order, and stops the search when there are none. The picked job's
//!   *gap* is the first instant from now and before its reservation at
//!   which its processors are free in the plan without it; none: next
//!   iteration. The other reservations overlapping its new window are
//!   *touched*; more than 64 (or one that started before now): next
//!   iteration. The job goes into the gap, each touched job keeps its place
//!   if its part inside the window still fits (in queue order), the others
//!   are taken out and put back, in queue order, at their earliest start,
//!   which must be no later than their guarantee. The move stays when the
//!   summed predicted waits `W` and bounded slowdowns `S` (millionths, each
//!   rounded down, `max(estimate, 10)`) of the queued jobs, recomputed here
//!   from scratch, give `(W - W') * S + (S - S') * W > 0` with `W > 0`.
//!
//! # Pending reasons and start kinds
//!
//! [`simulate_explained`] also says, after every pass, why each waiting job
//! waits and when it is expected to start, and how each job started
//! (`docs/design.md`, "Pending reasons" and "Expected starts"), from these
//! rules (one machine, no licenses, so no job is short of a machine or a
//! license):
//!
//! * a job started in the pass's first phase (every job ahead of it
//!   started) started *in order*; one started behind a job that still
//!   waits, *backfilled*; one started at its reservation, *at its
//!   reservation* when that is its guarantee, *moved up by the random
//!   search* when earlier and CONS+RS's search moved it there (nothing
//!   moved it since), *compressed* when earlier otherwise;
//! * FCFS: the first job that did not fit is short of processors, the
//!   others are behind it;
//! * EASY, SJF-EASY and flexible backfilling: the head is short of
//!   processors, expected at the shadow time the pass computed; a job
//!   behind it that fits now among the running jobs (the pass's starts
//!   included) but not beside the head's reservation would delay it, one
//!   that does not fit now is short of processors;
//! * Conservative and its variants: reserved at its reservation, which is
//!   its expected start; Selective: the same for guaranteed jobs, *not yet
//!   promoted* at its promotion instant (never: `u32::MAX`) for an entry
//!   job;
//! * a job that fits now after the pass (none should) is *pending*.
//!
//! SJF-EASY promises nothing (`docs/design.md`, "SJF-EASY": it is not starvation-free), so the
//! reference records no guarantee under it, though it reserves the head's
//! shadow time in each pass as EASY does; FCFS makes no reservations at all.

use backfill_core::policy::{Heuristics, Iterations, RandomSearch, Threshold};
use backfill_core::rng::SplitMix64;
use backfill_core::{
    ExpectedStart, JobId, JobRecord, Policy, Reason, SimJob, Slot, StartKind, Time,
};
use std::fmt;

/// One job's fate in a replay: what [`simulate`] computes and what
/// [`compare`] reads from the kernel's [`JobRecord`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NaiveRecord {
    /// The job.
    pub id: JobId,
    /// When it started.
    pub start: Time,
    /// When it ended: `start + min(runtime, estimate)`.
    pub end: Time,
    /// Whether it was killed at its estimate (`runtime > estimate`).
    pub killed: bool,
    /// The start its policy guaranteed it (its first reservation), if any.
    pub guarantee: Option<Time>,
}

impl NaiveRecord {
    /// The same fields taken from a kernel replay's record.
    #[must_use]
    pub const fn from_kernel(record: &JobRecord) -> Self {
        Self {
            id: record.job.id,
            start: record.slot.start,
            end: record.end,
            killed: record.killed,
            guarantee: record.guarantee,
        }
    }
}

impl fmt::Display for NaiveRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "start {} end {}", self.start, self.end)?;
        if self.killed {
            f.write_str(" killed")?;
        }
        if let Some(g) = self.guarantee {
            write!(f, " guaranteed {g}")?;
        }
        Ok(())
    }
}

/// Whether the reference models `policy`: every policy but DPSA (checked
/// against an exact optimum of its own).
#[must_use]
pub const fn models(policy: Policy) -> bool {
    !matches!(policy, Policy::Dpsa { .. })
}

/// Replays `jobs` under `policy` on one machine of `procs` processors.
///
/// [`models`] must hold for `policy`.
///
/// Returns one entry per input job, in input order: `None` for a job that
/// is refused (no processors, zero estimate, wider than the machine).
///
/// # Panics
/// When `jobs` is not sorted by submit time, a time passes `u32::MAX`, or
/// the reference does not model `policy`.
#[must_use]
pub fn simulate(procs: u32, policy: Policy, jobs: &[SimJob]) -> Vec<Option<NaiveRecord>> {
    simulate_explained(procs, policy, jobs).0
}

/// What one pass did and left, by the rules (module docs, "Pending reasons
/// and start kinds").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassLog {
    /// The pass's instant.
    pub at: Time,
    /// The jobs it started and how, in start order.
    pub starts: Vec<(JobId, StartKind)>,
    /// Every job it left waiting, in queue order, with its reason and
    /// expected start.
    pub waiting: Vec<(JobId, Reason, ExpectedStart)>,
}

/// [`simulate`], and what every pass did and left ([`PassLog`]).
///
/// # Panics
/// As [`simulate`].
#[must_use]
pub fn simulate_explained(
    procs: u32,
    policy: Policy,
    jobs: &[SimJob],
) -> (Vec<Option<NaiveRecord>>, Vec<PassLog>) {
    assert!(
        jobs.windows(2).all(|w| w[0].job.submit <= w[1].job.submit),
        "the input must be sorted by submit time"
    );
    let mut sim = Naive {
        capacity: u64::from(procs),
        rules: Rules::of(policy),
        jobs,
        now: 0,
        next_arrival: 0,
        waiting: Vec::new(),
        running: Vec::new(),
        completed: (0, 0),
        holder: None,
        next_periodic: None,
        rng: SplitMix64::new(match policy {
            Policy::ConsRs(params) | Policy::ConsRsAlea(params) => params.seed,
            _ => 0,
        }),
        records: vec![None; jobs.len()],
        passes: Vec::new(),
        head: None,
        order: Vec::new(),
    };
    sim.run();
    (sim.records, sim.passes)
}

/// Which policy, reduced to what the reference needs to know.
#[derive(Clone, Copy, Debug)]
enum Rules {
    /// FCFS (`backfill: false`), EASY, SJF-EASY (`shortest_first`).
    Queue {
        backfill: bool,
        shortest_first: bool,
    },
    /// Conservative; `compress: false` and `rebuild: false` never moves a
    /// reservation.
    Conservative {
        /// Whether a compression pass follows an instant with a completion.
        compress: bool,
        /// The "rebuild" compression instead: after an instant with an
        /// early completion only, every reserved job is put back in order
        /// of its planned start.
        rebuild: bool,
        /// CONS+RS: the random search after an instant with an early
        /// completion.
        search: Option<RandomSearch>,
        /// CONS+RS, Alea flavour: list searches after an instant with an
        /// early completion and every 300 s; no compression, no guarantee.
        alea: Option<RandomSearch>,
    },
    Selective(Threshold),
    /// BF_UNMOD (`keeps_head`) and BF_MOD.
    Flexible {
        heuristics: Heuristics,
        keeps_head: bool,
    },
}

impl Rules {
    fn of(policy: Policy) -> Self {
        match policy {
            Policy::Fcfs => Self::Queue {
                backfill: false,
                shortest_first: false,
            },
            Policy::Easy => Self::Queue {
                backfill: true,
                shortest_first: false,
            },
            Policy::SjfEasy => Self::Queue {
                backfill: true,
                shortest_first: true,
            },
            Policy::Conservative => Self::Conservative {
                compress: true,
                rebuild: false,
                search: None,
                alea: None,
            },
            Policy::ConservativeNoCompression => Self::Conservative {
                compress: false,
                rebuild: false,
                search: None,
                alea: None,
            },
            Policy::ConservativeRebuild => Self::Conservative {
                compress: false,
                rebuild: true,
                search: None,
                alea: None,
            },
            Policy::ConsRs(params) => Self::Conservative {
                compress: true,
                rebuild: false,
                search: Some(params),
                alea: None,
            },
            Policy::ConsRsAlea(params) => Self::Conservative {
                compress: false,
                rebuild: false,
                search: None,
                alea: Some(params),
            },
            Policy::Selective(threshold) => Self::Selective(threshold),
            Policy::BfFcfs => Self::Queue {
                backfill: true,
                shortest_first: false,
            },
            Policy::BfUnmod(heuristics) => Self::Flexible {
                heuristics,
                keeps_head: true,
            },
            Policy::BfMod(heuristics) => Self::Flexible {
                heuristics,
                keeps_head: false,
            },
            other => panic!("the naive reference does not model {other}"),
        }
    }

    const fn keeps_reservations(self) -> bool {
        matches!(self, Self::Conservative { .. } | Self::Selective(_))
    }
}

/// A waiting job: its index in the input, its current reservation (start
/// time) and its guarantee.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    job: usize,
    reservation: Option<u64>,
    guarantee: Option<u64>,
    /// CONS+RS's random search moved the reservation into a gap, and
    /// nothing moved it since.
    searched: bool,
}

/// A running job.
#[derive(Clone, Copy, Debug)]
struct Running {
    job: usize,
    start: u64,
    /// `start + estimate`: what every plan assumes.
    estimated_end: u64,
    /// `start + min(runtime, estimate)`: when it really ends.
    end: u64,
    guarantee: Option<u64>,
}

/// `procs` processors held over `[from, to)`.
#[derive(Clone, Copy, Debug)]
struct Block {
    from: u64,
    to: u64,
    procs: u64,
}

/// Processors in use from `now` on, as steps `(t, used)`: `used` holds
/// over `[t, next t)`, the first step is at `now` and the last one (after
/// every block ends) has nothing in use. Rebuilt from scratch each time.
fn usage(now: u64, blocks: &[Block]) -> Vec<(u64, u64)> {
    let mut edges: Vec<(u64, i64)> = vec![(now, 0)];
    for b in blocks {
        if b.to > now && b.to > b.from {
            let procs = i64::try_from(b.procs).expect("procs fit i64");
            edges.push((b.from.max(now), procs));
            edges.push((b.to, -procs));
        }
    }
    edges.sort_unstable();
    let mut steps: Vec<(u64, u64)> = Vec::new();
    let mut used: i64 = 0;
    for (t, delta) in edges {
        used += delta;
        let value = u64::try_from(used).expect("never more released than held");
        match steps.last_mut() {
            Some(last) if last.0 == t => last.1 = value,
            _ => steps.push((t, value)),
        }
    }
    steps
}

/// A time of the reference as core's [`Time`].
fn time(t: u64) -> Time {
    Time::try_from(t).expect("times fit u32")
}

/// Whether `procs` processors are free over `[at, at + duration)`.
fn fits(steps: &[(u64, u64)], capacity: u64, at: u64, duration: u64, procs: u64) -> bool {
    // The step holding `at`, then every step that begins inside the window.
    let first = steps.iter().rposition(|&(t, _)| t <= at).unwrap_or(0);
    steps[first..]
        .iter()
        .take_while(|&&(t, _)| t < at + duration)
        .all(|&(_, used)| used + procs <= capacity)
}

/// The earliest start from the first step (`now`) at which `procs`
/// processors are free for `duration` seconds.
///
/// Only step times can be earliest starts (a fit inside a step also fits
/// at the step's beginning). When the window from step `i` is blocked at
/// step `j`, every start up to step `j` is blocked there too, so the search
/// goes on from step `j + 1`.
fn earliest_fit(steps: &[(u64, u64)], capacity: u64, duration: u64, procs: u64) -> u64 {
    assert!(procs <= capacity, "a job wider than the machine never fits");
    let mut i = 0;
    'candidates: while i < steps.len() {
        let start = steps[i].0;
        for (j, &(t, used)) in steps.iter().enumerate().skip(i) {
            if t >= start + duration {
                break;
            }
            if used + procs > capacity {
                i = j + 1;
                continue 'candidates;
            }
        }
        return start;
    }
    unreachable!("the last step has every processor free")
}

/// The most queued jobs one CONS+RS iteration may touch (the docs of
/// `backfill_core::policy::MAX_TOUCHED`): a crowded iteration is skipped.
const MAX_TOUCHED: usize = 64;

/// Where a job a CONS+RS move touches is during the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// At its reservation, all of it.
    Whole,
    /// At its reservation but outside the moved job's new window.
    Outside,
    /// Out of the plan (displaced).
    Out,
    /// Displaced and put back starting here.
    Moved(u64),
}

struct Naive<'a> {
    capacity: u64,
    rules: Rules,
    jobs: &'a [SimJob],
    now: u64,
    /// Index of the next job to arrive.
    next_arrival: usize,
    waiting: Vec<Waiting>,
    running: Vec<Running>,
    /// Adaptive thresholds: (jobs counted, sum of bounded slowdowns in
    /// thousandths, each rounded down).
    completed: (u64, u64),
    /// Flexible backfilling: the job that was the head at the last pass.
    holder: Option<usize>,
    /// The Alea flavour: when the next periodic search is due.
    next_periodic: Option<u64>,
    /// CONS+RS's generator.
    rng: SplitMix64,
    records: Vec<Option<NaiveRecord>>,
    /// What every pass did and left.
    passes: Vec<PassLog>,
    /// The queue policies: the head the last pass left (input index) and
    /// its shadow time (`None` under FCFS).
    head: Option<(usize, Option<u64>)>,
    /// The queue policies: the last pass's queue order (input indices).
    order: Vec<usize>,
}

impl Naive<'_> {
    fn procs(&self, job: usize) -> u64 {
        u64::from(self.jobs[job].job.procs)
    }

    fn estimate(&self, job: usize) -> u64 {
        u64::from(self.jobs[job].job.estimate)
    }

    fn submit(&self, job: usize) -> u64 {
        u64::from(self.jobs[job].job.submit)
    }

    /// The queue order key: `(submit, id)`, or `(estimate, submit, id)`
    /// under SJF-EASY.
    fn key(&self, job: usize) -> (u64, u64, JobId) {
        let j = &self.jobs[job].job;
        let first = match self.rules {
            Rules::Queue {
                shortest_first: true,
                ..
            } => u64::from(j.estimate),
            _ => 0,
        };
        (first, u64::from(j.submit), j.id)
    }

    /// Positions in `waiting` of the jobs `keep` selects, in queue order.
    fn in_order(&self, keep: impl Fn(&Waiting) -> bool) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.waiting.len())
            .filter(|&n| keep(&self.waiting[n]))
            .collect();
        order.sort_by_key(|&n| self.key(self.waiting[n].job));
        order
    }

    /// Running jobs until their estimated ends.
    fn running_blocks(&self) -> Vec<Block> {
        self.running
            .iter()
            .map(|r| Block {
                from: r.start,
                to: r.estimated_end,
                procs: self.procs(r.job),
            })
            .collect()
    }

    /// Running jobs plus every reservation, except waiting entry `skip`'s.
    fn plan_blocks(&self, skip: Option<usize>) -> Vec<Block> {
        let mut blocks = self.running_blocks();
        for (n, w) in self.waiting.iter().enumerate() {
            if let (Some(start), false) = (w.reservation, Some(n) == skip) {
                blocks.push(Block {
                    from: start,
                    to: start + self.estimate(w.job),
                    procs: self.procs(w.job),
                });
            }
        }
        blocks
    }

    /// The earliest start from now for `job` in the plan without waiting
    /// entry `skip`'s reservation.
    fn earliest_start(&self, job: usize, skip: Option<usize>) -> u64 {
        let steps = usage(self.now, &self.plan_blocks(skip));
        earliest_fit(&steps, self.capacity, self.estimate(job), self.procs(job))
    }

    fn run(&mut self) {
        while let Some(t) = self.next_instant() {
            assert!(t >= self.now, "time went backwards: {t} < {}", self.now);
            self.now = t;
            // 1. Completions.
            let before = self.running.len();
            let early = self.complete_due();
            // 2. One compression pass after an instant with a completion,
            // and CONS+RS's search after one with an early completion.
            if self.running.len() < before
                && self.rules.keeps_reservations()
                && !matches!(
                    self.rules,
                    Rules::Conservative {
                        compress: false,
                        ..
                    }
                )
            {
                self.compress();
            }
            if early && matches!(self.rules, Rules::Conservative { rebuild: true, .. }) {
                self.rebuild();
            }
            if let Rules::Conservative {
                alea: Some(params), ..
            } = self.rules
            {
                if early {
                    self.alea_search(params);
                }
                if let Some(due) = self.next_periodic.filter(|&d| d <= t) {
                    self.next_periodic = Some(due + ((t - due) / 300 + 1) * 300);
                    self.alea_search(params);
                }
            }
            if let (
                true,
                Rules::Conservative {
                    search: Some(params),
                    ..
                },
            ) = (early, self.rules)
            {
                self.search(params);
            }
            // 3. Arrivals, in input order.
            while self.next_arrival < self.jobs.len() && self.submit(self.next_arrival) <= t {
                let job = self.next_arrival;
                self.next_arrival += 1;
                if matches!(self.rules, Rules::Conservative { alea: Some(_), .. }) {
                    self.next_periodic.get_or_insert(t + 300);
                }
                self.arrive(job);
            }
            // 4. One scheduling pass.
            self.pass();
        }
        assert!(
            self.waiting.is_empty() && self.running.is_empty(),
            "jobs left at the end"
        );
    }

    /// The next instant anything happens: an arrival, an end, a reservation
    /// start or a promotion.
    fn next_instant(&self) -> Option<u64> {
        let arrival = self
            .jobs
            .get(self.next_arrival)
            .map(|j| u64::from(j.job.submit));
        let ends = self.running.iter().map(|r| r.end);
        let reservations = self.waiting.iter().filter_map(|w| w.reservation);
        let promotions = self
            .waiting
            .iter()
            .filter(|w| w.reservation.is_none())
            .filter_map(|w| self.promotion_instant(w.job));
        let periodic = self.next_periodic.filter(|_| self.waiting.len() >= 2);
        let next = arrival
            .into_iter()
            .chain(ends)
            .chain(reservations)
            .chain(promotions)
            .chain(periodic)
            .min();
        if let Some(t) = next {
            assert!(
                t >= self.now,
                "a reservation or promotion was left in the past"
            );
        }
        next
    }

    /// Completes the running jobs that end now; says whether one of them
    /// ended before its estimate.
    fn complete_due(&mut self) -> bool {
        let now = self.now;
        let (done, still): (Vec<Running>, Vec<Running>) =
            self.running.iter().partition(|r| r.end <= now);
        self.running = still;
        let early = done.iter().any(|r| r.end < r.estimated_end);
        for r in done {
            let sim = &self.jobs[r.job];
            let wait = r.start - self.submit(r.job);
            let run = r.end - r.start;
            if let Rules::Selective(Threshold::Adaptive {
                well_estimated_only,
                ..
            }) = self.rules
            {
                if !well_estimated_only || 2 * run >= self.estimate(r.job) {
                    let bounded = run.max(10);
                    self.completed.0 += 1;
                    self.completed.1 += (wait + bounded) * 1000 / bounded;
                }
            }
            let time = |t: u64| Time::try_from(t).expect("times fit u32");
            self.records[r.job] = Some(NaiveRecord {
                id: sim.job.id,
                start: time(r.start),
                end: time(r.end),
                killed: sim.runtime > sim.job.estimate,
                guarantee: r.guarantee.map(time),
            });
        }
        early
    }

    /// Each reserved job, in queue order, moves to its earliest feasible
    /// start if that is earlier than its reservation.
    fn compress(&mut self) {
        for n in self.in_order(|w| w.reservation.is_some()) {
            let job = self.waiting[n].job;
            let earliest = self.earliest_start(job, Some(n));
            let current = self.waiting[n].reservation.expect("reserved");
            if earliest < current {
                self.waiting[n].reservation = Some(earliest);
                self.waiting[n].searched = false;
            }
        }
    }

    /// The "rebuild" compression: every reservation is dropped, then the
    /// jobs take new ones one by one in order of their old start (ties:
    /// queue order), each at its earliest start among the running jobs and
    /// the jobs placed before it.
    fn rebuild(&mut self) {
        let mut order = self.in_order(|w| w.reservation.is_some());
        order.sort_by_key(|&n| self.waiting[n].reservation);
        for &n in &order {
            self.waiting[n].reservation = None;
        }
        for n in order {
            let job = self.waiting[n].job;
            self.waiting[n].reservation = Some(self.earliest_start(job, None));
        }
    }

    /// The Alea flavour's search: schedule the list (waiting jobs by
    /// reservation start, ties queue order), then per iteration move a
    /// random list entry to a random position, schedule, and keep the new
    /// list (re-sorted by start) if the objective improves; finally every
    /// job takes its start in the list's schedule.
    fn alea_search(&mut self, params: RandomSearch) {
        let n = self.waiting.len();
        if n < 2 {
            return;
        }
        let mut list = self.in_order(|_| true);
        list.sort_by_key(|&w| self.waiting[w].reservation);
        let mut starts = self.list_schedule(&list);
        list.sort_by_key(|&w| starts[w]);
        let mut score = self.alea_objective(&starts);
        let budget = match params.iterations {
            Iterations::PerQueuedJob(k) => n as u64 * u64::from(k),
            Iterations::Fixed(k) => u64::from(k),
        };
        for _ in 0..budget {
            let pick = self.rng.below(n as u64) as usize;
            let to = self.rng.below(n as u64) as usize;
            let mut candidate = list.clone();
            let moved = candidate.remove(pick);
            candidate.insert(to, moved);
            let new_starts = self.list_schedule(&candidate);
            let new = self.alea_objective(&new_starts);
            let gain = |old: f64, new: f64, floor: f64| (old - new) / old.max(floor);
            let decision = gain(score.0, new.0, 1e-13)
                + gain(score.1, new.1, 1e-13)
                + gain(score.2, new.2, 1.0);
            if decision > 0.0 {
                candidate.sort_by_key(|&w| new_starts[w]);
                list = candidate;
                starts = new_starts;
                score = new;
            }
        }
        for (w, start) in starts.into_iter().enumerate() {
            self.waiting[w].reservation = Some(start);
        }
    }

    /// Each waiting entry's start (by position in `waiting`) when the
    /// entries of `list` take, in turn, the processors that come free
    /// earliest: one availability per processor.
    fn list_schedule(&self, list: &[usize]) -> Vec<u64> {
        let mut free: Vec<u64> = Vec::new();
        for r in &self.running {
            let end = r.estimated_end.max(self.now);
            free.extend(std::iter::repeat_n(end, self.procs(r.job) as usize));
        }
        free.resize(self.capacity as usize, self.now);
        let mut starts = vec![0; self.waiting.len()];
        for &w in list {
            let job = self.waiting[w].job;
            let p = self.procs(job) as usize;
            free.sort_unstable();
            let start = free[p - 1];
            for f in &mut free[..p] {
                *f = start + self.estimate(job);
            }
            starts[w] = start;
        }
        starts
    }

    /// Alea's objective terms (mean response, mean wait, mean slowdown at
    /// least 1) of the waiting jobs starting at `starts`, summed in queue
    /// order.
    fn alea_objective(&self, starts: &[u64]) -> (f64, f64, f64) {
        let (mut r, mut w, mut s) = (0.0, 0.0, 0.0);
        let order = self.in_order(|_| true);
        for &n in &order {
            let job = self.waiting[n].job;
            let (start, d, submit) = (
                starts[n] as f64,
                self.estimate(job) as f64,
                self.submit(job) as f64,
            );
            r += (start + d - submit).max(0.0);
            w += (start - submit).max(0.0);
            s += (start + d - submit).max(1.0) / (d + 1.0).max(1.0);
        }
        let n = order.len().max(1) as f64;
        (r / n, w / n, (s / n).max(1.0))
    }

    /// CONS+RS's random search (`docs/design.md`, "CONS+RS", and the readings in
    /// `backfill_core::policy`'s CONS+RS docs): a budget of iterations, each
    /// picking a queued job whose reservation starts after now, uniformly
    /// by the seeded generator, and trying to move it into the earliest gap
    /// before its reservation.
    fn search(&mut self, params: RandomSearch) {
        let queued = self.waiting.len() as u64;
        let budget = match params.iterations {
            Iterations::PerQueuedJob(k) => queued * u64::from(k),
            Iterations::Fixed(n) => u64::from(n),
        };
        if queued == 0 {
            return;
        }
        for _ in 0..budget {
            let now = self.now;
            let movable = self.in_order(|w| w.reservation.is_some_and(|r| r > now));
            if movable.is_empty() {
                break;
            }
            let pick = self.rng.below(movable.len() as u64);
            self.try_move(movable[usize::try_from(pick).expect("small")]);
        }
    }

    /// One iteration on waiting entry `n`: the move is made only when every
    /// displaced job keeps its guarantee and the objective improves.
    fn try_move(&mut self, n: usize) {
        let now = self.now;
        let job = self.waiting[n].job;
        let old = self.waiting[n].reservation.expect("reserved");
        let (estimate, procs) = (self.estimate(job), self.procs(job));
        // The gap: the first instant before `old` with `procs` free in the
        // plan without the job.
        let steps = usage(now, &self.plan_blocks(Some(n)));
        let Some(gap) = steps
            .iter()
            .take_while(|&&(t, _)| t < old)
            .find(|&&(_, used)| used + procs <= self.capacity)
            .map(|&(t, _)| t)
        else {
            return;
        };
        let window = (gap, gap + estimate);
        // The other reservations overlapping the window, in queue order.
        let overlaps = |start: u64, end: u64| start < window.1 && window.0 < end;
        let touched: Vec<usize> = self
            .in_order(|w| w.reservation.is_some())
            .into_iter()
            .filter(|&m| m != n)
            .filter(|&m| {
                let start = self.waiting[m].reservation.expect("reserved");
                overlaps(start, start + self.estimate(self.waiting[m].job))
            })
            .collect();
        if touched.len() > MAX_TOUCHED
            || touched
                .iter()
                .any(|&m| self.waiting[m].reservation < Some(now))
        {
            return; // too crowded to try
        }
        // The plan with the job in the gap, and where each touched job is:
        // at first only outside the window.
        let mut base = self.running_blocks();
        for (m, w) in self.waiting.iter().enumerate() {
            if let (Some(start), false) = (w.reservation, m == n || touched.contains(&m)) {
                base.push(Block {
                    from: start,
                    to: start + self.estimate(w.job),
                    procs: self.procs(w.job),
                });
            }
        }
        base.push(Block {
            from: gap,
            to: gap + estimate,
            procs,
        });
        let mut place: Vec<Place> = vec![Place::Outside; touched.len()];
        let plan = |place: &[Place]| -> Vec<Block> {
            let mut blocks = base.clone();
            for (&m, &p) in touched.iter().zip(place) {
                let start = self.waiting[m].reservation.expect("reserved");
                let end = start + self.estimate(self.waiting[m].job);
                let procs = self.procs(self.waiting[m].job);
                let (inside_from, inside_to) = (start.max(window.0), end.min(window.1));
                let block = |from, to| Block { from, to, procs };
                match p {
                    Place::Whole => blocks.push(block(start, end)),
                    Place::Outside => {
                        blocks.extend([block(start, inside_from), block(inside_to, end)]);
                    }
                    Place::Out => {}
                    Place::Moved(at) => {
                        blocks.push(block(at, at + self.estimate(self.waiting[m].job)));
                    }
                }
            }
            blocks
        };
        // Each touched job, in queue order, stays where it was if its part
        // inside the window still fits; the others leave the plan.
        for k in 0..touched.len() {
            let m = touched[k];
            let start = self.waiting[m].reservation.expect("reserved");
            let end = start + self.estimate(self.waiting[m].job);
            let (inside_from, inside_to) = (start.max(window.0), end.min(window.1));
            let steps = usage(now, &plan(&place));
            let room = fits(
                &steps,
                self.capacity,
                inside_from,
                inside_to - inside_from,
                self.procs(self.waiting[m].job),
            );
            if room {
                place[k] = Place::Whole;
            }
        }
        for p in &mut place {
            if *p == Place::Outside {
                *p = Place::Out;
            }
        }
        // The displaced ones, in queue order, at their earliest start, which
        // must not pass their guarantee.
        for k in 0..touched.len() {
            if place[k] != Place::Out {
                continue;
            }
            let other = self.waiting[touched[k]].job;
            let (e, p) = (self.estimate(other), self.procs(other));
            let start = earliest_fit(&usage(now, &plan(&place)), self.capacity, e, p);
            if Some(start) > self.waiting[touched[k]].guarantee {
                return;
            }
            place[k] = Place::Moved(start);
        }
        let moved: Vec<(usize, u64)> = touched
            .iter()
            .zip(&place)
            .filter_map(|(&m, &p)| match p {
                Place::Moved(at) => Some((m, at)),
                _ => None,
            })
            .collect();
        // The objective over every queued job's predicted start.
        let mut after: Vec<(usize, u64)> = self
            .waiting
            .iter()
            .map(|w| (w.job, w.reservation.expect("reserved")))
            .collect();
        after[n].1 = gap;
        for &(m, start) in &moved {
            after[m].1 = start;
        }
        let before: Vec<(usize, u64)> = self
            .waiting
            .iter()
            .map(|w| (w.job, w.reservation.expect("reserved")))
            .collect();
        let (w0, s0) = self.predicted(&before);
        let (w1, s1) = self.predicted(&after);
        let (w0, s0, w1, s1) = (
            i128::from(w0),
            i128::from(s0),
            i128::from(w1),
            i128::from(s1),
        );
        // (W - W') / W + (S - S') / S > 0, multiplied out by W * S > 0.
        if w0 > 0 && (w0 - w1) * s0 + (s0 - s1) * w0 > 0 {
            for (w, (_, start)) in self.waiting.iter_mut().zip(after) {
                if w.reservation != Some(start) {
                    w.searched = false;
                }
                w.reservation = Some(start);
            }
            self.waiting[n].searched = true;
        }
    }

    /// Summed predicted wait and bounded slowdown (millionths, each rounded
    /// down) of jobs starting at the given times.
    fn predicted(&self, starts: &[(usize, u64)]) -> (u64, u64) {
        let mut sums = (0, 0);
        for &(job, start) in starts {
            let wait = start - self.submit(job);
            let bounded = self.estimate(job).max(10);
            sums.0 += wait;
            sums.1 += (wait + bounded) * 1_000_000 / bounded;
        }
        sums
    }

    fn arrive(&mut self, job: usize) {
        let j = &self.jobs[job].job;
        if j.procs == 0 || j.estimate == 0 || u64::from(j.procs) > self.capacity {
            return; // refused: never queued, no record
        }
        let reservation = match self.rules {
            Rules::Conservative { .. } => Some(self.earliest_start(job, None)),
            _ => None,
        };
        let guaranteed = !matches!(self.rules, Rules::Conservative { alea: Some(_), .. });
        self.waiting.push(Waiting {
            job,
            reservation,
            guarantee: reservation.filter(|_| guaranteed),
            searched: false,
        });
    }

    /// Moves waiting entry `n` to the running jobs at now.
    fn start(&mut self, n: usize) {
        let w = self.waiting[n];
        let sim = &self.jobs[w.job];
        let estimate = u64::from(sim.job.estimate);
        self.running.push(Running {
            job: w.job,
            start: self.now,
            estimated_end: self.now + estimate,
            end: self.now + estimate.min(u64::from(sim.runtime)),
            guarantee: w.guarantee,
        });
    }

    /// Starts waiting entries `started` (positions), then drops them from
    /// the queue.
    fn start_all(&mut self, mut started: Vec<usize>) {
        for &n in &started {
            self.start(n);
        }
        started.sort_unstable();
        for n in started.into_iter().rev() {
            self.waiting.remove(n);
        }
    }

    fn pass(&mut self) {
        self.passes.push(PassLog {
            at: time(self.now),
            ..PassLog::default()
        });
        self.head = None;
        match self.rules {
            Rules::Queue {
                backfill,
                shortest_first,
            } => {
                let order = self.in_order(|_| true);
                self.order = order.iter().map(|&n| self.waiting[n].job).collect();
                self.pass_queue(order, backfill, !shortest_first);
            }
            Rules::Flexible { keeps_head, .. } => {
                let order = self.flexible_order();
                self.order = order.iter().map(|&n| self.waiting[n].job).collect();
                let head = self.pass_queue(order, true, keeps_head);
                self.holder = head;
            }
            Rules::Conservative { .. } => {
                let due: Vec<usize> = self.in_order(|w| w.reservation == Some(self.now));
                for &n in &due {
                    self.started_as(self.waiting[n].job, self.at_reservation(n));
                }
                self.start_all(due);
            }
            Rules::Selective(_) => self.pass_selective(),
        }
        self.explain();
    }

    /// Notes that input job `job` starts now, `kind`.
    fn started_as(&mut self, job: usize, kind: StartKind) {
        let id = self.jobs[job].job.id;
        self.passes
            .last_mut()
            .expect("in a pass")
            .starts
            .push((id, kind));
    }

    /// A job's slot on the machine from `start`.
    fn slot(&self, job: usize, start: u64) -> Slot {
        Slot {
            start: time(start),
            machine: 0,
            duration: self.jobs[job].job.estimate,
        }
    }

    /// How a job started at its reservation now: compressed when earlier
    /// than its guarantee.
    fn at_reservation(&self, n: usize) -> StartKind {
        match self.waiting[n].guarantee {
            Some(g) if self.now < g && self.waiting[n].searched => StartKind::RandomSearch,
            Some(g) if self.now < g => StartKind::Compressed,
            _ => StartKind::AtReservation,
        }
    }

    /// Why every waiting job waits after the pass (module docs).
    fn explain(&mut self) {
        // The queue policies' order is the pass's (flexible backfilling's
        // priorities change as jobs start).
        let order: Vec<usize> = match self.rules {
            Rules::Queue { .. } | Rules::Flexible { .. } => self
                .order
                .iter()
                .filter_map(|&job| self.waiting.iter().position(|w| w.job == job))
                .collect(),
            _ => self.in_order(|_| true),
        };
        let running = usage(self.now, &self.running_blocks());
        let fits_now = |job: usize| {
            fits(
                &running,
                self.capacity,
                self.now,
                self.estimate(job),
                self.procs(job),
            )
        };
        let mut waiting = Vec::new();
        for &n in &order {
            let w = self.waiting[n];
            let job = w.job;
            let (reason, expected) = match (self.rules, self.head) {
                (Rules::Conservative { .. } | Rules::Selective(_), _) => match w.reservation {
                    Some(start) => {
                        let slot = self.slot(job, start);
                        (Reason::Reserved { slot }, ExpectedStart::Reservation(slot))
                    }
                    None if fits(
                        &usage(self.now, &self.plan_blocks(None)),
                        self.capacity,
                        self.now,
                        self.estimate(job),
                        self.procs(job),
                    ) =>
                    {
                        (Reason::Pending, ExpectedStart::Unknown)
                    }
                    None => {
                        let at = self.promotion_instant(job).map_or(Time::MAX, time);
                        (Reason::NotPromoted { at }, ExpectedStart::Unknown)
                    }
                },
                (_, None) => (Reason::Pending, ExpectedStart::Unknown),
                (_, Some((head, None))) if head == job => (
                    Reason::Processors { expected: None },
                    ExpectedStart::Unknown,
                ),
                (_, Some((head, None))) => (
                    Reason::Behind {
                        ahead: self.jobs[head].job.id,
                    },
                    ExpectedStart::Unknown,
                ),
                (_, Some((head, Some(shadow)))) if head == job => (
                    Reason::Processors {
                        expected: Some(time(shadow)),
                    },
                    ExpectedStart::Shadow(self.slot(job, shadow)),
                ),
                (_, Some((head, Some(shadow)))) => {
                    let reason = if !fits_now(job) {
                        Reason::Processors { expected: None }
                    } else {
                        let mut blocks = self.running_blocks();
                        blocks.push(Block {
                            from: shadow,
                            to: shadow + self.estimate(head),
                            procs: self.procs(head),
                        });
                        let beside = usage(self.now, &blocks);
                        let (estimate, procs) = (self.estimate(job), self.procs(job));
                        if fits(&beside, self.capacity, self.now, estimate, procs) {
                            Reason::Pending
                        } else {
                            Reason::WouldDelay {
                                holder: self.jobs[head].job.id,
                                start: time(shadow),
                            }
                        }
                    };
                    (reason, ExpectedStart::Unknown)
                }
            };
            waiting.push((self.jobs[job].job.id, reason, expected));
        }
        self.passes.last_mut().expect("in a pass").waiting = waiting;
    }

    /// Flexible backfilling's queue order (positions in `waiting`).
    fn flexible_order(&self) -> Vec<usize> {
        let Rules::Flexible {
            heuristics: h,
            keeps_head,
        } = self.rules
        else {
            unreachable!("flexible rules only")
        };
        let shortest = self
            .waiting
            .iter()
            .map(|w| self.estimate(w.job))
            .min()
            .unwrap_or(1);
        let priority = |job: usize| -> u128 {
            let j = &self.jobs[job].job;
            assert!(
                j.deadline().is_none() && j.licenses.0 == 0,
                "the reference models flexible backfilling without deadlines and licenses"
            );
            let aging = u128::from(h.age_factor) * u128::from(self.now - self.submit(job));
            let wait =
                u128::from(h.wait_boost) * u128::from(shortest) / u128::from(self.estimate(job));
            u128::from(h.aging_weight) * aging + u128::from(h.wait_weight) * wait
        };
        let mut order: Vec<usize> = (0..self.waiting.len()).collect();
        order.sort_by_key(|&n| {
            let job = self.waiting[n].job;
            let first = keeps_head && Some(job) == self.holder;
            (
                !first,
                std::cmp::Reverse(priority(job)),
                self.submit(job),
                self.jobs[job].job.id,
            )
        });
        order
    }

    /// FCFS, EASY, SJF-EASY and flexible backfilling, over the waiting
    /// positions `order`; returns the head (the first job that did not
    /// fit), if any.
    fn pass_queue(
        &mut self,
        order: Vec<usize>,
        backfill: bool,
        record_guarantee: bool,
    ) -> Option<usize> {
        let mut blocks = self.running_blocks();
        let mut started = Vec::new();
        let mut head = None;
        for (position, &n) in order.iter().enumerate() {
            let job = self.waiting[n].job;
            let steps = usage(self.now, &blocks);
            let (estimate, procs) = (self.estimate(job), self.procs(job));
            if !fits(&steps, self.capacity, self.now, estimate, procs) {
                head = Some(position);
                break;
            }
            started.push(n);
            blocks.push(Block {
                from: self.now,
                to: self.now + estimate,
                procs,
            });
        }
        for &n in &started {
            self.started_as(self.waiting[n].job, StartKind::InOrder);
        }
        let in_order = started.len();
        if let (false, Some(position)) = (backfill, head) {
            self.head = Some((self.waiting[order[position]].job, None));
        }
        if let (true, Some(position)) = (backfill, head) {
            // The head's shadow time: the plan so far is running jobs only.
            let n = order[position];
            let job = self.waiting[n].job;
            let (estimate, procs) = (self.estimate(job), self.procs(job));
            let shadow = earliest_fit(&usage(self.now, &blocks), self.capacity, estimate, procs);
            self.head = Some((job, Some(shadow)));
            if record_guarantee && self.waiting[n].guarantee.is_none() {
                self.waiting[n].guarantee = Some(shadow);
            }
            blocks.push(Block {
                from: shadow,
                to: shadow + estimate,
                procs,
            });
            for &n in &order[position + 1..] {
                self.start_if_it_fits(n, &mut blocks, &mut started);
            }
        }
        for &n in &started[in_order..] {
            self.started_as(self.waiting[n].job, StartKind::Backfilled);
        }
        let head_job = head.map(|position| self.waiting[order[position]].job);
        self.start_all(started);
        head_job
    }

    /// The threshold (thousandths) that applies to `job` now.
    fn threshold(&self, job: usize) -> Option<u64> {
        let Rules::Selective(threshold) = self.rules else {
            return None;
        };
        let j = &self.jobs[job].job;
        Some(match threshold {
            Threshold::Fixed(t) => u64::from(t),
            Threshold::PerCategory { thresholds, bounds } => {
                let short = j.estimate <= bounds.short_max;
                let narrow = j.procs <= bounds.narrow_max;
                let index = match (short, narrow) {
                    (true, true) => 0,   // SN
                    (true, false) => 1,  // SW
                    (false, true) => 2,  // LN
                    (false, false) => 3, // LW
                };
                u64::from(thresholds[index])
            }
            Threshold::Adaptive { scale, initial, .. } => {
                let (count, sum) = self.completed;
                // Before any job is counted, `initial`.
                sum.checked_div(count)
                    .map_or(u64::from(initial), |mean| mean * u64::from(scale) / 1000)
            }
        })
    }

    /// Selective: the instant entry job `job` is promoted under the current
    /// threshold.
    fn promotion_instant(&self, job: usize) -> Option<u64> {
        let threshold = self.threshold(job)?;
        let excess = threshold.saturating_sub(1000);
        Some(self.submit(job) + (excess * self.estimate(job)).div_ceil(1000))
    }

    fn pass_selective(&mut self) {
        // Promotions, in queue order, each reserved at its earliest start.
        for n in self.in_order(|w| w.reservation.is_none()) {
            let job = self.waiting[n].job;
            if self.promotion_instant(job).is_some_and(|at| at <= self.now) {
                let start = self.earliest_start(job, None);
                self.waiting[n].reservation = Some(start);
                self.waiting[n].guarantee = Some(start);
            }
        }
        // Guaranteed jobs whose reservation has come.
        let mut started: Vec<usize> = self.in_order(|w| w.reservation == Some(self.now));
        for &n in &started {
            self.started_as(self.waiting[n].job, self.at_reservation(n));
        }
        let due = started.len();
        // Entry jobs that fit now without touching any reservation.
        let mut blocks = self.plan_blocks(None);
        for n in self.in_order(|w| w.reservation.is_none()) {
            self.start_if_it_fits(n, &mut blocks, &mut started);
        }
        // An entry job starts in order when every job ahead of it starts
        // in this pass too.
        let queue = self.in_order(|_| true);
        for &n in &started[due..] {
            let position = queue.iter().position(|&m| m == n).expect("queued");
            let kind = if queue[..position].iter().all(|m| started.contains(m)) {
                StartKind::InOrder
            } else {
                StartKind::Backfilled
            };
            self.started_as(self.waiting[n].job, kind);
        }
        self.start_all(started);
    }

    /// Waiting job `n` starts now if it fits beside `blocks` (the plan so
    /// far): it joins `started` and its block joins `blocks`.
    fn start_if_it_fits(&self, n: usize, blocks: &mut Vec<Block>, started: &mut Vec<usize>) {
        let job = self.waiting[n].job;
        let (estimate, procs) = (self.estimate(job), self.procs(job));
        if fits(
            &usage(self.now, blocks),
            self.capacity,
            self.now,
            estimate,
            procs,
        ) {
            started.push(n);
            blocks.push(Block {
                from: self.now,
                to: self.now + estimate,
                procs,
            });
        }
    }
}

/// A job on which the kernel and the reference disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The job.
    pub job: JobId,
    /// What the kernel did (`None`: no record, refused or lost).
    pub kernel: Option<NaiveRecord>,
    /// What the reference did (`None`: refused).
    pub reference: Option<NaiveRecord>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |r: &Option<NaiveRecord>| match r {
            Some(r) => r.to_string(),
            None => "no record".to_owned(),
        };
        write!(
            f,
            "job {}: kernel {}, reference {}",
            self.job,
            show(&self.kernel),
            show(&self.reference)
        )
    }
}

/// Compares a kernel replay's finished jobs with the reference's records
/// for the same `jobs`: every job's start, end, killed flag and guarantee.
///
/// Returns how many jobs were compared.
///
/// # Errors
/// The difference at the earliest time (the smallest start of the two),
/// which is the first thing that went differently.
pub fn compare(
    jobs: &[SimJob],
    kernel: &[JobRecord],
    reference: &[Option<NaiveRecord>],
) -> Result<usize, Difference> {
    let by_id: std::collections::HashMap<JobId, NaiveRecord> = kernel
        .iter()
        .map(|r| (r.job.id, NaiveRecord::from_kernel(r)))
        .collect();
    let mut first: Option<(Time, Difference)> = None;
    for (sim, theirs) in jobs.iter().zip(reference) {
        let ours = by_id.get(&sim.job.id).copied();
        let same = match (ours, theirs) {
            (Some(a), Some(b)) => a == *b,
            (None, None) => true,
            _ => false,
        };
        if !same {
            let at = [ours, *theirs]
                .iter()
                .flatten()
                .map(|r| r.start)
                .min()
                .unwrap_or(sim.job.submit);
            if first.as_ref().is_none_or(|(t, _)| at < *t) {
                let difference = Difference {
                    job: sim.job.id,
                    kernel: ours,
                    reference: *theirs,
                };
                first = Some((at, difference));
            }
        }
    }
    match first {
        Some((_, difference)) => Err(difference),
        None => Ok(jobs.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{job, sims};

    fn starts(records: &[Option<NaiveRecord>]) -> Vec<Option<Time>> {
        records.iter().map(|r| r.map(|r| r.start)).collect()
    }

    #[test]
    fn usage_and_fits_on_half_open_intervals() {
        let blocks = [
            Block {
                from: 0,
                to: 10,
                procs: 3,
            },
            Block {
                from: 10,
                to: 20,
                procs: 2,
            },
        ];
        let steps = usage(5, &blocks);
        assert_eq!(steps, [(5, 3), (10, 2), (20, 0)]);
        assert!(fits(&steps, 4, 5, 5, 1));
        assert!(!fits(&steps, 4, 5, 6, 2));
        assert!(fits(&steps, 4, 10, 100, 2));
        assert_eq!(earliest_fit(&steps, 4, 5, 2), 10);
        assert_eq!(earliest_fit(&steps, 4, 5, 3), 20);
        assert_eq!(earliest_fit(&steps, 4, 5, 1), 5);
    }

    /// EASY on 10 processors: job 1 (6 procs, 100 s) runs; job 2 (9 procs)
    /// is the head, shadow 100, leaving 1 processor spare; job 3 (2 procs,
    /// 100 s) ends exactly at the shadow time and backfills; job 4 (2 procs,
    /// 101 s) would delay the head.
    #[test]
    fn easy_backfills_up_to_the_shadow_time() {
        let input = sims(&[
            job(1).procs(6).estimate(100),
            job(2).procs(9).estimate(50),
            job(3).procs(2).estimate(100),
            job(4).procs(2).estimate(101),
        ]);
        let out = simulate(10, Policy::Easy, &input);
        assert_eq!(starts(&out), [Some(0), Some(100), Some(0), Some(150)]);
        assert_eq!(out[1].unwrap().guarantee, Some(100));
        let fcfs = simulate(10, Policy::Fcfs, &input);
        assert_eq!(starts(&fcfs), [Some(0), Some(100), Some(150), Some(150)]);
        assert_eq!(fcfs[1].unwrap().guarantee, None);
    }

    /// The kernel's own hand-checked case (core/src/kernel/tests.rs): a
    /// pass is not a fixpoint, and an on-time completion compresses too.
    #[test]
    fn conservative_compresses_after_an_on_time_completion() {
        let input = sims(&[
            job(1).procs(5).estimate(100).runs(10),
            job(2).procs(5).estimate(40),
            job(3).submit(1).procs(10).estimate(50),
            job(4).submit(2).procs(5).estimate(60),
        ]);
        let out = simulate(10, Policy::Conservative, &input);
        assert_eq!(starts(&out), [Some(0), Some(0), Some(70), Some(10)]);
        assert_eq!(out[2].unwrap().guarantee, Some(100));
        assert_eq!(out[3].unwrap().guarantee, Some(40));
    }

    /// Threshold 1.5 on 4 processors: job 1 (2 procs, 20 s) runs; job 2
    /// (4 procs, 10 s, submitted at 1) is promoted at 1 + 5 = 6 and reserved
    /// at 20. Job 3 (2 procs, 100 s) backfills if it arrives before that
    /// promotion (job 2 then waits for it), and not after.
    #[test]
    fn selective_promotes_at_the_threshold_instant() {
        let policy = Policy::Selective(Threshold::Fixed(1500));
        let third_at = |submit| {
            sims(&[
                job(1).procs(2).estimate(20),
                job(2).submit(1).procs(4).estimate(10),
                job(3).submit(submit).procs(2).estimate(100),
            ])
        };
        let out = simulate(4, policy, &third_at(5));
        assert_eq!(starts(&out), [Some(0), Some(105), Some(5)]);
        assert_eq!(out[1].unwrap().guarantee, Some(105));
        let out = simulate(4, policy, &third_at(7));
        assert_eq!(starts(&out), [Some(0), Some(20), Some(30)]);
        assert_eq!(out[1].unwrap().guarantee, Some(20));
        assert_eq!(out[2].unwrap().guarantee, None);
    }

    #[test]
    fn zero_run_times_kills_and_refusals() {
        let input = sims(&[
            job(1).procs(2).estimate(10).runs(0),
            job(2).procs(2).estimate(10).runs(30),
            job(3).procs(9).estimate(10).runs(1),
        ]);
        let out = simulate(2, Policy::Easy, &input);
        let a = out[0].unwrap();
        let b = out[1].unwrap();
        assert_eq!((a.start, a.end, a.killed), (0, 0, false));
        assert_eq!((b.start, b.end, b.killed), (0, 10, true));
        assert_eq!(out[2], None);
    }
}
