//! DPSA against EASY and against an independent optimum.
//!
//! * With every job of a workload asking the same number of processors, the
//!   most processors a pass can start is reached by EASY's greedy set, and
//!   every variant's order is queue order: DPSA-p, -n and -w schedule
//!   exactly as EASY (whole replays, start by start).
//! * With a zero node budget DPSA-p is EASY on any cluster (start time and
//!   machine of every job).
//! * One pass at the kernel API (a state built by hand, one `schedule`):
//!   when the budget was not hit, the backfill step starts exactly `U*`
//!   processors, computed from first principles by subset sums (research
//!   note B12); whatever the budget, DPSA-p starts at least what EASY starts.
//! * The blocked head starts by its first reservation, which never moves
//!   later (the checker covers it too).

use crate::properties::{run_time, scenario_of};
use backfill_core::policy::{DpsaOrder, DEFAULT_DPSA_NODES};
use backfill_core::{Cluster, Job, JobId, Kernel, Policy, Slot, Time};
use backfill_tests::check::RunLog;
use backfill_tests::proptest_cases;
use backfill_tests::scenario::{JobSpec, MachineSpec, ScenarioSpec, Width};
use proptest::prelude::*;
use std::collections::HashMap;

const ORDERS: [DpsaOrder; 3] = [DpsaOrder::Priority, DpsaOrder::Narrow, DpsaOrder::Wide];

fn dpsa(order: DpsaOrder, nodes: u32) -> Policy {
    Policy::Dpsa { order, nodes }
}

/// Each finished job's slot (start, machine), by id.
fn slots(log: &RunLog) -> HashMap<JobId, (Time, u8)> {
    log.finished
        .iter()
        .map(|r| (r.job.id, (r.start(), r.slot.machine)))
        .collect()
}

/// One machine, no licenses, every job `width` wide (at most the machine).
fn equal_widths() -> impl Strategy<Value = ScenarioSpec> {
    let job = (
        prop_oneof![3 => Just(0_u16), 5 => 0_u16..60, 1 => 0_u16..1000],
        1_u16..=300,
        run_time(1),
    );
    (
        0_u8..16,
        0_u8..16,
        0_u16..=1500,
        prop::collection::vec(job, 1..=40),
    )
        .prop_map(|(cpus, width, speed, jobs)| ScenarioSpec {
            machines: vec![MachineSpec { cpus, speed }],
            pools: Vec::new(),
            jobs: jobs
                .into_iter()
                .map(|(gap, estimate, run)| JobSpec {
                    gap,
                    // Never wider than the machine (1 + cpus % 16 processors).
                    width: Width::Exact(width % (cpus % 16 + 1)),
                    estimate,
                    run,
                    licenses: 0,
                })
                .collect(),
            reverse_ids: false,
        })
}

/// Any scenario of the property tests: 1-3 machines, 0-2 license pools
/// ([`scenario_of`]).
fn any_cluster() -> impl Strategy<Value = ScenarioSpec> {
    let job = (
        prop_oneof![4 => Just(0_u16), 5 => 0_u16..60, 1 => 0_u16..3000],
        prop_oneof![
            14 => (0_u8..16).prop_map(Width::Exact),
            4 => (0_u8..3).prop_map(Width::Full),
            1 => Just(Width::Zero),
        ],
        1_u16..=500,
        run_time(1),
        prop_oneof![7 => Just(0_u8), 3 => 1_u8..=3],
    )
        .prop_map(|(gap, width, estimate, run, licenses)| JobSpec {
            gap,
            width,
            estimate,
            run,
            licenses,
        });
    scenario_of(job)
}

/// One hand-built state: on a machine of `cpus`, `running` jobs
/// `(procs, estimate)` start at 0; at 1 the head `(procs, estimate)`, wider
/// than what is free, and the `queue` jobs arrive; one pass follows.
#[derive(Clone, Debug)]
struct OnePass {
    cpus: u32,
    running: Vec<(u32, u32)>,
    head: (u32, u32),
    queue: Vec<(u32, u32)>,
}

/// What one pass started.
#[derive(Debug, PartialEq)]
struct Started {
    procs: u64,
    ids: Vec<JobId>,
    hit: bool,
    overflow: bool,
}

const NOW: Time = 1;

impl OnePass {
    /// Processors free at `NOW`.
    fn free(&self) -> u32 {
        self.cpus - self.running.iter().map(|r| r.0).sum::<u32>()
    }

    fn run(&self, policy: Policy) -> Started {
        let mut k: Kernel<64, 64, 256> = Kernel::new(Cluster::single(self.cpus).unwrap(), policy);
        for (i, &(procs, estimate)) in self.running.iter().enumerate() {
            k.submit(0, Job::new(i as JobId, 0, procs, estimate), &mut ())
                .unwrap();
        }
        k.schedule(0, &mut ()).unwrap();
        assert_eq!(k.running().len(), self.running.len(), "all fillers run");
        let base = 100;
        k.submit(NOW, Job::new(base, NOW, self.head.0, self.head.1), &mut ())
            .unwrap();
        for (i, &(procs, estimate)) in self.queue.iter().enumerate() {
            let job = Job::new(base + 1 + i as JobId, NOW, procs, estimate);
            k.submit(NOW, job, &mut ()).unwrap();
        }
        let before = *k.counters();
        let mut started = Started {
            procs: 0,
            ids: Vec::new(),
            hit: false,
            overflow: false,
        };
        k.schedule(NOW, &mut |job: &Job, slot: Slot| {
            assert_eq!(slot.start, NOW);
            started.procs += u64::from(job.procs);
            started.ids.push(job.id);
        })
        .unwrap();
        k.validate().unwrap();
        assert!(!started.ids.contains(&base), "the head does not fit");
        started.hit = k.counters().dpsa_budget_hits > before.dpsa_budget_hits;
        started.overflow = k.counters().dpsa_overflows > before.dpsa_overflows;
        started
    }

    /// The most processors any set of queued jobs can start at `NOW` with
    /// the head reserved at its shadow time, from first principles: the
    /// shadow time is the first running job's end at which the head's
    /// processors are free (running jobs only end); the set must fit in the
    /// processors free now, and its jobs running past the shadow time in
    /// what the head leaves then. Subset sums as bitsets (note B12).
    fn optimum(&self) -> u64 {
        let free_at = |t: Time| -> u32 {
            self.cpus
                - self
                    .running
                    .iter()
                    .filter(|r| r.1 > t)
                    .map(|r| r.0)
                    .sum::<u32>()
        };
        let mut ends: Vec<Time> = self.running.iter().map(|r| r.1).collect();
        ends.sort_unstable();
        let shadow = ends
            .into_iter()
            .find(|&t| free_at(t) >= self.head.0)
            .expect("the head fits once everything ends");
        let f = free_at(NOW) as usize;
        let e = (free_at(shadow) - self.head.0) as usize;
        let mut short = vec![false; f + 1];
        let mut long = vec![false; f.min(e) + 1];
        short[0] = true;
        long[0] = true;
        for &(procs, estimate) in &self.queue {
            let p = procs as usize;
            let is_long = NOW + estimate > shadow;
            let sums = if is_long { &mut long } else { &mut short };
            for s in (p..sums.len()).rev() {
                if sums[s - p] {
                    sums[s] = true;
                }
            }
        }
        let mut best = 0;
        for (l, &reachable) in long.iter().enumerate() {
            if reachable && l <= f {
                let s = (0..=f - l).rev().find(|&s| short[s]).unwrap_or(0);
                best = best.max(l + s);
            }
        }
        best as u64
    }
}

fn one_pass() -> impl Strategy<Value = OnePass> {
    (
        1_u32..=64,
        prop::collection::vec((1_u32..=64, 2_u32..=300), 0..6),
    )
        .prop_flat_map(|(cpus, fillers)| {
            // Keep the fillers that fit side by side.
            let mut running = Vec::new();
            let mut used = 0;
            for (p, e) in fillers {
                let p = 1 + (p - 1) % cpus;
                if used + p <= cpus {
                    used += p;
                    running.push((p, e));
                }
            }
            let free = cpus - used;
            let widest = (free + 1).min(cpus);
            (
                Just(cpus),
                Just(running),
                (widest..=cpus, 1_u32..=400),
                prop::collection::vec((1_u32..=cpus.max(1), 1_u32..=400), 0..=40),
            )
        })
        .prop_map(|(cpus, running, head, queue)| OnePass {
            cpus,
            running,
            head,
            queue,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(256)))]

    /// Equal widths: every variant schedules exactly as EASY.
    #[test]
    fn equal_widths_schedule_as_easy(spec in equal_widths()) {
        let s = spec.build();
        let easy = slots(&s.replay_log(Policy::Easy));
        for order in ORDERS {
            let policy = dpsa(order, DEFAULT_DPSA_NODES);
            let got = slots(&s.replay_log(policy));
            prop_assert_eq!(&got, &easy, "{}", policy);
        }
    }

    /// A zero budget keeps the greedy set: DPSA-p is EASY, on any cluster.
    #[test]
    fn zero_budget_dpsa_p_is_easy(spec in any_cluster()) {
        let s = spec.build();
        let easy = slots(&s.replay_log(Policy::Easy));
        let got = slots(&s.replay_log(dpsa(DpsaOrder::Priority, 0)));
        prop_assert_eq!(got, easy);
    }

    /// One pass: the optimum when the budget was not hit; never less than
    /// EASY for DPSA-p.
    #[test]
    fn one_pass_starts_the_optimum(state in one_pass(), nodes in prop_oneof![
        Just(0_u32), Just(1), Just(10), Just(100), Just(DEFAULT_DPSA_NODES)
    ]) {
        prop_assume!(state.head.0 > state.free());
        let optimum = state.optimum();
        let easy = state.run(Policy::Easy);
        prop_assert!(easy.procs <= optimum);
        for order in ORDERS {
            let got = state.run(dpsa(order, nodes));
            prop_assert!(!got.overflow, "at most 40 candidates");
            prop_assert!(got.procs <= optimum, "{:?}: {} > optimum {}", order, got.procs, optimum);
            if !got.hit {
                prop_assert_eq!(got.procs, optimum, "{:?} with {} nodes", order, nodes);
            }
            if order == DpsaOrder::Priority {
                prop_assert!(got.procs >= easy.procs, "{} < EASY's {}", got.procs, easy.procs);
            }
        }
        if nodes == 0 {
            let got = state.run(dpsa(DpsaOrder::Priority, 0));
            prop_assert_eq!((got.procs, got.ids), (easy.procs, easy.ids));
        }
    }

    /// The blocked head's reservation never moves later and it starts by
    /// its first one (its guarantee), on any cluster.
    #[test]
    fn dpsa_head_starts_by_its_first_shadow_time(spec in any_cluster()) {
        let s = spec.build();
        for order in ORDERS {
            let log = s.replay_log(dpsa(order, DEFAULT_DPSA_NODES));
            let mut by_job: HashMap<JobId, Vec<Time>> = HashMap::new();
            for &(_, id, slot) in &log.reservations {
                by_job.entry(id).or_default().push(slot.start);
            }
            for r in &log.finished {
                let Some(events) = by_job.get(&r.job.id) else {
                    prop_assert_eq!(r.guarantee, None);
                    continue;
                };
                for pair in events.windows(2) {
                    prop_assert!(pair[1] <= pair[0], "job {} moved later: {:?}", r.job.id, events);
                }
                prop_assert!(r.start() <= events[0]);
                prop_assert_eq!(r.guarantee, Some(events[0]));
            }
        }
    }
}

/// The one-pass property on a case worked out by hand (Fig. 1 of the
/// paper, with J1's shadow time at 7): optimum 4, EASY 3.
#[test]
fn one_pass_fig1() {
    let state = OnePass {
        cpus: 10,
        running: vec![(6, 7)],
        head: (8, 10),
        queue: vec![(3, 5), (2, 5), (2, 4)],
    };
    assert_eq!(state.optimum(), 4);
    assert_eq!(state.run(Policy::Easy).procs, 3);
    for order in ORDERS {
        let got = state.run(dpsa(order, DEFAULT_DPSA_NODES));
        assert_eq!((got.procs, got.ids.len()), (4, 2), "{order:?}");
    }
}
