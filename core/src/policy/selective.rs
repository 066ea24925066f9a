//! Selective reservation: guarantees only for jobs that have waited long
//! enough.
//!
//! Rules (`docs/design.md`, "Selective reservation"):
//!
//! * two queues: an *entry* queue without guarantees (FCFS order) and a
//!   *guaranteed* queue run like Conservative (reservations, one compression
//!   pass after every completion instant, a job starts at its reservation);
//! * a job is promoted, and reserved at its earliest feasible start, the
//!   instant its expansion factor `(wait + estimate) / estimate` reaches its
//!   starvation threshold; the kernel's `next_wakeup` includes the earliest
//!   pending promotion, so this happens between events too;
//! * entry-queue jobs start, in FCFS order, whenever they fit now without
//!   delaying any reservation.
//!
//! Thresholds ([`Threshold`]): one fixed value (Selective); one per category
//! SN, SW, LN, LW (Selective-D, jobs classified by estimate while they
//! wait); the running average bounded slowdown of completed jobs (adaptive,
//! optionally over well-estimated jobs only); or that average times a factor
//! (scaled-adaptive, 1.5 in the paper).
//!
//! Thresholds are fixed-point thousandths (`1500` is an expansion factor of
//! 1.5), so promotion instants are exact integers: a job submitted at `s`
//! with estimate `e` and threshold `T > 1000` is promoted at
//! `s + ceil((T - 1000) * e / 1000)`; with `T <= 1000` at once.
//!
//! Source: S. Srinivasan, R. Kettimuthu, V. Subramani and P. Sadayappan,
//! *Selective reservation strategies for backfill job scheduling*, JSSPP
//! 2002; where the paper is vague, `docs/design.md`, "Choices where the
//! papers are vague".
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): a guaranteed job
//! is reserved (its reservation is its expected start); an entry-queue job
//! that does not fit now without delaying a reservation is not yet
//! promoted, with its promotion instant. Entry-queue starts are in order at
//! the head of the queue and backfilled behind it; guaranteed ones at their
//! reservation, or moved up by compression.

use super::conservative::Compression;
use super::Rules;
use crate::plan::Slot;
use crate::state::{KernelError, Observer, Pass, RunningJob, State};
use crate::types::{CategoryBounds, Duration, Job, Time};
use crate::Policy;

/// Where Selective's starvation threshold comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Threshold {
    /// One threshold for every job (Selective), in thousandths.
    Fixed(u32),
    /// One threshold per category (Selective-D), in thousandths, indexed by
    /// [`Category::index`](crate::Category::index) (SN, SW, LN, LW); jobs classified by estimate.
    PerCategory {
        /// Thresholds for SN, SW, LN, LW.
        thresholds: [u32; 4],
        /// Category bounds.
        bounds: CategoryBounds,
    },
    /// The running average bounded slowdown of the jobs completed so far,
    /// times `scale` (thousandths: 1000 is the adaptive scheme, 1500 the
    /// paper's scaled-adaptive one).
    Adaptive {
        /// Multiplier in thousandths.
        scale: u32,
        /// Average only over well-estimated jobs (run time at least half the
        /// estimate; a killed job ran its whole estimate).
        well_estimated_only: bool,
        /// Threshold before any job has completed, in thousandths.
        initial: u32,
    },
}

impl Threshold {
    /// The adaptive scheme: average slowdown so far, starting at 1.0.
    pub const ADAPTIVE: Self = Self::Adaptive {
        scale: 1000,
        well_estimated_only: false,
        initial: 1000,
    };

    /// The scaled-adaptive scheme: 1.5 times the average slowdown so far.
    pub const SCALED_ADAPTIVE: Self = Self::Adaptive {
        scale: 1500,
        well_estimated_only: false,
        initial: 1000,
    };
}

/// Running sum of completed jobs' bounded slowdowns, for adaptive thresholds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlowdownAverage {
    /// Jobs counted.
    pub count: u64,
    /// Sum of their bounded slowdowns, in thousandths (rounded down each).
    pub sum: u64,
}

impl SlowdownAverage {
    /// Counts a job that waited `wait` and ran `run` seconds.
    pub fn add(&mut self, wait: Duration, run: Duration) {
        let run = u64::from(run.max(crate::types::SLOWDOWN_BOUND));
        let milli = u64::from(wait)
            .saturating_add(run)
            .saturating_mul(1000)
            .checked_div(run)
            .unwrap_or(1000);
        self.count = self.count.saturating_add(1);
        self.sum = self.sum.saturating_add(milli);
    }

    /// The mean in thousandths, or `None` before any job.
    #[must_use]
    pub fn mean(&self) -> Option<u64> {
        self.sum.checked_div(self.count)
    }
}

/// Selective's memory between calls.
#[derive(Clone, Debug)]
pub(crate) struct Selective {
    threshold: Threshold,
    /// The guaranteed queue's compression bookkeeping.
    pub(crate) compression: Compression,
    /// Adaptive thresholds: completed jobs' bounded slowdowns.
    pub(crate) average: SlowdownAverage,
}

impl Selective {
    /// Selective with thresholds from `threshold`.
    pub(crate) fn new(threshold: Threshold) -> Self {
        Self {
            threshold,
            compression: Compression::default(),
            average: SlowdownAverage::default(),
        }
    }

    /// When entry-queue job `job` is promoted under the current threshold.
    pub(crate) fn promotion_time(&self, job: &Job) -> Time {
        Policy::Selective(self.threshold)
            .threshold_for(job, &self.average)
            .map_or(Time::MAX, |t| Policy::promotion_time(job, t))
    }

    /// Counts a completed job in the adaptive average (for the adaptive
    /// thresholds) and notes that the guaranteed queue must be compressed.
    pub(crate) fn completed<const B: usize, const M: usize, const L: usize>(
        &mut self,
        plan: &crate::plan::Plan<B, M, L>,
        done: &RunningJob,
        now: Time,
    ) {
        if let Threshold::Adaptive {
            well_estimated_only,
            ..
        } = self.threshold
        {
            let run = now.saturating_sub(done.slot.start);
            // Well estimated: ran at least half its estimate (a job killed
            // at its estimate ran all of it).
            if !well_estimated_only || run.saturating_mul(2) >= done.slot.duration {
                self.average
                    .add(done.slot.start.saturating_sub(done.job.submit), run);
            }
        }
        self.compression.completed(plan, &done.slot, now);
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Rules<State<Q, R, B, M, L>> for Selective
{
    /// An arrival enters the entry queue without a reservation; a
    /// compression due after completions at this instant runs first.
    fn arrival(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        _job: &Job,
        observer: &mut impl Observer,
    ) -> Result<Option<Slot>, KernelError> {
        st.compress(&mut self.compression, observer)?;
        Ok(None)
    }

    /// The earliest instant after `now` at which a guaranteed job starts or
    /// an entry-queue job is promoted.
    fn next_wakeup(&self, st: &State<Q, R, B, M, L>) -> Option<Time> {
        st.queue
            .iter()
            .map(|q| match q.reservation() {
                Some(slot) => slot.start,
                None => self.promotion_time(&q.job),
            })
            .filter(|&t| t > st.now)
            .min()
    }

    /// One Selective pass: compress if due; promote every entry-queue job
    /// whose expansion factor has reached its threshold (in queue order, each
    /// reserved at its earliest feasible start); start the guaranteed jobs
    /// whose reservation has come; then start entry-queue jobs, in FCFS
    /// order, that fit now without delaying any reservation.
    fn pass(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        st.compress(&mut self.compression, observer)?;
        let now = st.now;
        for index in 0..st.queue.len() {
            // Read in place; only a job promoted now is copied.
            let Some(entry) = st.queue.get(index) else {
                continue;
            };
            if entry.reservation().is_some() || self.promotion_time(&entry.job) > now {
                continue;
            }
            let job = entry.job;
            let slot = st
                .plan
                .earliest(&st.cluster, &job, now)?
                .ok_or(KernelError::Unrunnable(job.id))?;
            st.plan.reserve(&job, &slot)?;
            if let Some(e) = st.queue.get_mut(index) {
                e.set_reservation(Some(slot));
                e.set_guarantee(Some(slot.start));
            }
            self.compression.reserved(slot.start);
            observer.reserved(&job, slot);
        }
        let mut pass = st.pass_reserved(&mut self.compression, observer)?;
        let mut most_free = st.plan.most_free_now(now);
        let mut index = 0;
        while most_free > 0 {
            let Some(entry) = st.queue.get(index) else {
                break;
            };
            if entry.reservation().is_some() || entry.job.procs > most_free {
                index = index.saturating_add(1);
                continue;
            }
            let job = entry.job;
            match st.plan.fit_now(&st.cluster, &job, now)? {
                Some(slot) => {
                    st.reserve_and_start(index, &job, slot, observer)?;
                    pass.started = pass.started.saturating_add(1);
                    most_free = st.plan.most_free_now(now);
                }
                None => index = index.saturating_add(1),
            }
        }
        Ok(pass)
    }
}
