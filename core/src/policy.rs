//! The scheduling policies, chosen at run time by value (no `dyn`).
//!
//! | policy | rule (DESIGN.md section 3) | source |
//! | --- | --- | --- |
//! | [`Policy::Fcfs`] | start jobs strictly in queue order while the head fits; no backfilling | baseline |
//! | [`Policy::Easy`] | start from the head while jobs fit; the first that does not gets a reservation at its shadow time; later jobs start now if they fit without delaying it | Lifka, EASY (1995); Mu'alem & Feitelson (2001) |
//! | [`Policy::SjfEasy`] | EASY with the queue ordered by estimate, shortest first (ties: submit, id); not starvation-free | Srinivasan et al., JSSPP 2002 |
//! | [`Policy::Conservative`] | every job gets a reservation on arrival at the earliest time it fits the plan; it starts at its reservation; after every instant with a completion the plan is compressed in queue order, never moving a reservation later | Mu'alem & Feitelson (2001) |
//! | [`Policy::Selective`] | two queues: an entry queue without guarantees (FCFS) and a guaranteed queue run like Conservative. A job is promoted, and gets a reservation, the instant its expansion factor `(wait + estimate) / estimate` reaches its starvation [`Threshold`]; entry-queue jobs start whenever they fit now without delaying a reservation | Srinivasan, Kettimuthu, Subramani & Sadayappan, *Selective Reservation Strategies for Backfill Job Scheduling*, JSSPP 2002 |
//!
//! Queue order is FCFS, `(submit, id)`, unless the policy says otherwise.
//!
//! # Selective thresholds
//!
//! Thresholds are fixed-point thousandths (`1500` is an expansion factor of
//! 1.5), so promotion instants are exact integers: a job submitted at `s`
//! with estimate `e` and threshold `T > 1000` is promoted at
//! `s + ceil((T - 1000) * e / 1000)`; with `T <= 1000` at once. Selective-D
//! classifies a waiting job by its *estimate* (the run time is unknown while
//! it waits; with exact estimates the two agree).

use crate::metrics::{Category, CategoryBounds};
use crate::types::{Duration, Job, Time};

/// Where Selective's starvation threshold comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Threshold {
    /// One threshold for every job (Selective), in thousandths.
    Fixed(u32),
    /// One threshold per category (Selective-D), in thousandths, indexed by
    /// [`Category::index`] (SN, SW, LN, LW); jobs classified by estimate.
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
        let run = u64::from(run.max(crate::metrics::SLOWDOWN_BOUND));
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

/// A scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Policy {
    /// First come, first served, no backfilling.
    Fcfs,
    /// EASY (aggressive) backfilling: one reservation, for the queue head.
    Easy,
    /// EASY with shortest-estimate-first queue order.
    SjfEasy,
    /// Conservative backfilling: a reservation for every job, with compression.
    Conservative,
    /// Selective reservation with a threshold source (Selective, Selective-D,
    /// adaptive and scaled-adaptive).
    Selective(Threshold),
}

impl Policy {
    /// Selective with an example fixed threshold of 2.0 (tests, fuzzing).
    pub const SELECTIVE_EXAMPLE: Self = Self::Selective(Threshold::Fixed(2000));
    /// Selective-D with example thresholds (tests, fuzzing): SN 4.0, SW 8.0,
    /// LN 1.5, LW 2.0 (the paper's CTC values rounded, Table 7).
    pub const SELECTIVE_D_EXAMPLE: Self = Self::Selective(Threshold::PerCategory {
        thresholds: [4000, 8000, 1500, 2000],
        bounds: CategoryBounds::DEFAULT,
    });

    /// Every policy, in a fixed order (for sweeps, tests and fuzzing);
    /// Selective variants with example thresholds.
    pub const ALL: [Self; 8] = [
        Self::Fcfs,
        Self::Easy,
        Self::SjfEasy,
        Self::Conservative,
        Self::SELECTIVE_EXAMPLE,
        Self::SELECTIVE_D_EXAMPLE,
        Self::Selective(Threshold::ADAPTIVE),
        Self::Selective(Threshold::SCALED_ADAPTIVE),
    ];

    /// The policy's command-line name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Fcfs => "fcfs",
            Self::Easy => "easy",
            Self::SjfEasy => "sjf-easy",
            Self::Conservative => "conservative",
            Self::Selective(Threshold::Fixed(_)) => "selective",
            Self::Selective(Threshold::PerCategory { .. }) => "selective-d",
            Self::Selective(Threshold::Adaptive { scale: 1000, .. }) => "selective-adaptive",
            Self::Selective(Threshold::Adaptive { .. }) => "selective-scaled",
        }
    }

    /// The policy with command-line name `name` (Selective variants with
    /// their example or default thresholds).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether every queued job gets a reservation on arrival.
    #[must_use]
    pub const fn reserves_all(self) -> bool {
        matches!(self, Self::Conservative)
    }

    /// Whether reservations are kept in the plan, compressed after every
    /// completion instant, and are guarantees: a reservation never moves later and
    /// the job starts by it (Conservative and Selective's guaranteed queue).
    #[must_use]
    pub const fn keeps_reservations(self) -> bool {
        matches!(self, Self::Conservative | Self::Selective(_))
    }

    /// Whether the head of the queue is guaranteed a start by its first
    /// reservation (EASY-style head reservation).
    #[must_use]
    pub const fn reserves_head(self) -> bool {
        matches!(self, Self::Easy | Self::SjfEasy)
    }

    /// Whether the policy guarantees that every job of a finite input starts.
    #[must_use]
    pub const fn starvation_free(self) -> bool {
        !matches!(self, Self::SjfEasy)
    }

    /// Whether the queue is ordered by estimate rather than by arrival.
    #[must_use]
    pub const fn shortest_first(self) -> bool {
        matches!(self, Self::SjfEasy)
    }

    /// Selective: the threshold (thousandths) that applies to `job` when the
    /// adaptive average is `average`; `None` for other policies.
    #[must_use]
    pub fn threshold_for(self, job: &Job, average: &SlowdownAverage) -> Option<u32> {
        let Self::Selective(threshold) = self else {
            return None;
        };
        Some(match threshold {
            Threshold::Fixed(t) => t,
            Threshold::PerCategory { thresholds, bounds } => {
                let category: Category = bounds.classify(job.estimate, job.procs);
                thresholds
                    .get(category.index())
                    .copied()
                    .unwrap_or(u32::MAX)
            }
            Threshold::Adaptive { scale, initial, .. } => match average.mean() {
                Some(mean) => {
                    let scaled = mean.saturating_mul(u64::from(scale)) / 1000;
                    u32::try_from(scaled).unwrap_or(u32::MAX)
                }
                None => initial,
            },
        })
    }

    /// Selective: the instant `job` is promoted under threshold `threshold`
    /// (thousandths): `submit + ceil((threshold - 1000) * estimate / 1000)`,
    /// saturating at `Time::MAX`.
    #[must_use]
    pub fn promotion_time(job: &Job, threshold: u32) -> Time {
        let excess = u64::from(threshold.saturating_sub(1000));
        let wait = excess
            .saturating_mul(u64::from(job.estimate))
            .div_ceil(1000);
        let at = u64::from(job.submit).saturating_add(wait);
        Time::try_from(at).unwrap_or(Time::MAX)
    }
}

impl core::fmt::Display for Policy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(Policy::from_name(p.name()), Some(p));
        }
        assert_eq!(Policy::from_name("nope"), None);
    }

    #[test]
    fn promotion_time_is_exact() {
        let job = Job::new(1, 100, 4, 300);
        // XF = (wait + 300) / 300 reaches 1.5 when wait = 150.
        assert_eq!(Policy::promotion_time(&job, 1500), 250);
        // 2.333: wait = 1.333 * 300 = 399.9 -> 400 (ceil), XF(399) < 2.333.
        assert_eq!(Policy::promotion_time(&job, 2333), 500);
        assert_eq!(Policy::promotion_time(&job, 1000), 100);
        assert_eq!(Policy::promotion_time(&job, 900), 100);
        assert_eq!(
            Policy::promotion_time(&Job::new(1, 5, 1, u32::MAX), u32::MAX),
            Time::MAX
        );
    }

    #[test]
    fn thresholds_by_source() {
        let avg = SlowdownAverage::default();
        let short_wide = Job::new(1, 0, 16, 60);
        let long_narrow = Job::new(2, 0, 2, 7200);
        assert_eq!(Policy::Easy.threshold_for(&short_wide, &avg), None);
        let d = Policy::SELECTIVE_D_EXAMPLE;
        assert_eq!(d.threshold_for(&short_wide, &avg), Some(8000));
        assert_eq!(d.threshold_for(&long_narrow, &avg), Some(1500));
        let adaptive = Policy::Selective(Threshold::SCALED_ADAPTIVE);
        assert_eq!(adaptive.threshold_for(&short_wide, &avg), Some(1000));
        let mut avg = SlowdownAverage::default();
        avg.add(30, 10); // (30 + 10) / 10 = 4
        avg.add(0, 5); // (0 + 10) / 10 = 1
        assert_eq!(avg.mean(), Some(2500));
        assert_eq!(adaptive.threshold_for(&short_wide, &avg), Some(3750));
    }
}
