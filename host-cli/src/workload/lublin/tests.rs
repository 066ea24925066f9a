//! Distribution checks: every drawn quantity against the model's own
//! formulas. Tolerances are five standard errors computed from those
//! formulas (except the daily cycle, where arrivals cluster; see there), so
//! a correct generator fails none of them by chance in practice, and the
//! seeds are fixed, so each test is deterministic.

use super::*;
use crate::workload::rng::gamma_p;

/// Jobs drawn per test.
const N: usize = 100_000;

fn model() -> LublinModel {
    LublinModel::new(128, 1.0)
}

/// `E[f(x)]` for `x` from the two-stage uniform of `m` (midpoint rule on a
/// fine grid; `f` is piecewise smooth, so the error is far below the
/// tolerances).
fn tsu_expect(m: &LublinModel, f: impl Fn(f64) -> f64) -> f64 {
    let mean_on = |a: f64, b: f64| {
        let steps = 200_000;
        let h = (b - a) / f64::from(steps);
        (0..steps)
            .map(|i| f(a + (f64::from(i) + 0.5) * h))
            .sum::<f64>()
            / f64::from(steps)
    };
    let p = m.params.u_prob;
    p * mean_on(m.u_low, m.u_med) + (1.0 - p) * mean_on(m.u_med, m.u_hi)
}

/// Five standard errors of a share `p` over `n` draws.
fn five_se_share(p: f64, n: usize) -> f64 {
    5.0 * (p * (1.0 - p) / n as f64).sqrt()
}

/// Asserts that `count` of [`N`] draws is a share within five standard
/// errors of `want`.
#[track_caller]
fn assert_share(count: usize, want: f64) {
    let got = count as f64 / N as f64;
    assert!(
        (got - want).abs() < five_se_share(want, N),
        "{got} vs {want}"
    );
}

fn sizes(m: &LublinModel, seed: u64) -> Vec<(u32, SizeKind)> {
    let mut rng = SplitMix64::new(seed);
    (0..N).map(|_| m.draw_size(&mut rng)).collect()
}

#[test]
fn share_of_serial_jobs_is_serial_prob() {
    let m = model();
    let s = sizes(&m, 1);
    let serial = s.iter().filter(|(n, _)| *n == 1).count();
    assert!(s
        .iter()
        .all(|&(n, k)| (k == SizeKind::Serial) == (n == 1) && (1..=128).contains(&n)));
    assert_share(serial, BATCH.serial_prob);
}

#[test]
fn share_of_power_of_two_sizes_matches_the_model() {
    let m = model();
    let s = sizes(&m, 2);
    let pow2 = s
        .iter()
        .filter(|(n, _)| *n > 1 && n.is_power_of_two())
        .count();
    // Rounded jobs are powers of two; the others are when round(2^x) is.
    let other = 1.0 - BATCH.serial_prob - BATCH.pow2_prob;
    let by_chance = tsu_expect(&m, |x| {
        let v = libm::floor(libm::pow(2.0, x) + 0.5) as u32;
        f64::from(u8::from(v > 1 && v.is_power_of_two()))
    });
    let want = BATCH.pow2_prob + other * by_chance;
    assert_share(pow2, want);
    assert!(
        s.iter()
            .filter(|(_, k)| *k == SizeKind::PowerOfTwo)
            .all(|(n, _)| n.is_power_of_two() && *n >= 2),
        "rounded sizes are powers of two from 2 up"
    );
}

#[test]
fn mean_log2_size_matches_the_model() {
    let m = model();
    let s = sizes(&m, 3);
    let logs: Vec<f64> = s.iter().map(|(n, _)| f64::from(*n).log2()).collect();
    let mean = logs.iter().sum::<f64>() / N as f64;
    let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / N as f64;
    let other = 1.0 - BATCH.serial_prob - BATCH.pow2_prob;
    // Serial jobs contribute log2(1) = 0.
    let want = BATCH.pow2_prob * tsu_expect(&m, |x| libm::floor(x + 0.5))
        + other * tsu_expect(&m, |x| libm::log2(libm::floor(libm::pow(2.0, x) + 0.5)));
    let tol = 5.0 * (var / N as f64).sqrt();
    assert!((mean - want).abs() < tol, "{mean} vs {want} (tol {tol})");
    // The model's two-stage uniform mean, (p (lo + med) + (1 - p)(med + hi)) / 2,
    // for the unrounded draws.
    let mut rng = SplitMix64::new(4);
    let xs: f64 = (0..N).map(|_| m.two_stage_uniform(&mut rng)).sum::<f64>() / N as f64;
    let p = BATCH.u_prob;
    let want_x = (p * (1.2 + 5.0) + (1.0 - p) * (5.0 + 7.0)) / 2.0;
    // Variance of the mixture is below ((7 - 1.2) / 2)^2.
    assert!(
        (xs - want_x).abs() < 5.0 * 2.9 / (N as f64).sqrt(),
        "{xs} vs {want_x}"
    );
}

#[test]
fn sizes_fit_machines_that_are_not_powers_of_two() {
    for procs in [1, 2, 3, 100, 338] {
        let m = LublinModel::new(procs, 1.0);
        let s = sizes(&m, 5);
        let below = 1 << procs.ilog2();
        assert!(s.iter().all(|&(n, k)| n >= 1
            && n <= procs
            && (k != SizeKind::PowerOfTwo || (n.is_power_of_two() && n <= below))));
        if procs >= 100 {
            assert!(s.iter().any(|&(n, _)| n == below));
        }
    }
}

/// `E[X; X <= c]`, `E[X^2; X <= c]` and `P(X <= c)` for `X ~ Gamma(a, b)`.
fn truncated_moments(a: f64, b: f64, c: f64) -> (f64, f64, f64) {
    (
        a * b * gamma_p(a + 1.0, c / b),
        a * (a + 1.0) * b * b * gamma_p(a + 2.0, c / b),
        gamma_p(a, c / b),
    )
}

/// Mean and variance of `ln(run time)` for a job of `nodes` processors:
/// the hyper-gamma mixture, conditioned on `x <= 12`.
fn log_runtime_moments(m: &LublinModel, nodes: u32) -> (f64, f64) {
    let p = m.short_probability(nodes);
    let (m1, s1, z1) = truncated_moments(BATCH.a1, BATCH.b1, TOO_MUCH_TIME);
    let (m2, s2, z2) = truncated_moments(BATCH.a2, BATCH.b2, TOO_MUCH_TIME);
    let z = p * z1 + (1.0 - p) * z2;
    let mean = (p * m1 + (1.0 - p) * m2) / z;
    let second = (p * s1 + (1.0 - p) * s2) / z;
    (mean, second - mean * mean)
}

#[test]
fn mean_log_run_time_by_size_class_matches_the_model() {
    let m = model();
    let mut rng = SplitMix64::new(6);
    let draws = m.draw_jobs(N, &mut rng);
    assert!(draws
        .iter()
        .all(|d| d.log_runtime >= 0.0 && d.log_runtime <= TOO_MUCH_TIME));
    for (lo, hi) in [(1, 1), (2, 8), (9, 32), (33, 128)] {
        let class: Vec<&Draw> = draws
            .iter()
            .filter(|d| (lo..=hi).contains(&d.nodes))
            .collect();
        let n = class.len() as f64;
        assert!(n > 2000.0, "class {lo}-{hi}: {n} jobs");
        let mean = class.iter().map(|d| d.log_runtime).sum::<f64>() / n;
        // Conditional on the sizes drawn: the mean of the per-job means,
        // and the standard error from the per-job variances.
        let (want, var) = class
            .iter()
            .map(|d| log_runtime_moments(&m, d.nodes))
            .fold((0.0, 0.0), |(a, b), (mu, v)| (a + mu, b + v));
        let want = want / n;
        let tol = 5.0 * var.sqrt() / n;
        assert!(
            (mean - want).abs() < tol,
            "class {lo}-{hi}: {mean} vs {want} (tol {tol})"
        );
    }
    // Larger jobs run longer (pa < 0): the class means increase.
    let (serial, _) = log_runtime_moments(&m, 1);
    let (wide, _) = log_runtime_moments(&m, 128);
    assert!(wide > serial + 1.5, "{serial} {wide}");
}

#[test]
fn share_of_long_serial_jobs_matches_the_mixture() {
    // Shape, not just the mean: the share of serial jobs running over
    // e^8 s (49 min), P(X > 8 | X <= 12) of the hyper-gamma.
    let m = model();
    let mut rng = SplitMix64::new(7);
    let xs: Vec<f64> = (0..N).map(|_| m.draw_log_runtime(1, &mut rng)).collect();
    let p = m.short_probability(1);
    let cdf = |a: f64, b: f64, x: f64| gamma_p(a, x / b);
    let above = |a: f64, b: f64| cdf(a, b, 12.0) - cdf(a, b, 8.0);
    let want = (p * above(BATCH.a1, BATCH.b1) + (1.0 - p) * above(BATCH.a2, BATCH.b2))
        / (p * cdf(BATCH.a1, BATCH.b1, 12.0) + (1.0 - p) * cdf(BATCH.a2, BATCH.b2, 12.0));
    assert_share(xs.iter().filter(|&&x| x > 8.0).count(), want);
}

#[test]
fn run_times_are_whole_seconds_of_the_log_draw() {
    let m = model();
    let mut rng = SplitMix64::new(8);
    for d in m.draw_jobs(10_000, &mut rng) {
        let r = d.runtime();
        assert!((1..=MAX_RUNTIME).contains(&r));
        assert!(f64::from(r) <= d.log_runtime.exp() + 1e-6);
        assert!(f64::from(r) + 1.0 > d.log_runtime.exp());
    }
    assert_eq!(
        Draw {
            submit: 0.0,
            nodes: 1,
            kind: SizeKind::Serial,
            log_runtime: TOO_MUCH_TIME
        }
        .runtime(),
        MAX_RUNTIME
    );
}

/// The gamma density with shape `a` and scale `b`.
fn gamma_pdf(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    ((a - 1.0) * x.ln() - x / b - libm::lgamma(a) - a * b.ln()).exp()
}

/// `E[e^(kG) | G <= 13]` for the batch log inter-arrival gamma (Simpson's
/// rule on 200,000 intervals).
fn arrival_moment(k: f64) -> f64 {
    let (a, b) = (BATCH.arrival_shape(), BATCH.barr);
    let steps = 200_000;
    let h = TOO_MUCH_ARRIVE_TIME / f64::from(steps);
    let f = |x: f64| (k * x).exp() * gamma_pdf(x, a, b);
    let mut s = f(0.0) + f(TOO_MUCH_ARRIVE_TIME);
    for i in 1..steps {
        let x = f64::from(i) * h;
        s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    s * h / 3.0 / gamma_p(a, TOO_MUCH_ARRIVE_TIME / b)
}

#[test]
fn mean_inter_arrival_time_matches_the_formula() {
    // Closed form: E[e^G; G <= c] = (1 - b)^-a P(a, c (1 - b) / b) for b < 1.
    let (a, b) = (BATCH.arrival_shape(), BATCH.barr);
    let closed = (1.0 - b).powf(-a) * gamma_p(a, TOO_MUCH_ARRIVE_TIME * (1.0 - b) / b)
        / gamma_p(a, TOO_MUCH_ARRIVE_TIME / b);
    let mu = arrival_moment(1.0);
    assert!((closed - mu).abs() < 1e-6 * mu, "{closed} vs {mu}");
    assert!((3500.0..3530.0).contains(&mu), "{mu}");
    let sd = (arrival_moment(2.0) - mu * mu).sqrt();
    let n = 1_000_000;
    for rate in [1.0, 2.5] {
        let m = LublinModel::new(128, rate);
        let mut rng = SplitMix64::new(9);
        let mut arrivals = Arrivals::new(&m, &mut rng);
        let start = arrivals.time;
        let mut total = 0.0;
        for _ in 0..n {
            let gap = arrivals.advance(&mut rng);
            assert!(gap >= 0.0);
            total += gap;
        }
        assert!((arrivals.time - start - total).abs() < 1e-3 * total);
        let mean = total / f64::from(n);
        // Over whole days a point is one bucket's 1800 s; the time within
        // the last day adds at most a day.
        let want = mu / rate;
        let tol = (5.0 * sd / f64::from(n).sqrt() + 86_400.0 / f64::from(n)) / rate;
        assert!(
            (mean - want).abs() < tol,
            "rate {rate}: {mean} vs {want} (tol {tol})"
        );
    }
}

#[test]
fn daily_weights_peak_after_noon_and_average_one() {
    let w = &model().weights;
    assert!((w.iter().sum::<f64>() - BUCKETS as f64).abs() < 1e-9);
    // The cycle gamma's mode (anum - 1) * bnum = 27.04 half hours falls in
    // the term i = 27, bucket (27 - 1) mod 48 = 26: 13:00-13:30.
    let peak = (0..BUCKETS).max_by(|&i, &j| w[i].total_cmp(&w[j])).unwrap();
    assert_eq!(peak, 26);
    assert!(w.iter().all(|&v| v > 0.0));
}

#[test]
fn daily_cycle_is_visible_in_the_arrivals() {
    let m = model();
    let mut rng = SplitMix64::new(10);
    let n: u32 = 1_000_000;
    let mut arrivals = Arrivals::new(&m, &mut rng);
    let mut per_bucket = [0u32; BUCKETS];
    for _ in 0..n {
        let b = (arrivals.time % 86_400.0 / SECONDS_IN_BUCKET) as usize;
        per_bucket[b.min(BUCKETS - 1)] += 1;
        arrivals.advance(&mut rng);
    }
    // A bucket holds w / 48 of the points, so of the arrivals.
    let shares = |range: std::ops::Range<usize>| {
        let got: u32 = per_bucket[range.clone()].iter().sum();
        let want: f64 = m.weights[range].iter().sum::<f64>() / BUCKETS as f64;
        (f64::from(got) / f64::from(n), want)
    };
    let (day, want_day) = shares(16..36); // 08:00-18:00
    let (night, want_night) = shares(0..12); // 00:00-06:00
                                             // Arrivals come in clusters (the median gap is far below a bucket), so
                                             // the binomial standard error understates the spread: ten of them.
    let tol = |p: f64| 2.0 * five_se_share(p, n as usize);
    assert!(
        (day - want_day).abs() < tol(want_day),
        "{day} vs {want_day}"
    );
    assert!(
        (night - want_night).abs() < tol(want_night),
        "{night} vs {want_night}"
    );
    // Per hour, the day is several times busier than the night.
    assert!(day / 10.0 > 3.0 * night / 6.0, "day {day}, night {night}");
}

#[test]
fn same_seed_same_draws() {
    let m = model();
    let a = m.draw_jobs(1000, &mut SplitMix64::new(42));
    assert_eq!(a, m.draw_jobs(1000, &mut SplitMix64::new(42)));
    assert_ne!(a, m.draw_jobs(1000, &mut SplitMix64::new(43)));
    assert!(a.windows(2).all(|w| w[0].submit <= w[1].submit));
    assert!(
        a[0].submit > 0.0,
        "the first job comes one gap after midnight"
    );
}

/// Kolmogorov-Smirnov distance between two samples.
fn ks_distance(a: &mut [u64], b: &mut [u64]) -> f64 {
    a.sort_unstable();
    b.sort_unstable();
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let v = a[i].min(b[j]);
        while i < a.len() && a[i] == v {
            i += 1;
        }
        while j < b.len() && b[j] == v {
            j += 1;
        }
        d = d.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    d
}

#[test]
fn typeless_parameters_reproduce_the_reference_code_output() {
    // lublin_256.swf: 10,000 jobs m_lublin99.c wrote with its typeless
    // parameters for 256 nodes (the copy RLScheduler ships).
    // The folder `BACKFILL_TRACES_DIR` names (`.ci/run` sets it); a
    // relative path is taken from where the command ran (`PWD`; cargo runs
    // tests from the package folder). Without it the test is skipped.
    let Some(d) = std::env::var_os("BACKFILL_TRACES_DIR") else {
        eprintln!("skipped: BACKFILL_TRACES_DIR is not set");
        return;
    };
    let dir = if std::path::Path::new(&d).is_relative() {
        std::env::var_os("PWD")
            .map_or_else(|| std::path::PathBuf::from("."), std::path::PathBuf::from)
            .join(d)
    } else {
        std::path::PathBuf::from(d)
    };
    let path = dir.join("lublin_256.swf.gz");
    if !path.exists() {
        eprintln!("skipped: {} not found", path.display());
        return;
    }
    let trace = crate::swf::load(&path).unwrap();
    let rec: Vec<_> = trace.records.iter().map(|(_, r)| *r).collect();
    assert_eq!(rec.len(), 10_000);
    let m = LublinModel::with_params(TYPELESS, 256, 1.0);
    let ours = m.draw_jobs(rec.len(), &mut SplitMix64::new(1));
    let gaps = |s: &[u64]| s.windows(2).map(|w| w[1] - w[0]).collect::<Vec<u64>>();
    let as_u64 = |v: i64| u64::try_from(v).unwrap();
    let mut ref_gaps = gaps(&rec.iter().map(|r| as_u64(r.submit)).collect::<Vec<_>>());
    let mut our_gaps = gaps(&ours.iter().map(|d| d.submit as u64).collect::<Vec<_>>());
    let mut ref_run: Vec<u64> = rec.iter().map(|r| as_u64(r.run)).collect();
    let mut our_run: Vec<u64> = ours.iter().map(|d| u64::from(d.runtime())).collect();
    let mut ref_size: Vec<u64> = rec.iter().map(|r| as_u64(r.allocated_procs)).collect();
    let mut our_size: Vec<u64> = ours.iter().map(|d| u64::from(d.nodes)).collect();
    // Two-sample KS critical value at alpha = 0.001:
    // sqrt(-ln(alpha / 2) / 2) * sqrt(2 / n).
    let n = rec.len() as f64;
    let critical = (-(0.0005f64).ln() / 2.0).sqrt() * (2.0 / n).sqrt();
    for (what, d) in [
        ("inter-arrival", ks_distance(&mut ref_gaps, &mut our_gaps)),
        ("run time", ks_distance(&mut ref_run, &mut our_run)),
        ("size", ks_distance(&mut ref_size, &mut our_size)),
    ] {
        assert!(d < critical, "{what}: KS distance {d} >= {critical}");
    }
}
