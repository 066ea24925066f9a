//! User run-time estimates: the model of Tsafrir, Etsion and Feitelson.
//!
//! D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling user runtime
//! estimates", JSSPP 2005, LNCS 3834, pp. 1-35. The parameters and the
//! steps are those of the authors' reference implementation
//! (`est_model.cc` / `est_model.hh` by Dan Tsafrir, Parallel Workloads
//! Archive, <https://www.cs.huji.ac.il/labs/parallel/workload/m_tsafrir05/>).
//!
//! Users pick estimates from a few round values, and the maximum allowed
//! is the most popular. The model first draws a histogram of estimates
//! ([`histogram`]), then hands them to jobs ([`assign`]):
//!
//! * **Number of distinct estimates** `K`: piecewise linear in the number of
//!   jobs through (0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90),
//!   (70000, 340), (250000, 565), and 565 beyond (5,000 jobs: 59).
//! * **Head**: the 20 most popular estimates. Their times: the maximum
//!   `M`; the 15 values found in all four logs studied (5, 10, 15, 20,
//!   30 min, 1, 2, 3, 4, 5, 6, 8, 10, 12, 18 h) below `M`; then "round"
//!   multiples of 200, 100, 50, 10, 5, 2, 1 h, 20, 10, 5 min counted down
//!   from `M` until there are 20. Their shares, by popularity rank `r`:
//!   `14.0491 e^(-0.177531 r) + 0.462513` percent for `r = 2..20`, and
//!   rank 1 takes the rest of 89% (21.74%). Rank 1 is the maximum; the
//!   other times get ranks at random, constrained by the table of time
//!   rank to popularity rank in the SDSC, CTC, KTH and Blue Horizon logs
//!   (each rank is due by the last time rank it held in any log; else the
//!   smaller of two draws from the pool of ranks the logs show up to this
//!   time rank).
//! * **Tail**: the other `K - 20` estimates share 11%: sizes
//!   `795.6 r^-2.267` for ranks `r = 21..K`, scaled to sum to 11%; times
//!   `M (a - 1) x / (a - x)` for `x = i / (K - 20)`, `i = 1..K-20`, with
//!   `a = 1 + 12.1039 K^-0.6026`, rounded to the minute and moved by +30,
//!   -30, +20, -20, +10 or -10 s to avoid another estimate or `M`; sizes
//!   and times are matched at random.
//! * **Jobs**: each share becomes `max(1, round(share * n))` jobs, then the
//!   bins are adjusted to sum to `n` (proportionally, then by one, then to
//!   one, then to zero, largest bins first).
//! * **Assignment**: run times above `M` are cut to `M`. Jobs are taken
//!   from the longest down; each gets an estimate drawn uniformly from the
//!   estimates not yet used that are at least its run time. So every
//!   estimate is at least its job's run time (no job is killed), and
//!   short jobs get long estimates as often as the histogram allows. If
//!   the `k`-th longest run time exceeds the `k`-th largest estimate no
//!   assignment exists; the reference code then stops with an error
//!   ([`EstimateError`]).
//!
//! **What this implementation leaves out or changes.** The model accepts
//! bins measured on a real system ("STRONGLY RECOMMENDED" in
//! `est_model.hh`); a generated workload has no system to measure, so none
//! are given and every bin comes from the model's defaults, the case the
//! reference code handles when the list is empty. Its two `random_shuffle`
//! calls before uniform picks from a pool are left out (a uniform pick
//! from a shuffled pool is a uniform pick), and ties in the sorts (equal
//! run times, equal bin sizes) are broken by position so a seed gives one
//! result. Randomness comes from [`SplitMix64`], not `drand48`.

use crate::workload::rng::{Draws, SplitMix64};
use std::collections::{BTreeMap, BTreeSet};

/// Seconds in a minute.
const MIN: u32 = 60;
/// Seconds in an hour.
const HOUR: u32 = 3600;
/// Number of head (most popular) estimates.
pub(crate) const TOP: usize = 20;
/// Percent of jobs using a head estimate (`binsiz_head_sum`).
pub(crate) const HEAD_PERCENT: f64 = 89.0;
/// Head sizes `a e^(b r) + c` percent for popularity ranks `r = 2..20`
/// (`binsiz_head_params`).
pub(crate) const HEAD_SIZE_PARAMS: [f64; 3] = [14.0491, -0.177_531, 0.462_513];
/// Tail sizes `a r^b` for ranks `r >= 21`, before scaling
/// (`binsiz_tail_params`).
pub(crate) const TAIL_SIZE_PARAMS: [f64; 2] = [795.6, -2.267];
/// Tail times' parameter `a = 1 + p K^q` (`bintim_param`).
pub(crate) const TAIL_TIME_PARAMS: [f64; 2] = [12.1039, -0.6026];
/// Points of the piecewise-linear number of distinct estimates as a
/// function of the number of jobs (`BINUM_LINEAR`).
pub(crate) const BINNUM_LINEAR: [(u32, u32); 7] = [
    (0, 0),
    (20, 10),
    (200, 20),
    (1000, 35),
    (10000, 90),
    (70000, 340),
    (250_000, 565),
];

/// The 15 estimates among the top 20 of all four logs studied
/// (`EST_JOINT`), in the reference code's order.
pub(crate) const JOINT_ESTIMATES: [u32; 15] = [
    5 * MIN,
    15 * MIN,
    10 * MIN,
    20 * MIN,
    30 * MIN,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    4 * HOUR,
    5 * HOUR,
    6 * HOUR,
    8 * HOUR,
    10 * HOUR,
    12 * HOUR,
    18 * HOUR,
];

/// Steps of the "round" estimates that complete the head (`EST_ROUND`).
const ROUND_STEPS: [u32; 10] = [
    200 * HOUR,
    100 * HOUR,
    50 * HOUR,
    10 * HOUR,
    5 * HOUR,
    2 * HOUR,
    HOUR,
    20 * MIN,
    10 * MIN,
    5 * MIN,
];

/// For each of the top 20 time ranks (0 is the maximum, then shortest to
/// longest), the popularity rank it had in the SDSC-SP2, CTC-SP2, KTH-SP2
/// and SDSC-Blue logs (`TIMRNK_TO_POPRNK`).
const TIME_RANK_TO_POPULARITY: [[usize; 4]; TOP] = [
    [3, 1, 1, 1],
    [1, 3, 4, 6],
    [4, 4, 10, 5],
    [17, 2, 14, 3],
    [13, 12, 20, 7],
    [7, 9, 2, 2],
    [8, 8, 3, 18],
    [18, 18, 7, 19],
    [2, 6, 12, 4],
    [6, 7, 6, 11],
    [16, 11, 19, 20],
    [10, 20, 5, 9],
    [5, 16, 18, 10],
    [15, 5, 16, 14],
    [14, 14, 9, 13],
    [19, 13, 17, 16],
    [11, 10, 15, 15],
    [12, 15, 13, 17],
    [9, 17, 8, 8],
    [20, 19, 11, 12],
];

/// One bin of the estimate histogram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bin {
    /// The estimate, seconds.
    pub(crate) time: u32,
    /// Jobs given this estimate.
    pub(crate) jobs: u32,
}

/// Why estimates could not be assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EstimateError {
    /// The largest estimate is below one hour (the model needs at least
    /// one, and 20 head estimates).
    MaxTooSmall(u32),
    /// The `rank`-th longest run time exceeds the `rank`-th largest
    /// estimate: the histogram cannot cover these run times.
    Uncovered {
        /// 0-based rank, longest first.
        rank: usize,
        /// The run time there.
        runtime: u32,
        /// The estimate there.
        estimate: u32,
    },
}

impl std::fmt::Display for EstimateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MaxTooSmall(m) => write!(
                f,
                "the maximal estimate ({m} s) must be at least one hour and allow 20 popular estimates"
            ),
            Self::Uncovered {
                rank,
                runtime,
                estimate,
            } => write!(
                f,
                "the estimate histogram cannot cover the run times: the run time of rank {rank} \
                 ({runtime} s) exceeds the estimate of that rank ({estimate} s)"
            ),
        }
    }
}

impl std::error::Error for EstimateError {}

/// The number of distinct estimates `K` for `jobs` jobs (the linear model).
#[must_use]
pub(crate) fn bin_count(jobs: u32) -> u32 {
    let (last_jobs, last_bins) = BINNUM_LINEAR[BINNUM_LINEAR.len() - 1];
    if jobs > last_jobs {
        return last_bins;
    }
    let mut k = 1;
    while k < BINNUM_LINEAR.len() && jobs > BINNUM_LINEAR[k].0 {
        k += 1;
    }
    let (x0, y0) = BINNUM_LINEAR[k - 1];
    let (x1, y1) = BINNUM_LINEAR[k];
    let slope = f64::from(y1 - y0) / f64::from(x1 - x0);
    let add = libm::round(f64::from(jobs - x0) * slope);
    // 0 <= add <= y1 - y0.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let add = add as u32;
    y0 + add
}

/// The head estimate times: the maximum first, then ascending
/// (`gen_head_bintim`).
///
/// # Errors
/// [`EstimateError::MaxTooSmall`] if `max_est` is below an hour or leaves
/// fewer than 20 head estimates.
pub(crate) fn head_times(max_est: u32) -> Result<Vec<u32>, EstimateError> {
    if max_est < HOUR {
        return Err(EstimateError::MaxTooSmall(max_est));
    }
    let mut v = vec![max_est];
    v.extend(JOINT_ESTIMATES.iter().copied().filter(|&e| e < max_est));
    for step in ROUND_STEPS {
        let start = (max_est / step) * step;
        let mut est = start;
        while est > 0 && v.len() < TOP {
            if !v.contains(&est) {
                v.push(est);
            }
            est -= step;
        }
    }
    v[1..].sort_unstable();
    if v.len() < TOP {
        return Err(EstimateError::MaxTooSmall(max_est));
    }
    Ok(v)
}

/// The head sizes (percent) by popularity rank, most popular first
/// (`gen_head_binsiz`).
#[must_use]
pub(crate) fn head_sizes() -> Vec<f64> {
    let [a, b, c] = HEAD_SIZE_PARAMS;
    let mut v: Vec<f64> = (2..=TOP)
        .map(|rank| a * libm::exp(b * rank as f64) + c)
        .collect();
    let rest: f64 = v.iter().sum();
    v.insert(0, HEAD_PERCENT - rest);
    v.sort_by(|x, y| y.total_cmp(x));
    v
}

/// The popularity rank (1-based) of each head time rank
/// (`gen_head_timrnk_poprnk_map`, without user bins).
pub(crate) fn head_ranks(rng: &mut SplitMix64) -> [usize; TOP] {
    // The last time rank at which each popularity rank appears in a log.
    let mut due = [0usize; TOP + 1];
    for (time_rank, row) in TIME_RANK_TO_POPULARITY.iter().enumerate() {
        for &rank in row {
            due[rank] = due[rank].max(time_rank);
        }
    }
    let mut chosen = [false; TOP + 1];
    let mut pool: Vec<usize> = Vec::new();
    let mut mapping = [0usize; TOP];
    for (time_rank, row) in TIME_RANK_TO_POPULARITY.iter().enumerate() {
        pool.extend(row.iter().copied().filter(|&r| !chosen[r]));
        let rank = if time_rank == 0 {
            // The maximum is the most popular.
            1
        } else if let Some(r) = (1..=TOP).find(|&r| due[r] <= time_rank && !chosen[r]) {
            r
        } else if pool.is_empty() {
            (1..=TOP).find(|&r| !chosen[r]).unwrap_or(TOP)
        } else {
            // Favour popular ranks: the smaller of two uniform picks.
            let first = pool[rng.index(pool.len())];
            let second = pool[rng.index(pool.len())];
            first.min(second)
        };
        mapping[time_rank] = rank;
        chosen[rank] = true;
        pool.retain(|&r| r != rank);
    }
    mapping
}

/// The tail estimate times, ascending (`gen_tail_bintim`).
fn tail_times(max_est: u32, binnum: u32, head: &BTreeSet<u32>, count: usize) -> Vec<u32> {
    let a = 1.0 + TAIL_TIME_PARAMS[0] * libm::pow(f64::from(binnum), TAIL_TIME_PARAMS[1]);
    const OFFSETS: [i64; 7] = [0, 30, -30, 20, -20, 10, -10];
    let mut taken = BTreeSet::new();
    for i in 1..=count {
        let x = i as f64 / count as f64;
        let y = (a - 1.0) * x / (a - x);
        let minutes = libm::round(y * f64::from(max_est) / 60.0);
        // 0 <= minutes <= max_est / 60.
        #[allow(clippy::cast_possible_truncation)]
        let sec = (minutes as i64) * 60;
        for off in OFFSETS {
            let s = sec + off;
            let Ok(s) = u32::try_from(s) else { continue };
            if s > 0 && s < max_est && !taken.contains(&s) && !head.contains(&s) {
                taken.insert(s);
                break;
            }
        }
    }
    taken.into_iter().collect()
}

/// The tail sizes (percent), largest first, summing to 11%
/// (`gen_tail_binsiz`).
#[must_use]
pub(crate) fn tail_sizes(count: usize) -> Vec<f64> {
    let [a, b] = TAIL_SIZE_PARAMS;
    let v: Vec<f64> = (0..count)
        .map(|i| a * libm::pow((TOP + 1 + i) as f64, b))
        .collect();
    let sum: f64 = v.iter().sum();
    // Already descending (b < 0).
    v.iter().map(|s| s * (100.0 - HEAD_PERCENT) / sum).collect()
}

/// Draws the estimate histogram for `jobs` jobs with largest estimate
/// `max_est` seconds (`est_gen_dist`). Bins are in ascending time; their
/// jobs sum to `jobs`.
///
/// # Errors
/// [`EstimateError::MaxTooSmall`].
pub(crate) fn histogram(
    jobs: u32,
    max_est: u32,
    rng: &mut SplitMix64,
) -> Result<Vec<Bin>, EstimateError> {
    let binnum = bin_count(jobs);
    let times = head_times(max_est)?;
    let sizes = head_sizes();
    let ranks = head_ranks(rng);
    let mut percent: BTreeMap<u32, f64> = BTreeMap::new();
    for (time_rank, &time) in times.iter().enumerate() {
        percent.insert(time, sizes[ranks[time_rank] - 1]);
    }
    let head: BTreeSet<u32> = times.iter().copied().collect();
    let tail_count = usize::try_from(binnum).unwrap_or(0).saturating_sub(TOP);
    let mut tail_t = tail_times(max_est, binnum, &head, tail_count);
    let mut tail_s = tail_sizes(tail_t.len());
    rng.shuffle(&mut tail_t);
    rng.shuffle(&mut tail_s);
    for (t, s) in tail_t.into_iter().zip(tail_s) {
        percent.insert(t, s);
    }
    let counts: BTreeMap<u32, u32> = percent
        .into_iter()
        .map(|(time, p)| {
            let n = libm::round(p * f64::from(jobs) / 100.0).max(1.0);
            // 1 <= n <= jobs + 1.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let n = n as u32;
            (time, n)
        })
        .collect();
    Ok(adjust(counts, jobs)
        .into_iter()
        .map(|(time, jobs)| Bin { time, jobs })
        .collect())
}

/// Makes the bin counts sum to `jobs` (`adjust_njobs`, no user bins):
/// passes over the bins, largest first (ties: shorter estimate first),
/// changing each by its share of the difference, then by one, then (when
/// removing) down to one, then down to zero.
fn adjust(mut counts: BTreeMap<u32, u32>, jobs: u32) -> BTreeMap<u32, u32> {
    let total: u64 = counts.values().map(|&n| u64::from(n)).sum();
    let target = u64::from(jobs);
    let add = target > total;
    let mut diff = target.abs_diff(total);
    let mut attempt = 0;
    while diff > 0 && attempt < 4 {
        let sum: u64 = counts.values().map(|&n| u64::from(n)).sum();
        let mut order: Vec<(u32, u32)> = counts.iter().map(|(&t, &n)| (t, n)).collect();
        order.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        #[allow(clippy::cast_precision_loss)]
        let f = diff as f64 / sum.max(1) as f64;
        for (time, n) in order {
            if n == 0 {
                continue;
            }
            let n64 = u64::from(n);
            let mut change = match attempt {
                0 => {
                    // ceil(f * n) <= diff + 1: fits.
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let c = libm::ceil(f * f64::from(n)) as u64;
                    c
                }
                1 => 1,
                2 => n64 - 1,
                _ => n64,
            };
            if !add {
                change = change.min(n64);
                if change == n64 && attempt != 3 {
                    change -= 1;
                }
            }
            change = change.min(diff);
            let entry = counts.entry(time).or_default();
            // change <= diff <= u32 range; when removing, change <= n.
            let c = u32::try_from(change).unwrap_or(u32::MAX);
            *entry = if add {
                entry.saturating_add(c)
            } else {
                *entry - c
            };
            diff -= change;
            if diff == 0 {
                break;
            }
        }
        attempt += 1;
    }
    counts
}

/// Gives each job an estimate from `bins` (`est_assign`). `runtimes` above
/// the largest estimate are first cut to it (in place). Returns one
/// estimate per job, in the order of `runtimes`; each is at least the
/// (cut) run time.
///
/// # Errors
/// [`EstimateError::Uncovered`] when the bins cannot cover the run times;
/// the bins' jobs must sum to `runtimes.len()`.
pub(crate) fn assign(
    bins: &[Bin],
    runtimes: &mut [u32],
    rng: &mut SplitMix64,
) -> Result<Vec<u32>, EstimateError> {
    let max_est = bins.iter().map(|b| b.time).max().unwrap_or(0);
    let mut ests: Vec<u32> = bins
        .iter()
        .flat_map(|b| std::iter::repeat_n(b.time, b.jobs as usize))
        .collect();
    ests.sort_unstable_by(|a, b| b.cmp(a));
    for r in runtimes.iter_mut() {
        *r = (*r).min(max_est);
    }
    let n = runtimes.len();
    if ests.len() != n {
        return Err(EstimateError::Uncovered {
            rank: ests.len().min(n),
            runtime: 0,
            estimate: 0,
        });
    }
    // Jobs by run time, longest first (ties: file order).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| runtimes[b].cmp(&runtimes[a]).then(a.cmp(&b)));
    for (k, &job) in order.iter().enumerate() {
        if runtimes[job] > ests[k] {
            return Err(EstimateError::Uncovered {
                rank: k,
                runtime: runtimes[job],
                estimate: ests[k],
            });
        }
    }
    let mut out = vec![0u32; n];
    let mut hi = 0;
    for j in 0..n {
        let runtime = runtimes[order[j]];
        hi = hi.max(j);
        while hi + 1 < n && runtime <= ests[hi + 1] {
            hi += 1;
        }
        let k = j + rng.index(hi - j + 1);
        out[order[j]] = ests[k];
        ests.swap(j, k);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
