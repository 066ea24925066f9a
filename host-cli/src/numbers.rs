//! Numbers as the reports print them: a value as a user would write it,
//! values rounded for CSV files, percent changes and their text.
//!
//! A leaf module: it uses no other module of the crate.

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

/// A percent change as table text: `+12.3%`, `-45.0%`, `-` for none.
#[must_use]
pub fn pct_text(change: Option<f64>) -> String {
    change.map_or_else(|| "-".to_owned(), |c| format!("{c:+.1}%"))
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
}
