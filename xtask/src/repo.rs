//! Where things are: the repository, the traces, the `host-cli` binary, and
//! the study folders, which a study replaces only once it has written all
//! of its new contents.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming the traces folder.
pub const TRACES_ENV: &str = "BACKFILL_TRACES_DIR";

/// The repository's root (the xtask crate's parent folder).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The folder every study lives in: `docs/studies`.
pub fn studies_dir() -> PathBuf {
    root().join("docs").join("studies")
}

/// The traces folder: `given` (`--traces`), else `$BACKFILL_TRACES_DIR`, a
/// relative path meaning relative to the current directory; else
/// `../shared/traces` beside the repository.
pub fn traces_dir(given: Option<&Path>) -> Result<PathBuf, String> {
    let chosen = given
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(TRACES_ENV).map(PathBuf::from));
    match chosen {
        Some(dir) if dir.is_relative() => std::env::current_dir()
            .map(|cwd| cwd.join(dir))
            .map_err(|e| format!("the current directory: {e}")),
        Some(dir) => Ok(dir),
        None => Ok(root().join("..").join("shared").join("traces")),
    }
}

/// The `.swf.gz` traces in `dir`, sorted by name (an error when the folder
/// is missing or holds none).
pub fn traces_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!(
            "traces folder {}: {e} (give it with --traces DIR or {TRACES_ENV})",
            dir.display()
        )
    })?;
    let mut traces: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".swf.gz"))
        .collect();
    traces.sort();
    if traces.is_empty() {
        return Err(format!("no .swf.gz trace in {}", dir.display()));
    }
    Ok(traces)
}

/// The paths of `names` (file stems, without `.swf.gz`) in `dir`; an error
/// naming every one that is missing.
pub fn require_traces(dir: &Path, names: &[&str]) -> Result<Vec<PathBuf>, String> {
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|n| dir.join(format!("{n}.swf.gz")))
        .collect();
    let missing: Vec<String> = paths
        .iter()
        .filter(|p| !p.is_file())
        .map(|p| p.display().to_string())
        .collect();
    if missing.is_empty() {
        Ok(paths)
    } else {
        Err(format!(
            "missing trace{}: {} (give the folder with --traces DIR or {TRACES_ENV})",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        ))
    }
}

/// The trace's file name without `.gz` and `.swf`.
pub fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
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

/// The release `host-cli` to run: `given` as it is, else built now
/// (`cargo build --release -p backfill-cli --bin host-cli`).
pub fn host_cli(given: Option<&Path>) -> Result<PathBuf, String> {
    let bin = match given {
        Some(path) => path.to_path_buf(),
        None => {
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let status = Command::new(cargo)
                .current_dir(root())
                .args([
                    "build",
                    "--release",
                    "--quiet",
                    "-p",
                    "backfill-cli",
                    "--bin",
                    "host-cli",
                ])
                .status()
                .map_err(|e| format!("cargo build: {e}"))?;
            if !status.success() {
                return Err(format!("cargo build of host-cli failed ({status})"));
            }
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| root().join("target"), |t| root().join(t));
            target.join("release").join("host-cli")
        }
    };
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!("host-cli binary {} not found", bin.display()))
    }
}

/// What a study run leaves beside its data for the documents:
/// `data/study.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// Wall time of the study's replays, in seconds.
    pub seconds: u64,
    /// Replays run at a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<usize>,
    /// A note on the run, printed where the study's document says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The name of the metadata file in a study's `data/`.
pub const META: &str = "study.toml";

impl Meta {
    /// Replays run at a time (1 when the run did not say).
    pub fn replays_at_a_time(&self) -> usize {
        self.jobs.unwrap_or(1)
    }

    /// The note on the run after `sep`, or nothing without a note: for a
    /// sentence that mentions the note only when there is one.
    pub fn note_after(&self, sep: &str) -> String {
        self.note
            .as_ref()
            .map_or_else(String::new, |n| format!("{sep}{n}"))
    }

    /// Reads `DIR/data/study.toml`.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let path = dir.join("data").join(META);
        let text = read_text(&path)?;
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Writes `DIR/data/study.toml`.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let text = toml::to_string(self).map_err(|e| format!("{META}: {e}"))?;
        write_text(
            &dir.join("data").join(META),
            &format!("# Written by `cargo xtask study`; read by `cargo xtask docs`.\n{text}"),
        )
    }
}

/// A study's new folder, written beside the one it replaces (`study` in
/// `parent`) and put in its place by [`StudyDir::commit`]; dropped
/// without a commit, it is removed and the old folder stays as it was.
pub struct StudyDir {
    temp: tempfile::TempDir,
    target: PathBuf,
}

impl StudyDir {
    /// A new empty folder for study `name` under `parent`, with `data/`
    /// and `figures/`.
    pub fn new(parent: &Path, name: &str) -> Result<Self, String> {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}.new."))
            .tempdir_in(parent)
            .map_err(|e| format!("{}: {e}", parent.display()))?;
        for sub in ["data", "figures"] {
            std::fs::create_dir(temp.path().join(sub))
                .map_err(|e| format!("{}: {e}", temp.path().display()))?;
        }
        Ok(Self {
            temp,
            target: parent.join(name),
        })
    }

    /// Where to write.
    pub fn path(&self) -> &Path {
        self.temp.path()
    }

    /// Puts the new folder in place of the old one. Files of the old folder
    /// that the study does not write (hand-written pages beside the
    /// generated one) are carried over first; then the old folder is moved
    /// aside, the new one renamed into place, and the old one removed.
    pub fn commit(self) -> Result<PathBuf, String> {
        let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
        if self.target.is_dir() {
            for entry in std::fs::read_dir(&self.target).map_err(|e| err(&self.target, e))? {
                let entry = entry.map_err(|e| err(&self.target, e))?;
                let new = self.temp.path().join(entry.file_name());
                if !new.exists() && entry.path().is_file() {
                    std::fs::copy(entry.path(), &new).map_err(|e| err(&new, e))?;
                }
            }
        }
        let new = self.temp.keep();
        if self.target.exists() {
            let old = tempfile::Builder::new()
                .prefix(".old.")
                .tempdir_in(new.parent().unwrap_or(Path::new(".")))
                .map_err(|e| err(&self.target, e))?;
            let aside = old.path().join("study");
            std::fs::rename(&self.target, &aside).map_err(|e| err(&self.target, e))?;
            std::fs::rename(&new, &self.target).map_err(|e| err(&self.target, e))?;
            drop(old);
        } else {
            std::fs::rename(&new, &self.target).map_err(|e| err(&self.target, e))?;
        }
        Ok(self.target)
    }
}

/// Reads a text file, naming it in the error.
pub fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes a text file (its folder created if missing), naming it in the
/// error.
pub fn write_text(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Rows of the CSV file at `path`, each a `T`.
pub fn read_csv<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, String> {
    let mut r = csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    r.deserialize()
        .enumerate()
        .map(|(i, row)| row.map_err(|e| format!("{}: row {}: {e}", path.display(), i + 2)))
        .collect()
}

/// A study's committed data: the rows of its `data/{runs_csv}` (an error
/// when there are none) and its `data/study.toml`.
pub fn read_runs<T: serde::de::DeserializeOwned>(
    dir: &Path,
    runs_csv: &str,
) -> Result<(Vec<T>, Meta), String> {
    let path = dir.join("data").join(runs_csv);
    let runs: Vec<T> = read_csv(&path)?;
    let meta = Meta::read(dir)?;
    if runs.is_empty() {
        return Err(format!("no runs in {}", path.display()));
    }
    Ok((runs, meta))
}

/// `rows` as CSV text with a header line.
pub fn csv_text<T: Serialize>(rows: &[T]) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.serialize(row).map_err(|e| format!("csv: {e}"))?;
    }
    let bytes = w.into_inner().map_err(|e| format!("csv: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("csv: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_names() {
        assert_eq!(
            stem(Path::new("a/b/LLNL-Thunder-2007-1.1-cln.swf.gz")),
            "LLNL-Thunder-2007-1.1-cln"
        );
        assert_eq!(short("LLNL-Thunder-2007-1.1-cln"), "LLNL-Thunder");
        assert_eq!(short("METACENTRUM-2009-2"), "METACENTRUM");
        assert_eq!(short("lublin_256"), "lublin_256");
    }

    #[test]
    fn a_study_folder_replaces_the_old_one_only_on_commit() {
        let parent = tempfile::tempdir().unwrap();
        let old = parent.path().join("s");
        std::fs::create_dir_all(old.join("data")).unwrap();
        std::fs::write(old.join("README.md"), "old").unwrap();
        std::fs::write(old.join("notes.md"), "hand-written").unwrap();
        std::fs::write(old.join("data/x.csv"), "old").unwrap();
        // Dropped without a commit: nothing changes.
        let dir = StudyDir::new(parent.path(), "s").unwrap();
        std::fs::write(dir.path().join("README.md"), "new").unwrap();
        drop(dir);
        assert_eq!(
            std::fs::read_to_string(old.join("README.md")).unwrap(),
            "old"
        );
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 1);
        // Committed: the new files, the hand-written page kept, the old
        // data gone.
        let dir = StudyDir::new(parent.path(), "s").unwrap();
        std::fs::write(dir.path().join("README.md"), "new").unwrap();
        dir.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(old.join("README.md")).unwrap(),
            "new"
        );
        assert_eq!(
            std::fs::read_to_string(old.join("notes.md")).unwrap(),
            "hand-written"
        );
        assert!(!old.join("data/x.csv").exists());
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 1);
    }

    #[test]
    fn relative_traces_folders_are_relative_to_the_current_directory() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(traces_dir(Some(Path::new("t"))).unwrap(), cwd.join("t"));
        assert_eq!(
            traces_dir(Some(Path::new("/abs/t"))).unwrap(),
            PathBuf::from("/abs/t")
        );
    }
}
