//! Output failures: none may panic; a closed pipe ends quietly, anything
//! else is exit status 1 (or 2 when an output path is refused before the
//! run) with a one-line message, and no file that looks complete is left.

use super::{
    fails_with, job, listing, ok, run, run_in, run_to, scratch, small_trace_dir, stderr, stdout,
    write, BIN,
};
use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn a_closed_pipe_ends_quietly() {
    for args in [
        &["replay", "--synthetic-jobs", "400"][..],
        &["replay", "--synthetic-jobs", "400", "--format", "json"],
        &["compare", "--synthetic-jobs", "200", "--policies", "easy"],
        &["--help"],
    ] {
        let mut child = Command::new(super::BIN)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // The reader goes away before the report is written.
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut err)
            .expect("read stderr");
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

#[test]
fn a_full_disk_on_stdout_is_one_line_and_status_1() {
    for args in [
        &["replay", "--synthetic-jobs", "200"][..],
        &["info", "--help"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = run_to(args, Stdio::from(full));
        fails_with(&out, 1, &["error: ", "No space left on device"]);
    }
}

#[test]
fn bad_output_paths_are_refused_before_the_run() {
    let (dir, trace) = small_trace_dir();
    let t = trace.as_str();
    let ok = dir.path().join("ok.csv");
    let ok = ok.to_str().expect("utf-8");
    let out = run(&["compare", t, "--csv", ok, "--svg", "/nonexistent/x.svg"]);
    fails_with(
        &out,
        2,
        &["--svg /nonexistent/x.svg: the directory /nonexistent does not exist"],
    );
    let out = run(&["replay", t, "--jobs-out", t]);
    fails_with(
        &out,
        2,
        &[
            "--jobs-out",
            "is the input trace",
            "refusing to overwrite it",
        ],
    );
    let out = run(&["compare", t, "--csv", ok, "--svg", ok]);
    fails_with(&out, 2, &["--svg", "--csv already writes to"]);
    let out = run(&["fairness", t, "--csv", ok, "--jobs-out", ok]);
    fails_with(&out, 2, &["--jobs-out", "--csv already writes to"]);
    let d = dir.path().to_str().expect("utf-8");
    let out = run(&["replay", t, "--jobs-out", d]);
    fails_with(&out, 2, &["is a directory"]);
    assert_eq!(listing(dir.path()), ["small.swf"], "nothing written");
}

#[test]
fn a_full_disk_leaves_no_output_file() {
    let (dir, trace) = small_trace_dir();
    let t = trace.as_str();
    let out = run(&["replay", t, "--jobs-out", "/dev/full"]);
    fails_with(&out, 1, &["/dev/full: ", "No space left on device"]);
    assert!(stdout(&out).is_empty(), "no report after a failed output");
    // The jobs CSV is written first, then the failing --csv: the jobs file
    // must not appear, and an older file of that name stays as it was.
    let jobs = write(dir.path(), "jobs.csv", "old contents\n");
    let out = run(&[
        "fairness",
        t,
        "--policies",
        "easy",
        "--jobs-out",
        jobs.to_str().expect("utf-8"),
        "--csv",
        "/dev/full",
    ]);
    fails_with(&out, 1, &["/dev/full: ", "No space left on device"]);
    assert_eq!(
        std::fs::read_to_string(&jobs).expect("read"),
        "old contents\n"
    );
    assert_eq!(
        listing(dir.path()),
        ["jobs.csv", "small.swf"],
        "no temporary file left"
    );
}

#[test]
fn outputs_appear_complete_after_a_good_run() {
    let (dir, trace) = small_trace_dir();
    let t = trace.as_str();
    let csv = dir.path().join("c.csv");
    let svg = dir.path().join("c.svg");
    ok(&[
        "compare",
        t,
        "--policies",
        "easy",
        "--csv",
        csv.to_str().expect("utf-8"),
        "--svg",
        svg.to_str().expect("utf-8"),
    ]);
    assert_eq!(listing(dir.path()), ["c.csv", "c.svg", "small.swf"]);
    assert!(std::fs::read_to_string(&svg)
        .expect("svg")
        .trim_end()
        .ends_with("</svg>"));
    assert_eq!(
        std::fs::read_to_string(&csv).expect("csv").lines().count(),
        1 + 2 * 5
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&csv).expect("meta").permissions().mode();
        assert_ne!(
            mode & 0o044,
            0,
            "readable by others as File::create makes it: {mode:o}"
        );
    }
}

#[test]
fn default_file_names_are_never_replaced_without_force() {
    let dir = scratch();
    let generate = ["generate", "farm", "--jobs", "20", "--machines", "4"];
    let first = run_in(dir.path(), &generate);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(listing(dir.path()), ["farm.toml", "jobs.csv"]);
    std::fs::write(dir.path().join("jobs.csv"), "mine").expect("write");
    let again = run_in(dir.path(), &generate);
    fails_with(
        &again,
        2,
        &["--farm-out farm.toml: the file exists; give --force to replace it"],
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("jobs.csv")).expect("read"),
        "mine",
        "nothing replaced"
    );
    let forced = run_in(dir.path(), &[&generate[..], &["--force"]].concat());
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert!(std::fs::read_to_string(dir.path().join("jobs.csv"))
        .expect("read")
        .contains("id,submit"));
    // A name given is an output like any other: replaced.
    let named = run_in(
        dir.path(),
        &[
            &generate[..],
            &["--farm-out", "farm.toml", "--jobs-out", "jobs.csv"],
        ]
        .concat(),
    );
    assert_eq!(named.status.code(), Some(0), "{}", stderr(&named));
    // farm-study's files in a data folder are names it chose.
    let data = dir.path().join("data");
    let study = [
        "farm-study",
        "--jobs",
        "20",
        "--machines",
        "4",
        "--means",
        "24",
        "--repetitions",
        "2",
        "--no-license-sweep",
        "--policies",
        "fcfs",
        "--data-dir",
        "data",
    ];
    let out = run_in(dir.path(), &study);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = listing(&data);
    assert!(!written.is_empty());
    let out = run_in(dir.path(), &study);
    fails_with(&out, 2, &["--data-dir", "the file exists; give --force"]);
    let out = run_in(dir.path(), &[&study[..], &["--force"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(listing(&data), written);
}

/// The totals (`N/M jobs`) and counts without a total (`N jobs
/// replayed`) that the progress display showed in `screen`.
fn progress_states(screen: &str) -> (Vec<u64>, usize) {
    let number = |s: &str| s.replace(',', "").parse::<u64>().ok();
    let mut totals = Vec::new();
    let mut counts = 0;
    for frame in screen.split(['\r', '\n']) {
        let words: Vec<&str> = frame.split_whitespace().collect();
        for pair in words.windows(2) {
            if pair[1] == "jobs" {
                if let Some((_, total)) = pair[0].split_once('/') {
                    totals.extend(number(total));
                }
            }
        }
        if frame.contains("jobs replayed (") && frame.contains(" jobs/s)") {
            counts += 1;
        }
    }
    (totals, counts)
}

#[test]
fn a_streamed_replay_shows_no_total_before_the_trace_is_read() {
    // Bars are drawn only on a terminal: `script` gives the run one.
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        eprintln!("skipped: no `script` (util-linux) to run host-cli on a terminal");
        return;
    }
    let dir = scratch();
    // Over 1 MiB and 20,000 jobs: large enough for a visible bar.
    let jobs = 25_000_u32;
    let mut text = String::from("; MaxProcs: 64\n");
    for i in 0..jobs {
        let run = 10 + i64::from(i * 7919 % 990);
        let procs = 1 << (i % 4);
        text.push_str(&job(i + 1, u64::from(i) * 100, run, procs, run * 2));
    }
    let trace = write(dir.path(), "big.swf", &text);
    let command = format!("{BIN} replay {} --policy easy", trace.display());
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("run script");
    let screen = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{screen}");
    assert!(screen.contains("25000 scheduled"), "{screen}");
    let (totals, counts) = progress_states(&screen);
    assert!(
        counts > 0,
        "no count with its rate while streaming: {screen}"
    );
    assert!(
        totals.iter().all(|&t| t == u64::from(jobs)),
        "a total other than the job count: {totals:?}"
    );
}
