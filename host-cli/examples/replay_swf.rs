//! Replays a Standard Workload Format trace through the library and prints
//! its metrics: what `host-cli replay TRACE` does, in a few lines to adapt.
//!
//! ```text
//! cargo run --release -p backfill-cli --example replay_swf -- TRACE.swf.gz [POLICY]
//! ```
//!
//! POLICY is one of the kernel's policy names (`easy` by default); the
//! Selective variants run with core's example thresholds here (`host-cli
//! replay` derives them from a Conservative run instead).

use backfill_cli::replay::{self, Shaping, Window};
use backfill_cli::swf;
use backfill_core::{Category, CategoryBounds, Policy};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path: PathBuf = args
        .next()
        .ok_or("usage: replay_swf TRACE.swf[.gz] [POLICY]")?
        .into();
    let name = args.next().unwrap_or_else(|| "easy".to_owned());
    let policy = Policy::from_name(&name).ok_or_else(|| {
        let names: Vec<&str> = Policy::ALL.iter().map(|p| p.name()).collect();
        format!("unknown policy {name}; one of {}", names.join(", "))
    })?;

    // Read the trace (plain or gzip); a bad line is an error naming the
    // file, the line and the field.
    let trace = swf::load(&path)?;
    // The whole trace on one machine of the header's size, with the users'
    // estimates, at the trace's own load. The SWF rules (jobs without a
    // run time or processors are skipped and counted) apply here.
    let window = Window::WHOLE;
    let shaping = Shaping::AS_RECORDED;
    let prepared = replay::prepare(&trace, &window, shaping)?;
    // Replay: the kernel in a simulator, on a thread with a large stack.
    let result = replay::run(&prepared, policy, CategoryBounds::DEFAULT, false, None)?;

    println!(
        "{}: {} jobs on {} processors under {policy} ({} refused by the kernel)",
        prepared.name,
        prepared.jobs.len(),
        prepared.machine_procs,
        result.rejected.len()
    );
    println!("set      jobs  mean wait s  mean bounded slowdown");
    let m = &result.metrics;
    let sets = std::iter::once(("all", &m.overall))
        .chain(Category::ALL.iter().map(|&c| (c.label(), m.category(c))));
    for (set, acc) in sets {
        println!(
            "{set:<5} {:>7} {:>12.1} {:>22.2}",
            acc.count,
            acc.mean_wait(),
            acc.mean_slowdown()
        );
    }
    println!(
        "utilisation {:.2}%",
        100.0 * m.overall.utilisation(u64::from(prepared.machine_procs))
    );
    Ok(())
}
