//! Hand-checked DPSA passes: each expected start set below was worked out
//! on paper from the rules in the module docs.

use super::*;
use crate::kernel::Kernel;
use crate::sim::fixtures::{job, TestJob};
use crate::types::Machine;
use crate::Policy;
use std::vec;
use std::vec::Vec;

type K = Kernel<32, 32, 128>;

fn dpsa(order: DpsaOrder, nodes: u32) -> Policy {
    Policy::Dpsa { order, nodes }
}

/// Submits `jobs` at time 0 on one machine of `cpus` and runs the first
/// pass; returns the (valid) kernel.
fn at_zero<const Q: usize, const R: usize, const B: usize>(
    policy: Policy,
    cpus: u32,
    jobs: &[TestJob],
) -> Kernel<Q, R, B> {
    let mut k = Kernel::new(Cluster::single(cpus).unwrap(), policy);
    submit_all(&mut k, jobs);
    k.schedule(0, &mut ()).unwrap();
    k.validate().unwrap();
    k
}

/// A kernel that holds more queued jobs than one search takes.
type Big = Kernel<256, 256, 600>;

/// Submits `jobs` at time 0; the kernel must accept them.
fn submit_all<const Q: usize, const R: usize, const B: usize>(
    k: &mut Kernel<Q, R, B>,
    jobs: &[TestJob],
) {
    for j in jobs {
        k.submit(0, j.job(), &mut ()).unwrap();
    }
}

/// The ids started by one `schedule(now)` call, in start order.
fn pass(k: &mut K, now: Time) -> Vec<u32> {
    let mut started = Vec::new();
    k.schedule(now, &mut |job: &Job, slot: Slot| {
        assert_eq!(slot.start, now);
        started.push(job.id);
    })
    .unwrap();
    k.validate().unwrap();
    started
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

/// The paper's Fig. 1 shape on 10 processors. At 0, A (4 procs, until 2)
/// and B (6 procs, until 7) run; J1 (8 procs) heads the queue; J2 (3), J3
/// (2) and J4 (2) all end by 7. At 2, A ends: 4 processors are free and J1's
/// shadow time is 7. EASY starts J2 (3 of the 4) and then neither J3 nor J4
/// fits; DPSA starts J3 and J4 (all 4).
/// Ids follow queue order: A = 1, B = 2, J1 = 3, J2 = 4, J3 = 5, J4 = 6.
const FIG1: &[TestJob] = &[
    job(1).procs(4).estimate(2),
    job(2).procs(6).estimate(7),
    job(3).procs(8).estimate(10),
    job(4).procs(3).estimate(5),
    job(5).procs(2).estimate(5),
    job(6).procs(2).estimate(4),
];

fn fig1(policy: Policy) -> (Vec<u32>, K) {
    let mut k = at_zero(policy, 10, FIG1);
    assert_eq!(k.running().len(), 2, "A and B run, the rest waits");
    k.complete(2, 1).unwrap();
    let started = pass(&mut k, 2);
    (started, k)
}

#[test]
fn fig1_easy_starts_j2() {
    assert_eq!(fig1(Policy::Easy).0, [4]);
}

#[test]
fn fig1_every_variant_starts_j3_and_j4() {
    for order in [DpsaOrder::Priority, DpsaOrder::Narrow, DpsaOrder::Wide] {
        let (started, k) = fig1(dpsa(order, DEFAULT_DPSA_NODES));
        assert_eq!(sorted(started), [5, 6], "{order:?}");
        // J1 keeps EASY's reservation at its shadow time.
        let head = k.queued().first().unwrap();
        assert_eq!(head.job.id, 3);
        assert_eq!(head.reservation().map(|s| s.start), Some(7));
        assert_eq!(head.guarantee(), Some(7));
        assert_eq!(k.counters().dpsa_budget_hits, 0);
    }
    // DPSA-p's greedy set is {J2}: it had to search; DPSA-n's greedy set
    // {J4, J3} (2 + 2) uses every free processor: nothing to search.
    let (_, p) = fig1(Policy::DPSA_P);
    assert_eq!(p.counters().dpsa_searches, 1);
    assert!(p.counters().dpsa_nodes > 0);
    let (_, n) = fig1(Policy::DPSA_N);
    assert_eq!(n.counters().dpsa_searches, 0);
}

#[test]
fn fig1_without_budget_dpsa_p_is_easy() {
    let (started, k) = fig1(dpsa(DpsaOrder::Priority, 0));
    assert_eq!(started, [4]);
    assert_eq!(k.counters().dpsa_searches, 1);
    assert_eq!(k.counters().dpsa_nodes, 0);
    assert_eq!(k.counters().dpsa_budget_hits, 1);
}

/// The variants break ties differently. 6 processors free at 0 (a 10-wide
/// head, id 2, behind job 1: 4 processors until 100), every candidate ends
/// by the shadow time; queue order c2 d4 a1 b5 e3 f3 (name and processors;
/// ids 3 to 8). Each variant's greedy set already uses all 6: DPSA-p takes
/// {c, d} (queue order), DPSA-n {a, c, e} (narrowest first), DPSA-w {b, a}
/// (widest first).
#[test]
fn variants_break_ties_by_their_order() {
    let jobs: &[TestJob] = &[
        job(1).procs(4).estimate(100),
        job(2).procs(10).estimate(50),
        job(3).procs(2).estimate(10), // c
        job(4).procs(4).estimate(10), // d
        job(5).procs(1).estimate(10), // a
        job(6).procs(5).estimate(10), // b
        job(7).procs(3).estimate(10), // e
        job(8).procs(3).estimate(10), // f
    ];
    let started = |order| {
        let k = at_zero(dpsa(order, DEFAULT_DPSA_NODES), 10, jobs);
        (backfilled(&k), k.counters().dpsa_searches)
    };
    assert_eq!(started(DpsaOrder::Priority), (vec![3, 4], 0));
    assert_eq!(started(DpsaOrder::Narrow), (vec![3, 5, 7], 0));
    assert_eq!(started(DpsaOrder::Wide), (vec![5, 6], 0));
}

/// The running jobs other than job 1 (the one started from the head), sorted.
fn backfilled(k: &K) -> Vec<u32> {
    let ids = k.running().iter().map(|r| r.job.id).filter(|&id| id != 1);
    sorted(ids.collect())
}

/// Two jobs that each fit alone but not together past the shadow time. 10
/// processors; X (id 1, 6 procs) runs until 100; the head H (id 2, 8
/// procs) is reserved at 100, leaving E = 2 spare from then on; 4 are free
/// now. L1 and L2 (ids 3, 4; 2 each) run past 100: each fits alone,
/// together they need 4 > 2 at 100. S (id 5, 2) ends by 100. Best: one long
/// job and S (4 processors); never L1 + L2.
#[test]
fn long_jobs_share_what_the_head_leaves() {
    let jobs: &[TestJob] = &[
        job(1).procs(6).estimate(100),
        job(2).procs(8).estimate(50),
        job(3).procs(2).estimate(500),
        job(4).procs(2).estimate(500),
        job(5).procs(2).estimate(50),
    ];
    for order in [DpsaOrder::Priority, DpsaOrder::Narrow, DpsaOrder::Wide] {
        let k = at_zero(dpsa(order, DEFAULT_DPSA_NODES), 10, jobs);
        assert_eq!(backfilled(&k), [3, 5], "{order:?}");
    }
}

/// The search beats a greedy set only by looking past it. 7 free (job 1
/// holds 3 until 100), head 2 blocked; candidates 3 to 6 in queue order
/// want 4, 2, 3, 3 (all short): EASY and the greedy seed take 4 + 2 = 6; the
/// optimum is 4 + 3 = 7.
#[test]
fn search_finds_the_optimum_past_the_greedy_set() {
    let jobs: &[TestJob] = &[
        job(1).procs(3).estimate(100),
        job(2).procs(10).estimate(50),
        job(3).procs(4).estimate(10),
        job(4).procs(2).estimate(10),
        job(5).procs(3).estimate(10),
        job(6).procs(3).estimate(10),
    ];
    let easy = at_zero(Policy::Easy, 10, jobs);
    assert_eq!(backfilled(&easy), [3, 4]);
    let k = at_zero(Policy::DPSA_P, 10, jobs);
    // DPSA-p: the first in queue order among the sets of 7: {3, 5}.
    assert_eq!(backfilled(&k), [3, 5]);
    assert_eq!(k.counters().dpsa_searches, 1);
    assert_eq!(k.counters().dpsa_budget_hits, 0);
}

/// A budget too small to finish keeps the best set found so far and counts
/// a hit; with enough budget the same state gives the optimum.
#[test]
fn budget_hits_keep_the_best_so_far() {
    // 20 free; candidates 6, 6, 6, 5, 5, 5, 5 (greedy 18; optimum 20).
    let mut jobs = vec![
        job(1).procs(12).estimate(100),
        job(2).procs(32).estimate(50),
    ];
    for (id, procs) in [(3, 6), (4, 6), (5, 6), (6, 5), (7, 5), (8, 5), (9, 5)] {
        jobs.push(job(id).procs(procs).estimate(10));
    }
    let used = |k: &K| -> u32 {
        k.running()
            .iter()
            .filter(|r| r.job.id != 1)
            .map(|r| r.job.procs)
            .sum()
    };
    let zero = at_zero(dpsa(DpsaOrder::Priority, 0), 32, &jobs);
    assert_eq!(used(&zero), 18);
    let small = at_zero(dpsa(DpsaOrder::Priority, 5), 32, &jobs);
    assert_eq!(small.counters().dpsa_budget_hits, 1);
    assert_eq!(small.counters().dpsa_nodes, 5);
    assert!(used(&small) >= 18);
    let full = at_zero(Policy::DPSA_P, 32, &jobs);
    assert_eq!(used(&full), 20);
    assert_eq!(full.counters().dpsa_budget_hits, 0);
}

/// More candidates than one search holds: the first `DPSA_CANDIDATES` in
/// queue order are searched, the rest are offered greedily after, and the
/// pass is counted.
#[test]
fn extra_candidates_are_offered_greedily() {
    let extra = u32::try_from(DPSA_CANDIDATES).unwrap() + 20;
    let mut jobs = vec![
        job(0).procs(500).estimate(100),
        job(1).procs(1000).estimate(100),
    ];
    jobs.extend((2..2 + extra).map(|id| job(id).procs(3).estimate(10)));
    let k: Big = at_zero(Policy::DPSA_N, 1000, &jobs);
    assert_eq!(k.counters().dpsa_overflows, 1);
    // 500 free: all 148 jobs of 3 (444) start, the searched ones and the rest.
    assert_eq!(k.running().len(), 1 + DPSA_CANDIDATES + 20);
}

/// One machine with a license pool no job uses takes the plan-placement
/// path; it must choose exactly what the count test chooses, pass by pass,
/// on random workloads and orders: the count test is the profile test.
#[test]
fn placement_and_counts_agree_on_one_machine() {
    type P = Kernel<32, 32, 128, 1, 1>;
    let mut rng = crate::rng::SplitMix64::new(7);
    let mut next = |n: u32| u32::try_from(rng.below(u64::from(n))).unwrap();
    let mut searches = 0;
    for _ in 0..300 {
        let order = [DpsaOrder::Priority, DpsaOrder::Narrow, DpsaOrder::Wide][next(3) as usize];
        // Both exact (no budget) or both greedy: their prunings differ, so
        // with a budget in between they may stop at different sets.
        let nodes = [0, u32::MAX][next(2) as usize];
        let policy = dpsa(order, nodes);
        let counting = Cluster::<1, 1>::single(16).unwrap();
        let placing = Cluster::<1, 1>::with_one_license(&[Machine::new(16)], 1);
        let mut a = P::new(counting, policy);
        let mut b = P::new(placing, policy);
        let mut now = 0;
        for id in 0..24 {
            now += next(20);
            // Jobs past their estimate are killed; now and then one ends early.
            let mut done: Vec<u32> = a
                .running()
                .iter()
                .filter(|r| r.slot.end() <= now)
                .map(|r| r.job.id)
                .collect();
            if next(3) == 0 {
                if let Some(r) = a.running().get(next(8) as usize) {
                    if !done.contains(&r.job.id) {
                        done.push(r.job.id);
                    }
                }
            }
            for victim in done {
                a.complete(now, victim).unwrap();
                b.complete(now, victim).unwrap();
            }
            let procs = 1 + next(16);
            let arrival = job(id)
                .submit(now)
                .procs(procs)
                .estimate(1 + next(100))
                .job();
            a.submit(now, arrival, &mut ()).unwrap();
            b.submit(now, arrival, &mut ()).unwrap();
            let mut sa = Vec::new();
            let mut sb = Vec::new();
            a.schedule(now, &mut |j: &Job, _: Slot| sa.push(j.id))
                .unwrap();
            b.schedule(now, &mut |j: &Job, _: Slot| sb.push(j.id))
                .unwrap();
            assert_eq!(sa, sb, "{policy:?} at {now}");
            a.validate().unwrap();
            b.validate().unwrap();
        }
        searches += b.counters().dpsa_searches;
    }
    assert!(searches > 100, "only {searches} searches");
}

#[test]
fn names_and_budgets() {
    assert_eq!(Policy::DPSA_P.name(), "dpsa-p");
    assert_eq!(Policy::DPSA_N.name(), "dpsa-n");
    assert_eq!(Policy::DPSA_W.name(), "dpsa-w");
    assert_eq!(Policy::from_name("dpsa-w"), Some(Policy::DPSA_W));
    assert_eq!(
        Policy::DPSA_N.with_dpsa_nodes(7),
        dpsa(DpsaOrder::Narrow, 7)
    );
    assert_eq!(Policy::Easy.with_dpsa_nodes(7), Policy::Easy);
    for p in [Policy::DPSA_P, Policy::DPSA_N, Policy::DPSA_W] {
        assert!(p.reserves_head() && p.starvation_free() && !p.reserves_all());
        assert!(!p.keeps_reservations() && !p.shortest_first());
    }
}

/// The head's guarantee is EASY's: when a job that sorts ahead arrives
/// (same submit time, smaller id), the old head loses its guarantee and
/// gets a new one when it is the head again. Ten processors, R (all ten,
/// until 100) runs; H (id 5) is the head with guarantee 100; J (id 3)
/// arrives, takes the head and the guarantee 100; at 100 J starts and H's
/// new guarantee is 150.
#[test]
fn a_job_that_sorts_ahead_takes_the_head_and_its_guarantee() {
    let mut k = K::new(Cluster::single(10).unwrap(), Policy::DPSA_P);
    submit_all(
        &mut k,
        &[
            job(1).procs(10).estimate(100),
            job(5).procs(10).estimate(50),
        ],
    );
    assert_eq!(pass(&mut k, 0), [1]);
    let guarantee = |k: &K, id| {
        k.queued()
            .iter()
            .find(|q| q.job.id == id)
            .map(|q| q.guarantee())
    };
    assert_eq!(guarantee(&k, 5), Some(Some(100)));
    submit_all(&mut k, &[job(3).procs(10).estimate(50)]);
    assert_eq!(guarantee(&k, 5), Some(None));
    assert_eq!(pass(&mut k, 0), []);
    assert_eq!(guarantee(&k, 3), Some(Some(100)));
    assert_eq!(guarantee(&k, 5), Some(None));
    k.complete(100, 1).unwrap();
    assert_eq!(pass(&mut k, 100), [3]);
    assert_eq!(guarantee(&k, 5), Some(Some(150)));
}

/// The search never picks more jobs than the running set has room for.
/// Room for 3 running jobs, one runs (2 of 10 processors until 1000), the
/// head wants all 10; candidates of 4, 2, 2, 2 processors: three would use
/// all 8 free, but only two fit the running set: 4 + 2.
#[test]
fn the_search_respects_the_room_left_in_the_running_set() {
    let jobs = [
        job(1).procs(2).estimate(1000),
        job(2).procs(10).estimate(50),
        job(3).procs(4).estimate(10),
        job(4).procs(2).estimate(10),
        job(5).procs(2).estimate(10),
        job(6).procs(2).estimate(10),
    ];
    let k: Kernel<32, 3, 128> = at_zero(Policy::DPSA_P, 10, &jobs);
    let running: Vec<u32> = k.running().iter().map(|r| r.job.id).collect();
    assert_eq!(sorted(running), [1, 3, 4]);
}

/// The bound counts every candidate, the last of a full list too: 128
/// candidates (the most one search holds) behind a head that wants the
/// whole machine, 10 of 20 processors free. In queue order they want 6,
/// then 7 (126 of them), then 3: the greedy set is 6 + 3 = 9; the optimum,
/// 7 + 3 = 10, needs the last candidate.
#[test]
fn the_bound_counts_the_last_of_a_full_candidate_list() {
    let last = 2 + u32::try_from(DPSA_CANDIDATES).unwrap();
    let mut jobs = vec![
        job(1).procs(10).estimate(1000),
        job(2).procs(20).estimate(50),
    ];
    jobs.extend((3..=last).map(|id| {
        let procs = match id {
            3 => 6,
            _ if id == last => 3,
            _ => 7,
        };
        job(id).procs(procs).estimate(10)
    }));
    let k: Big = at_zero(Policy::DPSA_P, 20, &jobs);
    assert_eq!(k.counters().dpsa_overflows, 0);
    let running: Vec<u32> = k.running().iter().map(|r| r.job.id).collect();
    assert_eq!(sorted(running), [1, 4, last]);
}
