//! The selective-reservation analyses: thresholds, category comparisons,
//! load sweeps and fairness (Srinivasan, Kettimuthu, Subramani and
//! Sadayappan, *Selective Reservation Strategies for Backfill Job
//! Scheduling*, JSSPP 2002), and the SVG figures of every study ([`plot`]).
//!
//! | command | module | the paper's |
//! | --- | --- | --- |
//! | `host-cli thresholds` | [`thresholds`] | Tables 7 and 8 |
//! | `host-cli compare` | [`compare`] | Figures 1, 2, 3 and 5 |
//! | `host-cli sweep` | [`sweep`] | Figures 4 and 6 |
//! | `host-cli fairness` | [`fairness`] | Table 9 and Figure 7 |
//!
//! Every analysis replays one prepared window of a trace (same jobs, same
//! estimates, same load) under several policies ([`run_study`]). Selective
//! and Selective-D take their thresholds from `--threshold` /
//! `--thresholds`, or from a Conservative run of the same window
//! ([`ThresholdOptions`]; the default, as in the paper). Metrics are computed
//! on the jobs every policy finished ([`common_metrics`]; with the same
//! input that is all of them, and the reports say how many), so percent
//! changes compare the same jobs.
//!
//! Each report starts with the [`Scenario`]: trace, machine, window,
//! estimates, load and the job accounting (job lines in the window, skipped
//! by reason, scheduled), so no job is dropped silently.

pub mod compare;
pub mod fairness;
pub mod plot;
pub(crate) mod sweep;
pub mod thresholds;

use crate::error::CliError;
use crate::output::report::{self, Accounting, RejectedJobs};
use crate::replay::policy::{PolicyChoice, ThresholdOptions};
use crate::replay::thresholds::{ConservativeThresholds, ThresholdsUsed};
use crate::replay::{self, Estimates, MachineSource, Prepared, RunResult, Shaping, Window};
use crate::swf::{self, LoadedTrace};
use crate::workload::synth::SyntheticSpec;
use backfill_core::{CategoryBounds, JobRecord, Metrics, Policy};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// A workload to prepare windows of: a loaded trace or the synthetic one.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// An SWF trace.
    Trace(Box<LoadedTrace>),
    /// The built-in synthetic workload.
    Synthetic(SyntheticSpec),
}

impl Source {
    /// Loads `trace`, or takes the synthetic workload `spec` when `None`.
    ///
    /// # Errors
    /// Reading or parsing errors, naming file, line and field.
    pub(crate) fn load(trace: Option<&Path>, spec: SyntheticSpec) -> Result<Self, CliError> {
        match trace {
            Some(path) => Ok(Self::Trace(Box::new(swf::load(path)?))),
            None => Ok(Self::Synthetic(spec)),
        }
    }

    /// Prepares a window (`--procs` overrides the synthetic machine too).
    ///
    /// # Errors
    /// As [`replay::prepare()`], and [`CliError::NothingToSchedule`] when the
    /// window has no job to run ([`Prepared::check_runnable`]).
    pub(crate) fn prepare(&self, window: &Window, shaping: Shaping) -> Result<Prepared, CliError> {
        let prepared = match self {
            Self::Trace(t) => replay::prepare(t, window, shaping)?,
            Self::Synthetic(spec) => {
                let spec = SyntheticSpec {
                    procs: window.procs.unwrap_or(spec.procs),
                    ..*spec
                };
                replay::prepare_synthetic(&spec, window, shaping)?
            }
        };
        prepared.check_runnable()?;
        Ok(prepared)
    }
}

/// Offered load of a prepared window: the work the jobs run (effective run
/// time, after kills at the estimate, times processors) over the machine's
/// capacity between the first and the last submission. Above 1 the machine
/// cannot keep up; `None` with fewer than two distinct submit times.
#[must_use]
pub(crate) fn offered_load(prepared: &Prepared) -> Option<f64> {
    let first = prepared.jobs.iter().map(|j| j.job.submit).min()?;
    let last = prepared.jobs.iter().map(|j| j.job.submit).max()?;
    let span = u128::from(last - first) * u128::from(prepared.machine_procs);
    if span == 0 {
        return None;
    }
    let work: u128 = prepared
        .jobs
        .iter()
        .map(|j| u128::from(j.runtime.min(j.job.estimate)) * u128::from(j.job.procs))
        .sum();
    #[allow(clippy::cast_precision_loss)]
    let rho = work as f64 / span as f64;
    Some(rho)
}

/// What an analysis ran on: printed at the top of every report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Scenario {
    /// Trace path, or the synthetic workload's description.
    pub(crate) trace: String,
    /// Processors of the one machine.
    pub(crate) machine_procs: u32,
    /// Where that number came from.
    pub(crate) machine_source: MachineSource,
    /// Window: job lines skipped.
    pub(crate) skip: u64,
    /// Window: job lines taken.
    pub(crate) first: Option<u64>,
    /// The window in words.
    pub(crate) window: String,
    /// Estimates the scheduler saw.
    pub(crate) estimates: Estimates,
    /// Load factor (submit times divided by it); `None` for a sweep.
    pub(crate) load: Option<f64>,
    /// Offered load at that factor (see [`offered_load`]).
    pub(crate) offered_load: Option<f64>,
    /// Category bound: longest Short run time (s).
    pub(crate) short_max: u32,
    /// Category bound: most processors of a Narrow job.
    pub(crate) narrow_max: u32,
    /// Job lines in the window, skipped by reason, scheduled.
    pub(crate) accounting: Accounting,
    /// Jobs compared: finished under every policy.
    pub(crate) jobs_compared: u64,
    /// Jobs finished under some policies but not all (left out of the
    /// comparison; 0 unless a replay is broken).
    pub(crate) jobs_not_finished_by_all: u64,
}

impl Scenario {
    /// The scenario of `prepared` whose runs refused `rejected` jobs, with
    /// `common` jobs finished by every policy.
    #[must_use]
    pub(crate) fn new(
        prepared: &Prepared,
        window: &Window,
        bounds: CategoryBounds,
        load: Option<f64>,
        rejected: RejectedJobs,
        common: &CommonMetrics,
    ) -> Self {
        Self {
            trace: prepared.name.clone(),
            machine_procs: prepared.machine_procs,
            machine_source: prepared.machine_source,
            skip: window.skip,
            first: window.first,
            window: report::window_text(window.skip, window.first),
            estimates: prepared.shaping.estimates,
            load,
            offered_load: load.and_then(|_| offered_load(prepared)),
            short_max: bounds.short_max,
            narrow_max: bounds.narrow_max,
            accounting: report::accounting_of(
                prepared,
                rejected,
                common.common + common.not_common,
            ),
            jobs_compared: common.common,
            jobs_not_finished_by_all: common.not_common,
        }
    }

    /// The scenario as report lines.
    #[must_use]
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "trace        {}", self.trace);
        let _ = writeln!(
            out,
            "machine      {} processors ({})",
            self.machine_procs,
            report::machine_source_text(self.machine_source)
        );
        let load = match (self.load, self.offered_load) {
            (Some(l), Some(o)) => format!("load x{l} (offered load {o:.2})"),
            (Some(l), None) => format!("load x{l}"),
            (None, _) => "loads: see below".to_owned(),
        };
        let _ = writeln!(
            out,
            "window       {}   estimates {}   {load}",
            self.window,
            self.estimates.name()
        );
        let _ = writeln!(
            out,
            "categories   short <= {} s, narrow <= {} processors",
            self.short_max, self.narrow_max
        );
        out.push_str(&report::accounting_text(&self.accounting));
        if self.jobs_not_finished_by_all > 0 {
            let _ = writeln!(
                out,
                "  compared   {:>8}  jobs; {} finished under some policies only and are left out",
                self.jobs_compared, self.jobs_not_finished_by_all
            );
        }
        out
    }
}

/// One policy's replay within a study.
#[derive(Clone, Debug)]
pub(crate) struct PolicyRun {
    /// The policy as asked for.
    pub(crate) choice: PolicyChoice,
    /// Its thresholds.
    pub(crate) thresholds: ThresholdsUsed,
    /// The replay (with per-job records).
    pub(crate) result: RunResult,
}

/// Several policies replayed on one prepared window.
#[derive(Clone, Debug)]
pub(crate) struct Study {
    /// Thresholds derived from the Conservative run, when one was made.
    pub(crate) conservative: Option<ConservativeThresholds>,
    /// The runs, in the order asked for.
    pub(crate) runs: Vec<PolicyRun>,
}

impl Study {
    /// Jobs the kernel refused (the same under every policy: too wide).
    #[must_use]
    pub(crate) fn rejected(&self) -> RejectedJobs {
        self.runs
            .iter()
            .map(|r| RejectedJobs::of(&r.result.rejected))
            .max_by_key(RejectedJobs::total)
            .unwrap_or_default()
    }
}

/// Replays a study makes: one per choice, plus a Conservative run for
/// thresholds when none is listed and no `reference` run is supplied.
#[must_use]
pub(crate) fn study_replays(
    choices: &[PolicyChoice],
    options: &ThresholdOptions,
    has_reference: bool,
) -> u64 {
    let extra = options.needs_conservative(choices)
        && !has_reference
        && !choices.contains(&PolicyChoice::CONSERVATIVE);
    let listed =
        choices.len() - usize::from(has_reference && choices.contains(&PolicyChoice::CONSERVATIVE));
    (listed + usize::from(extra)) as u64
}

/// Replays `prepared` under every choice (in parallel), keeping per-job
/// records. A Conservative run goes first when it is listed or thresholds
/// come from it; `reference`, if given, is used as that run. `progress`
/// counts the jobs of every replay ([`study_replays`] replays of
/// `prepared.jobs`).
///
/// # Errors
/// Option errors ([`ThresholdOptions::check`]) and replay errors.
pub(crate) fn run_study(
    prepared: &Prepared,
    choices: &[PolicyChoice],
    options: &ThresholdOptions,
    bounds: CategoryBounds,
    reference: Option<RunResult>,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<Study, CliError> {
    options.check(choices)?;
    let wants_conservative =
        choices.contains(&PolicyChoice::CONSERVATIVE) || options.needs_conservative(choices);
    let conservative = match reference {
        Some(r) => Some(r),
        None if wants_conservative => {
            let r = replay::run(prepared, Policy::Conservative, bounds, true, progress)?;
            Some(r)
        }
        None => None,
    };
    let derived = conservative.as_ref().map(|r| {
        ConservativeThresholds::from_records(
            r.records.as_deref().unwrap_or_default(),
            prepared.shaping.estimates,
            bounds,
        )
    });
    let resolved = choices
        .iter()
        .map(|&c| {
            options
                .resolve(c, bounds, derived.as_ref())
                .map(|(p, t)| (c, p, t))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let runs = resolved
        .into_par_iter()
        .map(|(choice, policy, thresholds)| {
            let result = match (&conservative, choice) {
                (Some(r), PolicyChoice::CONSERVATIVE) => r.clone(),
                _ => replay::run(prepared, policy, bounds, true, progress)?,
            };
            Ok(PolicyRun {
                choice,
                thresholds,
                result,
            })
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    Ok(Study {
        conservative: derived.filter(|_| options.needs_conservative(choices)),
        runs,
    })
}

/// Metrics of several runs over the jobs every run finished.
#[derive(Clone, Debug)]
pub(crate) struct CommonMetrics {
    /// One per run, in order.
    pub(crate) per_run: Vec<Metrics>,
    /// Jobs finished by every run.
    pub(crate) common: u64,
    /// Jobs finished by some runs only.
    pub(crate) not_common: u64,
}

/// Metrics of `runs` over the jobs all of them finished (per-job records
/// needed; a run without records counts as having finished nothing).
/// Records are summed in each run's completion order, as the replay's own
/// metrics are, so with nothing left out the numbers are the replay's.
#[must_use]
pub(crate) fn common_metrics(
    runs: &[&RunResult],
    bounds: CategoryBounds,
    jobs: usize,
) -> CommonMetrics {
    let mut seen = vec![0usize; jobs];
    for r in runs {
        for rec in r.records.as_deref().unwrap_or_default() {
            if let Some(n) = seen.get_mut(rec.job.id as usize) {
                *n += 1;
            }
        }
    }
    let all = runs.len();
    let common = seen.iter().filter(|&&n| n == all && all > 0).count() as u64;
    let not_common = seen.iter().filter(|&&n| n > 0 && n < all).count() as u64;
    let per_run = runs
        .iter()
        .map(|r| {
            let mut m = Metrics::new(bounds);
            for rec in r.records.as_deref().unwrap_or_default() {
                if seen.get(rec.job.id as usize) == Some(&all) {
                    m.add(rec);
                }
            }
            m
        })
        .collect();
    CommonMetrics {
        per_run,
        common,
        not_common,
    }
}

/// Records of `run` by job id (`None` where it did not finish the job).
#[must_use]
pub(crate) fn records_by_id(run: &RunResult, jobs: usize) -> Vec<Option<JobRecord>> {
    let mut out = vec![None; jobs];
    for rec in run.records.as_deref().unwrap_or_default() {
        if let Some(slot) = out.get_mut(rec.job.id as usize) {
            *slot = Some(*rec);
        }
    }
    out
}
