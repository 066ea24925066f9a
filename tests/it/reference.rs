//! The kernel against the naive reference simulator
//! ([`backfill_tests::naive`]): random small workloads on one machine, every
//! job's start, end, kill flag and guarantee identical under FCFS, EASY,
//! SJF-EASY, Conservative, Selective with fixed, per-category, adaptive
//! and scaled-adaptive thresholds (the last two also over well-estimated
//! jobs only), flexible backfilling, and CONS+RS with several seeds and
//! budgets (also on workloads of longer jobs, where a move can trade one
//! job's wait against another's slowdown).
//!
//! Times come from small integer ranges so that what is rare in a trace is
//! common here: equal submit times, equal estimates, run times equal to the
//! estimate (ends that coincide with shadow times and reservation starts),
//! zero run times, kills, jobs as wide as the machine, and equal submit
//! times with ids in both orders.

use backfill_core::policy::{Heuristics, Iterations, RandomSearch, Threshold};
use backfill_core::{CategoryBounds, Job, JobId, Policy, SimJob, Time};
use backfill_tests::check::run_replay;
use backfill_tests::naive::{compare, models, simulate};
use backfill_tests::proptest_cases;
use proptest::prelude::*;

/// Most jobs in one workload.
pub(crate) const MAX_JOBS: usize = 24;
/// Kernel capacities: every job can wait or run at once; `B = 2Q + R + 1`.
pub(crate) const Q: usize = MAX_JOBS;
pub(crate) const R: usize = MAX_JOBS;
pub(crate) const B: usize = 2 * Q + R + 1;

/// The policies compared: every one in [`Policy::ALL`] the reference
/// models ([`models`]), plus thresholds and heuristics that make the edge
/// cases of each rule likely on small numbers.
pub(crate) fn policies() -> Vec<Policy> {
    let mut all: Vec<Policy> = Policy::ALL.into_iter().filter(|&p| models(p)).collect();
    all.extend([
        // Promoted on arrival: the guaranteed queue is all there is.
        Policy::Selective(Threshold::Fixed(1000)),
        // ceil((T - 1000) * e / 1000) with a remainder for most estimates.
        Policy::Selective(Threshold::Fixed(1333)),
        // Categories that small jobs fall into: short <= 3 s, narrow <= 2.
        Policy::Selective(Threshold::PerCategory {
            thresholds: [1200, 2500, 1000, 1700],
            bounds: CategoryBounds {
                short_max: 3,
                narrow_max: 2,
            },
        }),
        Policy::Selective(Threshold::Adaptive {
            scale: 1000,
            well_estimated_only: true,
            initial: 1500,
        }),
        Policy::Selective(Threshold::Adaptive {
            scale: 1500,
            well_estimated_only: true,
            initial: 2000,
        }),
        // Aging that competes with wait minimisation over a few seconds
        // (the defaults' aging is negligible at these time scales).
        Policy::BfUnmod(STRONG_AGING),
        Policy::BfMod(STRONG_AGING),
        // Conservative with the rebuild compression and CONS+RS's Alea
        // flavour (not in `Policy::ALL`), the latter with several seeds.
        Policy::ConservativeRebuild,
        Policy::ConsRsAlea(RandomSearch::DEFAULT),
        Policy::ConsRsAlea(RandomSearch {
            seed: 7,
            iterations: Iterations::PerQueuedJob(4),
        }),
        Policy::ConsRsAlea(RandomSearch {
            seed: 3,
            iterations: Iterations::Fixed(0),
        }),
        // CONS+RS without search iterations is Conservative.
        Policy::ConsRs(RandomSearch {
            seed: 1,
            iterations: Iterations::Fixed(0),
        }),
    ]);
    all.extend(&RS_POLICIES[1..]); // the first is in `Policy::ALL`
    all
}

/// Flexible-backfilling heuristics whose aging (0.25 points a second)
/// overtakes wait minimisation (at most 1 point) within seconds.
const STRONG_AGING: Heuristics = Heuristics {
    age_factor: 250,
    ..Heuristics::DEFAULT
};

/// How a job's run time relates to its estimate.
#[derive(Clone, Copy, Debug)]
enum Run {
    /// Exactly the estimate: ends when every plan says it does.
    At,
    /// Shorter (an early completion): this many seconds, capped below.
    Below(u32),
    /// Longer: killed at the estimate.
    Above(u32),
    /// Zero seconds.
    Zero,
}

/// One generated job: gap after the previous submit, width in
/// `1..=machine`, estimate, run time.
#[derive(Clone, Copy, Debug)]
struct Spec {
    gap: u32,
    width: u32,
    estimate: u32,
    run: Run,
}

/// A workload: machine size and jobs sorted by submit time; ids count up
/// or down (then equal submit times arrive against queue order).
#[derive(Clone, Debug)]
pub(crate) struct Workload {
    pub(crate) procs: u32,
    pub(crate) jobs: Vec<SimJob>,
}

fn spec() -> impl Strategy<Value = Spec> {
    let gap = prop_oneof![5 => Just(0_u32), 4 => 1_u32..=3, 1 => 4_u32..=20];
    let estimate = prop_oneof![6 => 1_u32..=6, 3 => 1_u32..=20, 1 => Just(10_u32)];
    let run = prop_oneof![
        4 => Just(Run::At),
        3 => (0_u32..20).prop_map(Run::Below),
        2 => (1_u32..=5).prop_map(Run::Above),
        1 => Just(Run::Zero),
    ];
    (gap, 0_u32..8, estimate, run).prop_map(|(gap, width, estimate, run)| Spec {
        gap,
        width,
        estimate,
        run,
    })
}

pub(crate) fn workload() -> impl Strategy<Value = Workload> {
    scaled_workload(1)
}

/// As [`workload`], every gap, estimate and run time multiplied by
/// `scale`: estimates then differ above the slowdown bound of 10 s, so a
/// CONS+RS move that helps a short job's slowdown and costs a long job
/// more wait (or the other way round) is common.
pub(crate) fn scaled_workload(scale: u32) -> impl Strategy<Value = Workload> {
    (
        prop_oneof![3 => 1_u32..=4, 2 => 5_u32..=8],
        prop::collection::vec(spec(), 1..=MAX_JOBS),
        any::<bool>(),
    )
        .prop_map(move |(procs, specs, descending_ids)| {
            let n = JobId::try_from(specs.len()).expect("few jobs");
            let mut submit: Time = 0;
            let jobs = specs
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    submit += s.gap * scale;
                    let i = JobId::try_from(i).expect("few jobs");
                    let id = if descending_ids { n - i } else { i + 1 };
                    // Full width one time in eight, else 1..=procs.
                    let width = if s.width == 7 {
                        procs
                    } else {
                        1 + s.width % procs
                    };
                    let runtime = match s.run {
                        Run::At => s.estimate,
                        Run::Below(r) => r % s.estimate,
                        Run::Above(extra) => s.estimate + extra,
                        Run::Zero => 0,
                    };
                    SimJob {
                        job: Job::new(id, submit, width, s.estimate * scale),
                        runtime: runtime * scale,
                    }
                })
                .collect();
            Workload { procs, jobs }
        })
}

/// The jobs as `(id, submit, procs, estimate, runtime)`, to paste into a test.
pub(crate) fn listing(jobs: &[SimJob]) -> String {
    let rows: Vec<String> = jobs
        .iter()
        .map(|j| {
            format!(
                "({}, {}, {}, {}, {})",
                j.job.id, j.job.submit, j.job.procs, j.job.estimate, j.runtime
            )
        })
        .collect();
    rows.join(", ")
}

/// Replays `w` under `policy` in the kernel and in the reference; `Err`
/// describes the first job they disagree on.
fn agree(w: &Workload, policy: Policy) -> Result<usize, String> {
    let cluster = backfill_core::Cluster::<1, 0>::single(w.procs).expect("a machine");
    let replay = run_replay::<Q, R, B, 1, 0>(&cluster, policy, &w.jobs);
    if let Err(e) = replay.outcome {
        return Err(format!("{policy:?}: kernel replay failed: {e}"));
    }
    let reference = simulate(w.procs, policy, &w.jobs);
    compare(&w.jobs, &replay.log.finished, &reference).map_err(|d| {
        format!(
            "{policy:?} on {} processors: {d}\njobs (id, submit, procs, estimate, runtime): [{}]",
            w.procs,
            listing(&w.jobs)
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(512)))]

    /// Every policy: the kernel's schedule is the reference's, job by job.
    #[test]
    fn kernel_matches_the_naive_reference(w in workload()) {
        for policy in policies() {
            let compared = agree(&w, policy).map_err(TestCaseError::fail)?;
            prop_assert_eq!(compared, w.jobs.len());
        }
    }

    /// CONS+RS's Alea flavour on workloads long enough (jobs of up to
    /// 600 s, gaps up to 800 s) for its periodic searches (every 300 s) to
    /// fall between, and at, the other events.
    #[test]
    fn alea_flavour_matches_the_naive_reference(w in scaled_workload(40)) {
        for policy in [
            Policy::ConsRsAlea(RandomSearch::DEFAULT),
            Policy::ConsRsAlea(RandomSearch { seed: 11, iterations: Iterations::Fixed(5) }),
        ] {
            let compared = agree(&w, policy).map_err(TestCaseError::fail)?;
            prop_assert_eq!(compared, w.jobs.len());
        }
    }

    /// CONS+RS on workloads of longer and more varied jobs, where its
    /// moves trade one job's wait against another's slowdown: every
    /// accepted and rejected move as the reference makes it.
    #[test]
    fn cons_rs_matches_the_naive_reference(w in scaled_workload(7)) {
        for policy in RS_POLICIES {
            let compared = agree(&w, policy).map_err(TestCaseError::fail)?;
            prop_assert_eq!(compared, w.jobs.len());
        }
    }
}

/// CONS+RS with the default parameters, a few iterations, and a large
/// budget.
pub(crate) const RS_POLICIES: [Policy; 3] = [
    Policy::ConsRs(RandomSearch::DEFAULT),
    Policy::ConsRs(RandomSearch {
        seed: 7,
        iterations: Iterations::Fixed(3),
    }),
    Policy::ConsRs(RandomSearch {
        seed: 0x5eed,
        iterations: Iterations::PerQueuedJob(16),
    }),
];
