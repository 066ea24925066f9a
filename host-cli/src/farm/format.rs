//! The farm files: a TOML farm description and a CSV job list, both meant
//! to be read and written by people as well as by `host-cli generate farm`.
//!
//! # `farm.toml`
//!
//! ```toml
//! # Machines: a name (optional, default m<index>), CPUs, and a speed
//! # relative to the reference machine (optional, default 1.0).
//! machine = [
//!   { name = "m0", cpus = 8 },
//!   { name = "m1", cpus = 4, speed = 2.0 },
//! ]
//! # License pools: a name, the copies usable at once, and where a copy can
//! # be activated: `machines` (default: every machine) minus `except`.
//! license = [
//!   { name = "matlab", copies = 2 },
//!   { name = "abaqus", copies = 1, machines = ["m1"] },
//! ]
//! ```
//!
//! `[[machine]]` / `[[license]]` tables are the same thing written longhand.
//! At most 128 machines and 32 license pools; names are unique; speeds are
//! kept in thousandths.
//!
//! # `jobs.csv`
//!
//! ```text
//! # Lines starting with # are comments.
//! id,submit,cpus,estimate,runtime,deadline,licenses
//! 1,0,4,600,600,,matlab
//! 2,3,1,1200,900,1500,
//! 3,7,2,500,500,800,matlab abaqus
//! ```
//!
//! Columns in any order, named by the header; `id`, `submit`, `cpus` and
//! `estimate` are required, whole numbers (`cpus` and `estimate` at least
//! 1; times in seconds). `runtime` (default: the estimate) is the actual run
//! time on a reference-speed machine, `deadline` is empty for none (else at
//! least `submit`), and `licenses` lists pool names separated by spaces. Ids
//! are unique. Every error names the file, the line and the field, on one
//! line: text from the files (names, columns, values, what the TOML reader
//! quotes) is shown escaped.

use super::{Farm, FarmJob, FarmLicense, FarmMachine, FarmWorkload};
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use toml::Spanned;

/// Most machines a farm may have (the width of the kernel's machine sets).
pub(crate) const MAX_MACHINES: usize = backfill_core::MachineSet::CAPACITY;
/// Most license pools a farm may have (the width of a job's license set).
pub(crate) const MAX_LICENSES: usize = 32;

/// A farm file or job list that cannot be read, naming where.
///
/// Displayed as `file[:line]: [field NAME: ]message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The file as named on the command line.
    pub file: String,
    /// The 1-based line, when the error belongs to one.
    pub line: Option<u64>,
    /// The field (TOML key or CSV column), when the error belongs to one.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        f.write_str(": ")?;
        if let Some(field) = &self.field {
            write!(f, "field {field}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for FormatError {}

/// `message` (the TOML reader's, which may quote the file's text) on one
/// line: its lines joined by `; `, other control characters escaped.
fn one_line(message: &str) -> String {
    message
        .trim_end()
        .lines()
        .map(|l| {
            l.chars()
                .map(|c| {
                    if c.is_control() {
                        c.escape_debug().to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> u64 {
    let end = offset.min(text.len());
    let newlines = text
        .as_bytes()
        .get(..end)
        .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    newlines as u64 + 1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFarm {
    #[serde(default)]
    machine: Vec<Spanned<RawMachine>>,
    #[serde(default)]
    license: Vec<Spanned<RawLicense>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMachine {
    name: Option<Spanned<String>>,
    cpus: Spanned<i64>,
    speed: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLicense {
    name: Spanned<String>,
    copies: Spanned<i64>,
    machines: Option<Vec<Spanned<String>>>,
    except: Option<Vec<Spanned<String>>>,
}

/// `read(path)`, or an error naming the file when it cannot be read.
fn read_whole<T>(
    path: &Path,
    read: impl FnOnce(&Path) -> std::io::Result<T>,
) -> Result<T, FormatError> {
    read(path).map_err(|e| FormatError {
        file: path.display().to_string(),
        line: None,
        field: None,
        message: format!("cannot read: {e}"),
    })
}

/// Reads a farm description from `path`.
///
/// # Errors
/// [`FormatError`] naming the file, line and field.
pub(crate) fn read_farm(path: &Path) -> Result<Farm, FormatError> {
    let text = read_whole(path, |p| std::fs::read_to_string(p))?;
    parse_farm(&path.display().to_string(), &text)
}

/// Parses a farm description; `file` names it in errors.
///
/// # Errors
/// [`FormatError`] naming the file, line and field.
pub fn parse_farm(file: &str, text: &str) -> Result<Farm, FormatError> {
    let error =
        |span: Option<std::ops::Range<usize>>, field: Option<&str>, message: String| FormatError {
            file: file.to_owned(),
            line: span.map(|s| line_of(text, s.start)),
            field: field.map(str::to_owned),
            message,
        };
    let raw: RawFarm =
        toml::from_str(text).map_err(|e| error(e.span(), None, one_line(e.message())))?;
    if raw.machine.is_empty() {
        return Err(error(
            None,
            None,
            "a farm needs at least one [[machine]]".into(),
        ));
    }
    if raw.machine.len() > MAX_MACHINES {
        let span = raw.machine.get(MAX_MACHINES).map(Spanned::span);
        return Err(error(
            span,
            None,
            format!("more than {MAX_MACHINES} machines"),
        ));
    }
    if raw.license.len() > MAX_LICENSES {
        let span = raw.license.get(MAX_LICENSES).map(Spanned::span);
        return Err(error(
            span,
            None,
            format!("more than {MAX_LICENSES} license pools"),
        ));
    }
    let mut farm = Farm::default();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (index, m) in raw.machine.iter().enumerate() {
        let m = m.get_ref();
        let name = m
            .name
            .as_ref()
            .map_or_else(|| format!("m{index}"), |n| n.get_ref().clone());
        let name_span = m.name.as_ref().map_or_else(|| m.cpus.span(), Spanned::span);
        // Shown escaped: the name may hold a line break or other control
        // characters.
        let shown = name.escape_debug();
        if name.trim().is_empty() || name.contains(char::is_whitespace) {
            return Err(error(
                Some(name_span),
                Some("name"),
                format!("machine name '{shown}' must be non-empty without spaces"),
            ));
        }
        if by_name.insert(name.clone(), index).is_some() {
            return Err(error(
                Some(name_span),
                Some("name"),
                format!("machine name '{shown}' is used twice"),
            ));
        }
        let cpus = *m.cpus.get_ref();
        let cpus = u32::try_from(cpus)
            .ok()
            .filter(|&c| c >= 1)
            .ok_or_else(|| {
                error(
                    Some(m.cpus.span()),
                    Some("cpus"),
                    format!(
                        "machine '{shown}': expected a whole number from 1 to {}, found {cpus}",
                        u32::MAX
                    ),
                )
            })?;
        let speed = match &m.speed {
            None => 1000,
            Some(s) => {
                let v = *s.get_ref();
                let milli = (v * 1000.0).round();
                if !(v.is_finite() && (1.0..=1e9).contains(&milli)) {
                    return Err(error(
                        Some(s.span()),
                        Some("speed"),
                        format!("machine '{shown}': expected a speed from 0.001 to 1000000 (1.0 = the reference machine), found {v}"),
                    ));
                }
                // In range: 1 to 1e9.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let milli = milli as u32;
                milli
            }
        };
        farm.machines.push(FarmMachine { name, cpus, speed });
    }
    let mut license_names: HashSet<String> = HashSet::new();
    for l in &raw.license {
        let l = l.get_ref();
        let name = l.name.get_ref().clone();
        let shown = name.escape_debug();
        if name.trim().is_empty() || name.contains(char::is_whitespace) {
            return Err(error(
                Some(l.name.span()),
                Some("name"),
                format!("license name '{shown}' must be non-empty without spaces"),
            ));
        }
        if !license_names.insert(name.clone()) {
            return Err(error(
                Some(l.name.span()),
                Some("name"),
                format!("license name '{shown}' is used twice"),
            ));
        }
        let copies = *l.copies.get_ref();
        let copies = u32::try_from(copies).map_err(|_| {
            error(
                Some(l.copies.span()),
                Some("copies"),
                format!(
                    "license '{shown}': expected a whole number from 0 to {}, found {copies}",
                    u32::MAX
                ),
            )
        })?;
        let lookup = |list: &Option<Vec<Spanned<String>>>, field: &str| {
            list.as_ref()
                .map(|names| {
                    names
                        .iter()
                        .map(|n| {
                            by_name.get(n.get_ref()).copied().ok_or_else(|| {
                                error(
                                    Some(n.span()),
                                    Some(field),
                                    format!(
                                        "license '{shown}': no machine is named '{}'",
                                        n.get_ref().escape_debug()
                                    ),
                                )
                            })
                        })
                        .collect::<Result<HashSet<usize>, _>>()
                })
                .transpose()
        };
        let only = lookup(&l.machines, "machines")?;
        let except = lookup(&l.except, "except")?.unwrap_or_default();
        let machines: Vec<usize> = (0..farm.machines.len())
            .filter(|m| only.as_ref().is_none_or(|o| o.contains(m)) && !except.contains(m))
            .collect();
        farm.licenses.push(FarmLicense {
            name,
            copies,
            machines,
        });
    }
    Ok(farm)
}

/// A speed in thousandths as TOML text (`2.0`, `0.75`, `1.333`).
fn speed_text(milli: u32) -> String {
    let text = format!("{}.{:03}", milli / 1000, milli % 1000);
    let trimmed = text.trim_end_matches('0');
    if trimmed.ends_with('.') {
        format!("{trimmed}0")
    } else {
        trimmed.to_owned()
    }
}

/// A TOML basic string (names are written quoted and escaped).
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The farm as TOML text, one machine and one license pool a line, after
/// `comment` (each line prefixed with `# `). A pool usable on most machines
/// lists the exceptions (`except`), otherwise the machines.
#[must_use]
pub fn farm_toml(farm: &Farm, comment: &str) -> String {
    let mut out = String::new();
    for line in comment.lines() {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(
        out,
        "# {} machines ({} CPUs), {} license pools.",
        farm.machines.len(),
        farm.total_cpus(),
        farm.licenses.len()
    );
    out.push_str("machine = [\n");
    for m in &farm.machines {
        let _ = write!(out, "  {{ name = {}, cpus = {}", quoted(&m.name), m.cpus);
        if m.speed != 1000 {
            let _ = write!(out, ", speed = {}", speed_text(m.speed));
        }
        out.push_str(" },\n");
    }
    out.push_str("]\n\n");
    out.push_str("license = [\n");
    let all = farm.machines.len();
    for l in &farm.licenses {
        let _ = write!(
            out,
            "  {{ name = {}, copies = {}",
            quoted(&l.name),
            l.copies
        );
        let names = |ms: &mut dyn Iterator<Item = usize>| -> String {
            ms.filter_map(|m| farm.machines.get(m).map(|x| quoted(&x.name)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if l.machines.len() == all {
        } else if 2 * l.machines.len() >= all {
            let on: HashSet<usize> = l.machines.iter().copied().collect();
            let _ = write!(
                out,
                ", except = [{}]",
                names(&mut (0..all).filter(|m| !on.contains(m)))
            );
        } else {
            let _ = write!(
                out,
                ", machines = [{}]",
                names(&mut l.machines.iter().copied())
            );
        }
        out.push_str(" },\n");
    }
    out.push_str("]\n");
    out
}

/// The columns of a job list, in the order they are written.
pub(crate) const COLUMNS: [&str; 7] = [
    "id", "submit", "cpus", "estimate", "runtime", "deadline", "licenses",
];

/// The job list as CSV text, after `comment` (each line prefixed `# `).
#[must_use]
pub fn jobs_csv(farm: &Farm, jobs: &[FarmJob], comment: &str) -> String {
    let mut out = String::new();
    for line in comment.lines() {
        let _ = writeln!(out, "# {line}");
    }
    out.push_str(&COLUMNS.join(","));
    out.push('\n');
    for j in jobs {
        let licenses: Vec<&str> = j
            .licenses
            .iter()
            .filter_map(|&l| farm.licenses.get(l).map(|x| x.name.as_str()))
            .collect();
        let deadline = j.deadline.map_or_else(String::new, |d| d.to_string());
        // License names may hold commas and quotes: quote the field then,
        // doubling its quotes, as CSV does.
        let mut licenses = licenses.join(" ");
        if licenses.contains([',', '"']) {
            licenses = format!("\"{}\"", licenses.replace('"', "\"\""));
        }
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{licenses}",
            j.id, j.submit, j.cpus, j.estimate, j.runtime, deadline,
        );
    }
    out
}

/// Whether the file at `path` starts like a farm job list: its first line
/// that is neither blank nor a `#` comment is a CSV header of
/// [`COLUMNS`] names with `id` among them. Only the first 64 KiB are read;
/// a file that cannot be read is not one.
#[must_use]
pub(crate) fn looks_like_job_list(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(1 << 16).read_to_end(&mut head));
    if read.is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    let Some(first) = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    else {
        return false;
    };
    let names: Vec<&str> = first.split(',').map(str::trim).collect();
    names.contains(&"id") && names.iter().all(|n| COLUMNS.contains(n))
}

/// Reads a job list for `farm` from `path`.
///
/// # Errors
/// [`FormatError`] naming the file, line and field.
pub(crate) fn read_jobs(path: &Path, farm: &Farm) -> Result<Vec<FarmJob>, FormatError> {
    let bytes = read_whole(path, |p| std::fs::read(p))?;
    parse_jobs(&path.display().to_string(), &bytes, farm)
}

/// Parses a job list for `farm`; `file` names it in errors.
///
/// # Errors
/// [`FormatError`] naming the file, line and field.
pub fn parse_jobs(file: &str, bytes: &[u8], farm: &Farm) -> Result<Vec<FarmJob>, FormatError> {
    let error = |line: Option<u64>, field: Option<&str>, message: String| FormatError {
        file: file.to_owned(),
        line,
        field: field.map(str::to_owned),
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(bytes);
    let csv_error = |e: &csv::Error| {
        let line = e.position().map(csv::Position::line);
        let message = match e.kind() {
            csv::ErrorKind::Utf8 { .. } => "invalid UTF-8".to_owned(),
            _ => e.to_string(),
        };
        error(line, None, message)
    };
    let header = reader.headers().map_err(|e| csv_error(&e))?.clone();
    let header_line = header.position().map(csv::Position::line);
    if header.iter().all(str::is_empty) {
        return Err(error(
            None,
            None,
            format!("no header line (expected {})", COLUMNS.join(",")),
        ));
    }
    let mut column: HashMap<&str, usize> = HashMap::new();
    for (i, h) in header.iter().enumerate() {
        if h.is_empty() {
            return Err(error(
                header_line,
                None,
                format!(
                    "column {} of the header has no name (expected some of {})",
                    i + 1,
                    COLUMNS.join(",")
                ),
            ));
        }
        if !COLUMNS.contains(&h) {
            // Shown escaped: a quoted name may hold a line break.
            return Err(error(
                header_line,
                Some(&h.escape_debug().to_string()),
                format!("unknown column (expected some of {})", COLUMNS.join(",")),
            ));
        }
        // One of `COLUMNS`: shown as it is.
        if column.insert(h, i).is_some() {
            return Err(error(header_line, Some(h), "column named twice".into()));
        }
    }
    for required in ["id", "submit", "cpus", "estimate"] {
        if !column.contains_key(required) {
            return Err(error(
                header_line,
                Some(required),
                "required column missing from the header".into(),
            ));
        }
    }
    let license_index: HashMap<&str, usize> = farm
        .licenses
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.as_str(), i))
        .collect();
    let mut jobs = Vec::new();
    let mut ids: HashMap<u32, u64> = HashMap::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_error(&e)),
        }
        let line = record.position().map(csv::Position::line);
        if record.len() != header.len() {
            return Err(error(
                line,
                None,
                format!(
                    "{} fields, but the header has {}",
                    record.len(),
                    header.len()
                ),
            ));
        }
        let text = |name: &str| column.get(name).and_then(|&i| record.get(i)).unwrap_or("");
        let number = |name: &str, min: u32| -> Result<u32, FormatError> {
            let v = text(name);
            v.parse::<u32>().ok().filter(|&n| n >= min).ok_or_else(|| {
                error(
                    line,
                    Some(name),
                    format!(
                        "expected a whole number from {min} to {}, found '{}'",
                        u32::MAX,
                        v.escape_debug()
                    ),
                )
            })
        };
        let id = number("id", 0)?;
        if let Some(first) = ids.insert(id, line.unwrap_or(0)) {
            return Err(error(
                line,
                Some("id"),
                format!("job id {id} is used twice (first on line {first})"),
            ));
        }
        let submit = number("submit", 0)?;
        let cpus = number("cpus", 1)?;
        let estimate = number("estimate", 1)?;
        let runtime = if text("runtime").is_empty() {
            estimate
        } else {
            number("runtime", 0)?
        };
        let deadline = if text("deadline").is_empty() {
            None
        } else {
            let d = number("deadline", 0)?;
            if d < submit {
                return Err(error(
                    line,
                    Some("deadline"),
                    format!("deadline {d} is before the submit time {submit}"),
                ));
            }
            Some(d)
        };
        let mut licenses = Vec::new();
        for name in text("licenses").split_whitespace() {
            let shown = name.escape_debug();
            let Some(&l) = license_index.get(name) else {
                return Err(error(
                    line,
                    Some("licenses"),
                    format!("no license pool is named '{shown}' in the farm"),
                ));
            };
            if licenses.contains(&l) {
                return Err(error(
                    line,
                    Some("licenses"),
                    format!("license '{shown}' is listed twice"),
                ));
            }
            licenses.push(l);
        }
        licenses.sort_unstable();
        jobs.push(FarmJob {
            id,
            submit,
            cpus,
            estimate,
            runtime,
            deadline,
            licenses,
        });
    }
    Ok(jobs)
}

/// Reads a farm and its job list.
///
/// # Errors
/// [`FormatError`] naming the file, line and field.
pub(crate) fn read_workload(farm: &Path, jobs: &Path) -> Result<FarmWorkload, FormatError> {
    let farm = read_farm(farm)?;
    let jobs = read_jobs(jobs, &farm)?;
    Ok(FarmWorkload { farm, jobs })
}

#[cfg(test)]
mod tests;
