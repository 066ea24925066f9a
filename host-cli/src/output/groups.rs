//! Per-owner figures (`replay --by user|group|queue`): the metrics of each
//! user, group or queue of the SWF trace (fields 12, 13 and 15; jobs
//! without one form the `unknown` group), and the fairness spread between
//! them.
//!
//! Fairness is two numbers over the groups with jobs: the ratio of the
//! largest to the smallest mean bounded slowdown (at least 1; 1 when every
//! group is served alike), and Jain's index of the groups' mean waits,
//! `(sum x)^2 / (n * sum x^2)`, from `1/n` (one group gets all the
//! waiting) to 1 (every group waits as long; also 1 when no job waited).

use crate::output::report::{cell, MetricsRow};
use crate::replay::Prepared;
use backfill_core::{Accumulator, JobRecord};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What the jobs are grouped by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum GroupBy {
    /// The SWF user (field 12).
    User,
    /// The SWF group (field 13).
    Group,
    /// The SWF queue (field 15).
    Queue,
}

impl GroupBy {
    /// The noun.
    #[must_use]
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Group => "group",
            Self::Queue => "queue",
        }
    }

    /// The key of trace job `index` of `prepared`; `None` when unknown.
    fn key(self, prepared: &Prepared, index: usize) -> Option<u32> {
        let t = prepared.trace_jobs.get(index)?;
        match self {
            Self::User => t.user,
            Self::Group => t.group,
            Self::Queue => t.queue,
        }
    }
}

/// The fairness spread between the groups.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub(crate) struct Fairness {
    /// Groups with jobs.
    pub(crate) groups: u64,
    /// Largest over smallest mean bounded slowdown of a group.
    pub(crate) slowdown_max_over_min: Option<f64>,
    /// Jain's index of the groups' mean waits.
    pub(crate) jain_index_of_mean_wait: Option<f64>,
}

/// The figures per group.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct GroupsReport {
    /// `user`, `group` or `queue`.
    pub(crate) by: GroupBy,
    /// One row per group (`set` is its number, or `unknown`), by number.
    pub(crate) groups: Vec<MetricsRow>,
    /// The spread between them.
    pub(crate) fairness: Fairness,
}

/// The groups of `records` (the measured jobs of `prepared`), each
/// accumulated in completion order.
#[must_use]
pub(crate) fn groups(prepared: &Prepared, records: &[JobRecord], by: GroupBy) -> GroupsReport {
    let mut accs: BTreeMap<Option<u32>, Accumulator> = BTreeMap::new();
    for r in records {
        accs.entry(by.key(prepared, r.job.id as usize))
            .or_default()
            .add(r);
    }
    let rows: Vec<MetricsRow> = accs
        .iter()
        .map(|(key, acc)| {
            let label = key.map_or_else(|| "unknown".to_owned(), |k| k.to_string());
            MetricsRow::new(&label, acc)
        })
        .collect();
    let slowdowns: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.mean_bounded_slowdown)
        .collect();
    let waits: Vec<f64> = rows.iter().filter_map(|r| r.mean_wait).collect();
    let max = slowdowns.iter().copied().reduce(f64::max);
    let min = slowdowns.iter().copied().reduce(f64::min);
    let sum: f64 = waits.iter().sum();
    let squares: f64 = waits.iter().map(|w| w * w).sum();
    #[allow(clippy::cast_precision_loss)]
    let n = waits.len() as f64;
    let jain = (!waits.is_empty()).then(|| {
        if squares > 0.0 {
            sum * sum / (n * squares)
        } else {
            1.0
        }
    });
    GroupsReport {
        by,
        fairness: Fairness {
            groups: rows.len() as u64,
            slowdown_max_over_min: max.zip(min).map(|(max, min)| max / min),
            jain_index_of_mean_wait: jain,
        },
        groups: rows,
    }
}

impl GroupsReport {
    /// The table: one line per group, then the fairness line.
    #[must_use]
    pub(crate) fn table(&self) -> String {
        let width = self
            .groups
            .iter()
            .map(|r| r.set.len())
            .max()
            .unwrap_or(0)
            .max(self.by.name().len());
        let mut out = MetricsRow::table_labelled(&self.groups, self.by.name(), width, 8);
        let f = &self.fairness;
        let _ = writeln!(
            out,
            "fairness     {} {}s: mean bsld max/min {}; Jain index of mean wait {}",
            f.groups,
            self.by.name(),
            cell(f.slowdown_max_over_min, 0, 2),
            cell(f.jain_index_of_mean_wait, 0, 3)
        );
        out
    }
}
