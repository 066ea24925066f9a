//! Hand-checked schedules: each expected start below was worked out on paper
//! from the policy rules in the module docs.

use super::*;
use crate::policy::{Iterations, RandomSearch, Threshold};
use crate::sim::fixtures::{job, sims, AtSpeed, Collect, TestJob};
use crate::sim::{SimJob, Simulator};
use crate::types::{LicensePool, LicenseSet, Machine, MachineSet};
use std::format;
use std::vec::Vec;

/// Replays `jobs` through `kernel`: every job finishes and the kernel
/// validates afterwards. Returns what the sink saw and the counters.
fn replay<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    kernel: Kernel<Q, R, B, M, L>,
    jobs: &[SimJob],
) -> (Collect, Counters) {
    let mut sim = Simulator::new(kernel);
    let mut sink = Collect::default();
    let outcome = sim.run(jobs.iter().copied(), &mut sink).unwrap();
    assert_eq!(outcome.finished, jobs.len() as u64);
    sim.kernel().validate().unwrap();
    (sink, *sim.kernel().counters())
}

/// [`replay`] of `jobs` under `policy` on one machine of `cpus`.
fn run_with_counters(policy: Policy, cpus: u32, jobs: &[TestJob]) -> (Collect, Counters) {
    let kernel: Kernel<64, 64, 256> = Kernel::new(Cluster::single(cpus).unwrap(), policy);
    replay(kernel, &sims(jobs))
}

/// [`run_with_counters`], the sink only.
fn run(policy: Policy, cpus: u32, jobs: &[TestJob]) -> Collect {
    run_with_counters(policy, cpus, jobs).0
}

/// Submits `j` at its own submit time; the kernel must accept it.
fn submit<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    k: &mut Kernel<Q, R, B, M, L>,
    j: TestJob,
) {
    let j = j.job();
    k.submit(j.submit, j, &mut ()).unwrap();
}

/// The start of the reservation of the `index`-th queued job.
fn reserved_start<
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize,
    const L: usize,
>(
    k: &Kernel<Q, R, B, M, L>,
    index: usize,
) -> Option<Time> {
    k.queued()[index].reservation().map(|s| s.start)
}

/// J2 cannot start (shadow 100). J3 ends by the shadow time and backfills at
/// 2. J4 runs past the shadow, but at 100 J2 takes 8 of 10 processors and J4
/// needs only the 2 spare ones: it backfills at 92, when J3 ends.
const SHADOW: &[TestJob] = &[
    job(1).procs(6).estimate(100),
    job(2).submit(1).procs(8).estimate(50),
    job(3).submit(2).procs(4).estimate(90),
    job(4).submit(3).procs(2).estimate(200),
];

/// J3 (all 10 processors) arrives behind J2. Conservative reserves it at
/// [200, 300), so J4 (2 processors for 250 s) cannot fit before 300. EASY
/// gives J3 no reservation while J2 is the head, so J4 backfills at 3 and J3
/// waits for J4 to end at 253.
const DIFFER: &[TestJob] = &[
    job(1).procs(6).estimate(100),
    job(2).submit(1).procs(8).estimate(100),
    job(3).submit(2).procs(10).estimate(100),
    job(4).submit(3).procs(2).estimate(250),
];

/// A pass is not a fixpoint. On 10 processors: R1 (5 procs, estimate 100)
/// ends early at 10; R2 (5 procs, 40 s) ends on time at 40. A (10 procs,
/// 50 s) was reserved at [100, 150); B (5 procs, 60 s) at [40, 100), the
/// only hole. The pass at 10 looks at A first (5 free before 100: it stays),
/// then moves B to [10, 70), which opens [70, 150) for A. Only the pass at
/// 40, after R2's on-time completion, moves A to 70.
const ON_TIME: &[TestJob] = &[
    job(1).procs(5).estimate(100).runs(10),
    job(2).procs(5).estimate(40),
    job(3).submit(1).procs(10).estimate(50),
    job(4).submit(2).procs(5).estimate(60),
];

/// An arrival and an early completion at one instant: the completion is
/// applied and the plan compressed first, then the arrival is reserved.
/// R1 (10 procs, estimate 100) ends at 30; A (10 procs, 50 s) moves from
/// 100 to 30; C (10 procs, 20 s) arrives at 30 and is reserved behind A at
/// 80 (had it been reserved first it would take [30, 50) and push A to 50).
const SAME_INSTANT: &[TestJob] = &[
    job(1).procs(10).estimate(100).runs(30),
    job(2).submit(1).procs(10).estimate(50),
    job(3).submit(30).procs(10).estimate(20),
];

/// CONS+RS on 10 processors. R1 (6 procs, estimate 300) ends early at 20;
/// R2 (4 procs) ends on time at 60. X (10 procs, 100 s) was reserved at
/// [300, 400) on arrival, J (6 procs, 100 s) at [400, 500). Compression at
/// 20 moves X to 60 and J to 160. The search then finds J a gap at 20 (6
/// processors free until X): J is placed at [20, 120) and displaces X to
/// [120, 220), still before X's guarantee (300). Predicted waits fall from
/// 59 + 158 to 119 + 18 and slowdowns from 1.59 + 2.58 to 2.19 + 1.18: kept.
const GAP_FILL: &[TestJob] = &[
    job(1).procs(6).estimate(300).runs(20),
    job(2).procs(4).estimate(60),
    job(3).submit(1).procs(10).estimate(100),
    job(4).submit(2).procs(6).estimate(100),
];

/// Compression order. On 10 processors: R1 (1 proc, 50 s) runs on time,
/// R2 (9 procs, estimate 100) ends early at 10. A (9 procs, 100 s) was
/// reserved at [100, 200) on arrival; B (1 proc, 40 s), younger, at [50, 90)
/// beside R2. Conservative's pass at 10 takes A first (in queue order): 9
/// processors are free from 10 on, so A starts at 10 and B keeps 50. The
/// rebuild puts B back first (its planned start, 50, is earlier): B takes
/// one of the 9 free processors at 10, and A waits for R1 and B to end at 50.
const ORDER: &[TestJob] = &[
    job(1).procs(1).estimate(50),
    job(2).procs(9).estimate(100).runs(10),
    job(3).submit(1).procs(9).estimate(100),
    job(4).submit(2).procs(1).estimate(40),
];

/// Threshold 2.0: a job waits as long as its estimate before it is promoted.
/// J1 holds the machine until 1000. J2 (estimate 100, submitted at 0) is
/// promoted at 100 and J3 (estimate 10, submitted at 50) at 60: both instants
/// fall between events (no arrival or end happens then), so only
/// `next_wakeup` brings the replay there. J3, promoted first, is reserved
/// first, at 1000; J2 then at 1010. Under EASY the head J2 would go first.
const BETWEEN_EVENTS: &[TestJob] = &[
    job(1).procs(10).estimate(1000),
    job(2).procs(10).estimate(100),
    job(3).submit(50).procs(10).estimate(10),
];

/// A hand-checked schedule: `jobs` under `policy` on one machine of `cpus`.
struct Schedule {
    /// What the case shows (its reasoning is in the comment above it).
    name: &'static str,
    policy: Policy,
    cpus: u32,
    jobs: &'static [TestJob],
    /// `(job, start)` by id.
    starts: &'static [(JobId, Time)],
    /// Every reservation event `(now, job, reserved start)` in order, where
    /// the case pins them.
    reservations: Option<&'static [(Time, JobId, Time)]>,
    /// `(job, recorded guarantee)` for the jobs whose guarantee is pinned.
    guarantees: &'static [(JobId, Option<Time>)],
}

const SCHEDULES: &[Schedule] = &[
    // SHADOW under EASY. The head's reservation is made at its arrival
    // pass and never moves; no other job is reserved.
    Schedule {
        name: "EASY backfills around the shadow time",
        policy: Policy::Easy,
        cpus: 10,
        jobs: SHADOW,
        starts: &[(1, 0), (2, 100), (3, 2), (4, 92)],
        reservations: Some(&[(1, 2, 100)]),
        guarantees: &[(2, Some(100))],
    },
    // J3 needs 4 but only 2 are spare beside J2 in [100, 150).
    Schedule {
        name: "FCFS never backfills",
        policy: Policy::Fcfs,
        cpus: 10,
        jobs: SHADOW,
        starts: &[(1, 0), (2, 100), (3, 150), (4, 150)],
        reservations: None,
        guarantees: &[],
    },
    // Every job reserved on arrival, each where it then starts.
    Schedule {
        name: "Conservative reserves every job",
        policy: Policy::Conservative,
        cpus: 10,
        jobs: SHADOW,
        starts: &[(1, 0), (2, 100), (3, 2), (4, 92)],
        reservations: Some(&[(0, 1, 0), (1, 2, 100), (2, 3, 2), (3, 4, 92)]),
        guarantees: &[],
    },
    Schedule {
        name: "EASY and Conservative differ: EASY",
        policy: Policy::Easy,
        cpus: 10,
        jobs: DIFFER,
        starts: &[(1, 0), (2, 100), (3, 253), (4, 3)],
        reservations: None,
        guarantees: &[],
    },
    Schedule {
        name: "EASY and Conservative differ: Conservative",
        policy: Policy::Conservative,
        cpus: 10,
        jobs: DIFFER,
        starts: &[(1, 0), (2, 100), (3, 200), (4, 300)],
        reservations: None,
        guarantees: &[],
    },
    // J1 was planned until 100 but ends at 40. Compression moves J2 from
    // 100 to 40 and J3 from 150 to 90; nothing moves later, and every job
    // keeps its arrival reservation as its guarantee.
    Schedule {
        name: "Conservative compresses after an early finish",
        policy: Policy::Conservative,
        cpus: 10,
        jobs: &[
            job(1).procs(10).estimate(100).runs(40),
            job(2).submit(1).procs(10).estimate(50),
            job(3).submit(2).procs(5).estimate(30),
        ],
        starts: &[(1, 0), (2, 40), (3, 90)],
        reservations: Some(&[
            (0, 1, 0),
            (1, 2, 100),
            (2, 3, 150),
            (40, 2, 40),
            (40, 3, 90),
        ]),
        guarantees: &[(1, Some(0)), (2, Some(100)), (3, Some(150))],
    },
    Schedule {
        name: "Conservative compresses after an on-time completion",
        policy: Policy::Conservative,
        cpus: 10,
        jobs: ON_TIME,
        starts: &[(1, 0), (2, 0), (3, 70), (4, 10)],
        reservations: Some(&[
            (0, 1, 0),
            (0, 2, 0),
            (1, 3, 100),
            (2, 4, 40),
            (10, 4, 10),
            (40, 3, 70),
        ]),
        guarantees: &[],
    },
    Schedule {
        name: "completion and compression come before an arrival at the same instant",
        policy: Policy::Conservative,
        cpus: 10,
        jobs: SAME_INSTANT,
        starts: &[(1, 0), (2, 30), (3, 80)],
        reservations: Some(&[(0, 1, 0), (1, 2, 100), (30, 2, 30), (30, 3, 80)]),
        guarantees: &[],
    },
    // Selective promotes at once with a threshold of 1.0: the same plan.
    Schedule {
        name: "completion and compression come first: Selective at 1.0",
        policy: Policy::Selective(Threshold::Fixed(1000)),
        cpus: 10,
        jobs: SAME_INSTANT,
        starts: &[(1, 0), (2, 30), (3, 80)],
        reservations: None,
        guarantees: &[],
    },
    // Conservative without compression keeps every arrival reservation.
    Schedule {
        name: "Conservative without compression never revisits",
        policy: Policy::ConservativeNoCompression,
        cpus: 10,
        jobs: GAP_FILL,
        starts: &[(1, 0), (2, 0), (3, 300), (4, 400)],
        reservations: Some(&[(0, 1, 0), (0, 2, 0), (1, 3, 300), (2, 4, 400)]),
        guarantees: &[],
    },
    // J3 (50 s) arrives behind J2 (500 s) while J1 holds the machine: at
    // 100 SJF-EASY runs the shorter J3 first, EASY keeps queue order.
    Schedule {
        name: "SJF-EASY orders by estimate",
        policy: Policy::SjfEasy,
        cpus: 10,
        jobs: SJF,
        starts: &[(1, 0), (2, 150), (3, 100)],
        reservations: None,
        guarantees: &[],
    },
    Schedule {
        name: "SJF-EASY orders by estimate: EASY",
        policy: Policy::Easy,
        cpus: 10,
        jobs: SJF,
        starts: &[(1, 0), (2, 100), (3, 600)],
        reservations: None,
        guarantees: &[],
    },
    Schedule {
        name: "Selective promotes at the exact threshold instant",
        policy: Policy::SELECTIVE_EXAMPLE,
        cpus: 10,
        jobs: BETWEEN_EVENTS,
        starts: &[(1, 0), (2, 1010), (3, 1000)],
        // J1 started at once, unreserved.
        reservations: Some(&[(60, 3, 1000), (100, 2, 1010)]),
        guarantees: &[],
    },
    Schedule {
        name: "Selective promotes at the exact threshold instant: EASY",
        policy: Policy::Easy,
        cpus: 10,
        jobs: BETWEEN_EVENTS,
        starts: &[(1, 0), (2, 1000), (3, 1100)],
        reservations: None,
        guarantees: &[],
    },
    // ORDER: queue order under Conservative.
    Schedule {
        name: "Conservative compresses in queue order",
        policy: Policy::Conservative,
        cpus: 10,
        jobs: ORDER,
        starts: &[(1, 0), (2, 0), (3, 10), (4, 50)],
        reservations: Some(&[(0, 1, 0), (0, 2, 0), (1, 3, 100), (2, 4, 50), (10, 3, 10)]),
        guarantees: &[],
    },
    // ORDER: planned-start order under the rebuild.
    Schedule {
        name: "the rebuild puts jobs back in planned-start order",
        policy: Policy::ConservativeRebuild,
        cpus: 10,
        jobs: ORDER,
        starts: &[(1, 0), (2, 0), (3, 50), (4, 10)],
        reservations: Some(&[
            (0, 1, 0),
            (0, 2, 0),
            (1, 3, 100),
            (2, 4, 50),
            (10, 4, 10),
            (10, 3, 50),
        ]),
        guarantees: &[],
    },
    // ON_TIME under the rebuild: one rebuild at R1's early end puts B (its
    // planned start 40 is earlier than A's 100) at [10, 70) first, then A at
    // 70; R2's on-time end at 40 changes nothing.
    Schedule {
        name: "the rebuild runs after early completions only",
        policy: Policy::ConservativeRebuild,
        cpus: 10,
        jobs: ON_TIME,
        starts: &[(1, 0), (2, 0), (3, 70), (4, 10)],
        reservations: Some(&[
            (0, 1, 0),
            (0, 2, 0),
            (1, 3, 100),
            (2, 4, 40),
            (10, 4, 10),
            (10, 3, 70),
        ]),
        guarantees: &[],
    },
    // Entry-queue jobs backfill only where they delay no reservation. J2
    // (threshold reached at once: estimate 1, promoted at 1) is reserved at
    // 100 behind J1. J3 (6 processors for 200 s) would overlap J2's
    // reservation, so it waits for J2; J4 (4 processors, ends by 100) fits.
    Schedule {
        name: "Selective entry jobs respect reservations",
        policy: Policy::SELECTIVE_EXAMPLE,
        cpus: 10,
        jobs: &[
            job(1).procs(6).estimate(100),
            job(2).procs(10).estimate(1),
            job(3).submit(2).procs(6).estimate(200),
            job(4).submit(2).procs(4).estimate(90),
        ],
        starts: &[(1, 0), (2, 100), (3, 101), (4, 2)],
        reservations: None,
        guarantees: &[],
    },
];

/// Three jobs that fill the machine, the third shorter than the second.
const SJF: &[TestJob] = &[
    job(1).procs(10).estimate(100),
    job(2).submit(1).procs(10).estimate(500),
    job(3).submit(2).procs(10).estimate(50),
];

/// Every case of [`SCHEDULES`]; besides what a case pins, no job starts
/// after a guarantee its record carries.
#[test]
fn hand_checked_schedules() {
    for case in SCHEDULES {
        let c = run(case.policy, case.cpus, case.jobs);
        assert_eq!(c.starts(), case.starts, "{}", case.name);
        if let Some(reservations) = case.reservations {
            assert_eq!(
                c.reservations, reservations,
                "{}: (now, job, reserved start)",
                case.name
            );
        }
        for &(id, guarantee) in case.guarantees {
            assert_eq!(c.record(id).guarantee, guarantee, "{}: job {id}", case.name);
        }
        for r in &c.records {
            if let Some(guarantee) = r.guarantee {
                assert!(r.start() <= guarantee, "{}: job {}", case.name, r.job.id);
            }
        }
    }
}

#[test]
fn cons_rs_fills_a_gap_by_displacing_a_job_within_its_guarantee() {
    let cons = run(Policy::Conservative, 10, GAP_FILL);
    assert_eq!(cons.starts(), [(1, 0), (2, 0), (3, 60), (4, 160)]);
    let (rs, counters) = run_with_counters(Policy::ConsRs(RandomSearch::DEFAULT), 10, GAP_FILL);
    assert_eq!(rs.starts(), [(1, 0), (2, 0), (3, 120), (4, 20)]);
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
    assert_eq!(rs.record(3).guarantee, Some(300));
    assert!(rs.reservations.contains(&(20, 3, 120)));
    assert!(rs.reservations.contains(&(20, 4, 20)));
    // No iterations: Conservative.
    let none = RandomSearch {
        iterations: Iterations::Fixed(0),
        ..RandomSearch::DEFAULT
    };
    let (plain, counters) = run_with_counters(Policy::ConsRs(none), 10, GAP_FILL);
    assert_eq!(plain.starts(), cons.starts());
    assert_eq!((counters.rs_searches, counters.rs_iterations), (0, 0));
}

/// Why CONS+RS undid its moves.
enum Undone {
    /// A displaced job would have passed its guarantee.
    ByGuarantee,
    /// The objective (relative wait and slowdown changes) got worse; every
    /// iteration either found no gap or was undone so.
    ByObjective,
}

/// A hand-checked CONS+RS search against Conservative on one machine.
struct Search {
    /// What the case shows (its reasoning is in the comment above it).
    name: &'static str,
    cpus: u32,
    jobs: &'static [TestJob],
    /// Conservative's starts `(job, start)`, by id.
    conservative: &'static [(JobId, Time)],
    /// CONS+RS's starts (default parameters).
    cons_rs: &'static [(JobId, Time)],
    /// Moves kept.
    accepted: u64,
    /// Why the moves were undone, where the case says.
    undone: Option<Undone>,
    /// `(job, guarantee)` of the displaced job, where one was displaced.
    displaced: Option<(JobId, Time)>,
}

const SEARCHES: &[Search] = &[
    // GAP_FILL with R1's estimate 120: X's guarantee is 120, and the search
    // displaces it to exactly 120. A guarantee is kept when the job starts
    // by it, so the move stands.
    Search {
        name: "CONS+RS may displace a job to exactly its guarantee",
        cpus: 10,
        jobs: &[
            job(1).procs(6).estimate(120).runs(20),
            job(2).procs(4).estimate(60),
            job(3).submit(1).procs(10).estimate(100),
            job(4).submit(2).procs(6).estimate(100),
        ],
        conservative: &[(1, 0), (2, 0), (3, 60), (4, 160)],
        cons_rs: &[(1, 0), (2, 0), (3, 120), (4, 20)],
        accepted: 1,
        undone: None,
        displaced: Some((3, 120)),
    },
    // The same shape, but X's guarantee is its arrival reservation at 100:
    // displacing it to 120 would break Conservative's promise, so the move
    // is undone and the schedule is Conservative's.
    Search {
        name: "CONS+RS never breaks a guarantee",
        cpus: 10,
        jobs: &[
            job(1).procs(6).estimate(100).runs(20),
            job(2).procs(4).estimate(60),
            job(3).submit(1).procs(10).estimate(100),
            job(4).submit(2).procs(6).estimate(100),
        ],
        conservative: &[(1, 0), (2, 0), (3, 60), (4, 160)],
        cons_rs: &[(1, 0), (2, 0), (3, 60), (4, 160)],
        accepted: 0,
        undone: Some(Undone::ByGuarantee),
        displaced: None,
    },
    // CONS+RS's objective weighs relative changes: a move that saves wait
    // but costs more slowdown, relatively, is undone. Two processors, every
    // job submitted at 0: J1 (2 procs, estimate 56) runs and ends early at
    // 28; arrival reservations J2 (1 proc, 21 s) [56, 77), J3 (1, 7)
    // [56, 63), J4 (2, 14) [77, 91), J5 (1, 35) [91, 126). Compression at
    // 28: J2 and J3 to 28, J4 to 49 (when J2 ends), J5 to 63 (J4 holds both
    // processors over [49, 63)). The search: J4 has no gap before 49 (J2
    // holds a processor until then); J5's gap is 35 (J3 ends), and placing
    // it at [35, 70) displaces J4 to [70, 84) (its guarantee is 77). Waits
    // (J2..J5) 28 + 28 + 49 + 63 = 168 fall by 28 - 21 = 7 (4%); bounded
    // slowdowns 2.333333 + 3.8 + 4.5 + 2.8 = 13.433333 rise by 1.5 - 0.8 =
    // 0.7 (5.2%): every try is undone and the schedule is Conservative's.
    Search {
        name: "CONS+RS undoes a move whose slowdown cost outweighs its wait gain",
        cpus: 2,
        jobs: &[
            job(1).procs(2).estimate(56).runs(28),
            job(2).estimate(21),
            job(3).estimate(7),
            job(4).procs(2).estimate(14),
            job(5).estimate(35),
        ],
        conservative: &[(1, 0), (2, 28), (3, 28), (4, 49), (5, 63)],
        cons_rs: &[(1, 0), (2, 28), (3, 28), (4, 49), (5, 63)],
        accepted: 0,
        undone: Some(Undone::ByObjective),
        displaced: None,
    },
    // The other way round: a move that costs slowdown but saves more wait,
    // relatively, is kept. Three processors, every job submitted at 0: J1
    // (1 proc, 14 s) runs to 14; J2 (1 proc, estimate 28) starts at 0 and
    // ends at once, early; J3 (3 procs, 7 s) was reserved at [28, 35), J4
    // (2 procs, 28 s) at [35, 63). Compression at 0: J3 to 14 (J1 ends), J4
    // to 21. The search: J3 has no gap before 14 (J1 holds a processor);
    // J4's gap is 0 (2 processors free), and placing it at [0, 28)
    // displaces J3 to [28, 35), exactly its guarantee. Waits 14 + 21 = 35
    // fall by 21 - 14 = 7 (20%); bounded slowdowns 2.4 + 1.75 = 4.15 rise
    // by 1.4 - 0.75 = 0.65 (15.7%): kept.
    Search {
        name: "CONS+RS keeps a move whose wait gain outweighs its slowdown cost",
        cpus: 3,
        jobs: &[
            job(1).estimate(14),
            job(2).estimate(28).runs(0),
            job(3).procs(3).estimate(7),
            job(4).procs(2).estimate(28),
        ],
        conservative: &[(1, 0), (2, 0), (3, 14), (4, 21)],
        cons_rs: &[(1, 0), (2, 0), (3, 28), (4, 0)],
        accepted: 1,
        undone: None,
        displaced: Some((3, 28)),
    },
];

/// Every case of [`SEARCHES`].
#[test]
fn cons_rs_searches() {
    for case in SEARCHES {
        let name = case.name;
        let cons = run(Policy::Conservative, case.cpus, case.jobs);
        assert_eq!(cons.starts(), case.conservative, "{name}: Conservative");
        let (rs, counters) =
            run_with_counters(Policy::ConsRs(RandomSearch::DEFAULT), case.cpus, case.jobs);
        assert_eq!(rs.starts(), case.cons_rs, "{name}");
        assert_eq!(counters.rs_accepted, case.accepted, "{name}: {counters:?}");
        match case.undone {
            Some(Undone::ByGuarantee) => {
                assert!(counters.rs_rejected_guarantee > 0, "{name}: {counters:?}");
            }
            Some(Undone::ByObjective) => {
                assert!(counters.rs_rejected_objective > 0, "{name}: {counters:?}");
                assert_eq!(
                    counters.rs_rejected_objective + counters.rs_no_gap,
                    counters.rs_iterations,
                    "{name}: {counters:?}"
                );
            }
            None => {}
        }
        if let Some((id, guarantee)) = case.displaced {
            assert_eq!(rs.record(id).guarantee, Some(guarantee), "{name}");
        }
    }
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
        let mut jobs = std::vec![
            job(1).procs(6).estimate(300).runs(20),
            job(2).procs(4).estimate(56),
        ];
        jobs.extend((3..73).map(|id| job(id).submit(1).procs(7)));
        jobs.push(job(73).submit(2).procs(6).estimate(estimate));
        let run_on = |policy| {
            let kernel: Kernel<128, 16, 512> = Kernel::new(Cluster::single(10).unwrap(), policy);
            let (sink, counters) = replay(kernel, &sims(&jobs));
            (sink.starts(), counters)
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
    let cluster: Cluster<2, 1> = Cluster::with_one_license(&[Machine::new(2), Machine::new(4)], 1);
    let jobs = sims(&[
        job(1).procs(2).estimate(100).runs(10),
        job(2).procs(4).estimate(50),
        job(3)
            .submit(1)
            .procs(4)
            .estimate(100)
            .licenses(LicenseSet(1)),
        job(4)
            .submit(2)
            .procs(2)
            .estimate(60)
            .licenses(LicenseSet(1)),
    ]);
    let run_on = |policy| {
        let kernel: Kernel<8, 8, 64, 2, 1> = Kernel::new(cluster.clone(), policy);
        let (sink, counters) = replay(kernel, &jobs);
        (sink.starts(), counters)
    };
    let (cons, _) = run_on(Policy::Conservative);
    let (rs, counters) = run_on(Policy::ConsRs(RandomSearch::DEFAULT));
    assert_eq!(cons, [(1, 0), (2, 0), (3, 50), (4, 150)]);
    assert_eq!(rs, cons);
    assert!(counters.rs_rejected_guarantee > 0, "{counters:?}");
}

#[test]
fn jobs_are_killed_at_their_estimate() {
    let c = run(
        Policy::Easy,
        4,
        &[
            job(1).procs(4).estimate(10).runs(99),
            job(2).procs(4).estimate(10).runs(5),
        ],
    );
    let r1 = c.record(1);
    assert!(r1.killed);
    assert_eq!((r1.start(), r1.end), (0, 10));
    let r2 = c.record(2);
    assert_eq!((r2.start(), r2.end, r2.killed), (10, 15, false));
}

#[test]
fn zero_runtime_jobs_finish_at_once() {
    let jobs = &[
        job(1).submit(5).procs(2).estimate(10).runs(0),
        job(2).submit(5).procs(2).estimate(10).runs(0),
        job(3).submit(6),
    ];
    for policy in Policy::ALL {
        let c = run(policy, 2, jobs);
        if policy == Policy::ConservativeNoCompression {
            // Job 2 keeps its reservation behind job 1's estimate.
            assert_eq!(c.starts(), [(1, 5), (2, 15), (3, 6)], "{policy}");
        } else {
            assert_eq!(c.starts(), [(1, 5), (2, 5), (3, 6)], "{policy}");
        }
    }
}

fn kernel(policy: Policy) -> Kernel<4, 4, 32> {
    Kernel::new(Cluster::single(8).unwrap(), policy)
}

#[test]
fn misuse_is_an_error_value() {
    let mut k = kernel(Policy::Conservative);
    submit(&mut k, job(1).submit(10).procs(8).estimate(100));
    let at = |now: Time, j: TestJob| j.submit(now).job();
    assert_eq!(
        k.submit(9, at(9, job(2)), &mut ()),
        Err(KernelError::TimeWentBackwards {
            now: 9,
            current: 10
        })
    );
    assert_eq!(
        k.submit(10, at(10, job(1)), &mut ()),
        Err(KernelError::DuplicateJob(1))
    );
    assert_eq!(
        k.submit(10, at(10, job(3).procs(9)), &mut ()),
        Err(KernelError::Unrunnable(3))
    );
    assert_eq!(
        k.submit(10, at(10, job(4).procs(0)), &mut ()),
        Err(KernelError::InvalidJob(4))
    );
    assert_eq!(
        k.submit(10, at(11, job(5)), &mut ()),
        Err(KernelError::SubmitInFuture(5))
    );
    assert_eq!(
        k.complete(10, 1),
        Err(KernelError::UnknownJob(1)),
        "queued, not running"
    );
    assert_eq!(
        k.submit(10, at(10, job(6).estimate(u32::MAX)), &mut ()),
        Err(KernelError::TimeOverflow)
    );
    k.schedule(10, &mut ()).unwrap();
    assert_eq!(k.running().len(), 1);
    assert_eq!(k.schedule(110, &mut ()), Err(KernelError::Overdue(1)));
    k.complete(110, 1).unwrap();
    k.validate().unwrap();
    for id in 10..14 {
        submit(&mut k, job(id).submit(110).procs(8).estimate(10));
    }
    assert_eq!(
        k.submit(110, at(110, job(20)), &mut ()),
        Err(KernelError::QueueFull(20))
    );
    k.validate().unwrap();
}

#[test]
fn next_wakeup_covers_reservations_and_expiries() {
    let mut k = kernel(Policy::Conservative);
    assert_eq!(k.next_wakeup(), None);
    submit(&mut k, job(1).procs(8).estimate(100));
    submit(&mut k, job(2).procs(8).estimate(50));
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
        submit(&mut k, job(id).procs(2).estimate(estimate));
    }
    k.schedule(0, &mut ()).unwrap();
    assert_eq!(k.running().len(), 3);
    assert_eq!(k.next_wakeup(), Some(40));
    k.complete(10, 3).unwrap(); // not the first to end
    assert_eq!(k.next_wakeup(), Some(40));
    k.complete(20, 2).unwrap(); // the first to end, early
    assert_eq!(k.next_wakeup(), Some(100));
    submit(&mut k, job(4).submit(20).procs(2).estimate(30));
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
    let fast = Machine::new(4).at_speed(2000);
    let cluster: Cluster<2, 1> = Cluster::with_one_license(&[Machine::new(4), fast], 1);
    let mut k: Kernel<8, 8, 32, 2, 1> = Kernel::new(cluster, Policy::Easy);
    submit(&mut k, job(1).estimate(100).licenses(LicenseSet(1)));
    submit(&mut k, job(2).estimate(100).licenses(LicenseSet(1)));
    submit(&mut k, job(3).procs(4).estimate(100));
    let mut started = Vec::new();
    k.schedule(0, &mut |j: &Job, s: Slot| {
        started.push((j.id, s.machine, s.duration))
    })
    .unwrap();
    // Job 1 goes to the fast machine (index 1) and runs 50 s there; job 2
    // waits for the only license copy; job 3 takes the slow machine whole.
    assert_eq!(started, [(1, 1, 50), (3, 0, 100)]);
    assert_eq!(reserved_start(&k, 0), Some(50));
    k.validate().unwrap();
}

/// [`BETWEEN_EVENTS`] at the kernel's API: the first two jobs, and the
/// promotion of J2 exactly at 100 (its replay is in [`SCHEDULES`]).
#[test]
fn selective_promotes_at_the_exact_threshold_instant() {
    let mut k: Kernel<8, 8, 32> =
        Kernel::new(Cluster::single(10).unwrap(), Policy::SELECTIVE_EXAMPLE);
    for &j in &BETWEEN_EVENTS[..2] {
        submit(&mut k, j);
    }
    k.schedule(0, &mut ()).unwrap();
    assert_eq!(
        k.next_wakeup(),
        Some(100),
        "J2's promotion comes before J1's end"
    );
    k.schedule(99, &mut ()).unwrap();
    assert_eq!(k.queued()[0].reservation(), None, "XF at 99 is 1.99");
    k.schedule(100, &mut ()).unwrap();
    assert_eq!(reserved_start(&k, 0), Some(1000));
    k.validate().unwrap();
}

#[test]
fn adaptive_threshold_follows_completed_slowdowns() {
    let policy = Policy::Selective(crate::policy::Threshold::ADAPTIVE);
    let mut k: Kernel<8, 8, 32> = Kernel::new(Cluster::single(4).unwrap(), policy);
    submit(&mut k, job(1).procs(4).estimate(100));
    submit(&mut k, job(2).procs(4).estimate(100));
    k.schedule(0, &mut ()).unwrap();
    // Before any completion the threshold is 1.0: J2 is promoted at once.
    assert_eq!(reserved_start(&k, 0), Some(100));
    k.complete(50, 1).unwrap();
    assert_eq!(k.slowdown_average().mean(), Some(1000));
    k.schedule(50, &mut ()).unwrap(); // J2 compressed to 50 and started
    submit(&mut k, job(3).submit(60).procs(4).estimate(10));
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
    for &j in &DIFFER[..3] {
        submit(&mut k, j);
        k.schedule(j.job().submit, &mut ()).unwrap();
    }
    let mut scratch = crate::plan::Plan::new(k.cluster());
    let j4 = DIFFER[3].job();
    assert_eq!(
        k.strict_fcfs_start(3, &j4, &mut scratch).unwrap().start,
        300
    );
    // A 2-processor job that would end by 100 still waits its turn: not
    // before J3 (200), and J3 holds all 10 processors until 300.
    let short = job(5).submit(3).procs(2).estimate(10).job();
    assert_eq!(
        k.strict_fcfs_start(3, &short, &mut scratch).unwrap().start,
        300
    );
}

/// One machine of 4 processors under Conservative: job 1 (all of it, 10 s)
/// started at 0, then job 2 (the same) submitted and reserved at 10.
fn conservative_behind_one_job() -> Kernel<8, 8, 64> {
    let mut k = Kernel::new(Cluster::single(4).unwrap(), Policy::Conservative);
    submit(&mut k, job(1).procs(4).estimate(10));
    k.schedule(0, &mut ()).unwrap();
    submit(&mut k, job(2).procs(4).estimate(10));
    k
}

/// Regression (found by the `kernel_api` fuzz target): a host that calls
/// late is supported (a missed reservation is re-planned from now), so the
/// states it leads to must pass `validate()`: a reservation in the past
/// until the next pass, then one later than its (missed) guarantee.
#[test]
fn late_host_calls_keep_validate_green() {
    let mut k = conservative_behind_one_job();
    k.complete(10, 1).unwrap();
    // The host skips the pass at 10; at 11 a job arrives first.
    k.submit(11, job(3).estimate(100).job(), &mut ()).unwrap();
    assert_eq!(reserved_start(&k, 0), Some(10));
    k.validate().unwrap();
    k.schedule(11, &mut ()).unwrap();
    let j2 = k.queued().iter().find(|q| q.job.id == 2).unwrap();
    assert!(j2.reservation().unwrap().start > j2.guarantee().unwrap());
    k.validate().unwrap();
    // A late completion leaves the next reservation in the past, too.
    let mut k = conservative_behind_one_job();
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
    submit(&mut k, job(1).procs(4).estimate(10));
    k.schedule(0, &mut ()).unwrap();
    submit(&mut k, job(2).procs(4).estimate(u32::MAX - 100)); // reserved at 10
    k.complete(10, 1).unwrap();
    // The host is late: at 200 the reservation from 10 is re-planned from
    // now, and 200 + (u32::MAX - 100) does not fit in a `Time`.
    assert_eq!(k.schedule(200, &mut ()), Err(KernelError::TimeOverflow));
    k.validate().unwrap();
    assert_eq!(reserved_start(&k, 0), Some(10));
}

/// Regression (found by the `kernel_api` fuzz target): under EASY, a job
/// submitted late with an earlier submit time sorts ahead of the reserved
/// head and may start at once, delaying the head past its first shadow
/// time. The head's promise is then void (and renewed when it is the head
/// again), so `validate()` holds and no record claims a broken guarantee.
#[test]
fn a_backdated_arrival_takes_the_easy_head() {
    let mut k: Kernel<8, 8, 64> = Kernel::new(Cluster::single(1).unwrap(), Policy::Easy);
    submit(&mut k, job(1).submit(10).estimate(100));
    let backdated = job(2).estimate(500).job(); // submitted at 0: ahead of job 1
    k.submit(20, backdated, &mut ()).unwrap();
    k.schedule(20, &mut ()).unwrap(); // job 2 runs [20, 520); job 1 shadow 520
    assert_eq!(k.queued()[0].guarantee(), Some(520));
    k.complete(30, 2).unwrap();
    let backdated = job(3).estimate(500).job(); // ahead of job 1 again
    k.submit(40, backdated, &mut ()).unwrap();
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
    submit(&mut k, job(1).estimate(100));
    k.schedule(0, &mut ()).unwrap(); // [0, 100)
    submit(&mut k, job(2).estimate(1000)); // [100, 1100)
    submit(&mut k, job(3).estimate(10)); // [1100, 1110)
                                         // Early end: compression moves job 2 to [50, 1050) and job 3 to
                                         // [1050, 1060); job 4 gets [1060, 1070).
    k.complete(50, 1).unwrap();
    submit(&mut k, job(4).submit(50).estimate(10));
    assert_eq!(reserved_start(&k, 0), Some(50));
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
    for j in [
        job(1).procs(8).estimate(100),
        job(2).submit(1).procs(8).estimate(50),
    ] {
        submit(&mut k, j);
        k.schedule(j.job().submit, &mut ()).unwrap();
    }
    let reservation = |k: &Kernel<4, 4, 32>, id: JobId| {
        k.queued()
            .iter()
            .find(|q| q.job.id == id)
            .map(|q| q.reservation().map(|s| s.start))
    };
    assert_eq!(reservation(&k, 2), Some(Some(100)));
    submit(&mut k, job(3).submit(2).procs(8).estimate(10));
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
        submit(&mut k, job(1).procs(8).estimate(100));
        submit(&mut k, job(2).procs(4).estimate(50));
        k.schedule(0, &mut ()).unwrap();
        k.validate().unwrap();
        assert_eq!(k.queued().len(), 1);
        k
    };
    let internal = |k: &Kernel<4, 4, 32>| match k.validate() {
        Err(KernelError::Internal(what)) => what,
        other => panic!("{other:?}"),
    };
    // A reservation later than its guarantee.
    let mut k = build();
    if let Some(q) = k.st.queue.first_mut() {
        q.set_guarantee(q.reservation().map(|s| s.start - 1));
    }
    assert_eq!(internal(&k), "reservation later than guarantee");
    // A queued job that lost its reservation under Conservative.
    let mut k = build();
    if let Some(q) = k.st.queue.first_mut() {
        q.set_reservation(None);
    }
    assert_eq!(internal(&k), "conservative job without reservation");
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
        internal(&k),
        "earliest reservation start disagrees with the queue"
    );
    // A running job forgotten while the plan still holds its processors.
    let mut k = build();
    k.st.running.clear();
    assert_eq!(internal(&k), "machine profile disagrees with jobs");
    // The earliest running end kept for `next_wakeup`, under the plan and
    // under the tally, made stale.
    for policy in [Policy::Conservative, Policy::Easy] {
        let mut k = kernel(policy);
        submit(&mut k, job(1).procs(8).estimate(100));
        k.schedule(0, &mut ()).unwrap();
        k.validate().unwrap();
        k.st.first_end = Some(50);
        assert_eq!(
            internal(&k),
            "earliest running end disagrees with running jobs",
            "{policy}"
        );
    }
    // EASY: two queued jobs behind a running one; only the head is reserved.
    let mut k = kernel(Policy::Easy);
    for (id, procs) in [(1, 8), (2, 4), (3, 4)] {
        submit(&mut k, job(id).procs(procs).estimate(100));
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
    assert_eq!(internal(&k), "more than one job holds the reservation");
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
    let replay_searching = |exhaustive: bool| {
        let mut kernel: Kernel<Q, R, B, M, L> = Kernel::new(cluster.clone(), policy);
        if exhaustive {
            kernel.engine.search_exhaustively();
        }
        replay(kernel, jobs).0
    };
    let (pruned, full) = (replay_searching(false), replay_searching(true));
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
            let mut j = job(id)
                .submit(submit)
                .procs(1 + rng.below(u64::from(widest)) as u32)
                .estimate(estimate);
            if !pools.is_empty() && rng.below(3) == 0 {
                j = j.licenses(LicenseSet(1));
            }
            if rng.below(3) != 0 {
                j = j.runs(rng.below(u64::from(estimate) + 1) as u32);
            }
            j.sim()
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
                let j = job(id).submit(submit).procs(procs).estimate(estimate);
                match rng.below(4) {
                    0 => j.sim(),
                    _ => j.runs(rng.below(u64::from(estimate) + 1) as u32).sim(),
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
    submit(&mut k, job(1).procs(4).estimate(100));
    submit(&mut k, job(2).procs(8).estimate(100));
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
    let cluster: Cluster<2, 0> = Cluster::new(&[Machine::new(4), Machine::new(4)], &[]).unwrap();
    let mut k: Kernel<8, 8, 32, 2, 0> = Kernel::new(cluster, Policy::Conservative);
    for (id, estimate) in [(1, 100), (2, 100), (3, 50)] {
        submit(&mut k, job(id).procs(4).estimate(estimate));
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
        submit(&mut k, job(1).procs(4).estimate(100));
        submit(&mut k, job(2).procs(4).estimate(50));
        assert_eq!(reserved_start(&k, 1), Some(100));
        assert_eq!(k.next_wakeup(), Some(100), "{policy}");
        k.schedule(0, &mut ()).unwrap();
        assert_eq!(k.next_wakeup(), Some(100), "{policy}");
    }
}

/// CONS+RS, Alea flavour, on 10 processors. R1 (all 10, estimate 100)
/// ends early at 10; A (10 procs, 50 s) was reserved at [100, 150), B (5
/// procs, 10 s) at [150, 160). The search at 10 first schedules the list
/// (A, B): A at 10, B at 60. Moving B before A gives B [10, 20) and A 20:
/// mean response 63.5 -> 43.5, wait 33.5 -> 13.5, slowdown 3.67 -> 1.49,
/// all better, so the move is kept as soon as a draw proposes it (each of
/// the 8 draws does with probability 1/2).
#[test]
fn alea_search_reorders_the_list_after_an_early_end() {
    let jobs = [
        job(1).procs(10).estimate(100).runs(10),
        job(2).submit(1).procs(10).estimate(50),
        job(3).submit(2).procs(5).estimate(10),
    ];
    let (c, counters) = run_with_counters(Policy::ConsRsAlea(RandomSearch::DEFAULT), 10, &jobs);
    assert_eq!(c.starts(), [(1, 0), (2, 20), (3, 10)]);
    assert_eq!(counters.rs_accepted, 1, "{counters:?}");
    assert!(counters.rs_searches >= 1, "{counters:?}");
    // Without iterations the search only schedules the list: A at 10, B at 60.
    let none = Policy::ConsRsAlea(RandomSearch {
        seed: 0,
        iterations: Iterations::Fixed(0),
    });
    assert_eq!(run(none, 10, &jobs).starts(), [(1, 0), (2, 10), (3, 60)]);
}

/// The periodic search, with no early completion at all: R1 holds all 10
/// processors until 1000; A (10 procs, 500 s) is reserved at 1000, B (1
/// proc, 10 s) at 1500. The search at 300 (the first period after the first
/// arrival at 0, a wake-up of its own) moves B before A: B at 1000, A at
/// 1010, later than A's reservation at arrival (there is no guarantee), as
/// the mean response (1503.5 -> 1258.5), wait and slowdown all fall.
#[test]
fn alea_search_runs_periodically_and_may_delay_a_job() {
    let jobs = [
        job(1).procs(10).estimate(1000),
        job(2).submit(1).procs(10).estimate(500),
        job(3).submit(2).procs(1).estimate(10),
    ];
    let (c, counters) = run_with_counters(Policy::ConsRsAlea(RandomSearch::DEFAULT), 10, &jobs);
    assert_eq!(c.starts(), [(1, 0), (2, 1010), (3, 1000)]);
    assert!(
        c.reservations.contains(&(300, 3, 1000)),
        "{:?}",
        c.reservations
    );
    assert_eq!(c.record(2).guarantee, None);
    assert_eq!(counters.rs_accepted, 1, "{counters:?}");
}

/// The periodic search is a wake-up strictly after now, like every other:
/// at the instant it is due, once the clock is there and before the pass
/// that runs it, `next_wakeup` names what comes after. R1 (all 10
/// processors) ends on time at 300, the first period after the arrivals at
/// 0; A and B (10 procs, 100 s each) are reserved at 300 and 400. After R1's
/// completion at 300 the next wake-up is B's reservation (A's reservation
/// and the search are due now); the pass at 300 runs the search, starts A
/// and moves the next search to 600.
#[test]
fn alea_search_due_now_is_no_wakeup() {
    let policy = Policy::ConsRsAlea(RandomSearch::DEFAULT);
    let mut k: Kernel<8, 8, 32> = Kernel::new(Cluster::single(10).unwrap(), policy);
    submit(&mut k, job(1).procs(10).estimate(300));
    submit(&mut k, job(2).procs(10).estimate(100));
    submit(&mut k, job(3).procs(10).estimate(100));
    k.schedule(0, &mut ()).unwrap();
    assert_eq!(
        (reserved_start(&k, 0), reserved_start(&k, 1)),
        (Some(300), Some(400))
    );
    assert_eq!(k.next_wakeup(), Some(300));
    k.complete(300, 1).unwrap();
    assert_eq!(k.next_wakeup(), Some(400), "B next");
    k.schedule(300, &mut ()).unwrap();
    assert_eq!(k.counters().rs_searches, 1);
    assert_eq!(k.running()[0].job.id, 2);
    assert_eq!(k.next_wakeup(), Some(400));
    k.complete(400, 2).unwrap();
    k.schedule(400, &mut ()).unwrap();
    assert_eq!(k.next_wakeup(), Some(500), "B's end; no job waits");
    k.validate().unwrap();
}

/// The Alea flavour refuses a cluster of several machines.
#[test]
fn alea_search_needs_one_machine() {
    let policy = Policy::ConsRsAlea(RandomSearch::DEFAULT);
    let two = Cluster::<2, 0>::new(&[Machine::new(4), Machine::new(4)], &[]).unwrap();
    assert!(!policy.runs_on(&two));
    assert!(policy.runs_on(&Cluster::<1, 0>::single(4).unwrap()));
    let jobs = [
        job(1).procs(4).estimate(100).runs(10),
        job(2).submit(1).procs(4).estimate(100),
        job(3).submit(1).procs(4).estimate(100),
        job(4).submit(1).procs(4).estimate(100),
    ];
    let mut sim = Simulator::new(Kernel::<8, 8, 64, 2, 0>::new(two, policy));
    let err = sim.run(sims(&jobs), &mut Collect::default()).unwrap_err();
    assert!(format!("{err}").contains("unsupported"), "{err}");
}
