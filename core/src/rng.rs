//! SplitMix64, the seeded pseudo-random generator of the randomised
//! policies (CONS+RS).
//!
//! G. L. Steele, D. Lea and C. H. Flood, *Fast splittable pseudorandom
//! number generators*, OOPSLA 2014. Sixty-four bits of state, integer
//! arithmetic only: the same seed gives the same sequence on every platform,
//! so a replay is reproducible from its seed.

/// A SplitMix64 generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from `seed`.
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The generator's state: [`SplitMix64::new`] of it continues the
    /// sequence from here (what a checkpoint keeps).
    #[must_use]
    pub const fn state(&self) -> u64 {
        self.0
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number uniform in `0..n` (0 when `n == 0`), by the multiply-high
    /// method (Lemire 2019, without the rejection step: its bias is below
    /// `n / 2^64`, far under anything a scheduler could notice).
    pub fn below(&mut self, n: u64) -> u64 {
        let wide = u128::from(self.next_u64()).wrapping_mul(u128::from(n));
        u64::try_from(wide >> 64).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sequence() {
        // Reference values of SplitMix64 from seed 0 (the C reference
        // implementation by Vigna).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
        // A generator rebuilt from the state continues the sequence.
        let mut again = SplitMix64::new(r.state());
        assert_eq!(again.next_u64(), r.next_u64());
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SplitMix64::new(42);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            let x = r.below(7);
            assert!(x < 7);
            seen[x as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
    }
}
