//! Streaming metric accumulators: one pass over finished jobs, no storage.
//!
//! Definitions (DESIGN.md section 5), with `run` the effective run time
//! (`end - start`, after a kill at the estimate):
//!
//! * wait = start - submit; turnaround = end - submit;
//! * bounded slowdown = `(wait + max(run, 10)) / max(run, 10)`;
//! * utilisation = `sum(run * procs) / (processors * (last end - first submit))`.
//!
//! Jobs are also split into four categories by actual run time (the trace's
//! run time, before any kill) and processors, as in the selective-reservation
//! paper: Short/Long by `runtime <= short_max` (3600 s), Narrow/Wide by
//! `procs <= narrow_max` (8). Integer sums are exact; the slowdown sum is an
//! `f64` added in the replay's deterministic order, so results are
//! bit-identical across runs.

use crate::sim::{JobRecord, Sink};
use crate::types::Time;

pub use crate::types::{Category, CategoryBounds, SLOWDOWN_BOUND};

/// Sums over a set of finished jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accumulator {
    /// Jobs counted.
    pub count: u64,
    /// Sum of waits (s).
    pub wait: u64,
    /// Sum of turnarounds (s).
    pub turnaround: u64,
    /// Sum of bounded slowdowns.
    pub slowdown: f64,
    /// Largest bounded slowdown.
    pub worst_slowdown: f64,
    /// Sum of effective run time times processors (processor-seconds).
    pub work: u128,
    /// Jobs killed at their estimate.
    pub killed: u64,
    /// Earliest submit time seen.
    pub first_submit: Option<Time>,
    /// Latest end time seen.
    pub last_end: Option<Time>,
}

impl Accumulator {
    /// Adds one finished job.
    pub fn add(&mut self, record: &JobRecord) {
        let slowdown = record.bounded_slowdown();
        self.count = self.count.saturating_add(1);
        self.wait = self.wait.saturating_add(u64::from(record.wait()));
        self.turnaround = self
            .turnaround
            .saturating_add(u64::from(record.turnaround()));
        self.slowdown += slowdown;
        if slowdown > self.worst_slowdown {
            self.worst_slowdown = slowdown;
        }
        let work = u128::from(record.run()).saturating_mul(u128::from(record.job.procs));
        self.work = self.work.saturating_add(work);
        if record.killed {
            self.killed = self.killed.saturating_add(1);
        }
        self.first_submit = Some(
            self.first_submit
                .map_or(record.job.submit, |t| t.min(record.job.submit)),
        );
        self.last_end = Some(self.last_end.map_or(record.end, |t| t.max(record.end)));
    }

    fn mean(sum: f64, count: u64) -> f64 {
        if count == 0 {
            0.0
        } else {
            // u64 -> f64 is exact below 2^53 jobs.
            #[allow(clippy::cast_precision_loss)]
            let n = count as f64;
            sum / n
        }
    }

    /// Mean wait (s); 0 when empty.
    #[must_use]
    pub fn mean_wait(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        Self::mean(self.wait as f64, self.count)
    }

    /// Mean turnaround (s); 0 when empty.
    #[must_use]
    pub fn mean_turnaround(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        Self::mean(self.turnaround as f64, self.count)
    }

    /// Mean bounded slowdown; 0 when empty.
    #[must_use]
    pub fn mean_slowdown(&self) -> f64 {
        Self::mean(self.slowdown, self.count)
    }

    /// Utilisation of `processors` over `[first submit, last end)`; 0 when empty.
    #[must_use]
    pub fn utilisation(&self, processors: u64) -> f64 {
        let (Some(first), Some(last)) = (self.first_submit, self.last_end) else {
            return 0.0;
        };
        let span = u128::from(last.saturating_sub(first)).saturating_mul(u128::from(processors));
        if span == 0 {
            return 0.0;
        }
        #[allow(clippy::cast_precision_loss)]
        let ratio = self.work as f64 / span as f64;
        ratio
    }
}

/// Metrics overall and per category; a [`Sink`] for [`crate::sim`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Category boundaries used.
    pub bounds: CategoryBounds,
    /// Every job.
    pub overall: Accumulator,
    /// Per category, indexed by [`Category::index`].
    pub by_category: [Accumulator; 4],
}

impl Metrics {
    /// Empty metrics with these category bounds.
    #[must_use]
    pub fn new(bounds: CategoryBounds) -> Self {
        Self {
            bounds,
            ..Self::default()
        }
    }

    /// Adds one finished job.
    pub fn add(&mut self, record: &JobRecord) {
        self.overall.add(record);
        let category = self.bounds.classify(record.runtime, record.job.procs);
        if let Some(acc) = self.by_category.get_mut(category.index()) {
            acc.add(record);
        }
    }

    /// The accumulator of one category.
    #[must_use]
    pub fn category(&self, category: Category) -> &Accumulator {
        // `index()` is always < 4.
        self.by_category
            .get(category.index())
            .unwrap_or(&self.overall)
    }
}

impl Sink for Metrics {
    fn finished(&mut self, record: &JobRecord) {
        self.add(record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Slot;
    use crate::sim::fixtures::job;
    use crate::types::{Duration, Procs};

    fn record(submit: Time, start: Time, end: Time, runtime: Duration, procs: Procs) -> JobRecord {
        JobRecord {
            job: job(1).submit(submit).procs(procs).estimate(100_000).job(),
            runtime,
            slot: Slot {
                start,
                machine: 0,
                duration: 100_000,
            },
            end,
            killed: false,
            guarantee: None,
        }
    }

    #[test]
    fn bounded_slowdown_uses_ten_second_floor() {
        assert!((record(0, 90, 95, 5, 1).bounded_slowdown() - 10.0).abs() < 1e-12);
        assert!((record(0, 100, 200, 100, 1).bounded_slowdown() - 2.0).abs() < 1e-12);
        assert!((record(5, 5, 5, 0, 1).bounded_slowdown() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn categories_and_means() {
        let mut m = Metrics::new(CategoryBounds::DEFAULT);
        m.add(&record(0, 10, 110, 100, 4)); // SN, wait 10
        m.add(&record(0, 30, 4030, 4000, 16)); // LW, wait 30
        assert_eq!(m.overall.count, 2);
        assert!((m.overall.mean_wait() - 20.0).abs() < 1e-12);
        assert_eq!(m.category(Category::ShortNarrow).count, 1);
        assert_eq!(m.category(Category::LongWide).count, 1);
        assert_eq!(m.category(Category::ShortWide).count, 0);
        assert!((m.overall.mean_turnaround() - (110.0 + 4030.0) / 2.0).abs() < 1e-9);
        // work = 100*4 + 4000*16 = 64400 over 32 procs * 4030 s
        let u = m.overall.utilisation(32);
        assert!((u - 64_400.0 / (32.0 * 4030.0)).abs() < 1e-12);
        // (10 + 100) / 100 beats (30 + 4000) / 4000.
        assert!((m.overall.worst_slowdown - 1.1).abs() < 1e-12);
    }

    #[test]
    fn bounds_are_inclusive() {
        let b = CategoryBounds::DEFAULT;
        assert_eq!(b.classify(3600, 8), Category::ShortNarrow);
        assert_eq!(b.classify(3601, 9), Category::LongWide);
    }
}
