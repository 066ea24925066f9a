//! Every policy on every trace: the overall mean wait, mean bounded slowdown
//! and utilisation of each trace under the eight single-machine policies,
//! with user and with exact estimates.
//!
//! `cargo xtask study policies` runs the study's plan, `plan.toml` in its
//! folder (every trace x user and exact estimates x the eight policies,
//! every kernel call timed; Selective and Selective-D take their
//! thresholds from the Conservative cell of the same trace and estimates),
//! with `host-cli plan run`, reads it back with `host-cli plan merge`, and
//! writes `data/policies_by_trace.csv` (one row per cell, with its wall
//! time and slowest kernel call); [`generate`] writes the README's table
//! from it.

use super::{finish, plan_f64, plan_str, run_plan, Generated, PlanArgs};
use crate::repo::{self, stem, Meta};
use crate::text::table_head;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// The study's name and folder.
pub const NAME: &str = "policies";
/// The policies, in the table's order.
pub const POLICIES: [&str; 8] = [
    "fcfs",
    "easy",
    "sjf-easy",
    "conservative",
    "selective",
    "selective-d",
    "selective-adaptive",
    "selective-scaled",
];
/// The data file.
const CSV: &str = "policies_by_trace.csv";

/// The options of `cargo xtask study policies` (and `reasons`).
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// How the machine was loaded while the replays ran, for the README's
    /// reading of the wall times (e.g. "while other builds kept both cores
    /// busy, so the timings are pessimistic").
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
}

/// One replay, as `data/policies_by_trace.csv` holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Row {
    trace: String,
    estimates: String,
    policy: String,
    jobs: u64,
    /// Seconds, one decimal.
    mean_wait: f64,
    /// Two decimals.
    mean_bounded_slowdown: f64,
    /// Percent, two decimals.
    utilisation_pct: f64,
    /// Microseconds, one decimal.
    slowest_call_us: f64,
    /// The whole `host-cli` run, seconds, two decimals.
    wall_seconds: f64,
}

/// `v` rounded to `digits` decimals, ties to even on the exact value (as
/// Python's `round`).
fn round(v: f64, digits: usize) -> f64 {
    format!("{v:.digits$}").parse().unwrap_or(v)
}

/// Runs the study into its folder (see the module docs).
pub fn run(args: &PlanArgs<Options>) -> Result<(), String> {
    let (study, cells, started) = run_plan(&args.common, &args.reports, NAME)?;
    let mut rows = Vec::new();
    for cell in &cells {
        let trace = plan_str(cell, "trace")?;
        rows.push(Row {
            trace: stem(Path::new(&trace)),
            estimates: plan_str(cell, "estimates")?,
            policy: plan_str(cell, "policy")?,
            jobs: cell
                .get("jobs")
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0),
            mean_wait: round(plan_f64(cell, "mean_wait")?, 1),
            mean_bounded_slowdown: round(plan_f64(cell, "mean_bounded_slowdown")?, 2),
            utilisation_pct: round(100.0 * plan_f64(cell, "utilisation")?, 2),
            slowest_call_us: round(plan_f64(cell, "slowest_call_us")?, 1),
            wall_seconds: round(plan_f64(cell, "cell_seconds")?, 2),
        });
    }
    let meta = Meta {
        seconds: started.elapsed().as_secs(),
        jobs: Some(args.common.jobs()),
        note: args.options.note.clone(),
    };
    finish(study, &[(CSV, repo::csv_text(&rows)?)], &meta, generate)
}

/// `text` wrapped at 76 columns, as the page's prose is.
fn wrap(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if line.is_empty() {
            line.push_str(word);
        } else if line.len() + 1 + word.len() <= 76 {
            line.push(' ');
            line.push_str(word);
        } else {
            lines.push(std::mem::take(&mut line));
            line.push_str(word);
        }
    }
    lines.push(line);
    lines.join("\n")
}

/// The study's README, from `data/policies_by_trace.csv` and
/// `data/study.toml`.
pub fn generate(dir: &Path) -> Result<Generated, String> {
    let rows: Vec<Row> = repo::read_csv(&dir.join("data").join(CSV))?;
    let meta = Meta::read(dir)?;
    let wall: f64 = rows.iter().map(|r| r.wall_seconds).sum();
    let mut out = String::new();
    out.push_str("# Every policy on every trace\n\n");
    out.push_str(&wrap(
        "Overall mean wait (s) / mean bounded slowdown (10 s bound) / utilisation (%) of every \
         trace in the traces folder (whole trace, machine size from the header, or the log's \
         peak use for METACENTRUM) under every policy, with the users' estimates and with exact \
         ones. Selective and Selective-D take their thresholds from a Conservative run of the \
         same trace and estimates (the Conservative cell's replay); the adaptive and scaled \
         variants need none. The cells are those of the study's plan, [plan.toml](plan.toml), \
         run with `host-cli plan run` and read back with `host-cli plan merge` by",
    ));
    out.push_str("\n\n```sh\ncargo xtask study policies\n```\n\n");
    out.push_str(&wrap(&format!(
        "({} cells, {wall:.0} s of cell wall time in all and {} s from start to end, {} cells \
         at a time, on this 2-core machine{}; the CSV adds each cell's wall time and its \
         slowest single kernel call, a wall-clock reading that includes any preemption by the \
         OS.)",
        rows.len(),
        meta.seconds,
        meta.replays_at_a_time(),
        meta.note_after(" ")
    )));
    out.push_str("\n\n");
    out.push_str(&wrap(
        "Five traces carry no requested time at all (METACENTRUM, NASA-iPSC, OSC-Clust, \
         SDSC-Par, lublin_256: field 9 is -1 on every line), so their \"user\" estimates are \
         the run times and the two rows agree, except for Selective and Selective-D on \
         METACENTRUM and SDSC-Par: with user estimates their thresholds average only the jobs \
         counted as well-estimated, which leaves out a few (3,712 of 103,656 on METACENTRUM, 7 \
         of 32,135 on SDSC-Par; `host-cli thresholds --estimates user` prints the count). \
         `host-cli info` and `host-cli replay` print how many jobs lack field 9. Utilisation \
         differs between policies only through the makespan (last end - first submit): on \
         lightly loaded traces every policy does the same work in the same span.",
    ));
    out.push_str("\n\n");
    out.push_str(&table_head(
        &[("trace", "---"), ("estimates", "---"), ("jobs", "---:")],
        POLICIES,
    ));
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in &rows {
        if !keys.contains(&(r.trace.as_str(), r.estimates.as_str())) {
            keys.push((&r.trace, &r.estimates));
        }
    }
    for (trace, estimates) in keys {
        let cell = |p: &str| {
            rows.iter()
                .find(|r| r.trace == trace && r.estimates == estimates && r.policy == p)
        };
        let jobs = cell(POLICIES[0]).map_or(0, |r| r.jobs);
        let mut line = format!("| {trace} | {estimates} | {jobs} |");
        for p in POLICIES {
            match cell(p) {
                Some(r) => {
                    let _ = write!(
                        line,
                        " {:.0} / {:.2} / {:.2} |",
                        r.mean_wait, r.mean_bounded_slowdown, r.utilisation_pct
                    );
                }
                None => line.push_str(" - |"),
            }
        }
        let _ = writeln!(out, "{line}");
    }
    Ok(vec![("README.md".to_owned(), out)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_as_python_rounds() {
        assert_eq!(round(15_849.149_999, 1), 15_849.1);
        assert_eq!(round(0.125, 2), 0.12);
        assert_eq!(round(2.675, 2), 2.67);
        assert_eq!(round(641.04, 1), 641.0);
    }

    #[test]
    fn prose_wraps_at_76_columns() {
        let text = "word ".repeat(40);
        assert!(wrap(text.trim()).lines().all(|l| l.len() <= 76));
    }
}
