//! The kernel and the replay loop never touch the heap.
//!
//! A counting global allocator ([`backfill_alloc_counter::Counting`], kept in
//! its own test-only crate because implementing `GlobalAlloc` needs `unsafe`,
//! which the workspace forbids even in tests) counts every allocation call
//! **per thread**. Each test:
//!
//! 1. builds a deterministic workload of a few thousand jobs in a `Vec`,
//!    and the kernel and simulator, on a thread with a large stack, all
//!    before counting starts;
//! 2. counts the allocation calls of that thread during a whole
//!    [`Simulator::run`] into a [`Metrics`] sink, or during a loop of direct
//!    kernel calls (`submit`, `complete`, `schedule`, `next_wakeup`,
//!    `validate`), for every policy in [`Policy::ALL`] and
//!    [`Policy::OPTION_VARIANTS`];
//! 3. asserts the count is zero.
//!
//! `counter_sees_allocations` checks the instrument itself: an allocation
//! inside a counted region is seen, so a zero above is not vacuous.

use backfill_alloc_counter::{allocations, Counting};
use backfill_core::policy::{Iterations, RandomSearch};
use backfill_core::rng::SplitMix64;
use backfill_core::{
    CategoryBounds, Cluster, Job, Kernel, KernelError, Metrics, Policy, RunningJob, SimJob,
    Simulator, Slot, Time,
};
use std::hint::black_box;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Processors of the one machine.
const PROCS: u32 = 64;
/// Jobs in the workload.
const JOBS: usize = 3000;
/// Queue capacity: more than the jobs, so the queue can never be full.
const Q: usize = 4096;
/// Running capacity: more than `PROCS` (every job holds at least one).
const R: usize = 128;
/// Profile steps, as the kernel docs require for Conservative.
const B: usize = 2 * Q + R + 1;

type TestKernel = Kernel<Q, R, B>;

/// Every policy of [`Policy::ALL`] and [`Policy::OPTION_VARIANTS`]; the
/// Alea flavour of CONS+RS with two iterations per search (its searches
/// schedule the whole list per iteration, slow in a debug build on this
/// workload's long queues; two reach every code path).
fn policies() -> impl Iterator<Item = Policy> {
    Policy::ALL
        .into_iter()
        .chain(Policy::OPTION_VARIANTS)
        .map(|policy| match policy {
            Policy::ConsRsAlea(params) => Policy::ConsRsAlea(RandomSearch {
                iterations: Iterations::Fixed(2),
                ..params
            }),
            other => other,
        })
}

/// `JOBS` jobs sorted by submit time: mostly narrow, some machine-wide,
/// estimates from a minute to four hours, run times at, below and (killed)
/// above the estimate, some zero-length, several arrivals per instant.
fn workload(seed: u64) -> Vec<SimJob> {
    let mut rng = SplitMix64::new(seed);
    let mut below = |n: u32| u32::try_from(rng.below(u64::from(n))).unwrap();
    let mut submit: Time = 0;
    let mut jobs = Vec::with_capacity(JOBS);
    for id in 0..u32::try_from(JOBS).unwrap() {
        // A quarter of the jobs arrive with the previous one.
        if below(4) != 0 {
            submit += below(1800);
        }
        let procs = match below(10) {
            0 => PROCS,
            1 | 2 => 1 << below(6),
            _ => 1 + below(8),
        };
        let estimate = 60 + below(4 * 3600);
        let runtime = match below(10) {
            0 => 0,
            1 => estimate + 1 + below(600),
            2 => estimate,
            _ => below(estimate),
        };
        jobs.push(SimJob {
            job: Job::new(id, submit, procs, estimate),
            runtime,
        });
    }
    jobs
}

/// Runs `f` on a thread with a large stack (the kernels live on its stack)
/// and returns its result.
fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name("no-alloc".into())
        .stack_size(64 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// `f` of every policy ([`policies`]), in order, on a big stack; the
/// results are collected between the calls, outside what `f` counts.
fn every_policy<T: Send + 'static>(f: impl Fn(Policy) -> T + Send + 'static) -> Vec<(Policy, T)> {
    let results: Vec<(Policy, T)> =
        on_big_stack(move || policies().map(|policy| (policy, f(policy))).collect());
    assert_eq!(
        results.len(),
        Policy::ALL.len() + Policy::OPTION_VARIANTS.len()
    );
    results
}

/// When a running job ends: its run time (kept in `tag`) or its estimate,
/// whichever comes first.
fn end_of(running: &RunningJob) -> Time {
    running.slot.start + running.job.tag.min(running.slot.duration)
}

/// What the counted direct-call loop saw.
#[derive(Debug, Default)]
struct Driven {
    submitted: u64,
    completed: u64,
    started: u64,
    passes: u64,
    validations: u64,
    max_queue: usize,
}

/// Drives `kernel` through `jobs` with direct calls, the way a firmware
/// controller would: at each instant, completions, then arrivals, then one
/// pass; the next instant from arrivals, ends and `next_wakeup`. Validates
/// every 32 passes. Allocation-free itself.
fn drive(kernel: &mut TestKernel, jobs: &[SimJob]) -> Result<Driven, KernelError> {
    let mut driven = Driven::default();
    let mut next = 0;
    loop {
        let next_submit = jobs.get(next).map(|j| j.job.submit);
        let next_end = kernel.running().iter().map(end_of).min();
        let wakeup = kernel.next_wakeup();
        let Some(now) = [next_submit, next_end, wakeup].into_iter().flatten().min() else {
            break;
        };
        while let Some(id) = kernel
            .running()
            .iter()
            .find(|r| end_of(r) <= now)
            .map(|r| r.job.id)
        {
            let done = kernel.complete(now, id)?;
            black_box(done);
            driven.completed += 1;
        }
        while let Some(arrival) = jobs.get(next).filter(|j| j.job.submit <= now) {
            let mut job = arrival.job;
            job.tag = arrival.runtime;
            kernel.submit(now, job, &mut ())?;
            driven.submitted += 1;
            next += 1;
        }
        driven.max_queue = driven.max_queue.max(kernel.queued().len());
        let mut started = 0_u64;
        let pass = kernel.schedule(now, &mut |_: &Job, _: Slot| started += 1)?;
        driven.started += u64::from(pass.started);
        assert_eq!(started, u64::from(pass.started));
        driven.passes += 1;
        if driven.passes % 32 == 0 {
            kernel.validate()?;
            driven.validations += 1;
        }
    }
    kernel.validate()?;
    Ok(driven)
}

#[test]
fn counter_sees_allocations() {
    let (before, after) = on_big_stack(|| {
        let before = allocations();
        let one = black_box(Vec::<u8>::with_capacity(1));
        let mut grown = black_box(Vec::<u64>::with_capacity(1));
        grown.extend_from_slice(&[1, 2, 3, 4]); // a realloc
        let after = allocations();
        drop((one, grown));
        (before, after)
    });
    assert!(
        after - before >= 2,
        "the counting allocator is not installed or misses calls: {before} -> {after}"
    );
}

#[test]
fn simulator_replay_does_not_allocate() {
    let jobs = workload(0x5EED_0001);
    let results = every_policy(move |policy| {
        // Everything is built before counting starts.
        let cluster = Cluster::single(PROCS).unwrap();
        let mut sim = Simulator::new(TestKernel::new(cluster, policy));
        let mut metrics = Metrics::new(CategoryBounds::DEFAULT);
        let clock = std::time::Instant::now();
        let before = allocations();
        let outcome = sim.run(jobs.iter().copied(), &mut metrics);
        let counted = allocations() - before;
        eprintln!("{policy}: {:?} {outcome:?}", clock.elapsed());
        let validated = sim.kernel().validate();
        (counted, outcome, validated, metrics.overall.count)
    });
    for (policy, (counted, outcome, validated, finished)) in results {
        let outcome = outcome.unwrap_or_else(|e| panic!("{policy}: replay failed: {e}"));
        assert_eq!(
            counted, 0,
            "{policy}: {counted} allocations during the replay"
        );
        assert_eq!(outcome.submitted, JOBS as u64, "{policy}: {outcome:?}");
        assert_eq!(outcome.finished, JOBS as u64, "{policy}: {outcome:?}");
        assert_eq!(finished, JOBS as u64, "{policy}: metrics saw {finished}");
        assert!(outcome.killed > 0, "{policy}: the workload kills no job");
        assert!(outcome.max_queue > 10, "{policy}: the queue never built up");
        validated.unwrap_or_else(|e| panic!("{policy}: invalid kernel after the replay: {e}"));
    }
}

#[test]
fn direct_kernel_calls_do_not_allocate() {
    let jobs = workload(0x5EED_0002);
    let results = every_policy(move |policy| {
        let mut kernel = TestKernel::new(Cluster::single(PROCS).unwrap(), policy);
        let before = allocations();
        let driven = drive(&mut kernel, &jobs);
        let counted = allocations() - before;
        (counted, driven)
    });
    for (policy, (counted, driven)) in results {
        let driven = driven.unwrap_or_else(|e| panic!("{policy}: kernel call failed: {e}"));
        assert_eq!(
            counted, 0,
            "{policy}: {counted} allocations in kernel calls"
        );
        assert_eq!(driven.submitted, JOBS as u64, "{policy}: {driven:?}");
        assert_eq!(driven.completed, JOBS as u64, "{policy}: {driven:?}");
        assert_eq!(driven.started, JOBS as u64, "{policy}: {driven:?}");
        assert!(driven.validations > 10, "{policy}: {driven:?}");
        assert!(driven.max_queue > 10, "{policy}: the queue never built up");
    }
}

/// Checkpoints and restores, of kernels and of replays, allocate nothing:
/// for every policy, a replay of the first 600 jobs is paused at a tenth
/// and at half of its instants; the counted region writes the simulator's
/// checkpoint, restores it into another simulator (and its kernel's into
/// another kernel), and resumes the replay to its end.
#[test]
fn checkpoints_and_restores_do_not_allocate() {
    const SOME: usize = 600;
    let mut jobs = workload(0x5EED_0003);
    jobs.truncate(SOME);
    let results = on_big_stack(move || {
        let mut results = Vec::new();
        for policy in Policy::ALL {
            let cluster = Cluster::single(PROCS).unwrap();
            let mut total = Simulator::new(TestKernel::new(cluster.clone(), policy));
            let mut instants = 0u64;
            let _ = total.resume_with(
                jobs.iter().copied(),
                &mut Metrics::new(CategoryBounds::DEFAULT),
                |_, _| {},
                |_, _| {
                    instants += 1;
                    false
                },
            );
            for stop in [instants / 10, instants / 2] {
                let mut sim = Simulator::new(TestKernel::new(cluster.clone(), policy));
                let mut metrics = Metrics::new(CategoryBounds::DEFAULT);
                let mut seen = 0;
                let paused = sim.resume_with(
                    jobs.iter().copied(),
                    &mut metrics,
                    |_, _| {},
                    |_, _| {
                        seen += 1;
                        seen == stop
                    },
                );
                let mut other = Simulator::new(TestKernel::new(cluster.clone(), Policy::Easy));
                let mut kernel = TestKernel::new(cluster.clone(), Policy::Fcfs);
                let mut buf = vec![0u8; Simulator::<Q, R, B>::checkpoint_size()];
                let mut kernel_buf = vec![0u8; TestKernel::checkpoint_size()];
                let before = allocations();
                let written = sim.checkpoint(&mut buf);
                let restored = written.map(|len| other.restore(&buf[..len]));
                let kernel_len = sim.kernel().checkpoint(&mut kernel_buf);
                let kernel_restored = kernel_len.map(|len| kernel.restore(&kernel_buf[..len]));
                let resumed =
                    other.resume_with(jobs.iter().copied(), &mut metrics, |_, _| {}, |_, _| false);
                let counted = allocations() - before;
                results.push((
                    policy,
                    stop,
                    counted,
                    paused,
                    written,
                    restored,
                    kernel_restored,
                    resumed,
                ));
            }
        }
        results
    });
    assert_eq!(results.len(), 2 * Policy::ALL.len());
    for (policy, stop, counted, paused, written, restored, kernel_restored, resumed) in results {
        assert_eq!(paused, Ok(None), "{policy} at {stop}");
        assert_eq!(counted, 0, "{policy} at {stop}: {counted} allocations");
        assert!(
            written.is_ok() && restored == Ok(Ok(())),
            "{policy}: {written:?} {restored:?}"
        );
        assert_eq!(kernel_restored, Ok(Ok(())), "{policy}");
        let outcome = resumed.unwrap_or_else(|e| panic!("{policy}: {e}")).unwrap();
        assert_eq!(outcome.finished, SOME as u64, "{policy}");
    }
}
