//! Checkpoints keep their promise: at any instant of any replay, a
//! checkpoint restored into a fresh simulator continues as the replay that
//! never stopped, event for event (starts, reservations reported, ends,
//! refusals), with the same totals and counters; and the restored
//! simulator writes the same bytes back.
//!
//! * random small clusters and workloads (1-3 machines, license pools,
//!   every kind of job of `backfill_tests::scenario`), every policy of
//!   [`checkpoint_policies`] (every policy of `Policy::ALL` and
//!   `Policy::OPTION_VARIANTS`, CONS+RS of both flavours with several
//!   seeds and budgets, DPSA with small node budgets; a policy that cannot
//!   run on the cluster runs on its first machine, [`cluster_for`]),
//!   random instants;
//! * with `BACKFILL_TRACES_DIR` (`.ci/run`, release build), a prefix of a
//!   real trace under every policy (the Alea flavour of CONS+RS with a
//!   fixed budget only), at instants spread over it.

use backfill_core::policy::{Iterations, RandomSearch};
use backfill_core::{Cluster, Policy, SimJob};
use backfill_tests::checkpoints::{
    checkpoint_policies, cluster_for, resumed, same_continuation, whole,
};
use backfill_tests::rng::SplitMix64;
use backfill_tests::scenario::{
    ScenarioSpec, MAX_MACHINES, MAX_POOLS, VERIFY_B, VERIFY_Q, VERIFY_R,
};
use proptest::prelude::*;

/// Checks the promise for `jobs` under `policy` at each instant of
/// `stops` (1-based; those past the replay's end are passed over).
fn holds_at<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    jobs: &[SimJob],
    stops: &[usize],
) -> Result<usize, String> {
    let cluster = &cluster_for(policy, cluster);
    let never = whole::<Q, R, B, M, L>(cluster, policy, jobs);
    let mut checked = 0;
    for &stop in stops {
        let Some(r) = resumed::<Q, R, B, M, L>(cluster, policy, jobs, stop) else {
            continue;
        };
        same_continuation(&never, &r, stop).map_err(|e| format!("{policy}: {e}"))?;
        checked += 1;
    }
    Ok(checked)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random workloads on random small clusters, every policy, three
    /// random instants each (and the first).
    #[test]
    fn a_restored_replay_continues_as_the_original(
        seed in any::<u64>(),
        jobs in 1_usize..=40,
        stops in prop::collection::vec(1_usize..=80, 3),
    ) {
        let scenario = ScenarioSpec::random(&mut SplitMix64::new(seed), jobs).build();
        let mut stops = stops;
        stops.push(1);
        for policy in checkpoint_policies() {
            let checked = holds_at::<VERIFY_Q, VERIFY_R, VERIFY_B, MAX_MACHINES, MAX_POOLS>(
                &scenario.cluster,
                policy,
                &scenario.jobs,
                &stops,
            )
            .map_err(TestCaseError::fail)?;
            prop_assert!(checked >= 1, "{policy}: no instant checked");
        }
    }
}

/// Every instant of a few fixed workloads, every policy: the promise
/// holds wherever the replay stops, not only where proptest looks.
#[test]
fn every_instant_of_small_replays() {
    let mut checked = 0;
    for seed in 1..=4 {
        let scenario = ScenarioSpec::random(&mut SplitMix64::new(seed), 30).build();
        let stops: Vec<usize> = (1..=200).collect();
        for policy in checkpoint_policies() {
            checked += holds_at::<VERIFY_Q, VERIFY_R, VERIFY_B, MAX_MACHINES, MAX_POOLS>(
                &scenario.cluster,
                policy,
                &scenario.jobs,
                &stops,
            )
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
    assert!(checked > 700, "{checked} instants checked");
}

/// The first jobs of a real trace under every policy, stopped at nine
/// instants spread over the replay (release build; `.ci/run` runs it with
/// the real-trace step).
#[test]
fn real_traces_prefix_resumes_exactly() {
    use backfill_cli::replay::{Estimates, Shaping};
    const PREFIX: u64 = 3000;
    let Some(dir) = backfill_tests::traces::traces_dir() else {
        eprintln!("BACKFILL_TRACES_DIR not set: real-trace checkpoints skipped");
        return;
    };
    let path = dir.join("KTH-SP2-1996-2.1-cln.swf.gz");
    if !path.exists() {
        eprintln!(
            "{} not found: real-trace checkpoints skipped",
            path.display()
        );
        return;
    }
    let shaping = Shaping {
        estimates: Estimates::User,
        load: 1.0,
    };
    let prepared = backfill_tests::traces::prepare(&path, Some(PREFIX), shaping);
    let cluster: Cluster<1, 0> = Cluster::single(prepared.machine_procs).expect("machine size");
    let started = std::time::Instant::now();
    let mut checked = 0;
    // The Alea flavour of CONS+RS with a budget per queued job schedules
    // the whole queue four times per waiting job at every search: one
    // replay of this prefix took 7.5 s of CPU in a release build
    // (`host-cli replay --first 3000 --policy cons-rs-alea`), and this test
    // replays each policy ten times. Its fixed-budget variant stands for
    // it (all the policies together: 6.2 s).
    let policies = checkpoint_policies().into_iter().filter(|p| {
        !matches!(
            p,
            Policy::ConsRsAlea(RandomSearch {
                iterations: Iterations::PerQueuedJob(_),
                ..
            })
        )
    });
    for policy in policies {
        let never =
            whole::<4096, 1024, { 2 * 4096 + 1024 + 1 }, 1, 0>(&cluster, policy, &prepared.jobs);
        assert!(never.outcome.is_ok(), "{policy}: {:?}", never.outcome);
        let instants = never.after_instant.len();
        for k in 1..=9 {
            let stop = instants * k / 10;
            let r = resumed::<4096, 1024, { 2 * 4096 + 1024 + 1 }, 1, 0>(
                &cluster,
                policy,
                &prepared.jobs,
                stop,
            )
            .unwrap_or_else(|| panic!("{policy}: no instant {stop}"));
            same_continuation(&never, &r, stop).unwrap_or_else(|e| panic!("KTH-SP2: {e}"));
            checked += 1;
        }
    }
    eprintln!(
        "KTH-SP2, first {PREFIX} jobs: {checked} restores continued exactly ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
}
