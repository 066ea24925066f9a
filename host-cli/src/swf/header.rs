//! The `; Key: value` header comments of an SWF file.

/// The header of an SWF file: the `; Key: value` comment lines.
///
/// Reading the header never fails. Keys are matched without regard to ASCII
/// case. The typed fields hold the keys a simulator needs; every other key,
/// and every value that could not be parsed for its typed field, goes to
/// [`other`](Self::other) in file order, so nothing is lost.
///
/// How comment lines are read:
///
/// * A key line is `;`, at most one space, a key (a letter, then letters,
///   digits or `_`), a `:`, then the end of the line or whitespace and the
///   value. The value is trimmed.
/// * Any other non-empty comment line (typically indented, like the
///   `http://...` line after `Information:` or the filter list after `Note:`)
///   continues the entry before it: its trimmed text is appended to that
///   entry's value after a `\n`. A comment line that is empty (`;` alone)
///   and every data line end the current entry; continuation text with no
///   entry to continue is kept in `other` under the key `""`.
/// * `MaxProcs`, `MaxNodes`, `MaxJobs` and `MaxRecords` take the leading
///   integer of the value, which may be followed by whitespace or `(` and
///   free text (CTC: `338 (batch partition; 512 total)`). `MaxProcs` and
///   `MaxNodes` must be a machine size, 1 to `u32::MAX`: `MaxProcs: 0` or
///   `MaxProcs: banana` leaves the field `None`.
/// * `UnixStartTime` must be a whole integer.
/// * A typed key whose value does not parse is listed, with its line, in
///   [`invalid`](Self::invalid) (and kept in `other`): reading goes on, and
///   the replay refuses the trace if it needs that value (the machine size,
///   see `replay::machine_size`).
/// * When a typed key appears again, the first value stays and the later
///   ones go to `other`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SwfHeader {
    /// `Version`: the SWF version.
    pub(crate) version: Option<String>,
    /// `Computer`: the machine.
    pub(crate) computer: Option<String>,
    /// `Installation`: the site.
    pub(crate) installation: Option<String>,
    /// `MaxProcs`: processors in the machine (`None` if absent or invalid:
    /// see [`invalid`](Self::invalid)).
    pub(crate) max_procs: Option<u64>,
    /// `MaxNodes`: nodes in the machine (`None` if absent or invalid).
    pub(crate) max_nodes: Option<u64>,
    /// `MaxJobs`: jobs in the original log (cleaned logs keep the original
    /// count, so it may exceed the number of data lines).
    pub max_jobs: Option<u64>,
    /// `MaxRecords`: records in the original log (may exceed the number of
    /// data lines, as `MaxJobs`).
    pub(crate) max_records: Option<u64>,
    /// `UnixStartTime`: the epoch second that submit time 0 stands for.
    pub(crate) unix_start_time: Option<i64>,
    /// `TimeZoneString`: the site's time zone name, e.g. `US/Eastern`.
    pub(crate) time_zone_string: Option<String>,
    /// `StartTime`: the log's start as a human-readable date.
    pub(crate) start_time: Option<String>,
    /// `EndTime`: the log's end as a human-readable date.
    pub(crate) end_time: Option<String>,
    /// Each `Note` entry with its continuation lines, in file order.
    pub(crate) notes: Vec<String>,
    /// Every other entry as `(key, value)` in file order: unknown keys
    /// (`Acknowledge`, `Queue`, `TimeZone`, ...), values that did not parse
    /// for their typed field, repeated typed keys, and unattached text (key
    /// `""`).
    pub(crate) other: Vec<(String, String)>,
    /// Typed keys (`MaxProcs`, `MaxNodes`, `MaxJobs`, `MaxRecords`,
    /// `UnixStartTime`) whose value did not parse, with their lines, in
    /// file order.
    pub(crate) invalid: Vec<InvalidHeaderValue>,
}

/// A typed header key whose value did not parse (see [`SwfHeader::invalid`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct InvalidHeaderValue {
    /// The 1-based line of the file.
    pub(crate) line: u64,
    /// The key as written (`MaxProcs`).
    pub(crate) key: String,
    /// The value as written (trimmed).
    pub(crate) value: String,
}

impl SwfHeader {
    /// The first invalid value of `key` (ASCII case ignored), if any.
    #[must_use]
    pub(crate) fn invalid_value(&self, key: &str) -> Option<&InvalidHeaderValue> {
        self.invalid
            .iter()
            .find(|v| v.key.eq_ignore_ascii_case(key))
    }
}

impl SwfHeader {
    /// Whether no header entry at all was read.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The values of every `other` entry whose key equals `key` (ASCII case
    /// ignored), in file order; e.g. `values("Queue")`.
    #[cfg(test)]
    pub(crate) fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.other
            .iter()
            .filter(move |(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// The typed text fields of [`SwfHeader`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextField {
    Version,
    Computer,
    Installation,
    TimeZoneString,
    StartTime,
    EndTime,
}

impl TextField {
    /// The header keys, as the archive spells them.
    const KEYS: [(&'static str, Self); 6] = [
        ("Version", Self::Version),
        ("Computer", Self::Computer),
        ("Installation", Self::Installation),
        ("TimeZoneString", Self::TimeZoneString),
        ("StartTime", Self::StartTime),
        ("EndTime", Self::EndTime),
    ];

    fn slot(self, h: &mut SwfHeader) -> &mut Option<String> {
        match self {
            Self::Version => &mut h.version,
            Self::Computer => &mut h.computer,
            Self::Installation => &mut h.installation,
            Self::TimeZoneString => &mut h.time_zone_string,
            Self::StartTime => &mut h.start_time,
            Self::EndTime => &mut h.end_time,
        }
    }
}

/// The typed `u64` fields of [`SwfHeader`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CountField {
    Procs,
    Nodes,
    Jobs,
    Records,
}

impl CountField {
    /// The header keys, as the archive spells them.
    const KEYS: [(&'static str, Self); 4] = [
        ("MaxProcs", Self::Procs),
        ("MaxNodes", Self::Nodes),
        ("MaxJobs", Self::Jobs),
        ("MaxRecords", Self::Records),
    ];

    fn slot(self, h: &mut SwfHeader) -> &mut Option<u64> {
        match self {
            Self::Procs => &mut h.max_procs,
            Self::Nodes => &mut h.max_nodes,
            Self::Jobs => &mut h.max_jobs,
            Self::Records => &mut h.max_records,
        }
    }

    /// Whether the value must be a machine size (1 to `u32::MAX`).
    fn is_machine_size(self) -> bool {
        matches!(self, Self::Procs | Self::Nodes)
    }
}

/// The field of `keys` named `key` (in any case).
fn named<F: Copy>(keys: &[(&str, F)], key: &str) -> Option<F> {
    keys.iter()
        .find(|(name, _)| key.eq_ignore_ascii_case(name))
        .map(|&(_, field)| field)
}

/// The entry that a continuation line extends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Current {
    #[default]
    None,
    Note(usize),
    Other(usize),
    Text(TextField),
}

/// Builds an [`SwfHeader`] from comment lines, one at a time.
#[derive(Debug, Default)]
pub(crate) struct HeaderParser {
    header: SwfHeader,
    current: Current,
}

impl HeaderParser {
    /// Reads comment line `line` (1-based); `body` is the text after the `;`.
    pub(crate) fn comment(&mut self, line: u64, body: &str) {
        let text = body.trim_matches([' ', '\t']);
        if text.is_empty() {
            self.end_entry();
            return;
        }
        match split_key(body) {
            Some((key, value)) => self.entry(line, key, value),
            None => self.continuation(text),
        }
    }

    /// Ends the current entry (called for data lines too).
    pub(crate) fn end_entry(&mut self) {
        self.current = Current::None;
    }

    /// A copy of the header read so far.
    pub(crate) fn so_far(&self) -> SwfHeader {
        self.header.clone()
    }

    /// The header read so far.
    pub(crate) fn finish(self) -> SwfHeader {
        self.header
    }

    fn push_other(&mut self, key: &str, value: &str) {
        self.header.other.push((key.to_owned(), value.to_owned()));
        self.current = Current::Other(self.header.other.len() - 1);
    }

    fn invalid(&mut self, line: u64, key: &str, value: &str) {
        self.header.invalid.push(InvalidHeaderValue {
            line,
            key: key.to_owned(),
            value: value.to_owned(),
        });
    }

    /// Stores the first valid value of a typed field in its `slot`; a
    /// later value, or one `parsed` could not read, goes to `other`, and
    /// one that could not be read while the field has no value is also
    /// listed as invalid.
    fn typed<T>(
        &mut self,
        line: u64,
        key: &str,
        value: &str,
        parsed: Option<T>,
        slot: impl FnOnce(&mut SwfHeader) -> &mut Option<T>,
    ) {
        let slot = slot(&mut self.header);
        match parsed {
            Some(n) if slot.is_none() => {
                *slot = Some(n);
                self.current = Current::None;
            }
            Some(_) => self.push_other(key, value),
            None => {
                if slot.is_none() {
                    self.invalid(line, key, value);
                }
                self.push_other(key, value);
            }
        }
    }

    fn entry(&mut self, line: u64, key: &str, value: &str) {
        let is = |name: &str| key.eq_ignore_ascii_case(name);
        if let Some(field) = named(&TextField::KEYS, key) {
            let slot = field.slot(&mut self.header);
            if slot.is_none() && !value.is_empty() {
                *slot = Some(value.to_owned());
                self.current = Current::Text(field);
            } else {
                self.push_other(key, value);
            }
        } else if let Some(field) = named(&CountField::KEYS, key) {
            let parsed = leading_u64(value)
                .filter(|&n| !field.is_machine_size() || (n != 0 && u32::try_from(n).is_ok()));
            self.typed(line, key, value, parsed, |h| field.slot(h));
        } else if is("UnixStartTime") {
            let parsed = value.parse::<i64>().ok();
            self.typed(line, key, value, parsed, |h| &mut h.unix_start_time);
        } else if is("Note") {
            self.header.notes.push(value.to_owned());
            self.current = Current::Note(self.header.notes.len() - 1);
        } else {
            self.push_other(key, value);
        }
    }

    fn continuation(&mut self, text: &str) {
        let target: Option<&mut String> = match self.current {
            Current::None => None,
            Current::Note(i) => self.header.notes.get_mut(i),
            Current::Other(i) => self.header.other.get_mut(i).map(|(_, v)| v),
            Current::Text(field) => field.slot(&mut self.header).as_mut(),
        };
        match target {
            Some(value) => {
                if !value.is_empty() {
                    value.push('\n');
                }
                value.push_str(text);
            }
            None => self.push_other("", text),
        }
    }
}

/// Splits `body` (the text after `;`) into a key and a trimmed value if it is
/// a key line: at most one leading space, a key (letter, then letters, digits
/// or `_`), `:`, then the end or whitespace.
fn split_key(body: &str) -> Option<(&str, &str)> {
    let rest = body.strip_prefix(' ').unwrap_or(body);
    let key_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (key, after) = rest.split_at(key_len);
    if !key.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let value = after.strip_prefix(':')?;
    if !(value.is_empty() || value.starts_with([' ', '\t'])) {
        return None; // e.g. `http://...`
    }
    Some((key, value.trim_matches([' ', '\t'])))
}

/// The leading decimal integer of `value`, which must be followed by nothing,
/// whitespace or `(`.
fn leading_u64(value: &str) -> Option<u64> {
    let end = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let (digits, rest) = value.split_at(end);
    if digits.is_empty() || !(rest.is_empty() || rest.starts_with([' ', '\t', '('])) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(lines: &[&str]) -> SwfHeader {
        let mut p = HeaderParser::default();
        for (line, n) in lines.iter().zip(1..) {
            match line.strip_prefix(';') {
                Some(body) => p.comment(n, body),
                None => p.end_entry(),
            }
        }
        p.finish()
    }

    #[test]
    fn ctc_like_header() {
        let h = parse(&[
            "; Version: 2.2",
            "; Computer: IBM SP2",
            "; Installation: Cornell Theory Center (CTC)",
            "; Information: http://www.tc.cornell.edu/",
            ";              http://www.cs.huji.ac.il/labs/parallel/workload/",
            "; MaxJobs: 79302",
            "; MaxRecords: 79302",
            "; UnixStartTime: 835823160",
            "; TimeZone: -18000",
            "; TimeZoneString: US/Eastern",
            "; StartTime: Wed Jun 26 17:06:00 EDT 1996",
            "; EndTime:   Sat May 31 23:11:26 EDT 1997",
            "; MaxNodes: 338 (batch partition; 512 total)",
            "; MaxProcs: 338",
            "; Queue:  1 DSI      ",
            "; Queue:  2 astro    ",
            "; Note: THIS IS A CLEANED VERSION OF THE LOG!",
            ";       The filter used to produce it was",
            ";         user=135 and (job>=47421 and job<=50307) (2080 jobs removed)",
            ";",
        ]);
        assert_eq!(h.version.as_deref(), Some("2.2"));
        assert_eq!(h.computer.as_deref(), Some("IBM SP2"));
        assert_eq!(
            h.installation.as_deref(),
            Some("Cornell Theory Center (CTC)")
        );
        assert_eq!(h.max_jobs, Some(79302));
        assert_eq!(h.max_records, Some(79302));
        assert_eq!(h.unix_start_time, Some(835_823_160));
        assert_eq!(h.time_zone_string.as_deref(), Some("US/Eastern"));
        assert_eq!(
            h.start_time.as_deref(),
            Some("Wed Jun 26 17:06:00 EDT 1996")
        );
        assert_eq!(h.end_time.as_deref(), Some("Sat May 31 23:11:26 EDT 1997"));
        assert_eq!(h.max_nodes, Some(338));
        assert_eq!(h.max_procs, Some(338));
        assert_eq!(
            h.notes,
            vec![
                "THIS IS A CLEANED VERSION OF THE LOG!\nThe filter used to produce it was\n\
                 user=135 and (job>=47421 and job<=50307) (2080 jobs removed)"
            ]
        );
        assert_eq!(
            h.values("information").collect::<Vec<_>>(),
            vec!["http://www.tc.cornell.edu/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/"]
        );
        assert_eq!(
            h.values("Queue").collect::<Vec<_>>(),
            vec!["1 DSI", "2 astro"]
        );
        assert_eq!(h.values("TimeZone").collect::<Vec<_>>(), vec!["-18000"]);
        assert!(!h.is_empty());
    }

    #[test]
    fn max_procs_with_free_text_and_lists() {
        let h = parse(&[
            "; MaxProcs: 1664 (72, 1368, 224)",
            "; MaxNodes: 184  ( 6,  171,   7)",
        ]);
        assert_eq!(h.max_procs, Some(1664));
        assert_eq!(h.max_nodes, Some(184));
        assert!(h.other.is_empty());
        let h = parse(&["; MaxProcs: 338(batch)"]);
        assert_eq!(h.max_procs, Some(338));
    }

    #[test]
    fn missing_zero_and_malformed_max_procs() {
        let h = parse(&[]);
        assert_eq!(h.max_procs, None);
        assert!(h.is_empty());
        let h = parse(&["; MaxProcs: 0", "; MaxNodes: 0", "; MaxJobs: 0"]);
        assert_eq!(h.max_procs, None);
        assert_eq!(h.max_nodes, None);
        assert_eq!(h.max_jobs, Some(0));
        let invalid = |h: &SwfHeader| {
            h.invalid
                .iter()
                .map(|v| (v.line, v.key.clone(), v.value.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            invalid(&h),
            [
                (1, "MaxProcs".into(), "0".into()),
                (2, "MaxNodes".into(), "0".into())
            ]
        );
        assert_eq!(h.invalid_value("maxprocs").map(|v| v.line), Some(1));
        let big = parse(&["; MaxProcs: 4294967296", "; MaxJobs: 4294967296"]);
        assert_eq!(big.max_procs, None, "not a machine size");
        assert_eq!(big.max_jobs, Some(4_294_967_296));
        assert_eq!(invalid(&big), [(1, "MaxProcs".into(), "4294967296".into())]);
        assert_eq!(
            h.other,
            vec![
                ("MaxProcs".into(), "0".into()),
                ("MaxNodes".into(), "0".into())
            ]
        );
        for bad in [
            "",
            "many",
            "-5",
            "12.5",
            "1e3",
            "338abc",
            "99999999999999999999999",
        ] {
            let line = format!("; MaxProcs: {bad}");
            let h = parse(&["; Version: 2", &line]);
            assert_eq!(h.max_procs, None, "{bad}");
            assert_eq!(h.other, vec![("MaxProcs".to_owned(), bad.to_owned())]);
            assert_eq!(h.invalid.len(), 1);
            assert_eq!((h.invalid[0].line, h.invalid[0].value.as_str()), (2, bad));
        }
    }

    #[test]
    fn malformed_unix_start_time_kept_in_other() {
        let h = parse(&["; UnixStartTime: yesterday"]);
        assert_eq!(h.unix_start_time, None);
        assert_eq!(h.other, vec![("UnixStartTime".into(), "yesterday".into())]);
        assert_eq!(h.invalid_value("UnixStartTime").map(|v| v.line), Some(1));
        let h = parse(&["; UnixStartTime: -5"]);
        assert_eq!(h.unix_start_time, Some(-5));
    }

    #[test]
    fn keys_are_case_insensitive_and_may_lack_space() {
        let h = parse(&[";Preemption: no", ";maxprocs: 64", ";VERSION: 2"]);
        assert_eq!(h.max_procs, Some(64));
        assert_eq!(h.version.as_deref(), Some("2"));
        assert_eq!(h.other, vec![("Preemption".into(), "no".into())]);
    }

    #[test]
    fn repeated_typed_keys_keep_first() {
        let h = parse(&[
            "; MaxProcs: 10",
            "; MaxProcs: 20",
            "; Version: 1",
            "; Version: 2",
        ]);
        assert_eq!(h.max_procs, Some(10));
        assert_eq!(h.version.as_deref(), Some("1"));
        assert!(h.invalid.is_empty(), "a repeat is not invalid");
        assert_eq!(
            h.other,
            vec![
                ("MaxProcs".into(), "20".into()),
                ("Version".into(), "2".into())
            ]
        );
    }

    #[test]
    fn indented_key_like_text_is_continuation() {
        let h = parse(&[
            "; Note: Curie is composed of 3 types of nodes",
            ";\tsee: http://www-hpc.cea.fr/",
            "; Note: second",
        ]);
        assert_eq!(
            h.notes,
            vec![
                "Curie is composed of 3 types of nodes\nsee: http://www-hpc.cea.fr/",
                "second"
            ]
        );
        assert!(h.other.is_empty());
    }

    #[test]
    fn unattached_text_goes_to_other() {
        let h = parse(&[
            ";   --- SWF file converted from SACCT ---",
            ";   second line",
            ";",
            ";   after a blank comment",
            "1 2 3",
            ";   after a data line",
            "; Version: 2.2",
            ";    continued version",
        ]);
        assert_eq!(
            h.other,
            vec![
                (
                    "".into(),
                    "--- SWF file converted from SACCT ---\nsecond line".into()
                ),
                ("".into(), "after a blank comment".into()),
                ("".into(), "after a data line".into()),
            ]
        );
        assert_eq!(h.version.as_deref(), Some("2.2\ncontinued version"));
    }

    #[test]
    fn continuation_after_count_field_is_unattached() {
        let h = parse(&["; MaxProcs: 64", ";    (plus 2 spares)"]);
        assert_eq!(h.max_procs, Some(64));
        assert_eq!(h.other, vec![("".into(), "(plus 2 spares)".into())]);
    }

    #[test]
    fn empty_values() {
        let h = parse(&["; Computer:", "; Note:", ";   text"]);
        assert_eq!(h.computer, None);
        assert_eq!(h.notes, vec!["text"]);
        assert_eq!(h.other, vec![("Computer".into(), String::new())]);
    }

    #[test]
    fn split_key_rules() {
        assert_eq!(split_key(" Version: 2.2"), Some(("Version", "2.2")));
        assert_eq!(split_key("Version:2.2"), None);
        assert_eq!(split_key(" Max_Procs:\t5 "), Some(("Max_Procs", "5")));
        assert_eq!(split_key(" Note:"), Some(("Note", "")));
        assert_eq!(split_key("  Note: indented"), None);
        assert_eq!(split_key("\tNote: tab"), None);
        assert_eq!(split_key(" http://x"), None);
        assert_eq!(split_key(" 1abc: x"), None);
        assert_eq!(split_key(" : x"), None);
        assert_eq!(split_key(" two words: x"), None);
        assert_eq!(split_key(""), None);
    }

    #[test]
    fn serializes_to_json() {
        let h = parse(&["; MaxProcs: 128", "; Note: n"]);
        let json = serde_json::to_value(&h).unwrap();
        assert_eq!(json["max_procs"], 128);
        assert_eq!(json["notes"][0], "n");
        assert!(json["version"].is_null());
    }
}
