//! Property tests: random small clusters and workloads under every policy
//! in [`Policy::ALL`] (never a hard-coded list).
//!
//! Workloads have 1–40 jobs on 1–3 machines of 1–16 processors at speeds
//! 500–2000 per mille with 0–2 license pools; arrivals in bursts (gap 0) or
//! spread out; run times below, at and above the estimate, and zero;
//! full-width jobs; and a few jobs the kernel must refuse.

use backfill_core::policy::{Iterations, RandomSearch};
use backfill_core::{CategoryBounds, Cluster, JobId, Metrics, Policy, Slot, Time};
use backfill_tests::check::{check, check_deterministic, run_replay, run_replay_keeping, RunLog};
use backfill_tests::figures::check_metrics;
use backfill_tests::proptest_cases;
use backfill_tests::rng::SplitMix64;
use backfill_tests::scenario::{
    JobSpec, MachineSpec, PoolSpec, RunTime, Scenario, ScenarioSpec, Width, MAX_MACHINES,
    MAX_POOLS, VERIFY_B, VERIFY_Q, VERIFY_R,
};
use proptest::prelude::*;
use std::collections::HashMap;

fn machine() -> impl Strategy<Value = MachineSpec> {
    (0_u8..16, 0_u16..=1500).prop_map(|(cpus, speed)| MachineSpec { cpus, speed })
}

fn pool() -> impl Strategy<Value = PoolSpec> {
    (0_u8..4, 0_u8..8).prop_map(|(count, machines)| PoolSpec { count, machines })
}

fn width() -> impl Strategy<Value = Width> {
    prop_oneof![
        14 => (0_u8..16).prop_map(Width::Exact),
        4 => (0_u8..3).prop_map(Width::Full),
        1 => Just(Width::Zero),
        1 => Just(Width::TooWide),
    ]
}

/// Run times below the estimate (weight 4), at it (2), above it (weight
/// `above`: a kill) and zero (1).
pub(crate) fn run_time(above: u32) -> impl Strategy<Value = RunTime> {
    prop_oneof![
        4 => (0_u8..100).prop_map(RunTime::Below),
        2 => Just(RunTime::At),
        above => (0_u16..500).prop_map(RunTime::Above),
        1 => Just(RunTime::Zero),
    ]
}

fn job() -> impl Strategy<Value = JobSpec> {
    let gap = prop_oneof![4 => Just(0_u16), 5 => 0_u16..60, 1 => 0_u16..3000];
    let estimate = prop_oneof![1 => Just(0_u16), 20 => 1_u16..=100, 9 => 1_u16..=5000];
    let licenses = prop_oneof![7 => Just(0_u8), 2 => 1_u8..=3, 1 => 0_u8..8, 1 => any::<u8>()];
    (gap, width(), estimate, run_time(2), licenses).prop_map(
        |(gap, width, estimate, run, licenses)| JobSpec {
            gap,
            width,
            estimate,
            run,
            licenses,
        },
    )
}

fn scenario() -> impl Strategy<Value = ScenarioSpec> {
    scenario_of(job())
}

/// 1–3 machines of [`machine`], 0–2 pools of [`pool`], 1–40 jobs of `job`,
/// ids in order or reversed.
pub(crate) fn scenario_of(
    job: impl Strategy<Value = JobSpec>,
) -> impl Strategy<Value = ScenarioSpec> {
    (
        prop::collection::vec(machine(), 1..=3),
        prop::collection::vec(pool(), 0..=2),
        prop::collection::vec(job, 1..=40),
        any::<bool>(),
    )
        .prop_map(|(machines, pools, jobs, reverse_ids)| ScenarioSpec {
            machines,
            pools,
            jobs,
            reverse_ids,
        })
}

/// Homogeneous single-machine workloads of valid jobs only (the SWF case).
fn single_machine() -> impl Strategy<Value = ScenarioSpec> {
    let job = (
        prop_oneof![3 => Just(0_u16), 5 => 0_u16..60, 1 => 0_u16..1000],
        prop_oneof![5 => (0_u8..16).prop_map(Width::Exact), 1 => Just(Width::Full(0))],
        1_u16..=300,
        run_time(2),
    )
        .prop_map(|(gap, width, estimate, run)| JobSpec {
            gap,
            width,
            estimate,
            run,
            licenses: 0,
        });
    (0_u8..16, prop::collection::vec(job, 1..=40)).prop_map(|(cpus, jobs)| ScenarioSpec {
        machines: vec![MachineSpec { cpus, speed: 500 }],
        pools: Vec::new(),
        jobs,
        reverse_ids: false,
    })
}

/// FCFS, EASY and SJF-EASY keep a tally instead of a plan on one machine
/// without licenses; built with the plan they must decide the same, event
/// for event (starts, reservations, records, refusals) and count for count.
fn tally_and_plan_agree(s: &Scenario) {
    for policy in Policy::ALL
        .into_iter()
        .filter(|p| p.needs_only_free_and_ends())
    {
        let plan = run_replay_keeping::<VERIFY_Q, VERIFY_R, VERIFY_B, MAX_MACHINES, MAX_POOLS>(
            &s.cluster, policy, &s.jobs, true,
        );
        let light = run_replay_keeping::<VERIFY_Q, VERIFY_R, VERIFY_B, MAX_MACHINES, MAX_POOLS>(
            &s.cluster, policy, &s.jobs, false,
        );
        assert_eq!(
            light, plan,
            "{policy}: the kernel without a plan decides otherwise"
        );
    }
}

/// Every reservation event of every job, in order.
fn reservations(log: &RunLog) -> HashMap<JobId, Vec<(Time, Slot)>> {
    let mut by_job: HashMap<JobId, Vec<(Time, Slot)>> = HashMap::new();
    for &(now, id, slot) in &log.reservations {
        by_job.entry(id).or_default().push((now, slot));
    }
    by_job
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(256)))]

    /// The checker passes, `Kernel::validate` holds after the replay,
    /// nothing is left, and a second replay is identical: every policy.
    #[test]
    fn every_policy_keeps_every_invariant(spec in scenario()) {
        spec.build().verify().map_err(TestCaseError::fail)?;
    }

    /// The figures the reports print (means, worst bounded slowdown, kills,
    /// utilisation, spread, overall and per category) equal what the
    /// finished jobs' records give, killed jobs included, under every
    /// policy; the categories' bounds are small enough for these
    /// workloads to fill all four.
    #[test]
    fn reported_figures_match_the_jobs(spec in scenario()) {
        let s = spec.build();
        let bounds = CategoryBounds { short_max: 50, narrow_max: 3 };
        for policy in Policy::ALL {
            let replay = run_replay::<VERIFY_Q, VERIFY_R, VERIFY_B, MAX_MACHINES, MAX_POOLS>(
                &s.cluster, policy, &s.jobs,
            );
            let mut metrics = Metrics::new(bounds);
            for record in &replay.log.finished {
                metrics.add(record);
            }
            if let Err(e) = check_metrics(&metrics, &replay.log.finished, 16) {
                prop_assert!(false, "{policy}: {e}");
            }
        }
    }

    /// The same on one homogeneous machine with only valid jobs.
    #[test]
    fn single_machine_workloads_keep_every_invariant(spec in single_machine()) {
        spec.build().verify().map_err(TestCaseError::fail)?;
    }

    /// Conservative: every job gets its reservation on arrival, its
    /// reservations never move later (CONS+RS: never past the arrival one),
    /// and it starts by the arrival one
    /// (exactly at its latest one).
    #[test]
    fn conservative_reservations_never_move_later(spec in scenario()) {
        let s = spec.build();
        for policy in Policy::ALL.into_iter().chain(Policy::OPTION_VARIANTS).filter(|p| p.reserves_all() && p.reservation_is_guarantee()) {
            let log = s.replay_log(policy);
            let by_job = reservations(&log);
            for r in &log.finished {
                let events = by_job.get(&r.job.id).map(Vec::as_slice).unwrap_or_default();
                prop_assert!(!events.is_empty(), "{policy}: job {} never reserved", r.job.id);
                let (arrival, first) = events[0];
                prop_assert_eq!(arrival, r.job.submit, "{}: job {} not reserved on arrival", policy, r.job.id);
                for pair in events.windows(2) {
                    // CONS+RS: later is allowed, but never past the guarantee.
                    let bound = if policy.reservations_may_move_later() { first.start } else { pair[0].1.start };
                    prop_assert!(pair[1].1.start <= bound,
                        "{policy}: job {} moved later: {:?}", r.job.id, events);
                }
                prop_assert!(r.start() <= first.start,
                    "{policy}: job {} started {} after its arrival reservation {}", r.job.id, r.start(), first.start);
                prop_assert_eq!(r.guarantee, Some(first.start));
                let last = events[events.len() - 1].1;
                prop_assert_eq!((r.start(), r.slot.machine), (last.start, last.machine));
            }
        }
    }

    /// FCFS, EASY and SJF-EASY decide the same with a tally as with a plan,
    /// on one machine (speed 0.5) with only valid jobs.
    #[test]
    fn tally_decides_as_the_plan_on_one_machine(spec in single_machine()) {
        tally_and_plan_agree(&spec.build());
    }

    /// The same on any cluster (the tally is kept on one machine without
    /// licenses, at any speed; elsewhere both kernels keep the plan), with
    /// refused jobs among the valid ones.
    #[test]
    fn tally_decides_as_the_plan_anywhere(spec in scenario()) {
        tally_and_plan_agree(&spec.build());
    }

    /// EASY: the blocked head's reservation (its shadow time) never moves
    /// later, and it starts by its first shadow time.
    #[test]
    fn easy_head_starts_by_its_first_shadow_time(spec in scenario()) {
        let s = spec.build();
        let log = s.replay_log(Policy::Easy);
        let by_job = reservations(&log);
        for r in &log.finished {
            let Some(events) = by_job.get(&r.job.id) else {
                prop_assert_eq!(r.guarantee, None);
                continue;
            };
            let first = events[0].1.start;
            for pair in events.windows(2) {
                prop_assert!(pair[1].1.start <= pair[0].1.start,
                    "job {} shadow moved later: {:?}", r.job.id, events);
            }
            prop_assert!(r.start() <= first, "job {} started {} after its shadow {}", r.job.id, r.start(), first);
            prop_assert_eq!(r.guarantee, Some(first));
        }
    }
}

/// Larger seeded workloads (up to 400 jobs, so queues grow long) through
/// kernels with room for them: the checker and determinism, every policy.
#[test]
fn larger_seeded_workloads() {
    const N: usize = 400;
    for seed in 0..12_u64 {
        let mut rng = SplitMix64::new(seed);
        let spec = ScenarioSpec::random(&mut rng, N);
        let s = spec.build_capped(N);
        for policy in Policy::ALL {
            let r = run_replay::<N, N, { 2 * N + N + 1 }, MAX_MACHINES, MAX_POOLS>(
                &s.cluster, policy, &s.jobs,
            );
            let outcome = r
                .outcome
                .unwrap_or_else(|e| panic!("seed {seed} {policy}: {e}"));
            r.validate
                .unwrap_or_else(|e| panic!("seed {seed} {policy}: validate: {e}"));
            assert_eq!(outcome.finished + outcome.rejected, s.jobs.len() as u64);
            check(&s.cluster, policy, &s.jobs, &r.log)
                .unwrap_or_else(|v| panic!("seed {seed} {policy}: {v}"));
            check_deterministic::<N, N, { 2 * N + N + 1 }, MAX_MACHINES, MAX_POOLS>(
                &s.cluster, policy, &s.jobs,
            )
            .unwrap_or_else(|v| panic!("seed {seed} {policy}: {v}"));
        }
    }
}

/// The generator really produces the cases the properties are about.
#[test]
fn generated_workloads_cover_the_edge_cases() {
    let mut rng = SplitMix64::new(99);
    let (mut bursts, mut zero, mut killed, mut full, mut rejected, mut licensed) =
        (0, 0, 0, 0, 0, 0);
    for _ in 0..200 {
        let s = ScenarioSpec::random(&mut rng, 40).build();
        let cluster: &Cluster<MAX_MACHINES, MAX_POOLS> = &s.cluster;
        for pair in s.jobs.windows(2) {
            bursts += usize::from(pair[0].job.submit == pair[1].job.submit);
        }
        for j in &s.jobs {
            zero += usize::from(j.runtime == 0);
            killed += usize::from(j.runtime > j.job.estimate);
            full += usize::from(cluster.machines().iter().any(|m| m.cpus == j.job.procs));
            rejected += usize::from(!cluster.runnable(&j.job) || j.job.estimate == 0);
            licensed += usize::from(!j.job.licenses.is_empty());
        }
    }
    for (what, n) in [
        ("bursts", bursts),
        ("zero run times", zero),
        ("killed", killed),
        ("full-width", full),
        ("refused", rejected),
        ("licensed", licensed),
    ] {
        assert!(n > 50, "{what}: only {n}");
    }
}

/// Starts of every finished job, by id.
fn starts_of(log: &RunLog) -> Vec<(JobId, Time, u8)> {
    let mut starts: Vec<_> = log
        .finished
        .iter()
        .map(|r| (r.job.id, r.start(), r.slot.machine))
        .collect();
    starts.sort_unstable();
    starts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(256)))]

    /// CONS+RS searches only after early completions: with exact
    /// estimates (every job runs its estimate, or is killed at it) it
    /// schedules exactly as Conservative, and so it does with a zero
    /// iteration budget whatever the run times.
    #[test]
    fn cons_rs_is_conservative_without_early_completions_or_iterations(spec in scenario(), seed in any::<u64>()) {
        let s = spec.build();
        let cons = starts_of(&s.replay_log(Policy::Conservative));
        let rs = Policy::ConsRs(RandomSearch { seed, ..RandomSearch::DEFAULT });
        let no_iterations = Policy::ConsRs(RandomSearch { seed, iterations: Iterations::Fixed(0) });
        prop_assert_eq!(&starts_of(&s.replay_log(no_iterations)), &cons);
        let mut exact = s.clone();
        for j in &mut exact.jobs {
            j.runtime = j.runtime.max(j.job.estimate);
        }
        let cons_exact = starts_of(&exact.replay_log(Policy::Conservative));
        prop_assert_eq!(starts_of(&exact.replay_log(rs)), cons_exact);
    }

    /// CONS+RS with any seed keeps every invariant in its own form (no job
    /// past its guarantee) and replays identically, on one machine and on
    /// farms with license pools (where a move must also clear the licenses
    /// jobs on other machines hold).
    #[test]
    fn cons_rs_keeps_every_invariant_with_any_seed(
        single in single_machine(),
        farm in scenario(),
        seed in any::<u64>(),
    ) {
        let policy = Policy::ConsRs(RandomSearch { seed, ..RandomSearch::DEFAULT });
        for spec in [single, farm] {
            spec.build().verify_policy(policy).map_err(TestCaseError::fail)?;
        }
    }
}
