//! How long each kernel call of a replay took (`replay --latency`).

use backfill_core::Call;
use std::time::Duration;

/// Buckets of a [`Latency`] histogram: bucket 0 holds calls under 1 µs,
/// bucket `k` calls of `[2^(k-1), 2^k)` µs, the last everything longer.
pub(crate) const LATENCY_BUCKETS: usize = 28;

/// How long the kernel calls of one replay took: a histogram with
/// power-of-two bounds in microseconds, and the slowest call, in all and
/// per kind of call. What a firmware integrator sizes a timer by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Latency {
    /// Calls per bucket (see [`LATENCY_BUCKETS`]).
    pub(crate) buckets: [u64; LATENCY_BUCKETS],
    /// The slowest call: how long, and which.
    pub(crate) slowest: (Duration, Option<Call>),
    /// The same for each kind of call: submit, complete, schedule.
    pub(crate) by_call: [CallTimes; 3],
}

/// The histogram and the slowest of one kind of call (see [`Latency`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CallTimes {
    /// Calls per bucket (see [`LATENCY_BUCKETS`]).
    pub(crate) buckets: [u64; LATENCY_BUCKETS],
    /// The slowest.
    pub(crate) slowest: Duration,
}

impl CallTimes {
    /// The kinds of call, in the order of [`Latency::by_call`].
    pub(crate) const CALLS: [Call; 3] = [Call::Submit, Call::Complete, Call::Schedule];

    /// Calls counted.
    #[must_use]
    pub(crate) fn calls(&self) -> u64 {
        self.buckets.iter().sum()
    }

    /// An upper bound (µs) on the `q`-quantile, as [`Latency::quantile_below_us`].
    #[must_use]
    pub(crate) fn quantile_below_us(&self, q: f64) -> f64 {
        quantile_below_us(&self.buckets, self.slowest, q)
    }
}

impl Default for Latency {
    fn default() -> Self {
        Self {
            buckets: [0; LATENCY_BUCKETS],
            slowest: (Duration::ZERO, None),
            by_call: Default::default(),
        }
    }
}

impl Latency {
    /// Counts one call that took `took`.
    pub(crate) fn add(&mut self, took: Duration, call: Call) {
        let micros = took.as_micros();
        // 0 µs -> bucket 0; [2^(k-1), 2^k) µs -> bucket k.
        let bucket = ((u128::BITS - micros.leading_zeros()) as usize).min(LATENCY_BUCKETS - 1);
        if let Some(n) = self.buckets.get_mut(bucket) {
            *n += 1;
        }
        if took > self.slowest.0 || self.slowest.1.is_none() {
            self.slowest = (took, Some(call));
        }
        let kind = CallTimes::CALLS.iter().position(|&c| c == call);
        if let Some(times) = kind.and_then(|k| self.by_call.get_mut(k)) {
            if let Some(n) = times.buckets.get_mut(bucket) {
                *n += 1;
            }
            times.slowest = times.slowest.max(took);
        }
    }

    /// Calls counted.
    #[must_use]
    pub(crate) fn calls(&self) -> u64 {
        self.buckets.iter().sum()
    }

    /// The lower bound (µs, inclusive) of bucket `k`.
    #[must_use]
    pub(crate) fn bucket_from_us(k: usize) -> u64 {
        if k == 0 {
            0
        } else {
            1u64 << (k - 1)
        }
    }

    /// The upper bound (µs, exclusive) of bucket `k`; `None` for the last,
    /// which is open.
    #[must_use]
    pub(crate) fn bucket_below_us(k: usize) -> Option<u64> {
        (k + 1 < LATENCY_BUCKETS).then(|| 1u64 << k)
    }

    /// An upper bound (µs) on the `q`-quantile of the call times (`q` in
    /// `[0, 1]`): the bound of the bucket it falls in; the slowest call
    /// when that is the open last bucket.
    #[must_use]
    pub(crate) fn quantile_below_us(&self, q: f64) -> f64 {
        quantile_below_us(&self.buckets, self.slowest.0, q)
    }
}

/// [`Latency::quantile_below_us`] of a histogram whose slowest call took
/// `slowest`.
fn quantile_below_us(buckets: &[u64; LATENCY_BUCKETS], slowest: Duration, q: f64) -> f64 {
    let calls: u64 = buckets.iter().sum();
    let rank = ((q.clamp(0.0, 1.0) * calls as f64).ceil() as u64).max(1);
    let slowest = slowest.as_secs_f64() * 1e6;
    let mut seen = 0;
    for (k, n) in buckets.iter().enumerate() {
        seen += n;
        if seen >= rank {
            return Latency::bucket_below_us(k).map_or(slowest, |b| (b as f64).min(slowest));
        }
    }
    slowest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_buckets_are_powers_of_two_microseconds() {
        let mut l = Latency::default();
        let us = Duration::from_micros;
        for (took, call) in [
            (Duration::from_nanos(999), Call::Submit), // bucket 0: under 1 µs
            (us(1), Call::Submit),                     // bucket 1: [1, 2)
            (us(3), Call::Complete),                   // bucket 2: [2, 4)
            (us(4), Call::Schedule),                   // bucket 3: [4, 8)
            (us(5), Call::Schedule),                   // bucket 3
            (Duration::from_secs(1_000), Call::Complete), // the open last bucket
        ] {
            l.add(took, call);
        }
        assert_eq!(&l.buckets[..4], &[1, 1, 1, 2]);
        assert_eq!(l.buckets[LATENCY_BUCKETS - 1], 1);
        assert_eq!(l.calls(), 6);
        // Per kind: submit, complete, schedule.
        let [submit, complete, schedule] = &l.by_call;
        assert_eq!((&submit.buckets[..2], submit.slowest), (&[1, 1][..], us(1)));
        assert_eq!(complete.buckets[2], 1);
        assert_eq!(complete.buckets[LATENCY_BUCKETS - 1], 1);
        assert_eq!(complete.slowest, Duration::from_secs(1_000));
        assert_eq!((schedule.buckets[3], schedule.slowest), (2, us(5)));
        assert_eq!(schedule.calls(), 2);
        // Both schedule calls fall in [4, 8) µs: bounded by the slowest.
        assert_eq!(schedule.quantile_below_us(0.99), 5.0);
        assert_eq!(submit.quantile_below_us(0.5), 1.0);
        assert_eq!(
            l.slowest,
            (Duration::from_secs(1_000), Some(Call::Complete))
        );
        assert_eq!(Latency::bucket_below_us(0), Some(1));
        assert_eq!(
            (Latency::bucket_from_us(0), Latency::bucket_from_us(3)),
            (0, 4)
        );
        assert_eq!(Latency::bucket_below_us(3), Some(8));
        assert_eq!(Latency::bucket_below_us(LATENCY_BUCKETS - 1), None);
        // The median (3rd of 6) is in [2, 4); the largest only below the slowest.
        assert_eq!(l.quantile_below_us(0.5), 4.0);
        assert_eq!(l.quantile_below_us(1.0), 1e9);
        let mut fast = Latency::default();
        fast.add(us(3), Call::Schedule);
        // Capped at the slowest call: no call took 4 µs.
        assert_eq!(fast.quantile_below_us(0.5), 3.0);
    }
}
