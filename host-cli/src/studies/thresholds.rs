//! `host-cli thresholds`: Selective's and Selective-D's starvation
//! thresholds from a Conservative run of a window (the paper's Tables 7
//! and 8), as a report, CSV rows and a table.

use super::{common_metrics, Scenario};
use crate::numbers::round4;
use crate::output::report::RejectedJobs;
use crate::replay::thresholds::{grid_text, milli_f64, ConservativeThresholds};
use crate::replay::{Prepared, RunResult, Window};
use backfill_core::CategoryBounds;
use serde::{Deserialize, Serialize};

/// What `host-cli thresholds` reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ThresholdsReport {
    /// What ran.
    pub(crate) scenario: Scenario,
    /// The Conservative run's means and the thresholds they give.
    pub(crate) thresholds: ConservativeThresholds,
    /// Selective's threshold (expansion factor, rounded to thousandths).
    pub(crate) selective: f64,
    /// Selective-D's thresholds, SN, SW, LN, LW.
    pub(crate) selective_d: [f64; 4],
}

/// One CSV row of `host-cli thresholds`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThresholdsCsvRow {
    /// Trace.
    pub trace: String,
    /// Window.
    pub window: String,
    /// Estimates.
    pub estimates: String,
    /// Load factor.
    pub load: f64,
    /// Offered load at that factor.
    pub offered_load: Option<f64>,
    /// `all` or a category.
    pub set: String,
    /// Jobs averaged.
    pub jobs: u64,
    /// Jobs in the set.
    pub jobs_in_set: u64,
    /// Their mean bounded slowdown.
    pub mean_bounded_slowdown: Option<f64>,
    /// The threshold used (thousandths rounded; the overall one for `all`
    /// and for an empty category).
    pub threshold: f64,
}

/// The thresholds report of `prepared`'s window from its Conservative
/// replay `run` (with per-job records) at load factor `load`.
#[must_use]
pub(crate) fn report(
    prepared: &Prepared,
    window: &Window,
    bounds: CategoryBounds,
    load: f64,
    run: &RunResult,
) -> ThresholdsReport {
    let t = ConservativeThresholds::from_records(
        run.records.as_deref().unwrap_or_default(),
        prepared.shaping.estimates,
        bounds,
    );
    let common = common_metrics(&[run], bounds, prepared.jobs.len());
    let scenario = Scenario::new(
        prepared,
        window,
        bounds,
        Some(load),
        RejectedJobs::of(&run.rejected),
        &common,
    );
    let (per, _) = t.per_category();
    ThresholdsReport {
        scenario,
        selective: milli_f64(t.fixed()),
        selective_d: per.map(milli_f64),
        thresholds: t,
    }
}

/// The CSV rows of a thresholds report: overall, then per category.
#[must_use]
pub(crate) fn csv_rows(report: &ThresholdsReport) -> Vec<ThresholdsCsvRow> {
    let s = &report.scenario;
    std::iter::once((&report.thresholds.overall, report.selective))
        .chain(report.thresholds.categories.iter().zip(report.selective_d))
        .map(|(m, threshold)| ThresholdsCsvRow {
            trace: s.trace.clone(),
            window: s.window.clone(),
            estimates: s.estimates.name().to_owned(),
            load: s.load.unwrap_or(1.0),
            offered_load: s.offered_load.map(round4),
            set: m.set.clone(),
            jobs: m.jobs,
            jobs_in_set: m.jobs_in_set,
            mean_bounded_slowdown: m.mean_bounded_slowdown.map(round4),
            threshold,
        })
        .collect()
}

/// A thresholds report as text: the scenario, then the grid of means and
/// thresholds.
#[must_use]
pub(crate) fn table(report: &ThresholdsReport) -> String {
    let mut out = report.scenario.text();
    out.push('\n');
    out.push_str(&grid_text(&report.thresholds));
    out
}
