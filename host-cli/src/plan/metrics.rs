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
use crate::output::report::{self, ConsRsStats, DpsaStats};
use crate::replay::thresholds::{ThresholdSource, ThresholdsUsed};
use crate::replay::{Prepared, RunResult};
use crate::studies::offered_load;
use backfill_core::{Accumulator, Category};
use serde_json::Value;

/// Metrics of a set of jobs: (name, meaning).
pub(crate) const SET_METRICS: [(&str, &str); 9] = [
    ("jobs", "jobs finished"),
    ("mean_wait", "mean wait (s)"),
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
pub(crate) const RUN_METRICS: [(&str, &str); 21] = [
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
    is_set || RUN_METRICS.iter().any(|m| m.0 == name) || farm_only(name)
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
         NAME.SW, NAME.LN or NAME.LW, and {}; for generated farms only, {}",
        SET_METRICS.map(|m| m.0).join(", "),
        RUN_METRICS.map(|m| m.0).join(", "),
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
/// `thresholds`; `None` for an unknown name.
#[must_use]
pub(crate) fn value(
    name: &str,
    prepared: &Prepared,
    result: &RunResult,
    thresholds: &ThresholdsUsed,
) -> Option<Value> {
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
        assert_eq!(names.len(), 9 * 5 + 21 + 12);
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
        ] {
            assert!(!is_known(bad), "{bad}");
        }
        assert!(DEFAULT.iter().all(|n| is_known(n)));
        assert!(unknown("x").starts_with("`x` is not a metric; the metrics are jobs, mean_wait,"));
    }
}
