//! What a replay that follows pending reasons keeps (`replay --explain`,
//! `--queue-at`, `--reasons-out`, `--wait-by-reason`): the kernel's
//! [`Reason`]s and [`StartKind`]s in a [`ReasonLog`] (what the outputs need
//! of them: [`Described`]), and the queue as it
//! stood at one instant; and the words the outputs give them.

use backfill_core::{ExpectedStart, JobId, Kernel, Reason, StartKind, Time, Waiting};

/// The name of the wait before a job's first reason.
pub(crate) const UNREPORTED: &str = "unreported";

/// What the outputs need of a kernel's pending reason or start kind.
pub(crate) trait Described: Copy + PartialEq {
    /// A short stable name (`resources`, `priority`, ...).
    fn code(&self) -> &'static str;
    /// The detail in words, naming jobs by `number` (their trace numbers).
    fn detail(&self, number: &dyn Fn(JobId) -> u64) -> String;
    /// The expected start it carries beside its detail (the EASY
    /// family's head's shadow time), if any.
    fn expected(&self) -> Option<Time> {
        None
    }
}

/// One change of a job's pending reason.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Change<R> {
    /// The job (kernel id).
    pub(crate) job: JobId,
    /// When the pass that reported it ran.
    pub(crate) time: Time,
    /// The new reason.
    pub(crate) reason: R,
}

/// A job's start as the kernel reported it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Start<K> {
    /// When.
    pub(crate) time: Time,
    /// How.
    pub(crate) kind: K,
}

/// Which changes a [`ReasonLog`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Every job's (`--reasons-out`).
    All,
    /// One job's (`--explain`).
    Job(JobId),
    /// None (the other options need only the last reasons).
    Nothing,
}

/// The changes of the jobs' reasons the replay reported (those [`Keep`]
/// says), every start and, when asked, each job's wait split by reason.
#[derive(Clone, Debug)]
pub(crate) struct ReasonLog<R, K> {
    /// The changes kept, by time, within a time in the order the passes
    /// reported them.
    pub(crate) changes: Vec<Change<R>>,
    /// Which changes are kept.
    keep: Keep,
    /// Each job's last reason and since when, by kernel id.
    last: Vec<Option<(R, Time)>>,
    /// Each job's start, by kernel id.
    starts: Vec<Option<Start<K>>>,
    /// Each job's wait so far by reason name, by kernel id, when tallied.
    waits: Option<Vec<Vec<(&'static str, u32)>>>,
}

impl<R: Described, K: Described> ReasonLog<R, K> {
    /// An empty log for `jobs` jobs (kernel ids `0..jobs`), keeping the
    /// changes `keep` says, and tallying each job's wait by reason when
    /// `tally` is set.
    pub(crate) fn new(jobs: usize, keep: Keep, tally: bool) -> Self {
        Self {
            changes: Vec::new(),
            keep,
            last: vec![None; jobs],
            starts: vec![None; jobs],
            waits: tally.then(|| vec![Vec::new(); jobs]),
        }
    }

    /// Adds `seconds` of `job`'s wait to `code`, when tallying.
    fn add(&mut self, job: JobId, code: &'static str, seconds: u32) {
        let Some(waits) = self.waits.as_mut().and_then(|w| w.get_mut(job as usize)) else {
            return;
        };
        if seconds == 0 {
            return;
        }
        match waits.iter_mut().find(|(c, _)| *c == code) {
            Some((_, s)) => *s = s.saturating_add(seconds),
            None => waits.push((code, seconds)),
        }
    }

    /// The time since `job`'s last reason (or, before the first, since its
    /// `submit`) up to `time`, added under that reason.
    fn close(&mut self, job: JobId, submit: Time, time: Time) {
        let (code, since) = match self.last.get(job as usize).copied().flatten() {
            Some((reason, since)) => (reason.code(), since),
            None => (UNREPORTED, submit),
        };
        self.add(job, code, time.saturating_sub(since));
    }

    /// The pass at `time` left `job` (submitted at `submit`) waiting for
    /// `reason`: a change when it is not the job's last reason.
    pub(crate) fn waiting(&mut self, job: JobId, submit: Time, time: Time, reason: R) {
        let Some(&last) = self.last.get(job as usize) else {
            return;
        };
        if last.is_some_and(|(r, _)| r == reason) {
            return;
        }
        self.close(job, submit, time);
        if let Some(last) = self.last.get_mut(job as usize) {
            *last = Some((reason, time));
        }
        if self.keep == Keep::All || self.keep == Keep::Job(job) {
            self.changes.push(Change { job, time, reason });
        }
    }

    /// `job` (submitted at `submit`) started at `time`, as `kind` says.
    pub(crate) fn started(&mut self, job: JobId, submit: Time, time: Time, kind: K) {
        self.close(job, submit, time);
        if let Some(start) = self.starts.get_mut(job as usize) {
            *start = Some(Start { time, kind });
        }
        if let Some(last) = self.last.get_mut(job as usize) {
            *last = None;
        }
    }

    /// `job`'s start, if it started.
    pub(crate) fn start_of(&self, job: JobId) -> Option<Start<K>> {
        self.starts.get(job as usize).copied().flatten()
    }

    /// `job`'s changes kept, in time order.
    pub(crate) fn changes_of(&self, job: JobId) -> impl Iterator<Item = &Change<R>> {
        self.changes.iter().filter(move |c| c.job == job)
    }

    /// `job`'s wait by reason name, when tallied.
    pub(crate) fn waits_of(&self, job: JobId) -> &[(&'static str, u32)] {
        self.waits
            .as_ref()
            .and_then(|w| w.get(job as usize))
            .map_or(&[], Vec::as_slice)
    }
}

/// A replay's pending reasons and, when asked, the queue at an instant.
#[derive(Clone, Debug)]
pub(crate) struct Followed {
    /// Every change of every job's reason, and every start.
    pub(crate) log: ReasonLog<Reason, StartKind>,
    /// The instant whose queue is kept.
    queue_at: Option<Time>,
    /// The queue the last pass at or before `queue_at` left.
    pub(crate) queue: Option<QueueSnapshot>,
    /// The jobs the pass at `pass_time` left waiting so far.
    pass: Vec<Waiting>,
    /// When the pass whose jobs `pass` holds ran.
    pass_time: Option<Time>,
}

/// What a replay that follows pending reasons keeps beyond each job's last
/// reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WantReasons {
    /// The changes of reason to keep.
    pub(crate) keep: Keep,
    /// Tally each job's wait by reason.
    pub(crate) tally: bool,
    /// Keep the queue as it stands at this instant.
    pub(crate) queue_at: Option<Time>,
}

/// The kernel's queue and machine once every event at an instant is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct QueueSnapshot {
    /// The instant.
    pub(crate) now: Time,
    /// The waiting jobs, in queue order, as the pass left them.
    pub(crate) waiting: Vec<Waiting>,
    /// Jobs running.
    pub(crate) running: usize,
    /// Processors they hold.
    pub(crate) busy_procs: u64,
}

impl Followed {
    /// Nothing followed yet, for a window of `jobs` jobs, keeping what
    /// `want` says.
    pub(crate) fn new(jobs: usize, want: WantReasons) -> Self {
        Self {
            log: ReasonLog::new(jobs, want.keep, want.tally),
            queue_at: want.queue_at,
            queue: None,
            pass: Vec::new(),
            pass_time: None,
        }
    }

    /// The pass at `now` left `waiting` waiting.
    pub(crate) fn waiting(&mut self, now: Time, waiting: &Waiting) {
        self.log
            .waiting(waiting.job.id, waiting.job.submit, now, waiting.reason);
        if self.queue_at.is_some_and(|at| now <= at) {
            if self.pass_time != Some(now) {
                self.pass.clear();
                self.pass_time = Some(now);
            }
            self.pass.push(*waiting);
        }
    }

    /// Every event at the kernel's current instant is done: keeps the queue
    /// when the instant is at or before `at`.
    pub(crate) fn passed<const Q: usize, const R: usize, const B: usize>(
        &mut self,
        kernel: &Kernel<Q, R, B>,
        at: Time,
    ) {
        let now = kernel.now();
        if now > at {
            return;
        }
        // A pass that left no job waiting reported none.
        if self.pass_time != Some(now) {
            self.pass.clear();
            self.pass_time = Some(now);
        }
        let running = kernel.running();
        let snapshot = self.queue.get_or_insert_with(|| QueueSnapshot {
            now,
            waiting: Vec::new(),
            running: 0,
            busy_procs: 0,
        });
        snapshot.now = now;
        snapshot.waiting.clone_from(&self.pass);
        snapshot.running = running.len();
        snapshot.busy_procs = running.iter().map(|r| u64::from(r.job.procs)).sum();
    }
}

/// Every reason's name, in the order of the report's columns, then the
/// name of the wait before a job's first reason.
pub(crate) const REASON_CODES: [&str; 11] = [
    "pending",
    "processors",
    "license",
    "machine",
    "behind",
    "would-delay",
    "reserved",
    "not-promoted",
    "search-budget",
    "never",
    UNREPORTED,
];

impl Described for Reason {
    fn code(&self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Processors { .. } => "processors",
            Self::NoLicense { .. } => "license",
            Self::NoMachine { .. } => "machine",
            Self::Behind { .. } => "behind",
            Self::WouldDelay { .. } => "would-delay",
            Self::Reserved { .. } => "reserved",
            Self::NotPromoted { .. } => "not-promoted",
            Self::SearchBudget { .. } => "search-budget",
            _ => "never",
        }
    }

    fn expected(&self) -> Option<Time> {
        match self {
            Self::Processors { expected }
            | Self::NoLicense { expected, .. }
            | Self::NoMachine { expected } => *expected,
            _ => None,
        }
    }

    fn detail(&self, number: &dyn Fn(JobId) -> u64) -> String {
        match self {
            Self::Pending => "fits now; the next pass starts it".to_owned(),
            Self::Processors { .. } => "not enough processors free now".to_owned(),
            Self::NoLicense { pool, .. } => format!("no copy of license pool {pool} free now"),
            Self::NoMachine { .. } => {
                "no machine it may use has enough processors free now".to_owned()
            }
            Self::Behind { ahead } => format!(
                "job {}, the queue head, does not fit now, and nothing passes it",
                number(*ahead)
            ),
            Self::WouldDelay { holder, start } => format!(
                "fits now but would delay job {}'s reservation at t={start}",
                number(*holder)
            ),
            Self::Reserved { slot } => format!(
                "its reservation is at t={} (until t={})",
                slot.start,
                slot.end()
            ),
            Self::NotPromoted { at } if *at == Time::MAX => {
                "not promoted to a reservation under the current threshold".to_owned()
            }
            Self::NotPromoted { at } => format!("promoted to a reservation at t={at}"),
            Self::SearchBudget { budget } => format!(
                "fits with the head's reservation, but the search ran out of its {budget} nodes"
            ),
            _ => "can never run".to_owned(),
        }
    }
}

impl Described for StartKind {
    fn code(&self) -> &'static str {
        match self {
            Self::InOrder => "in-order",
            Self::Backfilled => "backfilled",
            Self::AtReservation => "at-reservation",
            Self::Compressed => "compressed",
            _ => "random-search",
        }
    }

    fn detail(&self, _number: &dyn Fn(JobId) -> u64) -> String {
        match self {
            Self::InOrder => "first in the queue",
            Self::Backfilled => "ahead of jobs still waiting",
            Self::AtReservation => "at its reservation",
            Self::Compressed => "at its reservation, which compression moved earlier",
            _ => "at its reservation, which the random search moved earlier",
        }
        .to_owned()
    }
}

/// Where `expected` comes from, or why there is none, in words.
pub(crate) fn expected_words(expected: &ExpectedStart) -> &'static str {
    match expected {
        ExpectedStart::Reservation(_) => "its reservation",
        ExpectedStart::Shadow(_) => "the head's shadow time",
        _ => {
            "the policy plans no start for it (FCFS: for no job; the EASY family: for the \
             head only; Selective: for guaranteed jobs only)"
        }
    }
}
