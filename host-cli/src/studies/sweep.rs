//! Load sweeps (the paper's Figures 4 and 6): the comparison of
//! [`super::compare`] at several load factors. Each load divides every
//! submit time by the factor (`docs/design.md`, "Replaying SWF traces"), and
//! each load gets its own Conservative run for thresholds, so Selective's
//! thresholds follow the load as in the paper. The replays run as the
//! cells of a plan (`crate::plan::sweep`), in parallel, every replay on its
//! own large-stack thread; this module makes the report, its table, CSV rows
//! and figure.

use super::compare::{self, Comparison, CsvRow, METRICS};
use super::Scenario;
use crate::error::CliError;
use crate::numbers::pct_text;
use crate::studies::plot::{self, LinePanel, Series};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// What `host-cli sweep` reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SweepReport {
    /// What ran (its load is `None`; see each comparison).
    pub(crate) scenario: Scenario,
    /// Baseline policy.
    pub(crate) baseline: String,
    /// One comparison per load, in the order given.
    pub(crate) comparisons: Vec<Comparison>,
}

/// The sweep for one set of jobs as text: per metric, a load x policy table
/// of absolute values with the percent change against the baseline.
#[must_use]
pub(crate) fn table(r: &SweepReport, set: &str) -> String {
    let mut out = r.scenario.text();
    for c in &r.comparisons {
        let t = compare::thresholds_text(c);
        if !t.is_empty() {
            let _ = writeln!(out, "at load x{}:", c.load);
            out.push_str(&t);
        }
    }
    let policies: Vec<&str> = r
        .comparisons
        .first()
        .map(|c| c.policies.iter().map(|p| p.policy.as_str()).collect())
        .unwrap_or_default();
    for (i, (_, label)) in METRICS.iter().enumerate() {
        let _ = writeln!(
            out,
            "\n{label}, set {set} (in brackets: change against {})",
            r.baseline
        );
        let _ = write!(out, "{:>6} {:>8}", "load", "offered");
        for p in &policies {
            let _ = write!(out, " {p:>22}");
        }
        out.push('\n');
        for c in &r.comparisons {
            let offered = c
                .offered_load
                .map_or_else(|| "-".to_owned(), |o| format!("{o:.2}"));
            let _ = write!(out, "{:>6} {offered:>8}", c.load);
            for p in &c.policies {
                let cell = p.set(set).map_or_else(
                    || "-".to_owned(),
                    |s| {
                        let (v, change) = s.metric(i);
                        let v = match v {
                            None => "-".to_owned(),
                            Some(v) if i == 1 => format!("{v:.0}"),
                            Some(v) => format!("{v:.2}"),
                        };
                        if p.policy == r.baseline {
                            v
                        } else {
                            format!("{v} ({})", pct_text(change))
                        }
                    },
                );
                let _ = write!(out, " {cell:>22}");
            }
            out.push('\n');
        }
    }
    out
}

/// Every comparison's CSV rows (loads x policies x sets).
#[must_use]
pub(crate) fn csv_rows(r: &SweepReport) -> Vec<CsvRow> {
    r.comparisons
        .iter()
        .flat_map(|c| compare::csv_rows(&r.scenario, c))
        .collect()
}

/// The sweep as an SVG line chart: mean bounded slowdown and mean
/// turnaround of `set` against the load factor, one line per policy.
///
/// # Errors
/// [`CliError::Io`] if drawing fails.
pub(crate) fn svg(r: &SweepReport, set: &str) -> Result<String, CliError> {
    let xs: Vec<f64> = r.comparisons.iter().map(|c| c.load).collect();
    let policies: Vec<String> = r
        .comparisons
        .first()
        .map(|c| c.policies.iter().map(|p| p.policy.clone()).collect())
        .unwrap_or_default();
    let panel = |i: usize, title: &str, y: &str| LinePanel {
        title: title.to_owned(),
        x_label: "load factor (submit times divided by it)".to_owned(),
        y_label: y.to_owned(),
        xs: xs.clone(),
        series: policies
            .iter()
            .map(|name| Series {
                name: name.clone(),
                values: r
                    .comparisons
                    .iter()
                    .map(|c| {
                        c.policy(name)
                            .and_then(|p| p.set(set))
                            .and_then(|s| s.metric(i).0)
                    })
                    .collect(),
            })
            .collect(),
    };
    let set_text = if set == "all" {
        "all jobs".to_owned()
    } else {
        format!("{set} jobs")
    };
    plot::lines(
        &format!("Policies across load factors ({set_text})"),
        &compare::subtitle(&r.scenario, None),
        &[
            panel(0, "mean bounded slowdown", "mean bounded slowdown"),
            panel(1, "mean turnaround", "mean turnaround (s)"),
        ],
    )
    .map_err(|e| CliError::Io("svg".into(), std::io::Error::other(e)))
}
