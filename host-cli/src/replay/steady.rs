//! Warm-up and cool-down (`replay --warmup`, `--cooldown`): the first and
//! last jobs of a replay are scheduled normally but left out of its
//! metrics, as steady-state studies do.
//!
//! An edge is a number of jobs (`500`: the first or last 500 jobs in submit
//! order) or a time span (`3600s`, `90m`, `12h`, `2d`: the jobs submitted
//! within that span of the first submit, or of the last submit), on the
//! submit times the kernel sees (after `--load`). A job in both edges is
//! counted once, as warm-up. The metrics of the jobs left are accumulated
//! again from the records in completion order, as the replay accumulates
//! them, so a replay whose edges are empty reports the same figures.

use super::{Prepared, RunResult};
use backfill_core::{CategoryBounds, JobId, JobRecord, Metrics};
use std::collections::HashSet;

/// One edge of the measured jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edge {
    /// A number of jobs.
    Jobs(u64),
    /// A span of submit times, in seconds.
    Span(u64),
}

impl Edge {
    /// The edge in words.
    #[must_use]
    pub(crate) fn text(self) -> String {
        match self {
            Self::Jobs(n) => format!("{n} jobs"),
            Self::Span(s) => format!("{s} s of submits"),
        }
    }
}

/// Parses an edge: a whole number of jobs, or a span with a unit (`s`,
/// `m`, `h`, `d`).
///
/// # Errors
/// A message saying what the text is not.
pub(crate) fn parse_edge(text: &str) -> Result<Edge, String> {
    let t = text.trim();
    let unit = |suffix: char, seconds: u64| {
        t.strip_suffix(suffix)
            .and_then(|n| n.trim().parse::<u64>().ok())
            .and_then(|n| n.checked_mul(seconds))
    };
    if let Ok(n) = t.parse::<u64>() {
        return Ok(Edge::Jobs(n));
    }
    [('s', 1), ('m', 60), ('h', 3600), ('d', 86_400)]
        .iter()
        .find_map(|&(suffix, seconds)| unit(suffix, seconds))
        .map(Edge::Span)
        .ok_or_else(|| {
            format!(
                "`{text}` is neither a number of jobs nor a time span (a whole number with s, m, \
                 h or d: 3600s, 90m, 12h, 2d)"
            )
        })
}

/// The jobs left out of a replay's metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct LeftOut {
    /// Jobs of the warm-up.
    pub(crate) warmup: u64,
    /// Jobs of the cool-down (not already in the warm-up).
    pub(crate) cooldown: u64,
}

/// The ids of the jobs of `prepared` in the warm-up and in the cool-down.
fn edges(
    prepared: &Prepared,
    warmup: Option<Edge>,
    cooldown: Option<Edge>,
) -> (HashSet<JobId>, HashSet<JobId>) {
    let jobs = &prepared.jobs;
    let first = jobs.first().map_or(0, |j| u64::from(j.job.submit));
    let last = jobs.last().map_or(0, |j| u64::from(j.job.submit));
    let n = jobs.len() as u64;
    let mut warm = HashSet::new();
    let mut cool = HashSet::new();
    for (i, j) in jobs.iter().enumerate() {
        let (i, submit) = (i as u64, u64::from(j.job.submit));
        let in_warmup = match warmup {
            Some(Edge::Jobs(k)) => i < k,
            Some(Edge::Span(s)) => submit < first.saturating_add(s),
            None => false,
        };
        let in_cooldown = match cooldown {
            Some(Edge::Jobs(k)) => i >= n.saturating_sub(k),
            Some(Edge::Span(s)) => submit > last.saturating_sub(s),
            None => false,
        };
        if in_warmup {
            warm.insert(j.job.id);
        } else if in_cooldown {
            cool.insert(j.job.id);
        }
    }
    (warm, cool)
}

/// Leaves the warm-up and cool-down jobs out of `result`'s metrics (the
/// replay must have kept its records); returns the records measured and
/// how many jobs were left out.
#[must_use]
pub(crate) fn measure(
    prepared: &Prepared,
    result: &mut RunResult,
    bounds: CategoryBounds,
    warmup: Option<Edge>,
    cooldown: Option<Edge>,
) -> (Vec<JobRecord>, LeftOut) {
    let (warm, cool) = edges(prepared, warmup, cooldown);
    let mut metrics = Metrics::new(bounds);
    let mut measured = Vec::new();
    let mut left = LeftOut::default();
    for r in result.records().unwrap_or_default() {
        if warm.contains(&r.job.id) {
            left.warmup += 1;
        } else if cool.contains(&r.job.id) {
            left.cooldown += 1;
        } else {
            metrics.add(r);
            measured.push(*r);
        }
    }
    result.metrics = metrics;
    (measured, left)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_jobs_or_spans() {
        assert_eq!(parse_edge("500"), Ok(Edge::Jobs(500)));
        assert_eq!(parse_edge("3600s"), Ok(Edge::Span(3600)));
        assert_eq!(parse_edge("90m"), Ok(Edge::Span(5400)));
        assert_eq!(parse_edge("12h"), Ok(Edge::Span(43_200)));
        assert_eq!(parse_edge("2d"), Ok(Edge::Span(172_800)));
        assert!(parse_edge("2w").is_err());
        assert!(parse_edge("-1").is_err());
        assert!(parse_edge("").is_err());
    }
}
