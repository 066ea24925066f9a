//! Distributions of a replay's per-job figures (`replay --distributions`):
//! the median, 90th, 95th and 99th percentiles and the maximum of wait,
//! bounded slowdown and turnaround, overall and per category, exact from
//! the finished jobs' records, with the spread core's accumulators keep
//! (standard deviations of wait and bounded slowdown, geometric mean of
//! bounded slowdowns).
//!
//! Percentiles are nearest-rank: the `p`-th percentile of `n` sorted
//! values is the value of rank `ceil(p * n / 100)` (1-based), so it is
//! always one of the values, and the 100th is the maximum.

use crate::numbers::round4;
use crate::output::report::{cell, of_jobs};
use backfill_core::{Accumulator, Category, CategoryBounds, JobRecord, Metrics};
use serde::Serialize;
use std::fmt::Write as _;

/// The percentiles reported, in percent.
pub(crate) const PERCENTILES: [u32; 4] = [50, 90, 95, 99];

/// The nearest-rank `p`-th percentile of `sorted` (ascending); `None` when
/// empty.
#[must_use]
pub(crate) fn nearest_rank(sorted: &[f64], p: u32) -> Option<f64> {
    let n = sorted.len();
    let rank = (n * p as usize).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// The percentiles and maximum of one measure over a set of jobs.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub(crate) struct Quantiles {
    /// Median (nearest rank).
    pub(crate) p50: f64,
    /// 90th percentile.
    pub(crate) p90: f64,
    /// 95th percentile.
    pub(crate) p95: f64,
    /// 99th percentile.
    pub(crate) p99: f64,
    /// Maximum.
    pub(crate) max: f64,
}

impl Quantiles {
    /// The quantiles of `values` (sorted here); `None` when empty.
    fn of(mut values: Vec<f64>) -> Option<Self> {
        values.sort_by(f64::total_cmp);
        let [p50, p90, p95, p99] = PERCENTILES.map(|p| nearest_rank(&values, p));
        Some(Self {
            p50: p50?,
            p90: p90?,
            p95: p95?,
            p99: p99?,
            max: values.last().copied()?,
        })
    }

    /// The five values in report order.
    const fn values(&self) -> [f64; 5] {
        [self.p50, self.p90, self.p95, self.p99, self.max]
    }
}

/// The distributions of one set of jobs (`all` or a category).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct Distribution {
    /// `all`, SN, SW, LN or LW.
    pub(crate) set: String,
    /// Jobs in the set.
    pub(crate) jobs: u64,
    /// Wait (s); `None` for a set without jobs.
    pub(crate) wait: Option<Quantiles>,
    /// Bounded slowdown.
    pub(crate) bounded_slowdown: Option<Quantiles>,
    /// Turnaround (s).
    pub(crate) turnaround: Option<Quantiles>,
    /// Population standard deviation of the waits (s).
    pub(crate) wait_std_dev: Option<f64>,
    /// Population standard deviation of the bounded slowdowns.
    pub(crate) bounded_slowdown_std_dev: Option<f64>,
    /// Geometric mean of the bounded slowdowns.
    pub(crate) geometric_mean_bounded_slowdown: Option<f64>,
}

impl Distribution {
    /// The distributions of `records` (the jobs of one set), with the
    /// spread of the accumulator of the same jobs.
    fn of(set: &str, records: &[&JobRecord], acc: &Accumulator) -> Self {
        let measure =
            |f: fn(&JobRecord) -> f64| Quantiles::of(records.iter().map(|r| f(r)).collect());
        let n = acc.count;
        Self {
            set: set.to_owned(),
            jobs: n,
            wait: measure(|r| f64::from(r.wait())),
            bounded_slowdown: measure(JobRecord::bounded_slowdown),
            turnaround: measure(|r| f64::from(r.turnaround())),
            wait_std_dev: of_jobs(n, acc.wait_std_dev()),
            bounded_slowdown_std_dev: of_jobs(n, acc.slowdown_std_dev()),
            geometric_mean_bounded_slowdown: of_jobs(n, acc.geometric_mean_slowdown()),
        }
    }
}

/// The distributions of a replay's finished jobs: all, then SN, SW, LN,
/// LW (categories by `bounds`, as the metrics classify them).
#[must_use]
pub(crate) fn distributions(
    records: &[JobRecord],
    metrics: &Metrics,
    bounds: CategoryBounds,
) -> Vec<Distribution> {
    let all: Vec<&JobRecord> = records.iter().collect();
    std::iter::once(Distribution::of("all", &all, &metrics.overall))
        .chain(Category::ALL.iter().map(|&c| {
            let jobs: Vec<&JobRecord> = records
                .iter()
                .filter(|r| bounds.classify(r.runtime, r.job.procs) == c)
                .collect();
            Distribution::of(c.label(), &jobs, metrics.category(c))
        }))
        .collect()
}

/// Reads one measure's quantiles from a set's distributions.
type Measure = fn(&Distribution) -> Option<Quantiles>;

/// The table of `rows`: one block per measure, one line per set.
#[must_use]
pub(crate) fn table(rows: &[Distribution]) -> String {
    let mut out = String::from(
        "distributions (nearest-rank percentiles; std dev: population standard deviation)\n",
    );
    let blocks: [(&str, Measure, usize); 3] = [
        ("wait s", |d| d.wait, 1),
        ("bsld", |d| d.bounded_slowdown, 2),
        ("turnar. s", |d| d.turnaround, 1),
    ];
    for (name, get, decimals) in blocks {
        let _ = write!(
            out,
            "{name:<9} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "p50", "p90", "p95", "p99", "max"
        );
        match name {
            "wait s" => out.push_str("    std dev\n"),
            "bsld" => out.push_str("    std dev   geo mean\n"),
            _ => out.push('\n'),
        }
        for d in rows {
            let _ = write!(out, "{:<9}", d.set);
            let values = get(d).map(|q| q.values());
            for i in 0..5 {
                let v = values.and_then(|v| v.get(i).copied());
                let _ = write!(out, " {}", cell(v, 10, decimals));
            }
            match name {
                "wait s" => {
                    let _ = write!(out, " {}", cell(d.wait_std_dev, 10, 1));
                }
                "bsld" => {
                    let _ = write!(
                        out,
                        " {} {}",
                        cell(d.bounded_slowdown_std_dev, 10, 2),
                        cell(d.geometric_mean_bounded_slowdown, 10, 2)
                    );
                }
                _ => {}
            }
            out.push('\n');
        }
    }
    out
}

/// The CSV columns the distributions add to a replay's rows, in order.
#[must_use]
pub(crate) fn csv_header() -> Vec<String> {
    let mut out = Vec::new();
    for measure in ["wait", "bounded_slowdown", "turnaround"] {
        for p in PERCENTILES {
            out.push(format!("{measure}_p{p}"));
        }
        out.push(format!("{measure}_max"));
    }
    out.extend(
        [
            "wait_std_dev",
            "bounded_slowdown_std_dev",
            "geometric_mean_bounded_slowdown",
        ]
        .map(str::to_owned),
    );
    out
}

/// The CSV fields of one set, matching [`csv_header`] (empty for a set
/// without jobs; numbers rounded to 4 decimals).
#[must_use]
pub(crate) fn csv_fields(d: &Distribution) -> Vec<String> {
    let text = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{:?}", round4(v)));
    let mut out = Vec::new();
    for q in [d.wait, d.bounded_slowdown, d.turnaround] {
        for i in 0..5 {
            out.push(text(q.and_then(|q| q.values().get(i).copied())));
        }
    }
    out.extend([
        text(d.wait_std_dev),
        text(d.bounded_slowdown_std_dev),
        text(d.geometric_mean_bounded_slowdown),
    ]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 50), Some(5.0));
        assert_eq!(nearest_rank(&v, 90), Some(9.0));
        assert_eq!(nearest_rank(&v, 95), Some(10.0));
        assert_eq!(nearest_rank(&v, 99), Some(10.0));
        assert_eq!(nearest_rank(&[7.0], 50), Some(7.0));
        assert_eq!(nearest_rank(&[], 50), None);
        let q = Quantiles::of(vec![3.0, 1.0, 2.0]).unwrap();
        assert_eq!(q.values(), [2.0, 3.0, 3.0, 3.0, 3.0]);
        assert_eq!(Quantiles::of(Vec::new()), None);
        assert_eq!(csv_header().len(), 18);
    }
}
