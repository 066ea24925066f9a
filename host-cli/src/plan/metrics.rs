//! The metrics a plan may ask for, by name: each cell's result holds
//! those of its plan's `metrics` list, and the merged table has one column
//! per name.
//!
//! Per set of jobs ([`SET_METRICS`]): the name alone is over every job
//! finished, `NAME.SN` (`.SW`, `.LN`, `.LW`) over one category (Short or
//! Long by run time, Narrow or Wide by processors, the bounds of the cell).
//! Per replay: [`RUN_METRICS`]. A metric that does not apply to a cell (a
//! DPSA count under EASY, a mean over an empty category's jobs) is empty.

use crate::farm::replay::FarmRun;
use crate::output::reasons::WaitSplit;
use crate::output::report::{self, ConsRsStats, DpsaStats};
use crate::replay::thresholds::{
    milli_f64, ConservativeThresholds, ThresholdSource, ThresholdsUsed,
};
use crate::replay::{Prepared, RunResult};
use crate::studies::fairness::{self, BucketCounts};
use crate::studies::offered_load;
use backfill_core::{Accumulator, Category};
use serde_json::Value;

/// Metrics of a set of jobs: (name, meaning).
pub(crate) const SET_METRICS: [(&str, &str); 10] = [
    ("jobs", "jobs finished"),
    ("mean_wait", "mean wait (s)"),
    ("total_wait", "sum of the waits (s)"),
    (
        "mean_bounded_slowdown",
        "mean bounded slowdown (10 s bound)",
    ),
    ("mean_turnaround", "mean turnaround (s)"),
    ("worst_bounded_slowdown", "largest bounded slowdown"),
    ("killed", "jobs killed at their estimate"),
    ("wait_sd", "standard deviation of the waits (s)"),
    (
        "bounded_slowdown_sd",
        "standard deviation of the bounded slowdowns",
    ),
    (
        "bounded_slowdown_geomean",
        "geometric mean of the bounded slowdowns",
    ),
];

/// Metrics of a replay: (name, meaning).
pub(crate) const RUN_METRICS: [(&str, &str); 22] = [
    ("machine_procs", "processors of the machine"),
    ("jobs_in_window", "job lines in the window"),
    (
        "skipped",
        "job lines of the window not run (no submit time, run time or processors, or wider than the machine)",
    ),
    ("rejected", "jobs the kernel refused"),
    (
        "offered_load",
        "work over capacity between the first and last submission",
    ),
    (
        "utilisation",
        "processor time used over capacity from the first submit to the last end",
    ),
    ("max_queue", "longest wait queue"),
    ("kernel_calls", "kernel calls"),
    (
        "thresholds",
        "Selective's thresholds (text, as the replay report's)",
    ),
    (
        "threshold_source",
        "where they came from: none, given, conservative, default-conservative, adaptive",
    ),
    ("dpsa.budget", "DPSA: search nodes per pass"),
    ("dpsa.searches", "DPSA: passes that searched"),
    ("dpsa.nodes", "DPSA: search nodes visited"),
    ("dpsa.budget_hits", "DPSA: searches stopped by the budget"),
    (
        "dpsa.overflows",
        "DPSA: passes with more candidates than a search takes",
    ),
    ("cons_rs.searches", "CONS+RS: random searches run"),
    ("cons_rs.iterations", "CONS+RS: iterations run"),
    ("cons_rs.accepted", "CONS+RS: moves kept"),
    (
        "cons_rs.rejected_guarantee",
        "CONS+RS: moves undone for a broken guarantee",
    ),
    (
        "cons_rs.rejected_objective",
        "CONS+RS: moves undone for no improvement",
    ),
    ("cons_rs.no_gap", "CONS+RS: iterations without a gap"),
    ("cons_rs.too_crowded", "CONS+RS: iterations skipped as too crowded"),
];

/// The pending reasons a replay on one machine can give
/// (docs/output-formats.md, "Why jobs wait"): metric
/// `wait_by_reason.REASON` is the wait (s) of the finished jobs under that
/// reason, `wait_by_reason.REASON.SN` (`.SW`, `.LN`, `.LW`) that of one
/// category's, as `host-cli replay --wait-by-reason` splits it. The
/// reasons of the set add up to its `total_wait`.
pub const WAIT_REASONS: [&str; 8] = [
    "processors",
    "behind",
    "would-delay",
    "reserved",
    "not-promoted",
    "search-budget",
    "pending",
    crate::replay::reasons::UNREPORTED,
];

/// The prefix of the wait-by-reason metrics.
const WAIT_BY_REASON: &str = "wait_by_reason.";

/// The reason and the set (`None`: every job) of a metric
/// `wait_by_reason.REASON[.SET]`; `None` for another name.
fn wait_reason(name: &str) -> Option<(&'static str, Option<Category>)> {
    let rest = name.strip_prefix(WAIT_BY_REASON)?;
    let (reason, set) = match rest.split_once('.') {
        None => (rest, None),
        Some((reason, label)) => (reason, Some(category(label)?)),
    };
    let reason = WAIT_REASONS.iter().copied().find(|r| *r == reason)?;
    Some((reason, set))
}

/// Whether metric `name` splits the wait by reason (the cell's replay then
/// follows every job's pending reason).
#[must_use]
pub(crate) fn needs_reasons(name: &str) -> bool {
    wait_reason(name).is_some()
}

/// The metrics of the Conservative replay Selective's thresholds come
/// from (the paper's Tables 7 and 8, `host-cli thresholds`): (name,
/// meaning); each also per category as `NAME.SN` (`.SW`, `.LN`, `.LW`).
pub(crate) const THRESHOLD_METRICS: [(&str, &str); 4] = [
    (
        "threshold.jobs",
        "jobs averaged: finished, well estimated with user estimates",
    ),
    ("threshold.jobs_in_set", "jobs of the set finished"),
    (
        "threshold.mean_bounded_slowdown",
        "mean bounded slowdown of the jobs averaged",
    ),
    (
        "threshold.value",
        "the threshold it gives, thousandths rounded (the overall one for an empty category)",
    ),
];

/// The column of a threshold metric (its index in
/// [`THRESHOLD_METRICS`]) and its set (`None`: every job); `None` for
/// another name.
fn threshold_metric(name: &str) -> Option<(usize, Option<Category>)> {
    let (base, set) = match name.strip_prefix("threshold.")?.split_once('.') {
        None => (name, None),
        Some((base, label)) => (&name[..10 + base.len()], Some(category(label)?)),
    };
    let column = THRESHOLD_METRICS.iter().position(|m| m.0 == base)?;
    Some((column, set))
}

/// Whether metric `name` describes the Conservative replay thresholds
/// come from (a Conservative cell then derives them from its own replay).
#[must_use]
pub(crate) fn needs_threshold_basis(name: &str) -> bool {
    threshold_metric(name).is_some()
}

/// Threshold metric `name` of the Conservative replay's thresholds
/// `basis` (`None` for a name that is not a threshold metric).
fn threshold_value(name: &str, basis: &ConservativeThresholds) -> Option<Value> {
    let (column, set) = threshold_metric(name)?;
    let (mean, threshold) = match set {
        None => (&basis.overall, basis.fixed()),
        Some(c) => {
            let i = Category::ALL.iter().position(|&a| a == c)?;
            (basis.categories.get(i)?, *basis.per_category().0.get(i)?)
        }
    };
    Some(match column {
        0 => Value::from(mean.jobs),
        1 => Value::from(mean.jobs_in_set),
        2 => mean.mean_bounded_slowdown.map_or(Value::Null, number),
        _ => Value::from(milli_f64(threshold)),
    })
}

/// The fair-start fairness metrics (`host-cli fairness`): the jobs counted
/// (finished, with a fair start), then the jobs whose bounded slowdown over
/// their fair slowdown falls in each bucket of
/// [`fairness::BUCKETS`]; each also per run-time class as
/// `NAME.CLASS` ([`FAIR_CLASSES`]).
pub(crate) const FAIR_METRICS: [(&str, &str); 6] = [
    ("fair.jobs", "jobs counted: finished, with a fair start"),
    (
        "fair.le_1",
        "jobs treated fairly: bounded slowdown / fair slowdown <= 1",
    ),
    ("fair.gt_1_le_1_5", "jobs with that ratio in (1, 1.5]"),
    ("fair.gt_1_5_le_2", "jobs with that ratio in (1.5, 2]"),
    ("fair.gt_2_le_4", "jobs with that ratio in (2, 4]"),
    ("fair.gt_4", "jobs with that ratio above 4"),
];

/// The run-time classes of the fairness metrics, as column suffixes, in
/// the order of [`fairness::CLASSES`] (`<=10m`, `10m-1h`, `1h-4h`,
/// `4h-12h`, `>12h`).
pub(crate) const FAIR_CLASSES: [&str; 5] = ["le_10m", "10m_1h", "1h_4h", "4h_12h", "gt_12h"];

/// Jobs without a fair start (the kernel could not compute one; left out
/// of the fairness metrics).
const NO_FAIR_START: &str = "fair.no_fair_start";

/// The column (0 for `fair.jobs`, then 1 + the bucket) and the run-time
/// class (`None`: every counted job) of a fairness metric; `None` for
/// another name.
fn fair_metric(name: &str) -> Option<(usize, Option<usize>)> {
    let (base, class) = match name.strip_prefix("fair.")?.split_once('.') {
        None => (name, None),
        Some((base, class)) => (
            name.get(..5 + base.len())?,
            Some(FAIR_CLASSES.iter().position(|c| *c == class)?),
        ),
    };
    let column = FAIR_METRICS.iter().position(|m| m.0 == base)?;
    Some((column, class))
}

/// Whether metric `name` needs fair starts (the cell then also replays
/// FCFS-Conservative with the fair-start probe, shared by the cells of its
/// window, estimates and load).
#[must_use]
pub(crate) fn needs_fair_starts(name: &str) -> bool {
    name == NO_FAIR_START || fair_metric(name).is_some()
}

/// A cell's fairness: its jobs by bucket, overall and per run-time class,
/// and the jobs of its window without a fair start.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CellFairness {
    /// Every counted job.
    pub(crate) overall: BucketCounts,
    /// Per run-time class.
    pub(crate) by_class: [BucketCounts; 5],
    /// Jobs of the window without a fair start.
    pub(crate) no_fair_start: u64,
}

impl CellFairness {
    /// The fairness of the finished jobs `records` against `fair_starts`
    /// (per kernel job id), as `host-cli fairness` counts it.
    #[must_use]
    pub(crate) fn of(
        records: &[backfill_core::JobRecord],
        fair_starts: &[Option<backfill_core::Time>],
        no_fair_start: u64,
    ) -> Self {
        let mut out = Self {
            no_fair_start,
            ..Self::default()
        };
        for r in records {
            let Some(fair_start) = fair_starts.get(r.job.id as usize).copied().flatten() else {
                continue;
            };
            let fair_wait = fair_start.saturating_sub(r.job.submit);
            let b = fairness::bucket(r.wait(), fair_wait, r.run());
            out.overall.add(b);
            if let Some(c) = out.by_class.get_mut(fairness::class_of(r.runtime)) {
                c.add(b);
            }
        }
        out
    }

    /// Metric `name` (`None` for a name that is not a fairness metric).
    fn value(&self, name: &str) -> Option<Value> {
        if name == NO_FAIR_START {
            return Some(Value::from(self.no_fair_start));
        }
        let (column, class) = fair_metric(name)?;
        let counts = match class {
            None => &self.overall,
            Some(c) => self.by_class.get(c)?,
        };
        Some(Value::from(match column.checked_sub(1) {
            None => counts.jobs,
            Some(b) => *counts.counts.get(b)?,
        }))
    }
}

/// Metrics of a generated farm's replay only: (name, meaning). As the
/// farm study reports them (percentages as percent).
pub(crate) const FARM_METRICS: [(&str, &str); 12] = [
    (
        "farm.offered_load",
        "estimated CPU-time of the jobs over the farm's CPUs times the last submit time",
    ),
    (
        "farm.skipped",
        "jobs no machine of the farm can run (not replayed)",
    ),
    ("farm.system_usage", "the paper's system usage, percent"),
    (
        "farm.system_usage_cpus",
        "system usage against the CPUs jobs ask for, percent",
    ),
    ("farm.utilisation", "utilisation, percent"),
    ("farm.deadline_jobs", "jobs with a deadline"),
    ("farm.missed_deadlines", "of those, jobs that missed it"),
    (
        "farm.missed_percent",
        "missed deadlines, percent of the deadline jobs",
    ),
    ("farm.mean_slowdown", "mean slowdown (unbounded)"),
    ("farm.license_usage", "license usage, percent"),
    ("farm.handovers", "BF_MOD's reservation hand-overs"),
    ("farm.span", "last end minus first submit"),
];

/// The metrics of [`SET_METRICS`] and [`RUN_METRICS`] that a generated
/// farm's cell also reports (over every job).
const FARM_SHARED: [&str; 6] = [
    "jobs",
    "mean_wait",
    "mean_bounded_slowdown",
    "max_queue",
    "kernel_calls",
    "rejected",
];

/// Whether a generated farm's cell reports metric `name`.
#[must_use]
pub(crate) fn for_farms(name: &str) -> bool {
    FARM_SHARED.contains(&name) || farm_only(name)
}

/// Whether metric `name` is reported by generated farms' cells only.
#[must_use]
pub(crate) fn farm_only(name: &str) -> bool {
    FARM_METRICS.iter().any(|m| m.0 == name)
}

/// The metrics a generated farm's cell reports.
#[must_use]
pub(crate) fn farm_names() -> Vec<&'static str> {
    FARM_SHARED
        .iter()
        .copied()
        .chain(FARM_METRICS.iter().map(|m| m.0))
        .collect()
}

/// What a plan's cells report when it names no metrics.
pub(crate) const DEFAULT: [&str; 4] = ["jobs", "mean_wait", "mean_bounded_slowdown", "utilisation"];

/// Every metric name, in the order of the lists above (set metrics over
/// all jobs, then per category, then the replay's).
#[cfg(test)]
#[must_use]
pub(crate) fn names() -> Vec<String> {
    let mut out: Vec<String> = SET_METRICS.iter().map(|m| m.0.to_owned()).collect();
    for c in Category::ALL {
        out.extend(SET_METRICS.iter().map(|m| format!("{}.{}", m.0, c.label())));
    }
    out.extend(RUN_METRICS.iter().map(|m| m.0.to_owned()));
    for set in std::iter::once(String::new())
        .chain(Category::ALL.iter().map(|c| format!(".{}", c.label())))
    {
        out.extend(
            WAIT_REASONS
                .iter()
                .map(|r| format!("{WAIT_BY_REASON}{r}{set}")),
        );
    }
    out.extend(FAIR_METRICS.iter().map(|m| m.0.to_owned()));
    for class in FAIR_CLASSES {
        out.extend(FAIR_METRICS.iter().map(|m| format!("{}.{class}", m.0)));
    }
    out.push(NO_FAIR_START.to_owned());
    out.extend(THRESHOLD_METRICS.iter().map(|m| m.0.to_owned()));
    for c in Category::ALL {
        out.extend(
            THRESHOLD_METRICS
                .iter()
                .map(|m| format!("{}.{}", m.0, c.label())),
        );
    }
    out.extend(FARM_METRICS.iter().map(|m| m.0.to_owned()));
    out
}

/// Whether `name` is a metric.
#[must_use]
pub(crate) fn is_known(name: &str) -> bool {
    let is_set = match name.split_once('.') {
        None => SET_METRICS.iter().any(|m| m.0 == name),
        Some((base, set)) => SET_METRICS.iter().any(|m| m.0 == base) && category(set).is_some(),
    };
    is_set
        || RUN_METRICS.iter().any(|m| m.0 == name)
        || farm_only(name)
        || needs_reasons(name)
        || needs_fair_starts(name)
        || needs_threshold_basis(name)
}

/// The category labelled `label` (SN, SW, LN, LW).
fn category(label: &str) -> Option<Category> {
    Category::ALL.iter().copied().find(|c| c.label() == label)
}

/// The message for an unknown metric name.
#[must_use]
pub(crate) fn unknown(name: &str) -> String {
    format!(
        "`{name}` is not a metric; the metrics are {}, each also per category as NAME.SN, \
         NAME.SW, NAME.LN or NAME.LW, and {}; wait_by_reason.REASON (also per category) for \
         the reasons {}; the fairness counts {} (also per run-time class as NAME.CLASS, the \
         classes {}) and {NO_FAIR_START}; of the Conservative replay thresholds come from, {} \
         (also per category); for generated farms only, {}",
        SET_METRICS.map(|m| m.0).join(", "),
        RUN_METRICS.map(|m| m.0).join(", "),
        WAIT_REASONS.join(", "),
        FAIR_METRICS.map(|m| m.0).join(", "),
        FAIR_CLASSES.join(", "),
        THRESHOLD_METRICS.map(|m| m.0).join(", "),
        FARM_METRICS.map(|m| m.0).join(", ")
    )
}

/// A number as a JSON value (a non-finite one, such as a mean over no job,
/// is empty).
fn number(v: f64) -> Value {
    if v.is_finite() {
        Value::from(v)
    } else {
        Value::Null
    }
}

/// A set metric of the jobs `acc` summed (`None` for an unknown name).
fn set_value(base: &str, acc: &Accumulator) -> Option<Value> {
    let mean = |v: f64| {
        if acc.count == 0 {
            Value::Null
        } else {
            number(v)
        }
    };
    Some(match base {
        "jobs" => Value::from(acc.count),
        "mean_wait" => mean(acc.mean_wait()),
        "total_wait" => Value::from(acc.wait),
        "mean_bounded_slowdown" => mean(acc.mean_slowdown()),
        "mean_turnaround" => mean(acc.mean_turnaround()),
        "worst_bounded_slowdown" => mean(acc.worst_slowdown),
        "killed" => Value::from(acc.killed),
        "wait_sd" => mean(acc.wait_std_dev()),
        "bounded_slowdown_sd" => mean(acc.slowdown_std_dev()),
        "bounded_slowdown_geomean" => mean(acc.geometric_mean_slowdown()),
        _ => return None,
    })
}

/// Metric `name` of the replay `result` of `prepared` that ran with
/// `thresholds`, its wait split by reason being `waits` (when the replay
/// followed reasons), its fairness `fair` (when the plan asks for it) and
/// `basis` the thresholds of the Conservative replay they come from (the
/// cell's own for a Conservative cell; when the plan asks for them);
/// `None` for an unknown name.
#[must_use]
pub(crate) fn value(
    name: &str,
    prepared: &Prepared,
    result: &RunResult,
    thresholds: &ThresholdsUsed,
    waits: Option<&[WaitSplit]>,
    fair: Option<&CellFairness>,
    basis: Option<&ConservativeThresholds>,
) -> Option<Value> {
    if needs_threshold_basis(name) {
        return Some(
            basis
                .and_then(|b| threshold_value(name, b))
                .unwrap_or(Value::Null),
        );
    }
    if needs_fair_starts(name) {
        return Some(fair.and_then(|f| f.value(name)).unwrap_or(Value::Null));
    }
    if let Some((reason, set)) = wait_reason(name) {
        let label = set.map_or("all", Category::label);
        return Some(
            waits
                .and_then(|w| w.iter().find(|s| s.set == label))
                .map_or(Value::Null, |s| Value::from(s.seconds(reason))),
        );
    }
    match name.split_once('.') {
        None if SET_METRICS.iter().any(|m| m.0 == name) => {
            return set_value(name, &result.metrics.overall);
        }
        Some((base, set)) if SET_METRICS.iter().any(|m| m.0 == base) => {
            return set_value(base, result.metrics.category(category(set)?));
        }
        _ => {}
    }
    let accounting = report::accounting_of(
        prepared,
        report::RejectedJobs::of(&result.rejected),
        result.outcome.finished,
    );
    let dpsa = DpsaStats::of(result);
    let rs = ConsRsStats::of(result);
    let d = |f: fn(&DpsaStats) -> Option<u64>| {
        dpsa.as_ref().and_then(f).map_or(Value::Null, Value::from)
    };
    let r = |f: fn(&ConsRsStats) -> u64| rs.as_ref().map(f).map_or(Value::Null, Value::from);
    let skipped = report::SkippedJobs::of(&prepared.skipped)
        .labelled()
        .iter()
        .map(|(_, n)| n)
        .sum::<u64>();
    Some(match name {
        "machine_procs" => Value::from(prepared.machine_procs),
        "jobs_in_window" => Value::from(accounting.jobs_in_window),
        "skipped" => Value::from(skipped),
        "rejected" => Value::from(accounting.rejected_by_kernel.total()),
        "offered_load" => offered_load(prepared).map_or(Value::Null, number),
        "utilisation" => number(
            result
                .metrics
                .overall
                .utilisation(u64::from(prepared.machine_procs)),
        ),
        "max_queue" => Value::from(result.outcome.max_queue),
        "kernel_calls" => Value::from(result.outcome.calls),
        "thresholds" => {
            if thresholds.source == ThresholdSource::None {
                Value::Null
            } else {
                Value::from(thresholds.values.clone())
            }
        }
        "threshold_source" => serde_json::to_value(thresholds.source).unwrap_or(Value::Null),
        "dpsa.budget" => d(|s| s.budget.map(u64::from)),
        "dpsa.searches" => d(|s| Some(s.searches)),
        "dpsa.nodes" => d(|s| Some(s.nodes)),
        "dpsa.budget_hits" => d(|s| Some(s.budget_hits)),
        "dpsa.overflows" => d(|s| Some(s.overflows)),
        "cons_rs.searches" => r(|s| s.searches),
        "cons_rs.iterations" => r(|s| s.iterations),
        "cons_rs.accepted" => r(|s| s.accepted),
        "cons_rs.rejected_guarantee" => r(|s| s.rejected_guarantee),
        "cons_rs.rejected_objective" => r(|s| s.rejected_objective),
        "cons_rs.no_gap" => r(|s| s.no_gap),
        "cons_rs.too_crowded" => r(|s| s.too_crowded),
        _ => return None,
    })
}

/// What a generated farm's cell measures besides its replay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FarmFacts {
    /// Estimated CPU-time over the farm's CPUs times the last submit time.
    pub(crate) offered_load: f64,
    /// Jobs no machine can run.
    pub(crate) skipped: u64,
}

/// Metric `name` of the farm replay `run`; `None` for a metric farms do
/// not report ([`for_farms`]).
#[must_use]
pub(crate) fn farm_value(name: &str, run: &FarmRun, facts: FarmFacts) -> Option<Value> {
    let m = &run.metrics;
    let opt = |v: Option<f64>| v.map_or(Value::Null, number);
    Some(match name {
        "jobs" => Value::from(run.outcome.finished),
        "mean_wait" => number(m.mean_wait),
        "mean_bounded_slowdown" => number(m.mean_bounded_slowdown),
        "max_queue" => Value::from(run.outcome.max_queue),
        "kernel_calls" => Value::from(run.outcome.calls),
        "rejected" => Value::from(run.rejected.len()),
        "farm.offered_load" => number(facts.offered_load),
        "farm.skipped" => Value::from(facts.skipped),
        "farm.system_usage" => opt(m.system_usage),
        "farm.system_usage_cpus" => opt(m.system_usage_cpus),
        "farm.utilisation" => number(m.utilisation),
        "farm.deadline_jobs" => Value::from(m.deadline_jobs),
        "farm.missed_deadlines" => Value::from(m.missed_deadlines),
        "farm.missed_percent" => opt(m.missed_percent),
        "farm.mean_slowdown" => number(m.mean_slowdown),
        "farm.license_usage" => opt(m.license_usage),
        "farm.handovers" => Value::from(run.counters.reservation_handovers),
        "farm.span" => Value::from(m.span),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_is_known_and_nothing_else() {
        let names = names();
        assert_eq!(names.len(), 10 * 5 + 22 + 8 * 5 + 6 * 6 + 1 + 4 * 5 + 12);
        assert!(farm_names().iter().all(|n| is_known(n) && for_farms(n)));
        assert!(!for_farms("utilisation") && !farm_only("jobs"));
        assert!(names.iter().all(|n| is_known(n)));
        for bad in [
            "",
            "mean",
            "mean_wait.XX",
            "utilisation.SN",
            "dpsa",
            "mean_wait.",
            "wait_by_reason",
            "wait_by_reason.",
            "wait_by_reason.never",
            "wait_by_reason.license",
            "wait_by_reason.reserved.XX",
            "wait_by_reason.reserved.SN.SN",
            "total_wait.reserved",
            "fair",
            "fair.",
            "fair.le_1.",
            "fair.le_1.<=10m",
            "fair.le_2",
            "fair.no_fair_start.le_10m",
            "fair.jobs.gt_12h.gt_12h",
            "threshold",
            "threshold.",
            "threshold.mean",
            "threshold.value.",
            "threshold.value.XX",
            "threshold.value.SN.SN",
            "threshold.jobs.le_10m",
            "thresholds.SN",
        ] {
            assert!(!is_known(bad), "{bad}");
        }
        assert!(DEFAULT.iter().all(|n| is_known(n)));
        assert!(unknown("x").starts_with("`x` is not a metric; the metrics are jobs, mean_wait,"));
    }
}
