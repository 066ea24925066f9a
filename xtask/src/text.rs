//! Numbers as C's `printf("%g")` writes them, lists in sentences, and
//! the heads of Markdown tables.

use std::fmt::Display;

/// `items` separated by `, `: `a, b, c`.
pub fn comma_list(items: impl IntoIterator<Item = impl Display>) -> String {
    items
        .into_iter()
        .map(|item| item.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The two head lines of a Markdown table, each ending in a newline: the
/// `fixed` columns (name, alignment `---` or `---:`), then one column per
/// item of `numbers`, right-aligned.
pub fn table_head(
    fixed: &[(&str, &str)],
    numbers: impl IntoIterator<Item = impl Display>,
) -> String {
    let mut names: Vec<String> = fixed.iter().map(|(name, _)| (*name).to_owned()).collect();
    let mut aligns: Vec<&str> = fixed.iter().map(|(_, align)| *align).collect();
    for n in numbers {
        names.push(n.to_string());
        aligns.push("---:");
    }
    format!("| {} |\n| {} |\n", names.join(" | "), aligns.join(" | "))
}

/// `v` as `%.{precision}g` writes it: `precision` significant digits (at
/// least one), fixed or exponent notation by the exponent, trailing zeros
/// dropped.
pub fn g(v: f64, precision: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let p = precision.max(1);
    let sci = format!("{v:.*e}", p - 1);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let p_i = i32::try_from(p).unwrap_or(i32::MAX);
    if exp >= -4 && exp < p_i {
        let decimals = usize::try_from(p_i - 1 - exp).unwrap_or(0);
        let fixed = format!("{v:.decimals$}");
        if fixed.contains('.') {
            fixed.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            fixed
        }
    } else {
        let m = if mantissa.contains('.') {
            mantissa.trim_end_matches('0').trim_end_matches('.')
        } else {
            mantissa
        };
        format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_c_writes_them() {
        assert_eq!(g(4.0, 6), "4");
        assert_eq!(g(12.0, 6), "12");
        assert_eq!(g(4.5, 6), "4.5");
        assert_eq!(g(0.1, 6), "0.1");
        assert_eq!(g(1.0 / 3.0, 6), "0.333333");
        assert_eq!(g(1_234_567.0, 6), "1.23457e+06");
        assert_eq!(g(0.000_01, 6), "1e-05");
        assert_eq!(g(123.456, 3), "123");
        assert_eq!(g(1234.5, 3), "1.23e+03");
        assert_eq!(g(1.5, 3), "1.5");
    }

    #[test]
    fn table_heads_right_align_the_numbers() {
        assert_eq!(
            table_head(&[("trace", "---"), ("jobs", "---:")], ["easy", "fcfs"]),
            "| trace | jobs | easy | fcfs |\n| --- | ---: | ---: | ---: |\n"
        );
        assert_eq!(
            table_head(&[("policy", "---")], [0; 0]),
            "| policy |\n| --- |\n"
        );
    }

    #[test]
    fn lists_are_comma_separated() {
        assert_eq!(comma_list(["a", "b", "c"]), "a, b, c");
        assert_eq!(comma_list([7]), "7");
        assert_eq!(comma_list(Vec::<String>::new()), "");
    }
}
