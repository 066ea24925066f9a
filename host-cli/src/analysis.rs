//! The selective-reservation analyses: thresholds, category comparisons,
//! load sweeps and fairness (Srinivasan, Kettimuthu, Subramani and
//! Sadayappan, *Selective Reservation Strategies for Backfill Job
//! Scheduling*, JSSPP 2002).
//!
//! | command | module | the paper's |
//! | --- | --- | --- |
//! | `host-cli thresholds` | [`crate::thresholds`] | Tables 7 and 8 |
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
pub mod sweep;

use crate::replay::{
    self, CliError, Estimates, MachineSource, Prepared, RunResult, Shaping, Window,
};
use crate::report::{self, Accounting, RejectedJobs};
use crate::swf::{self, LoadedTrace};
use crate::synth::SyntheticSpec;
use crate::thresholds::{
    milli_f64, milli_text, ConservativeThresholds, ThresholdSource, ThresholdsUsed,
};
use backfill_core::policy::{RandomSearch, Threshold};
use backfill_core::{CategoryBounds, JobRecord, Metrics, Policy};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// A policy as named on the command line (Selective variants before their
/// thresholds are known).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyChoice {
    /// First come, first served, no backfilling.
    Fcfs,
    /// EASY backfilling.
    Easy,
    /// EASY with shortest-estimate-first order.
    SjfEasy,
    /// Conservative backfilling.
    Conservative,
    /// Selective reservation, one threshold.
    Selective,
    /// Selective reservation, one threshold per category (Selective-D).
    SelectiveD,
    /// Selective with the running mean slowdown of completed jobs as threshold.
    SelectiveAdaptive,
    /// Selective with the running mean slowdown times `--scale` (1.5).
    SelectiveScaled,
    /// BF_FCFS: EASY on a farm, machines tried most powerful first.
    BfFcfs,
    /// BF_UNMOD: flexible backfilling, the head keeps its reservation.
    BfUnmod,
    /// BF_MOD: flexible backfilling, the reservation follows the priority.
    BfMod,
    /// DPSA-p: EASY, then the start set using the most processors (ties: queue order).
    DpsaP,
    /// DPSA-n: as DPSA-p, ties to narrow jobs.
    DpsaN,
    /// DPSA-w: as DPSA-p, ties to wide jobs.
    DpsaW,
    /// CONS+RS: Conservative, then a seeded random search after every early
    /// completion (`--seed`, `--rs-iterations`).
    ConsRs,
}

impl PolicyChoice {
    /// The command-line name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Fcfs => "fcfs",
            Self::Easy => "easy",
            Self::SjfEasy => "sjf-easy",
            Self::Conservative => "conservative",
            Self::Selective => "selective",
            Self::SelectiveD => "selective-d",
            Self::SelectiveAdaptive => "selective-adaptive",
            Self::SelectiveScaled => "selective-scaled",
            Self::BfFcfs => "bf-fcfs",
            Self::BfUnmod => "bf-unmod",
            Self::BfMod => "bf-mod",
            Self::DpsaP => "dpsa-p",
            Self::DpsaN => "dpsa-n",
            Self::DpsaW => "dpsa-w",
            Self::ConsRs => "cons-rs",
        }
    }

    /// Whether the threshold adapts to completed jobs.
    #[must_use]
    pub const fn is_adaptive(self) -> bool {
        matches!(self, Self::SelectiveAdaptive | Self::SelectiveScaled)
    }

    /// The policy of a choice that needs no thresholds; `None` for the
    /// Selective variants.
    #[must_use]
    pub const fn plain(self) -> Option<Policy> {
        match self {
            Self::Fcfs => Some(Policy::Fcfs),
            Self::Easy => Some(Policy::Easy),
            Self::SjfEasy => Some(Policy::SjfEasy),
            Self::Conservative => Some(Policy::Conservative),
            Self::BfFcfs => Some(Policy::BfFcfs),
            Self::BfUnmod => Some(Policy::BfUnmod(backfill_core::policy::Heuristics::DEFAULT)),
            Self::BfMod => Some(Policy::BfMod(backfill_core::policy::Heuristics::DEFAULT)),
            Self::DpsaP => Some(Policy::DPSA_P),
            Self::DpsaN => Some(Policy::DPSA_N),
            Self::DpsaW => Some(Policy::DPSA_W),
            Self::ConsRs => Some(Policy::ConsRs(RandomSearch::DEFAULT)),
            _ => None,
        }
    }
}

impl std::fmt::Display for PolicyChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where thresholds may be taken from (`--threshold-from`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ThresholdFrom {
    /// A Conservative run of the same trace, window, estimates and load.
    Conservative,
}

/// The threshold options of the command line, in kernel units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThresholdOptions {
    /// `--threshold`: Selective's threshold, thousandths.
    pub threshold: Option<u32>,
    /// `--thresholds`: Selective-D's SN, SW, LN, LW, thousandths.
    pub thresholds: Option<[u32; 4]>,
    /// `--threshold-from`, when given.
    pub from: Option<ThresholdFrom>,
    /// `--scale`: the scaled-adaptive factor, thousandths (default 1500).
    pub scale: Option<u32>,
    /// `--well-estimated-only`: adaptive means over well-estimated jobs only.
    pub well_estimated_only: bool,
}

/// The paper's scaled-adaptive factor, 1.5, in thousandths.
pub const DEFAULT_SCALE: u32 = 1500;

impl ThresholdOptions {
    /// Whether some Selective variant in `choices` takes its thresholds from
    /// a Conservative run.
    #[must_use]
    pub fn needs_conservative(&self, choices: &[PolicyChoice]) -> bool {
        choices.iter().any(|c| match c {
            PolicyChoice::Selective => self.threshold.is_none(),
            PolicyChoice::SelectiveD => self.thresholds.is_none(),
            _ => false,
        })
    }

    /// Refuses options that no policy in `choices` would use, and
    /// `--threshold-from` together with the thresholds it would replace.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the option and the policies it applies
    /// to, or the options that clash.
    pub fn check(&self, choices: &[PolicyChoice]) -> Result<(), CliError> {
        let has = |c: PolicyChoice| choices.contains(&c);
        let unused = |option: &str, applies: &str| {
            Err(CliError::Usage(format!(
                "{option} is for {applies} only, and the policies are {}",
                choices
                    .iter()
                    .map(|c| c.name())
                    .collect::<Vec<_>>()
                    .join(",")
            )))
        };
        if self.threshold.is_some() && !has(PolicyChoice::Selective) {
            return unused("--threshold", "selective");
        }
        if self.thresholds.is_some() && !has(PolicyChoice::SelectiveD) {
            return unused("--thresholds", "selective-d");
        }
        if self.from.is_some() && !self.needs_conservative(choices) {
            // Every selective / selective-d listed has its thresholds given.
            let given: Vec<(&str, &str)> = [
                (
                    PolicyChoice::Selective,
                    self.threshold.is_some(),
                    "--threshold",
                ),
                (
                    PolicyChoice::SelectiveD,
                    self.thresholds.is_some(),
                    "--thresholds",
                ),
            ]
            .into_iter()
            .filter(|&(c, set, _)| set && has(c))
            .map(|(c, _, option)| (option, c.name()))
            .collect();
            if given.is_empty() {
                return unused("--threshold-from", "selective and selective-d");
            }
            let options: Vec<&str> = given.iter().map(|g| g.0).collect();
            let policies: Vec<&str> = given.iter().map(|g| g.1).collect();
            return Err(CliError::Usage(format!(
                "--threshold-from and {} both set the thresholds of {}: give one or the other",
                options.join(" and "),
                policies.join(" and ")
            )));
        }
        if self.scale.is_some() && !has(PolicyChoice::SelectiveScaled) {
            return unused("--scale", "selective-scaled");
        }
        if self.well_estimated_only && !choices.iter().any(|c| c.is_adaptive()) {
            return unused(
                "--well-estimated-only",
                "selective-adaptive and selective-scaled",
            );
        }
        Ok(())
    }

    /// The kernel policy for `choice`, with its thresholds: given ones, or
    /// those of `derived` (a Conservative run of the same window).
    ///
    /// # Errors
    /// [`CliError::Usage`] when thresholds from a Conservative run are needed
    /// but `derived` is `None` (a bug in the caller).
    pub fn resolve(
        &self,
        choice: PolicyChoice,
        bounds: CategoryBounds,
        derived: Option<&ConservativeThresholds>,
    ) -> Result<(Policy, ThresholdsUsed), CliError> {
        if let Some(p) = choice.plain() {
            return Ok((p, ThresholdsUsed::none()));
        }
        let conservative_source = if self.from.is_some() {
            ThresholdSource::Conservative
        } else {
            ThresholdSource::DefaultConservative
        };
        let from_note = |d: &ConservativeThresholds, source| {
            let default = if source == ThresholdSource::DefaultConservative {
                "; the default, as neither a threshold nor --threshold-from was given"
            } else {
                ""
            };
            format!("from the {}{default}", d.basis_text())
        };
        let missing = || {
            CliError::Usage(format!(
                "{choice}: thresholds from a Conservative run were needed but not computed"
            ))
        };
        let mut used = ThresholdsUsed::none();
        let policy = match choice {
            PolicyChoice::Selective => {
                let (t, source, note) = match (self.threshold, derived) {
                    (Some(t), _) => (t, ThresholdSource::Given, "--threshold".to_owned()),
                    (None, Some(d)) => (
                        d.fixed(),
                        conservative_source,
                        from_note(d, conservative_source),
                    ),
                    (None, None) => return Err(missing()),
                };
                used.source = source;
                used.overall = Some(milli_f64(t));
                used.values = milli_text(t);
                used.text = format!("{} ({note})", milli_text(t));
                Policy::Selective(Threshold::Fixed(t))
            }
            PolicyChoice::SelectiveD => {
                let (t, fallback, source, note) = match (self.thresholds, derived) {
                    (Some(t), _) => (
                        t,
                        Vec::new(),
                        ThresholdSource::Given,
                        "--thresholds".to_owned(),
                    ),
                    (None, Some(d)) => {
                        let (t, fallback) = d.per_category();
                        (
                            t,
                            fallback,
                            conservative_source,
                            from_note(d, conservative_source),
                        )
                    }
                    (None, None) => return Err(missing()),
                };
                used.source = source;
                used.per_category = Some(t.map(milli_f64));
                let cells: Vec<String> = backfill_core::Category::ALL
                    .iter()
                    .zip(t)
                    .map(|(c, v)| format!("{} {}", c.label(), milli_text(v)))
                    .collect();
                used.values = cells.join(" ");
                used.text = format!("{} ({note})", cells.join(", "));
                if !fallback.is_empty() {
                    let _ = write!(
                        used.text,
                        "; {} had no counted job and use the overall threshold",
                        fallback.join(", ")
                    );
                }
                used.fallback = fallback;
                Policy::Selective(Threshold::PerCategory {
                    thresholds: t,
                    bounds,
                })
            }
            PolicyChoice::SelectiveAdaptive | PolicyChoice::SelectiveScaled => {
                let scale = if choice == PolicyChoice::SelectiveScaled {
                    self.scale.unwrap_or(DEFAULT_SCALE)
                } else {
                    1000
                };
                used.source = ThresholdSource::Adaptive;
                used.scale = Some(milli_f64(scale));
                used.well_estimated_only = Some(self.well_estimated_only);
                used.values = format!(
                    "adaptive x{}{}",
                    milli_text(scale),
                    if self.well_estimated_only {
                        " well-estimated"
                    } else {
                        ""
                    }
                );
                used.text = format!(
                    "running mean bounded slowdown of the jobs completed so far{}{}, 1.00 before the first",
                    if scale == 1000 {
                        String::new()
                    } else {
                        format!(" x {}", milli_text(scale))
                    },
                    if self.well_estimated_only {
                        " (well-estimated jobs only)"
                    } else {
                        ""
                    }
                );
                Policy::Selective(Threshold::Adaptive {
                    scale,
                    well_estimated_only: self.well_estimated_only,
                    initial: 1000,
                })
            }
            _ => return Err(missing()),
        };
        Ok((policy, used))
    }
}

/// A workload to prepare windows of: a loaded trace or the synthetic one.
#[derive(Clone, Debug)]
pub enum Source {
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
    pub fn load(trace: Option<&Path>, spec: SyntheticSpec) -> Result<Self, CliError> {
        match trace {
            Some(path) => Ok(Self::Trace(Box::new(swf::load(path)?))),
            None => Ok(Self::Synthetic(spec)),
        }
    }

    /// Prepares a window (`--procs` overrides the synthetic machine too).
    ///
    /// # Errors
    /// As [`replay::prepare`], and [`CliError::NothingToSchedule`] when the
    /// window has no job to run ([`Prepared::check_runnable`]).
    pub fn prepare(&self, window: &Window, shaping: Shaping) -> Result<Prepared, CliError> {
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
pub fn offered_load(prepared: &Prepared) -> Option<f64> {
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
pub struct Scenario {
    /// Trace path, or the synthetic workload's description.
    pub trace: String,
    /// Processors of the one machine.
    pub machine_procs: u32,
    /// Where that number came from.
    pub machine_source: MachineSource,
    /// Window: job lines skipped.
    pub skip: u64,
    /// Window: job lines taken.
    pub first: Option<u64>,
    /// The window in words.
    pub window: String,
    /// Estimates the scheduler saw.
    pub estimates: Estimates,
    /// Load factor (submit times divided by it); `None` for a sweep.
    pub load: Option<f64>,
    /// Offered load at that factor (see [`offered_load`]).
    pub offered_load: Option<f64>,
    /// Category bound: longest Short run time (s).
    pub short_max: u32,
    /// Category bound: most processors of a Narrow job.
    pub narrow_max: u32,
    /// Job lines in the window, skipped by reason, scheduled.
    pub accounting: Accounting,
    /// Jobs compared: finished under every policy.
    pub jobs_compared: u64,
    /// Jobs finished under some policies but not all (left out of the
    /// comparison; 0 unless a replay is broken).
    pub jobs_not_finished_by_all: u64,
}

impl Scenario {
    /// The scenario of `prepared` whose runs refused `rejected` jobs, with
    /// `common` jobs finished by every policy.
    #[must_use]
    pub fn new(
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
    pub fn text(&self) -> String {
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
pub struct PolicyRun {
    /// The policy as asked for.
    pub choice: PolicyChoice,
    /// The kernel policy, thresholds resolved.
    pub policy: Policy,
    /// Its thresholds.
    pub thresholds: ThresholdsUsed,
    /// The replay (with per-job records).
    pub result: RunResult,
}

/// Several policies replayed on one prepared window.
#[derive(Clone, Debug)]
pub struct Study {
    /// Thresholds derived from the Conservative run, when one was made.
    pub conservative: Option<ConservativeThresholds>,
    /// The runs, in the order asked for.
    pub runs: Vec<PolicyRun>,
}

impl Study {
    /// The run of `choice`.
    #[must_use]
    pub fn run(&self, choice: PolicyChoice) -> Option<&PolicyRun> {
        self.runs.iter().find(|r| r.choice == choice)
    }

    /// Jobs the kernel refused (the same under every policy: too wide).
    #[must_use]
    pub fn rejected(&self) -> RejectedJobs {
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
pub fn study_replays(
    choices: &[PolicyChoice],
    options: &ThresholdOptions,
    has_reference: bool,
) -> u64 {
    let extra = options.needs_conservative(choices)
        && !has_reference
        && !choices.contains(&PolicyChoice::Conservative);
    let listed =
        choices.len() - usize::from(has_reference && choices.contains(&PolicyChoice::Conservative));
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
pub fn run_study(
    prepared: &Prepared,
    choices: &[PolicyChoice],
    options: &ThresholdOptions,
    bounds: CategoryBounds,
    reference: Option<RunResult>,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<Study, CliError> {
    options.check(choices)?;
    let wants_conservative =
        choices.contains(&PolicyChoice::Conservative) || options.needs_conservative(choices);
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
                (Some(r), PolicyChoice::Conservative) => r.clone(),
                _ => replay::run(prepared, policy, bounds, true, progress)?,
            };
            Ok(PolicyRun {
                choice,
                policy,
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
pub struct CommonMetrics {
    /// One per run, in order.
    pub per_run: Vec<Metrics>,
    /// Jobs finished by every run.
    pub common: u64,
    /// Jobs finished by some runs only.
    pub not_common: u64,
}

/// Metrics of `runs` over the jobs all of them finished (per-job records
/// needed; a run without records counts as having finished nothing).
/// Records are summed in each run's completion order, as the replay's own
/// metrics are, so with nothing left out the numbers are the replay's.
#[must_use]
pub fn common_metrics(runs: &[&RunResult], bounds: CategoryBounds, jobs: usize) -> CommonMetrics {
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
pub fn records_by_id(run: &RunResult, jobs: usize) -> Vec<Option<JobRecord>> {
    let mut out = vec![None; jobs];
    for rec in run.records.as_deref().unwrap_or_default() {
        if let Some(slot) = out.get_mut(rec.job.id as usize) {
            *slot = Some(*rec);
        }
    }
    out
}

/// `100 * (value - baseline) / baseline`; `None` when the baseline is 0 or
/// either value is not finite (an empty category, say). Negative is better
/// for every metric here.
#[must_use]
pub fn percent_change(value: f64, baseline: f64) -> Option<f64> {
    (baseline != 0.0 && baseline.is_finite() && value.is_finite())
        .then(|| 100.0 * (value - baseline) / baseline)
}

pub use crate::report::round4;

/// A percent change as table text: `+12.3%`, `-45.0%`, `-` for none.
#[must_use]
pub fn pct_text(change: Option<f64>) -> String {
    change.map_or_else(|| "-".to_owned(), |c| format!("{c:+.1}%"))
}

/// Rows as CSV text with a header line (from the row type's field names).
///
/// # Errors
/// [`CliError::Io`] when a row cannot be serialised.
pub fn csv_text<T: Serialize>(rows: &[T]) -> Result<String, CliError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer
            .serialize(row)
            .map_err(|e| CliError::Io("csv".into(), std::io::Error::other(e.to_string())))?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| CliError::Io("csv".into(), std::io::Error::other(e.to_string())))?;
    String::from_utf8(bytes)
        .map_err(|e| CliError::Io("csv".into(), std::io::Error::other(e.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_change_math() {
        assert_eq!(percent_change(12.0, 8.0), Some(50.0));
        assert_eq!(percent_change(4.0, 8.0), Some(-50.0));
        assert_eq!(percent_change(8.0, 8.0), Some(0.0));
        assert_eq!(percent_change(1.0, 0.0), None);
        assert_eq!(percent_change(f64::NAN, 1.0), None);
        assert_eq!(pct_text(Some(50.0)), "+50.0%");
        assert_eq!(pct_text(Some(-45.04)), "-45.0%");
        assert_eq!(pct_text(None), "-");
    }

    #[test]
    fn unused_threshold_options_are_refused() {
        use PolicyChoice as P;
        let given = ThresholdOptions {
            threshold: Some(2000),
            ..ThresholdOptions::default()
        };
        assert!(given.check(&[P::Selective]).is_ok());
        assert!(given.check(&[P::Easy, P::SelectiveD]).is_err());
        assert!(!given.needs_conservative(&[P::Selective]));
        assert!(given.needs_conservative(&[P::Selective, P::SelectiveD]));
        let from = ThresholdOptions {
            from: Some(ThresholdFrom::Conservative),
            ..ThresholdOptions::default()
        };
        assert!(from.check(&[P::SelectiveD]).is_ok());
        let e = from.check(&[P::SelectiveAdaptive]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--threshold-from is for selective and selective-d only, and the policies are \
             selective-adaptive"
        );
        let both = ThresholdOptions {
            threshold: Some(5000),
            from: Some(ThresholdFrom::Conservative),
            ..ThresholdOptions::default()
        };
        let e = both.check(&[P::Selective]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--threshold-from and --threshold both set the thresholds of selective: give one or \
             the other"
        );
        assert!(
            both.check(&[P::Selective, P::SelectiveD]).is_ok(),
            "selective-d takes them"
        );
        let all = ThresholdOptions {
            thresholds: Some([2000; 4]),
            ..both
        };
        let e = all
            .check(&[P::Selective, P::SelectiveD])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--threshold-from and --threshold and --thresholds both set the thresholds of selective and selective-d"),
            "{e}"
        );
        let scale = ThresholdOptions {
            scale: Some(2000),
            ..ThresholdOptions::default()
        };
        assert!(scale.check(&[P::SelectiveScaled]).is_ok());
        assert!(scale.check(&[P::SelectiveAdaptive]).is_err());
        let well = ThresholdOptions {
            well_estimated_only: true,
            ..ThresholdOptions::default()
        };
        assert!(well.check(&[P::SelectiveAdaptive]).is_ok());
        assert!(well.check(&[P::Selective]).is_err());
    }

    #[test]
    fn resolve_builds_kernel_policies() {
        let b = CategoryBounds::DEFAULT;
        let o = ThresholdOptions {
            threshold: Some(26_690),
            thresholds: Some([22_300, 72_400, 1_720, 2_590]),
            scale: Some(2_000),
            ..ThresholdOptions::default()
        };
        let (p, t) = o.resolve(PolicyChoice::Selective, b, None).unwrap();
        assert_eq!(p, Policy::Selective(Threshold::Fixed(26_690)));
        assert_eq!(t.source, ThresholdSource::Given);
        assert_eq!(t.text, "26.69 (--threshold)");
        let (p, _) = o.resolve(PolicyChoice::SelectiveD, b, None).unwrap();
        assert_eq!(
            p,
            Policy::Selective(Threshold::PerCategory {
                thresholds: [22_300, 72_400, 1_720, 2_590],
                bounds: b
            })
        );
        let (p, _) = o.resolve(PolicyChoice::SelectiveScaled, b, None).unwrap();
        assert_eq!(
            p,
            Policy::Selective(Threshold::Adaptive {
                scale: 2000,
                well_estimated_only: false,
                initial: 1000
            })
        );
        let (p, _) = o.resolve(PolicyChoice::SelectiveAdaptive, b, None).unwrap();
        assert_eq!(p, Policy::Selective(Threshold::ADAPTIVE));
        let none = ThresholdOptions::default();
        assert!(none.resolve(PolicyChoice::Selective, b, None).is_err());
        assert_eq!(
            none.resolve(PolicyChoice::Easy, b, None).unwrap().0,
            Policy::Easy
        );
    }
}
