//! Flexible backfilling (BF_FCFS, BF_UNMOD, BF_MOD) against its own
//! equivalences and the checker, on random farms:
//!
//! * with every weight zero but aging's, no deadline and no license,
//!   BF_UNMOD and BF_MOD make BF_FCFS's decisions (same starts, same
//!   reservations), on random small clusters and on generated 100-machine
//!   farms;
//! * on one machine (an SWF system) BF_FCFS makes EASY's decisions: random
//!   workloads always, the archive traces when `BACKFILL_TRACES_DIR` is set;
//! * farms from `host-cli generate farm`'s generator (100 machines, 20
//!   license pools, deadlines) replayed under every policy pass the checker:
//!   license pools never over-used, jobs only where all their licenses can
//!   run, processors per machine never exceeded, the head's reservation
//!   honoured under BF_FCFS and BF_UNMOD, and a second replay is identical.

use backfill_cli::farm::generate::{generate, FarmSpec};
use backfill_cli::farm::replay::{FARM_B, FARM_L, FARM_M};
use backfill_cli::replay::{QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY};
use backfill_core::policy::Heuristics;
use backfill_core::{Cluster, LicenseSet, Policy, SimJob};
use backfill_tests::check::{check, compare_replays, run_replay, RunLog};
use backfill_tests::rng::SplitMix64;
use backfill_tests::scenario::ScenarioSpec;
use backfill_tests::traces::{prepare, trace_files, AS_RECORDED};

const AGING_ONLY: [Policy; 2] = [
    Policy::BfUnmod(Heuristics::AGING_ONLY),
    Policy::BfMod(Heuristics::AGING_ONLY),
];

/// Starts `(job, slot)` and reservations `(now, job, start)` of a replay.
type Decisions = (Vec<(u32, backfill_core::Slot)>, Vec<(u32, u32, u32)>);

/// Starts and reservations of a replay, for comparing policies.
fn decisions(log: &RunLog) -> Decisions {
    let reservations = log
        .reservations
        .iter()
        .map(|&(now, id, slot)| (now, id, slot.start))
        .collect();
    (log.started.clone(), reservations)
}

/// Removes deadlines and licenses.
fn plain(jobs: &mut [SimJob]) {
    for j in jobs {
        j.job.deadline = backfill_core::Job::NO_DEADLINE;
        j.job.licenses = LicenseSet::EMPTY;
    }
}

#[test]
fn aging_only_flexible_backfilling_is_bf_fcfs_on_small_clusters() {
    let mut rng = SplitMix64::new(0xF1E7);
    for case in 0..300 {
        let mut s = ScenarioSpec::random(&mut rng, 40).build();
        plain(&mut s.jobs);
        let base = s.replay_log(Policy::BfFcfs);
        for policy in AGING_ONLY {
            let log = s.replay_log(policy);
            assert_eq!(
                decisions(&log),
                decisions(&base),
                "case {case}: {policy} differs from bf-fcfs"
            );
        }
    }
}

#[test]
fn aging_only_flexible_backfilling_is_bf_fcfs_on_generated_farms() {
    for seed in 1..=3 {
        let spec = FarmSpec {
            jobs: 300,
            seed,
            mean_interarrival: 6.0,
            ..FarmSpec::default()
        };
        let farm = generate(&spec).expect("a valid spec");
        let mut jobs = farm.sim_jobs();
        plain(&mut jobs);
        let cluster = farm.cluster().expect("a valid farm");
        let run = |policy| {
            let r = run_replay::<1024, 1024, FARM_B, FARM_M, FARM_L>(&cluster, policy, &jobs);
            r.outcome.expect("replay completes");
            r.log
        };
        let base = run(Policy::BfFcfs);
        for policy in AGING_ONLY {
            assert_eq!(
                decisions(&run(policy)),
                decisions(&base),
                "seed {seed}: {policy}"
            );
        }
    }
}

#[test]
fn bf_fcfs_schedules_as_easy_on_one_machine() {
    let mut rng = SplitMix64::new(0xEA5F);
    for case in 0..300 {
        let mut spec = ScenarioSpec::random(&mut rng, 40);
        spec.machines.truncate(1);
        spec.pools.clear();
        let s = spec.build();
        assert_eq!(
            decisions(&s.replay_log(Policy::BfFcfs)),
            decisions(&s.replay_log(Policy::Easy)),
            "case {case}"
        );
    }
}

#[test]
fn bf_fcfs_schedules_as_easy_on_real_traces() {
    let Some(paths) = trace_files("BF_FCFS = EASY on traces") else {
        return;
    };
    for path in &paths {
        let prepared = prepare(path, Some(5000), AS_RECORDED);
        let cluster: Cluster<1, 0> = Cluster::single(prepared.machine_procs).expect("size");
        let run = |policy| {
            let r = run_replay::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY, 1, 0>(
                &cluster,
                policy,
                &prepared.jobs,
            );
            r.outcome.expect("replay completes");
            r.log
        };
        let easy = run(Policy::Easy);
        assert_eq!(
            decisions(&run(Policy::BfFcfs)),
            decisions(&easy),
            "{}",
            path.display()
        );
        eprintln!("{}: bf-fcfs = easy on the first 5000 jobs", path.display());
    }
}

#[test]
fn generated_farms_keep_every_invariant_under_every_policy() {
    for (seed, mean) in [(11, 4.0), (12, 12.0), (13, 48.0)] {
        let spec = FarmSpec {
            jobs: 200,
            seed,
            mean_interarrival: mean,
            ..FarmSpec::default()
        };
        let farm = generate(&spec).expect("a valid spec");
        let jobs = farm.sim_jobs();
        let cluster = farm.cluster().expect("a valid farm");
        assert_eq!(cluster.machines().len(), 100);
        assert_eq!(cluster.pools().len(), 20);
        for policy in Policy::ALL {
            let first = run_replay::<256, 1024, 1024, FARM_M, FARM_L>(&cluster, policy, &jobs);
            let outcome = first
                .outcome
                .as_ref()
                .unwrap_or_else(|e| panic!("seed {seed} {policy}: {e}"));
            first
                .validate
                .unwrap_or_else(|e| panic!("seed {seed} {policy}: validate: {e}"));
            assert_eq!(
                outcome.finished + outcome.rejected,
                jobs.len() as u64,
                "seed {seed} {policy}"
            );
            check(&cluster, policy, &jobs, &first.log)
                .unwrap_or_else(|v| panic!("seed {seed} {policy}: rule {}: {v}", v.rule()));
            let second = run_replay::<256, 1024, 1024, FARM_M, FARM_L>(&cluster, policy, &jobs);
            compare_replays(&first, &second)
                .unwrap_or_else(|v| panic!("seed {seed} {policy}: {v}"));
        }
    }
}
