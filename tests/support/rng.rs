//! The seeded generator of generated workloads and byte inputs: core's
//! [`SplitMix64`], with the few draws the tests need on top ([`Draws`]).
//!
//! Tests never use a global or time-seeded generator: every random input is
//! reproducible from the seed printed with a failure.

pub use backfill_core::rng::SplitMix64;

/// Draws built on [`SplitMix64::below`] (multiply-high, the kernel's own
/// rule), for workload generators and fuzz inputs.
pub trait Draws {
    /// A value in `lo..=hi` (`lo` when `hi <= lo`).
    fn range_u32(&mut self, lo: u32, hi: u32) -> u32;
    /// `true` with probability `num / den`.
    fn chance(&mut self, num: u64, den: u64) -> bool;
    /// `len` random bytes, eight from each draw (little-endian).
    fn bytes(&mut self, len: usize) -> Vec<u8>;
}

impl Draws for SplitMix64 {
    fn range_u32(&mut self, lo: u32, hi: u32) -> u32 {
        if hi <= lo {
            return lo;
        }
        let span = u64::from(hi - lo) + 1;
        lo + u32::try_from(self.below(span)).unwrap_or(0)
    }

    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            let word = self.next_u64().to_le_bytes();
            let take = (len - out.len()).min(word.len());
            out.extend_from_slice(&word[..take]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_bounds() {
        let mut r = SplitMix64::new(7);
        for _ in 0..10_000 {
            let x = r.range_u32(3, 9);
            assert!((3..=9).contains(&x));
            assert!(r.below(5) < 5);
        }
        assert_eq!(r.below(0), 0);
        assert_eq!(r.range_u32(4, 4), 4);
        assert_eq!(r.range_u32(5, 2), 5);
        assert!(!r.chance(0, 3));
        assert!(r.chance(3, 3));
        assert_eq!(r.bytes(13).len(), 13);
    }

    /// The bytes are the draws' little-endian words, cut at `len`.
    #[test]
    fn bytes_are_the_draws_in_order() {
        let mut words = SplitMix64::new(3);
        let (a, b) = (words.next_u64(), words.next_u64());
        let mut expected = a.to_le_bytes().to_vec();
        expected.extend_from_slice(&b.to_le_bytes()[..3]);
        assert_eq!(SplitMix64::new(3).bytes(11), expected);
    }
}
