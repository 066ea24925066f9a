//! The selective-reservation analyses from a merged plan table: the
//! reports of `host-cli compare`, `sweep`, `fairness` and `thresholds`,
//! built from the merged rows (`host-cli plan merge --json`) of the cells
//! of one trace, window and estimate kind, with their CSV rows and
//! figures, so that a study run as a plan writes what the commands write.
//!
//! A row is one cell's object of the merged table. The reports read the
//! cell's parameters (`trace`, `skip`, `first`, `short_max`, `narrow_max`,
//! `estimates`, `load`, `policy`) and these metrics:
//!
//! * [`compare()`] and [`sweep()`]: `jobs`, `mean_wait`,
//!   `mean_bounded_slowdown`, `mean_turnaround`, `worst_bounded_slowdown`,
//!   overall and per category (`NAME.SN`, ...), `utilisation`,
//!   `offered_load`, `thresholds` and `threshold_source`;
//! * [`fairness()`]: `jobs` and the `fair.*` counts, overall and per
//!   run-time class;
//! * [`thresholds()`]: `offered_load` and the `threshold.*` metrics, overall
//!   and per category.
//!
//! A missing metric is an error naming the cell and the metric. The
//! commands compare the jobs every policy finished; a cell's metrics are
//! over the jobs its replay finished. The two agree when every policy
//! finishes the same number of jobs (with the same input, all of them), so
//! the reports refuse cells whose `jobs` differ. The CSV rows' `trace` is
//! the trace's file name (the commands give the path as typed).

use super::spec::PARAMETER_COLUMNS;
use crate::numbers::{percent_change, round4};
use crate::output::report::{self, Accounting, MetricsRow};
use crate::replay::thresholds::{ThresholdSource, ThresholdsUsed};
use crate::replay::{Estimates, MachineSource};
use crate::studies::compare::{self, CompareReport, Comparison, PolicyResult, SetMetrics, SETS};
use crate::studies::fairness::{self, BucketCounts, FairnessPolicy, FairnessReport};
use crate::studies::sweep::{self, SweepReport};
use crate::studies::thresholds::ThresholdsCsvRow;
use crate::studies::Scenario;
use serde_json::{Map, Value};

/// One row of a merged plan table (one cell).
pub type Row = Map<String, Value>;

/// A report as the command writes it: its CSV rows and its figure (SVG).
#[derive(Clone, Debug)]
pub struct Drawn<R> {
    /// The rows of `--format csv`.
    pub rows: Vec<R>,
    /// The figure of `--svg`.
    pub svg: String,
}

/// The cell's number, for messages.
fn cell_of(row: &Row) -> String {
    row.get("cell")
        .map_or_else(|| "?".to_owned(), ToString::to_string)
}

/// Column `name` of `row`; an error naming the cell when it is missing
/// (not asked for by the plan).
fn column<'r>(row: &'r Row, name: &str) -> Result<&'r Value, String> {
    row.get(name)
        .ok_or_else(|| format!("plan cell {}: no column {name}", cell_of(row)))
}

/// Column `name` read by `read`, `empty` when the column is empty; an
/// error naming the cell when the value is not `what`.
fn typed<T>(
    row: &Row,
    name: &str,
    what: &str,
    empty: T,
    read: impl FnOnce(&Value) -> Option<T>,
) -> Result<T, String> {
    let v = column(row, name)?;
    if v.is_null() {
        return Ok(empty);
    }
    read(v).ok_or_else(|| format!("plan cell {}: {name} is not {what}", cell_of(row)))
}

/// Column `name` as a number (`None` when empty).
fn number(row: &Row, name: &str) -> Result<Option<f64>, String> {
    typed(row, name, "a number", None, |v| v.as_f64().map(Some))
}

/// Column `name` as a whole number (0 when empty).
fn count(row: &Row, name: &str) -> Result<u64, String> {
    typed(row, name, "a count", 0, Value::as_u64)
}

/// Column `name` as text (`None` when empty).
fn text(row: &Row, name: &str) -> Result<Option<String>, String> {
    typed(row, name, "text", None, |v| {
        v.as_str().map(|s| Some(s.to_owned()))
    })
}

/// `base` over set `set` (`all`: every job).
fn of_set(base: &str, set: &str) -> String {
    if set == "all" {
        base.to_owned()
    } else {
        format!("{base}.{set}")
    }
}

/// What the cells of `cells` ran on, at `load` (`None` for a sweep); an
/// error for no cell, or cells that differ in trace, window, bounds or
/// estimates, or finished different numbers of jobs.
fn scenario(cells: &[&Row], load: Option<f64>) -> Result<Scenario, String> {
    let first = cells.first().ok_or("no plan cell to report")?;
    // Every parameter but the load, the policy and its options.
    for &key in PARAMETER_COLUMNS.iter().take_while(|k| **k != "load") {
        if let Some(other) = cells.iter().find(|c| c.get(key) != first.get(key)) {
            return Err(format!(
                "plan cells {} and {} differ in {key}: a report is of one window",
                cell_of(first),
                cell_of(other)
            ));
        }
    }
    let jobs = count(first, "jobs")?;
    if let Some(other) = cells.iter().find(|c| count(c, "jobs").ok() != Some(jobs)) {
        return Err(format!(
            "plan cells {} and {} finished different numbers of jobs: their metrics are not \
             over the same jobs",
            cell_of(first),
            cell_of(other)
        ));
    }
    let trace = text(first, "trace")?.unwrap_or_default();
    let trace = std::path::Path::new(&trace)
        .file_name()
        .map_or(trace.clone(), |n| n.to_string_lossy().into_owned());
    let skip = count(first, "skip")?;
    let first_jobs = column(first, "first")?.as_u64();
    let estimates = match text(first, "estimates")?.as_deref() {
        Some("exact") => Estimates::Exact,
        Some("user") => Estimates::User,
        other => return Err(format!("plan cell {}: estimates {other:?}", cell_of(first))),
    };
    let bound = |name: &str| -> Result<u32, String> {
        u32::try_from(count(first, name)?)
            .map_err(|_| format!("plan cell {}: {name} too large", cell_of(first)))
    };
    Ok(Scenario {
        trace,
        // Neither the figures nor the CSV rows show the machine or the
        // job accounting; a plan's cells report them as metrics.
        machine_procs: 0,
        machine_source: MachineSource::MaxProcs,
        skip,
        first: first_jobs,
        window: report::window_text(skip, first_jobs),
        estimates,
        load,
        offered_load: match load {
            Some(_) => number(first, "offered_load")?,
            None => None,
        },
        short_max: bound("short_max")?,
        narrow_max: bound("narrow_max")?,
        accounting: Accounting {
            records_read: 0,
            jobs_in_window: jobs,
            partial_execution_lines: 0,
            skipped: report::SkippedJobs::default(),
            rejected_by_kernel: report::RejectedJobs::default(),
            scheduled: jobs,
            out_of_order: 0,
            no_requested_time: 0,
        },
        jobs_compared: jobs,
        jobs_not_finished_by_all: 0,
    })
}

/// The metrics of set `set` of a cell.
fn metrics_row(row: &Row, set: &str) -> Result<MetricsRow, String> {
    Ok(MetricsRow {
        set: set.to_owned(),
        jobs: count(row, &of_set("jobs", set))?,
        mean_wait: number(row, &of_set("mean_wait", set))?,
        mean_bounded_slowdown: number(row, &of_set("mean_bounded_slowdown", set))?,
        mean_turnaround: number(row, &of_set("mean_turnaround", set))?,
        worst_bounded_slowdown: number(row, &of_set("worst_bounded_slowdown", set))?,
        killed: 0,
    })
}

/// The thresholds a cell ran with, as the reports' rows name them.
fn thresholds_used(row: &Row) -> Result<ThresholdsUsed, String> {
    let source: ThresholdSource = serde_json::from_value(column(row, "threshold_source")?.clone())
        .map_err(|e| format!("plan cell {}: threshold_source: {e}", cell_of(row)))?;
    let values = text(row, "thresholds")?.unwrap_or_else(|| "-".to_owned());
    Ok(ThresholdsUsed {
        source,
        text: values.clone(),
        values,
        ..ThresholdsUsed::none()
    })
}

/// The cells of one load compared against the cell of policy `baseline`,
/// as `host-cli compare` compares them.
fn comparison(cells: &[&Row], baseline: &str) -> Result<Comparison, String> {
    let base = cells
        .iter()
        .find(|c| c.get("policy").and_then(Value::as_str) == Some(baseline))
        .ok_or_else(|| format!("no plan cell of the baseline {baseline}"))?;
    let load = number(base, "load")?.ok_or("a plan cell without a load")?;
    if let Some(other) = cells
        .iter()
        .find(|c| number(c, "load").ok().flatten() != Some(load))
    {
        return Err(format!(
            "plan cells {} and {} differ in load: a comparison is of one load",
            cell_of(base),
            cell_of(other)
        ));
    }
    let base_sets = SETS
        .iter()
        .map(|set| metrics_row(base, set))
        .collect::<Result<Vec<_>, _>>()?;
    let mut policies = Vec::new();
    for cell in cells {
        let mut sets = Vec::new();
        for (set, b) in SETS.iter().zip(&base_sets) {
            let metrics = metrics_row(cell, set)?;
            let empty = metrics.jobs == 0 || b.jobs == 0;
            let change = |v: Option<f64>, b: Option<f64>| {
                if empty {
                    None
                } else {
                    v.zip(b).and_then(|(v, b)| percent_change(v, b))
                }
            };
            sets.push(SetMetrics {
                mean_bounded_slowdown_change_pct: change(
                    metrics.mean_bounded_slowdown,
                    b.mean_bounded_slowdown,
                ),
                mean_turnaround_change_pct: change(metrics.mean_turnaround, b.mean_turnaround),
                worst_bounded_slowdown_change_pct: change(
                    metrics.worst_bounded_slowdown,
                    b.worst_bounded_slowdown,
                ),
                metrics,
            });
        }
        policies.push(PolicyResult {
            policy: text(cell, "policy")?.unwrap_or_default(),
            thresholds: thresholds_used(cell)?,
            utilisation: number(cell, "utilisation")?.unwrap_or(f64::NAN),
            killed: 0,
            sets,
        });
    }
    Ok(Comparison {
        load,
        offered_load: number(base, "offered_load")?,
        baseline: baseline.to_owned(),
        policies,
        conservative_thresholds: None,
    })
}

/// `host-cli compare`'s CSV rows and figure for the cells of one load
/// (one per policy, in the order of the rows), against the cell of policy
/// `baseline`.
///
/// # Errors
/// No cell of `baseline`, cells of different windows, loads or job
/// counts, a metric missing, or drawing errors.
pub fn compare(cells: &[&Row], baseline: &str) -> Result<Drawn<compare::CsvRow>, String> {
    let comparison = comparison(cells, baseline)?;
    let report = CompareReport {
        scenario: scenario(cells, Some(comparison.load))?,
        comparison,
    };
    Ok(Drawn {
        rows: compare::csv_rows(&report.scenario, &report.comparison),
        svg: compare::svg(&report).map_err(|e| e.to_string())?,
    })
}

/// `host-cli sweep`'s CSV rows and figure (of set `set`: `all` or a
/// category label) for the cells of several loads: one comparison per
/// load, in increasing order, its policies in the order of the rows.
///
/// # Errors
/// As [`compare()`].
pub fn sweep(cells: &[&Row], baseline: &str, set: &str) -> Result<Drawn<compare::CsvRow>, String> {
    let mut loads: Vec<f64> = cells
        .iter()
        .map(|c| number(c, "load")?.ok_or_else(|| "a plan cell without a load".to_owned()))
        .collect::<Result<_, _>>()?;
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let comparisons = loads
        .iter()
        .map(|&load| {
            let at: Vec<&Row> = cells
                .iter()
                .copied()
                .filter(|c| number(c, "load").ok().flatten() == Some(load))
                .collect();
            comparison(&at, baseline)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let report = SweepReport {
        scenario: scenario(cells, None)?,
        baseline: baseline.to_owned(),
        comparisons,
    };
    Ok(Drawn {
        rows: sweep::csv_rows(&report),
        svg: sweep::svg(&report, set).map_err(|e| e.to_string())?,
    })
}

/// The fairness metrics' suffixes of the run-time classes, in the order of
/// [`fairness::CLASSES`].
const CLASS_SUFFIXES: [&str; 5] = [".le_10m", ".10m_1h", ".1h_4h", ".4h_12h", ".gt_12h"];

/// The fairness counts of a cell with suffix `class` (`""`: every job).
fn bucket_counts(row: &Row, class: &str) -> Result<BucketCounts, String> {
    let mut c = BucketCounts {
        jobs: count(row, &format!("fair.jobs{class}"))?,
        ..BucketCounts::default()
    };
    for (slot, bucket) in
        c.counts
            .iter_mut()
            .zip(["le_1", "gt_1_le_1_5", "gt_1_5_le_2", "gt_2_le_4", "gt_4"])
    {
        *slot = count(row, &format!("fair.{bucket}{class}"))?;
    }
    c.finish();
    Ok(c)
}

/// `host-cli fairness`'s CSV rows and figure for the cells of one load
/// (one per policy, in the order of the rows).
///
/// # Errors
/// Cells of different windows, loads or job counts, or counting
/// different jobs against their fair starts, a metric missing, or
/// drawing errors.
pub fn fairness(cells: &[&Row]) -> Result<Drawn<fairness::CsvRow>, String> {
    let first = cells.first().ok_or("no plan cell to report")?;
    let load = number(first, "load")?;
    let mut policies = Vec::new();
    for cell in cells {
        if number(cell, "load")? != load {
            return Err(format!(
                "plan cells {} and {} differ in load: a fairness report is of one load",
                cell_of(first),
                cell_of(cell)
            ));
        }
        policies.push(FairnessPolicy {
            policy: text(cell, "policy")?.unwrap_or_default(),
            thresholds: ThresholdsUsed::none(),
            mean_bounded_slowdown: number(cell, "mean_bounded_slowdown")?.unwrap_or(f64::NAN),
            overall: bucket_counts(cell, "")?,
            by_class: CLASS_SUFFIXES
                .iter()
                .map(|class| bucket_counts(cell, class))
                .collect::<Result<_, _>>()?,
        });
    }
    let counted = |p: &FairnessPolicy| {
        (
            p.overall.jobs,
            p.by_class.iter().map(|c| c.jobs).collect::<Vec<_>>(),
        )
    };
    let (jobs_counted, class_jobs) = policies.first().map(counted).unwrap_or_default();
    if let Some((_, cell)) = policies
        .iter()
        .zip(cells)
        .find(|(p, _)| counted(p) != (jobs_counted, class_jobs.clone()))
    {
        return Err(format!(
            "plan cells {} and {} count different jobs against their fair starts",
            cell_of(first),
            cell_of(cell)
        ));
    }
    let report = FairnessReport {
        scenario: scenario(cells, load)?,
        buckets: fairness::BUCKETS.iter().map(|b| (*b).to_owned()).collect(),
        classes: fairness::CLASSES
            .iter()
            .map(|c| c.label.to_owned())
            .collect(),
        class_jobs,
        jobs_counted,
        jobs_without_fair_start: count(first, "fair.no_fair_start")?,
        fair_start_errors: Vec::new(),
        mean_fair_slowdown: f64::NAN,
        policies,
        conservative_thresholds: None,
    };
    Ok(Drawn {
        rows: fairness::csv_rows(&report),
        svg: fairness::svg(&report).map_err(|e| e.to_string())?,
    })
}

/// `host-cli thresholds`' CSV rows from the `threshold.*` metrics of a
/// cell (a Conservative cell, or one that took its thresholds from the
/// Conservative run): overall, then per category.
///
/// # Errors
/// A metric missing or empty (the cell had no Conservative run).
pub fn thresholds(cell: &Row) -> Result<Vec<ThresholdsCsvRow>, String> {
    let s = scenario(&[cell], number(cell, "load")?)?;
    SETS.iter()
        .map(|set| {
            let name = |base: &str| of_set(&format!("threshold.{base}"), set);
            Ok(ThresholdsCsvRow {
                trace: s.trace.clone(),
                window: s.window.clone(),
                estimates: s.estimates.name().to_owned(),
                load: s.load.unwrap_or(1.0),
                offered_load: s.offered_load.map(round4),
                set: (*set).to_owned(),
                jobs: count(cell, &name("jobs"))?,
                jobs_in_set: count(cell, &name("jobs_in_set"))?,
                mean_bounded_slowdown: number(cell, &name("mean_bounded_slowdown"))?.map(round4),
                threshold: number(cell, &name("value"))?.ok_or_else(|| {
                    format!(
                        "plan cell {}: no {} (no Conservative run)",
                        cell_of(cell),
                        name("value")
                    )
                })?,
            })
        })
        .collect()
}
