//! Reading a whole SWF file (plain or gzip) line by line.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

use super::error::{SwfError, SwfErrorKind};
use super::header::{HeaderParser, SwfHeader};
use super::record::SwfRecord;

/// Longest line accepted, in bytes, line end excluded. SWF lines are about a
/// hundred bytes; the limit only keeps binary or runaway input from taking
/// unbounded memory.
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// The two bytes every gzip stream starts with.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Buffer size for reading decompressed text.
const BUFFER_BYTES: usize = 1 << 16;

/// Data lines a [`Tap`] passes on at a time.
const TAP_CHUNK: usize = 512;

/// What a [`Tap`] passes on while a trace is read.
#[derive(Debug)]
pub(crate) enum Tapped {
    /// The header as it stood when the first data line was read.
    Header(Box<SwfHeader>),
    /// The next data lines, in file order, each with its 1-based line number.
    Records(Vec<(u64, SwfRecord)>),
}

/// Passes a copy of each data line, in chunks, to another thread while the
/// file is read ([`load_tapped`]): first the header so far ([`Tapped::Header`],
/// just before the first chunk), then the data lines. The channel closes
/// when reading ends, whether it ended well or not; the loaded trace is
/// what decides.
#[derive(Debug)]
pub(crate) struct Tap {
    to: std::sync::mpsc::Sender<Tapped>,
    pending: Vec<(u64, SwfRecord)>,
    header_sent: bool,
    /// The receiver is still there (a send has not failed).
    open: bool,
}

impl Tap {
    /// A tap that sends to `to`.
    #[must_use]
    pub(crate) fn new(to: std::sync::mpsc::Sender<Tapped>) -> Self {
        Self {
            to,
            pending: Vec::with_capacity(TAP_CHUNK),
            header_sent: false,
            open: true,
        }
    }

    /// Passes on data line `line`; the header first if this is the first.
    /// A receiver that went away (it has seen all it needs) is not an
    /// error: the copies just stop.
    fn record(&mut self, header: &HeaderParser, line: u64, record: &SwfRecord) {
        if !self.header_sent {
            self.header_sent = true;
            let header = Tapped::Header(Box::new(header.so_far()));
            self.open = self.to.send(header).is_ok();
        }
        if !self.open {
            return;
        }
        self.pending.push((line, *record));
        if self.pending.len() >= TAP_CHUNK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            let chunk = std::mem::replace(&mut self.pending, Vec::with_capacity(TAP_CHUNK));
            self.open = self.open && self.to.send(Tapped::Records(chunk)).is_ok();
        }
    }
}

/// A whole SWF file, read but not interpreted.
///
/// Every line of the file is exactly one of: a data line (in
/// [`records`](Self::records)), a comment line (counted in
/// [`comment_lines`](Self::comment_lines), its `Key: value` entries in
/// [`header`](Self::header)), or a blank line (counted in
/// [`blank_lines`](Self::blank_lines)). So `records.len() + comment_lines +
/// blank_lines` is the number of lines in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedTrace {
    /// The trace's name: the path as given to [`load`], or the name given to
    /// [`load_reader`]. Used in error messages.
    pub name: String,
    /// The header comments.
    pub header: SwfHeader,
    /// Every data line as `(1-based line number, record)`, in file order.
    pub records: Vec<(u64, SwfRecord)>,
    /// Number of comment lines (first non-blank character `;`).
    pub(crate) comment_lines: u64,
    /// Number of blank lines (nothing but spaces, tabs and the line end).
    pub(crate) blank_lines: u64,
}

impl LoadedTrace {
    /// Number of lines in the file: data, comment and blank lines.
    #[must_use]
    pub fn total_lines(&self) -> u64 {
        self.records.len() as u64 + self.comment_lines + self.blank_lines
    }
}

/// Reads an SWF file, plain text or gzip.
///
/// Gzip is recognised by the magic bytes `1f 8b` at the start of the file,
/// not by the file name; concatenated gzip members are read as one stream.
/// The file is read line by line, so memory grows with the number of data
/// lines only. See [`load_reader`] for the rules.
///
/// # Errors
///
/// [`SwfErrorKind::Open`] if the file cannot be opened, and every error of
/// [`load_reader`].
pub fn load(path: &Path) -> Result<LoadedTrace, SwfError> {
    load_tapped(path, None)
}

/// [`load`], passing a copy of every data line to `tap` as it is read.
///
/// # Errors
/// As [`load`].
pub(crate) fn load_tapped(path: &Path, tap: Option<Tap>) -> Result<LoadedTrace, SwfError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| SwfError {
        file: name.clone(),
        line: None,
        field: None,
        kind: SwfErrorKind::Open(e),
    })?;
    read_trace(&name, BufReader::with_capacity(BUFFER_BYTES, file), tap)
}

/// Reads an SWF trace from `reader`; `name` is used in error messages.
///
/// Like [`load`], the input may be plain text or gzip (detected by its first
/// two bytes). Lines end with `\n` or `\r\n`; a UTF-8 byte-order mark at the
/// start is ignored. Each line is either blank (only spaces and tabs), a
/// comment (first non-blank character `;`, read into the header, see
/// [`SwfHeader`]) or a data line, parsed by [`SwfRecord::parse_line`]. An
/// empty or header-only input gives zero records.
///
/// # Errors
///
/// The first hard error: a data line that does not parse
/// ([`SwfErrorKind::Line`], with line and field), a line that is not UTF-8
/// ([`SwfErrorKind::InvalidUtf8`]) or longer than [`MAX_LINE_BYTES`], a
/// truncated or corrupt gzip stream, or any other read error.
pub fn load_reader(name: &str, reader: impl BufRead) -> Result<LoadedTrace, SwfError> {
    read_trace(name, reader, None)
}

/// [`load_reader`], passing data lines to `tap`.
fn read_trace(
    name: &str,
    mut reader: impl BufRead,
    tap: Option<Tap>,
) -> Result<LoadedTrace, SwfError> {
    let mut head = Vec::with_capacity(GZIP_MAGIC.len());
    (&mut reader)
        .take(GZIP_MAGIC.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| whole_file_error(name, SwfErrorKind::Read(e)))?;
    let gzip = head == GZIP_MAGIC;
    let input = Cursor::new(head).chain(reader);
    if gzip {
        let decoder = flate2::bufread::MultiGzDecoder::new(input);
        read_lines(
            name,
            BufReader::with_capacity(BUFFER_BYTES, decoder),
            true,
            tap,
        )
    } else {
        read_lines(name, input, false, tap)
    }
}

fn whole_file_error(name: &str, kind: SwfErrorKind) -> SwfError {
    SwfError {
        file: name.to_owned(),
        line: None,
        field: None,
        kind,
    }
}

/// Classifies a read error: inside a gzip stream, an early end is a
/// truncation and invalid input is corruption.
fn read_error(name: &str, e: io::Error, gzip: bool) -> SwfError {
    let kind = match e.kind() {
        io::ErrorKind::UnexpectedEof if gzip => SwfErrorKind::TruncatedGzip(e),
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData if gzip => {
            SwfErrorKind::CorruptGzip(e)
        }
        _ => SwfErrorKind::Read(e),
    };
    whole_file_error(name, kind)
}

/// The lines of one file as they are classified: the part of [`LoadedTrace`]
/// built while reading.
struct Lines<'a> {
    name: &'a str,
    header: HeaderParser,
    records: Vec<(u64, SwfRecord)>,
    comment_lines: u64,
    blank_lines: u64,
    line_no: u64,
    tap: Option<Tap>,
}

impl Lines<'_> {
    fn error(&self, kind: SwfErrorKind) -> SwfError {
        SwfError {
            file: self.name.to_owned(),
            line: Some(self.line_no),
            field: None,
            kind,
        }
    }

    /// Classifies and reads the next line, `\n` excluded.
    fn line(&mut self, raw: &[u8]) -> Result<(), SwfError> {
        self.line_no += 1;
        let mut bytes = raw.strip_suffix(b"\r").unwrap_or(raw);
        if bytes.len() > MAX_LINE_BYTES {
            return Err(self.error(SwfErrorKind::LineTooLong {
                limit: MAX_LINE_BYTES,
            }));
        }
        if self.line_no == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        // Leading spaces and tabs are ASCII: the rest is valid UTF-8 exactly
        // when the whole line is.
        let Some(first) = bytes.iter().position(|&b| b != b' ' && b != b'\t') else {
            self.blank_lines += 1;
            return Ok(());
        };
        let content = bytes.get(first..).unwrap_or_default();
        if let Some(body) = content.strip_prefix(b";") {
            let body =
                std::str::from_utf8(body).map_err(|_| self.error(SwfErrorKind::InvalidUtf8))?;
            self.comment_lines += 1;
            self.header.comment(self.line_no, body);
            return Ok(());
        }
        // A data line is read byte by byte; only a line with a byte past
        // ASCII needs the UTF-8 check (and then fails to parse anyway).
        if !content.is_ascii() && std::str::from_utf8(content).is_err() {
            return Err(self.error(SwfErrorKind::InvalidUtf8));
        }
        self.header.end_entry();
        let record = SwfRecord::parse_bytes(content).map_err(|e| SwfError {
            file: self.name.to_owned(),
            line: Some(self.line_no),
            field: e.field,
            kind: SwfErrorKind::Line(e.kind),
        })?;
        if let Some(tap) = &mut self.tap {
            tap.record(&self.header, self.line_no, &record);
        }
        self.records.push((self.line_no, record));
        Ok(())
    }
}

/// Reads `reader` to its end, line by line, straight from its buffer: a line
/// is copied only when it straddles two buffer fills.
fn read_lines(
    name: &str,
    mut reader: impl BufRead,
    gzip: bool,
    tap: Option<Tap>,
) -> Result<LoadedTrace, SwfError> {
    let mut lines = Lines {
        name,
        header: HeaderParser::default(),
        records: Vec::new(),
        comment_lines: 0,
        blank_lines: 0,
        line_no: 0,
        tap,
    };
    // The start of a line that the buffer ended in.
    let mut carry: Vec<u8> = Vec::new();
    // Past this a line is too long whatever follows (`\r` may still come).
    let carry_limit = MAX_LINE_BYTES + 1;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(name, e, gzip)),
        };
        if chunk.is_empty() {
            break;
        }
        let mut rest = chunk;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let (line, after) = rest.split_at(end);
            if carry.is_empty() {
                lines.line(line)?;
            } else {
                carry.extend_from_slice(line);
                lines.line(&carry)?;
                carry.clear();
            }
            rest = after.get(1..).unwrap_or_default();
        }
        carry.extend_from_slice(rest);
        if carry.len() > carry_limit {
            lines.line_no += 1;
            return Err(lines.error(SwfErrorKind::LineTooLong {
                limit: MAX_LINE_BYTES,
            }));
        }
        let used = chunk.len();
        reader.consume(used);
    }
    if !carry.is_empty() {
        lines.line(&carry)?;
    }
    if let Some(tap) = &mut lines.tap {
        tap.flush();
    }
    Ok(LoadedTrace {
        name: name.to_owned(),
        header: lines.header.finish(),
        records: lines.records,
        comment_lines: lines.comment_lines,
        blank_lines: lines.blank_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::LineErrorKind;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;

    const LINE1: &str = "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1";
    const LINE2: &str = "2 5 0 50 2 -1 -1 -1 -1 -1 1 2 1 -1 -1 -1 -1 -1";

    fn load_str(s: &str) -> Result<LoadedTrace, SwfError> {
        load_reader("test.swf", s.as_bytes())
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    fn sample() -> String {
        format!(
            "; Version: 2.2\n; MaxProcs: 338 (batch partition; 512 total)\n; UnixStartTime: 835823160\n\
             ;\n{LINE1}\n\n   \t\n{LINE2}\n; Note: late comment\n"
        )
    }

    #[test]
    fn empty_input() {
        let t = load_str("").unwrap();
        assert!(t.records.is_empty());
        assert_eq!((t.comment_lines, t.blank_lines, t.total_lines()), (0, 0, 0));
        assert!(t.header.is_empty());
        assert_eq!(t.name, "test.swf");
    }

    #[test]
    fn header_only_input() {
        let t = load_str("; Version: 2.2\n; MaxProcs: 128\n").unwrap();
        assert!(t.records.is_empty());
        assert_eq!(t.comment_lines, 2);
        assert_eq!(t.header.max_procs, Some(128));
        let t = load_str("; MaxProcs: 128").unwrap(); // no final newline
        assert_eq!(t.header.max_procs, Some(128));
    }

    #[test]
    fn mixed_lines_counted() {
        let t = load_str(&sample()).unwrap();
        assert_eq!(t.records.len(), 2);
        assert_eq!(t.records[0].0, 5);
        assert_eq!(t.records[1].0, 8);
        assert_eq!(t.records[0].1, SwfRecord::parse_line(LINE1).unwrap());
        assert_eq!(t.comment_lines, 5);
        assert_eq!(t.blank_lines, 2);
        assert_eq!(t.total_lines(), 9);
        assert_eq!(t.header.version.as_deref(), Some("2.2"));
        assert_eq!(t.header.max_procs, Some(338));
        assert_eq!(t.header.unix_start_time, Some(835_823_160));
        assert_eq!(t.header.notes, vec!["late comment"]);
    }

    #[test]
    fn crlf_tabs_trailing_spaces_bom() {
        let plain = load_str(&sample()).unwrap();
        let crlf = load_str(&sample().replace('\n', "\r\n")).unwrap();
        assert_eq!(crlf.records, plain.records);
        assert_eq!(crlf.header, plain.header);
        assert_eq!(crlf.blank_lines, plain.blank_lines);
        let tabs = load_str(&sample().replace(' ', "\t")).unwrap();
        assert_eq!(tabs.records, plain.records);
        let trailing = load_str(&sample().replace('\n', "  \t \n")).unwrap();
        assert_eq!(trailing.records, plain.records);
        assert_eq!(trailing.blank_lines, plain.blank_lines);
        let indented = load_str(&format!("   {LINE1}\n  ; Note: x\n")).unwrap();
        assert_eq!(indented.records.len(), 1);
        assert_eq!(indented.comment_lines, 1);
        let bom = load_str(&format!("\u{feff}{}", sample())).unwrap();
        assert_eq!(bom.records, plain.records);
        assert_eq!(bom.header, plain.header);
        let no_final_newline = load_str(LINE1).unwrap();
        assert_eq!(no_final_newline.records.len(), 1);
    }

    #[test]
    fn data_line_errors_name_line_and_field() {
        let input = format!("; c\n{LINE1}\n1 2 3\n");
        let e = load_str(&input).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert_eq!(e.field, Some(4));
        assert!(matches!(
            e.kind,
            SwfErrorKind::Line(LineErrorKind::FieldCount { found: 3 })
        ));
        assert_eq!(
            e.to_string(),
            "test.swf:3: field 4 (run time): missing: found 3 fields, expected 18"
        );

        let bad = LINE2.replacen("-1 -1 -1 -1 1", "-1 -1 -1 abc 1", 1);
        let e = load_str(&format!("{LINE1}\n{bad}\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "test.swf:2: field 10 (requested memory): expected an integer >= -1, found 'abc'"
        );

        let e = load_str(&format!("{LINE1} 7\n")).unwrap_err();
        assert_eq!(e.field, Some(19));
        assert!(
            e.to_string().contains("found 19 fields, expected 18"),
            "{e}"
        );
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let mut input = format!("; ok\n{LINE1}\n").into_bytes();
        input.extend_from_slice(b"; caf\xe9\n");
        input.extend_from_slice(LINE2.as_bytes());
        let e = load_reader("x.swf", input.as_slice()).unwrap_err();
        assert!(matches!(e.kind, SwfErrorKind::InvalidUtf8));
        assert_eq!(e.line, Some(3));
        assert_eq!(e.to_string(), "x.swf:3: invalid UTF-8");
        let e = load_reader("x.swf", &b"1 2 \xff\xfe"[..]).unwrap_err();
        assert_eq!(e.line, Some(1));
    }

    /// Lines are read from the reader's buffer in place; a line cut by the
    /// end of a buffer fill is joined first. Buffers of one byte and of a
    /// few bytes cut every line somewhere, CRLF endings between the two
    /// bytes too, and give what one read of the whole input gives.
    #[test]
    fn lines_cut_by_the_buffer_read_the_same() {
        let text = format!("\u{feff}{}", sample().replace('\n', "\r\n"));
        let whole = load_str(&text).unwrap();
        assert_eq!(whole.records.len(), 2);
        for capacity in [1, 2, 3, 7, 64] {
            let cut = load_reader(
                "test.swf",
                BufReader::with_capacity(capacity, text.as_bytes()),
            )
            .unwrap();
            assert_eq!(cut, whole, "buffer of {capacity} bytes");
            let gz = gzip(text.as_bytes());
            let cut = load_reader(
                "test.swf",
                BufReader::with_capacity(capacity, gz.as_slice()),
            )
            .unwrap();
            assert_eq!(cut, whole, "gzip, buffer of {capacity} bytes");
        }
        // A data line cut inside a field, and errors counted on the right line.
        let e = load_reader(
            "t",
            BufReader::with_capacity(5, format!("{LINE1}\n1 2\n").as_bytes()),
        )
        .unwrap_err();
        assert_eq!((e.line, e.field), (Some(2), Some(3)));
    }

    /// A data line past ASCII is an invalid-UTF-8 error when it is not
    /// UTF-8 and a bad field when it is, as with a text reader.
    #[test]
    fn non_ascii_data_lines() {
        let e = load_reader("x.swf", format!("{LINE1}\n1 \u{e9}\n").as_bytes()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.swf:2: field 2 (submit time): expected an integer >= -1, found '\u{e9}'"
        );
        let e = load_reader("x.swf", &b"1 \xe9 3\n"[..]).unwrap_err();
        assert_eq!(e.to_string(), "x.swf:1: invalid UTF-8");
    }

    #[test]
    fn overlong_line_is_an_error() {
        let mut input = format!("{LINE1}\n").into_bytes();
        input.extend(std::iter::repeat_n(b' ', MAX_LINE_BYTES + 10));
        input.extend_from_slice(b"\n");
        let e = load_reader("x.swf", input.as_slice()).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(matches!(e.kind, SwfErrorKind::LineTooLong { .. }));
        // Exactly at the limit is accepted (here a blank line), with CRLF too.
        for ending in ["\n", "\r\n"] {
            let mut input = vec![b' '; MAX_LINE_BYTES];
            input.extend_from_slice(ending.as_bytes());
            input.extend_from_slice(LINE1.as_bytes());
            let t = load_reader("x.swf", input.as_slice()).unwrap();
            assert_eq!((t.blank_lines, t.records.len()), (1, 1));
        }
        // One byte more is not, with or without a line end.
        for ending in ["\n", "\r\n", ""] {
            let mut input = vec![b' '; MAX_LINE_BYTES + 1];
            input.extend_from_slice(ending.as_bytes());
            let e = load_reader("x.swf", input.as_slice()).unwrap_err();
            assert!(
                matches!(e.kind, SwfErrorKind::LineTooLong { .. }),
                "{ending:?}"
            );
            assert_eq!(e.line, Some(1));
        }
    }

    #[test]
    fn gzip_is_detected_by_magic_bytes() {
        let text = sample();
        let plain = load_str(&text).unwrap();
        let gz = gzip(text.as_bytes());
        let t = load_reader("no-gz-suffix.swf", gz.as_slice()).unwrap();
        assert_eq!(t.records, plain.records);
        assert_eq!(t.header, plain.header);
        assert_eq!(t.comment_lines, plain.comment_lines);
        // Two concatenated members read as one stream.
        let mut two = gzip(format!("{LINE1}\n").as_bytes());
        two.extend(gzip(format!("{LINE2}\n").as_bytes()));
        let t = load_reader("two.gz", two.as_slice()).unwrap();
        assert_eq!(t.records.len(), 2);
        // An empty gzip stream is an empty trace.
        let t = load_reader("empty.gz", gzip(b"").as_slice()).unwrap();
        assert!(t.records.is_empty());
        // One byte that is not gzip, or a lone first magic byte.
        assert!(load_reader("a", &b"\x1f"[..]).is_err());
        assert_eq!(load_reader("a", &b";"[..]).unwrap().comment_lines, 1);
    }

    #[test]
    fn truncated_gzip_is_an_error() {
        let gz = gzip(sample().repeat(50).as_bytes());
        for cut in [gz.len() - 1, gz.len() - 8, gz.len() / 2, 11, 2] {
            let e = load_reader("t.swf.gz", &gz[..cut]).unwrap_err();
            assert!(
                matches!(e.kind, SwfErrorKind::TruncatedGzip(_)),
                "cut {cut}: {e}"
            );
            assert_eq!(e.line, None);
            assert!(
                e.to_string().starts_with("t.swf.gz: truncated gzip stream"),
                "{e}"
            );
        }
    }

    #[test]
    fn corrupt_gzip_is_an_error() {
        let gz = gzip(sample().repeat(50).as_bytes());
        // Damaged checksum.
        let mut bad_crc = gz.clone();
        let crc_at = bad_crc.len() - 8;
        bad_crc[crc_at] ^= 0xff;
        // Damaged deflate data.
        let mut bad_data = gz.clone();
        for b in &mut bad_data[12..40] {
            *b ^= 0x5a;
        }
        // Damaged header (compression method).
        let mut bad_header = gz.clone();
        bad_header[2] = 7;
        for (what, input) in [("crc", bad_crc), ("data", bad_data), ("header", bad_header)] {
            let e = load_reader("c.swf.gz", input.as_slice()).unwrap_err();
            assert!(
                matches!(
                    e.kind,
                    SwfErrorKind::CorruptGzip(_) | SwfErrorKind::TruncatedGzip(_)
                ),
                "{what}: {e}"
            );
            assert!(e.to_string().starts_with("c.swf.gz: "), "{e}");
        }
        // Trailing garbage after a complete member.
        let mut trailing = gz;
        trailing.extend_from_slice(b"this is not a gzip member");
        let e = load_reader("c.swf.gz", trailing.as_slice()).unwrap_err();
        assert!(matches!(e.kind, SwfErrorKind::CorruptGzip(_)), "{e}");
        // Too short to be a member header at all: reported as truncated.
        trailing.truncate(trailing.len() - 20);
        let e = load_reader("c.swf.gz", trailing.as_slice()).unwrap_err();
        assert!(matches!(e.kind, SwfErrorKind::TruncatedGzip(_)), "{e}");
    }

    #[test]
    fn corrupt_checksum_is_reported_as_corrupt() {
        let gz = gzip(sample().as_bytes());
        let mut bad = gz.clone();
        let crc_at = bad.len() - 8;
        bad[crc_at] ^= 0xff;
        let e = load_reader("c.swf.gz", bad.as_slice()).unwrap_err();
        assert!(matches!(e.kind, SwfErrorKind::CorruptGzip(_)), "{e}");
        assert!(
            e.to_string().starts_with("c.swf.gz: corrupt gzip stream: "),
            "{e}"
        );
    }

    #[test]
    fn load_from_files() {
        let dir = std::env::temp_dir().join(format!("swf-load-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain_path = dir.join("t.swf");
        let gz_path = dir.join("t.data"); // gzip without a .gz name
        std::fs::write(&plain_path, sample()).unwrap();
        std::fs::write(&gz_path, gzip(sample().as_bytes())).unwrap();
        let a = load(&plain_path).unwrap();
        let b = load(&gz_path).unwrap();
        assert_eq!(a.records, b.records);
        assert_eq!(a.name, plain_path.display().to_string());
        let missing = dir.join("missing.swf");
        let e = load(&missing).unwrap_err();
        assert!(matches!(e.kind, SwfErrorKind::Open(_)));
        assert!(e
            .to_string()
            .starts_with(&format!("{}: cannot open: ", missing.display())));
        let e = load(&dir).unwrap_err(); // a directory opens but cannot be read
        assert!(
            matches!(e.kind, SwfErrorKind::Read(_) | SwfErrorKind::Open(_)),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Produces `lines` generated data lines without holding the text.
    struct Generated {
        next: u64,
        lines: u64,
        pending: Vec<u8>,
        pos: usize,
    }

    impl Read for Generated {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.pos == self.pending.len() {
                if self.next == self.lines {
                    return Ok(0);
                }
                self.pending.clear();
                let n = self.next;
                let line = if n % 1000 == 0 {
                    format!("; comment {n}\n")
                } else {
                    format!(
                        "{} {} 0 {} {} -1 -1 -1 {} -1 1 {} -1 -1 -1 -1 -1 -1\n",
                        n,
                        n * 3,
                        n % 7,
                        1 + n % 64,
                        n % 99,
                        n % 50
                    )
                };
                self.pending.extend_from_slice(line.as_bytes());
                self.pos = 0;
                self.next += 1;
            }
            let k = out.len().min(self.pending.len() - self.pos);
            out[..k].copy_from_slice(&self.pending[self.pos..self.pos + k]);
            self.pos += k;
            Ok(k)
        }
    }

    #[test]
    fn million_line_input() {
        let lines = 1_000_000;
        let gen = Generated {
            next: 0,
            lines,
            pending: Vec::new(),
            pos: 0,
        };
        let t = load_reader("big.swf", BufReader::new(gen)).unwrap();
        assert_eq!(t.comment_lines, 1000);
        assert_eq!(t.records.len(), 999_000);
        assert_eq!(t.total_lines(), lines);
        let (line, last) = t.records.last().unwrap();
        assert_eq!(*line, lines);
        assert_eq!(last.job_number, 999_999);
        assert_eq!(last.submit, 2_999_997);
    }

    /// A tap passes on the header as it stood at the first data line, then
    /// every data line in chunks, exactly as loaded; then the channel closes.
    #[test]
    fn a_tap_passes_on_every_data_line_after_the_header() {
        let mut text = String::from("; MaxProcs: 8\n\n");
        for n in 1..=1300 {
            text.push_str(&format!(
                "{n} {n} -1 5 1 -1 -1 1 9 -1 1 1 1 -1 -1 -1 -1 -1\n"
            ));
            if n == 700 {
                text.push_str("; MaxNodes: 4\n");
            }
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.swf.gz");
        std::fs::write(&path, gzip(text.as_bytes())).expect("write");
        let (to, from) = std::sync::mpsc::channel();
        let loaded = load_tapped(&path, Some(Tap::new(to))).expect("trace");
        let mut got = Vec::new();
        let mut messages = from.iter();
        let Some(Tapped::Header(header)) = messages.next() else {
            panic!("the header comes first");
        };
        assert_eq!(header.max_procs, Some(8));
        assert_eq!(
            header.max_nodes, None,
            "the header as at the first data line"
        );
        assert_eq!(loaded.header.max_nodes, Some(4));
        let mut sizes = Vec::new();
        for m in messages {
            match m {
                Tapped::Records(chunk) => {
                    sizes.push(chunk.len());
                    got.extend(chunk);
                }
                Tapped::Header(_) => panic!("one header"),
            }
        }
        assert_eq!(got, loaded.records);
        assert_eq!(got.len(), 1300);
        // Full chunks, then the rest.
        assert_eq!(sizes, [TAP_CHUNK, TAP_CHUNK, 1300 - 2 * TAP_CHUNK]);
        // A receiver that went away stops the copies, not the reading.
        let (to, from) = std::sync::mpsc::channel();
        drop(from);
        let mut tap = Tap::new(to);
        assert!(tap.open);
        let again = read_trace("t", text.as_bytes(), Some(tap)).expect("trace");
        assert_eq!(again.records, loaded.records);
        let (to, from) = std::sync::mpsc::channel();
        tap = Tap::new(to);
        drop(from);
        tap.record(&HeaderParser::default(), 1, &loaded.records[0].1);
        assert!(
            !tap.open && tap.pending.is_empty(),
            "nothing kept once closed"
        );
    }
}
