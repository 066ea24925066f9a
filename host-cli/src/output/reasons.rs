//! Why jobs wait: the changes of every job's pending reason a replay saw
//! (`replay --reasons-out`), one job's story (`--explain`), the queue at an
//! instant (`--queue-at`) and the total wait split by reason
//! (`--wait-by-reason`).
//!
//! The kernel reports, on each scheduling pass, a reason for every queued
//! job it considered and left waiting, and how each job was started. A
//! job's reason *changes* when the pass reports another reason or the same
//! reason with another detail (another job ahead, another reservation); a
//! job the pass did not reach keeps its last reason, as Slurm's `squeue`
//! shows the last one its scheduler gave. The wait from a job's submit to
//! its first reason (none when the pass at its submit instant considers
//! it) counts as `unreported`.

use crate::numbers::share_pct;
use crate::replay::reasons::{Described, ReasonLog};
use crate::replay::Prepared;
use backfill_core::{Category, CategoryBounds, JobId, JobRecord, Time};
use serde::Serialize;
use std::fmt::Write as _;

/// `reason`'s detail with the expected start it carries, if any.
fn full_detail<R: Described>(reason: &R, number: &dyn Fn(JobId) -> u64) -> String {
    let detail = reason.detail(number);
    match reason.expected() {
        Some(t) => format!("{detail}; expected start t={t} (its shadow time)"),
        None => detail,
    }
}

/// A job's trace number (its SWF job number), by kernel id.
pub(crate) fn number(prepared: &Prepared, job: JobId) -> u64 {
    prepared
        .trace_jobs
        .get(job as usize)
        .map_or(u64::from(job), |t| t.number)
}

/// The kernel id of the job numbered `number` in the trace, if the window
/// has it.
pub(crate) fn id_of(prepared: &Prepared, number: u64) -> Option<JobId> {
    prepared
        .trace_jobs
        .iter()
        .position(|t| t.number == number)
        .and_then(|i| JobId::try_from(i).ok())
}

/// One row of `--reasons-out`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
struct ReasonRow {
    /// The trace's job number.
    job: u64,
    /// When the reason changed (s).
    time: Time,
    /// The reason's name.
    reason: &'static str,
    /// The reason's detail.
    detail: String,
}

/// Writes `--reasons-out`: every change kept, by time, then trace job
/// number (then the order the passes reported them), one row at a time.
///
/// # Errors
/// I/O errors (CSV errors as [`std::io::Error`]s).
pub(crate) fn write_reasons_csv<W: std::io::Write, R: Described, K: Described>(
    out: W,
    prepared: &Prepared,
    log: &ReasonLog<R, K>,
) -> std::io::Result<()> {
    let named = |id: JobId| number(prepared, id);
    let mut order: Vec<(Time, u64, usize)> = log
        .changes
        .iter()
        .enumerate()
        .map(|(i, c)| (c.time, named(c.job), i))
        .collect();
    order.sort_unstable();
    let mut writer = csv::Writer::from_writer(out);
    for (time, job, i) in order {
        let Some(c) = log.changes.get(i) else {
            continue;
        };
        let row = ReasonRow {
            job,
            time,
            reason: c.reason.code(),
            detail: full_detail(&c.reason, &named),
        };
        writer.serialize(row).map_err(std::io::Error::other)?;
    }
    writer.flush()
}

/// One event of a job's story.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct StoryEvent {
    /// When (s).
    pub(crate) time: Time,
    /// `submitted`, `waiting`, `started`, `ended` or `killed`.
    pub(crate) event: &'static str,
    /// The reason's or the start kind's name; empty for submit and end.
    pub(crate) what: &'static str,
    /// In words.
    pub(crate) detail: String,
}

/// `--explain JOB`: one job's story.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct Story {
    /// The trace's job number.
    pub(crate) job: u64,
    /// Its line in the trace.
    pub(crate) line: u64,
    /// Processors.
    pub(crate) procs: u32,
    /// The estimate the scheduler saw (s).
    pub(crate) estimate: u32,
    /// Its run time (s).
    pub(crate) runtime: u32,
    /// SN, SW, LN or LW.
    pub(crate) category: &'static str,
    /// Its wait (s), when it started.
    pub(crate) wait: Option<u32>,
    /// What happened to it, in time order.
    pub(crate) events: Vec<StoryEvent>,
}

/// The story of the job of kernel id `job`: `record` is its record when it
/// finished, `refused` the kernel's reason when it refused the job.
pub(crate) fn story<R: Described, K: Described>(
    prepared: &Prepared,
    log: &ReasonLog<R, K>,
    job: JobId,
    record: Option<&JobRecord>,
    refused: Option<String>,
    bounds: CategoryBounds,
) -> Option<Story> {
    let trace = prepared.trace_jobs.get(job as usize)?;
    let sim = prepared.jobs.get(job as usize)?;
    let named = |id: JobId| number(prepared, id);
    let submit = sim.job.submit;
    let mut events = vec![StoryEvent {
        time: submit,
        event: "submitted",
        what: "",
        detail: format!(
            "{} processors, estimate {} s",
            sim.job.procs, sim.job.estimate
        ),
    }];
    if let Some(why) = refused {
        events.push(StoryEvent {
            time: submit,
            event: "refused",
            what: "",
            detail: why,
        });
    }
    events.extend(log.changes_of(job).map(|c| StoryEvent {
        time: c.time,
        event: "waiting",
        what: c.reason.code(),
        detail: full_detail(&c.reason, &named),
    }));
    let start = log.start_of(job);
    if let Some(s) = start {
        events.push(StoryEvent {
            time: s.time,
            event: "started",
            what: s.kind.code(),
            detail: format!(
                "{}; waited {} s",
                s.kind.detail(&named),
                s.time.saturating_sub(submit)
            ),
        });
    }
    if let Some(r) = record {
        events.push(StoryEvent {
            time: r.end,
            event: if r.killed { "killed" } else { "ended" },
            what: "",
            detail: if r.killed {
                format!("at its estimate, after {} s", r.run())
            } else {
                format!("after running {} s", r.run())
            },
        });
    }
    Some(Story {
        job: trace.number,
        line: trace.line,
        procs: sim.job.procs,
        estimate: sim.job.estimate,
        runtime: sim.runtime,
        category: bounds.classify(sim.runtime, sim.job.procs).label(),
        wait: start.map(|s| s.time.saturating_sub(submit)),
        events,
    })
}

/// `--explain` as text.
pub(crate) fn story_text(s: &Story) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "job {} (line {}): {} processors, estimate {} s, run time {} s, {}",
        s.job, s.line, s.procs, s.estimate, s.runtime, s.category
    );
    let width = s
        .events
        .iter()
        .map(|e| e.time.to_string().len())
        .max()
        .unwrap_or(1);
    for e in &s.events {
        let what = if e.what.is_empty() {
            String::new()
        } else {
            format!("{}: ", e.what)
        };
        let _ = writeln!(
            out,
            "  t={:>width$}  {:<9}  {what}{}",
            e.time, e.event, e.detail
        );
    }
    out
}

/// The total wait of a set of jobs split by reason: every second of every
/// job's wait counted once, under the reason in force then.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub(crate) struct WaitSplit {
    /// `all` or a category label.
    pub(crate) set: String,
    /// The total wait (s).
    pub(crate) total: u64,
    /// The reasons jobs of the set waited for, by decreasing seconds, then
    /// name.
    pub(crate) by_reason: Vec<ReasonWait>,
}

/// The wait of a set of jobs under one reason.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct ReasonWait {
    /// The reason's name.
    pub(crate) reason: String,
    /// Seconds of wait.
    pub(crate) seconds: u64,
}

impl WaitSplit {
    /// The seconds under reason `code` (0 when none).
    pub(crate) fn seconds(&self, code: &str) -> u64 {
        self.by_reason
            .iter()
            .find(|r| r.reason == code)
            .map_or(0, |r| r.seconds)
    }
}

/// The wait of the jobs of `records` split by reason, overall and per
/// category, from the tallies of `log` (made with `tally` set).
pub(crate) fn wait_split<R: Described, K: Described>(
    log: &ReasonLog<R, K>,
    records: &[JobRecord],
    bounds: CategoryBounds,
) -> Vec<WaitSplit> {
    use std::collections::BTreeMap;
    let mut sums: Vec<BTreeMap<&'static str, u64>> = vec![BTreeMap::new(); 5];
    let mut totals = [0u64; 5];
    for r in records {
        let category = bounds.classify(r.runtime, r.job.procs);
        for set in [0, 1 + category.index()] {
            if let Some(t) = totals.get_mut(set) {
                *t += u64::from(r.wait());
            }
            let Some(m) = sums.get_mut(set) else {
                continue;
            };
            for &(code, seconds) in log.waits_of(r.job.id) {
                *m.entry(code).or_insert(0) += u64::from(seconds);
            }
        }
    }
    let labels = std::iter::once("all").chain(Category::ALL.iter().map(|c| c.label()));
    labels
        .zip(sums)
        .zip(totals)
        .map(|((set, sums), total)| {
            let mut by_reason: Vec<ReasonWait> = sums
                .into_iter()
                .map(|(reason, seconds)| ReasonWait {
                    reason: reason.to_owned(),
                    seconds,
                })
                .collect();
            by_reason.sort_by(|a, b| {
                b.seconds
                    .cmp(&a.seconds)
                    .then_with(|| a.reason.cmp(&b.reason))
            });
            WaitSplit {
                set: set.to_owned(),
                total,
                by_reason,
            }
        })
        .collect()
}

/// `--wait-by-reason` as a table: one line per set and reason, with its
/// share of the set's total wait.
pub(crate) fn wait_split_table(splits: &[WaitSplit]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<5} {:<24} {:>16} {:>7}",
        "set", "waiting for", "wait s", "share"
    );
    for s in splits {
        for r in &s.by_reason {
            let _ = writeln!(
                out,
                "{:<5} {:<24} {:>16} {:>6.1}%",
                s.set,
                r.reason,
                r.seconds,
                share_pct(r.seconds, s.total)
            );
        }
        let _ = writeln!(out, "{:<5} {:<24} {:>16}", s.set, "total", s.total);
    }
    out
}

/// One waiting job of `--queue-at`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct QueueRow {
    /// 1 for the job the policy considers first.
    pub(crate) position: usize,
    /// The trace's job number.
    pub(crate) job: u64,
    /// Processors.
    pub(crate) procs: u32,
    /// The estimate the scheduler sees (s).
    pub(crate) estimate: u32,
    /// Waited so far (s).
    pub(crate) waited: u32,
    /// The start the policy expects for it, when it has one.
    pub(crate) expected_start: Option<Time>,
    /// Where the expected start comes from, or why there is none.
    pub(crate) expected: String,
    /// Its last reason's name (`unreported` when no pass gave one).
    pub(crate) reason: &'static str,
    /// Its last reason's detail.
    pub(crate) detail: String,
}

/// `--queue-at T`: the wait queue once every event at or before T is
/// done.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct QueueAt {
    /// The instant asked for.
    pub(crate) time: Time,
    /// The last instant at or before `time` with an event (none before
    /// the first).
    pub(crate) last_event: Option<Time>,
    /// Jobs running then.
    pub(crate) running: usize,
    /// Processors they hold.
    pub(crate) busy_procs: u64,
    /// The machine's processors.
    pub(crate) machine_procs: u32,
    /// The waiting jobs, in the policy's order.
    pub(crate) jobs: Vec<QueueRow>,
}

/// `--queue-at` as text.
pub(crate) fn queue_text(q: &QueueAt) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "queue at t={} ({}): {} waiting; {} running on {} of {} processors",
        q.time,
        q.last_event.map_or_else(
            || "before the first event".to_owned(),
            |t| format!("last event at t={t}")
        ),
        q.jobs.len(),
        q.running,
        q.busy_procs,
        q.machine_procs
    );
    if q.jobs.is_empty() {
        return out;
    }
    let job_width = q
        .jobs
        .iter()
        .map(|r| r.job.to_string().len())
        .max()
        .unwrap_or(3)
        .max(3);
    let _ = writeln!(
        out,
        "{:>4} {:>job_width$} {:>6} {:>11} {:>9} {:>14}  reason",
        "pos", "job", "procs", "estimate s", "waited s", "expected start"
    );
    for r in &q.jobs {
        let start = r
            .expected_start
            .map_or_else(|| "none".to_owned(), |t| t.to_string());
        let _ = writeln!(
            out,
            "{:>4} {:>job_width$} {:>6} {:>11} {:>9} {:>14}  {}: {}",
            r.position, r.job, r.procs, r.estimate, r.waited, start, r.reason, r.detail
        );
    }
    // Why a job has no expected start is the same for all of them.
    if let Some(r) = q.jobs.iter().find(|r| r.expected_start.is_none()) {
        let _ = writeln!(out, "expected start none: {}", r.expected);
    }
    out
}

/// The CSV columns `--wait-by-reason` adds to `replay --format csv`: the
/// total wait, then the wait under each reason (every reason, so that the
/// rows of several policies line up).
pub(crate) fn csv_header() -> Vec<String> {
    std::iter::once("wait_total_s".to_owned())
        .chain(
            crate::replay::reasons::REASON_CODES
                .iter()
                .map(|c| format!("wait_{}_s", c.replace('-', "_"))),
        )
        .collect()
}

/// The fields of [`csv_header`] for `split` (empty for a row without one).
pub(crate) fn csv_fields(split: Option<&WaitSplit>) -> Vec<String> {
    match split {
        Some(s) => std::iter::once(s.total.to_string())
            .chain(
                crate::replay::reasons::REASON_CODES
                    .iter()
                    .map(|c| s.seconds(c).to_string()),
            )
            .collect(),
        None => vec![String::new(); csv_header().len()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::reasons::{Keep, Start, UNREPORTED};
    use backfill_core::{Job, Slot};

    /// A reason or start kind named by its letter.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Letter(&'static str);

    impl Described for Letter {
        fn code(&self) -> &'static str {
            self.0
        }
        fn detail(&self, _: &dyn Fn(JobId) -> u64) -> String {
            String::new()
        }
    }

    fn record(id: JobId, submit: Time, start: Time, procs: u32, run: u32) -> JobRecord {
        JobRecord {
            job: Job::new(id, submit, procs, run),
            runtime: run,
            slot: Slot {
                machine: 0,
                start,
                duration: run,
            },
            end: start + run,
            killed: false,
            guarantee: None,
        }
    }

    #[test]
    fn a_reason_said_again_is_no_change() {
        let mut log: ReasonLog<Letter, Letter> = ReasonLog::new(2, Keep::All, false);
        log.waiting(0, 5, 10, Letter("a"));
        log.waiting(0, 5, 20, Letter("a"));
        log.waiting(0, 5, 30, Letter("b"));
        log.waiting(1, 30, 30, Letter("b"));
        log.started(0, 5, 40, Letter("x"));
        // A job unknown to the window is not followed.
        log.waiting(7, 30, 30, Letter("b"));
        let times: Vec<(JobId, Time)> = log.changes.iter().map(|c| (c.job, c.time)).collect();
        assert_eq!(times, [(0, 10), (0, 30), (1, 30)]);
        assert_eq!(
            log.start_of(0),
            Some(Start {
                time: 40,
                kind: Letter("x")
            })
        );
        assert_eq!(log.start_of(1), None);
        // One job's log keeps its changes only; no tally was asked for.
        let mut one: ReasonLog<Letter, Letter> = ReasonLog::new(2, Keep::Job(1), false);
        one.waiting(0, 5, 10, Letter("a"));
        one.waiting(1, 5, 10, Letter("a"));
        assert_eq!(one.changes.len(), 1);
        assert!(one.waits_of(1).is_empty());
    }

    #[test]
    fn every_second_of_wait_goes_to_the_reason_in_force() {
        let mut log: ReasonLog<Letter, Letter> = ReasonLog::new(3, Keep::Nothing, true);
        // Job 0 (SN) waits 10..100: unreported 10..15, a 15..40, b 40..100.
        log.waiting(0, 10, 15, Letter("a"));
        log.waiting(0, 10, 40, Letter("b"));
        log.waiting(0, 10, 70, Letter("b"));
        log.started(0, 10, 100, Letter("x"));
        // Job 1 (LW) waits 0..50, all under a.
        log.waiting(1, 0, 0, Letter("a"));
        log.started(1, 0, 50, Letter("x"));
        // Job 2 never waits.
        log.started(2, 5, 5, Letter("x"));
        assert!(log.changes.is_empty());
        let bounds = CategoryBounds::DEFAULT;
        let records = [
            record(0, 10, 100, 1, 60),
            record(1, 0, 50, 64, 7200),
            record(2, 5, 5, 1, 10),
        ];
        let split = wait_split(&log, &records, bounds);
        let of = |set: usize| {
            let s = &split[set];
            let parts: Vec<(&str, u64)> = s
                .by_reason
                .iter()
                .map(|r| (r.reason.as_str(), r.seconds))
                .collect();
            (s.set.clone(), s.total, parts)
        };
        assert_eq!(
            of(0),
            (
                "all".into(),
                140,
                vec![("a", 75), ("b", 60), (UNREPORTED, 5)]
            )
        );
        assert_eq!(
            of(1),
            ("SN".into(), 90, vec![("b", 60), ("a", 25), (UNREPORTED, 5)])
        );
        assert_eq!(of(4), ("LW".into(), 50, vec![("a", 50)]));
        assert_eq!(of(2), ("SW".into(), 0, vec![]));
        let table = wait_split_table(&split);
        assert!(table.contains("all   a"), "{table}");
        assert_eq!(csv_fields(Some(&split[0]))[0], "140");
        assert_eq!(csv_fields(None).len(), csv_header().len());
    }
}
