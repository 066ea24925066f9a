//! `cargo xtask dpsa-nodes`: how many search nodes DPSA's passes need.
//! Replays a trace under one DPSA variant with a node budget and prints the
//! distribution of nodes per search (one line per percentile), the budget
//! hits, and how many searches a smaller budget would have cut short. This
//! is how the default budget (`backfill_core::policy::DEFAULT_DPSA_NODES`)
//! was chosen:
//!
//! ```text
//! cargo xtask dpsa-nodes TRACES/LLNL-Thunder-2007-1.1-cln.swf.gz --policy dpsa-p --nodes 100000000
//! ```
//!
//! The replay loop is the core `Simulator`'s (completions, arrivals, one
//! pass, at every instant), written out here so the counters can be read
//! after every pass. The budget changes the schedule, so the distribution is
//! that of a replay under `--nodes`. `cargo xtask` is a debug build: for a
//! whole large trace, `cargo run --release -p xtask -- dpsa-nodes ...` is
//! about ten times faster.

use backfill_cli::replay::{self, Estimates, Shaping, TraceKernel, Window};
use backfill_cli::swf;
use backfill_core::{Cluster, Job, JobId, Policy, Slot, Time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;
use std::time::Instant;

/// Options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// SWF trace.
    trace: PathBuf,
    /// dpsa-p, dpsa-n or dpsa-w.
    #[arg(long)]
    policy: String,
    /// Node budget per pass.
    #[arg(long)]
    nodes: u32,
    /// Estimates.
    #[arg(long, value_enum, default_value_t = Estimates::User)]
    estimates: Estimates,
}

/// Replays and prints (see the module docs).
///
/// # Errors
/// A bad option, the trace, or the replay.
pub fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let policy = Policy::from_name(&args.policy)
        .filter(|p| matches!(p, Policy::Dpsa { .. }))
        .ok_or("--policy must be dpsa-p, dpsa-n or dpsa-w")?
        .with_dpsa_nodes(args.nodes);
    let loaded = swf::load(&args.trace)?;
    let window = Window::WHOLE;
    let shaping = Shaping {
        estimates: args.estimates,
        load: 1.0,
    };
    let prepared = replay::prepare(&loaded, &window, shaping)?;
    let cluster = Cluster::single(prepared.machine_procs)?;
    let jobs = prepared.jobs.clone();
    // The kernel is ~10 MB: built on a thread with a large stack.
    let (per_search, hits, seconds) = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || -> Result<(Vec<u64>, u64, f64), String> {
            let mut k = TraceKernel::new(cluster, policy);
            let mut pending: BinaryHeap<Reverse<(Time, u64, JobId)>> = BinaryHeap::new();
            let mut per_search = Vec::new();
            let mut next = 0;
            let mut order = 0_u64;
            let started = Instant::now();
            loop {
                let arrival = jobs.get(next).map(|j| j.job.submit);
                let end = pending.peek().map(|Reverse((t, _, _))| *t);
                let Some(now) = [arrival, end, k.next_wakeup()].into_iter().flatten().min() else {
                    break;
                };
                while let Some(&Reverse((t, _, id))) = pending.peek() {
                    if t > now {
                        break;
                    }
                    pending.pop();
                    k.complete(now, id).map_err(|e| e.to_string())?;
                }
                while let Some(j) = jobs.get(next).filter(|j| j.job.submit <= now) {
                    let mut job = j.job;
                    job.tag = j.runtime;
                    // Jobs no machine can run are refused and counted by host-cli.
                    let _ = k.submit(now, job, &mut ());
                    next += 1;
                }
                let before = *k.counters();
                let mut starts = Vec::new();
                k.schedule(now, &mut |job: &Job, slot: Slot| {
                    starts.push((slot.start + job.tag.min(slot.duration), job.id));
                })
                .map_err(|e| e.to_string())?;
                for (end, id) in starts {
                    order += 1;
                    pending.push(Reverse((end, order, id)));
                }
                let after = k.counters();
                if after.dpsa_searches > before.dpsa_searches {
                    per_search.push(after.dpsa_nodes - before.dpsa_nodes);
                }
            }
            let hits = k.counters().dpsa_budget_hits;
            Ok((per_search, hits, started.elapsed().as_secs_f64()))
        })?
        .join()
        .map_err(|_| "replay thread panicked")??;
    let mut sorted = per_search.clone();
    sorted.sort_unstable();
    let n = sorted.len();
    println!(
        "{} {} --nodes {}: {} searches, {} budget hits, {:.2} s replay",
        prepared.name, args.policy, args.nodes, n, hits, seconds
    );
    println!("percentile,nodes");
    for q in [50.0, 90.0, 95.0, 99.0, 99.5, 99.9, 100.0] {
        let rank = ((q / 100.0) * n as f64).ceil() as usize;
        let v = sorted.get(rank.saturating_sub(1)).copied().unwrap_or(0);
        println!("{q},{v}");
    }
    println!("budget,searches_that_need_more");
    let mut budget = 1_000_u64;
    while budget < u64::from(args.nodes) {
        let over = sorted.iter().filter(|&&v| v > budget).count();
        println!("{budget},{over}");
        budget *= 10;
    }
    println!("{},{hits}", args.nodes);
    Ok(())
}
