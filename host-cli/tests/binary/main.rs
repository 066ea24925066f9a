//! Whole-program tests: they run the `host-cli` binary as a user would, on
//! small inputs written to a scratch directory, and check its exit status,
//! stdout, stderr and the files it leaves behind.
//!
//! * [`checkpoint`]: replays killed at random moments and resumed from
//!   their checkpoints, and checkpoints refused;
//! * [`distributions`]: `replay --distributions` against the per-job rows;
//! * [`farm`]: farm replays and `farm-study` (its Student-t intervals);
//! * [`help`]: the help texts (headings, defaults, listed policies);
//! * [`formats`]: CSV, JSON and per-job outputs as other tools read them;
//! * [`options`]: every option of every command, in every mode, takes
//!   effect or is refused;
//! * [`output`]: stdout and output-file failures (closed pipes, full disks,
//!   bad or clashing paths, runs that fail after some outputs are written);
//! * [`hostile`]: input that cannot be scheduled or does not fit (empty
//!   windows, bad headers, times past the replay clock, huge queues) and
//!   misleading option errors;
//! * [`plan`]: plans run here, by cell and as array tasks, killed and
//!   resumed, merged, and refused when their results do not fit;
//! * [`timeseries`]: `replay --timeseries` and `plot timeseries`;
//! * [`reports`]: what the reports say: sets without jobs, counts and their
//!   nouns, one error prefix, `-` for stdout.

mod checkpoint;
mod distributions;
mod farm;
mod formats;
mod help;
mod hostile;
mod options;
mod output;
mod plan;
mod reasons;
mod reports;
mod timeseries;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_host-cli");

/// A job line: number, submit, run time, processors, requested time.
pub fn job(number: u32, submit: u64, run: i64, procs: i64, requested: i64) -> String {
    format!("{number} {submit} 0 {run} {procs} -1 -1 {procs} {requested} -1 1 1 1 1 1 1 -1 -1\n")
}

/// A fresh scratch directory, removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("host-cli-binary-")
        .tempdir()
        .expect("scratch directory")
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write input");
    path
}

/// Writes the trace `dir/name` of the job lines `jobs` (see [`job`]) on a
/// machine of 4 processors; returns its path.
pub fn four_processor_trace(dir: &Path, name: &str, jobs: &[String]) -> PathBuf {
    write(dir, name, &format!("; MaxProcs: 4\n{}", jobs.concat()))
}

/// A small valid trace: eight jobs on a 4-processor machine.
pub fn small_trace(dir: &Path) -> PathBuf {
    let mut text = String::from("; MaxProcs: 4\n");
    for i in 0..8u32 {
        text.push_str(&job(
            i + 1,
            u64::from(i) * 10,
            30 + i64::from(i),
            1 + i64::from(i % 4),
            100,
        ));
    }
    write(dir, "small.swf", &text)
}

/// A scratch directory holding [`small_trace`], and the trace's path.
pub fn small_trace_dir() -> (tempfile::TempDir, String) {
    let dir = scratch();
    let trace = small_trace(dir.path());
    let path = trace.to_str().expect("utf-8 path").to_owned();
    (dir, path)
}

/// Runs the binary with `args`, stdout and stderr captured.
pub fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run host-cli")
}

/// Runs the binary with `args` in the directory `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run host-cli")
}

/// Runs the binary with `args` and stdout sent to `stdout`.
pub fn run_to(args: &[&str], stdout: Stdio) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("run host-cli")
}

/// Runs `args`, expecting success; its stdout.
pub fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Runs `args` in `dir`, expecting success; its stdout.
pub fn ok_in(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// A scratch directory holding a generated farm of `machines` machines
/// (`farm.toml`) and its list of `jobs` jobs (`jobs.csv`).
pub fn farm_dir(jobs: u32, machines: u32) -> tempfile::TempDir {
    let dir = scratch();
    let (jobs, machines) = (jobs.to_string(), machines.to_string());
    ok_in(
        dir.path(),
        &["generate", "farm", "--jobs", &jobs, "--machines", &machines],
    );
    dir
}

/// Stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts the run failed with `code` and exactly one line on stderr that
/// contains every one of `needles`; returns that line.
pub fn fails_with(out: &Output, code: i32, needles: &[&str]) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} missing in: {err}");
    }
    err
}

/// Asserts the run failed with `code` and its stderr (of any length)
/// contains `needle`; returns stderr.
pub fn fails_saying(out: &Output, code: i32, needle: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.contains(needle), "{needle:?} missing in: {err}");
    err
}

/// The names in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
