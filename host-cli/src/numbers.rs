//! Numbers as the reports print them: a value as a user would write it,
//! values rounded for CSV files, percent changes and their text.
//!
//! A leaf module: it uses no other module of the crate. It also reads the
//! decimals the flexible-backfilling heuristics take.

/// A number as a user would write it: `1.5`, `1e-300`.
#[must_use]
pub(crate) fn number_text(v: f64) -> String {
    if v == 0.0 || (1e-4..1e9).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// `v` rounded to 4 decimals, for CSV files (values too large to round
/// stay as they are).
#[must_use]
pub(crate) fn round4(v: f64) -> f64 {
    if v.is_finite() && v.abs() < 1e11 {
        (v * 1e4).round() / 1e4
    } else {
        v
    }
}

/// `100 * (value - baseline) / baseline`; `None` when the baseline is 0 or
/// either value is not finite (an empty category, say). Negative is better
/// for every metric here.
#[must_use]
pub fn percent_change(value: f64, baseline: f64) -> Option<f64> {
    (baseline != 0.0 && baseline.is_finite() && value.is_finite())
        .then(|| 100.0 * (value - baseline) / baseline)
}

/// `part` in percent of `whole`, `100 * part / whole`; `None` when `whole`
/// is not positive (an empty set has no shares).
#[must_use]
pub(crate) fn percent_of(part: f64, whole: f64) -> Option<f64> {
    (whole > 0.0).then(|| 100.0 * part / whole)
}

/// The share of `part` items among `whole`, in percent; 0 for none among
/// none.
#[must_use]
pub(crate) fn share_pct(part: u64, whole: u64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    percent_of(part as f64, whole as f64).unwrap_or(0.0)
}

/// `n` and the noun that goes with it: `1 job`, `2 jobs`, `0 jobs`
/// (`one` for one, `many` for any other count).
#[must_use]
pub(crate) fn count_of(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `one` or `many`, whichever agrees with `n` (`has`/`have`, `was`/`were`).
#[must_use]
pub(crate) const fn agree<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// A percent change as table text: `+12.3%`, `-45.0%`, `-` for none.
#[must_use]
pub fn pct_text(change: Option<f64>) -> String {
    change.map_or_else(|| "-".to_owned(), |c| format!("{c:+.1}%"))
}

/// A non-negative decimal (`1`, `0.25`) in thousandths, as the command
/// line and plan files give the flexible-backfilling heuristics.
///
/// # Errors
/// A message for anything else or more than 4,000,000.
pub(crate) fn parse_thousandths(text: &str) -> Result<u32, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number, found '{text}'"))?;
    let milli = (v * 1000.0).round();
    if !(v.is_finite() && (0.0..=4e9).contains(&milli)) {
        return Err(format!(
            "expected a number from 0 to 4000000, found '{text}'"
        ));
    }
    // In range, rounded.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let milli = milli as u32;
    Ok(milli)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_written() {
        assert_eq!(number_text(1.5), "1.5");
        assert_eq!(number_text(1.0), "1");
        assert_eq!(number_text(1e-300), "1e-300");
        assert_eq!(number_text(0.0), "0");
        assert_eq!(number_text(2.5e12), "2.5e12");
    }

    #[test]
    fn round4_rounds_what_it_can() {
        assert_eq!(round4(1.234_56), 1.2346);
        assert_eq!(round4(-0.000_04), -0.0);
        assert_eq!(round4(2e12), 2e12);
        assert!(round4(f64::NAN).is_nan());
    }

    #[test]
    fn counts_agree_with_their_nouns() {
        assert_eq!(count_of(1, "job", "jobs"), "1 job");
        assert_eq!(count_of(0, "job", "jobs"), "0 jobs");
        assert_eq!(count_of(2, "job", "jobs"), "2 jobs");
        assert_eq!(agree(1, "has", "have"), "has");
        assert_eq!(agree(7, "has", "have"), "have");
    }

    #[test]
    fn percent_change_math() {
        assert_eq!(percent_change(12.0, 8.0), Some(50.0));
        assert_eq!(percent_change(4.0, 8.0), Some(-50.0));
        assert_eq!(percent_change(8.0, 8.0), Some(0.0));
        assert_eq!(percent_change(1.0, 0.0), None);
        assert_eq!(percent_change(f64::NAN, 1.0), None);
        assert_eq!(pct_text(Some(50.0)), "+50.0%");
        assert_eq!(pct_text(Some(-45.04)), "-45.0%");
        assert_eq!(pct_text(None), "-");
    }

    #[test]
    fn shares_of_an_empty_whole_are_none_or_zero() {
        assert_eq!(percent_of(1.0, 4.0), Some(25.0));
        assert_eq!(percent_of(0.0, 0.0), None);
        assert_eq!(share_pct(3, 4), 75.0);
        assert_eq!(share_pct(0, 0), 0.0);
    }
}
