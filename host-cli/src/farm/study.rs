//! `host-cli farm-study`: the flexible-backfilling paper's experiments.
//!
//! * **Grid** (the paper's figures 1(a), 1(b), 2(a)): inter-arrival means
//!   4, 6, 12, 24 and 48 x 20 repetitions x FCFS, BF_FCFS, BF_UNMOD and
//!   BF_MOD, on farms and job streams from the generator with the paper's
//!   parameters.
//! * **License sweep** (its figure 2(b), two tables): the license ratio's
//!   range moved from scarce to plentiful copies (default 10-30% ...
//!   70-90%; the paper's is 50-70%) at one inter-arrival mean (default 12),
//!   20 repetitions each: license usage and deadlines missed.
//!
//! Repetition `r` uses seed `seed + r` for every mean, ratio and policy
//! (common random numbers: the policies, and the means, see the same farms
//! and jobs; a mean only stretches the gaps), and every repetition draws
//! its farm anew (`docs/design.md`, "Choices where the papers are vague"). Replays run in parallel (rayon) with
//! a progress bar on a terminal; results do not depend on the order they
//! finish in.
//!
//! Outputs: `farm-grid.csv` and `farm-licenses.csv` (one row per replay),
//! `farm-grid-summary.csv` and `farm-licenses-summary.csv` (per setting and
//! policy: mean and the half-width of its Student-t 95% confidence
//! interval, none for one repetition, of every metric over the
//! repetitions), and figures `farm-fig1a-deadlines.svg`,
//! `farm-fig1b-usage.svg`, `farm-fig2a-slowdown.svg` and
//! `farm-fig2b-licenses.svg`.

use super::generate::{generate, FarmSpec};
use super::replay::{self as farm_replay, prepare, PreparedFarm, SkipReason};
use crate::error::CliError;
use crate::numbers::{count_of, number_text, round4};
use crate::output::{csv_records, csv_text};
use crate::studies::plot::{interval_lines, IntervalLine, IntervalPanel};
use backfill_core::{CategoryBounds, Policy};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct StudySpec {
    /// The generator's parameters (its mean, license ratio and seed are
    /// replaced by the grid's).
    pub base: FarmSpec,
    /// Inter-arrival means of the grid.
    pub means: Vec<f64>,
    /// Repetitions per setting.
    pub repetitions: u32,
    /// Policies.
    pub policies: Vec<Policy>,
    /// License ratio ranges of the sweep (empty: no sweep).
    pub license_ratios: Vec<(u32, u32)>,
    /// Inter-arrival mean of the sweep.
    pub license_mean: f64,
}

/// One replay's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyRow {
    /// `grid` or `licenses`.
    pub experiment: String,
    /// Mean inter-arrival time.
    pub mean_interarrival: f64,
    /// License ratio range, `LO-HI` percent.
    pub license_ratio: String,
    /// Repetition (0-based).
    pub repetition: u32,
    /// Generator seed.
    pub seed: u64,
    /// Policy.
    pub policy: String,
    /// Offered load: estimated CPU-time of the jobs over the farm's CPUs
    /// times the last submit time.
    pub offered_load: f64,
    /// Jobs replayed.
    pub jobs: u64,
    /// Jobs no machine can run (not replayed).
    pub skipped: u64,
    /// The paper's system usage, percent.
    pub system_usage: Option<f64>,
    /// System usage against the CPUs jobs ask for, percent.
    pub system_usage_cpus: Option<f64>,
    /// Utilisation, percent.
    pub utilisation: f64,
    /// Deadline jobs replayed.
    pub deadline_jobs: u64,
    /// Of those, missed.
    pub missed_deadlines: u64,
    /// Missed, percent of the deadline jobs.
    pub missed_percent: Option<f64>,
    /// Mean slowdown (unbounded).
    pub mean_slowdown: f64,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
    /// Mean wait.
    pub mean_wait: f64,
    /// License usage, percent.
    pub license_usage: Option<f64>,
    /// BF_MOD's reservation hand-overs.
    pub handovers: u64,
    /// Longest queue.
    pub max_queue: u64,
    /// Last end minus first submit.
    pub span: u64,
}

/// How a metric is read from a replay's row.
pub(crate) type MetricReader = fn(&StudyRow) -> Option<f64>;

/// A labelled setting (an inter-arrival mean, a license ratio) and the test
/// picking its summary rows.
type Setting<'a> = (String, Box<dyn Fn(&SummaryRow) -> bool + 'a>);

/// The metrics a summary covers: CSV column stem and how to read it.
pub(crate) const METRICS: [(&str, MetricReader); 10] = [
    ("missed_percent", |r| r.missed_percent),
    ("system_usage", |r| r.system_usage),
    ("system_usage_cpus", |r| r.system_usage_cpus),
    ("utilisation", |r| Some(r.utilisation)),
    ("mean_slowdown", |r| Some(r.mean_slowdown)),
    ("mean_bounded_slowdown", |r| Some(r.mean_bounded_slowdown)),
    ("mean_wait", |r| Some(r.mean_wait)),
    ("license_usage", |r| r.license_usage),
    ("handovers", |r| {
        #[allow(clippy::cast_precision_loss)]
        let h = r.handovers as f64;
        Some(h)
    }),
    ("offered_load", |r| Some(r.offered_load)),
];

/// The Student-t quantile that a 95% two-sided interval of the mean of
/// `n` values takes (`t(0.975, n - 1)`); `None` for fewer than 2 values.
#[must_use]
pub(crate) fn t95(n: usize) -> Option<f64> {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    #[allow(clippy::cast_precision_loss)]
    let df = n.checked_sub(1).filter(|&d| d > 0)? as f64;
    StudentsT::new(0.0, 1.0, df)
        .ok()
        .map(|t| t.inverse_cdf(0.975))
}

/// The mean of some values and the half-width of its Student-t 95%
/// confidence interval, `t(0.975, n - 1) * s / sqrt(n)` with `s` the
/// sample standard deviation; no half-width for a single value (one
/// repetition gives no interval).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MeanInterval {
    /// The mean.
    pub(crate) mean: f64,
    /// The half-width; `None` below 2 values.
    pub(crate) half_width: Option<f64>,
}

/// The [`MeanInterval`] of `values`; `None` when empty.
#[must_use]
pub(crate) fn mean_ci(values: &[f64]) -> Option<MeanInterval> {
    if values.is_empty() {
        return None;
    }
    #[allow(clippy::cast_precision_loss)]
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let half_width = t95(values.len()).map(|t| {
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        t * (var / n).sqrt()
    });
    Some(MeanInterval { mean, half_width })
}

/// What the intervals of a study with `repetitions` runs per point are, in
/// words, for every output that shows them.
#[must_use]
pub(crate) fn interval_text(repetitions: u32) -> String {
    match t95(repetitions as usize) {
        Some(t) => format!(
            "+- is the half-width of the Student-t 95% confidence interval of the mean over \
             {repetitions} repetitions (t = {t:.3}, {})",
            count_of(
                u64::from(repetitions - 1),
                "degree of freedom",
                "degrees of freedom"
            )
        ),
        None => "one repetition: means without a confidence interval".to_owned(),
    }
}

/// One setting x policy, summarised over its repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SummaryRow {
    /// `grid` or `licenses`.
    pub(crate) experiment: String,
    /// Mean inter-arrival time.
    pub(crate) mean_interarrival: f64,
    /// License ratio range.
    pub(crate) license_ratio: String,
    /// Policy.
    pub(crate) policy: String,
    /// Repetitions.
    pub(crate) repetitions: u64,
    /// Per metric of [`METRICS`]: its name, mean and interval.
    #[serde(skip)]
    pub(crate) values: Vec<(String, Option<MeanInterval>)>,
}

impl SummaryRow {
    /// The mean and confidence interval of metric `name`.
    #[must_use]
    pub(crate) fn get(&self, name: &str) -> Option<MeanInterval> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| *v)
    }
}

/// Everything a study produced.
#[derive(Clone, Debug, PartialEq)]
pub struct StudyResults {
    /// What ran.
    pub spec: StudySpec,
    /// The grid's replays, by mean, repetition, policy.
    pub grid: Vec<StudyRow>,
    /// The license sweep's replays, by ratio, repetition, policy.
    pub licenses: Vec<StudyRow>,
}

/// The text of a license ratio range.
#[must_use]
pub(crate) fn ratio_text((lo, hi): (u32, u32)) -> String {
    format!("{lo}-{hi}")
}

/// A prepared farm's offered load (estimated CPU-time of the jobs over the
/// farm's CPUs times the last submit time) and the jobs no machine can run.
#[must_use]
pub(crate) fn offered(prepared: &PreparedFarm) -> (f64, u64) {
    let cpus = prepared.workload.farm.total_cpus();
    let work: f64 = prepared
        .jobs
        .iter()
        .map(|j| f64::from(j.job.estimate) * f64::from(j.job.procs))
        .sum();
    let last = prepared.jobs.last().map_or(0, |j| j.job.submit);
    #[allow(clippy::cast_precision_loss)]
    let offered_load = work / (cpus as f64 * f64::from(last.max(1)));
    let skipped = SkipReason::ALL
        .into_iter()
        .map(|r| prepared.skipped_for(r))
        .sum();
    (offered_load, skipped)
}

/// One generated workload, replayed under every policy.
fn replay_setting(
    spec: &FarmSpec,
    experiment: &str,
    repetition: u32,
    policies: &[Policy],
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Vec<StudyRow>, CliError> {
    let workload = generate(spec).map_err(CliError::Usage)?;
    let name = format!("generated farm (seed {})", spec.seed);
    let prepared = prepare(&name, workload)?;
    let (offered_load, skipped) = offered(&prepared);
    let mut rows = Vec::with_capacity(policies.len());
    for &policy in policies {
        let run = farm_replay::run(&prepared, policy, CategoryBounds::DEFAULT)?;
        let m = &run.metrics;
        rows.push(StudyRow {
            experiment: experiment.to_owned(),
            mean_interarrival: spec.mean_interarrival,
            license_ratio: ratio_text(spec.license_ratio),
            repetition,
            seed: spec.seed,
            policy: policy.name().to_owned(),
            offered_load,
            jobs: run.outcome.finished,
            skipped,
            system_usage: m.system_usage,
            system_usage_cpus: m.system_usage_cpus,
            utilisation: m.utilisation,
            deadline_jobs: m.deadline_jobs,
            missed_deadlines: m.missed_deadlines,
            missed_percent: m.missed_percent,
            mean_slowdown: m.mean_slowdown,
            mean_bounded_slowdown: m.mean_bounded_slowdown,
            mean_wait: m.mean_wait,
            license_usage: m.license_usage,
            handovers: run.counters.reservation_handovers,
            max_queue: run.outcome.max_queue as u64,
            span: m.span,
        });
        tick(u64::from(spec.jobs));
    }
    Ok(rows)
}

/// Runs the study, in parallel.
///
/// # Errors
/// A generator or replay error.
pub(crate) fn run(spec: &StudySpec) -> Result<StudyResults, CliError> {
    let mut tasks: Vec<(&str, FarmSpec, u32)> = Vec::new();
    for &mean in &spec.means {
        for r in 0..spec.repetitions {
            let s = FarmSpec {
                mean_interarrival: mean,
                seed: spec.base.seed.wrapping_add(u64::from(r)),
                ..spec.base
            };
            tasks.push(("grid", s, r));
        }
    }
    for &ratio in &spec.license_ratios {
        for r in 0..spec.repetitions {
            let s = FarmSpec {
                mean_interarrival: spec.license_mean,
                license_ratio: ratio,
                seed: spec.base.seed.wrapping_add(u64::from(r)),
                ..spec.base
            };
            tasks.push(("licenses", s, r));
        }
    }
    // The bar counts jobs, spec.base.jobs per replay (those no machine can
    // run included).
    let total = (tasks.len() * spec.policies.len()) as u64 * u64::from(spec.base.jobs);
    let bar = crate::output::progress::phase(
        &format!("farm-study {} replays", tasks.len() * spec.policies.len()),
        total,
    );
    let tick = |jobs: u64| bar.inc(jobs);
    let results: Vec<Result<Vec<StudyRow>, CliError>> = tasks
        .par_iter()
        .map(|(experiment, s, r)| replay_setting(s, experiment, *r, &spec.policies, &tick))
        .collect();
    crate::output::progress::finish(&bar);
    let mut grid = Vec::new();
    let mut licenses = Vec::new();
    for rows in results {
        for row in rows? {
            if row.experiment == "grid" {
                grid.push(row);
            } else {
                licenses.push(row);
            }
        }
    }
    Ok(StudyResults {
        spec: spec.clone(),
        grid,
        licenses,
    })
}

/// Summaries per (mean, ratio, policy) in first-seen order.
#[must_use]
pub(crate) fn summarise(rows: &[StudyRow]) -> Vec<SummaryRow> {
    let mut keys: Vec<(String, u64, String, String)> = Vec::new();
    for r in rows {
        let key = (
            r.experiment.clone(),
            r.mean_interarrival.to_bits(),
            r.license_ratio.clone(),
            r.policy.clone(),
        );
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.into_iter()
        .map(|(experiment, mean, ratio, policy)| {
            let group: Vec<&StudyRow> = rows
                .iter()
                .filter(|r| {
                    r.experiment == experiment
                        && r.mean_interarrival.to_bits() == mean
                        && r.license_ratio == ratio
                        && r.policy == policy
                })
                .collect();
            let values = METRICS
                .iter()
                .map(|(name, get)| {
                    let v: Vec<f64> = group.iter().filter_map(|r| get(r)).collect();
                    ((*name).to_owned(), mean_ci(&v))
                })
                .collect();
            SummaryRow {
                experiment,
                mean_interarrival: f64::from_bits(mean),
                license_ratio: ratio,
                policy,
                repetitions: group.len() as u64,
                values,
            }
        })
        .collect()
}

/// Summaries as CSV: the key columns, then `<metric>` and
/// `<metric>_ci95_student_t` (the half-width of the Student-t 95% interval,
/// empty for one repetition) for every metric of [`METRICS`].
///
/// # Errors
/// [`CliError::Io`] when writing fails.
pub(crate) fn summary_csv(rows: &[SummaryRow]) -> Result<String, CliError> {
    let mut header: Vec<String> = [
        "experiment",
        "mean_interarrival",
        "license_ratio",
        "policy",
        "repetitions",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for (name, _) in METRICS {
        header.push(name.to_owned());
        header.push(format!("{name}_ci95_student_t"));
    }
    let mut records = vec![header];
    for r in rows {
        let mut record = vec![
            r.experiment.clone(),
            r.mean_interarrival.to_string(),
            r.license_ratio.clone(),
            r.policy.clone(),
            r.repetitions.to_string(),
        ];
        for (_, v) in &r.values {
            match v {
                Some(MeanInterval { mean, half_width }) => {
                    record.push(round4(*mean).to_string());
                    record.push(half_width.map_or_else(String::new, |h| round4(h).to_string()));
                }
                None => {
                    record.push(String::new());
                    record.push(String::new());
                }
            }
        }
        records.push(record);
    }
    csv_records(records)
}

/// Rows with every float rounded to 4 decimals (stable, diff-friendly files).
fn rounded(rows: &[StudyRow]) -> Vec<StudyRow> {
    rows.iter()
        .map(|r| StudyRow {
            offered_load: round4(r.offered_load),
            system_usage: r.system_usage.map(round4),
            system_usage_cpus: r.system_usage_cpus.map(round4),
            utilisation: round4(r.utilisation),
            missed_percent: r.missed_percent.map(round4),
            mean_slowdown: round4(r.mean_slowdown),
            mean_bounded_slowdown: round4(r.mean_bounded_slowdown),
            mean_wait: round4(r.mean_wait),
            license_usage: r.license_usage.map(round4),
            ..r.clone()
        })
        .collect()
}

/// The names of the CSV files [`csv_files`] makes, in its order (the
/// license files only with a license sweep).
#[must_use]
pub(crate) fn csv_names(license_sweep: bool) -> Vec<&'static str> {
    let mut names = vec!["farm-grid.csv", "farm-grid-summary.csv"];
    if license_sweep {
        names.extend(["farm-licenses.csv", "farm-licenses-summary.csv"]);
    }
    names
}

/// The names of the figures [`figures()`] draws, in its order.
#[must_use]
pub(crate) fn figure_names(license_sweep: bool) -> Vec<&'static str> {
    let mut names = vec![
        "farm-fig1a-deadlines.svg",
        "farm-fig1b-usage.svg",
        "farm-fig2a-slowdown.svg",
    ];
    if license_sweep {
        names.push("farm-fig2b-licenses.svg");
    }
    names
}

/// The CSV files: `(file name, contents)`.
///
/// # Errors
/// [`CliError::Io`] when writing fails.
pub fn csv_files(results: &StudyResults) -> Result<Vec<(String, String)>, CliError> {
    let mut files = vec![
        (
            "farm-grid.csv".to_owned(),
            csv_text(&rounded(&results.grid))?,
        ),
        (
            "farm-grid-summary.csv".to_owned(),
            summary_csv(&summarise(&results.grid))?,
        ),
    ];
    if !results.licenses.is_empty() {
        files.push((
            "farm-licenses.csv".to_owned(),
            csv_text(&rounded(&results.licenses))?,
        ));
        files.push((
            "farm-licenses-summary.csv".to_owned(),
            summary_csv(&summarise(&results.licenses))?,
        ));
    }
    Ok(files)
}

/// One panel of a study figure.
struct Panel {
    /// The summary's metric drawn (a column stem of [`METRICS`]).
    metric: &'static str,
    /// Panel title.
    title: &'static str,
    /// Y axis description.
    y_label: &'static str,
    /// Logarithmic y axis.
    log_y: bool,
}

/// The share of deadline jobs that missed their deadline: a panel of two
/// figures.
const DEADLINES_MISSED: Panel = Panel {
    metric: "missed_percent",
    title: "deadlines missed",
    y_label: "% of deadline jobs",
    log_y: false,
};

/// What a figure's panels share: the summary rows, the settings along the
/// x axis and the subtitle.
struct FigureData<'a> {
    /// Summary rows of the runs.
    summary: &'a [SummaryRow],
    /// The settings, in x order.
    settings: &'a [Setting<'a>],
    /// X axis description.
    x_label: &'a str,
    /// Subtitle.
    subtitle: &'a str,
    /// One line per policy.
    policies: &'a [Policy],
}

impl FigureData<'_> {
    /// The figure `title`: `panels` side by side.
    fn figure(&self, title: &str, panels: &[Panel]) -> Result<String, CliError> {
        let panels: Vec<IntervalPanel> = panels.iter().map(|p| self.panel(p)).collect();
        interval_lines(title, self.subtitle, &panels).map_err(CliError::Usage)
    }

    /// One panel: the panel's metric over the settings for every policy.
    fn panel(&self, panel: &Panel) -> IntervalPanel {
        let lines = self
            .policies
            .iter()
            .map(|p| IntervalLine {
                name: p.name().to_owned(),
                points: self
                    .settings
                    .iter()
                    .map(|(_, at)| {
                        self.summary
                            .iter()
                            .find(|r| r.policy == p.name() && at(r))
                            .and_then(|r| r.get(panel.metric))
                            .map(|m| (m.mean, m.half_width.unwrap_or(0.0)))
                    })
                    .collect(),
            })
            .collect();
        IntervalPanel {
            title: panel.title.to_owned(),
            x_label: self.x_label.to_owned(),
            y_label: panel.y_label.to_owned(),
            xs: self
                .settings
                .iter()
                .map(|(label, _)| label.clone())
                .collect(),
            lines,
            log_y: panel.log_y,
        }
    }
}

/// The grid's settings: each inter-arrival mean, labelled, with the test
/// picking its summary rows.
fn mean_settings(spec: &StudySpec) -> Vec<Setting<'static>> {
    spec.means
        .iter()
        .map(|&m| {
            let at: Box<dyn Fn(&SummaryRow) -> bool> =
                Box::new(move |r: &SummaryRow| r.mean_interarrival.to_bits() == m.to_bits());
            (number_text(m), at)
        })
        .collect()
}

/// The license sweep's settings: each ratio range, labelled `LO-HI%`.
fn ratio_settings(spec: &StudySpec) -> Vec<Setting<'static>> {
    spec.license_ratios
        .iter()
        .map(|&r| {
            let key = ratio_text(r);
            let label = format!("{key}%");
            let at: Box<dyn Fn(&SummaryRow) -> bool> =
                Box::new(move |row: &SummaryRow| row.license_ratio == key);
            (label, at)
        })
        .collect()
}

/// The figures: `(file name, SVG)`.
///
/// # Errors
/// [`CliError::Usage`] when drawing fails.
pub fn figures(results: &StudyResults) -> Result<Vec<(String, String)>, CliError> {
    let spec = &results.spec;
    let grid = summarise(&results.grid);
    let means = mean_settings(spec);
    let farms = format!(
        "{} machines, {} licenses, {} jobs",
        spec.base.machines, spec.base.licenses, spec.base.jobs
    );
    let subtitle = format!(
        "{farms} per run, {} runs per point (seeds {}..); {}",
        spec.repetitions,
        spec.base.seed,
        figure_interval_text(spec.repetitions)
    );
    let by_mean = FigureData {
        summary: &grid,
        settings: &means,
        x_label: "mean inter-arrival time (lower = more contention)",
        subtitle: &subtitle,
        policies: &spec.policies,
    };
    let mut out = vec![
        (
            "farm-fig1a-deadlines.svg".to_owned(),
            by_mean.figure(
                "Figure 1(a): deadline jobs that missed their deadline",
                &[DEADLINES_MISSED],
            )?,
        ),
        (
            "farm-fig1b-usage.svg".to_owned(),
            by_mean.figure(
                "Figure 1(b): system usage",
                &[
                    Panel {
                        metric: "system_usage",
                        title: "paper's: CPUs in use / min(CPUs, jobs)",
                        y_label: "%",
                        log_y: false,
                    },
                    Panel {
                        metric: "system_usage_cpus",
                        title: "CPUs in use / min(CPUs, CPUs asked)",
                        y_label: "%",
                        log_y: false,
                    },
                ],
            )?,
        ),
        (
            "farm-fig2a-slowdown.svg".to_owned(),
            by_mean.figure(
                "Figure 2(a): slowdown",
                &[
                    Panel {
                        metric: "mean_slowdown",
                        title: "mean slowdown (wait + run) / run",
                        y_label: "slowdown (log scale)",
                        log_y: true,
                    },
                    Panel {
                        metric: "mean_wait",
                        title: "mean wait",
                        y_label: "time units (log scale)",
                        log_y: true,
                    },
                ],
            )?,
        ),
    ];
    if !results.licenses.is_empty() {
        let licenses = summarise(&results.licenses);
        let ratios = ratio_settings(spec);
        let subtitle = format!(
            "{farms}, mean inter-arrival {}, {} runs per point; {}",
            number_text(spec.license_mean),
            spec.repetitions,
            figure_interval_text(spec.repetitions)
        );
        let by_ratio = FigureData {
            summary: &licenses,
            settings: &ratios,
            x_label:
                "license ratio: copies, % of eligible machines (lower = more license contention)",
            subtitle: &subtitle,
            policies: &spec.policies,
        };
        out.push((
            "farm-fig2b-licenses.svg".to_owned(),
            by_ratio.figure(
                "Figure 2(b): license usage and deadlines missed by license ratio",
                &[
                    Panel {
                        metric: "license_usage",
                        title: "license usage",
                        y_label: "% of copies in use",
                        log_y: false,
                    },
                    DEADLINES_MISSED,
                ],
            )?,
        ));
    }
    Ok(out)
}

/// The figures' words for their error bars.
fn figure_interval_text(repetitions: u32) -> &'static str {
    if repetitions > 1 {
        "bars: Student-t 95% confidence intervals of the mean"
    } else {
        "one run per point: no confidence intervals"
    }
}

/// A table of `metric` (mean +- the Student-t 95% half-width) with one row
/// per setting and one column per policy.
fn metric_table(
    out: &mut String,
    summary: &[SummaryRow],
    policies: &[Policy],
    settings: &[Setting<'_>],
    first: &str,
    metric: &str,
) {
    let _ = write!(out, "{first:>12}");
    for p in policies {
        let _ = write!(out, " {:>20}", p.name());
    }
    out.push('\n');
    for (label, at) in settings {
        let _ = write!(out, "{label:>12}");
        for p in policies {
            let cell = summary
                .iter()
                .find(|r| r.policy == p.name() && at(r))
                .and_then(|r| r.get(metric))
                .map_or_else(
                    || "-".to_owned(),
                    |m| match m.half_width {
                        Some(h) => format!("{:.2} +- {h:.2}", m.mean),
                        None => format!("{:.2}", m.mean),
                    },
                );
            let _ = write!(out, " {cell:>20}");
        }
        out.push('\n');
    }
}

/// What the study ran, in words: the grid's means and, when there is one,
/// the license sweep's ratios at its mean; then the generator's other
/// parameters (not its own mean, ratio or seed, which the grid replaces).
#[must_use]
pub(crate) fn grid_text(spec: &StudySpec) -> String {
    let means: Vec<String> = spec.means.iter().map(|&m| number_text(m)).collect();
    let policies: Vec<&str> = spec.policies.iter().map(|p| p.name()).collect();
    let last_seed = spec
        .base
        .seed
        .wrapping_add(u64::from(spec.repetitions.saturating_sub(1)));
    let mut out = format!(
        "grid: mean inter-arrival {} at license ratio {}% x {} (seeds {}-{last_seed}) x {}",
        means.join(", "),
        ratio_text(spec.base.license_ratio),
        count_of(u64::from(spec.repetitions), "repetition", "repetitions"),
        spec.base.seed,
        policies.join(", ")
    );
    if !spec.license_ratios.is_empty() {
        let ratios: Vec<String> = spec
            .license_ratios
            .iter()
            .map(|&r| format!("{}%", ratio_text(r)))
            .collect();
        let _ = write!(
            out,
            "; license sweep: ratios {} at mean inter-arrival {}",
            ratios.join(", "),
            number_text(spec.license_mean)
        );
    }
    let _ = write!(out, "\nfarms: {}", spec.base.describe_farm());
    out
}

/// The study's tables as text.
#[must_use]
pub fn tables(results: &StudyResults, seconds: f64) -> String {
    let spec = &results.spec;
    let grid = summarise(&results.grid);
    let means = mean_settings(spec);
    let mut out = format!(
        "farm study: {} in {seconds:.1} s\n{}\n{}\n",
        count_of(
            (results.grid.len() + results.licenses.len()) as u64,
            "replay",
            "replays"
        ),
        grid_text(spec),
        interval_text(spec.repetitions)
    );
    for (metric, title) in [
        (
            "missed_percent",
            "deadlines missed, % of deadline jobs (figure 1(a))",
        ),
        (
            "system_usage",
            "system usage, % (paper's definition, figure 1(b))",
        ),
        ("system_usage_cpus", "system usage against CPU demand, %"),
        ("mean_slowdown", "mean slowdown (figure 2(a))"),
        ("mean_bounded_slowdown", "mean bounded slowdown"),
        ("handovers", "BF_MOD reservation hand-overs per run"),
        ("offered_load", "offered load"),
    ] {
        let _ = writeln!(out, "\n{title}, by mean inter-arrival time:");
        metric_table(&mut out, &grid, &spec.policies, &means, "mean", metric);
    }
    if !results.licenses.is_empty() {
        let licenses = summarise(&results.licenses);
        let ratios = ratio_settings(spec);
        for (metric, title) in [
            ("license_usage", "license usage, % (table 1)"),
            ("missed_percent", "deadlines missed, % (table 2)"),
        ] {
            let _ = writeln!(
                out,
                "\n{title}, by license ratio, mean inter-arrival {}:",
                number_text(spec.license_mean)
            );
            metric_table(
                &mut out,
                &licenses,
                &spec.policies,
                &ratios,
                "ratio",
                metric,
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use backfill_core::policy::Heuristics;

    #[test]
    fn confidence_intervals_are_student_t() {
        assert_eq!(mean_ci(&[]), None);
        assert_eq!(
            mean_ci(&[3.0]),
            Some(MeanInterval {
                mean: 3.0,
                half_width: None
            })
        );
        // Tabulated t(0.975, df): 12.706 (1), 3.182 (3), 2.093 (19), 1.984 (100).
        for (n, t) in [(2, 12.706), (4, 3.182), (20, 2.093), (101, 1.984)] {
            let got = t95(n).unwrap();
            assert!((got - t).abs() < 5e-4, "n = {n}: {got}");
        }
        assert_eq!(t95(1), None);
        let m = mean_ci(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!((m.mean - 2.5).abs() < 1e-12);
        // sd = sqrt(5/3), half-width = t(0.975, 3) * sd / 2.
        let want = 3.182_446 * (5.0f64 / 3.0).sqrt() / 2.0;
        assert!((m.half_width.unwrap() - want).abs() < 1e-5, "{m:?}");
        // Two values: 12.7 times the standard error, not 1.96 times.
        let two = mean_ci(&[10.0, 12.0]).unwrap();
        assert!((two.half_width.unwrap() - 12.706_2).abs() < 1e-3, "{two:?}");
        assert!(interval_text(20).contains("Student-t 95%"));
        assert!(interval_text(1).contains("without a confidence interval"));
    }

    #[test]
    fn a_small_study_runs_and_writes_everything() {
        let spec = StudySpec {
            base: FarmSpec {
                jobs: 60,
                machines: 20,
                licenses: 4,
                ..FarmSpec::default()
            },
            means: vec![4.0, 48.0],
            repetitions: 2,
            policies: vec![
                Policy::Fcfs,
                Policy::BfFcfs,
                Policy::BfUnmod(Heuristics::DEFAULT),
                Policy::BfMod(Heuristics::DEFAULT),
            ],
            license_ratios: vec![(10, 30), (50, 70)],
            license_mean: 12.0,
        };
        let results = run(&spec).unwrap();
        assert_eq!(results.grid.len(), 2 * 2 * 4);
        assert_eq!(results.licenses.len(), 2 * 2 * 4);
        // The same seed in every setting: same farm, same jobs.
        assert!(results.grid.iter().all(|r| r.jobs + r.skipped == 60));
        let again = run(&spec).unwrap();
        assert_eq!(again.grid, results.grid, "results do not depend on threads");
        let files = csv_files(&results).unwrap();
        assert_eq!(files.len(), 4);
        let summary = &files[1].1;
        assert!(summary.starts_with("experiment,mean_interarrival,license_ratio,policy,repetitions,missed_percent,missed_percent_ci95_student_t"));
        assert_eq!(summary.lines().count(), 1 + 2 * 4);
        let figs = figures(&results).unwrap();
        assert_eq!(figs.len(), 4);
        let text = tables(&results, 1.0);
        assert!(text.contains("deadlines missed") && text.contains("bf-mod"));
        // FCFS never hands over a reservation.
        assert!(results
            .grid
            .iter()
            .filter(|r| r.policy != "bf-mod")
            .all(|r| r.handovers == 0));
    }
}
