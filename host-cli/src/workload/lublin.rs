//! The Lublin-Feitelson model of rigid parallel jobs.
//!
//! U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
//! modeling the characteristics of rigid jobs", J. Parallel and Distributed
//! Computing 63(11):1105-1122, 2003. The parameters are those of the
//! authors' reference implementation `m_lublin99.c` (Parallel Workloads
//! Archive, <https://www.cs.huji.ac.il/labs/parallel/workload/models.html>),
//! and the sampling follows that code step by step.
//!
//! **Job type.** The model has one parameter set for batch jobs and one for
//! interactive jobs. `m_lublin99.c` as published (`INCLUDE_JOBS_TYPE 1`)
//! runs both arrival streams side by side and takes whichever job comes
//! first. This module generates the **batch stream only** ([`BATCH`]): a
//! batch scheduler with run-time estimates sees batch jobs, and the
//! estimate model ([`crate::workload::estimates`]) was fitted to batch logs.
//! The other published set (interactive jobs, `*_ACTIVE` there) is not used.
//!
//! A job is drawn in three steps, as `m_lublin99.c` does:
//!
//! 1. **Arrival** (`arrive`, `calc_next_arrive`). A day has 48 half-hour
//!    buckets. Bucket `j` gets the weight `F(i + 0.5) - F(i - 0.5)` for the
//!    `i` in `11..59` with `(i - 1) mod 48 = j`, `F` the CDF of
//!    `Gamma(anum, bnum)` (so the day's busiest bucket is 13:00-13:30),
//!    and the weights are scaled to average 1. Each inter-arrival draws
//!    `g ~ Gamma(aarr * arar, barr)` (again while `g > 13`) and adds
//!    `e^g / 1800` points; time walks forward bucket by bucket, each bucket
//!    costing its weight in points for its 1800 s, and the remainder is
//!    spread within the bucket it stops in. Over whole days a point is
//!    1800 s, so the mean inter-arrival time is `E[e^g | g <= 13]` (3,517 s
//!    for batch jobs), with more arrivals by day than by night. Time starts
//!    at midnight (`START 0`), the first job after one inter-arrival.
//! 2. **Size** (`calc_number_of_nodes`). With probability `serial_prob` the
//!    job is serial. Otherwise `x` is drawn from a two-stage uniform: with
//!    probability `u_prob` uniform on `[u_low, u_med]`, else on
//!    `[u_med, u_hi]`; with probability `pow2_prob` (of all jobs) `x` is
//!    rounded to an integer; the size is `round(2^x)`.
//! 3. **Run time** (`time_from_nodes`). `ln(run time)` is hyper-gamma: with
//!    probability `p = pa * size + pb` (clamped to `[0, 1]`) it is
//!    `Gamma(a1, b1)`, else `Gamma(a2, b2)`, drawn again while above 12;
//!    the run time is `floor(e^x)` seconds (at most `e^12` = 162,754 s,
//!    the model's `MaxRuntime`). Larger jobs are longer: `pa < 0`.
//!
//! Gamma variates are drawn with Marsaglia and Tsang's method
//! ([`Draws::gamma`]) rather than the code's sum-of-exponentials
//! method (same distribution, exact either way).
//!
//! **Machine size.** The published batch size parameters are for 128
//! processors (`u_hi = 7`, `u_med = 5`). For `P` processors this module
//! sets `u_hi = log2(P)` and `u_med = u_hi - 2`, as the code's comments
//! direct ("UHi is the log2 of the maximal size of a job in the system";
//! the batch set keeps `u_med` two below it), clamped to `u_low <= u_med
//! <= u_hi`, with `u_low = min(1.2, u_hi)`. When `P` is not a power of
//! two, a power-of-two job rounded above `P` gets the largest power of two
//! below `P`, and any size is at most `P`.
//!
//! **Load.** The inter-arrival times are divided by a rate factor:
//! [`LublinModel::new`]'s `rate` (`rate > 1` is heavier). The daily cycle
//! keeps its 24 hours: the factor scales the points each arrival pays, not
//! the clock. At rate 1 the published batch parameters offer about 0.36 of
//! a 128-processor machine (mean work about 163,000 processor-seconds a
//! job, one job every 3,517 s).
//!
//! **Checked against the reference code's output.** With `TYPELESS` (the test's parameters) on
//! 256 processors this generator reproduces `lublin_256.swf` (10,000 jobs
//! that `m_lublin99.c` wrote for RLScheduler): the two-sample
//! Kolmogorov-Smirnov distances of inter-arrival times, run times and
//! sizes are below 0.02 (a test does this when the trace is at hand).

use crate::workload::rng::{gamma_cdf, Draws, SplitMix64};

/// Half-hour buckets in a day.
pub(crate) const BUCKETS: usize = 48;
/// Seconds in a bucket.
pub(crate) const SECONDS_IN_BUCKET: f64 = 1800.0;
/// The hour the cyclic day starts at (`CYCLIC_DAY_START`).
pub(crate) const CYCLIC_DAY_START: usize = 11;
/// Log run times above this are drawn again (`TOO_MUCH_TIME`).
pub(crate) const TOO_MUCH_TIME: f64 = 12.0;
/// Log inter-arrival times above this are drawn again
/// (`TOO_MUCH_ARRIVE_TIME`).
pub(crate) const TOO_MUCH_ARRIVE_TIME: f64 = 13.0;
/// The model's longest run time, `floor(e^12)` seconds (the `MaxRuntime`
/// `m_lublin99.c` writes in its SWF header).
pub(crate) const MAX_RUNTIME: u32 = 162_754;

/// One published parameter set of the model (one job type).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct JobTypeParams {
    /// Probability that a job is serial (`SERIAL_PROB`).
    pub(crate) serial_prob: f64,
    /// Probability that a job is parallel with a power-of-two size
    /// (`POW2_PROB`).
    pub(crate) pow2_prob: f64,
    /// log2 of the smallest parallel size (`ULOW`).
    pub(crate) u_low: f64,
    /// The two-stage uniform's middle point for 128 processors (`UMED`).
    pub(crate) u_med: f64,
    /// log2 of the largest size for 128 processors (`UHI`).
    pub(crate) u_hi: f64,
    /// Probability of the two-stage uniform's lower stage (`UPROB`).
    pub(crate) u_prob: f64,
    /// Shape of the short run-time gamma (`A1`).
    pub(crate) a1: f64,
    /// Scale of the short run-time gamma (`B1`).
    pub(crate) b1: f64,
    /// Shape of the long run-time gamma (`A2`).
    pub(crate) a2: f64,
    /// Scale of the long run-time gamma (`B2`).
    pub(crate) b2: f64,
    /// Slope of the short gamma's probability in the size (`PA`).
    pub(crate) pa: f64,
    /// Intercept of the short gamma's probability (`PB`).
    pub(crate) pb: f64,
    /// Shape of the rush-hour log inter-arrival gamma (`AARR`).
    pub(crate) aarr: f64,
    /// Scale of the log inter-arrival gamma (`BARR`).
    pub(crate) barr: f64,
    /// Shape of the daily-cycle gamma (`ANUM`).
    pub(crate) anum: f64,
    /// Scale of the daily-cycle gamma, in half hours (`BNUM`).
    pub(crate) bnum: f64,
    /// Arrive-rush-to-all ratio: `aarr` is multiplied by it (`ARAR`).
    pub(crate) arar: f64,
}

impl JobTypeParams {
    /// The shape of the log inter-arrival gamma actually used,
    /// `aarr * arar`.
    #[must_use]
    pub(crate) fn arrival_shape(&self) -> f64 {
        self.aarr * self.arar
    }
}

/// The batch-job parameters of `m_lublin99.c` (`*_BATCH`).
pub(crate) const BATCH: JobTypeParams = JobTypeParams {
    serial_prob: 0.2927,
    pow2_prob: 0.6686,
    u_low: 1.2,
    u_med: 5.0,
    u_hi: 7.0,
    u_prob: 0.875,
    a1: 6.57,
    b1: 0.823,
    a2: 639.1,
    b2: 0.0156,
    pa: -0.003,
    pb: 0.6986,
    aarr: 6.0415,
    barr: 0.8531,
    anum: 6.1271,
    bnum: 5.2740,
    arar: 1.0519,
};

#[cfg(test)]
/// The typeless ("whole sample") parameters of `m_lublin99.c`, used there
/// when `INCLUDE_JOBS_TYPE` is 0; for reference.
pub(crate) const TYPELESS: JobTypeParams = JobTypeParams {
    serial_prob: 0.244,
    pow2_prob: 0.576,
    u_low: 0.8,
    u_med: 4.5,
    u_hi: 7.0,
    u_prob: 0.86,
    a1: 4.2,
    b1: 0.94,
    a2: 312.0,
    b2: 0.03,
    pa: -0.0054,
    pb: 0.78,
    aarr: 10.2303,
    barr: 0.4871,
    anum: 8.1737,
    bnum: 3.9631,
    arar: 1.0225,
};

/// How a job's size was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SizeKind {
    /// Serial: one processor.
    Serial,
    /// Parallel, the log2 size rounded to an integer.
    PowerOfTwo,
    /// Parallel, any size.
    Other,
}

/// One drawn job, before conversion to whole seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Draw {
    /// Arrival, seconds from the start (midnight of day 0).
    pub(crate) submit: f64,
    /// Processors.
    pub(crate) nodes: u32,
    /// How the size was drawn.
    pub(crate) kind: SizeKind,
    /// `ln(run time)`, at most [`TOO_MUCH_TIME`].
    pub(crate) log_runtime: f64,
}

impl Draw {
    /// The run time in whole seconds, `floor(e^log_runtime)`, as
    /// `m_lublin99.c` converts it (at least 1).
    #[must_use]
    pub(crate) fn runtime(&self) -> u32 {
        let t = libm::floor(libm::exp(self.log_runtime));
        // 1 <= t <= e^12 < u32::MAX.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let v = t as u32;
        v.max(1)
    }
}

/// The model for one machine size and arrival rate.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LublinModel {
    /// The published parameter set in use.
    pub(crate) params: JobTypeParams,
    /// Processors.
    pub(crate) procs: u32,
    /// log2 of the smallest parallel size, for this machine.
    pub(crate) u_low: f64,
    /// The two-stage uniform's middle point, for this machine.
    pub(crate) u_med: f64,
    /// log2 of the largest size, for this machine.
    pub(crate) u_hi: f64,
    /// Inter-arrival times are divided by this (> 1 is heavier).
    pub(crate) rate: f64,
    /// The 48 bucket weights, averaging 1 (index 0 is 00:00-00:30).
    pub(crate) weights: [f64; BUCKETS],
}

impl LublinModel {
    /// The batch-job model ([`BATCH`]) for `procs` processors (at least 1),
    /// with inter-arrival times divided by `rate` (positive and finite,
    /// else 1).
    #[must_use]
    pub(crate) fn new(procs: u32, rate: f64) -> Self {
        Self::with_params(BATCH, procs, rate)
    }

    /// The model with another published parameter set (sizes mapped to
    /// `procs` as for [`BATCH`], with the set's own `u_hi - u_med`).
    #[must_use]
    pub(crate) fn with_params(params: JobTypeParams, procs: u32, rate: f64) -> Self {
        let procs = procs.max(1);
        let u_hi = libm::log2(f64::from(procs));
        let u_low = params.u_low.min(u_hi);
        let u_med = (u_hi - (params.u_hi - params.u_med)).clamp(u_low, u_hi);
        let rate = if rate.is_finite() && rate > 0.0 {
            rate
        } else {
            1.0
        };
        Self {
            params,
            procs,
            u_low,
            u_med,
            u_hi,
            rate,
            weights: daily_weights(params.anum, params.bnum),
        }
    }

    /// Draws `n` jobs in arrival order from `rng`.
    pub(crate) fn draw_jobs(&self, n: usize, rng: &mut SplitMix64) -> Vec<Draw> {
        let mut arrivals = Arrivals::new(self, rng);
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            // As `arrive()`: this job's time, then the next inter-arrival,
            // then the size and run time.
            let submit = arrivals.time;
            arrivals.advance(rng);
            let (nodes, kind) = self.draw_size(rng);
            let log_runtime = self.draw_log_runtime(nodes, rng);
            out.push(Draw {
                submit,
                nodes,
                kind,
                log_runtime,
            });
        }
        out
    }

    /// A size (`calc_number_of_nodes`).
    pub(crate) fn draw_size(&self, rng: &mut SplitMix64) -> (u32, SizeKind) {
        let p = &self.params;
        let u = rng.next_f64();
        if u <= p.serial_prob {
            return (1, SizeKind::Serial);
        }
        let mut x = self.two_stage_uniform(rng);
        let kind = if u <= p.serial_prob + p.pow2_prob {
            x = libm::floor(x + 0.5);
            SizeKind::PowerOfTwo
        } else {
            SizeKind::Other
        };
        let size = libm::floor(libm::pow(2.0, x) + 0.5);
        // 1 <= size <= about 2 * procs: fits a u32 after the clamp.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let mut nodes = size.clamp(1.0, f64::from(u32::MAX)) as u32;
        if nodes > self.procs {
            nodes = match kind {
                SizeKind::PowerOfTwo => 1 << self.procs.ilog2(),
                _ => self.procs,
            };
        }
        (nodes, kind)
    }

    /// The two-stage uniform log2 size of a parallel job.
    pub(crate) fn two_stage_uniform(&self, rng: &mut SplitMix64) -> f64 {
        let (a, b) = if rng.next_f64() <= self.params.u_prob {
            (self.u_low, self.u_med)
        } else {
            (self.u_med, self.u_hi)
        };
        rng.next_f64() * (b - a) + a
    }

    /// The probability that a job of `nodes` processors draws its log run
    /// time from the short gamma: `pa * nodes + pb` in `[0, 1]`.
    #[must_use]
    pub(crate) fn short_probability(&self, nodes: u32) -> f64 {
        (self.params.pa * f64::from(nodes) + self.params.pb).clamp(0.0, 1.0)
    }

    /// `ln(run time)` of a job of `nodes` processors (`time_from_nodes`).
    pub(crate) fn draw_log_runtime(&self, nodes: u32, rng: &mut SplitMix64) -> f64 {
        let p = &self.params;
        let short = self.short_probability(nodes);
        loop {
            let (a, b) = if rng.next_f64() <= short {
                (p.a1, p.b1)
            } else {
                (p.a2, p.b2)
            };
            let x = rng.gamma(a, b);
            if x <= TOO_MUCH_TIME {
                return x;
            }
        }
    }
}

/// The 48 bucket weights of the daily cycle (`arrive_init`), averaging 1.
#[must_use]
pub(crate) fn daily_weights(anum: f64, bnum: f64) -> [f64; BUCKETS] {
    let mut w = [0.0; BUCKETS];
    for i in CYCLIC_DAY_START..BUCKETS + CYCLIC_DAY_START {
        let x = i as f64;
        w[(i - 1) % BUCKETS] = gamma_cdf(x + 0.5, anum, bnum) - gamma_cdf(x - 0.5, anum, bnum);
    }
    let mean = w.iter().sum::<f64>() / BUCKETS as f64;
    for v in &mut w {
        *v /= mean;
    }
    w
}

/// The arrival process of one job stream (`calc_next_arrive`).
#[derive(Clone, Debug)]
pub(crate) struct Arrivals<'a> {
    model: &'a LublinModel,
    /// The bucket the clock is in.
    bucket: usize,
    /// Points not yet paid to a bucket.
    points: f64,
    /// The fraction of the current bucket the last arrival was placed at.
    reminder: f64,
    /// The next arrival, seconds from the start.
    pub(crate) time: f64,
}

impl<'a> Arrivals<'a> {
    /// Starts at midnight and draws the first arrival, as `arrive_init`.
    pub(crate) fn new(model: &'a LublinModel, rng: &mut SplitMix64) -> Self {
        let mut a = Self {
            model,
            bucket: 0,
            points: 0.0,
            reminder: 0.0,
            time: 0.0,
        };
        a.advance(rng);
        a
    }

    /// Moves [`time`](Self::time) to the next arrival and returns the
    /// inter-arrival time.
    pub(crate) fn advance(&mut self, rng: &mut SplitMix64) -> f64 {
        let p = &self.model.params;
        let w = &self.model.weights;
        let g = loop {
            let g = rng.gamma(p.arrival_shape(), p.barr);
            if g <= TOO_MUCH_ARRIVE_TIME {
                break g;
            }
        };
        self.points += libm::exp(g) / (SECONDS_IN_BUCKET * self.model.rate);
        let mut next = 0.0;
        while self.points > w[self.bucket] {
            self.points -= w[self.bucket];
            self.bucket = (self.bucket + 1) % BUCKETS;
            next += SECONDS_IN_BUCKET;
        }
        let reminder = self.points / w[self.bucket];
        next += SECONDS_IN_BUCKET * (reminder - self.reminder);
        self.reminder = reminder;
        self.time += next;
        next
    }
}

#[cfg(test)]
mod tests;
