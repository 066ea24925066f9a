//! The built-in workload: the Lublin-Feitelson model with modelled user
//! estimates, seeded.
//!
//! `host-cli replay` with no trace replays this, and `host-cli generate
//! lublin` writes the same jobs as an SWF file. A workload is fully
//! determined by a [`SyntheticSpec`]:
//!
//! * jobs (arrival, size, run time): the batch-job model of Lublin and
//!   Feitelson (JPDC 2003) with its published parameters, for a machine of
//!   [`SyntheticSpec::procs`] processors ([`crate::workload::lublin`]);
//! * estimates: the model of Tsafrir, Etsion and Feitelson (JSSPP 2005),
//!   with the Lublin model's longest run time, [`MAX_RUNTIME`] = 162,754 s
//!   (45 h 12 min), as the site's maximal estimate ([`crate::workload::estimates`]):
//!   about 22% of the jobs ask for the maximum, most of the rest for one of
//!   19 round values (5 min ... 45 h), and no job runs past its estimate;
//! * arrival rate: the published one times [`SyntheticSpec::load`]
//!   (inter-arrival times divided by it; `load > 1` is heavier). The factor
//!   divides the points each arrival pays in the model's daily cycle, so a
//!   day stays 24 hours.
//!
//! **Load.** The default keeps the published arrival rate. Over a long run
//! it offers about 0.36 of a 128-processor machine (mean work about 163,000
//! processor-seconds a job, one arrival every 3,517 s on average). The
//! model's arrivals are bursty: the log inter-arrival time is gamma with a
//! standard deviation of 2.15, so the median gap is a few minutes while
//! the mean is an hour, and a day can bring three times the usual jobs.
//! Queues therefore build up in bursts even at this load, and the waits
//! and slowdowns under EASY are those of real logs run at 0.7 to 0.85
//! (`docs/design.md`, "Replaying SWF traces"); doubling the rate (`load` 2) offers 0.67 for
//! seed 1 and gives a mean wait of 17 hours and a mean bounded slowdown of
//! 279 under EASY, which no real site shows.
//!
//! The random stream is one [`SplitMix64`] from the seed: jobs first, then
//! the estimate histogram and assignment. Every float function comes from
//! `libm`, so a seed gives the same jobs on every platform.

use crate::swf::TraceJob;
use crate::workload::estimates::{self, EstimateError};
use crate::workload::lublin::{LublinModel, MAX_RUNTIME};

use crate::workload::rng::SplitMix64;

/// The SWF queue number written for the model's batch jobs (the job type
/// `m_lublin99.c` writes in field 15: 0 interactive, 1 batch).
pub(crate) const BATCH_QUEUE: i64 = 1;

/// Parameters of the built-in workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SyntheticSpec {
    /// Number of jobs.
    pub(crate) jobs: u32,
    /// Machine size (processors).
    pub(crate) procs: u32,
    /// Load factor: arrival rate relative to the published one
    /// (inter-arrival times are divided by it; > 1 is heavier).
    pub(crate) load: f64,
    /// PRNG seed.
    pub(crate) seed: u64,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        Self {
            jobs: 5000,
            procs: 128,
            load: 1.0,
            seed: 1,
        }
    }
}

impl SyntheticSpec {
    /// One line saying what this workload is, for reports.
    #[must_use]
    pub(crate) fn describe(&self) -> String {
        let mut s = format!(
            "built-in Lublin-Feitelson batch model (seed {}, {} jobs",
            self.seed, self.jobs
        );
        if (self.load - 1.0).abs() > f64::EPSILON {
            s.push_str(&format!(", arrival rate x{}", self.load));
        }
        s.push(')');
        s
    }
}

/// Saturating float-to-u32 conversion of a non-negative value.
fn to_u32(x: f64) -> u32 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        // In range and non-negative: truncation is the intent.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let v = x as u32;
        v
    }
}

/// Generates the workload, sorted by submit time; job numbers run from 1.
///
/// # Errors
/// [`EstimateError`] if the estimate model cannot cover the run times (the
/// reference implementation stops there too; not seen with the Lublin
/// model, whose run times never exceed the maximal estimate).
pub(crate) fn try_generate(spec: &SyntheticSpec) -> Result<Vec<TraceJob>, EstimateError> {
    let mut rng = SplitMix64::new(spec.seed);
    let model = LublinModel::new(spec.procs, spec.load);
    let n = usize::try_from(spec.jobs).unwrap_or(usize::MAX);
    let draws = model.draw_jobs(n, &mut rng);
    let mut runtimes: Vec<u32> = draws
        .iter()
        .map(crate::workload::lublin::Draw::runtime)
        .collect();
    let bins = estimates::histogram(spec.jobs, MAX_RUNTIME, &mut rng)?;
    let ests = estimates::assign(&bins, &mut runtimes, &mut rng)?;
    Ok(draws
        .iter()
        .zip(runtimes)
        .zip(ests)
        .zip(1u64..)
        .map(|(((d, runtime), estimate), number)| TraceJob {
            line: number,
            number,
            submit: to_u32(d.submit),
            runtime,
            procs: d.nodes,
            estimate: estimate.max(1),
            requested_time: Some(estimate),
            status: 1,
            user: None,
        })
        .collect())
}

/// [`try_generate`], with no jobs if the estimate model fails (it cannot
/// for the Lublin model's run times; see [`try_generate`]).
#[must_use]
pub(crate) fn generate(spec: &SyntheticSpec) -> Vec<TraceJob> {
    try_generate(spec).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_jobs_and_sane_values() {
        let spec = SyntheticSpec::default();
        let a = generate(&spec);
        assert_eq!(a, generate(&spec));
        assert_ne!(a, generate(&SyntheticSpec { seed: 2, ..spec }));
        assert_eq!(a.len(), 5000);
        assert!(a.windows(2).all(|w| w[0].submit <= w[1].submit));
        assert!(a.iter().all(|j| j.procs >= 1
            && j.procs <= 128
            && j.runtime >= 1
            && j.runtime <= MAX_RUNTIME
            && j.estimate >= j.runtime
            && j.estimate <= MAX_RUNTIME));
        assert!(a.iter().any(|j| j.procs == 128));
    }

    #[test]
    fn estimates_come_from_the_modal_set() {
        let jobs = generate(&SyntheticSpec::default());
        let head = estimates::head_times(MAX_RUNTIME).unwrap();
        let mut distinct: Vec<u32> = jobs.iter().map(|j| j.estimate).collect();
        distinct.sort_unstable();
        distinct.dedup();
        // At most the 59 bins the model gives 5000 jobs; every head value
        // used; the tail on minutes moved by multiples of 10 s.
        assert!(distinct.len() <= estimates::bin_count(5000) as usize);
        assert!(head.iter().all(|t| distinct.contains(t)));
        assert!(distinct.iter().all(|&e| head.contains(&e) || e % 10 == 0));
        // The maximum is the most popular: 21.74% (see head_sizes).
        let at_max = jobs.iter().filter(|j| j.estimate == MAX_RUNTIME).count();
        assert!((at_max as f64 / 5000.0 - 0.2174).abs() < 0.002, "{at_max}");
        let in_head = jobs.iter().filter(|j| head.contains(&j.estimate)).count();
        assert!((in_head as f64 / 5000.0 - 0.89).abs() < 0.005, "{in_head}");
    }

    #[test]
    fn the_load_factor_compresses_arrivals_only() {
        let spec = SyntheticSpec {
            jobs: 2000,
            ..SyntheticSpec::default()
        };
        let base = generate(&spec);
        let heavy = generate(&SyntheticSpec { load: 2.0, ..spec });
        // Same random stream: same sizes, run times and estimates.
        assert!(base
            .iter()
            .zip(&heavy)
            .all(|(a, b)| (a.procs, a.runtime, a.estimate) == (b.procs, b.runtime, b.estimate)));
        let span = |w: &[TraceJob]| f64::from(w[w.len() - 1].submit);
        let ratio = span(&base) / span(&heavy);
        // Twice the rate: about half the span (the daily cycle keeps 24
        // hours, so not exactly).
        assert!((1.7..2.3).contains(&ratio), "{ratio}");
    }

    #[test]
    fn describe_names_the_model_seed_and_size() {
        let spec = SyntheticSpec::default();
        assert_eq!(
            spec.describe(),
            "built-in Lublin-Feitelson batch model (seed 1, 5000 jobs)"
        );
        assert!(SyntheticSpec { load: 1.5, ..spec }
            .describe()
            .contains("arrival rate x1.5"));
    }
}
