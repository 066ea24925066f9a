//! Formatting into a caller's byte buffer, as C strings: truncated to fit,
//! always NUL-terminated, with the full length reported (as `snprintf`).
#![forbid(unsafe_code)]

use core::fmt::{self, Write};

/// A `fmt::Write` into `buf`, keeping the last byte for the NUL.
struct Text<'a> {
    buf: &'a mut [u8],
    /// Bytes written to `buf`.
    written: usize,
    /// Bytes the whole text takes.
    total: usize,
}

impl Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self
            .buf
            .len()
            .saturating_sub(1)
            .saturating_sub(self.written);
        let take = s.len().min(room);
        if let (Some(to), Some(from)) = (
            self.buf
                .get_mut(self.written..self.written.saturating_add(take)),
            s.as_bytes().get(..take),
        ) {
            to.copy_from_slice(from);
            self.written = self.written.saturating_add(take);
        }
        self.total = self.total.saturating_add(s.len());
        Ok(())
    }
}

/// Writes `args` into `buf` as a C string (truncated to `buf.len() - 1`
/// bytes, then a NUL; nothing when `buf` is empty). Returns the length of
/// the whole text, without the NUL: it was truncated when that is at least
/// `buf.len()`.
pub fn write(buf: &mut [u8], args: fmt::Arguments<'_>) -> usize {
    let mut text = Text {
        buf,
        written: 0,
        total: 0,
    };
    // `write_str` above never fails.
    let _ = text.write_fmt(args);
    let (written, total) = (text.written, text.total);
    if let Some(end) = text.buf.get_mut(written) {
        *end = 0;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_and_terminates() {
        let mut buf = [0xff_u8; 8];
        assert_eq!(write(&mut buf, format_args!("job {} refused", 12)), 14);
        assert_eq!(&buf, b"job 12 \0");
        let mut buf = [0xff_u8; 20];
        assert_eq!(write(&mut buf, format_args!("job {} refused", 12)), 14);
        assert_eq!(&buf[..15], b"job 12 refused\0");
        assert_eq!(write(&mut [], format_args!("x")), 1);
        let mut one = [7_u8; 1];
        assert_eq!(write(&mut one, format_args!("xyz")), 3);
        assert_eq!(one, [0]);
    }
}
