//! The estimate model against its published formulas and tables.

use super::*;
use crate::workload::lublin::MAX_RUNTIME;

/// Bins from `(estimate, jobs)` pairs.
fn bins(pairs: &[(u32, u32)]) -> Vec<Bin> {
    pairs
        .iter()
        .map(|&(time, jobs)| Bin { time, jobs })
        .collect()
}

#[test]
fn bin_count_follows_the_linear_model() {
    assert_eq!(bin_count(0), 0);
    assert_eq!(bin_count(20), 10);
    assert_eq!(bin_count(110), 15);
    assert_eq!(bin_count(1000), 35);
    // 35 + round(4000 * 55 / 9000) = 35 + 24.
    assert_eq!(bin_count(5000), 59);
    assert_eq!(bin_count(250_000), 565);
    assert_eq!(bin_count(1_000_000), 565);
}

#[test]
fn head_times_are_the_maximum_joint_and_round_values() {
    let h = |hours: u32| hours * HOUR;
    let m = |minutes: u32| minutes * MIN;
    assert_eq!(
        head_times(MAX_RUNTIME).unwrap(),
        [
            MAX_RUNTIME,
            m(5),
            m(10),
            m(15),
            m(20),
            m(30),
            h(1),
            h(2),
            h(3),
            h(4),
            h(5),
            h(6),
            h(8),
            h(10),
            h(12),
            h(18),
            h(20),
            h(30),
            h(40),
            h(45)
        ]
    );
    // CTC's limit: 18 h is the maximum, 14 joint values below it, and
    // round values 17, 16, 15, 14, 13 h... counted down from it.
    let ctc = head_times(h(18)).unwrap();
    assert_eq!(ctc.len(), TOP);
    assert_eq!(ctc[0], h(18));
    assert!(ctc[1..].windows(2).all(|w| w[0] < w[1]));
    assert!(ctc[1..].iter().all(|&t| t < h(18)));
    assert_eq!(head_times(m(59)), Err(EstimateError::MaxTooSmall(m(59))));
}

#[test]
fn head_sizes_follow_the_exponential_model() {
    let s = head_sizes();
    assert_eq!(s.len(), TOP);
    assert!((s.iter().sum::<f64>() - HEAD_PERCENT).abs() < 1e-9);
    assert!(s.windows(2).all(|w| w[0] >= w[1]));
    // Rank 2: 14.0491 e^(-0.355062) + 0.462513.
    assert!((s[1] - (14.0491 * (-0.355_062f64).exp() + 0.462_513)).abs() < 1e-9);
    // Rank 1, the maximum, takes the rest of 89%: 21.74%.
    assert!((s[0] - 21.74).abs() < 0.01, "{}", s[0]);
}

#[test]
fn head_ranks_are_a_permutation_that_respects_the_logs() {
    for seed in 0..200 {
        let r = head_ranks(&mut SplitMix64::new(seed));
        assert_eq!(r[0], 1, "the maximum is the most popular");
        let mut sorted = r;
        sorted.sort_unstable();
        assert_eq!(sorted, core::array::from_fn(|i| i + 1));
        // Each time rank takes a popularity rank some log showed at that
        // time rank or before (the pool, or a rank falling due).
        for (time_rank, &rank) in r.iter().enumerate() {
            let first = (0..TOP)
                .find(|&t| TIME_RANK_TO_POPULARITY[t].contains(&rank))
                .unwrap();
            assert!(
                first <= time_rank,
                "seed {seed}: rank {rank} at {time_rank}"
            );
        }
    }
}

#[test]
fn tail_sizes_follow_the_power_law_and_sum_to_eleven_percent() {
    let s = tail_sizes(39);
    assert!((s.iter().sum::<f64>() - (100.0 - HEAD_PERCENT)).abs() < 1e-9);
    // Ratios are those of 795.6 r^-2.267 (the scale cancels).
    let ratio = (21.0f64 / 22.0).powf(-2.267);
    assert!((s[0] / s[1] - ratio).abs() < 1e-9);
}

#[test]
fn histogram_for_five_thousand_jobs() {
    let n = 5000;
    let bins = histogram(n, MAX_RUNTIME, &mut SplitMix64::new(1)).unwrap();
    assert_eq!(bins.iter().map(|b| b.jobs).sum::<u32>(), n);
    assert!(bins.windows(2).all(|w| w[0].time < w[1].time));
    assert!(bins.len() <= 59 && bins.len() >= 55, "{}", bins.len());
    assert!(bins.iter().all(|b| b.time > 0 && b.time <= MAX_RUNTIME));
    let top = bins.last().unwrap();
    assert_eq!(top.time, MAX_RUNTIME);
    // 21.74% of 5000 = 1087, before the adjustment to the exact total moves
    // each bin by its share of the rounding difference.
    assert!(top.jobs.abs_diff(1087) <= 10, "{}", top.jobs);
    let head = head_times(MAX_RUNTIME).unwrap();
    let in_head: u32 = bins
        .iter()
        .filter(|b| head.contains(&b.time))
        .map(|b| b.jobs)
        .sum();
    assert!(
        (f64::from(in_head) / f64::from(n) - 0.89).abs() < 0.005,
        "{in_head}"
    );
    // Tail times sit on minutes moved by multiples of 10 s.
    assert!(bins
        .iter()
        .all(|b| b.time == MAX_RUNTIME || b.time % 10 == 0));
}

#[test]
fn histogram_sums_to_the_job_count_for_tiny_workloads() {
    for n in [0, 1, 5, 19, 20, 21, 50, 199, 1000] {
        let bins = histogram(n, MAX_RUNTIME, &mut SplitMix64::new(2)).unwrap();
        assert_eq!(bins.iter().map(|b| b.jobs).sum::<u32>(), n, "{n}");
    }
}

#[test]
fn assignment_covers_every_run_time_with_the_histogram() {
    let bins = bins(&[(600, 3), (3600, 2), (7200, 1)]);
    let mut runtimes = vec![100, 3000, 3000, 50, 9000, 10];
    let ests = assign(&bins, &mut runtimes, &mut SplitMix64::new(3)).unwrap();
    // 9000 s is above the largest estimate: cut to it, and it takes it.
    assert_eq!(runtimes[4], 7200);
    assert_eq!(ests[4], 7200);
    // The two 3000 s jobs can only take the two 3600 s estimates.
    assert_eq!((ests[1], ests[2]), (3600, 3600));
    assert!(runtimes.iter().zip(&ests).all(|(r, e)| r <= e));
    let mut used = ests.clone();
    used.sort_unstable();
    assert_eq!(used, [600, 600, 600, 3600, 3600, 7200]);
}

#[test]
fn uncoverable_run_times_are_an_error() {
    let bins = bins(&[(600, 1), (3600, 1)]);
    let mut runtimes = vec![3000, 3000];
    assert_eq!(
        assign(&bins, &mut runtimes, &mut SplitMix64::new(4)),
        Err(EstimateError::Uncovered {
            rank: 1,
            runtime: 3000,
            estimate: 600
        })
    );
}

#[test]
fn short_jobs_get_long_estimates_as_often_as_the_histogram_allows() {
    // Every run time fits every estimate: the assignment is a uniform
    // shuffle, so the maximum's share among short jobs is its share.
    let n = 20_000;
    let bins = histogram(n, MAX_RUNTIME, &mut SplitMix64::new(5)).unwrap();
    let max_jobs = bins.last().unwrap().jobs;
    let mut runtimes = vec![10u32; n as usize];
    let ests = assign(&bins, &mut runtimes, &mut SplitMix64::new(6)).unwrap();
    let first_half = ests[..10_000].iter().filter(|&&e| e == MAX_RUNTIME).count();
    let p = f64::from(max_jobs) / f64::from(n);
    // Hypergeometric: below the binomial standard error.
    let se = (p * (1.0 - p) / 10_000.0).sqrt();
    assert!(
        (first_half as f64 / 10_000.0 - p).abs() < 5.0 * se,
        "{first_half} of 10000 vs {p}"
    );
}
