//! Helpers shared by the doc generators `cons_rs_md` and `dpsa_md`: trace
//! names, the run files a script left, and writing the outputs.

use serde::Serialize;
use std::path::{Path, PathBuf};

/// The trace's file name without `.swf`/`.gz`.
pub fn stem(path: &str) -> String {
    let name = Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path);
    name.trim_end_matches(".gz")
        .trim_end_matches(".swf")
        .to_owned()
}

/// `LLNL-Thunder-2007-1.1-cln` -> `LLNL-Thunder`: the name up to the year.
pub fn short(trace: &str) -> String {
    let parts: Vec<&str> = trace.split('-').collect();
    let year = parts
        .iter()
        .position(|p| p.len() == 4 && p.chars().all(|c| c.is_ascii_digit()));
    match year {
        Some(0) | None => trace.to_owned(),
        Some(i) => parts[..i].join("-"),
    }
}

/// Every `.json` report in `dir`, sorted by path, parsed.
pub fn json_reports(dir: &Path) -> Result<Vec<(PathBuf, serde_json::Value)>, String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    entries
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let v = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok((path, v))
        })
        .collect()
}

/// Writes `rows` as CSV with a header.
pub fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<(), String> {
    let mut w = csv::Writer::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    for row in rows {
        w.serialize(row)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    w.flush().map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `text` to `path`.
pub fn write_text(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
