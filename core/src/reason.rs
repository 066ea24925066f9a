//! Why a queued job waits, how a job started, and when a waiting job is
//! expected to start (`docs/design.md`, "Pending reasons" and "Expected
//! starts").
//!
//! Nothing here is computed unless someone asks: a pass reports a
//! [`Waiting`] for every job it leaves waiting, and a [`StartKind`] for
//! every start, only to an [`Observer`](crate::Observer) whose
//! [`wants_reasons`](crate::Observer::wants_reasons) says so (the default
//! says no, and the kernel is generic over its observer, so the test folds
//! away and a replay without such an observer runs the code it ran before). A live controller asks
//! [`Kernel::waiting`](crate::Kernel::waiting) for the queue as it stands.
//!
//! # Where the reason lives
//!
//! Nowhere: a reason is not stored with the queued job. It is a read-only
//! evaluation of the policy's rules on the kernel's state (the plan, or the
//! tally, the queue, the policy's memory), and the pass reports exactly that
//! evaluation of the state it leaves, so a query right after a pass gives
//! the reasons the pass gave. Between passes (a job arrived or ended since)
//! the query answers for the state as it stands: a job the next pass would
//! start is [`Reason::Pending`].

use crate::plan::Slot;
use crate::types::{Job, JobId, Time};

/// Why a queued job is waiting, with the detail the policy's rule gives.
/// Policy-exact: each policy gives only some of these (`docs/design.md`,
/// "Pending reasons").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reason {
    /// It fits now under the policy's rules (or its reservation has
    /// come): the next pass starts it. Between passes, the answer for a job
    /// that arrived or that a completion made fit; a pass leaves no job
    /// pending, except on a farm where DPSA's search placed its set on
    /// other machines than the plan's first fit.
    Pending,
    /// Not enough processors free now on the machine (one machine), or on
    /// any machine it may use (a farm: [`Reason::NoMachine`] instead).
    /// `expected`: the head's shadow time under the EASY family, else
    /// `None`.
    Processors {
        /// When the head is expected to start (its shadow time), if the
        /// policy reserves for it.
        expected: Option<Time>,
    },
    /// No copy of license pool `pool` is free now.
    NoLicense {
        /// The first pool it needs that has no copy free now.
        pool: u8,
        /// As for [`Reason::Processors`].
        expected: Option<Time>,
    },
    /// On a farm: none of the machines it may use has enough processors
    /// free now.
    NoMachine {
        /// As for [`Reason::Processors`].
        expected: Option<Time>,
    },
    /// FCFS: behind job `ahead`, the queue head, which does not fit now;
    /// strict order lets nothing pass it.
    Behind {
        /// The job at the head of the queue.
        ahead: JobId,
    },
    /// It fits now, but starting it would delay job `holder`'s reservation
    /// at `start` (the EASY family's head).
    WouldDelay {
        /// The job holding the reservation.
        holder: JobId,
        /// When that reservation starts.
        start: Time,
    },
    /// It holds a reservation at a later time (Conservative and its
    /// variants, CONS+RS, Selective's guaranteed queue).
    Reserved {
        /// The reservation.
        slot: Slot,
    },
    /// Selective's entry queue: it does not fit now without delaying a
    /// reservation, and gets one of its own when it is promoted at `at`
    /// (`Time::MAX`: never, under the current threshold).
    NotPromoted {
        /// The promotion instant.
        at: Time,
    },
    /// DPSA: it fits now with the head's reservation, but the subset
    /// search ran out of its node budget before finding a set with it.
    SearchBudget {
        /// The budget that ran out (search nodes per pass).
        budget: u32,
    },
    /// It can never run: wider than every machine it may use, or needing a
    /// license no machine has. The kernel refuses such a job at submission
    /// ([`KernelError::Unrunnable`](crate::KernelError::Unrunnable)), so it
    /// never waits and no pass gives this; it is the reason a host gives
    /// for such a job (the replay loop reports it to
    /// [`Sink::rejected`](crate::Sink::rejected)).
    Never,
}

/// How a job started (`docs/design.md`, "Pending reasons").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StartKind {
    /// It started now because it fit now and no job was ahead of it in the
    /// queue (FCFS; the EASY family's head phase; Selective's entry queue
    /// at the front).
    InOrder,
    /// It fit now and started ahead of jobs still waiting (EASY's backfill,
    /// DPSA's subset, Selective's entry queue behind other jobs).
    Backfilled,
    /// It started at its reservation, which is where it was first reserved
    /// (its guarantee).
    AtReservation,
    /// It started at its reservation, which compression had moved earlier
    /// than its first one.
    Compressed,
    /// It started at its reservation, which CONS+RS's random search had
    /// moved earlier.
    RandomSearch,
}

/// When a waiting job is expected to start, where the policy knows it
/// (`docs/design.md`, "Expected starts").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExpectedStart {
    /// Its reservation in the plan (Conservative and its variants, CONS+RS,
    /// Selective's guaranteed queue): a promise where
    /// [`Policy::reservation_is_guarantee`](crate::Policy::reservation_is_guarantee),
    /// with running jobs held to their estimates.
    Reservation(Slot),
    /// The EASY family's head: its shadow time on the plan (or tally) as it
    /// stands, a bound it starts no later than while it stays the head.
    Shadow(Slot),
    /// The policy gives this job no expected start (FCFS, the EASY family
    /// behind the head, Selective's entry queue); none is made up.
    Unknown,
}

impl ExpectedStart {
    /// The expected start time, if any.
    #[must_use]
    pub const fn time(&self) -> Option<Time> {
        match self {
            Self::Reservation(slot) | Self::Shadow(slot) => Some(slot.start),
            Self::Unknown => None,
        }
    }
}

/// One waiting job as a pass leaves it, or as the queue stands
/// ([`Kernel::waiting`](crate::Kernel::waiting)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// Its position in the queue, from 0 (the head).
    pub position: usize,
    /// The job.
    pub job: Job,
    /// Why it waits.
    pub reason: Reason,
    /// When it is expected to start.
    pub expected: ExpectedStart,
}
