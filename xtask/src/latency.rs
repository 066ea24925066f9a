//! `cargo xtask latency`: the worst-case kernel call table of
//! `docs/performance.md`. Every policy replays every whole trace (user
//! estimates) with `host-cli replay --latency --format json`, one replay at
//! a time; for `schedule`, `complete` and `submit` the table gives the upper
//! bounds of the 99th and 99.9th percentile (the power-of-two microsecond
//! bucket each falls in, capped at the slowest) and the slowest call.
//! `--budget TRACE` instead replays one trace under CONS+RS and the DPSA
//! policies with a range of search budgets (`--rs-iterations`,
//! `--dpsa-nodes`) and gives the slowest calls of each.

use crate::exec;
use crate::repo;
use backfill_core::Policy;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The options of `cargo xtask latency`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The host-cli binary (default: target/release/host-cli, built first).
    #[arg(long, value_name = "BIN")]
    bin: Option<PathBuf>,
    /// The traces folder.
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
    /// Instead of the table: the slowest calls as a function of the search
    /// budget, on this trace (a file stem in the traces folder, e.g.
    /// HPC2N-2002-2.2-cln).
    #[arg(long, value_name = "TRACE")]
    budget: Option<String>,
    /// With --budget: replay only the first N jobs of the trace.
    #[arg(long, value_name = "N", requires = "budget")]
    first: Option<u64>,
    /// Stop a replay after this many seconds (its row then says so).
    #[arg(long, value_name = "S", default_value_t = 600)]
    limit: u64,
}

/// The kinds of call, in the table's order.
const CALLS: [&str; 3] = ["schedule", "complete", "submit"];

/// The command-line arguments that select `policy` (Conservative without
/// compression is `conservative --no-compression`; the two Selective
/// policies with fixed thresholds take them from a Conservative pre-run).
fn policy_args(policy: Policy) -> Vec<&'static str> {
    match policy {
        Policy::ConservativeNoCompression => vec!["--policy", "conservative", "--no-compression"],
        p if matches!(p.name(), "selective" | "selective-d") => {
            vec!["--policy", p.name(), "--threshold-from", "conservative"]
        }
        p => vec!["--policy", p.name()],
    }
}

/// One replay's cells of a table row: for each of [`CALLS`], `p99 / p99.9
/// / slowest` in µs; one cell saying so when the replay was stopped by the
/// time limit.
fn replay(bin: &Path, trace: &Path, args: &[String], limit: u64) -> Result<String, String> {
    let out = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let mut command = Command::new(bin);
    command
        .arg("replay")
        .arg(trace)
        .args(args)
        .args(["--format", "json", "--latency"]);
    let what = format!("{} {}", repo::stem(trace), args.join(" "));
    let started = Instant::now();
    let ended = exec::to_file(command, out.path(), Some(Duration::from_secs(limit)))
        .map_err(|e| format!("{what}: {e}"))?;
    eprintln!("  {what}: {:.1} s", started.elapsed().as_secs_f64());
    if ended == exec::Ended::TimedOut {
        return Ok(format!("stopped after {limit} s | | "));
    }
    let report: serde_json::Value =
        serde_json::from_str(&repo::read_text(out.path())?).map_err(|e| format!("{what}: {e}"))?;
    let by_call = report
        .pointer("/timings/latency/by_call")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| format!("{what}: no timings.latency.by_call in the report"))?;
    CALLS
        .iter()
        .map(|call| {
            let row = by_call
                .iter()
                .find(|r| r["call"] == *call)
                .ok_or_else(|| format!("{what}: no {call} calls timed"))?;
            let f = |k: &str| row[k].as_f64().unwrap_or(f64::NAN);
            Ok(format!(
                "{} / {} / {}",
                us(f("p99_below_us")),
                us(f("p999_below_us")),
                us(f("slowest_us"))
            ))
        })
        .collect::<Result<Vec<_>, String>>()
        .map(|cells| cells.join(" | "))
}

/// Microseconds as the table shows them: whole numbers, thousands apart.
fn us(v: f64) -> String {
    if !v.is_finite() {
        return "?".into();
    }
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Prints the table (or, with `--budget`, the budget table) as Markdown.
pub fn run(args: &Args) -> Result<(), String> {
    let bin = repo::host_cli(args.bin.as_deref())?;
    let dir = repo::traces_dir(args.traces.as_deref())?;
    let header = "| schedule: p99 / p99.9 / slowest | complete | submit |\n";
    let mut text = String::new();
    if let Some(name) = &args.budget {
        let trace = repo::require_traces(&dir, &[name.as_str()])?
            .pop()
            .ok_or("no trace")?;
        let window: Vec<String> = args
            .first
            .map(|n| vec!["--first".to_owned(), n.to_string()])
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "| policy | budget {header}| --- | ---: | ---: | ---: | ---: |"
        );
        let mut runs: Vec<(String, String, Vec<String>)> = Vec::new();
        for n in ["10", "100", "1000", "10000", "100000"] {
            runs.push((
                "cons-rs".into(),
                format!("{n} iterations"),
                vec!["--rs-iterations".into(), n.into()],
            ));
        }
        runs.push(("cons-rs".into(), "4 x queue (default)".into(), Vec::new()));
        for policy in ["dpsa-p", "dpsa-n", "dpsa-w"] {
            for n in ["1000", "10000", "100000", "1000000"] {
                runs.push((
                    policy.into(),
                    format!("{n} nodes"),
                    vec!["--dpsa-nodes".into(), n.into()],
                ));
            }
        }
        for (policy, budget, extra) in runs {
            let mut a: Vec<String> = vec!["--policy".into(), policy.clone()];
            a.extend(extra);
            a.extend(window.iter().cloned());
            let cells = replay(&bin, &trace, &a, args.limit)?;
            let _ = writeln!(text, "| {policy} | {budget} | {cells} |");
        }
    } else {
        let _ = writeln!(
            text,
            "| trace | policy {header}| --- | --- | ---: | ---: | ---: |"
        );
        for trace in repo::traces_in(&dir)? {
            for policy in Policy::ALL {
                let a: Vec<String> = policy_args(policy).into_iter().map(str::to_owned).collect();
                let cells = replay(&bin, &trace, &a, args.limit)?;
                let short = repo::stem(&trace).replace("-cln", "");
                let _ = writeln!(text, "| {short} | {} | {cells} |", policy.name());
            }
        }
    }
    print!("{text}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_are_grouped_by_thousands() {
        assert_eq!(us(0.4), "0");
        assert_eq!(us(999.6), "1,000");
        assert_eq!(us(1_234_567.0), "1,234,567");
        assert_eq!(us(f64::NAN), "?");
    }

    #[test]
    fn every_policy_has_its_arguments() {
        for p in Policy::ALL {
            let a = policy_args(p);
            assert_eq!(a.first(), Some(&"--policy"), "{p:?}");
        }
        assert_eq!(
            policy_args(Policy::ConservativeNoCompression),
            ["--policy", "conservative", "--no-compression"]
        );
        assert_eq!(
            policy_args(Policy::SELECTIVE_EXAMPLE),
            ["--policy", "selective", "--threshold-from", "conservative"]
        );
    }
}
