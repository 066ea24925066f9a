//! The distributions the workload models draw, on core's seeded generator.
//!
//! The random bits come from [`SplitMix64`] (Steele, Lea & Flood, OOPSLA
//! 2014), the kernel's own generator (`backfill_core::rng`); [`Draws`]
//! adds what the models need on top of it: uniform floats, integers below
//! a bound, choices and shuffles, exponential, standard normal (Marsaglia's
//! polar method) and gamma variates (Marsaglia & Tsang, "A simple method for
//! generating gamma variables", ACM TOMS 26(3), 2000). Every floating-point
//! function used goes through the `libm` crate (a pure-Rust port of musl's
//! libm), never the platform's C library, so a seed gives bit-identical
//! draws on every platform.
//!
//! Integers below a bound come two ways, and each model keeps the one it
//! was written with, so that a seed still gives the same workload:
//! [`Draws::below_exact`] (Lemire's multiply-shift with rejection, exactly
//! uniform: the user-estimate model's choices and shuffles) and core's
//! `SplitMix64::below` (the multiply-shift alone, bias below `n / 2^64`: the
//! farm generator's [`Draws::uniform`] and [`Draws::chance`]).

pub(crate) use backfill_core::rng::SplitMix64;

/// The distributions drawn from a [`SplitMix64`] stream.
pub(crate) trait Draws {
    /// A uniform float in `[0, 1)` (53 random bits: exact in an f64).
    fn next_f64(&mut self) -> f64;

    /// A uniform float in `(0, 1]`: safe to take the logarithm of.
    fn next_f64_nonzero(&mut self) -> f64 {
        1.0 - self.next_f64()
    }

    /// A uniform integer in `0..n` (`0` when `n` is 0). Lemire's
    /// multiply-shift with rejection: exactly uniform.
    fn below_exact(&mut self, n: u64) -> u64;

    /// A uniform index in `0..n` (`0` when `n` is 0), by
    /// [`below_exact`](Self::below_exact).
    fn index(&mut self, n: usize) -> usize {
        // usize fits in u64 on every supported target, and the result is
        // below n.
        usize::try_from(self.below_exact(n as u64)).unwrap_or(0)
    }

    /// Shuffles `items` in place (Fisher-Yates, by [`index`](Self::index)).
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }

    /// Uniform in `lo..=hi` (`lo <= hi`), by core's `below`.
    fn uniform(&mut self, range: (u32, u32)) -> u32;

    /// True with probability `percent` / 100, by core's `below`.
    fn chance(&mut self, percent: u32) -> bool;

    /// An exponential variate with mean `mean` (inversion).
    fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.next_f64_nonzero())
    }

    /// A standard normal variate (Marsaglia's polar method; the second
    /// variate of each pair is discarded, so no state is kept).
    fn normal(&mut self) -> f64 {
        loop {
            let u = 2.0 * self.next_f64() - 1.0;
            let v = 2.0 * self.next_f64() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                return u * libm::sqrt(-2.0 * libm::log(s) / s);
            }
        }
    }

    /// A gamma variate with shape `shape > 0` and scale `scale > 0`
    /// (mean `shape * scale`), by Marsaglia and Tsang's method; a shape
    /// below 1 uses `Gamma(shape + 1) * U^(1 / shape)`.
    fn gamma(&mut self, shape: f64, scale: f64) -> f64 {
        if shape < 1.0 {
            let g = self.gamma(shape + 1.0, 1.0);
            let u = self.next_f64_nonzero();
            return scale * g * libm::pow(u, 1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / libm::sqrt(9.0 * d);
        loop {
            let x = self.normal();
            let t = 1.0 + c * x;
            if t <= 0.0 {
                continue;
            }
            let v = t * t * t;
            let u = self.next_f64_nonzero();
            let x2 = x * x;
            if u < 1.0 - 0.0331 * x2 * x2 || libm::log(u) < 0.5 * x2 + d * (1.0 - v + libm::log(v))
            {
                return scale * d * v;
            }
        }
    }
}

impl Draws for SplitMix64 {
    fn next_f64(&mut self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let x = (self.next_u64() >> 11) as f64;
        x / (1u64 << 53) as f64
    }

    fn below_exact(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            // The low 64 bits of the product decide rejection.
            #[allow(clippy::cast_possible_truncation)]
            let low = m as u64;
            if low >= threshold {
                #[allow(clippy::cast_possible_truncation)]
                return (m >> 64) as u64;
            }
        }
    }

    fn uniform(&mut self, (lo, hi): (u32, u32)) -> u32 {
        let span = u64::from(hi.saturating_sub(lo)) + 1;
        let offset = u32::try_from(self.below(span)).unwrap_or(0);
        lo.saturating_add(offset)
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }
}

/// The regularised lower incomplete gamma function `P(a, x)`: the CDF at
/// `x` of a gamma distribution with shape `a` and scale 1 (`a > 0`).
///
/// Series for `x < a + 1`, Lentz's continued fraction otherwise (Press et
/// al., Numerical Recipes, section 6.2), to a relative 1e-15.
#[must_use]
pub(crate) fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let log_prefix = a * libm::log(x) - x - libm::lgamma(a);
    if x < a + 1.0 {
        let (mut ap, mut term) = (a, 1.0 / a);
        let mut sum = term;
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (sum * libm::exp(log_prefix)).clamp(0.0, 1.0)
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000u32 {
            let an = -f64::from(i) * (f64::from(i) - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (1.0 - libm::exp(log_prefix) * h).clamp(0.0, 1.0)
    }
}

/// The CDF at `x` of a gamma distribution with shape `shape` and scale
/// `scale`.
#[must_use]
pub(crate) fn gamma_cdf(x: f64, shape: f64, scale: f64) -> f64 {
    gamma_p(shape, x / scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_exact_is_in_range_and_covers_it() {
        let mut r = SplitMix64::new(3);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            let v = r.below_exact(7);
            seen[usize::try_from(v).unwrap()] += 1;
        }
        // Each value expects 1000 hits, standard deviation 29.
        assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
        assert_eq!(r.below_exact(0), 0);
        assert_eq!(r.below_exact(1), 0);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut r = SplitMix64::new(9);
        let mut v: Vec<u32> = (0..50).collect();
        r.shuffle(&mut v);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }

    /// Sample mean and variance of `n` draws.
    fn moments(n: u32, mut draw: impl FnMut() -> f64) -> (f64, f64) {
        let (mut s, mut s2) = (0.0, 0.0);
        for _ in 0..n {
            let x = draw();
            s += x;
            s2 += x * x;
        }
        let nf = f64::from(n);
        let mean = s / nf;
        (mean, s2 / nf - mean * mean)
    }

    #[test]
    fn normal_has_mean_zero_and_variance_one() {
        let mut r = SplitMix64::new(11);
        let n = 200_000;
        let (mean, var) = moments(n, || r.normal());
        // Standard error of the mean 1/sqrt(n) = 0.0022; of the variance
        // sqrt(2/n) = 0.0032. Five of each.
        assert!(mean.abs() < 0.012, "{mean}");
        assert!((var - 1.0).abs() < 0.016, "{var}");
    }

    #[test]
    fn gamma_has_the_right_mean_and_variance() {
        // Shapes the Lublin model uses, and one below 1.
        for (shape, scale) in [(6.57, 0.823), (639.1, 0.0156), (6.355, 0.8531), (0.4, 2.0)] {
            let mut r = SplitMix64::new(5);
            let n = 200_000;
            let (mean, var) = moments(n, || r.gamma(shape, scale));
            let (m, v) = (shape * scale, shape * scale * scale);
            // Standard error of the mean sqrt(v / n); of the variance about
            // v * sqrt((2 + 6 / shape) / n) (gamma excess kurtosis 6/shape).
            let se_mean = (v / f64::from(n)).sqrt();
            let se_var = v * ((2.0 + 6.0 / shape) / f64::from(n)).sqrt();
            assert!(
                (mean - m).abs() < 5.0 * se_mean,
                "{shape}: mean {mean} vs {m}"
            );
            assert!((var - v).abs() < 5.0 * se_var, "{shape}: var {var} vs {v}");
        }
    }

    #[test]
    fn gamma_cdf_matches_known_values() {
        // Shape 1 is the exponential: P(1, x) = 1 - e^-x.
        for x in [0.1f64, 1.0, 2.5, 10.0] {
            assert!((gamma_p(1.0, x) - (1.0 - (-x).exp())).abs() < 1e-12);
        }
        // Shape 2: 1 - (1 + x) e^-x, on both sides of x = a + 1.
        for x in [0.5f64, 2.9, 3.1, 8.0] {
            let want = 1.0 - (1.0 + x) * (-x).exp();
            assert!((gamma_p(2.0, x) - want).abs() < 1e-12, "{x}");
        }
        // Shape 0.5: erf(sqrt(x)); erf(1) = 0.842700792949715.
        assert!((gamma_p(0.5, 1.0) - 0.842_700_792_949_715).abs() < 1e-12);
        assert!(gamma_cdf(0.0, 3.0, 2.0).abs() < f64::EPSILON);
        assert!((gamma_cdf(1e6, 3.0, 2.0) - 1.0).abs() < 1e-12);
    }
}
