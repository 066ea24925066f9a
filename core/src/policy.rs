//! The scheduling policies, chosen at run time by value (no `dyn`).
//!
//! Each policy family lives in its own file below, which opens with the
//! rules it implements (`docs/design.md`, "Policies") and the paper they come from:
//!
//! | policy | file | rule | source |
//! | --- | --- | --- | --- |
//! | [`Policy::Fcfs`] | `fcfs.rs` | start jobs strictly in queue order while the head fits; no backfilling | baseline |
//! | [`Policy::Easy`] | `easy.rs` | start from the head while jobs fit; the first that does not gets a reservation at its shadow time; later jobs start now if they fit without delaying it | Lifka, EASY (1995); Mu'alem & Feitelson (2001) |
//! | [`Policy::SjfEasy`] | `easy.rs` | EASY with the queue ordered by estimate, shortest first (ties: submit, id); not starvation-free | Srinivasan et al., JSSPP 2002 |
//! | [`Policy::Conservative`] | `conservative.rs` | every job gets a reservation on arrival at the earliest time it fits the plan; it starts at its reservation; after every instant with a completion the plan is compressed in queue order, never moving a reservation later | Mu'alem & Feitelson (2001) |
//! | [`Policy::ConservativeNoCompression`] | `conservative.rs` | Conservative whose reservations, made at arrival, are never revisited; a baseline | the CONS+RS paper's CONS |
//! | [`Policy::ConservativeRebuild`] | `rebuild.rs` | Conservative whose plan is compressed only after an instant with an early completion, by putting every waiting job back in order of its planned start | the Alea simulator's CONS |
//! | [`Policy::ConsRs`] | `cons_rs.rs` | Conservative, then after every early completion a bounded random search: a random queued job moves into the earliest gap before its reservation, jobs it displaces are re-placed; kept only if no job passes its guarantee and the mean predicted wait and bounded slowdown improve | Klusáček, *Conservative backfilling with random-search gap filling* |
//! | [`Policy::ConsRsAlea`] | `cons_rs_alea.rs` | Conservative without compression; after every early completion and every 300 s a seeded random search moves a random job to a random place in the plan's list (scheduled as a list schedule) and keeps the move if Alea's objective (response, wait, slowdown) improves; no guarantee | the Alea simulator's CONS+RS |
//! | [`Policy::BfFcfs`] | `flexible.rs` | EASY on a heterogeneous farm: machines tried most powerful first (ties: index); the head keeps the front until it starts | Baraglia et al., *Backfilling strategies for scheduling streams of jobs on computational farms*, CoreGRID 2007 |
//! | [`Policy::BfUnmod`] | `flexible.rs` | BF_FCFS with the queue behind the head re-ordered at every pass by the priority of the five [`Heuristics`] (aging, deadline, licenses, wait minimisation; minimal requirements as a filter); the head keeps its reservation until it starts | the same |
//! | [`Policy::BfMod`] | `flexible.rs` | BF_UNMOD, but the reservation belongs to the highest-priority job at each pass and moves when another overtakes it; not starvation-free for weak aging | the same |
//! | [`Policy::Selective`] | `selective.rs` | two queues: an entry queue without guarantees (FCFS) and a guaranteed queue run like Conservative. A job is promoted, and gets a reservation, the instant its expansion factor `(wait + estimate) / estimate` reaches its starvation [`Threshold`]; entry-queue jobs start whenever they fit now without delaying a reservation | Srinivasan, Kettimuthu, Subramani & Sadayappan, *Selective Reservation Strategies for Backfill Job Scheduling*, JSSPP 2002 |
//! | [`Policy::Dpsa`] | `dpsa.rs` | EASY's head phase and head reservation; then a depth-first search, bounded by a node budget, over the other jobs that fit now for the subset that starts the most processors; the search order ([`DpsaOrder`]: queue, narrow first, wide first) breaks ties | Grudenić & Bogunović, MIPRO 2011 |
//!
//! Queue order is FCFS, `(submit, id)`, unless the policy says otherwise.
//!
//! # Adding a policy
//!
//! A policy is a file here holding its memory between calls (a struct)
//! that implements `Rules` (its pass, and what it does at arrivals; a
//! policy of the Conservative family implements `conservative::Reserves`,
//! how it settles the plan, and follows Conservative's rules for the rest),
//! a variant of [`Policy`] (its public name and parameters) and an arm of
//! `Engine` (the memory, one arm per family), which the kernel dispatches
//! on by value. A policy works on the kernel's state (`crate::state`:
//! clock, wait queue, running set, plan) and the layers below it, never on
//! the kernel itself; a move that several policies make is a method of the
//! state, written in the file of the policy it comes from (FCFS's start
//! from the head, EASY's backfill behind the head, Conservative's
//! reservation on arrival).

mod cons_rs;
mod cons_rs_alea;
mod conservative;
mod dpsa;
mod easy;
mod explain;
mod fcfs;
mod flexible;
mod rebuild;
mod saved;
mod selective;

pub use cons_rs::{Iterations, RandomSearch, MAX_TOUCHED};
pub use cons_rs_alea::PERIOD as ALEA_SEARCH_PERIOD;
pub use dpsa::{DpsaOrder, DEFAULT_DPSA_NODES, DPSA_CANDIDATES};
pub(crate) use explain::View;
pub use flexible::{Heuristics, LicenseDemand, Scores};
pub(crate) use saved::Saved;
pub use selective::{SlowdownAverage, Threshold};

use crate::plan::Slot;
use crate::state::{KernelError, Observer, Pass, QueuedJob, RunningJob, State};
use crate::types::{Category, CategoryBounds, Job, Time};

/// A scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Policy {
    /// First come, first served, no backfilling.
    Fcfs,
    /// EASY (aggressive) backfilling: one reservation, for the queue head.
    Easy,
    /// EASY with shortest-estimate-first queue order.
    SjfEasy,
    /// Conservative backfilling: a reservation for every job, with compression.
    Conservative,
    /// Selective reservation with a threshold source (Selective, Selective-D,
    /// adaptive and scaled-adaptive).
    Selective(Threshold),
    /// Conservative without compression: reservations are never revisited.
    ConservativeNoCompression,
    /// Conservative with random-search gap filling after early completions.
    ConsRs(RandomSearch),
    /// Conservative with the "rebuild" compression (the Alea simulator's
    /// CONS): after an instant with an early completion only, every waiting
    /// job is put back in order of its planned start. Not in
    /// [`Policy::ALL`]: a variant of Conservative chosen by option. A
    /// rebuild sorts the queue on the stack: 24 bytes per queue slot.
    ConservativeRebuild,
    /// CONS+RS, Alea flavour (the Alea simulator's CONS+RS): no compression;
    /// after every early completion and every
    /// [`ALEA_SEARCH_PERIOD`] seconds a random search moves a random job to
    /// a random place in the plan's list, keeping moves that improve Alea's
    /// objective; no guarantee. Not in [`Policy::ALL`]: CONS+RS chosen by
    /// option. One machine without license pools only. A search keeps its
    /// lists of the queue on the stack: about 48 bytes per queue slot.
    ConsRsAlea(RandomSearch),
    /// BF_FCFS: EASY on a farm (machines tried most powerful first).
    BfFcfs,
    /// BF_UNMOD: flexible backfilling; the head keeps its reservation, the
    /// rest is ordered by the heuristics' priority at every pass.
    BfUnmod(Heuristics),
    /// BF_MOD: flexible backfilling; the reservation belongs to the
    /// highest-priority job at every pass.
    BfMod(Heuristics),
    /// DPSA (DPSA-p, -n, -w): EASY's head reservation, then a search for the
    /// set of jobs that starts the most processors now.
    Dpsa {
        /// The search order, which breaks ties (the variant).
        order: DpsaOrder,
        /// Search nodes per pass ([`DEFAULT_DPSA_NODES`] by default; 0 keeps
        /// the greedy set, so DPSA-p with 0 is EASY).
        nodes: u32,
    },
}

impl Policy {
    /// Selective with an example fixed threshold of 2.0 (tests, fuzzing).
    pub const SELECTIVE_EXAMPLE: Self = Self::Selective(Threshold::Fixed(2000));
    /// Selective-D with example thresholds (tests, fuzzing): SN 4.0, SW 8.0,
    /// LN 1.5, LW 2.0 (the paper's CTC values rounded, Table 7).
    pub const SELECTIVE_D_EXAMPLE: Self = Self::Selective(Threshold::PerCategory {
        thresholds: [4000, 8000, 1500, 2000],
        bounds: CategoryBounds::DEFAULT,
    });

    /// DPSA-p with the default node budget.
    pub const DPSA_P: Self = Self::Dpsa {
        order: DpsaOrder::Priority,
        nodes: DEFAULT_DPSA_NODES,
    };
    /// DPSA-n with the default node budget.
    pub const DPSA_N: Self = Self::Dpsa {
        order: DpsaOrder::Narrow,
        nodes: DEFAULT_DPSA_NODES,
    };
    /// DPSA-w with the default node budget.
    pub const DPSA_W: Self = Self::Dpsa {
        order: DpsaOrder::Wide,
        nodes: DEFAULT_DPSA_NODES,
    };

    /// Every policy, in a fixed order (for sweeps, tests and fuzzing);
    /// Selective variants with example thresholds, CONS+RS with its default
    /// search, DPSA with the default node budget, flexible backfilling with
    /// the default [`Heuristics`].
    pub const ALL: [Self; 16] = [
        Self::Fcfs,
        Self::Easy,
        Self::SjfEasy,
        Self::Conservative,
        Self::SELECTIVE_EXAMPLE,
        Self::SELECTIVE_D_EXAMPLE,
        Self::Selective(Threshold::ADAPTIVE),
        Self::Selective(Threshold::SCALED_ADAPTIVE),
        Self::ConservativeNoCompression,
        Self::ConsRs(RandomSearch::DEFAULT),
        Self::BfFcfs,
        Self::BfUnmod(Heuristics::DEFAULT),
        Self::BfMod(Heuristics::DEFAULT),
        Self::DPSA_P,
        Self::DPSA_N,
        Self::DPSA_W,
    ];

    /// The variants of a policy in [`Policy::ALL`] that an option of that
    /// policy also chooses (Conservative's rebuild compression, CONS+RS's
    /// Alea flavour), kept out of `ALL` so that sweeps over it stay as they
    /// were; [`Policy::from_name`] takes their names, and tests that cover
    /// every policy take them too.
    pub const OPTION_VARIANTS: [Self; 2] = [
        Self::ConservativeRebuild,
        Self::ConsRsAlea(RandomSearch::DEFAULT),
    ];

    /// The policy's command-line name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Fcfs => "fcfs",
            Self::Easy => "easy",
            Self::SjfEasy => "sjf-easy",
            Self::Conservative => "conservative",
            Self::Selective(Threshold::Fixed(_)) => "selective",
            Self::Selective(Threshold::PerCategory { .. }) => "selective-d",
            Self::Selective(Threshold::Adaptive { scale: 1000, .. }) => "selective-adaptive",
            Self::Selective(Threshold::Adaptive { .. }) => "selective-scaled",
            Self::ConservativeNoCompression => "conservative-no-compression",
            Self::ConsRs(_) => "cons-rs",
            Self::ConservativeRebuild => "conservative-rebuild",
            Self::ConsRsAlea(_) => "cons-rs-alea",
            Self::BfFcfs => "bf-fcfs",
            Self::BfUnmod(_) => "bf-unmod",
            Self::BfMod(_) => "bf-mod",
            Self::Dpsa {
                order: DpsaOrder::Priority,
                ..
            } => "dpsa-p",
            Self::Dpsa {
                order: DpsaOrder::Narrow,
                ..
            } => "dpsa-n",
            Self::Dpsa {
                order: DpsaOrder::Wide,
                ..
            } => "dpsa-w",
        }
    }

    /// DPSA with a node budget of `nodes` per pass; other policies unchanged.
    #[must_use]
    pub const fn with_dpsa_nodes(self, nodes: u32) -> Self {
        match self {
            Self::Dpsa { order, .. } => Self::Dpsa { order, nodes },
            other => other,
        }
    }

    /// The policy with command-line name `name` (Selective variants with
    /// their example or default thresholds, CONS+RS of either flavour with
    /// its default search, DPSA with the default budget, flexible
    /// backfilling with the default [`Heuristics`]): a policy of
    /// [`Policy::ALL`] or of [`Policy::OPTION_VARIANTS`], each of which has
    /// a name of its own as `conservative-no-compression` has.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .chain(Self::OPTION_VARIANTS)
            .find(|p| p.name() == name)
    }

    /// Whether every queued job gets a reservation on arrival.
    #[must_use]
    pub const fn reserves_all(self) -> bool {
        matches!(
            self,
            Self::Conservative
                | Self::ConservativeNoCompression
                | Self::ConservativeRebuild
                | Self::ConsRs(_)
                | Self::ConsRsAlea(_)
        )
    }

    /// Whether reservations are kept in the plan (compressed after every
    /// completion instant, except without compression) and are guarantees:
    /// the job starts by its first reservation (Conservative, its variants,
    /// and Selective's guaranteed queue). A reservation never moves later,
    /// except under [`Policy::reservations_may_move_later`].
    #[must_use]
    pub const fn keeps_reservations(self) -> bool {
        self.reserves_all() || matches!(self, Self::Selective(_))
    }

    /// Whether a reservation may move later than it was, though never past
    /// the job's guarantee (its reservation at arrival): CONS+RS's
    /// displaced jobs.
    #[must_use]
    pub const fn reservations_may_move_later(self) -> bool {
        matches!(self, Self::ConsRs(_) | Self::ConsRsAlea(_))
    }

    /// Whether the policy can run on `cluster`: every policy can, except
    /// CONS+RS's Alea flavour, which needs one machine without license
    /// pools (its searches fail with
    /// [`KernelError::Unsupported`]
    /// elsewhere).
    #[must_use]
    pub fn runs_on<const M: usize, const L: usize>(
        self,
        cluster: &crate::types::Cluster<M, L>,
    ) -> bool {
        !matches!(self, Self::ConsRsAlea(_))
            || (cluster.machines().len() == 1 && cluster.pools().is_empty())
    }

    /// Whether a job's reservation at arrival is its guarantee (it starts
    /// no later): every policy that keeps reservations except CONS+RS's
    /// Alea flavour, whose moves may delay any job.
    #[must_use]
    pub const fn reservation_is_guarantee(self) -> bool {
        self.keeps_reservations() && !matches!(self, Self::ConsRsAlea(_))
    }

    /// Whether the policy reserves for the head of its queue only, EASY
    /// style: the first job that does not fit gets a reservation at its
    /// earliest start, and later jobs backfill around it (DPSA keeps EASY's
    /// head phase). Whether that reservation is a promise is
    /// [`Policy::head_guaranteed`].
    #[must_use]
    pub const fn reserves_head(self) -> bool {
        matches!(
            self,
            Self::Easy
                | Self::SjfEasy
                | Self::Dpsa { .. }
                | Self::BfFcfs
                | Self::BfUnmod(_)
                | Self::BfMod(_)
        )
    }

    /// Whether the job holding the head reservation keeps it until it
    /// starts, and starts no later than its first reservation (EASY, DPSA,
    /// BF_FCFS, BF_UNMOD). Not SJF-EASY, whose head a shorter arrival
    /// overtakes, nor BF_MOD, whose reservation moves to whichever job has
    /// the highest priority.
    #[must_use]
    pub const fn head_guaranteed(self) -> bool {
        matches!(
            self,
            Self::Easy | Self::Dpsa { .. } | Self::BfFcfs | Self::BfUnmod(_)
        )
    }

    /// Whether, on one machine without licenses, the policy asks only how
    /// many processors are free now and when the running jobs end (FCFS,
    /// EASY, SJF-EASY): then [`Kernel::new`](crate::Kernel::new) keeps no
    /// plan.
    #[must_use]
    pub const fn needs_only_free_and_ends(self) -> bool {
        matches!(self, Self::Fcfs | Self::Easy | Self::SjfEasy)
    }

    /// Whether the policy guarantees that every job of a finite input starts.
    #[must_use]
    pub const fn starvation_free(self) -> bool {
        !matches!(self, Self::SjfEasy | Self::BfMod(_))
    }

    /// Flexible backfilling (BF_UNMOD, BF_MOD): the heuristics' weights and
    /// constants; `None` for other policies.
    #[must_use]
    pub const fn heuristics(self) -> Option<Heuristics> {
        match self {
            Self::BfUnmod(h) | Self::BfMod(h) => Some(h),
            _ => None,
        }
    }

    /// Whether the queue is ordered by estimate rather than by arrival.
    #[must_use]
    pub const fn shortest_first(self) -> bool {
        matches!(self, Self::SjfEasy)
    }

    /// Selective: the threshold (thousandths) that applies to `job` when the
    /// adaptive average is `average`; `None` for other policies.
    #[must_use]
    pub fn threshold_for(self, job: &Job, average: &SlowdownAverage) -> Option<u32> {
        let Self::Selective(threshold) = self else {
            return None;
        };
        Some(match threshold {
            Threshold::Fixed(t) => t,
            Threshold::PerCategory { thresholds, bounds } => {
                let category: Category = bounds.classify(job.estimate, job.procs);
                thresholds
                    .get(category.index())
                    .copied()
                    .unwrap_or(u32::MAX)
            }
            Threshold::Adaptive { scale, initial, .. } => match average.mean() {
                Some(mean) => {
                    let scaled = mean.saturating_mul(u64::from(scale)) / 1000;
                    u32::try_from(scaled).unwrap_or(u32::MAX)
                }
                None => initial,
            },
        })
    }

    /// Selective: the instant `job` is promoted under threshold `threshold`
    /// (thousandths): `submit + ceil((threshold - 1000) * estimate / 1000)`,
    /// saturating at `Time::MAX`.
    #[must_use]
    pub fn promotion_time(job: &Job, threshold: u32) -> Time {
        let excess = u64::from(threshold.saturating_sub(1000));
        let wait = excess
            .saturating_mul(u64::from(job.estimate))
            .div_ceil(1000);
        let at = u64::from(job.submit).saturating_add(wait);
        Time::try_from(at).unwrap_or(Time::MAX)
    }
}

impl core::fmt::Display for Policy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A policy's memory between kernel calls, one arm per policy family; the
/// kernel dispatches on it by value, and [`Kernel::reset`](crate::Kernel::reset)
/// builds it as a value, so every arm stays small (a few hundred bytes):
/// CONS+RS's search keeps its caches and buffers on its own stack.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Engine {
    /// FCFS remembers nothing.
    Fcfs,
    /// EASY and SJF-EASY.
    Easy(easy::Easy),
    /// DPSA-p, -n, -w.
    Dpsa(dpsa::Dpsa),
    /// Conservative.
    Conservative(conservative::Conservative),
    /// Selective reservation.
    Selective(selective::Selective),
    /// CONS+RS.
    ConsRs(cons_rs::ConsRs),
    /// CONS+RS, Alea flavour.
    ConsRsAlea(cons_rs_alea::ConsRsAlea),
    /// BF_FCFS, BF_UNMOD and BF_MOD.
    Flexible(flexible::Flexible),
}

impl Engine {
    /// The engine that runs `policy`.
    pub(crate) fn new(policy: Policy) -> Self {
        match policy {
            Policy::Fcfs => Self::Fcfs,
            Policy::Easy => Self::Easy(easy::Easy::new(false)),
            Policy::SjfEasy => Self::Easy(easy::Easy::new(true)),
            Policy::Conservative => Self::Conservative(conservative::Conservative::default()),
            Policy::Selective(threshold) => Self::Selective(selective::Selective::new(threshold)),
            Policy::ConservativeNoCompression => Self::Conservative(conservative::Conservative {
                static_plan: true,
                ..conservative::Conservative::default()
            }),
            Policy::ConservativeRebuild => Self::Conservative(conservative::Conservative {
                rebuild: Some(rebuild::Rebuild::default()),
                ..conservative::Conservative::default()
            }),
            Policy::ConsRs(params) => Self::ConsRs(cons_rs::ConsRs::new(params)),
            Policy::ConsRsAlea(params) => Self::ConsRsAlea(cons_rs_alea::ConsRsAlea::new(params)),
            Policy::BfFcfs => Self::Flexible(flexible::Flexible::new(
                flexible::Mode::Fcfs,
                Heuristics::DEFAULT,
            )),
            Policy::BfUnmod(h) => Self::Flexible(flexible::Flexible::new(flexible::Mode::Unmod, h)),
            Policy::BfMod(h) => Self::Flexible(flexible::Flexible::new(flexible::Mode::Mod, h)),
            Policy::Dpsa { order, nodes } => Self::Dpsa(dpsa::Dpsa::new(order, nodes)),
        }
    }

    /// Tests: compression searches every window (no pruning).
    #[cfg(test)]
    pub(crate) fn search_exhaustively(&mut self) {
        match self {
            Self::Conservative(c) => c.compression.exhaustive = true,
            Self::Selective(s) => s.compression.exhaustive = true,
            Self::ConsRs(c) => c.memory.cons.compression.exhaustive = true,
            _ => {}
        }
    }

    /// Whether the queue is ordered by estimate rather than by arrival.
    pub(crate) const fn shortest_first(&self) -> bool {
        matches!(self, Self::Easy(e) if e.shortest_first)
    }

    /// `done` completed at `now`; the plan has released what it held.
    pub(crate) fn completed<const B: usize, const M: usize, const L: usize>(
        &mut self,
        plan: &crate::plan::Plan<B, M, L>,
        done: &RunningJob,
        now: Time,
    ) {
        match self {
            Self::Fcfs | Self::Easy(_) | Self::Dpsa(_) | Self::Flexible(_) => {}
            Self::Conservative(c) => c.completed(plan, &done.slot, now),
            Self::Selective(s) => s.completed(plan, done, now),
            Self::ConsRs(c) => c.completed(plan, done, now),
            Self::ConsRsAlea(c) => c.memory.completed(done, now),
        }
    }

    /// Whether what the policy keeps of the earliest reservation start
    /// agrees with `queue` (policies that keep none: always).
    pub(crate) fn earliest_agrees(&self, queue: &[QueuedJob]) -> bool {
        self.compression()
            .is_none_or(|compression| compression.earliest_agrees(queue))
    }

    /// The compression bookkeeping of the policies that reserve for every
    /// job they guarantee (Conservative, CONS+RS, Selective's guaranteed
    /// queue).
    fn compression(&self) -> Option<&conservative::Compression> {
        match self {
            Self::Conservative(c) => Some(&c.compression),
            Self::ConsRs(c) => Some(&c.memory.cons.compression),
            Self::ConsRsAlea(c) => Some(&c.memory.cons.compression),
            Self::Selective(s) => Some(&s.compression),
            Self::Fcfs | Self::Easy(_) | Self::Dpsa(_) | Self::Flexible(_) => None,
        }
    }

    /// [`Engine::compression`], to change.
    fn compression_mut(&mut self) -> Option<&mut conservative::Compression> {
        match self {
            Self::Conservative(c) => Some(&mut c.compression),
            Self::ConsRs(c) => Some(&mut c.memory.cons.compression),
            Self::ConsRsAlea(c) => Some(&mut c.memory.cons.compression),
            Self::Selective(s) => Some(&mut s.compression),
            Self::Fcfs | Self::Easy(_) | Self::Dpsa(_) | Self::Flexible(_) => None,
        }
    }

    /// Selective: when entry-queue `job` is promoted (`Time::MAX` otherwise).
    pub(crate) fn promotion_time(&self, job: &Job) -> Time {
        match self {
            Self::Selective(s) => s.promotion_time(job),
            _ => Time::MAX,
        }
    }

    /// Selective: the running average of completed jobs' bounded slowdowns.
    pub(crate) fn slowdown_average(&self) -> &SlowdownAverage {
        const NONE: &SlowdownAverage = &SlowdownAverage { count: 0, sum: 0 };
        match self {
            Self::Selective(s) => &s.average,
            _ => NONE,
        }
    }
}

/// What a policy family answers to the kernel's calls, on a kernel state
/// `S` of any capacities (a `State<Q, R, B, M, L>`): each family's memory
/// implements it, and [`Engine`] passes every call to the family of its
/// arm. A call a family has no rule for does nothing.
pub(crate) trait Rules<S> {
    /// `job` arrives (the kernel has checked it and the queue has room):
    /// settle what the completions at this instant left to do, and return
    /// the reservation the policy gives it on arrival, if any (already in
    /// the plan and reported to `observer`).
    fn arrival(
        &mut self,
        st: &mut S,
        job: &Job,
        observer: &mut impl Observer,
    ) -> Result<Option<Slot>, KernelError> {
        let _ = (st, job, observer);
        Ok(None)
    }

    /// The arrival was queued at position `at`.
    fn queued(&mut self, st: &mut S, at: usize) {
        let _ = (st, at);
    }

    /// One scheduling pass at `st.now` (running jobs are all within their
    /// estimates).
    fn pass(&mut self, st: &mut S, observer: &mut impl Observer) -> Result<Pass, KernelError>;

    /// The earliest instant after `st.now` at which the policy must run a
    /// pass for a queued job (a reservation start, a promotion).
    fn next_wakeup(&self, st: &S) -> Option<Time> {
        let _ = st;
        None
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Rules<State<Q, R, B, M, L>> for Engine
{
    fn arrival(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        job: &Job,
        observer: &mut impl Observer,
    ) -> Result<Option<Slot>, KernelError> {
        match self {
            Self::Fcfs | Self::Easy(_) | Self::Dpsa(_) | Self::Flexible(_) => Ok(None),
            Self::Conservative(c) => c.arrival(st, job, observer),
            Self::Selective(s) => s.arrival(st, job, observer),
            Self::ConsRs(c) => c.arrival(st, job, observer),
            Self::ConsRsAlea(c) => c.arrival(st, job, observer),
        }
    }

    fn queued(&mut self, st: &mut State<Q, R, B, M, L>, at: usize) {
        match self {
            Self::Easy(e) => e.queued(st, at),
            Self::Dpsa(d) => d.queued(st, at),
            _ => {}
        }
        let reserved = st.queue.get(at).and_then(|q| q.reservation());
        if let (Some(compression), Some(slot)) = (self.compression_mut(), reserved) {
            compression.reserved(slot.start);
        }
    }

    /// One pass of the arm's family, then, for an observer that wants
    /// them, every queued job's reason.
    fn pass(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        let pass = match self {
            Self::Fcfs => fcfs::Fcfs.pass(st, observer),
            Self::Easy(e) => e.pass(st, observer),
            Self::Conservative(c) => c.pass(st, observer),
            Self::Selective(s) => s.pass(st, observer),
            Self::ConsRs(c) => c.pass(st, observer),
            Self::ConsRsAlea(c) => c.pass(st, observer),
            Self::Flexible(f) => f.pass(st, observer),
            Self::Dpsa(d) => d.pass(st, observer),
        };
        if observer.wants_reasons() && pass.is_ok() {
            View::report(self, st, observer);
        }
        pass
    }

    /// EASY's only reservation, the head's shadow time, is a running job's
    /// estimated end (or now), which the kernel watches anyway; so is
    /// DPSA's.
    fn next_wakeup(&self, st: &State<Q, R, B, M, L>) -> Option<Time> {
        match self {
            Self::Fcfs | Self::Easy(_) | Self::Dpsa(_) | Self::Flexible(_) => None,
            Self::Conservative(c) => c.next_wakeup(st),
            Self::ConsRs(c) => c.next_wakeup(st),
            Self::ConsRsAlea(c) => c.next_wakeup(st),
            Self::Selective(s) => s.next_wakeup(st),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fixtures::job;

    #[test]
    fn names_round_trip() {
        for p in Policy::ALL.into_iter().chain(Policy::OPTION_VARIANTS) {
            assert_eq!(Policy::from_name(p.name()), Some(p));
        }
        assert_eq!(
            Policy::from_name("conservative-rebuild"),
            Some(Policy::ConservativeRebuild)
        );
        assert_eq!(
            Policy::from_name("cons-rs-alea"),
            Some(Policy::ConsRsAlea(RandomSearch::DEFAULT))
        );
        assert_eq!(Policy::from_name("nope"), None);
    }

    #[test]
    fn promotion_time_is_exact() {
        let j = job(1).submit(100).procs(4).estimate(300).job();
        // XF = (wait + 300) / 300 reaches 1.5 when wait = 150.
        assert_eq!(Policy::promotion_time(&j, 1500), 250);
        // 2.333: wait = 1.333 * 300 = 399.9 -> 400 (ceil), XF(399) < 2.333.
        assert_eq!(Policy::promotion_time(&j, 2333), 500);
        assert_eq!(Policy::promotion_time(&j, 1000), 100);
        assert_eq!(Policy::promotion_time(&j, 900), 100);
        assert_eq!(
            Policy::promotion_time(
                &job(1).submit(5).procs(1).estimate(u32::MAX).job(),
                u32::MAX
            ),
            Time::MAX
        );
    }

    #[test]
    fn thresholds_by_source() {
        let avg = SlowdownAverage::default();
        let short_wide = job(1).procs(16).estimate(60).job();
        let long_narrow = job(2).procs(2).estimate(7200).job();
        assert_eq!(Policy::Easy.threshold_for(&short_wide, &avg), None);
        let d = Policy::SELECTIVE_D_EXAMPLE;
        assert_eq!(d.threshold_for(&short_wide, &avg), Some(8000));
        assert_eq!(d.threshold_for(&long_narrow, &avg), Some(1500));
        let adaptive = Policy::Selective(Threshold::SCALED_ADAPTIVE);
        assert_eq!(adaptive.threshold_for(&short_wide, &avg), Some(1000));
        let mut avg = SlowdownAverage::default();
        avg.add(30, 10); // (30 + 10) / 10 = 4
        avg.add(0, 5); // (0 + 10) / 10 = 1
        assert_eq!(avg.mean(), Some(2500));
        assert_eq!(adaptive.threshold_for(&short_wide, &avg), Some(3750));
    }
}
