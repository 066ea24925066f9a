//! Hand-checked schedules: each expected start below was worked out on paper
//! from the policy rules in the module docs.

use super::*;
use crate::policy::{Iterations, RandomSearch, Threshold};
use crate::sim::{JobRecord, SimJob, Simulator, Sink};
use std::format;
use std::vec::Vec;

#[derive(Default)]
struct Collect {
    records: Vec<JobRecord>,
    reservations: Vec<(Time, JobId, Time)>,
}

impl Sink for Collect {
    fn finished(&mut self, record: &JobRecord) {
        self.records.push(*record);
    }
    fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
        self.reservations.push((now, job.id, slot.start));
    }
}

/// `(id, submit, procs, estimate, runtime)` on one machine of `cpus`.
fn run(policy: Policy, cpus: u32, jobs: &[(JobId, Time, u32, u32, u32)]) -> Collect {
    let kernel: Kernel<64, 64, 256> = Kernel::new(Cluster::single(cpus).unwrap(), policy);
    let mut sim = Simulator::new(kernel);
    let mut sink = Collect::default();
    let input = jobs
        .iter()
        .map(|&(id, submit, procs, estimate, runtime)| SimJob {
            job: Job::new(id, submit, procs, estimate),
            runtime,
        });
    let outcome = sim.run(input, &mut sink).unwrap();
    assert_eq!(outcome.finished, jobs.len() as u64);
    sim.kernel().validate().unwrap();
    sink
}

fn starts(c: &Collect) -> Vec<(JobId, Time)> {
    let mut s: Vec<_> = c.records.iter().map(|r| (r.job.id, r.start())).collect();
    s.sort_unstable();
    s
}

/// J2 cannot start (shadow 100). J3 ends by the shadow time and backfills at
/// 2. J4 runs past the shadow, but at 100 J2 takes 8 of 10 processors and J4
/// needs only the 2 spare ones: it backfills at 92, when J3 ends.
const SHADOW: &[(JobId, Time, u32, u32, u32)] = &[
    (1, 0, 6, 100, 100),
    (2, 1, 8, 50, 50),
    (3, 2, 4, 90, 90),
    (4, 3, 2, 200, 200),
];

#[test]
fn easy_backfills_around_the_shadow_time() {
    let c = run(Policy::Easy, 10, SHADOW);
    assert_eq!(starts(&c), [(1, 0), (2, 100), (3, 2), (4, 92)]);
    // The head's reservation was made at its arrival pass and never moved.
    let head: Vec<_> = c.reservations.iter().filter(|r| r.1 == 2).collect();
    assert_eq!(head, [&(1, 2, 100)]);
    assert_eq!(
        c.records.iter().find(|r| r.job.id == 2).unwrap().guarantee,
        Some(100)
    );
}

#[test]
fn fcfs_never_backfills() {
    let c = run(Policy::Fcfs, 10, SHADOW);
    // J3 needs 4 but only 2 are spare beside J2 in [100, 150).
    assert_eq!(starts(&c), [(1, 0), (2, 100), (3, 150), (4, 150)]);
}

#[test]
fn conservative_reserves_every_job() {
    let c = run(Policy::Conservative, 10, SHADOW);
    assert_eq!(starts(&c), [(1, 0), (2, 100), (3, 2), (4, 92)]);
    let first: Vec<_> = c.reservations.iter().map(|r| (r.1, r.2)).collect();
    assert_eq!(first, [(1, 0), (2, 100), (3, 2), (4, 92)]);
}

/// J3 (all 10 processors) arrives behind J2. Conservative reserves it at
/// [200, 300), so J4 (2 processors for 250 s) cannot fit before 300. EASY
/// gives J3 no reservation while J2 is the head, so J4 backfills at 3 and J3
/// waits for J4 to end at 253.
const DIFFER: &[(JobId, Time, u32, u32, u32)] = &[
    (1, 0, 6, 100, 100),
    (2, 1, 8, 100, 100),
    (3, 2, 10, 100, 100),
    (4, 3, 2, 250, 250),
];

#[test]
fn easy_and_conservative_differ() {
    let easy = run(Policy::Easy, 10, DIFFER);
    assert_eq!(starts(&easy), [(1, 0), (2, 100), (3, 253), (4, 3)]);
    let cons = run(Policy::Conservative, 10, DIFFER);
    assert_eq!(starts(&cons), [(1, 0), (2, 100), (3, 200), (4, 300)]);
}

/// J1 was planned until 100 but ends at 40. Compression moves J2 from 100
/// to 40 and J3 from 150 to 90; nothing moves later.
#[test]
fn conservative_compresses_after_an_early_finish() {
    let c = run(
        Policy::Conservative,
        10,
        &[(1, 0, 10, 100, 40), (2, 1, 10, 50, 50), (3, 2, 5, 30, 30)],
    );
    assert_eq!(starts(&c), [(1, 0), (2, 40), (3, 90)]);
    assert_eq!(
        c.reservations,
        [
            (0, 1, 0),
            (1, 2, 100),
            (2, 3, 150),
            (40, 2, 40),
            (40, 3, 90)
        ],
        "(now, job, reserved start)"
    );
    for r in &c.records {
        assert!(r.start() <= r.guarantee.unwrap());
    }
}

/// A pass is not a fixpoint. On 10 processors: R1 (5 procs, estimate 100)
/// ends early at 10; R2 (5 procs, 40 s) ends on time at 40. A (10 procs,
/// 50 s) was reserved at [100, 150); B (5 procs, 60 s) at [40, 100), the
/// only hole. The pass at 10 looks at A first (5 free before 100: it stays),
/// then moves B to [10, 70), which opens [70, 150) for A. Only the pass at
/// 40, after R2's on-time completion, moves A to 70.
const ON_TIME: &[(JobId, Time, u32, u32, u32)] = &[
    (1, 0, 5, 100, 10),
    (2, 0, 5, 40, 40),
    (3, 1, 10, 50, 50),
    (4, 2, 5, 60, 60),
];

#[test]
fn conservative_compresses_after_an_on_time_completion() {
    let c = run(Policy::Conservative, 10, ON_TIME);
    assert_eq!(starts(&c), [(1, 0), (2, 0), (3, 70), (4, 10)]);
    assert_eq!(
        c.reservations,
        [
            (0, 1, 0),
            (0, 2, 0),
            (1, 3, 100),
            (2, 4, 40),
            (10, 4, 10),
            (40, 3, 70)
        ],
        "(now, job, reserved start)"
    );
}

/// An arrival and an early completion at one instant: the completion is
/// applied and the plan compressed first, then the arrival is reserved.
/// R1 (10 procs, estimate 100) ends at 30; A (10 procs, 50 s) moves from
/// 100 to 30; C (10 procs, 20 s) arrives at 30 and is reserved behind A at
/// 80 (had it been reserved first it would take [30, 50) and push A to 50).
#[test]
fn completion_and_compression_come_before_an_arrival_at_the_same_instant() {
    let jobs = &[(1, 0, 10, 100, 30), (2, 1, 10, 50, 50), (3, 30, 10, 20, 20)];
    let c = run(Policy::Conservative, 10, jobs);
    assert_eq!(starts(&c), [(1, 0), (2, 30), (3, 80)]);
    assert_eq!(
        c.reservations,
        [(0, 1, 0), (1, 2, 100), (30, 2, 30), (30, 3, 80)],
        "(now, job, reserved start)"
    );
    // Selective promotes at once with a threshold of 1.0: the same plan.
    let s = run(Policy::Selective(Threshold::Fixed(1000)), 10, jobs);
    assert_eq!(starts(&s), [(1, 0), (2, 30), (3, 80)]);
}

/// CONS+RS on 10 processors. R1 (6 procs, estimate 300) ends early at 20;
/// R2 (4 procs) ends on time at 60. X (10 procs, 100 s) was reserved at
/// [300, 400) on arrival, J (6 procs, 100 s) at [400, 500). Compression at
/// 20 moves X to 60 and J to 160. The search then finds J a gap at 20 (6
/// processors free until X): J is placed at [20, 120) and displaces X to
/// [120, 220), still before X's guarantee (300). Predicted waits fall from
/// 59 + 158 to 119 + 18 and slowdowns from 1.59 + 2.58 to 2.19 + 1.18: kept.
const GAP_FILL: &[(JobId, Time, u32, u32, u32)] = &[
    (1, 0, 6, 300, 20),
    (2, 0, 4, 60, 60),
    (3, 1, 10, 100, 100),
    (4, 2, 6, 100, 100),
];

fn run_rs(params: RandomSearch, jobs: &[(JobId, Time, u32, u32, u32)]) -> (Collect, Counters) {
    run_rs_on(10, params, jobs)
}

/// [`run_rs`] on one machine of `cpus`.
fn run_rs_on(
    cpus: u32,
    params: RandomSearch,
    jobs: &[(JobId, Time, u32, u32, u32)],
) -> (Collect, Counters) {
    let kernel: Kernel<64, 64, 256> =
        Kernel::new(Cluster::single(cpus).unwrap(), Policy::ConsRs(params));
    let mut sim = Simulator::new(kernel);
    let mut sink = Collect::default();
    let input = jobs
        .iter()
        .map(|&(id, submit, procs, estimate, runtime)| SimJob {
            job: Job::new(id, submit, procs, estimate),
            runtime,
        });
    sim.run(input, &mut sink).unwrap();
    sim.kernel().validate().unwrap();
    (sink, *sim.kernel().counters())
}

#[test]
fn cons_rs_fills_a_gap_by_displacing_a_job_within_its_guarantee() {
    let cons = run(Policy::Conservative, 10, GAP_FILL);
    assert_eq!(starts(&cons), [(1, 0), (2, 0), (3, 60), (4, 160)]);
    let (rs, counters) = run_rs(RandomSearch::DEFAULT, GAP_FILL);
    assert_eq!(starts(&rs), [(1, 0), (2, 0), (3, 120), (4, 20)]);
    assert_eq!(counters.rs_searches, 1);
    assert_eq!(counters.rs_accepted, 1);
    // 4 x 2 queued jobs; every other iteration finds no gap (X has none
    // before 60, nor J once it starts now and is no longer eligible).
    assert_eq!((counters.rs_iterations, counters.rs_no_gap), (8, 7));
    assert_eq!(
        counters.rs_rejected_guarantee + counters.rs_rejected_objective,
        0
    );
    // X moved later (60 -> 120) but never past its guarantee.
    let x = rs.records.iter().find(|r| r.job.id == 3).unwrap();
    assert_eq!(x.guarantee, Some(300));
    assert!(rs.reservations.contains(&(20, 3, 120)));
    assert!(rs.reservations.contains(&(20, 4, 20)));
    // No iterations: Conservative.
    let none = RandomSearch {
        iterations: Iterations::Fixed(0),
        ..RandomSearch::DEFAULT
    };
    let (plain, counters) = run_rs(none, GAP_FILL);
    assert_eq!(starts(&plain), starts(&cons));
    assert_eq!((counters.rs_searches, counters.rs_iterations), (0, 0));
}

/// The same shape with R1's estimate 120: X's guarantee is 120, and the
/// search displaces it to exactly 120. A guarantee is kept when the job
/// starts by it, so the move stands.
#[test]
fn cons_rs_may_displace_a_job_to_exactly_its_guarantee() {
    let jobs = &[
        (1, 0, 6, 120, 20),
        (2, 0, 4, 60, 60),
        (3, 1, 10, 100, 100),
        (4, 2, 6, 100, 100),
    ];
    let cons = run(Policy::Conservative, 10, jobs);
    assert_eq!(starts(&cons), [(1, 0), (2, 0), (3, 60), (4, 160)]);
    let (rs, counters) = run_rs(RandomSearch::DEFAULT, jobs);
    assert_eq!(starts(&rs), [(1, 0), (2, 0), (3, 120), (4, 20)]);
    assert_eq!(counters.rs_accepted, 1);
    let x = rs.records.iter().find(|r| r.job.id == 3).unwrap();
    assert_eq!(x.guarantee, Some(120));
}

/// The same shape, but X's guarantee is its arrival reservation at 100:
/// displacing it to 120 would break Conservative's promise, so the move is
/// undone and the schedule is Conservative's.
#[test]
fn cons_rs_never_breaks_a_guarantee() {
    let jobs = &[
        (1, 0, 6, 100, 20),
        (2, 0, 4, 60, 60),
        (3, 1, 10, 100, 100),
        (4, 2, 6, 100, 100),
    ];
    let cons = run(Policy::Conservative, 10, jobs);
    assert_eq!(starts(&cons), [(1, 0), (2, 0), (3, 60), (4, 160)]);
    let (rs, counters) = run_rs(RandomSearch::DEFAULT, jobs);
    assert_eq!(starts(&rs), starts(&cons));
    assert!(counters.rs_rejected_guarantee > 0, "{counters:?}");
    assert_eq!(counters.rs_accepted, 0);
}

/// CONS+RS's objective weighs relative changes: a move that saves wait but
/// costs more slowdown, relatively, is undone. Two processors, every job
/// submitted at 0: J1 (2 procs, estimate 56) runs and ends early at 28;
/// arrival reservations J2 (1 proc, 21 s) [56, 77), J3 (1, 7) [56, 63), J4
/// (2, 14) [77, 91), J5 (1, 35) [91, 126). Compression at 28: J2 and J3 to
/// 28, J4 to 49 (when J2 ends), J5 to 63 (J4 holds both processors over
/// [49, 63)). The search: J4 has no gap before 49 (J2 holds a processor
/// until then); J5's gap is 35 (J3 ends), and placing it at [35, 70)
/// displaces J4 to [70, 84) (its guarantee is 77). Waits (J2..J5) 28 + 28 +
/// 49 + 63 = 168 fall by 28 - 21 = 7 (4%); bounded slowdowns 2.333333 +
/// 3.8 + 4.5 + 2.8 = 13.433333 rise by 1.5 - 0.8 = 0.7 (5.2%): every try is
/// undone and the schedule is Conservative's.
#[test]
fn cons_rs_undoes_a_move_whose_slowdown_cost_outweighs_its_wait_gain() {
    let jobs = &[
        (1, 0, 2, 56, 28),
        (2, 0, 1, 21, 21),
        (3, 0, 1, 7, 7),
        (4, 0, 2, 14, 14),
        (5, 0, 1, 35, 35),
    ];
    let (rs, counters) = run_rs_on(2, RandomSearch::DEFAULT, jobs);
    let expected = [(1, 0), (2, 28), (3, 28), (4, 49), (5, 63)];
    assert_eq!(starts(&rs), expected);
    assert_eq!(starts(&run(Policy::Conservative, 2, jobs)), expected);
    assert_eq!(counters.rs_accepted, 0);
    assert!(counters.rs_rejected_objective > 0, "{counters:?}");
    assert_eq!(
        counters.rs_rejected_objective + counters.rs_no_gap,
        counters.rs_iterations
    );
}

/// The other way round: a move that costs slowdown but saves more wait,
/// relatively, is kept. Three processors, every job submitted at 0: J1 (1
/// proc, 14 s) runs to 14; J2 (1 proc, estimate 28) starts at 0 and ends at
/// once, early; J3 (3 procs, 7 s) was reserved at [28, 35), J4 (2 procs, 28
/// s) at [35, 63). Compression at 0: J3 to 14 (J1 ends), J4 to 21. The
/// search: J3 has no gap before 14 (J1 holds a processor); J4's gap is 0 (2
/// processors free), and placing it at [0, 28) displaces J3 to [28, 35),
/// exactly its guarantee. Waits 14 + 21 = 35 fall by 21 - 14 = 7 (20%);
/// bounded slowdowns 2.4 + 1.75 = 4.15 rise by 1.4 - 0.75 = 0.65 (15.7%):
/// kept.
#[test]
fn cons_rs_keeps_a_move_whose_wait_gain_outweighs_its_slowdown_cost() {
    let jobs = &[
        (1, 0, 1, 14, 14),
        (2, 0, 1, 28, 0),
        (3, 0, 3, 7, 7),
        (4, 0, 2, 28, 28),
    ];
    assert_eq!(
        starts(&run(Policy::Conservative, 3, jobs)),
        [(1, 0), (2, 0), (3, 14), (4, 21)]
    );
    let (rs, counters) = run_rs_on(3, RandomSearch::DEFAULT, jobs);
    assert_eq!(starts(&rs), [(1, 0), (2, 0), (3, 28), (4, 0)]);
    assert_eq!(counters.rs_accepted, 1);
    let j3 = rs.records.iter().find(|r| r.job.id == 3).unwrap();
    assert_eq!(j3.guarantee, Some(28));
}

/// CONS+RS's bound on the jobs one iteration touches ([`MAX_TOUCHED`](crate::policy::MAX_TOUCHED),
/// 64): ten processors; R1 (6 procs, estimate 300) ends early at 20, R2 (4
/// procs) runs to 56. Seventy 1-second jobs of 7 processors (X1..X70,
/// submitted at 1) cannot run beside either, and J (6 procs, submitted at
/// 2) is queued behind them. Compression at 20 puts X1..X70 one after the
/// other over [56, 126) and J at 126. J's gap is 20 (6 processors free
/// until 56). With J's estimate 100 its window [20, 120) overlaps X1..X64
/// exactly (X65 starts at 120, where the window ends): 64 jobs, so the
/// move is tried, and undone by the objective (J would gain 106 s and 64
/// jobs lose 70 s each). With estimate 101 it overlaps 65: the iteration is
/// skipped as too crowded. Either way the schedule is Conservative's.
#[test]
fn cons_rs_touches_only_the_jobs_in_the_window_and_at_most_64() {
    for (estimate, crowded) in [(100, false), (101, true)] {
        let mut jobs = std::vec![(1, 0, 6, 300, 20), (2, 0, 4, 56, 56)];
        jobs.extend((3..73).map(|id| (id, 1, 7, 1, 1)));
        jobs.push((73, 2, 6, estimate, estimate));
        let run_on = |policy| {
            let kernel: Kernel<128, 16, 512> = Kernel::new(Cluster::single(10).unwrap(), policy);
            let mut sim = Simulator::new(kernel);
            let mut sink = Collect::default();
            let input = jobs
                .iter()
                .map(|&(id, submit, procs, estimate, runtime)| SimJob {
                    job: Job::new(id, submit, procs, estimate),
                    runtime,
                });
            sim.run(input, &mut sink).unwrap();
            sim.kernel().validate().unwrap();
            (starts(&sink), *sim.kernel().counters())
        };
        let (cons, _) = run_on(Policy::Conservative);
        let (rs, counters) = run_on(Policy::ConsRs(RandomSearch::DEFAULT));
        assert_eq!(rs, cons, "estimate {estimate}");
        assert_eq!(cons.last(), Some(&(73, 126)));
        assert_eq!(cons.get(2), Some(&(3, 56)));
        assert_eq!(counters.rs_accepted, 0);
        // Every X has no gap before its reservation; J is picked at least
        // once in 4 x 71 iterations.
        let j_tries = counters.rs_iterations - counters.rs_no_gap;
        assert!(j_tries > 0, "{counters:?}");
        if crowded {
            assert_eq!(counters.rs_too_crowded, j_tries, "{counters:?}");
        } else {
            assert_eq!(counters.rs_too_crowded, 0, "{counters:?}");
            assert_eq!(counters.rs_rejected_objective, j_tries, "{counters:?}");
        }
    }
}

/// CONS+RS on a farm: m0 has 2 processors, m1 4; one license copy usable on
/// both. A (2 procs, m0) ends early at 10; B (4 procs, m1) runs to 50. Y (4
/// procs, license) is reserved on m1 at [50, 150); J (2 procs, license, 60
/// s) behind it on m0 at [150, 210). At 10, J's gap is m0 at 10 (2
/// processors and the license free then): placing J there needs the
/// license Y holds on the *other* machine from 50, so Y is taken out too,
/// cannot go back, and re-placed at 70 it would pass its guarantee (50):
/// the move is undone. The plan must stay consistent throughout.
#[test]
fn cons_rs_clears_licenses_held_on_other_machines() {
    use crate::types::{LicensePool, LicenseSet, Machine, MachineSet};
    let machine = |cpus| Machine { cpus, speed: 1000 };
    let cluster: Cluster<2, 1> = Cluster::new(
        &[machine(2), machine(4)],
        &[LicensePool {
            count: 1,
            machines: MachineSet::ALL,
        }],
    )
    .unwrap();
    let licensed = |id, submit, procs, estimate| {
        let mut job = Job::new(id, submit, procs, estimate);
        job.licenses = LicenseSet(1);
        job
    };
    let jobs = [
        (Job::new(1, 0, 2, 100), 10),
        (Job::new(2, 0, 4, 50), 50),
        (licensed(3, 1, 4, 100), 100),
        (licensed(4, 2, 2, 60), 60),
    ];
    let mut outcomes = Vec::new();
    for policy in [Policy::Conservative, Policy::ConsRs(RandomSearch::DEFAULT)] {
        let kernel: Kernel<8, 8, 64, 2, 1> = Kernel::new(cluster.clone(), policy);
        let mut sim = Simulator::new(kernel);
        let mut sink = Collect::default();
        let input = jobs.iter().map(|&(job, runtime)| SimJob { job, runtime });
        sim.run(input, &mut sink).unwrap();
        sim.kernel().validate().unwrap();
        outcomes.push((starts(&sink), *sim.kernel().counters()));
    }
    assert_eq!(outcomes[0].0, [(1, 0), (2, 0), (3, 50), (4, 150)]);
    assert_eq!(outcomes[1].0, outcomes[0].0);
    assert!(
        outcomes[1].1.rs_rejected_guarantee > 0,
        "{:?}",
        outcomes[1].1
    );
}

/// Conservative without compression keeps every arrival reservation.
#[test]
fn conservative_without_compression_never_revisits() {
    let c = run(Policy::ConservativeNoCompression, 10, GAP_FILL);
    assert_eq!(starts(&c), [(1, 0), (2, 0), (3, 300), (4, 400)]);
    assert_eq!(c.reservations.len(), 4);
}

#[test]
fn sjf_easy_orders_by_estimate() {
    let jobs = &[
        (1, 0, 10, 100, 100),
        (2, 1, 10, 500, 500),
        (3, 2, 10, 50, 50),
    ];
    assert_eq!(
        starts(&run(Policy::SjfEasy, 10, jobs)),
        [(1, 0), (2, 150), (3, 100)]
    );
    assert_eq!(
        starts(&run(Policy::Easy, 10, jobs)),
        [(1, 0), (2, 100), (3, 600)]
    );
}

#[test]
fn jobs_are_killed_at_their_estimate() {
    let c = run(Policy::Easy, 4, &[(1, 0, 4, 10, 99), (2, 0, 4, 10, 5)]);
    let r1 = c.records.iter().find(|r| r.job.id == 1).unwrap();
    assert!(r1.killed);
    assert_eq!((r1.start(), r1.end), (0, 10));
    let r2 = c.records.iter().find(|r| r.job.id == 2).unwrap();
    assert_eq!((r2.start(), r2.end, r2.killed), (10, 15, false));
}

#[test]
fn zero_runtime_jobs_finish_at_once() {
    for policy in Policy::ALL {
        let c = run(
            policy,
            2,
            &[(1, 5, 2, 10, 0), (2, 5, 2, 10, 0), (3, 6, 1, 1, 1)],
        );
        if policy == Policy::ConservativeNoCompression {
            // Job 2 keeps its reservation behind job 1's estimate.
            assert_eq!(starts(&c), [(1, 5), (2, 15), (3, 6)], "{policy}");
        } else {
            assert_eq!(starts(&c), [(1, 5), (2, 5), (3, 6)], "{policy}");
        }
    }
}

fn kernel(policy: Policy) -> Kernel<4, 4, 32> {
    Kernel::new(Cluster::single(8).unwrap(), policy)
}

#[test]
fn misuse_is_an_error_value() {
    let mut k = kernel(Policy::Conservative);
    k.submit(10, Job::new(1, 10, 8, 100), &mut ()).unwrap();
    assert_eq!(
        k.submit(9, Job::new(2, 9, 1, 1), &mut ()),
        Err(KernelError::TimeWentBackwards {
            now: 9,
            current: 10
        })
    );
    assert_eq!(
        k.submit(10, Job::new(1, 10, 1, 1), &mut ()),
        Err(KernelError::DuplicateJob(1))
    );
    assert_eq!(
        k.submit(10, Job::new(3, 10, 9, 1), &mut ()),
        Err(KernelError::Unrunnable(3))
    );
    assert_eq!(
        k.submit(10, Job::new(4, 10, 0, 1), &mut ()),
        Err(KernelError::InvalidJob(4))
    );
    assert_eq!(
        k.submit(10, Job::new(5, 11, 1, 1), &mut ()),
        Err(KernelError::SubmitInFuture(5))
    );
    assert_eq!(
        k.complete(10, 1),
        Err(KernelError::UnknownJob(1)),
        "queued, not running"
    );
    assert_eq!(
        k.submit(10, Job::new(6, 10, 1, u32::MAX), &mut ()),
        Err(KernelError::TimeOverflow)
    );
    k.schedule(10, &mut ()).unwrap();
    assert_eq!(k.running().len(), 1);
    assert_eq!(k.schedule(110, &mut ()), Err(KernelError::Overdue(1)));
    k.complete(110, 1).unwrap();
    k.validate().unwrap();
    for id in 10..14 {
        k.submit(110, Job::new(id, 110, 8, 10), &mut ()).unwrap();
    }
    assert_eq!(
        k.submit(110, Job::new(20, 110, 1, 1), &mut ()),
        Err(KernelError::QueueFull(20))
    );
    k.validate().unwrap();
}

#[test]
fn next_wakeup_covers_reservations_and_expiries() {
    let mut k = kernel(Policy::Conservative);
    assert_eq!(k.next_wakeup(), None);
    k.submit(0, Job::new(1, 0, 8, 100), &mut ()).unwrap();
    k.submit(0, Job::new(2, 0, 8, 50), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap();
    assert_eq!(k.next_wakeup(), Some(100));
    k.complete(30, 1).unwrap();
    k.schedule(30, &mut ()).unwrap();
    assert_eq!(k.running()[0].job.id, 2);
    assert_eq!(k.next_wakeup(), Some(80));
}

/// The next expiry is kept incrementally: it must follow starts, the
/// completion of the job that ends first (early or late) and of others, and
/// skip a job the host let run past its estimate.
#[test]
fn next_wakeup_follows_the_earliest_running_end() {
    let mut k = kernel(Policy::Easy);
    for (id, estimate) in [(1, 100), (2, 40), (3, 70)] {
        k.submit(0, Job::new(id, 0, 2, estimate), &mut ()).unwrap();
    }
    k.schedule(0, &mut ()).unwrap();
    assert_eq!(k.running().len(), 3);
    assert_eq!(k.next_wakeup(), Some(40));
    k.complete(10, 3).unwrap(); // not the first to end
    assert_eq!(k.next_wakeup(), Some(40));
    k.complete(20, 2).unwrap(); // the first to end, early
    assert_eq!(k.next_wakeup(), Some(100));
    k.submit(20, Job::new(4, 20, 2, 30), &mut ()).unwrap();
    k.schedule(20, &mut ()).unwrap();
    assert_eq!(k.next_wakeup(), Some(50));
    // Job 4 overruns: at its estimated end, 50, and at 60 the host has not
    // completed it. Its expiry is past; the next one is job 1's.
    assert_eq!(k.schedule(50, &mut ()), Err(KernelError::Overdue(4)));
    assert_eq!(k.schedule(60, &mut ()), Err(KernelError::Overdue(4)));
    assert_eq!(k.next_wakeup(), Some(100));
    k.complete(60, 4).unwrap();
    assert_eq!(k.schedule(60, &mut ()).map(|p| p.started), Ok(0));
    assert_eq!(k.next_wakeup(), Some(100));
    k.complete(100, 1).unwrap();
    assert_eq!(k.next_wakeup(), None);
    assert_eq!(k.complete(100, 1), Err(KernelError::UnknownJob(1)));
}

#[test]
fn licenses_and_machines_are_respected() {
    use crate::types::{LicensePool, LicenseSet, Machine, MachineSet};
    let cluster: Cluster<2, 1> = Cluster::new(
        &[
            Machine {
                cpus: 4,
                speed: 1000,
            },
            Machine {
                cpus: 4,
                speed: 2000,
            },
        ],
        &[LicensePool {
            count: 1,
            machines: MachineSet::ALL,
        }],
    )
    .unwrap();
    let mut k: Kernel<8, 8, 32, 2, 1> = Kernel::new(cluster, Policy::Easy);
    let mut licensed = Job::new(1, 0, 1, 100);
    licensed.licenses = LicenseSet(1);
    let mut second = Job::new(2, 0, 1, 100);
    second.licenses = LicenseSet(1);
    k.submit(0, licensed, &mut ()).unwrap();
    k.submit(0, second, &mut ()).unwrap();
    k.submit(0, Job::new(3, 0, 4, 100), &mut ()).unwrap();
    let mut started = Vec::new();
    k.schedule(0, &mut |j: &Job, s: Slot| {
        started.push((j.id, s.machine, s.duration))
    })
    .unwrap();
    // Job 1 goes to the fast machine (index 1) and runs 50 s there; job 2
    // waits for the only license copy; job 3 takes the slow machine whole.
    assert_eq!(started, [(1, 1, 50), (3, 0, 100)]);
    assert_eq!(k.queued()[0].reservation().map(|s| s.start), Some(50));
    k.validate().unwrap();
}

/// Threshold 2.0: a job waits as long as its estimate before it is promoted.
/// J1 holds the machine until 1000. J2 (estimate 100, submitted at 0) is
/// promoted at 100 and J3 (estimate 10, submitted at 50) at 60: both instants
/// fall between events (no arrival or end happens then), so only
/// `next_wakeup` brings the replay there. J3, promoted first, is reserved
/// first, at 1000; J2 then at 1010. Under EASY the head J2 would go first.
#[test]
fn selective_promotes_at_the_exact_threshold_instant() {
    let jobs = &[
        (1, 0, 10, 1000, 1000),
        (2, 0, 10, 100, 100),
        (3, 50, 10, 10, 10),
    ];
    let c = run(Policy::SELECTIVE_EXAMPLE, 10, jobs);
    assert_eq!(
        c.reservations,
        [(60, 3, 1000), (100, 2, 1010)],
        "(now, job, reserved start): J1 started at once, unreserved"
    );
    assert_eq!(starts(&c), [(1, 0), (2, 1010), (3, 1000)]);
    assert_eq!(
        starts(&run(Policy::Easy, 10, jobs)),
        [(1, 0), (2, 1000), (3, 1100)]
    );

    let mut k: Kernel<8, 8, 32> =
        Kernel::new(Cluster::single(10).unwrap(), Policy::SELECTIVE_EXAMPLE);
    k.submit(0, Job::new(1, 0, 10, 1000), &mut ()).unwrap();
    k.submit(0, Job::new(2, 0, 10, 100), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap();
    assert_eq!(
        k.next_wakeup(),
        Some(100),
        "J2's promotion comes before J1's end"
    );
    k.schedule(99, &mut ()).unwrap();
    assert_eq!(k.queued()[0].reservation(), None, "XF at 99 is 1.99");
    k.schedule(100, &mut ()).unwrap();
    assert_eq!(k.queued()[0].reservation().map(|s| s.start), Some(1000));
    k.validate().unwrap();
}

/// Entry-queue jobs backfill only where they delay no reservation.
#[test]
fn selective_entry_jobs_respect_reservations() {
    // J2 (threshold reached at once: estimate 1, promoted at 1) is reserved at
    // 100 behind J1. J3 (6 processors for 200 s) would overlap J2's
    // reservation, so it waits for J2; J4 (4 processors, ends by 100) fits.
    let jobs = &[
        (1, 0, 6, 100, 100),
        (2, 0, 10, 1, 1),
        (3, 2, 6, 200, 200),
        (4, 2, 4, 90, 90),
    ];
    let c = run(Policy::SELECTIVE_EXAMPLE, 10, jobs);
    assert_eq!(starts(&c), [(1, 0), (2, 100), (3, 101), (4, 2)]);
}

#[test]
fn adaptive_threshold_follows_completed_slowdowns() {
    let policy = Policy::Selective(crate::policy::Threshold::ADAPTIVE);
    let mut k: Kernel<8, 8, 32> = Kernel::new(Cluster::single(4).unwrap(), policy);
    k.submit(0, Job::new(1, 0, 4, 100), &mut ()).unwrap();
    k.submit(0, Job::new(2, 0, 4, 100), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap();
    // Before any completion the threshold is 1.0: J2 is promoted at once.
    assert_eq!(k.queued()[0].reservation().map(|s| s.start), Some(100));
    k.complete(50, 1).unwrap();
    assert_eq!(k.slowdown_average().mean(), Some(1000));
    k.schedule(50, &mut ()).unwrap(); // J2 compressed to 50 and started
    k.submit(60, Job::new(3, 60, 4, 10), &mut ()).unwrap();
    k.complete(70, 2).unwrap(); // waited 50, ran 20: (50 + 20) / 20 = 3.5
    assert_eq!(k.slowdown_average().mean(), Some((1000 + 3500) / 2));
    // Threshold 2.25: J3 (estimate 10) is promoted at 60 + 12.5 -> 73.
    assert_eq!(k.promotion_time(&k.queued()[0].job), 73);
}

/// Fair start: at J4's arrival (t=3) under Conservative with the DIFFER
/// workload, strict FCFS from then on would run J2 at 100, J3 at 200 and J4
/// (2 processors) at 300, behind J3 which takes the whole machine.
#[test]
fn strict_fcfs_start_is_the_fair_start() {
    let mut k: Kernel<8, 8, 64> = Kernel::new(Cluster::single(10).unwrap(), Policy::Conservative);
    for &(id, submit, procs, estimate, _) in &DIFFER[..3] {
        k.submit(submit, Job::new(id, submit, procs, estimate), &mut ())
            .unwrap();
        k.schedule(submit, &mut ()).unwrap();
    }
    let mut scratch = crate::plan::Plan::new(k.cluster());
    let j4 = Job::new(4, 3, 2, 250);
    assert_eq!(
        k.strict_fcfs_start(3, &j4, &mut scratch).unwrap().start,
        300
    );
    // A 2-processor job that would end by 100 still waits its turn: not
    // before J3 (200), and J3 holds all 10 processors until 300.
    let short = Job::new(5, 3, 2, 10);
    assert_eq!(
        k.strict_fcfs_start(3, &short, &mut scratch).unwrap().start,
        300
    );
}

/// Regression (found by the `kernel_api` fuzz target): a host that calls
/// late is supported (a missed reservation is re-planned from now), so the
/// states it leads to must pass `validate()`: a reservation in the past
/// until the next pass, then one later than its (missed) guarantee.
#[test]
fn late_host_calls_keep_validate_green() {
    let mut k: Kernel<8, 8, 64> = Kernel::new(Cluster::single(4).unwrap(), Policy::Conservative);
    k.submit(0, Job::new(1, 0, 4, 10), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap();
    k.submit(0, Job::new(2, 0, 4, 10), &mut ()).unwrap(); // reserved at 10
    k.complete(10, 1).unwrap();
    // The host skips the pass at 10; at 11 a job arrives first.
    k.submit(11, Job::new(3, 0, 1, 100), &mut ()).unwrap();
    assert_eq!(k.queued()[0].reservation().map(|s| s.start), Some(10));
    k.validate().unwrap();
    k.schedule(11, &mut ()).unwrap();
    let j2 = k.queued().iter().find(|q| q.job.id == 2).unwrap();
    assert!(j2.reservation().unwrap().start > j2.guarantee().unwrap());
    k.validate().unwrap();
    // A late completion leaves the next reservation in the past, too.
    let mut k: Kernel<8, 8, 64> = Kernel::new(Cluster::single(4).unwrap(), Policy::Conservative);
    k.submit(0, Job::new(1, 0, 4, 10), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap();
    k.submit(0, Job::new(2, 0, 4, 10), &mut ()).unwrap();
    k.complete(12, 1).unwrap();
    k.validate().unwrap();
    k.schedule(12, &mut ()).unwrap();
    assert_eq!(k.running()[0].slot.start, 12);
    k.validate().unwrap();
}

/// Regression (found by the `kernel_api` fuzz target): when re-planning a
/// missed reservation fails (here the new end overflows `Time`), the old
/// reservation stays in the plan, so the kernel still matches its queue.
#[test]
fn failed_replan_keeps_the_plan_consistent() {
    let mut k: Kernel<8, 8, 64> = Kernel::new(Cluster::single(4).unwrap(), Policy::Conservative);
    k.submit(0, Job::new(1, 0, 4, 10), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap();
    k.submit(0, Job::new(2, 0, 4, u32::MAX - 100), &mut ())
        .unwrap(); // reserved at 10
    k.complete(10, 1).unwrap();
    // The host is late: at 200 the reservation from 10 is re-planned from
    // now, and 200 + (u32::MAX - 100) does not fit in a `Time`.
    assert_eq!(k.schedule(200, &mut ()), Err(KernelError::TimeOverflow));
    k.validate().unwrap();
    assert_eq!(k.queued()[0].reservation().map(|s| s.start), Some(10));
}

/// Regression (found by the `kernel_api` fuzz target): under EASY, a job
/// submitted late with an earlier submit time sorts ahead of the reserved
/// head and may start at once, delaying the head past its first shadow
/// time. The head's promise is then void (and renewed when it is the head
/// again), so `validate()` holds and no record claims a broken guarantee.
#[test]
fn a_backdated_arrival_takes_the_easy_head() {
    let mut k: Kernel<8, 8, 64> = Kernel::new(Cluster::single(1).unwrap(), Policy::Easy);
    k.submit(10, Job::new(1, 10, 1, 100), &mut ()).unwrap();
    k.submit(20, Job::new(2, 0, 1, 500), &mut ()).unwrap(); // sorts ahead of job 1
    k.schedule(20, &mut ()).unwrap(); // job 2 runs [20, 520); job 1 shadow 520
    assert_eq!(k.queued()[0].guarantee(), Some(520));
    k.complete(30, 2).unwrap();
    k.submit(40, Job::new(3, 0, 1, 500), &mut ()).unwrap(); // ahead of job 1 again
    assert_eq!(k.queued()[1].job.id, 1);
    assert_eq!(
        k.queued()[1].guarantee(),
        None,
        "the promise went with the head"
    );
    k.schedule(40, &mut ()).unwrap(); // job 3 runs [40, 540)
    assert_eq!(k.queued()[0].guarantee(), Some(540));
    k.validate().unwrap();
}

/// Regression (found by the `kernel_api` fuzz target): a completion one
/// second late makes a re-planned reservation overlap one made meanwhile,
/// pushing it past a guarantee that is still in the future.
#[test]
fn a_late_completion_can_push_a_reservation_past_a_future_guarantee() {
    let mut k: Kernel<8, 8, 64> = Kernel::new(Cluster::single(1).unwrap(), Policy::Conservative);
    k.submit(0, Job::new(1, 0, 1, 100), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap(); // [0, 100)
    k.submit(0, Job::new(2, 0, 1, 1000), &mut ()).unwrap(); // [100, 1100)
    k.submit(0, Job::new(3, 0, 1, 10), &mut ()).unwrap(); // [1100, 1110)
                                                          // Early end: compression moves job 2 to [50, 1050) and job 3 to
                                                          // [1050, 1060); job 4 gets [1060, 1070).
    k.complete(50, 1).unwrap();
    k.submit(50, Job::new(4, 50, 1, 10), &mut ()).unwrap();
    assert_eq!(k.queued()[0].reservation().map(|s| s.start), Some(50));
    // The host misses the pass at 50 and comes back at 51: job 2 is
    // re-planned from 51, would overlap job 3 at 1050, and lands at 1070,
    // after its guarantee (100), which is still ahead.
    k.schedule(51, &mut ()).unwrap();
    let j2 = k.queued().iter().find(|q| q.job.id == 2).unwrap();
    assert_eq!(
        (j2.reservation().map(|s| s.start), j2.guarantee()),
        (Some(1070), Some(100))
    );
    k.validate().unwrap();
}

/// SJF-EASY: J1 fills the machine until 100; J2 waits as the head, reserved
/// at 100; J3, shorter, arrives and overtakes it. J3 now holds the head's
/// reservation and J2 holds none (a stale one would be reported to the host
/// through `queued()`).
#[test]
fn sjf_easy_head_overtaken_loses_its_reservation() {
    let mut k = kernel(Policy::SjfEasy);
    k.submit(0, Job::new(1, 0, 8, 100), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap();
    k.submit(1, Job::new(2, 1, 8, 50), &mut ()).unwrap();
    k.schedule(1, &mut ()).unwrap();
    let reservation = |k: &Kernel<4, 4, 32>, id: JobId| {
        k.queued()
            .iter()
            .find(|q| q.job.id == id)
            .map(|q| q.reservation().map(|s| s.start))
    };
    assert_eq!(reservation(&k, 2), Some(Some(100)));
    k.submit(2, Job::new(3, 2, 8, 10), &mut ()).unwrap();
    k.schedule(2, &mut ()).unwrap();
    assert_eq!(k.queued().first().map(|q| q.job.id), Some(3));
    assert_eq!(reservation(&k, 3), Some(Some(100)));
    assert_eq!(reservation(&k, 2), Some(None));
}

/// `validate` notices a state the kernel itself never produces: each
/// tampering below breaks one invariant, and the check names it.
#[test]
fn validate_names_the_invariant_a_tampered_state_breaks() {
    let build = || {
        let mut k = kernel(Policy::Conservative);
        k.submit(0, Job::new(1, 0, 8, 100), &mut ()).unwrap();
        k.submit(0, Job::new(2, 0, 4, 50), &mut ()).unwrap();
        k.schedule(0, &mut ()).unwrap();
        k.validate().unwrap();
        assert_eq!(k.queued().len(), 1);
        k
    };
    // A reservation later than its guarantee.
    let mut k = build();
    if let Some(q) = k.st.queue.first_mut() {
        q.set_guarantee(q.reservation().map(|s| s.start - 1));
    }
    assert_eq!(
        k.validate(),
        Err(KernelError::Internal("reservation later than guarantee"))
    );
    // A queued job that lost its reservation under Conservative.
    let mut k = build();
    if let Some(q) = k.st.queue.first_mut() {
        q.set_reservation(None);
    }
    assert_eq!(
        k.validate(),
        Err(KernelError::Internal(
            "conservative job without reservation"
        ))
    );
    // A reservation moved behind the kernel's back: the earliest start it
    // keeps (so that a pass with nothing due skips the queue) is stale.
    let mut k = build();
    if let Some(q) = k.st.queue.first_mut() {
        q.set_reservation(q.reservation().map(|s| Slot {
            start: s.start - 1,
            ..s
        }));
        q.set_guarantee(q.reservation().map(|s| s.start));
    }
    assert_eq!(
        k.validate(),
        Err(KernelError::Internal(
            "earliest reservation start disagrees with the queue"
        ))
    );
    // A running job forgotten while the plan still holds its processors.
    let mut k = build();
    k.st.running.clear();
    assert_eq!(
        k.validate(),
        Err(KernelError::Internal("machine profile disagrees with jobs"))
    );
    // The earliest running end kept for `next_wakeup`, under the plan and
    // under the tally, made stale.
    for policy in [Policy::Conservative, Policy::Easy] {
        let mut k = kernel(policy);
        k.submit(0, Job::new(1, 0, 8, 100), &mut ()).unwrap();
        k.schedule(0, &mut ()).unwrap();
        k.validate().unwrap();
        k.st.first_end = Some(50);
        assert_eq!(
            k.validate(),
            Err(KernelError::Internal(
                "earliest running end disagrees with running jobs"
            )),
            "{policy}"
        );
    }
    // EASY: two queued jobs behind a running one; only the head is reserved.
    let mut k = kernel(Policy::Easy);
    for (id, procs) in [(1, 8), (2, 4), (3, 4)] {
        k.submit(0, Job::new(id, 0, procs, 100), &mut ()).unwrap();
    }
    k.schedule(0, &mut ()).unwrap();
    k.validate().unwrap();
    let reserved = |k: &Kernel<4, 4, 32>| {
        k.queued()
            .iter()
            .filter(|q| q.reservation().is_some())
            .count()
    };
    assert_eq!((k.queued().len(), reserved(&k)), (2, 1));
    let stale = k.st.queue.first().and_then(|q| q.reservation());
    if let Some(q) = k.st.queue.get_mut(1) {
        q.set_reservation(stale);
    }
    assert_eq!(
        k.validate(),
        Err(KernelError::Internal(
            "more than one job holds the reservation"
        ))
    );
}

#[test]
fn sim_errors_say_when_which_job_and_why() {
    use crate::sim::{SimError, SimErrorKind};
    let e = SimError {
        time: 42,
        job: Some(7),
        kind: SimErrorKind::Unsorted,
    };
    assert_eq!(
        std::format!("{e}"),
        "replay stopped at t=42 (job 7): jobs are not sorted by submit time"
    );
    let e = SimError {
        time: 5,
        job: None,
        kind: SimErrorKind::Kernel(KernelError::UnknownJob(3)),
    };
    assert_eq!(
        std::format!("{e}"),
        "replay stopped at t=5: job 3 is not running"
    );
}

/// Replays `jobs` under `policy` on `cluster` twice, with compression's
/// pruning and with every window searched, checks that both give the same
/// starts and reservation events (and valid kernels), and returns the
/// pruned replay's.
fn pruned_as_exhaustive<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize,
    const L: usize,
>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    jobs: &[SimJob],
    case: usize,
) -> Collect {
    let replay = |exhaustive: bool| {
        let mut kernel: Kernel<Q, R, B, M, L> = Kernel::new(cluster.clone(), policy);
        if exhaustive {
            kernel.engine.search_exhaustively();
        }
        let mut sim = Simulator::new(kernel);
        let mut sink = Collect::default();
        sim.run(jobs.iter().copied(), &mut sink).unwrap();
        sim.kernel().validate().unwrap();
        sink
    };
    let (pruned, full) = (replay(false), replay(true));
    assert_eq!(
        (&pruned.records, &pruned.reservations),
        (&full.records, &full.reservations),
        "case {case}, {policy}: pruning changed the schedule"
    );
    pruned
}

/// A random farm of one to three machines (speeds 0.5 to 2), with or
/// without a license pool, and 30 jobs for it with bursts, early ends and
/// exact estimates; `None` when the cluster is refused.
fn random_farm_workload(rng: &mut crate::rng::SplitMix64) -> Option<(Cluster<3, 1>, Vec<SimJob>)> {
    use crate::types::{LicensePool, LicenseSet, Machine, MachineSet};
    let machines: Vec<Machine> = (0..=rng.below(3))
        .map(|_| Machine {
            cpus: 1 + rng.below(12) as u32,
            speed: [500, 1000, 1000, 2000][rng.below(4) as usize],
        })
        .collect();
    let pools: Vec<LicensePool> = (0..rng.below(2))
        .map(|_| LicensePool {
            count: 1 + rng.below(3) as u32,
            machines: MachineSet(1 + u128::from(rng.below(7))),
        })
        .collect();
    let cluster = Cluster::<3, 1>::new(&machines, &pools).ok()?;
    let widest = machines.iter().map(|m| m.cpus).max().unwrap_or(1);
    let mut submit = 0;
    let jobs: Vec<SimJob> = (0..30)
        .map(|id| {
            submit += [0, 0, 1, 5, 40][rng.below(5) as usize];
            let estimate = 1 + rng.below(60) as u32;
            let mut job = Job::new(
                id,
                submit,
                1 + rng.below(u64::from(widest)) as u32,
                estimate,
            );
            if !pools.is_empty() && rng.below(3) == 0 {
                job.licenses = LicenseSet(1);
            }
            let runtime = match rng.below(3) {
                0 => estimate,
                _ => rng.below(u64::from(estimate) + 1) as u32,
            };
            SimJob { job, runtime }
        })
        .filter(|j| cluster.runnable(&j.job))
        .collect();
    Some((cluster, jobs))
}

/// `Simulator::reset` (and with it `Kernel::reset`) leaves exactly a new
/// simulator: after a replay under one policy and cluster, a reset to the
/// next random cluster and policy prints (`Debug`) as a new simulator for
/// them does, replays the next workload to the same records, reservation
/// events and outcome, and leaves the same state. Every policy, on farms
/// of up to three machines with or without licenses, and on one machine
/// (where FCFS and the EASYs keep a tally instead of a plan).
#[test]
fn reset_leaves_a_new_kernel() {
    let mut rng = crate::rng::SplitMix64::new(13);
    let mut sim: Simulator<64, 64, 256, 3, 1> =
        Simulator::new(Kernel::new(Cluster::single(1).unwrap(), Policy::Fcfs));
    let (mut compared, mut tallies, mut busy) = (0, 0, 0);
    for case in 0..400 {
        let Some((cluster, jobs)) = random_farm_workload(&mut rng) else {
            continue;
        };
        let policy = Policy::ALL[rng.below(Policy::ALL.len() as u64) as usize];
        sim.reset(cluster.clone(), policy);
        let mut fresh: Simulator<64, 64, 256, 3, 1> =
            Simulator::new(Kernel::new(cluster.clone(), policy));
        assert_eq!(format!("{sim:?}"), format!("{fresh:?}"), "case {case}");
        tallies += usize::from(!sim.kernel().keeps_plan());
        let (mut a, mut b) = (Collect::default(), Collect::default());
        let (ra, rb) = (
            sim.run(jobs.iter().copied(), &mut a),
            fresh.run(jobs.iter().copied(), &mut b),
        );
        assert_eq!(
            format!("{ra:?}"),
            format!("{rb:?}"),
            "case {case}, {policy}"
        );
        assert_eq!(
            (&a.records, &a.reservations),
            (&b.records, &b.reservations),
            "case {case}, {policy}"
        );
        assert_eq!(format!("{sim:?}"), format!("{fresh:?}"), "case {case}");
        compared += 1;
        // A kernel reset in the middle of its work: jobs queued and running.
        let mut kernel: Kernel<64, 64, 256, 3, 1> = Kernel::new(cluster.clone(), policy);
        for j in &jobs {
            let _ = kernel.submit(j.job.submit, j.job, &mut ());
            let _ = kernel.schedule(j.job.submit, &mut ());
        }
        busy += usize::from(!kernel.running().is_empty() && !kernel.queued().is_empty());
        let next = Policy::ALL[rng.below(Policy::ALL.len() as u64) as usize];
        kernel.reset(Cluster::single(1 + case as u32 % 7).unwrap(), next);
        let fresh: Kernel<64, 64, 256, 3, 1> =
            Kernel::new(Cluster::single(1 + case as u32 % 7).unwrap(), next);
        assert_eq!(format!("{kernel:?}"), format!("{fresh:?}"), "case {case}");
    }
    assert!(
        compared > 300 && tallies >= 10,
        "{compared} replays, {tallies} with a tally"
    );
    assert!(busy > 100, "only {busy} resets found the kernel busy");
}

/// Compression's pruning is exact: a replay in which every compression pass
/// searches every window gives the same starts and the same reservation
/// events, under every policy that compresses, on one machine and on farms
/// of up to three machines (speeds 0.5 to 2) with or without a license
/// pool. Random workloads with bursts, early ends and exact estimates.
#[test]
fn compression_pruning_changes_no_schedule() {
    use crate::rng::SplitMix64;
    let mut rng = SplitMix64::new(7);
    let mut compared = 0;
    for case in 0..300 {
        let Some((cluster, jobs)) = random_farm_workload(&mut rng) else {
            continue;
        };
        for policy in Policy::ALL.into_iter().filter(|p| p.keeps_reservations()) {
            pruned_as_exhaustive::<64, 64, 256, 3, 1>(&cluster, policy, &jobs, case);
            compared += 1;
        }
    }
    assert!(compared > 1000, "only {compared} replays compared");
}

/// The same on one machine without licenses, where the pass also skips
/// jobs covered by one that could not move and searches from where the
/// previous job's search stopped: long queues of jobs of every width and
/// length (so many are stuck behind one another), most ending early.
#[test]
fn compression_pruning_changes_no_schedule_on_one_machine() {
    use crate::rng::SplitMix64;
    let mut rng = SplitMix64::new(11);
    let mut moved = 0;
    for case in 0..200 {
        let cpus = 4 + rng.below(29) as u32;
        let cluster = Cluster::single(cpus).unwrap();
        let mut submit = 0;
        let jobs: Vec<SimJob> = (0..80)
            .map(|id| {
                submit += [0, 0, 0, 1, 3, 20][rng.below(6) as usize];
                let estimate = 1 + rng.below(100) as u32;
                let procs = 1 + rng.below(u64::from(cpus)) as u32;
                let runtime = match rng.below(4) {
                    0 => estimate,
                    _ => rng.below(u64::from(estimate) + 1) as u32,
                };
                SimJob {
                    job: Job::new(id, submit, procs, estimate),
                    runtime,
                }
            })
            .collect();
        for policy in [
            Policy::Conservative,
            Policy::Selective(Threshold::Fixed(2000)),
        ] {
            let pruned = pruned_as_exhaustive::<128, 64, 512, 1, 0>(&cluster, policy, &jobs, case);
            moved += pruned.reservations.len() - jobs.len();
        }
    }
    assert!(moved > 1000, "only {moved} reservations moved");
}

/// A kernel without a plan checks its tally against the running jobs.
#[test]
fn validate_checks_the_tally_against_the_running_jobs() {
    let mut k: Kernel<8, 8, 16> = Kernel::new(Cluster::single(10).unwrap(), Policy::Easy);
    assert!(!k.keeps_plan());
    k.submit(0, Job::new(1, 0, 4, 100), &mut ()).unwrap();
    k.submit(0, Job::new(2, 0, 8, 100), &mut ()).unwrap();
    k.schedule(0, &mut ()).unwrap();
    assert_eq!(k.running().len(), 1);
    k.validate().unwrap();
    let mut broken = k.clone();
    broken.st.running.clear();
    assert_eq!(
        broken.validate(),
        Err(KernelError::Internal("tally disagrees with running jobs"))
    );
    // The queue is still checked: a reservation past its guarantee.
    let mut late = k.clone();
    let head = late.st.queue.first_mut().unwrap();
    head.set_guarantee(Some(50));
    assert_eq!(
        late.validate(),
        Err(KernelError::Internal("reservation later than guarantee"))
    );
    let with_plan: Kernel<8, 8, 16> =
        Kernel::new_with_plan(Cluster::single(10).unwrap(), Policy::Easy);
    assert!(with_plan.keeps_plan());
}

/// A compression move to another machine keeps the plan consistent: on two
/// 4-CPU machines, A and B fill both until 100 and C waits for 100 on
/// machine 0. B ends at 70: C moves to machine 1 at 70, overlapping its old
/// slot in time but not in machine, so the whole old slot is given back
/// (not only what lies after the new end, as for a move on one machine).
#[test]
fn a_move_to_another_machine_gives_back_the_whole_old_slot() {
    use crate::types::Machine;
    let same = Machine {
        cpus: 4,
        speed: 1000,
    };
    let cluster: Cluster<2, 0> = Cluster::new(&[same, same], &[]).unwrap();
    let mut k: Kernel<8, 8, 32, 2, 0> = Kernel::new(cluster, Policy::Conservative);
    for (id, estimate) in [(1, 100), (2, 100), (3, 50)] {
        k.submit(0, Job::new(id, 0, 4, estimate), &mut ()).unwrap();
    }
    k.schedule(0, &mut ()).unwrap();
    let c = k.queued()[0].reservation().unwrap();
    assert_eq!((c.machine, c.start), (0, 100));
    let b = k.running().iter().find(|r| r.job.id == 2).unwrap().slot;
    assert_eq!(b.machine, 1);
    k.complete(70, 2).unwrap();
    k.schedule(70, &mut ()).unwrap();
    let started = k.running().iter().find(|r| r.job.id == 3).unwrap().slot;
    assert_eq!((started.machine, started.start), (1, 70));
    k.validate().unwrap();
    k.complete(100, 1).unwrap();
    k.schedule(100, &mut ()).unwrap();
    k.validate().unwrap();
}

/// `next_wakeup` names the earliest reservation start after now even
/// before the first pass, when the kept earliest start is not yet known
/// and the queue must be scanned: two jobs queued on an idle 4-CPU machine
/// under Conservative, the second reserved after the first's estimate.
#[test]
fn next_wakeup_scans_the_queue_before_the_first_pass() {
    for policy in [Policy::Conservative, Policy::ConsRs(RandomSearch::DEFAULT)] {
        let mut k: Kernel<8, 8, 32> = Kernel::new(Cluster::single(4).unwrap(), policy);
        k.submit(0, Job::new(1, 0, 4, 100), &mut ()).unwrap();
        k.submit(0, Job::new(2, 0, 4, 50), &mut ()).unwrap();
        assert_eq!(k.queued()[1].reservation().map(|s| s.start), Some(100));
        assert_eq!(k.next_wakeup(), Some(100), "{policy}");
        k.schedule(0, &mut ()).unwrap();
        assert_eq!(k.next_wakeup(), Some(100), "{policy}");
    }
}
