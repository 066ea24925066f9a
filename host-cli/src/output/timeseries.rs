//! The state of a replay over time (`replay --timeseries FILE.csv --every
//! S`), sampled at fixed simulated instants from the per-job records after
//! the replay (the replay itself does no extra work per event).
//!
//! Samples are taken at `t = first submit + k * S` for `k = 0, 1, ...`
//! up to the first instant at or after the last end. At `t`, a job is
//! running when `start <= t < end` and waiting when `submit <= t < start`.
//! Columns: `time` (s), `procs_busy` (processors of the running jobs),
//! `jobs_running`, `jobs_waiting`, `proc_seconds_waiting` (processors
//! times estimate, summed over the waiting jobs: the work queued as the
//! scheduler sees it) and `utilisation_so_far` (processor-seconds used
//! from the first submit to `t` over `processors * (t - first submit)`;
//! empty at the first sample).

use backfill_core::JobRecord;
use serde::Serialize;
use std::io::Write;

/// One sample.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub(crate) struct Sample {
    /// Simulated time (s).
    pub(crate) time: u64,
    /// Processors of the running jobs.
    pub(crate) procs_busy: u64,
    /// Jobs running.
    pub(crate) jobs_running: u64,
    /// Jobs submitted and not started.
    pub(crate) jobs_waiting: u64,
    /// Processors times estimate of the waiting jobs.
    pub(crate) proc_seconds_waiting: u64,
    /// Used over available processor-seconds since the first submit.
    pub(crate) utilisation_so_far: Option<f64>,
}

/// A change of the state at one instant.
#[derive(Clone, Copy, Debug)]
struct Change {
    time: u64,
    busy: i64,
    running: i64,
    waiting: i64,
    queued_work: i64,
}

/// The samples of `records` every `every` seconds on a machine of
/// `processors`.
#[must_use]
pub(crate) fn samples(records: &[JobRecord], processors: u32, every: u64) -> Vec<Sample> {
    let every = every.max(1);
    let mut changes = Vec::with_capacity(records.len() * 3);
    for r in records {
        let procs = i64::from(r.job.procs);
        let work = procs * i64::from(r.job.estimate);
        let (submit, start, end) = (
            u64::from(r.job.submit),
            u64::from(r.start()),
            u64::from(r.end),
        );
        changes.push(Change {
            time: submit,
            busy: 0,
            running: 0,
            waiting: 1,
            queued_work: work,
        });
        changes.push(Change {
            time: start,
            busy: procs,
            running: 1,
            waiting: -1,
            queued_work: -work,
        });
        changes.push(Change {
            time: end,
            busy: -procs,
            running: -1,
            waiting: 0,
            queued_work: 0,
        });
    }
    changes.sort_by_key(|c| c.time);
    let (Some(first), Some(last)) = (
        records.iter().map(|r| u64::from(r.job.submit)).min(),
        records.iter().map(|r| u64::from(r.end)).max(),
    ) else {
        return Vec::new();
    };
    let (mut busy, mut running, mut waiting, mut queued) = (0_i64, 0_i64, 0_i64, 0_i64);
    let mut used: u128 = 0;
    let mut clock = first;
    let mut next = changes.iter().peekable();
    let mut out = Vec::new();
    let mut t = first;
    loop {
        // Apply every change at or before t, integrating the busy
        // processors between changes.
        while let Some(c) = next.next_if(|c| c.time <= t) {
            used += u128::from(busy.unsigned_abs()) * u128::from(c.time - clock);
            clock = c.time;
            busy += c.busy;
            running += c.running;
            waiting += c.waiting;
            queued += c.queued_work;
        }
        let used_to_t = used + u128::from(busy.unsigned_abs()) * u128::from(t - clock);
        let capacity = u128::from(t - first) * u128::from(processors);
        #[allow(clippy::cast_precision_loss)]
        let utilisation = (capacity > 0).then(|| used_to_t as f64 / capacity as f64);
        out.push(Sample {
            time: t,
            procs_busy: busy.unsigned_abs(),
            jobs_running: running.unsigned_abs(),
            jobs_waiting: waiting.unsigned_abs(),
            proc_seconds_waiting: queued.unsigned_abs(),
            utilisation_so_far: utilisation,
        });
        if t >= last {
            return out;
        }
        t = t.saturating_add(every);
    }
}

/// Writes `samples` as CSV.
///
/// # Errors
/// I/O errors.
pub(crate) fn write_csv<W: Write>(out: W, samples: &[Sample]) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    for s in samples {
        writer.serialize(s).map_err(crate::output::report::csv_io)?;
    }
    writer.flush()
}
