//! The heuristics' formulas at their boundaries, and hand-checked
//! schedules of BF_FCFS, BF_UNMOD and BF_MOD (each expected start worked
//! out from the rules in the module docs).

use super::*;
use crate::kernel::Kernel;
use crate::policy::Policy;
use crate::sim::fixtures::{job, sims, AtSpeed, Collect, TestJob};
use crate::sim::Simulator;
use crate::types::Machine;
use std::vec::Vec;

const H: Heuristics = Heuristics::DEFAULT;

#[test]
fn deadline_score_at_its_boundaries() {
    // ex = 100, k = 2: over = 200; deadline 1000 gives ts = 800.
    let d = Some(1000);
    // Far from the deadline: te = now + 100 < 800, so the minimum.
    assert_eq!(H.deadline(0, 100, d), 1000);
    assert_eq!(H.deadline(699, 100, d), 1000, "te = 799, just before ts");
    // At ts exactly the linear part starts at min.
    assert_eq!(H.deadline(700, 100, d), 1000);
    // Half way from ts to the deadline: (min + max) / 2.
    assert_eq!(H.deadline(800, 100, d), 5500);
    // Linear: a quarter of the way.
    assert_eq!(H.deadline(750, 100, d), 1000 + 9000 / 4);
    // At the deadline (te == deadline): the maximum.
    assert_eq!(H.deadline(900, 100, d), 10_000);
    // One second later it can no longer be met: 0.
    assert_eq!(H.deadline(901, 100, d), 0);
    assert_eq!(H.deadline(5000, 100, d), 0);
    // No deadline: 0.
    assert_eq!(H.deadline(0, 100, None), 0);
}

#[test]
fn deadline_score_rises_monotonically_to_the_deadline() {
    let d = Some(10_000);
    let mut last = 0;
    for now in (0..=9_000).step_by(37) {
        let s = H.deadline(now, 1000, d);
        assert!(s >= last, "score fell at now = {now}");
        assert!((1000..=10_000).contains(&s));
        last = s;
    }
    assert_eq!(H.deadline(9_000, 1000, d), 10_000);
}

#[test]
fn deadline_score_with_extreme_values_does_not_overflow() {
    let h = Heuristics {
        deadline_k: u32::MAX,
        deadline_max: u32::MAX,
        ..H
    };
    let s = h.deadline(0, u32::MAX, Some(u32::MAX));
    assert!(s >= i64::from(h.deadline_min));
    // k below 1 (not the paper's range) still gives a score in range.
    let low_k = Heuristics { deadline_k: 0, ..H };
    assert_eq!(low_k.deadline(99, 1, Some(100)), 10_000);
    assert_eq!(low_k.deadline(0, 1, Some(100)), 1000);
}

#[test]
fn aging_grows_with_the_wait() {
    assert_eq!(H.aging(1000, 1000), 0);
    assert_eq!(H.aging(2500, 1000), 1500);
    assert_eq!(H.aging(10, 20), 0, "a job submitted later has age 0");
    let fast = Heuristics { age_factor: 7, ..H };
    assert_eq!(fast.aging(100, 0), 700);
}

#[test]
fn wait_score_favours_short_jobs() {
    assert_eq!(H.wait(500, 500), 1000, "the shortest job gets the boost");
    assert_eq!(H.wait(500, 1000), 500);
    assert_eq!(H.wait(500, 3000), 166, "rounded down");
    assert_eq!(H.wait(500, 0), 500_000, "a zero estimate counts as 1 s");
}

#[test]
fn license_score_weights_critical_licenses_by_d() {
    // Pool 0: 4 copies, 2 requests (rho 0.5); pool 1: 2 copies, 3 requests
    // (critical, rho 1.5); pool 2: 10 copies, 10 requests (rho 1: not
    // critical); pool 3: no requests.
    let demand = LicenseDemand::new(&[4, 2, 10, 5], &[2, 3, 10, 0]);
    assert!(!demand.is_critical(0) && demand.is_critical(1) && !demand.is_critical(2));
    assert_eq!(demand.multiplier(), 2, "d = pools 0 and 2");
    assert_eq!(demand.score(LicenseSet(0b0001)), 500);
    assert_eq!(demand.score(LicenseSet(0b0100)), 1000);
    assert_eq!(demand.score(LicenseSet(0b0010)), 2 * 1500);
    assert_eq!(demand.score(LicenseSet(0b0111)), 500 + 3000 + 1000);
    assert_eq!(demand.score(LicenseSet::EMPTY), 0);
    assert_eq!(demand.score(LicenseSet(0b1000)), 0);
}

#[test]
fn license_multiplier_is_at_least_one() {
    // Every requested pool critical: d = max(0, 1) = 1.
    let demand = LicenseDemand::new(&[1, 1], &[3, 2]);
    assert_eq!(demand.multiplier(), 1);
    assert_eq!(demand.score(LicenseSet(0b11)), 3000 + 2000);
    // A pool without copies scores nothing.
    let none = LicenseDemand::new(&[0], &[5]);
    assert_eq!(none.score(LicenseSet(1)), 0);
    assert!(!none.is_critical(0) && !none.is_critical(40));
    // Pools past the 32 tracked are never critical (and asking is no error).
    assert!(!demand.is_critical(31) && !demand.is_critical(32));
}

#[test]
fn priority_is_the_weighted_sum() {
    let scores = Scores {
        aging: 10,
        deadline: 20,
        licenses: 30,
        wait: 40,
    };
    assert_eq!(H.priority(&scores), 1000 * (10 + 20 + 30 + 40));
    let h = Heuristics {
        aging_weight: 2000,
        deadline_weight: 0,
        license_weight: 500,
        wait_weight: 1,
        ..H
    };
    assert_eq!(h.priority(&scores), 2000 * 10 + 500 * 30 + 40);
    let huge = Scores {
        aging: i64::MAX,
        ..scores
    };
    assert_eq!(H.priority(&huge), i64::MAX, "saturates");
}

#[test]
fn permute_follows_every_cycle() {
    let mut items = [10, 11, 12, 13, 14, 15];
    let mut keys = [(0, 3), (0, 0), (0, 5), (0, 1), (0, 2), (0, 4)];
    permute(&mut items, &mut keys);
    assert_eq!(items, [13, 10, 15, 11, 12, 14]);
    assert!(keys.iter().enumerate().all(|(i, k)| k.1 as usize == i));
    let mut same = [1, 2];
    permute(&mut same, &mut [(0, 0), (0, 1)]);
    assert_eq!(same, [1, 2]);
}

/// Replays `jobs` under `policy` on `machines` with one license copy
/// usable on all of them; returns the sink, the `(id, start, machine)`
/// triples by id and the reservation hand-overs.
fn run<const M: usize>(
    policy: Policy,
    machines: &[Machine],
    jobs: &[TestJob],
) -> (Collect, Vec<(JobId, Time, u8)>, u64) {
    let cluster: Cluster<M, 1> = Cluster::with_one_license(machines, 1);
    let kernel: Kernel<16, 16, 64, M, 1> = Kernel::new(cluster, policy);
    let mut sim = Simulator::new(kernel);
    let mut sink = Collect::default();
    let outcome = sim.run(sims(jobs), &mut sink).unwrap();
    assert_eq!(outcome.finished, jobs.len() as u64);
    sim.kernel().validate().unwrap();
    let handovers = sim.kernel().counters().reservation_handovers;
    let placements = sink.placements();
    (sink, placements, handovers)
}

const UNMOD: Policy = Policy::BfUnmod(Heuristics::DEFAULT);
const MOD: Policy = Policy::BfMod(Heuristics::DEFAULT);

/// One 4-processor machine. J1 runs 0-100; J2 (all 4 processors) is the
/// head, reserved at 100. J3 and J4 arrive together and both could use the
/// free processor until 52; only one can, and the other then ends after
/// the shadow time and waits for J2. BF_FCFS takes J3 (older id); BF_UNMOD
/// takes J4, whose deadline (82) scores 7300 against J3's 0.
#[test]
fn bf_unmod_backfills_in_priority_order() {
    let jobs = [
        job(1).procs(3).estimate(100),
        job(2).submit(1).procs(4).estimate(100),
        job(3).submit(2).estimate(50),
        job(4).submit(2).estimate(50).deadline(82),
    ];
    let one = [Machine::new(4)];
    let (_, fcfs, _) = run::<1>(Policy::BfFcfs, &one, &jobs);
    assert_eq!(fcfs, [(1, 0, 0), (2, 100, 0), (3, 2, 0), (4, 200, 0)]);
    let (_, unmod, _) = run::<1>(UNMOD, &one, &jobs);
    assert_eq!(unmod, [(1, 0, 0), (2, 100, 0), (3, 200, 0), (4, 2, 0)]);
    assert_eq!(H.deadline(2, 50, Some(82)), 7300);
}

/// J2 is reserved at 100 at t = 1. J3 arrives at 2 with a deadline and a
/// shorter estimate: priority 2000 milli-points against J2's 501. BF_UNMOD
/// keeps J2's reservation (J3 follows at 200); BF_MOD hands it to J3, which
/// starts at 100, and J2 then waits until 150: one hand-over.
#[test]
fn bf_mod_hands_the_reservation_to_a_higher_priority_job() {
    let jobs = [
        job(1).procs(4).estimate(100),
        job(2).submit(1).procs(4).estimate(100),
        job(3).submit(2).procs(4).estimate(50).deadline(200),
    ];
    let one = [Machine::new(4)];
    let (c, unmod, handovers) = run::<1>(UNMOD, &one, &jobs);
    assert_eq!(unmod, [(1, 0, 0), (2, 100, 0), (3, 200, 0)]);
    assert_eq!(handovers, 0);
    assert_eq!(c.reservations, [(1, 2, 100), (100, 3, 200)]);
    assert_eq!(
        c.record(2).guarantee,
        Some(100),
        "BF_UNMOD's head is guaranteed"
    );
    let (c, modified, handovers) = run::<1>(MOD, &one, &jobs);
    assert_eq!(modified, [(1, 0, 0), (2, 150, 0), (3, 100, 0)]);
    assert_eq!(handovers, 1);
    assert_eq!(c.reservations, [(1, 2, 100), (2, 3, 100), (100, 2, 150)]);
    assert_eq!(c.record(2).guarantee, None, "BF_MOD promises nothing");
}

/// Machines 0 (slow), 1 and 2 (fast, equal): jobs go to the most powerful
/// free machine, ties by index: 1, then 2, then 0.
#[test]
fn machines_are_tried_most_powerful_first() {
    let machines = [
        Machine::new(2).at_speed(500),
        Machine::new(2).at_speed(2000),
        Machine::new(2).at_speed(2000),
    ];
    let jobs = [
        job(1).procs(2).estimate(100),
        job(2).procs(2).estimate(100),
        job(3).procs(2).estimate(100),
    ];
    for policy in [Policy::BfFcfs, UNMOD, MOD] {
        let (c, starts, _) = run::<3>(policy, &machines, &jobs);
        assert_eq!(starts, [(1, 0, 1), (2, 0, 2), (3, 0, 0)], "{policy}");
        assert_eq!(
            c.record(3).slot.duration,
            200,
            "{policy}: 100 s at half speed"
        );
    }
}

/// The deadline score uses the estimate on the fastest eligible machine: a
/// job twice as fast there is further from its deadline.
#[test]
fn execution_time_is_taken_on_the_fastest_eligible_machine() {
    let cluster: Cluster<2, 0> =
        Cluster::new(&[Machine::new(8), Machine::new(2).at_speed(2000)], &[]).unwrap();
    let context = Context {
        now: 0,
        shortest: 1,
        licenses: LicenseDemand::new(&[], &[]),
        uniform_speed: None,
    };
    let on = |procs| job(1).procs(procs).estimate(100).job();
    assert_eq!(context.execution(&cluster, &on(2)), 50);
    assert_eq!(
        context.execution(&cluster, &on(4)),
        100,
        "too wide for the fast machine"
    );
}

/// With only aging, BF_UNMOD and BF_MOD order by submit time and make
/// BF_FCFS's decisions; on one machine BF_FCFS makes EASY's.
#[test]
fn aging_only_is_bf_fcfs_and_bf_fcfs_is_easy() {
    let jobs = [
        job(1).procs(6).estimate(100),
        job(2).submit(1).procs(8).estimate(50),
        job(3).submit(2).procs(4).estimate(90),
        job(4).submit(3).procs(2).estimate(200),
        job(5).submit(3).procs(10).estimate(20),
        job(6).submit(4).estimate(10),
    ];
    let one = [Machine::new(10)];
    let (base, starts, _) = run::<1>(Policy::BfFcfs, &one, &jobs);
    let (easy, easy_starts, _) = run::<1>(Policy::Easy, &one, &jobs);
    assert_eq!(starts, easy_starts);
    assert_eq!(base.reservations, easy.reservations);
    for policy in [
        Policy::BfUnmod(Heuristics::AGING_ONLY),
        Policy::BfMod(Heuristics::AGING_ONLY),
    ] {
        let (c, s, handovers) = run::<1>(policy, &one, &jobs);
        assert_eq!(s, starts, "{policy}");
        assert_eq!(c.reservations, base.reservations, "{policy}");
        assert_eq!(handovers, 0);
    }
}

/// `AGING_ONLY` is what its docs say: the deadline, license and wait scores
/// weigh nothing, aging keeps its default weight and factor.
#[test]
fn aging_only_weighs_nothing_but_aging() {
    let h = Heuristics::AGING_ONLY;
    let scores = Scores {
        aging: 7,
        deadline: 10_000,
        licenses: 3_000,
        wait: 1_000,
    };
    assert_eq!(
        h.priority(&scores),
        i64::from(Heuristics::DEFAULT.aging_weight) * 7
    );
    assert_eq!(h.age_factor, Heuristics::DEFAULT.age_factor);
}

/// On a farm, the quick license test lets a job through when a copy of
/// every license it needs is free now. Two 4-processor machines, one copy
/// of a license: J1 (4 procs) fills m0 and J2 (2 procs) half of m1 until
/// 100; the head J3 (4 procs) waits for 100; J4 (1 proc, the license, 10 s)
/// fits beside J2 and the license copy is free: it starts at 0. J5, the
/// same a second later, finds the copy held by J4 and starts when J4 ends.
/// (BF_FCFS: queue order; the heuristics of BF_UNMOD and BF_MOD would put
/// the short jobs first.)
#[test]
fn a_job_whose_licenses_are_free_backfills_on_a_farm() {
    let jobs = [
        job(1).procs(4).estimate(100),
        job(2).procs(2).estimate(100),
        job(3).procs(4).estimate(50),
        job(4).estimate(10).licenses(LicenseSet(1)),
        job(5).submit(1).estimate(10).licenses(LicenseSet(1)),
    ];
    let two = [Machine::new(4), Machine::new(4)];
    let (_, starts, _) = run::<2>(Policy::BfFcfs, &two, &jobs);
    assert_eq!(
        starts,
        [(1, 0, 0), (2, 0, 1), (3, 100, 0), (4, 0, 1), (5, 10, 1)]
    );
}
