//! Streaming metric accumulators: one pass over finished jobs, no storage.
//!
//! Definitions (`docs/design.md`, "Metrics"), with `run` the effective run time
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
//!
//! Besides means, each set keeps what a controller reporting on its own
//! jobs needs without storing them: the standard deviation of the waits
//! and of the bounded slowdowns ([`Spread`], Welford's one-pass update) and
//! the geometric mean of the bounded slowdowns (a running sum of their
//! logarithms), which weighs a few huge slowdowns less than the arithmetic
//! mean does. The square root, logarithm and exponential come from `libm`
//! (`no_std` has no float functions of its own).

use crate::sim::{JobRecord, Sink};
use crate::types::Time;

pub use crate::types::{Category, CategoryBounds, SLOWDOWN_BOUND};

/// The spread of a stream of values: their count, running mean and sum of
/// squared deviations from it, updated by Welford's method (B. P. Welford,
/// *Note on a method for calculating corrected sums of squares and
/// products*, Technometrics 4(3), 1962), which stays accurate where the
/// textbook `sum(x^2) - n * mean^2` cancels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// Values added.
    pub count: u64,
    /// Their mean (0 when none).
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    pub m2: f64,
}

impl Spread {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.count = self.count.saturating_add(1);
        // u64 -> f64 is exact below 2^53 values.
        #[allow(clippy::cast_precision_loss)]
        let n = self.count as f64;
        let delta = x - self.mean;
        self.mean += delta / n;
        self.m2 += delta * (x - self.mean);
    }

    /// The population standard deviation (the values are the whole set,
    /// not a sample of it: `sqrt(m2 / count)`); 0 when empty.
    #[must_use]
    pub fn std_dev(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        #[allow(clippy::cast_precision_loss)]
        let n = self.count as f64;
        // m2 is a sum of products of same-signed deltas: never negative.
        libm::sqrt(self.m2 / n)
    }
}

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
    /// How the waits and slowdowns spread around their means.
    pub spread: Spreads,
}

/// An [`Accumulator`]'s figures beyond sums and extremes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spreads {
    /// Of the waits (s).
    pub wait: Spread,
    /// Of the bounded slowdowns.
    pub slowdown: Spread,
    /// Sum of the natural logarithms of the bounded slowdowns (each at
    /// least 1, so each logarithm at least 0), for their geometric mean.
    pub log_slowdown: f64,
}

/// What one finished job adds to a set, computed once however many sets
/// it counts in (overall and its category).
struct Contribution<'a> {
    record: &'a JobRecord,
    slowdown: f64,
    log_slowdown: f64,
}

impl<'a> Contribution<'a> {
    fn of(record: &'a JobRecord) -> Self {
        let slowdown = record.bounded_slowdown();
        Self {
            record,
            slowdown,
            log_slowdown: libm::log(slowdown),
        }
    }
}

impl Accumulator {
    /// Adds one finished job.
    pub fn add(&mut self, record: &JobRecord) {
        self.add_contribution(&Contribution::of(record));
    }

    fn add_contribution(&mut self, c: &Contribution<'_>) {
        let record = c.record;
        self.count = self.count.saturating_add(1);
        self.wait = self.wait.saturating_add(u64::from(record.wait()));
        self.turnaround = self
            .turnaround
            .saturating_add(u64::from(record.turnaround()));
        self.slowdown += c.slowdown;
        if c.slowdown > self.worst_slowdown {
            self.worst_slowdown = c.slowdown;
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
        self.spread.wait.add(f64::from(record.wait()));
        self.spread.slowdown.add(c.slowdown);
        self.spread.log_slowdown += c.log_slowdown;
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

    /// Standard deviation of the waits (s), over the whole set; 0 when empty.
    #[must_use]
    pub fn wait_std_dev(&self) -> f64 {
        self.spread.wait.std_dev()
    }

    /// Standard deviation of the bounded slowdowns, over the whole set; 0
    /// when empty.
    #[must_use]
    pub fn slowdown_std_dev(&self) -> f64 {
        self.spread.slowdown.std_dev()
    }

    /// Geometric mean of the bounded slowdowns, `exp(mean of their
    /// logarithms)`: at least 1; 0 when empty.
    #[must_use]
    pub fn geometric_mean_slowdown(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        libm::exp(Self::mean(self.spread.log_slowdown, self.count))
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
        let contribution = Contribution::of(record);
        self.overall.add_contribution(&contribution);
        let category = self.bounds.classify(record.runtime, record.job.procs);
        if let Some(acc) = self.by_category.get_mut(category.index()) {
            acc.add_contribution(&contribution);
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

    /// `(mean, population standard deviation)` by the two-pass formula.
    fn two_pass(values: &[f64]) -> (f64, f64) {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let squares: f64 = values.iter().map(|x| (x - mean) * (x - mean)).sum();
        (mean, (squares / n).sqrt())
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn spread_is_the_population_standard_deviation() {
        let mut s = Spread::default();
        assert_eq!((s.count, s.mean, s.std_dev()), (0, 0.0, 0.0));
        s.add(7.0);
        assert_eq!((s.count, s.mean, s.std_dev()), (1, 7.0, 0.0));
        // The textbook example: mean 5, standard deviation exactly 2.
        let mut s = Spread::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            s.add(x);
        }
        assert_eq!((s.count, s.mean, s.m2), (8, 5.0, 32.0));
        assert_eq!(s.std_dev(), 2.0);
        // Values far from 0 with a small spread, where `sum(x^2) - n
        // mean^2` loses every digit: the two-pass result, to 1e-9.
        let values: std::vec::Vec<f64> = (0..1000_u32)
            .map(|i| 1e9 + f64::from((i * 7919) % 101))
            .collect();
        let mut s = Spread::default();
        for &x in &values {
            s.add(x);
        }
        let (mean, sd) = two_pass(&values);
        assert!(close(s.mean, mean), "{} vs {mean}", s.mean);
        assert!(close(s.std_dev(), sd), "{} vs {sd}", s.std_dev());
        assert!(sd > 20.0, "{sd}");
    }

    /// Waits, slowdowns and their spreads and geometric mean as the
    /// accumulator keeps them, against the same figures computed from the
    /// list of jobs.
    #[test]
    fn standard_deviations_and_geometric_mean_match_direct_computation() {
        // (submit, start, end, runtime, procs)
        let jobs = [
            (0, 0, 100, 100, 1),
            (0, 50, 55, 5, 2),
            (10, 400, 1400, 1000, 16),
            (20, 20, 20, 0, 1),
            (30, 3030, 8030, 5000, 16),
            (40, 41, 61, 20, 1),
        ];
        let mut m = Metrics::new(CategoryBounds::DEFAULT);
        let (mut waits, mut slowdowns) = (std::vec::Vec::new(), std::vec::Vec::new());
        for &(submit, start, end, runtime, procs) in &jobs {
            let r = record(submit, start, end, runtime, procs);
            m.add(&r);
            let wait = f64::from(start - submit);
            let run = f64::from((end - start).max(10));
            waits.push(wait);
            slowdowns.push((wait + run) / run);
        }
        let acc = &m.overall;
        let (_, wait_sd) = two_pass(&waits);
        let (slowdown_mean, slowdown_sd) = two_pass(&slowdowns);
        let product: f64 = slowdowns.iter().product();
        let geometric = product.powf(1.0 / slowdowns.len() as f64);
        assert!(close(acc.wait_std_dev(), wait_sd), "{}", acc.wait_std_dev());
        assert!(close(acc.slowdown_std_dev(), slowdown_sd));
        assert!(close(acc.geometric_mean_slowdown(), geometric));
        assert!(close(acc.spread.slowdown.mean, acc.mean_slowdown()));
        assert!(close(acc.mean_slowdown(), slowdown_mean));
        assert!(close(acc.spread.wait.mean, acc.mean_wait()));
        // The geometric mean lies between 1 and the arithmetic mean.
        let g = acc.geometric_mean_slowdown();
        assert!(1.0 < g && g < acc.mean_slowdown(), "{g}");
        // Each category keeps its own: the one long wide job (waited 3000
        // s, ran 5000 s) has no spread, and its slowdown is its geometric
        // mean.
        let long_wide = m.category(Category::LongWide);
        assert_eq!(long_wide.count, 1);
        assert_eq!(long_wide.wait_std_dev(), 0.0);
        assert!(close(long_wide.geometric_mean_slowdown(), 1.6));
        let short_narrow = m.category(Category::ShortNarrow);
        let pick =
            |of: &[f64]| -> std::vec::Vec<f64> { [0, 1, 3, 5].iter().map(|&i| of[i]).collect() };
        assert_eq!(short_narrow.count, 4);
        assert!(close(
            short_narrow.wait_std_dev(),
            two_pass(&pick(&waits)).1
        ));
        assert!(close(
            short_narrow.slowdown_std_dev(),
            two_pass(&pick(&slowdowns)).1
        ));
    }

    /// A job added to an accumulator alone, to metrics, or reported to
    /// metrics as a replay's sink counts the same.
    #[test]
    fn every_way_in_counts_the_same() {
        let records = [record(0, 10, 110, 100, 4), record(5, 300, 310, 10, 16)];
        let (mut alone, mut added) = (Accumulator::default(), Metrics::default());
        let mut reported = Metrics::default();
        for r in &records {
            alone.add(r);
            added.add(r);
            Sink::finished(&mut reported, r);
        }
        assert_eq!(alone.count, 2);
        assert_eq!(alone, added.overall);
        assert_eq!(reported, added);
    }

    #[test]
    fn empty_sets_report_zero() {
        let acc = Accumulator::default();
        assert_eq!(acc.wait_std_dev(), 0.0);
        assert_eq!(acc.slowdown_std_dev(), 0.0);
        assert_eq!(acc.geometric_mean_slowdown(), 0.0);
    }

    #[test]
    fn bounds_are_inclusive() {
        let b = CategoryBounds::DEFAULT;
        assert_eq!(b.classify(3600, 8), Category::ShortNarrow);
        assert_eq!(b.classify(3601, 9), Category::LongWide);
    }
}
