//! Where the waiting time goes: the total wait of two traces under the
//! policies of the `policies` study, split by the reason jobs waited for.
//!
//! `cargo xtask study reasons` runs the study's plan, `plan.toml` in its
//! folder (each trace under each policy, whole trace, users' estimates;
//! the metrics `total_wait` and `wait_by_reason.REASON`, overall and per
//! category, split the wait as `host-cli replay --wait-by-reason` does),
//! with `host-cli plan run`, reads it back with `host-cli plan merge`, and
//! writes `data/wait_by_reason.csv` (one row per trace, policy, set and
//! reason); [`generate`] writes the README from it: the reasons each
//! policy gives, and the split of each trace's wait, overall and per
//! category.

use super::policies::Options;
use super::{finish, plan_str, plan_u64, run_plan, Generated, PlanArgs, PlanRow};
use crate::repo::{self, stem, Meta};
use crate::text::table_head;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// The study's name and folder.
pub const NAME: &str = "reasons";
/// The traces, by file stem (those of the plan).
const TRACES: [&str; 2] = ["KTH-SP2-1996-2.1-cln", "SDSC-SP2-1998-4.2-cln"];
/// The sets of jobs the wait is split for: every job, then each category.
const SETS: [&str; 5] = ["all", "SN", "SW", "LN", "LW"];
// The policies of the `policies` study, in its order.
use super::policies::POLICIES;
// The reasons a pass on one machine without license pools can give, in
// the tables' order (`docs/output-formats.md`, "Why jobs wait"): those of
// the plan's `wait_by_reason.REASON` metrics.
use backfill_cli::plan::WAIT_REASONS as REASONS;
/// The data file.
const CSV: &str = "wait_by_reason.csv";

/// One part of a set's wait, as `data/wait_by_reason.csv` holds it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Row {
    trace: String,
    policy: String,
    /// `all` or a category label.
    set: String,
    /// Jobs in the set.
    jobs: u64,
    /// The set's total wait (s).
    total_seconds: u64,
    reason: String,
    /// The wait under `reason` (s).
    seconds: u64,
}

/// Runs the study into its folder (see the module docs).
pub fn run(args: &PlanArgs<Options>) -> Result<(), String> {
    let (study, cells, started) = run_plan(&args.common, &args.reports, NAME)?;
    let mut rows = Vec::new();
    for cell in &cells {
        rows.extend(rows_of(cell)?);
    }
    let meta = Meta {
        seconds: started.elapsed().as_secs(),
        jobs: Some(args.common.jobs()),
        note: args.options.note.clone(),
    };
    finish(study, &[(CSV, repo::csv_text(&rows)?)], &meta, generate)
}

/// The rows of one merged cell: per set, one row per reason that holds
/// any wait, by decreasing seconds, then name (the order of `host-cli
/// replay --wait-by-reason`); a set that never waited keeps one row with
/// no reason, so its jobs are known.
fn rows_of(cell: &PlanRow) -> Result<Vec<Row>, String> {
    let trace = stem(Path::new(&plan_str(cell, "trace")?));
    let policy = plan_str(cell, "policy")?;
    let mut rows = Vec::new();
    for set in SETS {
        let column = |base: &str| {
            if set == "all" {
                base.to_owned()
            } else {
                format!("{base}.{set}")
            }
        };
        let jobs = plan_u64(cell, &column("jobs"))?;
        let total = plan_u64(cell, &column("total_wait"))?;
        let mut parts = Vec::new();
        for reason in REASONS {
            let seconds = plan_u64(cell, &column(&format!("wait_by_reason.{reason}")))?;
            if seconds > 0 {
                parts.push((reason, seconds));
            }
        }
        parts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        if parts.is_empty() {
            parts.push(("", 0));
        }
        rows.extend(parts.into_iter().map(|(reason, seconds)| Row {
            trace: trace.clone(),
            policy: policy.clone(),
            set: set.to_owned(),
            jobs,
            total_seconds: total,
            reason: reason.to_owned(),
            seconds,
        }));
    }
    Ok(rows)
}

/// Which policy can give which reason (`docs/design.md`, "Pending
/// reasons"), for the first table: (policy, reasons).
const GIVES: [(&str, &str); 8] = [
    ("fcfs", "processors (the head), behind (every other job)"),
    (
        "easy",
        "processors (the head, with its shadow time; a job that does not fit now), \
         would-delay",
    ),
    ("sjf-easy", "as easy, in shortest-estimate order"),
    ("conservative", "reserved (every job, with its reservation)"),
    (
        "selective",
        "reserved (guaranteed queue), not-promoted (entry queue, with the promotion instant)",
    ),
    ("selective-d", "as selective, one threshold per category"),
    ("selective-adaptive", "as selective, the threshold moving"),
    ("selective-scaled", "as selective, the threshold moving"),
];

/// `part` of `whole` in percent, one decimal; `-` for nothing.
fn share(part: u64, whole: u64) -> String {
    if part == 0 || whole == 0 {
        "-".to_owned()
    } else {
        format!("{:.1}", part as f64 * 100.0 / whole as f64)
    }
}

/// The study's README, from `data/wait_by_reason.csv` and
/// `data/study.toml`.
pub fn generate(dir: &Path) -> Result<Generated, String> {
    let rows: Vec<Row> = repo::read_csv(&dir.join("data").join(CSV))?;
    let meta = Meta::read(dir)?;
    let mut out = String::new();
    out.push_str("# Where the waiting time goes\n\n");
    out.push_str(
        "Every second a job waits, some rule of the policy holds it back. `host-cli replay\n\
         --wait-by-reason` counts each second of each finished job's wait under the reason\n\
         the scheduling passes gave for it then (docs/design.md, \"Pending reasons\"; the\n\
         reasons are listed in docs/output-formats.md, \"Why jobs wait\"), so the parts add up\n\
         exactly to the total wait. This page splits the wait of two traces under the\n\
         policies of [the policies study](../policies/README.md), whole traces with the\n\
         users' estimates, made by\n\n```sh\ncargo xtask study reasons\n```\n\n",
    );
    let _ = writeln!(
        out,
        "({} cells of the study's plan, [plan.toml](plan.toml), run with `host-cli plan run`\n\
         and read back with `host-cli plan merge`: its metrics `total_wait` and\n\
         `wait_by_reason.REASON`, overall and per category, are the split of `host-cli replay\n\
         --wait-by-reason`; {} s from start to end, {} cells at a time{}; `cargo xtask docs`\n\
         writes this page from [data/{CSV}](data/{CSV}).)\n",
        TRACES.len() * POLICIES.len(),
        meta.seconds,
        meta.replays_at_a_time(),
        meta.note_after(", ")
    );
    out.push_str("## The reasons each policy gives\n\n| policy | reasons |\n| --- | --- |\n");
    for (policy, gives) in GIVES {
        let _ = writeln!(out, "| {policy} | {gives} |");
    }
    out.push('\n');
    out.push_str(
        "DPSA adds search-budget (its subset search ran out of nodes), the farm policies\n\
         license and machine, and a job that fits but waits for the next pass is pending;\n\
         none of these occurs here.\n\n",
    );
    for trace in TRACES {
        let of_trace: Vec<&Row> = rows.iter().filter(|r| r.trace == trace).collect();
        let present: Vec<&str> = REASONS
            .into_iter()
            .filter(|reason| {
                of_trace
                    .iter()
                    .any(|r| r.reason == *reason && r.seconds > 0)
            })
            .collect();
        let _ = writeln!(out, "## {trace}\n");
        out.push_str(
            "Total wait of all jobs in job-days (and the mean wait per job in seconds), and\n\
             the share of it (%) each reason holds:\n\n",
        );
        table(&mut out, &of_trace, &present, "all");
        out.push_str("\nPer category (SN, SW, LN, LW: short or long, narrow or wide):\n\n");
        for set in ["SN", "SW", "LN", "LW"] {
            let _ = writeln!(out, "**{set}**\n");
            table(&mut out, &of_trace, &present, set);
            out.push('\n');
        }
    }
    out.push_str(WHAT_IT_SHOWS);
    Ok(vec![("README.md".to_owned(), out)])
}

/// Appends the table of set `set`: one row per policy.
fn table(out: &mut String, rows: &[&Row], reasons: &[&str], set: &str) {
    out.push_str(&table_head(
        &[
            ("policy", "---"),
            ("jobs", "---:"),
            ("wait (job-days)", "---:"),
            ("mean wait s", "---:"),
        ],
        reasons,
    ));
    for policy in POLICIES {
        let of: Vec<&&Row> = rows
            .iter()
            .filter(|r| r.policy == policy && r.set == set)
            .collect();
        let Some(first) = of.first() else {
            continue;
        };
        let total = first.total_seconds;
        let mean = if first.jobs == 0 {
            "-".to_owned()
        } else {
            format!("{:.0}", total as f64 / first.jobs as f64)
        };
        let mut line = format!(
            "| {policy} | {} | {:.1} | {mean} |",
            first.jobs,
            total as f64 / 86_400.0
        );
        for reason in reasons {
            let seconds = of
                .iter()
                .find(|r| r.reason == *reason)
                .map_or(0, |r| r.seconds);
            let _ = write!(line, " {} |", share(seconds, total));
        }
        let _ = writeln!(out, "{line}");
    }
}

/// What the tables show (written from the committed data).
const WHAT_IT_SHOWS: &str = "## What it shows

* FCFS's wait is almost all *behind*: jobs held behind a head that does not
  fit (99.8 % of it on KTH-SP2, 99.9 % on SDSC-SP2); only the heads' own
  wait is short of processors. Backfilling removes exactly that share: every
  other policy waits 45 to 100 times less in total.
* Under EASY and SJF-EASY most of the wait (83 to 93 %) is a lack of
  processors: the job would not fit now even without the head's
  reservation. The rest, 7 to 17 %, is *would-delay*: jobs that fit but are
  held for the head. It is largest for long narrow jobs (24 % under EASY,
  31.5 % under SJF-EASY on KTH-SP2): they fit in holes, but would run past
  the shadow time. SJF-EASY holds a larger share of the wait that way than
  EASY on both traces, and on SDSC-SP2 its total wait is 65 % above EASY's.
* Conservative reserves every job, so all of its wait is *reserved*: the
  split cannot tell why a reservation lies where it does, only that the plan
  holds every job.
* Selective's jobs spend most of their wait in the entry queue
  (*not-promoted*: 65 to 98 % overall), and only the rest reserved once
  promoted. The fixed thresholds of Selective and Selective-D promote more
  jobs early than the adaptive and scaled ones (20 to 35 % of KTH-SP2's wait
  reserved, against 2 to 3 %); all four wait less in total than
  Conservative and EASY on both traces.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_percent_with_a_dash_for_none() {
        assert_eq!(share(1, 4), "25.0");
        assert_eq!(share(0, 4), "-");
        assert_eq!(share(3, 0), "-");
    }

    #[test]
    fn a_merged_cell_gives_one_row_per_set_and_reason() {
        let mut cell = serde_json::json!({
            "cell": 0,
            "trace": "sub/KTH-SP2-1996-2.1-cln.swf.gz",
            "policy": "fcfs",
        });
        for set in SETS {
            let suffix = if set == "all" {
                String::new()
            } else {
                format!(".{set}")
            };
            let waited = set == "all";
            cell[format!("jobs{suffix}")] = serde_json::json!(if waited { 3 } else { 0 });
            cell[format!("total_wait{suffix}")] = serde_json::json!(if waited { 30 } else { 0 });
            for reason in REASONS {
                let seconds = match (waited, reason) {
                    (true, "processors" | "behind" | "reserved") => 10,
                    _ => 0,
                };
                cell[format!("wait_by_reason.{reason}{suffix}")] = serde_json::json!(seconds);
            }
        }
        let mut cell = cell.as_object().unwrap().clone();
        let rows = rows_of(&cell).unwrap();
        assert_eq!(rows.len(), 3 + 4);
        // Equal seconds: by name.
        let reasons: Vec<&str> = rows.iter().take(3).map(|r| r.reason.as_str()).collect();
        assert_eq!(reasons, ["behind", "processors", "reserved"]);
        assert_eq!(rows[0].trace, "KTH-SP2-1996-2.1-cln");
        assert_eq!((rows[0].jobs, rows[0].total_seconds), (3, 30));
        assert_eq!((rows[3].set.as_str(), rows[3].reason.as_str()), ("SN", ""));
        cell.remove("wait_by_reason.pending.LW");
        assert!(rows_of(&cell)
            .unwrap_err()
            .contains("no wait_by_reason.pending.LW"));
    }
}
