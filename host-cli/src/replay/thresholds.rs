//! Starvation thresholds: parsing them, deriving them from a Conservative
//! run (the selective-reservation paper's Tables 7 and 8), and saying which
//! were used.
//!
//! Thresholds are expansion factors, `(wait + estimate) / estimate`, held
//! by the kernel in thousandths ([`backfill_core::policy::Threshold`]):
//! `26.69` is `26690`. Text is rounded to the nearest thousandth.
//!
//! # From a Conservative run
//!
//! The paper's Selective threshold is the mean bounded slowdown of a
//! Conservative run of the same trace (same window, estimates and load);
//! Selective-D's are the per-category means. With user estimates the mean
//! is taken over the *well-estimated* jobs only: effective run time at
//! least half the estimate (`2 * run >= estimate`; a job killed at its
//! estimate ran all of it and counts as well estimated). With exact
//! estimates every job counts. Categories here are the report's (by the
//! trace's run time and processors); the kernel classifies a *waiting* job
//! by its estimate, since its run time is unknown then (with exact
//! estimates the two agree). A category without a counted job falls back to
//! the overall threshold, and the report says so.

use crate::replay::Estimates;
use backfill_core::{Category, CategoryBounds, JobRecord};
use serde::{Deserialize, Serialize};

/// Parses a decimal number into thousandths, rounding half up at the fourth
/// decimal: `"26.69"` is `26690`, `"1.0005"` is `1001`. Accepts digits with
/// an optional fractional part; no sign, exponent or blank inside.
///
/// # Errors
/// A message naming the text when it is not such a number or does not fit
/// in `u32` thousandths.
pub(crate) fn parse_milli(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digits(int) || !digits(frac) || (t.contains('.') && frac.is_empty()) {
        return Err(format!(
            "`{text}` is not a decimal number like 26.69 (digits, optionally a point and more digits)"
        ));
    }
    let too_big = || format!("`{text}` is too large (at most 4294967.295)");
    let int: u64 = int.parse().map_err(|_| too_big())?;
    let mut milli = int.checked_mul(1000).ok_or_else(too_big)?;
    let mut scale = 100;
    for b in frac.bytes().take(3) {
        milli += u64::from(b - b'0') * scale;
        scale /= 10;
    }
    if frac.as_bytes().get(3).is_some_and(|&b| b >= b'5') {
        milli += 1;
    }
    u32::try_from(milli).map_err(|_| too_big())
}

/// Parses a starvation threshold (an expansion factor, at least 1).
///
/// # Errors
/// As [`parse_milli`], or when the value is below 1.
pub(crate) fn parse_threshold(text: &str) -> Result<u32, String> {
    let milli = parse_milli(text)?;
    if milli < 1000 {
        return Err(format!(
            "threshold `{text}` is below 1: an expansion factor is at least 1"
        ));
    }
    Ok(milli)
}

/// Parses Selective-D's four thresholds, `SN,SW,LN,LW`.
///
/// # Errors
/// A message naming the category whose value is bad, or the count.
pub(crate) fn parse_thresholds(text: &str) -> Result<[u32; 4], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != 4 {
        return Err(format!(
            "`{text}`: expected four thresholds SN,SW,LN,LW, got {}",
            parts.len()
        ));
    }
    let mut out = [0; 4];
    for ((slot, part), category) in out.iter_mut().zip(&parts).zip(Category::ALL) {
        *slot = parse_threshold(part).map_err(|e| format!("{}: {e}", category.label()))?;
    }
    Ok(out)
}

/// Parses the scaled-adaptive factor (`--scale`), positive.
///
/// # Errors
/// As [`parse_milli`], or when the value is 0.
pub(crate) fn parse_scale(text: &str) -> Result<u32, String> {
    let milli = parse_milli(text)?;
    if milli == 0 {
        return Err(format!("scale `{text}` must be positive"));
    }
    Ok(milli)
}

/// Thousandths as text: `26690` is `26.69`, `26695` is `26.695`, `1500` is
/// `1.50` (at least two decimals).
#[must_use]
pub(crate) fn milli_text(milli: u32) -> String {
    let s = format!("{}.{:03}", milli / 1000, milli % 1000);
    s.strip_suffix('0').map_or_else(|| s.clone(), str::to_owned)
}

/// Thousandths as a float (for JSON and CSV).
#[must_use]
pub(crate) fn milli_f64(milli: u32) -> f64 {
    f64::from(milli) / 1000.0
}

/// A mean slowdown as thousandths, rounded to nearest, at least 1000 (an
/// expansion factor is never below 1) and saturating.
#[must_use]
pub(crate) fn to_milli(mean: f64) -> u32 {
    let m = (mean * 1000.0).round();
    if m.is_nan() || m <= 1000.0 {
        1000
    } else if m >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        // In range and positive: exact after rounding.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let v = m as u32;
        v
    }
}

/// Whether a finished job counts as well estimated: effective run time at
/// least half its estimate (a job killed at its estimate ran all of it).
#[must_use]
pub(crate) fn well_estimated(record: &JobRecord) -> bool {
    u64::from(record.run()) * 2 >= u64::from(record.slot.duration)
}

/// Mean bounded slowdown of one set of a Conservative run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SetMean {
    /// `all` or a category label.
    pub(crate) set: String,
    /// Jobs of the set that were counted (well estimated, with user estimates).
    pub(crate) jobs: u64,
    /// Jobs of the set in the run.
    pub(crate) jobs_in_set: u64,
    /// Their mean bounded slowdown; `None` without jobs.
    pub(crate) mean_bounded_slowdown: Option<f64>,
    /// The mean over every job of the set, for reference.
    pub(crate) mean_all_jobs: Option<f64>,
}

/// Thresholds derived from a Conservative run (Tables 7 and 8 of the paper).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ConservativeThresholds {
    /// Estimates the run used.
    pub(crate) estimates: Estimates,
    /// Whether only well-estimated jobs were averaged (user estimates).
    pub(crate) well_estimated_only: bool,
    /// Every job.
    pub(crate) overall: SetMean,
    /// SN, SW, LN, LW.
    pub(crate) categories: Vec<SetMean>,
    /// Category bounds used.
    pub(crate) bounds_short_max: u32,
    /// Category bounds used.
    pub(crate) bounds_narrow_max: u32,
}

fn set_mean(set: &str, records: &[&JobRecord], well_only: bool) -> SetMean {
    let mean = |it: &mut dyn Iterator<Item = &&JobRecord>| {
        let (mut n, mut sum) = (0u64, 0.0f64);
        for r in it {
            n += 1;
            sum += r.bounded_slowdown();
        }
        #[allow(clippy::cast_precision_loss)]
        let m = (n > 0).then(|| sum / n as f64);
        (n, m)
    };
    let (all_n, all_mean) = mean(&mut records.iter());
    let (n, m) = if well_only {
        mean(&mut records.iter().filter(|r| well_estimated(r)))
    } else {
        (all_n, all_mean)
    };
    SetMean {
        set: set.to_owned(),
        jobs: n,
        jobs_in_set: all_n,
        mean_bounded_slowdown: m,
        mean_all_jobs: all_mean,
    }
}

impl ConservativeThresholds {
    /// Derives the thresholds from a Conservative run's per-job records (in
    /// completion order, as the replay sums them).
    #[must_use]
    pub(crate) fn from_records(
        records: &[JobRecord],
        estimates: Estimates,
        bounds: CategoryBounds,
    ) -> Self {
        let well_only = estimates == Estimates::User;
        let all: Vec<&JobRecord> = records.iter().collect();
        let categories = Category::ALL
            .iter()
            .map(|&c| {
                let set: Vec<&JobRecord> = records
                    .iter()
                    .filter(|r| bounds.classify(r.runtime, r.job.procs) == c)
                    .collect();
                set_mean(c.label(), &set, well_only)
            })
            .collect();
        Self {
            estimates,
            well_estimated_only: well_only,
            overall: set_mean("all", &all, well_only),
            categories,
            bounds_short_max: bounds.short_max,
            bounds_narrow_max: bounds.narrow_max,
        }
    }

    /// Selective's threshold, thousandths: the overall mean (1.0 without jobs).
    #[must_use]
    pub(crate) fn fixed(&self) -> u32 {
        self.overall.mean_bounded_slowdown.map_or(1000, to_milli)
    }

    /// Selective-D's thresholds, thousandths, SN, SW, LN, LW; a category
    /// without counted jobs gets the overall threshold (listed in the second
    /// value).
    #[must_use]
    pub(crate) fn per_category(&self) -> ([u32; 4], Vec<String>) {
        let mut out = [self.fixed(); 4];
        let mut fallback = Vec::new();
        for (slot, set) in out.iter_mut().zip(&self.categories) {
            match set.mean_bounded_slowdown {
                Some(m) => *slot = to_milli(m),
                None => fallback.push(set.set.clone()),
            }
        }
        (out, fallback)
    }

    /// What the means were taken over, in words.
    #[must_use]
    pub(crate) fn basis_text(&self) -> String {
        if self.well_estimated_only {
            format!(
                "mean bounded slowdown of a Conservative run, over its {} well-estimated jobs \
                 (run >= estimate/2; {} jobs in all)",
                self.overall.jobs, self.overall.jobs_in_set
            )
        } else {
            format!(
                "mean bounded slowdown of a Conservative run, over all its {} jobs",
                self.overall.jobs
            )
        }
    }
}

/// Formats the thresholds the way the paper's Tables 7 and 8 do: a 2x2 grid
/// (rows S, L; columns N, W) of Selective-D thresholds, then the overall
/// (Selective) threshold, then the job counts behind each mean.
#[must_use]
pub(crate) fn grid_text(t: &ConservativeThresholds) -> String {
    use std::fmt::Write as _;
    let (per, fallback) = t.per_category();
    let cell = |i: usize| format!("{:.3}", milli_f64(per[i]));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Selective-D thresholds (short <= {} s, narrow <= {} processors)",
        t.bounds_short_max, t.bounds_narrow_max
    );
    let _ = writeln!(out, "       {:>9} {:>9}", "N", "W");
    let _ = writeln!(out, "  S    {:>9} {:>9}", cell(0), cell(1));
    let _ = writeln!(out, "  L    {:>9} {:>9}", cell(2), cell(3));
    let _ = writeln!(
        out,
        "Selective threshold (overall): {:.3}",
        milli_f64(t.fixed())
    );
    if !fallback.is_empty() {
        let _ = writeln!(
            out,
            "  no counted job in {}: the overall threshold is used there",
            fallback.join(", ")
        );
    }
    let _ = writeln!(out, "from the {}", t.basis_text());
    let _ = writeln!(
        out,
        "\n{:<5} {:>8} {:>12} {:>12} {:>14}",
        "set", "counted", "jobs in set", "mean bsld", "mean all jobs"
    );
    for s in std::iter::once(&t.overall).chain(&t.categories) {
        let f = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
        let _ = writeln!(
            out,
            "{:<5} {:>8} {:>12} {:>12} {:>14}",
            s.set,
            s.jobs,
            s.jobs_in_set,
            f(s.mean_bounded_slowdown),
            f(s.mean_all_jobs)
        );
    }
    out
}

/// How a policy's thresholds were chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThresholdSource {
    /// The policy has none.
    None,
    /// Given with `--threshold` or `--thresholds`.
    Given,
    /// From a Conservative run, asked for with `--threshold-from`.
    Conservative,
    /// From a Conservative run because no threshold option was given.
    DefaultConservative,
    /// The running mean of completed jobs' slowdowns (adaptive variants).
    Adaptive,
}

/// The thresholds a policy ran with, for reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ThresholdsUsed {
    /// How they were chosen.
    pub(crate) source: ThresholdSource,
    /// Selective's threshold (expansion factor).
    pub(crate) overall: Option<f64>,
    /// Selective-D's thresholds for SN, SW, LN, LW.
    pub(crate) per_category: Option<[f64; 4]>,
    /// Adaptive variants: the factor applied to the running mean.
    pub(crate) scale: Option<f64>,
    /// Adaptive variants: whether only well-estimated jobs are averaged.
    pub(crate) well_estimated_only: Option<bool>,
    /// Categories that had no counted Conservative job and use the overall threshold.
    pub(crate) fallback: Vec<String>,
    /// The values alone: `9.30`, `SN 9.033 SW 36.436 LN 1.82 LW 2.842`,
    /// `adaptive x1.50`; `-` for none.
    pub(crate) values: String,
    /// In words.
    pub(crate) text: String,
}

impl ThresholdsUsed {
    /// No thresholds (a policy without them).
    #[must_use]
    pub(crate) fn none() -> Self {
        Self {
            source: ThresholdSource::None,
            overall: None,
            per_category: None,
            scale: None,
            well_estimated_only: None,
            fallback: Vec::new(),
            values: "-".to_owned(),
            text: "-".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use backfill_core::{Job, Slot};

    #[test]
    fn thresholds_parse_to_thousandths() {
        assert_eq!(parse_threshold("26.69"), Ok(26_690));
        assert_eq!(parse_threshold("3.92"), Ok(3_920));
        assert_eq!(parse_threshold("1"), Ok(1_000));
        assert_eq!(parse_threshold(" 2.5 "), Ok(2_500));
        assert_eq!(parse_threshold("1.0005"), Ok(1_001), "rounds half up");
        assert_eq!(parse_threshold("1.00049"), Ok(1_000));
        assert_eq!(parse_threshold("4294967.295"), Ok(u32::MAX));
        for bad in [
            "",
            "x",
            "-2",
            "+2",
            "1e3",
            "1.",
            ".5",
            "1,5",
            "0.5",
            "4294967.296",
        ] {
            assert!(parse_threshold(bad).is_err(), "{bad:?} accepted");
        }
        assert!(parse_threshold("0.5").unwrap_err().contains("at least 1"));
        assert_eq!(
            parse_thresholds("22.30,72.40,1.72,2.59"),
            Ok([22_300, 72_400, 1_720, 2_590])
        );
        let err = parse_thresholds("22.30,x,1.72,2.59").unwrap_err();
        assert!(err.starts_with("SW:"), "{err}");
        assert!(parse_thresholds("1,2,3").unwrap_err().contains("four"));
        assert_eq!(parse_scale("1.5"), Ok(1500));
        assert!(parse_scale("0").is_err());
    }

    #[test]
    fn milli_text_keeps_two_decimals() {
        assert_eq!(milli_text(26_690), "26.69");
        assert_eq!(milli_text(26_695), "26.695");
        assert_eq!(milli_text(1_500), "1.50");
        assert_eq!(milli_text(1_000), "1.00");
        assert_eq!(to_milli(26.6899), 26_690);
        assert_eq!(to_milli(0.5), 1000);
        assert_eq!(to_milli(f64::NAN), 1000);
        assert_eq!(to_milli(1e12), u32::MAX);
    }

    fn record(id: u32, submit: u32, start: u32, run: u32, estimate: u32, procs: u32) -> JobRecord {
        let mut job = Job::new(id, submit, procs, estimate);
        job.tag = run;
        JobRecord {
            job,
            runtime: run,
            slot: Slot {
                start,
                machine: 0,
                duration: estimate,
            },
            end: start + run.min(estimate),
            killed: run > estimate,
            guarantee: None,
        }
    }

    #[test]
    fn well_estimated_means_per_category() {
        let b = CategoryBounds::DEFAULT;
        let records = [
            // SN, well estimated (100 of 150), slowdown (100 + 100) / 100 = 2.
            record(0, 0, 100, 100, 150, 1),
            // SN, badly estimated (100 of 1000), slowdown (300 + 100) / 100 = 4.
            record(1, 0, 300, 100, 1000, 1),
            // LW, killed at its estimate: well estimated; slowdown 1.5.
            record(2, 0, 2000, 9000, 4000, 16),
        ];
        let user = ConservativeThresholds::from_records(&records, Estimates::User, b);
        assert!(user.well_estimated_only);
        assert_eq!(user.overall.jobs, 2);
        assert_eq!(user.overall.jobs_in_set, 3);
        assert_eq!(user.overall.mean_bounded_slowdown, Some(1.75));
        assert_eq!(user.fixed(), 1750);
        let (per, fallback) = user.per_category();
        assert_eq!(per, [2000, 1750, 1750, 1500]);
        assert_eq!(fallback, ["SW", "LN"]);
        let exact = ConservativeThresholds::from_records(&records, Estimates::Exact, b);
        assert_eq!(exact.overall.jobs, 3);
        assert_eq!(exact.fixed(), 2500);
        assert_eq!(exact.per_category().0[0], 3000);
        let text = grid_text(&user);
        assert!(text.contains("  S        2.000     1.750"), "{text}");
        assert!(
            text.contains("Selective threshold (overall): 1.750"),
            "{text}"
        );
        assert!(text.contains("no counted job in SW, LN"), "{text}");
    }
}
