//! Reports: what a replay or `info` prints, as a table or JSON, and the
//! per-job CSV.

use crate::numbers::{agree, count_of, round4, share_pct};
use crate::replay::{MachineSource, Prepared, RunResult};
use crate::swf::{SkipCounts, SkipReason, SwfHeader};
use backfill_core::{
    Accumulator, Category, CategoryBounds, JobId, JobRecord, KernelError, Metrics,
};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::io::Write;

/// The standard metrics of one set of jobs: one row of the metrics table
/// of `replay` (trace or farm) and, with the changes against a baseline,
/// of `compare`. A set without jobs has no means and no worst value
/// (`None`: `-` in tables, `null` in JSON, an empty CSV field), never a
/// made-up 0.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct MetricsRow {
    /// `all` or a category label (SN, SW, LN, LW).
    pub(crate) set: String,
    /// Jobs in the set.
    pub(crate) jobs: u64,
    /// Mean wait (s).
    pub(crate) mean_wait: Option<f64>,
    /// Mean bounded slowdown (10 s bound).
    pub(crate) mean_bounded_slowdown: Option<f64>,
    /// Mean turnaround (s).
    pub(crate) mean_turnaround: Option<f64>,
    /// Worst bounded slowdown.
    pub(crate) worst_bounded_slowdown: Option<f64>,
    /// Jobs killed at their estimate.
    pub(crate) killed: u64,
}

/// `value` when `jobs` is not 0: a figure of a set that has jobs.
#[must_use]
pub(crate) fn of_jobs(jobs: u64, value: f64) -> Option<f64> {
    (jobs > 0).then_some(value)
}

/// `v` with `decimals` decimals, right-aligned in `width`; `-` for none.
#[must_use]
pub(crate) fn cell(v: Option<f64>, width: usize, decimals: usize) -> String {
    v.map_or_else(
        || format!("{:>width$}", "-"),
        |v| format!("{v:>width$.decimals$}"),
    )
}

impl MetricsRow {
    /// The row of the jobs `acc` summed, labelled `set`.
    pub(crate) fn new(set: &str, acc: &Accumulator) -> Self {
        let n = acc.count;
        Self {
            set: set.to_owned(),
            jobs: n,
            mean_wait: of_jobs(n, acc.mean_wait()),
            mean_bounded_slowdown: of_jobs(n, acc.mean_slowdown()),
            mean_turnaround: of_jobs(n, acc.mean_turnaround()),
            worst_bounded_slowdown: of_jobs(n, acc.worst_slowdown),
            killed: acc.killed,
        }
    }

    /// One row for all jobs, then one per category, in report order.
    pub(crate) fn sets(m: &Metrics) -> Vec<Self> {
        std::iter::once(Self::new("all", &m.overall))
            .chain(
                Category::ALL
                    .iter()
                    .map(|&c| Self::new(c.label(), m.category(c))),
            )
            .collect()
    }

    /// `rows` as the reports' aligned table (a header line, one line per
    /// row), the job counts `jobs_width` wide.
    pub(crate) fn table(rows: &[Self], jobs_width: usize) -> String {
        Self::table_labelled(rows, "set", 5, jobs_width)
    }

    /// [`table`](Self::table) with the first column headed `head` and
    /// `set_width` wide.
    pub(crate) fn table_labelled(
        rows: &[Self],
        head: &str,
        set_width: usize,
        jobs_width: usize,
    ) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{head:<set_width$} {:>jobs_width$} {:>12} {:>10} {:>14} {:>12} {:>7}",
            "jobs", "mean wait s", "mean bsld", "mean turnar. s", "worst bsld", "killed"
        );
        for row in rows {
            let _ = writeln!(
                out,
                "{:<set_width$} {:>jobs_width$} {} {} {} {} {:>7}",
                row.set,
                row.jobs,
                cell(row.mean_wait, 12, 1),
                cell(row.mean_bounded_slowdown, 10, 2),
                cell(row.mean_turnaround, 14, 1),
                cell(row.worst_bounded_slowdown, 12, 1),
                row.killed
            );
        }
        out
    }
}

/// Job lines of the window not run, by reason (stable keys in JSON).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct SkippedJobs {
    /// No submit time (field 2 is -1).
    pub(crate) no_submit_time: u64,
    /// No run time (field 4 is -1).
    pub(crate) no_run_time: u64,
    /// No processor count (fields 8 and 5 not positive).
    pub(crate) no_processors: u64,
    /// Wider than the machine.
    pub(crate) wider_than_machine: u64,
}

impl SkippedJobs {
    /// The job-line counts of `skipped` (partial-execution lines are not
    /// jobs and are counted apart).
    #[must_use]
    pub(crate) const fn of(skipped: &SkipCounts) -> Self {
        Self {
            no_submit_time: skipped.no_submit_time,
            no_run_time: skipped.no_run_time,
            no_processors: skipped.no_processors,
            wider_than_machine: skipped.wider_than_machine,
        }
    }

    /// `(reason in words, count)` in check order.
    #[must_use]
    pub(crate) const fn labelled(&self) -> [(&'static str, u64); 4] {
        [
            (SkipReason::NoSubmitTime.label(), self.no_submit_time),
            (SkipReason::NoRunTime.label(), self.no_run_time),
            (SkipReason::NoProcessors.label(), self.no_processors),
            (
                SkipReason::WiderThanMachine.label(),
                self.wider_than_machine,
            ),
        ]
    }

    /// All of them.
    #[cfg(test)]
    #[must_use]
    pub(crate) const fn total(&self) -> u64 {
        self.no_submit_time + self.no_run_time + self.no_processors + self.wider_than_machine
    }
}

/// Jobs the kernel refused at submission, by its reason (stable keys in
/// JSON); the replay goes on without them.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct RejectedJobs {
    /// No machine can ever run the job (too wide).
    pub(crate) unrunnable: u64,
    /// The job asks for no processors or has a zero estimate.
    pub(crate) invalid: u64,
    /// Any other refusal the replay went on after (none today).
    pub(crate) other: u64,
}

impl RejectedJobs {
    /// Counts the refusals of a replay by reason.
    #[must_use]
    pub(crate) fn of(rejected: &[(JobId, KernelError)]) -> Self {
        let mut out = Self::default();
        for (_, e) in rejected {
            match e {
                KernelError::Unrunnable(_) => out.unrunnable += 1,
                KernelError::InvalidJob(_) => out.invalid += 1,
                _ => out.other += 1,
            }
        }
        out
    }

    /// `(reason in words, count)`.
    #[must_use]
    pub(crate) const fn labelled(&self) -> [(&'static str, u64); 3] {
        [
            ("no machine can run it", self.unrunnable),
            ("no processors or a zero estimate", self.invalid),
            ("another kernel refusal", self.other),
        ]
    }

    /// All of them.
    #[must_use]
    pub(crate) const fn total(&self) -> u64 {
        self.unrunnable + self.invalid + self.other
    }
}

/// Counts of what was read and what became of it: every job line of the
/// window is scheduled, skipped or rejected (`jobs_in_window = scheduled +
/// skipped.total() + rejected_by_kernel.total()` after a replay).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Accounting {
    /// Data lines in the file.
    pub(crate) records_read: u64,
    /// Job lines in the window.
    pub(crate) jobs_in_window: u64,
    /// Partial-execution lines in the window (not jobs).
    pub(crate) partial_execution_lines: u64,
    /// Job lines not run, by reason.
    pub(crate) skipped: SkippedJobs,
    /// Jobs the kernel refused, by reason.
    pub(crate) rejected_by_kernel: RejectedJobs,
    /// Jobs scheduled and finished.
    pub(crate) scheduled: u64,
    /// Jobs out of submit order in the file (sorted before the replay).
    pub(crate) out_of_order: u64,
    /// Runnable jobs without a requested time (field 9): their user
    /// estimate is their run time, so `--estimates user` equals `exact` for
    /// them.
    #[serde(default)]
    pub(crate) no_requested_time: u64,
}

/// The report of one replay.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct ReplayReport {
    /// Trace name.
    pub(crate) trace: String,
    /// Policy.
    pub(crate) policy: String,
    /// `user` or `exact`.
    pub(crate) estimates: String,
    /// Load factor.
    pub(crate) load: f64,
    /// Machine processors.
    pub(crate) machine_procs: u32,
    /// Where the machine size came from.
    pub(crate) machine_source: MachineSource,
    /// Window: skipped job lines.
    pub(crate) skip: u64,
    /// Window: job lines taken.
    pub(crate) first: Option<u64>,
    /// Category bounds: short run time limit (s).
    pub(crate) short_max: u32,
    /// Category bounds: narrow processor limit.
    pub(crate) narrow_max: u32,
    /// What was read and what became of it.
    pub(crate) accounting: Accounting,
    /// Overall, then SN, SW, LN, LW.
    pub(crate) metrics: Vec<MetricsRow>,
    /// Utilisation over first submit to last end.
    pub(crate) utilisation: f64,
    /// Longest wait queue.
    pub(crate) max_queue: usize,
    /// Waiting jobs the replay kernel could hold: 8,192, or more when the
    /// window needed a larger kernel (see [`crate::replay`]).
    pub(crate) kernel_queue_capacity: usize,
    /// Kernel calls.
    pub(crate) kernel_calls: u64,
    /// Selective: the thresholds used and where they came from.
    pub(crate) thresholds: Option<crate::replay::thresholds::ThresholdsUsed>,
    /// Selective thresholds taken from a Conservative run: that run's means.
    pub(crate) conservative_thresholds: Option<crate::replay::thresholds::ConservativeThresholds>,
    /// DPSA's search statistics: under a DPSA policy, or when any is nonzero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dpsa: Option<DpsaStats>,
    /// CONS+RS's random-search statistics: under CONS+RS only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cons_rs: Option<ConsRsStats>,
    /// The warm-up and cool-down jobs left out of the metrics
    /// (`--warmup`, `--cooldown` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) left_out: Option<LeftOutReport>,
    /// Where the time series went (`--timeseries` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) timeseries: Option<TimeseriesReport>,
    /// Figures per user, group or queue (`--by` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) groups: Option<crate::output::groups::GroupsReport>,
    /// Percentiles and spread per set (`--distributions` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) distributions: Option<Vec<crate::output::distribution::Distribution>>,
    /// The total wait per set split by the reason jobs waited for
    /// (`--wait-by-reason` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) wait_by_reason: Option<Vec<crate::output::reasons::WaitSplit>>,
    /// Wall-clock measurements: the only part of the report that differs
    /// between two runs of the same command.
    pub(crate) timings: ReplayTimings,
}

/// The time series a replay wrote.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct TimeseriesReport {
    /// The file.
    pub(crate) file: String,
    /// Its interval (simulated seconds).
    pub(crate) every_seconds: u64,
    /// Its samples.
    pub(crate) samples: u64,
}

/// The jobs a replay scheduled but left out of its metrics.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct LeftOutReport {
    /// The warm-up asked for, in words (`100 jobs`, `3600 s of submits`).
    pub(crate) warmup: Option<String>,
    /// Jobs left out as warm-up.
    pub(crate) warmup_jobs: u64,
    /// The cool-down asked for, in words.
    pub(crate) cooldown: Option<String>,
    /// Jobs left out as cool-down (not already warm-up).
    pub(crate) cooldown_jobs: u64,
}

impl LeftOutReport {
    /// The report line.
    fn text(&self) -> String {
        let part = |name: &str, rule: &Option<String>, jobs: u64, edge: &str| {
            rule.as_ref().map(|rule| {
                format!(
                    "{} as {name} ({edge} {rule})",
                    crate::numbers::count_of(jobs, "job", "jobs")
                )
            })
        };
        let parts: Vec<String> = [
            part("warm-up", &self.warmup, self.warmup_jobs, "first"),
            part("cool-down", &self.cooldown, self.cooldown_jobs, "last"),
        ]
        .into_iter()
        .flatten()
        .collect();
        format!(
            "left out of the metrics: {} (scheduled normally)",
            parts.join(" and ")
        )
    }
}

/// The wall-clock part of a replay report.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct ReplayTimings {
    /// Reading and preparing the trace (s).
    pub(crate) read_seconds: f64,
    /// The Conservative pre-run that gave Selective its thresholds (s),
    /// when one ran.
    pub(crate) prerun_seconds: Option<f64>,
    /// The replay itself (s).
    pub(crate) replay_seconds: f64,
    /// The replay ran while the trace was read, so `replay_seconds`
    /// overlaps `read_seconds` (and includes waiting for lines).
    pub(crate) replay_while_reading: bool,
    /// Everything, reading included (s).
    pub(crate) total_seconds: f64,
    /// Slowest single kernel call of the replay (µs), when every call was
    /// timed (`--latency`; `null` otherwise).
    pub(crate) slowest_call_us: Option<f64>,
    /// Which call that was (`submit`, `complete`, `schedule`).
    pub(crate) slowest_call: Option<String>,
    /// The histogram of kernel call times, with `--latency`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) latency: Option<LatencyReport>,
}

/// How long the kernel calls of a replay took (`replay --latency`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct LatencyReport {
    /// Calls timed.
    pub(crate) calls: u64,
    /// Upper bounds (µs) of the median, 99th and 99.9th percentile call
    /// times: the power-of-two bucket each falls in, capped at the slowest.
    pub(crate) p50_below_us: f64,
    /// See `p50_below_us`.
    pub(crate) p99_below_us: f64,
    /// See `p50_below_us`.
    pub(crate) p999_below_us: f64,
    /// The non-empty buckets, fastest first.
    pub(crate) buckets: Vec<LatencyBucket>,
    /// Per kind of call (`submit`, `complete`, `schedule`).
    pub(crate) by_call: Vec<CallLatencyReport>,
}

/// One kind of call in a [`LatencyReport`].
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct CallLatencyReport {
    /// `submit`, `complete` or `schedule`.
    pub(crate) call: String,
    /// Calls timed.
    pub(crate) calls: u64,
    /// Upper bounds (µs) of the 99th and 99.9th percentile, as the
    /// report's.
    pub(crate) p99_below_us: f64,
    /// See `p99_below_us`.
    pub(crate) p999_below_us: f64,
    /// The slowest (µs).
    pub(crate) slowest_us: f64,
}

/// One bucket of a [`LatencyReport`].
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct LatencyBucket {
    /// Calls at least this long (µs)...
    pub(crate) from_us: u64,
    /// ...and shorter than this (µs); `null` for the open last bucket.
    pub(crate) below_us: Option<u64>,
    /// How many.
    pub(crate) calls: u64,
}

impl LatencyReport {
    /// The report of `latency`.
    #[must_use]
    pub(crate) fn of(latency: &crate::replay::Latency) -> Self {
        let buckets = latency
            .buckets
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(k, &calls)| LatencyBucket {
                from_us: crate::replay::Latency::bucket_from_us(k),
                below_us: crate::replay::Latency::bucket_below_us(k),
                calls,
            })
            .collect();
        Self {
            calls: latency.calls(),
            p50_below_us: latency.quantile_below_us(0.5),
            p99_below_us: latency.quantile_below_us(0.99),
            p999_below_us: latency.quantile_below_us(0.999),
            buckets,
            by_call: crate::replay::CallTimes::CALLS
                .iter()
                .zip(&latency.by_call)
                .map(|(call, t)| CallLatencyReport {
                    call: format!("{call:?}").to_lowercase(),
                    calls: t.calls(),
                    p99_below_us: t.quantile_below_us(0.99),
                    p999_below_us: t.quantile_below_us(0.999),
                    slowest_us: t.slowest.as_secs_f64() * 1e6,
                })
                .collect(),
        }
    }
}

/// Wall-clock times of the phases of `host-cli replay` (s).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Phases {
    /// Reading and preparing the trace.
    pub(crate) read: f64,
    /// The Conservative pre-run, when one ran.
    pub(crate) prerun: Option<f64>,
    /// Everything.
    pub(crate) total: f64,
}

/// What DPSA's subset search did over a replay.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct DpsaStats {
    /// The node budget per pass (`None` for a policy without one).
    pub(crate) budget: Option<u32>,
    /// Passes that searched (the greedy set was not provably optimal).
    pub(crate) searches: u64,
    /// Search nodes visited, over all passes.
    pub(crate) nodes: u64,
    /// Searches stopped by the budget (their start set is the best found, not
    /// necessarily the optimum).
    pub(crate) budget_hits: u64,
    /// Passes with more candidates than one search considers (the rest were
    /// backfilled greedily).
    pub(crate) overflows: u64,
}

impl DpsaStats {
    /// The statistics of a run, when the policy is DPSA or any is nonzero.
    #[must_use]
    pub(crate) fn of(result: &RunResult) -> Option<Self> {
        let c = &result.counters;
        let budget = match result.policy {
            backfill_core::Policy::Dpsa { nodes, .. } => Some(nodes),
            _ => None,
        };
        let stats = Self {
            budget,
            searches: c.dpsa_searches,
            nodes: c.dpsa_nodes,
            budget_hits: c.dpsa_budget_hits,
            overflows: c.dpsa_overflows,
        };
        let any = stats.searches > 0 || stats.nodes > 0 || stats.budget_hits > 0;
        (budget.is_some() || any || stats.overflows > 0).then_some(stats)
    }

    /// The report line's text.
    #[must_use]
    pub(crate) fn text(&self) -> String {
        let budget = self
            .budget
            .map_or_else(String::new, |b| format!("budget {b} nodes/pass; "));
        let mean = if self.searches == 0 {
            0.0
        } else {
            self.nodes as f64 / self.searches as f64
        };
        format!(
            "{budget}{} searches, {} nodes ({mean:.1} per search), {} budget hits, {} passes with over {} candidates",
            self.searches,
            self.nodes,
            self.budget_hits,
            self.overflows,
            backfill_core::policy::DPSA_CANDIDATES
        )
    }
}

/// What CONS+RS's random search did over a replay.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct ConsRsStats {
    /// The PRNG seed.
    pub(crate) seed: u64,
    /// Iterations per search: `per_queued_job` times the queue length when
    /// the search starts, or `fixed`.
    pub(crate) per_queued_job: Option<u32>,
    /// A fixed number of iterations per search (`--rs-iterations`).
    pub(crate) fixed: Option<u32>,
    /// Searches run (one per instant with an early completion and jobs
    /// waiting).
    pub(crate) searches: u64,
    /// Iterations run, over all searches.
    pub(crate) iterations: u64,
    /// Moves kept: the objective improved strictly and every job kept its
    /// guarantee.
    pub(crate) accepted: u64,
    /// Moves undone because a job would have started after its guarantee.
    pub(crate) rejected_guarantee: u64,
    /// Moves undone because the objective did not improve.
    pub(crate) rejected_objective: u64,
    /// Iterations that found no gap before the chosen job's reservation.
    pub(crate) no_gap: u64,
    /// Iterations skipped because too many queued jobs overlapped the gap.
    pub(crate) too_crowded: u64,
}

impl ConsRsStats {
    /// The statistics of a CONS+RS run; `None` for other policies.
    #[must_use]
    pub(crate) fn of(result: &RunResult) -> Option<Self> {
        let (backfill_core::Policy::ConsRs(params) | backfill_core::Policy::ConsRsAlea(params)) =
            result.policy
        else {
            return None;
        };
        let c = &result.counters;
        let (per_queued_job, fixed) = match params.iterations {
            backfill_core::policy::Iterations::PerQueuedJob(k) => (Some(k), None),
            backfill_core::policy::Iterations::Fixed(n) => (None, Some(n)),
        };
        Some(Self {
            seed: params.seed,
            per_queued_job,
            fixed,
            searches: c.rs_searches,
            iterations: c.rs_iterations,
            accepted: c.rs_accepted,
            rejected_guarantee: c.rs_rejected_guarantee,
            rejected_objective: c.rs_rejected_objective,
            no_gap: c.rs_no_gap,
            too_crowded: c.rs_too_crowded,
        })
    }

    /// The report line's text.
    #[must_use]
    pub(crate) fn text(&self) -> String {
        let budget = match (self.per_queued_job, self.fixed) {
            (Some(k), _) => format!("{k} x queue length"),
            (None, Some(n)) => format!("{n}"),
            (None, None) => "-".to_owned(),
        };
        format!(
            "seed {}, {budget} iterations/search; {} searches, {} iterations: {} moves accepted, \
             {} rejected by guarantee, {} by objective; {} without a gap, {} too crowded",
            self.seed,
            self.searches,
            self.iterations,
            self.accepted,
            self.rejected_guarantee,
            self.rejected_objective,
            self.no_gap,
            self.too_crowded
        )
    }
}

/// Builds the report of a replay.
#[must_use]
pub(crate) fn replay_report(
    prepared: &Prepared,
    result: &RunResult,
    bounds: CategoryBounds,
    phases: Phases,
) -> ReplayReport {
    let metrics = MetricsRow::sets(&result.metrics);
    ReplayReport {
        trace: prepared.name.clone(),
        policy: result.policy.name().to_owned(),
        estimates: format!("{:?}", prepared.shaping.estimates).to_lowercase(),
        load: prepared.shaping.load,
        machine_procs: prepared.machine_procs,
        machine_source: prepared.machine_source,
        skip: prepared.window.skip,
        first: prepared.window.first,
        short_max: bounds.short_max,
        narrow_max: bounds.narrow_max,
        accounting: accounting(prepared, result),
        metrics,
        utilisation: result
            .metrics
            .overall
            .utilisation(u64::from(prepared.machine_procs)),
        max_queue: result.outcome.max_queue,
        kernel_queue_capacity: result.queue_capacity,
        kernel_calls: result.outcome.calls,
        thresholds: None,
        conservative_thresholds: None,
        dpsa: DpsaStats::of(result),
        cons_rs: ConsRsStats::of(result),
        distributions: None,
        wait_by_reason: None,
        left_out: None,
        groups: None,
        timeseries: None,
        timings: ReplayTimings {
            read_seconds: phases.read,
            prerun_seconds: phases.prerun,
            replay_seconds: result.wall.as_secs_f64(),
            replay_while_reading: result.while_reading,
            total_seconds: phases.total,
            slowest_call_us: result
                .latency
                .as_ref()
                .map(|l| l.slowest.0.as_secs_f64() * 1e6),
            slowest_call: result
                .latency
                .as_ref()
                .and_then(|l| l.slowest.1)
                .map(|c| format!("{c:?}").to_lowercase()),
            latency: result.latency.as_ref().map(LatencyReport::of),
        },
    }
}

fn accounting(prepared: &Prepared, result: &RunResult) -> Accounting {
    accounting_of(
        prepared,
        RejectedJobs::of(&result.rejected),
        result.outcome.finished,
    )
}

/// The accounting of a prepared window whose replays refused `rejected`
/// jobs and scheduled `scheduled`.
#[must_use]
pub(crate) fn accounting_of(
    prepared: &Prepared,
    rejected: RejectedJobs,
    scheduled: u64,
) -> Accounting {
    Accounting {
        records_read: prepared.records_read,
        jobs_in_window: prepared.jobs_in_window,
        partial_execution_lines: prepared.skipped.get(SkipReason::PartialExecution),
        skipped: SkippedJobs::of(&prepared.skipped),
        rejected_by_kernel: rejected,
        scheduled,
        out_of_order: prepared.out_of_order,
        no_requested_time: prepared
            .trace_jobs
            .iter()
            .filter(|j| j.requested_time.is_none_or(|t| t == 0))
            .count() as u64,
    }
}

/// The window in words: `whole trace`, `first 5000 jobs`, ...
#[must_use]
pub(crate) fn window_text(skip: u64, first: Option<u64>) -> String {
    match (skip, first) {
        (0, None) => "whole trace".to_owned(),
        (s, None) => format!("jobs after the first {s}"),
        (0, Some(n)) => format!("first {n} jobs"),
        (s, Some(n)) => format!("{n} jobs after the first {s}"),
    }
}

/// Where the machine size came from, in words.
#[must_use]
pub(crate) const fn machine_source_text(source: MachineSource) -> &'static str {
    crate::replay::machine_source_words(source)
}

/// The accounting as report lines: what was read, what was skipped and
/// why, what was scheduled (every job line of the window is one of these).
#[must_use]
pub(crate) fn accounting_text(a: &Accounting) -> String {
    accounting_lines(a, "data lines read", "scheduled", false)
}

/// The accounting lines of `replay` (`every_reason` false: only the skip
/// reasons that occurred) and of `info` (`every_reason` true).
fn accounting_lines(a: &Accounting, read: &str, outcome: &str, every_reason: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "jobs         {} {read}; {} job lines in window; {} {outcome}",
        a.records_read, a.jobs_in_window, a.scheduled
    );
    if a.partial_execution_lines > 0 {
        let n = a.partial_execution_lines;
        let _ = writeln!(
            out,
            "             {} (status 2/3/4) {} not jobs",
            count_of(n, "partial-execution line", "partial-execution lines"),
            agree(n, "is", "are")
        );
    }
    for (reason, count) in a.skipped.labelled() {
        if every_reason || count > 0 {
            let _ = writeln!(out, "  skipped    {count:>8}  {reason}");
        }
    }
    for (reason, count) in a.rejected_by_kernel.labelled() {
        if count > 0 {
            let _ = writeln!(
                out,
                "  rejected   {count:>8}  refused by the kernel: {reason}"
            );
        }
    }
    if a.out_of_order > 0 {
        let n = a.out_of_order;
        let _ = writeln!(
            out,
            "             {} {} out of submit order in the file (sorted for the replay)",
            count_of(n, "job", "jobs"),
            agree(n, "was", "were")
        );
    }
    if a.no_requested_time > 0 {
        let n = a.no_requested_time;
        let _ = writeln!(
            out,
            "             {} {} no requested time (field 9): {} user estimate is {} run time",
            count_of(n, "job", "jobs"),
            agree(n, "has", "have"),
            agree(n, "its", "their"),
            agree(n, "its", "their")
        );
    }
    out
}

/// Formats a replay report as a plain-text table.
#[must_use]
pub(crate) fn replay_table(r: &ReplayReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "trace        {}", r.trace);
    let _ = writeln!(
        out,
        "machine      {} processors ({})",
        r.machine_procs,
        machine_source_text(r.machine_source)
    );
    let _ = writeln!(
        out,
        "policy       {}   estimates {}   load x{}   window {}",
        r.policy,
        r.estimates,
        r.load,
        window_text(r.skip, r.first)
    );
    if let Some(t) = &r.thresholds {
        let _ = writeln!(out, "thresholds   {}", t.text);
    }
    out.push_str(&accounting_text(&r.accounting));
    if let Some(c) = &r.conservative_thresholds {
        let _ = writeln!(out);
        out.push_str(&crate::replay::thresholds::grid_text(c));
    }
    if let Some(l) = &r.left_out {
        let _ = writeln!(out, "measured     {}", l.text());
    }
    let _ = writeln!(out);
    out.push_str(&MetricsRow::table(&r.metrics, 8));
    if let Some(d) = &r.distributions {
        let _ = writeln!(out);
        out.push_str(&crate::output::distribution::table(d));
    }
    if let Some(g) = &r.groups {
        let _ = writeln!(out);
        out.push_str(&g.table());
    }
    if let Some(w) = &r.wait_by_reason {
        let _ = writeln!(out);
        out.push_str(&crate::output::reasons::wait_split_table(w));
    }
    if let Some(t) = &r.timeseries {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "timeseries   {} every {} s of simulated time written to {}",
            count_of(t.samples, "sample", "samples"),
            t.every_seconds,
            t.file
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "utilisation  {:.2}%   max queue {}   kernel calls {}",
        r.utilisation * 100.0,
        r.max_queue,
        r.kernel_calls
    );
    if r.kernel_queue_capacity > crate::replay::QUEUE_CAPACITY {
        let _ = writeln!(
            out,
            "kernel       tables for {} waiting and running jobs (the queue outgrew {}; \
             the replay was run again on the larger kernel)",
            r.kernel_queue_capacity,
            crate::replay::QUEUE_CAPACITY
        );
    }
    let t = &r.timings;
    let prerun = t.prerun_seconds.map_or_else(String::new, |p| {
        format!(", {p:.3} s Conservative pre-run for the thresholds")
    });
    let _ = writeln!(
        out,
        "wall time    {:.3} s replay{}{prerun}, {:.3} s reading; {:.3} s in all",
        t.replay_seconds,
        if t.replay_while_reading {
            " (while reading)"
        } else {
            ""
        },
        t.read_seconds,
        t.total_seconds
    );
    if let (Some(l), Some(us), Some(call)) = (&t.latency, t.slowest_call_us, &t.slowest_call) {
        let _ = writeln!(
            out,
            "kernel calls {} timed: median < {:.0} µs, 99% < {:.0} µs, 99.9% < {:.0} µs, slowest {us:.1} µs ({call})",
            l.calls, l.p50_below_us, l.p99_below_us, l.p999_below_us
        );
        let most = l.buckets.iter().map(|b| b.calls).max().unwrap_or(1).max(1);
        for b in &l.buckets {
            let range = b.below_us.map_or_else(
                || format!(">= {} µs", b.from_us),
                |below| format!("{}-{below} µs", b.from_us),
            );
            let bar = "#".repeat(((b.calls * 40).div_ceil(most)) as usize);
            let _ = writeln!(out, "  {range:>16} {:>10} {bar}", b.calls);
        }
    }
    if let Some(d) = &r.dpsa {
        let _ = writeln!(out, "dpsa search  {}", d.text());
    }
    if let Some(c) = &r.cons_rs {
        let _ = writeln!(out, "cons+rs      {}", c.text());
    }
    out
}

/// One row of `replay --format csv`: a set of jobs, with the run's context
/// in every row so that the rows of several runs can be concatenated
/// (numbers rounded to 4 decimals, as the analyses' CSV files are).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct ReplayCsvRow {
    /// Trace.
    pub(crate) trace: String,
    /// Window in words.
    pub(crate) window: String,
    /// Machine processors.
    pub(crate) machine_procs: u32,
    /// Policy.
    pub(crate) policy: String,
    /// `user` or `exact`.
    pub(crate) estimates: String,
    /// Load factor.
    pub(crate) load: f64,
    /// Thresholds used (values only; `-` for none).
    pub(crate) thresholds: String,
    /// Where they came from: none, given, conservative,
    /// default-conservative, adaptive.
    pub(crate) threshold_source: crate::replay::thresholds::ThresholdSource,
    /// Category bound: longest Short run time (s).
    pub(crate) short_max: u32,
    /// Category bound: most processors of a Narrow job.
    pub(crate) narrow_max: u32,
    /// `all`, SN, SW, LN or LW.
    pub(crate) set: String,
    /// Jobs in the set.
    pub(crate) jobs: u64,
    /// Mean wait (s); empty for a set without jobs.
    pub(crate) mean_wait: Option<f64>,
    /// Mean bounded slowdown; empty for a set without jobs.
    pub(crate) mean_bounded_slowdown: Option<f64>,
    /// Mean turnaround (s); empty for a set without jobs.
    pub(crate) mean_turnaround: Option<f64>,
    /// Worst bounded slowdown; empty for a set without jobs.
    pub(crate) worst_bounded_slowdown: Option<f64>,
    /// Jobs killed at their estimate.
    pub(crate) killed: u64,
    /// Utilisation of the whole replay.
    pub(crate) utilisation: f64,
}

/// `replay --format csv`: the rows of [`replay_csv_rows`], each followed
/// by its set's distribution columns when the report has them.
///
/// # Errors
/// [`CliError::Io`](crate::error::CliError::Io) when the rows cannot be written.
pub(crate) fn replay_csv(r: &ReplayReport) -> Result<String, crate::error::CliError> {
    let text = crate::output::csv_text(&replay_csv_rows(r))?;
    if r.distributions.is_none()
        && r.left_out.is_none()
        && r.groups.is_none()
        && r.wait_by_reason.is_none()
    {
        return Ok(text);
    }
    let fail = crate::output::csv_error;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut header = reader.headers().map_err(fail)?.clone();
    if r.distributions.is_some() {
        header.extend(crate::output::distribution::csv_header());
    }
    if r.left_out.is_some() {
        header.extend(["warmup_jobs", "cooldown_jobs"]);
    }
    if r.groups.is_some() {
        header.extend(["groups", "slowdown_max_over_min", "jain_index_of_mean_wait"]);
    }
    if r.wait_by_reason.is_some() {
        header.extend(crate::output::reasons::csv_header());
    }
    let mut out = vec![header];
    let records: Vec<csv::StringRecord> =
        reader.records().collect::<Result<_, _>>().map_err(fail)?;
    // With --by, one more row per group after the sets' rows: the run's
    // context, the set named `user 12` (or `group`, `queue`), its figures.
    let group_rows = r.groups.iter().flat_map(|g| {
        g.groups.iter().map(move |row| {
            let mut report = r.clone();
            let mut row = row.clone();
            row.set = format!("{} {}", g.by.name(), row.set);
            report.metrics = vec![row];
            report
        })
    });
    let mut rows = records;
    for report in group_rows {
        let text = crate::output::csv_text(&replay_csv_rows(&report))?;
        let mut extra = csv::Reader::from_reader(text.as_bytes());
        for record in extra.records() {
            rows.push(record.map_err(fail)?);
        }
    }
    for (i, mut record) in rows.into_iter().enumerate() {
        if let Some(d) = &r.distributions {
            match d.get(i) {
                Some(d) => record.extend(crate::output::distribution::csv_fields(d)),
                None => record.extend(crate::output::distribution::csv_header().iter().map(|_| "")),
            }
        }
        if let Some(l) = &r.left_out {
            record.extend([l.warmup_jobs.to_string(), l.cooldown_jobs.to_string()]);
        }
        if let Some(g) = &r.groups {
            let f = &g.fairness;
            let text = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{:?}", round4(v)));
            record.extend([
                f.groups.to_string(),
                text(f.slowdown_max_over_min),
                text(f.jain_index_of_mean_wait),
            ]);
        }
        if let Some(w) = &r.wait_by_reason {
            // The sets' rows come first, in the splits' order; a --by
            // group's row has no split.
            record.extend(crate::output::reasons::csv_fields(w.get(i)));
        }
        out.push(record);
    }
    crate::output::csv_records(&out)
}

/// The CSV rows of a replay report: one per set (all, SN, SW, LN, LW).
#[must_use]
pub(crate) fn replay_csv_rows(r: &ReplayReport) -> Vec<ReplayCsvRow> {
    let (thresholds, source) = r.thresholds.as_ref().map_or_else(
        || {
            (
                "-".to_owned(),
                crate::replay::thresholds::ThresholdSource::None,
            )
        },
        |t| (t.values.clone(), t.source),
    );
    r.metrics
        .iter()
        .map(|m| ReplayCsvRow {
            trace: r.trace.clone(),
            window: window_text(r.skip, r.first),
            machine_procs: r.machine_procs,
            policy: r.policy.clone(),
            estimates: r.estimates.clone(),
            load: r.load,
            thresholds: thresholds.clone(),
            threshold_source: source,
            short_max: r.short_max,
            narrow_max: r.narrow_max,
            set: m.set.clone(),
            jobs: m.jobs,
            mean_wait: m.mean_wait.map(round4),
            mean_bounded_slowdown: m.mean_bounded_slowdown.map(round4),
            mean_turnaround: m.mean_turnaround.map(round4),
            worst_bounded_slowdown: m.worst_bounded_slowdown.map(round4),
            killed: m.killed,
            utilisation: round4(r.utilisation),
        })
        .collect()
}

/// One row of `--jobs-out`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct JobRow {
    /// The trace's job number.
    pub(crate) job_id: u64,
    /// Submit time (after load scaling).
    pub(crate) submit: u32,
    /// Start time.
    pub(crate) start: u32,
    /// End time.
    pub(crate) end: u32,
    /// Wait (s).
    pub(crate) wait: u32,
    /// Effective run time (s).
    pub(crate) run: u32,
    /// Estimate the scheduler saw (s).
    pub(crate) estimate: u32,
    /// Processors.
    pub(crate) procs: u32,
    /// Bounded slowdown.
    pub(crate) bounded_slowdown: f64,
    /// SN, SW, LN or LW.
    pub(crate) category: &'static str,
    /// Whether it was killed at its estimate (ran longer than it asked for).
    pub(crate) killed: bool,
    /// The start its first reservation guaranteed (the kernel's guarantee,
    /// the first `reserved` report for the job); empty when it never had a
    /// reservation (started at once, or a policy without them).
    pub(crate) guarantee: Option<u32>,
}

/// Writes one CSV row per scheduled job, in trace order (by job id).
///
/// # Errors
/// I/O errors (CSV errors as [`std::io::Error`]s).
pub(crate) fn write_jobs_csv<W: Write>(
    out: W,
    prepared: &Prepared,
    records: &[JobRecord],
    bounds: CategoryBounds,
    owners: bool,
) -> std::io::Result<()> {
    if owners {
        return write_jobs_csv_with_owners(out, prepared, records, bounds);
    }
    let mut sorted: Vec<&JobRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.job.id);
    let mut writer = csv::Writer::from_writer(out);
    for r in sorted {
        let number = prepared
            .trace_jobs
            .get(r.job.id as usize)
            .map_or(u64::from(r.job.id), |t| t.number);
        writer
            .serialize(JobRow {
                job_id: number,
                submit: r.job.submit,
                start: r.start(),
                end: r.end,
                wait: r.wait(),
                run: r.run(),
                estimate: r.job.estimate,
                procs: r.job.procs,
                bounded_slowdown: r.bounded_slowdown(),
                category: bounds.classify(r.runtime, r.job.procs).label(),
                killed: r.killed,
                guarantee: r.guarantee,
            })
            .map_err(csv_io)?;
    }
    writer.flush()
}

/// [`write_jobs_csv`] with three more columns, the job's SWF `user`,
/// `group` and `queue` (empty when unknown), for `replay --by`.
fn write_jobs_csv_with_owners<W: Write>(
    out: W,
    prepared: &Prepared,
    records: &[JobRecord],
    bounds: CategoryBounds,
) -> std::io::Result<()> {
    let mut plain = Vec::new();
    write_jobs_csv(&mut plain, prepared, records, bounds, false)?;
    let mut ids: Vec<u32> = records.iter().map(|r| r.job.id).collect();
    ids.sort_unstable();
    let mut reader = csv::Reader::from_reader(plain.as_slice());
    let mut writer = csv::Writer::from_writer(out);
    let mut header = reader.headers().map_err(csv_io)?.clone();
    header.extend(["user", "group", "queue"]);
    writer.write_record(&header).map_err(csv_io)?;
    let text = |v: Option<u32>| v.map_or_else(String::new, |v| v.to_string());
    for (record, id) in reader.records().zip(ids) {
        let mut record = record.map_err(csv_io)?;
        let t = prepared.trace_jobs.get(id as usize);
        record.extend([
            text(t.and_then(|t| t.user)),
            text(t.and_then(|t| t.group)),
            text(t.and_then(|t| t.queue)),
        ]);
        writer.write_record(&record).map_err(csv_io)?;
    }
    writer.flush()
}

/// A CSV error as an I/O error (an I/O error stays itself).
#[must_use]
pub(crate) fn csv_io(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => std::io::Error::other(format!("{other:?}")),
    }
}

/// What `host-cli info` reports.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct InfoReport {
    /// Trace name.
    pub(crate) trace: String,
    /// Header fields.
    pub(crate) header: SwfHeader,
    /// Machine size used for the too-wide rule.
    pub(crate) machine_procs: u32,
    /// Where it came from.
    pub(crate) machine_source: MachineSource,
    /// Window.
    pub(crate) skip: u64,
    /// Window.
    pub(crate) first: Option<u64>,
    /// Counts.
    pub(crate) accounting: Accounting,
    /// Runnable jobs counted in the category table.
    pub(crate) jobs_counted: u64,
    /// Category bounds.
    pub(crate) short_max: u32,
    /// Category bounds.
    pub(crate) narrow_max: u32,
    /// Percent of counted jobs per category (SN, SW, LN, LW).
    pub(crate) categories: Vec<(String, u64, f64)>,
    /// Wall-clock measurements (the only part that differs between runs).
    pub(crate) timings: InfoTimings,
}

/// The wall-clock part of the `info` report.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub(crate) struct InfoTimings {
    /// Reading and preparing the trace (s).
    pub(crate) read_seconds: f64,
}

/// One row of `info --format csv`: a category, with the trace's context in
/// every row (percent rounded to 4 decimals).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct InfoCsvRow {
    /// Trace.
    pub(crate) trace: String,
    /// Window in words.
    pub(crate) window: String,
    /// Machine processors.
    pub(crate) machine_procs: u32,
    /// Where that came from.
    pub(crate) machine_source: MachineSource,
    /// Job lines in the window.
    pub(crate) jobs_in_window: u64,
    /// Runnable jobs (counted in the categories).
    pub(crate) jobs_counted: u64,
    /// Category bound: longest Short run time (s).
    pub(crate) short_max: u32,
    /// Category bound: most processors of a Narrow job.
    pub(crate) narrow_max: u32,
    /// SN, SW, LN or LW.
    pub(crate) set: String,
    /// Jobs in it.
    pub(crate) jobs: u64,
    /// Percent of the counted jobs.
    pub(crate) percent: f64,
}

/// The CSV rows of an `info` report: one per category.
#[must_use]
pub(crate) fn info_csv_rows(r: &InfoReport) -> Vec<InfoCsvRow> {
    r.categories
        .iter()
        .map(|(set, jobs, percent)| InfoCsvRow {
            trace: r.trace.clone(),
            window: window_text(r.skip, r.first),
            machine_procs: r.machine_procs,
            machine_source: r.machine_source,
            jobs_in_window: r.accounting.jobs_in_window,
            jobs_counted: r.jobs_counted,
            short_max: r.short_max,
            narrow_max: r.narrow_max,
            set: set.clone(),
            jobs: *jobs,
            percent: round4(*percent),
        })
        .collect()
}

/// Builds the `info` report from a prepared trace.
#[must_use]
pub(crate) fn info_report(
    prepared: &Prepared,
    header: &SwfHeader,
    bounds: CategoryBounds,
    read_seconds: f64,
) -> InfoReport {
    let mut counts = [0u64; 4];
    for j in &prepared.trace_jobs {
        counts[bounds.classify(j.runtime, j.procs).index()] += 1;
    }
    let total: u64 = counts.iter().sum();
    let categories = Category::ALL
        .iter()
        .map(|c| {
            let n = counts[c.index()];
            (c.label().to_owned(), n, share_pct(n, total))
        })
        .collect();
    let accounting = accounting_of(
        prepared,
        RejectedJobs::default(),
        prepared.trace_jobs.len() as u64,
    );
    InfoReport {
        trace: prepared.name.clone(),
        header: header.clone(),
        machine_procs: prepared.machine_procs,
        machine_source: prepared.machine_source,
        skip: prepared.window.skip,
        first: prepared.window.first,
        accounting,
        jobs_counted: total,
        short_max: bounds.short_max,
        narrow_max: bounds.narrow_max,
        categories,
        timings: InfoTimings { read_seconds },
    }
}

/// Formats the `info` report as text; the category table follows the
/// selective-reservation paper's Tables 3-6 (percent, two decimals).
#[must_use]
pub(crate) fn info_table(r: &InfoReport) -> String {
    let mut out = String::new();
    let h = &r.header;
    let _ = writeln!(out, "trace        {}", r.trace);
    let field = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".to_owned());
    let num = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
    let _ = writeln!(out, "version      {}", field(&h.version));
    let _ = writeln!(out, "computer     {}", field(&h.computer));
    let _ = writeln!(out, "installation {}", field(&h.installation));
    let _ = writeln!(
        out,
        "period       {} -> {}",
        field(&h.start_time),
        field(&h.end_time)
    );
    let _ = writeln!(
        out,
        "MaxProcs     {}   MaxNodes {}   MaxJobs {}   MaxRecords {}   UnixStartTime {}",
        num(h.max_procs),
        num(h.max_nodes),
        num(h.max_jobs),
        num(h.max_records),
        h.unix_start_time
            .map_or_else(|| "-".to_owned(), |v| v.to_string())
    );
    for bad in &h.invalid {
        let _ = writeln!(
            out,
            "invalid      line {}: {} '{}' does not parse (not used)",
            bad.line, bad.key, bad.value
        );
    }
    let _ = writeln!(
        out,
        "machine      {} processors ({:?})",
        r.machine_procs, r.machine_source
    );
    let _ = writeln!(out, "window       {}", window_text(r.skip, r.first));
    out.push_str(&accounting_lines(
        &r.accounting,
        "data lines",
        "runnable",
        true,
    ));
    let _ = writeln!(
        out,
        "\ncategories ({} jobs; short <= {} s, narrow <= {} processors)",
        r.jobs_counted, r.short_max, r.narrow_max
    );
    let pct = |label: &str| {
        r.categories
            .iter()
            .find(|c| c.0 == label)
            .map_or(0.0, |c| c.2)
    };
    let _ = writeln!(out, "       {:>8} {:>8}", "N", "W");
    let _ = writeln!(out, "  S    {:>7.2}% {:>7.2}%", pct("SN"), pct("SW"));
    let _ = writeln!(out, "  L    {:>7.2}% {:>7.2}%", pct("LN"), pct("LW"));
    let _ = writeln!(out, "\nread in {:.3} s", r.timings.read_seconds);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_counted_by_reason() {
        let r = RejectedJobs::of(&[
            (1, KernelError::Unrunnable(1)),
            (2, KernelError::Unrunnable(2)),
            (3, KernelError::InvalidJob(3)),
            (4, KernelError::QueueFull(4)),
        ]);
        assert_eq!(
            r,
            RejectedJobs {
                unrunnable: 2,
                invalid: 1,
                other: 1
            }
        );
        assert_eq!(r.total(), 4);
        let json = serde_json::to_value(r).unwrap();
        assert_eq!(json["unrunnable"], 2);
        assert_eq!(r.labelled()[0], ("no machine can run it", 2));
    }

    #[test]
    fn skipped_jobs_leave_out_partial_execution_lines() {
        let mut counts = SkipCounts::default();
        counts.add(SkipReason::PartialExecution);
        counts.add(SkipReason::NoRunTime);
        counts.add(SkipReason::WiderThanMachine);
        counts.add(SkipReason::WiderThanMachine);
        let s = SkippedJobs::of(&counts);
        assert_eq!(s.total(), 3);
        assert_eq!(s.labelled()[3], ("wider than the machine", 2));
        let json = serde_json::to_value(s).unwrap();
        assert_eq!(json["wider_than_machine"], 2);
        assert_eq!(json.as_object().unwrap().len(), 4);
    }
}
