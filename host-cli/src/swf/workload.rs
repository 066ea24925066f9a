//! From records to the jobs the scheduler runs: window, classify, sort.

use core::fmt;

use super::error::{SwfError, SwfErrorKind};
use super::reader::LoadedTrace;
use super::record::SwfRecord;

/// A job the scheduler can run, converted from one data line by the rules of
/// `docs/design.md`, "Replaying SWF traces" (see [`select`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct TraceJob {
    /// 1-based line number of the job's data line in the file.
    pub line: u64,
    /// Job number (field 1); an unknown number (`-1`) becomes 0.
    pub number: u64,
    /// Submit time (field 2), seconds from the start of the log.
    pub submit: u32,
    /// Actual run time (field 4), seconds; may be 0.
    pub runtime: u32,
    /// Processors: requested (field 8) if positive, else allocated (field
    /// 5); always at least 1 and at most the machine size.
    pub procs: u32,
    /// Run-time estimate: requested time (field 9) if positive, else the
    /// run time; then at least 1.
    pub estimate: u32,
    /// Requested time (field 9) as written, `None` if unknown (`-1`).
    pub(crate) requested_time: Option<u32>,
    /// Status (field 11) as written: 1 completed, 0 failed, 5 cancelled,
    /// `-1` unknown (never 2, 3 or 4 here).
    pub status: i64,
    /// User ID (field 12), `None` if unknown.
    pub user: Option<u32>,
}

/// Why a line in the window did not become a [`TraceJob`].
///
/// The order of the variants is the order of the checks: a line is counted
/// under the first reason that applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum SkipReason {
    /// Status 2, 3 or 4: a piece of a checkpointed or swapped job, not a
    /// job. These lines do not count as window slots.
    PartialExecution,
    /// Submit time (field 2) is `-1`.
    NoSubmitTime,
    /// Run time (field 4) is `-1` (typically cancelled before starting).
    NoRunTime,
    /// Neither requested (field 8) nor allocated (field 5) processors are
    /// positive.
    NoProcessors,
    /// More processors than the machine has.
    WiderThanMachine,
}

impl SkipReason {
    /// Every reason, in check order.
    pub(crate) const ALL: [SkipReason; 5] = [
        Self::PartialExecution,
        Self::NoSubmitTime,
        Self::NoRunTime,
        Self::NoProcessors,
        Self::WiderThanMachine,
    ];

    /// A short human-readable description for reports.
    #[must_use]
    pub(crate) const fn label(self) -> &'static str {
        match self {
            Self::PartialExecution => "partial-execution line (status 2/3/4)",
            Self::NoSubmitTime => "no submit time (field 2 is -1)",
            Self::NoRunTime => "no run time (field 4 is -1)",
            Self::NoProcessors => "no processor count (fields 8 and 5 not positive)",
            Self::WiderThanMachine => "wider than the machine",
        }
    }

    /// Whether lines skipped for this reason are job lines (which use window
    /// slots): every reason but [`PartialExecution`](Self::PartialExecution).
    #[must_use]
    pub(crate) const fn is_job(self) -> bool {
        !matches!(self, Self::PartialExecution)
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// How many lines of the window were skipped, per [`SkipReason`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SkipCounts {
    /// Lines counted as [`SkipReason::PartialExecution`].
    pub(crate) partial_execution: u64,
    /// Lines counted as [`SkipReason::NoSubmitTime`].
    pub(crate) no_submit_time: u64,
    /// Lines counted as [`SkipReason::NoRunTime`].
    pub(crate) no_run_time: u64,
    /// Lines counted as [`SkipReason::NoProcessors`].
    pub(crate) no_processors: u64,
    /// Lines counted as [`SkipReason::WiderThanMachine`].
    pub(crate) wider_than_machine: u64,
}

impl SkipCounts {
    fn slot(&mut self, reason: SkipReason) -> &mut u64 {
        match reason {
            SkipReason::PartialExecution => &mut self.partial_execution,
            SkipReason::NoSubmitTime => &mut self.no_submit_time,
            SkipReason::NoRunTime => &mut self.no_run_time,
            SkipReason::NoProcessors => &mut self.no_processors,
            SkipReason::WiderThanMachine => &mut self.wider_than_machine,
        }
    }

    /// Counts one line under `reason`.
    pub(crate) fn add(&mut self, reason: SkipReason) {
        *self.slot(reason) += 1;
    }

    /// The count for `reason`.
    #[must_use]
    pub const fn get(&self, reason: SkipReason) -> u64 {
        match reason {
            SkipReason::PartialExecution => self.partial_execution,
            SkipReason::NoSubmitTime => self.no_submit_time,
            SkipReason::NoRunTime => self.no_run_time,
            SkipReason::NoProcessors => self.no_processors,
            SkipReason::WiderThanMachine => self.wider_than_machine,
        }
    }

    /// All skipped lines, partial-execution lines included.
    #[must_use]
    pub fn total(&self) -> u64 {
        SkipReason::ALL.iter().map(|&r| self.get(r)).sum()
    }

    /// Skipped job lines: [`total`](Self::total) without the
    /// partial-execution lines.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn jobs(&self) -> u64 {
        SkipReason::ALL
            .iter()
            .filter(|r| r.is_job())
            .map(|&r| self.get(r))
            .sum()
    }

    /// `(reason, count)` for every reason, in check order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (SkipReason, u64)> + '_ {
        SkipReason::ALL.iter().map(move |&r| (r, self.get(r)))
    }
}

/// The jobs of a window of a trace, ready to replay; made by [`select`].
///
/// The counting identity, which always holds:
///
/// ```text
/// jobs_in_window == jobs.len() + skipped.jobs()
///                == jobs.len() + skipped.total() - skipped.get(PartialExecution)
/// ```
///
/// that is, every job line read in the window either became a job or was
/// counted under exactly one reason; partial-execution lines inside the
/// window are counted as well, but are not job lines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Workload {
    /// The jobs, sorted stably by `(submit, number)`.
    pub(crate) jobs: Vec<TraceJob>,
    /// Lines of the window that did not become jobs, by reason.
    pub(crate) skipped: SkipCounts,
    /// Job lines (data lines with a status other than 2, 3, 4) in the window.
    pub(crate) jobs_in_window: u64,
    /// Jobs whose submit time is earlier than that of the job before them in
    /// file order (among [`jobs`](Self::jobs)); 0 means the file was already
    /// in submit order and sorting changed nothing but ties.
    pub(crate) out_of_order: u64,
}

impl Workload {
    /// Whether the counting identity holds (see [`Workload`]); always true
    /// for a workload made by [`select`].
    #[cfg(test)]
    #[must_use]
    pub(crate) fn is_consistent(&self) -> bool {
        self.jobs_in_window == self.jobs.len() as u64 + self.skipped.jobs()
    }
}

/// Selects a window of jobs from `trace` and converts them for the scheduler.
///
/// **Window.** Data lines are taken in file order. Partial-execution lines
/// (status 2, 3, 4) are not jobs and use no window slot; every other data
/// line is a *job line*. The first `skip` job lines are passed over; the next
/// `first` job lines (all remaining ones if `None`) form the window. The
/// window ends right after its last job line, so partial-execution lines are
/// counted (as [`SkipReason::PartialExecution`]) only between the `skip`-th
/// job line and the window's last job line.
///
/// **Conversion.** Every job line in the window is checked, in this order:
/// submit time (field 2) `-1` → [`NoSubmitTime`](SkipReason::NoSubmitTime);
/// run time (field 4) `-1` → [`NoRunTime`](SkipReason::NoRunTime);
/// processors = field 8 if positive, else field 5 if positive, else
/// [`NoProcessors`](SkipReason::NoProcessors); more than `machine_procs` →
/// [`WiderThanMachine`](SkipReason::WiderThanMachine). A line that passes
/// becomes a [`TraceJob`] with `estimate` = field 9 if positive, else the run
/// time, and at least 1.
///
/// **Order.** The jobs are sorted stably by `(submit, number)`, and
/// [`Workload::out_of_order`] counts the jobs whose submit time is earlier
/// than the previous job's in file order. Duplicate job numbers are kept.
///
/// # Errors
///
/// [`SwfErrorKind::ValueOutOfRange`], naming the line and field, if a job line
/// in the window has a known submit time, run time, allocated or requested
/// processors, requested time or user ID above `u32::MAX` (or a value below
/// `-1`, which only a hand-built record can hold). This is checked before
/// classification, for every job line in the window.
pub(crate) fn select(
    trace: &LoadedTrace,
    skip: u64,
    first: Option<u64>,
    machine_procs: u32,
) -> Result<Workload, SwfError> {
    let mut selector = Selector::new(skip, first, machine_procs);
    let mut jobs = Vec::new();
    for (line, record) in &trace.records {
        if selector.window_ended() {
            break;
        }
        if let Some(job) = selector.push(&trace.name, *line, record)? {
            jobs.push(job);
        }
    }
    jobs.sort_by_key(|j| (j.submit, j.number));
    Ok(Workload {
        jobs,
        skipped: selector.skipped,
        jobs_in_window: selector.jobs_in_window,
        out_of_order: selector.out_of_order,
    })
}

/// [`select`], one data line at a time in file order, without the final
/// sort: what a replay that runs while the trace is read applies to each
/// line as it arrives.
#[derive(Clone, Debug)]
pub(crate) struct Selector {
    skip: u64,
    first: Option<u64>,
    machine_procs: u32,
    skipped: SkipCounts,
    passed_over: u64,
    jobs_in_window: u64,
    out_of_order: u64,
    previous_submit: Option<u32>,
}

impl Selector {
    /// Selects the window `skip`, `first` for a machine of `machine_procs`
    /// processors (as [`select`]).
    #[must_use]
    pub(crate) fn new(skip: u64, first: Option<u64>, machine_procs: u32) -> Self {
        Self {
            skip,
            first,
            machine_procs,
            skipped: SkipCounts::default(),
            passed_over: 0,
            jobs_in_window: 0,
            out_of_order: 0,
            previous_submit: None,
        }
    }

    /// Whether the window is complete: no later line belongs to it.
    #[must_use]
    pub(crate) fn window_ended(&self) -> bool {
        self.first.is_some_and(|n| self.jobs_in_window >= n)
    }

    /// Data line `line` of the trace `name` (the next one in file order, the
    /// window not yet ended): the job it becomes, or `None` when it is
    /// before the window or counted under a skip reason.
    ///
    /// # Errors
    /// As [`select`].
    pub(crate) fn push(
        &mut self,
        name: &str,
        line: u64,
        record: &SwfRecord,
    ) -> Result<Option<TraceJob>, SwfError> {
        if record.is_partial_execution() {
            if self.passed_over == self.skip {
                self.skipped.add(SkipReason::PartialExecution);
            }
            return Ok(None);
        }
        if self.passed_over < self.skip {
            self.passed_over += 1;
            return Ok(None);
        }
        self.jobs_in_window += 1;
        match convert(name, line, record, self.machine_procs)? {
            Ok(job) => {
                if self.previous_submit.is_some_and(|p| job.submit < p) {
                    self.out_of_order += 1;
                }
                self.previous_submit = Some(job.submit);
                Ok(Some(job))
            }
            Err(reason) => {
                self.skipped.add(reason);
                Ok(None)
            }
        }
    }
}

/// A known value of `field` as `u32`, `None` for `-1`.
fn known_u32(name: &str, line: u64, field: usize, value: i64) -> Result<Option<u32>, SwfError> {
    if value == -1 {
        return Ok(None);
    }
    u32::try_from(value).map(Some).map_err(|_| SwfError {
        file: name.to_owned(),
        line: Some(line),
        field: Some(field),
        kind: SwfErrorKind::ValueOutOfRange { value },
    })
}

/// Converts one job line; the outer `Err` is a hard error, the inner one a
/// skip.
fn convert(
    name: &str,
    line: u64,
    r: &SwfRecord,
    machine_procs: u32,
) -> Result<Result<TraceJob, SkipReason>, SwfError> {
    let u32_field = |field: usize, value: i64| known_u32(name, line, field, value);
    let number = match r.job_number {
        -1 => 0,
        n => u64::try_from(n).map_err(|_| SwfError {
            file: name.to_owned(),
            line: Some(line),
            field: Some(1),
            kind: SwfErrorKind::ValueOutOfRange { value: n },
        })?,
    };
    let submit = u32_field(2, r.submit)?;
    let runtime = u32_field(4, r.run)?;
    let allocated = u32_field(5, r.allocated_procs)?;
    let requested_procs = u32_field(8, r.requested_procs)?;
    let requested_time = u32_field(9, r.requested_time)?;
    let user = u32_field(12, r.user)?;

    let Some(submit) = submit else {
        return Ok(Err(SkipReason::NoSubmitTime));
    };
    let Some(runtime) = runtime else {
        return Ok(Err(SkipReason::NoRunTime));
    };
    let Some(procs) = requested_procs
        .filter(|&p| p > 0)
        .or(allocated.filter(|&p| p > 0))
    else {
        return Ok(Err(SkipReason::NoProcessors));
    };
    if procs > machine_procs {
        return Ok(Err(SkipReason::WiderThanMachine));
    }
    let estimate = requested_time.filter(|&t| t > 0).unwrap_or(runtime).max(1);
    Ok(Ok(TraceJob {
        line,
        number,
        submit,
        runtime,
        procs,
        estimate,
        requested_time,
        status: r.status,
        user,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::load_reader;
    use crate::swf::record::FIELD_COUNT;

    /// A job line: number, submit, run, allocated, requested procs,
    /// requested time, status; everything else -1.
    fn rec(
        number: i64,
        submit: i64,
        run: i64,
        alloc: i64,
        req: i64,
        req_time: i64,
        status: i64,
    ) -> SwfRecord {
        let mut f = [-1_i64; FIELD_COUNT];
        f[0] = number;
        f[1] = submit;
        f[3] = run;
        f[4] = alloc;
        f[7] = req;
        f[8] = req_time;
        f[10] = status;
        SwfRecord::from_fields(f)
    }

    fn trace(records: Vec<SwfRecord>) -> LoadedTrace {
        LoadedTrace {
            name: "t.swf".into(),
            header: Default::default(),
            records: records.into_iter().zip(1..).map(|(r, l)| (l, r)).collect(),
            comment_lines: 0,
            blank_lines: 0,
        }
    }

    fn numbers(w: &Workload) -> Vec<u64> {
        w.jobs.iter().map(|j| j.number).collect()
    }

    #[test]
    fn converts_fields() {
        let t = trace(vec![
            rec(1, 10, 100, 4, 8, 200, 1), // requested procs and time
            rec(2, 20, 50, 4, -1, -1, 0),  // allocated, estimate = run
            rec(3, 30, 0, 2, 0, 0, 5),     // run 0 -> estimate 1; req procs 0 -> allocated
            rec(-1, 40, 70, 1, 1, 60, -1), // unknown number -> 0
        ]);
        let w = select(&t, 0, None, 64).unwrap();
        assert_eq!(
            w.jobs[0],
            TraceJob {
                line: 1,
                number: 1,
                submit: 10,
                runtime: 100,
                procs: 8,
                estimate: 200,
                requested_time: Some(200),
                status: 1,
                user: None
            }
        );
        assert_eq!(
            (
                w.jobs[1].procs,
                w.jobs[1].estimate,
                w.jobs[1].requested_time
            ),
            (4, 50, None)
        );
        assert_eq!(
            (w.jobs[2].procs, w.jobs[2].estimate, w.jobs[2].runtime),
            (2, 1, 0)
        );
        assert_eq!(w.jobs[2].requested_time, Some(0));
        assert_eq!(
            (w.jobs[3].number, w.jobs[3].estimate, w.jobs[3].status),
            (0, 60, -1)
        );
        assert_eq!(w.jobs_in_window, 4);
        assert_eq!(w.skipped.total(), 0);
        assert_eq!(w.out_of_order, 0);
        assert!(w.is_consistent());
    }

    #[test]
    fn skip_reasons_in_check_order() {
        let t = trace(vec![
            rec(1, -1, -1, -1, -1, -1, 1), // no submit (first check)
            rec(2, 5, -1, -1, -1, -1, 5),  // no run time
            rec(3, 5, 10, -1, -1, -1, 1),  // no processors
            rec(4, 5, 10, 0, 0, -1, 1),    // no processors (zeros)
            rec(5, 5, 10, 4, 65, -1, 1),   // wider (requested beats allocated)
            rec(6, 5, 10, 65, -1, -1, 1),  // wider (allocated)
            rec(7, 5, 10, 64, -1, -1, 1),  // fits exactly
            rec(8, 5, 10, 1, 1, -1, 3),    // partial
        ]);
        let w = select(&t, 0, None, 64).unwrap();
        assert_eq!(numbers(&w), vec![7]);
        let s = w.skipped;
        assert_eq!(s.get(SkipReason::NoSubmitTime), 1);
        assert_eq!(s.get(SkipReason::NoRunTime), 1);
        assert_eq!(s.get(SkipReason::NoProcessors), 2);
        assert_eq!(s.get(SkipReason::WiderThanMachine), 2);
        assert_eq!(s.get(SkipReason::PartialExecution), 1);
        assert_eq!(s.total(), 7);
        assert_eq!(s.jobs(), 6);
        assert_eq!(w.jobs_in_window, 7);
        assert_eq!(
            w.jobs_in_window,
            w.jobs.len() as u64 + s.total() - s.get(SkipReason::PartialExecution)
        );
        assert!(w.is_consistent());
        assert_eq!(s.iter().map(|(_, n)| n).sum::<u64>(), s.total());
    }

    #[test]
    fn partial_execution_lines_use_no_window_slot() {
        let t = trace(vec![
            rec(1, 1, 10, 1, 1, -1, 1),
            rec(2, 2, 10, 1, 1, -1, 2), // partial, before skip done: not counted
            rec(3, 3, 10, 1, 1, -1, 1), // skipped (skip = 2)
            rec(4, 4, 10, 1, 1, -1, 3), // partial, inside window: counted
            rec(5, 5, 10, 1, 1, -1, 1), // window job 1
            rec(6, 6, 10, 1, 1, -1, 4), // partial, inside window: counted
            rec(7, 7, 10, 1, 1, -1, 0), // window job 2 (last)
            rec(8, 8, 10, 1, 1, -1, 2), // after the window: not counted
            rec(9, 9, 10, 1, 1, -1, 1),
        ]);
        let w = select(&t, 2, Some(2), 8).unwrap();
        assert_eq!(numbers(&w), vec![5, 7]);
        assert_eq!(w.skipped.get(SkipReason::PartialExecution), 2);
        assert_eq!(w.jobs_in_window, 2);
        assert!(w.is_consistent());
        // No window limit: the trailing partial line is counted too.
        let w = select(&t, 2, None, 8).unwrap();
        assert_eq!(numbers(&w), vec![5, 7, 9]);
        assert_eq!(w.skipped.get(SkipReason::PartialExecution), 3);
        // No skip: the partial line at the start is counted.
        let w = select(&t, 0, None, 8).unwrap();
        assert_eq!(w.skipped.get(SkipReason::PartialExecution), 4);
        assert_eq!(w.jobs_in_window, 5);
        assert!(w.is_consistent());
    }

    #[test]
    fn window_counts_skipped_job_lines_as_slots() {
        let t = trace(vec![
            rec(1, 1, -1, 1, 1, -1, 5), // no run time: uses a slot
            rec(2, 2, 10, 1, 1, -1, 1),
            rec(3, 3, 10, 1, 1, -1, 1),
        ]);
        let w = select(&t, 0, Some(2), 8).unwrap();
        assert_eq!(numbers(&w), vec![2]);
        assert_eq!(w.skipped.get(SkipReason::NoRunTime), 1);
        assert_eq!(w.jobs_in_window, 2);
        let w = select(&t, 0, Some(0), 8).unwrap();
        assert!(w.jobs.is_empty() && w.jobs_in_window == 0 && w.skipped.total() == 0);
        let w = select(&t, 5, None, 8).unwrap();
        assert!(w.jobs.is_empty() && w.jobs_in_window == 0);
        let w = select(&t, 1, Some(100), 8).unwrap();
        assert_eq!(numbers(&w), vec![2, 3]);
        assert_eq!(w.jobs_in_window, 2);
    }

    #[test]
    fn unsorted_submits_are_counted_and_sorted() {
        let t = trace(vec![
            rec(1, 100, 10, 1, 1, -1, 1),
            rec(2, 50, 10, 1, 1, -1, 1), // out of order
            rec(3, 200, 10, 1, 1, -1, 1),
            rec(4, 150, 10, 1, 1, -1, 1), // out of order
            rec(5, 150, 10, 1, 1, -1, 1), // equal is not out of order
            rec(9, 10, 10, 1, 1, -1, 1),  // out of order
            rec(8, 10, 10, 1, 1, -1, 1),  // equal submit: not out of order, but sorted by number
        ]);
        let w = select(&t, 0, None, 8).unwrap();
        assert_eq!(w.out_of_order, 3);
        assert_eq!(numbers(&w), vec![8, 9, 2, 1, 4, 5, 3]);
        assert!(w
            .jobs
            .windows(2)
            .all(|p| (p[0].submit, p[0].number) <= (p[1].submit, p[1].number)));
    }

    #[test]
    fn duplicate_job_numbers_are_kept_in_file_order() {
        let t = trace(vec![
            rec(7, 5, 10, 1, 1, -1, 1),
            rec(7, 5, 20, 2, 2, -1, 1),
            rec(7, 1, 30, 3, 3, -1, 1),
        ]);
        let w = select(&t, 0, None, 8).unwrap();
        assert_eq!(w.jobs.len(), 3);
        let runtimes: Vec<u32> = w.jobs.iter().map(|j| j.runtime).collect();
        assert_eq!(runtimes, vec![30, 10, 20]); // stable for equal (submit, number)
        assert_eq!(
            w.jobs.iter().map(|j| j.line).collect::<Vec<_>>(),
            vec![3, 1, 2]
        );
    }

    #[test]
    fn values_beyond_u32_are_hard_errors() {
        let max = i64::from(u32::MAX);
        let ok = trace(vec![rec(1, max, max, max, max, max, 1)]);
        let w = select(&ok, 0, None, u32::MAX).unwrap();
        assert_eq!(w.jobs[0].submit, u32::MAX);
        assert_eq!(w.jobs[0].estimate, u32::MAX);

        type Setter = fn(&mut SwfRecord);
        let cases: [(usize, Setter); 6] = [
            (2, |r| r.submit = 1 << 32),
            (4, |r| r.run = 1 << 32),
            (5, |r| r.allocated_procs = 1 << 32),
            (8, |r| r.requested_procs = 1 << 32),
            (9, |r| r.requested_time = 1 << 32),
            (12, |r| r.user = 1 << 32),
        ];
        for (field, set) in cases {
            let mut r = rec(1, 5, 10, 1, 1, -1, 1);
            set(&mut r);
            let t = trace(vec![rec(1, 1, 1, 1, 1, 1, 1), r]);
            let e = select(&t, 0, None, 8).unwrap_err();
            assert_eq!((e.line, e.field), (Some(2), Some(field)));
            assert!(matches!(
                e.kind,
                SwfErrorKind::ValueOutOfRange {
                    value: 4_294_967_296
                }
            ));
            assert!(e.to_string().starts_with("t.swf:2: field "), "{e}");
            // Outside the window it is not looked at.
            assert!(select(&t, 0, Some(1), 8).is_ok());
            assert!(select(&t, 2, None, 8).is_ok());
        }
        // Checked even when the line would be skipped for a reason.
        let t = trace(vec![rec(1, 1 << 40, -1, 1, 1, 1, 1)]);
        assert_eq!(select(&t, 0, None, 8).unwrap_err().field, Some(2));
        // Negative values a hand-built record may hold.
        let t = trace(vec![rec(-5, 1, 1, 1, 1, 1, 1)]);
        assert_eq!(select(&t, 0, None, 8).unwrap_err().field, Some(1));
        let t = trace(vec![rec(1, -7, 1, 1, 1, 1, 1)]);
        assert_eq!(select(&t, 0, None, 8).unwrap_err().field, Some(2));
    }

    #[test]
    fn minus_one_in_each_field() {
        let base = rec(1, 5, 10, 2, 2, 20, 1);
        for field in 1..=FIELD_COUNT {
            let mut f = base.fields();
            f[field - 1] = -1;
            let line = SwfRecord::from_fields(f).to_string();
            let t = load_reader("m.swf", line.as_bytes()).unwrap();
            let w = select(&t, 0, None, 8).unwrap();
            assert!(w.is_consistent());
            match field {
                2 => assert_eq!(w.skipped.get(SkipReason::NoSubmitTime), 1),
                4 => assert_eq!(w.skipped.get(SkipReason::NoRunTime), 1),
                _ => {
                    let j = w.jobs[0];
                    match field {
                        1 => assert_eq!(j.number, 0),
                        5 | 8 => assert_eq!(j.procs, 2),
                        9 => assert_eq!((j.estimate, j.requested_time), (10, None)),
                        11 => assert_eq!(j.status, -1),
                        12 => assert_eq!(j.user, None),
                        _ => assert_eq!(j, select(&trace(vec![base]), 0, None, 8).unwrap().jobs[0]),
                    }
                }
            }
        }
    }

    #[test]
    fn end_to_end_through_load_reader() {
        let text = "; MaxProcs: 0\n\
                    ; Note: n\n\
                    1 100 0 50 4 1.50 -1 -1 60 -1 1 3 -1 -1 -1 -1 -1 -1\r\n\
                    \n\
                    2  90\t0 30 2 -1 -1 2 -1 -1 0 4 -1 -1 -1 -1 -1 -1\n\
                    3 95 0 -1 2 -1 -1 2 -1 -1 5 4 -1 -1 -1 -1 -1 -1\n\
                    4 99 0 10 2 -1 -1 2 -1 -1 3 4 -1 -1 -1 -1 -1 -1\n\
                    5 4294967296 0 10 2 -1 -1 2 -1 -1 1 4 -1 -1 -1 -1 -1 -1\n";
        let t = load_reader("e.swf", text.as_bytes()).unwrap();
        assert_eq!(t.header.max_procs, None);
        assert_eq!(t.records.len(), 5);
        assert_eq!(t.records[0].1.average_cpu, 2);
        let e = select(&t, 0, None, 8).unwrap_err();
        assert_eq!(
            e.to_string(),
            "e.swf:8: field 2 (submit time): value 4294967296 is out of range (0 to 4294967295)"
        );
        let w = select(&t, 0, Some(3), 8).unwrap();
        assert_eq!(numbers(&w), vec![2, 1]);
        assert_eq!(
            w.jobs.iter().map(|j| j.line).collect::<Vec<_>>(),
            vec![5, 3]
        );
        assert_eq!(w.out_of_order, 1);
        assert_eq!(w.skipped.get(SkipReason::NoRunTime), 1);
        assert_eq!(w.skipped.get(SkipReason::PartialExecution), 0); // after the window
        assert_eq!(w.jobs[1].user, Some(3));
        assert!(w.is_consistent());
    }

    #[test]
    fn machine_of_zero_processors_runs_nothing() {
        let t = trace(vec![rec(1, 5, 10, 1, 1, -1, 1)]);
        let w = select(&t, 0, None, 0).unwrap();
        assert_eq!(w.skipped.get(SkipReason::WiderThanMachine), 1);
        assert!(w.jobs.is_empty());
    }

    #[test]
    fn identity_holds_on_random_traces() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..300 {
            let n = next() % 60;
            let records: Vec<SwfRecord> = (0..n)
                .map(|i| {
                    let pick = |x: u64, v: i64| if x % 5 == 0 { -1 } else { v };
                    rec(
                        i as i64,
                        pick(next(), (next() % 100) as i64),
                        pick(next(), (next() % 100) as i64),
                        pick(next(), (next() % 20) as i64),
                        pick(next(), (next() % 20) as i64),
                        pick(next(), (next() % 100) as i64),
                        (next() % 7) as i64 - 1,
                    )
                })
                .collect();
            let t = trace(records);
            let skip = next() % 10;
            let first = if next() % 3 == 0 {
                None
            } else {
                Some(next() % 50)
            };
            let w = select(&t, skip, first, 16).unwrap();
            assert!(w.is_consistent());
            assert_eq!(
                w.jobs_in_window,
                w.jobs.len() as u64 + w.skipped.total()
                    - w.skipped.get(SkipReason::PartialExecution)
            );
            let job_lines = t
                .records
                .iter()
                .filter(|(_, r)| !r.is_partial_execution())
                .count() as u64;
            let expect = job_lines
                .saturating_sub(skip)
                .min(first.unwrap_or(u64::MAX));
            assert_eq!(w.jobs_in_window, expect);
            assert!(w
                .jobs
                .windows(2)
                .all(|p| (p[0].submit, p[0].number) <= (p[1].submit, p[1].number)));
            assert!(w
                .jobs
                .iter()
                .all(|j| j.procs >= 1 && j.procs <= 16 && j.estimate >= 1));
        }
    }

    #[test]
    fn labels_and_serialization() {
        assert_eq!(
            SkipReason::PartialExecution.label(),
            "partial-execution line (status 2/3/4)"
        );
        for r in SkipReason::ALL {
            assert!(!r.label().is_empty());
            assert_eq!(r.to_string(), r.label());
        }
        let mut sorted = SkipReason::ALL;
        sorted.sort();
        assert_eq!(sorted, SkipReason::ALL);
        let mut c = SkipCounts::default();
        for (i, r) in SkipReason::ALL.into_iter().enumerate() {
            for _ in 0..=i {
                c.add(r);
            }
        }
        assert_eq!(c.total(), 15);
        assert_eq!(c.jobs(), 14);
        let json = serde_json::to_value(c).unwrap();
        assert_eq!(json["wider_than_machine"], 5);
        assert_eq!(
            serde_json::to_value(SkipReason::NoRunTime).unwrap(),
            "NoRunTime"
        );
        let w = select(&trace(vec![rec(1, 5, 10, 1, 1, -1, 1)]), 0, None, 8).unwrap();
        let json = serde_json::to_value(&w).unwrap();
        assert_eq!(json["jobs"][0]["procs"], 1);
        assert_eq!(json["jobs_in_window"], 1);
    }
}
