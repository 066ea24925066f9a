//! Running many `host-cli` commands, a few at a time, each writing its
//! stdout to a file that appears only once the command succeeded.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Runs `task` on every item, `jobs` at a time (in any order). The first
/// error stops the items not yet started and is returned once the running
/// ones are done.
pub fn parallel<T: Sync>(
    jobs: usize,
    items: &[T],
    task: impl Fn(&T) -> Result<(), String> + Sync,
) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let first_error: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                if failed.load(Ordering::SeqCst) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(i) else {
                    return;
                };
                if let Err(e) = task(item) {
                    failed.store(true, Ordering::SeqCst);
                    if let Ok(mut slot) = first_error.lock() {
                        slot.get_or_insert(e);
                    }
                }
            });
        }
    });
    match first_error.into_inner().ok().flatten() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// It succeeded; its stdout is in place.
    Done,
    /// It ran past the time limit and was stopped; nothing was written.
    TimedOut,
}

/// Runs `command` with its stdout going to `out`, which appears only when
/// the command succeeded (it is written to `out.tmp` first); stopped after
/// `limit` when given. stderr is kept beside it and shown in the error of a
/// failed command.
pub fn to_file(mut command: Command, out: &Path, limit: Option<Duration>) -> Result<Ended, String> {
    let tmp = with_suffix(out, ".tmp");
    let err_path = with_suffix(out, ".stderr");
    let open = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    command
        .stdout(Stdio::from(open(&tmp)?))
        .stderr(Stdio::from(open(&err_path)?))
        .stdin(Stdio::null());
    let shown = format!("{command:?}");
    let mut child = command.spawn().map_err(|e| format!("{shown}: {e}"))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("{shown}: {e}"))? {
            break status;
        }
        if limit.is_some_and(|l| started.elapsed() > l) {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&tmp);
            let _ = std::fs::remove_file(&err_path);
            return Ok(Ended::TimedOut);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(&err_path);
    if !status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{shown} failed ({status}): {}", stderr.trim()));
    }
    std::fs::rename(&tmp, out).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(Ended::Done)
}

/// `path` with `suffix` added to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// The folder for a study's replay reports: `given` (created if missing;
/// reports already there are kept and not replayed again), else a new
/// temporary one.
pub enum RunsDir {
    /// Kept after the study.
    Kept(PathBuf),
    /// Removed after the study.
    Temporary(tempfile::TempDir),
}

impl RunsDir {
    /// `given`, or a temporary folder.
    pub fn new(given: Option<&Path>) -> Result<Self, String> {
        match given {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                Ok(Self::Kept(dir.to_path_buf()))
            }
            None => tempfile::tempdir()
                .map(Self::Temporary)
                .map_err(|e| format!("temporary folder: {e}")),
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        match self {
            Self::Kept(p) => p,
            Self::Temporary(t) => t.path(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_runs_every_item_and_stops_at_an_error() {
        let seen = Mutex::new(Vec::new());
        parallel(3, &[1, 2, 3, 4, 5], |&i| {
            seen.lock().unwrap().push(i);
            Ok(())
        })
        .unwrap();
        let mut v = seen.into_inner().unwrap();
        v.sort_unstable();
        assert_eq!(v, [1, 2, 3, 4, 5]);
        let e = parallel(1, &[1, 2, 3], |&i| {
            if i == 2 {
                Err(format!("item {i}"))
            } else {
                Ok(())
            }
        });
        assert_eq!(e, Err("item 2".to_owned()));
    }

    #[test]
    fn output_appears_only_for_a_command_that_succeeded() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let mut ok = Command::new("sh");
        ok.args(["-c", "echo hello"]);
        assert_eq!(to_file(ok, &out, None), Ok(Ended::Done));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "hello\n");
        let bad = dir.path().join("bad.txt");
        let mut fail = Command::new("sh");
        fail.args(["-c", "echo partial; echo why >&2; exit 3"]);
        let e = to_file(fail, &bad, None).unwrap_err();
        assert!(e.contains("why"), "{e}");
        assert!(!bad.exists());
        let slow = dir.path().join("slow.txt");
        let mut sleep = Command::new("sleep");
        sleep.arg("5");
        assert_eq!(
            to_file(sleep, &slow, Some(Duration::from_millis(100))),
            Ok(Ended::TimedOut)
        );
        assert!(!slow.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
