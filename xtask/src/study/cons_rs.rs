//! The CONS+RS study: the CONS+RS paper's traces under CONS+RS (three
//! seeds), Conservative (with and without compression) and EASY, and every
//! other trace beside them, under two semantics side by side: our rules and
//! the Alea simulator's (`cons-rs-alea`, `conservative-rebuild`), the
//! simulator the paper's figures come from. Its document puts the paper's
//! table beside both and the paper's claims C1-C4 against each.
//!
//! `cargo xtask study cons-rs` runs the study's plan, `plan.toml` in its
//! folder, with `host-cli plan run`, reads it back with `host-cli plan
//! merge`, and writes `data/cons-rs-runs.csv` (one row per cell) and
//! `data/study.toml`; [`generate`] makes the figures and the README from
//! those.

use super::{finish, holds, plan_str, run_plan, Generated, PlanArgs, PlanRow};
use crate::repo::{self, short, stem, Meta};
use crate::text::{comma_list, table_head};
use backfill_cli::numbers::percent_change;
use backfill_cli::studies::plot::{self, BarPanel, Series};
use clap::Args;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// The study's name and folder.
pub const NAME: &str = "cons-rs";

/// The options of `cargo xtask study cons-rs` (the cells are the plan's).
#[derive(Clone, Debug, Args)]
pub struct Options {
    /// A note printed under the document's heading (how the machine was
    /// loaded, say).
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
const NOCOMP: &str = "conservative-no-compression";
const EASY: &str = "easy";

/// A semantics: the policies that play CONS+RS, CONS, CONS without
/// compression (when it has one) and EASY.
#[derive(Clone, Copy, Debug)]
struct Semantics {
    /// Its heading.
    title: &'static str,
    /// A file-name suffix for its figures.
    suffix: &'static str,
    rs: &'static str,
    cons: &'static str,
    nocomp: Option<&'static str>,
}

impl Semantics {
    /// The policies of its tables, in their order.
    fn policies(&self) -> Vec<&'static str> {
        let mut v = vec![self.rs, self.cons];
        v.extend(self.nocomp);
        v.push(EASY);
        v
    }

    /// A policy's name in the tables.
    fn label(&self, p: &str) -> String {
        if p == self.rs {
            format!("CONS+RS (`{p}`)")
        } else if p == self.cons {
            format!("Conservative (`{p}`)")
        } else if p == NOCOMP {
            "Conservative, no compression".to_owned()
        } else {
            "EASY".to_owned()
        }
    }
}

/// Our rules (the defaults).
const OURS: Semantics = Semantics {
    title: "our rules",
    suffix: "",
    rs: "cons-rs",
    cons: "conservative",
    nocomp: Some(NOCOMP),
};
/// The Alea simulator's rules (its CONS+RS and CONS; its EASY is ours:
/// the processor bookkeeping of Alea's EASY is not copied).
const ALEA: Semantics = Semantics {
    title: "Alea's rules",
    suffix: "-alea",
    rs: "cons-rs-alea",
    cons: "conservative-rebuild",
    nocomp: None,
};
/// Both, in the document's order.
const BOTH: [Semantics; 2] = [OURS, ALEA];

/// One replay, as the CSV row `cons-rs-runs.csv` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Run {
    trace: String,
    estimates: String,
    policy: String,
    seed: Option<u64>,
    /// The window: job lines skipped first (`None`: none).
    skip: Option<u64>,
    /// The window: this many job lines (`None`: to the end).
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
}

impl Doc {
    /// The replay of `trace` under `policy` (a policy that draws: seed
    /// `seed`).
    fn run(&self, trace: &str, est: &str, policy: &str, seed: u64) -> Option<&Run> {
        self.runs.iter().find(|r| {
            r.trace == trace
                && r.estimates == est
                && r.policy == policy
                && r.seed.is_none_or(|s| s == seed)
        })
    }

    /// A replay's mean wait (minutes) or mean bounded slowdown (seed 0).
    fn value(&self, trace: &str, est: &str, policy: &str, wait: bool) -> Option<f64> {
        let r = self.run(trace, est, policy, 0)?;
        if wait {
            r.mean_wait_minutes
        } else {
            r.mean_bounded_slowdown
        }
    }

    /// Every seed's replay of `policy` on `trace`, user estimates.
    fn seeds(&self, trace: &str, policy: &str) -> Vec<&Run> {
        let mut v: Vec<&Run> = self
            .runs
            .iter()
            .filter(|r| {
                r.trace == trace
                    && r.estimates == "user"
                    && r.policy == policy
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

    /// The window of `trace`'s replays, in words ("mixed" when they differ).
    fn window(&self, trace: &str) -> String {
        let mut w: Vec<(Option<u64>, Option<u64>)> = self
            .runs
            .iter()
            .filter(|r| r.trace == trace)
            .map(|r| (r.skip, r.first))
            .collect();
        w.sort_unstable();
        w.dedup();
        match w.as_slice() {
            [(None | Some(0), None)] => "whole trace".to_owned(),
            [(None | Some(0), Some(n))] => format!("first {n} jobs"),
            [(Some(s), Some(n))] => format!("job lines {} to {}", s + 1, s + n),
            [(Some(s), None)] => format!("from job line {}", s + 1),
            _ => "mixed windows".to_owned(),
        }
    }

    /// A table cell: the value, or "-" when it was not run.
    fn cell(&self, trace: &str, est: &str, policy: &str, wait: bool) -> String {
        self.value(trace, est, policy, wait)
            .map_or_else(|| "-".to_owned(), |v| num(v, wait))
    }
}

fn num(v: f64, wait: bool) -> String {
    if wait {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Percent change against CONS+RS of each other policy of `sem` (the
/// paper's table gives the others' extra wait over CONS+RS).
fn bars(doc: &Doc, sem: Semantics, traces: &[&str], title: &str) -> Result<String, String> {
    let subtitle = format!(
        "percent change against CONS+RS (seed 0), {}; positive: CONS+RS is better; windows as in the README, load x1",
        sem.title
    );
    let panels: Vec<BarPanel> = [(true, "mean wait"), (false, "mean bounded slowdown")]
        .iter()
        .map(|&(wait, label)| BarPanel {
            title: format!("{label}, user estimates"),
            y_label: format!("{label} vs CONS+RS"),
            categories: traces.iter().map(|t| short(t)).collect(),
            series: sem
                .policies()
                .iter()
                .filter(|p| **p != sem.rs)
                .map(|p| Series {
                    name: (*p).to_owned(),
                    values: traces
                        .iter()
                        .map(|t| {
                            let base = doc.value(t, "user", sem.rs, wait)?;
                            Some(change(doc.value(t, "user", p, wait)?, base))
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    plot::grouped_bars(title, &subtitle, &panels)
}

/// Runs the study into its folder (see the module docs).
pub fn run(args: &PlanArgs<Options>) -> Result<(), String> {
    let (study, cells, started) = run_plan(&args.common, &args.reports, NAME)?;
    let runs = cells.iter().map(run_of).collect::<Result<Vec<_>, _>>()?;
    let meta = Meta {
        seconds: started.elapsed().as_secs(),
        jobs: Some(args.common.jobs()),
        note: args.options.note.clone(),
    };
    finish(
        study,
        &[(RUNS_CSV, repo::csv_text(&runs)?)],
        &meta,
        generate,
    )
}

/// The runs file in `data/`.
const RUNS_CSV: &str = "cons-rs-runs.csv";

/// One merged plan row as a run.
fn run_of(cell: &PlanRow) -> Result<Run, String> {
    let f = |k: &str| cell.get(k).and_then(serde_json::Value::as_f64);
    let u = |k: &str| cell.get(k).and_then(serde_json::Value::as_u64);
    Ok(Run {
        trace: stem(Path::new(&plan_str(cell, "trace")?)),
        estimates: plan_str(cell, "estimates")?,
        policy: plan_str(cell, "policy")?,
        seed: u("seed"),
        skip: u("skip"),
        first: u("first"),
        machine_procs: u("machine_procs"),
        jobs: u("jobs"),
        mean_wait_minutes: f("mean_wait").map(|w| w / 60.0),
        mean_bounded_slowdown: f("mean_bounded_slowdown"),
        utilisation: f("utilisation"),
        searches: u("cons_rs.searches"),
        iterations: u("cons_rs.iterations"),
        accepted: u("cons_rs.accepted"),
        rejected_guarantee: u("cons_rs.rejected_guarantee"),
        rejected_objective: u("cons_rs.rejected_objective"),
        no_gap: u("cons_rs.no_gap"),
        too_crowded: u("cons_rs.too_crowded"),
        replay_seconds: f("replay_seconds"),
        slowest_call_ms: f("slowest_call_us").map(|us| us / 1000.0),
    })
}

/// The study's generated files, from its `data/cons-rs-runs.csv` and
/// `data/study.toml`: the figures (both semantics, the paper's traces and
/// the others) and `README.md`.
pub fn generate(dir: &Path) -> Result<Generated, String> {
    let (runs, meta) = repo::read_runs::<Run>(dir, RUNS_CSV)?;
    let mut traces: Vec<String> = runs.iter().map(|r| r.trace.clone()).collect();
    traces.sort();
    traces.dedup();
    let doc = Doc { runs, traces };
    let paper = doc.paper();
    let others = doc.others();
    let mut out = Vec::new();
    for sem in BOTH {
        out.push((
            format!("figures/cons-rs-paper-traces{}.svg", sem.suffix),
            bars(
                &doc,
                sem,
                &paper,
                &format!("Against CONS+RS under {}: the paper's traces", sem.title),
            )?,
        ));
        out.push((
            format!("figures/cons-rs-other-traces{}.svg", sem.suffix),
            bars(
                &doc,
                sem,
                &others,
                &format!("Against CONS+RS under {}: the other traces", sem.title),
            )?,
        ));
    }
    out.push(("README.md".to_owned(), markdown(&doc, &meta)));
    Ok(out)
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

/// A table of `traces` x the policies of `sem`: CONS+RS absolute, the
/// others absolute with their difference to CONS+RS.
fn table(out: &mut String, doc: &Doc, sem: Semantics, traces: &[&str], wait: bool) {
    out.push_str(&table_head(
        &[("policy", "---")],
        traces.iter().map(|t| short(t)),
    ));
    for p in sem.policies() {
        let cells: Vec<String> = traces
            .iter()
            .map(|t| {
                let cell = doc.cell(t, "user", p, wait);
                match (
                    p == sem.rs,
                    doc.value(t, "user", p, wait),
                    doc.value(t, "user", sem.rs, wait),
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
        let _ = writeln!(out, "| {} | {} |", sem.label(p), cells.join(" | "));
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
    let cell_seconds: f64 = doc.runs.iter().filter_map(|r| r.replay_seconds).sum();
    let _ = writeln!(
        out,
        "# CONS+RS against Conservative and EASY, under two semantics\n"
    );
    let _ = writeln!(
        out,
        "Generated by `cargo xtask study cons-rs` ({} cells of [plan.toml](plan.toml), run \
         with `host-cli plan run` and read back with `host-cli plan merge`; {} s from start to \
         end and {cell_seconds:.0} s of replay time in all, on this 2-core machine, {}) with \
         `xtask/src/study/cons_rs.rs`; do not edit by hand. Every number is in \
         [`data/cons-rs-runs.csv`](data/cons-rs-runs.csv) (one row per cell).\n",
        doc.runs.len(),
        meta.seconds,
        at_a_time(meta.replays_at_a_time())
    );
    if let Some(note) = &meta.note {
        let _ = writeln!(out, "{note}\n");
    }
    let _ = writeln!(
        out,
        "CONS+RS (D. Klusáček, *Conservative backfilling with random-search gap filling*) is \
         Conservative backfilling plus a bounded random search over the plan. The paper's \
         figures come from its author's simulator, Alea, whose rules differ from ours in \
         documented ways ([docs/design.md](../../design.md), \"Conservative\" and \"CONS+RS\"), \
         so the study runs both:\n\n\
         * **Our rules**: CONS+RS (`cons-rs`: at every instant with an early completion a \
         random queued job moves into the earliest gap before its reservation, kept only if no \
         job passes its guarantee and the objective improves; \
         `core/src/policy/cons_rs.rs`), Conservative (compression in queue order after every \
         completion instant), Conservative without compression (reservations made at arrival \
         never move).\n\
         * **Alea's rules**: CONS+RS (`cons-rs-alea`: no compression, the plan kept as a list \
         scheduled in order, a search after every early completion and every 300 s that moves \
         a random job to a random list position and keeps the move when Alea's weighted \
         objective improves, no guarantee; `core/src/policy/cons_rs_alea.rs`), Conservative \
         (`conservative-rebuild`: compression only after an early completion, re-inserting \
         the jobs in order of planned start; `core/src/policy/rebuild.rs`). How closely these \
         follow Alea itself is measured in [the Alea comparison](../alea/README.md).\n\
         * EASY is the same for both (Alea's EASY shares processor ids between running jobs, \
         a defect not copied).\n"
    );
    let _ = writeln!(out, "## Setup\n");
    let _ = writeln!(
        out,
        "* Windows, the same for both semantics: {}. The Alea flavour of CONS+RS schedules \
         the whole list for every move of a search, too slow for whole busy traces here, so \
         each trace is replayed on its first 5,000 jobs, except where those hold no wait at \
         all (METACENTRUM: 5,000 jobs from the middle of the log; LLNL Atlas and Thunder, \
         whose queues stay short: whole) or where the queue grows into the hundreds (the \
         generated `lublin_256`: its first 2,000). The paper replayed whole traces. The traces are from the traces folder (`--traces DIR`), at their \
         own load (x1), one machine of the header's size (METACENTRUM has no header: the \
         replay takes the peak usage). Jobs are killed at their estimate; a job without a \
         requested time gets its run time as estimate.\n\
         * The paper's traces that we have: {}. Meta08 is not in the archive. Our copies are \
         the archive's cleaned logs (`-cln`); the paper's simulator read the raw ones.\n\
         * CONS+RS: seeds 0, 1, 2 on the paper's traces, seed 0 elsewhere; 4 iterations per \
         queued job when a search starts, no time limit. User estimates; Conservative and \
         CONS+RS also with exact ones on the paper's traces.\n\
         * Metrics: mean wait in minutes and mean bounded slowdown (10 s bound) over all jobs \
         of the window.\n",
        comma_list(
            doc.traces
                .iter()
                .map(|t| format!("{} {}", short(t), doc.window(t)))
        ),
        comma_list(paper.iter().map(|t| format!("`{t}`")))
    );
    let _ = writeln!(out, "## The paper's table\n");
    let _ = writeln!(
        out,
        "The paper's mean waits (minutes, whole traces; its rows 3-4 give the extra wait over \
         CONS+RS, added here):\n"
    );
    out.push_str(&table_head(&[("policy", "---")], PAPER.iter().map(|p| p.1)));
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
    out.push('\n');
    let mut verdicts = Vec::new();
    let mut sections = String::new();
    for sem in BOTH {
        let _ = writeln!(out, "## The paper's traces under {}\n", sem.title);
        let _ = writeln!(
            out,
            "Mean wait in minutes (CONS+RS with seed 0; in brackets the difference to \
             CONS+RS):\n"
        );
        table(&mut out, doc, sem, &paper, true);
        let _ = writeln!(out, "\nMean bounded slowdown:\n");
        table(&mut out, doc, sem, &paper, false);
        let _ = writeln!(
            out,
            "\n![against CONS+RS, the paper's traces, {}](figures/cons-rs-paper-traces{}.svg)\n",
            sem.title, sem.suffix
        );
        seeds_table(&mut out, doc, sem, &paper);
        let (text, v) = claims(doc, sem);
        sections.push_str(&text);
        verdicts.push(v);
    }
    let _ = writeln!(out, "## The paper's claims under each semantics\n");
    let _ = writeln!(
        out,
        "Verdicts on the paper's traces we have (the details follow below): \"holds\" means \
         on every trace with numbers, \"partly\" on some. A claim that holds under Alea's \
         rules and not under ours depends on the simulator's semantics.\n"
    );
    let _ = writeln!(
        out,
        "| claim | {} | {} | which semantics the paper's claim needs |",
        OURS.title, ALEA.title
    );
    let _ = writeln!(out, "| --- | --- | --- | --- |");
    if let [ours, alea] = verdicts.as_slice() {
        for (&(claim, o, on), &(_, a, an)) in ours.iter().zip(alea) {
            let needs = match (o == on, a == an) {
                _ if on == 0 || an == 0 => "no data",
                (true, true) => "holds under both",
                (false, true) => "holds under Alea's rules only: it depends on them",
                (true, false) => "holds under our rules only",
                (false, false) if a > o => "holds under neither; closer under Alea's rules",
                (false, false) if a < o => "holds under neither; closer under our rules",
                (false, false) => "holds under neither, on as many traces under both",
            };
            let _ = writeln!(
                out,
                "| {claim} | {} ({o} of {on}) | {} ({a} of {an}) | {needs} |",
                holds(o, on),
                holds(a, an)
            );
        }
    }
    out.push('\n');
    for sem in BOTH {
        let _ = writeln!(out, "## The other traces under {}\n", sem.title);
        let _ = writeln!(
            out,
            "User estimates, CONS+RS seed 0. Mean wait in minutes:\n"
        );
        table(&mut out, doc, sem, &others, true);
        let _ = writeln!(out, "\nMean bounded slowdown:\n");
        table(&mut out, doc, sem, &others, false);
        let _ = writeln!(
            out,
            "\n![against CONS+RS, the other traces, {}](figures/cons-rs-other-traces{}.svg)\n",
            sem.title, sem.suffix
        );
    }
    search_table(&mut out, doc, &paper, &others);
    out.push_str(&sections);
    out
}

/// The seeds of `sem`'s CONS+RS on each paper trace: mean, spread, and
/// whether every seed beats Conservative and EASY.
fn seeds_table(out: &mut String, doc: &Doc, sem: Semantics, paper: &[&str]) {
    let _ = writeln!(
        out,
        "CONS+RS over its seeds (user estimates): mean, sample standard deviation and range, \
         and whether every seed beats Conservative and EASY.\n"
    );
    let _ = writeln!(
        out,
        "| trace | seeds | mean wait min: mean ± sd (min-max) | bounded slowdown: mean ± sd (min-max) | every seed below Conservative (wait / bsld) | every seed below EASY (wait / bsld) |"
    );
    let _ = writeln!(out, "| --- | ---: | ---: | ---: | --- | --- |");
    for t in paper {
        let seeds = doc.seeds(t, sem.rs);
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
            below(sem.cons),
            below(EASY)
        );
    }
    out.push('\n');
}

/// What each CONS+RS search did, seed 0, both semantics.
fn search_table(out: &mut String, doc: &Doc, paper: &[&str], others: &[&str]) {
    let _ = writeln!(out, "## What the search did\n");
    let _ = writeln!(
        out,
        "Per CONS+RS replay (seed 0): searches, iterations, and how each iteration ended: \
         move accepted, rejected because a job would pass its guarantee (ours only), \
         rejected because the objective did not improve, no gap before the chosen job's \
         reservation or too many queued jobs in the gap's window (more than 64; ours only). \
         Replay time in seconds (release build, this machine, two replays at a time) and the \
         slowest kernel call.\n"
    );
    let _ = writeln!(
        out,
        "| trace | policy | estimates | searches | iterations | accepted | rej. guarantee | rej. objective | no gap | too crowded | replay s | slowest call ms |"
    );
    let _ = writeln!(
        out,
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for t in paper.iter().chain(others) {
        for sem in BOTH {
            for est in ["user", "exact"] {
                let Some(r) = doc.run(t, est, sem.rs, 0) else {
                    continue;
                };
                let n = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
                let _ = writeln!(
                    out,
                    "| {} | `{}` | {est} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} |",
                    short(t),
                    sem.rs,
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
    }
    out.push('\n');
}

/// The claims under `sem`: the section, and each claim's verdict.
#[allow(clippy::too_many_lines)]
fn claims(doc: &Doc, sem: Semantics) -> (String, Vec<(&'static str, usize, usize)>) {
    let mut out = String::new();
    let mut verdicts = Vec::new();
    let paper = doc.paper();
    let (rs_p, cons_p) = (sem.rs, sem.cons);
    // CONS+RS's, Conservative's and EASY's mean wait (`wait`) or mean
    // bounded slowdown on `t`, user estimates, when all three are known.
    let three = |t: &str, wait: bool| {
        Some((
            doc.value(t, "user", rs_p, wait)?,
            doc.value(t, "user", cons_p, wait)?,
            doc.value(t, "user", EASY, wait)?,
        ))
    };
    let _ = writeln!(out, "## The paper's claims under {}\n", sem.title);
    let _ = writeln!(
        out,
        "CONS+RS is `{rs_p}`, Conservative `{cons_p}`; user estimates, CONS+RS seed 0 unless \
         said otherwise.\n"
    );
    // C1.
    let c1 = "C1: CONS+RS outperforms both CONS and EASY on mean wait in all data sets";
    let _ = writeln!(out, "### {c1}\n");
    let mut both = 0;
    let mut with_numbers = 0;
    for t in &paper {
        let Some((rs, c, e)) = three(t, true) else {
            let _ = writeln!(out, "* {}: no complete set of numbers.", short(t));
            continue;
        };
        with_numbers += 1;
        if rs < c && rs < e {
            both += 1;
        }
        let nc = sem.nocomp.and_then(|p| doc.value(t, "user", p, true));
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
    let v1 = holds(both, with_numbers);
    let _ = writeln!(
        out,
        "\n**Verdict: {v1}** (CONS+RS below both on {both} of {with_numbers}).\n"
    );
    verdicts.push((c1, both, with_numbers));
    // C2.
    let c2 = "C2: with one exception (HPC2N), EASY always outperformed CONS (mean wait)";
    let _ = writeln!(out, "### {c2}\n");
    let mut easy_wins = Vec::new();
    for t in &paper {
        let (Some(c), Some(e)) = (
            doc.value(t, "user", cons_p, true),
            doc.value(t, "user", EASY, true),
        ) else {
            continue;
        };
        easy_wins.push((short(t), e < c));
        let _ = writeln!(out, "* {}: EASY {e:.1} min, Conservative {c:.1}.", short(t));
    }
    let list = |want: bool| comma_list(easy_wins.iter().filter(|x| x.1 == want).map(|x| &x.0));
    let expected = easy_wins
        .iter()
        .filter(|(t, wins)| *wins == (t != "HPC2N"))
        .count();
    let v2 = holds(expected, easy_wins.len());
    let _ = writeln!(
        out,
        "\nEASY below Conservative on: {}; not on: {}.\n\n**Verdict: {v2}** (the paper's \
         pattern, EASY better everywhere but HPC2N, matches on {expected} of {}).\n",
        list(true),
        list(false),
        easy_wins.len()
    );
    verdicts.push((c2, expected, easy_wins.len()));
    // C3.
    let c3 = "C3: similar results for mean slowdown";
    let _ = writeln!(
        out,
        "### {c3}\n\nThe paper gives no slowdown numbers; read as \"CONS+RS below CONS and \
         EASY in mean bounded slowdown too\".\n"
    );
    let mut both_b = 0;
    let mut n_b = 0;
    for t in &paper {
        let Some((rs, c, e)) = three(t, false) else {
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
    let v3 = holds(both_b, n_b);
    let _ = writeln!(
        out,
        "\n**Verdict: {v3}** (CONS+RS below both on {both_b} of {n_b}).\n"
    );
    verdicts.push((c3, both_b, n_b));
    // C4.
    let c4 = "C4: the optimisation significantly decreases the influence of inaccurate estimates";
    let _ = writeln!(out, "### {c4}\n");
    let _ = writeln!(
        out,
        "Read as: going from exact to user estimates costs CONS+RS less mean wait (or gains it \
         more) than it costs Conservative, i.e. (user - exact) is lower under CONS+RS by more \
         than 0.05 min.\n"
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
            v("exact", cons_p),
            v("user", cons_p),
            v("exact", rs_p),
            v("user", rs_p),
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
    let v4 = holds(smaller, n4);
    let _ = writeln!(
        out,
        "\n(mean wait, minutes.) User estimates cost CONS+RS less than Conservative on \
         {smaller} of {n4} traces.\n\n**Verdict: {v4}.**\n"
    );
    verdicts.push((c4, smaller, n4));
    (out, verdicts)
}
