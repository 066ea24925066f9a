//! The hard errors of reading and selecting a trace.

use core::fmt;
use std::io;

use super::record::{FieldLabel, LineErrorKind};

/// A hard error while reading a trace or converting its jobs, naming the
/// file and, where it applies, the line and the field.
///
/// Displayed as `file[:line]: [field N (name): ]message`, for example
/// `traces/x.swf:1234: field 9 (requested time): expected an integer >= -1, found 'abc'`,
/// `traces/x.swf.gz: corrupt gzip stream: ...` or `x.swf:17: invalid UTF-8`.
#[derive(Debug)]
pub struct SwfError {
    /// The trace's name (the path as given).
    pub file: String,
    /// The 1-based line number, when the error belongs to one line.
    pub line: Option<u64>,
    /// The 1-based SWF field, when the error belongs to one field.
    pub field: Option<usize>,
    /// What went wrong.
    pub kind: SwfErrorKind,
}

/// What went wrong; see [`SwfError`].
#[derive(Debug)]
#[non_exhaustive]
pub enum SwfErrorKind {
    /// The file could not be opened.
    Open(io::Error),
    /// Reading failed (other than a gzip problem).
    Read(io::Error),
    /// The gzip stream ends before its end marker and checksum.
    TruncatedGzip(io::Error),
    /// The gzip stream is damaged (bad header, bad deflate data or checksum
    /// mismatch).
    CorruptGzip(io::Error),
    /// The line is not valid UTF-8.
    InvalidUtf8,
    /// The line is longer than [`MAX_LINE_BYTES`](super::reader::MAX_LINE_BYTES)
    /// (no SWF line comes close; this guards memory against binary input).
    LineTooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// A data line could not be parsed; the field is in [`SwfError::field`].
    Line(LineErrorKind),
    /// A value that the scheduler needs as `u32` (submit time, run time,
    /// processors, requested time, user) is larger than `u32::MAX` (or, in a
    /// hand-built record, below `-1`); the field is in [`SwfError::field`].
    ValueOutOfRange {
        /// The value as written.
        value: i64,
    },
    /// A time value (the requested time, or the run time standing in for
    /// it) that cannot fit the replay's clock: a job submitted with the
    /// window's last submission would end past `u32::MAX` seconds.
    PastClock {
        /// The value, in seconds.
        value: u64,
        /// The window's last submit time (after `--load`).
        last_submit: u32,
    },
    /// A header value the replay needs (the machine size) does not parse;
    /// the header line is in [`SwfError::line`].
    HeaderValue {
        /// The key as written (`MaxProcs`).
        key: String,
        /// The value as written.
        value: String,
        /// What it should be, in words.
        expected: &'static str,
    },
}

impl fmt::Display for SwfErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Open(e) => write!(f, "cannot open: {e}"),
            Self::Read(e) => write!(f, "read error: {e}"),
            Self::TruncatedGzip(e) => write!(f, "truncated gzip stream: {e}"),
            Self::CorruptGzip(e) => write!(f, "corrupt gzip stream: {e}"),
            Self::InvalidUtf8 => f.write_str("invalid UTF-8"),
            Self::LineTooLong { limit } => write!(f, "line longer than {limit} bytes"),
            Self::Line(kind) => write!(f, "{kind}"),
            Self::ValueOutOfRange { value } => {
                write!(f, "value {value} is out of range (0 to {})", u32::MAX)
            }
            Self::PastClock { value, last_submit } => write!(
                f,
                "{value} s does not fit the replay clock: the window's last job is \
                 submitted at t={last_submit} s, and the clock ends at {} s (about 136 years)",
                u32::MAX
            ),
            Self::HeaderValue {
                key,
                value,
                expected,
            } => write!(
                f,
                "header {key}: '{}' is not {expected}",
                value.escape_debug()
            ),
        }
    }
}

impl fmt::Display for SwfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        f.write_str(": ")?;
        if let Some(field) = self.field {
            write!(f, "{}: ", FieldLabel(field))?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for SwfError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            SwfErrorKind::Open(e)
            | SwfErrorKind::Read(e)
            | SwfErrorKind::TruncatedGzip(e)
            | SwfErrorKind::CorruptGzip(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_forms() {
        let e = SwfError {
            file: "traces/x.swf".into(),
            line: Some(1234),
            field: Some(9),
            kind: SwfErrorKind::Line(LineErrorKind::NotAnInteger { text: "abc".into() }),
        };
        assert_eq!(
            e.to_string(),
            "traces/x.swf:1234: field 9 (requested time): expected an integer >= -1, found 'abc'"
        );
        let e = SwfError {
            file: "x.swf".into(),
            line: Some(17),
            field: None,
            kind: SwfErrorKind::InvalidUtf8,
        };
        assert_eq!(e.to_string(), "x.swf:17: invalid UTF-8");
        let e = SwfError {
            file: "traces/x.swf.gz".into(),
            line: None,
            field: None,
            kind: SwfErrorKind::CorruptGzip(io::Error::new(io::ErrorKind::InvalidInput, "boom")),
        };
        assert_eq!(e.to_string(), "traces/x.swf.gz: corrupt gzip stream: boom");
        assert!(std::error::Error::source(&e).is_some());
        let e = SwfError {
            file: "t.swf".into(),
            line: Some(3),
            field: Some(2),
            kind: SwfErrorKind::ValueOutOfRange {
                value: 4_294_967_296,
            },
        };
        assert_eq!(
            e.to_string(),
            "t.swf:3: field 2 (submit time): value 4294967296 is out of range (0 to 4294967295)"
        );
        assert!(std::error::Error::source(&e).is_none());
        let e = SwfError {
            file: "t.swf".into(),
            line: Some(2),
            field: None,
            kind: SwfErrorKind::HeaderValue {
                key: "MaxProcs".into(),
                value: "banana".into(),
                expected: "a processor count",
            },
        };
        assert_eq!(
            e.to_string(),
            "t.swf:2: header MaxProcs: 'banana' is not a processor count"
        );
    }
}
