//! What a replay that follows pending reasons keeps (`replay --explain`,
//! `--queue-at`, `--reasons-out`, `--wait-by-reason`): the kernel's
//! [`Reason`]s and [`StartKind`]s in a [`ReasonLog`], and the queue as it
//! stood at one instant; and the words the outputs give them.

use crate::output::reasons::{Described, Keep, ReasonLog};
use backfill_core::{ExpectedStart, JobId, Kernel, Reason, StartKind, Time, Waiting};

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
    crate::output::reasons::UNREPORTED,
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
