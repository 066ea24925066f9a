//! The DPSA study: every trace under EASY and DPSA-p/-n/-w with user and
//! exact estimates, and load sweeps on the DPSA paper's traces; its document
//! puts the paper's claims D1-D4 against our numbers.
//!
//! `cargo xtask study dpsa` runs the study's plan, `plan.toml` in its
//! folder, with `host-cli plan run` (`--jobs` cells at a time, every kernel
//! call timed), reads it back with `host-cli plan merge`, and writes
//! `data/dpsa-runs.csv` (one row per cell) and `data/study.toml`; [`generate`] writes, from those,
//! `data/dpsa-change.csv` (percent changes against EASY), the figures and
//! the README.

use super::{finish, holds, plan_f64, plan_str, run_plan, Common, Generated, PlanRow, Reports};
use crate::repo::{self, short, stem, Meta};
use crate::text::{comma_list, table_head};
use backfill_cli::numbers::{pct_text, percent_change};
use backfill_cli::studies::plot::{self, BarPanel, PointSeries, Series};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The study's name and folder.
pub const NAME: &str = "dpsa";
/// The traces the DPSA paper names and that we have, in its order.
const PAPER: [&str; 5] = [
    "LLNL-Thunder-2007-1.1-cln",
    "LLNL-Atlas-2006-2.1-cln",
    "HPC2N-2002-2.2-cln",
    "SDSC-Par-1996-3.1-cln",
    "SDSC-SP2-1998-4.2-cln",
];
const VARIANTS: [&str; 3] = ["dpsa-p", "dpsa-n", "dpsa-w"];
const ESTIMATES: [&str; 2] = ["user", "exact"];

/// One replay, as the CSV row `dpsa-runs.csv` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Run {
    trace: String,
    estimates: String,
    load: f64,
    policy: String,
    machine_procs: u64,
    jobs: u64,
    mean_bounded_slowdown: f64,
    mean_wait: f64,
    utilisation: f64,
    budget: Option<u64>,
    searches: Option<u64>,
    nodes: Option<u64>,
    budget_hits: Option<u64>,
    overflows: Option<u64>,
    replay_seconds: f64,
    slowest_call_ms: f64,
}

/// A percent change against EASY, as `dpsa-change.csv` holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Change {
    trace: String,
    estimates: String,
    load: f64,
    policy: String,
    easy_mean_bounded_slowdown: f64,
    mean_bounded_slowdown: f64,
    change_percent: f64,
    easy_utilisation: f64,
    budget_hits: Option<u64>,
}

/// Runs by (trace, estimates, load bits, policy).
type Index<'a> = BTreeMap<(String, String, u64, String), &'a Run>;

fn key(trace: &str, est: &str, load: f64, policy: &str) -> (String, String, u64, String) {
    (
        trace.to_owned(),
        est.to_owned(),
        load.to_bits(),
        policy.to_owned(),
    )
}

fn changes(runs: &[Run], index: &Index<'_>) -> Vec<Change> {
    let mut out = Vec::new();
    for r in runs.iter().filter(|r| r.policy != "easy") {
        let Some(easy) = index.get(&key(&r.trace, &r.estimates, r.load, "easy")) else {
            continue;
        };
        out.push(Change {
            trace: r.trace.clone(),
            estimates: r.estimates.clone(),
            load: r.load,
            policy: r.policy.clone(),
            easy_mean_bounded_slowdown: easy.mean_bounded_slowdown,
            mean_bounded_slowdown: r.mean_bounded_slowdown,
            change_percent: percent_change(r.mean_bounded_slowdown, easy.mean_bounded_slowdown)
                .unwrap_or(f64::NAN),
            easy_utilisation: easy.utilisation,
            budget_hits: r.budget_hits,
        });
    }
    out
}

/// Pearson correlation of the pairs (`None` with fewer than 3).
fn correlation(pairs: &[(f64, f64)]) -> Option<f64> {
    let n = pairs.len() as f64;
    if pairs.len() < 3 {
        return None;
    }
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let cov: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let vx: f64 = pairs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let vy: f64 = pairs.iter().map(|p| (p.1 - my).powi(2)).sum();
    (vx > 0.0 && vy > 0.0).then(|| cov / (vx * vy).sqrt())
}

/// Spearman rank correlation (ties get their mean rank).
fn rank_correlation(pairs: &[(f64, f64)]) -> Option<f64> {
    let ranks = |values: Vec<f64>| -> Vec<f64> {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        let mut ranks = vec![0.0; values.len()];
        let mut i = 0;
        while i < order.len() {
            let mut j = i;
            while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
                j += 1;
            }
            let mean = (i + j) as f64 / 2.0 + 1.0;
            for &k in &order[i..=j] {
                ranks[k] = mean;
            }
            i = j + 1;
        }
        ranks
    };
    let xs = ranks(pairs.iter().map(|p| p.0).collect());
    let ys = ranks(pairs.iter().map(|p| p.1).collect());
    let ranked: Vec<(f64, f64)> = xs.into_iter().zip(ys).collect();
    correlation(&ranked)
}

struct Doc<'a> {
    runs: &'a [Run],
    index: Index<'a>,
    changes: Vec<Change>,
    traces: Vec<String>,
    loads: Vec<f64>,
}

impl Doc<'_> {
    fn change(&self, trace: &str, est: &str, load: f64, policy: &str) -> Option<f64> {
        self.changes
            .iter()
            .find(|c| {
                c.trace == trace && c.estimates == est && c.load == load && c.policy == policy
            })
            .map(|c| c.change_percent)
    }

    fn run(&self, trace: &str, est: &str, load: f64, policy: &str) -> Option<&Run> {
        self.index.get(&key(trace, est, load, policy)).copied()
    }

    fn utilisation(&self, trace: &str) -> Option<f64> {
        self.run(trace, "user", 1.0, "easy").map(|r| r.utilisation)
    }

    fn others(&self) -> Vec<&str> {
        self.traces
            .iter()
            .map(String::as_str)
            .filter(|t| !PAPER.contains(t))
            .collect()
    }

    fn paper(&self) -> Vec<&str> {
        PAPER
            .iter()
            .copied()
            .filter(|t| self.traces.iter().any(|x| x == t))
            .collect()
    }
}

fn bars(doc: &Doc<'_>, traces: &[&str], title: &str) -> Result<String, String> {
    let panels: Vec<BarPanel> = ESTIMATES
        .iter()
        .map(|est| BarPanel {
            title: format!("{est} estimates"),
            y_label: "mean bounded slowdown vs EASY".into(),
            categories: traces.iter().map(|t| short(t)).collect(),
            series: VARIANTS
                .iter()
                .map(|p| Series {
                    name: (*p).to_owned(),
                    values: traces.iter().map(|t| doc.change(t, est, 1.0, p)).collect(),
                })
                .collect(),
        })
        .collect();
    plot::grouped_bars(
        title,
        "percent change of mean bounded slowdown against EASY; negative is better; whole traces, load x1",
        &panels,
    )
}

/// Runs the study into its folder (see the module docs).
pub fn run(common: &Common, reports: &Reports) -> Result<(), String> {
    let (study, cells, started) = run_plan(common, reports, NAME)?;
    let meta = Meta {
        seconds: started.elapsed().as_secs(),
        ..Meta::default()
    };
    let rows = repo::csv_text(&read_runs(&cells)?)?;
    finish(study, &[(RUNS_CSV, rows)], &meta, generate)
}

/// The runs file in `data/`.
const RUNS_CSV: &str = "dpsa-runs.csv";

/// The merged cells as CSV rows, sorted as the replay reports' file names
/// were (trace, estimates, policy, load).
fn read_runs(cells: &[PlanRow]) -> Result<Vec<Run>, String> {
    let u = |c: &PlanRow, name: &str| c.get(name).and_then(serde_json::Value::as_u64);
    let mut runs = cells
        .iter()
        .map(|c| {
            Ok(Run {
                trace: stem(Path::new(&plan_str(c, "trace")?)),
                estimates: plan_str(c, "estimates")?,
                load: plan_f64(c, "load")?,
                policy: plan_str(c, "policy")?,
                machine_procs: u(c, "machine_procs").unwrap_or(0),
                jobs: u(c, "jobs").unwrap_or(0),
                mean_bounded_slowdown: plan_f64(c, "mean_bounded_slowdown")?,
                mean_wait: plan_f64(c, "mean_wait")?,
                utilisation: plan_f64(c, "utilisation")?,
                budget: u(c, "dpsa.budget"),
                searches: u(c, "dpsa.searches"),
                nodes: u(c, "dpsa.nodes"),
                budget_hits: u(c, "dpsa.budget_hits"),
                overflows: u(c, "dpsa.overflows"),
                replay_seconds: plan_f64(c, "replay_seconds")?,
                slowest_call_ms: plan_f64(c, "slowest_call_us")? / 1000.0,
            })
        })
        .collect::<Result<Vec<Run>, String>>()?;
    runs.sort_by(|a, b| {
        (&a.trace, &a.estimates, &a.policy)
            .cmp(&(&b.trace, &b.estimates, &b.policy))
            .then(a.load.total_cmp(&b.load))
    });
    Ok(runs)
}

/// The study's generated files, from its `data/dpsa-runs.csv` and
/// `data/study.toml`: `data/dpsa-change.csv`, the four figures and
/// `README.md` (paths relative to the study's folder).
pub fn generate(dir: &Path) -> Result<Generated, String> {
    let (runs, meta) = repo::read_runs::<Run>(dir, RUNS_CSV)?;
    let index: Index<'_> = runs
        .iter()
        .map(|r| (key(&r.trace, &r.estimates, r.load, &r.policy), r))
        .collect();
    let mut traces: Vec<String> = runs.iter().map(|r| r.trace.clone()).collect();
    traces.sort();
    traces.dedup();
    let mut loads: Vec<f64> = runs.iter().map(|r| r.load).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let changes = changes(&runs, &index);
    let doc = Doc {
        runs: &runs,
        index,
        changes,
        traces,
        loads,
    };
    let mut out: Generated = vec![(
        "data/dpsa-change.csv".to_owned(),
        repo::csv_text(&doc.changes)?,
    )];
    let paper = doc.paper();
    let mut others = doc.others();
    others.sort_by(|a, b| {
        doc.utilisation(a)
            .unwrap_or(0.0)
            .total_cmp(&doc.utilisation(b).unwrap_or(0.0))
    });
    out.push((
        "figures/dpsa-paper-traces.svg".to_owned(),
        bars(&doc, &paper, "DPSA against EASY on the DPSA paper's traces")?,
    ));
    out.push((
        "figures/dpsa-other-traces.svg".to_owned(),
        bars(
            &doc,
            &others,
            "DPSA against EASY on the other traces (by utilisation)",
        )?,
    ));
    // The paper's Fig. 4: DPSA-n's change against utilisation.
    let all: Vec<&str> = doc.traces.iter().map(String::as_str).collect();
    let util_series: Vec<PointSeries> = ESTIMATES
        .iter()
        .map(|est| PointSeries {
            name: format!("dpsa-n, {est} estimates"),
            points: all
                .iter()
                .filter_map(|t| {
                    let u = doc.utilisation(t)? * 100.0;
                    let c = doc.change(t, est, 1.0, "dpsa-n")?;
                    let label = if *est == "user" {
                        short(t)
                    } else {
                        String::new()
                    };
                    Some((u, c, label))
                })
                .collect(),
            joined: false,
        })
        .collect();
    out.push((
        "figures/dpsa-utilisation.svg".to_owned(),
        plot::scatter(
            "DPSA-n's change against the trace's utilisation (the paper's Fig. 4)",
            "x: utilisation of the EASY replay (user estimates); y: percent change of mean bounded slowdown vs EASY",
            "utilisation (%)",
            "change vs EASY",
            &util_series,
        )?,
    ));
    let load_series: Vec<PointSeries> = paper
        .iter()
        .map(|t| PointSeries {
            name: short(t),
            points: doc
                .loads
                .iter()
                .filter_map(|&l| Some((l, doc.change(t, "user", l, "dpsa-n")?, String::new())))
                .collect(),
            joined: true,
        })
        .collect();
    out.push((
        "figures/dpsa-load.svg".to_owned(),
        plot::scatter(
            "DPSA-n's change as the load rises (user estimates)",
            "submit times divided by the load factor; percent change of mean bounded slowdown vs EASY at each load",
            "load factor",
            "change vs EASY",
            &load_series,
        )?,
    ));
    out.push(("README.md".to_owned(), markdown(&doc, &meta)));
    Ok(out)
}

fn budget_of(doc: &Doc<'_>) -> String {
    doc.runs
        .iter()
        .find_map(|r| r.budget)
        .map_or_else(|| "?".to_owned(), |b| b.to_string())
}

#[allow(clippy::too_many_lines)]
fn markdown(doc: &Doc<'_>, meta: &Meta) -> String {
    let mut out = String::new();
    let budget = budget_of(doc);
    let paper = doc.paper();
    let others = doc.others();
    let replays = doc.runs.len();
    let _ = writeln!(out, "# DPSA against EASY\n");
    let _ = writeln!(
        out,
        "Generated by `cargo xtask study dpsa` ({replays} replays, {} s on this 2-core machine) \
         with `xtask/src/study/dpsa.rs`, which runs the cells of [`plan.toml`](plan.toml) \
         with `host-cli plan run` and reads them back with `host-cli plan merge`; do not edit \
         by hand. Every number is in \
         [`data/dpsa-runs.csv`](data/dpsa-runs.csv) (one row per replay) and \
         [`data/dpsa-change.csv`](data/dpsa-change.csv) (percent changes against EASY).\n",
        meta.seconds
    );
    let _ = writeln!(
        out,
        "DPSA (I. Grudenić and N. Bogunović, *Computer cluster scheduling algorithm based on time \
         bounded dynamic programming*, MIPRO 2011) keeps EASY's head phase and head reservation, \
         then searches the other jobs that fit now for the set that starts the most processors; \
         the variants break ties by queue order (DPSA-p), narrow jobs first (DPSA-n) or wide jobs \
         first (DPSA-w). The rules as implemented are in `core/src/policy/dpsa.rs`.\n"
    );
    let _ = writeln!(out, "## Setup\n");
    let _ = writeln!(
        out,
        "* Every trace in the traces folder (`--traces DIR`), whole, at its own load (x1), replayed under EASY, \
         DPSA-p, DPSA-n and DPSA-w, once with the users' estimates and once with exact ones \
         (`--estimates exact`). Jobs are killed at their estimate; a job without a requested \
         time gets its run time as estimate (so SDSC-Par-1996, which has none, gives the same \
         schedule both ways). One machine of the header's size per trace.\n\
         * The DPSA paper's traces that we have: {}. SDSC-Par-1995 and the two workloads the \
         paper does not name are missing, so the paper's \"all eight\" becomes our five (and the \
         other {} traces as a wider check).\n\
         * Metric: mean bounded slowdown (10 s bound) over all jobs; change = (DPSA - EASY) / EASY, \
         negative is better (the paper's Fig. 3 reports average slowdown).\n\
         * Node budget: {budget} nodes per pass (the default, `DEFAULT_DPSA_NODES`). The paper ran \
         its search without a bound.\n\
         * Load sweeps (claim D4): the paper's traces with user estimates at load factors {} \
         (submit times divided by the factor), EASY and DPSA-n.\n",
        comma_list(paper.iter().map(|t| format!("`{t}`"))),
        others.len(),
        comma_list(doc.loads.iter().map(|l| format!("x{l}")))
    );
    // Results table.
    let _ = writeln!(out, "## Results\n");
    let _ = writeln!(
        out,
        "![DPSA on the paper's traces](figures/dpsa-paper-traces.svg)\n\n\
         ![DPSA on the other traces](figures/dpsa-other-traces.svg)\n"
    );
    let _ = writeln!(
        out,
        "Percent change of mean bounded slowdown against EASY (EASY's own value in the first \
         columns). Utilisation is the EASY replay's with user estimates. Paper traces first, \
         then the others by utilisation.\n"
    );
    let _ = writeln!(
        out,
        "| trace | util. | EASY user | p user | n user | w user | EASY exact | p exact | n exact | w exact |"
    );
    let _ = writeln!(
        out,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    let mut ordered: Vec<&str> = paper.clone();
    let mut rest = others.clone();
    rest.sort_by(|a, b| {
        doc.utilisation(a)
            .unwrap_or(0.0)
            .total_cmp(&doc.utilisation(b).unwrap_or(0.0))
    });
    ordered.extend(rest);
    for t in &ordered {
        let mut row = format!(
            "| {}{} | {} |",
            short(t),
            if PAPER.contains(t) { " (paper)" } else { "" },
            doc.utilisation(t)
                .map_or_else(|| "-".into(), |u| format!("{:.1}%", u * 100.0))
        );
        for est in ESTIMATES {
            let easy = doc
                .run(t, est, 1.0, "easy")
                .map_or_else(|| "-".into(), |r| format!("{:.2}", r.mean_bounded_slowdown));
            let _ = write!(row, " {easy} |");
            for p in VARIANTS {
                let _ = write!(row, " {} |", pct_text(doc.change(t, est, 1.0, p)));
            }
        }
        let _ = writeln!(out, "{row}");
    }
    // Summary counts.
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Better than EASY (negative change), traces out of those replayed:\n"
    );
    let _ = writeln!(
        out,
        "| variant | estimates | paper traces | all traces | range (all) |"
    );
    let _ = writeln!(out, "| --- | --- | ---: | ---: | --- |");
    for p in VARIANTS {
        for est in ESTIMATES {
            let of = |set: &[&str]| -> (usize, usize) {
                let v: Vec<f64> = set
                    .iter()
                    .filter_map(|t| doc.change(t, est, 1.0, p))
                    .collect();
                (v.iter().filter(|&&c| c < 0.0).count(), v.len())
            };
            let (pb, pn) = of(&paper);
            let (ab, an) = of(&ordered);
            let vals: Vec<f64> = ordered
                .iter()
                .filter_map(|t| doc.change(t, est, 1.0, p))
                .collect();
            let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let _ = writeln!(
                out,
                "| {p} | {est} | {pb} of {pn} | {ab} of {an} | {} to {} |",
                pct_text(Some(lo)),
                pct_text(Some(hi))
            );
        }
    }
    // Budget.
    let _ = writeln!(out, "\n## The node budget\n");
    let _ = writeln!(
        out,
        "Per replay: passes that searched (the greedy set was not provably optimal), budget \
         hits (searches stopped by the budget: their start set is the best found, not \
         necessarily the optimum), passes with more than 128 candidates (the rest were \
         backfilled greedily), replay time and the slowest kernel call. x1 load.\n"
    );
    let _ = writeln!(
        out,
        "| trace | estimates | policy | searches | nodes/search | budget hits | >128 candidates | replay s | slowest call ms |"
    );
    let _ = writeln!(
        out,
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    let mut total_hits = 0;
    let mut total_searches = 0;
    for t in &ordered {
        for est in ESTIMATES {
            for p in VARIANTS {
                let Some(r) = doc.run(t, est, 1.0, p) else {
                    continue;
                };
                let searches = r.searches.unwrap_or(0);
                let hits = r.budget_hits.unwrap_or(0);
                total_hits += hits;
                total_searches += searches;
                let per = if searches == 0 {
                    0.0
                } else {
                    r.nodes.unwrap_or(0) as f64 / searches as f64
                };
                let _ = writeln!(
                    out,
                    "| {} | {est} | {p} | {searches} | {per:.0} | {hits} | {} | {:.2} | {:.1} |",
                    short(t),
                    r.overflows.unwrap_or(0),
                    r.replay_seconds,
                    r.slowest_call_ms
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "\nIn all, {total_hits} of {total_searches} searches ({:.2}%) hit the budget.\n",
        if total_searches == 0 {
            0.0
        } else {
            100.0 * total_hits as f64 / total_searches as f64
        }
    );
    out.push_str(&claims(doc));
    out
}

#[allow(clippy::too_many_lines)]
fn claims(doc: &Doc<'_>) -> String {
    let mut out = String::new();
    let paper = doc.paper();
    let all: Vec<&str> = doc.traces.iter().map(String::as_str).collect();
    let changes_of = |p: &str, est: &str, set: &[&str]| -> Vec<(String, f64)> {
        set.iter()
            .filter_map(|t| doc.change(t, est, 1.0, p).map(|c| (short(t), c)))
            .collect()
    };
    let listing = |v: &[(String, f64)]| -> String {
        comma_list(v.iter().map(|(t, c)| {
            if c.abs() < NO_CHANGE {
                format!("{t} {c:+.3}% (no change)")
            } else {
                format!("{t} {c:+.1}%")
            }
        }))
    };
    let better = |v: &[(String, f64)]| v.iter().filter(|(_, c)| *c <= -NO_CHANGE).count();
    let worse = |v: &[(String, f64)]| v.iter().filter(|(_, c)| *c >= NO_CHANGE).count();
    // One line per estimate kind: on how many paper traces `policy` is
    // better (or worse) than EASY, and every change.
    let per_estimate = |out: &mut String, policy: &str, better_side: bool| {
        let word = if better_side { "better" } else { "worse" };
        for est in ESTIMATES {
            let v = changes_of(policy, est, &paper);
            let n = if better_side { better(&v) } else { worse(&v) };
            let _ = writeln!(
                out,
                "* {est} estimates: {word} on {n} of {}: {}.",
                v.len(),
                listing(&v)
            );
        }
    };
    let _ = writeln!(out, "## The paper's claims\n");
    let _ = writeln!(
        out,
        "Verdicts use the five paper traces we have, with user estimates as the main reading \
         (the paper's simulator used the logs' requested times) and exact estimates beside it. \
         \"Holds\" means the sign (better or worse than EASY) agrees on every one of the five; \
         \"partly\" that it agrees on some. A change smaller than {NO_CHANGE}% either way counts as \
         no change.\n"
    );
    // D1.
    let _ = writeln!(
        out,
        "### D1: DPSA-n beats EASY on every workload (0.3% on Atlas to 40% on Thunder)\n"
    );
    per_estimate(&mut out, "dpsa-n", true);
    let v = changes_of("dpsa-n", "user", &paper);
    let w = changes_of("dpsa-n", "user", &all);
    let best = v.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let d1 = holds(better(&v), v.len());
    let _ = writeln!(
        out,
        "* Over all {} traces (user estimates): better on {}.\n\n**Verdict: {d1}.** {} {}\n",
        w.len(),
        better(&w),
        best.map_or_else(String::new, |(t, c)| format!(
            "Our largest gain on the paper's traces is {t} ({c:+.1}%)."
        )),
        REASONS_D1
    );
    // D2.
    let _ = writeln!(out, "### D2: DPSA-p is better on half of the workloads (1% to 8%) and worse on the other half (up to +17% on Thunder)\n");
    per_estimate(&mut out, "dpsa-p", true);
    let v = changes_of("dpsa-p", "user", &paper);
    let mixed = better(&v) > 0 && worse(&v) > 0;
    let _ = writeln!(
        out,
        "\n**Verdict: {}.** {}\n",
        if mixed {
            "holds in kind (mixed: better on some traces, worse on others)"
        } else if worse(&v) == 0 {
            "does not hold: DPSA-p is nowhere worse"
        } else {
            "does not hold: DPSA-p is nowhere better"
        },
        REASONS_D2
    );
    // D3.
    let _ = writeln!(
        out,
        "### D3: DPSA-w is always worse than EASY (up to +145%)\n"
    );
    per_estimate(&mut out, "dpsa-w", false);
    let v = changes_of("dpsa-w", "user", &paper);
    let w = changes_of("dpsa-w", "user", &all);
    let _ = writeln!(
        out,
        "* Over all {} traces (user estimates): worse on {}.\n\n**Verdict: {}.** {}\n",
        w.len(),
        worse(&w),
        holds(worse(&v), v.len()),
        REASONS_D3
    );
    // D4.
    let _ = writeln!(out, "### D4: DPSA-n's gain grows with utilisation; negligible on Atlas and HPC2N; the SDSC traces are outliers\n");
    let _ = writeln!(
        out,
        "![DPSA-n against utilisation](figures/dpsa-utilisation.svg)\n"
    );
    for est in ESTIMATES {
        let pairs = |set: &[&str]| -> Vec<(f64, f64)> {
            set.iter()
                .filter_map(|t| Some((doc.utilisation(t)?, -doc.change(t, est, 1.0, "dpsa-n")?)))
                .collect()
        };
        let fmt = |c: Option<f64>| c.map_or_else(|| "-".to_owned(), |c| format!("{c:+.2}"));
        let _ = writeln!(
            out,
            "* {est} estimates: correlation of DPSA-n's gain (minus the change) with utilisation: \
             Pearson {} and Spearman {} over the {} paper traces; Pearson {} and Spearman {} over \
             all {} traces.",
            fmt(correlation(&pairs(&paper))),
            fmt(rank_correlation(&pairs(&paper))),
            pairs(&paper).len(),
            fmt(correlation(&pairs(&all))),
            fmt(rank_correlation(&pairs(&all))),
            pairs(&all).len()
        );
    }
    for t in ["LLNL-Atlas-2006-2.1-cln", "HPC2N-2002-2.2-cln"] {
        if let (Some(u), Some(c)) = (doc.utilisation(t), doc.change(t, "user", 1.0, "dpsa-n")) {
            let _ = writeln!(
                out,
                "* {}: utilisation {:.1}%, DPSA-n {c:+.1}% (user estimates).",
                short(t),
                u * 100.0
            );
        }
    }
    let _ = writeln!(
        out,
        "\n![DPSA-n as the load rises](figures/dpsa-load.svg)\n"
    );
    out.push_str(&table_head(
        &[("trace (user estimates)", "---")],
        doc.loads.iter().map(|l| format!("x{l}")),
    ));
    let mut rising = 0;
    let mut swept = 0;
    for t in &paper {
        let gains: Vec<Option<f64>> = doc
            .loads
            .iter()
            .map(|&l| doc.change(t, "user", l, "dpsa-n"))
            .collect();
        let cells: Vec<String> = gains
            .iter()
            .zip(&doc.loads)
            .map(|(c, &l)| {
                let util = doc.run(t, "user", l, "easy").map_or_else(String::new, |r| {
                    format!(" (util. {:.0}%)", r.utilisation * 100.0)
                });
                format!("{}{util}", pct_text(*c))
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", short(t), cells.join(" | "));
        let known: Vec<f64> = gains.iter().flatten().copied().collect();
        if known.len() >= 2 {
            swept += 1;
            if known.last() < known.first() {
                rising += 1;
            }
        }
    }
    let _ = writeln!(
        out,
        "\nWithin a trace, DPSA-n's gain is larger at the highest load than at x1 on {rising} of \
         {swept} paper traces.\n"
    );
    let user_pairs: Vec<(f64, f64)> = paper
        .iter()
        .filter_map(|t| Some((doc.utilisation(t)?, -doc.change(t, "user", 1.0, "dpsa-n")?)))
        .collect();
    let rises = rank_correlation(&user_pairs).is_some_and(|r| r > 0.0) && rising * 2 > swept;
    let _ = writeln!(
        out,
        "**Verdict: {}.** Across traces the gain rises with utilisation (positive rank \
         correlation above) and within each trace it rises with the load on {rising} of {swept}; \
         Atlas and HPC2N gain little at their own load, as the paper says. The SDSC traces sit off \
         the trend, as the paper remarks: {}.\n",
        if rises { "holds" } else { "partly" },
        comma_list(
            ["SDSC-Par-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln"]
                .iter()
                .filter_map(|t| Some(format!(
                    "{} {:+.1}% at {:.1}% utilisation",
                    short(t),
                    doc.change(t, "user", 1.0, "dpsa-n")?,
                    doc.utilisation(t)? * 100.0
                )))
        )
    );
    out
}

/// Changes smaller than this (percent, either way) count as no change.
const NO_CHANGE: f64 = 0.05;

/// Where our numbers differ from the paper's, the likely reasons (the
/// figures quoted are the trace files' own, from `host-cli info` and the
/// paper's own statements).
const REASONS_D1: &str = "Where we differ: on LLNL-Atlas DPSA-n changes nothing at all, \
    because the search ran once in the whole trace (see the budget table): at its own load the \
    queue almost never holds two jobs that could start beside the head's reservation, so the \
    paper's 0.3% is as small as our zero in practice. The size of the gains differs from the \
    paper's (Thunder beyond its 40%) most likely because our logs are the archive's cleaned \
    versions (Thunder keeps 121,039 of 128,662 jobs, Atlas 43,778 of 60,332), because a job \
    without a requested time gets its run time as estimate (80,200 of Thunder's 118,791 usable \
    jobs), because jobs are killed at their estimate, and because the search is bounded \
    (the paper's was not).";
const REASONS_D2: &str = "The paper's largest loss, +17% on Thunder, is +1% for us with user \
    estimates and a gain with exact ones: DPSA-p's ties go to queue order, so it differs from \
    EASY only where a strictly larger start set exists, and with most of Thunder's estimates \
    exact (no requested time) such sets are rare. The same data differences as in D1 apply.";
const REASONS_D3: &str = "DPSA-w loses on most traces, by up to +130% (Thunder) against the \
    paper's +145%; where it does not, it changes nothing (Atlas: one search) or, with exact \
    estimates, wins a little (HPC2N): wide-first ties delay narrow jobs most when estimates \
    are poor, so exact estimates soften the loss.";
