//! Input that cannot be scheduled, does not fit, or is contradictory: each
//! is refused before the run with a message saying what is wrong (exit
//! status 2), or, when it shows only during the replay, reported with the
//! job and line concerned.

use super::{fails_with, four_processor_trace, job, run, scratch, small_trace_dir, stdout, write};
use std::io::Write as _;

#[test]
fn empty_input_is_refused_with_the_reason() {
    let dir = scratch();
    let d = dir.path();
    let empty = write(d, "empty.swf", "");
    let header = write(d, "header.swf", "; Version: 2.2\n; MaxProcs: 4\n");
    let gz = d.join("empty.swf.gz");
    {
        let file = std::fs::File::create(&gz).expect("create");
        let mut enc = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        enc.write_all(b"").expect("gzip");
        enc.finish().expect("gzip");
    }
    let two = four_processor_trace(d, "two.swf", &[job(1, 0, 10, 1, 20), job(2, 5, 10, 2, 20)]);
    let skipped = four_processor_trace(
        d,
        "skipped.swf",
        &[job(1, 0, -1, 1, 20), job(2, 5, 10, 8, 20)],
    );
    let p = |p: &std::path::Path| p.to_str().expect("utf-8").to_owned();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![p(&empty)], "the file is empty: no job lines"),
        (
            vec![p(&header)],
            "only a header (2 comment lines) and no job lines",
        ),
        (vec![p(&gz)], "the file is empty"),
        (
            vec![p(&two), "--first".into(), "0".into()],
            "--first 0 selects no job lines",
        ),
        (
            vec![p(&two), "--skip".into(), "5".into()],
            "--skip 5 passes over all 2 job lines of the file",
        ),
        (
            vec![p(&skipped)],
            "none of the window's 2 job lines can run: 1 no run time (field 4 is -1), \
             1 wider than the machine (machine of 4 processors, header MaxProcs)",
        ),
    ];
    for (args, why) in &cases {
        for command in ["replay", "compare", "thresholds"] {
            let mut argv = vec![command];
            argv.extend(args.iter().map(String::as_str));
            let out = run(&argv);
            fails_with(&out, 2, &[": nothing to schedule: ", why]);
            assert!(stdout(&out).is_empty(), "{argv:?}");
        }
    }
    // The synthetic workload too.
    let out = run(&["replay", "--synthetic-jobs", "0"]);
    fails_with(&out, 2, &["no jobs (--synthetic-jobs 0)"]);
    let out = run(&["sweep", "--synthetic-jobs", "10", "--skip", "10"]);
    fails_with(
        &out,
        2,
        &["--skip 10 passes over all 10 job lines of the workload"],
    );
    // `info` refuses an empty window but describes one whose jobs are all
    // skipped (that is what it is for).
    let out = run(&["info", &p(&header)]);
    fails_with(&out, 2, &["only a header"]);
    let out = run(&["info", &p(&skipped)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("0 runnable"), "{}", stdout(&out));
}

#[test]
fn an_invalid_machine_size_in_the_header_names_its_line() {
    let dir = scratch();
    let jobs = format!("{}{}", job(1, 0, 10, 2, 20), job(2, 5, 10, 3, 20));
    for (header, key, value, line) in [
        (
            "; Version: 2\n; MaxProcs: 0\n; MaxNodes: 64\n",
            "MaxProcs",
            "0",
            2,
        ),
        ("; MaxProcs: banana\n", "MaxProcs", "banana", 1),
        ("; MaxProcs: 4294967296\n", "MaxProcs", "4294967296", 1),
        (
            "; Note: n\n; Note: m\n; MaxNodes: -4\n",
            "MaxNodes",
            "-4",
            3,
        ),
    ] {
        let path = write(dir.path(), "bad.swf", &format!("{header}{jobs}"));
        let t = path.to_str().expect("utf-8");
        for command in ["replay", "info", "compare"] {
            let out = run(&[command, t]);
            let needle = format!("bad.swf:{line}: header {key}: '{value}' is not a machine size");
            fails_with(&out, 2, &[&needle, "--procs"]);
        }
        // --procs makes the header's size irrelevant.
        let out = run(&["replay", t, "--procs", "4", "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{header}");
        assert!(
            stdout(&out).contains("\"machine_procs\": 4"),
            "{}",
            stdout(&out)
        );
        let out = run(&["info", t, "--procs", "4"]);
        let text = stdout(&out);
        let needle = format!("invalid      line {line}: {key} '{value}' does not parse (not used)");
        assert!(text.contains(&needle), "{text}");
    }
}

#[test]
fn times_past_the_replay_clock_name_the_job_and_line() {
    let dir = scratch();
    let max = u32::MAX;
    // Line 3: a requested time of 2^32 - 1 s, submitted at t=5.
    let huge = four_processor_trace(
        dir.path(),
        "huge.swf",
        &[job(1, 0, 10, 1, 20), job(2, 5, 10, 1, i64::from(max))],
    );
    let h = huge.to_str().expect("utf-8");
    for args in [
        &["replay", h][..],
        &["compare", h],
        &["replay", h, "--policy", "conservative"],
    ] {
        let out = run(args);
        fails_with(
            &out,
            2,
            &["huge.swf:3: field 9 (requested time): 4294967295 s does not fit the replay clock"],
        );
    }
    // Without a requested time the run time is the estimate: field 4.
    let run_only = four_processor_trace(
        dir.path(),
        "run.swf",
        &[job(1, 0, i64::from(max), 1, -1), job(2, 9, 10, 1, 20)],
    );
    let out = run(&["replay", run_only.to_str().expect("utf-8")]);
    fails_with(
        &out,
        2,
        &["run.swf:2: field 4 (run time): 4294967295 s does not fit"],
    );
    // A load factor that moves submit times past the clock.
    let small = four_processor_trace(
        dir.path(),
        "small.swf",
        &[job(1, 0, 10, 1, 20), job(7, 70, 10, 1, 20)],
    );
    let s = small.to_str().expect("utf-8");
    let out = run(&["replay", s, "--load", "1e-300"]);
    fails_with(
        &out,
        2,
        &[
            "--load 1e-300 moves trace job 7 (line 3) from t=70 s to t=7.000e301 s",
            "at least 1.630e-8",
        ],
    );
    let out = run(&["sweep", s, "--loads", "1,1e-300"]);
    fails_with(&out, 2, &["--load 1e-300 moves trace job 7"]);
    // An estimate that passes the check but makes a reservation end past
    // the clock (job 1 holds the machine until 2^32 - 6; job 2 waits for
    // it): the replay stops, naming the time and the job with the largest
    // estimate.
    let late = four_processor_trace(
        dir.path(),
        "late.swf",
        &[job(1, 0, 10, 4, i64::from(max - 5)), job(2, 5, 10, 4, 100)],
    );
    let out = run(&["replay", late.to_str().expect("utf-8")]);
    fails_with(
        &out,
        1,
        &[
            "late.swf: replay stopped at t=5",
            "time overflow",
            "past the replay clock's end (4294967295 s, about 136 years)",
            "largest estimate in the system then was 4294967290 s, trace job 1 (line 2)",
        ],
    );
}

/// The JSON report of `policy` replaying `jobs` one-second jobs submitted
/// at once on one processor (up to `jobs - 1` wait together).
fn flood(jobs: u32, policy: &str) -> serde_json::Value {
    let dir = scratch();
    let mut text = String::from("; MaxProcs: 1\n");
    for n in 1..=jobs {
        text.push_str(&job(n, 0, 1, 1, 2));
    }
    let path = write(dir.path(), "flood.swf", &text);
    let out = run(&[
        "replay",
        path.to_str().expect("utf-8"),
        "--policy",
        policy,
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", super::stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["accounting"]["scheduled"], jobs);
    assert_eq!(json["max_queue"], jobs);
    assert_eq!(json["metrics"][0]["jobs"], jobs);
    json
}

#[test]
fn a_queue_longer_than_the_first_kernel_is_replayed_on_a_larger_one() {
    // 20,000 wait: more than the first two kernels' 8,192 and 16,384.
    let json = flood(20_000, "fcfs");
    assert_eq!(json["kernel_queue_capacity"], 1 << 18);
}

#[test]
fn a_queue_between_the_first_two_kernels_is_replayed_on_the_second() {
    // 10,000 wait: more than the first kernel's 8,192 and fewer than the
    // second's, so the replay that ran while reading does not count.
    let json = flood(10_000, "easy");
    assert_eq!(json["kernel_queue_capacity"], 1 << 14);
    assert_eq!(json["timings"]["replay_while_reading"], false);
}

#[test]
fn option_errors_say_what_is_wrong() {
    let (_dir, trace) = small_trace_dir();
    let t = trace.as_str();
    let out = run(&[
        "replay",
        t,
        "--policy",
        "selective",
        "--threshold",
        "5",
        "--threshold-from",
        "conservative",
    ]);
    fails_with(
        &out,
        2,
        &["--threshold-from and --threshold both set the thresholds of selective: give one or the other"],
    );
    let out = run(&[
        "compare",
        t,
        "--policies",
        "easy",
        "--threshold-from",
        "conservative",
    ]);
    fails_with(
        &out,
        2,
        &["--threshold-from is for selective and selective-d only, and the policies are conservative,easy"],
    );
    // Negative numbers are values, not options: no advice to write `-- -1`.
    for (args, needle) in [
        (
            &["replay", "--load", "-1"][..],
            "`-1` is not a load factor (a positive number",
        ),
        (&["replay", "--load", "0"], "`0` is not a load factor"),
        (
            &["sweep", "--loads", "1,-1.5"],
            "`-1.5` is not a load factor",
        ),
        (
            &["replay", "--first", "-1"],
            "`-1` is not a whole number from 0 to",
        ),
        (
            &["info", t, "--skip", "-3"],
            "`-3` is not a whole number from 0 to",
        ),
        (
            &["replay", "--procs", "-4"],
            "`-4` is not a machine size (a whole number from 1 to",
        ),
        (&["replay", "--procs", "0"], "`0` is not a machine size"),
        (
            &["replay", "--policy", "selective", "--threshold", "-2"],
            "`-2` is not a decimal number",
        ),
    ] {
        let out = run(args);
        let err = super::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: {needle:?} missing in {err}"
        );
        assert!(!err.contains("-- -"), "{args:?}: {err}");
    }
}
