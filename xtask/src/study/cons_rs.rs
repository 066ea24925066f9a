//! The CONS+RS study: the CONS+RS paper's traces under CONS+RS (five
//! seeds), Conservative (with and without compression) and EASY, and every
//! other trace beside them; its document puts the paper's table beside ours
//! and the paper's claims C1-C4 against our numbers.
//!
//! `cargo xtask study cons-rs` replays (`host-cli replay --format json
//! --latency`, `--jobs` at a time; a replay past `--timeout` is stopped and
//! reported as such, nothing is estimated for it) and writes
//! `data/cons-rs-runs.csv` (one row per replay) and `data/study.toml`;
//! [`generate`] makes the figures and the README from those.

use super::{begin, finish, holds, rows_of_reports, Common, Generated, Reports};
use crate::exec::{self, Ended, RunsDir};
use crate::repo::{self, short, stem, Meta};
use backfill_cli::numbers::percent_change;
use backfill_cli::studies::plot::{self, BarPanel, Series};
use clap::Args;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The study's name and folder.
pub const NAME: &str = "cons-rs";

/// The options of `cargo xtask study cons-rs`.
#[derive(Clone, Debug, Args)]
pub struct Options {
    /// Replay the first N jobs of each trace (--first N), not the whole
    /// trace: CONS+RS takes minutes to hours on whole traces.
    #[arg(long, value_name = "N")]
    pub first: Option<u64>,
    /// Only the paper's traces, not the others.
    #[arg(long)]
    pub paper_only: bool,
    /// The CONS+RS seeds on the paper's traces.
    #[arg(
        long,
        value_name = "S,S,...",
        value_delimiter = ',',
        default_value = "0,1,2,3,4"
    )]
    pub seeds: Vec<u64>,
    /// Stop a replay after this many seconds (it is reported as stopped).
    #[arg(long, value_name = "SECONDS", default_value_t = 1800)]
    pub timeout: u64,
    /// A note printed under the document's heading (what was left out, say).
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
}

/// The CONS+RS paper's traces that we have, in its order, with the paper's
/// name and its mean waits in minutes (CONS+RS, CONS, EASY: row 2
/// absolute, rows 3-4 added to it).
const PAPER: [(&str, &str, [f64; 3]); 5] = [
    (
        "METACENTRUM-2009-2",
        "Meta09",
        [95.0, 95.0 + 28.0, 95.0 + 27.0],
    ),
    ("HPC2N-2002-2.2-cln", "HPC2N", [122.0, 265.0, 275.0]),
    (
        "LLNL-Thunder-2007-1.1-cln",
        "LLNL Thunder",
        [31.0, 135.0, 119.0],
    ),
    ("LLNL-Atlas-2006-2.1-cln", "LLNL Atlas", [4.0, 283.0, 47.0]),
    ("SDSC-DS-2004-2.1-cln", "SDSC DataStar", [43.0, 130.0, 87.0]),
];
const RS: &str = "cons-rs";
const CONS: &str = "conservative";
const NOCOMP: &str = "conservative-no-compression";
const EASY: &str = "easy";
const POLICIES: [&str; 4] = [RS, CONS, NOCOMP, EASY];

/// One replay, as the CSV row `cons-rs-runs.csv` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Run {
    trace: String,
    estimates: String,
    policy: String,
    seed: Option<u64>,
    /// Set when the study stopped the replay: its time limit (s).
    timeout_seconds: Option<u64>,
    /// The window: the first this many jobs (`None`: the whole trace).
    first: Option<u64>,
    machine_procs: Option<u64>,
    jobs: Option<u64>,
    mean_wait_minutes: Option<f64>,
    mean_bounded_slowdown: Option<f64>,
    utilisation: Option<f64>,
    searches: Option<u64>,
    iterations: Option<u64>,
    accepted: Option<u64>,
    rejected_guarantee: Option<u64>,
    rejected_objective: Option<u64>,
    no_gap: Option<u64>,
    too_crowded: Option<u64>,
    replay_seconds: Option<f64>,
    slowest_call_ms: Option<f64>,
}

struct Doc {
    runs: Vec<Run>,
    traces: Vec<String>,
    /// The window, in words: "whole traces" or "the first N jobs of each
    /// trace".
    window: String,
}

impl Doc {
    /// The replay of `trace` under `policy` (CONS+RS: seed `seed`, else 0).
    fn run(&self, trace: &str, est: &str, policy: &str, seed: u64) -> Option<&Run> {
        self.runs.iter().find(|r| {
            r.trace == trace
                && r.estimates == est
                && r.policy == policy
                && (policy != RS || r.seed == Some(seed))
        })
    }

    /// A finished replay's mean wait (minutes) or mean bounded slowdown.
    fn value(&self, trace: &str, est: &str, policy: &str, wait: bool) -> Option<f64> {
        let r = self.run(trace, est, policy, 0)?;
        if wait {
            r.mean_wait_minutes
        } else {
            r.mean_bounded_slowdown
        }
    }

    fn seeds(&self, trace: &str) -> Vec<&Run> {
        let mut v: Vec<&Run> = self
            .runs
            .iter()
            .filter(|r| {
                r.trace == trace
                    && r.estimates == "user"
                    && r.policy == RS
                    && r.mean_wait_minutes.is_some()
            })
            .collect();
        v.sort_by_key(|r| r.seed);
        v
    }

    fn paper(&self) -> Vec<&'static str> {
        PAPER
            .iter()
            .map(|p| p.0)
            .filter(|t| self.traces.iter().any(|x| x == t))
            .collect()
    }

    fn others(&self) -> Vec<&str> {
        self.traces
            .iter()
            .map(String::as_str)
            .filter(|t| !PAPER.iter().any(|p| p.0 == *t))
            .collect()
    }

    /// The state of a replay for a table cell: its value, "stopped after N
    /// s", or "-" when it was not run.
    fn cell(&self, trace: &str, est: &str, policy: &str, wait: bool) -> String {
        match self.run(trace, est, policy, 0) {
            None => "-".to_owned(),
            Some(r) if r.timeout_seconds.is_some() => {
                format!("stopped after {} s", r.timeout_seconds.unwrap_or(0))
            }
            Some(_) => self
                .value(trace, est, policy, wait)
                .map_or_else(|| "-".to_owned(), |v| num(v, wait)),
        }
    }
}

fn num(v: f64, wait: bool) -> String {
    if wait {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Percent change against CONS+RS of each other policy (the paper's
/// table gives the others' extra wait over CONS+RS).
fn bars(doc: &Doc, traces: &[&str], title: &str) -> Result<String, String> {
    let subtitle = format!(
        "percent change against CONS+RS (seed 0); positive: CONS+RS is better; {}, load x1",
        doc.window
    );
    let panels: Vec<BarPanel> = [(true, "mean wait"), (false, "mean bounded slowdown")]
        .iter()
        .map(|&(wait, label)| BarPanel {
            title: format!("{label}, user estimates"),
            y_label: format!("{label} vs CONS+RS"),
            categories: traces.iter().map(|t| short(t)).collect(),
            series: [CONS, NOCOMP, EASY]
                .iter()
                .map(|p| Series {
                    name: (*p).to_owned(),
                    values: traces
                        .iter()
                        .map(|t| {
                            let base = doc.value(t, "user", RS, wait)?;
                            Some(change(doc.value(t, "user", p, wait)?, base))
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    plot::grouped_bars(title, &subtitle, &panels)
}

/// One replay: trace, estimates, policy, CONS+RS seed.
struct Replay {
    trace: String,
    estimates: &'static str,
    policy: &'static str,
    seed: Option<u64>,
}

/// Runs the study into its folder (see the module docs). The paper's
/// traces come first (seed 0 and the baselines, then the other seeds), then
/// the other traces.
pub fn run(common: &Common, reports: &Reports, options: &Options) -> Result<(), String> {
    let dir = repo::traces_dir(common.traces.as_deref())?;
    let paper: Vec<&str> = PAPER.iter().map(|p| p.0).collect();
    repo::require_traces(&dir, &paper)?;
    let others: Vec<String> = if options.paper_only {
        Vec::new()
    } else {
        repo::traces_in(&dir)?
            .iter()
            .map(|t| stem(t))
            .filter(|t| !paper.contains(&t.as_str()))
            .collect()
    };
    let (bin, study) = begin(common, NAME)?;
    let runs = RunsDir::new(reports.runs.as_deref())?;
    let mut list = Vec::new();
    let baselines = |list: &mut Vec<Replay>, trace: &str| {
        list.push(Replay {
            trace: trace.to_owned(),
            estimates: "user",
            policy: RS,
            seed: Some(0),
        });
        for policy in [EASY, CONS, NOCOMP] {
            list.push(Replay {
                trace: trace.to_owned(),
                estimates: "user",
                policy,
                seed: None,
            });
        }
    };
    for trace in &paper {
        baselines(&mut list, trace);
    }
    for trace in &paper {
        for (policy, seed) in [(CONS, None), (RS, Some(0))] {
            list.push(Replay {
                trace: (*trace).to_owned(),
                estimates: "exact",
                policy,
                seed,
            });
        }
    }
    for &seed in options.seeds.iter().filter(|&&s| s != 0) {
        for trace in &paper {
            list.push(Replay {
                trace: (*trace).to_owned(),
                estimates: "user",
                policy: RS,
                seed: Some(seed),
            });
        }
    }
    for trace in &others {
        baselines(&mut list, trace);
    }
    eprintln!("{} replays into {}", list.len(), runs.path().display());
    let limit = Duration::from_secs(options.timeout);
    let started = Instant::now();
    exec::parallel(common.jobs(), &list, |r| {
        let seed = r.seed.map_or_else(|| "-".to_owned(), |s| s.to_string());
        let out = runs.path().join(format!(
            "{}__{}__{}__s{seed}.json",
            r.trace, r.estimates, r.policy
        ));
        if exec::done(&out) {
            return Ok(());
        }
        let mut command = Command::new(&bin);
        command
            .arg("replay")
            .arg(dir.join(format!("{}.swf.gz", r.trace)))
            .args(["--estimates", r.estimates]);
        match (r.policy, r.seed) {
            (NOCOMP, _) => command.args(["--policy", CONS, "--no-compression"]),
            (policy, Some(s)) => command.args(["--policy", policy, "--seed", &s.to_string()]),
            (policy, None) => command.args(["--policy", policy]),
        };
        if let Some(n) = options.first {
            command.args(["--first", &n.to_string()]);
        }
        command.args(["--format", "json", "--latency"]);
        match exec::to_file(command, &out, Some(limit))? {
            Ended::Done => eprintln!("  {} {} {} seed {seed}", r.trace, r.estimates, r.policy),
            Ended::TimedOut => {
                let marker = serde_json::json!({
                    "timeout": options.timeout,
                    "trace": r.trace,
                    "estimates": r.estimates,
                    "policy": r.policy,
                    "seed": seed,
                });
                repo::write_text(&out, &format!("{marker}\n"))?;
                eprintln!(
                    "  {} {} {} seed {seed}: stopped after {} s",
                    r.trace, r.estimates, r.policy, options.timeout
                );
            }
        }
        Ok(())
    })?;
    let meta = Meta {
        seconds: started.elapsed().as_secs(),
        jobs: Some(common.jobs()),
        note: options.note.clone(),
    };
    let rows = repo::csv_text(&read_runs(runs.path())?)?;
    finish(study, &[(RUNS_CSV, rows)], &meta, generate)
}

/// The runs file in `data/`.
const RUNS_CSV: &str = "cons-rs-runs.csv";

/// The replay reports (and time-limit markers) in `dir` as CSV rows.
fn read_runs(dir: &Path) -> Result<Vec<Run>, String> {
    rows_of_reports(dir, |r| {
        let (f, u, s) = (|p| r.f(p), |p| r.u(p), |p| r.s(p));
        let policy = s("/policy")?;
        let seed = if policy == RS {
            u("/cons_rs/seed").or_else(|| s("/seed").ok().and_then(|s| s.parse().ok()))
        } else {
            None
        };
        Ok(Run {
            trace: stem(Path::new(&s("/trace")?)),
            estimates: s("/estimates")?,
            policy,
            seed,
            timeout_seconds: u("/timeout"),
            first: u("/first"),
            machine_procs: u("/machine_procs"),
            jobs: u("/accounting/scheduled"),
            mean_wait_minutes: f("/metrics/0/mean_wait").map(|w| w / 60.0),
            mean_bounded_slowdown: f("/metrics/0/mean_bounded_slowdown"),
            utilisation: f("/utilisation"),
            searches: u("/cons_rs/searches"),
            iterations: u("/cons_rs/iterations"),
            accepted: u("/cons_rs/accepted"),
            rejected_guarantee: u("/cons_rs/rejected_guarantee"),
            rejected_objective: u("/cons_rs/rejected_objective"),
            no_gap: u("/cons_rs/no_gap"),
            too_crowded: u("/cons_rs/too_crowded"),
            replay_seconds: f("/timings/replay_seconds"),
            slowest_call_ms: f("/timings/slowest_call_us").map(|us| us / 1000.0),
        })
    })
}

/// The study's generated files, from its `data/cons-rs-runs.csv` and
/// `data/study.toml`: the two figures and `README.md`.
pub fn generate(dir: &Path) -> Result<Generated, String> {
    let runs: Vec<Run> = repo::read_csv(&dir.join("data").join(RUNS_CSV))?;
    let meta = Meta::read(dir)?;
    if runs.is_empty() {
        return Err(format!(
            "no runs in {}",
            dir.join("data").join(RUNS_CSV).display()
        ));
    }
    let mut traces: Vec<String> = runs.iter().map(|r| r.trace.clone()).collect();
    traces.sort();
    traces.dedup();
    let mut firsts: Vec<Option<u64>> = runs
        .iter()
        .filter(|r| r.timeout_seconds.is_none())
        .map(|r| r.first)
        .collect();
    firsts.sort_unstable();
    firsts.dedup();
    let window = match firsts.as_slice() {
        [None] | [] => "whole traces".to_owned(),
        [Some(n)] => format!("the first {n} jobs of each trace (`--first {n}`)"),
        _ => "mixed windows (see the CSV's `first` column)".to_owned(),
    };
    let doc = Doc {
        runs,
        traces,
        window,
    };
    let paper = doc.paper();
    let others = doc.others();
    Ok(vec![
        (
            "figures/cons-rs-paper-traces.svg".to_owned(),
            bars(
                &doc,
                &paper,
                "Conservative, Conservative without compression and EASY against CONS+RS: the paper's traces",
            )?,
        ),
        (
            "figures/cons-rs-other-traces.svg".to_owned(),
            bars(
                &doc,
                &others,
                "Conservative, Conservative without compression and EASY against CONS+RS: the other traces",
            )?,
        ),
        ("README.md".to_owned(), markdown(&doc, &meta)),
    ])
}

/// `n` replays at a time, in words.
fn at_a_time(n: usize) -> String {
    match n {
        1 => "one replay at a time".to_owned(),
        2 => "two replays at a time".to_owned(),
        n => format!("{n} replays at a time"),
    }
}

/// `new`'s percent change against `base`.
fn change(new: f64, base: f64) -> f64 {
    percent_change(new, base).unwrap_or(f64::NAN)
}

fn policy_label(p: &str) -> &'static str {
    match p {
        RS => "CONS+RS",
        CONS => "Conservative",
        NOCOMP => "Conservative, no compression",
        _ => "EASY",
    }
}

/// A table of `traces` x the four policies: CONS+RS absolute, the others
/// absolute with their difference to CONS+RS.
fn table(out: &mut String, doc: &Doc, traces: &[&str], wait: bool) {
    let _ = writeln!(
        out,
        "| policy | {} |",
        traces
            .iter()
            .map(|t| short(t))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "| --- |{}", " ---: |".repeat(traces.len()));
    for p in POLICIES {
        let cells: Vec<String> = traces
            .iter()
            .map(|t| {
                let cell = doc.cell(t, "user", p, wait);
                match (
                    p == RS,
                    doc.value(t, "user", p, wait),
                    doc.value(t, "user", RS, wait),
                ) {
                    (false, Some(v), Some(base)) => {
                        let d = v - base;
                        if wait {
                            format!("{cell} ({d:+.1})")
                        } else {
                            format!("{cell} ({d:+.2})")
                        }
                    }
                    _ => cell,
                }
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", policy_label(p), cells.join(" | "));
    }
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

#[allow(clippy::too_many_lines)]
fn markdown(doc: &Doc, meta: &Meta) -> String {
    let mut out = String::new();
    let paper = doc.paper();
    let others = doc.others();
    let timeouts: Vec<&Run> = doc
        .runs
        .iter()
        .filter(|r| r.timeout_seconds.is_some())
        .collect();
    let _ = writeln!(out, "# CONS+RS against Conservative and EASY\n");
    let _ = writeln!(
        out,
        "Generated by `cargo xtask study cons-rs` ({} replays, {} s on this 2-core machine, {}) \
         with `xtask/src/study/cons_rs.rs`; do not edit by hand. Every number is in \
         [`data/cons-rs-runs.csv`](data/cons-rs-runs.csv) (one row per replay).\n",
        doc.runs.len(),
        meta.seconds,
        at_a_time(meta.jobs.unwrap_or(1))
    );
    if let Some(note) = &meta.note {
        let _ = writeln!(out, "{note}\n");
    }
    let _ = writeln!(
        out,
        "CONS+RS (D. Klusáček, *Conservative backfilling with random-search gap filling*) is \
         Conservative backfilling plus, at every instant with an early completion, a bounded \
         random search: a random queued job moves into the earliest gap before its reservation, \
         the jobs it displaces are re-placed in queue order, and the move is kept only if no job \
         passes its guarantee (its reservation at arrival) and the relative change of mean \
         predicted wait plus that of mean predicted bounded slowdown of the queued jobs is \
         negative. The rules as implemented are in `core/src/policy/cons_rs.rs`.\n"
    );
    let _ = writeln!(out, "## Setup\n");
    let _ = writeln!(
        out,
        "* Windows: {}. The traces are from the traces folder (`--traces DIR`), at their own load (x1), one machine of the \
         header's size (METACENTRUM has no header: the replay takes the peak usage, 604 \
         processors). Jobs are killed at their estimate; a job without a requested time gets \
         its run time as estimate.\n\
         * The paper's traces that we have: {}. Meta08 is not in the archive. Our copies are \
         the archive's cleaned logs (`-cln`); the paper's simulator (Alea) read the raw ones.\n\
         * Policies: CONS+RS (`--policy cons-rs`, seeds 0-4, 4 iterations per queued job when \
         a search starts, no time limit), Conservative (compression after every completion \
         instant), Conservative without compression (`--policy conservative --no-compression`: \
         reservations made at arrival never move: the variant the design document \
         ([docs/design.md](../../design.md), \"CONS+RS\") says the paper's CONS \
         numbers look like, though on whole busy traces its waits grow far past them), EASY. \
         User estimates; Conservative and CONS+RS also with exact ones on the paper's traces.\n\
         * Metrics: mean wait in minutes and mean bounded slowdown (10 s bound) over all jobs.\n",
        doc.window,
        paper
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if timeouts.is_empty() {
        let _ = writeln!(
            out,
            "Every replay finished; none was stopped by the study's time limit.\n"
        );
    } else {
        let _ = writeln!(
            out,
            "Replays stopped by the study's time limit (no number is given for them, and \
             none is estimated):\n"
        );
        for r in &timeouts {
            let _ = writeln!(
                out,
                "* {} ({} estimates) under {}{}: stopped after {} s.",
                r.trace,
                r.estimates,
                r.policy,
                r.seed.map_or_else(String::new, |s| format!(" seed {s}")),
                r.timeout_seconds.unwrap_or(0)
            );
        }
        out.push('\n');
    }

    let _ = writeln!(out, "## The paper's table, and ours\n");
    let _ = writeln!(
        out,
        "The paper's mean waits (minutes; its rows 3-4 give the extra wait over CONS+RS, added \
         here):\n"
    );
    let _ = writeln!(
        out,
        "| policy | {} |",
        PAPER.iter().map(|p| p.1).collect::<Vec<_>>().join(" | ")
    );
    let _ = writeln!(out, "| --- |{}", " ---: |".repeat(PAPER.len()));
    for (i, name) in ["CONS+RS", "CONS", "EASY"].iter().enumerate() {
        let cells: Vec<String> = PAPER
            .iter()
            .map(|p| {
                if i == 0 {
                    format!("{:.0}", p.2[0])
                } else {
                    format!("{:.0} ({:+.0})", p.2[i], p.2[i] - p.2[0])
                }
            })
            .collect();
        let _ = writeln!(out, "| {name} | {} |", cells.join(" | "));
    }
    let _ = writeln!(
        out,
        "\nOurs, mean wait in minutes (CONS+RS with seed 0; in brackets the difference to \
         CONS+RS):\n"
    );
    table(&mut out, doc, &paper, true);
    let _ = writeln!(out, "\nOurs, mean bounded slowdown:\n");
    table(&mut out, doc, &paper, false);
    let _ = writeln!(
        out,
        "\n![against CONS+RS, the paper's traces](figures/cons-rs-paper-traces.svg)\n"
    );

    // Seed sweep.
    let _ = writeln!(out, "## Five seeds\n");
    let _ = writeln!(
        out,
        "CONS+RS with seeds 0-4 on each paper trace (user estimates): mean, sample standard \
         deviation and range over the seeds, and whether every seed beats Conservative and \
         EASY.\n"
    );
    let _ = writeln!(
        out,
        "| trace | seeds | mean wait min: mean ± sd (min-max) | bounded slowdown: mean ± sd (min-max) | every seed below Conservative (wait / bsld) | every seed below EASY (wait / bsld) |"
    );
    let _ = writeln!(out, "| --- | ---: | ---: | ---: | --- | --- |");
    for t in &paper {
        let seeds = doc.seeds(t);
        if seeds.is_empty() {
            let _ = writeln!(out, "| {} | 0 | - | - | - | - |", short(t));
            continue;
        }
        let w: Vec<f64> = seeds.iter().filter_map(|r| r.mean_wait_minutes).collect();
        let b: Vec<f64> = seeds
            .iter()
            .filter_map(|r| r.mean_bounded_slowdown)
            .collect();
        let (wm, ws) = mean_sd(&w);
        let (bm, bs) = mean_sd(&b);
        let lo = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let below = |p: &str| {
            let one = |vals: &[f64], wait: bool| {
                doc.value(t, "user", p, wait)
                    .map_or("-", |v| if hi(vals) < v { "yes" } else { "no" })
            };
            format!("{} / {}", one(&w, true), one(&b, false))
        };
        let _ = writeln!(
            out,
            "| {} | {} | {wm:.1} ± {ws:.1} ({:.1}-{:.1}) | {bm:.2} ± {bs:.2} ({:.2}-{:.2}) | {} | {} |",
            short(t),
            seeds.len(),
            lo(&w),
            hi(&w),
            lo(&b),
            hi(&b),
            below(CONS),
            below(EASY)
        );
    }

    // Other traces.
    let _ = writeln!(out, "\n## The other traces\n");
    let _ = writeln!(
        out,
        "The same four policies on every other trace we have (user estimates, CONS+RS seed 0).\n"
    );
    let _ = writeln!(out, "Mean wait in minutes:\n");
    table(&mut out, doc, &others, true);
    let _ = writeln!(out, "\nMean bounded slowdown:\n");
    table(&mut out, doc, &others, false);
    let _ = writeln!(
        out,
        "\n![against CONS+RS, the other traces](figures/cons-rs-other-traces.svg)\n"
    );

    // Counters.
    let _ = writeln!(out, "## What the search did\n");
    let _ = writeln!(
        out,
        "Per CONS+RS replay (seed 0): searches (instants with an early completion and jobs \
         waiting), iterations, and how each iteration ended: move accepted, rejected because a \
         job would pass its guarantee, rejected because the objective did not improve, no gap \
         before the chosen job's reservation, or too many queued jobs in the gap's window \
         (more than 64). Replay time in seconds (release build, this machine) and the slowest \
         kernel call.\n"
    );
    let _ = writeln!(
        out,
        "| trace | estimates | searches | iterations | accepted | rej. guarantee | rej. objective | no gap | too crowded | replay s | slowest call ms |"
    );
    let _ = writeln!(
        out,
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    let all: Vec<&str> = paper
        .iter()
        .copied()
        .chain(others.iter().copied())
        .collect();
    for t in &all {
        for est in ["user", "exact"] {
            let Some(r) = doc.run(t, est, RS, 0) else {
                continue;
            };
            if let Some(limit) = r.timeout_seconds {
                let _ = writeln!(
                    out,
                    "| {} | {est} | stopped after {limit} s | | | | | | | | |",
                    short(t)
                );
                continue;
            }
            let n = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
            let _ = writeln!(
                out,
                "| {} | {est} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} |",
                short(t),
                n(r.searches),
                n(r.iterations),
                n(r.accepted),
                n(r.rejected_guarantee),
                n(r.rejected_objective),
                n(r.no_gap),
                n(r.too_crowded),
                r.replay_seconds.unwrap_or(f64::NAN),
                r.slowest_call_ms.unwrap_or(f64::NAN)
            );
        }
    }
    out.push('\n');
    out.push_str(&claims(doc));
    out
}

#[allow(clippy::too_many_lines)]
fn claims(doc: &Doc) -> String {
    let mut out = String::new();
    let paper = doc.paper();
    let _ = writeln!(out, "## The paper's claims\n");
    let _ = writeln!(
        out,
        "Verdicts on the paper's traces we have, user estimates, CONS+RS seed 0 unless said \
         otherwise. \"Holds\" means it holds on every trace with numbers, \"partly\" on some.\n"
    );
    // C1.
    let _ = writeln!(
        out,
        "### C1: CONS+RS outperforms both CONS and EASY on mean wait in all data sets\n"
    );
    let mut both = 0;
    let mut with_numbers = 0;
    for t in &paper {
        let (Some(rs), Some(c), Some(e)) = (
            doc.value(t, "user", RS, true),
            doc.value(t, "user", CONS, true),
            doc.value(t, "user", EASY, true),
        ) else {
            let _ = writeln!(out, "* {}: no complete set of numbers.", short(t));
            continue;
        };
        with_numbers += 1;
        let nc = doc.value(t, "user", NOCOMP, true);
        if rs < c && rs < e {
            both += 1;
        }
        let _ = writeln!(
            out,
            "* {}: CONS+RS {rs:.1} min; Conservative {c:.1} ({:+.1}%), EASY {e:.1} ({:+.1}%){}.",
            short(t),
            change(c, rs),
            change(e, rs),
            nc.map_or_else(String::new, |v| format!(
                ", Conservative without compression {v:.1} ({:+.1}%)",
                change(v, rs)
            ))
        );
    }
    let _ = writeln!(
        out,
        "\n**Verdict: {}** (CONS+RS below both on {both} of {with_numbers}).\n",
        holds(both, with_numbers)
    );
    // C2.
    let _ = writeln!(
        out,
        "### C2: with one exception (HPC2N), EASY always outperformed CONS (mean wait)\n"
    );
    let mut easy_wins = Vec::new();
    let mut easy_wins_nc = Vec::new();
    for t in &paper {
        let (Some(c), Some(e)) = (
            doc.value(t, "user", CONS, true),
            doc.value(t, "user", EASY, true),
        ) else {
            continue;
        };
        let nc = doc.value(t, "user", NOCOMP, true);
        easy_wins.push((short(t), e < c));
        if let Some(nc) = nc {
            easy_wins_nc.push((short(t), e < nc));
        }
        let _ = writeln!(
            out,
            "* {}: EASY {e:.1} min, Conservative {c:.1}{}.",
            short(t),
            nc.map_or_else(String::new, |v| format!(
                ", Conservative without compression {v:.1}"
            ))
        );
    }
    let list = |v: &[(String, bool)], want: bool| {
        v.iter()
            .filter(|x| x.1 == want)
            .map(|x| x.0.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let expected =
        |v: &[(String, bool)]| v.iter().filter(|(t, wins)| *wins == (t != "HPC2N")).count();
    let _ = writeln!(
        out,
        "\nEASY below Conservative on: {}; not on: {}. Against Conservative without \
         compression, EASY below on: {}; not on: {}.\n\n**Verdict: {}** against our \
         Conservative (the paper's pattern, EASY better everywhere but HPC2N, matches on {} of \
         {}); **{}** against Conservative without compression (matches on {} of {}).\n",
        list(&easy_wins, true),
        list(&easy_wins, false),
        list(&easy_wins_nc, true),
        list(&easy_wins_nc, false),
        holds(expected(&easy_wins), easy_wins.len()),
        expected(&easy_wins),
        easy_wins.len(),
        holds(expected(&easy_wins_nc), easy_wins_nc.len()),
        expected(&easy_wins_nc),
        easy_wins_nc.len()
    );
    // C3.
    let _ = writeln!(
        out,
        "### C3: similar results for mean slowdown\n\nThe paper gives no slowdown numbers; \
         read as \"CONS+RS below CONS and EASY in mean bounded slowdown too\".\n"
    );
    let mut both_b = 0;
    let mut n_b = 0;
    for t in &paper {
        let (Some(rs), Some(c), Some(e)) = (
            doc.value(t, "user", RS, false),
            doc.value(t, "user", CONS, false),
            doc.value(t, "user", EASY, false),
        ) else {
            continue;
        };
        n_b += 1;
        if rs < c && rs < e {
            both_b += 1;
        }
        let _ = writeln!(
            out,
            "* {}: CONS+RS {rs:.2}; Conservative {c:.2} ({:+.1}%), EASY {e:.2} ({:+.1}%).",
            short(t),
            change(c, rs),
            change(e, rs)
        );
    }
    let _ = writeln!(
        out,
        "\n**Verdict: {}** (CONS+RS below both on {both_b} of {n_b}).\n",
        holds(both_b, n_b)
    );
    // C4.
    let _ = writeln!(
        out,
        "### C4: the optimisation significantly decreases the influence of inaccurate estimates\n"
    );
    let _ = writeln!(
        out,
        "Read as: going from exact to user estimates costs CONS+RS less mean wait (or gains it \
         more) than it costs Conservative, i.e. (user - exact) is strictly lower under CONS+RS. With exact estimates only jobs with a \
         zero run time end early (their estimate is 1 s), so searches are few and find little \
         (\"What the search did\" above) and CONS+RS stays close to Conservative.\n"
    );
    let _ = writeln!(
        out,
        "| trace | Conservative exact | Conservative user | CONS+RS exact | CONS+RS user | user - exact: Conservative | user - exact: CONS+RS |"
    );
    let _ = writeln!(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut smaller = 0;
    let mut n4 = 0;
    for t in &paper {
        let v = |est: &str, p: &str| doc.value(t, est, p, true);
        let (Some(ce), Some(cu), Some(re), Some(ru)) = (
            v("exact", CONS),
            v("user", CONS),
            v("exact", RS),
            v("user", RS),
        ) else {
            continue;
        };
        n4 += 1;
        if ru - re < cu - ce - 0.05 {
            smaller += 1;
        }
        let _ = writeln!(
            out,
            "| {} | {ce:.1} | {cu:.1} | {re:.1} | {ru:.1} | {:+.1} | {:+.1} |",
            short(t),
            cu - ce,
            ru - re
        );
    }
    let _ = writeln!(
        out,
        "\n(mean wait, minutes.) User estimates cost CONS+RS less than Conservative (by more \
         than 0.05 min) on {smaller} of {n4} traces (see the table for the others).\n\n**Verdict: {}.**\n",
        holds(smaller, n4)
    );
    out
}
