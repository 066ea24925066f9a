//! Category comparison against a baseline policy (the paper's Figures 1,
//! 2, 3 and 5): for each set of jobs (all, SN, SW, LN, LW) and each policy,
//! the mean bounded slowdown, the mean turnaround and the worst bounded
//! slowdown, as absolute values and as a percent change against the
//! baseline on the same jobs: `100 * (policy - baseline) / baseline`, so
//! negative is better (the paper's example: SW slowdown 8.0 under
//! Conservative and 12.0 under EASY is +50%).

use super::{common_metrics, CommonMetrics, Scenario, Study};
use crate::error::CliError;
use crate::numbers::{pct_text, percent_change, round4};
use crate::output::report::MetricsRow;
use crate::replay::policy::PolicyChoice;
use crate::replay::thresholds::{ConservativeThresholds, ThresholdSource, ThresholdsUsed};
use crate::replay::{Prepared, Window};
use crate::studies::plot::{self, BarPanel, Series};
use backfill_core::{Accumulator, Category, CategoryBounds};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The three metrics compared: field name, label, short label.
pub(crate) const METRICS: [(&str, &str); 3] = [
    ("mean_bounded_slowdown", "mean bounded slowdown"),
    ("mean_turnaround", "mean turnaround (s)"),
    ("worst_bounded_slowdown", "worst bounded slowdown"),
];

/// The sets of jobs, in report order.
pub(crate) const SETS: [&str; 5] = ["all", "SN", "SW", "LN", "LW"];

/// One set of jobs under one policy: its metrics and their changes against
/// the baseline's on the same jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SetMetrics {
    /// The set's metrics.
    #[serde(flatten)]
    pub(crate) metrics: MetricsRow,
    /// Percent change of the mean bounded slowdown against the baseline.
    pub(crate) mean_bounded_slowdown_change_pct: Option<f64>,
    /// Percent change of the mean turnaround against the baseline.
    pub(crate) mean_turnaround_change_pct: Option<f64>,
    /// Percent change of the worst bounded slowdown against the baseline.
    pub(crate) worst_bounded_slowdown_change_pct: Option<f64>,
}

impl SetMetrics {
    fn new(set: &str, acc: &Accumulator, base: &Accumulator) -> Self {
        let metrics = MetricsRow::new(set, acc);
        let empty = acc.count == 0 || base.count == 0;
        let change = |v: f64, b: f64| if empty { None } else { percent_change(v, b) };
        Self {
            mean_bounded_slowdown_change_pct: change(
                metrics.mean_bounded_slowdown,
                base.mean_slowdown(),
            ),
            mean_turnaround_change_pct: change(metrics.mean_turnaround, base.mean_turnaround()),
            worst_bounded_slowdown_change_pct: change(
                metrics.worst_bounded_slowdown,
                base.worst_slowdown,
            ),
            metrics,
        }
    }

    /// Metric `index` of [`METRICS`]: (absolute value, percent change).
    #[must_use]
    pub(crate) fn metric(&self, index: usize) -> (f64, Option<f64>) {
        match index {
            0 => (
                self.metrics.mean_bounded_slowdown,
                self.mean_bounded_slowdown_change_pct,
            ),
            1 => (
                self.metrics.mean_turnaround,
                self.mean_turnaround_change_pct,
            ),
            _ => (
                self.metrics.worst_bounded_slowdown,
                self.worst_bounded_slowdown_change_pct,
            ),
        }
    }
}

/// One policy's results on the compared jobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PolicyResult {
    /// Policy name.
    pub(crate) policy: String,
    /// Its thresholds (Selective variants).
    pub(crate) thresholds: ThresholdsUsed,
    /// Utilisation of the whole replay.
    pub(crate) utilisation: f64,
    /// Jobs killed at their estimate.
    pub(crate) killed: u64,
    /// all, SN, SW, LN, LW.
    pub(crate) sets: Vec<SetMetrics>,
}

impl PolicyResult {
    /// The set labelled `set`.
    #[must_use]
    pub(crate) fn set(&self, set: &str) -> Option<&SetMetrics> {
        self.sets.iter().find(|s| s.metrics.set == set)
    }
}

/// The policies of a study compared at one load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Comparison {
    /// Load factor.
    pub(crate) load: f64,
    /// Offered load at that factor.
    pub(crate) offered_load: Option<f64>,
    /// The baseline policy.
    pub(crate) baseline: String,
    /// Every policy, the baseline included, in the order asked for.
    pub(crate) policies: Vec<PolicyResult>,
    /// Thresholds derived from the Conservative run, when used.
    pub(crate) conservative_thresholds: Option<ConservativeThresholds>,
}

impl Comparison {
    /// The result of `policy`.
    #[must_use]
    pub(crate) fn policy(&self, policy: &str) -> Option<&PolicyResult> {
        self.policies.iter().find(|p| p.policy == policy)
    }
}

/// Compares the runs of `study` against `baseline`'s on their common jobs.
///
/// # Errors
/// [`CliError::Usage`] when `baseline` was not run.
pub(crate) fn comparison(
    prepared: &Prepared,
    study: &Study,
    baseline: PolicyChoice,
    bounds: CategoryBounds,
) -> Result<(Comparison, CommonMetrics), CliError> {
    let base_index = study
        .runs
        .iter()
        .position(|r| r.choice == baseline)
        .ok_or_else(|| CliError::Usage(format!("baseline {baseline} was not run")))?;
    let results: Vec<_> = study.runs.iter().map(|r| &r.result).collect();
    let common = common_metrics(&results, bounds, prepared.jobs.len());
    let base = &common.per_run[base_index];
    let policies = study
        .runs
        .iter()
        .zip(&common.per_run)
        .map(|(run, m)| {
            let mut sets = vec![SetMetrics::new("all", &m.overall, &base.overall)];
            sets.extend(
                Category::ALL
                    .iter()
                    .map(|&c| SetMetrics::new(c.label(), m.category(c), base.category(c))),
            );
            PolicyResult {
                policy: run.choice.name().to_owned(),
                thresholds: run.thresholds.clone(),
                utilisation: run
                    .result
                    .metrics
                    .overall
                    .utilisation(u64::from(prepared.machine_procs)),
                killed: run.result.outcome.killed,
                sets,
            }
        })
        .collect();
    Ok((
        Comparison {
            load: prepared.shaping.load,
            offered_load: super::offered_load(prepared),
            baseline: baseline.name().to_owned(),
            policies,
            conservative_thresholds: study.conservative.clone(),
        },
        common,
    ))
}

/// What `host-cli compare` reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct CompareReport {
    /// What ran.
    pub(crate) scenario: Scenario,
    /// The results.
    pub(crate) comparison: Comparison,
}

/// Runs the comparison report of `study` on `prepared`.
///
/// # Errors
/// As [`comparison`].
pub(crate) fn report(
    prepared: &Prepared,
    window: &Window,
    study: &Study,
    baseline: PolicyChoice,
    bounds: CategoryBounds,
) -> Result<CompareReport, CliError> {
    let (comparison, common) = comparison(prepared, study, baseline, bounds)?;
    let scenario = Scenario::new(
        prepared,
        window,
        bounds,
        Some(prepared.shaping.load),
        study.rejected(),
        &common,
    );
    Ok(CompareReport {
        scenario,
        comparison,
    })
}

/// Lines naming each Selective variant's thresholds (nothing if none).
#[must_use]
pub(crate) fn thresholds_text(c: &Comparison) -> String {
    let mut out = String::new();
    for p in c.policies.iter().filter(|p| {
        p.thresholds.overall.is_some()
            || p.thresholds.per_category.is_some()
            || p.thresholds.scale.is_some()
    }) {
        let _ = writeln!(out, "thresholds   {}: {}", p.policy, p.thresholds.text);
    }
    out
}

/// The comparison as two tables: percent changes against the baseline,
/// then absolute values.
#[must_use]
pub(crate) fn comparison_text(c: &Comparison, jobs: u64) -> String {
    let mut out = String::new();
    let head = |out: &mut String, first: &str| {
        let _ = write!(out, "{first:<24} {:<20}", "policy");
        for s in SETS {
            let _ = write!(out, " {s:>10}");
        }
        out.push('\n');
    };
    let _ = writeln!(
        out,
        "percent change against {} on the same {jobs} jobs (negative is better)",
        c.baseline
    );
    head(&mut out, "metric");
    for (i, (_, label)) in METRICS.iter().enumerate() {
        let mut first = true;
        for p in c.policies.iter().filter(|p| p.policy != c.baseline) {
            let _ = write!(
                out,
                "{:<24} {:<20}",
                if first { *label } else { "" },
                p.policy
            );
            first = false;
            for s in &p.sets {
                let _ = write!(out, " {:>10}", pct_text(s.metric(i).1));
            }
            out.push('\n');
        }
    }
    let _ = writeln!(out, "\nabsolute values");
    head(&mut out, "metric");
    if let Some(p) = c.policies.first() {
        let _ = write!(out, "{:<24} {:<20}", "jobs", "");
        for s in &p.sets {
            let _ = write!(out, " {:>10}", s.metrics.jobs);
        }
        out.push('\n');
    }
    for (i, (_, label)) in METRICS.iter().enumerate() {
        for (k, p) in c.policies.iter().enumerate() {
            let _ = write!(
                out,
                "{:<24} {:<20}",
                if k == 0 { *label } else { "" },
                p.policy
            );
            for s in &p.sets {
                let v = s.metric(i).0;
                let _ = if i == 1 {
                    write!(out, " {v:>10.0}")
                } else {
                    write!(out, " {v:>10.2}")
                };
            }
            out.push('\n');
        }
    }
    for (k, p) in c.policies.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:<24} {:<20} {:>9.2}%",
            if k == 0 { "utilisation" } else { "" },
            p.policy,
            p.utilisation * 100.0
        );
    }
    out
}

/// `host-cli compare` as text.
#[must_use]
pub(crate) fn table(r: &CompareReport) -> String {
    let mut out = r.scenario.text();
    out.push_str(&thresholds_text(&r.comparison));
    if let Some(t) = &r.comparison.conservative_thresholds {
        out.push('\n');
        out.push_str(&crate::replay::thresholds::grid_text(t));
    }
    out.push('\n');
    out.push_str(&comparison_text(&r.comparison, r.scenario.jobs_compared));
    out
}

/// One CSV row: a set of jobs under one policy at one load (the same shape
/// for `compare` and `sweep`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CsvRow {
    /// Trace.
    pub trace: String,
    /// Window in words.
    pub window: String,
    /// `user` or `exact`.
    pub estimates: String,
    /// Load factor.
    pub load: f64,
    /// Offered load.
    pub offered_load: Option<f64>,
    /// Policy.
    pub policy: String,
    /// Baseline policy.
    pub baseline: String,
    /// all, SN, SW, LN, LW.
    pub set: String,
    /// Jobs in the set.
    pub jobs: u64,
    /// Mean wait (s).
    pub mean_wait: f64,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
    /// Mean turnaround (s).
    pub mean_turnaround: f64,
    /// Worst bounded slowdown.
    pub worst_bounded_slowdown: f64,
    /// Percent change against the baseline.
    pub mean_bounded_slowdown_change_pct: Option<f64>,
    /// Percent change against the baseline.
    pub mean_turnaround_change_pct: Option<f64>,
    /// Percent change against the baseline.
    pub worst_bounded_slowdown_change_pct: Option<f64>,
    /// Utilisation of the policy's replay.
    pub utilisation: f64,
    /// Thresholds used (values only; see `threshold_source`).
    pub thresholds: String,
    /// Where they came from: none, given, conservative,
    /// default-conservative, adaptive.
    pub threshold_source: ThresholdSource,
}

/// The CSV rows of one comparison: policies x sets (values rounded to 4
/// decimals).
#[must_use]
pub(crate) fn csv_rows(s: &Scenario, c: &Comparison) -> Vec<CsvRow> {
    let mut rows = Vec::new();
    for p in &c.policies {
        for m in &p.sets {
            rows.push(CsvRow {
                trace: s.trace.clone(),
                window: s.window.clone(),
                estimates: s.estimates.name().to_owned(),
                load: c.load,
                offered_load: c.offered_load.map(round4),
                policy: p.policy.clone(),
                baseline: c.baseline.clone(),
                set: m.metrics.set.clone(),
                jobs: m.metrics.jobs,
                mean_wait: round4(m.metrics.mean_wait),
                mean_bounded_slowdown: round4(m.metrics.mean_bounded_slowdown),
                mean_turnaround: round4(m.metrics.mean_turnaround),
                worst_bounded_slowdown: round4(m.metrics.worst_bounded_slowdown),
                mean_bounded_slowdown_change_pct: m.mean_bounded_slowdown_change_pct.map(round4),
                mean_turnaround_change_pct: m.mean_turnaround_change_pct.map(round4),
                worst_bounded_slowdown_change_pct: m.worst_bounded_slowdown_change_pct.map(round4),
                utilisation: round4(p.utilisation),
                thresholds: p.thresholds.values.clone(),
                threshold_source: p.thresholds.source,
            });
        }
    }
    rows
}

/// A short description of the scenario for figure subtitles.
#[must_use]
pub(crate) fn subtitle(s: &Scenario, load: Option<f64>) -> String {
    let name = std::path::Path::new(&s.trace)
        .file_name()
        .map_or_else(|| s.trace.clone(), |n| n.to_string_lossy().into_owned());
    let load = load.map_or_else(String::new, |l| format!(", load x{l}"));
    format!(
        "{name}: {}, {} estimates{load}, {} jobs",
        s.window,
        s.estimates.name(),
        s.jobs_compared
    )
}

/// The comparison as an SVG: one grouped bar chart per metric, categories on
/// the x axis, one bar per non-baseline policy (percent change).
///
/// # Errors
/// [`CliError::Io`] if drawing fails.
pub(crate) fn svg(r: &CompareReport) -> Result<String, CliError> {
    let c = &r.comparison;
    let others: Vec<&PolicyResult> = c
        .policies
        .iter()
        .filter(|p| p.policy != c.baseline)
        .collect();
    let panels: Vec<BarPanel> = METRICS
        .iter()
        .enumerate()
        .map(|(i, (_, label))| BarPanel {
            title: format!("{label}: % change vs {}", c.baseline),
            y_label: "% change (negative is better)".to_owned(),
            categories: SETS.iter().map(|s| (*s).to_owned()).collect(),
            series: others
                .iter()
                .map(|p| Series {
                    name: p.policy.clone(),
                    values: p.sets.iter().map(|s| s.metric(i).1).collect(),
                })
                .collect(),
        })
        .collect();
    plot::grouped_bars(
        &format!("Policies against {} by job category", c.baseline),
        &subtitle(&r.scenario, Some(c.load)),
        &panels,
    )
    .map_err(|e| CliError::Io("svg".into(), std::io::Error::other(e)))
}
