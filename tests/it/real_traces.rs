//! Real-trace replays: every trace in `$BACKFILL_TRACES_DIR` (a relative
//! folder is taken from where the command ran: [`backfill_tests::traces`])
//! under every policy (CONS+RS and Conservative without compression on a
//! prefix, see `SEARCH_PREFIX`), with the full schedule checked by the invariant checker
//! and every job accounted for (scheduled, refused by the kernel, or skipped
//! by reason), and each trace's first 3,000 jobs compared job by job with the
//! naive reference simulator ([`backfill_tests::naive`]).
//!
//! Without `BACKFILL_TRACES_DIR` the test says so and passes, so the README's
//! test command works on a machine without the traces; `.ci/run` sets it and
//! runs this test in release mode (debug replays of 300,000-job traces under
//! Conservative would take minutes).

use backfill_cli::replay::{Estimates, Shaping, QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY};
use backfill_cli::swf::SkipReason;
use backfill_core::policy::Threshold;
use backfill_core::{Cluster, Policy};
use backfill_tests::check::{check, compare_replays, run_replay};
use backfill_tests::naive;
use backfill_tests::traces::{prepare, trace_files, AS_RECORDED};
use std::time::Instant;

/// Jobs of each trace replayed under CONS+RS and under Conservative without
/// compression. Whole traces take minutes under these two (CEA-Curie, user
/// estimates, release build: CONS+RS 469 s; without compression the queue
/// passes 65,536 jobs, since reservations never move earlier, and a larger
/// kernel takes 236 s), past the CI budget; a prefix of every trace still
/// puts them through each site's job mix and the checker.
const SEARCH_PREFIX: usize = 20_000;

#[test]
fn real_traces_replay_under_every_policy() {
    let Some(paths) = trace_files("real-trace replays") else {
        return;
    };
    for path in &paths {
        let prepared = prepare(path, None, AS_RECORDED);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        // Every job line of the window is a job to run or counted by reason.
        let skipped = prepared.skipped.total() - prepared.skipped.get(SkipReason::PartialExecution);
        assert_eq!(
            prepared.jobs.len() as u64 + skipped,
            prepared.jobs_in_window,
            "{name}: jobs + skipped != job lines in window"
        );
        let cluster: Cluster<1, 0> = Cluster::single(prepared.machine_procs).expect("machine size");
        for policy in Policy::ALL {
            let started = Instant::now();
            // The search and ablation policies on a prefix (see
            // SEARCH_PREFIX), every other policy on the whole trace.
            let jobs = match policy {
                Policy::ConsRs(_) | Policy::ConservativeNoCompression => {
                    &prepared.jobs[..prepared.jobs.len().min(SEARCH_PREFIX)]
                }
                _ => &prepared.jobs[..],
            };
            let result = run_replay::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY, 1, 0>(
                &cluster, policy, jobs,
            );
            let took = started.elapsed();
            let outcome = result
                .outcome
                .unwrap_or_else(|e| panic!("{name} under {policy}: {e}"));
            result
                .validate
                .unwrap_or_else(|e| panic!("{name} under {policy}: validate: {e}"));
            check(&cluster, policy, jobs, &result.log)
                .unwrap_or_else(|v| panic!("{name} under {policy}: {v}"));
            assert_eq!(
                outcome.finished + outcome.rejected,
                jobs.len() as u64,
                "{name} under {policy}: a job was lost"
            );
            assert_eq!(
                outcome.rejected, 0,
                "{name}: too-wide jobs are skipped before the kernel"
            );
            assert_eq!((result.left_queued, result.left_running), (0, 0));
            eprintln!(
                "{name:<36} {:<18} {:>7} jobs {:>6} skipped  {:>8.3} s",
                policy.name(),
                outcome.finished,
                skipped,
                took.as_secs_f64()
            );
        }
    }
}

#[test]
fn real_trace_replays_are_deterministic() {
    let Some(paths) = trace_files("determinism check") else {
        return;
    };
    // The smallest trace keeps this quick; determinism does not depend on size.
    let path = paths
        .iter()
        .min_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(u64::MAX))
        .expect("a trace");
    for estimates in [Estimates::User, Estimates::Exact] {
        let shaping = Shaping {
            estimates,
            load: 1.3,
        };
        let prepared = prepare(path, None, shaping);
        let cluster: Cluster<1, 0> = Cluster::single(prepared.machine_procs).expect("machine size");
        for policy in Policy::ALL {
            let run = || {
                run_replay::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY, 1, 0>(
                    &cluster,
                    policy,
                    &prepared.jobs,
                )
            };
            let (a, b) = (run(), run());
            compare_replays(&a, &b).unwrap_or_else(|v| panic!("{policy}: {v}"));
        }
    }
}

/// Jobs of each trace compared with the naive reference.
const REFERENCE_JOBS: u64 = 3_000;

#[test]
fn real_traces_match_the_naive_reference() {
    let Some(paths) = trace_files("reference comparison") else {
        return;
    };
    // Every policy the reference models, and the adaptive thresholds over
    // well-estimated jobs only.
    let mut policies: Vec<Policy> = Policy::ALL
        .into_iter()
        .filter(|&p| naive::models(p))
        .collect();
    for scale in [1000, 1500] {
        policies.push(Policy::Selective(Threshold::Adaptive {
            scale,
            well_estimated_only: true,
            initial: 1000,
        }));
    }
    for path in &paths {
        let prepared = prepare(path, Some(REFERENCE_JOBS), AS_RECORDED);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let procs = prepared.machine_procs;
        let cluster: Cluster<1, 0> = Cluster::single(procs).expect("machine size");
        let (started, mut kernel_time, mut reference_time) = (Instant::now(), 0.0, 0.0);
        let mut compared = 0;
        for &policy in &policies {
            let t = Instant::now();
            let result =
                run_replay::<4096, 4096, { 3 * 4096 + 1 }, 1, 0>(&cluster, policy, &prepared.jobs);
            kernel_time += t.elapsed().as_secs_f64();
            result
                .outcome
                .unwrap_or_else(|e| panic!("{name} under {policy}: {e}"));
            let t = Instant::now();
            let reference = naive::simulate(procs, policy, &prepared.jobs);
            reference_time += t.elapsed().as_secs_f64();
            compared += naive::compare(&prepared.jobs, &result.log.finished, &reference)
                .unwrap_or_else(|d| panic!("{name} under {policy:?}: {d}"));
        }
        eprintln!(
            "{name:<36} {procs:>6} procs {:>5} jobs x {} policies: {compared:>6} jobs agree  {:>7.2} s (kernel {kernel_time:.2} s, reference {reference_time:.2} s)",
            prepared.jobs.len(),
            policies.len(),
            started.elapsed().as_secs_f64(),
        );
    }
}
