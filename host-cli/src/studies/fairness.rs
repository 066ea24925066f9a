//! Fairness against fair-start times (the paper's section 5, Table 9 and
//! Figure 7).
//!
//! * **Fair start.** Replay FCFS-Conservative; as each job arrives (after
//!   the completions at its instant, before it is submitted), ask the kernel
//!   when the job would start if the system switched to strict FCFS without
//!   backfilling at that instant: running jobs hold their processors until
//!   their *estimated* ends, then the queued jobs in order and the new job
//!   last each start at their earliest fit, none before the job ahead
//!   (`Kernel::strict_fcfs_start`). With exact estimates this is the
//!   paper's definition; with user estimates FCFS-Conservative is still the
//!   reference, as the paper argues.
//! * **Fair slowdown** = `(fair_start - submit + max(run, 10)) / max(run, 10)`,
//!   with `run` the effective run time (after a kill at the estimate). The
//!   10 s floor is the bounded slowdown's, so a job's bounded slowdown and
//!   its fair slowdown are directly comparable; the paper's formula has no
//!   floor, which only matters for jobs under 10 s.
//! * **Buckets.** Each job's bounded slowdown under a policy divided by its
//!   fair slowdown falls in `<= 1` (treated fairly), `(1, 1.5]`,
//!   `(1.5, 2]`, `(2, 4]` or `> 4`. Both slowdowns share the denominator,
//!   so the ratio is `(wait + R) / (fair_wait + R)` with `R = max(run, 10)`,
//!   and the bucket is decided in exact integer arithmetic ([`bucket`]).
//! * **Run-time classes** (Figure 7), by the trace's run time like the
//!   SN/SW/LN/LW categories: `<= 10 min`, `10 min - 1 h`, `1 - 4 h`,
//!   `4 - 12 h`, `> 12 h` ([`CLASSES`]). The paper does not give its class
//!   bounds; these split the 1 h Short/Long bound further, and put CTC's
//!   18 h and SDSC's and KTH's longest jobs in the last class.

use super::{common_metrics, records_by_id, run_study, Scenario};
use crate::error::CliError;
use crate::numbers::{round4, share_pct};
use crate::output::csv_records;
use crate::replay::policy::{PolicyChoice, ThresholdOptions};
use crate::replay::thresholds::{ConservativeThresholds, ThresholdsUsed};
use crate::replay::{self, ArrivalObserver, Prepared, TraceCluster, Window};
use crate::studies::plot::{self, Series, StackPanel};
use backfill_core::metrics::SLOWDOWN_BOUND;
use backfill_core::{CategoryBounds, Job, JobId, Kernel, KernelError, Plan, Policy, Time};
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::fmt::Write as _;

/// The ratio buckets, in order.
pub(crate) const BUCKETS: [&str; 5] = ["<=1", "1-1.5", "1.5-2", "2-4", ">4"];

/// A run-time class: jobs whose trace run time is at most `max_runtime`
/// seconds (and above the previous class's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RunClass {
    /// Label.
    pub(crate) label: &'static str,
    /// Longest run time (s) in the class; `None` for the last.
    pub(crate) max_runtime: Option<u32>,
}

/// The run-time classes of Figure 7's kind.
pub(crate) const CLASSES: [RunClass; 5] = [
    RunClass {
        label: "<=10m",
        max_runtime: Some(600),
    },
    RunClass {
        label: "10m-1h",
        max_runtime: Some(3600),
    },
    RunClass {
        label: "1h-4h",
        max_runtime: Some(4 * 3600),
    },
    RunClass {
        label: "4h-12h",
        max_runtime: Some(12 * 3600),
    },
    RunClass {
        label: ">12h",
        max_runtime: None,
    },
];

/// The index in [`CLASSES`] of a job that ran `runtime` seconds.
#[must_use]
pub(crate) fn class_of(runtime: u32) -> usize {
    CLASSES
        .iter()
        .position(|c| c.max_runtime.is_none_or(|m| runtime <= m))
        .unwrap_or(CLASSES.len() - 1)
}

/// The bucket (index into [`BUCKETS`]) of a job that waited `wait` under a
/// policy and `fair_wait` to its fair start, with effective run time `run`:
/// the ratio of its bounded slowdown to its fair slowdown,
/// `(wait + R) / (fair_wait + R)` with `R = max(run, 10)`, compared exactly.
#[must_use]
pub(crate) fn bucket(wait: u32, fair_wait: u32, run: u32) -> usize {
    let r = u64::from(run.max(SLOWDOWN_BOUND));
    // ratio <= k  <=>  2 (wait + R) <= 2k (fair_wait + R)
    let num = 2 * (u64::from(wait) + r);
    let den = u64::from(fair_wait) + r;
    [2, 3, 4, 8]
        .iter()
        .position(|&k2| num <= k2 * den)
        .unwrap_or(4)
}

/// `(fair_wait + max(run, 10)) / max(run, 10)`.
#[must_use]
pub(crate) fn fair_slowdown(fair_wait: u32, run: u32) -> f64 {
    let r = f64::from(run.max(SLOWDOWN_BOUND));
    (f64::from(fair_wait) + r) / r
}

/// Jobs per bucket.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct BucketCounts {
    /// Jobs counted.
    pub(crate) jobs: u64,
    /// Jobs per bucket ([`BUCKETS`] order).
    pub(crate) counts: [u64; 5],
    /// Percent of `jobs` per bucket.
    pub(crate) shares_pct: [f64; 5],
}

impl BucketCounts {
    /// Counts one job in bucket `bucket`.
    pub(crate) fn add(&mut self, bucket: usize) {
        self.jobs += 1;
        if let Some(c) = self.counts.get_mut(bucket) {
            *c += 1;
        }
    }

    pub(crate) fn finish(&mut self) {
        for (share, &count) in self.shares_pct.iter_mut().zip(&self.counts) {
            *share = share_pct(count, self.jobs);
        }
    }

    /// Percent of jobs treated unfairly (ratio above 1).
    #[must_use]
    pub(crate) fn unfair_pct(&self) -> f64 {
        self.shares_pct.iter().skip(1).sum()
    }
}

/// One policy's fairness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct FairnessPolicy {
    /// Policy name.
    pub(crate) policy: String,
    /// Its thresholds.
    pub(crate) thresholds: ThresholdsUsed,
    /// Mean bounded slowdown of the counted jobs.
    pub(crate) mean_bounded_slowdown: f64,
    /// Every counted job.
    pub(crate) overall: BucketCounts,
    /// Per run-time class ([`CLASSES`] order).
    pub(crate) by_class: Vec<BucketCounts>,
}

/// What `host-cli fairness` reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct FairnessReport {
    /// What ran.
    pub(crate) scenario: Scenario,
    /// Bucket labels.
    pub(crate) buckets: Vec<String>,
    /// Run-time class labels.
    pub(crate) classes: Vec<String>,
    /// Jobs per run-time class (counted jobs).
    pub(crate) class_jobs: Vec<u64>,
    /// Jobs with a fair start that every policy finished: the ones counted.
    pub(crate) jobs_counted: u64,
    /// Jobs the fair-start computation failed for (a kernel error), left out.
    pub(crate) jobs_without_fair_start: u64,
    /// The errors, by trace job number (at most 20 shown).
    pub(crate) fair_start_errors: Vec<String>,
    /// Mean fair slowdown of the counted jobs.
    pub(crate) mean_fair_slowdown: f64,
    /// Per policy.
    pub(crate) policies: Vec<FairnessPolicy>,
    /// Thresholds derived from the Conservative run, when used.
    pub(crate) conservative_thresholds: Option<ConservativeThresholds>,
}

/// Collects fair-start times as jobs arrive on an FCFS-Conservative kernel.
pub(crate) struct FairStarts {
    /// A scratch plan of the replay kernel's shape (`Plan<B, 1, 0>` for the
    /// kernel's `B`), built on the replay thread at the first arrival.
    scratch: Option<Box<dyn Any + Send>>,
    /// Fair start per kernel job id.
    pub(crate) starts: Vec<Option<Time>>,
    /// Jobs whose fair start could not be computed.
    pub(crate) errors: Vec<(JobId, KernelError)>,
}

impl FairStarts {
    /// An empty collector for `jobs` jobs on `cluster` (its scratch plan is
    /// built at the first arrival, on the replay thread's large stack).
    #[must_use]
    pub(crate) fn new(_cluster: &TraceCluster, jobs: usize) -> Self {
        Self {
            scratch: None,
            starts: vec![None; jobs],
            errors: Vec::new(),
        }
    }
}

impl ArrivalObserver for FairStarts {
    fn arriving<const Q: usize, const R: usize, const B: usize>(
        &mut self,
        kernel: &Kernel<Q, R, B>,
        job: &Job,
    ) {
        if !self
            .scratch
            .as_ref()
            .is_some_and(|s| s.is::<Plan<B, 1, 0>>())
        {
            let plan: Box<dyn Any + Send> = Box::new(Plan::<B, 1, 0>::new(kernel.cluster()));
            self.scratch = Some(plan);
        }
        let Some(scratch) = self
            .scratch
            .as_mut()
            .and_then(|s| s.downcast_mut::<Plan<B, 1, 0>>())
        else {
            return;
        };
        match kernel.strict_fcfs_start(job.submit, job, scratch) {
            Ok(slot) => {
                if let Some(s) = self.starts.get_mut(job.id as usize) {
                    *s = Some(slot.start);
                }
            }
            Err(e) => self.errors.push((job.id, e)),
        }
    }
}

/// Replays FCFS-Conservative on `prepared`, collecting fair starts; the
/// run keeps its per-job records.
///
/// # Errors
/// Replay errors.
pub(crate) fn fair_starts(
    prepared: &Prepared,
    bounds: CategoryBounds,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<(replay::RunResult, FairStarts), CliError> {
    let n = prepared.jobs.len();
    replay::run_observed(
        prepared,
        Policy::Conservative,
        bounds,
        true,
        progress,
        move |c| FairStarts::new(c, n),
    )
}

/// Per-job fairness data, for `--jobs-out`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct JobFairness {
    /// Kernel job id.
    pub(crate) id: JobId,
    /// Fair start.
    pub(crate) fair_start: Time,
    /// Per policy: (start, bounded slowdown, bucket).
    pub(crate) per_policy: Vec<(Time, f64, usize)>,
}

/// Replays the fair-start reference and every policy, and counts buckets.
///
/// # Errors
/// Option and replay errors.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    prepared: &Prepared,
    window: &Window,
    choices: &[PolicyChoice],
    options: &ThresholdOptions,
    bounds: CategoryBounds,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<(FairnessReport, Vec<JobFairness>), CliError> {
    options.check(choices)?;
    let (reference, fair) = fair_starts(prepared, bounds, progress)?;
    let study = run_study(
        prepared,
        choices,
        options,
        bounds,
        Some(reference),
        progress,
    )?;
    let results: Vec<_> = study.runs.iter().map(|r| &r.result).collect();
    let n = prepared.jobs.len();
    let common = common_metrics(&results, bounds, n);
    let by_id: Vec<_> = results.iter().map(|r| records_by_id(r, n)).collect();
    let mut policies: Vec<FairnessPolicy> = study
        .runs
        .iter()
        .map(|r| FairnessPolicy {
            policy: r.choice.name().to_owned(),
            thresholds: r.thresholds.clone(),
            mean_bounded_slowdown: 0.0,
            overall: BucketCounts::default(),
            by_class: vec![BucketCounts::default(); CLASSES.len()],
        })
        .collect();
    let mut class_jobs = vec![0u64; CLASSES.len()];
    let mut bsld_sums = vec![0.0f64; policies.len()];
    let (mut counted, mut fair_sum) = (0u64, 0.0f64);
    let mut jobs = Vec::new();
    for (id, fair_start) in fair.starts.iter().enumerate() {
        let Some(fair_start) = *fair_start else {
            continue;
        };
        let recs: Option<Vec<_>> = by_id.iter().map(|v| v.get(id).copied().flatten()).collect();
        let Some(recs) = recs else {
            continue;
        };
        let Some(first) = recs.first() else {
            continue;
        };
        let run = first.run();
        let fair_wait = fair_start.saturating_sub(first.job.submit);
        let class = class_of(first.runtime);
        counted += 1;
        fair_sum += fair_slowdown(fair_wait, run);
        if let Some(c) = class_jobs.get_mut(class) {
            *c += 1;
        }
        let mut per_policy = Vec::with_capacity(recs.len());
        for ((p, rec), sum) in policies.iter_mut().zip(&recs).zip(&mut bsld_sums) {
            let b = bucket(rec.wait(), fair_wait, rec.run());
            p.overall.add(b);
            if let Some(c) = p.by_class.get_mut(class) {
                c.add(b);
            }
            *sum += rec.bounded_slowdown();
            per_policy.push((rec.start(), rec.bounded_slowdown(), b));
        }
        jobs.push(JobFairness {
            id: JobId::try_from(id).unwrap_or(JobId::MAX),
            fair_start,
            per_policy,
        });
    }
    #[allow(clippy::cast_precision_loss)]
    let mean = |sum: f64| {
        if counted == 0 {
            0.0
        } else {
            sum / counted as f64
        }
    };
    for (p, sum) in policies.iter_mut().zip(&bsld_sums) {
        p.mean_bounded_slowdown = mean(*sum);
        p.overall.finish();
        p.by_class.iter_mut().for_each(BucketCounts::finish);
    }
    let number = |id: JobId| {
        prepared
            .trace_jobs
            .get(id as usize)
            .map_or(u64::from(id), |t| t.number)
    };
    let scenario = Scenario::new(
        prepared,
        window,
        bounds,
        Some(prepared.shaping.load),
        study.rejected(),
        &common,
    );
    let report = FairnessReport {
        scenario,
        buckets: BUCKETS.iter().map(|b| (*b).to_owned()).collect(),
        classes: CLASSES.iter().map(|c| c.label.to_owned()).collect(),
        class_jobs,
        jobs_counted: counted,
        jobs_without_fair_start: fair.errors.len() as u64,
        fair_start_errors: fair
            .errors
            .iter()
            .take(20)
            .map(|(id, e)| format!("trace job {}: {e}", number(*id)))
            .collect(),
        mean_fair_slowdown: mean(fair_sum),
        policies,
        conservative_thresholds: study.conservative,
    };
    Ok((report, jobs))
}

/// The report as text: Table 9 (overall shares), then Figure 7 (shares by
/// run-time class).
#[must_use]
pub(crate) fn table(r: &FairnessReport) -> String {
    let mut out = r.scenario.text();
    for p in &r.policies {
        if p.thresholds.text != "-" {
            let _ = writeln!(out, "thresholds   {}: {}", p.policy, p.thresholds.text);
        }
    }
    let _ = writeln!(
        out,
        "\nfair start   each job's start had the FCFS-Conservative system switched to strict FCFS \
         (no backfilling) as it arrived"
    );
    let _ = writeln!(
        out,
        "fair slowdown (fair start - submit + max(run, 10)) / max(run, 10): the bounded slowdown's 10 s floor"
    );
    let _ = writeln!(
        out,
        "counted      {} jobs (fair start known, finished under every policy); mean fair slowdown {:.2}",
        r.jobs_counted, r.mean_fair_slowdown
    );
    if r.jobs_without_fair_start > 0 {
        let _ = writeln!(
            out,
            "  no fair start {:>5}  jobs (kernel error, left out): {}",
            r.jobs_without_fair_start,
            r.fair_start_errors.join("; ")
        );
    }
    let _ = writeln!(
        out,
        "\nshare of jobs (%) by bounded slowdown / fair slowdown (Table 9)"
    );
    let _ = write!(out, "{:<20} {:>7} {:>10}", "policy", "jobs", "mean bsld");
    share_heads(&mut out);
    for p in &r.policies {
        let _ = write!(
            out,
            "{:<20} {:>7} {:>10.2}",
            p.policy, p.overall.jobs, p.mean_bounded_slowdown
        );
        share_cells(&mut out, &p.overall);
    }
    let _ = writeln!(
        out,
        "\nby run-time class (Figure 7): share of the class's jobs (%) per bucket"
    );
    let _ = write!(out, "{:<10} {:>7} {:<20}", "class", "jobs", "policy");
    share_heads(&mut out);
    for (ci, class) in r.classes.iter().enumerate() {
        for (k, p) in r.policies.iter().enumerate() {
            let Some(c) = p.by_class.get(ci) else {
                continue;
            };
            if k == 0 {
                let _ = write!(out, "{class:<10} {:>7} ", c.jobs);
            } else {
                let _ = write!(out, "{:<10} {:>7} ", "", "");
            }
            let _ = write!(out, "{:<20}", p.policy);
            share_cells(&mut out, c);
        }
    }
    out
}

/// Ends a share table's header line: one column per bucket, then unfair.
fn share_heads(out: &mut String) {
    for b in BUCKETS {
        let _ = write!(out, " {b:>7}");
    }
    let _ = writeln!(out, " {:>8}", "unfair");
}

/// Ends a share table's row: the share of each bucket, then unfair (%).
fn share_cells(out: &mut String, c: &BucketCounts) {
    for s in c.shares_pct {
        let _ = write!(out, " {s:>7.2}");
    }
    let _ = writeln!(out, " {:>8.2}", c.unfair_pct());
}

/// One CSV row: one policy, one class (or `all`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CsvRow {
    /// Trace.
    pub trace: String,
    /// Window.
    pub window: String,
    /// `user` or `exact`.
    pub estimates: String,
    /// Load factor.
    pub load: f64,
    /// Policy.
    pub policy: String,
    /// `all` or a run-time class.
    pub class: String,
    /// Jobs counted.
    pub jobs: u64,
    /// Jobs with ratio <= 1.
    pub le_1: u64,
    /// Jobs with ratio in (1, 1.5].
    pub gt_1_le_1_5: u64,
    /// Jobs with ratio in (1.5, 2].
    pub gt_1_5_le_2: u64,
    /// Jobs with ratio in (2, 4].
    pub gt_2_le_4: u64,
    /// Jobs with ratio > 4.
    pub gt_4: u64,
    /// Percent of jobs with ratio <= 1.
    pub le_1_pct: f64,
    /// Percent in (1, 1.5].
    pub gt_1_le_1_5_pct: f64,
    /// Percent in (1.5, 2].
    pub gt_1_5_le_2_pct: f64,
    /// Percent in (2, 4].
    pub gt_2_le_4_pct: f64,
    /// Percent above 4.
    pub gt_4_pct: f64,
}

fn csv_row(r: &FairnessReport, policy: &str, class: &str, c: &BucketCounts) -> CsvRow {
    let s = &r.scenario;
    CsvRow {
        trace: s.trace.clone(),
        window: s.window.clone(),
        estimates: s.estimates.name().to_owned(),
        load: s.load.unwrap_or(1.0),
        policy: policy.to_owned(),
        class: class.to_owned(),
        jobs: c.jobs,
        le_1: c.counts[0],
        gt_1_le_1_5: c.counts[1],
        gt_1_5_le_2: c.counts[2],
        gt_2_le_4: c.counts[3],
        gt_4: c.counts[4],
        le_1_pct: round4(c.shares_pct[0]),
        gt_1_le_1_5_pct: round4(c.shares_pct[1]),
        gt_1_5_le_2_pct: round4(c.shares_pct[2]),
        gt_2_le_4_pct: round4(c.shares_pct[3]),
        gt_4_pct: round4(c.shares_pct[4]),
    }
}

/// CSV rows: per policy, `all` then each run-time class.
#[must_use]
pub(crate) fn csv_rows(r: &FairnessReport) -> Vec<CsvRow> {
    let mut rows = Vec::new();
    for p in &r.policies {
        rows.push(csv_row(r, &p.policy, "all", &p.overall));
        for (class, c) in r.classes.iter().zip(&p.by_class) {
            rows.push(csv_row(r, &p.policy, class, c));
        }
    }
    rows
}

/// Per-job CSV: trace job number, submit, processors, run time, effective
/// run time, estimate, run-time class, fair start, fair wait, fair slowdown,
/// then per policy its start, bounded slowdown and bucket.
///
/// # Errors
/// CSV errors.
pub(crate) fn jobs_csv(
    prepared: &Prepared,
    report: &FairnessReport,
    jobs: &[JobFairness],
) -> Result<String, CliError> {
    let mut head: Vec<String> = [
        "job_id",
        "submit",
        "procs",
        "runtime",
        "run",
        "estimate",
        "class",
        "fair_start",
        "fair_wait",
        "fair_slowdown",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for p in &report.policies {
        head.push(format!("{}_start", p.policy));
        head.push(format!("{}_bounded_slowdown", p.policy));
        head.push(format!("{}_bucket", p.policy));
    }
    let mut records = vec![head];
    for j in jobs {
        let (Some(t), Some(sim)) = (
            prepared.trace_jobs.get(j.id as usize),
            prepared.jobs.get(j.id as usize),
        ) else {
            continue;
        };
        let run = t.runtime.min(sim.job.estimate);
        let fair_wait = j.fair_start.saturating_sub(sim.job.submit);
        let mut row = vec![
            t.number.to_string(),
            sim.job.submit.to_string(),
            sim.job.procs.to_string(),
            t.runtime.to_string(),
            run.to_string(),
            sim.job.estimate.to_string(),
            CLASSES[class_of(t.runtime)].label.to_owned(),
            j.fair_start.to_string(),
            fair_wait.to_string(),
            format!("{:.4}", fair_slowdown(fair_wait, run)),
        ];
        for &(start, bsld, b) in &j.per_policy {
            row.push(start.to_string());
            row.push(format!("{bsld:.4}"));
            row.push(BUCKETS[b].to_owned());
        }
        records.push(row);
    }
    csv_records(records)
}

/// The report as an SVG: one panel per policy, one stacked bar per set
/// (all jobs, then each run-time class) showing the share of its jobs in
/// each unfair bucket.
///
/// # Errors
/// [`CliError::Io`] if drawing fails.
pub(crate) fn svg(r: &FairnessReport) -> Result<String, CliError> {
    let mut categories = vec![format!("all\n{} jobs", r.jobs_counted)];
    categories.extend(
        r.classes
            .iter()
            .zip(&r.class_jobs)
            .map(|(c, n)| format!("{c}\n{n} jobs")),
    );
    let panels: Vec<StackPanel> = r
        .policies
        .iter()
        .map(|p| StackPanel {
            title: format!(
                "{} ({:.1}% of all jobs unfair)",
                p.policy,
                p.overall.unfair_pct()
            ),
            categories: categories.clone(),
            layers: (1..BUCKETS.len())
                .map(|b| Series {
                    name: format!("ratio {}", BUCKETS[b]),
                    values: std::iter::once(&p.overall)
                        .chain(&p.by_class)
                        .map(|c| Some(c.shares_pct[b]))
                        .collect(),
                })
                .collect(),
        })
        .collect();
    plot::stacked_bars(
        "Jobs treated unfairly: bounded slowdown / fair slowdown > 1",
        &super::compare::subtitle(&r.scenario, r.scenario.load),
        "% of the set's jobs",
        &panels,
    )
    .map_err(|e| CliError::Io("svg".into(), std::io::Error::other(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_exact_at_their_bounds() {
        // run 100: ratio = (wait + 100) / (fair_wait + 100).
        assert_eq!(bucket(0, 0, 100), 0, "same start: fair");
        assert_eq!(bucket(50, 100, 100), 0, "earlier than fair");
        assert_eq!(bucket(200, 100, 100), 1, "ratio exactly 1.5");
        assert_eq!(bucket(201, 100, 100), 2);
        assert_eq!(bucket(300, 100, 100), 2, "ratio exactly 2");
        assert_eq!(bucket(700, 100, 100), 3, "ratio exactly 4");
        assert_eq!(bucket(701, 100, 100), 4);
        // The 10 s floor: a 1 s job waiting 10 s against a fair wait of 0
        // has ratio (10 + 10) / 10 = 2, not 11.
        assert_eq!(bucket(10, 0, 1), 2);
        assert_eq!(bucket(u32::MAX, 0, 0), 4, "no overflow");
    }

    #[test]
    fn fair_slowdown_by_hand() {
        // Submitted at 0, fair start 300, runs 100 s: (300 + 100) / 100 = 4.
        assert!((fair_slowdown(300, 100) - 4.0).abs() < 1e-12);
        // A 5 s job with no fair wait: (0 + 10) / 10 = 1 (floor).
        assert!((fair_slowdown(0, 5) - 1.0).abs() < 1e-12);
        assert!((fair_slowdown(20, 0) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn classes_split_at_their_bounds() {
        assert_eq!(class_of(0), 0);
        assert_eq!(class_of(600), 0);
        assert_eq!(class_of(601), 1);
        assert_eq!(class_of(3600), 1);
        assert_eq!(class_of(3601), 2);
        assert_eq!(class_of(43_200), 3);
        assert_eq!(class_of(43_201), 4);
        assert_eq!(class_of(u32::MAX), 4);
    }

    #[test]
    fn shares_sum_to_100() {
        let mut c = BucketCounts::default();
        for b in [0, 0, 1, 4] {
            c.add(b);
        }
        c.finish();
        assert_eq!(c.counts, [2, 1, 0, 0, 1]);
        assert_eq!(c.shares_pct, [50.0, 25.0, 0.0, 0.0, 25.0]);
        assert!((c.unfair_pct() - 50.0).abs() < 1e-12);
    }
}
