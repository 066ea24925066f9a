//! Where the archive traces are: the folder named by `BACKFILL_TRACES_DIR`.
//!
//! A relative value means relative to the directory the command was run
//! from. Cargo runs test and bench binaries from their package's folder,
//! so the process's working directory is not that directory; the `PWD`
//! variable, which the shell sets and cargo passes through unchanged, is.
//! Without an absolute `PWD` (a binary started by something other than a
//! shell), a relative value is taken from the workspace root.
//!
//! Every test and bench that reads traces finds them through
//! [`traces_dir`] or [`trace_files`]; the tests read one with [`prepare`].

use backfill_cli::replay::{self, Estimates, Prepared, Shaping, Window};
use backfill_cli::swf;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variable naming the folder of SWF traces.
pub const TRACES_DIR_ENV: &str = "BACKFILL_TRACES_DIR";

/// The folder `BACKFILL_TRACES_DIR` names, resolved as the module docs
/// say; `None` when the variable is unset or empty.
#[must_use]
pub fn traces_dir() -> Option<PathBuf> {
    let value = std::env::var_os(TRACES_DIR_ENV).filter(|v| !v.is_empty())?;
    let pwd = std::env::var_os("PWD");
    Some(resolve(&value, pwd.as_deref(), &workspace_root()))
}

/// `dir` as an absolute path: as it is when absolute, else joined to
/// `invoked_from` (the `PWD` of the command) when that is absolute, else
/// to `workspace_root`.
#[must_use]
pub fn resolve(dir: &OsStr, invoked_from: Option<&OsStr>, workspace_root: &Path) -> PathBuf {
    let dir = Path::new(dir);
    if dir.is_absolute() {
        return dir.to_path_buf();
    }
    let base = invoked_from
        .map(Path::new)
        .filter(|p| p.is_absolute())
        .unwrap_or(workspace_root);
    base.join(dir)
}

/// The workspace root (the folder of the top `Cargo.toml`).
#[must_use]
pub fn workspace_root() -> PathBuf {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    tests.parent().unwrap_or(tests).to_path_buf()
}

/// The `.swf` and `.swf.gz` files of [`traces_dir`], sorted by name;
/// `None` when `BACKFILL_TRACES_DIR` is not set, after saying on stderr
/// that what needs them (`skipped`) is skipped.
///
/// # Panics
/// When the folder cannot be read or holds no trace: the variable is set,
/// so the caller meant to run on traces.
#[must_use]
pub fn trace_files(skipped: &str) -> Option<Vec<PathBuf>> {
    let Some(dir) = traces_dir() else {
        eprintln!("{TRACES_DIR_ENV} not set: {skipped} skipped");
        return None;
    };
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "{TRACES_DIR_ENV} names {}, which cannot be read: {e}",
            dir.display()
        )
    });
    let mut paths: Vec<PathBuf> = entries
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(OsStr::to_str).unwrap_or("");
            name.ends_with(".swf") || name.ends_with(".swf.gz")
        })
        .collect();
    paths.sort();
    assert!(
        !paths.is_empty(),
        "no .swf or .swf.gz files in {} ({TRACES_DIR_ENV})",
        dir.display()
    );
    Some(paths)
}

/// The users' estimates at the trace's own load: what `host-cli replay`
/// replays by default.
pub const AS_RECORDED: Shaping = Shaping {
    estimates: Estimates::User,
    load: 1.0,
};

/// The trace at `path` read and prepared as `host-cli replay` prepares it:
/// its first `first` job lines (all when `None`), on one machine of the
/// header's size, shaped by `shaping`.
///
/// # Panics
/// When the trace cannot be read or prepared (the message names the file).
#[must_use]
pub fn prepare(path: &Path, first: Option<u64>, shaping: Shaping) -> Prepared {
    let window = Window {
        skip: 0,
        first,
        procs: None,
    };
    let loaded = swf::load(path).unwrap_or_else(|e| panic!("{e}"));
    replay::prepare(&loaded, &window, shaping).unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> &OsStr {
        OsStr::new(s)
    }

    #[test]
    fn a_relative_folder_is_taken_from_where_the_command_ran() {
        let root = Path::new("/repo");
        // From the repository root, as `BACKFILL_TRACES_DIR=../traces cargo
        // test` is run: the folder beside the repository, although the test
        // binary runs in `/repo/tests`.
        assert_eq!(
            resolve(os("../traces"), Some(os("/repo")), root),
            Path::new("/repo/../traces")
        );
        assert_eq!(
            resolve(os("traces"), Some(os("/home/me/data")), root),
            Path::new("/home/me/data/traces")
        );
        // Absolute: as given, wherever the command ran.
        assert_eq!(
            resolve(os("/data/traces"), Some(os("/repo")), root),
            Path::new("/data/traces")
        );
        assert_eq!(
            resolve(os("/data/traces"), None, root),
            Path::new("/data/traces")
        );
    }

    #[test]
    fn without_an_absolute_pwd_a_relative_folder_is_taken_from_the_workspace_root() {
        let root = Path::new("/repo");
        assert_eq!(
            resolve(os("../traces"), None, root),
            Path::new("/repo/../traces")
        );
        assert_eq!(
            resolve(os("traces"), Some(os("not/absolute")), root),
            Path::new("/repo/traces")
        );
    }

    #[test]
    fn the_workspace_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml"))
            .expect("Cargo.toml at the workspace root");
        assert!(manifest.contains("[workspace]"));
    }
}
