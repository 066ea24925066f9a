//! The flexible-backfilling paper's metrics, and license usage.
//!
//! Over the finished jobs of one replay (a job's `run` is its effective run
//! time on its machine, `end - start`, after a kill at the estimate):
//!
//! * **system usage** (the paper's): `CPUs in use / min(total CPUs, jobs in
//!   system)`, jobs in system = waiting + running, averaged over time from
//!   the first submit to the last end, leaving out the instants with no job
//!   in the system (where the ratio is 0 / 0). Taken literally, a job is
//!   one unit in the denominator however many CPUs it holds, so with few
//!   jobs of several CPUs each the ratio exceeds 1; **system usage (CPU
//!   demand)** divides by `min(total CPUs, CPUs the jobs in system ask
//!   for)` instead, which stays within `[0, 1]`. Both are reported;
//! * **deadlines missed**: the share of jobs with a deadline that ended
//!   after it (jobs without one are left out, as in the paper);
//! * **slowdown**, unbounded as the paper's: mean of `(wait + run) / run`
//!   (run at least 1 s); **bounded slowdown**: `(wait + max(run, 10)) /
//!   max(run, 10)`;
//! * **utilisation**: `sum(run * CPUs) / (total CPUs * (last end - first
//!   submit))`;
//! * **license usage**: copies in use over copies in the farm, averaged
//!   over the same span, overall (copy-weighted) and per pool.

use crate::numbers::percent_of;
use backfill_core::{JobRecord, Time};
use serde::{Deserialize, Serialize};

/// The farm metrics of one replay.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct FarmMetrics {
    /// Finished jobs.
    pub(crate) jobs: u64,
    /// Finished jobs with a deadline.
    pub(crate) deadline_jobs: u64,
    /// Of those, how many ended after their deadline.
    pub(crate) missed_deadlines: u64,
    /// `missed_deadlines / deadline_jobs` in percent (`None` without
    /// deadline jobs).
    pub(crate) missed_percent: Option<f64>,
    /// The paper's system usage, percent (`None` for an empty replay).
    pub(crate) system_usage: Option<f64>,
    /// System usage against the CPUs the jobs in system ask for, percent.
    pub(crate) system_usage_cpus: Option<f64>,
    /// Utilisation of all CPUs from the first submit to the last end, percent.
    pub(crate) utilisation: f64,
    /// Mean wait (s).
    pub(crate) mean_wait: f64,
    /// Mean slowdown `(wait + run) / run`.
    pub(crate) mean_slowdown: f64,
    /// Mean bounded slowdown (10 s bound).
    pub(crate) mean_bounded_slowdown: f64,
    /// Largest slowdown.
    pub(crate) worst_slowdown: f64,
    /// Copies in use over copies in the farm, percent (`None` without
    /// licenses).
    pub(crate) license_usage: Option<f64>,
    /// The same per license pool.
    pub(crate) license_usage_by_pool: Vec<f64>,
    /// Last end minus first submit.
    pub(crate) span: u64,
}

/// Metrics of `records` on a farm of `total_cpus` CPUs and pools of
/// `copies` copies each.
#[must_use]
pub(crate) fn compute(records: &[JobRecord], total_cpus: u64, copies: &[u32]) -> FarmMetrics {
    #![allow(clippy::cast_precision_loss)]
    let mut m = FarmMetrics {
        jobs: records.len() as u64,
        ..FarmMetrics::default()
    };
    if records.is_empty() {
        m.license_usage_by_pool = vec![0.0; copies.len()];
        return m;
    }
    let (mut wait, mut slowdown, mut bounded) = (0.0, 0.0, 0.0);
    let mut work: f64 = 0.0;
    for r in records {
        if let Some(deadline) = r.job.deadline() {
            m.deadline_jobs += 1;
            if r.end > deadline {
                m.missed_deadlines += 1;
            }
        }
        let run = f64::from(r.run().max(1));
        let w = f64::from(r.wait());
        let s = (w + run) / run;
        wait += w;
        slowdown += s;
        m.worst_slowdown = m.worst_slowdown.max(s);
        bounded += r.bounded_slowdown();
        work += f64::from(r.run()) * f64::from(r.job.procs);
    }
    let n = records.len() as f64;
    m.mean_wait = wait / n;
    m.mean_slowdown = slowdown / n;
    m.mean_bounded_slowdown = bounded / n;
    m.missed_percent = percent_of(m.missed_deadlines as f64, m.deadline_jobs as f64);

    let first = records.iter().map(|r| r.job.submit).min().unwrap_or(0);
    let last = records.iter().map(|r| r.end).max().unwrap_or(0);
    m.span = u64::from(last.saturating_sub(first));
    let span = m.span as f64;
    m.utilisation = percent_of(work, total_cpus as f64 * span).unwrap_or(0.0);

    // Sweep over submits, starts and ends: (time, jobs, demanded CPUs,
    // CPUs in use) deltas.
    let mut events: Vec<(Time, i64, i64, i64)> = Vec::with_capacity(3 * records.len());
    for r in records {
        let procs = i64::from(r.job.procs);
        events.push((r.job.submit, 1, procs, 0));
        events.push((r.start(), 0, 0, procs));
        events.push((r.end, -1, -procs, -procs));
    }
    events.sort_unstable_by_key(|e| e.0);
    let total = total_cpus as f64;
    let (mut jobs, mut demand, mut in_use) = (0i64, 0i64, 0i64);
    let (mut usage, mut usage_cpus, mut covered) = (0.0, 0.0, 0.0);
    let mut at = first;
    for (t, dj, dd, du) in events {
        if t > at && jobs > 0 {
            let dt = f64::from(t - at);
            let used = in_use as f64;
            usage += dt * used / total.min(jobs as f64);
            usage_cpus += dt * used / total.min(demand as f64);
            covered += dt;
        }
        at = at.max(t);
        jobs += dj;
        demand += dd;
        in_use += du;
    }
    m.system_usage = percent_of(usage, covered);
    m.system_usage_cpus = percent_of(usage_cpus, covered);

    // License copy-seconds held.
    let mut held = vec![0.0f64; copies.len()];
    for r in records {
        let run = f64::from(r.run());
        for (pool, h) in held.iter_mut().enumerate() {
            if r.job.licenses.contains(pool) {
                *h += run;
            }
        }
    }
    m.license_usage_by_pool = held
        .iter()
        .zip(copies)
        .map(|(&h, &c)| percent_of(h, f64::from(c) * span).unwrap_or(0.0))
        .collect();
    let all_copies: f64 = copies.iter().map(|&c| f64::from(c)).sum();
    m.license_usage = percent_of(held.iter().sum(), all_copies * span);
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use backfill_core::{Job, LicenseSet, Slot};

    fn record(
        submit: Time,
        start: Time,
        end: Time,
        procs: u32,
        deadline: Option<Time>,
        licenses: u32,
    ) -> JobRecord {
        let mut job = Job::new(1, submit, procs, end - start);
        job = job.with_deadline(deadline);
        job.licenses = LicenseSet(licenses);
        JobRecord {
            job,
            runtime: end - start,
            slot: Slot {
                start,
                machine: 0,
                duration: end - start,
            },
            end,
            killed: false,
            guarantee: None,
        }
    }

    #[test]
    fn deadlines_and_slowdowns() {
        let records = [
            record(0, 0, 100, 1, Some(100), 0),   // on time (end == deadline)
            record(0, 100, 200, 1, Some(150), 0), // missed
            record(0, 0, 5, 1, None, 0),          // no deadline
        ];
        let m = compute(&records, 4, &[]);
        assert_eq!((m.deadline_jobs, m.missed_deadlines), (2, 1));
        assert_eq!(m.missed_percent, Some(50.0));
        // Slowdowns 1, 2, 1; bounded 1, 2, 1 (5 s run: (0 + 10) / 10).
        assert!((m.mean_slowdown - 4.0 / 3.0).abs() < 1e-12);
        assert!((m.mean_bounded_slowdown - 4.0 / 3.0).abs() < 1e-12);
        assert!((m.mean_wait - 100.0 / 3.0).abs() < 1e-12);
        assert_eq!(m.worst_slowdown, 2.0);
        assert_eq!(m.license_usage, None);
        // Work 100 + 100 + 5 on 4 CPUs over 200 s.
        assert!((m.utilisation - 100.0 * 205.0 / 800.0).abs() < 1e-9);
    }

    #[test]
    fn system_usage_is_time_averaged() {
        // 8 CPUs. [0, 10): job A (2 CPUs) runs, B (4 CPUs) waits:
        // in use 2, jobs 2, demand 6. [10, 20): B runs alone: 4 / min(8, 1)
        // = 4 (literal) and 4 / 4 = 1 (CPU demand). [20, 30): nobody
        // (left out). [30, 40): C (1 CPU) runs: 1 / 1.
        let records = [
            record(0, 0, 10, 2, None, 0),
            record(0, 10, 20, 4, None, 0),
            record(30, 30, 40, 1, None, 0),
        ];
        let m = compute(&records, 8, &[]);
        let literal = (10.0 * 1.0 + 10.0 * 4.0 + 10.0 * 1.0) / 30.0;
        let cpus = (10.0 * 2.0 / 6.0 + 10.0 * 1.0 + 10.0 * 1.0) / 30.0;
        assert!((m.system_usage.unwrap() - 100.0 * literal).abs() < 1e-9);
        assert!((m.system_usage_cpus.unwrap() - 100.0 * cpus).abs() < 1e-9);
        assert_eq!(m.span, 40);
    }

    #[test]
    fn license_usage_per_pool() {
        // Pool 0: 2 copies, held 10 s + 20 s over 40 s; pool 1: 1 copy, 20 s.
        let records = [
            record(0, 0, 10, 1, None, 0b01),
            record(0, 20, 40, 1, None, 0b11),
        ];
        let m = compute(&records, 2, &[2, 1]);
        assert_eq!(m.license_usage_by_pool, [100.0 * 30.0 / 80.0, 50.0]);
        assert!((m.license_usage.unwrap() - 100.0 * 50.0 / 120.0).abs() < 1e-9);
    }

    #[test]
    fn an_empty_replay_has_no_ratios() {
        let m = compute(&[], 8, &[3]);
        assert_eq!(m.jobs, 0);
        assert_eq!(m.system_usage, None);
        assert_eq!(m.missed_percent, None);
        assert_eq!(m.license_usage_by_pool, [0.0]);
    }
}
