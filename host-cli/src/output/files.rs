//! Where results go: stdout without panics, and output files that appear
//! only when complete.
//!
//! * **Stdout.** Reports are written through a locked stdout
//!   ([`write_stdout`]), never with `print!`, so a write error is a value.
//!   `host-cli` treats a closed pipe (`host-cli replay T | head -1`) as the
//!   reader having seen enough: it stops quietly with exit status 0, as
//!   `ls | head` appears to; any other error (`> /dev/full`) is a one-line
//!   message and exit status 1 ([`StdoutError`]).
//! * **Files** (`--jobs-out`, `--csv`, `--svg`). [`OutputFiles`] checks
//!   every path *before* the run: the directory must exist and take a new
//!   file (a temporary one is created there at once), the path must not be
//!   a directory, an input, or another output of the same command. Each
//!   file is written to that temporary name beside its target (a hidden
//!   `.NAME.XXXXXX.tmp`), synced, and renamed over the target by
//!   [`OutputFiles::commit`] once every output of the command is written;
//!   until then, and after any failure, the temporary files are removed, so
//!   a failed run leaves no file that looks complete (and an existing file
//!   of that name untouched). Devices and pipes (an existing path that is
//!   not a regular file, or any path under `/dev` or `/proc`, such as
//!   `/dev/stdout`) cannot be renamed over: they are opened before the run
//!   and written in place.

use crate::error::CliError;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writing the report to stdout failed for a reason other than a closed pipe.
#[derive(Debug)]
pub(crate) struct StdoutError(pub(crate) io::Error);

impl std::fmt::Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "writing the report to stdout failed: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}

/// Writes `bytes` to `out` and flushes it. A closed pipe
/// ([`io::ErrorKind::BrokenPipe`]) is not an error: the reader stopped
/// reading, so the rest is dropped and `Ok(false)` says so; `Ok(true)` means
/// everything was written.
///
/// # Errors
/// [`StdoutError`] for any other write error (a full disk, say).
pub(crate) fn write_all_or_closed(out: &mut impl Write, bytes: &[u8]) -> Result<bool, StdoutError> {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(StdoutError(e)),
    }
}

/// Writes `bytes` to the process's stdout (locked): see
/// [`write_all_or_closed`].
///
/// # Errors
/// As [`write_all_or_closed`].
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<bool, StdoutError> {
    write_all_or_closed(&mut io::stdout().lock(), bytes)
}

/// Writes one line to stderr, ignoring failure (there is nowhere left to
/// report it); unlike `eprintln!`, never panics.
pub(crate) fn warn(line: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// Where one output goes.
enum Target {
    /// A regular file: written to `temp`, renamed to `dest` on commit.
    Atomic {
        temp: tempfile::NamedTempFile,
        dest: PathBuf,
    },
    /// A device or pipe, opened before the run and written in place.
    Direct(File),
    /// Written (direct targets), waiting for nothing more.
    Done,
}

/// One output file of a command.
struct Output {
    /// The option that named it (`--csv`).
    option: &'static str,
    /// The path as given, for messages.
    shown: String,
    /// What it resolves to, for the same-path checks (`None` for devices).
    identity: Option<PathBuf>,
    target: Target,
    written: bool,
}

/// The output files of one command: checked and reserved before the run,
/// written after it, and renamed into place together (see the module
/// docs). Dropping it without [`commit`](Self::commit) removes every
/// temporary file.
pub(crate) struct OutputFiles {
    inputs: Vec<(PathBuf, String)>,
    outputs: Vec<Output>,
}

impl std::fmt::Debug for OutputFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputFiles")
            .field(
                "outputs",
                &self
                    .outputs
                    .iter()
                    .map(|o| (o.option, &o.shown))
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// Whether `path` is written in place: under `/dev` or `/proc`, or an
/// existing path that is not a regular file.
fn is_device(path: &Path) -> bool {
    if path.starts_with("/dev") || path.starts_with("/proc") {
        return true;
    }
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// `path` made absolute with its directory resolved (symlinks included), so
/// two spellings of one file compare equal; an existing file (or symlink to
/// one) resolves completely.
pub(crate) fn identity(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    dir.canonicalize().ok().map(|d| d.join(name))
}

impl OutputFiles {
    /// No outputs yet; `inputs` (the trace, when one is read) may not be
    /// named as outputs.
    #[must_use]
    pub(crate) fn new(inputs: &[&Path]) -> Self {
        Self {
            inputs: inputs
                .iter()
                .filter_map(|p| identity(p).map(|id| (id, p.display().to_string())))
                .collect(),
            outputs: Vec::new(),
        }
    }

    /// Checks and reserves the output `path` given with `option`, if any.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the option and path when the path is a
    /// directory, an input, another output's path, or in a directory that
    /// does not exist or does not take a new file.
    pub(crate) fn add(
        &mut self,
        option: &'static str,
        path: Option<&Path>,
    ) -> Result<(), CliError> {
        let Some(path) = path else {
            return Ok(());
        };
        let shown = path.display().to_string();
        let bad = |problem: String| CliError::Usage(format!("{option} {shown}: {problem}"));
        if is_device(path) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| bad(format!("cannot open it for writing: {e}")))?;
            self.outputs.push(Output {
                option,
                shown,
                identity: None,
                target: Target::Direct(file),
                written: false,
            });
            return Ok(());
        }
        if path.is_dir() || path.file_name().is_none() {
            return Err(bad("is a directory, not a file name".into()));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            let why = if dir.exists() {
                "is not a directory"
            } else {
                "does not exist"
            };
            return Err(bad(format!("the directory {} {why}", dir.display())));
        }
        let id = identity(path).ok_or_else(|| bad("cannot resolve the path".into()))?;
        if let Some((_, input)) = self.inputs.iter().find(|(i, _)| *i == id) {
            return Err(bad(format!(
                "is the input trace {input}; refusing to overwrite it"
            )));
        }
        if let Some(other) = self
            .outputs
            .iter()
            .find(|o| o.identity.as_ref() == Some(&id))
        {
            return Err(bad(format!(
                "{} already writes to {}; give each output its own file",
                other.option, other.shown
            )));
        }
        // Write through a symlink: the link stays, its target is replaced.
        let dest = if path.is_symlink() {
            id.clone()
        } else {
            path.to_path_buf()
        };
        let dest_dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        match std::fs::metadata(&dest) {
            // Replacing a file: keep its permissions.
            Ok(m) => {
                builder.permissions(m.permissions());
            }
            Err(_) => default_permissions(&mut builder),
        }
        let temp = builder.tempfile_in(&dest_dir).map_err(|e| {
            bad(format!(
                "cannot create a file in {}: {e}",
                dest_dir.display()
            ))
        })?;
        self.outputs.push(Output {
            option,
            shown,
            identity: Some(id),
            target: Target::Atomic { temp, dest },
            written: false,
        });
        Ok(())
    }

    /// Whether an output was given with `option`.
    #[must_use]
    pub(crate) fn wants(&self, option: &str) -> bool {
        self.outputs.iter().any(|o| o.option == option)
    }

    /// Writes the output given with `option` (nothing if none was): `write`
    /// gets a buffered writer. A temporary file is flushed and synced, but
    /// only [`commit`](Self::commit) puts it in place.
    ///
    /// # Errors
    /// What `write` returns, or [`CliError::Io`] naming the path when
    /// flushing or syncing fails.
    pub(crate) fn write_with(
        &mut self,
        option: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), CliError> {
        let Some(out) = self
            .outputs
            .iter_mut()
            .find(|o| o.option == option && !o.written)
        else {
            return Ok(());
        };
        let io_err = |e: io::Error| CliError::Io(out.shown.clone(), e);
        match &mut out.target {
            Target::Atomic { temp, .. } => {
                let mut w = BufWriter::new(temp.as_file_mut());
                write(&mut w).map_err(io_err)?;
                w.flush().map_err(io_err)?;
                drop(w);
                temp.as_file().sync_all().map_err(io_err)?;
            }
            Target::Direct(file) => {
                let mut w = BufWriter::new(&mut *file);
                write(&mut w).map_err(io_err)?;
                w.flush().map_err(io_err)?;
                drop(w);
                out.target = Target::Done;
            }
            Target::Done => {}
        }
        out.written = true;
        Ok(())
    }

    /// [`write_with`](Self::write_with) for text made in memory.
    ///
    /// # Errors
    /// As [`write_with`](Self::write_with).
    pub(crate) fn write(&mut self, option: &str, bytes: &[u8]) -> Result<(), CliError> {
        self.write_with(option, |w| w.write_all(bytes))
    }

    /// Puts every written file in place (renames each temporary file over
    /// its target). Call once everything is written.
    ///
    /// # Errors
    /// [`CliError::Io`] when an output was never written (a bug) or a
    /// rename fails; the files not yet renamed are removed.
    pub(crate) fn commit(self) -> Result<(), CliError> {
        if let Some(o) = self.outputs.iter().find(|o| !o.written) {
            return Err(CliError::Io(
                o.shown.clone(),
                io::Error::other(format!("{} was not written", o.option)),
            ));
        }
        for out in self.outputs {
            if let Target::Atomic { temp, dest } = out.target {
                temp.persist(&dest)
                    .map_err(|e| CliError::Io(out.shown.clone(), e.error))?;
            }
        }
        Ok(())
    }
}

/// Asks for the permissions `File::create` asks for (`0o666`, less the
/// umask), not the temporary file's default `0o600`.
#[cfg(unix)]
fn default_permissions(builder: &mut tempfile::Builder<'_, '_>) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(std::fs::Permissions::from_mode(0o666));
}

#[cfg(not(unix))]
fn default_permissions(_builder: &mut tempfile::Builder<'_, '_>) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("output-{name}-"))
            .tempdir()
            .unwrap()
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn files_appear_only_on_commit() {
        let dir = scratch("commit");
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.svg");
        let mut files = OutputFiles::new(&[]);
        files.add("--csv", Some(&a)).unwrap();
        files.add("--svg", Some(&b)).unwrap();
        files.add("--jobs-out", None).unwrap();
        assert!(files.wants("--csv") && !files.wants("--jobs-out"));
        files.write("--csv", b"x,y\n").unwrap();
        files.write("--svg", b"<svg/>").unwrap();
        files.write("--jobs-out", b"ignored").unwrap();
        // Only hidden temporary files so far.
        assert!(listing(dir.path())
            .iter()
            .all(|n| n.starts_with('.') && n.ends_with(".tmp")));
        files.commit().unwrap();
        assert_eq!(listing(dir.path()), ["a.csv", "b.svg"]);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "x,y\n");
    }

    #[test]
    fn dropping_without_commit_leaves_nothing() {
        let dir = scratch("drop");
        let a = dir.path().join("a.csv");
        std::fs::write(&a, "old").unwrap();
        {
            let mut files = OutputFiles::new(&[]);
            files.add("--csv", Some(&a)).unwrap();
            files.write("--csv", b"new").unwrap();
        }
        assert_eq!(listing(dir.path()), ["a.csv"]);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "old");
    }

    #[test]
    fn unwritten_output_is_an_error_at_commit() {
        let dir = scratch("unwritten");
        let mut files = OutputFiles::new(&[]);
        files.add("--csv", Some(&dir.path().join("a.csv"))).unwrap();
        assert!(files.commit().is_err());
        assert!(listing(dir.path()).is_empty());
    }

    #[test]
    fn bad_paths_are_refused_before_anything_is_written() {
        let dir = scratch("bad");
        let input = dir.path().join("trace.swf");
        std::fs::write(&input, "").unwrap();
        let mut files = OutputFiles::new(&[&input]);
        let err = |r: Result<(), CliError>| r.unwrap_err().to_string();
        let e = err(files.add("--svg", Some(Path::new("/nonexistent/x.svg"))));
        assert_eq!(
            e,
            "--svg /nonexistent/x.svg: the directory /nonexistent does not exist"
        );
        let e = err(files.add("--csv", Some(dir.path())));
        assert!(e.ends_with("is a directory, not a file name"), "{e}");
        let e = err(files.add("--jobs-out", Some(&input)));
        assert!(e.contains("is the input trace"), "{e}");
        // The same file spelled another way.
        let dotted = dir.path().join(".").join("trace.swf");
        assert!(err(files.add("--jobs-out", Some(&dotted))).contains("input trace"));
        files
            .add("--csv", Some(&dir.path().join("out.csv")))
            .unwrap();
        let again = dir
            .path()
            .join("..")
            .join(dir.path().file_name().unwrap())
            .join("out.csv");
        let e = err(files.add("--svg", Some(&again)));
        assert!(
            e.contains("--csv") && e.contains("already writes to"),
            "{e}"
        );
        let file_as_dir = input.join("x.csv");
        assert!(err(files.add("--svg", Some(&file_as_dir))).contains("is not a directory"));
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_in_place() {
        let mut files = OutputFiles::new(&[]);
        files.add("--csv", Some(Path::new("/dev/null"))).unwrap();
        files.add("--svg", Some(Path::new("/dev/null"))).unwrap();
        files.write("--csv", b"x").unwrap();
        files.write("--svg", b"y").unwrap();
        files.commit().unwrap();
        let mut full = OutputFiles::new(&[]);
        full.add("--jobs-out", Some(Path::new("/dev/full")))
            .unwrap();
        let e = full.write("--jobs-out", &[b'x'; 100_000]).unwrap_err();
        assert!(e.to_string().starts_with("/dev/full: "), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_keep_pointing_at_the_new_file() {
        let dir = scratch("link");
        let real = dir.path().join("real.csv");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut files = OutputFiles::new(&[]);
        files.add("--csv", Some(&link)).unwrap();
        files.write("--csv", b"new").unwrap();
        files.commit().unwrap();
        assert!(link.is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn stdout_errors_other_than_a_closed_pipe_are_reported() {
        struct Failing(io::ErrorKind);
        impl Write for Failing {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(self.0.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        assert!(!write_all_or_closed(&mut Failing(io::ErrorKind::BrokenPipe), b"x").unwrap());
        let e = write_all_or_closed(&mut Failing(io::ErrorKind::StorageFull), b"x").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("writing the report to stdout failed: "));
        let mut sink = Vec::new();
        assert!(write_all_or_closed(&mut sink, b"ok").unwrap());
        assert_eq!(sink, b"ok");
    }
}
