//! One SWF data line: its 18 integer fields, parsed and printed.
//!
//! This module knows the syntax of a data line only; what the fields mean for
//! the scheduler is decided in [`super::select()`].

use core::fmt;

/// Number of fields on an SWF data line.
pub(crate) const FIELD_COUNT: usize = 18;

/// Names of the 18 SWF fields, in file order: `FIELD_NAMES[n - 1]` names SWF
/// field `n` (fields are numbered from 1, as in the format's definition).
pub(crate) const FIELD_NAMES: [&str; FIELD_COUNT] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user ID",
    "group ID",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

/// The name of 1-based SWF field `field`, or `None` outside `1..=18`.
#[must_use]
pub(crate) fn field_name(field: usize) -> Option<&'static str> {
    field
        .checked_sub(1)
        .and_then(|i| FIELD_NAMES.get(i))
        .copied()
}

/// Writes `field N (name)`, or `field N` when `N` is not an SWF field (19
/// for an extra field).
pub(crate) struct FieldLabel(pub(crate) usize);

impl fmt::Display for FieldLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match field_name(self.0) {
            Some(name) => write!(f, "field {} ({name})", self.0),
            None => write!(f, "field {}", self.0),
        }
    }
}

/// Fields where archive logs sometimes write decimals (average CPU time and
/// used memory); a decimal there is rounded to the nearest integer.
const DECIMAL_FIELDS: [usize; 2] = [6, 7];

/// The status field (11) is a code, not a quantity: it accepts any integer.
///
/// The Sandia-Ross log writes status `-2` and `-4` on three lines, so
/// rejecting negative codes there would make a published archive log
/// unreadable. Every other field accepts only `-1` or non-negative values.
const STATUS_FIELD: usize = 11;

/// One data line's 18 fields, as written (`-1` = unknown).
///
/// This is syntax only: no field is interpreted. Every field is `>= -1`
/// except [`status`](Self::status), which may hold any integer.
///
/// [`Display`](fmt::Display) writes the 18 values separated by single
/// spaces, and `SwfRecord::parse_line(&r.to_string()) == Ok(r)` for every
/// record `r` that [`parse_line`](Self::parse_line) can return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SwfRecord {
    /// Field 1: job number, a counter identifying the job in the log.
    pub(crate) job_number: i64,
    /// Field 2: submit time, seconds since the start of the log.
    pub(crate) submit: i64,
    /// Field 3: wait time, seconds from submission to start.
    pub(crate) wait: i64,
    /// Field 4: run time, wall-clock seconds the job ran.
    pub(crate) run: i64,
    /// Field 5: number of allocated processors.
    pub(crate) allocated_procs: i64,
    /// Field 6: average CPU time used per processor, seconds (rounded if the
    /// file wrote a decimal).
    pub(crate) average_cpu: i64,
    /// Field 7: used memory per processor, kilobytes (rounded if the file
    /// wrote a decimal).
    pub(crate) used_memory: i64,
    /// Field 8: requested number of processors.
    pub(crate) requested_procs: i64,
    /// Field 9: requested time (the user's estimate), seconds.
    pub(crate) requested_time: i64,
    /// Field 10: requested memory per processor, kilobytes.
    pub(crate) requested_memory: i64,
    /// Field 11: status (1 completed, 0 failed, 5 cancelled, 2/3/4 partial
    /// execution; any integer is accepted).
    pub(crate) status: i64,
    /// Field 12: user ID.
    pub(crate) user: i64,
    /// Field 13: group ID.
    pub(crate) group: i64,
    /// Field 14: executable (application) number.
    pub(crate) executable: i64,
    /// Field 15: queue number.
    pub(crate) queue: i64,
    /// Field 16: partition number.
    pub(crate) partition: i64,
    /// Field 17: preceding job number.
    pub(crate) preceding_job: i64,
    /// Field 18: think time from the preceding job, seconds.
    pub(crate) think_time: i64,
}

impl SwfRecord {
    /// The 18 fields in file order (`fields()[n - 1]` is SWF field `n`).
    #[must_use]
    pub(crate) const fn fields(&self) -> [i64; FIELD_COUNT] {
        [
            self.job_number,
            self.submit,
            self.wait,
            self.run,
            self.allocated_procs,
            self.average_cpu,
            self.used_memory,
            self.requested_procs,
            self.requested_time,
            self.requested_memory,
            self.status,
            self.user,
            self.group,
            self.executable,
            self.queue,
            self.partition,
            self.preceding_job,
            self.think_time,
        ]
    }

    /// Builds a record from the 18 fields in file order. No validation.
    #[must_use]
    pub(crate) const fn from_fields(f: [i64; FIELD_COUNT]) -> Self {
        let [job_number, submit, wait, run, allocated_procs, average_cpu, used_memory, requested_procs, requested_time, requested_memory, status, user, group, executable, queue, partition, preceding_job, think_time] =
            f;
        Self {
            job_number,
            submit,
            wait,
            run,
            allocated_procs,
            average_cpu,
            used_memory,
            requested_procs,
            requested_time,
            requested_memory,
            status,
            user,
            group,
            executable,
            queue,
            partition,
            preceding_job,
            think_time,
        }
    }

    /// The value of 1-based SWF field `field`, or `None` outside `1..=18`.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn field(&self, field: usize) -> Option<i64> {
        field
            .checked_sub(1)
            .and_then(|i| self.fields().get(i).copied())
    }

    /// Whether this line records a piece of a checkpointed or swapped job
    /// (status 2, 3 or 4) rather than a job.
    #[must_use]
    pub(crate) const fn is_partial_execution(&self) -> bool {
        matches!(self.status, 2..=4)
    }

    /// Parses one data line.
    ///
    /// Fields are separated by any run of spaces and tabs; leading and
    /// trailing spaces/tabs and a trailing `\n` or `\r\n` are ignored. There
    /// must be exactly 18 fields. Each is a decimal integer (an optional sign,
    /// then digits) that is `-1` (unknown) or `>= 0` and fits in `i64`; the
    /// status field (11) accepts any integer. Fields 6 and 7 also accept
    /// decimal and exponent notation (`142.00`, `1.5e3`), rounded to the
    /// nearest integer (halves away from zero) before the same checks.
    ///
    /// The line must not be a comment: a `;` is reported as a bad field.
    ///
    /// # Errors
    ///
    /// A [`LineError`] naming the first offending field: wrong field count
    /// (the first missing field, or field 19 when there are too many), a
    /// value that is not an integer (or not a number in fields 6 and 7), a
    /// negative value other than `-1`, or a value beyond `i64`.
    pub fn parse_line(line: &str) -> Result<SwfRecord, LineError> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        Self::parse_bytes(line.as_bytes())
    }

    /// Parses one data line given as bytes, line end excluded: the rules of
    /// [`parse_line`](Self::parse_line), read byte by byte (a byte past ASCII
    /// is never part of a valid field). The trace reader calls this on its
    /// buffer directly.
    ///
    /// # Errors
    ///
    /// As [`parse_line`](Self::parse_line).
    pub(crate) fn parse_bytes(line: &[u8]) -> Result<SwfRecord, LineError> {
        let mut values = [0_i64; FIELD_COUNT];
        let mut at = 0;
        for (index, slot) in values.iter_mut().enumerate() {
            let field = index + 1;
            while matches!(line.get(at), Some(b' ' | b'\t')) {
                at += 1;
            }
            if let Some((value, end)) = plain_integer(line, at) {
                if value >= -1 || field == STATUS_FIELD {
                    *slot = value;
                    at = end;
                    continue;
                }
            }
            // Anything else (a sign other than a lone '-', 19 digits or more,
            // a decimal, a bad value) takes the general rules.
            let Some((token, _)) = line.get(at..).and_then(next_token) else {
                return Err(LineError {
                    field: Some(field),
                    kind: LineErrorKind::FieldCount { found: index },
                });
            };
            *slot = parse_field(token, field).map_err(|kind| LineError {
                field: Some(field),
                kind,
            })?;
            at += token.len();
        }
        let mut rest = line.get(at..).unwrap_or_default();
        let mut extra = 0;
        while let Some((_, after)) = next_token(rest) {
            extra += 1;
            rest = after;
        }
        if extra > 0 {
            return Err(LineError {
                field: Some(FIELD_COUNT + 1),
                kind: LineErrorKind::FieldCount {
                    found: FIELD_COUNT + extra,
                },
            });
        }
        Ok(SwfRecord::from_fields(values))
    }
}

/// The common token, read in one pass: an optional `-` and 1 to 18 digits
/// (so no overflow is possible) starting at `at` and ending at a space, a
/// tab or the end of the line. Its value and the index just past it; `None`
/// for any other token, which [`parse_field`] then reads by the general
/// rules.
fn plain_integer(line: &[u8], at: usize) -> Option<(i64, usize)> {
    let negative = line.get(at) == Some(&b'-');
    let first = if negative { at + 1 } else { at };
    let mut end = first;
    let mut value: i64 = 0;
    while let Some(&b) = line.get(end) {
        if !b.is_ascii_digit() || end - first == 18 {
            break;
        }
        value = value * 10 + i64::from(b - b'0');
        end += 1;
    }
    let ends = matches!(line.get(end), None | Some(b' ' | b'\t'));
    (end > first && ends).then_some((if negative { -value } else { value }, end))
}

/// The first token of `s` (a run of bytes other than space and tab) and what
/// follows it; `None` when only spaces and tabs are left.
fn next_token(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let is_gap = |b: &u8| *b == b' ' || *b == b'\t';
    let start = s.iter().position(|b| !is_gap(b))?;
    let s = s.get(start..)?;
    let end = s.iter().position(is_gap).unwrap_or(s.len());
    Some(s.split_at(end))
}

impl fmt::Display for SwfRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        for v in self.fields() {
            write!(f, "{sep}{v}")?;
            sep = " ";
        }
        Ok(())
    }
}

/// Parses one token as SWF field `field` (1-based).
fn parse_field(token: &[u8], field: usize) -> Result<i64, LineErrorKind> {
    let value = match parse_integer(token) {
        Some(Ok(v)) => v,
        Some(Err(())) => {
            return Err(LineErrorKind::OutOfRange {
                text: shorten(token),
            })
        }
        None if DECIMAL_FIELDS.contains(&field) => parse_decimal(token)?,
        None => {
            return Err(LineErrorKind::NotAnInteger {
                text: shorten(token),
            })
        }
    };
    if value < -1 && field != STATUS_FIELD {
        return Err(LineErrorKind::Negative {
            text: shorten(token),
        });
    }
    Ok(value)
}

/// `None` if `token` is not `[+-]?[0-9]+`; `Some(Err(()))` if it is but does
/// not fit in `i64`.
fn parse_integer(token: &[u8]) -> Option<Result<i64, ()>> {
    let (negative, digits) = match token {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, token),
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: i64 = 0;
    let mut overflow = false;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        let d = i64::from(b - b'0');
        let next = value.checked_mul(10).and_then(|v| {
            if negative {
                v.checked_sub(d)
            } else {
                v.checked_add(d)
            }
        });
        match next {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    Some(if overflow { Err(()) } else { Ok(value) })
}

/// Parses decimal or exponent notation (fields 6 and 7 only), rounded to the
/// nearest integer.
fn parse_decimal(token: &[u8]) -> Result<i64, LineErrorKind> {
    let numeric_chars = token
        .iter()
        .all(|&b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    // The character check keeps out "inf", "NaN" and the like, which
    // `f64::from_str` would accept.
    let parsed = if numeric_chars && token.iter().any(u8::is_ascii_digit) {
        std::str::from_utf8(token)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
    } else {
        None
    };
    let Some(x) = parsed else {
        return Err(LineErrorKind::NotANumber {
            text: shorten(token),
        });
    };
    let rounded = x.round();
    // -2^63 is exact in f64; 2^63 is the first value beyond i64::MAX.
    const LOW: f64 = -9_223_372_036_854_775_808.0;
    const HIGH: f64 = 9_223_372_036_854_775_808.0;
    if !(LOW..HIGH).contains(&rounded) {
        return Err(LineErrorKind::OutOfRange {
            text: shorten(token),
        });
    }
    #[allow(clippy::cast_possible_truncation)]
    Ok(rounded as i64)
}

/// Longest token text kept in an error, in bytes.
const MAX_ERROR_TEXT: usize = 40;

/// The token for an error message, cut to [`MAX_ERROR_TEXT`] bytes (at a
/// character boundary) with `...` appended when cut.
fn shorten(token: &[u8]) -> String {
    let token = String::from_utf8_lossy(token);
    if token.len() <= MAX_ERROR_TEXT {
        return token.into_owned();
    }
    let mut end = MAX_ERROR_TEXT;
    while !token.is_char_boundary(end) {
        end -= 1;
    }
    let mut s = token.get(..end).unwrap_or_default().to_owned();
    s.push_str("...");
    s
}

/// Why a data line could not be parsed, and in which field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The 1-based SWF field at fault: for a wrong field count, the first
    /// missing field, or 19 when there are too many fields.
    pub field: Option<usize>,
    /// What is wrong.
    pub kind: LineErrorKind,
}

/// What is wrong with a data line; see [`LineError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineErrorKind {
    /// The line does not have exactly 18 fields; `found` is how many it has.
    FieldCount {
        /// Number of whitespace-separated fields on the line.
        found: usize,
    },
    /// Not an integer (in any field but 6 and 7).
    NotAnInteger {
        /// The offending text (cut to 40 bytes).
        text: String,
    },
    /// Not a number (fields 6 and 7, which accept decimals).
    NotANumber {
        /// The offending text (cut to 40 bytes).
        text: String,
    },
    /// A negative value other than `-1`.
    Negative {
        /// The offending text (cut to 40 bytes).
        text: String,
    },
    /// A number beyond the range of `i64`.
    OutOfRange {
        /// The offending text (cut to 40 bytes).
        text: String,
    },
}

impl fmt::Display for LineErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FieldCount { found } if *found < FIELD_COUNT => {
                write!(f, "missing: found {found} fields, expected {FIELD_COUNT}")
            }
            Self::FieldCount { found } => {
                write!(
                    f,
                    "extra field: found {found} fields, expected {FIELD_COUNT}"
                )
            }
            Self::NotAnInteger { text } | Self::Negative { text } => {
                write!(
                    f,
                    "expected an integer >= -1, found '{}'",
                    text.escape_debug()
                )
            }
            Self::NotANumber { text } => {
                write!(
                    f,
                    "expected a number >= -1, found '{}'",
                    text.escape_debug()
                )
            }
            Self::OutOfRange { text } => {
                write!(f, "number out of range, found '{}'", text.escape_debug())
            }
        }
    }
}

impl fmt::Display for LineError {
    /// For example `field 4 (run time): expected an integer >= -1, found '1.5e3'`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(field) = self.field {
            write!(f, "{}: ", FieldLabel(field))?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for LineError {}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "1 0 10 3600 16 3500 1024 16 7200 2048 1 7 3 12 1 1 -1 -1";

    fn err(line: &str) -> LineError {
        SwfRecord::parse_line(line).unwrap_err()
    }

    /// A small deterministic generator, so tests need no extra crate.
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn parses_all_fields_in_order() {
        let r = SwfRecord::parse_line(LINE).unwrap();
        assert_eq!(r.job_number, 1);
        assert_eq!(r.submit, 0);
        assert_eq!(r.wait, 10);
        assert_eq!(r.run, 3600);
        assert_eq!(r.allocated_procs, 16);
        assert_eq!(r.average_cpu, 3500);
        assert_eq!(r.used_memory, 1024);
        assert_eq!(r.requested_procs, 16);
        assert_eq!(r.requested_time, 7200);
        assert_eq!(r.requested_memory, 2048);
        assert_eq!(r.status, 1);
        assert_eq!(r.user, 7);
        assert_eq!(r.group, 3);
        assert_eq!(r.executable, 12);
        assert_eq!(r.queue, 1);
        assert_eq!(r.partition, 1);
        assert_eq!(r.preceding_job, -1);
        assert_eq!(r.think_time, -1);
        for n in 1..=18 {
            assert_eq!(r.field(n), r.fields().get(n - 1).copied());
        }
        assert_eq!(r.field(0), None);
        assert_eq!(r.field(19), None);
        assert_eq!(SwfRecord::from_fields(r.fields()), r);
    }

    #[test]
    fn display_round_trips() {
        let r = SwfRecord::parse_line(LINE).unwrap();
        assert_eq!(r.to_string(), LINE);
        assert_eq!(SwfRecord::parse_line(&r.to_string()), Ok(r));
    }

    #[test]
    fn display_round_trips_random_records() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let interesting = [-1, 0, 1, i64::MAX, 4_294_967_295, 4_294_967_296];
        for _ in 0..20_000 {
            let mut f = [0_i64; FIELD_COUNT];
            for (i, v) in f.iter_mut().enumerate() {
                let x = rng.next();
                *v = match x % 4 {
                    0 => interesting[(x >> 8) as usize % interesting.len()],
                    1 => (x >> 40) as i64,
                    2 => (x >> 1) as i64,
                    _ => -1,
                };
                if i + 1 == STATUS_FIELD && x % 7 == 0 {
                    *v = (x as i64) | i64::MIN; // any negative status
                }
            }
            let r = SwfRecord::from_fields(f);
            assert_eq!(SwfRecord::parse_line(&r.to_string()), Ok(r), "{r}");
        }
    }

    #[test]
    fn whitespace_variants() {
        let want = SwfRecord::parse_line(LINE).unwrap();
        let variants = [
            format!("{LINE}\r\n"),
            format!("{LINE}\n"),
            format!("{LINE}   \t "),
            format!("  \t{LINE}"),
            LINE.replace(' ', "\t"),
            LINE.replace(' ', " \t  "),
            format!("{LINE} \r\n"),
        ];
        for v in &variants {
            assert_eq!(SwfRecord::parse_line(v), Ok(want), "{v:?}");
        }
    }

    #[test]
    fn too_few_fields_names_first_missing_field() {
        let line17 = "1 0 10 3600 16 3500 1024 16 7200 2048 1 7 3 12 1 1 -1";
        let e = err(line17);
        assert_eq!(e.field, Some(18));
        assert_eq!(e.kind, LineErrorKind::FieldCount { found: 17 });
        assert_eq!(
            e.to_string(),
            "field 18 (think time): missing: found 17 fields, expected 18"
        );
        let e = err("");
        assert_eq!(e.field, Some(1));
        assert_eq!(e.kind, LineErrorKind::FieldCount { found: 0 });
        let e = err("5 6");
        assert_eq!(e.field, Some(3));
        assert!(e.to_string().starts_with("field 3 (wait time): missing"));
    }

    #[test]
    fn too_many_fields_is_field_19() {
        let e = err(&format!("{LINE} 5"));
        assert_eq!(e.field, Some(19));
        assert_eq!(e.kind, LineErrorKind::FieldCount { found: 19 });
        assert_eq!(
            e.to_string(),
            "field 19: extra field: found 19 fields, expected 18"
        );
        let e = err(&format!("{LINE} 5 x 7 8"));
        assert_eq!(e.kind, LineErrorKind::FieldCount { found: 22 });
    }

    #[test]
    fn bad_field_error_comes_before_count_error() {
        // The first bad value is reported even if the count is also wrong.
        let e = err("1 x 3");
        assert_eq!(e.field, Some(2));
        assert!(matches!(e.kind, LineErrorKind::NotAnInteger { .. }));
    }

    fn with_field(field: usize, text: &str) -> String {
        let mut tokens: Vec<&str> = LINE.split(' ').collect();
        tokens[field - 1] = text;
        tokens.join(" ")
    }

    #[test]
    fn non_numeric_fields() {
        for field in 1..=18 {
            for bad in [
                "abc", "1x", "--1", "-", "+", "0x10", "1,5", ";", "∞", "nan", "inf",
            ] {
                let e = err(&with_field(field, bad));
                assert_eq!(e.field, Some(field), "{field} {bad}");
                if DECIMAL_FIELDS.contains(&field) {
                    assert_eq!(e.kind, LineErrorKind::NotANumber { text: bad.into() });
                } else {
                    assert_eq!(e.kind, LineErrorKind::NotAnInteger { text: bad.into() });
                }
            }
        }
        assert_eq!(
            err(&with_field(9, "abc")).to_string(),
            "field 9 (requested time): expected an integer >= -1, found 'abc'"
        );
    }

    #[test]
    fn float_only_in_fields_6_and_7() {
        assert_eq!(
            err(&with_field(4, "1.5e3")).to_string(),
            "field 4 (run time): expected an integer >= -1, found '1.5e3'"
        );
        let e = err(&with_field(2, "10.0"));
        assert_eq!(e.field, Some(2));
        assert_eq!(
            e.kind,
            LineErrorKind::NotAnInteger {
                text: "10.0".into()
            }
        );
        for field in (1..=18).filter(|f| !DECIMAL_FIELDS.contains(f)) {
            assert_eq!(err(&with_field(field, "2.00")).field, Some(field));
        }
        let cases = [
            ("142.00", 142),
            ("2.5", 3),
            ("2.49", 2),
            ("1.5e3", 1500),
            ("1E2", 100),
            (".5", 1),
            ("7.", 7),
            ("-1.0", -1),
            ("-0.4", 0),
            ("0.0", 0),
            ("+3.2", 3),
        ];
        for (text, want) in cases {
            let r6 = SwfRecord::parse_line(&with_field(6, text)).unwrap();
            assert_eq!(r6.average_cpu, want, "{text}");
            let r7 = SwfRecord::parse_line(&with_field(7, text)).unwrap();
            assert_eq!(r7.used_memory, want, "{text}");
        }
        // Rounded values obey the same rules as integers.
        let e = err(&with_field(6, "-2.5"));
        assert_eq!(
            e.kind,
            LineErrorKind::Negative {
                text: "-2.5".into()
            }
        );
        assert_eq!(
            err(&with_field(7, "1e300")).kind,
            LineErrorKind::OutOfRange {
                text: "1e300".into()
            }
        );
        assert_eq!(
            err(&with_field(7, "1e999")).kind,
            LineErrorKind::OutOfRange {
                text: "1e999".into()
            }
        );
        for bad in ["1.2.3", "e5", ".", "1e", "--1.0", "inf", "NaN", "infinity"] {
            assert_eq!(
                err(&with_field(6, bad)).kind,
                LineErrorKind::NotANumber { text: bad.into() },
                "{bad}"
            );
        }
        assert_eq!(
            err(&with_field(6, "x")).to_string(),
            "field 6 (average CPU time): expected a number >= -1, found 'x'"
        );
    }

    #[test]
    fn minus_one_accepted_in_every_field() {
        for field in 1..=18 {
            let r = SwfRecord::parse_line(&with_field(field, "-1")).unwrap();
            assert_eq!(r.field(field), Some(-1));
            for other in (1..=18).filter(|&o| o != field) {
                assert_eq!(
                    r.field(other),
                    SwfRecord::parse_line(LINE).unwrap().field(other)
                );
            }
        }
        let all = vec!["-1"; 18].join(" ");
        assert_eq!(SwfRecord::parse_line(&all).unwrap().fields(), [-1; 18]);
    }

    #[test]
    fn other_negatives_rejected_except_status() {
        for field in 1..=18 {
            let res = SwfRecord::parse_line(&with_field(field, "-5"));
            if field == STATUS_FIELD {
                assert_eq!(res.unwrap().status, -5);
            } else {
                let e = res.unwrap_err();
                assert_eq!(e.field, Some(field));
                assert_eq!(e.kind, LineErrorKind::Negative { text: "-5".into() });
            }
        }
        assert_eq!(
            err(&with_field(2, "-2")).to_string(),
            "field 2 (submit time): expected an integer >= -1, found '-2'"
        );
        // "-0" and "+7" are plain integers.
        let r = SwfRecord::parse_line(&with_field(2, "-0")).unwrap();
        assert_eq!(r.submit, 0);
        let r = SwfRecord::parse_line(&with_field(2, "+7")).unwrap();
        assert_eq!(r.submit, 7);
        let r = SwfRecord::parse_line(&with_field(2, "000123")).unwrap();
        assert_eq!(r.submit, 123);
    }

    #[test]
    fn huge_numbers() {
        // Beyond u32 is fine for the parser (select checks the u32 fields).
        let r = SwfRecord::parse_line(&with_field(2, "4294967296")).unwrap();
        assert_eq!(r.submit, 4_294_967_296);
        let r = SwfRecord::parse_line(&with_field(2, "9223372036854775807")).unwrap();
        assert_eq!(r.submit, i64::MAX);
        for big in [
            "9223372036854775808",
            "18446744073709551616",
            "99999999999999999999999999",
        ] {
            for field in 1..=18 {
                let e = err(&with_field(field, big));
                assert_eq!(e.field, Some(field));
                assert_eq!(e.kind, LineErrorKind::OutOfRange { text: big.into() });
            }
        }
        assert_eq!(
            err(&with_field(3, "18446744073709551616")).to_string(),
            "field 3 (wait time): number out of range, found '18446744073709551616'"
        );
        let r = SwfRecord::parse_line(&with_field(11, "-9223372036854775808")).unwrap();
        assert_eq!(r.status, i64::MIN);
        let e = err(&with_field(11, "-9223372036854775809"));
        assert!(matches!(e.kind, LineErrorKind::OutOfRange { .. }));
    }

    #[test]
    fn long_and_odd_tokens_are_shortened_and_escaped() {
        let long = "x".repeat(1000);
        let e = err(&with_field(1, &long));
        let LineErrorKind::NotAnInteger { text } = &e.kind else {
            panic!("{e:?}")
        };
        assert_eq!(text.len(), MAX_ERROR_TEXT + 3);
        let multibyte = "é".repeat(100);
        let e = err(&with_field(1, &multibyte));
        assert!(e.to_string().ends_with("...'"));
        let e = err(&with_field(1, "1\r2"));
        assert_eq!(
            e.to_string(),
            "field 1 (job number): expected an integer >= -1, found '1\\r2'"
        );
    }

    #[test]
    fn partial_execution_statuses() {
        for (status, partial) in [
            (-1, false),
            (0, false),
            (1, false),
            (2, true),
            (3, true),
            (4, true),
            (5, false),
        ] {
            let r = SwfRecord::parse_line(&with_field(11, &status.to_string())).unwrap();
            assert_eq!(r.is_partial_execution(), partial, "{status}");
        }
    }

    #[test]
    fn field_names() {
        assert_eq!(field_name(1), Some("job number"));
        assert_eq!(field_name(9), Some("requested time"));
        assert_eq!(field_name(18), Some("think time"));
        assert_eq!(field_name(0), None);
        assert_eq!(field_name(19), None);
        assert_eq!(FieldLabel(4).to_string(), "field 4 (run time)");
        assert_eq!(FieldLabel(19).to_string(), "field 19");
    }

    /// The one-pass reading of plain integers gives what the general rules
    /// give, token by token: every field of random lines of signs, digits
    /// (up to 20 of them, across the 18-digit fast-path bound) and
    /// separators is compared with `parse_field` on the same token.
    #[test]
    fn fast_path_agrees_with_the_general_rules() {
        let mut rng = XorShift(777);
        let odd: [&[u8]; 6] = [b"-", b"+", b"5.", b"e3", b"x", b"-2"];
        let (mut whole_lines, mut bad_lines) = (0, 0);
        for _ in 0..20_000 {
            let mut line = Vec::new();
            for _ in 0..FIELD_COUNT {
                line.extend_from_slice(if rng.next() % 2 == 0 { b" " } else { b"\t " });
                if rng.next() % 64 == 0 {
                    line.extend_from_slice(odd[(rng.next() % 6) as usize]);
                }
                if rng.next() % 8 == 0 {
                    line.extend_from_slice(b"-1");
                    continue;
                }
                if rng.next() % 64 == 0 {
                    line.push(b'-');
                }
                // Mostly short, sometimes past the 18-digit bound.
                let digits = if rng.next() % 8 == 0 { 21 } else { 6 };
                for _ in 0..1 + rng.next() % digits {
                    line.push(b'0' + (rng.next() % 10) as u8);
                }
            }
            let general = line
                .split(|&b| b == b' ' || b == b'\t')
                .filter(|t| !t.is_empty())
                .enumerate()
                .try_fold(Vec::new(), |mut values, (i, token)| {
                    parse_field(token, i + 1)
                        .map(|v| {
                            values.push(v);
                            values
                        })
                        .map_err(|kind| LineError {
                            field: Some(i + 1),
                            kind,
                        })
                });
            let fast = SwfRecord::parse_bytes(&line);
            match general {
                Ok(values) => {
                    whole_lines += 1;
                    assert_eq!(fast.unwrap().fields().to_vec(), values, "{line:?}");
                }
                Err(e) => {
                    bad_lines += 1;
                    assert_eq!(fast.unwrap_err(), e, "{line:?}");
                }
            }
        }
        assert!(
            whole_lines > 100 && bad_lines > 100,
            "{whole_lines} {bad_lines}"
        );
    }

    #[test]
    fn random_garbage_never_panics() {
        let mut rng = XorShift(12345);
        let alphabet = b"0123456789 -+.eE\t\r\n;x\xff";
        for _ in 0..20_000 {
            let len = (rng.next() % 80) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
                .collect();
            let s = String::from_utf8_lossy(&bytes);
            if let Err(e) = SwfRecord::parse_line(&s) {
                let _ = e.to_string();
            }
        }
    }
}
