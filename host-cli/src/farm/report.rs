//! `host-cli replay --farm`'s report (table, JSON, one CSV row) and its
//! per-job CSV.

use super::metrics::FarmMetrics;
use super::replay::{FarmRun, PreparedFarm, SkipReason};
use crate::error::CliError;
use crate::output::csv_text;
use crate::output::report::MetricsRow;
use backfill_core::policy::Heuristics;
use serde::Serialize;
use std::fmt::Write as _;

/// The heuristics in points (as on the command line).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct HeuristicsView {
    /// Weight of aging.
    pub(crate) aging_weight: f64,
    /// Aging points per second of wait.
    pub(crate) age_factor: f64,
    /// Weight of the deadline score.
    pub(crate) deadline_weight: f64,
    /// Deadline score far from the deadline.
    pub(crate) deadline_min: f64,
    /// Deadline score at the deadline.
    pub(crate) deadline_max: f64,
    /// Deadline `k`.
    pub(crate) deadline_k: f64,
    /// Weight of the licenses score.
    pub(crate) license_weight: f64,
    /// Weight of wait minimisation.
    pub(crate) wait_weight: f64,
    /// Wait minimisation's boost.
    pub(crate) boost: f64,
}

fn points(milli: u32) -> f64 {
    f64::from(milli) / 1000.0
}

impl From<Heuristics> for HeuristicsView {
    fn from(h: Heuristics) -> Self {
        Self {
            aging_weight: points(h.aging_weight),
            age_factor: points(h.age_factor),
            deadline_weight: points(h.deadline_weight),
            deadline_min: points(h.deadline_min),
            deadline_max: points(h.deadline_max),
            deadline_k: points(h.deadline_k),
            license_weight: points(h.license_weight),
            wait_weight: points(h.wait_weight),
            boost: points(h.wait_boost),
        }
    }
}

impl HeuristicsView {
    /// One line of text.
    #[must_use]
    pub(crate) fn text(&self) -> String {
        format!(
            "aging {} x {}/s; deadline {} x [{}, {}], k {}; licenses {}; wait {} x boost {}",
            self.aging_weight,
            self.age_factor,
            self.deadline_weight,
            self.deadline_min,
            self.deadline_max,
            self.deadline_k,
            self.license_weight,
            self.wait_weight,
            self.boost
        )
    }
}

/// Jobs skipped for one reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct SkipRow {
    /// The reason.
    pub(crate) reason: SkipReason,
    /// What it means.
    pub(crate) text: String,
    /// How many jobs.
    pub(crate) jobs: u64,
}

/// What `host-cli replay --farm` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FarmReport {
    /// The two files.
    pub(crate) input: String,
    /// Machines.
    pub(crate) machines: usize,
    /// Their CPUs.
    pub(crate) cpus: u64,
    /// License pools.
    pub(crate) license_pools: usize,
    /// Their copies.
    pub(crate) license_copies: u64,
    /// The policy.
    pub(crate) policy: String,
    /// BF_UNMOD / BF_MOD: the heuristics.
    pub(crate) heuristics: Option<HeuristicsView>,
    /// Jobs in the list.
    pub(crate) jobs_read: u64,
    /// Jobs replayed and finished.
    pub(crate) scheduled: u64,
    /// Jobs not run, by reason.
    pub(crate) skipped: Vec<SkipRow>,
    /// Jobs the kernel refused (0 after the checks above).
    pub(crate) refused: u64,
    /// Jobs out of `(submit, id)` order in the file.
    pub(crate) out_of_order: u64,
    /// Standard metrics, overall and per category.
    pub(crate) sets: Vec<MetricsRow>,
    /// The farm metrics.
    pub(crate) farm: FarmMetrics,
    /// BF_MOD: times the reservation passed to a job that overtook its holder.
    pub(crate) reservation_handovers: u64,
    /// Longest wait queue.
    pub(crate) max_queue: usize,
    /// Kernel calls.
    pub(crate) kernel_calls: u64,
    /// Seconds in the replay.
    pub(crate) replay_seconds: f64,
    /// Seconds in all (reading included).
    pub(crate) total_seconds: f64,
}

/// The report of one farm replay.
#[must_use]
pub(crate) fn report(prepared: &PreparedFarm, run: &FarmRun, total_seconds: f64) -> FarmReport {
    let farm = &prepared.workload.farm;
    let sets = MetricsRow::sets(&run.standard);
    FarmReport {
        input: prepared.name.clone(),
        machines: farm.machines.len(),
        cpus: farm.total_cpus(),
        license_pools: farm.licenses.len(),
        license_copies: farm.licenses.iter().map(|l| u64::from(l.copies)).sum(),
        policy: run.policy.name().to_owned(),
        heuristics: run.policy.heuristics().map(HeuristicsView::from),
        jobs_read: prepared.workload.jobs.len() as u64,
        scheduled: run.outcome.finished,
        skipped: SkipReason::ALL
            .into_iter()
            .map(|reason| SkipRow {
                reason,
                text: reason.text().to_owned(),
                jobs: prepared.skipped_for(reason),
            })
            .filter(|r| r.jobs > 0)
            .collect(),
        refused: run.rejected.len() as u64,
        out_of_order: prepared.out_of_order,
        sets,
        farm: run.metrics.clone(),
        reservation_handovers: run.counters.reservation_handovers,
        max_queue: run.outcome.max_queue,
        kernel_calls: run.outcome.calls,
        replay_seconds: run.wall.as_secs_f64(),
        total_seconds,
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}%"))
}

/// The report as aligned text.
#[must_use]
pub(crate) fn table(r: &FarmReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "farm         {}", r.input);
    let _ = writeln!(
        out,
        "machines     {} ({} CPUs), {} license pools ({} copies)",
        r.machines, r.cpus, r.license_pools, r.license_copies
    );
    let _ = writeln!(out, "policy       {}", r.policy);
    if let Some(h) = &r.heuristics {
        let _ = writeln!(out, "heuristics   {}", h.text());
    }
    let skipped: u64 = r.skipped.iter().map(|s| s.jobs).sum();
    let _ = writeln!(
        out,
        "jobs         {} read; {} scheduled; {} skipped",
        r.jobs_read, r.scheduled, skipped
    );
    for s in &r.skipped {
        let _ = writeln!(out, "             {} skipped: {}", s.jobs, s.text);
    }
    if r.refused > 0 {
        let _ = writeln!(out, "             {} refused by the kernel", r.refused);
    }
    if r.out_of_order > 0 {
        let _ = writeln!(
            out,
            "             {} jobs out of submit order in the file (sorted)",
            r.out_of_order
        );
    }
    out.push('\n');
    out.push_str(&MetricsRow::table(&r.sets, 6));
    let f = &r.farm;
    out.push('\n');
    let _ = writeln!(
        out,
        "system usage     {} (paper's: CPUs in use / min(CPUs, jobs in system)); {} against the CPUs jobs ask for",
        pct(f.system_usage),
        pct(f.system_usage_cpus)
    );
    let _ = writeln!(out, "utilisation      {:.1}%", f.utilisation);
    let _ = writeln!(
        out,
        "deadlines        {} of {} deadline jobs missed ({})",
        f.missed_deadlines,
        f.deadline_jobs,
        pct(f.missed_percent)
    );
    let _ = writeln!(
        out,
        "slowdown         mean {:.2} (bounded {:.2}), worst {:.1}; mean wait {:.1} s",
        f.mean_slowdown, f.mean_bounded_slowdown, f.worst_slowdown, f.mean_wait
    );
    let _ = writeln!(
        out,
        "license usage    {} of all copies",
        pct(f.license_usage)
    );
    if r.policy == "bf-mod" {
        let _ = writeln!(
            out,
            "reservation      {} hand-overs (another job overtook the holder)",
            r.reservation_handovers
        );
    }
    let _ = writeln!(
        out,
        "max queue {}   kernel calls {}   wall time {:.3} s replay, {:.3} s in all",
        r.max_queue, r.kernel_calls, r.replay_seconds, r.total_seconds
    );
    out
}

/// One CSV row of the report's key numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct CsvRow {
    /// The two files.
    pub(crate) input: String,
    /// Policy.
    pub(crate) policy: String,
    /// Jobs in the list.
    pub(crate) jobs_read: u64,
    /// Jobs finished.
    pub(crate) scheduled: u64,
    /// Jobs skipped (all reasons).
    pub(crate) skipped: u64,
    /// System usage, percent.
    pub(crate) system_usage: Option<f64>,
    /// System usage against CPU demand, percent.
    pub(crate) system_usage_cpus: Option<f64>,
    /// Utilisation, percent.
    pub(crate) utilisation: f64,
    /// Deadline jobs finished.
    pub(crate) deadline_jobs: u64,
    /// Of those, missed.
    pub(crate) missed_deadlines: u64,
    /// Missed, percent.
    pub(crate) missed_percent: Option<f64>,
    /// Mean slowdown.
    pub(crate) mean_slowdown: f64,
    /// Mean bounded slowdown.
    pub(crate) mean_bounded_slowdown: f64,
    /// Mean wait (s).
    pub(crate) mean_wait: f64,
    /// License usage, percent.
    pub(crate) license_usage: Option<f64>,
    /// BF_MOD's hand-overs.
    pub(crate) reservation_handovers: u64,
}

/// The report's key numbers as CSV (header and one row).
///
/// # Errors
/// [`CliError::Io`] when serialising fails.
pub(crate) fn csv_row(r: &FarmReport) -> Result<String, CliError> {
    let f = &r.farm;
    let row = CsvRow {
        input: r.input.clone(),
        policy: r.policy.clone(),
        jobs_read: r.jobs_read,
        scheduled: r.scheduled,
        skipped: r.skipped.iter().map(|s| s.jobs).sum(),
        system_usage: f.system_usage,
        system_usage_cpus: f.system_usage_cpus,
        utilisation: f.utilisation,
        deadline_jobs: f.deadline_jobs,
        missed_deadlines: f.missed_deadlines,
        missed_percent: f.missed_percent,
        mean_slowdown: f.mean_slowdown,
        mean_bounded_slowdown: f.mean_bounded_slowdown,
        mean_wait: f.mean_wait,
        license_usage: f.license_usage,
        reservation_handovers: r.reservation_handovers,
    };
    csv_text(&[row])
}

/// One row of the per-job CSV.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct JobRow {
    /// The job's id in the job list.
    pub(crate) job_id: u32,
    /// Submit time.
    pub(crate) submit: u32,
    /// Start time.
    pub(crate) start: u32,
    /// End time.
    pub(crate) end: u32,
    /// `start - submit`.
    pub(crate) wait: u32,
    /// `end - start`.
    pub(crate) run: u32,
    /// Estimate on a reference machine.
    pub(crate) estimate: u32,
    /// CPUs.
    pub(crate) cpus: u32,
    /// The machine it ran on.
    pub(crate) machine: String,
    /// Deadline, if any.
    pub(crate) deadline: Option<u32>,
    /// Whether it ended after its deadline.
    pub(crate) missed: Option<bool>,
    /// Licenses it held, space-separated.
    pub(crate) licenses: String,
    /// `(wait + run) / run`.
    pub(crate) slowdown: f64,
    /// Bounded slowdown.
    pub(crate) bounded_slowdown: f64,
    /// Killed at its estimate.
    pub(crate) killed: bool,
}

/// One CSV row per finished job, by job id.
///
/// # Errors
/// [`CliError::Io`] when serialising fails.
pub(crate) fn jobs_csv(prepared: &PreparedFarm, run: &FarmRun) -> Result<String, CliError> {
    let farm = &prepared.workload.farm;
    let mut records = run.records.clone();
    records.sort_by_key(|r| r.job.id);
    let rows: Vec<JobRow> = records
        .iter()
        .map(|r| {
            let run_s = r.run();
            JobRow {
                job_id: r.job.id,
                submit: r.job.submit,
                start: r.start(),
                end: r.end,
                wait: r.wait(),
                run: run_s,
                estimate: r.job.estimate,
                cpus: r.job.procs,
                machine: farm
                    .machines
                    .get(usize::from(r.slot.machine))
                    .map_or_else(String::new, |m| m.name.clone()),
                deadline: r.job.deadline(),
                missed: r.job.deadline().map(|d| r.end > d),
                licenses: farm
                    .licenses
                    .iter()
                    .enumerate()
                    .filter(|(l, _)| r.job.licenses.contains(*l))
                    .map(|(_, l)| l.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                slowdown: (f64::from(r.wait()) + f64::from(run_s.max(1))) / f64::from(run_s.max(1)),
                bounded_slowdown: r.bounded_slowdown(),
                killed: r.killed,
            }
        })
        .collect();
    csv_text(&rows)
}
