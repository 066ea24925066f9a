//! A trace window made into kernel jobs: the machine size, the window, the
//! SWF rules (via [`crate::swf::select`]), `--estimates` and `--load`.
//!
//! [`prepare`] numbers the jobs `0..n` in replay order (the kernel's
//! [`JobId`]; the trace's job number is kept beside it).

use crate::error::CliError;
use crate::numbers::number_text;
use crate::swf::{self, LoadedTrace, SkipCounts, TraceJob};
use backfill_core::{Job, JobId, SimJob, Time};

/// Which run-time estimates the scheduler sees.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Estimates {
    /// The users' requested times (field 9), else the run time.
    User,
    /// The actual run times (perfect estimates).
    Exact,
}

impl Estimates {
    /// `user` or `exact`.
    #[must_use]
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Exact => "exact",
        }
    }
}

/// Where the machine size came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum MachineSource {
    /// `--procs`.
    Option,
    /// The header's `MaxProcs`.
    MaxProcs,
    /// The header's `MaxNodes` (no `MaxProcs`).
    MaxNodes,
    /// No header size: the most processors the log's own recorded schedule
    /// (submit + wait, run time) had in use at once, or the widest job if
    /// larger: the smallest machine the site's real schedule fitted on.
    PeakUsage,
    /// The synthetic workload's machine.
    Synthetic,
}

/// Options shared by `replay`, `info` and the analyses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Job lines to skip first.
    pub skip: u64,
    /// Job lines to take after the skip (all when `None`).
    pub first: Option<u64>,
    /// Machine size override.
    pub procs: Option<u32>,
}

impl Window {
    /// The whole trace, on the machine size its header gives.
    pub const WHOLE: Self = Self {
        skip: 0,
        first: None,
        procs: None,
    };
}

/// How to turn the window's jobs into kernel input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shaping {
    /// Estimates the scheduler sees.
    pub estimates: Estimates,
    /// Load factor: submit times are divided by it (> 1 is heavier).
    pub load: f64,
}

impl Shaping {
    /// The trace as recorded: the users' estimates, at its own load.
    pub const AS_RECORDED: Self = Self {
        estimates: Estimates::User,
        load: 1.0,
    };
}

/// A trace ready to replay.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Trace name (path) or `synthetic`.
    pub name: String,
    /// Processors of the one machine.
    pub machine_procs: u32,
    /// Where that number came from.
    pub(crate) machine_source: MachineSource,
    /// Data lines in the whole file.
    pub(crate) records_read: u64,
    /// Job lines (data lines other than partial-execution ones) in the
    /// whole file: what the window selects from.
    pub(crate) job_lines: u64,
    /// Comment (header) lines in the file.
    pub(crate) comment_lines: u64,
    /// The window asked for.
    pub(crate) window: Window,
    /// Job lines in the window (partial-execution lines excluded).
    pub jobs_in_window: u64,
    /// Window jobs not run, by reason.
    pub skipped: SkipCounts,
    /// Jobs that were out of submit order in the file (now sorted).
    pub(crate) out_of_order: u64,
    /// The jobs as read, in replay order; index = kernel job id.
    pub(crate) trace_jobs: Vec<TraceJob>,
    /// The kernel input, same order.
    pub jobs: Vec<SimJob>,
    /// Estimates used.
    pub(crate) shaping: Shaping,
}

/// The machine size for a trace: `--procs`, else `MaxProcs`, else
/// `MaxNodes`; `None` when the header has neither (see [`peak_usage`]).
///
/// # Errors
/// [`CliError::Swf`] naming the header line when, without `--procs`, the
/// `MaxProcs` entry (or, with no `MaxProcs` at all, the `MaxNodes` entry)
/// is there but is not a machine size (`0`, `banana`): the fallback would
/// silently replay on another machine.
pub(crate) fn machine_size(
    trace: &LoadedTrace,
    window: &Window,
) -> Result<Option<(u32, MachineSource)>, CliError> {
    if let Some(p) = window.procs {
        return Ok(Some((p, MachineSource::Option)));
    }
    let header = &trace.header;
    let size = |v: Option<u64>| v.and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0);
    let invalid = |key: &str| {
        header.invalid_value(key).map(|bad| {
            CliError::Swf(swf::SwfError {
                file: trace.name.clone(),
                line: Some(bad.line),
                field: None,
                kind: swf::SwfErrorKind::HeaderValue {
                    key: bad.key.clone(),
                    value: bad.value.clone(),
                    expected: "a machine size (an integer from 1 to 4294967295); \
                               fix the header or give the size with --procs",
                },
            })
        })
    };
    if let Some(p) = size(header.max_procs) {
        return Ok(Some((p, MachineSource::MaxProcs)));
    }
    if let Some(e) = invalid("MaxProcs") {
        return Err(e);
    }
    if let Some(p) = size(header.max_nodes) {
        return Ok(Some((p, MachineSource::MaxNodes)));
    }
    if let Some(e) = invalid("MaxNodes") {
        return Err(e);
    }
    Ok(None)
}

/// The most processors in use at once in the log's recorded schedule: each
/// job line with a known submit, wait and run time holds its allocated
/// processors (field 5, else field 8) over `[submit + wait, submit + wait +
/// run)`. Lines without those fields do not count.
#[must_use]
pub(crate) fn peak_usage(trace: &LoadedTrace) -> u32 {
    let mut events: Vec<(i64, i64)> = Vec::new();
    for (_, r) in &trace.records {
        let procs = if r.allocated_procs > 0 {
            r.allocated_procs
        } else {
            r.requested_procs
        };
        if r.is_partial_execution() || r.submit < 0 || r.wait < 0 || r.run <= 0 || procs <= 0 {
            continue;
        }
        let start = r.submit.saturating_add(r.wait);
        events.push((start, procs));
        events.push((start.saturating_add(r.run), -procs));
    }
    // Ends sort before starts at the same instant (half-open intervals).
    events.sort_unstable();
    let (mut now, mut peak) = (0i64, 0i64);
    for (_, delta) in events {
        now = now.saturating_add(delta);
        peak = peak.max(now);
    }
    u32::try_from(peak).unwrap_or(u32::MAX)
}

/// Applies the window, SWF rules, estimates and load to a loaded trace.
///
/// # Errors
/// [`CliError::Swf`] for values that do not fit or an invalid machine size
/// in the header ([`machine_size`]), and for an estimate that cannot fit
/// the replay clock (the requested time or run time of a job, with its line
/// and field, when it exceeds `u32::MAX` less the window's last submit
/// time); [`CliError::Usage`] for a load factor that is not positive or
/// that moves a submit time past `u32::MAX` seconds.
pub fn prepare(
    trace: &LoadedTrace,
    window: &Window,
    shaping: Shaping,
) -> Result<Prepared, CliError> {
    let (procs, source) = match machine_size(trace, window)? {
        Some(found) => found,
        None => {
            // No size anywhere: the smallest machine on which the log's
            // own schedule fitted.
            let all = swf::select(trace, window.skip, window.first, u32::MAX)?;
            let widest = all.jobs.iter().map(|j| j.procs).max().unwrap_or(1);
            (
                peak_usage(trace).max(widest).max(1),
                MachineSource::PeakUsage,
            )
        }
    };
    let workload = swf::select(trace, window.skip, window.first, procs)?;
    finish(Prepared {
        name: trace.name.clone(),
        machine_procs: procs,
        machine_source: source,
        records_read: trace.records.len() as u64,
        job_lines: trace
            .records
            .iter()
            .filter(|(_, r)| !r.is_partial_execution())
            .count() as u64,
        comment_lines: trace.comment_lines,
        window: *window,
        jobs_in_window: workload.jobs_in_window,
        skipped: workload.skipped,
        out_of_order: workload.out_of_order,
        trace_jobs: workload.jobs,
        jobs: Vec::new(),
        shaping,
    })
}

/// Prepares the built-in synthetic workload.
///
/// # Errors
/// [`CliError::Usage`] for a bad load factor.
pub(crate) fn prepare_synthetic(
    spec: &crate::workload::synth::SyntheticSpec,
    window: &Window,
    shaping: Shaping,
) -> Result<Prepared, CliError> {
    let generated = crate::workload::synth::generate(spec);
    let n = generated.len() as u64;
    // The window selects generated jobs as it selects a trace's job lines.
    let skip = usize::try_from(window.skip).unwrap_or(usize::MAX);
    let take = window
        .first
        .map_or(usize::MAX, |f| usize::try_from(f).unwrap_or(usize::MAX));
    let jobs: Vec<TraceJob> = generated.into_iter().skip(skip).take(take).collect();
    finish(Prepared {
        name: spec.describe(),
        machine_procs: spec.procs,
        machine_source: MachineSource::Synthetic,
        records_read: n,
        job_lines: n,
        comment_lines: 0,
        window: *window,
        jobs_in_window: jobs.len() as u64,
        skipped: SkipCounts::default(),
        out_of_order: 0,
        trace_jobs: jobs,
        jobs: Vec::new(),
        shaping,
    })
}

/// Trace job `t`, the `index`-th of the window in replay order, as the
/// kernel gets it under `shaping`, with the field its estimate comes from
/// (9 or 4); `None` past 2^32 jobs. The caller checks that the estimate
/// fits the replay clock.
pub(crate) fn kernel_job(index: usize, t: &TraceJob, shaping: Shaping) -> Option<(SimJob, usize)> {
    let id = JobId::try_from(index).ok()?;
    let (estimate, field) = match shaping.estimates {
        Estimates::User if t.requested_time.is_some_and(|r| r > 0) => (t.estimate, 9),
        Estimates::User => (t.estimate, 4),
        Estimates::Exact => (t.runtime.max(1), 4),
    };
    let submit = scale_time(t.submit, shaping.load);
    let job = SimJob {
        job: Job::new(id, submit, t.procs, estimate),
        runtime: t.runtime,
    };
    Some((job, field))
}

/// Fills in the kernel input (`jobs`) of a prepared window from its trace
/// jobs, estimates and load.
fn finish(mut prepared: Prepared) -> Result<Prepared, CliError> {
    let shaping = prepared.shaping;
    if !(shaping.load.is_finite() && shaping.load > 0.0) {
        return Err(CliError::Usage(format!(
            "--load must be a positive number, got {}",
            shaping.load
        )));
    }
    let trace_jobs = &prepared.trace_jobs;
    // Jobs are in submit order, so the last one is submitted last.
    let last_submit = match trace_jobs.last() {
        Some(last) => scale_time_checked(last.submit, shaping.load).ok_or_else(|| {
            let least = f64::from(last.submit) / f64::from(Time::MAX);
            CliError::Usage(format!(
                "--load {} moves trace job {} (line {}) from t={} s to t={:.3e} s, past the \
                 replay clock's end ({} s, about 136 years); this window needs a load \
                 factor of at least {least:.3e}",
                number_text(shaping.load),
                last.number,
                last.line,
                last.submit,
                f64::from(last.submit) / shaping.load,
                Time::MAX
            ))
        })?,
        None => 0,
    };
    let mut jobs = Vec::with_capacity(trace_jobs.len());
    for (index, t) in trace_jobs.iter().enumerate() {
        let (job, field) = kernel_job(index, t, shaping)
            .ok_or_else(|| CliError::Usage("more than 2^32 jobs in one replay".into()))?;
        if job.job.estimate > Time::MAX - last_submit {
            return Err(CliError::Swf(swf::SwfError {
                file: prepared.name.clone(),
                line: Some(t.line),
                field: Some(field),
                kind: swf::SwfErrorKind::PastClock {
                    value: u64::from(job.job.estimate),
                    last_submit,
                },
            }));
        }
        jobs.push(job);
    }
    // Load scaling keeps the order (division is monotone), so the replay
    // order stays sorted.
    prepared.jobs = jobs;
    Ok(prepared)
}

impl Prepared {
    /// Why the window holds no job line at all, if it does not: an empty
    /// or header-only file, only partial-execution lines, `--first 0`, or
    /// `--skip` past the last job line.
    #[must_use]
    pub(crate) fn why_no_job_lines(&self) -> Option<String> {
        if self.jobs_in_window > 0 {
            return None;
        }
        let synthetic = self.machine_source == MachineSource::Synthetic;
        Some(if self.records_read == 0 && synthetic {
            "the synthetic workload has no jobs (--synthetic-jobs 0)".to_owned()
        } else if self.records_read == 0 && self.comment_lines > 0 {
            format!(
                "the file has only a header ({} comment line{}) and no job lines",
                self.comment_lines,
                if self.comment_lines == 1 { "" } else { "s" }
            )
        } else if self.records_read == 0 {
            "the file is empty: no job lines (is it the right file?)".to_owned()
        } else if self.job_lines == 0 {
            format!(
                "all {} data lines are partial-execution lines (status 2, 3 or 4), which are not jobs",
                self.records_read
            )
        } else if self.window.first == Some(0) {
            "--first 0 selects no job lines".to_owned()
        } else {
            format!(
                "--skip {} passes over all {} job lines of the {}",
                self.window.skip,
                self.job_lines,
                if synthetic { "workload" } else { "file" }
            )
        })
    }

    /// Why nothing can be scheduled, if nothing can:
    /// [`why_no_job_lines`](Self::why_no_job_lines), or every job line of the window skipped
    /// (with the count per reason).
    #[must_use]
    pub(crate) fn why_nothing_to_schedule(&self) -> Option<String> {
        if let Some(why) = self.why_no_job_lines() {
            return Some(why);
        }
        if !self.trace_jobs.is_empty() {
            return None;
        }
        let reasons: Vec<String> = self
            .skipped
            .iter()
            .filter(|(r, n)| r.is_job() && *n > 0)
            .map(|(r, n)| format!("{n} {}", r.label()))
            .collect();
        Some(format!(
            "none of the window's {} job lines can run: {} (machine of {} processors, {})",
            self.jobs_in_window,
            reasons.join(", "),
            self.machine_procs,
            crate::replay::machine_source_words(self.machine_source)
        ))
    }

    /// Refuses a window with nothing to schedule (see
    /// [`why_nothing_to_schedule`](Self::why_nothing_to_schedule)).
    ///
    /// # Errors
    /// [`CliError::NothingToSchedule`] saying why.
    pub(crate) fn check_runnable(&self) -> Result<(), CliError> {
        self.why_nothing_to_schedule().map_or(Ok(()), |why| {
            Err(CliError::NothingToSchedule {
                trace: self.name.clone(),
                why,
            })
        })
    }

    /// Refuses a window without job lines (see
    /// [`why_no_job_lines`](Self::why_no_job_lines)): `info` describes a
    /// window whose jobs are all skipped, but not an empty one.
    ///
    /// # Errors
    /// [`CliError::NothingToSchedule`] saying why.
    pub(crate) fn check_job_lines(&self) -> Result<(), CliError> {
        self.why_no_job_lines().map_or(Ok(()), |why| {
            Err(CliError::NothingToSchedule {
                trace: self.name.clone(),
                why,
            })
        })
    }
}

/// Where the machine size came from, in words.
#[must_use]
pub(crate) const fn machine_source_words(source: MachineSource) -> &'static str {
    match source {
        MachineSource::Option => "--procs",
        MachineSource::MaxProcs => "header MaxProcs",
        MachineSource::MaxNodes => "header MaxNodes",
        MachineSource::PeakUsage => "no size in header: peak use in the log's own schedule",
        MachineSource::Synthetic => "synthetic",
    }
}

/// `submit / load`, rounded down; `None` past [`Time::MAX`].
#[must_use]
pub(crate) fn scale_time_checked(submit: Time, load: f64) -> Option<Time> {
    if (load - 1.0).abs() < f64::EPSILON {
        return Some(submit);
    }
    let scaled = (f64::from(submit) / load).floor();
    (scaled <= f64::from(Time::MAX)).then(|| scale_time(submit, load))
}

/// `submit / load`, rounded down, saturating at [`Time::MAX`] (the
/// replay refuses a load that would saturate: see
/// [`scale_time_checked`]).
#[must_use]
pub(crate) fn scale_time(submit: Time, load: f64) -> Time {
    if (load - 1.0).abs() < f64::EPSILON {
        return submit;
    }
    let scaled = (f64::from(submit) / load).floor();
    if scaled <= 0.0 {
        0
    } else if scaled >= f64::from(Time::MAX) {
        Time::MAX
    } else {
        // In range, non-negative, already floored.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let t = scaled as Time;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_times_past_the_clock_are_none() {
        assert_eq!(scale_time_checked(100, 1.0), Some(100));
        assert_eq!(scale_time_checked(100, 2.0), Some(50));
        assert_eq!(scale_time_checked(u32::MAX, 0.5), None);
        assert_eq!(scale_time_checked(1, 1e-300), None);
        assert_eq!(
            scale_time(1, 1e-300),
            u32::MAX,
            "the unchecked one saturates"
        );
    }
}
