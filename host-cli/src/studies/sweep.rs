//! Load sweeps (the paper's Figures 4 and 6): the comparison of
//! [`super::compare`] at several load factors. Each load divides every
//! submit time by the factor (`docs/design.md`, "Replaying SWF traces"), and
//! each load gets its own Conservative run for thresholds, so Selective's
//! thresholds follow the load as in the paper. Loads run in parallel
//! (rayon), every replay on its own large-stack thread.

use super::compare::{self, Comparison, CsvRow, METRICS};
use super::{run_study, Scenario, Source};
use crate::error::CliError;
use crate::numbers::pct_text;
use crate::replay::policy::{PolicyChoice, ThresholdOptions};
use crate::replay::{Estimates, Shaping, Window};
use crate::studies::plot::{self, LinePanel, Series};
use backfill_core::CategoryBounds;
use rayon::prelude::*;
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

/// The sweep's parameters.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SweepSpec {
    /// Window.
    pub(crate) window: Window,
    /// Estimates.
    pub(crate) estimates: Estimates,
    /// Load factors.
    pub(crate) loads: Vec<f64>,
    /// Policies.
    pub(crate) choices: Vec<PolicyChoice>,
    /// Threshold options.
    pub(crate) options: ThresholdOptions,
    /// Baseline.
    pub(crate) baseline: PolicyChoice,
    /// Category bounds.
    pub(crate) bounds: CategoryBounds,
}

/// Replays a sweep: every load, every policy.
///
/// # Errors
/// Option, preparation and replay errors.
pub(crate) fn run(
    source: &Source,
    spec: &SweepSpec,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<SweepReport, CliError> {
    if spec.loads.is_empty() {
        return Err(CliError::Usage(
            "--loads needs at least one load factor".into(),
        ));
    }
    spec.options.check(&spec.choices)?;
    let prepared = spec
        .loads
        .iter()
        .map(|&load| {
            source.prepare(
                &spec.window,
                Shaping {
                    estimates: spec.estimates,
                    load,
                },
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let results = prepared
        .par_iter()
        .map(|p| {
            let study = run_study(p, &spec.choices, &spec.options, spec.bounds, None, progress)?;
            let (c, common) = compare::comparison(p, &study, spec.baseline, spec.bounds)?;
            Ok((c, common, study.rejected()))
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    let (Some(first), Some((_, common, rejected))) = (prepared.first(), results.first()) else {
        return Err(CliError::Usage(
            "--loads needs at least one load factor".into(),
        ));
    };
    let scenario = Scenario::new(first, &spec.window, spec.bounds, None, *rejected, common);
    Ok(SweepReport {
        scenario,
        baseline: spec.baseline.name().to_owned(),
        comparisons: results.into_iter().map(|(c, _, _)| c).collect(),
    })
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
                        let v = if i == 1 {
                            format!("{v:.0}")
                        } else {
                            format!("{v:.2}")
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
                            .map(|s| s.metric(i).0)
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
